// The transfers between particles and grid (APIC / MLS-MPM, Hu et al. 2018), with w_ip the
// quadratic B-spline weight (weights.hpp) and dpos_ip = x_i - x_p = (o - f) dx:
//   particle to grid   m_i = sum_p w_ip m_p,   p_i = sum_p w_ip (m_p v_p + Q_p dpos_ip)
//   grid to particle   v_p' = sum_i w_ip v_i,   C_p' = (4 / dx^2) sum_i w_ip v_i dpos_ip^T,
//                      x_p' = x_p + dt v_p'
// The particle-to-grid transfer is a gather per node over the binned particles (bins.hpp); the
// contribution of one particle to one node is written once (p2g_contribution) and serves both
// that gather and the adjoint, which is the derived adjoint of the pairing
//   sum_i (m_i^bar w_ip m_p + p_i^bar . w_ip (m_p v_p + Q_p dpos_ip))
// per particle (a kernel sum over particles). The grid-to-particle transfer is a kernel over
// particles whose derived adjoint gives the particles' adjoints; it is linear in the grid
// velocities, and their adjoint, v_i^bar = sum_p w_ip (v_p'^bar + dt x_p'^bar +
// (4 / dx^2) C_p'^bar dpos_ip), is the transposed map: a gather per node like the first
// transfer, in the same fixed order.
#pragma once

#include "core/kernel.hpp"
#include "sims/mpm/bins.hpp"
#include "sims/mpm/stress.hpp"

namespace simgrad::mpm {

// What particle p gives the node at offset o: its mass and momentum there.
template <class S, int D>
void p2g_contribution(const SplineWeights<S, D>& w, const Vec<int, D>& o, const S& m, const Vec<S, D>& v, const Mat<S, D>& q,
                      double dx, S& mass_out, Vec<S, D>& momentum_out) {
  const S weight = w.weight(o);
  const Vec<S, D> dpos = dx * w.offset(o);
  mass_out = weight * m;
  momentum_out = weight * (m * v + apply(q, dpos));
}

// The particle-to-grid gather into the bins' box nodes [first, last) (the rest of the grid
// receives nothing).
template <int D>
void particles_to_grid(const ParticleBins<D>& bins, Index first, Index last, const double* mass, const double* velocity,
                       const double* affine, double dx, double* grid_mass, double* grid_momentum) {
  for (Index k = first; k < last; ++k) {
    const Index i = bins.box_node(k);
    double m = 0.0;
    Vec<double, D> momentum = Vec<double, D>::zero();
    bins.for_each_particle(i, [&](Index p, const Vec<int, D>& o) {
      double mp;
      Vec<double, D> pp;
      p2g_contribution<double, D>(bins.weights(p), o, mass[p], load<double, D>(velocity, p),
                                  Mat<double, D>::from_rows(load<double, D * D>(affine, p)), dx, mp, pp);
      m += mp;
      momentum += pp;
    });
    grid_mass[i] = m;
    for (int d = 0; d < D; ++d) grid_momentum[i * D + d] = momentum[d];
  }
}

// The pairing of the grid's adjoints with a particle's contributions, summed over its stencil:
// its derived adjoint (Kernel::sum_adjoint) is the particle-to-grid transfer's adjoint.
template <int D>
struct ParticleToGridPairing {
  Field<D> x, v;
  Field<D * D> affine;
  Field<1> mass;
  const double* grid_mass_adjoint = nullptr;
  const double* grid_momentum_adjoint = nullptr;
  const ParticleBins<D>* bins = nullptr;
  double dx = 0.0;

  template <class E>
  typename E::Scalar operator()(E& e) const {
    using S = typename E::Scalar;
    const SplineWeights<S, D> w = spline_weights<S, D>(e.own(x), 1.0 / dx);
    const S m = e.own(mass);
    const Vec<S, D> vp = e.own(v);
    const Mat<S, D> q = matrix_of<S, D>(e.own(affine));
    S total = S(0.0);
    for_stencil<D>([&](const Vec<int, D>& o) __attribute__((always_inline)) {
      Vec<int, D> at;
      for (int d = 0; d < D; ++d) at[d] = w.base[d] + o[d];
      const Index i = bins->node_index(at);
      S mi;
      Vec<S, D> pi;
      p2g_contribution<S, D>(w, o, m, vp, q, dx, mi, pi);
      total = total + grid_mass_adjoint[i] * mi + dot(load<double, D>(grid_momentum_adjoint, i), pi);
    });
    return total;
  }

  // Hand-written adjoint of the pairing (the transfer's adjoint): with a_m, a_p the node's mass
  // and momentum adjoints, c = m v + Q dpos and grad w the weight's gradient,
  //   v^bar = sum w m a_p,   m^bar = sum w (a_m + a_p . v),   Q^bar = sum w a_p dpos^T,
  //   x^bar = sum (grad w (a_m m + a_p . c) - w Q^T a_p).
  // The derived adjoint (sum_adjoint of the body above) checks it in the tests; it made the
  // gradient 16 times the forward pass on the diffmpm-sized jelly block (docs/simulators/mpm.md).
  template <class E>
  void adjoint(E& e) const {
    const double inv_dx = 1.0 / dx;
    const Vec<double, D> xp = e.own(x);
    const SplineWeights<double, D> w = spline_weights<double, D>(xp, inv_dx);
    const double m = e.own(mass);
    const Vec<double, D> vp = e.own(v);
    const Mat<double, D> q = matrix_of<double, D>(e.own(affine));
    Vec<double, D> gx = Vec<double, D>::zero(), gv = Vec<double, D>::zero();
    Mat<double, D> gq = Mat<double, D>::zero();
    double gm = 0.0;
    for_stencil<D>([&](const Vec<int, D>& o) __attribute__((always_inline)) {
      Vec<int, D> at;
      for (int d = 0; d < D; ++d) at[d] = w.base[d] + o[d];
      const Index i = bins->node_index(at);
      const double am = grid_mass_adjoint[i];
      const Vec<double, D> ap = load<double, D>(grid_momentum_adjoint, i);
      const double weight = w.weight(o);
      const Vec<double, D> dpos = dx * w.offset(o);
      const Vec<double, D> c = m * vp + apply(q, dpos);
      gx += (am * m + dot(ap, c)) * weight_gradient(w, o, inv_dx);
      for (int a = 0; a < D; ++a) {
        double qa = 0.0;
        for (int b = 0; b < D; ++b) {
          qa += q.a[b][a] * ap[b];
          gq.a[a][b] += weight * (ap[a] * dpos[b]);
        }
        gx[a] -= weight * qa;
      }
      gv += (weight * m) * ap;
      gm += weight * (am + dot(ap, vp));
    });
    e.add_own(x, gx);
    e.add_own(v, gv);
    e.add_own(affine, rows_of(gq));
    e.add_own(mass, gm);
  }
};

// The grid-to-particle transfer, a kernel over particles (grid velocities read as constants).
template <int D>
struct GridToParticle {
  Field<D> x;
  Field<D> x_next, v_next;
  Field<D * D> c_next;
  const double* grid_velocity = nullptr;
  const ParticleBins<D>* bins = nullptr;
  double dx = 0.0, dt = 0.0;

  template <class E>
  void operator()(E& e) const {
    using S = typename E::Scalar;
    const Vec<S, D> xp = e.own(x);
    const double inv_dx = 1.0 / dx;
    const SplineWeights<S, D> w = spline_weights<S, D>(xp, inv_dx);
    Vec<S, D> v = Vec<S, D>::zero();
    Mat<S, D> c = Mat<S, D>::zero();
    for_stencil<D>([&](const Vec<int, D>& o) __attribute__((always_inline)) {
      Vec<int, D> at;
      for (int d = 0; d < D; ++d) at[d] = w.base[d] + o[d];
      const Vec<double, D> vi = load<double, D>(grid_velocity, bins->node_index(at));
      const S weight = w.weight(o);
      const Vec<S, D> wv = weight * vi;
      const Vec<S, D> offset = w.offset(o);
      v += wv;
      for (int a = 0; a < D; ++a)
        for (int b = 0; b < D; ++b) c.a[a][b] = c.a[a][b] + (4.0 * inv_dx) * (wv[a] * offset[b]);
    });
    e.write(v_next, v);
    e.write(c_next, rows_of(c));
    e.write(x_next, xp + dt * v);
  }

  // Hand-written adjoint with respect to the particle's position (the grid velocities' is the
  // node gather below): with a = v'^bar + dt x'^bar and A = C'^bar, each node adds
  //   grad w (a . v_i + (4 / dx) v_i . A (o - f)) - (4 / dx^2) w A^T v_i,
  // and x'^bar passes straight through. Derived adjoint: see ParticleToGridPairing::adjoint.
  template <class E>
  void adjoint(E& e) const {
    const double inv_dx = 1.0 / dx;
    const Vec<double, D> xp = e.own(x);
    const SplineWeights<double, D> w = spline_weights<double, D>(xp, inv_dx);
    const Vec<double, D> gx_next = e.output_adjoint(x_next);
    const Vec<double, D> a = e.output_adjoint(v_next) + dt * gx_next;
    const Vec<double, D * D> big_a = e.output_adjoint(c_next);
    Vec<double, D> gx = gx_next;
    for_stencil<D>([&](const Vec<int, D>& o) __attribute__((always_inline)) {
      Vec<int, D> at;
      for (int d = 0; d < D; ++d) at[d] = w.base[d] + o[d];
      const Vec<double, D> vi = load<double, D>(grid_velocity, bins->node_index(at));
      const double weight = w.weight(o);
      const Vec<double, D> offset = w.offset(o);
      double along = dot(a, vi);
      for (int r = 0; r < D; ++r)
        for (int c = 0; c < D; ++c) along += (4.0 * inv_dx) * (vi[r] * big_a[r * D + c] * offset[c]);
      gx += along * weight_gradient(w, o, inv_dx);
      for (int c = 0; c < D; ++c) {
        double at_c = 0.0;
        for (int r = 0; r < D; ++r) at_c += big_a[r * D + c] * vi[r];
        gx[c] -= (4.0 * inv_dx * inv_dx) * weight * at_c;
      }
    });
    e.add_own(x, gx);
  }
};

// The adjoint of the grid velocities read by GridToParticle, into the bins' box nodes
// [first, last) (the rest of the grid is read by no particle: its adjoint is zero).
template <int D>
void grid_to_particle_adjoint(const ParticleBins<D>& bins, Index first, Index last, const double* x_next_adjoint,
                              const double* v_next_adjoint, const double* c_next_adjoint, double dx, double dt,
                              double* grid_velocity_adjoint) {
  const double inv_dx = 1.0 / dx;
  for (Index k = first; k < last; ++k) {
    const Index i = bins.box_node(k);
    Vec<double, D> g = Vec<double, D>::zero();
    bins.for_each_particle(i, [&](Index p, const Vec<int, D>& o) {
      const SplineWeights<double, D>& w = bins.weights(p);
      const double weight = w.weight(o);
      const Vec<double, D> offset = w.offset(o);
      const Vec<double, D> gv = load<double, D>(v_next_adjoint, p) + dt * load<double, D>(x_next_adjoint, p);
      const double* gc = c_next_adjoint + p * D * D;
      for (int a = 0; a < D; ++a) {
        double along = 0.0;
        for (int b = 0; b < D; ++b) along += gc[a * D + b] * offset[b];
        g[a] += weight * (gv[a] + (4.0 * inv_dx) * along);
      }
    });
    for (int d = 0; d < D; ++d) grid_velocity_adjoint[i * D + d] = g[d];
  }
}

}  // namespace simgrad::mpm
