#include "sims/contagion/parameters.hpp"

#include <gtest/gtest.h>

namespace simgrad::contagion {
namespace {

TEST(Parameters, LaterWeeksFollowTheLastTunedWeekAndSumTheirGradientIntoIt) {
  DiseaseParameters p;
  p.reproduction.resize(6, 2.0);
  const tune::BoundParameter b = bind_parameter(p, {"reproduction", false, 3});
  ASSERT_EQ(b.parameter.initial.size(), 3u);
  const std::vector<double> x = {1.0, 1.5, 0.8};
  b.assign(x);
  EXPECT_EQ(p.reproduction.value, (std::vector<double>{1.0, 1.5, 0.8, 0.8, 0.8, 0.8}));
  p.reproduction.adjoint = {1, 2, 3, 4, 5, 6};
  std::vector<double> g(3);
  b.gradient(g);
  EXPECT_EQ(g, (std::vector<double>{1, 2, 18}));
  const tune::BoundParameter uniform = bind_parameter(p, {"reproduction", true});
  std::vector<double> one(1);
  uniform.gradient(one);
  EXPECT_EQ(one[0], 21.0);
}

TEST(Parameters, EveryListedNameBindsAndAnUnknownOneIsAnError) {
  DiseaseModel m;
  m.reset(8, 4);
  for (const ParameterInfo& info : epidemic_parameters()) EXPECT_NO_THROW(bind_parameter(m.parameters, {info.name}));
  EXPECT_THROW(quantity(m.parameters, "transmissibility"), std::invalid_argument);
  EXPECT_EQ(m.parameters.profile.value.size(), 8u);  // exposed 3 + infectious 5 days
  EXPECT_EQ(m.parameters.susceptibility.value[7], 1.52);
}

}  // namespace
}  // namespace simgrad::contagion
