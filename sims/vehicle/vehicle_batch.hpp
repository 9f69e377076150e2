// A batch of cars (single-track or four-wheel, as the model's settings say) as a differentiable
// system: one kernel, one element per car. The state is the cars' planar states one after
// another, then (four-wheel) their chassis states, so losses read the planar block alike for
// both models; the step reads each car's controls of step t from the model. A four-wheel car
// starts on its springs with its wheels rolling at its initial speed. Parameter adjoints land in the model's packed parameter array, initial-state
// adjoints in its initial states (when those are differentiable).
#pragma once

#include <span>

#include "core/kernel.hpp"
#include "core/system.hpp"
#include "sims/vehicle/four_wheel.hpp"
#include "sims/vehicle/vehicle_model.hpp"

namespace simgrad::vehicle {

class VehicleBatch : public System {
 public:
  explicit VehicleBatch(VehicleModel& model);

  Index state_size() const override { return static_cast<Index>(car_state_size()) * model_.cars; }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override;

  VehicleModel& model() { return model_; }
  bool four_wheel() const { return model_.settings.chassis == ChassisModel::kFourWheel; }
  // Doubles of rollout state per car: planar, plus chassis for the four-wheel model.
  int car_state_size() const { return kStateSize + (four_wheel() ? kChassisSize : 0); }

 private:
  SingleTrackBody body(int t, std::span<const double> state, double* state_adjoint, double* next,
                       double* next_adjoint);
  FourWheelBody four_wheel_body(int t, std::span<const double> state, double* state_adjoint, double* next,
                                double* next_adjoint);

  VehicleModel& model_;
  Kernel kernel_;
};

}  // namespace simgrad::vehicle
