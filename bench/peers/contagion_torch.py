#!/usr/bin/env python3
"""The contagion model in plain PyTorch, the peer of simgrad's sims/contagion in `simgrad bench`.

Same model, same population file, same noise: gather on sources, index_add_ into receivers,
straight-through Gumbel-softmax events, and Philox4x32-10 keyed by (seed, day, agent, draw)
exactly as core/rng.hpp lays it out, so both must follow identical trajectories.

Usage: contagion_torch.py SETTINGS.json  (written by `simgrad bench`); prints one JSON object:
forward_s, gradient_s (forward plus backward, medians), their process CPU times forward_cpu_s and
gradient_cpu_s, noise_s (time spent drawing the noise, left out of all four), daily_infections,
loss and gradient.
"""
import json
import sys
import time

import numpy as np
import torch

MASK32 = np.uint64(0xFFFFFFFF)


def philox_uniform(seed, step, elements, draw):
    """uniform01(seed, step, element, draw) of core/rng.hpp for an array of elements."""
    e = elements.astype(np.uint64)
    c0 = e & MASK32
    c1 = e >> np.uint64(32)
    c2 = np.full_like(e, np.uint64(step & 0xFFFFFFFF))
    c3 = np.full_like(e, np.uint64(draw))
    k0 = np.uint64(seed & 0xFFFFFFFF)
    k1 = np.uint64(((seed >> 32) ^ (step >> 32)) & 0xFFFFFFFF)
    m0, m1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    w0, w1 = np.uint64(0x9E3779B9), np.uint64(0xBB67AE85)
    for r in range(10):
        if r > 0:
            k0 = (k0 + w0) & MASK32
            k1 = (k1 + w1) & MASK32
        p0 = m0 * c0
        p1 = m1 * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ k0, p1 & MASK32,
                          (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & MASK32)
    bits = ((c0 << np.uint64(32)) | c1) >> np.uint64(12)
    return (bits.astype(np.float64) + 0.5) * 2.0 ** -52


def load_population(agents_file, contacts_file):
    """Ages, and directed contacts (source, receiver, layer) in receiver order like simgrad's CSR."""
    with open(agents_file) as f:
        f.readline()
        ages = np.loadtxt(f, delimiter=",", usecols=1, dtype=np.int64, ndmin=1)
    with open(contacts_file) as f:
        flat = np.array(f.read().replace("\n", ",").split(",")[:-1], dtype=np.int64)
    with open(contacts_file) as f:
        cols = f.readline().count(",") + 1
    edges = flat.reshape(-1, cols)
    a, b = edges[:, 0], edges[:, 1]
    layer = edges[:, 2] if cols > 2 else np.zeros_like(a)
    loop = a == b
    # Both directions of every contact (a self-loop once), stably ordered by receiver: the
    # order simgrad's rows hold them in.
    receiver = np.concatenate([a, b[~loop]])
    source = np.concatenate([b, a[~loop]])
    layers = np.concatenate([layer, layer[~loop]])
    edge_index = np.concatenate([np.arange(a.size) * 2, np.nonzero(~loop)[0] * 2 + 1])
    order = np.lexsort((edge_index, receiver))
    return ages, source[order], receiver[order], layers[order]


class Model:
    def __init__(self, s, ages, source, receiver, layer):
        self.s = s
        self.n = ages.size
        self.age = torch.from_numpy(ages)
        self.source = torch.from_numpy(source)
        self.receiver = torch.from_numpy(receiver)
        self.layer = torch.from_numpy(layer)
        self.removal = s["exposed_days"] + s["infectious_days"]
        self.agents = np.arange(self.n, dtype=np.uint64)
        self.noise_s = 0.0
        self.noise_cpu_s = 0.0

    def uniforms(self, step, draw):
        start, start_cpu = time.perf_counter(), time.process_time()
        u = torch.from_numpy(philox_uniform(self.s["seed"], step, self.agents, draw))
        self.noise_s += time.perf_counter() - start
        self.noise_cpu_s += time.process_time() - start_cpu
        return u

    def event(self, p, u):
        """Straight-through Gumbel-softmax: hard [u < p] in value, sigmoid's gradient."""
        hard = (u < p).to(torch.float64)
        pc = p.clamp(1e-300, 1.0 - 1e-16)
        x = (torch.log(pc) - torch.log1p(-pc) - torch.log(u) + torch.log1p(-u)) / self.s["temperature"]
        soft = torch.sigmoid(x)
        return hard + (soft - soft.detach()), hard

    def run(self, params):
        """The loss and the daily infections; every agent carries its occupancy: x (susceptible)
        and, for the last H days, the occupancy infected on each day (simgrad's state)."""
        s = self.s
        R, mortality, seed_share = params["reproduction"], params["mortality"], params["initial_infected"]
        S, A, g = params["susceptibility"], params["infectiousness"], params["profile"]
        weight = torch.tensor(s["layer_weight"], dtype=torch.float64)
        ibar = torch.tensor(s["mean_interactions"], dtype=torch.float64)
        H = s["history_days"]
        z0, hard0 = self.event(seed_share.expand(self.n), self.uniforms(0, 1))
        x = 1.0 - z0
        history = torch.zeros((self.n, H), dtype=torch.float64)
        history = torch.cat([z0.unsqueeze(1), history[:, 1:]], dim=1)
        tau = torch.where(hard0 > 0, torch.zeros(self.n, dtype=torch.int64), torch.full((self.n,), -1, dtype=torch.int64))
        table = torch.stack([A[0 if k < s["exposed_days"] else 1] * g[k] for k in range(self.removal)])
        w_edge = weight[self.layer]
        zero = torch.zeros((), dtype=torch.float64)
        loss = torch.zeros((), dtype=torch.float64)
        infections = []
        obs = {o[0]: o for o in s["observations"]}
        for t in range(s["days"] + 1):
            if t in obs:
                _, window, value = obs[t]
                days = [d for d in range(t - window + 1 - self.removal, t - self.removal + 1) if d >= 0]
                count = sum((mortality * history[:, d % H]).sum() for d in days) if days else zero
                d = torch.sqrt(count.clamp(min=0) + 1.0) - np.sqrt(value + 1.0)
                loss = loss + d * d
            if t == s["days"]:
                break
            recent = min(self.removal, t + 1)
            c = sum(history[:, (t - k) % H] * table[k] for k in range(recent))
            Hz = torch.zeros(self.n, dtype=torch.float64).index_add_(0, self.receiver, w_edge * c[self.source])
            r = R[min(t // 7, R.numel() - 1)]
            prob = 1.0 * -torch.expm1(-(r * S[self.age] / ibar[self.age]) * Hz)
            z, hard = self.event(prob, self.uniforms(t, 0))
            susceptible = (tau < 0) & (Hz != 0)
            z = torch.where(susceptible, z, zero)
            hard = torch.where(susceptible, hard, zero)
            infected = x * z
            x = x - infected
            slot = (t + 1) % H
            history = torch.cat([history[:, :slot], infected.unsqueeze(1), history[:, slot + 1:]], dim=1)
            tau = torch.where(hard > 0, torch.full_like(tau, t + 1), tau)
            infections.append(int(hard.sum().item()))
        return loss, infections


def main():
    s = json.load(open(sys.argv[1]))
    torch.set_num_threads(s["threads"])
    start = time.perf_counter()
    ages, source, receiver, layer = load_population(s["agents_csv"], s["contacts_csv"])
    load_s = time.perf_counter() - start
    model = Model(s, ages, source, receiver, layer)

    def parameters(requires_grad):
        p = {k: torch.tensor(s["parameters"][k], dtype=torch.float64, requires_grad=requires_grad)
             for k in ["reproduction", "mortality", "initial_infected", "susceptibility", "infectiousness", "profile"]}
        return p

    forward, gradient, forward_cpu, gradient_cpu, noise = [], [], [], [], []
    for _ in range(s["repeats"]):
        model.noise_s = model.noise_cpu_s = 0.0
        start, start_cpu = time.perf_counter(), time.process_time()
        with torch.no_grad():
            loss, infections = model.run(parameters(False))
        forward.append(time.perf_counter() - start - model.noise_s)
        forward_cpu.append(time.process_time() - start_cpu - model.noise_cpu_s)
        model.noise_s = model.noise_cpu_s = 0.0
        start, start_cpu = time.perf_counter(), time.process_time()
        p = parameters(True)
        loss_g, _ = model.run(p)
        loss_g.backward()
        gradient.append(time.perf_counter() - start - model.noise_s)
        gradient_cpu.append(time.process_time() - start_cpu - model.noise_cpu_s)
        noise.append(model.noise_s)
    print(json.dumps({
        "forward_s": float(np.median(forward)), "gradient_s": float(np.median(gradient)),
        "forward_cpu_s": float(np.median(forward_cpu)), "gradient_cpu_s": float(np.median(gradient_cpu)),
        "noise_s": float(np.median(noise)), "load_s": load_s, "loss": float(loss_g.item()),
        "daily_infections": infections,
        "gradient": {k: v.grad.tolist() for k, v in p.items()},
        "torch": torch.__version__, "threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
