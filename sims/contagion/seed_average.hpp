// A loss averaged over several noise draws of the epidemic: the straight-through gradient of one
// draw is noisy (its loss is that of one seed), and tuning on the mean over seeds seed, seed + 1,
// ..., seed + K - 1 follows the expected loss more closely at K times the cost.
#pragma once

#include <functional>
#include <span>

#include "sims/contagion/disease_model.hpp"
#include "tune/problem.hpp"

namespace simgrad::contagion {

class SeedAveragedProblem final : public tune::Problem {
 public:
  // `inner` runs `model`; both must outlive this problem. seeds >= 1.
  SeedAveragedProblem(tune::Problem& inner, DiseaseModel& model, int seeds);

  std::size_t dimension() const override { return inner_.dimension(); }
  // The mean over the seeds, summed in seed order (the same bits for any thread count).
  double value(std::span<const double> x) override;
  double value_and_gradient(std::span<const double> x, std::span<double> gradient) override;
  const tune::ParameterSpace& space() const override { return inner_.space(); }
  std::vector<double> initial() const override { return inner_.initial(); }
  void assign(std::span<const double> x) override { inner_.assign(x); }

 private:
  // Calls evaluate with the model's seed set to each seed in turn, as one batch of `width`-long
  // rows, and restores the base seed.
  void for_each_seed(std::size_t width, std::span<double> rows, const std::function<void(std::span<double> row)>& evaluate);

  tune::Problem& inner_;
  DiseaseModel& model_;
  int seeds_;
};

}  // namespace simgrad::contagion
