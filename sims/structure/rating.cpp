#include "sims/structure/rating.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/local_ad.hpp"
#include "core/parallel.hpp"

namespace simgrad::structure {

namespace {

// A smooth maximum t log sum exp(x / t) of values, and its weights d max / d x_i (softmax);
// t <= 0 gives the plain maximum with all weight on the first largest value. Sums run in index
// order, so the result does not depend on the thread count.
double smooth_max(const std::vector<double>& x, double t, std::vector<double>* weights) {
  if (x.empty()) return 0.0;
  const std::size_t arg = static_cast<std::size_t>(std::max_element(x.begin(), x.end()) - x.begin());
  const double top = x[arg];
  weights->assign(x.size(), 0.0);
  if (t <= 0.0) {
    (*weights)[arg] = 1.0;
    return top;
  }
  double total = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    // Below -746, exp underflows to exactly 0: skipping it gives the same bits, faster.
    const double z = (x[i] - top) / t;
    (*weights)[i] = z < -746.0 ? 0.0 : std::exp(z);
    total += (*weights)[i];
  }
  for (double& w : *weights) w /= total;
  return top + t * std::log(total);
}

// The design values a member reads: its end positions, its area and its logits.
struct MemberInputs {
  const double* a;
  const double* b;
  double area;
  const double* logits;
};

// Pointers into the design for member e (logits only for a catalogue member).
MemberInputs inputs_of(const TrussModel& model, const Design& design, std::size_t e) {
  const Member& m = model.members[e];
  const std::size_t d = static_cast<std::size_t>(model.dimension());
  const std::size_t n = model.catalogue.size();
  return {design.positions.data() + static_cast<std::size_t>(m.joints[0]) * d,
          design.positions.data() + static_cast<std::size_t>(m.joints[1]) * d, design.areas[e],
          m.catalogue >= 0 ? design.logits.data() + e * n : nullptr};
}

// What a member's checks read in plain doubles: its design values, properties, geometry and
// strengths.
struct MemberSetup {
  const Member& member;
  MemberInputs in;
  MemberProperties<double> p;
  MemberGeometry<double> g;
  MemberStrengths<double> strengths;
};

// Member e's setup; `hard` snaps a catalogue member to its chosen entry.
MemberSetup setup_of(const TrussModel& model, const Design& design, Index e, bool hard) {
  const Member& m = model.members[static_cast<std::size_t>(e)];
  const MemberInputs in = inputs_of(model, design, static_cast<std::size_t>(e));
  const MemberProperties<double> p = member_properties(model, m, in.area, in.logits, hard);
  const MemberGeometry<double> g = member_geometry(in.a, in.b, model.dimension());
  return {m, in, p, g, member_strengths(p, g.length, m.buckling_length_factor, model.rating.buckling)};
}

}  // namespace

void StructureAnalysis::gather(Index member, const ByDof& values, int load_case, double* out) const {
  const int n = stiffness_->member_dofs();
  const int* free = member_free_.data() + member * n;
  for (int i = 0; i < n; ++i) out[i] = free[i] >= 0 ? values(free[i], load_case) : 0.0;
}

StructureAnalysis::StructureAnalysis(const TrussModel& model) : model_(&model), dofs_(number_dofs(model)) {
  stiffness_ = std::make_unique<StiffnessMatrix>(model, dofs_);
  const std::size_t n = static_cast<std::size_t>(stiffness_->member_dofs());
  const int per = model.dofs();
  member_matrices_.resize(model.members.size() * n * n);
  for (const Member& m : model.members)
    for (std::size_t i = 0; i < n; ++i)
      member_free_.push_back(dofs_.free_index[static_cast<std::size_t>(m.joints[i / static_cast<std::size_t>(per)] * per) +
                                              i % static_cast<std::size_t>(per)]);
  result_.members.resize(model.members.size());
}

double StructureAnalysis::displacement(int joint, int axis, int load_case) const {
  const int f = dofs_.free_index[static_cast<std::size_t>(joint * model_->dofs() + axis)];
  return f >= 0 ? u_(f, load_case) : 0.0;
}

void StructureAnalysis::analyse(const Design& design, bool hard) {
  const TrussModel& model = *model_;
  const Index members = static_cast<Index>(model.members.size());
  const int n = stiffness_->member_dofs(), per = model.dofs(), dim = model.dimension();
  const int cases = static_cast<int>(model.load_cases.size());
  // Member matrices and masses, in parallel, each member writing only its own slots.
  parallel_for_blocks(members, [&](Index first, Index last) {
    for (Index e = first; e < last; ++e) {
      const MemberSetup member = setup_of(model, design, e, hard);
      const MemberProperties<double>& p = member.p;
      const MemberGeometry<double>& g = member.g;
      member_stiffness(model.kind, g, p.young, p.area, p.inertia,
                       member_matrices_.data() + static_cast<std::size_t>(e) * static_cast<std::size_t>(n * n));
      MemberReport& r = result_.members[static_cast<std::size_t>(e)];
      r.length = g.length;
      r.area = p.area;
      r.mass = p.density * p.area * g.length;
      r.cost = r.mass * p.price;
    }
  });
  // Checked here, not inside the parallel loop, which must not throw.
  for (Index e = 0; e < members; ++e)
    if (!(result_.members[static_cast<std::size_t>(e)].length > 0.0))
      throw StructureError("member " + std::to_string(e) + " has zero length: its joints coincide");
  stiffness_->assemble_and_factorise(member_matrices_);

  // Loads, summed in a fixed order: point loads, then self-weight member by member.
  u_.setZero(dofs_.free_count, cases);
  for (int c = 0; c < cases; ++c) {
    const LoadCase& lc = model.load_cases[static_cast<std::size_t>(c)];
    for (const PointLoad& l : lc.loads)
      for (int k = 0; k < per; ++k) {
        const int f = dofs_.free_index[static_cast<std::size_t>(l.joint * per + k)];
        if (f >= 0) u_(f, c) += l.force[static_cast<std::size_t>(k)];
      }
    if (!lc.self_weight) continue;
    for (std::size_t e = 0; e < model.members.size(); ++e)
      for (int end = 0; end < 2; ++end)
        for (int k = 0; k < dim; ++k) {
          const int f = dofs_.free_index[static_cast<std::size_t>(model.members[e].joints[static_cast<std::size_t>(end)] * per + k)];
          if (f >= 0) u_(f, c) += 0.5 * result_.members[e].mass * lc.gravity[static_cast<std::size_t>(k)];
        }
  }
  stiffness_->solve(u_);
  u_by_dof_ = u_;

  // Member forces and ratios per load case, in parallel.
  ratios_.assign(static_cast<std::size_t>(members * cases), 0.0);
  parallel_for_blocks(members, [&](Index first, Index last) {
    double ue[kMaxMemberDofs];
    for (Index e = first; e < last; ++e) {
      const MemberSetup member = setup_of(model, design, e, hard);
      const MemberProperties<double>& p = member.p;
      const MemberGeometry<double>& g = member.g;
      MemberReport& r = result_.members[static_cast<std::size_t>(e)];
      r.ratio = -std::numeric_limits<double>::infinity();
      for (int c = 0; c < cases; ++c) {
        gather(e, u_by_dof_, c, ue);
        const MemberForces<double> f = member_forces(model.kind, g, p.young, p.area, p.inertia, ue);
        const double moment = std::max(std::abs(f.moment_a), std::abs(f.moment_b));
        const StressRatio<double> s = ratio_of(member.strengths, f.axial, moment, model.kind == StructureKind::frame2d);
        ratios_[static_cast<std::size_t>(e * cases + c)] = s.ratio;
        if (s.ratio > r.ratio) {
          r.ratio = s.ratio;
          r.axial = f.axial;
          r.load_case = c;
          r.state = s.state;
        }
      }
    }
  });
  aggregate(hard);
}

void StructureAnalysis::aggregate(bool hard) {
  const TrussModel& model = *model_;
  const RatingSettings& s = model.rating;
  const RatingWeights& w = s.weights;
  const double t = hard ? 0.0 : s.temperature;
  RatingTerms& terms = result_.terms;
  terms = {};
  for (const MemberReport& r : result_.members) {
    terms.mass += r.mass;
    terms.cost += r.cost;
  }
  terms.cost += s.joint_price * model.joint_count;
  if (s.budget > 0.0) {
    const double over = std::max(0.0, terms.cost / s.budget - 1.0);
    terms.budget_penalty = over * over;
  }
  cost_weight_ = w.cost + (s.budget > 0.0 ? w.budget_penalty * 2.0 * std::max(0.0, terms.cost / s.budget - 1.0) / s.budget : 0.0);

  // Stress: a smooth maximum over members and load cases, and a penalty on ratios above 1.
  std::vector<double> max_weights;
  terms.stress = smooth_max(ratios_, t, &max_weights);
  result_.max_ratio = ratios_.empty() ? 0.0 : *std::max_element(ratios_.begin(), ratios_.end());
  ratio_weights_.assign(ratios_.size(), 0.0);
  for (std::size_t i = 0; i < ratios_.size(); ++i) {
    const double over = std::max(0.0, ratios_[i] - 1.0);
    terms.stress_penalty += over * over;
    ratio_weights_[i] = w.stress * max_weights[i] + w.stress_penalty * 2.0 * over;
  }

  // Deflection: +-u / limit at the rated joints, over load cases.
  const int cases = static_cast<int>(model.load_cases.size());
  deflection_weights_.setZero(dofs_.free_count, cases);
  if (s.span > 0.0) {
    const double limit = s.span / s.deflection_ratio;
    std::vector<int> joints = model.deflection_joints;
    if (joints.empty())
      for (int j = 0; j < model.joint_count; ++j) joints.push_back(j);
    std::vector<double> values;
    std::vector<int> at;
    for (int c = 0; c < cases; ++c)
      for (int j : joints) {
        const int f = dofs_.free_index[static_cast<std::size_t>(j * model.dofs() + s.deflection_axis)];
        if (f < 0) continue;
        values.push_back(u_(f, c) / limit);
        values.push_back(-u_(f, c) / limit);
        at.push_back(f);
        at.push_back(c);
      }
    std::vector<double> dw;
    terms.deflection = smooth_max(values, t, &dw);
    result_.max_deflection_ratio = values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double over = std::max(0.0, values[i] - 1.0);
      terms.deflection_penalty += over * over;
      const double sign = i % 2 == 0 ? 1.0 : -1.0;
      const std::size_t k = i / 2 * 2;
      deflection_weights_(at[k], at[k + 1]) += sign * (w.deflection * dw[i] + w.deflection_penalty * 2.0 * over) / limit;
    }
  }
  result_.rating = w.mass * terms.mass + w.cost * terms.cost + w.stress * terms.stress +
                   w.stress_penalty * terms.stress_penalty + w.deflection * terms.deflection +
                   w.deflection_penalty * terms.deflection_penalty + w.budget_penalty * terms.budget_penalty;
}

const RatingResult& StructureAnalysis::rate(const Design& design, bool hard) {
  analyse(design, hard);
  return result_;
}

const RatingResult& StructureAnalysis::rate_with_gradient(const Design& design, Design& gradient) {
  analyse(design, false);
  adjoint(design, gradient);
  return result_;
}

void StructureAnalysis::adjoint(const Design& design, Design& gradient) {
  const TrussModel& model = *model_;
  const Index members = static_cast<Index>(model.members.size());
  const int n = stiffness_->member_dofs(), per = model.dofs(), dim = model.dimension();
  const int cases = static_cast<int>(model.load_cases.size());
  const std::size_t entries = model.catalogue.size();
  const bool frame = model.kind == StructureKind::frame2d;
  const std::size_t un = static_cast<std::size_t>(n);

  // Pass 1, per member: a ratio is a force over a strength, and forces are linear in the
  // member's displacements. So d rating / d u of a case is its weight x d ratio / d forces x
  // d forces / d u, the last the same for every case; the ratios' dependence on the design
  // with forces held is weight x force / strength, summed over cases into one force per
  // strength; and the weighted sum over cases of d ratio / d forces x forces(u_c) is
  // forces(sum of weighted u_c). Pass 2 then differentiates the strengths and the forces with
  // respect to the design once per member instead of once per case.
  const std::size_t keep = 3 + 3 * un;  // force per strength; weighted u per force
  std::vector<double>& member_sums = member_sums_;
  std::vector<double>& member_rhs = member_rhs_;
  member_sums.assign(static_cast<std::size_t>(members) * keep, 0.0);
  member_rhs.assign(static_cast<std::size_t>(members * cases) * un, 0.0);
  parallel_for_blocks(members, [&](Index first, Index last) {
    double ue[kMaxMemberDofs], unit[kMaxMemberDofs];
    double force_rows[3][kMaxMemberDofs];
    for (Index e = first; e < last; ++e) {
      const MemberSetup member = setup_of(model, design, e, false);
      const MemberProperties<double>& p = member.p;
      const MemberGeometry<double>& g = member.g;
      const MemberStrengths<double>& strengths = member.strengths;
      for (int j = 0; j < n; ++j) {
        std::fill(unit, unit + n, 0.0);
        unit[j] = 1.0;
        const MemberForces<double> f = member_forces(model.kind, g, p.young, p.area, p.inertia, unit);
        force_rows[0][j] = f.axial;
        force_rows[1][j] = f.moment_a;
        force_rows[2][j] = f.moment_b;
      }
      double* sums = member_sums.data() + static_cast<std::size_t>(e) * keep;
      double* weighted_u = sums + 3;  // 3 x n: for axial, moment_a, moment_b
      for (int c = 0; c < cases; ++c) {
        const double weight = ratio_weights_[static_cast<std::size_t>(e * cases + c)];
        if (weight == 0.0) continue;
        gather(e, u_by_dof_, c, ue);
        const MemberForces<double> f = member_forces(model.kind, g, p.young, p.area, p.inertia, ue);
        // d ratio / d (axial, moment_a, moment_b), times the weight.
        double dforce[3] = {0.0, 0.0, 0.0};
        if (f.axial >= 0.0) {
          sums[0] += weight * f.axial;
          dforce[0] = weight / strengths.tension;
        } else {
          sums[1] -= weight * f.axial;
          dforce[0] = -weight / strengths.compression;
        }
        if (frame) {
          // The larger end moment governs (the first on a tie, as the forward pass takes it).
          const bool at_a = std::abs(f.moment_a) >= std::abs(f.moment_b);
          const double moment = at_a ? f.moment_a : f.moment_b;
          sums[2] += weight * std::abs(moment);
          dforce[at_a ? 1 : 2] = weight / strengths.bending * (moment < 0.0 ? -1.0 : 1.0);
        }
        double* rhs = member_rhs.data() + static_cast<std::size_t>(e * cases + c) * un;
        for (int k = 0; k < 3; ++k) {
          if (dforce[k] == 0.0) continue;
          for (int j = 0; j < n; ++j) {
            rhs[j] += dforce[k] * force_rows[k][j];
            weighted_u[k * n + j] += dforce[k] * ue[j];
          }
        }
      }
    }
  });
  lambda_ = deflection_weights_;
  for (Index e = 0; e < members; ++e) {
    const int* free = member_free_.data() + e * n;
    for (int c = 0; c < cases; ++c) {
      const double* rhs = member_rhs.data() + static_cast<std::size_t>(e * cases + c) * un;
      for (int i = 0; i < n; ++i)
        if (free[i] >= 0) lambda_(free[i], c) += rhs[i];
    }
  }
  // The stiffness matrix is symmetric: the transposed solve is the same solve.
  stiffness_->solve(lambda_);
  lambda_by_dof_ = lambda_;

  // Pass 2, per member: d/d(design) of the mass and cost terms + lambda . (f(p) - K(p) u) + the
  // ratios through pass 1's sums, by one reverse pass over the member's own computation.
  const std::size_t grad_width = static_cast<std::size_t>(2 * dim + 1) + entries;
  std::vector<double>& member_grad = member_grad_;
  member_grad.assign(static_cast<std::size_t>(members) * grad_width, 0.0);
  parallel_for_blocks(members, [&](Index first, Index last) {
    ad::LocalTape& tape = ad::thread_tape();
    double ue[kMaxMemberDofs], le[kMaxMemberDofs];
    double coupling[kMaxMemberDofs * kMaxMemberDofs];
    ad::Var k[kMaxMemberDofs * kMaxMemberDofs];
    std::vector<ad::Var> logits(entries);
    for (Index e = first; e < last; ++e) {
      const Member& m = model.members[static_cast<std::size_t>(e)];
      const MemberInputs in = inputs_of(model, design, static_cast<std::size_t>(e));
      // Sums over cases of lambda_i u_j, and of lambda . gravity at the ends (self-weight).
      std::fill(coupling, coupling + n * n, 0.0);
      double weight_coupling = 0.0;
      for (int c = 0; c < cases; ++c) {
        gather(e, u_by_dof_, c, ue);
        gather(e, lambda_by_dof_, c, le);
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) coupling[i * n + j] += le[i] * ue[j];
        const LoadCase& lc = model.load_cases[static_cast<std::size_t>(c)];
        if (lc.self_weight)
          for (int end = 0; end < 2; ++end)
            for (int q = 0; q < dim; ++q) weight_coupling += 0.5 * lc.gravity[static_cast<std::size_t>(q)] * le[end * per + q];
      }
      const double* sums = member_sums.data() + static_cast<std::size_t>(e) * keep;
      tape.reset();
      ad::Var a[3], b[3];
      for (int q = 0; q < dim; ++q) a[q] = ad::Var::input(in.a[q]);
      for (int q = 0; q < dim; ++q) b[q] = ad::Var::input(in.b[q]);
      const ad::Var area = ad::Var::input(in.area);
      if (in.logits)
        for (std::size_t q = 0; q < entries; ++q) logits[q] = ad::Var::input(in.logits[q]);
      const MemberProperties<ad::Var> p = member_properties(model, m, area, in.logits ? logits.data() : nullptr, false);
      const MemberGeometry<ad::Var> g = member_geometry(a, b, dim);
      member_stiffness(model.kind, g, p.young, p.area, p.inertia, k);
      const ad::Var mass = p.density * p.area * g.length;
      ad::Var phi = model.rating.weights.mass * mass + cost_weight_ * (mass * p.price) + weight_coupling * mass;
      for (int i = 0; i < n * n; ++i)
        if (coupling[i] != 0.0) phi = phi - coupling[i] * k[i];
      const MemberStrengths<ad::Var> strengths = member_strengths(p, g.length, m.buckling_length_factor, model.rating.buckling);
      phi = phi + sums[0] / strengths.tension + sums[1] / strengths.compression;
      if (frame) phi = phi + sums[2] / strengths.bending;
      const double* weighted_u = sums + 3;
      const MemberForces<ad::Var> fa = member_forces(model.kind, g, p.young, p.area, p.inertia, weighted_u);
      phi = phi + fa.axial;
      if (frame) {
        const MemberForces<ad::Var> fm = member_forces(model.kind, g, p.young, p.area, p.inertia, weighted_u + n);
        const MemberForces<ad::Var> fb = member_forces(model.kind, g, p.young, p.area, p.inertia, weighted_u + 2 * n);
        phi = phi + fm.moment_a + fb.moment_b;
      }
      tape.clear_adjoints();
      tape.adjoint(phi.i) = 1.0;
      tape.sweep();
      double* out = member_grad.data() + static_cast<std::size_t>(e) * grad_width;
      for (int q = 0; q < dim; ++q) out[q] = tape.adjoint(a[q].i);
      for (int q = 0; q < dim; ++q) out[dim + q] = tape.adjoint(b[q].i);
      out[2 * dim] = tape.adjoint(area.i);
      if (in.logits)
        for (std::size_t q = 0; q < entries; ++q) out[static_cast<std::size_t>(2 * dim + 1) + q] = tape.adjoint(logits[q].i);
    }
  });

  // Gathered into the design's shape; joints sum their members' shares in member order.
  gradient.positions.assign(design.positions.size(), 0.0);
  gradient.areas.assign(design.areas.size(), 0.0);
  gradient.logits.assign(design.logits.size(), 0.0);
  for (Index e = 0; e < members; ++e) {
    const Member& m = model.members[static_cast<std::size_t>(e)];
    const double* g = member_grad.data() + static_cast<std::size_t>(e) * grad_width;
    for (int end = 0; end < 2; ++end)
      for (int q = 0; q < dim; ++q)
        gradient.positions[static_cast<std::size_t>(m.joints[static_cast<std::size_t>(end)] * dim + q)] += g[end * dim + q];
    gradient.areas[static_cast<std::size_t>(e)] = g[2 * dim];
    if (m.catalogue >= 0)
      for (std::size_t q = 0; q < entries; ++q)
        gradient.logits[static_cast<std::size_t>(e) * entries + q] = g[static_cast<std::size_t>(2 * dim + 1) + q];
  }
}

}  // namespace simgrad::structure
