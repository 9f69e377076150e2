// The part of a pressure projection that does not depend on the dimension: its settings, the
// solve p = S b with its workspaces, and the solver's iteration counts. S is conjugate
// gradients (MIC(0)-preconditioned) to a relative tolerance, or a fixed number of Jacobi
// sweeps; where the matrix is singular (no open side) b is made mean-free over the fluid cells
// first. The 2D and 3D projections (pressure.hpp, pressure3d.hpp) derive from it and supply the
// matrix, the preconditioner, the sweeps and the mean (CRTP: no virtual call per product).
#pragma once

#include <span>
#include <vector>

#include "core/conjugate_gradient.hpp"

namespace simgrad::fluid {

enum class PressureSolver { kConjugateGradient, kJacobi };

struct PressureSettings {
  PressureSolver solver = PressureSolver::kConjugateGradient;
  double tolerance = 1e-10;  // CG: relative residual ||r|| / ||b||
  int max_iterations = 0;    // CG: 0 means the number of cells
  int jacobi_iterations = 6;
};

// Projection: has apply_matrix(x, out), apply_preconditioner(r, z), jacobi(b, x) and
// remove_mean(x), reachable from here (befriended).
template <class Projection>
class PressureSolve {
 public:
  // The latest solve's solution: after project, the pressure; after project_adjoint, the
  // adjoint solve's (mu, which pairs with the pressure in the matrix's parameter derivative).
  std::span<const double> pressure() const { return p_; }
  // Iterations of the latest solve (CG) and the largest seen.
  int last_iterations() const { return last_iterations_; }
  int max_iterations_seen() const { return max_iterations_seen_; }
  const PressureSettings& settings() const { return settings_; }

 protected:
  explicit PressureSolve(PressureSettings settings) : settings_(settings) {}

  // p = S b (b is made mean-free in place where the matrix is singular).
  void solve(std::span<double> b, std::span<double> p) {
    Projection& self = static_cast<Projection&>(*this);
    if (singular_) self.remove_mean(b);
    if (settings_.solver == PressureSolver::kJacobi) return self.jacobi(b, p);
    const int max_iterations = settings_.max_iterations > 0 ? settings_.max_iterations : static_cast<int>(b.size()) + 10;
    // q_ doubles as the preconditioner's scratch before each matrix product overwrites it.
    last_iterations_ = preconditioned_cg([&](std::span<const double> y, std::span<double> out) { self.apply_matrix(y, out); },
                                         [&](std::span<const double> r, std::span<double> z) { self.apply_preconditioner(r, z); },
                                         b, p, CgWork{r_, z_, s_, q_, partial_}, settings_.tolerance, max_iterations);
    if (last_iterations_ > max_iterations_seen_) max_iterations_seen_ = last_iterations_;
  }

  PressureSettings settings_;
  // Whether the matrix is singular (no open side), and the cells the mean is taken over.
  bool singular_ = false;
  Index fluid_cells_ = 0;
  std::vector<double> b_, p_, r_, z_, s_, q_, partial_;
  // The open sides' faces' pressure-gradient scales, one per face (axis by axis, as the state
  // stores them); empty: all one.
  std::vector<double> open_scale_;
  int last_iterations_ = 0, max_iterations_seen_ = 0;
};

}  // namespace simgrad::fluid
