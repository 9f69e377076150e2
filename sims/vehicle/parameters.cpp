#include "sims/vehicle/parameters.hpp"

#include <stdexcept>

namespace simgrad::vehicle {

const std::vector<ParameterInfo>& vehicle_parameters() {
  static const std::vector<ParameterInfo> info = {
      {"mass", "kg", "mass of the car"},
      {"yaw_inertia", "kg m^2", "moment of inertia about the vertical axis"},
      {"cg_to_front", "m", "centre of mass behind the front axle (the rear distance is the wheelbase minus this)"},
      {"cg_height", "m", "centre of mass above the road (longitudinal load transfer)"},
      {"front_B", "1/rad", "front tire Magic Formula stiffness factor"},
      {"front_C", "1", "front tire Magic Formula shape factor"},
      {"front_D", "1", "front tire peak friction coefficient"},
      {"front_E", "1", "front tire Magic Formula curvature factor"},
      {"rear_B", "1/rad", "rear tire Magic Formula stiffness factor"},
      {"rear_C", "1", "rear tire Magic Formula shape factor"},
      {"rear_D", "1", "rear tire peak friction coefficient"},
      {"rear_E", "1", "rear tire Magic Formula curvature factor"},
      {"load_sensitivity", "1", "relative change of peak friction per relative change of load"},
      {"front_stiffness", "N/rad", "front axle cornering stiffness (linear tire)"},
      {"rear_stiffness", "N/rad", "rear axle cornering stiffness (linear tire)"},
      {"drive_gain", "N or 1", "DC motor: force at full duty (Cm1); table engine: torque scale"},
      {"drive_speed_loss", "N s/m", "DC motor: force lost per unit speed (Cm2)"},
      {"rolling_resistance", "N", "rolling resistance force"},
      {"drag_coefficient", "N s^2/m^2", "aerodynamic drag per speed squared (rho Cd A / 2)"},
      {"downforce_coefficient", "N s^2/m^2", "aerodynamic downforce per speed squared"},
      {"brake_force", "N", "brake force at full brake"},
      {"brake_front_bias", "1", "share of the brake force on the front axle"},
      {"final_drive", "1", "final drive ratio (table engine)"},
      {"gear_1", "1", "first gear ratio (table engine)"},
      {"gear_2", "1", "second gear ratio"},
      {"gear_3", "1", "third gear ratio"},
      {"gear_4", "1", "fourth gear ratio"},
      {"gear_5", "1", "fifth gear ratio"},
      {"gear_6", "1", "sixth gear ratio"},
      {"track_front", "m", "four-wheel: front track (left to right contact patch)"},
      {"track_rear", "m", "four-wheel: rear track"},
      {"roll_inertia", "kg m^2", "four-wheel: body inertia about the roll axis"},
      {"pitch_inertia", "kg m^2", "four-wheel: body inertia about the pitch axis"},
      {"spring_front", "N/m", "four-wheel: front spring rate per corner, at the wheel"},
      {"spring_rear", "N/m", "four-wheel: rear spring rate per corner, at the wheel"},
      {"damper_front", "N s/m", "four-wheel: front damper rate per corner"},
      {"damper_rear", "N s/m", "four-wheel: rear damper rate per corner"},
      {"anti_roll_front", "N/m", "four-wheel: front anti-roll bar per unit left-right compression difference"},
      {"anti_roll_rear", "N/m", "four-wheel: rear anti-roll bar"},
      {"bump_stop_gap", "m", "four-wheel: compression before the bump stops engage"},
      {"bump_stop_stiffness", "N/m^2", "four-wheel: bump stop force per squared compression beyond the gap"},
      {"wheel_inertia", "kg m^2", "four-wheel: spin inertia of each wheel with its driveline share"},
      {"long_B", "1", "four-wheel: longitudinal Magic Formula stiffness factor"},
      {"long_C", "1", "four-wheel: longitudinal Magic Formula shape factor"},
      {"long_D", "1", "four-wheel: longitudinal peak friction coefficient"},
      {"long_E", "1", "four-wheel: longitudinal Magic Formula curvature factor"},
      {"combined_Bx", "1/rad", "four-wheel: combined slip, how fast slip angle reduces longitudinal force"},
      {"combined_Cx", "1", "four-wheel: combined slip, shape of that reduction"},
      {"combined_By", "1", "four-wheel: combined slip, how fast slip ratio reduces lateral force"},
      {"combined_Cy", "1", "four-wheel: combined slip, shape of that reduction"},
      {"diff_locking", "N m s/rad", "four-wheel: limited-slip differential coupling per unit wheel-speed difference"},
      {"tire_B", "1/rad", "Magic Formula stiffness factor of both axles"},
      {"tire_C", "1", "Magic Formula shape factor of both axles"},
      {"tire_D", "1", "peak friction coefficient of both axles"},
      {"tire_E", "1", "Magic Formula curvature factor of both axles"},
  };
  return info;
}

std::vector<Param> parameter_slots(const std::string& name) {
  const auto& info = vehicle_parameters();
  for (std::size_t p = 0; p < info.size(); ++p) {
    if (info[p].name != name) continue;
    if (p < static_cast<std::size_t>(kTunableCount)) return {static_cast<Param>(p)};
    const int k = static_cast<int>(p) - kTunableCount;  // tire_B, tire_C, tire_D, tire_E
    return {static_cast<Param>(kFrontB + k), static_cast<Param>(kRearB + k)};
  }
  return {};
}

tune::BoundParameter bind_parameter(VehicleModel& model, const std::string& name, double lower, double upper,
                                    tune::Transform transform) {
  const std::vector<Param> slots = parameter_slots(name);
  if (slots.empty()) throw std::invalid_argument("unknown vehicle parameter \"" + name + "\"");
  tune::BoundParameter b;
  b.parameter.name = name;
  for (const ParameterInfo& info : vehicle_parameters())
    if (info.name == name) b.parameter.unit = info.unit;
  b.parameter.lower = lower;
  b.parameter.upper = upper;
  b.parameter.transform = transform;
  b.parameter.initial = {model.param(slots.front())};
  b.assign = [&model, slots](std::span<const double> x) {
    for (Param p : slots) model.param(p) = x[0];
  };
  // A constant shared by several slots gets the sum of their adjoints, in slot order.
  b.gradient = [&model, slots](std::span<double> g) {
    g[0] = 0.0;
    for (Param p : slots) g[0] += model.params.adjoints()[p];
  };
  return b;
}

}  // namespace simgrad::vehicle
