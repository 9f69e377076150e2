#!/usr/bin/env python3
"""A controller network for MuJoCo's half cheetah, trained in PyTorch through simgrad's rollout.

The scenario (examples/rigid_half_cheetah_run.json) runs the cheetah for 1 s on penalty contact
and scores forward progress against a level torso and a control cost; its tuned parameters are
the six motors' controls, held for 0.05 s each (20 blocks x 6 motors). Here a small network
writes those controls: a gait clock (sines and cosines of the block's phase at one to six
cycles per second) goes in, six torques in [-1, 1] come out, one row per block. PyTorch's Adam
trains the network's weights by simgrad's exact gradient through all 100 steps and their
contacts; the same scenario tuned directly by simgrad's L-BFGS is printed beside it.

  examples/python/cheetah_controller.py [--iterations 150] [--learning-rate 0.01]
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch

import simgrad
import simgrad.torch

EXAMPLES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class GaitNetwork(torch.nn.Module):
    """Block k's clock features to the six motors' controls."""

    def __init__(self, features: int, motors: int):
        super().__init__()
        self.layers = torch.nn.Sequential(torch.nn.Linear(features, 32), torch.nn.Tanh(), torch.nn.Linear(32, motors))

    def forward(self, clock):
        return 0.999 * torch.tanh(self.layers(clock))  # inside the controls' bounds [-1, 1]


def clock_features(blocks: int, frequencies=(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)) -> torch.Tensor:
    phase = 2 * np.pi * np.arange(blocks)[:, None] / blocks
    columns = [np.sin(f * phase) for f in frequencies] + [np.cos(f * phase) for f in frequencies]
    return torch.tensor(np.hstack(columns))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--learning-rate", type=float, default=0.01)
    parser.add_argument("--tune-iterations", type=int, default=0, help="L-BFGS iterations of the direct fit (0: the scenario's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()

    scenario = simgrad.load(os.path.join(EXAMPLES, "rigid_half_cheetah_run.json"))
    (controls,) = scenario.parameters
    motors = 6
    blocks = controls.size // motors
    clock = clock_features(blocks)
    torch.manual_seed(args.seed)
    network = GaitNetwork(clock.shape[1], motors).double()
    simulation = simgrad.torch.Simulation(scenario)
    optimizer = torch.optim.Adam(network.parameters(), lr=args.learning_rate)

    began = time.perf_counter()
    history = []
    for iteration in range(args.iterations):
        optimizer.zero_grad()
        loss = simulation(controls=network(clock).reshape(-1))  # block-major, motor-minor
        loss.backward()
        optimizer.step()
        history.append(loss.item())
        print(f"iteration {iteration + 1}: loss {loss.item():.4f}", file=sys.stderr)
    network_seconds = time.perf_counter() - began
    with torch.no_grad():
        x = network(clock).reshape(-1).numpy().copy()
    trained = {"relaxed_loss": scenario.run(x), "hard_loss": scenario.hard_loss(x), "wall_s": network_seconds}

    began = time.perf_counter()
    tuned = scenario.tune(iterations=args.tune_iterations)
    direct = {"relaxed_loss": tuned.loss, "hard_loss": scenario.hard_loss(tuned.x), "wall_s": time.perf_counter() - began}

    print("| controls | iterations | loss (penalty contact) | loss (hard contact) | wall s |")
    print("|---|---|---|---|---|")
    print(f"| untrained network | 0 | {history[0] if history else float('nan'):.4f} | | |")
    print(f"| network, PyTorch Adam | {args.iterations} | {trained['relaxed_loss']:.4f} | {trained['hard_loss']:.4f} | {network_seconds:.1f} |")
    print(f"| direct, simgrad L-BFGS | {tuned.iterations} | {direct['relaxed_loss']:.4f} | {direct['hard_loss']:.4f} | {direct['wall_s']:.1f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"history": history, "network": trained, "direct": direct}, f, indent=1)


if __name__ == "__main__":
    main()
