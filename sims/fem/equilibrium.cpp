#include "sims/fem/equilibrium.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/SparseCholesky>

namespace simgrad::fem {

namespace {

// A residual in scientific notation (std::to_string prints small ones as 0.000000).
std::string residual_text(double r) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", r);
  return text;
}

}  // namespace

template <int D>
StaticResult solve_static(Fem<D>& fem, std::span<double> positions, double tolerance, int max_iterations) {
  FemModel<D>& model = fem.model();
  const Index n = D * model.node_count;
  // Free degrees of freedom, numbered in node order.
  std::vector<Index> free_index(static_cast<std::size_t>(n), -1);
  Index free_count = 0;
  for (Index i = 0; i < n; ++i)
    if (!model.pinned[i / D]) free_index[i] = free_count++;
  std::vector<double> state(2 * n, 0.0), force(n);
  Eigen::VectorXd residual(free_count), weight(free_count);
  for (Index i = 0; i < n; ++i)
    if (free_index[i] >= 0) {
      const double w = model.inverse_mass.values()[i / D];
      weight[free_index[i]] = w == 0.0 ? 0.0 : model.gravity.values()[i % D] / w;
    }
  const double scale = std::max(weight.norm(), 1e-300);
  ForceJacobians jacobians;
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver;
  StaticResult result;
  for (result.iterations = 0;; ++result.iterations) {
    std::copy(positions.begin(), positions.end(), state.begin());
    fem.elastic_forces(state, force);
    for (Index i = 0; i < n; ++i)
      if (free_index[i] >= 0) residual[free_index[i]] = force[i] + weight[free_index[i]];
    result.relative_residual = residual.norm() / scale;
    if (result.relative_residual <= tolerance) return result;
    if (result.iterations == max_iterations)
      throw std::runtime_error("fem static solve: no convergence in " + std::to_string(max_iterations) +
                               " Newton iterations (relative residual " + residual_text(result.relative_residual) + ")");
    fem.force_jacobians(state, jacobians);
    // K = -d force / dx on the free degrees of freedom.
    std::vector<Eigen::Triplet<double>> entries;
    for (int k = 0; k < jacobians.dx.outerSize(); ++k)
      for (Eigen::SparseMatrix<double>::InnerIterator it(jacobians.dx, k); it; ++it)
        if (free_index[it.row()] >= 0 && free_index[it.col()] >= 0)
          entries.emplace_back(free_index[it.row()], free_index[it.col()], -it.value());
    Eigen::SparseMatrix<double> stiffness(free_count, free_count);
    stiffness.setFromTriplets(entries.begin(), entries.end());
    solver.compute(stiffness);
    if (solver.info() != Eigen::Success) throw std::runtime_error("fem static solve: singular stiffness");
    const Eigen::VectorXd step = solver.solve(residual);
    for (Index i = 0; i < n; ++i)
      if (free_index[i] >= 0) positions[i] += step[free_index[i]];
  }
}

template StaticResult solve_static<2>(Fem<2>&, std::span<double>, double, int);
template StaticResult solve_static<3>(Fem<3>&, std::span<double>, double, int);

}  // namespace simgrad::fem
