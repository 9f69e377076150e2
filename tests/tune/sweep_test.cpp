#include "tune/sweep.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/diagnostics.hpp"

namespace simgrad::tune {
namespace {

// L(a, b) = (a - 1)^2 + 3 b0^2 + b1 with a in [0, 4] and b in [-1, 1]^2, which goes non-finite
// (as a blown-up rollout does) for a > 3.5: a problem whose table is known in closed form.
class Parabola final : public Problem {
 public:
  Parabola()
      : space_({Parameter{.name = "a", .lower = 0, .upper = 4, .initial = {2.0}},
                Parameter{.name = "b", .lower = -1, .upper = 1, .initial = {0.5, -0.25}}}) {}

  std::size_t dimension() const override { return 3; }
  const ParameterSpace& space() const override { return space_; }
  std::vector<double> initial() const override { return space_.initial_physical(); }
  void assign(std::span<const double>) override {}

  double value(std::span<const double> x) override {
    if (x[0] > 3.5) throw NonFiniteError("parabola", 0, false, 3);
    return (x[0] - 1) * (x[0] - 1) + 3 * x[1] * x[1] + x[2];
  }
  double value_and_gradient(std::span<const double> x, std::span<double> g) override {
    const double loss = value(x);
    g[0] = 2 * (x[0] - 1);
    g[1] = 6 * x[1];
    g[2] = 1;
    return loss;
  }

 private:
  ParameterSpace space_;
};

TEST(SweepAxis, ARangeHitsBothEndsExactlyAndAListKeepsItsValues) {
  Parabola problem;
  const SweepAxis range = parse_sweep_axis(problem.space(), "a=0.1:0.7:7");
  EXPECT_EQ(range.component, 0u);
  EXPECT_EQ(range.name, "a");
  ASSERT_EQ(range.values.size(), 7u);
  EXPECT_EQ(range.values.front(), 0.1);
  EXPECT_EQ(range.values.back(), 0.7);
  EXPECT_NEAR(range.values[3], 0.4, 1e-15);
  const SweepAxis list = parse_sweep_axis(problem.space(), "b[1]=-1,0.25,1");
  EXPECT_EQ(list.component, 2u);
  EXPECT_EQ(list.values, (std::vector<double>{-1, 0.25, 1}));
  EXPECT_EQ(parse_sweep_axis(problem.space(), "a=3:3:1").values, std::vector<double>{3});
}

TEST(SweepAxis, BadSpecsAreErrorsThatNameTheProblem) {
  Parabola problem;
  auto message_of = [&](const std::string& spec) {
    try {
      parse_sweep_axis(problem.space(), spec);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_of("c=1,2").find("no tuned parameter 'c' (the scenario tunes: a, b)"), std::string::npos);
  EXPECT_NE(message_of("b=0,1").find("'b' has 2 components; name one, as b[0]"), std::string::npos);
  EXPECT_NE(message_of("a=1:2:0").find("COUNT must be a whole number"), std::string::npos);
  EXPECT_NE(message_of("a=1:2").find("LOW:HIGH:COUNT"), std::string::npos);
  EXPECT_NE(message_of("a=1,x").find("'x' is not a number"), std::string::npos);
  EXPECT_NE(message_of("a=1,5").find("a = 5 is outside its bounds [0, 4]"), std::string::npos);
  EXPECT_NE(message_of("a").find("expected NAME="), std::string::npos);
}

TEST(Sweep, AGridVariesTheLastAxisFastestAndMatchesTheClosedForm) {
  Parabola problem;
  const std::vector<SweepAxis> axes = {parse_sweep_axis(problem.space(), "a=0,1,2"),
                                       parse_sweep_axis(problem.space(), "b[0]=-0.5,0.5")};
  const std::vector<double> points = grid_points(problem.space(), axes);
  ASSERT_EQ(points.size(), 6u * 3u);
  const SweepTable table = sweep(problem, axes, points, true);
  EXPECT_EQ(table.columns, (std::vector<std::string>{"a", "b[0]", "loss", "dloss/da", "dloss/db[0]"}));
  ASSERT_EQ(table.row_count(), 6u);
  for (std::size_t r = 0; r < 6; ++r) {
    const double a = double(r / 2), b0 = r % 2 == 0 ? -0.5 : 0.5, b1 = -0.25;  // b1 held at its initial value
    const double* row = &table.rows[r * table.width()];
    EXPECT_EQ(row[0], a);
    EXPECT_EQ(row[1], b0);
    EXPECT_DOUBLE_EQ(row[2], (a - 1) * (a - 1) + 3 * b0 * b0 + b1);
    EXPECT_DOUBLE_EQ(row[3], 2 * (a - 1));
    EXPECT_DOUBLE_EQ(row[4], 6 * b0);
  }
  EXPECT_EQ(table.non_finite_rollouts, 0);
}

TEST(Sweep, ARolloutThatBlowsUpIsAnInfiniteLossAndCounted) {
  Parabola problem;
  const std::vector<SweepAxis> axes = {parse_sweep_axis(problem.space(), "a=3,3.75,4")};
  const SweepTable table = sweep(problem, axes, grid_points(problem.space(), axes), false);
  EXPECT_EQ(table.columns, (std::vector<std::string>{"a", "loss"}));
  EXPECT_TRUE(std::isfinite(table.rows[1]));
  EXPECT_EQ(table.rows[3], INFINITY);
  EXPECT_EQ(table.rows[5], INFINITY);
  EXPECT_EQ(table.non_finite_rollouts, 2);
  EXPECT_EQ(sweep_csv(table).substr(0, 7), "a,loss\n");
  EXPECT_NE(sweep_csv(table).find("3.75,inf\n"), std::string::npos);
}

TEST(Sweep, AListOfPointsReadsItsHeaderAndRows) {
  Parabola problem;
  std::size_t count = 0;
  const std::vector<SweepAxis> axes =
      read_sweep_points(problem.space(), "b[1], a\n0.5, 1\n# a comment\n-1, 2\n", "points.csv", count);
  ASSERT_EQ(count, 2u);
  ASSERT_EQ(axes.size(), 2u);
  const std::vector<double> points = list_points(problem.space(), axes, count);
  EXPECT_EQ(points, (std::vector<double>{1, 0.5, 0.5, 2, 0.5, -1}));
  try {
    read_sweep_points(problem.space(), "a,b[0]\n1,0\n9,0\n", "points.csv", count);
    FAIL() << "a value outside the bounds was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("points.csv:3: column 1: a = 9 is outside its bounds"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simgrad::tune
