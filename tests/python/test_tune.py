"""Tuning from Python: the same iterations and bits as `simgrad tune`; a callback that stops the
run; Ctrl-C (a real SIGINT) stops it between iterations with KeyboardInterrupt and leaves the
requested folder complete; a saved run resumes bit for bit; CMA-ES runs as a tuning run too, and
a hybrid (CMA-ES generations, then L-BFGS from CMA-ES's best) only improves on CMA-ES."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np

import simgrad
from conftest import cli, example, flat_by_parameters


def test_tune_ends_at_the_command_lines_bits(mass_spring, tmp_path):
    expected = cli("tune", example("mass_spring_simple.json"), "--out", str(tmp_path / "cli"))
    result = mass_spring.tune()
    assert result.iterations == expected["iterations"]
    assert result.rollouts == expected["rollouts"]
    assert result.loss == expected["final_loss"]
    assert result.initial_loss == expected["initial_loss"]
    assert result.x.tolist() == flat_by_parameters(expected["parameters"], mass_spring.parameters)
    assert result.stop_reason == expected["stop_reason"]
    assert result.history.shape == (result.iterations, 5)
    assert np.all(np.diff(result.history[:, 3]) <= 0)  # the best loss never rises
    assert mass_spring.x.tolist() == mass_spring.parameters[0].initial.tolist()  # left unchanged


def test_tune_writes_the_command_lines_folder(mass_spring, tmp_path):
    mass_spring.tune(out=tmp_path / "py")
    cli("tune", example("mass_spring_simple.json"), "--out", str(tmp_path / "cli"))
    with open(tmp_path / "py" / "result.json") as f:
        ours = json.load(f)
    with open(tmp_path / "cli" / "result.json") as f:
        theirs = json.load(f)
    for key in ("final_loss", "parameters", "iterations", "rollouts", "hard_loss"):
        assert ours[key] == theirs[key], key
    for name in ("loss.svg", "report.html"):
        assert (tmp_path / "py" / name).stat().st_size > 0


def test_a_callback_sees_every_iteration_and_can_stop_the_run(mass_spring):
    seen = []

    def progress(iteration, loss, best):
        seen.append((iteration, loss, best))
        return iteration < 3

    result = mass_spring.tune(callback=progress)
    assert [s[0] for s in seen] == [1, 2, 3]
    assert result.stop_reason == "stopped by the callback"
    assert result.iterations == 3


def test_an_interrupt_from_the_callback_leaves_the_folder_complete(mass_spring, tmp_path):
    def interrupt(iteration, loss, best):
        if iteration == 2:
            raise KeyboardInterrupt

    try:
        mass_spring.tune(callback=interrupt, out=tmp_path / "run")
        raise AssertionError("KeyboardInterrupt expected")
    except KeyboardInterrupt:
        pass
    with open(tmp_path / "run" / "result.json") as f:
        result = json.load(f)
    assert result["stop_reason"] == "interrupted" and result["iterations"] == 2


def test_ctrl_c_raises_keyboard_interrupt_between_iterations(tmp_path):
    """A real SIGINT to a Python process tuning a scenario that takes seconds per iteration."""
    script = textwrap.dedent(f"""
        import sys, simgrad
        scenario = simgrad.load({example("smoke_target.json")!r}, threads=1)
        try:
            scenario.tune(iterations=1000, optimizer="adam",
                          callback=lambda i, loss, best: print("iteration", i, flush=True),
                          out={str(tmp_path / "run")!r})
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
    """)
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                               env=dict(os.environ))
    assert process.stdout.readline().startswith("iteration 1")
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 3, out  # not killed by the signal, not crashed
    with open(tmp_path / "run" / "result.json") as f:
        result = json.load(f)
    assert result["stop_reason"] == "interrupted"
    assert result["iterations"] >= 1


def test_a_saved_run_resumes_bit_for_bit(mass_spring):
    whole = mass_spring.tuning(optimizer="adam", iterations=8)
    while not whole.finished:
        whole.step()
    first = mass_spring.tuning(optimizer="adam", iterations=8)
    initial_loss = first.result().initial_loss
    for _ in range(3):
        first.step()
    state = first.save()
    resumed = mass_spring.tuning(optimizer="adam", iterations=8)
    resumed.load(state, initial_loss)
    while not resumed.finished:
        resumed.step()
    assert resumed.result().x.tolist() == whole.result().x.tolist()
    assert resumed.result().loss == whole.result().loss


def test_cmaes_is_a_tuning_run_and_a_hybrid_hands_its_best_to_lbfgs(mass_spring):
    explored = mass_spring.tune(optimizer="cmaes", iterations=4)
    assert explored.loss < explored.initial_loss
    assert explored.gradient_evaluations == 0
    assert explored.rollouts > 4  # a generation is several rollouts
    again = mass_spring.tune(optimizer="cmaes", iterations=4)
    assert again.x.tolist() == explored.x.tolist()  # seeded: the same generations
    refined = mass_spring.tune(optimizer="lbfgs", iterations=5, x0=explored.x)
    assert refined.initial_loss == explored.loss
    assert refined.loss <= explored.loss


def test_a_result_renders_its_report_inline(mass_spring):
    result = mass_spring.tune(iterations=2)
    page = result._repr_html_()
    assert page.startswith("<iframe") and "srcdoc=" in page
