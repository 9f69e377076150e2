#include "sims/vehicle/tunables.hpp"

#include <string>

namespace simgrad::vehicle {

namespace {

// A tunable constant and the packed-parameter slots it sets.
struct Constant {
  std::vector<Param> slots;
  std::string name, unit, description;
};

// In Param order, then the both-axles tire constants.
const std::vector<Constant>& constants() {
  static const std::vector<Constant> list = {
      {{kMass}, "mass", "kg", "mass of the car"},
      {{kYawInertia}, "yaw_inertia", "kg m^2", "moment of inertia about the vertical axis"},
      {{kCgToFront}, "cg_to_front", "m", "centre of mass behind the front axle (the rear distance is the wheelbase minus this)"},
      {{kCgHeight}, "cg_height", "m", "centre of mass above the road (longitudinal load transfer)"},
      {{kFrontB}, "front_B", "1/rad", "front tire Magic Formula stiffness factor"},
      {{kFrontC}, "front_C", "1", "front tire Magic Formula shape factor"},
      {{kFrontD}, "front_D", "1", "front tire peak friction coefficient"},
      {{kFrontE}, "front_E", "1", "front tire Magic Formula curvature factor"},
      {{kRearB}, "rear_B", "1/rad", "rear tire Magic Formula stiffness factor"},
      {{kRearC}, "rear_C", "1", "rear tire Magic Formula shape factor"},
      {{kRearD}, "rear_D", "1", "rear tire peak friction coefficient"},
      {{kRearE}, "rear_E", "1", "rear tire Magic Formula curvature factor"},
      {{kLoadSensitivity}, "load_sensitivity", "1", "relative change of peak friction per relative change of load"},
      {{kFrontStiffness}, "front_stiffness", "N/rad", "front axle cornering stiffness (linear tire)"},
      {{kRearStiffness}, "rear_stiffness", "N/rad", "rear axle cornering stiffness (linear tire)"},
      {{kDriveGain}, "drive_gain", "N or 1", "DC motor: force at full duty (Cm1); table engine: torque scale"},
      {{kDriveSpeedLoss}, "drive_speed_loss", "N s/m", "DC motor: force lost per unit speed (Cm2)"},
      {{kRollingResistance}, "rolling_resistance", "N", "rolling resistance force"},
      {{kDragCoefficient}, "drag_coefficient", "N s^2/m^2", "aerodynamic drag per speed squared (rho Cd A / 2)"},
      {{kDownforceCoefficient}, "downforce_coefficient", "N s^2/m^2", "aerodynamic downforce per speed squared"},
      {{kBrakeForce}, "brake_force", "N", "brake force at full brake"},
      {{kBrakeFrontBias}, "brake_front_bias", "1", "share of the brake force on the front axle"},
      {{kFinalDrive}, "final_drive", "1", "final drive ratio (table engine)"},
      {{kGear1}, "gear_1", "1", "first gear ratio (table engine)"},
      {{kGear2}, "gear_2", "1", "second gear ratio"},
      {{kGear3}, "gear_3", "1", "third gear ratio"},
      {{kGear4}, "gear_4", "1", "fourth gear ratio"},
      {{kGear5}, "gear_5", "1", "fifth gear ratio"},
      {{kGear6}, "gear_6", "1", "sixth gear ratio"},
      {{kTrackFront}, "track_front", "m", "four-wheel: front track (left to right contact patch)"},
      {{kTrackRear}, "track_rear", "m", "four-wheel: rear track"},
      {{kRollInertia}, "roll_inertia", "kg m^2", "four-wheel: body inertia about the roll axis"},
      {{kPitchInertia}, "pitch_inertia", "kg m^2", "four-wheel: body inertia about the pitch axis"},
      {{kSpringFront}, "spring_front", "N/m", "four-wheel: front spring rate per corner, at the wheel"},
      {{kSpringRear}, "spring_rear", "N/m", "four-wheel: rear spring rate per corner, at the wheel"},
      {{kDamperFront}, "damper_front", "N s/m", "four-wheel: front damper rate per corner"},
      {{kDamperRear}, "damper_rear", "N s/m", "four-wheel: rear damper rate per corner"},
      {{kAntiRollFront}, "anti_roll_front", "N/m", "four-wheel: front anti-roll bar per unit left-right compression difference"},
      {{kAntiRollRear}, "anti_roll_rear", "N/m", "four-wheel: rear anti-roll bar"},
      {{kBumpStopGap}, "bump_stop_gap", "m", "four-wheel: compression before the bump stops engage"},
      {{kBumpStopStiffness}, "bump_stop_stiffness", "N/m^2", "four-wheel: bump stop force per squared compression beyond the gap"},
      {{kWheelInertia}, "wheel_inertia", "kg m^2", "four-wheel: spin inertia of each wheel with its driveline share"},
      {{kLongitudinalB}, "long_B", "1", "four-wheel: longitudinal Magic Formula stiffness factor"},
      {{kLongitudinalC}, "long_C", "1", "four-wheel: longitudinal Magic Formula shape factor"},
      {{kLongitudinalD}, "long_D", "1", "four-wheel: longitudinal peak friction coefficient"},
      {{kLongitudinalE}, "long_E", "1", "four-wheel: longitudinal Magic Formula curvature factor"},
      {{kCombinedBx}, "combined_Bx", "1/rad", "four-wheel: combined slip, how fast slip angle reduces longitudinal force"},
      {{kCombinedCx}, "combined_Cx", "1", "four-wheel: combined slip, shape of that reduction"},
      {{kCombinedBy}, "combined_By", "1", "four-wheel: combined slip, how fast slip ratio reduces lateral force"},
      {{kCombinedCy}, "combined_Cy", "1", "four-wheel: combined slip, shape of that reduction"},
      {{kDiffLocking}, "diff_locking", "N m s/rad", "four-wheel: limited-slip differential coupling per unit wheel-speed difference"},
      {{kFrontB, kRearB}, "tire_B", "1/rad", "Magic Formula stiffness factor of both axles"},
      {{kFrontC, kRearC}, "tire_C", "1", "Magic Formula shape factor of both axles"},
      {{kFrontD, kRearD}, "tire_D", "1", "peak friction coefficient of both axles"},
      {{kFrontE, kRearE}, "tire_E", "1", "Magic Formula curvature factor of both axles"},
  };
  return list;
}

}  // namespace

const tune::TunableTable<VehicleModel>& vehicle_tunables() {
  static const tune::TunableTable<VehicleModel> table = [] {
    const std::vector<std::string> presets = {"bmw_320i", "orca"};
    std::vector<VehicleModel> models;
    for (const std::string& preset : presets) models.push_back(published_vehicle(preset));
    tune::TunableTable<VehicleModel> t;
    for (const Constant& c : constants()) {
      std::vector<double> defaults;
      for (const VehicleModel& m : models) defaults.push_back(m.param(c.slots.front()));
      std::vector<std::size_t> entries(c.slots.begin(), c.slots.end());
      // A constant is one value, even where it sets two slots.
      tune::TunableInfo info{c.name, c.unit, "vehicle", c.description, tune::TunableDefault::per_preset(presets, defaults)};
      info.sharings = {tune::Sharing::uniform};
      t.push_back({std::move(info),
                   [entries](VehicleModel& m) {
                     tune::TunableStorage s = tune::array_storage(m.params, 1);  // slots, not packed entries
                     s.entries = entries;
                     return s;
                   }});
    }
    return t;
  }();
  return table;
}

std::vector<Param> parameter_slots(std::string_view name) {
  for (const Constant& c : constants())
    if (c.name == name) return c.slots;
  return {};
}

}  // namespace simgrad::vehicle
