#include "sims/fem/implicit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/local_ad.hpp"
#include "core/sparse_lu.hpp"
#include "sims/softbody/contact_adjoint.hpp"
#include "sims/fem/fem.hpp"

namespace simgrad::fem {

template <int D>
struct ImplicitEuler<D>::Workspace {
  Array<D> x_new, v_new;  // x' and v', with adjoints for the vector-Jacobian product
  Array<D> force;         // elastic forces at (x', v'); their adjoint seeds the product
  std::vector<Index> free_index;  // per degree of freedom; -1 for pinned nodes
  Index free_count = 0;
  std::vector<double> g, delta, lambda;
  // A's pattern and factorisation, set up once; where each diagonal entry, each entry of an
  // element's block and each entry of a node's own block (contact) sits in its values (-1: a
  // pinned degree of freedom).
  SparseLu lu;
  std::vector<Index> diagonal_position, element_position, node_position;
  ElementJacobian<D> block;

  // The pattern of A over the free degrees of freedom: the diagonal, every pair of degrees of
  // freedom of an element, every pair of a node's own.
  void analyse(const FemModel<D>& m);
};

template <int D>
void ImplicitEuler<D>::Workspace::analyse(const FemModel<D>& m) {
  constexpr int kDofs = ElementJacobian<D>::kDofs;
  std::vector<std::vector<Index>> columns(static_cast<std::size_t>(free_count));
  auto link = [&](Index row, Index col) {
    if (free_index[row] >= 0 && free_index[col] >= 0) columns[free_index[col]].push_back(free_index[row]);
  };
  auto dof = [&](Index e, int r) { return m.elements.node(e, r / D) * D + r % D; };
  for (Index i = 0; i < D * m.node_count; ++i) link(i, i);
  for (Index node = 0; node < m.node_count; ++node)
    for (int r = 0; r < D; ++r)
      for (int c = 0; c < D; ++c) link(node * D + r, node * D + c);
  for (Index e = 0; e < m.element_count(); ++e)
    for (int r = 0; r < kDofs; ++r)
      for (int q = 0; q < kDofs; ++q) link(dof(e, r), dof(e, q));
  std::vector<Index> start(1, 0), rows;
  for (std::vector<Index>& column : columns) {
    std::sort(column.begin(), column.end());
    column.erase(std::unique(column.begin(), column.end()), column.end());
    rows.insert(rows.end(), column.begin(), column.end());
    start.push_back(static_cast<Index>(rows.size()));
  }
  lu.analyse(free_count, start, rows);
  auto position = [&](Index row, Index col) {
    return free_index[row] >= 0 && free_index[col] >= 0 ? lu.position(free_index[row], free_index[col]) : Index(-1);
  };
  for (Index i = 0; i < D * m.node_count; ++i) diagonal_position.push_back(position(i, i));
  for (Index node = 0; node < m.node_count; ++node)
    for (int r = 0; r < D; ++r)
      for (int c = 0; c < D; ++c) node_position.push_back(position(node * D + r, node * D + c));
  element_position.reserve(static_cast<std::size_t>(m.element_count() * kDofs * kDofs));
  for (Index e = 0; e < m.element_count(); ++e)
    for (int r = 0; r < kDofs; ++r)
      for (int q = 0; q < kDofs; ++q) element_position.push_back(position(dof(e, r), dof(e, q)));
}

template <int D>
ImplicitEuler<D>::ImplicitEuler(Fem<D>& fem) : fem_(fem), work_(std::make_unique<Workspace>()) {
  const FemModel<D>& m = fem.model();
  for (const ContactPlane<D>& plane : m.planes)
    if (plane.model != ContactModel::kPenalty)
      throw std::invalid_argument("fem: implicit Euler supports penalty contact planes only");
  Workspace& w = *work_;
  w.x_new.resize(m.node_count, true);
  w.v_new.resize(m.node_count, true);
  w.force.resize(m.node_count, true);
  w.free_index.assign(static_cast<std::size_t>(D * m.node_count), -1);
  for (Index i = 0; i < D * m.node_count; ++i)
    if (m.inverse_mass.values()[i / D] != 0.0) w.free_index[i] = w.free_count++;
  w.g.resize(static_cast<std::size_t>(w.free_count));
  w.delta.resize(static_cast<std::size_t>(w.free_count));
  w.lambda.resize(static_cast<std::size_t>(w.free_count));
  w.analyse(m);
}

template <int D>
ImplicitEuler<D>::~ImplicitEuler() = default;

template <int D>
void ImplicitEuler<D>::residual(std::span<const double> state) {
  Workspace& w = *work_;
  FemModel<D>& m = fem_.model();
  const Index n = D * m.node_count;
  const double dt = m.settings.dt, alpha = m.mass_damping.values()[0];
  const auto x = state.first(n), v = state.subspan(n, n);
  auto xn = w.x_new.values(), vn = w.v_new.values();
  for (Index i = 0; i < n; ++i) xn[i] = x[i] + dt * vn[i];
  fem_.elastic_forces_.forward(fem_.force_body(w.x_new.field(), w.v_new.field(), w.force.field()));
  for (Index node = 0; node < m.node_count; ++node) {
    const double inv_mass = m.inverse_mass.values()[node];
    if (inv_mass == 0.0) continue;
    const double mass = 1.0 / inv_mass;
    Vec<double, D> xi, vi, f;
    for (int c = 0; c < D; ++c) {
      xi[c] = xn[node * D + c];
      vi[c] = vn[node * D + c];
      f[c] = w.force.values()[node * D + c] + mass * (m.gravity.values()[c] - alpha * vi[c]);
    }
    for (const ContactPlane<D>& plane : m.planes) f += penalty_contact_force(plane, m.settings.penalty, xi, vi);
    for (const ContactBox<D>& box : m.boxes) f += penalty_contact_force(box.face_plane(xi), m.settings.penalty, xi, vi);
    for (int c = 0; c < D; ++c) {
      const Index k = w.free_index[node * D + c];
      w.g[k] = mass * (vi[c] - v[node * D + c]) - dt * f[c];
    }
  }
}

template <int D>
void ImplicitEuler<D>::factorize() {
  constexpr int kDofs = ElementJacobian<D>::kDofs;
  Workspace& w = *work_;
  FemModel<D>& m = fem_.model();
  const double dt = m.settings.dt, alpha = m.mass_damping.values()[0];
  const Index n = D * m.node_count;
  const std::span<double> a = w.lu.values();
  std::fill(a.begin(), a.end(), 0.0);
  for (Index i = 0; i < n; ++i)
    if (w.diagonal_position[i] >= 0) a[w.diagonal_position[i]] += (1.0 + dt * alpha) / m.inverse_mass.values()[i / D];
  // The elements' blocks, in element order.
  const double* beta = fem_.damped() ? fem_.beta_.values().data() : nullptr;
  for (Index e = 0; e < m.element_count(); ++e) {
    element_jacobian<D>(m, e, fem_.mu_.values(), fem_.lambda_.values(), beta, w.x_new.values(), w.v_new.values(),
                        w.block);
    const Index* position = w.element_position.data() + e * kDofs * kDofs;
    for (int r = 0; r < kDofs; ++r)
      for (int q = 0; q < kDofs; ++q) {
        const Index p = position[r * kDofs + q];
        if (p < 0) continue;
        a[p] -= dt * dt * w.block.dx[r][q];
        if (beta != nullptr) a[p] -= dt * w.block.dv[r][q];
      }
  }
  // Penalty contact, node by node: its Jacobians from the local AD scalar, D sweeps per node.
  if (!m.planes.empty() || !m.boxes.empty()) {
    using ad::Var;
    ad::LocalTape& tape = ad::thread_tape();
    for (Index node = 0; node < m.node_count; ++node) {
      if (m.inverse_mass.values()[node] == 0.0) continue;
      tape.reset();
      Vec<Var, D> xi, vi;
      for (int c = 0; c < D; ++c) {
        xi[c] = Var::input(w.x_new.values()[node * D + c]);
        vi[c] = Var::input(w.v_new.values()[node * D + c]);
      }
      Vec<Var, D> f = Vec<Var, D>::zero();
      for (const ContactPlane<D>& plane : m.planes) f += penalty_contact_force(plane, m.settings.penalty, xi, vi);
      for (const ContactBox<D>& box : m.boxes)
        f += penalty_contact_force(box.face_plane(softbody::values_of(xi)), m.settings.penalty, xi, vi);
      for (int r = 0; r < D; ++r) {
        if (f[r].i == 0) continue;  // no contact: a constant
        tape.clear_adjoints();
        tape.adjoint(f[r].i) = 1.0;
        tape.sweep();
        for (int c = 0; c < D; ++c)
          a[w.node_position[(node * D + r) * D + c]] -= dt * dt * tape.adjoint(xi[c].i) + dt * tape.adjoint(vi[c].i);
      }
    }
  }
  if (!w.lu.factorize()) throw std::runtime_error("fem implicit Euler: singular Newton matrix");
}

template <int D>
void ImplicitEuler<D>::step(std::span<const double> state, std::span<double> next) {
  Workspace& w = *work_;
  FemModel<D>& m = fem_.model();
  const Index n = D * m.node_count;
  const double dt = m.settings.dt;
  auto vn = w.v_new.values();
  for (Index i = 0; i < n; ++i) vn[i] = w.free_index[i] >= 0 ? state[n + i] : 0.0;
  double previous_step = 0.0;
  for (last_iterations_ = 1;; ++last_iterations_) {
    residual(state);
    factorize();
    std::copy(w.g.begin(), w.g.end(), w.delta.begin());
    w.lu.solve(w.delta);
    double largest = 0.0, step = 0.0;
    for (Index i = 0; i < n; ++i)
      if (w.free_index[i] >= 0) {
        vn[i] -= w.delta[w.free_index[i]];
        largest = std::max(largest, std::abs(vn[i]));
        step = std::max(step, std::abs(w.delta[w.free_index[i]]));
      }
    if (!std::isfinite(step)) throw std::runtime_error("fem implicit Euler: Newton diverged");
    // Converged; or at rounding level, where the update stops shrinking quadratically.
    if (step <= m.settings.newton_tolerance * largest || (last_iterations_ > 1 && step > 0.5 * previous_step)) break;
    previous_step = step;
    if (last_iterations_ == m.settings.newton_iterations)
      throw std::runtime_error("fem implicit Euler: Newton did not converge in " +
                               std::to_string(m.settings.newton_iterations) + " iterations");
  }
  for (Index i = 0; i < n; ++i) {
    next[i] = state[i] + dt * vn[i];
    next[n + i] = vn[i];
  }
}

template <int D>
void ImplicitEuler<D>::step_adjoint(std::span<const double> state, std::span<const double> new_velocity,
                                    std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  Workspace& w = *work_;
  FemModel<D>& m = fem_.model();
  const Index n = D * m.node_count;
  const double dt = m.settings.dt;
  auto xn = w.x_new.values(), vn = w.v_new.values();
  for (Index i = 0; i < n; ++i) {
    vn[i] = new_velocity[i];
    xn[i] = state[i] + dt * vn[i];
  }
  factorize();
  for (Index i = 0; i < n; ++i)
    if (w.free_index[i] >= 0) w.lambda[w.free_index[i]] = next_adjoint[n + i] + dt * next_adjoint[i];
  w.lu.solve_transposed(w.lambda);

  // Seed dt lambda on the forces; the elastic kernel's adjoint at (x', v') gives (dF/dx)^T and
  // the element parameters' products.
  auto seed = w.force.adjoints();
  for (Index i = 0; i < n; ++i) seed[i] = w.free_index[i] >= 0 ? dt * w.lambda[w.free_index[i]] : 0.0;
  std::fill(w.x_new.adjoints().begin(), w.x_new.adjoints().end(), 0.0);
  std::fill(w.v_new.adjoints().begin(), w.v_new.adjoints().end(), 0.0);
  fem_.elastic_forces_.adjoint(fem_.force_body(w.x_new.field(), w.v_new.field(), w.force.field()));
  const auto ax_new = w.x_new.adjoints();
  const bool gravity = m.gravity.differentiable();
  // dg/dalpha = dt M v', so alpha's adjoint is -dt sum_i m_i lambda_i . v'_i.
  double alpha_adjoint = 0.0;
  for (Index node = 0; node < m.node_count; ++node) {
    Vec<double, D> a_x, a_v = Vec<double, D>::zero(), s, xi, vi;
    for (int c = 0; c < D; ++c) {
      a_x[c] = ax_new[node * D + c];
      s[c] = seed[node * D + c];
      xi[c] = xn[node * D + c];
      vi[c] = vn[node * D + c];
    }
    const double inv_mass = m.inverse_mass.values()[node];
    if (inv_mass != 0.0) {
      for (const ContactPlane<D>& plane : m.planes)
        penalty_contact_adjoint(plane, m.settings.penalty, xi, vi, s, a_x, a_v);
      for (const ContactBox<D>& box : m.boxes)
        penalty_contact_adjoint(box.face_plane(xi), m.settings.penalty, xi, vi, s, a_x, a_v);
      for (int c = 0; c < D; ++c) {
        state_adjoint[n + node * D + c] += w.lambda[w.free_index[node * D + c]] / inv_mass;
        if (gravity) m.gravity.adjoints()[c] += s[c] / inv_mass;
        alpha_adjoint -= s[c] / inv_mass * vi[c];
      }
    }
    for (int c = 0; c < D; ++c) state_adjoint[node * D + c] += next_adjoint[node * D + c] + a_x[c];
  }
  if (m.mass_damping.differentiable()) m.mass_damping.adjoints()[0] += alpha_adjoint;
}

template class ImplicitEuler<2>;
template class ImplicitEuler<3>;

}  // namespace simgrad::fem
