// 2D Eulerian smoke as a differentiable system (core/system.hpp). One step:
//   1. advection of velocity, density and temperature by the old velocity (advect.hpp);
//   2. sources (emitters and vents), in their order; 3. buoyancy; 3b. vorticity confinement
//      (optional); 4. viscosity;
//   5. walls set to zero velocity, then boundary vents set theirs (boundary_vent.hpp);
//   6. pressure projection (CG with its implicit adjoint, or
//      fixed Jacobi sweeps).
// The state is [x-face velocities, y-face velocities, density, temperature]. The adjoint
// replays steps 1-2 of the step it reverses (the sources need the velocity they saw; with
// confinement, steps 1-3 in full), so the system keeps no residuals, except with vents on open
// sides: their adjoint needs the step's pre-vent velocities and pressure on the vented faces, a
// small residual (or, where the rollout keeps none, the whole step replayed). Every stage's
// adjoint is hand-written (advect.hpp, forcing.hpp, pressure.hpp, boundary_vent.hpp).
#pragma once

#include <span>
#include <vector>

#include "core/system.hpp"
#include "sims/fluid/boundary_vent.hpp"
#include "sims/fluid/confinement.hpp"
#include "sims/fluid/pressure.hpp"
#include "sims/fluid/smoke_model.hpp"

namespace simgrad::fluid {

class Smoke final : public System {
 public:
  // Keeps a reference to the model: tuning writes parameters there between rollouts.
  explicit Smoke(SmokeModel& model);

  Index state_size() const override { return model_.state_size(); }
  // Vents on open sides leave a record of each step (boundary_vent.hpp); otherwise none.
  Index residual_size() const override { return open_vents_.record_size(); }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override { model_.clear_adjoints(); }

  SmokeModel& model() { return model_; }
  const Projection& projection() const { return projection_; }
  // Rebuilds the pressure solver after the grid or the pressure settings changed.
  void rebuild();

 private:
  // Sizes the scratch buffers for the model's grid and sources.
  void size_buffers();
  // Hands the projection the open sides' face scales of the vents' current footprints (they
  // move with the vents' position and width, which tuning changes between rollouts).
  void refresh_open_vents();
  // Steps 1-6 into `next`; with a non-empty `record`, writes the open-side vents' record.
  void advance(int t, std::span<const double> state, std::span<double> next, std::span<double> record);
  // Steps 1-2 into `next`; with `snapshots` (a replay for the adjoint) the velocity each source
  // saw is kept, and without `carried` only the velocities are advected.
  void advect_and_source(int t, std::span<const double> state, std::span<double> next, bool snapshots, bool carried);

  SmokeModel& model_;
  Projection projection_;
  Advector advector_;
  Confinement confinement_;
  // Whether temperature stays zero (no buoyancy, no heat anywhere): then it is not advected. Set
  // by initial_state, once a rollout (a scan of the model); false, advecting zeros into zeros,
  // before.
  bool temperature_inert_ = false;
  std::vector<double> scratch_, replay_, adjoint_, snapshots_, source_scratch_;
  OpenVentWork open_vents_;
};

}  // namespace simgrad::fluid
