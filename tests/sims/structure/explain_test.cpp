#include "sims/structure/explain.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "sims/structure/bridge_generator.hpp"

namespace simgrad::structure {
namespace {

// A Pratt bridge under a deck load, rated on cost, peak stress and deflection.
Structure rated_bridge() {
  Structure s = make_bridge(BridgeType::pratt, 6, 4.0, 4.0, {"steel", 200e9, 250e6, 7850, 1.0}, {"t", 3e-3, 1e-5, 1e-4});
  std::vector<PointLoad> deck;
  for (int j = 1; j < 6; ++j) deck.push_back({j, {0, -1.2e5, 0}});
  s.model.load_cases.push_back({"deck", deck, true, {0, -9.81, 0}});
  s.model.rating.weights = {0.0, 1e-3, 1.0, 10.0, 0.5, 0.0, 0.0};
  s.model.rating.deflection_ratio = 800.0;
  return s;
}

TEST(Explain, HintsRankByPredictedImprovementAndAgreeWithReRating) {
  Structure s = rated_bridge();
  PartRequest joints{PartKind::joint_offset, {}, {1}, -2.0, 2.0, tune::Transform::identity};
  PartRequest areas{PartKind::area, {}, {}, 1e-4, 1e-1, tune::Transform::log};
  StructureProblem problem(s.model, s.design, {joints, areas}, {});
  ExplainOptions options;
  options.joint_step = 0.05;
  options.area_step = 0.02;
  options.hints = 6;
  const std::vector<double> x = problem.initial();
  const Explanation e = explain(problem, x, options);
  ASSERT_EQ(e.hints.size(), 6u);
  for (std::size_t i = 0; i < e.hints.size(); ++i) {
    const Hint& h = e.hints[i];
    EXPECT_LT(h.predicted_change, 0.0) << h.text;
    if (i > 0) {
      EXPECT_LE(e.hints[i - 1].predicted_change, h.predicted_change);
    }
    // Small plausible steps where no member is past its limit: first-order predictions agree
    // with re-rating within 20% (the smooth maximum and the deflection bend the rating).
    EXPECT_NEAR(h.rerated_change, h.predicted_change, 0.2 * std::abs(h.predicted_change)) << h.text;
    std::printf("%s\n", h.text.c_str());
    EXPECT_NE(h.text.find("predicted"), std::string::npos);
  }
  // The problem is left where it was.
  EXPECT_EQ(problem.value(x), e.rating);
}

TEST(Explain, HintsSpeakTheGamesWords) {
  Structure s = rated_bridge();
  PartRequest joints{PartKind::joint_offset, {8}, {0}, -2.0, 2.0, tune::Transform::identity};
  PartRequest areas{PartKind::area, {0}, {}, 1e-4, 1e-1, tune::Transform::identity};
  StructureProblem problem(s.model, s.design, {joints, areas}, {});
  ExplainOptions options;
  options.joint_step = 0.25;
  const Explanation e = explain(problem, problem.initial(), options);
  ASSERT_EQ(e.hints.size(), 2u);
  for (const Hint& h : e.hints) {
    if (h.action == "move_joint") {
      EXPECT_EQ(h.text.rfind("move joint 8 ", 0), 0u) << h.text;
      EXPECT_NE(h.text.find(" 0.25 m: rating "), std::string::npos) << h.text;
    } else {
      EXPECT_EQ(h.part, "member 0");
      EXPECT_NE(h.text.find("(tension, "), std::string::npos) << h.text;  // the bottom chord
      EXPECT_NE(h.text.find("% of yield)"), std::string::npos) << h.text;
    }
  }
}

TEST(Explain, CatalogueMembersAreToldWhichSectionToLeanTowards) {
  Structure s = rated_bridge();
  s.model.catalogue = {{{"light", 2.5e-3, 8e-6, 1e-4}, 0}, {{"heavy", 6e-3, 4e-5, 4e-4}, 0}};
  s.design.logits.assign(s.model.members.size() * 2, 0.0);
  s.model.members[7].catalogue = 0;  // a compressed diagonal, starting on "light"
  s.design.logits[7 * 2] = 1.0;
  PartRequest choices{PartKind::section_choice, {}, {}, -5.0, 5.0, tune::Transform::identity};
  StructureProblem problem(s.model, s.design, {choices}, {});
  ExplainOptions options;
  options.logit_step = 0.05;
  const Explanation e = explain(problem, problem.initial(), options);
  ASSERT_EQ(e.hints.size(), 2u);
  // Every hint improves the rating on re-rating, roughly as predicted.
  for (const Hint& h : e.hints) {
    EXPECT_EQ(h.action, "choose_section");
    EXPECT_EQ(h.part, "member 7");
    EXPECT_LT(h.rerated_change, 0.0) << h.text;
    EXPECT_NEAR(h.rerated_change, h.predicted_change, 0.3 * std::abs(h.predicted_change)) << h.text;
  }
  // With two entries, leaning towards one is leaning away from the other: one hint of each.
  const bool first_towards = e.hints[0].step > 0.0;
  EXPECT_NE(first_towards, e.hints[1].step > 0.0);
  EXPECT_NE(e.hints[0].axis, e.hints[1].axis);
  EXPECT_NE(e.hints[0].text.find(first_towards ? "towards section " : "away from section "), std::string::npos);
}

TEST(Explain, MemberStateNamesItsLimit) {
  TrussModel m;
  MemberReport r;
  r.ratio = 0.956;
  r.state = MemberState::compression;
  EXPECT_EQ(member_state(m, r), "compression, 96% of buckling load");
  r.state = MemberState::tension;
  r.ratio = 0.8;
  EXPECT_EQ(member_state(m, r), "tension, 80% of yield");
}

}  // namespace
}  // namespace simgrad::structure
