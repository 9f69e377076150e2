#include "sims/fluid/smoke3d.hpp"

#include <algorithm>
#include <cmath>

#include "core/diagnostics.hpp"
#include "sims/fluid/advect3d.hpp"
#include "sims/fluid/boundary_vent.hpp"
#include "sims/fluid/forcing3d.hpp"

namespace simgrad::fluid {

namespace {

// The three components of a velocity stored axis by axis.
ConstVelocity3 velocity_of(const Grid3& g, const double* faces) {
  ConstVelocity3 v;
  for (std::size_t a = 0; a < 3; ++a) {
    const std::size_t n = static_cast<std::size_t>(g.face_count(static_cast<int>(a)));
    v[a] = std::span<const double>(faces, n);
    faces += n;
  }
  return v;
}

}  // namespace

Smoke3::Smoke3(SmokeModel3& model)
    : model_(model), projection_(model.grid, model.settings.pressure), advector_(model.grid), confinement_(model.grid) {
  const Grid3& g = model_.grid;
  scratch_.assign(static_cast<std::size_t>(std::max({g.face_count(0), g.face_count(1), g.face_count(2)})), 0.0);
  replay_.assign(static_cast<std::size_t>(model_.state_size()), 0.0);
  adjoint_.assign(replay_.size(), 0.0);
  snapshots_.assign(static_cast<std::size_t>(std::max(1, model_.source_count()) * g.face_count()), 0.0);
  refresh_open_vents();
}

void Smoke3::refresh_open_vents() {
  if (open_vents_.refresh(model_)) projection_.set_open_face_scale(open_vents_.scale);
}

void Smoke3::initial_state(std::span<double> state) {
  temperature_inert_ = model_.temperature_inert();
  refresh_open_vents();
  const Grid3& g = model_.grid;
  const std::span<const double> v0 = model_.initial_velocity.values();
  std::copy(v0.begin(), v0.end(), state.begin());
  const Fields3View f = fields_of(g, state);
  zero_walls(g, f.velocity);
  std::copy(model_.initial_density.values().begin(), model_.initial_density.values().end(), f.density.begin());
  std::copy(model_.initial_temperature.values().begin(), model_.initial_temperature.values().end(), f.temperature.begin());
}

void Smoke3::initial_state_adjoint(std::span<const double> state_adjoint) {
  const Grid3& g = model_.grid;
  const std::span<double> dv0 = model_.initial_velocity.adjoints();
  const std::span<double> density0 = model_.initial_density.adjoints(), temperature0 = model_.initial_temperature.adjoints();
  std::size_t at = 0;
  for (int a = 0; a < 3; ++a)
    for (Index k = 0, n = g.face_count(a); k < n; ++k, ++at)
      if (!g.wall(a, k)) dv0[at] += state_adjoint[at];
  const ConstFields3View s = fields_of(g, state_adjoint);
  for (std::size_t c = 0; c < s.density.size(); ++c) {
    density0[c] += s.density[c];
    temperature0[c] += s.temperature[c];
  }
}

void Smoke3::advect_and_source(int t, std::span<const double> state, std::span<double> next, bool snapshots,
                               bool carried) {
  const Grid3& g = model_.grid;
  if (!carried && model_.source_count() == 0) return;
  const double dt = model_.settings.dt;
  const AdvectionScheme velocity = model_.settings.velocity_advection, carried_scheme = model_.settings.carried_advection;
  const ConstFields3View s = fields_of(g, state);
  const Fields3View n = fields_of(g, next);
  // A replay keeps MacCormack's passes for the adjoint: velocity components 0-2, then density, temperature.
  auto keep = [&](int slot) { return snapshots ? slot : kKeepNone; };
  for (int a = 0; a < 3; ++a)
    advector_.advect(velocity, g.face_lattice(a), s.velocity[static_cast<std::size_t>(a)], s.velocity, dt,
                     n.velocity[static_cast<std::size_t>(a)], keep(a));
  if (carried) {
    advector_.advect(carried_scheme, g.cell_lattice(), s.density, s.velocity, dt, n.density, keep(3));
    if (temperature_inert_) fill(n.temperature, 0.0);
    else advector_.advect(carried_scheme, g.cell_lattice(), s.temperature, s.velocity, dt, n.temperature, keep(4));
  }
  const std::size_t faces = static_cast<std::size_t>(g.face_count());
  for (int k = 0; k < model_.source_count(); ++k) {
    if (snapshots)
      std::copy(next.begin(), next.begin() + static_cast<std::ptrdiff_t>(faces),
                snapshots_.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(k) * faces));
    apply_source(model_, k, t, n);
  }
}

void Smoke3::advance(int t, std::span<const double> state, std::span<double> next, std::span<double> record) {
  const Grid3& g = model_.grid;
  advect_and_source(t, state, next, false, true);
  const Fields3View n = fields_of(g, next);
  apply_buoyancy(model_, n);
  if (model_.settings.confinement) confinement_.apply(model_, n.velocity);
  apply_viscosity(model_, n.velocity, scratch_);
  zero_walls(g, n.velocity);
  if (!record.empty()) record_open_vent_velocity(model_, next, record);
  apply_boundary_vents(model_, t, n);
  projection_.project(n.velocity);
  if (!record.empty()) record_open_vent_pressure(model_, projection_.pressure(), record);
}

void Smoke3::step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) {
  advance(t, state, next, open_vents_.active() ? residual : std::span<double>());
  check_finite(next, "fluid3d_step", false);
}

void Smoke3::step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                          std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  const Grid3& g = model_.grid;
  const double dt = model_.settings.dt;
  // Confinement's adjoint needs the velocity it saw: advection, sources and buoyancy replayed.
  const bool confinement = model_.settings.confinement;
  advect_and_source(t, state, replay_, true, confinement);
  if (confinement) apply_buoyancy(model_, fields_of(g, std::span<double>(replay_)));
  // What the replay kept of MacCormack's passes (advect_and_source's numbering).
  const bool velocity_kept = confinement || model_.source_count() > 0;
  auto kept = [](bool replayed, int slot) { return replayed ? slot : kKeepNone; };
  const OpenVentReplay vents = open_vents_.for_adjoint(
      residual, next_adjoint.subspan(0, static_cast<std::size_t>(g.face_count())), projection_.pressure(),
      [&](std::span<double> next, std::span<double> record) { advance(t, state, next, record); });
  copy(next_adjoint, adjoint_);
  const Fields3View a = fields_of(g, std::span<double>(adjoint_));
  projection_.project_adjoint(a.velocity);
  apply_boundary_vents_adjoint(model_, t, a, vents);
  zero_walls(g, a.velocity);
  apply_viscosity_adjoint(model_, a.velocity, scratch_);
  if (confinement) confinement_.apply_adjoint(model_, fields_of(g, std::span<const double>(replay_)).velocity, a.velocity);
  apply_buoyancy_adjoint(model_, a);
  const std::size_t faces = static_cast<std::size_t>(g.face_count());
  for (int k = model_.source_count() - 1; k >= 0; --k) {
    apply_source_adjoint(model_, k, t, velocity_of(g, snapshots_.data() + static_cast<std::size_t>(k) * faces), a);
  }
  const ConstFields3View s = fields_of(g, state);
  const Fields3View sa = fields_of(g, state_adjoint);
  const AdvectionScheme velocity = model_.settings.velocity_advection, carried = model_.settings.carried_advection;
  for (int b = 0; b < 3; ++b) {
    const std::size_t bs = static_cast<std::size_t>(b);
    advector_.advect_adjoint(velocity, g.face_lattice(b), s.velocity[bs], s.velocity, dt, a.velocity[bs], sa.velocity[bs],
                             sa.velocity, kept(velocity_kept, b));
  }
  advector_.advect_adjoint(carried, g.cell_lattice(), s.density, s.velocity, dt, a.density, sa.density, sa.velocity,
                           kept(confinement, 3));
  if (!temperature_inert_)
    advector_.advect_adjoint(carried, g.cell_lattice(), s.temperature, s.velocity, dt, a.temperature, sa.temperature,
                             sa.velocity, kept(confinement, 4));
  check_finite(state_adjoint, "fluid3d_step", true);
}

}  // namespace simgrad::fluid
