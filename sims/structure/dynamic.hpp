// The dynamic mode for the game view: the same structure as a mass-spring network (each member
// a spring of stiffness E A / L with a stiffness-proportional dashpot, each joint carrying half
// of its members' mass) under gravity and a vehicle crossing the deck, with members that break
// past a strain threshold. A member's health h in [0, 1] is part of the state and scales its
// force; each step multiplies it by a sigmoid of the strain margin (smoothed for gradients) or by
// a 0/1 step (the hard twin), so a broken member stays broken. Semi-implicit Euler; the adjoint
// is derived per member on the local tape and written by hand for the integration.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/system.hpp"
#include "sims/structure/truss_model.hpp"

namespace simgrad::structure {

struct DynamicSettings {
  double dt = 1e-3;
  int steps = 1000;
  double damping = 1e-3;       // dashpot per unit stiffness (s): Rayleigh's beta
  double break_strain = 5e-3;  // a member breaks past this strain, tension or compression
  double break_width = 1e-4;   // of the sigmoid, in strain; 0: the hard twin
  double joint_mass = 0.0;     // added to every joint (deck, fittings)
  std::array<double, 3> gravity{};
  std::vector<int> deck;       // joints the vehicle crosses, in order
  double vehicle_load = 0.0;   // force of the vehicle, straight down along the last axis
  double vehicle_speed = 0.0;  // along the deck, length per second

  // A copy with members that break at their hard twin (break width 0: a 0/1 step).
  DynamicSettings hard_twin() const {
    DynamicSettings hard = *this;
    hard.break_width = 0.0;
    return hard;
  }
};

// Why the dynamic mode cannot run a model (it takes trusses of sized members); empty if it can.
std::string dynamic_unsupported(const TrussModel& model);

// A truss (2D or 3D) in motion. Tuned values: member areas, read from the design at construction
// and through set_areas(); area_adjoints() holds d loss / d area after a backward pass.
class DynamicTruss final : public System {
 public:
  DynamicTruss(const TrussModel& model, const Design& design, DynamicSettings settings);

  Index state_size() const override { return 2 * dim_ * joints_ + members_; }
  void initial_state(std::span<double> state) override;
  void initial_state_adjoint(std::span<const double> state_adjoint) override;
  void step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) override;
  void step_adjoint(int t, std::span<const double> state, std::span<const double> residual,
                    std::span<const double> next_adjoint, std::span<double> state_adjoint) override;
  void clear_adjoints() override;

  // Replaces the member areas (and so the stiffnesses and joint masses).
  void set_areas(std::span<const double> areas);
  std::span<const double> area_adjoints() const { return area_adjoint_; }
  const DynamicSettings& settings() const { return settings_; }
  int dimension() const { return dim_; }
  int joint_count() const { return joints_; }
  int member_count() const { return members_; }
  // Rest positions, joint by joint.
  const std::vector<double>& rest_positions() const { return rest_; }
  const std::vector<int>& deck() const { return settings_.deck; }

 private:
  // The vehicle's force on each joint at step t (zero off the deck).
  void vehicle_forces(int t, std::vector<double>& force) const;
  // Joint masses from the areas: each member puts half its mass on each end.
  void update_masses();

  const TrussModel* model_;
  DynamicSettings settings_;
  int dim_, joints_, members_;
  std::vector<double> rest_;         // joint positions at rest
  std::vector<double> rest_length_;  // per member
  std::vector<double> area_, area_adjoint_;
  std::vector<double> mass_;         // per joint
  std::vector<bool> held_;           // per joint and axis: a support holds it still
  std::vector<double> deck_along_;   // distance along the deck at each deck joint
  // Scratch, sized once.
  std::vector<double> force_, member_force_, member_health_, vehicle_;
};

// Scores a dynamic run of the truss's settings().steps steps: the members broken at the end,
// plus the mean square deflection of the deck joints along the last axis over a limit. Relaxed
// health counts fractionally.
class DynamicScore final : public TrajectoryLoss {
 public:
  DynamicScore(const DynamicTruss& truss, double broken_weight, double deflection_weight, double deflection_limit);

  bool has_term(int t, int steps) const override;
  double term(int t, std::span<const double> state) override;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override;

  // The members whose health is below one half in a state.
  int broken(std::span<const double> state) const;

 private:
  const DynamicTruss* truss_;
  double broken_weight_, deflection_weight_, limit_;
};

// A dynamic run of a design, scored by DynamicScore with unit weights and the deck's deflection
// limit: relaxed (the settings' break width), on the hard twin (break width 0), and the members
// broken at the end of the hard run.
struct DynamicRunScores {
  double relaxed = 0.0;
  double hard = 0.0;
  int broken_members = 0;
};
DynamicRunScores score_dynamic_run(const TrussModel& model, const Design& design, const DynamicSettings& settings,
                                   double deflection_limit);

}  // namespace simgrad::structure
