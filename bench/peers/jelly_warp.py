"""The jelly block of `simgrad bench`'s mass_spring benchmarks on NVIDIA Warp's CPU backend.

Written for this project from the model's equations (bench/mass_spring_reference.cpp has the same
physics as a plain C++ loop): springs with Hooke's law and a dashpot along them, scattered into
the node forces with Warp's atomic adds; nodes with gravity, drag, a softplus penalty ground with
smoothed Coulomb friction, and semi-implicit Euler. The loss is simgrad's TrajectoryMatchLoss
over every node at the first and last step. Every step's arrays are kept so that wp.Tape can run
the gradient (with respect to the initial velocities and the stiffnesses). Reads its settings
and the model (a JSON file written by the bench) and prints one JSON object: median wall times,
the loss and the gradient.
"""
import json
import os
import resource
import sys
import time

settings = json.load(open(sys.argv[1]))
os.environ.setdefault("OMP_NUM_THREADS", str(settings.get("threads", 1)))
import numpy as np
import warp as wp

wp.config.quiet = True
wp.init()
dev = "cpu"
m = settings["model"]
steps, repeats = int(settings["steps"]), int(settings["repeats"])
n = len(m["inverse_mass"])
ends = np.array(m["springs"], dtype=np.int32).reshape(-1, 2)
dt, drag, eps = m["dt"], m["drag"], m["length_epsilon"]
pen, plane = m["penalty"], m["plane"]
decay = float(np.exp(-drag * dt))
f64 = wp.float64
# Kernels read module-level numbers as constants; a plain Python float would become a float32
# constant (rounded before f64() widens it), so every one is declared in double precision.
const = lambda value: wp.constant(f64(value))
dt_, eps_, decay_ = const(dt), const(eps), const(decay)
pen_stiffness, sharpness = const(pen["stiffness"]), const(pen["sharpness"])
friction_speed_squared = const(pen["friction_speed"] ** 2)
nx, ny, nz = (const(value) for value in plane["normal"])
plane_offset, friction = const(plane["offset"]), const(plane["friction"])
gx, gy, gz = (const(value) for value in m["gravity"])
weight = const(1.0 / (n * 2))  # every node, two frames
zero, one = const(0.0), const(1.0)

@wp.kernel
def spring_forces(x: wp.array(dtype=wp.vec3d), v: wp.array(dtype=wp.vec3d), a: wp.array(dtype=wp.int32),
                  b: wp.array(dtype=wp.int32), k: wp.array(dtype=wp.float64), c: wp.array(dtype=wp.float64),
                  rest: wp.array(dtype=wp.float64), f: wp.array(dtype=wp.vec3d)):
    s = wp.tid()
    i = a[s]
    j = b[s]
    d = x[j] - x[i]
    length = wp.length(d) + eps_
    u = d / length
    tension = k[s] * (length - rest[s]) + c[s] * wp.dot(v[j] - v[i], u)
    wp.atomic_add(f, i, tension * u)
    wp.atomic_sub(f, j, tension * u)

@wp.func
def softplus_penetration(gap: wp.float64):
    # log(1 + exp(-sharpness gap)) / sharpness, without overflow on either side.
    bx = sharpness * (-gap)
    if bx > zero:
        return -gap + wp.log(one + wp.exp(-bx)) / sharpness
    return wp.log(one + wp.exp(bx)) / sharpness

@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3d), v: wp.array(dtype=wp.vec3d), f: wp.array(dtype=wp.vec3d),
              w: wp.array(dtype=wp.float64), x_out: wp.array(dtype=wp.vec3d), v_out: wp.array(dtype=wp.vec3d)):
    p = wp.tid()
    if w[p] == zero:
        x_out[p] = x[p]
        v_out[p] = wp.vec3d(zero, zero, zero)
        return
    nrm = wp.vec3d(nx, ny, nz)
    fn = pen_stiffness * softplus_penetration(wp.dot(nrm, x[p]) - plane_offset)
    vt = v[p] - wp.dot(nrm, v[p]) * nrm
    speed = wp.sqrt(wp.dot(vt, vt) + friction_speed_squared)
    force = f[p] + fn * nrm - (friction * fn / speed) * vt
    g = wp.vec3d(gx, gy, gz)
    vn = decay_ * v[p] + dt_ * (w[p] * force + g)
    v_out[p] = vn
    x_out[p] = x[p] + dt_ * vn

@wp.kernel
def match(x: wp.array(dtype=wp.vec3d), reference: wp.array(dtype=wp.vec3d), loss: wp.array(dtype=wp.float64)):
    p = wp.tid()
    d = x[p] - reference[p]
    wp.atomic_add(loss, 0, weight * wp.dot(d, d))

vec = lambda a, grad=False: wp.array(np.asarray(a, dtype=np.float64).reshape(-1, 3), dtype=wp.vec3d, device=dev, requires_grad=grad)
num = lambda a, grad=False: wp.array(np.asarray(a, dtype=np.float64), dtype=wp.float64, device=dev, requires_grad=grad)
a, b = (wp.array(ends[:, s].copy(), dtype=wp.int32, device=dev) for s in (0, 1))
k, c, rest, w = num(m["stiffness"], True), num(m["damping"]), num(m["rest_length"]), num(m["inverse_mass"])
reference = vec(m["reference"])
xs = [vec(m["position"], True)] + [wp.zeros(n, wp.vec3d, device=dev, requires_grad=True) for _ in range(steps)]
vs = [vec(m["velocity"], True)] + [wp.zeros(n, wp.vec3d, device=dev, requires_grad=True) for _ in range(steps)]
fs = [wp.zeros(n, wp.vec3d, device=dev, requires_grad=True) for _ in range(steps)]
loss = wp.zeros(1, wp.float64, device=dev, requires_grad=True)
springs = ends.shape[0]

def forward():
    loss.zero_()
    wp.launch(match, n, [xs[0], reference, loss], device=dev)
    for t in range(steps):
        fs[t].zero_()
        wp.launch(spring_forces, springs, [xs[t], vs[t], a, b, k, c, rest, fs[t]], device=dev)
        wp.launch(integrate, n, [xs[t], vs[t], fs[t], w, xs[t + 1], vs[t + 1]], device=dev)
    wp.launch(match, n, [xs[steps], reference, loss], device=dev)

def gradient():
    tape = wp.Tape()
    with tape:
        forward()
    tape.backward(loss)
    result = {"initial_velocity": vs[0].grad.numpy().ravel().tolist(), "stiffness": k.grad.numpy().tolist()}
    tape.zero()
    return result

def timed(fn):
    t0 = time.perf_counter()
    fn()
    wp.synchronize()
    return time.perf_counter() - t0

grad = gradient()  # compiles the kernels
fw = sorted(timed(forward) for _ in range(repeats))[repeats // 2]
gr = sorted(timed(gradient) for _ in range(repeats))[repeats // 2]
print(json.dumps({"springs": springs, "forward_s": fw, "gradient_s": gr, "loss": float(loss.numpy()[0]),
                  "gradient": grad, "threads_used": 1, "warp": wp.__version__,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}))
