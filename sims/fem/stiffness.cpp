#include "sims/fem/stiffness.hpp"

#include <vector>

#include "core/local_ad.hpp"
#include "sims/fem/force.hpp"

namespace simgrad::fem {

template <int D>
void element_jacobian(const FemModel<D>& model, Index e, std::span<const double> mu, std::span<const double> lambda,
                      const double* beta, std::span<const double> x, std::span<const double> v,
                      ElementJacobian<D>& out) {
  constexpr int kNodes = D + 1, kDofs = ElementJacobian<D>::kDofs;
  using ad::Var;
  ad::LocalTape& tape = ad::thread_tape();
  tape.reset();
  Vec<Var, D> xs[kNodes], vs[kNodes], force[kNodes];
  for (int s = 0; s < kNodes; ++s)
    for (int c = 0; c < D; ++c) {
      xs[s][c] = Var::input(x[model.elements.node(e, s) * D + c]);
      vs[s][c] = beta != nullptr ? Var::input(v[model.elements.node(e, s) * D + c]) : Var(0.0);
    }
  Vec<Var, D * D> rest;
  for (int k = 0; k < D * D; ++k) rest[k] = Var(model.rest_inverse.values()[e * D * D + k]);
  const Var b = beta != nullptr ? Var(beta[e]) : Var(0.0);
  element_forces<Var, D>(xs, vs, Mat<Var, D>::from_rows(rest), Var(model.rest_volume.values()[e]),
                         model.settings.material, Var(mu[e]), Var(lambda[e]), beta != nullptr ? &b : nullptr, force);
  for (int r = 0; r < kDofs; ++r) {
    tape.clear_adjoints();
    tape.adjoint(force[r / D][r % D].i) = 1.0;
    tape.sweep();
    for (int q = 0; q < kDofs; ++q) {
      out.dx[r][q] = tape.adjoint(xs[q / D][q % D].i);
      if (beta != nullptr) out.dv[r][q] = tape.adjoint(vs[q / D][q % D].i);
    }
  }
}

template <int D>
void force_jacobians(const FemModel<D>& model, std::span<const double> mu, std::span<const double> lambda,
                     const double* beta, std::span<const double> x, std::span<const double> v, ForceJacobians& out) {
  constexpr int kDofs = ElementJacobian<D>::kDofs;
  const Index n = model.node_count * D;
  std::vector<Eigen::Triplet<double>> dx, dv;
  dx.reserve(static_cast<std::size_t>(model.element_count() * kDofs * kDofs));
  if (beta != nullptr) dv.reserve(dx.capacity());
  ElementJacobian<D> block;
  for (Index e = 0; e < model.element_count(); ++e) {
    element_jacobian<D>(model, e, mu, lambda, beta, x, v, block);
    for (int r = 0; r < kDofs; ++r) {
      const Index row = model.elements.node(e, r / D) * D + r % D;
      for (int q = 0; q < kDofs; ++q) {
        const Index col = model.elements.node(e, q / D) * D + q % D;
        dx.emplace_back(row, col, block.dx[r][q]);
        if (beta != nullptr) dv.emplace_back(row, col, block.dv[r][q]);
      }
    }
  }
  out.dx.resize(n, n);
  out.dx.setFromTriplets(dx.begin(), dx.end());
  out.dv.resize(beta != nullptr ? n : 0, beta != nullptr ? n : 0);
  if (beta != nullptr) out.dv.setFromTriplets(dv.begin(), dv.end());
}

template void element_jacobian<2>(const FemModel<2>&, Index, std::span<const double>, std::span<const double>,
                                  const double*, std::span<const double>, std::span<const double>,
                                  ElementJacobian<2>&);
template void element_jacobian<3>(const FemModel<3>&, Index, std::span<const double>, std::span<const double>,
                                  const double*, std::span<const double>, std::span<const double>,
                                  ElementJacobian<3>&);
template void force_jacobians<2>(const FemModel<2>&, std::span<const double>, std::span<const double>, const double*,
                                 std::span<const double>, std::span<const double>, ForceJacobians&);
template void force_jacobians<3>(const FemModel<3>&, std::span<const double>, std::span<const double>, const double*,
                                 std::span<const double>, std::span<const double>, ForceJacobians&);

}  // namespace simgrad::fem
