#include "sims/creature/body_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace simgrad::creature {
namespace {

// Counts from DiffTaichi's robot configuration: robotA has 6 masses and 11 springs, all actuated;
// the mesh robots are built from 0.05 cells whose actuated squares drive their two vertical edges.
TEST(BodyPlan, DiffTaichiRobotsHaveThePublishedSizes) {
  const BodyPlan a = difftaichi_robot(0);
  EXPECT_EQ(a.nodes.size(), 6u);
  EXPECT_EQ(a.springs.size(), 11u);
  EXPECT_EQ(a.actuated().size(), 11u);
  const BodyPlan d = difftaichi_robot(3);
  EXPECT_EQ(d.nodes.size(), 26u);  // the largest of the four
  // Every actuated square contributes its two vertical edges, unless a passive square added the
  // edge first (robotD's square (3, 1) takes one edge of (4, 1)): 4, 8 and 11 actuators.
  EXPECT_EQ(difftaichi_robot(1).actuated().size(), 4u);
  EXPECT_EQ(difftaichi_robot(2).actuated().size(), 8u);
  EXPECT_EQ(d.actuated().size(), 11u);
  EXPECT_EQ(d.springs.size(), 61u);
  for (int r = 0; r < 4; ++r) {
    const BodyPlan p = difftaichi_robot(r);
    p.validate();
    EXPECT_EQ(p.head, 0);
    for (const PlanSpring& s : p.springs) {
      const Vec<double, 2> dx = p.nodes[static_cast<std::size_t>(s.b)] - p.nodes[static_cast<std::size_t>(s.a)];
      EXPECT_DOUBLE_EQ(s.length, std::sqrt(dot(dx, dx)));  // at rest in the initial shape
    }
  }
  // Node 0 of the mesh robots is the lower-left corner of their first cell, (2, 0).
  EXPECT_DOUBLE_EQ(d.nodes[0][0], 0.2);
  EXPECT_DOUBLE_EQ(d.nodes[0][1], 0.1);
}

// The text-row form of robotC holds the same nodes, springs and actuators, in another order.
TEST(BodyPlan, TextRowsBuildTheSameBodyAsModuleCalls) {
  const BodyPlan rows = parse_grid({"..#", "..#", "###", "V.V", "V.V"});
  const BodyPlan calls = difftaichi_robot(2);
  ASSERT_EQ(rows.nodes.size(), calls.nodes.size());
  ASSERT_EQ(rows.springs.size(), calls.springs.size());
  EXPECT_EQ(rows.actuated().size(), calls.actuated().size());
  auto key = [](const BodyPlan& p, const PlanSpring& s) {
    const auto a = p.nodes[static_cast<std::size_t>(s.a)], b = p.nodes[static_cast<std::size_t>(s.b)];
    const bool swap = a[0] > b[0] || (a[0] == b[0] && a[1] > b[1]);
    const auto lo = swap ? b : a, hi = swap ? a : b;
    return std::vector<double>{lo[0], lo[1], hi[0], hi[1], s.stiffness, s.actuation};
  };
  std::vector<std::vector<double>> x, y;
  for (const PlanSpring& s : rows.springs) x.push_back(key(rows, s));
  for (const PlanSpring& s : calls.springs) y.push_back(key(calls, s));
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  EXPECT_EQ(x, y);
}

TEST(BodyPlan, HorizontalAndStiffModules) {
  const BodyPlan h = parse_grid({"H"});
  ASSERT_EQ(h.actuated().size(), 2u);
  for (std::int32_t e : h.actuated()) {
    const PlanSpring& s = h.springs[static_cast<std::size_t>(e)];
    EXPECT_DOUBLE_EQ(h.nodes[static_cast<std::size_t>(s.a)][1], h.nodes[static_cast<std::size_t>(s.b)][1]);
  }
  const BodyPlan r = parse_grid({"R"});
  EXPECT_TRUE(r.actuated().empty());
  EXPECT_DOUBLE_EQ(r.springs[0].stiffness, 6e4);
}

TEST(BodyPlan, BadRowsNameRowAndColumn) {
  try {
    parse_grid({"##", "#x"});
    FAIL();
  } catch (const GridError& e) {
    EXPECT_EQ(e.row, 2);
    EXPECT_EQ(e.column, 2);
  }
  EXPECT_THROW(parse_grid({"..", ".."}), GridError);
  BodyPlan bad = difftaichi_robot(0);
  bad.springs[3].b = bad.springs[3].a;
  EXPECT_THROW(bad.validate(), std::invalid_argument);
}

// Copies of a plan are laid out copy by copy, with their own actuators.
TEST(BodyPlan, AssembleReplicatesThePlan) {
  const BodyPlan p = difftaichi_robot(1);
  const auto m = assemble(p, 3, {});
  const Index n = static_cast<Index>(p.nodes.size()), s = static_cast<Index>(p.springs.size());
  EXPECT_EQ(m.node_count, 3 * n);
  EXPECT_EQ(m.spring_count(), 3 * s);
  EXPECT_EQ(m.actuator_count, 3 * static_cast<int>(p.actuated().size()));
  for (Index e = 0; e < s; ++e) {
    EXPECT_EQ(m.springs.node(2 * s + e, 0), 2 * n + p.springs[static_cast<std::size_t>(e)].a);
    EXPECT_EQ(m.rest_length.values()[2 * s + e], p.springs[static_cast<std::size_t>(e)].length);
  }
  EXPECT_EQ(m.initial_position.values()[2 * (2 * n + 1) + 1], p.nodes[1][1]);
}

}  // namespace
}  // namespace simgrad::creature
