#!/usr/bin/env python3
"""A calibration network trained end to end through the Franklin County agent-based model.

GradABM's idea (CalibNN): instead of fitting the epidemic's parameters directly, a neural network
maps what is known about the county and its recent signals to the parameters, and is trained
through the simulation. Here the network sees the county's age structure (GradABM's
params_25011.yaml) and, for each week, the signals of the week before (cases, deaths, doctor
visits and the two influenza-like-illness indices of county_25011_daily.csv, each scaled by its
maximum over the fitted weeks); it gives that week's reproduction number, and a second head gives
mortality, seeding and case ascertainment. Weeks past the forecast origin see the last observed
week's signals: the network never reads held-out data.

The loss is the scenario's own (weekly deaths and cases of the fitted windows, with R's
smoothness penalty): `simgrad.torch` runs the 70,916-agent model forward and returns simgrad's
exact gradient across all 84 days, and PyTorch's Adam moves the network's weights.

For each forecast origin the script trains the network, tunes the parameters directly with
simgrad (the scenario's own Adam run, the "calibrated-parameter fit"), and scores both forecasts of
the held-out weeks of deaths (ND, RMSE, MAE, from the scenario's summary, which also scores the
fixed expert parameters and an SEIRM ODE fitted to the same series). Prints a Markdown table.

  examples/python/franklin_calibnn.py [--origins 6,8,10,12] [--epochs 60] [--seeds 20]
"""
import argparse
import csv
import datetime
import json
import os
import sys
import time

import numpy as np
import torch

import simgrad
import simgrad.torch

EXAMPLES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(EXAMPLES, "data", "gradabm-franklin")
SIGNALS = ("cases", "deaths", "doctor_visits", "wili", "wcli")

# The age groups' head counts in GradABM's params_25011.yaml (age_ix_pop_dict), ages 0-19 to 80+.
AGE_POPULATION = np.array([14468, 8137, 7865, 9450, 12140, 10983, 4588, 3285], dtype=np.float64)


def weekly_signals(start: datetime.date, weeks: int) -> np.ndarray:
    """Weekly means of each signal, weeks[k] starting at start + 7 (k - 1) days: row k holds the
    week before week k (the lag the network sees). Missing days count as zero."""
    daily = {}
    with open(os.path.join(DATA, "county_25011_daily.csv")) as f:
        for row in csv.DictReader(f):
            daily[datetime.date.fromisoformat(row["time_value"])] = [float(row[s] or 0.0) for s in SIGNALS]
    out = np.zeros((weeks, len(SIGNALS)))
    for k in range(weeks):
        first = start + datetime.timedelta(days=7 * (k - 1))
        days = [daily.get(first + datetime.timedelta(days=d), [0.0] * len(SIGNALS)) for d in range(7)]
        out[k] = np.mean(days, axis=0)
    return out


class CalibNN(torch.nn.Module):
    """Per-week features to that week's R; county features to the scalar parameters."""

    def __init__(self, week_features: int, county_features: int, bounds: dict, start: dict):
        super().__init__()
        self.bounds = bounds
        self.weekly = torch.nn.Sequential(torch.nn.Linear(week_features, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
        self.county = torch.nn.Sequential(torch.nn.Linear(county_features, 16), torch.nn.Tanh(), torch.nn.Linear(16, 3))
        # Start at the expert parameters: the output biases are their logits within the bounds.
        with torch.no_grad():
            self.weekly[2].weight.mul_(0.1)
            self.county[2].weight.mul_(0.1)
            self.weekly[2].bias.fill_(self.logit("reproduction", start["reproduction"]))
            for i, name in enumerate(("mortality", "initial_infected", "ascertainment")):
                self.county[2].bias[i] = self.logit(name, start[name])

    def logit(self, name, value):
        lower, upper = self.bounds[name]
        fraction = (value - lower) / (upper - lower)
        return float(np.log(fraction) - np.log1p(-fraction))

    def squash(self, name, z):
        lower, upper = self.bounds[name]
        return lower + (upper - lower) * torch.sigmoid(z)

    def forward(self, week_inputs, county_inputs):
        parameters = {"reproduction": self.squash("reproduction", self.weekly(week_inputs).reshape(-1))}
        scalars = self.county(county_inputs)
        for i, name in enumerate(("mortality", "initial_infected", "ascertainment")):
            parameters[name] = self.squash(name, scalars[i:i + 1])
        return parameters


def forecast_scores(scenario: simgrad.Scenario, x: np.ndarray) -> dict:
    scenario.x = x
    scenario.run()
    return scenario.summary()["forecast"]


def evaluate_origin(origin: int, args) -> list:
    with open(os.path.join(EXAMPLES, "contagion_franklin.json")) as f:
        spec = json.load(f)
    spec["data"]["fit_windows"] = origin
    spec["report"]["seeds"] = args.seeds
    scenario = simgrad.Scenario(spec, name="contagion_franklin.json", base_dir=EXAMPLES, threads=args.threads)
    weeks = scenario.parameters[0].size
    bounds = {p.name: (p.lower, p.upper) for p in scenario.parameters}
    start = {p.name: float(p.initial[0]) for p in scenario.parameters}

    # Inputs: this week's lagged signals (frozen at the last observed week past the origin), its
    # position in time, and the county's age structure.
    signals = weekly_signals(datetime.date.fromisoformat(spec["data"]["start_date"]), weeks)
    signals[origin:] = signals[origin - 1]
    signals /= np.maximum(signals[:origin].max(axis=0), 1e-12)
    ages = AGE_POPULATION / AGE_POPULATION.sum()
    time_feature = np.arange(weeks, dtype=np.float64)[:, None] / weeks
    week_inputs = torch.tensor(np.hstack([signals, time_feature, np.repeat(ages[None], weeks, axis=0)]))
    county_inputs = torch.tensor(np.concatenate([ages, signals[:origin].mean(axis=0)]))

    torch.manual_seed(args.seed)
    network = CalibNN(week_inputs.shape[1], county_inputs.shape[0], bounds, start).double()
    simulation = simgrad.torch.Simulation(scenario)
    optimizer = torch.optim.Adam(network.parameters(), lr=args.learning_rate)
    began = time.perf_counter()
    best_loss, best_x = float("inf"), None
    for epoch in range(args.epochs):
        optimizer.zero_grad()
        parameters = network(week_inputs, county_inputs)
        loss = simulation(**parameters)
        loss.backward()
        optimizer.step()
        if loss.item() < best_loss:
            best_loss = loss.item()
            best_x = simulation.assemble(**{k: v.detach() for k, v in parameters.items()}).numpy().copy()
        print(f"origin {origin}: epoch {epoch + 1} loss {loss.item():.4g}", file=sys.stderr)
    network_seconds = time.perf_counter() - began

    began = time.perf_counter()
    tuned = scenario.tune(iterations=args.tune_iterations)
    tune_seconds = time.perf_counter() - began

    scores = {"CalibNN through simgrad": (forecast_scores(scenario, best_x), best_loss, network_seconds),
              "calibrated parameters": (forecast_scores(scenario, tuned.x), tuned.loss, tune_seconds)}
    forecast = scores["calibrated parameters"][0]
    date = datetime.date.fromisoformat(spec["data"]["start_date"]) + datetime.timedelta(days=7 * origin)
    rows = []
    for method, (f, fit_loss, seconds) in scores.items():
        rows.append((date.isoformat(), method, f["simgrad"], fit_loss, seconds))
    rows.append((date.isoformat(), "SEIRM ODE", forecast["seirm"], None, None))
    rows.append((date.isoformat(), "expert parameters", forecast["expert"], None, None))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--origins", default="6,8,10,12", help="fitted weeks before each forecast origin")
    parser.add_argument("--epochs", type=int, default=60)
    parser.add_argument("--learning-rate", type=float, default=0.02)
    parser.add_argument("--tune-iterations", type=int, default=0, help="the direct fit's iterations (0: the scenario's)")
    parser.add_argument("--seeds", type=int, default=20, help="seeds of the hard model each forecast averages")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()

    rows = []
    for origin in (int(o) for o in args.origins.split(",")):
        rows += evaluate_origin(origin, args)
    print("| forecast from | method | ND | RMSE | MAE | fit loss | wall s |")
    print("|---|---|---|---|---|---|---|")
    for date, method, f, fit_loss, seconds in rows:
        extra = "| |" if fit_loss is None else f"| {fit_loss:.4g} | {seconds:.1f} |"
        print(f"| {date} | {method} | {f['nd']:.2f} | {f['rmse']:.2f} | {f['mae']:.2f} {extra}")
    methods = list(dict.fromkeys(r[1] for r in rows))
    for method in methods:
        mine = [r[2] for r in rows if r[1] == method]
        print(f"| mean of {len(mine)} origins | {method} | {np.mean([m['nd'] for m in mine]):.2f} | "
              f"{np.mean([m['rmse'] for m in mine]):.2f} | {np.mean([m['mae'] for m in mine]):.2f} | | |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"date": r[0], "method": r[1], **{k: r[2][k] for k in ("nd", "rmse", "mae")},
                        "fit_loss": r[3], "wall_s": r[4]} for r in rows], f, indent=1)


if __name__ == "__main__":
    main()
