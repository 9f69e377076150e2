// The vehicle model: what does not change during a run (settings), the tunable constants (one
// packed parameter array shared by every car of a batch), and the batch's initial states and
// controls. Cars of a batch are independent copies of one vehicle: the windows of a multiple-
// shooting fit, or 10,000 cars of a benchmark.
#pragma once

#include <string>
#include <vector>

#include "core/field.hpp"
#include "sims/vehicle/engine.hpp"
#include "sims/vehicle/transmission.hpp"

namespace simgrad::vehicle {

// Tunable constants, packed four to an entry so a kernel reads them as a few shared vectors;
// the slots after kTunableCount are padding.
enum Param : int {
  kMass,                  // kg
  kYawInertia,            // kg m^2
  kCgToFront,             // m, centre of mass behind the front axle (lr = wheelbase - lf)
  kCgHeight,              // m
  kFrontB, kFrontC, kFrontD, kFrontE,  // front axle Magic Formula (D: peak friction coefficient)
  kRearB, kRearC, kRearD, kRearE,      // rear axle Magic Formula
  kLoadSensitivity,       // relative change of D per relative change of load (both axles)
  kFrontStiffness,        // N/rad, linear tire, front axle
  kRearStiffness,         // N/rad, linear tire, rear axle
  kDriveGain,             // dc_motor: Cm1 (N at full duty); table: torque scale (1 = the table)
  kDriveSpeedLoss,        // dc_motor: Cm2 (N s/m)
  kRollingResistance,     // N
  kDragCoefficient,       // N s^2/m^2 (rho Cd A / 2)
  kDownforceCoefficient,  // N s^2/m^2
  kBrakeForce,            // N at full brake
  kBrakeFrontBias,        // fraction of brake force on the front axle
  kFinalDrive,            // final drive ratio (table engine)
  kGear1, kGear2, kGear3, kGear4, kGear5, kGear6,  // gear ratios (table engine; settings.gears used)
  // Four-wheel model only (four_wheel.hpp); the single-track model ignores them.
  kTrackFront, kTrackRear,        // m, distance between the left and right contact patches
  kRollInertia, kPitchInertia,    // kg m^2, sprung body about the roll and pitch axes
  kSpringFront, kSpringRear,      // N/m per corner, at the wheel
  kDamperFront, kDamperRear,      // N s/m per corner, at the wheel
  kAntiRollFront, kAntiRollRear,  // N/m, anti-roll bar per unit of left-right compression difference
  kBumpStopGap,                   // m of compression before the bump stop engages
  kBumpStopStiffness,             // N/m^2, bump stop force per squared compression beyond the gap
  kWheelInertia,                  // kg m^2, each wheel with its share of the driveline
  kLongitudinalB, kLongitudinalC, kLongitudinalD, kLongitudinalE,  // longitudinal Magic Formula
  kCombinedBx, kCombinedCx,       // how slip angle reduces longitudinal force (G_xa)
  kCombinedBy, kCombinedCy,       // how slip ratio reduces lateral force (G_yk)
  kDiffLocking,                   // N m s/rad, limited-slip coupling per unit wheel-speed difference
  kTunableCount,
  kParamCount = 52
};
static_assert(kParamCount % 4 == 0 && kTunableCount <= kParamCount, "parameters are packed four to an entry");
inline constexpr int kMaxGears = 6;
inline constexpr int kParamBlocks = kParamCount / 4;

// A car's state: pose, body-frame velocities, yaw rate, and the body-frame accelerations of the
// step that led to it (what an accelerometer reads; kept in the state so losses can fit them).
enum StateIndex : int { kX, kY, kYaw, kVx, kVy, kYawRate, kAx, kAy, kStateSize };
// Per car and step: steering angle (rad, at the road wheels), throttle and brake in [0, 1].
enum ControlIndex : int { kSteer, kThrottle, kBrake, kControlSize };

enum class TireModel { kPacejka, kLinear };
enum class EngineModel { kDcMotor, kTable };
enum class ChassisModel { kSingleTrack, kFourWheel };
enum class DifferentialModel { kOpen, kLimitedSlip };

// What stays fixed while constants are tuned.
struct VehicleSettings {
  double dt = 0.01;
  double gravity = 9.81;
  ChassisModel chassis = ChassisModel::kSingleTrack;
  DifferentialModel differential = DifferentialModel::kOpen;  // four-wheel model, driven axles
  // m/s, four-wheel: rounds the speed dividing slip ratio and slip angle; below it the tires act
  // as dampers whose rate, 4 B C D Fz / (m slip_speed), must stay under 2 / dt for the step.
  double slip_speed = 3.0;
  double wheelbase = 2.578;
  TireModel tire = TireModel::kPacejka;
  // Magic Formula axles share their friction between directions: longitudinal force is capped
  // near D Fz and shrinks the lateral force by the friction ellipse. Off, as in Liniger's model
  // of the ORCA car, the two directions are independent.
  bool combined_slip = true;
  double nominal_load_front = 1.0;  // N, Fz0 of the load sensitivity
  double nominal_load_rear = 1.0;
  EngineModel engine = EngineModel::kDcMotor;
  TorqueCurve torque_curve;         // table engine
  int gears = 0;                    // table engine: gears in use (ratios are the kGear constants)
  ShiftModel shift;                 // table engine
  double wheel_radius = 0.3;        // m, table engine
  double drivetrain_efficiency = 0.9;
  double drive_front_fraction = 0.0;  // 0: rear-wheel drive
  // Below blend_low the car follows the kinematic single-track model, above blend_high the
  // dynamic one; between, a smooth step. Kinematic yaw rate and lateral speed are approached
  // with this time constant, which keeps stop-and-go telemetry free of divisions by zero.
  double blend_low = 1.0;   // m/s
  double blend_high = 3.0;  // m/s
  double kinematic_time_constant = 0.05;  // s
  double speed_epsilon = 0.1;  // m/s, rounds |vx| in slip angles and the signs of resisting forces
};

struct VehicleModel {
  VehicleSettings settings;
  Array<4> params{kParamBlocks, true};
  int cars = 1;
  int steps = 0;
  Array<kStateSize> initial_state;  // per car
  std::vector<double> controls;     // steps x cars x kControlSize

  // Sizes the batch: `cars` cars over `steps` steps, zero initial states and controls.
  void resize(int car_count, int step_count);
  double& param(Param p) { return params.values()[p]; }
  double param(Param p) const { return params.values()[p]; }
  // Control c of car `car` at step t.
  double& control(int t, int car, ControlIndex c) {
    return controls[(static_cast<std::size_t>(t) * cars + car) * kControlSize + c];
  }
};

// The model of a published vehicle, one car, no controls yet: "bmw_320i" (CommonRoad vehicle
// type 2) or "orca" (ORCA 1:43, Liniger et al. 2015). Throws std::invalid_argument otherwise.
VehicleModel published_vehicle(const std::string& name);

}  // namespace simgrad::vehicle
