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

  template <class E>
  void operator()(E& e) const {
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
  // keeps the spring kernel's backward pass within a small factor of its forward pass.
  // Inlined into the element loop so that the out-of-order core overlaps one spring's square
  // root and division with the next spring's.
  [[gnu::always_inline]] void adjoint(AdjointElement& e) const {
    const Vec<double, D> d = e.slot(x, 1) - e.slot(x, 0);
    const double r = norm(d);
    const double length = r + length_epsilon;
    const double inv_length = 1.0 / length;
    const Vec<double, D> u = inv_length * d;
    const double rest = e.own(rest_length);
    const double act = actuated ? e.own(actuation) : 0.0;
    const double target = rest * (1.0 + act);
    const Vec<double, D> dv = e.slot(v, 1) - e.slot(v, 0);
    const double stretch_speed = dot(dv, u);
    const double k = e.own(stiffness);
    const double c = e.own(damping);
    const double tension = k * (length - target) + c * stretch_speed;

    // f = T u on end 0 and -f on end 1.
    const Vec<double, D> g = e.scattered_adjoint(node_force, 0) - e.scattered_adjoint(node_force, 1);
    const double g_tension = dot(g, u);
    const Vec<double, D> g_u = tension * g + (c * g_tension) * dv;
    const double g_length = k * g_tension;
    // u = d / l with l = |d| + eps.
    const double inv_r = length_epsilon == 0.0 ? inv_length : 1.0 / r;
    const Vec<double, D> g_d = inv_length * g_u + ((g_length - dot(g_u, d) * inv_length * inv_length) * inv_r) * d;
    const Vec<double, D> g_dv = (c * g_tension) * u;

    e.add_slot(x, 1, g_d);
    e.add_slot(x, 0, -g_d);
    e.add_slot(v, 1, g_dv);
    e.add_slot(v, 0, -g_dv);
    e.add_own(stiffness, g_tension * (length - target));
    e.add_own(damping, g_tension * stretch_speed);
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
  void operator()(E& e) const {
    e.write(spring_signal, e.slot(actuator_signal, 0));
  }
};

}  // namespace simgrad::softbody
