#include "tune/normalized_gd.hpp"

#include <algorithm>
#include <cmath>

#include "tune/box.hpp"

namespace simgrad::tune {
namespace {

constexpr double kGrowth = 1.2;
constexpr double kShrink = 0.5;

}  // namespace

void NormalizedGradientDescent::on_init(std::span<const double> x0) {
  x_.assign(x0.begin(), x0.end());
  gradient_.assign(x0.size(), 0.0);
  step_length_ = options().learning_rate;
  anchor_x_ = x_;
  anchor_gradient_ = gradient_;
  anchor_loss_ = std::numeric_limits<double>::infinity();
}

double NormalizedGradientDescent::step() {
  const double loss = evaluate_with_gradient(x_, gradient_);
  const double stationarity = projected_gradient_norm(x_, gradient_, lower(), upper());
  if (loss < anchor_loss_ && std::isfinite(stationarity)) {
    // The first evaluation only sets the anchor; later improvements earn a longer step.
    if (std::isfinite(anchor_loss_)) step_length_ *= kGrowth;
    anchor_x_ = x_;
    anchor_gradient_ = gradient_;
    anchor_loss_ = loss;
    if (stationarity <= options().gradient_tolerance) {
      converge("projected gradient below tolerance");
      return loss;
    }
  } else if (!std::isfinite(anchor_loss_)) {
    converge("loss or gradient is not finite at the start");
    return loss;
  } else {
    step_length_ *= kShrink;
  }
  if (step_length_ < options().step_tolerance) {
    converge("step length below tolerance");
    return loss;
  }
  step_from_anchor();
  return loss;
}

void NormalizedGradientDescent::step_from_anchor() {
  double norm_squared = 0;
  for (std::size_t i = 0; i < x_.size(); ++i) {
    if (!blocked_by_bound(anchor_x_[i], anchor_gradient_[i], lower()[i], upper()[i])) {
      norm_squared += anchor_gradient_[i] * anchor_gradient_[i];
    }
  }
  const double scale = step_length_ / std::sqrt(norm_squared);
  for (std::size_t i = 0; i < x_.size(); ++i) {
    const bool blocked = blocked_by_bound(anchor_x_[i], anchor_gradient_[i], lower()[i], upper()[i]);
    const double move = blocked ? 0.0 : scale * anchor_gradient_[i];
    x_[i] = std::clamp(anchor_x_[i] - move, lower()[i], upper()[i]);
  }
}

template <class Self, class Archive>
void NormalizedGradientDescent::transfer(Self& self, Archive& archive) {
  archive("x", self.x_);
  archive("step_length", self.step_length_);
  archive("anchor_x", self.anchor_x_);
  archive("anchor_gradient", self.anchor_gradient_);
  archive("anchor_loss", self.anchor_loss_);
}

void NormalizedGradientDescent::save_state(StateWriter& writer) const { transfer(*this, writer); }

void NormalizedGradientDescent::load_state(StateReader& reader) { transfer(*this, reader); }

}  // namespace simgrad::tune
