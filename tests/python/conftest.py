"""Shared helpers of the Python package's tests (pytest): where the examples and the command line
are (SIMGRAD_SOURCE_DIR, SIMGRAD_BINARY, set by ctest), and the command line's own answers."""
import json
import os
import subprocess

import pytest

SOURCE = os.environ["SIMGRAD_SOURCE_DIR"]
BINARY = os.environ["SIMGRAD_BINARY"]
EXAMPLES = os.path.join(SOURCE, "examples")

# One example per simulator, each small enough to run in about a second (shared with the C API's
# ctypes test).
with open(os.path.join(SOURCE, "tests", "data", "one_example_per_simulator.json")) as f:
    EVERY_SIMULATOR = json.load(f)


def example(name):
    return os.path.join(EXAMPLES, name)


def cli(*arguments):
    """The command line's --json answer."""
    done = subprocess.run([BINARY, *arguments, "--json"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def flat_by_parameters(by_name, parameters):
    """A {"name": value or [values]} object flattened in the scenario's parameter order."""
    flat = []
    for p in parameters:
        value = by_name[p.name]
        flat.extend(value if isinstance(value, list) else [value])
    return flat


@pytest.fixture
def mass_spring():
    import simgrad
    return simgrad.load(example("mass_spring_simple.json"))
