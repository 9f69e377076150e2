// Advection on the MAC grid, three schemes:
// - semi-Lagrangian: every sample of a staggered quantity is traced back along the velocity for
//   one step (midpoint rule: x - dt u(x - dt u(x) / 2), or one Euler step: x - dt u(x)) and the
//   quantity sampled there bilinearly;
// - MacCormack (Selle et al. 2008): a semi-Lagrangian step forward, one backward from its result,
//   and half the round trip's error subtracted; the result is clamped to the smallest and largest
//   of the four values the forward step interpolated (the limiter), so no new extrema appear;
// - conservative (cell quantities only): first-order upwind fluxes through the faces, each flux
//   leaving one cell and entering its neighbour, so the total is conserved to rounding where no
//   flux crosses the boundary (walls); an open side lets smoke out and clean air in. Stable for
//   dt (|u| + |v|) / h <= 1.
// The adjoints are hand-written. Their scatters (a sample adds to the lattice values around the
// point it sampled) run in parallel through a BandScatter: the same bits for any thread count,
// no atomics.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/band_scatter.hpp"
#include "core/row_slabs.hpp"
#include "sims/fluid/fields.hpp"
#include "sims/fluid/grid.hpp"
#include "sims/fluid/maccormack.hpp"

namespace simgrad::fluid {

enum class AdvectionScheme : std::uint8_t { kSemiLagrangian, kMacCormack, kConservative };

// How semi-Lagrangian traces (also MacCormack's) find where a sample came from: the midpoint rule
// (second order) or one Euler step (first order, as in Stam's stable fluids and DiffTaichi's
// smoke example; a curved path's foot drifts outwards).
enum class Backtrace : std::uint8_t { kMidpoint, kEuler };

// How traces sample on grids periodic along both axes: the fastest path (four samples at a time
// where the processor allows), the periodic path one sample at a time, or the general bilinear
// stencils of any grid. Forward, all three give the same bits; the periodic adjoints gather the
// traces' starts after their scatter, so they agree with the general one to rounding and with
// each other bit for bit. The tests compare them.
enum class TracePath : std::uint8_t { kFastest, kScalar, kGeneral };

// The schemes with their workspaces; after the first call of a size, calls allocate nothing
// (unless the velocity grows, widening the scatter's windows).
class Advector {
 public:
  Advector() = default;
  explicit Advector(const Grid& grid, Backtrace backtrace = Backtrace::kMidpoint, TracePath path = TracePath::kFastest);

  // Splits semi_lagrangian_together and its adjoint over processes in slabs of rows
  // (core/row_slabs.hpp; null: the whole grid here): each computes its rows' samples, from
  // fields whose rows within a trace's reach of its slab the caller has fetched, and the
  // adjoint's scatter sends what lands in other slabs to their owners.
  void split(const RowSlabs* slabs) {
    slabs_ = slabs;
    scatter_.split(slabs);
  }

  // out = q (on lattice l) carried along the velocity (u, v) over dt. kConservative needs the
  // cell lattice. With `keep` (0 to kKeptPasses - 1), MacCormack keeps its passes under that
  // number.
  void advect(AdvectionScheme scheme, const Lattice& l, std::span<const double> q, const ConstVelocity<2>& velocity,
              double dt, std::span<double> out, int keep = kKeepNone);
  // A quantity for semi_lagrangian_together: q on lattice l into out; an empty q fills out with
  // zeros (a quantity known to stay zero).
  struct Carried {
    Lattice lattice;
    std::span<const double> q;
    std::span<double> out;
  };
  // Semi-Lagrangian advection of several quantities by one velocity in one parallel pass over
  // their samples: the same bits as an advect call each, one thread team instead of several.
  void semi_lagrangian_together(std::span<const Carried> items, const ConstVelocity<2>& velocity, double dt);
  // A quantity for semi_lagrangian_adjoint_together: q on lattice l, the adjoint of its advected
  // field (dout) and where q's adjoint goes (dq: its own field, or one of the velocity's).
  struct CarriedAdjoint {
    Lattice lattice;
    std::span<const double> q, dout;
    std::span<double> dq;
  };
  // The adjoint of semi_lagrangian_together (at most kMaxTogether quantities, no zero ones) into
  // the items' dq and dvelocity. On a grid periodic along both axes (and not kGeneral) one scatter
  // serves them all: each band adds every quantity's samples in turn, and the windows are
  // gathered once (bits of their own, the same for any thread count; within rounding of one
  // advect_adjoint call each); elsewhere it is one advect_adjoint call each.
  static constexpr int kMaxTogether = 4;
  void semi_lagrangian_adjoint_together(std::span<const CarriedAdjoint> items, const ConstVelocity<2>& velocity,
                                        double dt, const Velocity<2>& dvelocity);
  // Adds the adjoint of advect to dq and dvelocity, given d out (dq may be one of dvelocity).
  // With `kept`, MacCormack uses the passes an advect call with the same inputs kept under that
  // number instead of tracing them again (the same bits).
  void advect_adjoint(AdvectionScheme scheme, const Lattice& l, std::span<const double> q,
                      const ConstVelocity<2>& velocity, double dt, std::span<const double> dout, std::span<double> dq,
                      const Velocity<2>& dvelocity, int kept = kKeepNone);

 private:
  // Semi-Lagrangian into out; with `lowest` and `highest`, also which of the four values each
  // sample interpolated is the smallest and the largest (for the limiter).
  void semi_lagrangian(const Lattice& l, std::span<const double> q, std::span<const double> u, std::span<const double> v,
                       double dt, std::span<double> out, std::int32_t* lowest, std::int32_t* highest);
  // The rows a trace can move over dt (trace_reach): of the whole velocity, agreed by every
  // process when split (the largest of their rows').
  int agreed_reach(std::span<const double> u, std::span<const double> v, double dt, int rows) const;
  // Its adjoint; with `extra_index`, sample k also adds extra_value[k] to dq[extra_index[k]].
  void semi_lagrangian_adjoint(const Lattice& l, std::span<const double> q, std::span<const double> u,
                               std::span<const double> v, double dt, std::span<const double> dout, std::span<double> dq,
                               std::span<double> du, std::span<double> dv, const std::int32_t* extra_index,
                               const double* extra_value);
  void maccormack(const Lattice& l, std::span<const double> q, std::span<const double> u, std::span<const double> v,
                  double dt, std::span<double> out, int keep);
  void maccormack_adjoint(const Lattice& l, std::span<const double> q, std::span<const double> u,
                          std::span<const double> v, double dt, std::span<const double> dout, std::span<double> dq,
                          std::span<double> du, std::span<double> dv, int kept);
  void conservative(std::span<const double> q, std::span<const double> u, std::span<const double> v, double dt,
                    std::span<double> out);
  void conservative_adjoint(std::span<const double> q, std::span<const double> u, std::span<const double> v, double dt,
                            std::span<const double> dout, std::span<double> dq, std::span<double> du,
                            std::span<double> dv);

  const Grid* grid_ = nullptr;
  Backtrace backtrace_ = Backtrace::kMidpoint;
  TracePath path_ = TracePath::kFastest;
  bool vector_ = false;
  BandScatter scatter_;
  const RowSlabs* slabs_ = nullptr;
  // MacCormack: the passes (the advector's own and those kept) and the adjoint's workspace.
  MacCormackStore passes_;
  // Conservative: the faces' fluxes and their adjoints.
  std::vector<double> flux_, dflux_;
  // The periodic path's adjoints at the traces' starts, per sample (kMaxTogether lattices).
  std::vector<double> start_x_, start_y_;
};

// How many rows a trace over dt can move a sample, for a velocity (u, v) (with the stencil and
// lattice offsets); rows + 2 when that reaches `rows` or the velocity is not finite.
int trace_reach(const Grid& grid, std::span<const double> u, std::span<const double> v, double dt, int rows);

// Semi-Lagrangian advection with a workspace of its own (for one-off uses and tests).
void advect(const Grid& grid, const Lattice& l, std::span<const double> q, const ConstVelocity<2>& velocity, double dt,
            std::span<double> out);
void advect_adjoint(const Grid& grid, const Lattice& l, std::span<const double> q, const ConstVelocity<2>& velocity,
                    double dt, std::span<const double> dout, std::span<double> dq, const Velocity<2>& dvelocity);

}  // namespace simgrad::fluid
