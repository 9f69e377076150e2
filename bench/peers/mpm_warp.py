"""An MLS-MPM step on NVIDIA Warp's CPU backend, for `simgrad bench` (bench/mpm_bench.cpp).

Written for this project: the jelly block of the benchmark mpm_forward (fixed corotated, sticky
walls, gravity) in 2D, the same physics as bench/mpm_reference.cpp, its particle-to-grid transfer
a scatter with Warp's atomic adds. Every step's particle arrays are kept so that wp.Tape can run
the gradient (of the particles' mean squared distance to a target with respect to their initial
velocities). Reads its settings (a JSON file: nodes, side, steps, repeats, threads) and prints one
JSON object of median wall times.
"""
import json
import os
import sys
import time

settings = json.load(open(sys.argv[1]))
os.environ.setdefault("OMP_NUM_THREADS", str(settings.get("threads", 1)))
import numpy as np
import warp as wp

wp.config.quiet = True
wp.init()
dev = "cpu"
nodes, side, steps, repeats = (int(settings[k]) for k in ("nodes", "side", "steps", "repeats"))
dx = 1.0 / nodes
inv_dx, dt, E, nu, rho = float(nodes), 2e-4, 1e4, 0.3, 1e3
mu, la = E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))
half = 0.5 * side / nodes
count = 2 * side
spacing = 2 * half / count
vol, mass = spacing * spacing, rho * spacing * spacing
g = np.arange(count)
px, py = np.meshgrid(0.5 - half + (g + 0.5) * spacing, 0.1 + 4.0 / nodes + (g + 0.5) * spacing, indexing="ij")
x0 = np.stack([px.ravel(), py.ravel()], 1)
n = len(x0)

# Kernels read module-level numbers as constants; a plain Python float would become a float32
# constant (rounded before wp.float64() widens it), so each one is declared in double precision.
const = lambda value: wp.constant(wp.float64(value))
INV_DX, DT, DX, MASS, LA, TWO_MU = const(inv_dx), const(dt), const(dx), const(mass), const(la), const(2.0 * mu)
STRESS_SCALE, GRAVITY_DT, FOUR_INV_DX = const(-dt * 4.0 * inv_dx * inv_dx * vol), const(-9.8 * dt), const(4.0 * inv_dx)
PARTICLES = const(n)

@wp.func
def spline(f: wp.float64, o: int):
    # The quadratic B-spline weight of the node at offset o (0, 1, 2) of a particle at f cells.
    h = wp.float64(0.5)
    if o == 0:
        return h * (wp.float64(1.5) - f) * (wp.float64(1.5) - f)
    if o == 1:
        return wp.float64(0.75) - (f - wp.float64(1.0)) * (f - wp.float64(1.0))
    return h * (f - h) * (f - h)

@wp.kernel
def p2g(x: wp.array(dtype=wp.vec2d), v: wp.array(dtype=wp.vec2d), C: wp.array(dtype=wp.mat22d), F: wp.array(dtype=wp.mat22d),
        F_out: wp.array(dtype=wp.mat22d), gm: wp.array2d(dtype=wp.float64), gp: wp.array2d(dtype=wp.vec2d)):
    p = wp.tid()
    xs = x[p] * INV_DX
    bx = int(wp.floor(xs[0] - wp.float64(0.5)))
    by = int(wp.floor(xs[1] - wp.float64(0.5)))
    fx = xs - wp.vec2d(wp.float64(bx), wp.float64(by))
    f = (wp.identity(n=2, dtype=wp.float64) + DT * C[p]) * F[p]
    F_out[p] = f
    j = wp.determinant(f)
    c = f[0, 0] + f[1, 1]
    s = f[1, 0] - f[0, 1]
    ir = wp.float64(1.0) / wp.sqrt(c * c + s * s)
    r = wp.mat22d(c * ir, -s * ir, s * ir, c * ir)
    tau = TWO_MU * (f - r) * wp.transpose(f) + LA * (j - wp.float64(1.0)) * j * wp.identity(n=2, dtype=wp.float64)
    q = STRESS_SCALE * tau + MASS * C[p]
    for i in range(3):
        for k in range(3):
            weight = spline(fx[0], i) * spline(fx[1], k)
            dpos = (wp.vec2d(wp.float64(i), wp.float64(k)) - fx) * DX
            wp.atomic_add(gm, bx + i, by + k, weight * MASS)
            wp.atomic_add(gp, bx + i, by + k, weight * (MASS * v[p] + q * dpos))

@wp.kernel
def grid(gm: wp.array2d(dtype=wp.float64), gp: wp.array2d(dtype=wp.vec2d), gv: wp.array2d(dtype=wp.vec2d)):
    i, k = wp.tid()
    out = wp.vec2d(wp.float64(0.0), wp.float64(0.0))
    if gm[i, k] > wp.float64(0.0):
        out = gp[i, k] / gm[i, k] + wp.vec2d(wp.float64(0.0), GRAVITY_DT)
        if (i < 3 and out[0] < wp.float64(0.0)) or (i > nodes - 4 and out[0] > wp.float64(0.0)) or (k < 3 and out[1] < wp.float64(0.0)) or (k > nodes - 4 and out[1] > wp.float64(0.0)):
            out = wp.vec2d(wp.float64(0.0), wp.float64(0.0))
    gv[i, k] = out

@wp.kernel
def g2p(x: wp.array(dtype=wp.vec2d), gv: wp.array2d(dtype=wp.vec2d), x_out: wp.array(dtype=wp.vec2d), v_out: wp.array(dtype=wp.vec2d),
        C_out: wp.array(dtype=wp.mat22d)):
    p = wp.tid()
    xs = x[p] * INV_DX
    bx = int(wp.floor(xs[0] - wp.float64(0.5)))
    by = int(wp.floor(xs[1] - wp.float64(0.5)))
    fx = xs - wp.vec2d(wp.float64(bx), wp.float64(by))
    nv = wp.vec2d(wp.float64(0.0), wp.float64(0.0))
    nc = wp.mat22d(wp.float64(0.0), wp.float64(0.0), wp.float64(0.0), wp.float64(0.0))
    for i in range(3):
        for k in range(3):
            weight = spline(fx[0], i) * spline(fx[1], k)
            gvel = gv[bx + i, by + k]
            nv = nv + weight * gvel
            nc = nc + FOUR_INV_DX * weight * wp.outer(gvel, wp.vec2d(wp.float64(i), wp.float64(k)) - fx)
    v_out[p] = nv
    x_out[p] = x[p] + DT * nv
    C_out[p] = nc

@wp.kernel
def distance(x: wp.array(dtype=wp.vec2d), loss: wp.array(dtype=wp.float64)):
    p = wp.tid()
    d = x[p] - wp.vec2d(wp.float64(0.6), wp.float64(0.2))
    wp.atomic_add(loss, 0, wp.dot(d, d) / PARTICLES)

arr = lambda a, t, grad: wp.array(a, dtype=t, device=dev, requires_grad=grad)
xs = [arr(x0, wp.vec2d, True)] + [wp.zeros(n, wp.vec2d, device=dev, requires_grad=True) for _ in range(steps)]
vs = [arr(np.tile([1.0, -1.0], (n, 1)), wp.vec2d, True)] + [wp.zeros(n, wp.vec2d, device=dev, requires_grad=True) for _ in range(steps)]
Cs = [wp.zeros(n, wp.mat22d, device=dev, requires_grad=True) for _ in range(steps + 1)]
Fs = [arr(np.tile(np.eye(2), (n, 1, 1)), wp.mat22d, True)] + [wp.zeros(n, wp.mat22d, device=dev, requires_grad=True) for _ in range(steps)]
gms = [wp.zeros((nodes, nodes), wp.float64, device=dev, requires_grad=True) for _ in range(steps)]
gps = [wp.zeros((nodes, nodes), wp.vec2d, device=dev, requires_grad=True) for _ in range(steps)]
gvs = [wp.zeros((nodes, nodes), wp.vec2d, device=dev, requires_grad=True) for _ in range(steps)]
loss = wp.zeros(1, wp.float64, device=dev, requires_grad=True)

def forward():
    loss.zero_()
    for t in range(steps):
        gms[t].zero_()
        gps[t].zero_()
        wp.launch(p2g, n, [xs[t], vs[t], Cs[t], Fs[t], Fs[t + 1], gms[t], gps[t]], device=dev)
        wp.launch(grid, (nodes, nodes), [gms[t], gps[t], gvs[t]], device=dev)
        wp.launch(g2p, n, [xs[t], gvs[t], xs[t + 1], vs[t + 1], Cs[t + 1]], device=dev)
    wp.launch(distance, n, [xs[steps], loss], device=dev)

def timed(fn):
    t0 = time.perf_counter()
    fn()
    wp.synchronize()
    return time.perf_counter() - t0

def gradient():
    tape = wp.Tape()
    with tape:
        forward()
    tape.backward(loss)
    tape.zero()

forward(), gradient()  # compile
fw = sorted(timed(forward) for _ in range(repeats))[repeats // 2]
gr = sorted(timed(gradient) for _ in range(repeats))[repeats // 2]
print(json.dumps({"particles": n, "forward_s": fw, "gradient_s": gr, "loss": float(loss.numpy()[0]), "warp": wp.__version__}))
