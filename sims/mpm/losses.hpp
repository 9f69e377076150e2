// Losses over MPM trajectories, at the last step: the centre of a set of particles (the mean of
// their positions c) against a target or moved along a direction, and the run-out of a pile (the
// farthest particle along an axis, a smooth maximum with temperature tau; tau <= 0: the hard max):
//   L = w_c |c - target|^2 - w_p (direction . c) + w_r (runout - target_runout)^2,
//   runout = tau log sum_p exp(x_p . e / tau).
// DiffTaichi's diffmpm loss is the progress term alone, -c_x. Reference tracks of particles are
// fitted with softbody::TrajectoryMatchLoss (a state starts with the particles' positions).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/system.hpp"
#include "core/vec.hpp"

namespace simgrad::mpm {

template <int D>
struct MpmLossSettings {
  std::vector<std::int32_t> particles;  // whose centre; empty: all
  Vec<double, D> target = Vec<double, D>::zero();
  double target_weight = 0.0;
  Vec<double, D> direction = Vec<double, D>::unit(0);
  double progress_weight = 0.0;
  int runout_axis = 0;
  double runout_target = 0.0;
  double runout_weight = 0.0;
  double runout_temperature = 0.0;
};

template <int D>
class MpmLoss final : public TrajectoryLoss {
 public:
  MpmLoss(Index particle_count, MpmLossSettings<D> settings);

  bool has_term(int t, int steps) const override { return t == steps; }
  double term(int t, std::span<const double> state) override;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override;

  const MpmLossSettings<D>& settings() const { return settings_; }
  // The centre of the loss's particles in a state.
  Vec<double, D> centre(std::span<const double> state) const;
  // The run-out in a state (its smooth maximum).
  double runout(std::span<const double> state) const;
  // The same with the hard maximum.
  double hard_runout(std::span<const double> state) const;

 private:
  Index particle_count_;
  MpmLossSettings<D> settings_;
};

extern template class MpmLoss<2>;
extern template class MpmLoss<3>;

}  // namespace simgrad::mpm
