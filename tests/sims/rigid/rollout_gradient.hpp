// The rigid tests' gradient check of one tunable array: the adjoint the last loss_and_gradient
// left in it against central differences of the rollout's loss (tests/sims/rollout_gradient.hpp).
#pragma once

#include "tests/sims/rollout_gradient.hpp"

namespace simgrad::rigid::testing {

using simgrad::testing::expect_array_gradient;

}  // namespace simgrad::rigid::testing
