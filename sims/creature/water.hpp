// Water around a swimming creature: every spring is a paddle that the water drags against, with
// a coefficient along its normal and a (smaller) one along its length, both per unit length:
//   f = -|d| (c_n (u . n) n + c_t (u . t) t),   u = the mean velocity of its two ends,
// half of f on each end. Swimming needs the two to differ: a body that drags the same way in
// every direction cannot push itself along by changing shape. The step applies the water's
// impulse dt f to the velocities before the mass-spring step (a splitting of the two forces).
#pragma once

#include <array>

#include "core/kernel.hpp"

namespace simgrad::creature {

struct WaterSettings {
  double normal_drag = 0.0;      // force per unit length and unit normal speed; 0: no water
  double tangential_drag = 0.0;  // the same along the spring
};

struct WaterDrag {
  Field<2> x, v;    // node positions and velocities (gathered)
  Field<2> impulse;  // out: per node, dt times the water's force (scattered)
  WaterSettings water;
  double dt = 0.0;

  std::array<FieldRef, 2> gathered() const { return {x, v}; }
  std::array<FieldRef, 1> scattered() const { return {impulse}; }

  template <class E>
  void operator()(E& e) const {
    using S = typename E::Scalar;
    const Vec<S, 2> d = e.slot(x, 1) - e.slot(x, 0);
    const S length = norm(d);
    const Vec<S, 2> t = (1.0 / length) * d;
    const Vec<S, 2> n{{-t[1], t[0]}};
    const Vec<S, 2> u = 0.5 * (e.slot(v, 0) + e.slot(v, 1));
    const Vec<S, 2> f = (-length) * ((water.normal_drag * dot(u, n)) * n + (water.tangential_drag * dot(u, t)) * t);
    const Vec<S, 2> half = (0.5 * dt) * f;
    e.scatter(impulse, 0, half);
    e.scatter(impulse, 1, half);
  }
};

}  // namespace simgrad::creature
