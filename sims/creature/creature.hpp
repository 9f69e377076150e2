// A creature (or a batch of independent creatures) as a differentiable system: a mass-spring
// body, or an FEM body of actuated triangles (fem_body.hpp), whose actuators a controller drives
// from time and body state. Both bodies have the state [positions, velocities].
//
// A step runs the controller on s_t, writing this step's actuator signals into the body's
// actuation row t, then the mass-spring step (springs, integration, ground). The state is the
// mass-spring state [positions, velocities] followed by one running peak per creature,
//   m_0 = y_0,   m_{t+1} = smax_tau(m_t, y_t),   y_t = the creature's centre height at step t,
// a smooth maximum (core/relax.hpp; tau <= 0 gives the hard max) that the jump loss reads.
// With water (water.hpp) the step first adds the water's impulse to the velocities and runs
// the mass-spring step from there. The adjoint recomputes the signals (and the water) from s_t,
// so it is the same under every checkpoint policy.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/system.hpp"
#include "sims/control/controller.hpp"
#include "sims/creature/water.hpp"
#include "sims/fem/fem.hpp"
#include "sims/softbody/mass_spring.hpp"

namespace simgrad::creature {

class Creature final : public System {
 public:
  // `model` holds the controller's creatures, each with controller.layout().nodes nodes in turn.
  Creature(softbody::MassSpringModel<2>& model, control::Controller& controller, double peak_temperature = 0.01);
  // The same with an FEM body (symplectic Euler; no water).
  Creature(fem::FemModel<2>& model, control::Controller& controller, double peak_temperature = 0.01);

  Index state_size() const override { return body_size() + creatures(); }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  Index residual_size() const override { return body_->residual_size(); }
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override;

  int creatures() const { return controller_.layout().creatures; }
  int nodes() const { return controller_.layout().nodes; }
  Index body_size() const { return body_->state_size(); }
  // The mass-spring body and its model (a mass-spring creature only).
  softbody::MassSpring<2>& body() { return *springs_; }
  softbody::MassSpringModel<2>& model() { return springs_->model(); }
  control::Controller& controller() { return controller_; }
  // The smooth maximum's temperature (0: the hard max).
  double peak_temperature = 0.01;
  // A node faster than this means the explicit step went past its stability limit (stiff springs
  // driven hard): the step raises NonFiniteError naming the node, rather than let a tuner, a
  // black-box one above all, score a numerical explosion as a long walk or a high jump.
  double speed_limit = 100.0;
  // Creature c's centre height in a state.
  double centre_height(std::span<const double> state, int c) const;
  // Surrounds the creatures with water (zero drags: none).
  void set_water(const WaterSettings& water);
  // This creature's hard twin on `body`, a copy of its body with the ground at its hard twin
  // (hard_ground_twin) that must outlive it: the same controller, water and speed limit, and the
  // hard maximum for the peak. Re-scoring on it leaves this creature and its body as they are.
  std::unique_ptr<Creature> hard_twin(softbody::MassSpringModel<2>& body) const;
  std::unique_ptr<Creature> hard_twin(fem::FemModel<2>& body) const;

 private:
  // Gives a twin on another body this creature's water and speed limit.
  std::unique_ptr<Creature> like_this(std::unique_ptr<Creature> twin) const;
  // The body state after the water's impulse, into swum_ (with water only).
  void swim(std::span<const double> body_state);
  WaterDrag water_body(std::span<const double> body_state, double* adjoint);
  // The actuation row that step t reads (the last row for steps past it, as the body does).
  std::span<double> signal_row(int t, bool adjoint);

  std::unique_ptr<softbody::MassSpring<2>> springs_;  // the body: mass-spring,
  std::unique_ptr<fem::Fem<2>> elements_;        // or FEM
  System* body_;
  Array<1>* actuation_;  // the body's signals, a row of actuator_count_ per step
  int actuator_count_;
  control::Controller& controller_;
  WaterSettings water_;
  Kernel water_drag_;
  Array<2> impulse_;                 // per node: the water's impulse this step
  std::vector<double> swum_;         // the body state after it
  std::vector<double> swum_adjoint_;
};

// A copy of a creature's body whose ground (its first plane, if any) is at its hard twin: time of
// impact, where a landing node stops; a penalty ground is replaced by it.
softbody::MassSpringModel<2> hard_ground_twin(const softbody::MassSpringModel<2>& body);
fem::FemModel<2> hard_ground_twin(const fem::FemModel<2>& body);

}  // namespace simgrad::creature
