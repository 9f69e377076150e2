#pragma once

// Normalized gradient descent: every step moves a set length along the descent direction,
// whatever the gradient's magnitude, which makes it indifferent to badly scaled losses and
// exploding gradients. The step length adapts: it grows by 1.2x after an improvement; after a
// worse point it halves and the next step starts again from the best point (the anchor). One
// iteration is one rollout and backward pass; its loss is that of the point it evaluated.
// Components held against a bound by their gradient are left out of the direction, so the whole
// step length goes to components that can move.

#include <limits>
#include <vector>

#include "tune/optimizer.hpp"

namespace simgrad::tune {

class NormalizedGradientDescent final : public Optimizer {
 public:
  explicit NormalizedGradientDescent(OptimizerOptions options = {})
      : Optimizer(std::move(options)) {}

  // Name in saved state and reports.
  std::string_view name() const override { return "normalized_gd"; }

  // Length of the next step, in optimizer coordinates.
  double step_length() const { return step_length_; }

 protected:
  // The Optimizer hooks, documented in optimizer.hpp.
  void on_init(std::span<const double> x0) override;
  double step() override;
  std::span<const double> current() const override { return x_; }
  void save_state(StateWriter& writer) const override;
  void load_state(StateReader& reader) override;

 private:
  // The method's fields, listed once for both saving and loading.
  template <class Self, class Archive>
  static void transfer(Self& self, Archive& archive);

  // Sets x_ one step from the anchor along its normalized, bound-respecting descent direction.
  void step_from_anchor();

  std::vector<double> x_;  // next point to evaluate
  std::vector<double> gradient_;  // scratch for x_'s gradient
  double step_length_ = 0;
  std::vector<double> anchor_x_;  // best point so far, from which every step starts
  std::vector<double> anchor_gradient_;
  double anchor_loss_ = std::numeric_limits<double>::infinity();
};

}  // namespace simgrad::tune
