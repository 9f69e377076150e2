#pragma once

// Uniform random search in the box, the floor any tuner must beat. The first iteration
// evaluates x0; every later one evaluates a point drawn uniformly in the bounds, the i-th such
// sample (from 0) keyed in core/rng.hpp by (seed, i, component), so a run is reproducible from its seed and a
// resumed run draws exactly the points the uninterrupted one would. In optimizer coordinates a
// log-transformed parameter is drawn log-uniformly in physical units. Needs finite bounds.
// One iteration is one rollout; its loss is that sample's loss.

#include <vector>

#include "tune/optimizer.hpp"

namespace simgrad::tune {

class RandomSearch final : public Optimizer {
 public:
  explicit RandomSearch(OptimizerOptions options = {}) : Optimizer(std::move(options)) {}

  // Name in saved state and reports.
  std::string_view name() const override { return "random_search"; }

 protected:
  // The Optimizer hooks, documented in optimizer.hpp.
  void on_init(std::span<const double> x0) override;
  double step() override;
  std::span<const double> current() const override { return best_x(); }
  void save_state(StateWriter& writer) const override;
  void load_state(StateReader& reader) override;

 private:
  std::vector<double> start_;   // x0, the first sample
  std::vector<double> sample_;  // scratch for the point being evaluated
};

}  // namespace simgrad::tune
