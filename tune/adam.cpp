#include "tune/adam.hpp"

#include <algorithm>
#include <cmath>

#include "tune/box.hpp"

namespace simgrad::tune {

void Adam::on_init(std::span<const double> x0) {
  x_.assign(x0.begin(), x0.end());
  gradient_.assign(x0.size(), 0.0);
  first_moment_.assign(x0.size(), 0.0);
  second_moment_.assign(x0.size(), 0.0);
}

double Adam::step() {
  const double loss = evaluate_with_gradient(x_, gradient_);
  const double stationarity = projected_gradient_norm(x_, gradient_, lower(), upper());
  if (!std::isfinite(loss) || !std::isfinite(stationarity)) {
    converge("loss or gradient is not finite");
    return loss;
  }
  if (stationarity <= options().gradient_tolerance) {
    converge("projected gradient below tolerance");
    return loss;
  }
  const OptimizerOptions& o = options();
  const double update = iterations() + 1.0;  // bias correction needs the 1-based update count
  const double first_correction = 1.0 - std::pow(o.adam_beta1, update);
  const double second_correction = 1.0 - std::pow(o.adam_beta2, update);
  for (std::size_t i = 0; i < x_.size(); ++i) {
    first_moment_[i] = o.adam_beta1 * first_moment_[i] + (1.0 - o.adam_beta1) * gradient_[i];
    second_moment_[i] =
        o.adam_beta2 * second_moment_[i] + (1.0 - o.adam_beta2) * gradient_[i] * gradient_[i];
    const double mean = first_moment_[i] / first_correction;
    const double scale = std::sqrt(second_moment_[i] / second_correction) + o.adam_epsilon;
    x_[i] = std::clamp(x_[i] - o.learning_rate * mean / scale, lower()[i], upper()[i]);
  }
  return loss;
}

template <class Self, class Archive>
void Adam::transfer(Self& self, Archive& archive) {
  archive("x", self.x_);
  archive("first_moment", self.first_moment_);
  archive("second_moment", self.second_moment_);
}

void Adam::save_state(StateWriter& writer) const { transfer(*this, writer); }

void Adam::load_state(StateReader& reader) { transfer(*this, reader); }

}  // namespace simgrad::tune
