// Forces of a still fluid on the bodies, by MuJoCo's inertia-box model: each body is the box of
// uniform density with its principal moments (sides b_0, b_1, b_2), moving with velocity v and
// angular velocity w at its centre of mass, both in its principal frame:
//   viscous   f = -3 pi d mu v,   t = -pi d^3 mu w             d = (b_0 + b_1 + b_2) / 3
//   drag      f_i = -rho/2 b_j b_k |v_i| v_i,   t_i = -rho b_i (b_j^4 + b_k^4) |w_i| w_i / 64
// with mu the viscosity and rho the density (option viscosity, density); forces act at the centre.
#pragma once

#include <cmath>
#include <numbers>

#include "sims/rigid/workspace.hpp"

namespace simgrad::rigid {

// Adds the fluid forces on every body with mass to w.external.
template <class S>
void fluid_forces(const RigidModel& m, const RigidConstants<S>& c, RigidWorkspace<S>& w) {
  using std::abs;
  const double mu = m.settings.viscosity, rho = m.settings.density;
  if (mu <= 0.0 && rho <= 0.0) return;
  constexpr double pi = std::numbers::pi;
  for (std::size_t b = 1; b < m.bodies.size(); ++b) {
    if (!(value_of(c.body_mass[b]) > 0.0)) continue;
    const Body& body = m.bodies[b];
    const Mat3<S> frame = w.xmat[b] * Mat3<S>::from(body.principal_axes);
    const Vec3<S> centre = w.xpos[b] + w.xmat[b] * Vec3<S>::from(body.centre);
    const Spatial<S>& velocity = w.velocity[b];
    const Vec3<S> omega = transpose_times(frame, velocity.top);
    const Vec3<S> v = transpose_times(frame, velocity.bottom + cross(velocity.top, centre));
    const double* box = body.fluid_box.c;
    const double d = (box[0] + box[1] + box[2]) / 3.0;
    Vec3<S> torque = (-pi * d * d * d * mu) * omega;
    Vec3<S> force = (-3.0 * pi * d * mu) * v;
    for (int i = 0; i < 3; ++i) {
      const double bj = box[(i + 1) % 3], bk = box[(i + 2) % 3];
      force.c[i] = force.c[i] - 0.5 * rho * bj * bk * abs(v.c[i]) * v.c[i];
      torque.c[i] = torque.c[i] - rho * box[i] * (bj * bj * bj * bj + bk * bk * bk * bk) * abs(omega.c[i]) * omega.c[i] / 64.0;
    }
    const Vec3<S> world_force = frame * force;
    w.external[b] += Spatial<S>{frame * torque + cross(centre, world_force), world_force};
  }
}

}  // namespace simgrad::rigid
