#include "sims/vehicle/parameters.hpp"

#include <gtest/gtest.h>

namespace simgrad::vehicle {
namespace {

TEST(VehicleParameters, EveryConstantHasANameAndSlot) {
  for (int p = 0; p < kTunableCount; ++p) {
    EXPECT_EQ(vehicle_parameters()[p].name, param_names()[p]);
    EXPECT_EQ(parameter_slots(param_names()[p]), std::vector<Param>{static_cast<Param>(p)});
  }
  EXPECT_EQ(parameter_slots("tire_D"), (std::vector<Param>{kFrontD, kRearD}));
  EXPECT_TRUE(parameter_slots("tyre_D").empty());
}

TEST(VehicleParameters, BothAxleBindingAssignsBothAndSumsAdjoints) {
  VehicleModel m = published_vehicle("bmw_320i");
  tune::BoundParameter b = bind_parameter(m, "tire_C", 0.5, 3.0, tune::Transform::log);
  EXPECT_EQ(b.parameter.initial, std::vector<double>{1.3507});
  const double c = 1.7;
  b.assign(std::span<const double>(&c, 1));
  EXPECT_EQ(m.param(kFrontC), 1.7);
  EXPECT_EQ(m.param(kRearC), 1.7);
  m.params.adjoints()[kFrontC] = 2.0;
  m.params.adjoints()[kRearC] = 0.5;
  double g = 0.0;
  b.gradient(std::span<double>(&g, 1));
  EXPECT_EQ(g, 2.5);
  EXPECT_THROW(bind_parameter(m, "tyre_C", 0, 1, tune::Transform::identity), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::vehicle
