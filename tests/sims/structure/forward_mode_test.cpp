// The adjoint gradient against forward mode: the same physics templated on a dual number, with
// the tangent of the displacements from K du = df - dK u (a dense solve), and the rating's terms
// written out again here, independently of rating.cpp.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <vector>

#include "core/relax.hpp"
#include "sims/structure/bridge_generator.hpp"
#include "sims/structure/member_checks.hpp"
#include "sims/structure/rating.hpp"
#include "sims/structure/stiffness.hpp"
#include "tests/sims/structure/test_structures.hpp"

namespace simgrad::structure {
namespace {

// A forward-mode dual number: a value and its derivative along one direction.
struct Dual {
  double v = 0.0, d = 0.0;
  Dual() = default;
  Dual(double value) : v(value) {}  // NOLINT: constants convert implicitly
  Dual(double value, double tangent) : v(value), d(tangent) {}
  friend Dual operator+(const Dual& a, const Dual& b) { return {a.v + b.v, a.d + b.d}; }
  friend Dual operator-(const Dual& a, const Dual& b) { return {a.v - b.v, a.d - b.d}; }
  friend Dual operator-(const Dual& a) { return {-a.v, -a.d}; }
  friend Dual operator*(const Dual& a, const Dual& b) { return {a.v * b.v, a.d * b.v + a.v * b.d}; }
  friend Dual operator/(const Dual& a, const Dual& b) { return {a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)}; }
  friend bool operator<=(const Dual& a, const Dual& b) { return a.v <= b.v; }
  friend bool operator>=(const Dual& a, const Dual& b) { return a.v >= b.v; }
};
Dual sqrt(const Dual& a) { return {std::sqrt(a.v), a.d / (2.0 * std::sqrt(a.v))}; }
Dual exp(const Dual& a) { return {std::exp(a.v), a.d * std::exp(a.v)}; }
Dual log(const Dual& a) { return {std::log(a.v), a.d / a.v}; }
Dual abs(const Dual& a) { return a.v < 0.0 ? -a : a; }
double value_of(const Dual& a) { return a.v; }

// The rating's derivative along (dpositions, dareas, dlogits) by forward mode.
double forward_derivative(const TrussModel& m, const Design& design, const Design& direction) {
  const int dim = m.dimension(), per = m.dofs(), n = 2 * per;
  const DofMap dofs = number_dofs(m);
  const int free = dofs.free_count, cases = static_cast<int>(m.load_cases.size());
  std::vector<Dual> x(design.positions.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = {design.positions[i], direction.positions[i]};
  Eigen::MatrixXd k = Eigen::MatrixXd::Zero(free, free), dk = k;
  Eigen::MatrixXd f = Eigen::MatrixXd::Zero(free, cases), df = f;
  Dual mass = 0.0, cost = 0.0;
  auto index = [&](const Member& mem, int i) {
    return dofs.free_index[static_cast<std::size_t>(mem.joints[static_cast<std::size_t>(i / per)] * per + i % per)];
  };
  std::vector<MemberProperties<Dual>> props;
  std::vector<MemberGeometry<Dual>> geometry;
  const std::size_t entries = m.catalogue.size();
  std::vector<Dual> logits(design.logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i) logits[i] = {design.logits[i], direction.logits[i]};
  for (std::size_t e = 0; e < m.members.size(); ++e) {
    const Member& mem = m.members[e];
    const Dual area{design.areas[e], direction.areas[e]};
    props.push_back(member_properties<Dual>(m, mem, area, mem.catalogue >= 0 ? &logits[e * entries] : nullptr, false));
    geometry.push_back(member_geometry(&x[static_cast<std::size_t>(mem.joints[0] * dim)],
                                       &x[static_cast<std::size_t>(mem.joints[1] * dim)], dim));
    const MemberProperties<Dual>& p = props.back();
    Dual ke[36];
    member_stiffness(m.kind, geometry.back(), p.young, p.area, p.inertia, ke);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (index(mem, i) >= 0 && index(mem, j) >= 0) {
          k(index(mem, i), index(mem, j)) += ke[i * n + j].v;
          dk(index(mem, i), index(mem, j)) += ke[i * n + j].d;
        }
    const Dual member_mass = p.density * p.area * geometry.back().length;
    mass = mass + member_mass;
    cost = cost + member_mass * p.price;
    for (int c = 0; c < cases; ++c) {
      const LoadCase& lc = m.load_cases[static_cast<std::size_t>(c)];
      if (!lc.self_weight) continue;
      for (int i = 0; i < n; ++i)
        if (i % per < dim && index(mem, i) >= 0) {
          const Dual w = 0.5 * member_mass * lc.gravity[static_cast<std::size_t>(i % per)];
          f(index(mem, i), c) += w.v;
          df(index(mem, i), c) += w.d;
        }
    }
  }
  for (int c = 0; c < cases; ++c)
    for (const PointLoad& l : m.load_cases[static_cast<std::size_t>(c)].loads)
      for (int q = 0; q < per; ++q) {
        const int i = dofs.free_index[static_cast<std::size_t>(l.joint * per + q)];
        if (i >= 0) f(i, c) += l.force[static_cast<std::size_t>(q)];
      }
  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(k);
  const Eigen::MatrixXd u = lu.solve(f);
  const Eigen::MatrixXd du = lu.solve(df - dk * u);
  std::vector<Dual> ratios;
  for (std::size_t e = 0; e < m.members.size(); ++e)
    for (int c = 0; c < cases; ++c) {
      Dual ue[6];
      for (int i = 0; i < n; ++i) {
        const int g = index(m.members[e], i);
        ue[i] = g >= 0 ? Dual{u(g, c), du(g, c)} : Dual{0.0};
      }
      const MemberForces<Dual> force = member_forces(m.kind, geometry[e], props[e].young, props[e].area, props[e].inertia, ue);
      const Dual moment = abs(force.moment_a) >= abs(force.moment_b) ? abs(force.moment_a) : abs(force.moment_b);
      ratios.push_back(stress_ratio(props[e], geometry[e].length, m.members[e].buckling_length_factor, force.axial, moment,
                                    m.kind == StructureKind::frame2d, m.rating.buckling)
                           .ratio);
    }
  const RatingSettings& s = m.rating;
  Dual stress_penalty = 0.0, deflection_penalty = 0.0;
  for (const Dual& r : ratios)
    if (r.v > 1.0) stress_penalty = stress_penalty + (r - 1.0) * (r - 1.0);
  std::vector<Dual> deflections;
  const double limit = s.span / s.deflection_ratio;
  for (int c = 0; c < cases; ++c)
    for (int j = 0; j < m.joint_count; ++j) {
      const int i = dofs.free_index[static_cast<std::size_t>(j * per + s.deflection_axis)];
      if (i < 0) continue;
      for (double sign : {1.0, -1.0}) {
        const Dual d = Dual{u(i, c), du(i, c)} * (sign / limit);
        deflections.push_back(d);
        if (d.v > 1.0) deflection_penalty = deflection_penalty + (d - 1.0) * (d - 1.0);
      }
    }
  const Dual over = cost / s.budget - 1.0;
  const Dual budget_penalty = over.v > 0.0 ? over * over : Dual{0.0};
  const RatingWeights& w = s.weights;
  const Dual rating = w.mass * mass + w.cost * cost +
                      w.stress * relax::logsumexp_max<Dual>(ratios, s.temperature) + w.stress_penalty * stress_penalty +
                      w.deflection * relax::logsumexp_max<Dual>(deflections, s.temperature) +
                      w.deflection_penalty * deflection_penalty + w.budget_penalty * budget_penalty;
  return rating.d;
}

void expect_adjoint_matches_forward_mode(const TrussModel& m, const Design& design) {
  StructureAnalysis analysis(m);
  Design gradient;
  analysis.rate_with_gradient(design, gradient);
  // Three directions mixing every joint coordinate and area.
  for (int k = 0; k < 3; ++k) {
    Design direction = design;
    double adjoint = 0.0;
    for (std::size_t i = 0; i < design.positions.size(); ++i) {
      direction.positions[i] = std::sin(1.0 + 3.0 * k + 0.7 * static_cast<double>(i));
      adjoint += gradient.positions[i] * direction.positions[i];
    }
    for (std::size_t e = 0; e < design.areas.size(); ++e) {
      direction.areas[e] = 1e-4 * std::cos(2.0 + k + 1.3 * static_cast<double>(e));
      adjoint += gradient.areas[e] * direction.areas[e];
    }
    for (std::size_t i = 0; i < design.logits.size(); ++i) {
      direction.logits[i] = std::sin(0.5 + k + 0.9 * static_cast<double>(i));
      adjoint += gradient.logits[i] * direction.logits[i];
    }
    const double forward = forward_derivative(m, design, direction);
    EXPECT_NEAR(adjoint, forward, 1e-9 * std::abs(forward)) << "direction " << k;
  }
}

const Material kSteel{"steel", 200e9, 250e6, 7850.0, 1.2};
const Section kTube{"tube", 2e-3, 4e-6, 5e-5};

TEST(ForwardMode, AdjointGradientOfA2DTrussMatchesForwardMode) {
  Structure s = make_bridge(BridgeType::pratt, 5, 3.0, 3.0, kSteel, kTube);
  s.model.load_cases.push_back({"deck", {{1, {0, -4e5, 0}}, {2, {0, -6e5, 0}}, {4, {1e4, -3e5, 0}}}, true, {0, -9.81, 0}});
  s.model.load_cases.push_back({"point", {{3, {0, -8e5, 0}}}, false, {}});
  s.model.rating.weights = {1e-3, 1e-3, 2.0, 50.0, 1.0, 10.0, 5.0};
  s.model.rating.deflection_ratio = 3000.0;
  s.model.rating.temperature = 0.1;
  s.model.rating.budget = 100.0;
  for (std::size_t e = 0; e < s.design.areas.size(); ++e) s.design.areas[e] *= 1.0 + 0.05 * static_cast<double>(e % 7);
  // Two members choose from a catalogue of a steel and an aluminium section.
  s.model.materials.push_back({"aluminium", 70e9, 150e6, 2700.0, 3.0});
  s.model.catalogue = {{{"small", 1.5e-3, 2e-6, 3e-5}, 0}, {{"alu", 5e-3, 1.5e-5, 1.4e-4}, 1}};
  s.design.logits.assign(s.model.members.size() * 2, 0.0);
  for (std::size_t e : {2u, 7u}) {
    s.model.members[e].catalogue = 0;
    s.design.logits[e * 2] = 0.3;
  }
  expect_adjoint_matches_forward_mode(s.model, s.design);
}

TEST(ForwardMode, AdjointGradientOfA2DFrameMatchesForwardMode) {
  Structure s = structure_of(StructureKind::frame2d, kSteel, kTube, {0, 0, 0.1, 3, 2, 3.3, 4, 3.2, 4, 0},
                             {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {1, 4}}, 0.2);
  TrussModel& m = s.model;
  const Design& d = s.design;
  m.supports = {{0, SupportKind::fixed, 1}, {4, SupportKind::pinned, 1}};
  m.load_cases.push_back({"sway", {{1, {3e4, -2e5, 0}}, {2, {0, -1e5, 5e3}}}, true, {0, -9.81, 0}});
  m.rating.weights = {1e-3, 1e-3, 2.0, 50.0, 1.0, 10.0, 5.0};
  m.rating.span = 4.0;
  m.rating.deflection_ratio = 2000.0;
  m.rating.temperature = 0.1;
  m.rating.budget = 100.0;
  expect_adjoint_matches_forward_mode(m, d);
}

}  // namespace
}  // namespace simgrad::structure
