#pragma once

// Adam (Kingma and Ba 2015) with bias correction, projected onto the box after every step.
// One iteration is one rollout and backward pass at the current point, then one step. Its loss
// is the loss at the point it started from, since the new point is not evaluated until the next
// iteration.

#include <vector>

#include "tune/optimizer.hpp"

namespace simgrad::tune {

class Adam final : public Optimizer {
 public:
  explicit Adam(OptimizerOptions options = {}) : Optimizer(std::move(options)) {}

  // Name in saved state and reports.
  std::string_view name() const override { return "adam"; }

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

  std::vector<double> x_;
  std::vector<double> gradient_;  // scratch: recomputed every iteration, so never saved
  std::vector<double> first_moment_;
  std::vector<double> second_moment_;
};

}  // namespace simgrad::tune
