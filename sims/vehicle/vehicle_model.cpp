#include "sims/vehicle/vehicle_model.hpp"

#include <cmath>
#include <stdexcept>

namespace simgrad::vehicle {

void VehicleModel::resize(int car_count, int step_count) {
  cars = car_count;
  steps = step_count;
  initial_state.resize(car_count, initial_state.differentiable());
  controls.assign(static_cast<std::size_t>(step_count) * car_count * kControlSize, 0.0);
}

namespace {

// Sets the nominal axle loads to the static ones of the model's current constants.
void set_nominal_loads(VehicleModel& m) {
  const double weight = m.param(kMass) * m.settings.gravity;
  const double lf = m.param(kCgToFront), lr = m.settings.wheelbase - lf;
  m.settings.nominal_load_front = weight * lr / m.settings.wheelbase;
  m.settings.nominal_load_rear = weight * lf / m.settings.wheelbase;
}

// CommonRoad vehicle type 2, "BMW 320i" (Althoff, Koschi, Manzinger, CommonRoad vehicle models,
// parameters_vehicle2): m 1093.3 kg, Iz 1791.6 kg m^2, lf 1.156 m, lr 1.422 m, h_cg 0.574 m.
// Lateral Magic Formula from its tire set: C = p_cy1 = 1.3507, D = p_dy1 = 1.0489,
// E = p_ey1 = -0.0074722, load sensitivity p_dy2 = -0.18033, and B = K_y / (C D Fz) at nominal
// load with K_y/Fz = |p_ky1| sin(2 atan(1 / p_ky2)) (p_ky1 = -21.92, p_ky2 = 2.0012): B = 12.27.
// The same tire on both axles, as in CommonRoad. Drivetrain: a 2.0 l four-cylinder torque curve
// (shape typical of the E90 320i, not from CommonRoad), five gears, final drive 3.23, rear drive.
VehicleModel bmw_320i() {
  VehicleModel m;
  VehicleSettings& s = m.settings;
  s.dt = 0.01;
  s.wheelbase = 1.156 + 1.422;
  s.tire = TireModel::kPacejka;
  s.engine = EngineModel::kTable;
  s.torque_curve = {{1000, 2000, 3000, 3600, 4500, 5500, 6500}, {130, 170, 190, 200, 195, 180, 150}};
  s.gears = 5;
  s.shift = {6000.0, 0.05};
  s.wheel_radius = 0.31;
  s.drivetrain_efficiency = 0.9;
  s.drive_front_fraction = 0.0;
  s.blend_low = 1.0;
  s.blend_high = 3.0;
  s.kinematic_time_constant = 0.05;
  s.speed_epsilon = 0.1;
  const double ky = 21.92 * std::sin(2.0 * std::atan(1.0 / 2.0012));
  const double values[kTunableCount] = {1093.3, 1791.6, 1.156, 0.574,
                                      ky / (1.3507 * 1.0489), 1.3507, 1.0489, -0.0074722,
                                      ky / (1.3507 * 1.0489), 1.3507, 1.0489, -0.0074722,
                                      -0.18033, 0.0, 0.0, 1.0,
                                      0.0, 150.0, 0.35, 0.0,
                                      9000.0, 0.65, 3.23, 4.17,
                                      2.34, 1.52, 1.14, 0.87, 0.0};
  for (int p = 0; p < kTunableCount; ++p) m.param(static_cast<Param>(p)) = values[p];
  // Linear tires with the Magic Formula's slope at nominal load (B C D Fz0), for comparisons.
  set_nominal_loads(m);
  m.param(kFrontStiffness) = values[kFrontB] * values[kFrontC] * values[kFrontD] * s.nominal_load_front;
  m.param(kRearStiffness) = values[kRearB] * values[kRearC] * values[kRearD] * s.nominal_load_rear;
  // Four-wheel constants: E90 tracks; chassis, spring and damper rates typical of a compact
  // saloon (about 1.4 Hz ride, 60% of the roll stiffness in front); the longitudinal Magic
  // Formula and combined-slip weights of Pacejka's example passenger-car tire (Tire and Vehicle
  // Dynamics, 3rd ed., Appendix 3), not from CommonRoad.
  const double four_wheel[] = {1.513, 1.529, 400.0, 1600.0, 28000.0, 30000.0, 2800.0, 3000.0, 18000.0, 6000.0,
                               0.06, 5.0e6, 1.2, 11.0, 1.65, 1.1, 0.0, 12.0, 1.0, 10.0, 1.0, 40.0};
  for (int k = 0; k <= kDiffLocking - kTrackFront; ++k) m.param(static_cast<Param>(kTrackFront + k)) = four_wheel[k];
  m.resize(1, 0);
  return m;
}

// The ORCA 1:43 racing car (Liniger, Domahidi, Morari, "Optimization-based autonomous racing of
// 1:43 scale RC cars", 2015; values as in Liniger's MPCC model parameters): m 0.041 kg,
// Iz 27.8e-6 kg m^2, lf 0.029 m, lr 0.033 m; Pacejka front B 2.579, C 1.2, D 0.192 N, rear
// B 3.3852, C 1.2691, D 0.1737 N (E = 0); motor Cm1 0.287 N, Cm2 0.0545 N s/m; rolling
// resistance Cr0 0.0518 N; drag Cr2 0.00035 N s^2/m^2. Liniger's D is a force; here D is a
// friction coefficient, so D = D_N / static axle load, and the centre of mass is at road level
// (no load transfer), which gives exactly his tire forces.
VehicleModel orca() {
  VehicleModel m;
  VehicleSettings& s = m.settings;
  s.dt = 0.01;
  s.wheelbase = 0.029 + 0.033;
  s.tire = TireModel::kPacejka;
  s.engine = EngineModel::kDcMotor;
  s.combined_slip = false;  // Liniger's model has no coupling between the directions
  s.drive_front_fraction = 0.0;
  s.blend_low = 0.1;
  s.blend_high = 0.3;
  s.kinematic_time_constant = 0.05;
  s.speed_epsilon = 0.02;
  const double values[kTunableCount] = {0.041, 27.8e-6, 0.029, 0.0,
                                      2.579, 1.2, 0.0, 0.0,
                                      3.3852, 1.2691, 0.0, 0.0,
                                      0.0, 0.0, 0.0, 0.287,
                                      0.0545, 0.0518, 0.00035, 0.0,
                                      0.3, 0.5, 1.0, 0.0,
                                      0.0, 0.0, 0.0, 0.0, 0.0};
  for (int p = 0; p < kTunableCount; ++p) m.param(static_cast<Param>(p)) = values[p];
  set_nominal_loads(m);
  m.param(kFrontD) = 0.192 / s.nominal_load_front;
  m.param(kRearD) = 0.1737 / s.nominal_load_rear;
  m.param(kFrontStiffness) = 2.579 * 1.2 * 0.192;
  m.param(kRearStiffness) = 3.3852 * 1.2691 * 0.1737;
  // Four-wheel constants (not from Liniger, whose model is single-track): tracks and wheel radius
  // of the 1:43 chassis, a 2 mm static spring compression, dampers near half critical.
  s.wheel_radius = 0.0125;
  s.slip_speed = 0.3;
  const double four_wheel[] = {0.046, 0.046, 1.0e-5, 2.0e-5, 50.0, 50.0, 0.4, 0.4, 20.0, 10.0,
                               0.004, 2.0e4, 2.0e-7, 8.0, 1.5, 0.5, 0.0, 12.0, 1.0, 10.0, 1.0, 0.0};
  for (int k = 0; k <= kDiffLocking - kTrackFront; ++k) m.param(static_cast<Param>(kTrackFront + k)) = four_wheel[k];
  m.resize(1, 0);
  return m;
}

}  // namespace

VehicleModel published_vehicle(const std::string& name) {
  if (name == "bmw_320i") return bmw_320i();
  if (name == "orca") return orca();
  throw std::invalid_argument("unknown vehicle \"" + name + "\"; expected \"bmw_320i\" or \"orca\"");
}

}  // namespace simgrad::vehicle
