#include "tune/methods.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace simgrad::tune {
namespace {

TEST(Methods, MakesEveryNamedOptimizer) {
  for (std::string_view name : kOptimizerNames) {
    const auto optimizer = make_optimizer(name, {});
    ASSERT_NE(optimizer, nullptr);
    EXPECT_EQ(optimizer->name(), name);
  }
}

TEST(Methods, RejectsAnUnknownNameListingTheKnownOnes) {
  try {
    make_optimizer("bfgs", {});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("'bfgs'"), std::string::npos);
    EXPECT_NE(message.find("lbfgs, adam, normalized_gd, cmaes, random_search"), std::string::npos);
  }
}

}  // namespace
}  // namespace simgrad::tune
