// The contagion report's frames: the fitted count simulated against the data, and the network
// glimpse coloured by state, checked against the model's own counts.
#include <gtest/gtest.h>

#include <string>

#include "scenario/scenario.hpp"

namespace simgrad::scenario {
namespace {

using nlohmann::json;

// The boarding-school outbreak on a small population: well mixed, or a synthetic network.
std::string scenario(const std::string& population, int exposed_days) {
  return R"({"simulator": "contagion", "population": )" + population +
         R"(, "disease": {"exposed_days": )" + std::to_string(exposed_days) +
         R"(, "infectious_days": 3, "sampler": "gumbel_softmax", "temperature": 0.5},
  "parameters": {"reproduction": 3.0, "initial_infected": 0.02, "profile": [0.6, 0.3, 0.1)" +
         std::string(exposed_days > 0 ? ", 0.0" : "") + R"(]},
  "data": {"file": "data/epidemics/boarding_school_flu_1978.csv", "column": "confined_to_bed", "count": "infectious",
           "first_day": 1, "window": 1},
  "tune": {"parameters": [{"name": "reproduction", "sharing": "uniform", "lower": 0.1, "upper": 20}]}})";
}

std::unique_ptr<Scenario> load(const std::string& text) {
  return load_scenario_text(text, std::string(SIMGRAD_SOURCE_DIR) + "/examples/frames_test.json");
}

// A complete population of 150 agents is all in the glimpse, so the infectious agents drawn
// each day are exactly the infectious count the loss compares with the data.
TEST(ContagionFrames, InfectiousAgentsDrawnAreTheSimulatedCount) {
  auto s = load(scenario(R"({"complete": 150})", 1));
  const json f = s->frames(s->problem().initial());
  ASSERT_TRUE(f.is_object());
  EXPECT_EQ(f["palette"].size(), 5u);
  const json& chart = f["charts"].at(0);
  const json& data = chart["series"].at(0);
  const json& simulated = chart["series"].at(1);
  EXPECT_EQ(data["name"], "data");
  EXPECT_EQ(simulated["x"], data["x"]);
  EXPECT_EQ(data["y"].at(0), 3.0);  // the file's first day: 3 boys in bed
  const json& frames = f["frames"];
  ASSERT_EQ(frames.size(), static_cast<std::size_t>(s->steps + 1));  // one a day: fewer than 80 days
  EXPECT_EQ(frames[0]["points"].size(), 150u);
  EXPECT_TRUE(f["background"]["lines"].empty());  // well mixed: no edges drawn
  int infected_days = 0;
  for (std::size_t k = 0; k < simulated["x"].size(); ++k) {
    const int day = simulated["x"][k].get<int>();
    int infectious = 0;
    for (const json& c : frames.at(static_cast<std::size_t>(day))["classes"]) infectious += c.get<int>() == 2;
    EXPECT_EQ(infectious, simulated["y"][k].get<double>()) << "day " << day;
    infected_days += infectious > 0;
  }
  EXPECT_GT(infected_days, 3);  // the outbreak is drawn, not an empty run
}

// On a network the glimpse starts from seeded agents and draws the contacts among the agents
// shown; every agent is infected or susceptible on day 0 as seeded.
TEST(ContagionFrames, NetworkGlimpseStartsFromSeededAgentsWithTheirContacts) {
  auto s = load(scenario(R"({"synthetic": {"agents": 1500, "seed": 3}})", 0));
  const json f = s->frames(s->problem().initial());
  const json& day0 = f["frames"].at(0);
  EXPECT_EQ(day0["points"].size(), 200u);
  EXPECT_FALSE(f["background"]["lines"].empty());
  for (const json& c : day0["classes"]) EXPECT_TRUE(c == 0 || c == 2) << c;  // no exposed stage; nobody recovered yet
  for (int k = 0; k < 4; ++k) EXPECT_EQ(day0["classes"][k], 2) << k;  // the roots: the first four seeded agents
  // Deterministic: the same frames again.
  EXPECT_EQ(s->frames(s->problem().initial()), f);
}

}  // namespace
}  // namespace simgrad::scenario
