#include "sims/contagion/population.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace simgrad::contagion {
namespace {

std::filesystem::path source_dir() {
  const char* dir = std::getenv("SIMGRAD_SOURCE_DIR");
  return dir ? std::filesystem::path(dir) : std::filesystem::path(__FILE__).parent_path() / "../../..";
}

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("simgrad_contagion_" + name);
  std::ofstream(path) << text;
  return path;
}

TEST(Population, FranklinCountyCsvLoadsEveryAgentAndBothDirectionsOfEveryContact) {
  const auto dir = source_dir() / "examples/data/gradabm-franklin";
  double last = 0.0;
  const Population p = load_population_csv(dir / "agents.csv", dir / "contacts.csv", [&](double f) {
    EXPECT_GE(f, last);
    last = f;
  });
  EXPECT_EQ(p.agents, 70916);
  EXPECT_EQ(p.age_groups, 8);
  EXPECT_EQ(p.directed_contacts(), 2 * 249991 - 179);  // self-loops stored once
  EXPECT_EQ(last, 1.0);
  // Rows are symmetric: every contact appears in both agents' rows.
  for (Index i = 0; i < 50; ++i)
    for (std::int64_t e = p.offsets[static_cast<std::size_t>(i)]; e < p.offsets[static_cast<std::size_t>(i) + 1]; ++e) {
      const std::int32_t j = p.neighbors[static_cast<std::size_t>(e)];
      bool back = false;
      for (std::int64_t f = p.offsets[static_cast<std::size_t>(j)]; f < p.offsets[static_cast<std::size_t>(j) + 1]; ++f)
        back = back || p.neighbors[static_cast<std::size_t>(f)] == i;
      EXPECT_TRUE(back) << i << " - " << j;
    }
}

TEST(Population, CsvErrorsNameFileLineAndColumn) {
  const auto agents = write_temp("agents.csv", ",age_group,stage\n0,1,0\n1,x,0\n");
  const auto contacts = write_temp("contacts.csv", "0,1\n");
  try {
    load_population_csv(agents, contacts);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("simgrad_contagion_agents.csv:3: column 2: expected a non-negative integer age_group"),
              std::string::npos)
        << e.what();
  }
  const auto good_agents = write_temp("agents2.csv", ",age_group,stage\n0,1,0\n1,2,0\n");
  const auto bad_contacts = write_temp("contacts2.csv", "0,1\n1,7\n");
  try {
    load_population_csv(good_agents, bad_contacts);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("contacts2.csv:2: column 2: agent index above 1"), std::string::npos) << e.what();
  }
}

TEST(Population, SyntheticPopulationIsReproducibleWithAboutThreeAndAHalfContactsPerAgent) {
  SyntheticOptions s;
  s.agents = 20000;
  const Population a = make_synthetic_population(s);
  const Population b = make_synthetic_population(s);
  EXPECT_EQ(a.neighbors, b.neighbors);
  EXPECT_EQ(a.age, b.age);
  const double per_agent = 0.5 * static_cast<double>(a.directed_contacts()) / static_cast<double>(a.agents);
  EXPECT_NEAR(per_agent, 3.5, 0.3);
  s.seed = 2;
  EXPECT_NE(make_synthetic_population(s).neighbors, a.neighbors);
  int layers_seen[4] = {0, 0, 0, 0};
  for (std::uint8_t l : a.layer) ++layers_seen[l];
  for (int l = 0; l < 4; ++l) EXPECT_GT(layers_seen[l], 0) << a.layer_names[static_cast<std::size_t>(l)];
}

}  // namespace
}  // namespace simgrad::contagion
