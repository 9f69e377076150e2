// The epidemic split over processes: each part runs its agents and copies its ghosts' values,
// and every process ends with the whole model's loss and gradient, the bits of one process.
// Processes are threads here (tests/core/threaded_subdomain.hpp); tests/dist runs them on MPI.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include "contagion_fixtures.hpp"
#include "sims/contagion/epidemic.hpp"
#include "sims/contagion/losses.hpp"
#include "sims/contagion/tunables.hpp"
#include "tests/core/threaded_subdomain.hpp"

namespace simgrad::contagion {
namespace {

constexpr int kDays = 30;

// Deaths and cases each week.
std::vector<Series> weekly_series() {
  Series deaths{Count::kDeaths, {}, 1.0}, cases{Count::kCases, {}, 0.5};
  for (int d = 7; d <= kDays; d += 7) {
    deaths.observations.push_back({d, 7, 3.0});
    cases.observations.push_back({d, 7, 40.0});
  }
  return {deaths, cases};
}

// The loss and its gradient with respect to every tunable the step's adjoint sums over agents.
struct Evaluation {
  double loss = 0.0;
  std::vector<double> gradient;
};

Evaluation evaluate(const Population& population, DiseaseModel model, const Subdomain* subdomain, const char* checkpoint) {
  Epidemic system(population, model, subdomain);
  CountLoss loss(system, weekly_series(), Scale::kSqrt);
  std::vector<tune::BoundParameter> bound;
  for (const char* name : {"reproduction", "initial_infected", "susceptibility", "infectiousness", "profile",
                           "contact_reduction", "vaccination_rate", "mortality"})
    bound.push_back(tune::bind(epidemic_tunables(), model.parameters, name, {}));
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse(checkpoint);
  tune::RolloutProblem problem(system, loss, kDays, options, std::move(bound));
  const std::vector<double> x = problem.initial();
  Evaluation e;
  e.gradient.resize(x.size());
  e.loss = problem.value_and_gradient(x, e.gradient);
  return e;
}

// Every process's evaluation of its part, `processes` at once.
std::vector<Evaluation> evaluate_split(const Population& whole, const DiseaseModel& model, int processes, int threads,
                                       const char* checkpoint) {
  simgrad::testing::PartitionBoard board(processes, whole.agents);
  std::vector<Evaluation> results(static_cast<std::size_t>(processes));
  simgrad::testing::run_processes(processes, threads, [&](int p) {
    const ElementRun run = board.runs[static_cast<std::size_t>(p)];
    const Population part = part_of(whole, run.first, run.last);
    const simgrad::testing::ThreadedSubdomain subdomain(board, p, part.ghosts);
    results[static_cast<std::size_t>(p)] = evaluate(part, model, &subdomain, checkpoint);
  });
  return results;
}

// Whether every process's evaluation is `whole`'s, bit for bit, and the gradient not all zeros.
void expect_whole_bits(const Population& population, const DiseaseModel& model) {
  const Evaluation whole = evaluate(population, model, nullptr, "all");
  ASSERT_TRUE(std::any_of(whole.gradient.begin(), whole.gradient.end(), [](double g) { return g != 0.0; }));
  for (int processes : {1, 2, 3, 4})
    for (int threads : {1, 2}) {
      const char* checkpoint = threads == 1 ? "all" : "binomial:3";
      for (const Evaluation& e : evaluate_split(population, model, processes, threads, checkpoint)) {
        EXPECT_EQ(e.loss, whole.loss) << processes << " processes, " << threads << " threads";
        EXPECT_EQ(e.gradient, whole.gradient) << processes << " processes, " << threads << " threads";
      }
    }
}

TEST(PopulationPart, RowsNameTheWholesContactsThroughOwnAgentsAndGhosts) {
  const Population whole = testing::small_population(3000);
  Index covered = 0;
  for (int p = 0; p < 3; ++p) {
    const ElementRun run = partition_run(whole.agents, 3, p);
    EXPECT_EQ(run.first, covered);
    covered = run.last;
    const Population part = part_of(whole, run.first, run.last);
    EXPECT_EQ(part.total_agents(), whole.agents);
    EXPECT_TRUE(std::is_sorted(part.ghosts.begin(), part.ghosts.end()));
    EXPECT_TRUE(std::adjacent_find(part.ghosts.begin(), part.ghosts.end()) == part.ghosts.end());
    for (std::int64_t g : part.ghosts) EXPECT_TRUE(g < run.first || g >= run.last);
    if (p > 0) {
      EXPECT_FALSE(part.ghosts.empty());
    }
    for (Index i = 0; i < part.agents; ++i) {
      const Index w = run.first + i;
      ASSERT_EQ(part.offsets[i + 1] - part.offsets[i], whole.offsets[w + 1] - whole.offsets[w]);
      for (std::int64_t k = 0; k < part.offsets[i + 1] - part.offsets[i]; ++k) {
        EXPECT_EQ(part.whole_index(part.neighbors[part.offsets[i] + k]), whole.neighbors[whole.offsets[w] + k]);
        EXPECT_EQ(part.layer[part.offsets[i] + k], whole.layer[whole.offsets[w] + k]);
      }
      EXPECT_EQ(part.age[i], whole.age[w]);
    }
  }
  EXPECT_EQ(covered, whole.agents);
}

// Whether two populations are the same, array for array.
void expect_same_population(const Population& a, const Population& b) {
  EXPECT_EQ(a.agents, b.agents);
  EXPECT_EQ(a.whole_agents, b.whole_agents);
  EXPECT_EQ(a.first_agent, b.first_agent);
  EXPECT_EQ(a.age, b.age);
  EXPECT_EQ(a.age_groups, b.age_groups);
  EXPECT_EQ(a.layers, b.layers);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.neighbors, b.neighbors);
  EXPECT_EQ(a.layer, b.layer);
  EXPECT_EQ(a.ghosts, b.ghosts);
}

// A process of a split run builds its part without the whole: the same arrays as the part cut
// from the whole, for a synthetic population and one read from CSV files.
TEST(PopulationPart, PartsBuiltAloneAreThePartsOfTheWhole) {
  SyntheticOptions options;
  options.agents = 6000;
  options.seed = 9;
  const Population whole = make_synthetic_population(options);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("simgrad_split_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream agents(dir / "agents.csv"), contacts(dir / "contacts.csv");
    agents << "index,age_group\n";
    for (Index i = 0; i < whole.agents; ++i) agents << i << "," << int(whole.age[i]) << "\n";
    for (Index i = 0; i < whole.agents; ++i)
      for (std::int64_t e = whole.offsets[i]; e < whole.offsets[i + 1]; ++e)
        if (whole.neighbors[e] >= i) contacts << i << "," << whole.neighbors[e] << "," << int(whole.layer[e]) << "\n";
  }
  const Population read = load_population_csv(dir / "agents.csv", dir / "contacts.csv");
  for (int processes : {2, 3, 5})
    for (int p = 0; p < processes; ++p) {
      const ElementRun run = partition_run(whole.agents, processes, p);
      SCOPED_TRACE(std::to_string(p) + " of " + std::to_string(processes));
      expect_same_population(make_synthetic_population(options, run), part_of(whole, run.first, run.last));
      const Population read_part = load_population_csv(dir / "agents.csv", dir / "contacts.csv", {},
                                                       [&](Index agents) { return partition_run(agents, processes, p); });
      expect_same_population(read_part, part_of(read, run.first, run.last));
    }
  std::filesystem::remove_all(dir);
}

TEST(PopulationPart, MoreProcessesThanGroupsIsAClearError) {
  // 1500 agents: three blocks of 512, three groups.
  EXPECT_NO_THROW(partition_run(1500, 3, 2));
  try {
    partition_run(1500, 4, 0);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("at most 3 processes"), std::string::npos) << e.what();
  }
}

TEST(PopulationPart, GroupsAreBlocksBelowTheirLimitAndWholeBlocksAbove) {
  EXPECT_EQ(group_blocks(kBlockSize * kMaxGroups), 1);
  EXPECT_EQ(group_count(kBlockSize * kMaxGroups), kMaxGroups);
  EXPECT_EQ(group_blocks(kBlockSize * kMaxGroups + 1), 2);
  EXPECT_LE(group_count(Index{10'000'000}), kMaxGroups);
  const ElementRun last = partition_run(10'000'000, 4, 3);
  EXPECT_EQ(last.last, 10'000'000);
  EXPECT_EQ(last.first % (group_blocks(10'000'000) * kBlockSize), 0);
}

TEST(SplitEpidemic, StraightThroughGivesTheWholeRunsBits) {
  const Population population = testing::small_population(5000);
  expect_whole_bits(population, testing::small_model(population, kDays));
}

TEST(SplitEpidemic, RelaxedWithContactsSwitchedOffGivesTheWholeRunsBits) {
  const Population population = testing::small_population(5000);
  DiseaseModel model = testing::small_model(population, kDays);
  model.settings.straight_through = false;
  model.settings.temperature = 0.7;
  model.settings.active_share = {{1.0, 0.5, 0.8, 0.3}, {0.9, 1.0, 0.5, 0.7}};  // days alternate
  expect_whole_bits(population, model);
}

TEST(SplitEpidemic, WellMixedGivesTheWholeRunsBits) {
  const Population population = make_complete_population(2100);
  expect_whole_bits(population, testing::small_model(population, kDays, 0.01));
}

TEST(SplitEpidemic, APartWithoutItsPartitionIsRefused) {
  const Population whole = testing::small_population(2000);
  const Population part = part_of(whole, 0, 1024);
  DiseaseModel model = testing::small_model(whole, kDays);
  EXPECT_THROW(Epidemic(part, model), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::contagion
