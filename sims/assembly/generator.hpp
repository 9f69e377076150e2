// Random valid assemblies, for measuring how often learning works on machines nobody tuned by
// hand. A machine is a block body with a number of limbs spread along its sides in mirrored
// pairs; a limb is a leg (a motorised hip, a thigh, and a shin on a sprung or motorised knee) or
// a driven wheel; sizes, masses and strengths vary within ranges a game's catalogue would offer.
// The same seed gives the same machine on every machine.
#pragma once

#include <cstdint>

#include "sims/assembly/assembly.hpp"

namespace simgrad::assembly {

struct GeneratorOptions {
  int min_pairs = 1, max_pairs = 3;  // mirrored pairs of limbs
  double wheel_chance = 0.3;         // a pair is wheels rather than legs
  double knee_motor_chance = 0.5;    // a leg's knee is driven rather than sprung
};

// The assembly of `seed`.
Assembly random_assembly(std::uint64_t seed, const GeneratorOptions& options = {});

}  // namespace simgrad::assembly
