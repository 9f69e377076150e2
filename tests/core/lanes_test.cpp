#include "core/lanes.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "core/kernel.hpp"

namespace simgrad {
namespace {

TEST(Pack, EveryLaneComputesWhatTheScalarComputes) {
  const double a[] = {0.3, -1.7e-3, 2.5e8, 7.0 / 3.0};
  const double b[] = {1.1, 3.3e-9, -0.25, 1e-300};
  for (int i = 0; i + 1 < 4; ++i) {
    Pack<2> pa, pb;
    pa.set(0, a[i]), pa.set(1, a[i + 1]);
    pb.set(0, b[i]), pb.set(1, b[i + 1]);
    const Pack<2> r = sqrt(pa * pa + 2.0 * pb) / (1.0 - pb) - pa / 3.0 + (-pb);
    for (int l = 0; l < 2; ++l) {
      const double x = a[i + l], y = b[i + l];
      EXPECT_EQ(r[l], std::sqrt(x * x + 2.0 * y) / (1.0 - y) - x / 3.0 + (-y));
    }
  }
}

// A spring-like body: reads both ends, writes a per-element output, scatters to both ends, and
// has a hand-written adjoint, written once for double and for packs.
struct Link {
  Field<2> points;     // per node (gathered)
  Field<1> stiffness;  // per link
  Field<1> tension;    // out: per link
  Field<2> force;      // out: per node (scattered)

  std::array<FieldRef, 1> gathered() const { return {points}; }
  std::array<FieldRef, 1> scattered() const { return {force}; }
  static constexpr bool kForwardLanes = true;
  static constexpr bool kAdjointLanes = true;

  template <class E>
  void operator()(E& e) const {
    using S = typename E::Scalar;
    const Vec<S, 2> d = e.slot(points, 1) - e.slot(points, 0);
    const S length = norm(d);
    const S t = e.own(stiffness) * (length - 1.0);
    e.write(tension, t);
    const Vec<S, 2> f = (t / length) * d;
    e.scatter(force, 0, f);
    e.scatter(force, 1, -f);
  }
  // d(t)/d(d) = k d / l; the force's adjoint g_f = a_0 - a_1 reaches d through t d / l.
  template <class E>
  void adjoint(E& e) const {
    using S = typename E::Scalar;
    const Vec<S, 2> d = e.slot(points, 1) - e.slot(points, 0);
    const S length = norm(d);
    const S k = e.own(stiffness);
    const S t = k * (length - 1.0);
    const Vec<S, 2> g_f = e.scattered_adjoint(force, 0) - e.scattered_adjoint(force, 1);
    const S g_t = e.output_adjoint(tension) + dot(g_f, d) / length;
    // f = (t / l) d: through t (g_t k d / l), through 1 / l and through d directly.
    const S q = t / length;
    const Vec<S, 2> g_d = (g_t * k / length) * d - (dot(g_f, d) * t / (length * length * length)) * d + q * g_f;
    e.add_slot(points, 1, g_d);
    e.add_slot(points, 0, -g_d);
    e.add_own(stiffness, g_t * (length - 1.0));
  }
};

// The same body, one element at a time.
struct ScalarLink : Link {
  static constexpr bool kForwardLanes = false;
  static constexpr bool kAdjointLanes = false;
};

struct Chain {
  static constexpr int kNodes = 997;
  static constexpr int kLinks = 20001;  // several blocks, and a group left over at the end
  Incidence links;
  Array<2> points{kNodes, true}, force{kNodes, true};
  Array<1> stiffness{kLinks, true}, tension{kLinks, true};
  Kernel kernel{"link", nullptr};

  static std::vector<std::int32_t> ends() {
    std::vector<std::int32_t> e;
    for (int k = 0; k < kLinks; ++k) {
      const int a = k % kNodes, b = (k * 31 + 7) % kNodes;
      e.push_back(a);
      e.push_back(b != a ? b : (a + 1) % kNodes);
    }
    return e;
  }
  Chain() : links(2, ends(), kNodes), kernel("link", &links) {
    for (Index i = 0; i < 2 * kNodes; ++i) points.values()[i] = 3.0 * std::sin(0.37 * i);
    for (Index k = 0; k < kLinks; ++k) stiffness.values()[k] = 1.0 + 0.5 * std::cos(0.11 * k);
  }
  template <class Body>
  Body body() {
    Body b;
    b.points = points.field();
    b.stiffness = stiffness.field();
    b.tension = tension.field();
    b.force = force.field();
    return b;
  }
  // Forward and adjoint; returns tension, force, and the adjoints of points and stiffness.
  template <class Body>
  std::vector<double> run() {
    kernel.forward(body<Body>());
    std::vector<double> out(tension.values().begin(), tension.values().end());
    out.insert(out.end(), force.values().begin(), force.values().end());
    std::fill(points.adjoints().begin(), points.adjoints().end(), 0.0);
    std::fill(stiffness.adjoints().begin(), stiffness.adjoints().end(), 0.0);
    for (Index i = 0; i < 2 * kNodes; ++i) force.adjoints()[i] = std::cos(0.3 * i);
    for (Index k = 0; k < kLinks; ++k) tension.adjoints()[k] = 0.01 * (k % 7);
    kernel.adjoint(body<Body>());
    out.insert(out.end(), points.adjoints().begin(), points.adjoints().end());
    out.insert(out.end(), stiffness.adjoints().begin(), stiffness.adjoints().end());
    return out;
  }
};

TEST(Lanes, ElementValuesAreTheScalarBodysBitForBit) {
  set_thread_count(1);
  Chain chain;
  const std::vector<double> lanes = chain.run<Link>();
  const std::vector<double> scalar = chain.run<ScalarLink>();
  // Every value is computed lane by lane exactly as one by one, and every node receives its
  // contributions in the same order.
  ASSERT_EQ(lanes.size(), scalar.size());
  for (std::size_t i = 0; i < lanes.size(); ++i) ASSERT_EQ(lanes[i], scalar[i]) << "entry " << i;
  set_thread_count(0);
}

TEST(Lanes, HandWrittenAdjointAgreesWithDerived) {
  set_thread_count(1);
  Chain chain;
  chain.run<Link>();
  const std::vector<double> hand(chain.points.adjoints().begin(), chain.points.adjoints().end());
  const std::vector<double> hand_k(chain.stiffness.adjoints().begin(), chain.stiffness.adjoints().end());
  std::fill(chain.points.adjoints().begin(), chain.points.adjoints().end(), 0.0);
  std::fill(chain.stiffness.adjoints().begin(), chain.stiffness.adjoints().end(), 0.0);
  chain.kernel.derived_adjoint(chain.body<Link>());
  for (std::size_t i = 0; i < hand.size(); ++i)
    EXPECT_NEAR(hand[i], chain.points.adjoints()[i], 1e-10 * (1.0 + std::abs(hand[i])));
  for (std::size_t k = 0; k < hand_k.size(); ++k)
    EXPECT_NEAR(hand_k[k], chain.stiffness.adjoints()[k], 1e-12 * (1.0 + std::abs(hand_k[k])));
  set_thread_count(0);
}

TEST(Lanes, ResultsAreIdenticalForAnyThreadCount) {
  Chain chain;
  set_thread_count(1);
  const std::vector<double> one = chain.run<Link>();
  set_thread_count(2);
  EXPECT_EQ(one, chain.run<Link>());
  set_thread_count(4);
  EXPECT_EQ(one, chain.run<Link>());
  set_thread_count(0);
}

TEST(Lanes, NonFiniteValueNamesTheElementNotItsGroup) {
  Chain chain;
  // Link 1235 (the second lane of its group) has both ends on one node: zero length.
  std::vector<std::int32_t> ends = Chain::ends();
  ends[2 * 1235 + 1] = ends[2 * 1235];
  Incidence links(2, ends, Chain::kNodes);
  Kernel kernel("link", &links);
  try {
    kernel.forward(chain.body<Link>());
    FAIL() << "expected NonFiniteError";
  } catch (const NonFiniteError& e) {
    EXPECT_EQ(e.kernel(), "link");
    EXPECT_EQ(e.element(), 1235);
  }
}

}  // namespace
}  // namespace simgrad
