// Advection on the 3D MAC grid, as in 2D (advect.hpp), by two schemes:
// - semi-Lagrangian: every sample is traced back along the velocity with the midpoint rule and
//   the quantity is sampled there trilinearly;
// - MacCormack with the Selle et al. limiter: a semi-Lagrangian step forward, one backward from
//   its result, half the round trip's error subtracted, and the result clamped to the eight
//   values the forward step interpolated (maccormack.hpp holds the parts shared with 2D).
// (The conservative scheme and the Euler backtrace are 2D only.)
//
// The adjoints are hand-written and scatter into the sampled quantity and the velocity, in
// parallel without atomics: the samples are cut into slabs along z at least as thick as the
// trace reaches (from the largest speed), so a slab scatters into its own slab and its two
// neighbours only; slabs are coloured so that two slabs of one colour never reach the same
// layer, the colours run one after the other and each slab runs in sample order. Every entry
// thus receives its contributions in an order fixed by the data, not by the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "sims/fluid/advect.hpp"
#include "sims/fluid/fields.hpp"
#include "sims/fluid/grid3d.hpp"
#include "sims/fluid/maccormack.hpp"

namespace simgrad::fluid {

// The schemes with their workspaces; after construction, calls allocate nothing.
class Advector3 {
 public:
  Advector3() = default;
  // Throws std::invalid_argument for the Euler backtrace (3D traces take the midpoint rule).
  explicit Advector3(const Grid3& grid, Backtrace backtrace = Backtrace::kMidpoint);

  // out = q (on lattice l) carried along the velocity over dt; kConservative is refused. With
  // `keep` (0 to kKeptPasses - 1), MacCormack keeps its passes under that number.
  void advect(AdvectionScheme scheme, const Lattice3& l, std::span<const double> q, const ConstVelocity3& velocity,
              double dt, std::span<double> out, int keep = kKeepNone);
  // Adds the adjoint of advect to dq and dvelocity, given d out (dq may be one of dvelocity).
  // With `kept`, MacCormack uses the passes an advect call with the same inputs kept under that
  // number instead of tracing them again (the same bits).
  void advect_adjoint(AdvectionScheme scheme, const Lattice3& l, std::span<const double> q,
                      const ConstVelocity3& velocity, double dt, std::span<const double> dout, std::span<double> dq,
                      const Velocity3& dvelocity, int kept = kKeepNone);

  // Several quantities advected semi-Lagrangian by one velocity, as in 2D (Advector): here one
  // advect call each, in order (an empty q fills out with zeros).
  struct Carried {
    Lattice3 lattice;
    std::span<const double> q;
    std::span<double> out;
  };
  void semi_lagrangian_together(std::span<const Carried> items, const ConstVelocity3& velocity, double dt);
  // The adjoint of semi_lagrangian_together: one advect_adjoint call each, in order.
  struct CarriedAdjoint {
    Lattice3 lattice;
    std::span<const double> q, dout;
    std::span<double> dq;
  };
  void semi_lagrangian_adjoint_together(std::span<const CarriedAdjoint> items, const ConstVelocity3& velocity, double dt,
                                        const Velocity3& dvelocity);

 private:
  const Grid3* grid_ = nullptr;
  // MacCormack: the passes (the advector's own and those kept) and the adjoint's workspace.
  MacCormackStore passes_;
};

// Semi-Lagrangian: out = q traced back along the velocity over dt, at every sample of lattice
// `l` (q lives on `l`).
void advect(const Grid3& grid, const Lattice3& l, std::span<const double> q, const ConstVelocity3& velocity, double dt,
            std::span<double> out);

// Adds the adjoint of the semi-Lagrangian advect to dq and dvelocity, given d out.
void advect_adjoint(const Grid3& grid, const Lattice3& l, std::span<const double> q, const ConstVelocity3& velocity,
                    double dt, std::span<const double> dout, std::span<double> dq, const Velocity3& dvelocity);

}  // namespace simgrad::fluid
