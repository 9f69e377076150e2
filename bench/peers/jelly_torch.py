#!/usr/bin/env python3
"""The jelly block of `simgrad bench`'s mass_spring benchmarks in plain PyTorch.

Written for this project from the model's equations (bench/mass_spring_reference.cpp has the same
physics as a plain C++ loop), as a strong PyTorch user would write it: every spring at once
(gathers of both ends, index_add_ into the node forces), every node at once (gravity, drag, a
softplus penalty ground with smoothed Coulomb friction, semi-implicit Euler), float64. The loss is
simgrad's TrajectoryMatchLoss over every node at the first and last step. Autograd over 1,000
steps of 10^5 springs would keep tens of gigabytes of intermediates, so the gradient (with respect
to the initial velocities and the stiffnesses) recomputes segments of steps from their first
state (torch.utils.checkpoint, about the square root of the steps per segment), as simgrad's
checkpointing does. Reads its settings and the model (a JSON file written by the bench) and
prints one JSON object: median wall times, the loss and the gradient.
"""
import json
import math
import resource
import sys
import time

import torch
from torch.utils.checkpoint import checkpoint

settings = json.load(open(sys.argv[1]))
torch.set_num_threads(int(settings.get("threads", 1)))
steps, repeats = int(settings["steps"]), int(settings["repeats"])
m = settings["model"]
d = torch.float64
tensor = lambda values: torch.tensor(values, dtype=d)
x0, v0 = tensor(m["position"]).reshape(-1, 3), tensor(m["velocity"]).reshape(-1, 3)
n = x0.shape[0]
ends = torch.tensor(m["springs"], dtype=torch.long).reshape(-1, 2)
a, b = ends[:, 0].contiguous(), ends[:, 1].contiguous()
k0, c, rest, w = tensor(m["stiffness"]), tensor(m["damping"]), tensor(m["rest_length"]), tensor(m["inverse_mass"])
pinned = (w == 0.0).unsqueeze(1)
w = w.unsqueeze(1)
gravity = tensor(m["gravity"])
reference = tensor(m["reference"]).reshape(-1, 3)
dt, eps = m["dt"], m["length_epsilon"]
decay = math.exp(-m["drag"] * dt)
pen, plane = m["penalty"], m["plane"]
normal = tensor(plane["normal"])
weight = 1.0 / (n * 2)  # every node, two frames


def step(x, v, k):
    """One semi-implicit Euler step of the whole block."""
    dx = x[b] - x[a]
    length = torch.linalg.vector_norm(dx, dim=1) + eps
    u = dx / length.unsqueeze(1)
    tension = k * (length - rest) + c * ((v[b] - v[a]) * u).sum(1)
    pull = tension.unsqueeze(1) * u
    f = torch.zeros_like(x).index_add_(0, a, pull).index_add_(0, b, -pull)
    gap = x @ normal - plane["offset"]
    # softplus(-gap) with sharpness s: max(-gap, 0) + log1p(exp(-s |gap|)) / s.
    penetration = torch.clamp(-gap, min=0.0) + torch.log1p(torch.exp(-pen["sharpness"] * gap.abs())) / pen["sharpness"]
    fn = (pen["stiffness"] * penetration).unsqueeze(1)
    vt = v - (v @ normal).unsqueeze(1) * normal
    speed = torch.sqrt((vt * vt).sum(1, keepdim=True) + pen["friction_speed"] ** 2)
    f = f + fn * normal - (plane["friction"] * fn / speed) * vt
    v1 = torch.where(pinned, torch.zeros_like(v), decay * v + dt * (w * f + gravity))
    return x + dt * v1, v1


def segment(count):
    def run(x, v, k):
        for _ in range(count):
            x, v = step(x, v, k)
        return x, v
    return run


def match(x):
    return weight * ((x - reference) ** 2).sum()


def rollout(x, v, k, segment_steps):
    loss = match(x)
    t = 0
    while t < steps:
        count = min(segment_steps, steps - t)
        if segment_steps < steps:
            x, v = checkpoint(segment(count), x, v, k, use_reentrant=False)
        else:
            x, v = segment(count)(x, v, k)
        t += count
    return loss + match(x)


def forward():
    with torch.no_grad():
        return rollout(x0, v0, k0, steps).item()


segment_steps = max(1, round(math.sqrt(steps)))


def gradient():
    v = v0.clone().requires_grad_(True)
    k = k0.clone().requires_grad_(True)
    loss = rollout(x0, v, k, segment_steps)
    loss.backward()
    return loss.item(), {"initial_velocity": v.grad.reshape(-1).tolist(), "stiffness": k.grad.tolist()}


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


loss, grad = gradient()  # warm-up, and the values to compare
fw = sorted(timed(forward) for _ in range(repeats))[repeats // 2]
gr = sorted(timed(gradient) for _ in range(repeats))[repeats // 2]
print(json.dumps({"springs": int(a.shape[0]), "forward_s": fw, "gradient_s": gr, "loss": loss, "gradient": grad,
                  "threads_used": torch.get_num_threads(), "torch": torch.__version__,
                  "segment_steps": segment_steps,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}))
