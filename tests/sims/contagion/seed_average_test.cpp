// The seed-averaged loss is the mean of the seeds' losses, and its gradient matches finite
// differences of the relaxed twin.
#include "sims/contagion/seed_average.hpp"

#include <gtest/gtest.h>

#include "contagion_fixtures.hpp"
#include "core/gradcheck.hpp"
#include "sims/contagion/epidemic.hpp"
#include "sims/contagion/losses.hpp"
#include "sims/contagion/tunables.hpp"
#include "tests/tune/simulated_ranks.hpp"

namespace simgrad::contagion {
namespace {

// A small relaxed epidemic fitted to weekly cases, its reproduction number and initial share
// infected tuned: the problem whose loss the tests average over seeds.
struct RelaxedEpidemic {
  static constexpr int kDays = 20;
  Population pop = testing::small_population(400);
  DiseaseModel model = relaxed(testing::small_model(pop, kDays));
  Epidemic system{pop, model};
  CountLoss loss{system, {weekly_cases()}, Scale::kSqrt};
  tune::RolloutProblem inner{system, loss, kDays, {},
                             {tune::bind(epidemic_tunables(), model.parameters, "reproduction", {.sharing = tune::Sharing::uniform}),
                              tune::bind(epidemic_tunables(), model.parameters, "initial_infected", {})}};

  static DiseaseModel relaxed(DiseaseModel model) {
    model.settings.straight_through = false;
    model.settings.temperature = 0.7;
    return model;
  }
  static Series weekly_cases() {
    Series cases{Count::kCases, {}, 1.0};
    for (int d = 7; d <= kDays; d += 7) cases.observations.push_back({d, 7, 10.0});
    return cases;
  }
};

TEST(SeedAverage, MeanOfTheSeedsLossesAndGradientMatchesFiniteDifferences) {
  RelaxedEpidemic e;
  tune::RolloutProblem& inner = e.inner;
  DiseaseModel& model = e.model;
  SeedAveragedProblem averaged(inner, model, 3);
  const std::vector<double> x = averaged.initial();

  double sum = 0.0;
  for (std::uint64_t seed : {1, 2, 3}) {
    model.settings.seed = seed;
    sum += inner.value(x);
  }
  model.settings.seed = 1;
  const double mean = averaged.value(x);
  EXPECT_EQ(mean, sum / 3);
  EXPECT_NE(mean, inner.value(x));  // the seeds differ
  EXPECT_EQ(model.settings.seed, 1u);  // restored

  std::vector<double> g(x.size());
  EXPECT_EQ(averaged.value_and_gradient(x, g), mean);
  const GradCheckReport report = check_gradient([&](std::span<const double> p) { return averaged.value(p); }, x, g);
  for (const auto& c : report.checks) EXPECT_TRUE(c.ok) << c.label << " ad " << c.ad << " fd " << c.fd;
  EXPECT_NE(g[0], 0.0);
}

// The seeds are a batch: spread over processes (each block on its own) the mean and its gradient
// are the plain run's bits, because the rows are summed in seed order wherever they ran.
TEST(SeedAverage, SeedsSpreadOverProcessesGiveThePlainRunsBits) {
  RelaxedEpidemic e;
  DiseaseModel& model = e.model;
  SeedAveragedProblem averaged(e.inner, model, 5);
  const std::vector<double> x = averaged.initial();
  std::vector<double> g_alone(x.size()), g_spread(x.size());
  const double alone = averaged.value_and_gradient(x, g_alone);
  for (int ranks : {2, 3, 7}) {
    tune::testing::SimulatedRanks executor(ranks);
    tune::testing::UseExecutor use(executor);
    EXPECT_EQ(averaged.value(x), alone) << ranks << " processes";
    EXPECT_EQ(averaged.value_and_gradient(x, g_spread), alone);
    EXPECT_EQ(g_spread, g_alone);
    EXPECT_EQ(executor.batches(), 2);
  }
  EXPECT_EQ(model.settings.seed, 1u);  // restored
}

}  // namespace
}  // namespace simgrad::contagion
