// 3D Eulerian smoke as a differentiable system, the same step as in 2D (smoke.hpp): advection
// of velocity, density and temperature by the old velocity (semi-Lagrangian or MacCormack);
// sources; buoyancy; vorticity confinement when asked for; viscosity; walls
// (then boundary vents, boundary_vent.hpp); pressure projection
// by MIC(0)-CG with its implicit adjoint, or fixed Jacobi sweeps. The state is [x-, y-, z-face
// velocities, density, temperature]; the adjoint replays advection and sources of the step it
// reverses (the sources and confinement need the velocity they saw), so the system keeps no
// residuals, except with vents on open sides, as in 2D: the vented faces' pre-vent velocities
// and pressure (or, where the rollout keeps none, the whole step replayed).
#pragma once

#include <span>
#include <vector>

#include "core/system.hpp"
#include "sims/fluid/advect3d.hpp"
#include "sims/fluid/boundary_vent.hpp"
#include "sims/fluid/confinement3d.hpp"
#include "sims/fluid/pressure3d.hpp"
#include "sims/fluid/smoke_model.hpp"

namespace simgrad::fluid {

class Smoke3 final : public System {
 public:
  // Keeps a reference to the model: tuning writes parameters there between rollouts.
  explicit Smoke3(SmokeModel3& model);

  Index state_size() const override { return model_.state_size(); }
  // Vents on open sides leave a record of each step (boundary_vent.hpp); otherwise none.
  Index residual_size() const override { return open_vents_.record_size(); }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override { model_.clear_adjoints(); }

  SmokeModel3& model() { return model_; }
  const Projection3& projection() const { return projection_; }

 private:
  // Advection and sources into `next`; with `snapshots` (a replay for the adjoint), keeping the
  // velocity each source saw; density and temperature only when `carried`.
  void advect_and_source(int t, std::span<const double> state, std::span<double> next, bool snapshots, bool carried);
  // Hands the projection the open sides' face scales of the vents' current footprints.
  void refresh_open_vents();
  // The whole step into `next`; with a non-empty `record`, writes the open-side vents' record.
  void advance(int t, std::span<const double> state, std::span<double> next, std::span<double> record);

  SmokeModel3& model_;
  Projection3 projection_;
  Advector3 advector_;
  Confinement3 confinement_;
  // Whether temperature stays zero (no buoyancy, no heat anywhere): then it is not advected. Set
  // by initial_state, once a rollout (a scan of the model); false, advecting zeros into zeros,
  // before.
  bool temperature_inert_ = false;
  std::vector<double> scratch_, replay_, adjoint_, snapshots_;
  OpenVentWork open_vents_;
};

}  // namespace simgrad::fluid
