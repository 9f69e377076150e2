// A batch of single-track cars as a differentiable system: one kernel, one element per car.
// The state is the cars' states one after another; the step reads each car's controls of step
// t from the model. Parameter adjoints land in the model's packed parameter array, initial-state
// adjoints in its initial states (when those are differentiable).
#pragma once

#include <span>

#include "core/kernel.hpp"
#include "core/system.hpp"
#include "sims/vehicle/single_track.hpp"
#include "sims/vehicle/vehicle_model.hpp"

namespace simgrad::vehicle {

class VehicleBatch : public System {
 public:
  explicit VehicleBatch(VehicleModel& model);

  Index state_size() const override { return static_cast<Index>(kStateSize) * model_.cars; }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override;

  VehicleModel& model() { return model_; }

 private:
  SingleTrackBody body(int t, std::span<const double> state, double* state_adjoint, double* next,
                       double* next_adjoint);

  VehicleModel& model_;
  Kernel kernel_;
};

}  // namespace simgrad::vehicle
