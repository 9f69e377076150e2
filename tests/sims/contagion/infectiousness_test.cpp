#include "sims/contagion/infectiousness.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace simgrad::contagion {
namespace {

TEST(Infectiousness, GammaIncrementsSumToOneWithTheGivenMean) {
  const std::vector<double> g = gamma_profile(5.5, 2.14, 40);
  EXPECT_NEAR(std::accumulate(g.begin(), g.end(), 0.0), 1.0, 1e-6);
  double mean = 0.0;
  for (std::size_t k = 0; k < g.size(); ++k) mean += (k + 0.5) * g[k];  // mid-day of each increment
  EXPECT_NEAR(mean, 5.5, 0.05);
  EXPECT_THROW(gamma_profile(-1.0, 1.0, 5), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::contagion
