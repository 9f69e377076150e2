#include "sims/contagion/calibration.hpp"

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
  DiseaseModel m = model;
  m.settings.straight_through = true;
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

}  // namespace simgrad::contagion
