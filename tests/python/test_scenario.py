"""The scenario API from Python: every simulator gives the command line's loss and gradient to the
bit; gradients agree with central differences taken from Python; arrays own their memory."""
import gc
import json
import os
import threading
import time

import numpy as np
import pytest

import simgrad
from conftest import EVERY_SIMULATOR, cli, example, flat_by_parameters


@pytest.mark.parametrize("simulator", list(EVERY_SIMULATOR))
def test_every_simulator_gives_the_command_lines_loss_and_gradient(simulator):
    path = example(EVERY_SIMULATOR[simulator])
    expected = cli("grad", path)
    scenario = simgrad.load(path)
    assert scenario.simulator == expected.get("simulator", scenario.simulator)
    result = scenario.grad()
    assert result.loss == expected["loss"]
    assert result.gradient.tolist() == flat_by_parameters(expected["gradient"], scenario.parameters)
    assert scenario.run() == expected["loss"]


def test_gradient_matches_central_differences_taken_in_python(mass_spring):
    x = mass_spring.x
    gradient = mass_spring.grad(x).gradient
    for i in range(x.size):
        h = 1e-6 * max(1.0, abs(x[i]))
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        numeric = (mass_spring.run(up) - mass_spring.run(down)) / (2 * h)
        assert np.sign(numeric) == np.sign(gradient[i])
        assert abs(numeric - gradient[i]) <= 1e-5 * abs(numeric) + 1e-9


def test_gradcheck_reports_every_component(mass_spring):
    check = mass_spring.gradcheck()
    assert check.passed and bool(check)
    assert [c.label for c in check.checks] == ["rest_length[0]", "rest_length[1]", "rest_length[2]"]
    assert all(c.ok and np.isfinite(c.numeric) for c in check.checks)


def test_parameters_by_name_and_flat(mass_spring):
    (p,) = mass_spring.parameters
    assert (p.name, p.size, p.offset) == ("rest_length", 3, 0)
    assert p.initial.tolist() == mass_spring.x.tolist()
    mass_spring["rest_length"] = [0.5, 0.5, 0.6]
    assert mass_spring.x.tolist() == [0.5, 0.5, 0.6]
    assert mass_spring["rest_length"].tolist() == [0.5, 0.5, 0.6]
    assert mass_spring.run() == mass_spring.run(np.array([0.5, 0.5, 0.6]))
    by_name = mass_spring.grad().by_name()
    assert by_name["rest_length"].shape == (3,)
    with pytest.raises(KeyError, match="the scenario tunes: rest_length"):
        mass_spring["stiffness"]


def test_values_outside_the_bounds_are_refused_naming_the_component(mass_spring):
    before = mass_spring.x
    with pytest.raises(ValueError, match=r"rest_length\[1\]"):
        mass_spring.x = [0.5, -1.0, 0.5]
    with pytest.raises(ValueError, match="not finite"):
        mass_spring.run([0.5, np.nan, 0.5])
    with pytest.raises(ValueError, match="components"):
        mass_spring.x = [0.5, 0.5]
    assert mass_spring.x.tolist() == before.tolist()  # nothing changed


def test_arrays_own_their_memory_and_outlive_the_scenario():
    scenario = simgrad.load(example("mass_spring_simple.json"))
    gradient = scenario.grad().gradient
    trajectory = scenario.trajectory(every=256)
    expected_gradient = gradient.copy()
    expected_states = trajectory.states.copy()
    assert not gradient.flags.owndata and gradient.base is not None  # simgrad's vector, not a copy
    del scenario
    gc.collect()
    assert gradient.tolist() == expected_gradient.tolist()
    assert trajectory.states.tolist() == expected_states.tolist()


def test_trajectory_keeps_every_nth_state_and_the_last(mass_spring):
    trajectory = mass_spring.trajectory(every=100)
    assert trajectory.steps.tolist() == list(range(0, 1024, 100)) + [1024]
    assert trajectory.states.shape == (len(trajectory.steps), mass_spring.state_size)
    assert trajectory.loss == mass_spring.run()
    # The first state is the scenario's start: three masses at rest (positions, then velocities).
    assert np.all(trajectory.states[0, 6:] == 0.0)


def test_same_bits_on_one_thread_and_two():
    scenario = simgrad.load(example("smoke_target.json"), threads=1)
    one = scenario.grad()
    scenario.threads = 2
    two = scenario.grad()
    assert one.loss == two.loss
    assert one.gradient.tolist() == two.gradient.tolist()


def test_a_long_call_releases_the_gil():
    scenario = simgrad.load(example("smoke_target.json"), threads=1)
    counter = 0
    done = threading.Event()

    def grad():
        scenario.grad()
        done.set()

    worker = threading.Thread(target=grad)
    worker.start()
    while not done.is_set():
        counter += 1
        time.sleep(0.001)
    worker.join()
    assert counter > 10  # the main thread ran while the gradient was computed


def test_summary_explain_compare_and_export(tmp_path):
    bridge = simgrad.load(example("ten_bar_truss.json"))
    assert bridge.summary() == cli("run", example("ten_bar_truss.json"))["summary"]
    hints = bridge.explain(hints=2)
    assert hints == cli("explain", example("ten_bar_truss.json"), "--hints", "2")
    scenario = simgrad.load(example("mass_spring_simple.json"))
    comparison = scenario.compare(budget=200, out=tmp_path / "compare")
    table = comparison.table
    # No target anywhere: the target is what CMA-ES reaches with its budget (its last generation
    # may run past it), and L-BFGS reaches it in far fewer rollouts.
    assert table["target_source"] == "cmaes_best" and table["target_loss"] == table["cmaes"]["best_loss"]
    assert 200 <= table["cmaes"]["rollouts"] < 220
    assert table["gradient"]["reached"] and table["gradient"]["rollouts"] < table["cmaes"]["rollouts"] / 10
    assert (tmp_path / "compare" / "report.html").exists()
    assert "<html" in comparison._repr_html_() or "&lt;html" in comparison._repr_html_()
    frames = scenario.export(tmp_path / "run.gltf")
    assert frames > 1 and (tmp_path / "run.gltf").stat().st_size > 0


def test_a_scenario_from_a_dict_reads_paths_against_base_dir():
    with open(example("contagion_boarding_school.json")) as f:
        spec = json.load(f)
    scenario = simgrad.Scenario(spec, name="school.json", base_dir=os.path.dirname(example("x")))
    assert scenario.run() == simgrad.load(example("contagion_boarding_school.json")).run()
    assert "contagion" in repr(scenario)


def test_bench_reports_medians(mass_spring):
    figures = mass_spring.bench(repeats=3)
    assert figures["forward_s"] > 0 and figures["gradient_s"] > 0
    assert figures["gradient_over_forward"] == figures["gradient_s"] / figures["forward_s"]


def test_random_assemblies_are_valid_machines_and_the_same_for_a_seed():
    plans = [simgrad.random_assembly_plan(seed) for seed in range(6)]
    assert plans[3] == simgrad.random_assembly_plan(3)
    assert len({tuple(p) for p in plans}) == len(plans)
    for plan in plans:
        scenario = simgrad.Scenario({
            "simulator": "rigid", "model": {"plan": plan}, "steps": 20,
            "controller": {"type": "sine_bank"},
            "loss": {"progress": {"body": "body", "direction": [1, 0, 0]}},
            "tune": {"iterations": 1}})
        gradient = scenario.grad()
        assert np.isfinite(gradient.loss) and np.all(np.isfinite(gradient.gradient))
        assert scenario.summary()["actuators"] == sum(line.startswith("motor") for line in plan)
