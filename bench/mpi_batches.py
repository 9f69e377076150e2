#!/usr/bin/env python3
"""Batches of rollouts over MPI processes on this machine: wall time of a CMA-ES tuning run, of
a compare (its CMA-ES leg is the batched part), of an epidemic tuned on a loss averaged over
noise seeds, and of a sweep, for 1 process with 1 and with all
threads, and for 2 and 4 processes of one thread each; medians of --repeats runs, the whole
command and its batched part (the optimizer's, the CMA-ES leg's or the sweep's own wall_s); and
whether every configuration wrote the same bits. Usage:
  bench/mpi_batches.py [--simgrad build/simgrad] [--repeats 3] [--only NAME]
(docs/distributed.md; the figures are in docs/benchmarks.md)."""
import argparse, json, os, shutil, statistics, subprocess, tempfile, time

parser = argparse.ArgumentParser()
parser.add_argument("--simgrad", default="build/simgrad")
parser.add_argument("--repeats", type=int, default=3)
parser.add_argument("--only", default="", help="run only the jobs whose name contains this")
args = parser.parse_args()
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_WAIT_POLICY="passive")
cores = os.cpu_count()
# name: (command, the output file whose bits must not change, the batched part's wall time)
jobs = {
    "tune jelly_fit, CMA-ES, 6 generations of 6": (
        ["tune", "examples/jelly_fit.json", "--optimizer", "cmaes", "--iterations", "6"], "result.json",
        lambda out: out["wall_s"]),
    "compare jelly_fit, budget 60": (
        ["compare", "examples/jelly_fit.json", "--budget", "60"], "report.json",
        lambda out: out["cmaes"]["wall_s"]),
    "tune baltimore_1918 on 8 noise seeds, 3 iterations": (
        ["tune", "SEEDED", "--iterations", "3"], "result.json", lambda out: out["wall_s"]),
    "sweep vent_room, 16 points with gradients": (
        ["sweep", "examples/vent_room.json", "--param", "source_x=0.5:3:4", "--param", "source_y=0.3:1.4:4",
         "--gradient"], "sweep.csv", lambda out: out["wall_s"]),
}
configurations = [(1, 1), (1, cores), (2, 1), (4, 1)]

# The 1918 Baltimore epidemic with its loss averaged over 8 noise seeds: every gradient of the
# tuning run is a batch of the seeds. The copy sits beside a link to the data it names.
scratch = tempfile.mkdtemp()
os.symlink(os.path.abspath("examples/data"), os.path.join(scratch, "data"))
seeded = os.path.join(scratch, "baltimore_seeds.json")
with open("examples/contagion_baltimore_1918.json") as original, open(seeded, "w") as copy:
    copy.write(original.read().replace('"loss": {"scale": "sqrt"}', '"loss": {"scale": "sqrt", "seeds": 8}'))
for command, _, _ in jobs.values():
    command[:] = [seeded if word == "SEEDED" else word for word in command]


def bits(path):
    """The file's content, without the figures that differ between any two runs (wall and load times)."""
    if path.endswith(".json"):
        def strip(v):
            if isinstance(v, dict): return {k: strip(x) for k, x in v.items() if "wall" not in k and not k.endswith("load_s")}
            if isinstance(v, list): return [strip(x) for x in v]
            return v
        return json.dumps(strip(json.load(open(path))), sort_keys=True)
    return open(path).read()


print(f"{'job':44} {'processes x threads':>19} {'total s':>8} {'speed-up':>8} {'batched s':>9} {'speed-up':>8} same bits")
for name, (command, output, batched_part) in jobs.items():
    if args.only not in name:
        continue
    reference_bits, base = None, None
    for processes, threads in configurations:
        totals, parts = [], []
        for _ in range(args.repeats):
            out = tempfile.mkdtemp()
            launch = [] if processes == 1 else ["mpiexec", "-n", str(processes), "--oversubscribe", "--bind-to", "none"]
            start = time.perf_counter()
            printed = subprocess.run(launch + [args.simgrad] + command +
                                     ["--threads", str(threads), "--quiet", "--json", "--out", out],
                                     env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
            totals.append(time.perf_counter() - start)
            parts.append(batched_part(json.loads(printed)))
            result = bits(os.path.join(out, output))
            shutil.rmtree(out)
        reference_bits = reference_bits or result
        total, part = statistics.median(totals), statistics.median(parts)
        base = base or (total, part)
        print(f"{name:44} {f'{processes} x {threads}':>19} {total:8.2f} {base[0] / total:8.2f} {part:9.2f} "
              f"{base[1] / part:8.2f} {result == reference_bits}", flush=True)
