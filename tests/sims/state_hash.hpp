// Hashes of states and gradients, for determinism tests that compare runs bit for bit.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

namespace simgrad::testing {

inline constexpr std::uint64_t kHashStart = 1469598103934665603ull;

// FNV-1a over the bytes of doubles.
inline std::uint64_t hash_doubles(std::span<const double> values, std::uint64_t h = kHashStart) {
  for (double v : values) {
    unsigned char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    for (unsigned char b : bytes) h = (h ^ b) * 1099511628211ull;
  }
  return h;
}

// The hash of a final state and of a gradient.
struct Hashes {
  std::uint64_t state, gradient;
  bool operator==(const Hashes&) const = default;
};

}  // namespace simgrad::testing
