"""Errors from Python: bad scenarios raise ScenarioError carrying the file, line and field the
command line prints; a run that goes non-finite raises NonFiniteError naming the step; nothing
crashes the interpreter."""
import json

import pytest

import simgrad
from conftest import example


def edited_example(tmp_path, old, new):
    with open(example("mass_spring_simple.json")) as f:
        text = f.read()
    assert old in text
    path = tmp_path / "edited.json"
    path.write_text(text.replace(old, new))
    return path


def test_a_misspelt_field_names_file_line_and_field(tmp_path):
    path = edited_example(tmp_path, '"stiffness": 10', '"stifness": 10')
    with pytest.raises(simgrad.ScenarioError) as caught:
        simgrad.load(path)
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.file.endswith("edited.json") and error.line == 14 and error.field == "stifness"
    assert 'did you mean "stiffness"?' in str(error)


def test_a_bad_value_from_a_dict_names_the_field():
    with open(example("mass_spring_simple.json")) as f:
        spec = json.load(f)
    spec["dt"] = -1
    with pytest.raises(simgrad.ScenarioError, match="dt: expected a number > 0, got -1") as caught:
        simgrad.Scenario(spec)
    assert caught.value.field == "dt"


def test_a_missing_file_and_a_bad_checkpoint_policy_are_errors(tmp_path):
    with pytest.raises(simgrad.ScenarioError):
        simgrad.load(tmp_path / "nothing.json")
    with pytest.raises(ValueError, match="checkpoint"):
        simgrad.load(example("mass_spring_simple.json"), checkpoint="most")


def test_a_run_that_goes_non_finite_names_the_step(tmp_path):
    scenario = simgrad.load(edited_example(tmp_path, '"stiffness": 10', '"stiffness": 1e200'))
    with pytest.raises(simgrad.NonFiniteError, match="non-finite value at step ") as caught:
        scenario.run()
    assert isinstance(caught.value, ArithmeticError)
    assert caught.value.step >= 0 and caught.value.kernel
    assert not caught.value.in_adjoint
    with pytest.raises(simgrad.NonFiniteError):
        scenario.grad()


def test_commands_a_simulator_lacks_are_value_errors(mass_spring):
    with pytest.raises(ValueError, match="gives no hints"):
        mass_spring.explain()
    with pytest.raises(ValueError, match="every must be 1 or more"):
        mass_spring.trajectory(every=0)
    with pytest.raises(ValueError, match="threads"):
        mass_spring.threads = -1
