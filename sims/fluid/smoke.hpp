// Eulerian smoke as a differentiable system (core/system.hpp), written once for 2D and 3D. One
// step:
//   1. advection of velocity, density and temperature by the old velocity (advect.hpp,
//      advect3d.hpp: semi-Lagrangian, MacCormack, or in 2D conservative for the carried ones);
//   2. sources (emitters and vents), in their order; 3. buoyancy; 3b. vorticity confinement
//      (optional); 4. viscosity;
//   5. walls set to zero velocity, then boundary vents set theirs (boundary_vent.hpp);
//   6. pressure projection (CG with its implicit adjoint, or fixed Jacobi sweeps).
// The state is [face velocities axis by axis, density, temperature] (fields.hpp). The adjoint
// replays steps 1-2 of the step it reverses (the sources need the velocity they saw; with
// confinement, steps 1-3 in full), so the system keeps no residuals, except with vents on open
// sides: their adjoint needs the step's pre-vent velocities and pressure on the vented faces, a
// small residual (or, where the rollout keeps none, the whole step replayed). Every stage's
// adjoint is hand-written beside its forward (advect*, forcing*, confinement*, pressure*,
// boundary_vent).
//
// The stages' kernels are written per dimension behind one interface (SmokeParts): the 2D ones
// carry the fast paths of periodic grids (vector traces, one scatter for several quantities,
// row kernels for the uniform projection), the 3D ones their slab-coloured scatters; the step
// that strings them together is this one.
#pragma once

#include <span>
#include <vector>

#include "core/system.hpp"
#include "sims/fluid/advect.hpp"
#include "sims/fluid/advect3d.hpp"
#include "sims/fluid/boundary_vent.hpp"
#include "sims/fluid/confinement.hpp"
#include "sims/fluid/confinement3d.hpp"
#include "sims/fluid/pressure.hpp"
#include "sims/fluid/pressure3d.hpp"
#include "sims/fluid/smoke_model.hpp"

namespace simgrad::fluid {

// What a D-dimensional smoke simulation is made of.
template <int D>
struct SmokeParts;
template <>
struct SmokeParts<2> {
  using Grid = fluid::Grid;
  using Advector = fluid::Advector;
  using Projection = fluid::Projection;
  using Confinement = fluid::Confinement;
  // The name a non-finite value is reported under.
  static constexpr const char* kStepName = "fluid_step";
};
template <>
struct SmokeParts<3> {
  using Grid = Grid3;
  using Advector = Advector3;
  using Projection = Projection3;
  using Confinement = Confinement3;
  static constexpr const char* kStepName = "fluid3d_step";
};

template <int D>
class SmokeOf final : public System {
 public:
  using Parts = SmokeParts<D>;
  using Model = SmokeModelOf<typename Parts::Grid>;

  // Keeps a reference to the model: tuning writes parameters there between rollouts. With
  // `slabs`, the grid is split over processes in slabs of rows (core/row_slabs.hpp): each
  // process holds whole-grid states, computes its slab's rows and fetches from their owners the
  // rows it reads across its slab's edges. Throws std::invalid_argument for what does not split
  // yet: 3D, walls or solids, CG, MacCormack or conservative advection, sources, vents,
  // confinement.
  explicit SmokeOf(Model& model, const RowSlabs* slabs = nullptr);

  Index state_size() const override { return model_.state_size(); }
  // Vents on open sides leave a record of each step (boundary_vent.hpp); otherwise none.
  Index residual_size() const override { return open_vents_.record_size(); }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override { model_.clear_adjoints(); }
  const ProcessSplit* split() const override { return slabs_; }

  Model& model() { return model_; }
  const typename Parts::Projection& projection() const { return projection_; }
  // Rebuilds the solvers after the grid or the model's settings changed.
  void rebuild();
  // 2D: this process's rows of a split grid, or every row.
  RowRun own_rows() const;
  // Split: the most rows of others' a step has fetched for its traces so far (both sides).
  int widest_halo_rows() const { return widest_halo_rows_; }
  // Split: every process's rows of a state gathered into `whole`, the whole grid's state
  // (unsplit: a copy). Collective.
  void gather_state(std::span<const double> state, std::vector<double>& whole) const;

 private:
  // Splits the solvers over the slabs (if any), sizes the buffers and places the vents: what
  // the constructor and rebuild() do once the solvers are made.
  void set_up();
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
  // The adjoint of step 1, given the adjoint after it, into state_adjoint.
  void advect_adjoint(std::span<const double> state, const FieldsOf<double, D>& adjoint,
                      std::span<double> state_adjoint, bool confinement);
  // Split: adds this process's rows of the state adjoint to the initial fields' adjoints, then
  // copies every process's rows of those, so each process holds the whole gradient.
  void gather_initial_adjoints(std::span<const double> state_adjoint);
  // Split: throws std::invalid_argument unless the model is one that splits.
  void check_splits() const;
  // Split: fetches the rows of the state's fields that the next step's traces can reach from
  // this process's slab (the reach agreed by every process).
  void fill_trace_halo(std::span<double> state) const;
  // Split: fetches the rows above the slab that a source's adjoint sums read (its blocks of
  // samples run past the slab): of the velocity it saw (`snapshot`) and of the velocity's
  // adjoint, and with the first source handled, of the smoke's and heat's adjoints.
  void fill_source_halo(std::span<double> snapshot, bool first_source);
  // Throws NonFiniteError naming the first non-finite value of the state (split: of every
  // process's rows, agreed, so every process raises the whole grid's error).
  void check_own_finite(std::span<const double> values, bool in_adjoint) const;

  Model& model_;
  const RowSlabs* slabs_;
  typename Parts::Projection projection_;
  typename Parts::Advector advector_;
  typename Parts::Confinement confinement_;
  // Whether temperature stays zero (no buoyancy, no heat anywhere): then it is not advected. Set
  // by initial_state, once a rollout (a scan of the model); false, advecting zeros into zeros,
  // before.
  bool temperature_inert_ = false;
  mutable int widest_halo_rows_ = 0;
  std::vector<double> scratch_, replay_, adjoint_, snapshots_, source_scratch_;
  mutable std::vector<double> gathered_;
  OpenVentWork open_vents_;
};

using Smoke = SmokeOf<2>;
using Smoke3 = SmokeOf<3>;

}  // namespace simgrad::fluid
