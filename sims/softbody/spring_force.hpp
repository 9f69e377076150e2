// The spring kernel: Hooke's law along the spring plus a dashpot on the relative speed of its
// ends, scattered into the node forces (deterministically: see kernel.hpp).
//
// With d = x_b - x_a, length l = |d| + epsilon, direction u = d / l, rest length L (1 + act):
//   tension T = k (l - L (1 + act)) + c (v_b - v_a) . u,   force on a = T u,   on b = -T u.
#pragma once

#include <array>

#include "core/kernel.hpp"

namespace simgrad::softbody {

template <int D>
struct SpringForce {
  Field<D> x, v;                                   // node positions and velocities (gathered)
  Field<1> stiffness, damping, rest_length;        // per spring
  Field<1> actuation;                              // per spring; unused when !actuated
  Field<D> node_force;                             // out: per node, the sum over its springs
  double length_epsilon = 0.0;
  bool actuated = false;

  std::array<FieldRef, 2> gathered() const { return {x, v}; }
  std::array<FieldRef, 1> scattered() const { return {node_force}; }
  // The adjoint runs on several springs at once, one per SIMD lane (core/lanes.hpp); the forward
  // pass does not, as it measured slower that way with two threads (one thread gains 5% from
  // lanes on a lattice whose neighbouring springs share no node, two threads lose 20%).
  static constexpr bool kAdjointLanes = true;

  template <class E>
  [[gnu::always_inline]] SIMGRAD_HD void operator()(E& e) const {
    using S = typename E::Scalar;
    const Vec<S, D> d = e.slot(x, 1) - e.slot(x, 0);
    const S length = norm(d) + length_epsilon;
    const Vec<S, D> u = (1.0 / length) * d;
    S target = e.own(rest_length);
    if (actuated) target = target * (1.0 + e.own(actuation));
    const S stretch_speed = dot(e.slot(v, 1) - e.slot(v, 0), u);
    const S tension = e.own(stiffness) * (length - target) + e.own(damping) * stretch_speed;
    const Vec<S, D> f = tension * u;
    e.scatter(node_force, 0, f);
    e.scatter(node_force, 1, -f);
  }

  // Hand-written adjoint of the body above; the derived adjoint checks it in the tests, and it
  // keeps the spring kernel's backward pass within a small factor of its forward pass. With
  // r = |d|, l = r + epsilon, s = (v_b - v_a) . u, g = adjoint of the force on end a minus that
  // on end b, and g_T = g . u, the adjoint of d in closed form is
  //   g_d = g_T (k - c s / l) (d / r) ... collected as  alpha u + beta dv + gamma g  below.
  // Inlined into the element loop so that the out-of-order core overlaps one spring's square
  // root and division with the next spring's.
  template <class E>
  [[gnu::always_inline]] SIMGRAD_HD void adjoint(E& e) const {
    using S = typename E::Scalar;
    const Vec<S, D> d = e.slot(x, 1) - e.slot(x, 0);
    const S r = norm(d);
    const S length = r + length_epsilon;
    const S inv_length = 1.0 / length;
    const Vec<S, D> u = inv_length * d;
    const S rest = e.own(rest_length);
    const S act = actuated ? e.own(actuation) : S(0.0);
    const S target = rest * (1.0 + act);
    const Vec<S, D> dv = e.slot(v, 1) - e.slot(v, 0);
    const S speed = dot(dv, u);
    const S k = e.own(stiffness);
    const S c = e.own(damping);
    const S tension = k * (length - target) + c * speed;

    // Force T u on end a and -T u on end b.
    const Vec<S, D> g = e.scattered_adjoint(node_force, 0) - e.scattered_adjoint(node_force, 1);
    const S g_tension = dot(g, u);
    // u = d / l depends on d directly (1 / l) and through l (dl/dd = d / r): the second part of
    // g_d collects along u with the factor l / r, which is 1 unless epsilon > 0.
    const S along = length_epsilon == 0.0 ? S(1.0) : length / r;
    const S alpha = g_tension * (k * along - (c * speed + tension) * inv_length * along);
    const S beta = g_tension * c * inv_length;
    const S gamma = tension * inv_length;
    const Vec<S, D> g_d = alpha * u + beta * dv + gamma * g;
    const Vec<S, D> g_dv = (c * g_tension) * u;

    e.add_slot(x, 1, g_d);
    e.add_slot(x, 0, -g_d);
    e.add_slot(v, 1, g_dv);
    e.add_slot(v, 0, -g_dv);
    e.add_own(stiffness, g_tension * (length - target));
    e.add_own(damping, g_tension * speed);
    e.add_own(rest_length, -k * g_tension * (1.0 + act));
    if (actuated) e.add_own(actuation, -k * g_tension * rest);
  }
};

// Spreads each step's actuator signals to the springs they drive.
struct ExpandActuation {
  Field<1> actuator_signal;  // actuators + 1 entries, the last always zero (gathered)
  Field<1> spring_signal;    // out: per spring

  std::array<FieldRef, 1> gathered() const { return {actuator_signal}; }

  template <class E>
  SIMGRAD_HD void operator()(E& e) const {
    e.write(spring_signal, e.slot(actuator_signal, 0));
  }
};

}  // namespace simgrad::softbody
