#pragma once

// Counter-based random numbers: Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random
// numbers: as easy as 1, 2, 3", SC 2011). A draw is a pure function of (seed, step, element,
// draw), so a recomputed checkpoint segment sees the same noise as the original forward run and
// the result does not depend on how elements are split across threads.
//
// Layout of one Philox block:
//   counter = {element low 32 bits, element high 32 bits, step low 32 bits, draw}
//   key     = {seed low 32 bits, seed high 32 bits XOR step high 32 bits}
// Steps beyond 2^32 fold into the key; they stay distinct from every other (seed, step) pair as
// long as seeds fit in 32 bits.
//
// uniform01, standard_normal and gumbel with the same (seed, step, element, draw) read the same
// block: gumbel(..., d) is exactly -log(-log(uniform01(..., d))), which a straight-through
// sampler relies on. Use different draw indices for variates meant to be independent.

#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "core/portable.hpp"

namespace simgrad {

struct CounterRng {
  // Ten Philox rounds of the block cipher; the published known-answer vectors pin this down.
  static constexpr std::array<uint32_t, 4> philox(std::array<uint32_t, 4> counter,
                                                  std::array<uint32_t, 2> key) noexcept {
    constexpr uint32_t multiplier0 = 0xD2511F53u;
    constexpr uint32_t multiplier1 = 0xCD9E8D57u;
    constexpr uint32_t weyl0 = 0x9E3779B9u;  // golden ratio
    constexpr uint32_t weyl1 = 0xBB67AE85u;  // sqrt(3) - 1
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        key[0] += weyl0;
        key[1] += weyl1;
      }
      const uint64_t product0 = uint64_t{multiplier0} * counter[0];
      const uint64_t product1 = uint64_t{multiplier1} * counter[2];
      counter = {static_cast<uint32_t>(product1 >> 32) ^ counter[1] ^ key[0],
                 static_cast<uint32_t>(product1),
                 static_cast<uint32_t>(product0 >> 32) ^ counter[3] ^ key[1],
                 static_cast<uint32_t>(product0)};
    }
    return counter;
  }

  // The block that (seed, step, element, draw) names, in the layout documented at the top.
  static constexpr std::array<uint32_t, 4> block(uint64_t seed, uint64_t step, uint64_t element,
                                                 uint32_t draw) noexcept {
    return philox({static_cast<uint32_t>(element), static_cast<uint32_t>(element >> 32),
                   static_cast<uint32_t>(step), draw},
                  {static_cast<uint32_t>(seed),
                   static_cast<uint32_t>(seed >> 32) ^ static_cast<uint32_t>(step >> 32)});
  }

  // 52 random bits from two words, centred in their cell so that neither 0 nor 1 can come out
  // (log(0) in Box-Muller or Gumbel would be infinite). With 53 bits the top cell's centre,
  // 1 - 2^-54, would round to 1.
  static constexpr double open_unit(uint32_t high, uint32_t low) noexcept {
    const uint64_t bits = ((uint64_t{high} << 32) | low) >> 12;
    return (static_cast<double>(bits) + 0.5) * 0x1.0p-52;
  }
};

// Uniform in (0, 1), both ends excluded.
SIMGRAD_HD inline double uniform01(uint64_t seed, uint64_t step, uint64_t element, uint32_t draw = 0) noexcept {
  const auto words = CounterRng::block(seed, step, element, draw);
  return CounterRng::open_unit(words[0], words[1]);
}

// Standard normal by Box-Muller on the two uniforms of one block (the sine branch is dropped so
// that a draw index names exactly one variate).
SIMGRAD_HD inline double standard_normal(uint64_t seed, uint64_t step, uint64_t element,
                              uint32_t draw = 0) noexcept {
  const auto words = CounterRng::block(seed, step, element, draw);
  const double radius_uniform = CounterRng::open_unit(words[0], words[1]);
  const double angle_uniform = CounterRng::open_unit(words[2], words[3]);
  return std::sqrt(-2.0 * std::log(radius_uniform)) *
         std::cos(2.0 * std::numbers::pi * angle_uniform);
}

// Standard Gumbel, the noise of the Gumbel-max trick and of Gumbel-softmax samplers.
SIMGRAD_HD inline double gumbel(uint64_t seed, uint64_t step, uint64_t element, uint32_t draw = 0) noexcept {
  return -std::log(-std::log(uniform01(seed, step, element, draw)));
}

}  // namespace simgrad
