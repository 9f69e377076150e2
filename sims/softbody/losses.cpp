#include "sims/softbody/losses.hpp"

#include <cmath>
#include <stdexcept>

namespace simgrad::softbody {

struct TriangleAreaLoss::Body {
  Field<2> x;
  double target;
  std::array<FieldRef, 1> gathered() const { return {x}; }
  template <class E>
  typename E::Scalar operator()(E& e) const {
    using S = typename E::Scalar;
    using std::abs;
    const S area = 0.5 * abs(cross(e.slot(x, 1) - e.slot(x, 0), e.slot(x, 2) - e.slot(x, 0)));
    return (area - target) * (area - target);
  }
};

TriangleAreaLoss::TriangleAreaLoss(MassSpring<2>& system, std::array<std::int32_t, 3> nodes, double target_area)
    : system_(system),
      triangle_(3, {nodes[0], nodes[1], nodes[2]}, system.model().node_count),
      kernel_("triangle_area_loss", &triangle_),
      target_(target_area) {}

double TriangleAreaLoss::term(int, std::span<const double> state) {
  return kernel_.sum(Body{system_.positions(state), target_});
}

void TriangleAreaLoss::term_adjoint(int, std::span<const double> state, double seed, std::span<double> state_adjoint) {
  kernel_.sum_adjoint(Body{system_.positions(state, state_adjoint.data()), target_}, seed);
}

double TriangleAreaLoss::area(std::span<const double> state) const {
  const Field<2> x = system_.positions(state);
  auto p = [&](int s) { return load<double, 2>(x.value, triangle_.node(0, s)); };
  return 0.5 * std::abs(cross(p(1) - p(0), p(2) - p(0)));
}

template <int D>
struct TrajectoryMatchLoss<D>::Body {
  Field<D> x;
  Field<D> reference;  // this frame's marker positions
  double weight;
  std::array<FieldRef, 1> gathered() const { return {x}; }
  template <class E>
  typename E::Scalar operator()(E& e) const {
    const auto d = e.slot(x, 0) - e.own(reference);
    return weight * dot(d, d);
  }
};

template <int D>
TrajectoryMatchLoss<D>::TrajectoryMatchLoss(MassSpring<D>& system, std::vector<std::int32_t> markers, int stride,
                                            std::vector<double> reference)
    : TrajectoryMatchLoss(system.model().node_count, std::move(markers), stride, std::move(reference)) {}

template <int D>
TrajectoryMatchLoss<D>::TrajectoryMatchLoss(Index node_count, std::vector<std::int32_t> markers, int stride,
                                            std::vector<double> reference)
    : node_count_(node_count),
      markers_(1, std::move(markers), node_count),
      stride_(stride),
      reference_(std::move(reference)),
      kernel_("trajectory_match_loss", &markers_) {
  const Index per_frame = markers_.elements() * D;
  if (stride < 1 || per_frame == 0 || reference_.size() % static_cast<std::size_t>(per_frame) != 0)
    throw std::invalid_argument("trajectory match: reference is not frames x markers x D values");
  frames_ = static_cast<int>(static_cast<Index>(reference_.size()) / per_frame);
  weight_ = 1.0 / (static_cast<double>(markers_.elements()) * frames_);
}

namespace {
// 0, 1, ..., count - 1.
std::vector<std::int32_t> first_nodes(Index count) {
  std::vector<std::int32_t> nodes(static_cast<std::size_t>(count));
  for (Index k = 0; k < count; ++k) nodes[static_cast<std::size_t>(k)] = static_cast<std::int32_t>(k);
  return nodes;
}
}  // namespace

template <int D>
TrajectoryMatchLoss<D>::TrajectoryMatchLoss(const Subdomain& nodes, Index node_count, int stride,
                                            std::vector<double> reference)
    : TrajectoryMatchLoss(node_count, first_nodes(nodes.owned()), stride, std::move(reference)) {
  kernel_.split_over(nodes);
  weight_ = 1.0 / (static_cast<double>(nodes.total()) * frames_);
}

template <int D>
bool TrajectoryMatchLoss<D>::has_term(int t, int) const {
  return t % stride_ == 0 && t / stride_ < frames_;
}

template <int D>
typename TrajectoryMatchLoss<D>::Body TrajectoryMatchLoss<D>::body(int t, std::span<const double> state,
                                                                   double* adjoint) const {
  const Index frame = t / stride_;
  const Index m = markers_.elements();
  Field<D> reference{const_cast<double*>(reference_.data()) + frame * m * D, nullptr, m};
  return {Field<D>{const_cast<double*>(state.data()), adjoint, node_count_}, reference, weight_};
}

template <int D>
double TrajectoryMatchLoss<D>::term(int t, std::span<const double> state) {
  return kernel_.sum(body(t, state, nullptr));
}

template <int D>
void TrajectoryMatchLoss<D>::term_adjoint(int t, std::span<const double> state, double seed,
                                          std::span<double> state_adjoint) {
  kernel_.sum_adjoint(body(t, state, state_adjoint.data()), seed);
}

template <int D>
void TrajectoryMatchLoss<D>::append_frame(std::span<const double> state, std::vector<double>& reference) const {
  for (Index k = 0; k < markers_.elements(); ++k)
    for (int c = 0; c < D; ++c) reference.push_back(state[markers_.node(k, 0) * D + c]);
}

template class TrajectoryMatchLoss<2>;
template class TrajectoryMatchLoss<3>;

}  // namespace simgrad::softbody
