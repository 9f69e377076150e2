#include "sims/contagion/estimators.hpp"

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "core/rollout.hpp"
#include "sims/contagion/epidemic.hpp"

namespace simgrad::contagion {

namespace {

// f as the one term of a trajectory loss, on its day.
class CountOnDay final : public TrajectoryLoss {
 public:
  CountOnDay(Epidemic& system, const CountWindow& f) : system_(system), f_(f) {}
  bool has_term(int t, int) const override { return t == f_.day; }
  double term(int t, std::span<const double> state) override { return model_count(system_, f_.count, t, f_.window, state); }
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override {
    model_count_adjoint(system_, f_.count, t, f_.window, state, seed, state_adjoint);
  }

 private:
  Epidemic& system_;
  CountWindow f_;
};

// f of one hard run, and d log P(its infection events) / dR: each day, every agent with a
// shedding contact (the step's residual holds its hazard sum) adds d log p / dR if infected
// that day, d log(1 - p) / dR if not.
struct ScoredRun {
  double count, score;
};
ScoredRun scored_run(const Population& population, DiseaseModel& model, const CountWindow& f) {
  Epidemic system(population, model);
  const Index n = population.agents;
  const DiseaseSettings& s = model.settings;
  std::vector<double> state(static_cast<std::size_t>(system.state_size())), next(state.size());
  std::vector<double> hazard(static_cast<std::size_t>(n));
  system.initial_state(state);
  const std::span<const double> susceptibility = model.parameters.susceptibility.values();
  double score = 0.0;
  for (int t = 0; t < f.day; ++t) {
    system.step(t, state, next, hazard);
    const double r = model.reproduction_on(t);
    const double protect = model.protected_share(t);
    for (Index i = 0; i < n; ++i) {
      const double hz = hazard[static_cast<std::size_t>(i)];
      if (state[static_cast<std::size_t>(n + i)] >= 0.0 || hz == 0.0) continue;  // not at risk
      const int a = population.age[static_cast<std::size_t>(i)];
      const double k_by_r = susceptibility[static_cast<std::size_t>(a)] /
                            s.mean_interactions[static_cast<std::size_t>(a)];
      const double p = (1.0 - protect) * -std::expm1(-r * k_by_r * hz);
      const double dp = (1.0 - protect) * std::exp(-r * k_by_r * hz) * k_by_r * hz;
      const bool infected = next[static_cast<std::size_t>(n + i)] == t + 1.0;
      score += infected ? dp / p : -dp / (1.0 - p);
    }
    state.swap(next);
  }
  return {model_count(system, f.count, f.day, f.window, state), score};
}

// f of one hard run, and its straight-through gradient by R (summed over weeks).
std::pair<double, double> pathwise_run(const Population& population, DiseaseModel& model, const CountWindow& f) {
  Epidemic system(population, model);
  CountOnDay loss(system, f);
  Rollout rollout(system, loss, f.day);
  const double count = rollout.loss_and_gradient();
  const std::span<const double> g = model.parameters.reproduction.adjoints();
  return {count, std::accumulate(g.begin(), g.end(), 0.0)};
}

// f of one hard run with R moved to r everywhere.
double count_at(const Population& population, DiseaseModel& model, const CountWindow& f, double r) {
  const Array<1> saved = model.parameters.reproduction;
  model.parameters.reproduction.fill(r);
  const double count = scored_run(population, model, f).count;
  model.parameters.reproduction = saved;
  return count;
}

EstimatorStats stats_of(const std::vector<double>& v) {
  const double n = static_cast<double>(v.size());
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double ss = 0.0;
  for (double x : v) ss += (x - mean) * (x - mean);
  const double sd = v.size() > 1 ? std::sqrt(ss / (n - 1.0)) : 0.0;
  return {mean, sd, sd / std::sqrt(n)};
}

}  // namespace

EstimatorComparison compare_estimators(const Population& population, const DiseaseModel& model, const CountWindow& f,
                                       int seeds, double step) {
  const std::span<const double> r = model.parameters.reproduction.values();
  for (double v : r)
    if (v != r[0]) throw std::invalid_argument("compare_estimators: R must be one value for every week");
  if (seeds < 2) throw std::invalid_argument("compare_estimators: needs two seeds or more");
  DiseaseModel m = model.hard_twin();
  std::vector<double> counts, scores, pathwise, differences;
  for (int k = 0; k < seeds; ++k) {
    m.settings.seed = model.settings.seed + static_cast<std::uint64_t>(k);
    const ScoredRun run = scored_run(population, m, f);
    counts.push_back(run.count);
    scores.push_back(run.score);
    pathwise.push_back(pathwise_run(population, m, f).second);
    differences.push_back((count_at(population, m, f, r[0] + step) - count_at(population, m, f, r[0] - step)) / (2.0 * step));
  }
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  std::vector<double> likelihood_ratio;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    const double baseline = (total - counts[k]) / static_cast<double>(seeds - 1);  // independent of seed k's events
    likelihood_ratio.push_back((counts[k] - baseline) * scores[k]);
  }
  return {total / seeds, stats_of(pathwise), stats_of(likelihood_ratio), stats_of(differences)};
}

}  // namespace simgrad::contagion
