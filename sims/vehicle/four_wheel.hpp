// The four-wheel model, one step of one car, written once for any scalar.
//
// Beyond the single-track model's planar states (pose, body-frame velocities, yaw rate), each
// car carries a chassis state: roll, pitch and heave of the sprung body with their rates, and
// the spin of each wheel (front left, front right, rear left, rear right). The step is a list of
// stages, each a named part of its own file:
//   1. suspension (suspension.hpp): corner compressions, strut and anti-roll bar forces, tire loads;
//   2. wheels (wheel.hpp): contact-patch velocities, slip ratio and slip angle, combined-slip tire
//      forces;
//   3. drivetrain (engine, transmission, differential.hpp): drive and brake torque per wheel;
//   4. wheel spin (wheel.hpp): a linearly implicit step of each wheel's speed, the tire's force
//      updated to match;
//   5. body: the tire forces' sum and yaw moment, blended to the kinematic model at a crawl,
//      integrated like the single-track model's;
//   6. roll, pitch and heave from the step's accelerations and the suspension's forces.
// The chassis parts use the single-track model's shared constants (mass, centre of mass, tires'
// lateral Magic Formula, engine, brakes, drag) and their own (tracks, springs, dampers, anti-roll
// bars, bump stops, wheel inertia, longitudinal Magic Formula, combined-slip weights, locking).
#pragma once

#include <array>
#include <cmath>

#include "sims/vehicle/differential.hpp"
#include "sims/vehicle/single_track.hpp"
#include "sims/vehicle/suspension.hpp"
#include "sims/vehicle/wheel.hpp"

namespace simgrad::vehicle {

// The chassis state of a four-wheel car; wheels in the order FL, FR, RL, RR.
enum ChassisIndex : int { kRoll, kRollRate, kPitch, kPitchRate, kHeave, kHeaveRate, kWheelSpeed, kChassisSize = kWheelSpeed + 4 };
template <class S>
using ChassisState = Vec<S, kChassisSize>;

template <class S>
struct FourWheelState {
  CarState<S> car;
  ChassisState<S> chassis;
};

// Where the contact patches are, from the centre of mass: px forward, py to the left.
template <class S>
struct Corners {
  std::array<S, 4> px, py;
};

template <class S>
Corners<S> corner_positions(const Params<S>& p, const VehicleSettings& s) {
  const S lf = p[kCgToFront], lr = s.wheelbase - lf;
  const S hf = 0.5 * p[kTrackFront], hr = 0.5 * p[kTrackRear];
  return {{lf, lf, -lr, -lr}, {hf, -hf, hr, -hr}};
}

// Each corner's static load: the weight split by the centre of mass's position, half per side.
template <class S>
std::array<S, 4> static_corner_loads(const Params<S>& p, const VehicleSettings& s) {
  const S lf = p[kCgToFront], lr = s.wheelbase - lf;
  const S half = p[kMass] * (0.5 * s.gravity / s.wheelbase);
  return {half * lr, half * lr, half * lf, half * lf};
}

// Stage 1's results: each corner's suspension force (beyond the static preload) and tire load.
template <class S>
struct CornerLoads {
  std::array<S, 4> suspension, tire;
};

// Stage 1: struts and anti-roll bars from the body's heave, roll and pitch, and the tire loads.
template <class S>
CornerLoads<S> corner_loads(const Params<S>& p, const VehicleSettings& s, const Corners<S>& k,
                            const ChassisState<S>& q) {
  std::array<S, 4> c, f;
  for (int i = 0; i < 4; ++i) {
    const bool front = i < 2;
    c[i] = corner_compression(q[kHeave], q[kRoll], q[kPitch], k.px[i], k.py[i]);
    const S rate = corner_compression(q[kHeaveRate], q[kRollRate], q[kPitchRate], k.px[i], k.py[i]);
    f[i] = strut_force(p[front ? kSpringFront : kSpringRear], p[front ? kDamperFront : kDamperRear], p[kBumpStopGap],
                       p[kBumpStopStiffness], c[i], rate);
  }
  for (int left : {0, 2}) {
    const S bar = anti_roll_force(p[left == 0 ? kAntiRollFront : kAntiRollRear], c[left], c[left + 1]);
    f[left] = f[left] + bar;
    f[left + 1] = f[left + 1] - bar;
  }
  const std::array<S, 4> base = static_corner_loads(p, s);
  CornerLoads<S> out{f, {}};
  for (int i = 0; i < 4; ++i) out.tire[i] = tire_load(base[i], f[i], 1e-3 * base[i]);
  return out;
}

// The tire set of an axle: its lateral Magic Formula, the shared longitudinal one and weights.
template <class S>
TireSet<S> axle_tires(const Params<S>& p, bool front) {
  const int b = front ? kFrontB : kRearB;
  return {{p[b], p[b + 1], p[b + 2], p[b + 3], p[kLoadSensitivity]},
          {p[kLongitudinalB], p[kLongitudinalC], p[kLongitudinalD], p[kLongitudinalE], p[kLoadSensitivity]},
          p[kCombinedBx], p[kCombinedCx], p[kCombinedBy], p[kCombinedCy]};
}

// Stage 3's results: drive and (maximum) brake torque per wheel.
template <class S>
struct WheelTorques {
  std::array<S, 4> drive, brake;
};

// Stage 3: the engine (or motor) turns at the driven wheels' mean speed; each driven axle's
// share of its torque goes through a differential; brake torque follows the front bias.
template <class S>
WheelTorques<S> wheel_torques(const Params<S>& p, const VehicleSettings& s, const ChassisState<S>& q,
                              const S& throttle, const S& brake) {
  const double radius = s.wheel_radius, front = s.drive_front_fraction;
  const S* w = &q[kWheelSpeed];
  const S driven_speed = (front * 0.5) * radius * (w[0] + w[1]) + ((1.0 - front) * 0.5) * radius * (w[2] + w[3]);
  const S total = drive_force(p, s, driven_speed, throttle) * radius;
  const S locking = s.differential == DifferentialModel::kLimitedSlip ? p[kDiffLocking] : S(0.0);
  const S zero(0.0);
  const std::array<S, 2> f = differential_split(front * total, w[0], w[1], front > 0.0 ? locking : zero);
  const std::array<S, 2> r = differential_split((1.0 - front) * total, w[2], w[3], front < 1.0 ? locking : zero);
  const S per_wheel = p[kBrakeForce] * brake * (0.5 * radius);
  const S front_brake = per_wheel * p[kBrakeFrontBias], rear_brake = per_wheel * (1.0 - p[kBrakeFrontBias]);
  return {{f[0], f[1], r[0], r[1]}, {front_brake, front_brake, rear_brake, rear_brake}};
}

// One step of the four-wheel model (the stages above, in order).
template <class S>
FourWheelState<S> four_wheel_step(const Params<S>& p, const VehicleSettings& s, const CarState<S>& x,
                                  const ChassisState<S>& q, const S& steer, const S& throttle, const S& brake) {
  using std::cos;
  using std::sin;
  const S m = p[kMass], lr = s.wheelbase - p[kCgToFront];
  const double radius = s.wheel_radius;
  // 1. Suspension.
  const Corners<S> k = corner_positions(p, s);
  const CornerLoads<S> load = corner_loads(p, s, k, q);
  // 2. Wheels: slips and combined-slip tire forces.
  std::array<S, 4> fx, fy, stiffness, denominator;
  for (int i = 0; i < 4; ++i) {
    const bool front = i < 2;
    const WheelVelocity<S> v = wheel_velocity(x[kVx], x[kVy], x[kYawRate], k.px[i], k.py[i], front ? steer : S(0.0));
    const TireSet<S> tires = axle_tires(p, front);
    const S kappa = slip_ratio(q[kWheelSpeed + i], radius, v.along, s.slip_speed);
    const std::array<S, 2> f = combined_tire_forces(tires, kappa, slip_angle(v, s.slip_speed), load.tire[i],
                                                    0.5 * (front ? s.nominal_load_front : s.nominal_load_rear));
    fx[i] = f[0];
    fy[i] = f[1];
    stiffness[i] = tires.longitudinal.B * tires.longitudinal.C * tires.longitudinal.D * load.tire[i];
    denominator[i] = smooth_abs(v.along, s.slip_speed);
  }
  // 3. Drivetrain, then 4. wheel spin; the body gets each tire's force at the new wheel speed.
  const WheelTorques<S> torque = wheel_torques(p, s, q, throttle, brake);
  FourWheelState<S> n;
  for (int i = 0; i < 4; ++i) {
    const S omega = q[kWheelSpeed + i];
    n.chassis[kWheelSpeed + i] = wheel_spin_step(omega, p[kWheelInertia], torque.drive[i], torque.brake[i], fx[i],
                                                 stiffness[i], denominator[i], radius, s.speed_epsilon, s.dt);
    fx[i] = tire_force_after_spin(fx[i], stiffness[i], denominator[i], radius, omega, n.chassis[kWheelSpeed + i]);
  }
  // 5. Body: the tire forces turned into the body frame, their sum and yaw moment.
  const S c = cos(steer), sn = sin(steer);
  const S resist = rolling_resistance(p[kRollingResistance], x[kVx], s.speed_epsilon) + aero_drag(p[kDragCoefficient], x[kVx]);
  S fx_body = -resist, fy_body = S(0.0), yaw_moment = S(0.0), fx_wheels = -resist;
  for (int i = 0; i < 4; ++i) {
    const bool front = i < 2;
    const S bx = front ? c * fx[i] - sn * fy[i] : fx[i];
    const S by = front ? sn * fx[i] + c * fy[i] : fy[i];
    fx_body = fx_body + bx;
    fy_body = fy_body + by;
    yaw_moment = yaw_moment + k.px[i] * by - k.py[i] * bx;
    fx_wheels = fx_wheels + fx[i];
  }
  const std::array<S, 3> d = {fx_body / m + x[kVy] * x[kYawRate], fy_body / m - x[kVx] * x[kYawRate],
                              yaw_moment / p[kYawInertia]};
  n.car = integrate_planar(s.dt, x, blend_to_kinematic(s, d, x, steer, lr, fx_wheels / m));
  // 6. Roll, pitch and heave: the step's accelerations act at the centre of mass's height.
  const std::array<S, 3> g = suspension_body_forces(load.suspension, k.px, k.py);
  const S h = p[kCgHeight];
  const S roll_acc = (m * n.car[kAy] * h + g[1]) / p[kRollInertia];
  const S pitch_acc = (g[2] - m * n.car[kAx] * h) / p[kPitchInertia];
  const S heave_acc = (aero_downforce(p[kDownforceCoefficient], x[kVx]) + g[0]) / m;
  const double dt = s.dt;
  n.chassis[kRollRate] = q[kRollRate] + dt * roll_acc;
  n.chassis[kPitchRate] = q[kPitchRate] + dt * pitch_acc;
  n.chassis[kHeaveRate] = q[kHeaveRate] + dt * heave_acc;
  n.chassis[kRoll] = q[kRoll] + dt * n.chassis[kRollRate];
  n.chassis[kPitch] = q[kPitch] + dt * n.chassis[kPitchRate];
  n.chassis[kHeave] = q[kHeave] + dt * n.chassis[kHeaveRate];
  return n;
}

// The chassis state of a car at rest on its springs, its wheels rolling at body speed vx.
template <class S>
ChassisState<S> rolling_chassis(const S& vx, double radius) {
  ChassisState<S> q = ChassisState<S>::zero();
  for (int i = 0; i < 4; ++i) q[kWheelSpeed + i] = vx / radius;
  return q;
}

// The kernel body: one element is one car's step; the single-track body's fields plus the
// chassis states (the planar states first in the rollout's state, where the losses read them).
struct FourWheelBody : SingleTrackBody {
  Field<kChassisSize> chassis, next_chassis;

  template <class E>
  void operator()(E& e) const {
    using S = typename E::Scalar;
    const Params<S> p = read_params(e, params);
    const Vec<S, kControlSize> u = e.own(controls);
    const FourWheelState<S> n =
        four_wheel_step<S>(p, *settings, e.own(state), e.own(chassis), u[kSteer], u[kThrottle], u[kBrake]);
    e.write(next, n.car);
    e.write(next_chassis, n.chassis);
  }
};

}  // namespace simgrad::vehicle
