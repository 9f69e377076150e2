#!/usr/bin/env python3
"""DiffTaichi's smoke task in plain PyTorch, the peer of simgrad's sims/fluid in `simgrad bench`.

The same discretisation as simgrad's fluid simulator on a periodic grid: a staggered (MAC) grid,
semi-Lagrangian advection of velocity and smoke with a midpoint trace back (or, with
"backtrace": "euler", one Euler step back, as DiffTaichi's smoke example) and bilinear sampling, and a pressure projection by a fixed number of Jacobi sweeps from zero on the
mean-free divergence. Loss: mean squared difference between the final smoke and the target.
The gradient is PyTorch autograd's with respect to the whole initial velocity field.

Usage: smoke_torch.py SETTINGS.json  (written by `simgrad bench`); prints one JSON object:
forward_s (no autograd graph), gradient_s (forward plus backward) and gradient_cpu_s (its process
CPU time), medians over the repeats,
loss and gradient (x-face then y-face values, row-major from the bottom row).
"""
import json
import statistics
import sys
import time

import torch


class Smoke:
    def __init__(self, s):
        self.nx, self.ny, self.h = s["nx"], s["ny"], s["cell_size"]
        self.dt, self.steps, self.sweeps = s["dt"], s["steps"], s["jacobi_iterations"]
        self.euler = s.get("backtrace", "midpoint") == "euler"
        shape = (self.ny, self.nx)
        d = torch.float64
        self.density0 = torch.tensor(s["initial_density"], dtype=d).reshape(shape)
        self.target = torch.tensor(s["target"], dtype=d).reshape(shape)
        n = self.nx * self.ny
        self.u0 = torch.tensor(s["initial_velocity"][:n], dtype=d).reshape(shape)
        self.v0 = torch.tensor(s["initial_velocity"][n:], dtype=d).reshape(shape)
        j, i = torch.meshgrid(torch.arange(self.ny, dtype=d), torch.arange(self.nx, dtype=d), indexing="ij")
        self.i, self.j = i, j

    def sample(self, field, ox, oy, x, y):
        """Bilinear sample of a periodic lattice whose samples sit at ((i + ox) h, (j + oy) h)."""
        gx, gy = x / self.h - ox, y / self.h - oy
        fx0, fy0 = torch.floor(gx), torch.floor(gy)
        fx, fy = gx - fx0, gy - fy0
        i0 = fx0.long() % self.nx
        j0 = fy0.long() % self.ny
        i1, j1 = (i0 + 1) % self.nx, (j0 + 1) % self.ny
        flat = field.reshape(-1)
        at = lambda jj, ii: flat[jj * self.nx + ii]
        return ((1 - fx) * (1 - fy) * at(j0, i0) + fx * (1 - fy) * at(j0, i1)
                + (1 - fx) * fy * at(j1, i0) + fx * fy * at(j1, i1))

    def velocity(self, u, v, x, y):
        return self.sample(u, 0.0, 0.5, x, y), self.sample(v, 0.5, 0.0, x, y)

    def advect(self, q, ox, oy, u, v):
        x, y = (self.i + ox) * self.h, (self.j + oy) * self.h
        vx, vy = self.velocity(u, v, x, y)
        if self.euler:
            return self.sample(q, ox, oy, x - self.dt * vx, y - self.dt * vy)
        mx, my = self.velocity(u, v, x - 0.5 * self.dt * vx, y - 0.5 * self.dt * vy)
        return self.sample(q, ox, oy, x - self.dt * mx, y - self.dt * my)

    def project(self, u, v):
        h = self.h
        div = (torch.roll(u, -1, 1) - u + torch.roll(v, -1, 0) - v) / h
        b = -h * h * div
        b = b - b.mean()
        p = torch.zeros_like(b)
        for _ in range(self.sweeps):
            p = (b + torch.roll(p, -1, 1) + torch.roll(p, 1, 1) + torch.roll(p, -1, 0) + torch.roll(p, 1, 0)) / 4.0
        return u - (p - torch.roll(p, 1, 1)) / h, v - (p - torch.roll(p, 1, 0)) / h

    def loss(self, u, v):
        d = self.density0
        for _ in range(self.steps):
            u, v, d = self.advect(u, 0.0, 0.5, u, v), self.advect(v, 0.5, 0.0, u, v), self.advect(d, 0.5, 0.5, u, v)
            u, v = self.project(u, v)
        return ((d - self.target) ** 2).mean()


def main():
    settings = json.load(open(sys.argv[1]))
    torch.set_num_threads(settings["threads"])
    model = Smoke(settings)
    forward, gradient, gradient_cpu = [], [], []
    for _ in range(settings["repeats"]):
        start = time.perf_counter()
        with torch.no_grad():
            model.loss(model.u0, model.v0)
        forward.append(time.perf_counter() - start)
        start, start_cpu = time.perf_counter(), time.process_time()
        u = model.u0.clone().requires_grad_(True)
        v = model.v0.clone().requires_grad_(True)
        loss = model.loss(u, v)
        loss.backward()
        gradient.append(time.perf_counter() - start)
        gradient_cpu.append(time.process_time() - start_cpu)
    print(json.dumps({
        "forward_s": statistics.median(forward),
        "gradient_s": statistics.median(gradient),
        "gradient_cpu_s": statistics.median(gradient_cpu),
        "loss": loss.item(),
        "gradient": u.grad.reshape(-1).tolist() + v.grad.reshape(-1).tolist(),
    }))


if __name__ == "__main__":
    main()
