#include "sims/structure/rating.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "core/gradcheck.hpp"
#include "core/parallel.hpp"
#include "sims/structure/bridge_generator.hpp"
#include "tests/sims/structure/test_structures.hpp"

namespace simgrad::structure {
namespace {

const Material kSteel{"steel", 200e9, 250e6, 7850.0, 1.2};
const Material kAluminium{"aluminium", 70e9, 150e6, 2700.0, 3.0};
const Section kTube{"tube", 2e-3, 4e-6, 5e-5};

// Every term of the rating switched on, at scales where each matters.
void rate_everything(TrussModel& m, double span) {
  RatingWeights& w = m.rating.weights;
  w = {1e-3, 1e-3, 2.0, 50.0, 1.0, 10.0, 5.0};
  m.rating.span = span;
  m.rating.deflection_ratio = 2000.0;
  m.rating.temperature = 0.1;
  m.rating.budget = 1.0;  // below the bridge's cost, so the budget penalty is active
}

// A Warren bridge with a deck load, self-weight and a point load off the middle, in a state
// where ratios exceed 1 somewhere (so penalties have gradients) and no member is unloaded.
Structure warren_case() {
  Structure s = make_bridge(BridgeType::warren, 4, 3.0, 2.5, kSteel, kTube);
  s.model.load_cases.push_back({"deck", {{1, {0, -3e5, 0}}, {2, {0, -3e5, 0}}, {3, {0, -3e5, 0}}}, true, {0, -9.81, 0}});
  s.model.load_cases.push_back({"vehicle", {{1, {2e4, -6e5, 0}}}, false, {}});
  rate_everything(s.model, 12.0);
  s.model.rating.budget = 100.0;
  // Areas differ member to member, so no two members are alike.
  for (std::size_t e = 0; e < s.design.areas.size(); ++e) s.design.areas[e] *= 1.0 + 0.07 * static_cast<double>(e % 5);
  return s;
}

// The rating as a function of one kind of design values, and its adjoint gradient there.
struct Slice {
  std::function<double(std::span<const double>)> f;
  std::vector<double> x, gradient;
};

Slice slice(StructureAnalysis& analysis, const Design& design, std::vector<double> Design::*field) {
  Slice s;
  s.x = design.*field;
  Design g;
  analysis.rate_with_gradient(design, g);
  s.gradient = g.*field;
  s.f = [&analysis, design, field](std::span<const double> x) {
    Design d = design;
    (d.*field).assign(x.begin(), x.end());
    return analysis.rate(d).rating;
  };
  return s;
}

void expect_gradient_matches_central_differences(StructureAnalysis& analysis, const Design& design,
                                                 std::vector<double> Design::*field, double step) {
  Slice s = slice(analysis, design, field);
  GradCheckOptions options;
  options.step = step;
  options.rtol = 1e-5;
  options.atol = 1e-8;
  const GradCheckReport report = check_gradient(s.f, s.x, s.gradient, options);
  bool any_nonzero = false;
  for (const GradCheckEntry& c : report.checks) {
    EXPECT_TRUE(c.ok) << c.label << " ad " << c.ad << " fd " << c.fd;
    any_nonzero = any_nonzero || std::abs(c.fd) > 1e-6;
  }
  EXPECT_TRUE(any_nonzero);
}

TEST(Rating, JointPositionGradientMatchesFiniteDifferencesIn2DTruss) {
  Structure s = warren_case();
  StructureAnalysis analysis(s.model);
  const RatingResult& r = analysis.rate(s.design);
  EXPECT_GT(r.terms.stress_penalty, 0.0);
  EXPECT_GT(r.terms.deflection_penalty, 0.0);
  EXPECT_GT(r.terms.budget_penalty, 0.0);
  expect_gradient_matches_central_differences(analysis, s.design, &Design::positions, 1e-6);
}

TEST(Rating, AreaGradientMatchesFiniteDifferencesIn2DTruss) {
  Structure s = warren_case();
  StructureAnalysis analysis(s.model);
  expect_gradient_matches_central_differences(analysis, s.design, &Design::areas, 1e-9);
}

TEST(Rating, CatalogueLogitGradientMatchesFiniteDifferences) {
  Structure s = warren_case();
  s.model.materials.push_back(kAluminium);
  s.model.catalogue = {{{"small", 1.5e-3, 2e-6, 3e-5}, 0}, {{"large", 4e-3, 1.2e-5, 1.2e-4}, 0},
                       {{"alu", 5e-3, 1.5e-5, 1.4e-4}, 1}};
  s.design.logits.assign(s.model.members.size() * 3, 0.0);
  for (std::size_t e = 0; e < s.model.members.size(); e += 2) {
    s.model.members[e].catalogue = 0;
    for (std::size_t k = 0; k < 3; ++k) s.design.logits[e * 3 + k] = 0.3 * static_cast<double>((e + k) % 4) - 0.4;
  }
  StructureAnalysis analysis(s.model);
  expect_gradient_matches_central_differences(analysis, s.design, &Design::logits, 1e-6);
  // The hard twin snaps every catalogue member to its largest logit.
  const RatingResult& hard = analysis.rate(s.design, true);
  EXPECT_EQ(hard.members[0].area, 5e-3);  // member 0: logits -0.4, -0.1, 0.2: "alu"
  EXPECT_EQ(hard.members[2].area, 4e-3);  // member 2: logits 0.2, 0.5, -0.4: "large"
  EXPECT_EQ(hard.members[1].area, s.design.areas[1]);  // a sized member keeps its area
}

TEST(Rating, GradientsMatchFiniteDifferencesIn3DTruss) {
  // A square-based pyramid of four legs with a ring at their feet, loaded sideways and down.
  Structure s = structure_of(StructureKind::truss3d, kSteel, kTube, {0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0, 0.9, 1.1, 3},
                             {{0, 4}, {1, 4}, {2, 4}, {3, 4}, {0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}}, 0.1);
  TrussModel& m = s.model;
  const Design& d = s.design;
  m.supports = {{0, SupportKind::pinned, 1}, {1, SupportKind::pinned, 1}, {2, SupportKind::pinned, 1},
                {3, SupportKind::pinned, 1}};
  m.load_cases.push_back({"wind", {{4, {2e5, 1e5, -8e5}}}, true, {0, 0, -9.81}});
  rate_everything(m, 2.0);
  m.rating.deflection_axis = 2;
  m.rating.budget = 100.0;
  StructureAnalysis analysis(m);
  expect_gradient_matches_central_differences(analysis, d, &Design::positions, 1e-6);
  expect_gradient_matches_central_differences(analysis, d, &Design::areas, 1e-9);
}

TEST(Rating, GradientsMatchFiniteDifferencesIn2DFrame) {
  // A portal frame: two columns fixed at the ground and a beam, pushed sideways and down.
  Structure s = structure_of(StructureKind::frame2d, kSteel, kTube, {0, 0, 0.1, 3, 4, 3.2, 4, 0}, {{0, 1}, {1, 2}, {2, 3}}, 0.2);
  TrussModel& m = s.model;
  const Design& d = s.design;
  m.supports = {{0, SupportKind::fixed, 1}, {3, SupportKind::fixed, 1}};
  m.load_cases.push_back({"sway", {{1, {3e4, -2e5, 0}}, {2, {0, -1e5, 5e3}}}, true, {0, -9.81, 0}});
  rate_everything(m, 4.0);
  m.rating.budget = 100.0;
  StructureAnalysis analysis(m);
  expect_gradient_matches_central_differences(analysis, d, &Design::positions, 1e-6);
  expect_gradient_matches_central_differences(analysis, d, &Design::areas, 1e-9);
}

TEST(Rating, HardTwinUsesPlainMaxima) {
  Structure s = warren_case();
  StructureAnalysis analysis(s.model);
  const double soft = analysis.rate(s.design).terms.stress;
  const RatingResult& hard = analysis.rate(s.design, true);
  EXPECT_DOUBLE_EQ(hard.terms.stress, hard.max_ratio);
  EXPECT_GT(soft, hard.max_ratio);  // a log-sum-exp lies above the maximum
  EXPECT_LE(soft, hard.max_ratio + s.model.rating.temperature * std::log(2.0 * 15.0));
}

TEST(Rating, RatingAndGradientAreBitIdenticalForAnyThreadCount) {
  // Large enough (4,397 members) that loops split across 4 threads.
  Structure s = make_bridge(BridgeType::pratt, 1100, 2.0, 3.0, kSteel, kTube);
  for (int c = 0; c < 3; ++c) s.model.load_cases.push_back({"v", {{100 + 400 * c, {0, -2e5, 0}}}, true, {0, -9.81, 0}});
  rate_everything(s.model, 2200.0);
  StructureAnalysis analysis(s.model);
  std::vector<Design> gradients;
  std::vector<double> ratings;
  for (int threads : {1, 2, 4}) {
    set_thread_count(threads);
    Design g;
    ratings.push_back(analysis.rate_with_gradient(s.design, g).rating);
    gradients.push_back(g);
  }
  set_thread_count(0);
  for (std::size_t i = 1; i < ratings.size(); ++i) {
    EXPECT_EQ(ratings[i], ratings[0]);
    EXPECT_EQ(gradients[i].positions, gradients[0].positions);
    EXPECT_EQ(gradients[i].areas, gradients[0].areas);
  }
}

}  // namespace
}  // namespace simgrad::structure
