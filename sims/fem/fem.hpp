// The FEM soft body as a differentiable system.
//
// Before the first step the per-region materials are expanded to per-element Lame parameters
// (once per rollout; their adjoints are summed over the steps and folded back into the regions
// with the initial state's adjoint). A step is a table of stages (kStages, core/stages.hpp):
//   1. actuate          actuated elements' rest shapes stretched by step t's signals (if any)
//   2. elastic_forces   element stresses (material law + Rayleigh stiffness damping) summed into
//                       node forces
//   3. integrate        semi-implicit (symplectic) Euler, Rayleigh mass damping, gravity, penalty
//                       or impact contact with planes, pinned nodes (the mass-spring integrator)
// The step's residual is the node force, kept only when the adjoint needs it (impact planes);
// otherwise the adjoint never reads the forces, and a rollout keeps states alone. The adjoint
// replays stage 1 (and stage 2 when it reads forces the rollout did not keep), then walks the
// table back. The state is [positions (n x D), velocities (n x D)].
// With settings.integrator = kImplicitEuler the step is instead a backward Euler solve
// (fem_implicit.hpp), whose residual is the new velocity. A model with actuated elements
// (symplectic Euler only) first stretches their rest shapes by the step's signals, and the
// signals' adjoints go to the model's actuation row.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <vector>

#include "core/kernel.hpp"
#include "core/stages.hpp"
#include "core/system.hpp"
#include "sims/fem/force.hpp"
#include "sims/fem/implicit.hpp"
#include "sims/fem/model.hpp"
#include "sims/fem/stiffness.hpp"
#include "sims/softbody/integrate.hpp"

namespace simgrad::fem {

// Nodes move as the mass-spring body's do: symplectic Euler with contact (sims/softbody/integrate.hpp).
using softbody::Integrate;

template <int D>
class Fem : public System {
 public:
  explicit Fem(FemModel<D>& model);
  ~Fem() override;

  Index state_size() const override { return 2 * D * model_.node_count; }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  Index residual_size() const override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override;

  FemModel<D>& model() { return model_; }
  // Positions and velocities of a state as fields (adjoint may be null).
  Field<D> positions(std::span<const double> state, double* adjoint = nullptr) const;
  Field<D> velocities(std::span<const double> state, double* adjoint = nullptr) const;
  // The node forces of the elements alone (no gravity, no contact) in a state, into `force`
  // (nodes x D); expands the materials first.
  void elastic_forces(std::span<const double> state, std::span<double> force);
  // The Jacobians of the elastic forces in a state (fem_stiffness.hpp); expands the materials.
  void force_jacobians(std::span<const double> state, ForceJacobians& out);
  // Whether the elements carry a viscous (Rayleigh stiffness) stress.
  bool damped() const;
  // Kinetic, elastic and gravitational energy of a state (contact not included).
  double energy(std::span<const double> state);

 private:
  friend class ImplicitEuler<D>;
  // What the stages of one symplectic step read and write: step t's state and next state as
  // fields (with their adjoints in the adjoint pass), the node forces, the step's residual, and
  // the state and next state's adjoint as spans (for the mass damping's adjoint).
  struct StepFields {
    int t;
    Field<D> x, v, force, x_next, v_next;
    std::span<const double> residual, state, next_adjoint;
  };
  // The symplectic step's stages in order; both step() and step_adjoint() walk it.
  static const std::array<Stage<Fem, StepFields>, 3> kStages;
  void actuate_stage(const StepFields& f);
  void actuate_stage_adjoint(const StepFields& f);
  void elastic_forces_stage(const StepFields& f);
  void elastic_forces_stage_adjoint(const StepFields& f);
  void integrate_stage(const StepFields& f);
  void integrate_stage_adjoint(const StepFields& f);
  // When the adjoint replays a stage: the actuation whenever there is one; the forces when it
  // reads them and the rollout kept no residual.
  bool actuated(const StepFields&) const { return model_.actuator_count > 0; }
  bool forces_replayed(const StepFields& f) const { return f.residual.empty() && adjoint_reads_forces(); }

  // The Jacobians at positions x and velocities v with the materials as expanded.
  void force_jacobians_at(std::span<const double> x, std::span<const double> v, ForceJacobians& out);
  ElasticForce<D> force_body(Field<D> x, Field<D> v, Field<D> force);
  Integrate<D> integrate_body(Field<D> x, Field<D> v, Field<D> force, Field<D> x_next, Field<D> v_next);
  ExpandMaterial material_body();
  void mass_damping_adjoint(const Integrate<D>& integrate, std::span<const double> state,
                            std::span<const double> next_adjoint);
  void expand_materials();
  // Whether the explicit adjoint reads the node forces: only to find impact contacts and for the
  // inverse masses' adjoint.
  bool adjoint_reads_forces() const;
  // The rest inverses of step t's actuated shapes, into rest_actuated_; and their adjoints
  // folded back into the actuation row's adjoints.
  void actuate(int t);
  void actuate_adjoint(int t);
  // The actuation row step t reads.
  std::size_t actuation_offset(int t) const;

  FemModel<D>& model_;
  Kernel expand_materials_;
  Kernel elastic_forces_;
  Kernel integrate_;
  Kernel energy_;
  Array<1> mu_, lambda_, beta_;  // per element
  Array<D * D> rest_actuated_;   // per element, with actuators: Dm^-1 of this step's rest shape
  Array<D> node_force_;
  std::unique_ptr<ImplicitEuler<D>> implicit_;  // when the integrator is implicit
  std::vector<double> replay_;                   // a recomputed next state (implicit adjoint)
};

extern template class Fem<2>;
extern template class Fem<3>;

}  // namespace simgrad::fem
