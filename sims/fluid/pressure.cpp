#include "sims/fluid/pressure.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/diagnostics.hpp"
#include "core/parallel.hpp"
#include "core/band_scatter.hpp"
#include "core/vector_clones.hpp"
#include "core/conjugate_gradient.hpp"
#include "sims/fluid/periodic_rows.hpp"

namespace simgrad::fluid {

Projection::Projection(const Grid& grid, PressureSettings settings) : PressureSolve(settings), grid_(&grid) { build(); }

void Projection::build() {
  const Grid& g = *grid_;
  const int nx = g.nx(), ny = g.ny();
  const std::size_t n = static_cast<std::size_t>(g.cells());
  diagonal_.assign(n, 0.0);
  right_.assign(n, 0);
  top_.assign(n, 0);
  fluid_cells_ = 0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const Index c = g.cell(i, j);
      if (g.solid(c)) {
        diagonal_[static_cast<std::size_t>(c)] = 1.0;
        continue;
      }
      ++fluid_cells_;
      const Index faces[4] = {g.u_face(i, j), g.right_face(i, j), g.v_face(i, j), g.top_face(i, j)};
      double d = 0.0;
      for (int k = 0; k < 2; ++k) d += g.u_wall(faces[k]) ? 0.0 : face_scale(0, faces[k]);
      for (int k = 2; k < 4; ++k) d += g.v_wall(faces[k]) ? 0.0 : face_scale(1, faces[k]);
      diagonal_[static_cast<std::size_t>(c)] = d;
      // A free face between two cells couples them; one on an open side couples to p = 0.
      if (!g.u_wall(faces[1]) && (i + 1 < nx || g.periodic_x())) right_[static_cast<std::size_t>(c)] = 1;
      if (!g.v_wall(faces[3]) && (j + 1 < ny || g.periodic_y())) top_[static_cast<std::size_t>(c)] = 1;
    }
  singular_ = !g.has_open_side();
  // MIC(0) on the couplings that do not wrap (Bridson, Fluid Simulation for Computer Graphics).
  constexpr double tau = 0.97, sigma = 0.25;
  precon_.assign(n, 0.0);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const Index c = g.cell(i, j);
      const std::size_t cs = static_cast<std::size_t>(c);
      double e = diagonal_[cs];
      if (!g.solid(c)) {
        if (i > 0 && right_[cs - 1]) {
          const double pl = precon_[cs - 1];
          const double ay = (j + 1 < ny && top_[cs - 1]) ? 1.0 : 0.0;
          e -= pl * pl * (1.0 + tau * ay);
        }
        if (j > 0 && top_[cs - static_cast<std::size_t>(nx)]) {
          const double pb = precon_[cs - static_cast<std::size_t>(nx)];
          const double ax = (i + 1 < nx && right_[cs - static_cast<std::size_t>(nx)]) ? 1.0 : 0.0;
          e -= pb * pb * (1.0 + tau * ax);
        }
        if (e < sigma * diagonal_[cs]) e = diagonal_[cs];
      }
      precon_[cs] = e > 0.0 ? 1.0 / std::sqrt(e) : 0.0;
    }
  // Couplings as weights (0 or 1) per cell and side, for loops without branches; a side without
  // coupling (a wall, or the domain's edge without wrap) has weight 0.
  for (auto* w : {&left_, &right_weight_, &below_, &above_, &inverse_diagonal_}) w->assign(n, 0.0);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const std::size_t c = static_cast<std::size_t>(g.cell(i, j));
      right_weight_[c] = right_[c];
      above_[c] = top_[c];
      left_[c] = right_[static_cast<std::size_t>(g.cell(i == 0 ? nx - 1 : i - 1, j))];
      below_[c] = top_[static_cast<std::size_t>(g.cell(i, j == 0 ? ny - 1 : j - 1))];
      inverse_diagonal_[c] = diagonal_[c] > 0.0 ? 1.0 / diagonal_[c] : 0.0;
    }
  uniform_ = nx >= 2 && ny >= 2;
  for (const auto* w : {&left_, &right_weight_, &below_, &above_})
    for (double x : *w) uniform_ = uniform_ && x == 1.0;
  for (auto* v : {&b_, &p_, &r_, &z_, &s_, &q_}) v->assign(n, 0.0);
  partial_.assign(static_cast<std::size_t>(block_count(g.cells())), 0.0);
}

void Projection::set_open_face_scale(std::span<const double> scale) {
  open_scale_.assign(scale.begin(), scale.end());
  build();
}

namespace {

// Row kernels of uniform grids periodic along both axes, over the cells [i0, i1) of a row, in
// vectorised clones (core/vector_clones.hpp). Cell c's left and bottom faces are faces c, so a
// row of cells reads the rows of u, v and p at its own index, v's row above and p's row below.

// The cells' faces: out = (u right - u left + v top - v bottom) / h (the divergence).
SIMGRAD_VECTOR_CLONES void divergence_row(int nx, int i0, int i1, double h, const double* u, const double* v,
                                          const double* v_above, double* out) {
  along_periodic_row(nx, i0, i1, [&](int i, int, int right) { out[i] = (u[right] - u[i] + v_above[i] - v[i]) / h; });
}

// The divergence's transpose at the cells: out = (u left - u right + v bottom - v top) / h.
SIMGRAD_VECTOR_CLONES void divergence_transpose_row(int nx, int i0, int i1, double h, const double* u, const double* v,
                                                    const double* v_above, double* out) {
  along_periodic_row(nx, i0, i1, [&](int i, int, int right) {
    double s = 0.0;
    s += u[i];
    s -= u[right];
    s += v[i];
    s -= v_above[i];
    out[i] = s / h;
  });
}

// The pressure gradient off the cells' left and bottom faces: u -= (p - p left) / h, v likewise.
SIMGRAD_VECTOR_CLONES void subtract_gradient_row(int nx, int i0, int i1, double h, const double* p, const double* p_below,
                                                 double* u, double* v) {
  along_periodic_row(nx, i0, i1, [&](int i, int left, int) {
    u[i] -= (p[i] - p[left]) / h;
    v[i] -= (p[i] - p_below[i]) / h;
  });
}

// The gradient's transpose times h^2 onto the faces: u += h (p left - p), v likewise.
SIMGRAD_VECTOR_CLONES void add_gradient_transpose_row(int nx, int i0, int i1, double h, const double* p,
                                                      const double* p_below, double* u, double* v) {
  along_periodic_row(nx, i0, i1, [&](int i, int left, int) {
    u[i] += h * (p[left] - p[i]);
    v[i] += h * (p_below[i] - p[i]);
  });
}

// One Jacobi sweep: y = (rhs + the four neighbours' sum) * inverse, the neighbours from the rows
// `mid`, `down` and `up` (all zero in the first sweep, from zero: then not read).
SIMGRAD_VECTOR_CLONES void jacobi_row(int nx, int i0, int i1, bool first_sweep, const double* mid, const double* down,
                                      const double* up, const double* rhs, const double* inverse, double* y) {
  if (first_sweep) {
    for (int i = i0; i < i1; ++i) y[i] = (rhs[i] + 0.0) * inverse[i];
    return;
  }
  along_periodic_row(nx, i0, i1, [&](int i, int left, int right) {
    y[i] = (rhs[i] + (mid[left] + mid[right] + down[i] + up[i])) * inverse[i];
  });
}

// body(first, last) over the blocks of the values of rows [first row, last row) of a field nx wide.
template <class Body>
void for_cells_of_rows(int nx, RowRun rows, const Body& body) {
  const Index offset = static_cast<Index>(rows.first) * nx;
  parallel_for_blocks(static_cast<Index>(rows.count()) * nx,
                      [&](Index first, Index last) { body(offset + first, offset + last); });
}

// out = row_kernel over the cells' faces (divergence_row or its transpose), for the given rows.
using CellFacesRow = void (*)(int, int, int, double, const double*, const double*, const double*, double*);
void for_cell_faces(int nx, int ny, RowRun rows, double h, const double* u, const double* v, double* out,
                    CellFacesRow row_kernel) {
  for_cells_of_rows(nx, rows, [&](Index first, Index last) {
    for_row_pieces(nx, first, last, [&](int j, int i0, int i1) {
      const std::size_t row = static_cast<std::size_t>(j) * nx;
      const double* v_above = v + static_cast<std::size_t>(j + 1 == ny ? 0 : j + 1) * nx;
      row_kernel(nx, i0, i1, h, u + row, v + row, v_above, out + row);
    });
  });
}

// u and v updated by row_kernel from p on the cells' left and bottom faces, for the given rows.
using FacesRow = void (*)(int, int, int, double, const double*, const double*, double*, double*);
void for_left_and_bottom_faces(int nx, int ny, RowRun rows, double h, const double* p, std::span<double> u,
                               std::span<double> v, FacesRow row_kernel) {
  for_cells_of_rows(nx, rows, [&](Index first, Index last) {
    for_row_pieces(nx, first, last, [&](int j, int i0, int i1) {
      const std::size_t row = static_cast<std::size_t>(j) * nx;
      const double* p_below = p + static_cast<std::size_t>(j == 0 ? ny - 1 : j - 1) * nx;
      row_kernel(nx, i0, i1, h, p + row, p_below, u.data() + row, v.data() + row);
    });
  });
}

}  // namespace

void Projection::divergence(const ConstVelocity<2>& velocity, std::span<double> out) const {
  const std::span<const double> u = velocity[0], v = velocity[1];
  const Grid& g = *grid_;
  const int nx = g.nx(), ny = g.ny();
  if (uniform_) {
    for_cell_faces(nx, ny, own_rows(), g.h(), u.data(), v.data(), out.data(), divergence_row);
    return;
  }
  for_cells_of_rows(nx, own_rows(), [&](Index first, Index last) {
    for (Index c = first; c < last; ++c) {
      const int i = static_cast<int>(c % nx), j = static_cast<int>(c / nx);
      out[static_cast<std::size_t>(c)] =
          g.solid(c) ? 0.0
                     : (u[static_cast<std::size_t>(g.right_face(i, j))] - u[static_cast<std::size_t>(g.u_face(i, j))] +
                        v[static_cast<std::size_t>(g.top_face(i, j))] - v[static_cast<std::size_t>(g.v_face(i, j))]) /
                           g.h();
    }
  });
}

void Projection::remove_mean(std::span<double> x) {
  const Grid& g = *grid_;
  // A uniform grid has no solid cells: the test folds away and the loops vectorise.
  auto mean_free = [&](const auto& solid) {
    const double sum = sum_by_bands(g.ny(), g.nx(), BandScatter::kBandRows, slabs_, band_partial_, band_sums_,
                                    [&](Index c) { return solid(c) ? 0.0 : x[static_cast<std::size_t>(c)]; });
    const double mean = sum / static_cast<double>(fluid_cells_ > 0 ? fluid_cells_ : 1);
    for_cells_of_rows(g.nx(), own_rows(), [&](Index first, Index last) {
      for (Index c = first; c < last; ++c)
        if (!solid(c)) x[static_cast<std::size_t>(c)] -= mean;
    });
  };
  if (uniform_) mean_free([](Index) { return false; });
  else mean_free([&](Index c) { return g.solid(c); });
}

namespace {

// out[c] = wl xl + wr xr + wb xb + wt xt for the cells [first, last) of an nx x ny grid, x_ the
// neighbours' values (wrapping) and w_ the per-side weights; kUnweighted: every weight is one
// (which multiplies exactly), none read.
template <bool kUnweighted>
void weighted_neighbour_sums(int nx, int ny, const double* x, const double* const (&weights)[4], Index first,
                             Index last, double* out) {
  // The left and right neighbours of a row's inner cells are contiguous, so those loops vectorise.
  for_row_pieces(nx, first, last, [&](int j, int i0, int i1) {
    const double* row = x + static_cast<std::size_t>(j) * nx;
    const double* down = x + static_cast<std::size_t>(j == 0 ? ny - 1 : j - 1) * nx;
    const double* up = x + static_cast<std::size_t>(j + 1 == ny ? 0 : j + 1) * nx;
    const std::size_t base = static_cast<std::size_t>(j) * nx;
    const double* wl = weights[0] + base;
    const double* wr = weights[1] + base;
    const double* wb = weights[2] + base;
    const double* wt = weights[3] + base;
    double* y = out + base;
    along_periodic_row(nx, i0, i1, [&](int i, int left, int right) {
      if constexpr (kUnweighted) y[i] = row[left] + row[right] + down[i] + up[i];
      else y[i] = wl[i] * row[left] + wr[i] * row[right] + wb[i] * down[i] + wt[i] * up[i];
    });
  });
}

}  // namespace

void Projection::coupled_sums(std::span<const double> x, Index first, Index last, double* out) const {
  const double* const weights[4] = {left_.data(), right_weight_.data(), below_.data(), above_.data()};
  if (uniform_) weighted_neighbour_sums<true>(grid_->nx(), grid_->ny(), x.data(), weights, first, last, out);
  else weighted_neighbour_sums<false>(grid_->nx(), grid_->ny(), x.data(), weights, first, last, out);
}

void Projection::apply_matrix(std::span<const double> x, std::span<double> out) const {
  parallel_for_blocks(grid_->cells(), [&](Index first, Index last) {
    coupled_sums(x, first, last, out.data());
    for (Index c = first; c < last; ++c) {
      const std::size_t cs = static_cast<std::size_t>(c);
      out[cs] = diagonal_[cs] * x[cs] - out[cs];
    }
  });
}

void Projection::apply_preconditioner(std::span<const double> r, std::span<double> z) {
  const Grid& g = *grid_;
  const int nx = g.nx(), ny = g.ny();
  const std::size_t w = static_cast<std::size_t>(nx);
  // Forward substitution L q = r, then back substitution L^T z = q, in cell order.
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const std::size_t c = static_cast<std::size_t>(g.cell(i, j));
      double t = r[c];
      if (i > 0 && right_[c - 1]) t += precon_[c - 1] * q_[c - 1];
      if (j > 0 && top_[c - w]) t += precon_[c - w] * q_[c - w];
      q_[c] = t * precon_[c];
    }
  for (int j = ny - 1; j >= 0; --j)
    for (int i = nx - 1; i >= 0; --i) {
      const std::size_t c = static_cast<std::size_t>(g.cell(i, j));
      double t = q_[c];
      if (i + 1 < nx && right_[c]) t += precon_[c] * z[c + 1];
      if (j + 1 < ny && top_[c]) t += precon_[c] * z[c + w];
      z[c] = t * precon_[c];
    }
}

void Projection::jacobi(std::span<const double> b, std::span<double> x) {
  // Sweeps alternate between x and z_ (even sweeps read x); x <- D^-1 (b + couplings x).
  const int nx = grid_->nx(), ny = grid_->ny(), sweeps = settings_.jacobi_iterations;
  const RowRun rows = own_rows();
  auto sweep_cells = [&](int sweep, Index first, Index last) {
    const double* from = sweep % 2 == 0 ? x.data() : z_.data();
    double* to = sweep % 2 == 0 ? z_.data() : x.data();
    if (uniform_) {
      // One pass: the neighbours' sum and the update, in the same order (the same bits); the
      // first sweep's neighbours are all zero.
      for_row_pieces(nx, first, last, [&](int j, int i0, int i1) {
        const std::size_t row = static_cast<std::size_t>(j) * nx;
        const double* mid = from + row;
        const double* down = from + static_cast<std::size_t>(j == 0 ? ny - 1 : j - 1) * nx;
        const double* up = from + static_cast<std::size_t>(j + 1 == ny ? 0 : j + 1) * nx;
        jacobi_row(nx, i0, i1, sweep == 0, mid, down, up, b.data() + row, inverse_diagonal_.data() + row, to + row);
      });
      return;
    }
    coupled_sums(std::span<const double>(from, b.size()), first, last, to);
    for (Index c = first; c < last; ++c) {
      const std::size_t cs = static_cast<std::size_t>(c);
      to[cs] = (b[cs] + to[cs]) * inverse_diagonal_[cs];
    }
  };
  fill(own_part(x), 0.0);
  if (slabs_ && !uniform_) {
    // The weighted first sweep reads the rows next to the slab (as zeros, the sweeps' start).
    fill(rows_of(x, {(rows.first + ny - 1) % ny, (rows.first + ny - 1) % ny + 1}, nx), 0.0);
    fill(rows_of(x, {rows.last % ny, rows.last % ny + 1}, nx), 0.0);
  }
  if (slabs_) {
    // A sweep reads the rows next to the slab as the sweep before left them (across a closed or
    // open end too, with weight zero: fetched, so even a zero's sign is the whole grid's).
    for (int sweep = 0; sweep < sweeps; ++sweep) {
      if (sweep > 0) fill_halo(sweep % 2 == 0 ? x : std::span<double>(z_), 1, 1, true);
      for_cells_of_rows(nx, rows, [&](Index first, Index last) { sweep_cells(sweep, first, last); });
    }
  } else {
    parallel_sweeps(grid_->cells(), sweeps, sweep_cells);
  }
  const std::size_t first = static_cast<std::size_t>(rows.first) * nx, last = static_cast<std::size_t>(rows.last) * nx;
  if (sweeps % 2 == 1) std::copy(z_.begin() + static_cast<std::ptrdiff_t>(first), z_.begin() + static_cast<std::ptrdiff_t>(last),
                                 x.begin() + static_cast<std::ptrdiff_t>(first));
}

void Projection::project(const Velocity<2>& velocity) {
  const std::span<double> u = velocity[0], v = velocity[1];
  const Grid& g = *grid_;
  const int nx = g.nx();
  const double h = g.h();
  const bool wrap = g.periodic_y();
  fill_halo(v, 0, 1, wrap);
  divergence({u, v}, b_);
  for (double& x : own_part(b_)) x *= -h * h;
  solve(b_, p_);
  if (uniform_) {
    // Faces c are cell c's left and bottom faces: one pass over the cells updates both.
    fill_halo(p_, 1, 0, wrap);
    for_left_and_bottom_faces(nx, g.ny(), own_rows(), h, p_.data(), u, v, subtract_gradient_row);
    return;
  }
  auto pressure = [&](Index c) { return c < 0 ? 0.0 : p_[static_cast<std::size_t>(c)]; };
  fill_halo(p_, 1, 0, wrap);  // a y-face's lower cell
  for_cells_of_rows(g.u_columns(), own_face_rows(0), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      if (g.u_wall(f)) continue;
      const int i = static_cast<int>(f % g.u_columns()), j = static_cast<int>(f / g.u_columns());
      u[static_cast<std::size_t>(f)] -= face_scale(0, f) * ((pressure(g.u_right(i, j)) - pressure(g.u_left(i, j))) / h);
    }
  });
  for_cells_of_rows(nx, own_face_rows(1), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      if (g.v_wall(f)) continue;
      const int i = static_cast<int>(f % nx), j = static_cast<int>(f / nx);
      v[static_cast<std::size_t>(f)] -= face_scale(1, f) * ((pressure(g.v_above(i, j)) - pressure(g.v_below(i, j))) / h);
    }
  });
}

void Projection::project_adjoint(const Velocity<2>& adjoint) {
  const std::span<double> du = adjoint[0], dv = adjoint[1];
  // Forward: u' = u - W G S P (-h^2 div u), W the open faces' scales. Adjoint:
  // du += h^2 div^T P S G^T W du; every operator here is a gather over the cells or faces.
  const Grid& g = *grid_;
  const int nx = g.nx(), ny = g.ny();
  const double h = g.h();
  // A uniform grid's cell c has left and bottom faces c and no walls (the same sums).
  const bool wrap = g.periodic_y();
  fill_halo(dv, 0, 1, wrap);  // a cell's top face
  if (uniform_) {
    for_cell_faces(nx, ny, own_rows(), h, du.data(), dv.data(), b_.data(), divergence_transpose_row);
  } else {
    for_cells_of_rows(nx, own_rows(), [&](Index first, Index last) {
      for (Index c = first; c < last; ++c) {
        const std::size_t cs = static_cast<std::size_t>(c);
        const int i = static_cast<int>(c % nx), j = static_cast<int>(c / nx);
        if (g.solid(c)) {
          b_[cs] = 0.0;
          continue;
        }
        const Index faces_u[2] = {g.u_face(i, j), g.right_face(i, j)};
        const Index faces_v[2] = {g.v_face(i, j), g.top_face(i, j)};
        // G^T: a cell is the right/upper end of its left/lower face (+) and the left/lower end of
        // its right/upper face (-).
        double s = 0.0;
        if (!g.u_wall(faces_u[0])) s += face_scale(0, faces_u[0]) * du[static_cast<std::size_t>(faces_u[0])];
        if (!g.u_wall(faces_u[1])) s -= face_scale(0, faces_u[1]) * du[static_cast<std::size_t>(faces_u[1])];
        if (!g.v_wall(faces_v[0])) s += face_scale(1, faces_v[0]) * dv[static_cast<std::size_t>(faces_v[0])];
        if (!g.v_wall(faces_v[1])) s -= face_scale(1, faces_v[1]) * dv[static_cast<std::size_t>(faces_v[1])];
        b_[cs] = s / h;
      }
    });
  }
  solve(b_, p_);
  if (singular_) remove_mean(p_);
  // div^T: face f gets (mu_left - mu_right) / h, times h^2.
  fill_halo(p_, 1, 0, wrap);  // a y-face's lower cell
  if (uniform_) {
    for_left_and_bottom_faces(nx, ny, own_rows(), h, p_.data(), du, dv, add_gradient_transpose_row);
    return;
  }
  auto mu = [&](Index c) { return c < 0 || g.solid(c) ? 0.0 : p_[static_cast<std::size_t>(c)]; };
  for_cells_of_rows(g.u_columns(), own_face_rows(0), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      const int i = static_cast<int>(f % g.u_columns()), j = static_cast<int>(f / g.u_columns());
      du[static_cast<std::size_t>(f)] += h * (mu(g.u_left(i, j)) - mu(g.u_right(i, j)));
    }
  });
  for_cells_of_rows(nx, own_face_rows(1), [&](Index first, Index last) {
    for (Index f = first; f < last; ++f) {
      const int i = static_cast<int>(f % nx), j = static_cast<int>(f / nx);
      dv[static_cast<std::size_t>(f)] += h * (mu(g.v_below(i, j)) - mu(g.v_above(i, j)));
    }
  });
}

}  // namespace simgrad::fluid
