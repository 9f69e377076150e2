#pragma once

// Optimizers chosen by name, as scenario files and the command line name them.

#include <array>
#include <memory>
#include <string_view>

#include "tune/optimizer.hpp"

namespace simgrad::tune {

// Every name make_optimizer accepts: three gradient methods, then the black-box baselines.
inline constexpr std::array<std::string_view, 6> kOptimizerNames = {
    "lbfgs", "adam", "normalized_gd", "cmaes", "random_search", "levenberg_marquardt"};

// A fresh optimizer of the named method; an unknown name throws std::invalid_argument listing
// the known ones.
std::unique_ptr<Optimizer> make_optimizer(std::string_view name, const OptimizerOptions& options);

}  // namespace simgrad::tune
