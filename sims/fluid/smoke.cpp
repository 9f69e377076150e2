#include "sims/fluid/smoke.hpp"

#include <algorithm>
#include <cmath>

#include "core/diagnostics.hpp"
#include "sims/fluid/advect.hpp"
#include "sims/fluid/boundary_vent.hpp"
#include "sims/fluid/forcing.hpp"

namespace simgrad::fluid {

Smoke::Smoke(SmokeModel& model)
    : model_(model), projection_(model.grid, model.settings.pressure),
      advector_(model.grid, model.settings.backtrace), confinement_(model.grid) {
  size_buffers();
  refresh_open_vents();
}

void Smoke::rebuild() {
  projection_ = Projection(model_.grid, model_.settings.pressure);
  advector_ = Advector(model_.grid, model_.settings.backtrace);
  confinement_ = Confinement(model_.grid);
  size_buffers();
  refresh_open_vents();
}

void Smoke::refresh_open_vents() {
  if (open_vents_.refresh(model_)) projection_.set_open_face_scale(open_vents_.scale);
}

void Smoke::size_buffers() {
  const Grid& g = model_.grid;
  scratch_.assign(static_cast<std::size_t>(std::max(g.u_count(), g.v_count())), 0.0);
  replay_.assign(static_cast<std::size_t>(model_.state_size()), 0.0);
  adjoint_.assign(static_cast<std::size_t>(model_.state_size()), 0.0);
  source_scratch_.assign(source_adjoint_scratch(g), 0.0);
  snapshots_.assign(static_cast<std::size_t>(std::max(1, model_.source_count()) * (g.u_count() + g.v_count())), 0.0);
}

void Smoke::initial_state(std::span<double> state) {
  temperature_inert_ = model_.temperature_inert();
  refresh_open_vents();
  const Grid& g = model_.grid;
  const FieldsView f = fields_of(g, state);
  const std::span<const double> v0 = model_.initial_velocity.values();
  std::copy(v0.begin(), v0.begin() + g.u_count(), f.u.begin());
  std::copy(v0.begin() + g.u_count(), v0.end(), f.v.begin());
  zero_walls(g, f.u, f.v);
  std::copy(model_.initial_density.values().begin(), model_.initial_density.values().end(), f.density.begin());
  std::copy(model_.initial_temperature.values().begin(), model_.initial_temperature.values().end(), f.temperature.begin());
}

void Smoke::initial_state_adjoint(std::span<const double> state_adjoint) {
  const Grid& g = model_.grid;
  const ConstFieldsView a = fields_of(g, state_adjoint);
  const std::span<double> dv0 = model_.initial_velocity.adjoints();
  const std::span<double> density0 = model_.initial_density.adjoints(), temperature0 = model_.initial_temperature.adjoints();
  for (Index k = 0; k < g.u_count(); ++k)
    if (!g.u_wall(k)) dv0[static_cast<std::size_t>(k)] += a.u[static_cast<std::size_t>(k)];
  for (Index k = 0; k < g.v_count(); ++k)
    if (!g.v_wall(k)) dv0[static_cast<std::size_t>(g.u_count() + k)] += a.v[static_cast<std::size_t>(k)];
  for (Index c = 0; c < g.cells(); ++c) {
    density0[static_cast<std::size_t>(c)] += a.density[static_cast<std::size_t>(c)];
    temperature0[static_cast<std::size_t>(c)] += a.temperature[static_cast<std::size_t>(c)];
  }
}

void Smoke::advect_and_source(int t, std::span<const double> state, std::span<double> next, bool snapshots,
                              bool carried) {
  const Grid& g = model_.grid;
  if (!carried && model_.source_count() == 0) return;
  const double dt = model_.settings.dt;
  const ConstFieldsView s = fields_of(g, state);
  const FieldsView n = fields_of(g, next);
  const AdvectionScheme velocity = model_.settings.velocity_advection, carried_scheme = model_.settings.carried_advection;
  if (velocity == AdvectionScheme::kSemiLagrangian && (!carried || carried_scheme == AdvectionScheme::kSemiLagrangian)) {
    Advector::Carried items[4] = {{g.u_lattice(), s.u, n.u}, {g.v_lattice(), s.v, n.v}};
    int count = 2;
    if (carried) {
      items[count++] = {g.cell_lattice(), s.density, n.density};
      items[count++] = {g.cell_lattice(), temperature_inert_ ? std::span<const double>() : s.temperature, n.temperature};
    }
    advector_.semi_lagrangian_together(std::span<const Advector::Carried>(items, static_cast<std::size_t>(count)), s.u, s.v, dt);
  } else {
    // A replay keeps MacCormack's passes for the adjoint: u, v, density, temperature as 0-3.
    auto keep = [&](int slot) { return snapshots ? slot : kKeepNone; };
    advector_.advect(velocity, g.u_lattice(), s.u, s.u, s.v, dt, n.u, keep(0));
    advector_.advect(velocity, g.v_lattice(), s.v, s.u, s.v, dt, n.v, keep(1));
    if (carried) {
      advector_.advect(carried_scheme, g.cell_lattice(), s.density, s.u, s.v, dt, n.density, keep(2));
      if (temperature_inert_) fill(n.temperature, 0.0);
      else advector_.advect(carried_scheme, g.cell_lattice(), s.temperature, s.u, s.v, dt, n.temperature, keep(3));
    }
  }
  const std::size_t faces = static_cast<std::size_t>(g.u_count() + g.v_count());
  for (int k = 0; k < model_.source_count(); ++k) {
    if (snapshots) std::copy(next.begin(), next.begin() + static_cast<std::ptrdiff_t>(faces), snapshots_.begin() + static_cast<std::ptrdiff_t>(k * faces));
    apply_source(model_, k, t, n);
  }
}

void Smoke::advance(int t, std::span<const double> state, std::span<double> next, std::span<double> record) {
  const Grid& g = model_.grid;
  advect_and_source(t, state, next, false, true);
  const FieldsView n = fields_of(g, next);
  apply_buoyancy(model_, n);
  if (model_.settings.confinement) confinement_.apply(model_, n.u, n.v);
  apply_viscosity(model_, n.u, n.v, scratch_);
  zero_walls(g, n.u, n.v);
  if (!record.empty()) record_open_vent_velocity(model_, next, record);
  apply_boundary_vents(model_, t, n);
  projection_.project(n.u, n.v);
  if (!record.empty()) record_open_vent_pressure(model_, projection_.pressure(), record);
}

void Smoke::step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) {
  advance(t, state, next, open_vents_.active() ? residual : std::span<double>());
  check_finite(next, "fluid_step", false);
}

void Smoke::step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                         std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  const Grid& g = model_.grid;
  const double dt = model_.settings.dt;
  // Confinement's adjoint needs the velocity it saw: advection, sources and buoyancy replayed.
  const bool confinement = model_.settings.confinement;
  advect_and_source(t, state, replay_, true, confinement);
  if (confinement) apply_buoyancy(model_, fields_of(g, std::span<double>(replay_)));
  const OpenVentReplay vents = open_vents_.for_adjoint(
      residual, next_adjoint.subspan(0, static_cast<std::size_t>(g.face_count())), projection_.pressure(),
      [&](std::span<double> next, std::span<double> record) { advance(t, state, next, record); });
  copy(next_adjoint, adjoint_);
  const FieldsView a = fields_of(g, std::span<double>(adjoint_));
  projection_.project_adjoint(a.u, a.v);
  apply_boundary_vents_adjoint(model_, t, a, vents);
  zero_walls(g, a.u, a.v);
  apply_viscosity_adjoint(model_, a.u, a.v, scratch_);
  if (confinement) {
    const ConstFieldsView r = fields_of(g, std::span<const double>(replay_));
    confinement_.apply_adjoint(model_, r.u, r.v, a.u, a.v);
  }
  apply_buoyancy_adjoint(model_, a);
  const std::size_t faces = static_cast<std::size_t>(g.u_count() + g.v_count());
  for (int k = model_.source_count() - 1; k >= 0; --k) {
    const std::span<const double> before(snapshots_.data() + k * faces, faces);
    apply_source_adjoint(model_, k, t, before.subspan(0, static_cast<std::size_t>(g.u_count())),
                         before.subspan(static_cast<std::size_t>(g.u_count())), a, source_scratch_);
  }
  const ConstFieldsView s = fields_of(g, state);
  const FieldsView sa = fields_of(g, state_adjoint);
  const AdvectionScheme velocity = model_.settings.velocity_advection, carried = model_.settings.carried_advection;
  if (velocity == AdvectionScheme::kSemiLagrangian && carried == AdvectionScheme::kSemiLagrangian) {
    Advector::CarriedAdjoint items[4] = {{g.u_lattice(), s.u, a.u, sa.u},
                                         {g.v_lattice(), s.v, a.v, sa.v},
                                         {g.cell_lattice(), s.density, a.density, sa.density},
                                         {g.cell_lattice(), s.temperature, a.temperature, sa.temperature}};
    advector_.semi_lagrangian_adjoint_together(std::span<const Advector::CarriedAdjoint>(items, temperature_inert_ ? 3 : 4),
                                               s.u, s.v, dt, sa.u, sa.v);
  } else {
    // What the replay kept of MacCormack's passes (advect_and_source's numbering).
    const bool velocity_kept = confinement || model_.source_count() > 0;
    auto kept = [](bool replayed, int slot) { return replayed ? slot : kKeepNone; };
    advector_.advect_adjoint(velocity, g.u_lattice(), s.u, s.u, s.v, dt, a.u, sa.u, sa.u, sa.v, kept(velocity_kept, 0));
    advector_.advect_adjoint(velocity, g.v_lattice(), s.v, s.u, s.v, dt, a.v, sa.v, sa.u, sa.v, kept(velocity_kept, 1));
    advector_.advect_adjoint(carried, g.cell_lattice(), s.density, s.u, s.v, dt, a.density, sa.density, sa.u, sa.v,
                             kept(confinement, 2));
    if (!temperature_inert_)
      advector_.advect_adjoint(carried, g.cell_lattice(), s.temperature, s.u, s.v, dt, a.temperature, sa.temperature, sa.u,
                               sa.v, kept(confinement, 3));
  }
  check_finite(state_adjoint, "fluid_step", true);
}

}  // namespace simgrad::fluid
