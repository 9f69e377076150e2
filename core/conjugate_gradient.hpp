// Preconditioned conjugate gradients shared by the 2D and 3D pressure solves: the matrix and the
// preconditioner are callables, the scratch vectors belong to the caller (no allocation inside a
// step). Dot products sum fixed blocks in block order, so the iterates are the same bits for any
// thread count.
#pragma once

#include <cmath>
#include <span>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/parallel.hpp"

namespace simgrad {

// a . b, summed per block into `partial` (block_count(n) entries) and then in block order.
inline double blocked_dot(std::span<const double> a, std::span<const double> b, std::vector<double>& partial) {
  parallel_for_indexed_blocks(static_cast<Index>(a.size()), [&](Index block, Index first, Index last) {
    double s = 0.0;
    for (Index k = first; k < last; ++k) s += a[static_cast<std::size_t>(k)] * b[static_cast<std::size_t>(k)];
    partial[static_cast<std::size_t>(block)] = s;
  });
  double total = 0.0;
  for (double s : partial) total += s;
  return total;
}

// Scratch of a solve, owned by the caller: residual r, preconditioned residual z, search
// direction s, product q (n entries each), and the dot products' partial sums. The
// preconditioner may use q as scratch: every matrix product overwrites it after.
struct CgWork {
  std::span<double> r, z, s, q;
  std::vector<double>& partial;
};

// Subtracts the mean over the fluid cells (solid(c) false) from x: the projection onto the range
// of a pressure matrix with no open side, whose null space is the constant. The sum runs per
// block into `partial` (block_count(n) entries), then in block order, as blocked_dot.
template <class Solid>
void remove_fluid_mean(std::span<double> x, const Solid& solid, Index fluid_cells, std::vector<double>& partial) {
  const Index n = static_cast<Index>(x.size());
  // Four running sums per block (a fixed order that vectorises), solid cells adding zero.
  parallel_for_indexed_blocks(n, [&](Index block, Index first, Index last) {
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    Index c = first;
    for (; c + 4 <= last; c += 4)
      for (Index l = 0; l < 4; ++l) s[l] += solid(c + l) ? 0.0 : x[static_cast<std::size_t>(c + l)];
    for (; c < last; ++c) s[0] += solid(c) ? 0.0 : x[static_cast<std::size_t>(c)];
    partial[static_cast<std::size_t>(block)] = (s[0] + s[1]) + (s[2] + s[3]);
  });
  double sum = 0.0;
  for (double s : partial) sum += s;
  const double mean = sum / static_cast<double>(fluid_cells > 0 ? fluid_cells : 1);
  parallel_for_blocks(n, [&](Index first, Index last) {
    for (Index c = first; c < last; ++c)
      if (!solid(c)) x[static_cast<std::size_t>(c)] -= mean;
  });
}

// Solves A x = b from x = 0 to ||r|| <= tolerance ||b||, at most max_iterations iterations;
// apply_matrix(x, out) computes A x, precondition(r, z) z = M^-1 r. Returns the iterations.
template <class Matrix, class Preconditioner>
int preconditioned_cg(const Matrix& apply_matrix, const Preconditioner& precondition, std::span<const double> b,
                      std::span<double> x, const CgWork& w, double tolerance, int max_iterations) {
  const std::size_t n = b.size();
  for (std::size_t k = 0; k < n; ++k) {
    x[k] = 0.0;
    w.r[k] = b[k];
  }
  const double b_norm = std::sqrt(blocked_dot(b, b, w.partial));
  if (b_norm == 0.0) return 0;
  precondition(std::span<const double>(w.r), std::span<double>(w.z));
  for (std::size_t k = 0; k < n; ++k) w.s[k] = w.z[k];
  double rho = blocked_dot(w.r, w.z, w.partial);
  int iterations = 0;
  for (int it = 1; it <= max_iterations; ++it) {
    apply_matrix(std::span<const double>(w.s), std::span<double>(w.q));
    const double alpha = rho / blocked_dot(w.s, w.q, w.partial);
    for (std::size_t k = 0; k < n; ++k) {
      x[k] += alpha * w.s[k];
      w.r[k] -= alpha * w.q[k];
    }
    iterations = it;
    const double r_norm = std::sqrt(blocked_dot(w.r, w.r, w.partial));
    if (!std::isfinite(r_norm)) throw NonFiniteError("pressure_cg", 0, false);
    if (r_norm <= tolerance * b_norm) break;
    precondition(std::span<const double>(w.r), std::span<double>(w.z));
    const double rho_next = blocked_dot(w.r, w.z, w.partial);
    const double beta = rho_next / rho;
    rho = rho_next;
    for (std::size_t k = 0; k < n; ++k) w.s[k] = w.z[k] + beta * w.s[k];
  }
  return iterations;
}

}  // namespace simgrad
