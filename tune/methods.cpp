#include "tune/methods.hpp"

#include <stdexcept>
#include <string>

#include "tune/adam.hpp"
#include "tune/cmaes.hpp"
#include "tune/lbfgs.hpp"
#include "tune/levenberg_marquardt.hpp"
#include "tune/normalized_gd.hpp"
#include "tune/random_search.hpp"

namespace simgrad::tune {
namespace {

// Throws naming the unknown method and listing the known ones.
[[noreturn]] void unknown_method(std::string_view name) {
  std::string known;
  for (std::string_view candidate : kOptimizerNames) {
    known += (known.empty() ? "" : ", ") + std::string(candidate);
  }
  throw std::invalid_argument("unknown optimizer '" + std::string(name) + "' (expected one of " +
                              known + ")");
}

}  // namespace

std::unique_ptr<Optimizer> make_optimizer(std::string_view name, const OptimizerOptions& options) {
  if (name == "lbfgs") return std::make_unique<Lbfgs>(options);
  if (name == "adam") return std::make_unique<Adam>(options);
  if (name == "normalized_gd") return std::make_unique<NormalizedGradientDescent>(options);
  if (name == "cmaes") return std::make_unique<CmaEs>(options);
  if (name == "random_search") return std::make_unique<RandomSearch>(options);
  if (name == "levenberg_marquardt") return std::make_unique<LevenbergMarquardt>(options);
  unknown_method(name);
}

}  // namespace simgrad::tune
