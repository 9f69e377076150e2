#include "sims/structure/stiffness.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "sims/structure/bridge_generator.hpp"
#include "sims/structure/rating.hpp"
#include "tests/sims/structure/test_structures.hpp"

namespace simgrad::structure {
namespace {

const Material kSteel{"steel", 200e9, 250e6, 7850.0, 1.0};
const Section kBar{"bar", 1e-3, 1e-7, 1e-5};

// A bridge with one load case: a point load P downwards at a bottom joint.
Structure loaded_bridge(BridgeType type, int panels, double a, double h, int joint, double p) {
  Structure s = make_bridge(type, panels, a, h, kSteel, kBar);
  s.model.load_cases.push_back({"point", {{joint, {0.0, -p, 0.0}}}, false, {}});
  return s;
}

// The axial force of the member joining joints i and j, found by its ends.
double force_between(const Structure& s, const RatingResult& r, int i, int j) {
  for (std::size_t e = 0; e < s.model.members.size(); ++e) {
    const auto& m = s.model.members[e].joints;
    if ((m[0] == i && m[1] == j) || (m[0] == j && m[1] == i)) return r.members[e].axial;
  }
  ADD_FAILURE() << "no member " << i << "-" << j;
  return 0.0;
}

TEST(Stiffness, WarrenTrussUnderMidspanLoadMatchesTheMethodOfJoints) {
  // Six panels of 4 m, 3 m high, 100 kN at midspan (bottom joint 3). Method of sections: a
  // diagonal carries half the load over sin(theta); the bottom chord in panel i (left half)
  // carries M / h with M = (P/2) x at the top joint above it; the top chord between top joints
  // i and i+1 carries -(P/2) (i+1) a / h.
  const int n = 6;
  const double a = 4.0, h = 3.0, p = 1e5;
  Structure s = loaded_bridge(BridgeType::warren, n, a, h, 3, p);
  StructureAnalysis analysis(s.model);
  const RatingResult& r = analysis.rate(s.design, true);
  const double sin_theta = h / std::hypot(h, a / 2);
  const int top = n + 1;
  double worst = 0.0;
  auto check = [&](double got, double expected) {
    worst = std::max(worst, std::abs(got - expected) / p);
    EXPECT_NEAR(got, expected, 1e-9 * p);
  };
  for (int i = 0; i < n / 2; ++i) {
    check(force_between(s, r, i, i + 1), p / 2 * (i + 0.5) * a / h);  // bottom chord, tension
    check(force_between(s, r, i, top + i), -p / 2 / sin_theta);       // rising diagonal, compression
    check(force_between(s, r, top + i, i + 1), p / 2 / sin_theta);    // falling diagonal, tension
    if (i + 1 < n / 2) check(force_between(s, r, top + i, top + i + 1), -p / 2 * (i + 1) * a / h);
  }
  // Midspan deflection by virtual work would need every member; symmetry is checked instead.
  EXPECT_NEAR(analysis.displacement(1, 1, 0), analysis.displacement(n - 1, 1, 0), 1e-15);
  RecordProperty("worst_relative_error", std::to_string(worst));
}

TEST(Stiffness, PrattTrussUnderMidspanLoadMatchesTheMethodOfJoints) {
  // Four panels of 3 m, 4 m high (diagonals 5 m), 60 kN at midspan (bottom joint 2): the
  // vertical at midspan carries nothing (no load at the top joint), the inner diagonals carry
  // (P/2) / sin(theta) in tension, the end posts the same in compression, the bottom chord
  // (P/2) a / h near the supports and the top chord -(P/2) 2a / h.
  const int n = 4;
  const double a = 3.0, h = 4.0, p = 6e4;
  Structure s = loaded_bridge(BridgeType::pratt, n, a, h, 2, p);
  StructureAnalysis analysis(s.model);
  const RatingResult& r = analysis.rate(s.design, true);
  const int top = n;  // top joint over bottom i is top + i
  const double diagonal = p / 2 * 5.0 / 4.0;
  EXPECT_NEAR(force_between(s, r, 0, top + 1), -diagonal, 1e-9 * p);
  EXPECT_NEAR(force_between(s, r, top + 1, 2), diagonal, 1e-9 * p);
  EXPECT_NEAR(force_between(s, r, 0, 1), p / 2 * a / h, 1e-9 * p);
  EXPECT_NEAR(force_between(s, r, 1, 2), p / 2 * a / h, 1e-9 * p);
  EXPECT_NEAR(force_between(s, r, top + 1, top + 2), -p / 2 * 2 * a / h, 1e-9 * p);
  EXPECT_NEAR(force_between(s, r, 1, top + 1), 0.0, 1e-9 * p);   // a Pratt vertical beside the load
  EXPECT_NEAR(force_between(s, r, 2, top + 2), -0.0, 1e-9 * p);  // the midspan vertical
}

TEST(Stiffness, CantileverFrameTipDeflectionIsPL3Over3EI) {
  // A 2 m cantilever of 8 frame members, fixed at joint 0, 1 kN down at the tip: beam theory
  // gives v = P L^3 / (3 E I) and theta = P L^2 / (2 E I), exactly for cubic elements.
  TrussModel m;
  m.kind = StructureKind::frame2d;
  m.materials = {kSteel};
  Design d;
  const int elements = 8;
  const double length = 2.0, p = 1e3;
  for (int i = 0; i <= elements; ++i) {
    d.positions.push_back(length * i / elements);
    d.positions.push_back(0.0);
  }
  m.joint_count = elements + 1;
  for (int i = 0; i < elements; ++i) {
    Member mem;
    mem.joints = {i, i + 1};
    mem.section = kBar;
    m.members.push_back(mem);
    d.areas.push_back(kBar.area);
  }
  m.supports = {{0, SupportKind::fixed, 1}};
  m.load_cases.push_back({"tip", {{elements, {0.0, -p, 0.0}}}, false, {}});
  StructureAnalysis analysis(m);
  const RatingResult& r = analysis.rate(d, true);
  const double ei = kSteel.young * kBar.inertia;
  const double v = p * length * length * length / (3 * ei);
  EXPECT_NEAR(analysis.displacement(elements, 1, 0), -v, 1e-10 * v);
  EXPECT_NEAR(analysis.displacement(elements, 2, 0), -p * length * length / (2 * ei), 1e-10 * v);
  // The root member carries the root moment P L: its ratio is P L / (fy S) (no axial force).
  EXPECT_NEAR(r.members[0].ratio, p * length / (kSteel.yield * kBar.modulus), 1e-9);
}

TEST(Stiffness, RotatedCantileverDeflectsTheSameAlongItsOwnAxes) {
  // The same cantilever along a 30 degree line, loaded perpendicular to itself.
  TrussModel m;
  m.kind = StructureKind::frame2d;
  m.materials = {kSteel};
  const double c = std::cos(0.5235987755982988), s = std::sin(0.5235987755982988), length = 1.5, p = 500.0;
  Design d{{0.0, 0.0, length * c, length * s}, {kBar.area}, {}};
  m.joint_count = 2;
  Member mem;
  mem.joints = {0, 1};
  mem.section = kBar;
  m.members.push_back(mem);
  m.supports = {{0, SupportKind::fixed, 1}};
  m.load_cases.push_back({"tip", {{1, {p * s, -p * c, 0.0}}}, false, {}});
  StructureAnalysis analysis(m);
  analysis.rate(d, true);
  const double v = p * length * length * length / (3 * kSteel.young * kBar.inertia);
  EXPECT_NEAR(analysis.displacement(1, 0, 0), v * s, 1e-10 * v);
  EXPECT_NEAR(analysis.displacement(1, 1, 0), -v * c, 1e-10 * v);
}

TEST(Stiffness, TripodIn3DSharesAVerticalLoadEqually) {
  // Three legs from the ground to an apex above their centre: each carries P / (3 cos(alpha))
  // in compression, alpha the leg's angle from vertical.
  TrussModel m;
  m.kind = StructureKind::truss3d;
  m.materials = {kSteel};
  Design d;
  const double radius = 1.0, height = 2.0, p = 3e4;
  for (int i = 0; i < 3; ++i) {
    const double angle = 2.0943951023931953 * i;
    d.positions.insert(d.positions.end(), {radius * std::cos(angle), radius * std::sin(angle), 0.0});
    m.supports.push_back({i, SupportKind::pinned, 1});
  }
  d.positions.insert(d.positions.end(), {0.0, 0.0, height});
  m.joint_count = 4;
  for (int i = 0; i < 3; ++i) {
    Member mem;
    mem.joints = {i, 3};
    mem.section = kBar;
    m.members.push_back(mem);
    d.areas.push_back(kBar.area);
  }
  m.load_cases.push_back({"apex", {{3, {0.0, 0.0, -p}}}, false, {}});
  StructureAnalysis analysis(m);
  const RatingResult& r = analysis.rate(d, true);
  const double cos_alpha = height / std::hypot(radius, height);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(r.members[static_cast<std::size_t>(i)].axial, -p / (3 * cos_alpha), 1e-9 * p);
}

TEST(Stiffness, MechanismIsAClearErrorNamingTheJoint) {
  // A square of four bars without a diagonal folds: the stiffness matrix is singular.
  Structure s = structure_of(StructureKind::truss2d, kSteel, kBar, {0, 0, 1, 0, 1, 1, 0, 1}, {{0, 1}, {1, 2}, {2, 3}, {3, 0}});
  TrussModel& m = s.model;
  const Design& d = s.design;
  m.supports = {{0, SupportKind::pinned, 1}, {1, SupportKind::roller, 1}};
  m.load_cases.push_back({"side", {{2, {1e3, 0.0, 0.0}}}, false, {}});
  StructureAnalysis analysis(m);
  try {
    analysis.rate(d);
    FAIL() << "a mechanism must not be rated";
  } catch (const StructureError& e) {
    EXPECT_NE(std::string(e.what()).find("singular at joint"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mechanism"), std::string::npos) << e.what();
  }
  // Without any support the error is the same kind, not NaN.
  m.supports.clear();
  StructureAnalysis unsupported(m);
  EXPECT_THROW(unsupported.rate(d), StructureError);
}

}  // namespace
}  // namespace simgrad::structure
