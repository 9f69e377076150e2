#include "sims/contagion/tunables.hpp"

#include <gtest/gtest.h>

namespace simgrad::contagion {
namespace {

TEST(EpidemicTunables, LaterWeeksFollowTheLastTunedWeekAndSumTheirGradientIntoIt) {
  DiseaseParameters p;
  p.reproduction.resize(6, true, 2.0);
  const tune::BoundParameter b = tune::bind(epidemic_tunables(), p, "reproduction", {.leading = 3});
  ASSERT_EQ(b.parameter.initial.size(), 3u);
  const std::vector<double> x = {1.0, 1.5, 0.8};
  b.assign(x);
  EXPECT_EQ(std::vector<double>(p.reproduction.values().begin(), p.reproduction.values().end()),
            (std::vector<double>{1.0, 1.5, 0.8, 0.8, 0.8, 0.8}));
  const std::vector<double> adjoint = {1, 2, 3, 4, 5, 6};
  std::copy(adjoint.begin(), adjoint.end(), p.reproduction.adjoints().begin());
  std::vector<double> g(3);
  b.gradient(g);
  EXPECT_EQ(g, (std::vector<double>{1, 2, 18}));
  const tune::BoundParameter uniform = tune::bind(epidemic_tunables(), p, "reproduction", {.sharing = tune::Sharing::uniform});
  std::vector<double> one(1);
  uniform.gradient(one);
  EXPECT_EQ(one[0], 21.0);
}

TEST(EpidemicTunables, EveryRowBindsItsParameterAndAnUnknownNameIsAnError) {
  DiseaseModel m;
  m.reset(8, 4);
  const std::vector<Array<1>*> all = m.parameters.all();
  const auto& table = epidemic_tunables();
  ASSERT_EQ(table.size(), all.size());
  for (std::size_t k = 0; k < table.size(); ++k) {
    EXPECT_EQ(&quantity(m.parameters, table[k].info.name), all[k]);
    EXPECT_NO_THROW(tune::bind(table, m.parameters, table[k].info.name, {}));
  }
  EXPECT_THROW(quantity(m.parameters, "transmissibility"), std::invalid_argument);
  EXPECT_EQ(m.parameters.profile.values().size(), 8u);  // exposed 3 + infectious 5 days
  EXPECT_EQ(m.parameters.susceptibility.values()[7], 1.52);
  // Defaults are GradABM's: one number where every entry is the same, else one per entry.
  EXPECT_EQ(table[0].info.default_value.kind, tune::TunableDefault::Kind::number);
  EXPECT_EQ(table[3].info.default_value.kind, tune::TunableDefault::Kind::numbers);
}

}  // namespace
}  // namespace simgrad::contagion
