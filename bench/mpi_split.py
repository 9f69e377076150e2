#!/usr/bin/env python3
"""One model split over MPI processes on this machine (`simgrad grad --split`): the wall time of
the loss and gradient, the peak resident size of each process, the elements, ghosts and bytes
each process sends, and whether every configuration gives the one-process bits. Models: GradABM's
epidemic on a synthetic population (elements: agents), a 2D mass-spring lattice falling on
the ground and fitted to a reference motion of every node (elements: nodes; `--model lattice`),
or a periodic smoke grid carried to a target picture (elements: cells; `--model smoke`), or the
same in a room with walls, an open top and an obstacle (`--model room`).
Configurations: 1 process of 1 and of all threads (the whole model), 2 and 4 processes of one
thread each (split). Tables: strong scaling (one size, more processes), weak scaling (elements
per process fixed), and, for the epidemic, one large run. Medians of --repeats runs. Usage:
  bench/mpi_split.py [--simgrad build/simgrad] [--repeats 3] [--only strong|weak|large]
    [--model epidemic|lattice|smoke|room] [--large-agents 10000000] [--large-days 200]
(docs/distributed.md; the figures are in docs/benchmarks.md)."""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

parser = argparse.ArgumentParser()
parser.add_argument("--simgrad", default="build/simgrad")
parser.add_argument("--repeats", type=int, default=3)
parser.add_argument("--only", default="")
parser.add_argument("--model", default="epidemic", choices=["epidemic", "lattice", "smoke", "room"])
parser.add_argument("--large-agents", type=int, default=10_000_000)
parser.add_argument("--large-days", type=int, default=200)
parser.add_argument("--large-configurations", default="1x2,2x1,4x1")
args = parser.parse_args()
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_WAIT_POLICY="passive")
cores = os.cpu_count()
scratch = tempfile.mkdtemp()


def scenario(agents, days):
    """GradABM's constants, R 2.5, 0.1% seeded, expected daily deaths fitted every day (made-up
    counts: 0.01% of the agents a week), R weekly, mortality and seeding tuned; day records."""
    data = os.path.join(scratch, f"deaths_{agents}_{days}.csv")
    with open(data, "w") as f:
        f.write("day,deaths\n")
        for d in range(days):
            f.write(f"{d},{1e-4 / 7 * agents:.3f}\n")
    path = os.path.join(scratch, f"epidemic_{agents}_{days}.json")
    with open(path, "w") as f:
        json.dump({
            "simulator": "contagion",
            "population": {"synthetic": {"agents": agents, "seed": 1}},
            "disease": {"deaths": "expected"},
            "parameters": {"reproduction": 2.5, "initial_infected": 0.001},
            "data": {"file": data, "column": "deaths", "count": "deaths"},
            "days": days,
            "tune": {"parameters": [{"name": "reproduction", "lower": 0.05, "upper": 20},
                                    {"name": "mortality", "lower": 0.0001, "upper": 0.5},
                                    {"name": "initial_infected", "lower": 1e-5, "upper": 0.1}]},
            "checkpoint": "all"}, f)
    return path


def lattice(columns, rows, steps):
    """A 2D lattice of columns x rows nodes 1 cm apart (edge and diagonal springs) dropped on a
    penalty ground; every node's motion fitted to one simulated with other stiffness and
    damping (each one value for all springs, both tuned), binomial checkpoints."""
    path = os.path.join(scratch, f"lattice_{columns}x{rows}_{steps}.json")
    with open(path, "w") as f:
        json.dump({
            "simulator": "softbody", "dimension": 2, "dt": 0.0005, "steps": steps, "drag": 0.2,
            "body": {"lattice": {"size": [columns, rows], "spacing": 0.01, "origin": [0, 0.002]}},
            "mass": 0.01, "stiffness": 300, "damping": 0.2, "gravity": [0, -9.8], "initial_velocity": [0.2, -0.5],
            "planes": [{"normal": [0, 1], "offset": 0, "friction": 0.4, "model": "penalty"}],
            "penalty": {"stiffness": 2000, "sharpness": 2000, "friction_speed": 0.05},
            "loss": {"type": "trajectory_match", "stride": 20,
                     "reference": {"generate": {"stiffness": 800, "damping": 0.6}}},
            "tune": {"parameters": [{"name": "stiffness", "sharing": "uniform", "lower": 10, "upper": 5000},
                                    {"name": "damping", "sharing": "uniform", "lower": 0.001, "upper": 10}]},
            "checkpoint": "binomial:20"}, f)
    return path


def smoke(columns, rows, steps, room=False):
    """A periodic box of columns x rows cells 1 mm wide: a checker of smoke carried by a drift of
    about 5 rows a step, 6 Jacobi sweeps a step, fitted to the yin-yang picture; the gradient
    over the whole initial velocity field, binomial checkpoints. `room`: closed at the sides and
    the floor, open at the top, a round pillar in the middle, heavy smoke and viscosity."""
    path = os.path.join(scratch, f"{'room' if room else 'smoke'}_{columns}x{rows}_{steps}.json")
    picture = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "data", "smoke_target.pgm")
    scenario = {
        "simulator": "fluid", "grid": {"cells": [columns, rows], "cell_size": 0.001, "sides": "periodic"},
        "steps": steps, "dt": 0.002, "initial_velocity": [0.9, 2.4],
        "pressure": {"solver": "jacobi", "iterations": 6},
        "initial_density": {"checker": 16, "value": 0.64},
        "loss": {"target_image": picture},
        "tune": {"parameters": [{"name": "initial_velocity", "lower": -4, "upper": 4}]},
        "checkpoint": "binomial:10"}
    if room:
        scenario["grid"]["sides"] = {"left": "closed", "right": "closed", "bottom": "closed", "top": "open"}
        scenario["obstacles"] = [{"circle": [0.0005 * columns, 0.0005 * rows, 0.0001 * min(columns, rows)]}]
        scenario.update({"weight": 0.8, "viscosity": 0.0001})
    with open(path, "w") as f:
        json.dump(scenario, f)
    return path


def run(path, processes, threads):
    """One `simgrad grad`: its JSON, the whole command's wall time (population built included),
    and the largest peak resident size of its processes (through a parent of its own)."""
    command = [args.simgrad, "grad", path, "--json", "--threads", str(threads)]
    if processes > 1:
        command = ["mpiexec", "-n", str(processes), "--oversubscribe", "--bind-to", "none"] + command + ["--split"]
    parent = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True); "
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", parent] + command, env=env, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    out = json.loads(done.stdout)
    out["peak_rss_kb"] = int(done.stderr.split()[-1])
    return out, wall


def measure(agents, days, configurations, repeats, path=None):
    path = path or scenario(agents, days)
    rows, reference = [], None
    for processes, threads in configurations:
        results = [run(path, processes, threads) for _ in range(repeats)]
        out = results[0][0]
        bits = (out["loss"], json.dumps(out["gradient"], sort_keys=True))
        reference = reference or bits
        split = out.get("split", {})
        rss = split.get("peak_rss_kb_per_process")
        rows.append({
            "elements": agents, "steps": days, "processes": processes, "threads": threads,
            "gradient_s": statistics.median(r[0]["wall_s"] for r in results),
            "command_s": statistics.median(r[1] for r in results),
            "peak_rss_mb_per_process": [round(k / 1024) for k in rss] if rss else [round(out["peak_rss_kb"] / 1024)],
            "ghosts_per_process": split.get("ghosts_per_process"),
            "mb_sent_per_process": [round(b / 2**20, 1) for b in split["bytes_sent_per_process"]] if split else None,
            "same_bits": all((r[0]["loss"], json.dumps(r[0]["gradient"], sort_keys=True)) == reference for r in results)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


if args.model == "lattice":
    if args.only in ("", "strong"):
        print("# strong scaling: a lattice of 500 x 500 nodes (997,002 springs), 200 steps")
        measure(500 * 500, 200, [(1, 1), (1, cores), (2, 1), (4, 1)], args.repeats, lattice(500, 500, 200))
    if args.only in ("", "weak"):
        print("# weak scaling: 250,000 nodes per process (1,000 columns), 200 steps")
        for processes in (1, 2, 4):
            measure(250_000 * processes, 200, [(processes, 1)], args.repeats, lattice(1000, 250 * processes, 200))
    sys.exit(0)
if args.model in ("smoke", "room"):
    room = args.model == "room"
    side = 512 if room else 1024  # the room's general traces take about 5x the periodic ones' time a cell
    if args.only in ("", "strong"):
        print(f"# strong scaling: a {'room' if room else 'periodic grid'} of {side} x {side} cells, 100 steps")
        measure(side * side, 100, [(1, 1), (1, cores), (2, 1), (4, 1)], args.repeats, smoke(side, side, 100, room))
    if args.only in ("", "weak"):
        print("# weak scaling: 262,144 cells per process (1,024 columns), 100 steps")
        for processes in (1, 2, 4):
            measure(262_144 * processes, 100, [(processes, 1)], args.repeats, smoke(1024, 256 * processes, 100, room))
    sys.exit(0)
if args.only in ("", "strong"):
    print("# strong scaling: 1,000,000 agents, 200 days")
    measure(1_000_000, 200, [(1, 1), (1, cores), (2, 1), (4, 1)], args.repeats)
if args.only in ("", "weak"):
    print("# weak scaling: 500,000 agents per process, 200 days")
    for processes in (1, 2, 4):
        measure(500_000 * processes, 200, [(processes, 1)], args.repeats)
if args.only in ("", "large"):
    print(f"# large: {args.large_agents:,} agents, {args.large_days} days, one run each")
    configurations = [tuple(int(v) for v in c.split("x")) for c in args.large_configurations.split(",")]
    measure(args.large_agents, args.large_days, configurations, 1)
