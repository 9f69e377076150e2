// Physics of the single-track step against closed forms: the linear bicycle model's understeer
// gradient, straight-line coasting (momentum), energy on coasting through a turn, and the
// low-speed blend to the kinematic model.
#include "sims/vehicle/single_track.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "sims/vehicle/vehicle_model.hpp"

namespace simgrad::vehicle {
namespace {

Params<double> params_of(const VehicleModel& m) {
  Params<double> p;
  for (int i = 0; i < kParamCount; ++i) p[i] = m.param(static_cast<Param>(i));
  return p;
}

// Kinetic energy of a car: translation plus yaw.
double kinetic_energy(const Params<double>& p, const CarState<double>& x) {
  return 0.5 * p[kMass] * (x[kVx] * x[kVx] + x[kVy] * x[kVy]) + 0.5 * p[kYawInertia] * x[kYawRate] * x[kYawRate];
}

// The BMW with linear tires and nothing resisting the motion. Its preset stiffnesses are the
// same tire's slope at each axle's load, which makes it neutral-steering (lr / Cf = lf / Cr);
// a stiffer rear makes it understeer, so that K is far from zero.
VehicleModel frictionless_linear_bmw() {
  VehicleModel m = published_vehicle("bmw_320i");
  m.settings.tire = TireModel::kLinear;
  m.param(kFrontStiffness) = 80000.0;
  m.param(kRearStiffness) = 110000.0;
  m.param(kRollingResistance) = 0.0;
  m.param(kDragCoefficient) = 0.0;
  return m;
}

TEST(SingleTrack, SteadyCorneringMatchesTheLinearUndersteerGradient) {
  // Closed form (linear bicycle model): delta = L / R + K a_y, K = m / L (lr / Cf - lf / Cr).
  const VehicleModel m = frictionless_linear_bmw();
  const Params<double> p = params_of(m);
  const double L = m.settings.wheelbase, lf = p[kCgToFront], lr = L - lf;
  const double K = p[kMass] / L * (lr / p[kFrontStiffness] - lf / p[kRearStiffness]);
  ASSERT_GT(K, 0.0);  // this car understeers
  for (double speed : {10.0, 20.0, 30.0}) {
    const double steer = 0.01;
    CarState<double> x = CarState<double>::zero();
    x[kVx] = speed;
    // The step's fixed point at constant speed is the steady state (its accelerations vanish).
    for (int t = 0; t < 20000; ++t) {
      x = single_track_step(p, m.settings, x, steer, 0.0, 0.0);
      x[kVx] = speed;
    }
    const std::array<double, 3> d = single_track_accelerations(p, m.settings, x, steer, 0.0, 0.0);
    EXPECT_NEAR(d[1], 0.0, 1e-9);
    EXPECT_NEAR(d[2], 0.0, 1e-9);
    const double ay = speed * x[kYawRate];
    const double k_sim = (steer - L * x[kYawRate] / speed) / ay;
    EXPECT_NEAR(k_sim / K, 1.0, 2e-3) << speed << " m/s: K " << k_sim << " vs closed form " << K;
  }
}

TEST(SingleTrack, StraightCoastingWithoutResistanceKeepsMomentum) {
  const VehicleModel m = frictionless_linear_bmw();
  const Params<double> p = params_of(m);
  CarState<double> x = CarState<double>::zero();
  x[kVx] = 17.0;
  for (int t = 0; t < 1000; ++t) x = single_track_step(p, m.settings, x, 0.0, 0.0, 0.0);
  EXPECT_EQ(x[kVx], 17.0);
  EXPECT_EQ(x[kVy], 0.0);
  EXPECT_EQ(x[kYawRate], 0.0);
  EXPECT_NEAR(x[kX], 17.0 * 1000 * m.settings.dt, 1e-9);
}

TEST(SingleTrack, CoastingLosesEnergyToResistanceAsTheClosedFormSays) {
  // Straight, with rolling resistance and drag: d(m v^2 / 2)/dt = -(Cr0 + c v^2) v.
  VehicleModel m = published_vehicle("bmw_320i");
  const Params<double> p = params_of(m);
  CarState<double> x = CarState<double>::zero();
  x[kVx] = 25.0;
  double work = 0.0;
  const double e0 = kinetic_energy(p, x);
  for (int t = 0; t < 500; ++t) {
    const CarState<double> n = single_track_step(p, m.settings, x, 0.0, 0.0, 0.0);
    const double v = 0.5 * (x[kVx] + n[kVx]);
    work += (p[kRollingResistance] + p[kDragCoefficient] * v * v) * v * m.settings.dt;
    EXPECT_LT(n[kVx], x[kVx]);
    x = n;
  }
  EXPECT_NEAR((e0 - kinetic_energy(p, x)) / work, 1.0, 1e-3);
}

TEST(SingleTrack, CoastingThroughATurnNeverGainsEnergy) {
  // Tire forces oppose slip, so without drive they only take energy away.
  for (TireModel tire : {TireModel::kLinear, TireModel::kPacejka}) {
    VehicleModel m = frictionless_linear_bmw();
    m.settings.tire = tire;
    const Params<double> p = params_of(m);
    CarState<double> x = CarState<double>::zero();
    x[kVx] = 20.0;
    double energy = kinetic_energy(p, x);
    for (int t = 0; t < 600; ++t) {
      x = single_track_step(p, m.settings, x, 0.04 * std::sin(0.01 * t), 0.0, 0.0);
      const double e = kinetic_energy(p, x);
      EXPECT_LE(e, energy * (1.0 + 1e-9)) << "step " << t;
      energy = e;
    }
    EXPECT_LT(energy, kinetic_energy(p, CarState<double>{{0, 0, 0, 20.0, 0, 0, 0, 0}}));
  }
}

TEST(SingleTrack, StandstillAndLowSpeedAreFiniteAndKinematic) {
  const VehicleModel m = published_vehicle("bmw_320i");
  const Params<double> p = params_of(m);
  // At rest with the wheels turned: nothing moves, nothing divides by zero.
  CarState<double> x = CarState<double>::zero();
  for (int t = 0; t < 100; ++t) x = single_track_step(p, m.settings, x, 0.3, 0.0, 0.0);
  for (int c = 0; c < kStateSize; ++c) EXPECT_EQ(x[c], 0.0) << c;
  // Creeping below the blend speed: the yaw rate settles on the kinematic one, v tan(delta) / L.
  x[kVx] = 0.5;
  for (int t = 0; t < 300; ++t) {
    x = single_track_step(p, m.settings, x, 0.3, 0.0, 0.0);
    x[kVx] = 0.5;
  }
  EXPECT_NEAR(x[kYawRate], 0.5 * std::tan(0.3) / m.settings.wheelbase, 1e-6);
  // Pulling away from rest with the wheels turned: finite, accelerating through the blend.
  x = CarState<double>::zero();
  for (int t = 0; t < 150; ++t) {
    const CarState<double> n = single_track_step(p, m.settings, x, 0.05, 0.5, 0.0);
    for (int c = 0; c < kStateSize; ++c) ASSERT_TRUE(std::isfinite(n[c]));
    EXPECT_GT(n[kVx], x[kVx]);
    x = n;
  }
  EXPECT_GT(x[kVx], m.settings.blend_high);
}

TEST(SingleTrack, BrakingStopsTheCarWithoutReversing) {
  const VehicleModel m = published_vehicle("bmw_320i");
  const Params<double> p = params_of(m);
  CarState<double> x = CarState<double>::zero();
  x[kVx] = 15.0;
  for (int t = 0; t < 1000; ++t) x = single_track_step(p, m.settings, x, 0.0, 0.0, 1.0);
  EXPECT_GE(x[kVx], -1e-3);
  EXPECT_LT(x[kVx], 0.05);
}

}  // namespace
}  // namespace simgrad::vehicle
