#include "tune/random_search.hpp"

#include <stdexcept>

#include "core/rng.hpp"
#include "tune/box.hpp"

namespace simgrad::tune {

void RandomSearch::on_init(std::span<const double> x0) {
  if (!all_finite(lower()) || !all_finite(upper())) {
    throw std::invalid_argument("random search needs finite bounds on every parameter");
  }
  start_.assign(x0.begin(), x0.end());
  sample_.resize(x0.size());
}

double RandomSearch::step() {
  const int draw = iterations();
  if (draw == 0) return evaluate(start_);
  for (std::size_t i = 0; i < sample_.size(); ++i) {
    const double u = uniform01(options().seed, uint64_t(draw - 1), i);
    sample_[i] = lower()[i] + (upper()[i] - lower()[i]) * u;
  }
  // Rounding in lower + width * u can land a hair outside.
  project_onto_box(sample_, lower(), upper());
  return evaluate(sample_);
}

void RandomSearch::save_state(StateWriter& writer) const { writer("start", start_); }

void RandomSearch::load_state(StateReader& reader) { reader("start", start_); }

}  // namespace simgrad::tune
