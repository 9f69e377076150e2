#include "sims/vehicle/vehicle_batch.hpp"

#include <algorithm>

#include "sims/vehicle/single_track_adjoint.hpp"

namespace simgrad::vehicle {

VehicleBatch::VehicleBatch(VehicleModel& model)
    : model_(model), kernel_(model.settings.chassis == ChassisModel::kFourWheel ? "four_wheel" : "single_track", model.cars) {}

SingleTrackBody VehicleBatch::body(int t, std::span<const double> state, double* state_adjoint, double* next,
                                   double* next_adjoint) {
  SingleTrackBody b;
  const Index cars = model_.cars;
  b.state = {const_cast<double*>(state.data()), state_adjoint, cars};
  b.next = {next, next_adjoint, cars};
  // A step past the recorded controls keeps the last ones.
  const int row = std::min(t, std::max(model_.steps - 1, 0));
  b.controls = {model_.controls.data() + static_cast<std::size_t>(row) * cars * kControlSize, nullptr, cars};
  const Field<4> all = model_.params.field();
  for (int k = 0; k < kParamBlocks; ++k) b.params[k] = all.slice(k, 1);
  b.settings = &model_.settings;
  return b;
}

FourWheelBody VehicleBatch::four_wheel_body(int t, std::span<const double> state, double* state_adjoint, double* next,
                                            double* next_adjoint) {
  const Index cars = model_.cars, offset = static_cast<Index>(kStateSize) * cars;
  auto at = [offset](double* p) { return p == nullptr ? nullptr : p + offset; };
  FourWheelBody b;
  static_cast<SingleTrackBody&>(b) = body(t, state, state_adjoint, next, next_adjoint);
  b.chassis = {const_cast<double*>(state.data()) + offset, at(state_adjoint), cars};
  b.next_chassis = {at(next), at(next_adjoint), cars};
  return b;
}

void VehicleBatch::initial_state(std::span<double> state) {
  const auto x0 = model_.initial_state.values();
  std::copy(x0.begin(), x0.end(), state.begin());
  if (!four_wheel()) return;
  double* chassis = state.data() + x0.size();
  for (int k = 0; k < model_.cars; ++k) {
    const ChassisState<double> q = rolling_chassis(x0[k * kStateSize + kVx], model_.settings.wheel_radius);
    std::copy(q.c, q.c + kChassisSize, chassis + static_cast<std::size_t>(k) * kChassisSize);
  }
}

void VehicleBatch::initial_state_adjoint(std::span<const double> state_adjoint) {
  if (!model_.initial_state.differentiable()) return;
  auto a = model_.initial_state.adjoints();
  for (std::size_t i = 0; i < a.size(); ++i) a[i] += state_adjoint[i];
  if (!four_wheel()) return;
  // The wheels start at vx / R.
  const double* chassis = state_adjoint.data() + a.size();
  for (int k = 0; k < model_.cars; ++k)
    for (int w = 0; w < 4; ++w)
      a[k * kStateSize + kVx] += chassis[k * kChassisSize + kWheelSpeed + w] / model_.settings.wheel_radius;
}

void VehicleBatch::step(int t, std::span<const double> state, std::span<double> next, std::span<double>) {
  if (four_wheel())
    kernel_.forward(four_wheel_body(t, state, nullptr, next.data(), nullptr));
  else
    kernel_.forward(body(t, state, nullptr, next.data(), nullptr));
}

void VehicleBatch::step_adjoint(int t, std::span<const double> state, std::span<const double>,
                                std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  double* next_a = const_cast<double*>(next_adjoint.data());
  if (four_wheel())
    kernel_.adjoint(four_wheel_body(t, state, state_adjoint.data(), nullptr, next_a));
  else
    kernel_.adjoint(SingleTrackHandAdjointBody{body(t, state, state_adjoint.data(), nullptr, next_a)});
}

void VehicleBatch::clear_adjoints() {
  std::fill(model_.params.adjoints().begin(), model_.params.adjoints().end(), 0.0);
  std::fill(model_.initial_state.adjoints().begin(), model_.initial_state.adjoints().end(), 0.0);
}

}  // namespace simgrad::vehicle
