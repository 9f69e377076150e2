// Epidemic states and gradients hash to the same value for 1, 2 and 4 threads and for every
// checkpoint policy.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "contagion_fixtures.hpp"
#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "tests/sims/state_hash.hpp"
#include "sims/contagion/epidemic.hpp"
#include "sims/contagion/losses.hpp"

namespace simgrad::contagion {
namespace {

using simgrad::testing::Hashes;
using simgrad::testing::hash_doubles;

// `records`: whether `all` keeps day records (Epidemic::records_steps) or whole states.
Hashes run(const Population& pop, bool straight_through, int threads, const char* policy, bool scheduled = false,
           bool records = true) {
  set_thread_count(threads);
  const int days = 35;
  DiseaseModel model = testing::small_model(pop, days, 0.01);
  model.settings.straight_through = straight_through;
  if (scheduled) {
    // Half the contacts of every layer active on even days, all on odd days; R piecewise-linear.
    model.settings.active_share = {std::vector<double>(static_cast<std::size_t>(pop.layers), 0.5),
                                   std::vector<double>(static_cast<std::size_t>(pop.layers), 1.0)};
    model.settings.reproduction_curve = ReproductionCurve::kLinear;
    const std::span<double> r = model.parameters.reproduction.values();
    for (std::size_t w = 0; w < r.size(); ++w) r[w] = 2.0 + (w % 2);
  }
  Epidemic system(pop, model);
  system.record_steps(records);
  Series deaths{Count::kDeaths, {}, 1.0};
  for (int d = 7; d <= days; d += 7) deaths.observations.push_back({d, 7, 3.0});
  CountLoss loss(system, {deaths, {Count::kCases, {{20, 1, 10.0}, {30, 3, 20.0}}, 1.0}}, Scale::kSqrt);
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse(policy);
  Rollout rollout(system, loss, days, options);
  rollout.loss_and_gradient();
  std::uint64_t g = simgrad::testing::kHashStart;
  for (Array<1>* q : model.parameters.all()) g = hash_doubles(q->adjoints(), g);
  set_thread_count(0);
  return {hash_doubles(rollout.final_state()), g};
}

TEST(EpidemicDeterminism, SameHashesForEveryThreadCountAndCheckpointPolicy) {
  const Population pop = testing::small_population(6000);  // 12 blocks: parallel with 4 threads
  ASSERT_GT(block_count(pop.agents), 8);
  for (bool straight_through : {true, false}) {
    const Hashes reference = run(pop, straight_through, 1, "all", false, false);
    for (int threads : {1, 2, 4})
      for (const char* policy : {"all", "every:4", "binomial:5"})
        EXPECT_EQ(run(pop, straight_through, threads, policy), reference)
            << threads << " threads, " << policy << (straight_through ? ", straight-through" : ", relaxed");
  }
}

TEST(EpidemicDeterminism, ScheduledContactsAndLinearRSameHashesForEveryThreadCountAndCheckpointPolicy) {
  const Population pop = testing::small_population(6000);
  const Hashes reference = run(pop, true, 1, "all", true, false);
  EXPECT_NE(reference, run(pop, true, 1, "all"));  // the schedule changes the run
  EXPECT_EQ(run(pop, true, 2, "all", true), reference) << "2 threads, all from day records";
  EXPECT_EQ(run(pop, true, 2, "every:4", true), reference) << "2 threads, every:4";
  EXPECT_EQ(run(pop, true, 4, "binomial:5", true), reference) << "4 threads, binomial:5";
}

TEST(EpidemicDeterminism, CompletePopulationSameHashesForEveryThreadCount) {
  const Population pop = make_complete_population(6000);
  const Hashes reference = run(pop, false, 1, "all", false, false);
  for (int threads : {2, 4}) {
    EXPECT_EQ(run(pop, false, threads, "every:3"), reference) << threads << " threads";
    EXPECT_EQ(run(pop, false, threads, "all"), reference) << threads << " threads, all from day records";
  }
}

}  // namespace
}  // namespace simgrad::contagion
