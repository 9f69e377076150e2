#include "sims/fluid/periodic_trace.hpp"

#include "core/vector_clones.hpp"

namespace simgrad::fluid {

namespace {

// One row of add_start_adjoints for traces from x-faces: each u face is its own start's only u
// value; each v face is a quarter of the v value of the four x-face starts around it (sy this
// row's starts, sy_below the row below's).
SIMGRAD_VECTOR_CLONES void add_u_starts_row(int nx, int a0, int a1, const double* __restrict sx,
                                            const double* __restrict sy, const double* __restrict sy_below,
                                            double* __restrict du, double* __restrict dv) {
  along_periodic_row(nx, a0, a1, [&](int a, int, int ap) {
    du[a] += sx[a];
    dv[a] += 0.25 * sy[a] + 0.25 * sy[ap] + 0.25 * sy_below[a] + 0.25 * sy_below[ap];
  });
}

// One row of add_start_adjoints for traces from y-faces: the mirror of add_u_starts_row (sx_above
// the row above's starts).
SIMGRAD_VECTOR_CLONES void add_v_starts_row(int nx, int a0, int a1, const double* __restrict sx,
                                            const double* __restrict sx_above, const double* __restrict sy,
                                            double* __restrict du, double* __restrict dv) {
  along_periodic_row(nx, a0, a1, [&](int a, int am, int) {
    du[a] += 0.25 * sx[a] + 0.25 * sx[am] + 0.25 * sx_above[a] + 0.25 * sx_above[am];
    dv[a] += sy[a];
  });
}

// One row of add_start_adjoints for traces from cell centres: each face is half of each of the
// two cells beside it.
SIMGRAD_VECTOR_CLONES void add_cell_starts_row(int nx, int a0, int a1, const double* __restrict sx,
                                               const double* __restrict sy, const double* __restrict sy_below,
                                               double* __restrict du, double* __restrict dv) {
  along_periodic_row(nx, a0, a1, [&](int a, int am, int) {
    du[a] += 0.5 * sx[a] + 0.5 * sx[am];
    dv[a] += 0.5 * sy[a] + 0.5 * sy_below[a];
  });
}

}  // namespace

void add_start_adjoints(Staggering kind, int nx, int ny, const double* start_x, const double* start_y,
                        std::span<double> du, std::span<double> dv, Index first, Index last) {
  for_row_pieces(nx, first, last, [&](int b, int a0, int a1) {
    const std::size_t row = static_cast<std::size_t>(b) * nx;
    const std::size_t below = static_cast<std::size_t>(b == 0 ? ny - 1 : b - 1) * nx;
    const std::size_t above = static_cast<std::size_t>(b + 1 == ny ? 0 : b + 1) * nx;
    double* dur = du.data() + row;
    double* dvr = dv.data() + row;
    if (kind == Staggering::kU)
      add_u_starts_row(nx, a0, a1, start_x + row, start_y + row, start_y + below, dur, dvr);
    else if (kind == Staggering::kV)
      add_v_starts_row(nx, a0, a1, start_x + row, start_x + above, start_y + row, dur, dvr);
    else
      add_cell_starts_row(nx, a0, a1, start_x + row, start_y + row, start_y + below, dur, dvr);
  });
}

}  // namespace simgrad::fluid
