"""DiffTaichi's diffmpm task on taichi's CPU backend, for `simgrad bench` (bench/mpm_bench.cpp).

Written for this project after the physics of DiffTaichi's diffmpm.py: its robot (a 0.3 x 0.1
body on four legs, two particles per cell and axis), a 128 x 128 grid, MLS-MPM with fixed
corotated stress and an active stress along y, sticky walls, and a controller of sine waves per
actuator; the loss is minus the particles' mean x after `steps` steps. Every step's particle state
is kept, as DiffTaichi does, and the gradient comes from taichi's tape. Reads its settings (a
JSON file: threads, steps, repeats, iterations) and prints one JSON object: the median forward
and gradient times (wall clock), the loss of every plain gradient-descent iteration.
"""
import json
import math
import sys
import time

import taichi as ti

settings = json.load(open(sys.argv[1]))
threads = int(settings.get("threads", 1))
steps = int(settings.get("steps", 1023))
repeats = int(settings.get("repeats", 3))
iterations = int(settings.get("iterations", 0))
ti.init(arch=ti.cpu, default_fp=ti.f64, cpu_max_num_threads=threads, log_level=ti.ERROR)

n_grid, dx = 128, 1.0 / 128
inv_dx, dt, p_vol, mu, la, gravity, bound = 128.0, 1e-3, 1.0, 10.0, 10.0, 3.8, 3
act_strength, omega, n_waves, n_act = 4.0, 20.0, 4, 4

pos, act_ids = [], []
def rect(x, y, w, h, actuator):
    wc, hc = int(w / dx) * 2, int(h / dx) * 2
    for i in range(wc):
        for j in range(hc):
            pos.append([0.1 + x + (i + 0.5) * w / wc, 0.03 + y + (j + 0.5) * h / hc])
            act_ids.append(actuator)
rect(0.0, 0.1, 0.3, 0.1, -1)
rect(0.0, 0.0, 0.05, 0.1, 0)
rect(0.05, 0.0, 0.05, 0.1, 1)
rect(0.2, 0.0, 0.05, 0.1, 2)
rect(0.25, 0.0, 0.05, 0.1, 3)
n = len(pos)

x = ti.Vector.field(2, float, (steps + 1, n), needs_grad=True)
v = ti.Vector.field(2, float, (steps + 1, n), needs_grad=True)
C = ti.Matrix.field(2, 2, float, (steps + 1, n), needs_grad=True)
F = ti.Matrix.field(2, 2, float, (steps + 1, n), needs_grad=True)
aid = ti.field(int, n)
gv_in = ti.Vector.field(2, float, (n_grid, n_grid), needs_grad=True)
gm = ti.field(float, (n_grid, n_grid), needs_grad=True)
gv_out = ti.Vector.field(2, float, (n_grid, n_grid), needs_grad=True)
weights = ti.field(float, (n_act, n_waves), needs_grad=True)
bias = ti.field(float, n_act, needs_grad=True)
actuation = ti.field(float, (steps + 1, n_act), needs_grad=True)
loss = ti.field(float, (), needs_grad=True)

@ti.kernel
def clear_grid():
    for i, j in gm:
        gv_in[i, j] = [0.0, 0.0]
        gm[i, j] = 0.0
        gv_in.grad[i, j] = [0.0, 0.0]
        gm.grad[i, j] = 0.0
        gv_out.grad[i, j] = [0.0, 0.0]

@ti.kernel
def compute_actuation(t: ti.i32):
    for a in range(n_act):
        s = 0.0
        for k in ti.static(range(n_waves)):
            s += weights[a, k] * ti.sin(omega * t * dt + 2 * math.pi / n_waves * k)
        actuation[t, a] = ti.tanh(s + bias[a])

@ti.func
def spline(fx):
    # Quadratic B-spline weights, written as products: taichi differentiates a ** 2 through a
    # logarithm, which is NaN for the negative (f - 0.5) and (f - 1) of half the particles.
    a, b, c = 1.5 - fx, fx - 1.0, fx - 0.5
    return [0.5 * a * a, 0.75 - b * b, 0.5 * c * c]

@ti.kernel
def p2g(f: ti.i32):
    for p in range(n):
        base = ti.cast(x[f, p] * inv_dx - 0.5, ti.i32)
        fx = x[f, p] * inv_dx - ti.cast(base, float)
        w = spline(fx)
        new_F = (ti.Matrix.identity(float, 2) + dt * C[f, p]) @ F[f, p]
        J = new_F.determinant()
        F[f + 1, p] = new_F
        r, s = ti.polar_decompose(new_F)
        a = 0.0
        if aid[p] >= 0:
            a = actuation[f, ti.max(0, aid[p])] * act_strength
        A = ti.Matrix([[0.0, 0.0], [0.0, 1.0]]) * a
        cauchy = 2 * mu * (new_F - r) @ new_F.transpose() + ti.Matrix.identity(float, 2) * la * (J - 1) * J
        cauchy += new_F @ A @ new_F.transpose()
        affine = -(dt * p_vol * 4 * inv_dx * inv_dx) * cauchy + C[f, p]
        for i, j in ti.static(ti.ndrange(3, 3)):
            offset = ti.Vector([i, j])
            dpos = (ti.cast(offset, float) - fx) * dx
            weight = w[i][0] * w[j][1]
            gv_in[base + offset] += weight * (v[f, p] + affine @ dpos)
            gm[base + offset] += weight

@ti.kernel
def grid_op():
    for i, j in gm:
        # As DiffTaichi writes it: 1 / (m + 1e-10) rather than a branch on m > 0, whose adjoint
        # taichi would evaluate on empty nodes too (0 / 0).
        out = gv_in[i, j] / (gm[i, j] + 1e-10)
        out[1] -= dt * gravity
        if (i < bound and out[0] < 0) or (i > n_grid - 1 - bound and out[0] > 0) or (j < bound and out[1] < 0) or (j > n_grid - 1 - bound and out[1] > 0):
            out = ti.Vector([0.0, 0.0])
        gv_out[i, j] = out

@ti.kernel
def g2p(f: ti.i32):
    for p in range(n):
        base = ti.cast(x[f, p] * inv_dx - 0.5, ti.i32)
        fx = x[f, p] * inv_dx - ti.cast(base, float)
        w = spline(fx)
        nv = ti.Vector([0.0, 0.0])
        nc = ti.Matrix([[0.0, 0.0], [0.0, 0.0]])
        for i, j in ti.static(ti.ndrange(3, 3)):
            dpos = ti.Vector([float(i), float(j)]) - fx
            g = gv_out[base[0] + i, base[1] + j]
            weight = w[i][0] * w[j][1]
            nv += weight * g
            nc += 4 * weight * g.outer_product(dpos) * inv_dx
        v[f + 1, p] = nv
        x[f + 1, p] = x[f, p] + dt * nv
        C[f + 1, p] = nc

@ti.kernel
def mean_x():
    for p in range(n):
        loss[None] += -x[steps, p][0] / n

def forward():
    for s in range(steps):
        clear_grid()
        compute_actuation(s)
        p2g(s)
        grid_op()
        g2p(s)
    loss[None] = 0.0
    mean_x()

for p in range(n):
    x[0, p] = pos[p]
    F[0, p] = [[1.0, 0.0], [0.0, 1.0]]
    aid[p] = act_ids[p]
for a in range(n_act):
    for k in range(n_waves):
        weights[a, k] = 0.01 * math.sin(1.7 * a + k)

def timed(fn):
    t0 = time.perf_counter()
    fn()
    ti.sync()
    return time.perf_counter() - t0

def gradient():
    with ti.ad.Tape(loss):
        forward()

forward(), gradient()  # compile
fw = sorted(timed(forward) for _ in range(repeats))[repeats // 2]
gr = sorted(timed(gradient) for _ in range(repeats))[repeats // 2]
losses = []
for _ in range(iterations):
    gradient()
    losses.append(loss[None])
    for a in range(n_act):
        for k in range(n_waves):
            weights[a, k] -= 0.1 * weights.grad[a, k]
        bias[a] -= 0.1 * bias.grad[a]
print(json.dumps({"particles": n, "forward_s": fw, "gradient_s": gr, "losses": losses, "taichi": ti.__version__}))
