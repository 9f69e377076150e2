#include "sims/vehicle/tunables.hpp"

#include <gtest/gtest.h>

namespace simgrad::vehicle {
namespace {

TEST(VehicleTunables, RowPSetsSlotPAndTheTireConstantsSetBothAxles) {
  const auto& table = vehicle_tunables();
  ASSERT_EQ(table.size(), static_cast<std::size_t>(kTunableCount) + 4);
  for (int p = 0; p < kTunableCount; ++p)
    EXPECT_EQ(parameter_slots(table[static_cast<std::size_t>(p)].info.name), std::vector<Param>{static_cast<Param>(p)});
  EXPECT_EQ(parameter_slots("tire_D"), (std::vector<Param>{kFrontD, kRearD}));
  EXPECT_TRUE(parameter_slots("tyre_D").empty());
  // A constant's default is each preset's own value.
  const tune::TunableDefault& mass = table[kMass].info.default_value;
  EXPECT_EQ(mass.presets, (std::vector<std::string>{"bmw_320i", "orca"}));
  EXPECT_EQ(mass.numbers[0], published_vehicle("bmw_320i").param(kMass));
}

TEST(VehicleTunables, BothAxleBindingIsOneValueThatAssignsBothAndSumsAdjoints) {
  VehicleModel m = published_vehicle("bmw_320i");
  tune::BoundParameter b =
      tune::bind(vehicle_tunables(), m, "tire_C", {.lower = 0.5, .upper = 3.0, .transform = tune::Transform::log});
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
  EXPECT_THROW(tune::bind(vehicle_tunables(), m, "tyre_C", {}), std::invalid_argument);
  EXPECT_THROW(tune::bind(vehicle_tunables(), m, "tire_C", {.sharing = tune::Sharing::each}), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::vehicle
