#include "sims/contagion/transition.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.hpp"

namespace simgrad::contagion {
namespace {

TEST(Transition, HardEventIsTheGumbelMaxSampleAndTheSlopeIsTheRelaxedValuesDerivative) {
  for (double u : {0.01, 0.3, 0.7, 0.99})
    for (double p : {1e-4, 0.2, 0.5, 0.9}) {
      for (double temperature : {0.3, 0.5, 1.0}) {
        const Event e = sample_event(p, u, Sampler::kGumbelSoftmax, temperature);
        // Gumbel-max over the two outcomes with the logistic noise logit(u): [logit p > logit u].
        EXPECT_EQ(e.hard, std::log(p / (1 - p)) > std::log(u / (1 - u)) ? 1.0 : 0.0);
        const double h = 1e-7 * p;
        const double fd = (sample_event(p + h, u, Sampler::kGumbelSoftmax, temperature).soft -
                           sample_event(p - h, u, Sampler::kGumbelSoftmax, temperature).soft) /
                          (2 * h);
        EXPECT_NEAR(e.slope, fd, 1e-5 * std::abs(fd) + 1e-9) << p << " " << u << " " << temperature;
      }
      const Event st = sample_event(p, u, Sampler::kStraightThrough, 0.5);
      EXPECT_EQ(st.hard, u < p ? 1.0 : 0.0);
      EXPECT_EQ(st.soft, p);
      EXPECT_EQ(st.slope, 1.0);
    }
}

TEST(Transition, HardEventsHaveTheirProbability) {
  const double p = 0.3;
  int hits = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) hits += hard_event(p, uniform01(7, 0, static_cast<std::uint64_t>(i)));
  EXPECT_NEAR(static_cast<double>(hits) / n, p, 4 * std::sqrt(p * (1 - p) / n));
}

TEST(Transition, SlopeAtZeroProbabilityIsFiniteAtTemperatureOneAndZeroBelow) {
  EXPECT_NEAR(sample_event(0.0, 0.25, Sampler::kGumbelSoftmax, 1.0).slope, 0.75 / 0.25, 1e-6);
  EXPECT_EQ(sample_event(0.0, 0.25, Sampler::kGumbelSoftmax, 0.5).slope, 0.0);
}

}  // namespace
}  // namespace simgrad::contagion
