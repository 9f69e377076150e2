#!/usr/bin/env python3
"""Rolling-origin evaluation of a contagion calibration scenario with held-out windows.

For each forecast origin (a number of fitted windows from the scenario's start date), the
scenario is tuned with `simgrad tune`, and the 4-window forecast of the calibrated model (mean of
the report's seeds of the hard model), of the fixed expert parameters and of the fitted SEIRM
ODE are scored against the held-out data (ND, RMSE, MAE, from result.json). Prints a Markdown
table, one row per origin and method, and the mean over origins.

  scripts/contagion_rolling_origin.py [--simgrad build/simgrad] [--scenario examples/contagion_franklin.json]
      [--origins 6,8,10,12] [--out rolling-origin] [--set data.also_fit=[] ...] [--from DIR]

--set path=JSON overrides a field of the scenario (dotted path) for an ablation. --from DIR
re-scores the parameters tuned in an earlier evaluation's folder with `simgrad run` instead of
tuning again (with --set report.forecast_reproduction="last": another rule on the same fits).
"""
import argparse
import datetime
import json
import os
import subprocess
import sys


def absolute_paths(node, base):
    """Data and population files are named relative to the scenario's folder."""
    for key in ("agents_csv", "contacts_csv", "file"):
        if key in node and isinstance(node[key], str):
            node[key] = os.path.join(base, node[key])


def set_field(scenario, assignment):
    path, value = assignment.split("=", 1)
    keys = path.split(".")
    node = scenario
    for key in keys[:-1]:
        node = node.setdefault(key, {})
    node[keys[-1]] = json.loads(value)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--simgrad", default="build/simgrad")
    parser.add_argument("--scenario", default="examples/contagion_franklin.json")
    parser.add_argument("--origins", default="6,8,10,12", help="fitted windows before each forecast origin")
    parser.add_argument("--out", default="rolling-origin")
    parser.add_argument("--set", action="append", default=[], help="path=JSON: a field changed for every origin")
    parser.add_argument("--from", dest="tuned", help="an earlier evaluation's folder: re-score its tuned parameters")
    args = parser.parse_args()

    with open(args.scenario) as f:
        base_scenario = json.load(f)
    base = os.path.dirname(os.path.abspath(args.scenario))
    rows = []
    for origin in [int(k) for k in args.origins.split(",")]:
        scenario = json.loads(json.dumps(base_scenario))
        absolute_paths(scenario["population"], base)
        absolute_paths(scenario["data"], base)
        scenario["data"]["fit_windows"] = origin
        for assignment in args.set:
            set_field(scenario, assignment)
        folder = os.path.join(args.out, "origin_%d" % origin)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "scenario.json")
        with open(path, "w") as f:
            json.dump(scenario, f, indent=1)
        if args.tuned:
            with open(os.path.join(args.tuned, "origin_%d" % origin, "result.json")) as f:
                scenario.setdefault("parameters", {}).update(json.load(f)["parameters"])
            with open(path, "w") as f:
                json.dump(scenario, f, indent=1)
            run = subprocess.run([args.simgrad, "run", path, "--json", "--quiet"], check=True, capture_output=True, text=True)
            result = json.loads(run.stdout)
            with open(os.path.join(folder, "run.json"), "w") as f:
                json.dump(result, f, indent=1)
        else:
            subprocess.run([args.simgrad, "tune", path, "--out", folder], check=True, stdout=subprocess.DEVNULL)
            with open(os.path.join(folder, "result.json")) as f:
                result = json.load(f)
        summary = result["summary"]
        forecast = summary["forecast"]
        start = datetime.date.fromisoformat(scenario["data"]["start_date"])
        window = scenario["data"].get("window", 1)
        date = start + datetime.timedelta(days=origin * window)
        for method in ("simgrad", "expert", "seirm"):
            m = forecast[method]
            rows.append((date.isoformat(), method, m["nd"], m["rmse"], m["mae"], sum(forecast["truth"])))
        print("origin %s: simgrad ND %.2f, expert %.2f, seirm %.2f" %
              (date, forecast["simgrad"]["nd"], forecast["expert"]["nd"], forecast["seirm"]["nd"]), file=sys.stderr)

    print("| forecast from | held-out deaths | method | ND | RMSE | MAE |")
    print("|---|---|---|---|---|---|")
    for date, method, nd, rmse, mae, truth in rows:
        print("| %s | %g | %s | %.2f | %.2f | %.2f |" % (date, truth, method, nd, rmse, mae))
    for method in ("simgrad", "expert", "seirm"):
        mine = [r for r in rows if r[1] == method]
        n = len(mine)
        print("| mean of %d origins | | %s | %.2f | %.2f | %.2f |" %
              (n, method, sum(r[2] for r in mine) / n, sum(r[3] for r in mine) / n, sum(r[4] for r in mine) / n))


if __name__ == "__main__":
    main()
