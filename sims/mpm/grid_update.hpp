// The grid stage of a step: each node's velocity from its momentum and mass, gravity, then the
// walls of the domain and the static colliders (model.hpp says what each kind of wall does):
//   v = p / m + dt g   (v = 0 on a node without mass).
// A separating wall's contact is relaxed with sharpness beta > 0 (per unit speed): the normal
// speed removed is softplus(-v_n) and the tangential speed max(0, |v_t| + mu v_n) becomes
// softplus(|v_t| - mu removed); beta <= 0 gives the hard twin. Sticky and slip walls are hard.
#pragma once

#include <cmath>

#include "core/kernel.hpp"
#include "sims/mpm/model.hpp"

namespace simgrad::mpm {

// Applies a wall of outward normal n to the node velocity v.
template <class S, int D>
void apply_wall(Vec<S, D>& v, const Vec<double, D>& n, const Wall& wall, double beta) {
  using std::sqrt;
  const S vn = dot(v, n);
  switch (wall.kind) {
    case WallKind::kSticky:
      if (vn < 0.0) v = Vec<S, D>::zero();
      return;
    case WallKind::kSlip:
      v = v - vn * n;
      return;
    case WallKind::kSeparating:
      break;
  }
  if (beta > 0.0) {
    const S removed = relax::softplus(-vn, beta);
    const Vec<S, D> vt = v - vn * n;
    Vec<S, D> out = vt;
    if (wall.friction > 0.0) {
      const S lt = sqrt(dot(vt, vt) + 1e-20);
      out = (relax::softplus(lt - wall.friction * removed, beta) / lt) * vt;
    }
    v = out + (vn + removed) * n;
    return;
  }
  if (!(vn < 0.0)) return;
  const Vec<S, D> vt = v - vn * n;
  const S lt2 = dot(vt, vt);
  if (wall.friction <= 0.0 || lt2 == 0.0) {
    v = vt;
    return;
  }
  const S lt = sqrt(lt2);
  if (lt + wall.friction * vn <= 0.0) v = Vec<S, D>::zero();
  else v = (1.0 + wall.friction * vn / lt) * vt;
}

// Whether the point x is inside the collider; if so, its outward normal there.
template <int D>
bool inside(const Collider<D>& c, const Vec<double, D>& x, Vec<double, D>& normal) {
  const Vec<double, D> r = x - c.centre;
  if (c.shape == ColliderShape::kSphere) {
    const double length = norm(r);
    if (length >= c.radius) return false;
    normal = length > 0.0 ? (1.0 / length) * r : Vec<double, D>::unit(D - 1);
    return true;
  }
  int axis = 0;
  double closest = -INFINITY;
  for (int d = 0; d < D; ++d) {
    const double q = std::abs(r[d]) - c.half_extent[d];
    if (q >= 0.0) return false;
    if (q > closest) {
      closest = q;
      axis = d;
    }
  }
  normal = Vec<double, D>::zero();
  normal[axis] = r[axis] >= 0.0 ? 1.0 : -1.0;
  return true;
}

template <int D>
struct GridUpdate {
  Field<1> mass;
  Field<D> momentum;
  Field<D> velocity;  // out
  const MpmSettings<D>* settings = nullptr;

  template <class E>
  void operator()(E& e) const {
    using S = typename E::Scalar;
    const MpmSettings<D>& s = *settings;
    const S m = e.own(mass);
    if (!(m > 0.0)) {
      e.write(velocity, Vec<S, D>::zero());
      return;
    }
    Vec<S, D> v = (1.0 / m) * e.own(momentum) + s.dt * s.gravity;
    Index rest = e.index();
    Vec<int, D> node;
    for (int d = 0; d < D; ++d) {
      node[d] = static_cast<int>(rest % s.nodes[d]);
      rest /= s.nodes[d];
    }
    for (int d = 0; d < D; ++d) {
      if (node[d] < s.bound) apply_wall(v, Vec<double, D>::unit(d), s.walls[2 * d], s.boundary_sharpness);
      if (node[d] > s.nodes[d] - 1 - s.bound) apply_wall(v, -Vec<double, D>::unit(d), s.walls[2 * d + 1], s.boundary_sharpness);
    }
    if (!s.colliders.empty()) {
      Vec<double, D> x, n;
      for (int d = 0; d < D; ++d) x[d] = node[d] * s.dx;
      for (const Collider<D>& c : s.colliders)
        if (inside(c, x, n)) apply_wall(v, n, c.wall, s.boundary_sharpness);
    }
    e.write(velocity, v);
  }
};

}  // namespace simgrad::mpm
