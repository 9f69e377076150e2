"""The jelly block of `simgrad bench`'s mass_spring benchmarks on taichi's CPU backend (DiffTaichi).

Written for this project from the model's equations (bench/mass_spring_reference.cpp has the same
physics as a plain C++ loop), in taichi's idiom as DiffTaichi's mass_spring example writes it:
fields indexed by step, springs scattering into the node forces with atomic adds, nodes with
gravity, drag, a softplus penalty ground with smoothed Coulomb friction and semi-implicit Euler.
The loss is simgrad's TrajectoryMatchLoss over every node at the first and last step; the
gradient (with respect to the initial velocities and the stiffnesses) comes from ti.ad.Tape,
which keeps every step, as DiffTaichi does. Reads its settings and the model (a JSON file written
by the bench) and prints one JSON object: median wall times, the loss and the gradient.
"""
import json
import math
import resource
import sys
import time

import numpy as np
import taichi as ti

settings = json.load(open(sys.argv[1]))
threads = int(settings.get("threads", 1))
steps, repeats = int(settings["steps"]), int(settings["repeats"])
ti.init(arch=ti.cpu, default_fp=ti.f64, cpu_max_num_threads=threads, log_level=ti.ERROR)

m = settings["model"]
n = len(m["inverse_mass"])
ends = np.array(m["springs"], dtype=np.int32).reshape(-1, 2)
springs = ends.shape[0]
dt, eps = m["dt"], m["length_epsilon"]
decay = math.exp(-m["drag"] * dt)
pen, plane = m["penalty"], m["plane"]
pen_stiffness, sharpness, friction_speed = pen["stiffness"], pen["sharpness"], pen["friction_speed"]
normal = ti.Vector(plane["normal"])
plane_offset, friction = plane["offset"], plane["friction"]
gravity = ti.Vector(m["gravity"])
weight = 1.0 / (n * 2)  # every node, two frames

x = ti.Vector.field(3, float, (steps + 1, n), needs_grad=True)
v = ti.Vector.field(3, float, (steps + 1, n), needs_grad=True)
f = ti.Vector.field(3, float, (steps, n), needs_grad=True)
a, b = ti.field(ti.i32, springs), ti.field(ti.i32, springs)
k = ti.field(float, springs, needs_grad=True)
c, rest = ti.field(float, springs), ti.field(float, springs)
w = ti.field(float, n)
reference = ti.Vector.field(3, float, n)
loss = ti.field(float, (), needs_grad=True)

a.from_numpy(ends[:, 0].copy())
b.from_numpy(ends[:, 1].copy())
k.from_numpy(np.array(m["stiffness"]))
c.from_numpy(np.array(m["damping"]))
rest.from_numpy(np.array(m["rest_length"]))
w.from_numpy(np.array(m["inverse_mass"]))
reference.from_numpy(np.array(m["reference"]).reshape(n, 3))
x0 = np.array(m["position"]).reshape(n, 3)
v0 = np.array(m["velocity"]).reshape(n, 3)

@ti.kernel
def start(x0: ti.types.ndarray(), v0: ti.types.ndarray()):
    for i in range(n):
        for d in ti.static(range(3)):
            x[0, i][d] = x0[i, d]
            v[0, i][d] = v0[i, d]

@ti.kernel
def clear_forces():
    for t, i in f:
        f[t, i] = ti.Vector([0.0, 0.0, 0.0])

@ti.kernel
def spring_forces(t: ti.i32):
    for s in range(springs):
        i, j = a[s], b[s]
        d = x[t, j] - x[t, i]
        length = d.norm() + eps
        u = d / length
        tension = k[s] * (length - rest[s]) + c[s] * (v[t, j] - v[t, i]).dot(u)
        f[t, i] += tension * u
        f[t, j] -= tension * u

@ti.func
def softplus_penetration(gap):
    bx = sharpness * (-gap)
    result = 0.0
    if bx > 0.0:
        result = -gap + ti.log(1.0 + ti.exp(-bx)) / sharpness
    else:
        result = ti.log(1.0 + ti.exp(bx)) / sharpness
    return result

@ti.kernel
def integrate(t: ti.i32):
    for p in range(n):
        if w[p] == 0.0:
            x[t + 1, p] = x[t, p]
            v[t + 1, p] = ti.Vector([0.0, 0.0, 0.0])
        else:
            fn = pen_stiffness * softplus_penetration(normal.dot(x[t, p]) - plane_offset)
            vt = v[t, p] - normal.dot(v[t, p]) * normal
            speed = ti.sqrt(vt.dot(vt) + friction_speed * friction_speed)
            force = f[t, p] + fn * normal - (friction * fn / speed) * vt
            vn = decay * v[t, p] + dt * (w[p] * force + gravity)
            v[t + 1, p] = vn
            x[t + 1, p] = x[t, p] + dt * vn

@ti.kernel
def match(t: ti.i32):
    for p in range(n):
        d = x[t, p] - reference[p]
        loss[None] += weight * d.dot(d)

def forward():
    for t in range(steps):
        spring_forces(t)
        integrate(t)
    match(0)
    match(steps)

def run(with_gradient):
    start(x0, v0)
    clear_forces()
    loss[None] = 0.0
    if not with_gradient:
        forward()
        return None
    with ti.ad.Tape(loss=loss):
        forward()
    return {"initial_velocity": v.grad.to_numpy()[0].ravel().tolist(), "stiffness": k.grad.to_numpy().tolist()}

def timed(fn):
    t0 = time.perf_counter()
    fn()
    ti.sync()
    return time.perf_counter() - t0

grad = run(True)  # compiles the kernels
fw = sorted(timed(lambda: run(False)) for _ in range(repeats))[repeats // 2]
gr = sorted(timed(lambda: run(True)) for _ in range(repeats))[repeats // 2]
print(json.dumps({"springs": springs, "forward_s": fw, "gradient_s": gr, "loss": float(loss[None]),
                  "gradient": grad, "threads_used": threads, "taichi": ".".join(map(str, ti.__version__)),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}))
