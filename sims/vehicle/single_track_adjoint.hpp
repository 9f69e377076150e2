// The single-track step's adjoint, written out by hand: the derived adjoint re-runs the step on
// the tape scalar (some two hundred recorded operations, most of them in the tires and the
// gearbox) and sweeps back; this one recomputes the step's intermediates in double and applies
// the chain rule directly, with the tires' partials from tire.hpp. It covers the dynamic model
// (above the kinematic blend's upper speed); below it the kernel derives the element instead.
#pragma once

#include <cmath>
#include <numbers>
#include <span>

#include "sims/vehicle/single_track.hpp"

namespace simgrad::vehicle {

// The drive force and its partials in vx and in the constants it reads.
struct DrivePartials {
  double force = 0, vx = 0;
  Params<double> param{};
};

// drive_force and its partials, in the same operations.
inline DrivePartials drive_force_partials(const Params<double>& p, const VehicleSettings& s, double vx,
                                          double throttle) {
  DrivePartials d;
  if (s.engine == EngineModel::kDcMotor) {
    d.force = dc_motor_force(p[kDriveGain], p[kDriveSpeedLoss], vx, throttle);
    d.param[kDriveGain] = throttle;
    d.param[kDriveSpeedLoss] = -vx * throttle;
    d.vx = -p[kDriveSpeedLoss] * throttle;
    return d;
  }
  // overall_ratio's smooth shifts: the ratio and its partials in the gears, final drive and omega.
  const double omega = vx / s.wheel_radius;
  const double* gear = p.data() + kGear1;
  const double final_drive = p[kFinalDrive];
  double ratio = s.gears > 0 ? gear[0] : 1.0;
  double d_omega = 0.0, d_final = 0.0;
  std::array<double, kMaxGears> d_gear{};
  if (s.gears > 0) d_gear[0] = 1.0;
  for (int k = 0; k + 1 < s.gears; ++k) {
    const double shift_omega = (s.shift.shift_rpm * std::numbers::pi / 30.0) / (gear[k] * final_drive);
    const double z = (omega - shift_omega) / (s.shift.shift_width * shift_omega);
    const double step = sigmoid(z);
    const double jump = gear[k + 1] - gear[k];
    ratio = ratio + jump * step;
    d_gear[k + 1] += step;
    d_gear[k] -= step;
    if (z < -40.0) continue;  // sigmoid is held constant there
    const double a = jump * step * (1.0 - step);
    const double width = s.shift.shift_width * shift_omega;
    d_omega += a / width;
    const double d_shift = -a * omega / (width * shift_omega);  // d ratio / d shift_omega
    d_gear[k] += d_shift * (-shift_omega / gear[k]);
    d_final += d_shift * (-shift_omega / final_drive);
  }
  // overall = ratio * final_drive (ratio alone without gears).
  const double overall = s.gears > 0 ? ratio * final_drive : final_drive;
  const double d_overall_final = s.gears > 0 ? ratio + final_drive * d_final : 1.0;
  const double rpm_per_omega = 30.0 / std::numbers::pi;
  const double rpm = omega * overall * rpm_per_omega;
  const double torque = curve_torque(s.torque_curve, rpm), slope = curve_torque_slope(s.torque_curve, rpm);
  const double per_torque = s.drivetrain_efficiency / s.wheel_radius;
  const double gain = p[kDriveGain];
  d.force = throttle * (gain * torque) * overall * per_torque;
  // Partials through `overall` (torque's rpm and the direct factor) and through omega's rpm.
  const double by_overall = throttle * gain * per_torque * (torque + overall * slope * omega * rpm_per_omega);
  const double by_omega_rpm = throttle * gain * per_torque * overall * slope * overall * rpm_per_omega;
  d.param[kDriveGain] = throttle * torque * overall * per_torque;
  d.param[kFinalDrive] = by_overall * d_overall_final;
  for (int g = 0; g < s.gears; ++g) d.param[kGear1 + g] = by_overall * d_gear[g] * final_drive;
  d.vx = (by_overall * final_drive * d_omega + by_omega_rpm) / s.wheel_radius;
  return d;
}

// The adjoints one step hands back: of the state it started from, and of the constants.
struct SingleTrackAdjoint {
  CarState<double> state = CarState<double>::zero();
  Params<double> param{};
};

// Whether the hand-written adjoint covers state x: the dynamic model alone, above the blend.
inline bool hand_adjoint_covers(const VehicleSettings& s, const CarState<double>& x) {
  return (x[kVx] - s.blend_low) / (s.blend_high - s.blend_low) >= 1.0;
}

// The vector-Jacobian product of single_track_step at (p, x, controls) with the next state's
// adjoint `out`; only where hand_adjoint_covers(s, x). Controls are not differentiated.
inline SingleTrackAdjoint single_track_step_adjoint(const Params<double>& p, const VehicleSettings& s,
                                                    const CarState<double>& x, double steer, double throttle,
                                                    double brake, const CarState<double>& out) {
  SingleTrackAdjoint a;
  Params<double>& pa = a.param;
  CarState<double>& xa = a.state;
  // Forward, keeping what the reverse sweep needs.
  const double m = p[kMass], lf = p[kCgToFront], lr = s.wheelbase - lf;
  const double vx = x[kVx], vy = x[kVy], r = x[kYawRate];
  const DrivePartials drive = drive_force_partials(p, s, vx, throttle);
  const double brake_sign = smooth_sign(vx, s.speed_epsilon);
  const double brake_force = p[kBrakeForce] * brake * brake_sign;
  const double bias = p[kBrakeFrontBias], front_drive = s.drive_front_fraction;
  const double fx_front_raw = front_drive * drive.force - bias * brake_force;
  const double fx_rear_raw = (1.0 - front_drive) * drive.force - (1.0 - bias) * brake_force;
  const double roll_sign = smooth_sign(vx, s.speed_epsilon);
  const double drag_abs = smooth_abs(vx, 1e-3);
  const double resist = p[kRollingResistance] * roll_sign + p[kDragCoefficient] * vx * drag_abs;
  const double ax_estimate = (fx_front_raw + fx_rear_raw - resist) / m;
  const double length = lf + lr;
  const double transfer = m * ax_estimate * p[kCgHeight] / length;
  const double weight = m * s.gravity + p[kDownforceCoefficient] * vx * vx;
  const double load_front = weight * lr / length - transfer, load_rear = weight * lf / length + transfer;
  const bool pacejka = s.tire == TireModel::kPacejka;
  const bool limited = pacejka && s.combined_slip;
  TractionPartials traction_front{fx_front_raw, 1.0, 0.0}, traction_rear{fx_rear_raw, 1.0, 0.0};
  if (limited) {
    traction_front = traction_limit_partials(fx_front_raw, p[kFrontD] * load_front);
    traction_rear = traction_limit_partials(fx_rear_raw, p[kRearD] * load_rear);
  }
  const double fx_front = traction_front.force, fx_rear = traction_rear.force;
  const double vx_safe = smooth_abs(vx, s.speed_epsilon);
  const double q_front = (vy + lf * r) / vx_safe, q_rear = (vy - lr * r) / vx_safe;
  const double alpha_front = steer - std::atan(q_front), alpha_rear = -std::atan(q_rear);
  // An axle's lateral force, with its partials in slip, load, longitudinal force and constants.
  struct Axle {
    double force = 0, slip = 0, fz = 0, fx = 0;
    int first = 0;  // the axle's B (or its linear stiffness)
    PacejkaPartials mf;
    double d_D_ellipse = 0;  // d force / d D through the ellipse's fx_max = D fz
  };
  auto axle = [&](bool front, double alpha, double fz, double fx) {
    Axle ax;
    if (!pacejka) {
      ax.first = front ? kFrontStiffness : kRearStiffness;
      ax.force = p[ax.first] * alpha;
      ax.slip = p[ax.first];
      return ax;
    }
    ax.first = front ? kFrontB : kRearB;
    const MagicFormula<double> mf{p[ax.first], p[ax.first + 1], p[ax.first + 2], p[ax.first + 3], p[kLoadSensitivity]};
    ax.mf = pacejka_force_partials(mf, alpha, fz, front ? s.nominal_load_front : s.nominal_load_rear);
    if (!s.combined_slip) {
      ax.force = ax.mf.force;
      ax.slip = ax.mf.slip;
      ax.fz = ax.mf.fz;
      return ax;
    }
    const EllipsePartials e = friction_ellipse_partials(fx, mf.D * fz);
    ax.force = ax.mf.force * e.scale;
    ax.slip = ax.mf.slip * e.scale;
    ax.fz = ax.mf.fz * e.scale + ax.mf.force * e.fx_max * mf.D;
    ax.fx = ax.mf.force * e.fx;
    ax.d_D_ellipse = ax.mf.force * e.fx_max * fz;
    for (double* d : {&ax.mf.B, &ax.mf.C, &ax.mf.D, &ax.mf.E, &ax.mf.load_sensitivity}) *d *= e.scale;
    return ax;
  };
  const Axle front = axle(true, alpha_front, load_front, fx_front);
  const Axle rear = axle(false, alpha_rear, load_rear, fx_rear);
  const double fy_front = front.force, fy_rear = rear.force;
  const double c = std::cos(steer), sn = std::sin(steer);
  const double front_lateral = fy_front * c + fx_front * sn;
  const double dvx = (fx_rear + fx_front * c - fy_front * sn - resist) / m + vy * r;
  const double dvy = (fy_rear + front_lateral) / m - vx * r;
  const double dr = (lf * front_lateral - lr * fy_rear) / p[kYawInertia];
  const double dt = s.dt;
  const double n_vx = vx + dt * dvx, n_vy = vy + dt * dvy;
  const double n_yaw = x[kYaw] + dt * (r + dt * dr);
  const double cy = std::cos(n_yaw), sy = std::sin(n_yaw);

  // Reverse: integrate_planar.
  xa[kX] = out[kX];
  xa[kY] = out[kY];
  const double a_n_vx = out[kVx] + dt * (out[kX] * cy + out[kY] * sy);
  const double a_n_vy = out[kVy] + dt * (-out[kX] * sy + out[kY] * cy);
  const double a_n_yaw = out[kYaw] + dt * (out[kX] * (-n_vx * sy - n_vy * cy) + out[kY] * (n_vx * cy - n_vy * sy));
  xa[kYaw] = a_n_yaw;
  const double a_n_r = out[kYawRate] + dt * a_n_yaw;
  double a_dvx = dt * a_n_vx + out[kAx], a_dvy = dt * a_n_vy + out[kAy];
  const double a_dr = dt * a_n_r;
  double a_vx = a_n_vx + out[kAy] * r, a_vy = a_n_vy - out[kAx] * r, a_r = a_n_r - out[kAx] * vy + out[kAy] * vx;
  // The body's accelerations.
  const double a_force_x = a_dvx / m, a_force_y = a_dvy / m;
  a_vy += a_dvx * r;
  a_r += a_dvx * vy;
  a_vx -= a_dvy * r;
  a_r -= a_dvy * vx;
  double a_m = -a_dvx * (dvx - vy * r) / m - a_dvy * (dvy + vx * r) / m;
  double a_fx_rear = a_force_x, a_fx_front = a_force_x * c, a_fy_front = -a_force_x * sn;
  double a_resist = -a_force_x;
  double a_front_lateral = a_force_y + a_dr * lf / p[kYawInertia];
  double a_fy_rear = a_force_y - a_dr * lr / p[kYawInertia];
  double a_lf = a_dr * front_lateral / p[kYawInertia], a_lr = -a_dr * fy_rear / p[kYawInertia];
  pa[kYawInertia] -= a_dr * dr / p[kYawInertia];
  a_fy_front += a_front_lateral * c;
  a_fx_front += a_front_lateral * sn;
  // The axles' lateral forces.
  double a_alpha_front = 0, a_alpha_rear = 0, a_load_front = 0, a_load_rear = 0;
  auto axle_adjoint = [&](const Axle& ax, double a_force, double& a_alpha, double& a_load, double& a_fx) {
    a_alpha += a_force * ax.slip;
    a_load += a_force * ax.fz;
    a_fx += a_force * ax.fx;
    pa[ax.first] += a_force * ax.mf.B;
    pa[ax.first + 1] += a_force * ax.mf.C;
    pa[ax.first + 2] += a_force * (ax.mf.D + ax.d_D_ellipse);
    pa[ax.first + 3] += a_force * ax.mf.E;
    pa[kLoadSensitivity] += a_force * ax.mf.load_sensitivity;
  };
  if (!pacejka) {
    pa[kFrontStiffness] += a_fy_front * alpha_front;
    pa[kRearStiffness] += a_fy_rear * alpha_rear;
    a_alpha_front += a_fy_front * front.slip;
    a_alpha_rear += a_fy_rear * rear.slip;
  } else {
    axle_adjoint(front, a_fy_front, a_alpha_front, a_load_front, a_fx_front);
    axle_adjoint(rear, a_fy_rear, a_alpha_rear, a_load_rear, a_fx_rear);
  }
  // Slip angles.
  const double a_q_front = -a_alpha_front / (1.0 + q_front * q_front);
  const double a_q_rear = a_alpha_rear * -1.0 / (1.0 + q_rear * q_rear);
  a_vy += (a_q_front + a_q_rear) / vx_safe;
  a_lf += a_q_front * r / vx_safe;
  a_lr -= a_q_rear * r / vx_safe;
  a_r += (a_q_front * lf - a_q_rear * lr) / vx_safe;
  const double a_vx_safe = -(a_q_front * q_front + a_q_rear * q_rear) / vx_safe;
  a_vx += a_vx_safe * vx / vx_safe;
  // Traction limits.
  double a_fx_front_raw = a_fx_front * traction_front.fx, a_fx_rear_raw = a_fx_rear * traction_rear.fx;
  if (limited) {
    const double a_max_front = a_fx_front * traction_front.fx_max, a_max_rear = a_fx_rear * traction_rear.fx_max;
    pa[kFrontD] += a_max_front * load_front;
    pa[kRearD] += a_max_rear * load_rear;
    a_load_front += a_max_front * p[kFrontD];
    a_load_rear += a_max_rear * p[kRearD];
  }
  // Axle loads.
  const double a_weight = (a_load_front * lr + a_load_rear * lf) / length;
  a_lr += a_load_front * weight / length;
  a_lf += a_load_rear * weight / length;
  double a_length = -(a_load_front * weight * lr + a_load_rear * weight * lf) / (length * length);
  const double a_transfer = a_load_rear - a_load_front;
  a_m += a_transfer * ax_estimate * p[kCgHeight] / length;
  const double a_ax = a_transfer * m * p[kCgHeight] / length;
  pa[kCgHeight] += a_transfer * m * ax_estimate / length;
  a_length -= a_transfer * transfer / length;
  a_lf += a_length;
  a_lr += a_length;
  a_m += a_weight * s.gravity;
  pa[kDownforceCoefficient] += a_weight * vx * vx;
  a_vx += a_weight * 2.0 * p[kDownforceCoefficient] * vx;
  a_fx_front_raw += a_ax / m;
  a_fx_rear_raw += a_ax / m;
  a_resist -= a_ax / m;
  a_m -= a_ax * ax_estimate / m;
  // Resistance.
  pa[kRollingResistance] += a_resist * roll_sign;
  pa[kDragCoefficient] += a_resist * vx * drag_abs;
  a_vx += a_resist * (p[kRollingResistance] * (1.0 - roll_sign * roll_sign) / s.speed_epsilon +
                      p[kDragCoefficient] * (drag_abs + vx * vx / drag_abs));
  // Drive and brakes.
  const double a_drive = front_drive * a_fx_front_raw + (1.0 - front_drive) * a_fx_rear_raw;
  const double a_brake_force = -bias * a_fx_front_raw - (1.0 - bias) * a_fx_rear_raw;
  pa[kBrakeFrontBias] += brake_force * (a_fx_rear_raw - a_fx_front_raw);
  pa[kBrakeForce] += a_brake_force * brake * brake_sign;
  a_vx += a_brake_force * p[kBrakeForce] * brake * (1.0 - brake_sign * brake_sign) / s.speed_epsilon;
  for (int i = 0; i < kParamCount; ++i) pa[i] += a_drive * drive.param[i];
  a_vx += a_drive * drive.vx;
  // lr = wheelbase - lf.
  pa[kCgToFront] += a_lf - a_lr;
  pa[kMass] += a_m;
  xa[kVx] = a_vx;
  xa[kVy] = a_vy;
  xa[kYawRate] = a_r;
  return a;
}

// The single-track kernel body with its hand-written adjoint: the dynamic model by hand, the
// kinematic blend derived. (The four-wheel body, which extends SingleTrackBody, keeps the
// engine's derived adjoint.)
struct SingleTrackHandAdjointBody : SingleTrackBody {
  template <class E>
  void adjoint(E& e) const {
    const CarState<double> x = e.own(state);
    if (!hand_adjoint_covers(*settings, x)) {
      e.derive(*this);
      return;
    }
    Params<double> p;
    for (int b = 0; b < kParamBlocks; ++b) {
      const Vec<double, 4> v = e.shared(params[b]);
      for (int c = 0; c < 4; ++c) p[4 * b + c] = v[c];
    }
    const Vec<double, kControlSize> u = e.own(controls);
    const SingleTrackAdjoint a =
        single_track_step_adjoint(p, *settings, x, u[kSteer], u[kThrottle], u[kBrake], e.output_adjoint(next));
    e.add_own(state, a.state);
    for (int b = 0; b < kParamBlocks; ++b) {
      Vec<double, 4> g;
      for (int c = 0; c < 4; ++c) g[c] = a.param[4 * b + c];
      e.add_shared(params[b], g);
    }
  }
};

}  // namespace simgrad::vehicle
