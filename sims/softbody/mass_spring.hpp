// The mass-spring soft body as a differentiable system.
//
// A step is a table of stages (kStages, core/stages.hpp), each a kernel:
//   1. expand_actuation   actuator signals of step t -> per-spring signals   (if actuated)
//   2. spring_forces      spring forces from positions and velocities, summed into node forces
//   3. integrate          semi-implicit Euler, drag, gravity, contact  -> next state
// The step's residual is the node force and, per node and penalty plane, the normal contact
// force and its slope; the adjoint takes them from the rollout or, when the rollout has none,
// replays stage 2 and recomputes the contact. It always replays stage 1 (the springs' adjoint
// reads the signals), then walks the table back: the adjoints of 3, 2, 1 in that order.
// The state is [positions (n x D), velocities (n x D)].
//
// Split over processes (mass_spring_part.hpp), a system runs one part: stage 3 runs on its own
// nodes; after the step the ghosts' positions and velocities are copied from their owners, and
// in the adjoint pass, after stage 3's adjoint, the adjoints of the ghosts' forces (which the
// springs between parts read). Gravity's adjoint and the losses' sums add every process's
// blocks in the whole model's order (Kernel::split_over), so results are the whole model's bits.
#pragma once

#include <array>
#include <exception>
#include <span>

#include "core/kernel.hpp"
#include "core/stages.hpp"
#include "core/subdomain.hpp"
#include "core/system.hpp"
#include "sims/softbody/integrate.hpp"
#include "sims/softbody/mass_spring_model.hpp"
#include "sims/softbody/mass_spring_part.hpp"
#include "sims/softbody/spring_force.hpp"

namespace simgrad::softbody {

template <int D>
class MassSpring : public System {
 public:
  explicit MassSpring(MassSpringModel<D>& model);
  // A system of one process's part of a split model (keeps references to both). With `whole`
  // (the whole model, which tuning writes its parameters to), every rollout starts from the
  // whole model's parameters and ends by handing every process the whole model's parameter
  // adjoints, each from the process that owns it (a spring's: its first end's owner). Collective.
  MassSpring(MassSpringPart<D>& part, const Subdomain& subdomain, MassSpringModel<D>* whole = nullptr);

  Index state_size() const override { return 2 * D * model_.node_count; }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  Index residual_size() const override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override;
  const Subdomain* subdomain() const override { return split_; }
  const ProcessSplit* split() const override { return split_; }

  MassSpringModel<D>& model() { return model_; }
  // Positions and velocities of a state as fields (adjoint may be null).
  Field<D> positions(std::span<const double> state, double* adjoint = nullptr) const;
  Field<D> velocities(std::span<const double> state, double* adjoint = nullptr) const;
  // Uses the derived adjoints of the spring and integrate kernels instead of their hand-written
  // ones (for tests that compare the two).
  void use_derived_adjoints(bool derived) { derived_adjoints_ = derived; }

 private:
  // What the stages of one step read and write: step t's state and next state as fields (with
  // their adjoints in the adjoint pass), the node forces and the step's residual.
  struct StepFields {
    int t;
    Field<D> x, v, force, x_next, v_next;
    std::span<const double> residual;
  };
  // The step's stages in order; both step() and step_adjoint() walk it.
  static const std::array<Stage<MassSpring, StepFields>, 3> kStages;
  // Stage 1: the per-spring actuation signals of step t (none without actuators).
  void expand_actuation(const StepFields& f);
  void expand_actuation_adjoint(const StepFields& f);
  // Stage 2: the node forces.
  void spring_forces(const StepFields& f);
  void spring_forces_adjoint(const StepFields& f);
  // Stage 3: the next state.
  void integrate(const StepFields& f);
  void integrate_adjoint(const StepFields& f);
  // When the adjoint replays a stage: always, or when the rollout kept no residual.
  bool always(const StepFields&) const { return true; }
  bool without_residual(const StepFields& f) const { return f.residual.empty(); }

  SpringForce<D> spring_body(Field<D> x, Field<D> v, Field<D> force);
  Integrate<D> integrate_body(Field<D> x, Field<D> v, Field<D> force, Field<D> x_next, Field<D> v_next,
                              std::span<const double> residual);
  int penalty_plane_count() const;
  ExpandActuation actuation_body();
  // Runs a stage's kernel; split, a non-finite error it raises waits for the end of the step
  // (every process must reach the step's exchanges), where agree_on_errors raises it.
  template <class Run>
  void deferring(const Run& run);
  // Split: raises on every process when a stage of any process deferred an error (the process's
  // own error, with the whole model's numbers, or "on another process"). Collective.
  void agree_on_errors(bool in_adjoint);
  // Split: zeroes the ghosts' entries of a state's adjoint (what the springs between parts added
  // there is their owners' to add).
  void zero_ghost_adjoints(std::span<double> state_adjoint) const;
  // Split with a whole model: its parameters into the part, and the part's adjoints gathered
  // into its adjoints.
  void take_whole_parameters();
  void give_whole_adjoints();

  MassSpringModel<D>& model_;
  Kernel expand_actuation_;
  Kernel spring_forces_;
  Kernel integrate_;
  Array<1> actuator_signal_;  // this step's actuator signals, plus a trailing zero
  Array<1> spring_signal_;
  Array<D> node_force_;
  bool derived_adjoints_ = false;
  const Subdomain* split_ = nullptr;
  const MassSpringPart<D>* part_ = nullptr;
  std::exception_ptr deferred_;  // split: a stage's error, until the end of the step
  MassSpringModel<D>* whole_ = nullptr;
  // With a whole model: its springs in the order give_whole_adjoints() gathers them (by their
  // first end's owner, then number), and how many springs and nodes each process sends.
  std::vector<std::int64_t> gathered_springs_;
  std::vector<Index> springs_sent_, nodes_sent_;
  std::vector<double> sent_, gathered_;
};

extern template class MassSpring<2>;
extern template class MassSpring<3>;

}  // namespace simgrad::softbody
