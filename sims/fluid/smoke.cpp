#include "sims/fluid/smoke.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <stdexcept>
#include <string>

#include "core/diagnostics.hpp"
#include "sims/fluid/forcing.hpp"
#include "sims/fluid/forcing3d.hpp"

namespace simgrad::fluid {
namespace {

// One field of a 2D state as rows: where it starts, its values a row and its rows.
struct StateField {
  std::size_t offset;
  int columns, rows;
};

// The state's fields in order: u, v (one row more where the y ends are not periodic), density,
// temperature.
std::array<StateField, 4> state_fields(const Grid& g) {
  const std::size_t u = static_cast<std::size_t>(g.u_count()), faces = static_cast<std::size_t>(g.face_count());
  const std::size_t cells = static_cast<std::size_t>(g.cells());
  return {{{0, g.u_columns(), g.ny()}, {u, g.nx(), g.v_rows()}, {faces, g.nx(), g.ny()}, {faces + cells, g.nx(), g.ny()}}};
}

// A field's values in a state.
template <class T>
std::span<T> field_values(std::span<T> state, const StateField& f) {
  return state.subspan(f.offset, static_cast<std::size_t>(f.columns) * static_cast<std::size_t>(f.rows));
}

}  // namespace

template <int D>
SmokeOf<D>::SmokeOf(Model& model, const RowSlabs* slabs)
    : model_(model), slabs_(slabs), projection_(model.grid, model.settings.pressure),
      advector_(model.grid, model.settings.backtrace), confinement_(model.grid) {
  set_up();
}

template <int D>
void SmokeOf<D>::rebuild() {
  projection_ = typename Parts::Projection(model_.grid, model_.settings.pressure);
  advector_ = typename Parts::Advector(model_.grid, model_.settings.backtrace);
  confinement_ = typename Parts::Confinement(model_.grid);
  set_up();
}

template <int D>
void SmokeOf<D>::set_up() {
  if (slabs_) {
    check_splits();
    if constexpr (D == 2) {
      projection_.split(slabs_);
      advector_.split(slabs_);
    }
  }
  size_buffers();
  refresh_open_vents();
}

template <int D>
void SmokeOf<D>::gather_initial_adjoints(std::span<const double> state_adjoint) {
  if constexpr (D == 2) {
    // Each process adds its rows (the faces that are not walls, as the whole grid does), then
    // every process copies every process's rows.
    const Grid& g = model_.grid;
    const std::span<double> dv0 = model_.initial_velocity.adjoints();
    const std::span<double> initial[4] = {dv0.first(static_cast<std::size_t>(g.u_count())),
                                          dv0.subspan(static_cast<std::size_t>(g.u_count())),
                                          model_.initial_density.adjoints(), model_.initial_temperature.adjoints()};
    const std::array<StateField, 4> fields = state_fields(g);
    for (std::size_t k = 0; k < 4; ++k) {
      const StateField& f = fields[k];
      const RowRun rows = slabs_->own(f.rows);
      const std::span<double> adjoint = rows_of(initial[k], rows, f.columns);
      const std::span<const double> own = rows_of(field_values(state_adjoint, f), rows, f.columns);
      const Index first = static_cast<Index>(rows.first) * f.columns;
      for (std::size_t c = 0; c < adjoint.size(); ++c)
        if (k > 1 || !g.wall(static_cast<int>(k), first + static_cast<Index>(c))) adjoint[c] += own[c];
      slabs_->gather_all(adjoint, gathered_);  // every slab's rows, in row order
      std::copy(gathered_.begin(), gathered_.end(), initial[k].begin());
    }
  } else {
    (void)state_adjoint;
  }
}

template <int D>
void SmokeOf<D>::gather_state(std::span<const double> state, std::vector<double>& whole) const {
  whole.assign(state.begin(), state.end());
  if constexpr (D == 2) {
    if (!slabs_) return;
    for (const StateField& f : state_fields(model_.grid)) {
      slabs_->gather_all(rows_of(field_values(state, f), slabs_->own(f.rows), f.columns), gathered_);
      std::copy(gathered_.begin(), gathered_.end(), whole.begin() + static_cast<std::ptrdiff_t>(f.offset));
    }
  }
}

template <int D>
RowRun SmokeOf<D>::own_rows() const {
  if (slabs_) return slabs_->own();
  if constexpr (D == 2) return {0, model_.grid.ny()};
  else return {0, 0};
}

template <int D>
void SmokeOf<D>::check_splits() const {
  const SmokeSettings& s = model_.settings;
  auto refuse = [](const std::string& what) {
    throw std::invalid_argument("the smoke grid does not split over processes with " + what +
                                " yet (a split runs 2D grids with any sides and obstacles, semi-Lagrangian advection and "
                                "Jacobi pressure sweeps, buoyancy and viscosity, and sources, without vents or confinement)");
  };
  if constexpr (D == 3) refuse("a 3D grid");
  else {
    const Grid& g = model_.grid;
    if (slabs_->rows() != g.ny() || slabs_->band_rows() != BandScatter::kBandRows)
      throw std::invalid_argument("the slabs split " + std::to_string(slabs_->rows()) + " rows in bands of " +
                                  std::to_string(slabs_->band_rows()) + "; the smoke grid has " + std::to_string(g.ny()) +
                                  " rows in bands of " + std::to_string(BandScatter::kBandRows));
  }
  if (s.pressure.solver != PressureSolver::kJacobi) refuse("the CG pressure solver");
  if (s.velocity_advection != AdvectionScheme::kSemiLagrangian || s.carried_advection != AdvectionScheme::kSemiLagrangian)
    refuse("MacCormack or conservative advection");
  if (model_.vent_count() > 0) refuse("boundary vents");
  if (s.confinement) refuse("vorticity confinement");
}

template <int D>
void SmokeOf<D>::fill_trace_halo(std::span<double> state) const {
  if constexpr (D == 2) {
    const Grid& g = model_.grid;
    const std::array<StateField, 4> fields = state_fields(g);
    const std::span<const double> u = field_values(std::span<const double>(state), fields[0]);
    const std::span<const double> v = field_values(std::span<const double>(state), fields[1]);
    const int reach = slabs_->largest(trace_reach(g, rows_of(u, own_rows(), fields[0].columns),
                                                  rows_of(v, slabs_->own(fields[1].rows), fields[1].columns),
                                                  model_.settings.dt, g.ny()));
    widest_halo_rows_ = std::max(widest_halo_rows_, std::min(2 * reach, g.ny() - own_rows().count()));
    for (int k = 0; k < (temperature_inert_ ? 3 : 4); ++k) {
      const StateField& f = fields[static_cast<std::size_t>(k)];
      slabs_->fill_halo(field_values(state, f), f.columns, reach, reach, g.periodic_y());
    }
  }
}

template <int D>
void SmokeOf<D>::fill_source_halo(std::span<double> snapshot, bool first_source) {
  if constexpr (D == 2) {
    const Grid& g = model_.grid;
    const int rows = source_block_rows(g);
    const std::array<StateField, 4> fields = state_fields(g);
    for (int k = 0; k < 4; ++k) {
      const StateField& f = fields[static_cast<std::size_t>(k)];
      if (k > 1 && !first_source) break;  // the smoke's and heat's adjoints: sources leave them be
      // A block runs on in sample order to the lattice's end, never around it: no wrap.
      slabs_->fill_halo(field_values(std::span<double>(adjoint_), f), f.columns, 0, rows, false);
      if (k < 2) slabs_->fill_halo(field_values(snapshot, f), f.columns, 0, rows, false);
    }
  } else {
    (void)snapshot;
    (void)first_source;
  }
}

template <int D>
void SmokeOf<D>::check_own_finite(std::span<const double> values, bool in_adjoint) const {
  if (!slabs_) return check_finite(values, Parts::kStepName, in_adjoint);
  if constexpr (D == 2) {
    // Each process finds its rows' first non-finite value (in the whole state's numbering) and
    // they agree on the lowest, the one the whole grid's check names: every process raises it.
    Index mine = -1;
    for (const StateField& f : state_fields(model_.grid)) {
      const RowRun rows = slabs_->own(f.rows);
      try {
        check_finite(rows_of(field_values(values, f), rows, f.columns), Parts::kStepName, in_adjoint);
      } catch (const NonFiniteError& e) {
        mine = static_cast<Index>(f.offset) + static_cast<Index>(rows.first) * f.columns + e.element();
        break;
      }
    }
    // A state has fewer than 2^31 values (at most 4 x 2049 x 2049), so minus an index is an int.
    const int lowest = slabs_->largest(mine < 0 ? INT_MIN : -static_cast<int>(mine));
    if (lowest != INT_MIN) throw NonFiniteError(Parts::kStepName, -static_cast<Index>(lowest), in_adjoint);
  }
}

template <int D>
void SmokeOf<D>::refresh_open_vents() {
  if (open_vents_.refresh(model_)) projection_.set_open_face_scale(open_vents_.scale);
}

template <int D>
void SmokeOf<D>::size_buffers() {
  const auto& g = model_.grid;
  Index widest = 0;
  for (int a = 0; a < D; ++a) widest = std::max(widest, g.face_count(a));
  scratch_.assign(static_cast<std::size_t>(widest), 0.0);
  replay_.assign(static_cast<std::size_t>(model_.state_size()), 0.0);
  adjoint_.assign(static_cast<std::size_t>(model_.state_size()), 0.0);
  snapshots_.assign(static_cast<std::size_t>(std::max(1, model_.source_count()) * g.face_count()), 0.0);
  // 2D sums a source's parameter adjoints per block in parallel (these are the blocks' partial
  // sums); 3D sums them in sample order.
  if constexpr (D == 2) source_scratch_.assign(source_adjoint_scratch(g), 0.0);
}

template <int D>
void SmokeOf<D>::initial_state(std::span<double> state) {
  temperature_inert_ = model_.temperature_inert();
  refresh_open_vents();
  const auto& g = model_.grid;
  const std::span<const double> v0 = model_.initial_velocity.values();
  std::copy(v0.begin(), v0.end(), state.begin());
  const auto f = fields_of(g, state);
  zero_walls(g, f.velocity);
  std::copy(model_.initial_density.values().begin(), model_.initial_density.values().end(), f.density.begin());
  std::copy(model_.initial_temperature.values().begin(), model_.initial_temperature.values().end(), f.temperature.begin());
}

template <int D>
void SmokeOf<D>::initial_state_adjoint(std::span<const double> state_adjoint) {
  if (slabs_) return gather_initial_adjoints(state_adjoint);
  const auto& g = model_.grid;
  const std::span<double> dv0 = model_.initial_velocity.adjoints();
  const std::span<double> density0 = model_.initial_density.adjoints(), temperature0 = model_.initial_temperature.adjoints();
  std::size_t at = 0;
  for (int a = 0; a < D; ++a)
    for (Index k = 0, n = g.face_count(a); k < n; ++k, ++at)
      if (!g.wall(a, k)) dv0[at] += state_adjoint[at];
  const auto s = fields_of(g, state_adjoint);
  for (std::size_t c = 0; c < s.density.size(); ++c) {
    density0[c] += s.density[c];
    temperature0[c] += s.temperature[c];
  }
}

template <int D>
void SmokeOf<D>::advect_and_source(int t, std::span<const double> state, std::span<double> next, bool snapshots,
                                   bool carried) {
  const auto& g = model_.grid;
  if (!carried && model_.source_count() == 0) return;
  const double dt = model_.settings.dt;
  const auto s = fields_of(g, state);
  const auto n = fields_of(g, next);
  const AdvectionScheme velocity = model_.settings.velocity_advection, carried_scheme = model_.settings.carried_advection;
  if (velocity == AdvectionScheme::kSemiLagrangian && (!carried || carried_scheme == AdvectionScheme::kSemiLagrangian)) {
    typename Parts::Advector::Carried items[D + 2];
    int count = 0;
    for (int a = 0; a < D; ++a) items[count++] = {g.face_lattice(a), s.velocity[a], n.velocity[a]};
    if (carried) {
      items[count++] = {g.cell_lattice(), s.density, n.density};
      items[count++] = {g.cell_lattice(), temperature_inert_ ? std::span<const double>() : s.temperature, n.temperature};
    }
    advector_.semi_lagrangian_together(std::span(items, static_cast<std::size_t>(count)), s.velocity, dt);
  } else {
    // A replay keeps MacCormack's passes for the adjoint: the velocity components as 0 to D - 1,
    // then density and temperature.
    auto keep = [&](int slot) { return snapshots ? slot : kKeepNone; };
    for (int a = 0; a < D; ++a)
      advector_.advect(velocity, g.face_lattice(a), s.velocity[a], s.velocity, dt, n.velocity[a], keep(a));
    if (carried) {
      advector_.advect(carried_scheme, g.cell_lattice(), s.density, s.velocity, dt, n.density, keep(D));
      if (temperature_inert_) fill(n.temperature, 0.0);
      else advector_.advect(carried_scheme, g.cell_lattice(), s.temperature, s.velocity, dt, n.temperature, keep(D + 1));
    }
  }
  const std::size_t faces = static_cast<std::size_t>(g.face_count());
  for (int k = 0; k < model_.source_count(); ++k) {
    if (snapshots)
      std::copy(next.begin(), next.begin() + static_cast<std::ptrdiff_t>(faces),
                snapshots_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(k) * faces));
    if constexpr (D == 2) apply_source(model_, k, t, n, slabs_);
    else apply_source(model_, k, t, n);
  }
}

template <int D>
void SmokeOf<D>::advance(int t, std::span<const double> state, std::span<double> next, std::span<double> record) {
  const auto& g = model_.grid;
  advect_and_source(t, state, next, false, true);
  const auto n = fields_of(g, next);
  if constexpr (D == 2) apply_buoyancy(model_, n, slabs_);
  else apply_buoyancy(model_, n);
  if (model_.settings.confinement) confinement_.apply(model_, n.velocity);
  if constexpr (D == 2) apply_viscosity(model_, n.velocity, scratch_, slabs_);
  else apply_viscosity(model_, n.velocity, scratch_);
  zero_walls(g, n.velocity);
  if (!record.empty()) record_open_vent_velocity(model_, next, record);
  apply_boundary_vents(model_, t, n);
  projection_.project(n.velocity);
  if (!record.empty()) record_open_vent_pressure(model_, projection_.pressure(), record);
}

template <int D>
void SmokeOf<D>::step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) {
  advance(t, state, next, open_vents_.active() ? residual : std::span<double>());
  check_own_finite(next, false);
  if (slabs_) fill_trace_halo(next);
}

template <int D>
void SmokeOf<D>::step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                              std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  const auto& g = model_.grid;
  // Confinement's adjoint needs the velocity it saw: advection, sources and buoyancy replayed.
  const bool confinement = model_.settings.confinement;
  advect_and_source(t, state, replay_, true, confinement);
  if (confinement) apply_buoyancy(model_, fields_of(g, std::span<double>(replay_)));
  const OpenVentReplay vents = open_vents_.for_adjoint(
      residual, next_adjoint.subspan(0, static_cast<std::size_t>(g.face_count())), projection_.pressure(),
      [&](std::span<double> next, std::span<double> record) { advance(t, state, next, record); });
  copy(next_adjoint, adjoint_);
  const auto a = fields_of(g, std::span<double>(adjoint_));
  projection_.project_adjoint(a.velocity);
  apply_boundary_vents_adjoint(model_, t, a, vents);
  zero_walls(g, a.velocity);
  if constexpr (D == 2) apply_viscosity_adjoint(model_, a.velocity, scratch_, slabs_);
  else apply_viscosity_adjoint(model_, a.velocity, scratch_);
  if (confinement) confinement_.apply_adjoint(model_, fields_of(g, std::span<const double>(replay_)).velocity, a.velocity);
  if constexpr (D == 2) apply_buoyancy_adjoint(model_, a, slabs_);
  else apply_buoyancy_adjoint(model_, a);
  const std::size_t faces = static_cast<std::size_t>(g.face_count());
  for (int k = model_.source_count() - 1; k >= 0; --k) {
    const std::span<double> snapshot = std::span<double>(snapshots_).subspan(static_cast<std::size_t>(k) * faces, faces);
    const auto before = velocity_of(g, std::span<const double>(snapshot));
    if constexpr (D == 2) {
      if (slabs_) fill_source_halo(snapshot, k == model_.source_count() - 1);
      apply_source_adjoint(model_, k, t, before, a, source_scratch_, slabs_);
    } else {
      apply_source_adjoint(model_, k, t, before, a);
    }
  }
  advect_adjoint(state, a, state_adjoint, confinement);
  check_own_finite(state_adjoint, true);
}

template <int D>
void SmokeOf<D>::advect_adjoint(std::span<const double> state, const FieldsOf<double, D>& a,
                                std::span<double> state_adjoint, bool confinement) {
  const auto& g = model_.grid;
  const double dt = model_.settings.dt;
  const auto s = fields_of(g, state);
  const auto sa = fields_of(g, state_adjoint);
  const AdvectionScheme velocity = model_.settings.velocity_advection, carried = model_.settings.carried_advection;
  if (velocity == AdvectionScheme::kSemiLagrangian && carried == AdvectionScheme::kSemiLagrangian) {
    typename Parts::Advector::CarriedAdjoint items[D + 2];
    for (int b = 0; b < D; ++b) items[b] = {g.face_lattice(b), s.velocity[b], a.velocity[b], sa.velocity[b]};
    items[D] = {g.cell_lattice(), s.density, a.density, sa.density};
    items[D + 1] = {g.cell_lattice(), s.temperature, a.temperature, sa.temperature};
    advector_.semi_lagrangian_adjoint_together(std::span(items, temperature_inert_ ? D + 1 : D + 2), s.velocity, dt,
                                               sa.velocity);
    return;
  }
  // What the replay kept of MacCormack's passes (advect_and_source's numbering).
  const bool velocity_kept = confinement || model_.source_count() > 0;
  auto kept = [](bool replayed, int slot) { return replayed ? slot : kKeepNone; };
  for (int b = 0; b < D; ++b)
    advector_.advect_adjoint(velocity, g.face_lattice(b), s.velocity[b], s.velocity, dt, a.velocity[b], sa.velocity[b],
                             sa.velocity, kept(velocity_kept, b));
  advector_.advect_adjoint(carried, g.cell_lattice(), s.density, s.velocity, dt, a.density, sa.density, sa.velocity,
                           kept(confinement, D));
  if (!temperature_inert_)
    advector_.advect_adjoint(carried, g.cell_lattice(), s.temperature, s.velocity, dt, a.temperature, sa.temperature,
                             sa.velocity, kept(confinement, D + 1));
}

template class SmokeOf<2>;
template class SmokeOf<3>;

}  // namespace simgrad::fluid
