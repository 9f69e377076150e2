// The dynamic single-track (bicycle) model, one step of one car, written once for any scalar.
//
// Forces: drivetrain (table engine through the gearbox, or DC motor) and brakes give the axles'
// longitudinal forces; rolling resistance and aerodynamic drag resist; axle loads take the
// static split plus the transfer from the centre of mass's height; slip angles give lateral
// forces (Magic Formula or linear), shrunk by the friction ellipse under longitudinal force.
// Below a speed the yaw rate and lateral speed blend towards the kinematic model's, so the
// model stays well-behaved at standstill. Integration is semi-implicit Euler.
#pragma once

#include <array>
#include <cmath>

#include "core/kernel.hpp"
#include "sims/vehicle/aero.hpp"
#include "sims/vehicle/body.hpp"
#include "sims/vehicle/engine.hpp"
#include "sims/vehicle/tire.hpp"
#include "sims/vehicle/transmission.hpp"
#include "sims/vehicle/vehicle_model.hpp"

namespace simgrad::vehicle {

template <class S>
using Params = std::array<S, kParamCount>;
template <class S>
using CarState = Vec<S, kStateSize>;

// Longitudinal drive force at the wheels for throttle `throttle` at speed vx.
template <class S>
S drive_force(const Params<S>& p, const VehicleSettings& s, const S& vx, const S& throttle) {
  if (s.engine == EngineModel::kDcMotor) return dc_motor_force(p[kDriveGain], p[kDriveSpeedLoss], vx, throttle);
  const S wheel_omega = vx / s.wheel_radius;
  const S ratio = overall_ratio(std::span<const S>(p.data() + kGear1, static_cast<std::size_t>(s.gears)), s.shift,
                                p[kFinalDrive], wheel_omega);
  const S torque = p[kDriveGain] * curve_torque(s.torque_curve, engine_rpm(wheel_omega, ratio));
  return throttle * torque * ratio * (s.drivetrain_efficiency / s.wheel_radius);
}

// Lateral force of one axle at slip angle `alpha`, load fz and longitudinal force fx.
template <class S>
S axle_lateral_force(const Params<S>& p, const VehicleSettings& s, bool front, const S& alpha, const S& fz,
                     const S& fx) {
  if (s.tire == TireModel::kLinear) return linear_tire_force(p[front ? kFrontStiffness : kRearStiffness], alpha);
  const int b = front ? kFrontB : kRearB;
  const MagicFormula<S> mf{p[b], p[b + 1], p[b + 2], p[b + 3], p[kLoadSensitivity]};
  const double nominal = front ? s.nominal_load_front : s.nominal_load_rear;
  const S fy = pacejka_force(mf, alpha, fz, nominal);
  return s.combined_slip ? fy * friction_ellipse_scale(fx, mf.D * fz) : fy;
}

// Low speed: relaxes the dynamic accelerations d = (dvx, dvy, dr) towards the kinematic model's
// yaw rate and lateral speed, and lets only the longitudinal acceleration `dvx_straight` drive vx
// (slip angles, ill-defined at a crawl, must not push the car).
template <class S>
std::array<S, 3> blend_to_kinematic(const VehicleSettings& s, const std::array<S, 3>& d, const CarState<S>& x,
                                    const S& steer, const S& lr, const S& dvx_straight) {
  const S vx = x[kVx];
  const S w = smoothstep(vx, s.blend_low, s.blend_high);
  if (value_of(w) >= 1.0) return d;
  const S r_kin = vx * tan_of(steer) / s.wheelbase;
  const S vy_kin = r_kin * lr;
  const double rate = 1.0 / s.kinematic_time_constant;
  return {w * d[0] + (1.0 - w) * dvx_straight, w * d[1] + (1.0 - w) * ((vy_kin - x[kVy]) * rate),
          w * d[2] + (1.0 - w) * ((r_kin - x[kYawRate]) * rate)};
}

// The time derivatives (dvx, dvy, dr) of the body-frame velocities, dynamic and kinematic blended.
template <class S>
std::array<S, 3> single_track_accelerations(const Params<S>& p, const VehicleSettings& s, const CarState<S>& x,
                                            const S& steer, const S& throttle, const S& brake) {
  using std::cos;
  using std::sin;
  const S m = p[kMass];
  const S lf = p[kCgToFront];
  const S lr = s.wheelbase - lf;
  const S vx = x[kVx], vy = x[kVy], r = x[kYawRate];

  const S drive = drive_force(p, s, vx, throttle);
  const S brake_force = p[kBrakeForce] * brake * smooth_sign(vx, s.speed_epsilon);
  S fx_front = s.drive_front_fraction * drive - p[kBrakeFrontBias] * brake_force;
  S fx_rear = (1.0 - s.drive_front_fraction) * drive - (1.0 - p[kBrakeFrontBias]) * brake_force;
  const S resist = rolling_resistance(p[kRollingResistance], vx, s.speed_epsilon) + aero_drag(p[kDragCoefficient], vx);
  // Load transfer follows the longitudinal acceleration the axle forces give.
  const S ax_estimate = (fx_front + fx_rear - resist) / m;
  const AxleLoads<S> load = axle_loads(m, s.gravity, lf, lr, p[kCgHeight], ax_estimate,
                                       aero_downforce(p[kDownforceCoefficient], vx));
  // With combined slip, an axle passes on at most its peak friction times its load.
  if (s.tire == TireModel::kPacejka && s.combined_slip) {
    fx_front = traction_limit(fx_front, p[kFrontD] * load.front);
    fx_rear = traction_limit(fx_rear, p[kRearD] * load.rear);
  }

  const S vx_safe = smooth_abs(vx, s.speed_epsilon);
  const S alpha_front = steer - atan_of((vy + lf * r) / vx_safe);
  const S alpha_rear = -atan_of((vy - lr * r) / vx_safe);
  const S fy_front = axle_lateral_force(p, s, true, alpha_front, load.front, fx_front);
  const S fy_rear = axle_lateral_force(p, s, false, alpha_rear, load.rear, fx_rear);

  const S c = cos(steer), sn = sin(steer);
  const S front_lateral = fy_front * c + fx_front * sn;
  const S dvx = (fx_rear + fx_front * c - fy_front * sn - resist) / m + vy * r;
  const S dvy = (fy_rear + front_lateral) / m - vx * r;
  const S dr = (lf * front_lateral - lr * fy_rear) / p[kYawInertia];

  return blend_to_kinematic(s, {dvx, dvy, dr}, x, steer, lr, (fx_rear + fx_front - resist) / m);
}

// Semi-implicit Euler for the planar states: velocities from accelerations d = (dvx, dvy, dr),
// then pose from the new velocities; ax, ay are the body-frame accelerations of the step.
template <class S>
CarState<S> integrate_planar(double dt, const CarState<S>& x, const std::array<S, 3>& d) {
  using std::cos;
  using std::sin;
  CarState<S> n;
  n[kVx] = x[kVx] + dt * d[0];
  n[kVy] = x[kVy] + dt * d[1];
  n[kYawRate] = x[kYawRate] + dt * d[2];
  n[kYaw] = x[kYaw] + dt * n[kYawRate];
  const S c = cos(n[kYaw]), sn = sin(n[kYaw]);
  n[kX] = x[kX] + dt * (n[kVx] * c - n[kVy] * sn);
  n[kY] = x[kY] + dt * (n[kVx] * sn + n[kVy] * c);
  n[kAx] = d[0] - x[kVy] * x[kYawRate];
  n[kAy] = d[1] + x[kVx] * x[kYawRate];
  return n;
}

// One semi-implicit Euler step of length s.dt; the new state's ax, ay are the body-frame
// accelerations of this step.
template <class S>
CarState<S> single_track_step(const Params<S>& p, const VehicleSettings& s, const CarState<S>& x, const S& steer,
                              const S& throttle, const S& brake) {
  return integrate_planar(s.dt, x, single_track_accelerations(p, s, x, steer, throttle, brake));
}

// The packed constants, read by a kernel body from their shared fields.
template <class E>
Params<typename E::Scalar> read_params(E& e, const std::array<Field<4>, kParamBlocks>& params) {
  Params<typename E::Scalar> p;
  for (int b = 0; b < kParamBlocks; ++b) {
    const auto v = e.shared(params[b]);
    for (int c = 0; c < 4; ++c) p[4 * b + c] = v[c];
  }
  return p;
}

// The kernel body: one element is one car's step. The constants are shared by all cars; their
// adjoints are summed per block and then in block order, so gradients do not depend on threads.
struct SingleTrackBody {
  Field<kStateSize> state, next;
  Field<kControlSize> controls;  // this step's controls, per car
  std::array<Field<4>, kParamBlocks> params;  // one entry each: a slice of the packed array
  const VehicleSettings* settings = nullptr;

  template <class E>
  void operator()(E& e) const {
    using S = typename E::Scalar;
    const Params<S> p = read_params(e, params);
    const Vec<S, kControlSize> u = e.own(controls);
    e.write(next, single_track_step<S>(p, *settings, e.own(state), u[kSteer], u[kThrottle], u[kBrake]));
  }
};

}  // namespace simgrad::vehicle
