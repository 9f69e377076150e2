// Losses over mass-spring trajectories, each a kernel so its gradient is derived like the step's.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/kernel.hpp"
#include "core/system.hpp"
#include "sims/softbody/mass_spring.hpp"

namespace simgrad::softbody {

// (|area of the triangle of nodes a, b, c| - target)^2 at the last step (2D).
class TriangleAreaLoss : public TrajectoryLoss {
 public:
  TriangleAreaLoss(MassSpring<2>& system, std::array<std::int32_t, 3> nodes, double target_area);

  bool has_term(int t, int steps) const override { return t == steps; }
  double term(int t, std::span<const double> state) override;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override;
  // The triangle's area in a state.
  double area(std::span<const double> state) const;

 private:
  struct Body;
  MassSpring<2>& system_;
  Incidence triangle_;
  Kernel kernel_;
  double target_;
};

// Mean squared distance between marker nodes and their reference positions, summed over the
// frames of a reference trajectory recorded every `stride` steps (frame f is step f * stride).
template <int D>
class TrajectoryMatchLoss : public TrajectoryLoss {
 public:
  // reference: frames x markers x D values; markers: the node each marker is attached to.
  TrajectoryMatchLoss(MassSpring<D>& system, std::vector<std::int32_t> markers, int stride,
                      std::vector<double> reference);
  // The same for any system whose state starts with the positions of `node_count` nodes.
  TrajectoryMatchLoss(Index node_count, std::vector<std::int32_t> markers, int stride, std::vector<double> reference);
  // One process's part of the loss of a split model whose markers are all its nodes in order:
  // the terms of its own nodes (reference: frames x own nodes x D, of a part holding node_count
  // nodes), added in the whole model's order (collective).
  TrajectoryMatchLoss(const Subdomain& nodes, Index node_count, int stride, std::vector<double> reference);

  bool has_term(int t, int steps) const override;
  double term(int t, std::span<const double> state) override;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override;

  int frames() const { return frames_; }
  // Records the markers' positions in a state as a frame of a reference trajectory.
  void append_frame(std::span<const double> state, std::vector<double>& reference) const;

 private:
  struct Body;
  Body body(int t, std::span<const double> state, double* adjoint) const;

  Index node_count_;
  Incidence markers_;
  int stride_;
  int frames_;
  std::vector<double> reference_;
  Kernel kernel_;
  double weight_;  // 1 / (markers * frames)
};

extern template class TrajectoryMatchLoss<2>;
extern template class TrajectoryMatchLoss<3>;

}  // namespace simgrad::softbody
