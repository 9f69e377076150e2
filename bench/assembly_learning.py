#!/usr/bin/env python3
"""Learning during play on player-built machines: time to a working gait, and how often the
gradient tuner beats CMA-ES, over the example walker, rover, soft-footed walker and swimmer and
over random assemblies.

For each machine (a sine bank per motor, walking or rolling forward for `--steps` steps):
1. `compare` with CMA-ES's budget of 1,000 rollouts: the target is CMA-ES's best loss; the
   gradient tuner (L-BFGS, at most 30 iterations) reports the iterations and wall seconds it
   takes to reach it.
2. At equal rollouts: the gradient tuner's best loss after its 30 iterations against CMA-ES's
   best after the same number of rollouts.
3. Where the gradient tuner reaches the target: CMA-ES's best loss in the same wall time, and the
   gradient tuner's loss against wall time after each iteration.
4. Where it does not, a multi-start: three more runs of 30 iterations from random phases; the
   best of them against the target. And a hybrid: `--hybrid-generations` CMA-ES generations from
   the fresh sine bank, then 30 L-BFGS iterations from CMA-ES's best; its best and its rollouts
   against the target (with `--hybrid-everywhere`, on every machine).
Wall time, this machine, one run each (the machine is noisy: +-20%).

  PYTHONPATH=build/python python3 bench/assembly_learning.py [--count 50] [--steps 250] [--json out.json]
      [--seeds 0,1,7] [--hybrid-generations 10] [--hybrid-everywhere] [--examples walker,rover]
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import numpy as np

import simgrad

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def random_machine(seed, steps):
    """A rigid scenario over random assembly `seed`, set up as examples/assembly/walker.json."""
    return {
        "simulator": "rigid",
        "model": {"name": f"random_{seed}", "plan": simgrad.random_assembly_plan(seed), "substeps": 4,
                  "contact": {"width": 0.02, "slip_speed": 0.2}},
        "steps": steps,
        "controller": {"type": "sine_bank", "omega": 12.0, "bound": 10.0},
        "loss": {"progress": {"body": "body", "direction": [1.0, 0.0, 0.0]}, "effort": 0.01},
        "tune": {"optimizer": "lbfgs", "iterations": 30, "baseline_budget": 1000},
    }


def hybrid(scenario, x0, generations, iterations=30):
    """CMA-ES for `generations` generations from x0, then L-BFGS from its best: (best loss,
    rollouts, wall seconds)."""
    start = time.perf_counter()
    explored = scenario.tune(optimizer="cmaes", iterations=generations, x0=x0)
    refined = scenario.tune(optimizer="lbfgs", iterations=iterations, x0=explored.x)
    return min(explored.loss, refined.loss), explored.rollouts + refined.rollouts, time.perf_counter() - start


def measure(scenario, starts_on_failure=3, seed=0, hybrid_generations=0, hybrid_everywhere=False):
    """One machine's row: steps 1 to 3 of the module's description."""
    x0 = np.array(scenario.x)
    row = {}
    start = time.perf_counter()
    tuned = scenario.tune(x0=x0)
    row["gradient_best"] = tuned.loss
    row["gradient_rollouts"] = tuned.rollouts
    row["gradient_wall_s"] = time.perf_counter() - start
    # Loss against wall time: (seconds, best loss) after each iteration.
    row["gradient_curve"] = [(round(h[4], 3), h[3]) for h in tuned.history]
    row["hard_loss"] = scenario.hard_loss(tuned.x)
    scenario.x = x0
    table = scenario.compare(budget=1000).table
    row["initial_loss"] = table["initial_loss"]
    row["cmaes_best"] = table["cmaes"]["best_loss"]
    row["cmaes_wall_s"] = table["cmaes"]["wall_s"]
    row["reached"] = table["gradient"]["reached"]
    row["iterations_to_target"] = table["gradient"]["iterations"] if row["reached"] else None
    row["wall_s_to_target"] = table["gradient"]["wall_s"] if row["reached"] else None
    scenario.x = x0
    equal = scenario.compare(budget=tuned.rollouts, target=tuned.loss).table
    row["cmaes_best_at_equal_rollouts"] = equal["cmaes"]["best_loss"]
    row["beats_cmaes_at_equal_rollouts"] = tuned.loss < equal["cmaes"]["best_loss"]
    if row["reached"]:
        # CMA-ES given the wall time the gradient tuner took to reach the target.
        per_rollout = row["cmaes_wall_s"] / table["cmaes"]["rollouts"]
        budget = max(2, int(row["wall_s_to_target"] / per_rollout))
        scenario.x = x0
        row["cmaes_best_at_equal_wall"] = scenario.compare(budget=budget, target=row["cmaes_best"]).table["cmaes"]["best_loss"]
    if not row["reached"] and starts_on_failure > 0:
        rng = np.random.default_rng(seed)
        params = {p.name: p for p in scenario.parameters}
        best = math.inf
        for _ in range(starts_on_failure):
            x = np.array(x0)
            phase = params["phase"]
            x[phase.offset:phase.offset + phase.size] = rng.uniform(0.0, 2.0 * math.pi, phase.size)
            best = min(best, scenario.tune(x0=x).loss)
        row["multistart_best"] = best
        row["multistart_reached"] = best <= row["cmaes_best"]
    if hybrid_generations > 0 and (hybrid_everywhere or not row["reached"]):
        best, rollouts, wall_s = hybrid(scenario, x0, hybrid_generations)
        row.update(hybrid_best=best, hybrid_rollouts=rollouts, hybrid_wall_s=wall_s,
                   hybrid_reached=best <= row["cmaes_best"])
    scenario.x = x0
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=50, help="random assemblies (seeds 0 to count - 1)")
    parser.add_argument("--steps", type=int, default=250, help="steps per rollout of a random assembly")
    parser.add_argument("--json", help="write every row here")
    parser.add_argument("--seeds", help="random assemblies to measure, comma-separated (instead of 0 to count - 1)")
    parser.add_argument("--hybrid-generations", type=int, default=10,
                        help="CMA-ES generations before L-BFGS in the hybrid (0: no hybrid)")
    parser.add_argument("--hybrid-everywhere", action="store_true", help="run the hybrid on every machine")
    parser.add_argument("--examples", default="walker,rover,soft_footed_walker,swimmer",
                        help="examples/assembly/NAME.json to measure first, comma-separated ('' for none)")
    args = parser.parse_args()

    rows = {}
    hybrid_options = dict(hybrid_generations=args.hybrid_generations, hybrid_everywhere=args.hybrid_everywhere)
    for name in filter(None, args.examples.split(",")):
        s = simgrad.load(os.path.join(ROOT, "examples", "assembly", name + ".json"))
        rows[name] = measure(s, starts_on_failure=0, **hybrid_options)
        print(name, json.dumps(rows[name]), flush=True)
    seeds = [int(x) for x in args.seeds.split(",")] if args.seeds else range(args.count)
    for seed in seeds:
        s = simgrad.Scenario(random_machine(seed, args.steps), name=f"random_{seed}.json")
        rows[f"random_{seed}"] = row = measure(s, seed=seed, **hybrid_options)
        row["parts"] = sum(1 for line in simgrad.random_assembly_plan(seed) if line.split()[0] in ("block", "rod", "wheel"))
        row["motors"] = sum(1 for line in simgrad.random_assembly_plan(seed) if line.startswith("motor"))
        print(f"random_{seed}", json.dumps(row), flush=True)

    randoms = [r for k, r in rows.items() if k.startswith("random_")]
    reached = [r for r in randoms if r["reached"]]
    summary = {
        "machines": len(randoms),
        "gradient_reaches_cmaes_1000": len(reached),
        "gradient_beats_cmaes_at_equal_rollouts": sum(r["beats_cmaes_at_equal_rollouts"] for r in randoms),
        "median_wall_s_to_target": statistics.median(r["wall_s_to_target"] for r in reached) if reached else None,
        "median_iterations_to_target": statistics.median(r["iterations_to_target"] for r in reached) if reached else None,
        "multistart_rescues": sum(1 for r in randoms if r.get("multistart_reached")),
        "hybrid_rescues": sum(1 for r in randoms if not r["reached"] and r.get("hybrid_reached")),
        "hybrid_reaches": sum(1 for r in randoms if r.get("hybrid_reached")),
        "hybrid_runs": sum(1 for r in randoms if "hybrid_best" in r),
        "median_cmaes_wall_s": statistics.median(r["cmaes_wall_s"] for r in randoms) if randoms else None,
    }
    print("summary", json.dumps(summary))
    if args.json:
        with open(args.json + ".tmp", "w") as f:
            json.dump({"rows": rows, "summary": summary}, f, indent=1)
        os.replace(args.json + ".tmp", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
