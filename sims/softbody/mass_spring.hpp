// The mass-spring soft body as a differentiable system.
//
// A step is an explicit list of stages, each a kernel:
//   1. expand_actuation   actuator signals of step t -> per-spring signals   (if actuated)
//   2. spring_forces      per (spring, end) forces from positions and velocities
//   3. gather_forces      node force = sum of its (spring, end) forces, over the transpose
//   4. integrate          semi-implicit Euler, drag, gravity, contact  -> next state
// The adjoint replays stages 1-3 to recover the intermediate forces, then runs the adjoints of
// 4, 3, 2, 1 in that order. The state is [positions (n x D), velocities (n x D)].
#pragma once

#include <span>

#include "core/kernel.hpp"
#include "core/system.hpp"
#include "sims/softbody/integrate.hpp"
#include "sims/softbody/mass_spring_model.hpp"
#include "sims/softbody/spring_force.hpp"

namespace simgrad::softbody {

template <int D>
class MassSpring : public System {
 public:
  explicit MassSpring(MassSpringModel<D>& model);

  Index state_size() const override { return 2 * D * model_.node_count; }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> next_adjoint,
                    std::span<double> state_adjoint) override;
  void clear_adjoints() override;

  MassSpringModel<D>& model() { return model_; }
  // Positions and velocities of a state as fields (adjoint may be null).
  Field<D> positions(std::span<const double> state, double* adjoint = nullptr) const;
  Field<D> velocities(std::span<const double> state, double* adjoint = nullptr) const;
  // Uses the derived adjoint for the spring kernel instead of its hand-written one (for tests).
  void use_derived_spring_adjoint(bool derived) { derived_spring_adjoint_ = derived; }

 private:
  SpringForce<D> spring_body(Field<D> x, Field<D> v);
  Integrate<D> integrate_body(Field<D> x, Field<D> v, Field<D> x_next, Field<D> v_next);
  ExpandActuation actuation_body();
  void forces(int t, Field<D> x, Field<D> v);

  MassSpringModel<D>& model_;
  Kernel expand_actuation_;
  Kernel spring_forces_;
  Kernel integrate_;
  Array<1> actuator_signal_;  // this step's actuator signals, plus a trailing zero
  Array<1> spring_signal_;
  Array<D> end_force_;
  Array<D> node_force_;
  bool derived_spring_adjoint_ = false;
};

extern template class MassSpring<2>;
extern template class MassSpring<3>;

}  // namespace simgrad::softbody
