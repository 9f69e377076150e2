#include "sims/contagion/seed_average.hpp"

#include <stdexcept>

namespace simgrad::contagion {

SeedAveragedProblem::SeedAveragedProblem(tune::Problem& inner, DiseaseModel& model, int seeds)
    : inner_(inner), model_(model), seeds_(seeds), seed_gradient_(inner.dimension()) {
  if (seeds < 1) throw std::invalid_argument("SeedAveragedProblem: needs one seed or more");
}

double SeedAveragedProblem::value(std::span<const double> x) {
  const std::uint64_t base = model_.settings.seed;
  double sum = 0.0;
  for (int k = 0; k < seeds_; ++k) {
    model_.settings.seed = base + static_cast<std::uint64_t>(k);
    sum += inner_.value(x);
  }
  model_.settings.seed = base;
  return sum / seeds_;
}

double SeedAveragedProblem::value_and_gradient(std::span<const double> x, std::span<double> gradient) {
  const std::uint64_t base = model_.settings.seed;
  double sum = 0.0;
  std::fill(gradient.begin(), gradient.end(), 0.0);
  for (int k = 0; k < seeds_; ++k) {
    model_.settings.seed = base + static_cast<std::uint64_t>(k);
    sum += inner_.value_and_gradient(x, seed_gradient_);
    for (std::size_t i = 0; i < gradient.size(); ++i) gradient[i] += seed_gradient_[i];
  }
  model_.settings.seed = base;
  for (double& g : gradient) g /= seeds_;
  return sum / seeds_;
}

}  // namespace simgrad::contagion
