#!/usr/bin/env python3
"""Batches of rollouts over MPI processes on this machine: wall time of a CMA-ES tuning run
(tune --optimizer cmaes) and of a sweep, for 1 process with 1 and with all threads, and for
2 and 4 processes of one thread each, medians of --repeats runs; and whether every configuration
gave the same bits. Usage: bench/mpi_batches.py [--simgrad build/simgrad] [--repeats 3]
(docs/distributed.md; figures in docs/benchmarks.md)."""
import argparse, json, os, shutil, statistics, subprocess, tempfile, time

parser = argparse.ArgumentParser()
parser.add_argument("--simgrad", default="build/simgrad")
parser.add_argument("--repeats", type=int, default=3)
args = parser.parse_args()
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_WAIT_POLICY="passive")
cores = os.cpu_count()
jobs = {
    "tune jelly_fit, CMA-ES, 6 generations of 5": (
        ["tune", "examples/jelly_fit.json", "--optimizer", "cmaes", "--iterations", "6"], "result.json"),
    "sweep vent_room, 16 points with gradients": (
        ["sweep", "examples/vent_room.json", "--param", "vent_speed=-1:1:4", "--param", "vent_position=0.5:2.5:4",
         "--gradient"], "sweep.csv"),
}
configurations = [(1, 1), (1, cores), (2, 1), (4, 1)]


def bits(path):
    if path.endswith(".json"):
        def strip(v):
            if isinstance(v, dict): return {k: strip(x) for k, x in v.items() if "wall" not in k}
            if isinstance(v, list): return [strip(x) for x in v]
            return v
        return json.dumps(strip(json.load(open(path))), sort_keys=True)
    return open(path).read()


print(f"{'job':46} {'processes x threads':>20} {'median wall s':>14} {'speed-up':>9} same bits")
for name, (command, output) in jobs.items():
    reference_bits, base = None, None
    for processes, threads in configurations:
        walls = []
        for _ in range(args.repeats):
            out = tempfile.mkdtemp()
            launch = [] if processes == 1 else ["mpiexec", "-n", str(processes), "--oversubscribe", "--bind-to", "none"]
            start = time.perf_counter()
            subprocess.run(launch + [args.simgrad] + command + ["--threads", str(threads), "--quiet", "--out", out],
                           env=env, check=True, stdout=subprocess.DEVNULL)
            walls.append(time.perf_counter() - start)
            result = bits(os.path.join(out, output))
            shutil.rmtree(out)
        reference_bits = reference_bits or result
        wall = statistics.median(walls)
        base = base or wall
        print(f"{name:46} {f'{processes} x {threads}':>20} {wall:14.2f} {base / wall:9.2f} {result == reference_bits}")
