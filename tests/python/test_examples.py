"""The Python examples at small size: each runs to its table with finite figures."""
import json
import os
import subprocess
import sys

from conftest import EXAMPLES


def run_example(name, *arguments, tmp_path):
    out = tmp_path / "figures.json"
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, "python", name), *arguments, "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(out) as f:
        return done.stdout, json.load(f)


def test_franklin_calibnn_trains_and_scores_every_method(tmp_path):
    table, rows = run_example("franklin_calibnn.py", "--origins", "8", "--epochs", "3", "--tune-iterations", "2",
                              "--seeds", "2", tmp_path=tmp_path)
    assert [r["method"] for r in rows] == ["CalibNN through simgrad", "calibrated parameters", "SEIRM ODE",
                                           "expert parameters"]
    for r in rows:
        assert all(r[k] >= 0 for k in ("nd", "rmse", "mae")), r
    assert "| mean of 1 origins | CalibNN through simgrad |" in table


def test_cheetah_controller_network_lowers_the_loss(tmp_path):
    table, figures = run_example("cheetah_controller.py", "--iterations", "8", "--tune-iterations", "2",
                                 tmp_path=tmp_path)
    history = figures["history"]
    assert len(history) == 8 and min(history[1:]) < history[0]
    assert "network, PyTorch Adam" in table
