// Hints a player can act on: every tuned part is ranked by the effect of a plausible change
// (the rating's gradient times a step the player could make: move a joint by a fixed distance,
// thicken or thin a member by a fraction of its area, lean a catalogue member towards another
// section), the top ones are turned into sentences in the game's words, and each prediction is
// checked by re-rating the changed design.
#pragma once

#include <string>
#include <vector>

#include "sims/structure/structure_problem.hpp"

namespace simgrad::structure {

struct ExplainOptions {
  double joint_step = 0.0;   // distance a joint is moved; 0: 1% of the span (or of the extent)
  double area_step = 0.2;    // fraction of a member's area added or removed
  double logit_step = 1.0;   // how far a catalogue choice is leaned towards an entry
  int hints = 5;
  std::string length_unit = "m";
};

struct Hint {
  std::string text;
  std::string action;  // "move_joint", "thicken", "thin", "choose_section"
  std::string part;    // "joint 7", "member 12"
  std::size_t component = 0;  // the tuned component changed, as the problem numbers them
  int index = 0;       // the joint or member
  int axis = 0;        // the axis moved, or the catalogue entry leaned towards
  double step = 0.0;   // signed change of the tuned value
  std::string state;   // "compression, 96% of buckling load"
  double predicted_change = 0.0;  // gradient x step
  double rerated_change = 0.0;    // the relaxed rating of the changed design minus the current
  double hard_rerated_change = 0.0;  // the same on the hard model
  double predicted_percent = 0.0;
  double rerated_percent = 0.0;
};

struct Explanation {
  double rating = 0.0;
  double hard_rating = 0.0;
  std::vector<Hint> hints;
};

// Explains the design at the problem's physical values x. Leaves the problem assigned to x.
Explanation explain(StructureProblem& problem, std::span<const double> x, const ExplainOptions& options);

// How a member is loaded at its governing load case: "tension, 80% of yield".
std::string member_state(const TrussModel& model, const MemberReport& member);

}  // namespace simgrad::structure
