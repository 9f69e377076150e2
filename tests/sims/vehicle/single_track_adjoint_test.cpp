// The single-track step's hand-written adjoint: the tires' partials, the drivetrain's and the
// whole step's vector-Jacobian product against central differences, and the same product from
// the engine's derived adjoint (the tape) to rounding.
#include "sims/vehicle/single_track_adjoint.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>

#include "core/gradcheck.hpp"
#include "core/local_ad.hpp"
#include "sims/vehicle/vehicle_model.hpp"

namespace simgrad::vehicle {
namespace {

// Whether `hand` agrees with the central difference of f at x (a step relative to x, so that
// constants of any size get a fitting one, unless `step` is given); `size` is the function's own
// scale, for the absolute part of the tolerance.
template <class F>
void expect_partial(const F& f, double x, double hand, const std::string& label, double rtol = 1e-6,
                    double size = 1.0, double step = 0.0) {
  const double h = step > 0.0 ? step : 1e-6 * (x != 0.0 ? std::abs(x) : 1.0);
  const double fd = (f(x + h) - f(x - h)) / (2.0 * h);
  GradCheckOptions tolerance;
  tolerance.rtol = rtol;
  tolerance.atol = 1e-9 * std::max(size, std::abs(fd));
  EXPECT_TRUE(derivatives_agree(hand, fd, tolerance)) << label << ": hand " << hand << " fd " << fd;
}

TEST(SingleTrackAdjoint, MagicFormulaPartialsMatchCentralDifferences) {
  const double nominal = 3500.0;
  for (double slip : {-0.4, -0.05, 0.02, 0.2, 1.2}) {
    const std::array<double, 7> a = {12.3, 1.35, 1.05, -0.3, -0.18, slip, 3900.0};
    const MagicFormula<double> mf{a[0], a[1], a[2], a[3], a[4]};
    const PacejkaPartials d = pacejka_force_partials(mf, a[5], a[6], nominal);
    EXPECT_NEAR(d.force, pacejka_force(mf, a[5], a[6], nominal), 1e-9 * a[6]);
    const double hand[7] = {d.B, d.C, d.D, d.E, d.load_sensitivity, d.slip, d.fz};
    for (int i = 0; i < 7; ++i) {
      const auto f = [&](double v) {
        std::array<double, 7> b = a;
        b[i] = v;
        return pacejka_force(MagicFormula<double>{b[0], b[1], b[2], b[3], b[4]}, b[5], b[6], nominal);
      };
      expect_partial(f, a[i], hand[i], "input " + std::to_string(i) + " at slip " + std::to_string(slip));
    }
  }
}

TEST(SingleTrackAdjoint, CombinedSlipPartialsMatchCentralDifferences) {
  for (double fx : {-2500.0, 300.0, 3000.0}) {
    const double limit = 4000.0;
    const EllipsePartials e = friction_ellipse_partials(fx, limit);
    EXPECT_DOUBLE_EQ(e.scale, friction_ellipse_scale(fx, limit));
    expect_partial([&](double v) { return friction_ellipse_scale(v, limit); }, fx, e.fx, "ellipse fx");
    expect_partial([&](double v) { return friction_ellipse_scale(fx, v); }, limit, e.fx_max, "ellipse fx_max");
    const TractionPartials t = traction_limit_partials(fx, 0.8 * limit);
    EXPECT_DOUBLE_EQ(t.force, traction_limit(fx, 0.8 * limit));
    expect_partial([&](double v) { return traction_limit(v, 0.8 * limit); }, fx, t.fx, "traction fx");
    expect_partial([&](double v) { return traction_limit(fx, v); }, 0.8 * limit, t.fx_max, "traction fx_max");
  }
}

// The drive force's partials for the BMW's table engine (across its shifts) and the ORCA's motor.
TEST(SingleTrackAdjoint, DrivePartialsMatchCentralDifferences) {
  for (const char* car : {"bmw_320i", "orca"}) {
    const VehicleModel m = published_vehicle(car);
    Params<double> p{};
    for (int i = 0; i < kParamCount; ++i) p[i] = m.params.values()[i];
    const double top = std::string(car) == "orca" ? 3.0 : 60.0;
    for (double vx : {0.2 * top, 0.45 * top, 0.7 * top, 1.0 * top}) {
      const DrivePartials d = drive_force_partials(p, m.settings, vx, 0.8);
      EXPECT_NEAR(d.force, drive_force(p, m.settings, vx, 0.8), 1e-10 * std::abs(d.force));
      // The shifts are steep: central differences carry a truncation error of a few 1e-6.
      const double rtol = 2e-5, size = std::abs(d.force);
      expect_partial([&](double v) { return drive_force(p, m.settings, v, 0.8); }, vx, d.vx, std::string(car) + " vx",
                     rtol, size);
      for (int i : {kDriveGain, kDriveSpeedLoss, kFinalDrive, kGear1, kGear2, kGear3, kGear4, kGear5, kGear6}) {
        if (p[i] == 0.0) continue;
        const auto f = [&](double v) {
          Params<double> q = p;
          q[i] = v;
          return drive_force(q, m.settings, vx, 0.8);
        };
        expect_partial(f, p[i], d.param[i], std::string(car) + " constant " + std::to_string(i), rtol, size);
      }
    }
  }
}

// A state of a car cornering hard, braking and accelerating: every force is in play.
struct StepCase {
  VehicleModel model;
  CarState<double> x;
  double steer, throttle, brake;
  CarState<double> seed;  // the next state's adjoint
};

StepCase step_case(const char* car, TireModel tire, double throttle, double brake) {
  StepCase c{published_vehicle(car), CarState<double>::zero(), 0.0, throttle, brake, CarState<double>::zero()};
  c.model.settings.tire = tire;
  const double speed = std::string(car) == "orca" ? 2.5 : 25.0;
  c.x[kX] = 3.0;
  c.x[kY] = -2.0;
  c.x[kYaw] = 0.4;
  c.x[kVx] = speed;
  c.x[kVy] = -0.08 * speed;
  c.x[kYawRate] = 0.25 * speed / c.model.settings.wheelbase * 0.1;
  c.x[kAx] = 1.0;
  c.x[kAy] = 2.0;
  c.steer = 0.12;
  for (int i = 0; i < kStateSize; ++i) c.seed[i] = 0.3 + 0.17 * i - 0.05 * i * i;
  return c;
}

// seed . step(p, x) for the case, as a function of the constants and the state.
double projected_step(const StepCase& c, const Params<double>& p, const CarState<double>& x) {
  const CarState<double> n = single_track_step(p, c.model.settings, x, c.steer, c.throttle, c.brake);
  double sum = 0.0;
  for (int i = 0; i < kStateSize; ++i) sum += c.seed[i] * n[i];
  return sum;
}

void expect_step_adjoint(const StepCase& c) {
  Params<double> p{};
  for (int i = 0; i < kParamCount; ++i) p[i] = c.model.params.values()[i];
  ASSERT_TRUE(hand_adjoint_covers(c.model.settings, c.x));
  const SingleTrackAdjoint a = single_track_step_adjoint(p, c.model.settings, c.x, c.steer, c.throttle, c.brake, c.seed);
  // Against central differences.
  // Its rounding scale: the sum of its terms' magnitudes.
  double size = 0.0;
  const CarState<double> next = single_track_step(p, c.model.settings, c.x, c.steer, c.throttle, c.brake);
  for (int i = 0; i < kStateSize; ++i) size += std::abs(c.seed[i] * next[i]);
  for (int i = 0; i < kStateSize; ++i) {
    const auto f = [&](double v) {
      CarState<double> y = c.x;
      y[i] = v;
      return projected_step(c, p, y);
    };
    expect_partial(f, c.x[i], a.state[i], "state " + std::to_string(i), 1e-5, size);
  }
  for (int i = 0; i < kTunableCount; ++i) {
    if (p[i] == 0.0) continue;
    const auto f = [&](double v) {
      Params<double> q = p;
      q[i] = v;
      return projected_step(c, q, c.x);
    };
    // The curvature factors E are dimensionless and may lie near zero: an absolute step.
    const bool curvature = i == kFrontE || i == kRearE;
    expect_partial(f, p[i], a.param[i], "constant " + std::to_string(i), 1e-5, size, curvature ? 1e-6 : 0.0);
  }
  // Against the derived adjoint: the same step on the tape, swept back.
  ad::LocalTape& tape = ad::thread_tape();
  tape.reset();
  Params<ad::Var> pv;
  CarState<ad::Var> xv;
  for (int i = 0; i < kParamCount; ++i) pv[i] = ad::Var::input(p[i]);
  for (int i = 0; i < kStateSize; ++i) xv[i] = ad::Var::input(c.x[i]);
  const CarState<ad::Var> n =
      single_track_step<ad::Var>(pv, c.model.settings, xv, ad::Var(c.steer), ad::Var(c.throttle), ad::Var(c.brake));
  tape.clear_adjoints();
  for (int i = 0; i < kStateSize; ++i) tape.adjoint(n[i].i) += c.seed[i];
  tape.sweep();
  for (int i = 0; i < kStateSize; ++i)
    EXPECT_NEAR(a.state[i], tape.adjoint(xv[i].i), 1e-9 * (1.0 + std::abs(a.state[i]))) << "state " << i;
  for (int i = 0; i < kParamCount; ++i)
    EXPECT_NEAR(a.param[i], tape.adjoint(pv[i].i), 1e-9 * (1.0 + std::abs(a.param[i]))) << "constant " << i;
}

TEST(SingleTrackAdjoint, TableEngineCombinedSlipStepMatchesDifferencesAndTheTape) {
  expect_step_adjoint(step_case("bmw_320i", TireModel::kPacejka, 0.7, 0.0));
  expect_step_adjoint(step_case("bmw_320i", TireModel::kPacejka, 0.0, 0.6));
}

TEST(SingleTrackAdjoint, DcMotorStepMatchesDifferencesAndTheTape) {
  expect_step_adjoint(step_case("orca", TireModel::kPacejka, 0.9, 0.0));
  expect_step_adjoint(step_case("orca", TireModel::kPacejka, 0.2, 0.5));
}

TEST(SingleTrackAdjoint, LinearTireStepMatchesDifferencesAndTheTape) {
  expect_step_adjoint(step_case("bmw_320i", TireModel::kLinear, 0.5, 0.1));
}

}  // namespace
}  // namespace simgrad::vehicle
