#include "core/rng.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>

namespace simgrad {
namespace {

using Words = std::array<uint32_t, 4>;

// Known-answer vectors for philox4x32_10 published with Random123 (kat_vectors).
TEST(CounterRng, MatchesRandom123KnownAnswers) {
  EXPECT_EQ(CounterRng::philox({0, 0, 0, 0}, {0, 0}),
            (Words{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  EXPECT_EQ(CounterRng::philox({0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                               {0xffffffffu, 0xffffffffu}),
            (Words{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  EXPECT_EQ(CounterRng::philox({0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
                               {0xa4093822u, 0x299f31d0u}),
            (Words{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
}

// The cipher is usable in constant expressions, so tables of noise can be built at compile time.
TEST(CounterRng, IsConstexpr) {
  static_assert(CounterRng::philox({0, 0, 0, 0}, {0, 0})[0] == 0x6627e8d5u);
}

// The extreme words must map strictly inside (0, 1), or log() in Box-Muller would overflow.
TEST(CounterRng, OpenUnitExcludesBothEnds) {
  EXPECT_GT(CounterRng::open_unit(0, 0), 0.0);
  EXPECT_LT(CounterRng::open_unit(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_EQ(CounterRng::open_unit(0xffffffffu, 0xffffffffu), 1.0 - 0x1.0p-53);
}

// A draw depends only on its key, so recomputation and any thread split reproduce it.
TEST(CounterRng, DrawsArePureFunctionsOfTheirKey) {
  EXPECT_EQ(uniform01(7, 3, 11, 2), uniform01(7, 3, 11, 2));
  EXPECT_NE(uniform01(7, 3, 11, 2), uniform01(8, 3, 11, 2));
  EXPECT_NE(uniform01(7, 3, 11, 2), uniform01(7, 4, 11, 2));
  EXPECT_NE(uniform01(7, 3, 11, 2), uniform01(7, 3, 12, 2));
  EXPECT_NE(uniform01(7, 3, 11, 2), uniform01(7, 3, 11, 3));
  EXPECT_NE(uniform01(7, uint64_t{1} << 32, 11, 2), uniform01(7, 0, 11, 2));
  EXPECT_NE(uniform01(7, 3, uint64_t{1} << 32, 2), uniform01(7, 3, 0, 2));
}

TEST(CounterRng, GumbelIsTheTransformOfTheSameUniform) {
  const double u = uniform01(5, 9, 1, 4);
  EXPECT_EQ(gumbel(5, 9, 1, 4), -std::log(-std::log(u)));
}

// Sample moments over elements of one step, with tolerances of about five standard errors.
struct Moments {
  double mean = 0, variance = 0, skewness = 0, kurtosis = 0;
};

template <class Draw>
Moments moments_of(Draw draw, int count) {
  double sum = 0, sum2 = 0, sum3 = 0, sum4 = 0;
  for (int i = 0; i < count; ++i) {
    const double v = draw(i);
    sum += v;
    sum2 += v * v;
    sum3 += v * v * v;
    sum4 += v * v * v * v;
  }
  Moments m;
  m.mean = sum / count;
  const double raw2 = sum2 / count, raw3 = sum3 / count, raw4 = sum4 / count;
  m.variance = raw2 - m.mean * m.mean;
  const double third = raw3 - 3 * m.mean * raw2 + 2 * m.mean * m.mean * m.mean;
  const double fourth = raw4 - 4 * m.mean * raw3 + 6 * m.mean * m.mean * raw2 -
                        3 * m.mean * m.mean * m.mean * m.mean;
  m.skewness = third / std::pow(m.variance, 1.5);
  m.kurtosis = fourth / (m.variance * m.variance);
  return m;
}

constexpr int kSamples = 200000;

TEST(CounterRng, UniformMoments) {
  const Moments m = moments_of([](int i) { return uniform01(42, 0, i); }, kSamples);
  EXPECT_NEAR(m.mean, 0.5, 5 * std::sqrt(1.0 / 12 / kSamples));
  EXPECT_NEAR(m.variance, 1.0 / 12, 5 * std::sqrt(1.0 / 180 / kSamples));
  EXPECT_NEAR(m.skewness, 0.0, 0.02);
  EXPECT_NEAR(m.kurtosis, 1.8, 0.02);
}

TEST(CounterRng, UniformFillsDecilesEvenly) {
  std::array<int, 10> counts{};
  for (int i = 0; i < kSamples; ++i) ++counts[static_cast<int>(uniform01(1, 2, i, 1) * 10)];
  // Chi-square with 9 degrees of freedom: 27.9 is its 0.999 quantile.
  double chi2 = 0;
  for (int c : counts) chi2 += (c - kSamples / 10.0) * (c - kSamples / 10.0) / (kSamples / 10.0);
  EXPECT_LT(chi2, 27.9);
}

TEST(CounterRng, NormalMoments) {
  const Moments m = moments_of([](int i) { return standard_normal(42, 5, i, 3); }, kSamples);
  EXPECT_NEAR(m.mean, 0.0, 5 * std::sqrt(1.0 / kSamples));
  EXPECT_NEAR(m.variance, 1.0, 5 * std::sqrt(2.0 / kSamples));
  EXPECT_NEAR(m.skewness, 0.0, 5 * std::sqrt(6.0 / kSamples));
  EXPECT_NEAR(m.kurtosis, 3.0, 5 * std::sqrt(24.0 / kSamples));
}

// Euler-Mascheroni constant and pi^2/6 are the Gumbel mean and variance.
TEST(CounterRng, GumbelMoments) {
  const Moments m = moments_of([](int i) { return gumbel(3, 1, i); }, kSamples);
  EXPECT_NEAR(m.mean, 0.5772156649, 5 * std::sqrt(1.645 / kSamples));
  EXPECT_NEAR(m.variance, 1.6449340668, 0.03);
}

// Neighbouring elements and steps must be uncorrelated, or adjacent agents would share noise.
TEST(CounterRng, NeighboursAreUncorrelated) {
  double across_elements = 0, across_steps = 0;
  for (int i = 0; i < kSamples; ++i) {
    across_elements += standard_normal(9, 0, i) * standard_normal(9, 0, i + 1);
    across_steps += standard_normal(9, i, 0) * standard_normal(9, i + 1, 0);
  }
  EXPECT_NEAR(across_elements / kSamples, 0.0, 5 / std::sqrt(double(kSamples)));
  EXPECT_NEAR(across_steps / kSamples, 0.0, 5 / std::sqrt(double(kSamples)));
}

}  // namespace
}  // namespace simgrad
