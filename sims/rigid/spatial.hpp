// Rotations and rigid motions for the rigid-body simulator, generic in the scalar.
//
// Quaternions are (w, x, y, z), unit, and rotate body-frame vectors into the parent frame, as in
// MuJoCo, so MJCF quaternions and MuJoCo's qpos are used as they are. A 3x3 matrix is row-major.
// Spatial vectors (motions and forces) are pairs of 3-vectors expressed in the world frame about
// the world origin (Featherstone's notation): a motion is (angular w, linear v of the body point
// at the origin), a force is (torque n about the origin, force f).
#pragma once

#include <cmath>

#include "core/local_ad.hpp"
#include "core/vec.hpp"

namespace simgrad::rigid {

template <class S>
using Vec3 = Vec<S, 3>;
template <class S>
using Quat = Vec<S, 4>;

// A 3x3 matrix, row-major.
template <class S>
struct Mat3 {
  S m[9];

  static Mat3 zero() {
    Mat3 r;
    for (S& x : r.m) x = S(0.0);
    return r;
  }
  static Mat3 identity() {
    Mat3 r = zero();
    r.m[0] = r.m[4] = r.m[8] = S(1.0);
    return r;
  }
  S& operator()(int i, int j) { return m[3 * i + j]; }
  const S& operator()(int i, int j) const { return m[3 * i + j]; }
  template <class T>
  static Mat3 from(const Mat3<T>& o) {
    Mat3 r;
    for (int i = 0; i < 9; ++i) r.m[i] = S(o.m[i]);
    return r;
  }
};

// A times v.
template <class A, class B>
Vec3<Product<A, B>> operator*(const Mat3<A>& a, const Vec3<B>& v) {
  Vec3<Product<A, B>> r;
  for (int i = 0; i < 3; ++i) r.c[i] = a.m[3 * i] * v.c[0] + a.m[3 * i + 1] * v.c[1] + a.m[3 * i + 2] * v.c[2];
  return r;
}

// A^T times v.
template <class A, class B>
Vec3<Product<A, B>> transpose_times(const Mat3<A>& a, const Vec3<B>& v) {
  Vec3<Product<A, B>> r;
  for (int i = 0; i < 3; ++i) r.c[i] = a.m[i] * v.c[0] + a.m[3 + i] * v.c[1] + a.m[6 + i] * v.c[2];
  return r;
}

// A times B.
template <class A, class B>
Mat3<Product<A, B>> operator*(const Mat3<A>& a, const Mat3<B>& b) {
  Mat3<Product<A, B>> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[3 * i + j] = a.m[3 * i] * b.m[j] + a.m[3 * i + 1] * b.m[3 + j] + a.m[3 * i + 2] * b.m[6 + j];
  return r;
}

// The Hamilton product a b.
template <class A, class B>
Quat<Product<A, B>> quat_multiply(const Quat<A>& a, const Quat<B>& b) {
  return {{a.c[0] * b.c[0] - a.c[1] * b.c[1] - a.c[2] * b.c[2] - a.c[3] * b.c[3],
           a.c[0] * b.c[1] + a.c[1] * b.c[0] + a.c[2] * b.c[3] - a.c[3] * b.c[2],
           a.c[0] * b.c[2] - a.c[1] * b.c[3] + a.c[2] * b.c[0] + a.c[3] * b.c[1],
           a.c[0] * b.c[3] + a.c[1] * b.c[2] - a.c[2] * b.c[1] + a.c[3] * b.c[0]}};
}

// The rotation matrix of a unit quaternion.
template <class S>
Mat3<S> rotation_matrix(const Quat<S>& q) {
  const S w = q.c[0], x = q.c[1], y = q.c[2], z = q.c[3];
  const S ww = w * w, xx = x * x, yy = y * y, zz = z * z;
  const S xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
  return {{ww + xx - yy - zz, 2.0 * (xy - wz), 2.0 * (xz + wy),
           2.0 * (xy + wz), ww - xx + yy - zz, 2.0 * (yz - wx),
           2.0 * (xz - wy), 2.0 * (yz + wx), ww - xx - yy + zz}};
}

// The quaternion scaled to unit length.
template <class S>
Quat<S> normalized(const Quat<S>& q) {
  using std::sqrt;
  const S n = sqrt(dot(q, q));
  return q / n;
}

// The rotation by angle about a unit axis.
template <class S>
Quat<S> axis_angle(const Vec3<S>& axis, const S& angle) {
  using std::cos;
  using std::sin;
  const S s = sin(0.5 * angle);
  return {{cos(0.5 * angle), axis.c[0] * s, axis.c[1] * s, axis.c[2] * s}};
}

// q rotated further by the body-frame rotation vector w (angle |w| about w/|w|) and renormalised:
// how a ball or free joint's orientation advances by its body-frame angular velocity times dt.
template <class S>
Quat<S> integrate_rotation(const Quat<S>& q, const Vec3<S>& w) {
  using std::sqrt;
  const S angle2 = dot(w, w);
  if (value_of(angle2) == 0.0) return q;
  const S angle = sqrt(angle2);
  return normalized(quat_multiply(q, axis_angle(w / angle, angle)));
}

// The skew matrix [a]x, with [a]x b = a x b.
template <class S>
Mat3<S> skew(const Vec3<S>& a) {
  const S z(0.0);
  return {{z, -a.c[2], a.c[1], a.c[2], z, -a.c[0], -a.c[1], a.c[0], z}};
}

// A spatial motion (angular, linear at the origin) or force (torque about the origin, force).
template <class S>
struct Spatial {
  Vec3<S> top;
  Vec3<S> bottom;

  static Spatial zero() { return {Vec3<S>::zero(), Vec3<S>::zero()}; }
  Spatial& operator+=(const Spatial& o) {
    top += o.top;
    bottom += o.bottom;
    return *this;
  }
  Spatial& operator-=(const Spatial& o) {
    top -= o.top;
    bottom -= o.bottom;
    return *this;
  }
};

template <class S>
Spatial<S> operator+(const Spatial<S>& a, const Spatial<S>& b) {
  return {a.top + b.top, a.bottom + b.bottom};
}
template <class S, class K>
Spatial<S> operator*(const K& k, const Spatial<S>& a) {
  return {k * a.top, k * a.bottom};
}

// The power of force f along motion m (a generalised force component when m is a joint axis).
template <class S>
S power(const Spatial<S>& m, const Spatial<S>& f) {
  return dot(m.top, f.top) + dot(m.bottom, f.bottom);
}

// The motion cross product v x m: how motion m, carried by a body moving with v, changes.
template <class S>
Spatial<S> motion_cross(const Spatial<S>& v, const Spatial<S>& m) {
  return {cross(v.top, m.top), cross(v.top, m.bottom) + cross(v.bottom, m.top)};
}

// The force cross product v x* f.
template <class S>
Spatial<S> force_cross(const Spatial<S>& v, const Spatial<S>& f) {
  return {cross(v.top, f.top) + cross(v.bottom, f.bottom), cross(v.top, f.bottom)};
}

// A body's inertia in the world frame about the world origin, kept as mass m, first moment
// h = m c (c the centre of mass) and the rotational inertia about the origin J = Ic - m [c]x[c]x.
template <class S>
struct SpatialInertia {
  S mass;
  Vec3<S> moment;   // h
  Mat3<S> inertia;  // J, about the origin

  static SpatialInertia zero() { return {S(0.0), Vec3<S>::zero(), Mat3<S>::zero()}; }
  SpatialInertia& operator+=(const SpatialInertia& o) {
    mass = mass + o.mass;
    moment += o.moment;
    for (int i = 0; i < 9; ++i) inertia.m[i] = inertia.m[i] + o.inertia.m[i];
    return *this;
  }
};

// The momentum I m of motion m: (J w + h x v, m v - h x w).
template <class S>
Spatial<S> operator*(const SpatialInertia<S>& I, const Spatial<S>& m) {
  return {I.inertia * m.top + cross(I.moment, m.bottom), I.mass * m.bottom - cross(I.moment, m.top)};
}

// The world-frame spatial inertia of mass m with centre c and rotational inertia Ic about c.
template <class S>
SpatialInertia<S> spatial_inertia(const S& mass, const Vec3<S>& centre, const Mat3<S>& inertia_at_centre) {
  SpatialInertia<S> I;
  I.mass = mass;
  I.moment = mass * centre;
  // J = Ic + m (|c|^2 1 - c c^T)
  const S c2 = dot(centre, centre);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      S parallel = -(mass * centre.c[i]) * centre.c[j];
      if (i == j) parallel = parallel + mass * c2;
      I.inertia.m[3 * i + j] = inertia_at_centre.m[3 * i + j] + parallel;
    }
  return I;
}

}  // namespace simgrad::rigid
