// MLS-MPM (Hu et al. 2018) as a differentiable system, in 2D and 3D.
//
// A step is a table of stages (kStages, core/stages.hpp):
//   1. actuation        step t's actuator signals (controls, or a controller) -> per particle
//   2. particle_stress  F <- (I + dt C) F, return mapping, stress -> affine momentum Q, mass
//                       (a kernel over particles, stress.hpp)
//   3. bin              particles sorted by base cell (bins.hpp; nothing to differentiate)
//   4. particles_to_grid  node mass and momentum, a gather per node (transfer.hpp)
//   5. grid_update      node velocities: gravity, walls, colliders (a kernel over nodes)
//   6. grid_to_particle v, C, x of the next state (a kernel over particles)
// The adjoint replays stages 1 to 5 from s_t (what the adjoints read), then walks the table
// back. Every adjoint is derived (core/kernel.hpp) but the grid velocities' adjoint of stage 6,
// which is the transpose of a linear map (transfer.hpp). The state is, per particle,
//   [positions (N x D), velocities (N x D), C (N x D^2), F (N x D^2), plastic (N)],
// the plastic scalar being J_p for snow and the log volume a sand particle lost, 0 otherwise.
// A particle whose stencil would leave the grid raises ParticleLeftGrid naming step and
// particle.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "core/kernel.hpp"
#include "core/stages.hpp"
#include "core/system.hpp"
#include "sims/control/controller.hpp"
#include "sims/mpm/bins.hpp"
#include "sims/mpm/grid_update.hpp"
#include "sims/mpm/model.hpp"
#include "sims/mpm/stress.hpp"
#include "sims/mpm/transfer.hpp"

namespace simgrad::mpm {

template <int D>
class Mpm : public System {
 public:
  static constexpr int kParticleState = 2 * D + 2 * D * D + 1;

  // Validates the model (MpmModel::validate), which must outlive the system.
  explicit Mpm(MpmModel<D>& model);

  Index state_size() const override { return kParticleState * model_.particle_count; }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override;

  MpmModel<D>& model() { return model_; }
  // Drives the actuators by `controller` (one creature, the model's actuators) instead of the
  // model's controls; null: the controls again.
  void set_controller(control::Controller* controller);

  // Views of a state's parts (adjoint may be null).
  Field<D> positions(std::span<const double> state, double* adjoint = nullptr) const;
  Field<D> velocities(std::span<const double> state, double* adjoint = nullptr) const;
  Field<D * D> affine_velocities(std::span<const double> state, double* adjoint = nullptr) const;
  Field<D * D> deformations(std::span<const double> state, double* adjoint = nullptr) const;
  Field<1> plastic(std::span<const double> state, double* adjoint = nullptr) const;
  // The grid's node masses and velocities after the last step run (or replayed).
  std::span<const double> grid_mass() const { return grid_mass_.values(); }
  std::span<const double> grid_velocity() const { return grid_velocity_.values(); }

 private:
  // One step's fields: s_t and s_{t+1} (values and, in the adjoint pass, adjoints).
  struct StepFields {
    int t;
    std::span<const double> state;
    std::span<double> state_adjoint;  // empty in the forward pass
    Field<D> x, v;
    Field<D * D> c, f;
    Field<1> plastic;
    Field<D> x_next, v_next;
    Field<D * D> c_next, f_next;
    Field<1> plastic_next;
  };
  static const std::array<Stage<Mpm, StepFields>, 6> kStages;
  void actuation(const StepFields& f);
  void actuation_adjoint(const StepFields& f);
  void particle_stress(const StepFields& f);
  void particle_stress_adjoint(const StepFields& f);
  void bin(const StepFields& f);
  void bin_adjoint(const StepFields&) {}
  void particles_to_grid(const StepFields& f);
  void particles_to_grid_adjoint(const StepFields& f);
  void grid_update(const StepFields& f);
  void grid_update_adjoint(const StepFields& f);
  void grid_to_particle(const StepFields& f);
  void grid_to_particle_adjoint(const StepFields& f);
  bool always(const StepFields&) const { return true; }

  StepFields fields(int t, std::span<const double> state, std::span<double> state_adjoint, double* next,
                    double* next_adjoint) const;
  ParticleStress<D> stress_body(const StepFields& f);
  GridUpdate<D> grid_body();
  // The particles' signals of step t into signal_ (zero for passive particles).
  void expand_signals(int t, std::span<const double> state);

  MpmModel<D>& model_;
  control::Controller* controller_ = nullptr;
  ParticleBins<D> bins_;
  Kernel stress_, pairing_, grid_, g2p_;
  Array<1> signal_;                  // per particle, this step's
  std::vector<double> actuator_signal_, actuator_adjoint_;  // per actuator
  Array<D * D> affine_;              // per particle, Q
  Array<1> mass_;                    // per particle
  Array<1> grid_mass_;               // per node
  Array<D> grid_momentum_, grid_velocity_;
  std::vector<double> replayed_;     // the adjoint's replay writes its next state here
};

extern template class Mpm<2>;
extern template class Mpm<3>;

}  // namespace simgrad::mpm
