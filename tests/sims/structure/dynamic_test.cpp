#include "sims/structure/dynamic.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/structure/bridge_generator.hpp"
#include "sims/structure/rating.hpp"

namespace simgrad::structure {
namespace {

const Material kSteel{"steel", 200e9, 250e6, 7850.0, 1.0};
const Section kTube{"tube", 2e-3, 4e-6, 5e-5};

Structure small_bridge() { return make_bridge(BridgeType::warren, 4, 3.0, 2.5, kSteel, kTube); }

TEST(Dynamic, DampedBridgeSettlesOnTheStaticSolution) {
  // A vehicle standing still on joint 2 (deck [2, 3], speed 0) is a static point load: the
  // damped mass-spring network comes to rest where the direct stiffness method puts it.
  Structure s = small_bridge();
  DynamicSettings settings;
  settings.dt = 5e-5;
  settings.steps = 4000;
  settings.damping = 5e-3;  // the first mode (about 40 Hz) near critical damping
  settings.break_strain = 1.0;  // nothing breaks
  settings.break_width = 1e-3;
  settings.deck = {2, 3};
  settings.vehicle_load = 2e5;
  DynamicTruss truss(s.model, s.design, settings);
  DynamicScore score(truss, 0.0, 1.0, 0.01);
  Rollout rollout(truss, score, settings.steps);
  rollout.loss();
  s.model.load_cases.push_back({"vehicle", {{2, {0, -2e5, 0}}}, false, {}});
  StructureAnalysis analysis(s.model);
  analysis.rate(s.design, true);
  const double static_deflection = analysis.displacement(2, 1, 0);
  const double dynamic_deflection = rollout.final_state()[2 * 2 + 1] - s.design.positions[2 * 2 + 1];
  // Small strains (1e-4): geometric nonlinearity and the remaining motion stay below 0.5%.
  EXPECT_NEAR(dynamic_deflection, static_deflection, 5e-3 * std::abs(static_deflection));
}

// A vehicle crossing a bridge whose diagonals are near their breaking strain.
struct Crossing {
  Structure s = small_bridge();
  DynamicSettings settings;
  Crossing() {
    settings.dt = 5e-5;
    settings.steps = 300;
    settings.damping = 3e-4;
    settings.break_strain = 2.6e-4;
    settings.break_width = 3e-5;
    settings.deck = {0, 1, 2, 3, 4};
    settings.vehicle_load = 6e5;
    settings.vehicle_speed = 400.0;
    settings.gravity = {0.0, -9.81, 0.0};
    for (std::size_t e = 0; e < s.design.areas.size(); ++e) s.design.areas[e] *= 1.0 + 0.1 * static_cast<double>(e % 3);
  }
};

TEST(Dynamic, AreaGradientThroughBreakingMatchesFiniteDifferences) {
  Crossing c;
  DynamicTruss truss(c.s.model, c.s.design, c.settings);
  DynamicScore score(truss, 1.0, 1.0, 1e-3);
  Rollout rollout(truss, score, c.settings.steps);
  const double loss = rollout.loss_and_gradient();
  const std::vector<double> g(truss.area_adjoints().begin(), truss.area_adjoints().end());
  // Some members are partly broken (relaxed), so the health's gradient is exercised.
  double lost = 0.0;
  const std::size_t nd = static_cast<std::size_t>(truss.joint_count() * 2);
  for (int e = 0; e < truss.member_count(); ++e) lost += 1.0 - rollout.final_state()[2 * nd + static_cast<std::size_t>(e)];
  EXPECT_GT(lost, 0.01);
  EXPECT_GT(loss, lost);
  auto f = [&](std::span<const double> areas) {
    truss.set_areas(areas);
    return rollout.loss();
  };
  GradCheckOptions options;
  // Breaking makes the loss sharp (a member's health is a product of 300 steep sigmoids), so
  // central differences lose digits to round-off below this step and to curvature above it.
  options.step = 1e-8;
  options.rtol = 1e-3;
  options.atol = 1e-6;
  const GradCheckReport report = check_gradient(f, c.s.design.areas, g, options);
  for (const GradCheckEntry& e : report.checks) EXPECT_TRUE(e.ok) << e.label << " ad " << e.ad << " fd " << e.fd;
}

TEST(Dynamic, HardTwinBreaksMembersForGoodAndTheRelaxedOneOnlyDims) {
  Crossing c;
  DynamicTruss truss(c.s.model, c.s.design, c.settings);
  DynamicScore score(truss, 1.0, 0.0, 1.0);
  const double relaxed = Rollout(truss, score, c.settings.steps).loss();
  DynamicTruss hard_truss(c.s.model, c.s.design, c.settings.hard_twin());
  DynamicScore hard_score(hard_truss, 1.0, 0.0, 1.0);
  Rollout rollout(hard_truss, hard_score, c.settings.steps);
  const double hard = rollout.loss();
  const int broken = hard_score.broken(rollout.final_state());
  EXPECT_GE(broken, 1);
  EXPECT_EQ(hard, static_cast<double>(broken));  // every broken member counts as exactly one
  EXPECT_NE(relaxed, hard);
}

TEST(Dynamic, GradientIsBitIdenticalUnderEveryCheckpointPolicy) {
  Crossing c;
  DynamicTruss truss(c.s.model, c.s.design, c.settings);
  DynamicScore score(truss, 1.0, 1.0, 1e-3);
  std::vector<std::vector<double>> gradients;
  for (const char* policy : {"all", "every:7", "binomial:5"}) {
    RolloutOptions options;
    options.checkpoint = CheckpointPolicy::parse(policy);
    Rollout rollout(truss, score, c.settings.steps, options);
    rollout.loss_and_gradient();
    gradients.emplace_back(truss.area_adjoints().begin(), truss.area_adjoints().end());
  }
  EXPECT_EQ(gradients[1], gradients[0]);
  EXPECT_EQ(gradients[2], gradients[0]);
}

}  // namespace
}  // namespace simgrad::structure
