#include "tune/parameter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace simgrad::tune {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// One parameter of each transform, one of them a vector, with an unbounded identity component.
ParameterSpace mixed_space() {
  return ParameterSpace({
      {"offset", "m", -kInf, kInf, Transform::identity, {0.3}},
      {"stiffness", "N/m", 10.0, 1e5, Transform::log, {100.0, 2500.0}},
      {"friction", "", 0.0, 2.0, Transform::logit, {0.4, 1.7, 0.01}},
      {"gain", "", -1.0, 1.0, Transform::identity, {0.5}},
  });
}

// Physical loss with all components coupled, so every chain-rule factor matters.
double physical_loss(std::span<const double> x) {
  double loss = 0;
  for (std::size_t i = 0; i < x.size(); ++i) loss += std::sin(0.7 * x[i] + 0.1 * double(i)) * x[i];
  return loss * x[0] + x[1] * x[2] * 1e-4;
}

// Exact dL/dx of physical_loss.
void physical_gradient(std::span<const double> x, std::span<double> gradient) {
  double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += std::sin(0.7 * x[i] + 0.1 * double(i)) * x[i];
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double angle = 0.7 * x[i] + 0.1 * double(i);
    gradient[i] = x[0] * (std::sin(angle) + 0.7 * x[i] * std::cos(angle));
  }
  gradient[0] += sum;
  gradient[1] += x[2] * 1e-4;
  gradient[2] += x[1] * 1e-4;
}

TEST(Transform, ParsesItsThreeNames) {
  EXPECT_EQ(parse_transform("identity"), Transform::identity);
  EXPECT_EQ(parse_transform("log"), Transform::log);
  EXPECT_EQ(parse_transform("logit"), Transform::logit);
  for (Transform t : {Transform::identity, Transform::log, Transform::logit}) {
    EXPECT_EQ(parse_transform(transform_name(t)), t);
  }
}

TEST(Transform, RejectsUnknownNamesListingTheChoices) {
  try {
    parse_transform("Log");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("'Log'"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("identity, log or logit"), std::string::npos);
  }
}

TEST(ParameterSpace, LaysOutComponentsInOrder) {
  const ParameterSpace space = mixed_space();
  EXPECT_EQ(space.size(), 7u);
  EXPECT_EQ(space.offset(0), 0u);
  EXPECT_EQ(space.offset(1), 1u);
  EXPECT_EQ(space.offset(2), 3u);
  EXPECT_EQ(space.offset(3), 6u);
  EXPECT_EQ(space.index_of("friction"), 2u);
  EXPECT_THROW(space.index_of("mass"), std::out_of_range);
  EXPECT_EQ(space.component_name(0), "offset");
  EXPECT_EQ(space.component_name(4), "friction[1]");
  EXPECT_EQ(space.initial_physical(),
            (std::vector<double>{0.3, 100.0, 2500.0, 0.4, 1.7, 0.01, 0.5}));
}

TEST(ParameterSpace, MapsBoundsIntoOptimizerCoordinates) {
  const ParameterSpace space = mixed_space();
  const std::vector<double> lower = space.optimizer_lower(), upper = space.optimizer_upper();
  EXPECT_EQ(lower[0], -kInf);
  EXPECT_EQ(upper[0], kInf);
  EXPECT_DOUBLE_EQ(lower[1], std::log(10.0));
  EXPECT_DOUBLE_EQ(upper[2], std::log(1e5));
  EXPECT_EQ(lower[3], -kInf);
  EXPECT_EQ(upper[5], kInf);
  EXPECT_EQ(lower[6], -1.0);
  EXPECT_EQ(upper[6], 1.0);
  EXPECT_EQ(space.physical_lower()[3], 0.0);
  EXPECT_EQ(space.physical_upper()[1], 1e5);
}

TEST(ParameterSpace, RoundTripsPhysicalValues) {
  const ParameterSpace space = mixed_space();
  const std::vector<double> x = space.initial_physical();
  const std::vector<double> back = space.to_physical(space.to_optimizer(x));
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(back[i], x[i], 1e-13 * std::fabs(x[i]));
  EXPECT_DOUBLE_EQ(space.to_optimizer(x)[1], std::log(100.0));
  EXPECT_DOUBLE_EQ(space.to_optimizer(x)[3], std::log(0.2 / 0.8));
}

TEST(ParameterSpace, KeepsExtremeOptimizerCoordinatesInsideTheBounds) {
  const ParameterSpace space = mixed_space();
  const std::vector<double> far(7, 800.0), near(7, -800.0);
  const std::vector<double> high = space.to_physical(far), low = space.to_physical(near);
  for (std::size_t i = 1; i < 6; ++i) {
    EXPECT_LE(high[i], space.physical_upper()[i]);
    EXPECT_GE(low[i], space.physical_lower()[i]);
  }
  EXPECT_EQ(high[3], 2.0);
  EXPECT_EQ(low[3], 0.0);
}

// dL/dz from the chain rule against central differences of L(to_physical(z)).
TEST(ParameterSpace, ChainRuleMatchesCentralDifferences) {
  const ParameterSpace space = mixed_space();
  const std::vector<double> z = space.to_optimizer(space.initial_physical());
  const std::vector<double> x = space.to_physical(z);
  std::vector<double> physical(7);
  physical_gradient(x, physical);
  const std::vector<double> gradient = space.gradient_to_optimizer(x, physical);
  for (std::size_t i = 0; i < z.size(); ++i) {
    const double h = 1e-6;
    std::vector<double> plus = z, minus = z;
    plus[i] += h;
    minus[i] -= h;
    const double difference =
        (physical_loss(space.to_physical(plus)) - physical_loss(space.to_physical(minus))) / (2 * h);
    EXPECT_NEAR(gradient[i], difference, 1e-6 * (1 + std::fabs(difference))) << "component " << i;
  }
}

// The adapter gives optimizers the same chain-rule gradient and forwards one rollout per call.
TEST(ParameterSpace, ObjectiveAdapterWorksInOptimizerCoordinates) {
  const ParameterSpace space = mixed_space();
  int rollouts = 0;
  FunctionObjective physical(7, nullptr, [&](std::span<const double> x, std::span<double> g) {
    ++rollouts;
    physical_gradient(x, g);
    return physical_loss(x);
  });
  TransformedObjective adapter = space.objective(physical);
  EXPECT_EQ(adapter.dimension(), 7u);
  const std::vector<double> z = space.to_optimizer(space.initial_physical());
  std::vector<double> gradient(7), physical_g(7);
  const double loss = adapter.value_and_gradient(z, gradient);
  EXPECT_EQ(loss, physical_loss(space.to_physical(z)));
  physical_gradient(space.to_physical(z), physical_g);
  EXPECT_EQ(gradient, space.gradient_to_optimizer(space.to_physical(z), physical_g));
  EXPECT_EQ(adapter.value(z), loss);
  EXPECT_EQ(rollouts, 2);

  FunctionObjective wrong_size(3, nullptr, [](std::span<const double>, std::span<double>) { return 0.0; });
  EXPECT_THROW(space.objective(wrong_size), std::invalid_argument);
}

// Each invalid description fails at construction with the parameter's name in the message.
TEST(ParameterSpace, RejectsInvalidParametersByName) {
  const auto message_of = [](Parameter parameter) -> std::string {
    try {
      ParameterSpace space({parameter});
    } catch (const std::exception& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_NE(message_of({"k", "", 0.0, 10.0, Transform::log, {1.0}}).find("'k'"), std::string::npos);
  EXPECT_NE(message_of({"k", "", 0.0, 10.0, Transform::log, {1.0}}).find("lower > 0"),
            std::string::npos);
  EXPECT_NE(message_of({"p", "", 0.0, kInf, Transform::logit, {1.0}}).find("finite bounds"),
            std::string::npos);
  EXPECT_NE(message_of({"q", "", 2.0, 1.0, Transform::identity, {1.5}}).find("not an interval"),
            std::string::npos);
  EXPECT_NE(message_of({"r", "", 0.0, 1.0, Transform::identity, {}}).find("initial value"),
            std::string::npos);
  EXPECT_NE(message_of({"s", "", 0.0, 1.0, Transform::logit, {1.0}}).find("s = 1"),
            std::string::npos);
  EXPECT_NE(message_of({"t", "", 0.0, 1.0, Transform::identity, {0.5, 3.0}}).find("t[1] = 3"),
            std::string::npos);
  EXPECT_THROW(ParameterSpace({{"a", "", 0, 1, Transform::identity, {0.5}},
                               {"a", "", 0, 1, Transform::identity, {0.5}}}),
               std::invalid_argument);
}

TEST(ParameterSpace, RejectsValuesOutsideTheDomain) {
  const ParameterSpace space = mixed_space();
  std::vector<double> x = space.initial_physical();
  x[1] = 5.0;  // below the log parameter's lower bound
  EXPECT_THROW(space.to_optimizer(x), std::domain_error);
  EXPECT_THROW(space.to_optimizer(std::vector<double>(3, 1.0)), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::tune
