// The four-wheel model against closed forms (static corner loads, lateral load transfer split by
// roll stiffness, longitudinal transfer, coasting energy, a free wheel rolling at ground speed,
// standstill), its step against central differences, whole-rollout gradients of every constant,
// and bit-for-bit determinism across threads and checkpoint policies.
#include "sims/vehicle/four_wheel.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/sims/vehicle/fit_case.hpp"

namespace simgrad::vehicle {
namespace {

template <class S = double>
Params<S> params_of(const VehicleModel& m) {
  Params<S> p;
  for (int i = 0; i < kParamCount; ++i) p[i] = S(m.param(static_cast<Param>(i)));
  return p;
}

// A four-wheel BMW and its state at speed vx, on its springs, wheels rolling.
struct Car {
  VehicleModel model = published_vehicle("bmw_320i");
  Params<double> p;
  FourWheelState<double> x;

  explicit Car(double vx) {
    model.settings.chassis = ChassisModel::kFourWheel;
    p = params_of(model);
    x.car = CarState<double>::zero();
    x.car[kVx] = vx;
    x.chassis = rolling_chassis(vx, model.settings.wheel_radius);
  }
  void step(double steer, double throttle, double brake) {
    x = four_wheel_step(p, model.settings, x.car, x.chassis, steer, throttle, brake);
  }
  std::array<double, 4> loads() const {
    return corner_loads(p, model.settings, corner_positions(p, model.settings), x.chassis).tire;
  }
  // Kinetic energy (translation, yaw, roll, pitch, heave, wheel spin) plus the springs' and
  // anti-roll bars' potential energy (bump stops stay open in these tests).
  double energy() const {
    const auto& c = x.car;
    const auto& q = x.chassis;
    double e = 0.5 * p[kMass] * (c[kVx] * c[kVx] + c[kVy] * c[kVy] + q[kHeaveRate] * q[kHeaveRate]) +
               0.5 * p[kYawInertia] * c[kYawRate] * c[kYawRate] + 0.5 * p[kRollInertia] * q[kRollRate] * q[kRollRate] +
               0.5 * p[kPitchInertia] * q[kPitchRate] * q[kPitchRate];
    for (int i = 0; i < 4; ++i) e += 0.5 * p[kWheelInertia] * q[kWheelSpeed + i] * q[kWheelSpeed + i];
    const Corners<double> k = corner_positions(p, model.settings);
    std::array<double, 4> comp;
    for (int i = 0; i < 4; ++i) {
      comp[i] = corner_compression(q[kHeave], q[kRoll], q[kPitch], k.px[i], k.py[i]);
      e += 0.5 * p[i < 2 ? kSpringFront : kSpringRear] * comp[i] * comp[i];
    }
    e += 0.5 * p[kAntiRollFront] * (comp[0] - comp[1]) * (comp[0] - comp[1]);
    e += 0.5 * p[kAntiRollRear] * (comp[2] - comp[3]) * (comp[2] - comp[3]);
    return e;
  }
};

TEST(FourWheel, StaticCornerLoadsSumToTheWeightAndSplitByTheCentreOfMass) {
  Car car(0.0);
  // Dropped from a disturbed attitude, the body settles back on its springs.
  car.x.chassis[kRoll] = 0.02;
  car.x.chassis[kPitch] = -0.01;
  car.x.chassis[kHeave] = 0.015;
  for (int t = 0; t < 600; ++t) car.step(0.0, 0.0, 0.0);
  const std::array<double, 4> f = car.loads();
  const double weight = car.p[kMass] * car.model.settings.gravity;
  const double lf = car.p[kCgToFront], lr = car.model.settings.wheelbase - lf;
  EXPECT_NEAR((f[0] + f[1] + f[2] + f[3]) / weight, 1.0, 1e-6);
  EXPECT_NEAR((f[0] + f[1]) / (weight * lr / car.model.settings.wheelbase), 1.0, 1e-6);
  EXPECT_NEAR(f[0] / f[1], 1.0, 1e-6);
}

TEST(FourWheel, SteadyCorneringLoadTransferSplitsByRollStiffness) {
  // Closed form: front transfer = K_f / (K_f + K_r) m a_y h / t_f, with roll stiffness
  // K = k t^2 / 2 (springs) + k_bar t^2 (anti-roll bar).
  Car car(20.0);
  const double tf = car.p[kTrackFront], tr = car.p[kTrackRear];
  const double kf = car.p[kSpringFront] * tf * tf / 2 + car.p[kAntiRollFront] * tf * tf;
  const double kr = car.p[kSpringRear] * tr * tr / 2 + car.p[kAntiRollRear] * tr * tr;
  for (int t = 0; t < 1500; ++t) {
    car.step(0.02, 0.0, 0.0);
    car.x.car[kVx] = 20.0;  // held, so the turn is steady
  }
  const double ay = car.x.car[kAy];
  ASSERT_GT(ay, 2.0);
  const std::array<double, 4> f = car.loads();
  const double m = car.p[kMass], h = car.p[kCgHeight];
  EXPECT_NEAR(0.5 * (f[1] - f[0]) / (kf / (kf + kr) * m * ay * h / tf), 1.0, 2e-3);
  EXPECT_NEAR(0.5 * (f[3] - f[2]) / (kr / (kf + kr) * m * ay * h / tr), 1.0, 2e-3);
}

TEST(FourWheel, BrakingTransfersLoadForwardAsTheClosedFormSays) {
  // Steady deceleration: front gains m a_x h / L (summed over both front corners).
  Car car(25.0);
  const std::array<double, 4> f0 = car.loads();
  for (int t = 0; t < 150; ++t) car.step(0.0, 0.0, 0.4);
  const std::array<double, 4> f = car.loads();
  const double ax = car.x.car[kAx];
  ASSERT_LT(ax, -2.0);
  const double transfer = -car.p[kMass] * ax * car.p[kCgHeight] / car.model.settings.wheelbase;
  EXPECT_NEAR((f[0] + f[1] - f0[0] - f0[1]) / transfer, 1.0, 0.03);
}

TEST(FourWheel, CoastingLosesEnergyOnlyToResistanceAndSlip) {
  // Straight coasting: the energy lost matches the work of rolling resistance and drag (the
  // tires' slip takes the rest, small while the wheels roll freely).
  Car car(25.0);
  double work = 0.0;
  const double e0 = car.energy();
  for (int t = 0; t < 500; ++t) {
    const double v0 = car.x.car[kVx];
    car.step(0.0, 0.0, 0.0);
    const double v = 0.5 * (v0 + car.x.car[kVx]);
    work += (car.p[kRollingResistance] + car.p[kDragCoefficient] * v * v) * v * car.model.settings.dt;
  }
  EXPECT_NEAR((e0 - car.energy()) / work, 1.0, 1e-3);
  // Without resistance, through a turn: tires only take energy away.
  Car turn(20.0);
  turn.p[kRollingResistance] = 0.0;
  turn.p[kDragCoefficient] = 0.0;
  const double start = turn.energy();
  double previous = start;
  for (int t = 0; t < 600; ++t) {
    turn.step(0.04 * std::sin(0.01 * t), 0.0, 0.0);
    EXPECT_LE(turn.energy(), previous * (1.0 + 1e-6)) << "step " << t;
    previous = turn.energy();
  }
  EXPECT_LT(previous, start);
}

TEST(FourWheel, FreeWheelsRollAtGroundSpeed) {
  // Wheels locked at the start of a coast without resistance spin up until their rim speed is
  // the ground speed (with resistance they would lag a decelerating car by their inertia).
  Car car(15.0);
  car.p[kRollingResistance] = 0.0;
  car.p[kDragCoefficient] = 0.0;
  for (int i = 0; i < 4; ++i) car.x.chassis[kWheelSpeed + i] = 0.0;
  for (int t = 0; t < 200; ++t) car.step(0.0, 0.0, 0.0);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(car.x.chassis[kWheelSpeed + i] * car.model.settings.wheel_radius / car.x.car[kVx], 1.0, 1e-4) << i;
}

TEST(FourWheel, StandstillIsAtRestAndPullingAwayIsFinite) {
  Car car(0.0);
  for (int t = 0; t < 100; ++t) car.step(0.3, 0.0, 0.0);
  for (int c = 0; c < kStateSize; ++c) EXPECT_EQ(car.x.car[c], 0.0) << c;
  for (int c = 0; c < kChassisSize; ++c) EXPECT_EQ(car.x.chassis[c], 0.0) << c;
  for (int t = 0; t < 300; ++t) {
    const double v = car.x.car[kVx];
    car.step(0.05, 0.5, 0.0);
    for (int c = 0; c < kStateSize; ++c) ASSERT_TRUE(std::isfinite(car.x.car[c]));
    for (int c = 0; c < kChassisSize; ++c) ASSERT_TRUE(std::isfinite(car.x.chassis[c]));
    EXPECT_GE(car.x.car[kVx], v);  // the first step only spins the wheels up
  }
  EXPECT_GT(car.x.car[kVx], car.model.settings.blend_high);
  // Braking to a stop: the wheels and the car stop, neither reverses.
  for (int t = 0; t < 800; ++t) car.step(0.0, 0.0, 1.0);
  EXPECT_GE(car.x.car[kVx], -1e-3);
  EXPECT_LT(car.x.car[kVx], 0.05);
}

// Where a step's controls sit among its inputs (planar state, chassis state, controls).
constexpr int kControlOffset = kStateSize + static_cast<int>(kChassisSize);

TEST(FourWheel, StepGradientInStatesAndControls) {
  // One step, cornering and braking with a limited-slip differential: a weighted sum of the next
  // state against central differences in every state and control.
  Car car(18.0);
  car.model.settings.differential = DifferentialModel::kLimitedSlip;
  std::array<double, kControlOffset + kControlSize> x{};
  for (int c = 0; c < kStateSize; ++c) x[c] = car.x.car[c];
  x[kVy] = 0.4;
  x[kYawRate] = 0.3;
  x[kYaw] = 0.2;
  const double chassis[kChassisSize] = {0.01, 0.05, -0.005, 0.02, 0.003, -0.01, 58.0, 59.5, 57.0, 60.0};
  for (int c = 0; c < kChassisSize; ++c) x[kStateSize + c] = chassis[c];
  x[kControlOffset + kSteer] = 0.04;
  x[kControlOffset + kThrottle] = 0.3;
  x[kControlOffset + kBrake] = 0.1;
  const VehicleModel& m = car.model;
  expect_gradient<x.size()>([&m](const auto& a) {
    using S = std::decay_t<decltype(a[0])>;
    const Params<S> p = params_of<S>(m);
    CarState<S> s;
    ChassisState<S> q;
    for (int c = 0; c < kStateSize; ++c) s[c] = a[c];
    for (int c = 0; c < kChassisSize; ++c) q[c] = a[kStateSize + c];
    const S* u = &a[kControlOffset];
    const FourWheelState<S> n = four_wheel_step(p, m.settings, s, q, u[kSteer], u[kThrottle], u[kBrake]);
    S sum = S(0.0);
    for (int c = 0; c < kStateSize; ++c) sum = sum + (1.0 + 0.1 * c) * n.car[c];
    for (int c = 0; c < kChassisSize; ++c) sum = sum + (0.5 + 0.2 * c) * n.chassis[c];
    return sum;
  }, x, 1e-5, 1e-8);
}

TEST(FourWheel, GradientOfEveryConstantThroughAFit) {
  // A limited-slip four-wheel car fitted to a recording: every constant (the single-track ones
  // and the chassis ones) and the windows' initial states against central differences.
  VehicleModel truth = published_vehicle("bmw_320i");
  truth.settings.differential = DifferentialModel::kLimitedSlip;
  FitCase c(truth, short_drive(8.0, 16.0, 5.0), 40, ChassisModel::kFourWheel);
  expect_fit_gradient(c, all_constants());
}

TEST(FourWheel, RecordsAndFitsWheelSpeeds) {
  // A four-wheel recording holds the wheel speeds (rim speed near ground speed when rolling);
  // a fit to it weighs them too, and its gradient in the constants that shape wheel spin
  // (inertia, longitudinal tire, drive, brakes) agrees with central differences.
  VehicleModel truth = published_vehicle("bmw_320i");
  truth.settings.chassis = ChassisModel::kFourWheel;
  FitCase c(truth, short_drive(8.0, 14.0, 4.0), 40, ChassisModel::kFourWheel);
  ASSERT_TRUE(c.telemetry.present[kChWheelRL]);
  const int s = 100;
  EXPECT_NEAR(c.telemetry.values[kChWheelFL][s] * truth.settings.wheel_radius / c.telemetry.values[kChVx][s], 1.0, 0.02);
  expect_fit_gradient(c, {"wheel_inertia", "long_B", "long_C", "long_D", "combined_By", "drive_gain", "brake_force",
                          "spring_rear", "diff_locking", "mass"});
  // The single-track model has no wheels to fit.
  VehicleModel single = published_vehicle("bmw_320i");
  single.resize(c.model.cars, c.model.steps);
  VehicleBatch system(single);
  EXPECT_THROW(TelemetryLoss(system, c.telemetry, c.loss->fit()), std::invalid_argument);
}

TEST(FourWheel, SameHashesForEveryThreadCountAndCheckpointPolicy) {
  // 6 steps (a four-wheel car-step costs about twice a single-track one); every:5 still resumes
  // from a checkpoint mid-run.
  const Hashes reference = determinism_run(1, "all", ChassisModel::kFourWheel, 6);
  for (int threads : {1, 2, 4})
    for (const char* policy : {"all", "every:5", "binomial:3"})
      EXPECT_EQ(determinism_run(threads, policy, ChassisModel::kFourWheel, 6), reference) << threads << " threads, " << policy;
}

}  // namespace
}  // namespace simgrad::vehicle
