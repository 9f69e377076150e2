// The tunables of a structure, as `simgrad list` and `describe` show them. A structure's
// parameters are design moves (a joint's offset, a member's area or section), bound by the
// structure problem itself (structure_problem.hpp), not stored per entry in a model.
#pragma once

#include <vector>

#include "tune/tunable.hpp"

namespace simgrad::structure {

// joint_offset, area and section_choice.
const std::vector<tune::TunableInfo>& structure_tunables();

}  // namespace simgrad::structure
