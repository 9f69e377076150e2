// Conserved quantities of a rigid world, for checks and reports: kinetic and potential energy and
// the spatial momentum about the world origin (linear momentum, and angular momentum about the
// origin). Call after forward_kinematics, inertias_and_axes and body_velocities.
#pragma once

#include "sims/rigid/workspace.hpp"

namespace simgrad::rigid {

// 1/2 sum over bodies of v_b . (I_b v_b).
template <class S>
S kinetic_energy(const RigidWorkspace<S>& w) {
  S e(0.0);
  for (std::size_t b = 1; b < w.velocity.size(); ++b) e = e + 0.5 * power(w.velocity[b], w.inertia[b] * w.velocity[b]);
  return e;
}

// -sum over bodies of m_b g . c_b (zero at the origin).
template <class S>
S potential_energy(const RigidModel& m, const RigidWorkspace<S>& w) {
  S e(0.0);
  for (std::size_t b = 1; b < w.inertia.size(); ++b) e = e - dot(m.settings.gravity, w.inertia[b].moment);
  return e;
}

// sum over bodies of I_b v_b: (angular momentum about the origin, linear momentum).
template <class S>
Spatial<S> momentum(const RigidWorkspace<S>& w) {
  Spatial<S> p = Spatial<S>::zero();
  for (std::size_t b = 1; b < w.velocity.size(); ++b) p += w.inertia[b] * w.velocity[b];
  return p;
}

}  // namespace simgrad::rigid
