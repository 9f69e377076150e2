#include "sims/contagion/seed_average.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "tune/batch.hpp"

namespace simgrad::contagion {

SeedAveragedProblem::SeedAveragedProblem(tune::Problem& inner, DiseaseModel& model, int seeds)
    : inner_(inner), model_(model), seeds_(seeds) {
  if (seeds < 1) throw std::invalid_argument("SeedAveragedProblem: needs one seed or more");
}

// The seeds are one batch (tune/batch.hpp): under MPI they spread over the processes. Each row
// is one seed's loss (and gradient); the rows are then summed in seed order, so the bits do not
// depend on where each seed ran.

double SeedAveragedProblem::value(std::span<const double> x) {
  std::vector<double> losses(static_cast<std::size_t>(seeds_));
  for_each_seed(1, losses, [&](std::span<double> row) { row[0] = inner_.value(x); });
  double sum = 0.0;
  for (double loss : losses) sum += loss;
  return sum / seeds_;
}

double SeedAveragedProblem::value_and_gradient(std::span<const double> x, std::span<double> gradient) {
  const std::size_t n = gradient.size();
  std::vector<double> rows(static_cast<std::size_t>(seeds_) * (1 + n));
  for_each_seed(1 + n, rows, [&](std::span<double> row) { row[0] = inner_.value_and_gradient(x, row.subspan(1)); });
  double sum = 0.0;
  std::fill(gradient.begin(), gradient.end(), 0.0);
  for (int k = 0; k < seeds_; ++k) {
    const double* row = &rows[static_cast<std::size_t>(k) * (1 + n)];
    sum += row[0];
    for (std::size_t i = 0; i < n; ++i) gradient[i] += row[1 + i];
  }
  for (double& g : gradient) g /= seeds_;
  return sum / seeds_;
}

void SeedAveragedProblem::for_each_seed(std::size_t width, std::span<double> rows,
                                        const std::function<void(std::span<double> row)>& evaluate) {
  const std::uint64_t base = model_.settings.seed;
  try {
    tune::batch_executor().run(static_cast<std::size_t>(seeds_), width, rows, [&](std::size_t k, std::span<double> row) {
      model_.settings.seed = base + static_cast<std::uint64_t>(k);
      evaluate(row);
    });
  } catch (...) {
    model_.settings.seed = base;
    throw;
  }
  model_.settings.seed = base;
}

}  // namespace simgrad::contagion
