#!/usr/bin/env python3
"""What a call from Python costs over the same call made in C++, and a rollout through the
PyTorch bridge against the command line.

1. Call overhead: `scenario.run()` and `scenario.grad()` timed from Python, against the same
   calls timed inside the extension module (Scenario._core.time_calls), on a scenario whose
   rollout is a single step, so that the difference is the crossing itself. Medians, wall time.
2. A 1,000-step rollout's loss and gradient through `simgrad.torch` (forward and backward),
   against `simgrad grad`'s own wall_s for the same scenario, side by side in one run.

  PYTHONPATH=build/python python3 bench/python_overhead.py [--simgrad build/simgrad] [--repeats 200]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

import simgrad
import simgrad.torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mass_spring(steps):
    """mass_spring_simple with another step count."""
    with open(os.path.join(ROOT, "examples", "mass_spring_simple.json")) as f:
        spec = json.load(f)
    spec["steps"] = steps
    return spec


def per_call(function, repeats):
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simgrad", default=os.path.join(ROOT, "build", "simgrad"))
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--steps", type=int, default=1000)
    args = parser.parse_args()

    print("| call | from Python (us) | in C++ (us) | overhead (us) |")
    print("|---|---|---|---|")
    one_step = simgrad.Scenario(mass_spring(1), threads=1)
    for name, gradient, call in (("run()", False, one_step.run), ("grad()", True, one_step.grad)):
        for _ in range(20):
            call()  # warm
        python = per_call(call, args.repeats)
        native = statistics.median(one_step._core.time_calls(args.repeats, gradient))
        print(f"| {name}, 1 step | {python * 1e6:.1f} | {native * 1e6:.1f} | {(python - native) * 1e6:.1f} |")

    print()
    print(f"| {args.steps}-step rollout, loss and gradient (ms) | simgrad grad's wall_s | the same call in the module | simgrad.torch forward + backward | bridge over command line |")
    print("|---|---|---|---|---|")
    for name in ("mass_spring_simple.json", "creature_robot1.json"):
        with open(os.path.join(ROOT, "examples", name)) as f:
            spec = json.load(f)
        spec["steps"] = args.steps
        cli, native, bridge = side_by_side(args, spec)
        print(f"| {name} | {cli * 1e3:.3f} | {native * 1e3:.3f} | {bridge * 1e3:.3f} | {bridge / cli:.2f} |")


def side_by_side(args, spec):
    """Medians of simgrad grad's own wall_s, of the same gradient timed inside the module, and of
    the bridge's loss and backward; rounds interleaved, each in-process figure taken warm."""
    scenario = simgrad.Scenario(spec, threads=1)
    x = torch.tensor(scenario.x, requires_grad=True)

    def bridge():
        simgrad.torch.rollout_loss(scenario, x).backward()
        x.grad = None

    with tempfile.NamedTemporaryFile("w", suffix=".json", dir=os.path.join(ROOT, "examples"), delete=False) as f:
        json.dump(spec, f)  # in examples/, so that its relative paths resolve
    try:
        cli, native, ours = [], [], []
        for _ in range(max(5, args.repeats // 20)):  # interleaved, so all see the same machine
            done = subprocess.run([args.simgrad, "grad", f.name, "--json", "--threads", "1"],
                                  capture_output=True, text=True, check=True)
            cli.append(json.loads(done.stdout)["wall_s"])
            bridge()  # warm again after the command line ran
            ours.append(per_call(bridge, 5))
            native.append(statistics.median(scenario._core.time_calls(5, True)))
    finally:
        os.unlink(f.name)
    return statistics.median(cli), statistics.median(native), statistics.median(ours)


if __name__ == "__main__":
    sys.exit(main())
