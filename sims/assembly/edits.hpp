// The edits a player can make to one part of a machine without changing what it is made of:
// move the part's mount along an axis, or make the part larger or smaller. `explain` rates each
// candidate by a rollout of the rebuilt machine and hints at the best per part.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sims/assembly/assembly.hpp"

namespace simgrad::assembly {

struct AssemblyEdit {
  Assembly edited;
  std::string part;
  std::string action;  // "move +x" ... "move -z", "enlarge", "shrink"
  double step = 0.0;   // m moved, or the relative change of size
  std::string text;    // for a player: "move thigh_fl's mount 2 cm along +x"
  double change = 0.0; // what `rate` gave the edit
};

// Every part's candidate edits: its mount moved `step` along +-x, +-y, +-z (a part that hangs
// from another) and its size scaled by 1.2 and 0.8 (a rod's length, a wheel's radius, a block's
// or fin's sides; a mass the plan gives stays as given).
std::vector<AssemblyEdit> candidate_edits(const Assembly& assembly, double step);

// For each part, its candidate that `rate` (the change of the loss an edit makes) scores lowest,
// when that is below zero; sorted from the largest improvement. Candidates the assembly's checks
// refuse are skipped.
std::vector<AssemblyEdit> best_edits(const Assembly& assembly, double step,
                                     const std::function<double(const Assembly&)>& rate);

}  // namespace simgrad::assembly
