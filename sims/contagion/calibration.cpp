#include "sims/contagion/calibration.hpp"

#include <algorithm>
#include <cmath>

#include "core/rollout.hpp"
#include "sims/contagion/epidemic.hpp"
#include "sims/contagion/tunables.hpp"
#include "sims/contagion/seirm_ode.hpp"
#include "tune/methods.hpp"
#include "tune/problem.hpp"

namespace simgrad::contagion {

namespace {

// The counts in each window, recorded by an observer of one forward run.
template <class CountOf>
std::vector<double> observe(System& system, int days, std::span<const Observation> windows, const CountOf& count_of) {
  std::vector<double> counts(windows.size(), 0.0);
  struct NoLoss : TrajectoryLoss {
    bool has_term(int, int) const override { return false; }
    double term(int, std::span<const double>) override { return 0.0; }
    void term_adjoint(int, std::span<const double>, double, std::span<double>) override {}
  } loss;
  RolloutOptions options;
  options.observer = [&](int t, std::span<const double> state) {
    for (std::size_t k = 0; k < windows.size(); ++k)
      if (windows[k].day == t) counts[k] = count_of(windows[k], state);
  };
  Rollout(system, loss, days, options).loss();
  return counts;
}

}  // namespace

std::vector<double> run_counts(const Population& population, DiseaseModel& model, const Series& series,
                               std::span<const Observation> windows, int days) {
  Epidemic system(population, model);
  return observe(system, days, windows, [&](const Observation& o, std::span<const double> state) {
    return model_count(system, series.count, o.day, o.window, state, series.delay);
  });
}

Spread hard_counts_over_seeds(const Population& population, const DiseaseModel& model, const Series& series,
                              std::span<const Observation> windows, int days, int seeds) {
  Spread s{std::vector<double>(windows.size(), 0.0), std::vector<double>(windows.size(), 0.0)};
  DiseaseModel m = model.hard_twin();
  const double rho = share_of(m.parameters, series.share).values()[0];
  for (int k = 0; k < seeds; ++k) {
    m.settings.seed = model.settings.seed + static_cast<std::uint64_t>(k);
    const std::vector<double> c = run_counts(population, m, series, windows, days);
    for (std::size_t w = 0; w < c.size(); ++w) {
      s.mean[w] += rho * c[w];
      s.sd[w] += rho * c[w] * rho * c[w];
    }
  }
  for (std::size_t w = 0; w < windows.size(); ++w) {
    s.mean[w] /= seeds;
    s.sd[w] = std::sqrt(std::max(0.0, s.sd[w] / seeds - s.mean[w] * s.mean[w]));
  }
  return s;
}

std::vector<double> seirm_fit_and_forecast(const SeirmBaseline& baseline, const std::vector<Series>& fit, Scale scale,
                                           std::span<const Observation> windows, int days) {
  SeirmModel model;
  model.population = baseline.population;
  model.exposed_days = baseline.exposed_days;
  model.infectious_days = baseline.infectious_days;
  model.reset(days, 1.5, 0.02, 0.001);
  int last_fit_day = 0;
  bool ascertained = false;
  for (const Series& series : fit) {
    for (const Observation& o : series.observations) last_fit_day = std::max(last_fit_day, o.day);
    ascertained = ascertained || series.share == Share::kAscertainment;
  }
  SeirmOde system(model);
  SeirmCountLoss loss(system, fit, scale);
  loss.set_smoothness(baseline.smoothness);
  auto tuned = [&model](const char* name, const tune::TuneRequest& r) {
    return tune::bind(epidemic_tunables(), model.parameters, name, r);
  };
  std::vector<tune::BoundParameter> bound;
  bound.push_back(tuned("reproduction", {.leading = baseline.weeks, .lower = 0.05, .upper = 10.0, .transform = tune::Transform::log}));
  bound.push_back(tuned("mortality", {.lower = 1e-4, .upper = 0.5, .transform = tune::Transform::logit}));
  bound.push_back(tuned("initial_infected", {.lower = 1e-6, .upper = 0.1, .transform = tune::Transform::logit}));
  if (baseline.fit_reporting)
    bound.push_back(tuned("reporting", {.lower = 1e-3, .upper = 1.0, .transform = tune::Transform::logit}));
  if (ascertained) {
    model.parameters.ascertainment.values()[0] = 0.5;
    bound.push_back(tuned("ascertainment", {.lower = 1e-3, .upper = 1.0, .transform = tune::Transform::logit}));
  }
  tune::RolloutProblem problem(system, loss, last_fit_day, {}, std::move(bound));
  const tune::ParameterSpace& space = problem.space();
  tune::OptimizerOptions options;
  options.max_iterations = baseline.iterations;
  options.gradient_tolerance = 1e-10;
  auto optimizer = tune::make_optimizer("lbfgs", options);
  tune::NonFiniteAsInfinite guarded(problem);
  tune::TransformedObjective objective = space.objective(guarded);
  const std::vector<double> lower = space.optimizer_lower(), upper = space.optimizer_upper();
  optimizer->init(objective, space.to_optimizer(problem.initial()), lower, upper);
  while (!optimizer->finished()) optimizer->iterate();
  problem.assign(space.to_physical(optimizer->result().x));
  if (baseline.extend_reproduction) baseline.extend_reproduction(model.parameters.reproduction);
  const Series& first = fit.front();
  const double rho = share_of(model.parameters, first.share).values()[0];
  std::vector<double> counts = observe(system, days, windows, [&](const Observation& o, std::span<const double> state) {
    return rho * SeirmOde::count(first.count, o.window, first.delay, state);
  });
  return counts;
}

std::vector<Series> CalibrationData::fitted_series() const {
  std::vector<Series> all{fit};
  all.insert(all.end(), also_fit.begin(), also_fit.end());
  return all;
}

std::vector<Observation> CalibrationData::windows() const {
  std::vector<Observation> all = fit.observations;
  all.insert(all.end(), held_out.begin(), held_out.end());
  return all;
}

int CalibrationData::identified_weeks(const DiseaseSettings& settings) const {
  int lag = last_fit_day();
  for (const Series& series : fitted_series())
    lag = std::min(lag, series.delay + (series.count == Count::kDeaths       ? settings.removal_day()
                                        : series.count == Count::kInfections ? 0
                                                                             : settings.exposed_days));
  return std::max(0, last_fit_day() - lag) / 7 + 1;
}

ReproductionExtension extend_reproduction(const EvaluationOptions& options, int identified_weeks,
                                          Array<1>& reproduction) {
  std::vector<double> r(reproduction.values().begin(), reproduction.values().end());
  const int fitted = std::min(identified_weeks, static_cast<int>(r.size()));
  const int horizon = std::max(1, static_cast<int>(r.size()) - fitted);
  ReproductionForecast f = options.reproduction;
  ReproductionExtension out;
  for (ReproductionRule rule : {ReproductionRule::kLast, ReproductionRule::kMean, ReproductionRule::kTrend})
    out.backtest.emplace_back(rule, backtest_error({rule, f.weeks}, r, fitted, horizon));
  if (options.auto_rule) f.rule = best_rule(f.weeks, r, fitted, horizon);
  apply_forecast(f, r, fitted);
  out.rule = f.rule;
  out.weeks = f.weeks;
  out.reproduction = r;
  reproduction.assign(r, true);
  return out;
}

CalibrationEvaluation evaluate_calibration(const Population& population, const DiseaseModel& model,
                                           const CalibrationData& data, const EvaluationOptions& options, int days) {
  CalibrationEvaluation e;
  const DiseaseParameters& p = model.parameters;
  if (population.complete) {
    double shed = 0.0;
    for (int k = 0; k < model.settings.removal_day(); ++k) shed += model.shedding(k);
    e.r0 = p.reproduction.values()[0] * p.susceptibility.values()[0] / model.settings.mean_interactions[0] * shed;
  }
  const std::vector<Observation> all = data.windows();
  std::vector<double> truth;
  for (const Observation& o : all) truth.push_back(o.value);
  const int identified = data.identified_weeks(model.settings);
  // R of the weeks the fitted data cannot see follows the rule (held-out windows only).
  DiseaseModel forecast_model = model;
  e.reproduction_forecast = extend_reproduction(options, identified, forecast_model.parameters.reproduction);
  e.hard = hard_counts_over_seeds(population, forecast_model, data.fit, all, days, options.seeds);
  const std::size_t first = data.fit.observations.size();
  std::vector<double> fit_truth(truth.begin(), truth.begin() + static_cast<std::ptrdiff_t>(first));
  std::vector<double> fit_mean(e.hard.mean.begin(), e.hard.mean.begin() + static_cast<std::ptrdiff_t>(first));
  if (!fit_truth.empty()) e.hard_fit = forecast_metrics(fit_mean, fit_truth);
  for (const Series& series : data.also_fit) {
    std::vector<double> values;
    for (const Observation& o : series.observations) values.push_back(o.value);
    const Spread spread =
        hard_counts_over_seeds(population, forecast_model, series, series.observations, data.last_fit_day() + 1, options.seeds);
    e.also_fit.push_back({series.count, values, spread, forecast_metrics(spread.mean, values)});
  }
  if (data.held_out.empty() || !options.baselines) return e;

  e.forecast = true;
  e.truth.assign(truth.begin() + static_cast<std::ptrdiff_t>(first), truth.end());
  auto scored = [&](const std::vector<double>& curve) {
    ScoredForecast s;
    s.forecast.assign(curve.begin() + static_cast<std::ptrdiff_t>(first), curve.end());
    s.metrics = forecast_metrics(s.forecast, e.truth);
    return s;
  };
  e.simgrad = scored(e.hard.mean);
  // GradABM's fixed expert parameters: R 2.5, mortality 0.02, seed 0.5%, in GradABM's own
  // observation model (the count on its day: no recording delay), so that the baseline does not
  // move with this scenario's observation choices.
  Series expert_series = data.fit;
  expert_series.delay = 0;
  DiseaseModel expert = model;
  expert.parameters.reproduction.fill(2.5);
  expert.parameters.mortality.values()[0] = 0.02;
  expert.parameters.initial_infected.values()[0] = 0.005;
  e.expert = scored(hard_counts_over_seeds(population, expert, expert_series, all, days, options.seeds).mean);
  SeirmBaseline seirm{static_cast<double>(population.agents), static_cast<double>(model.settings.exposed_days),
                      static_cast<double>(model.settings.infectious_days), 200, false, identified, {}, data.smoothness};
  seirm.extend_reproduction = [&](Array<1>& r) { e.seirm_reproduction_forecast = extend_reproduction(options, identified, r); };
  e.seirm = scored(seirm_fit_and_forecast(seirm, data.fitted_series(), data.scale, all, days));
  return e;
}

}  // namespace simgrad::contagion
