// Collision geometry: for a pair of geoms, the points where they touch or nearly touch, each with
// the normal from the first geom to the second and the signed distance along it (negative when
// they overlap). Written for the pairs the standard models need; the contact force law
// (contact_force.hpp) turns these points into forces.
//
//   plane  - sphere, capsule, ellipsoid, box (8 corners), cylinder (4 rim points per cap)
//   sphere - sphere, capsule, box;  capsule - capsule
// A capsule is a segment with a radius, so its pairs are those of its closest points.
#pragma once

#include <cmath>

#include "sims/rigid/model.hpp"

namespace simgrad::rigid {

// A geom's world frame.
template <class S>
struct GeomFrame {
  Vec3<S> pos;
  Mat3<S> rot;
  // Column k of the rotation: the geom's local axis k in the world.
  Vec3<S> axis(int k) const { return {{rot.m[k], rot.m[3 + k], rot.m[6 + k]}}; }
};

// Whether collide() handles this pair of types (in either order).
inline bool collision_supported(GeomType a, GeomType b) {
  if (a > b) std::swap(a, b);
  if (a == GeomType::kPlane) return b != GeomType::kPlane;
  if (a == GeomType::kSphere) return b == GeomType::kSphere || b == GeomType::kCapsule || b == GeomType::kBox;
  return a == GeomType::kCapsule && b == GeomType::kCapsule;
}

// The point of segment [p, q] closest to x, as a fraction along it.
template <class S>
S closest_fraction(const Vec3<S>& p, const Vec3<S>& q, const Vec3<S>& x) {
  const Vec3<S> d = q - p;
  const S len2 = dot(d, d);
  if (value_of(len2) == 0.0) return S(0.0);
  const S f = dot(x - p, d) / len2;
  return value_of(f) < 0.0 ? S(0.0) : value_of(f) > 1.0 ? S(1.0) : f;
}

// Two spheres (centres a, b, radii ra, rb): one point midway between their surfaces.
template <class S, class Emit>
void sphere_sphere(const Vec3<S>& a, double ra, const Vec3<S>& b, double rb, const Emit& emit) {
  const Vec3<S> d = b - a;
  const S len = norm(d);
  if (value_of(len) == 0.0) return;  // concentric: no direction to push along
  const Vec3<S> n = d / len;
  emit(a + (0.5 * (ra + len - rb)) * n, n, len - ra - rb);
}

// The segment's end points (a capsule's or cylinder's axis), in the world.
template <class S>
void segment_ends(const GeomFrame<S>& f, double half_length, Vec3<S>& p, Vec3<S>& q) {
  const Vec3<S> z = f.axis(2);
  p = f.pos - half_length * z;
  q = f.pos + half_length * z;
}

// Closest points of segments [p1, q1] and [p2, q2] (Ericson, Real-Time Collision Detection, 5.1.9).
template <class S>
void closest_segment_points(const Vec3<S>& p1, const Vec3<S>& q1, const Vec3<S>& p2, const Vec3<S>& q2, Vec3<S>& c1,
                            Vec3<S>& c2) {
  const Vec3<S> d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  const S a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
  const S c = dot(d1, r), b = dot(d1, d2);
  const S denom = a * e - b * b;
  auto clamp01 = [](const S& x) { return value_of(x) < 0.0 ? S(0.0) : value_of(x) > 1.0 ? S(1.0) : x; };
  S s = value_of(denom) > 1e-12 * value_of(a * e) ? clamp01((b * f - c * e) / denom) : S(0.0);
  S t = (b * s + f) / e;
  if (value_of(t) < 0.0) {
    t = S(0.0);
    s = clamp01(-c / a);
  } else if (value_of(t) > 1.0) {
    t = S(1.0);
    s = clamp01((b - c) / a);
  }
  c1 = p1 + s * d1;
  c2 = p2 + t * d2;
}

// collide() for ga.type <= gb.type.
template <class S, class Emit>
void collide_ordered(const Geom& ga, const GeomFrame<S>& fa, const Geom& gb, const GeomFrame<S>& fb, const Emit& emit) {
  const double ra = ga.size[0], rb = gb.size[0];
  if (ga.type == GeomType::kPlane) {
    const Vec3<S> n = fa.axis(2);
    // A point x of geom b at distance `reach` below its surface point: distance n.(x - plane) - reach.
    auto point = [&](const Vec3<S>& x, double reach) {
      const S d = dot(n, x - fa.pos) - reach;
      emit(x - (reach + 0.5 * d) * n, n, d);
    };
    switch (gb.type) {
      case GeomType::kSphere:
        point(fb.pos, rb);
        return;
      case GeomType::kCapsule: {
        Vec3<S> p, q;
        segment_ends(fb, gb.size[1], p, q);
        point(p, rb);
        point(q, rb);
        return;
      }
      case GeomType::kEllipsoid: {
        // The lowest point: x = c - R D^2 R^T n / |D R^T n| with D the radii.
        using std::sqrt;
        Vec3<S> local = transpose_times(fb.rot, n);
        Vec3<S> scaled;
        for (int k = 0; k < 3; ++k) scaled.c[k] = gb.size[k] * gb.size[k] * local.c[k];
        S length2(0.0);
        for (int k = 0; k < 3; ++k) length2 = length2 + gb.size[k] * gb.size[k] * local.c[k] * local.c[k];
        point(fb.pos - (fb.rot * scaled) / sqrt(length2), 0.0);
        return;
      }
      case GeomType::kBox:
        for (int corner = 0; corner < 8; ++corner) {
          Vec3<S> x = fb.pos;
          for (int k = 0; k < 3; ++k) x += ((corner >> k & 1) ? gb.size[k] : -gb.size[k]) * fb.axis(k);
          point(x, 0.0);
        }
        return;
      case GeomType::kCylinder: {
        // On each cap, the rim point deepest along -n, and three more a quarter turn apart, so an
        // upright cylinder stands on its rim.
        using std::sqrt;
        const Vec3<S> z = fb.axis(2);
        Vec3<S> radial = n - dot(n, z) * z;
        S length = norm(radial);
        if (value_of(length) < 1e-9) {
          radial = fb.axis(0);
          length = S(1.0);
        }
        const Vec3<S> u = radial / length, v = cross(z, u);
        for (double side : {-1.0, 1.0})
          for (int k = 0; k < 4; ++k) {
            const double cu = k == 0 ? -1.0 : k == 2 ? 1.0 : 0.0, cv = k == 1 ? 1.0 : k == 3 ? -1.0 : 0.0;
            point(fb.pos + (side * gb.size[1]) * z + (rb * cu) * u + (rb * cv) * v, 0.0);
          }
        return;
      }
      case GeomType::kPlane:
        return;
    }
  }
  if (ga.type == GeomType::kSphere && gb.type == GeomType::kSphere) return sphere_sphere(fa.pos, ra, fb.pos, rb, emit);
  if (ga.type == GeomType::kSphere && gb.type == GeomType::kCapsule) {
    Vec3<S> p, q;
    segment_ends(fb, gb.size[1], p, q);
    const S f = closest_fraction(p, q, fa.pos);
    return sphere_sphere(fa.pos, ra, p + f * (q - p), rb, emit);
  }
  if (ga.type == GeomType::kCapsule && gb.type == GeomType::kCapsule) {
    Vec3<S> p1, q1, p2, q2, c1, c2;
    segment_ends(fa, ga.size[1], p1, q1);
    segment_ends(fb, gb.size[1], p2, q2);
    closest_segment_points(p1, q1, p2, q2, c1, c2);
    return sphere_sphere(c1, ra, c2, rb, emit);
  }
  if (ga.type == GeomType::kSphere && gb.type == GeomType::kBox) {
    // The sphere's centre in the box frame, clamped to the box; inside, the nearest face.
    const Vec3<S> local = transpose_times(fb.rot, fa.pos - fb.pos);
    Vec3<S> clamped = local;
    bool inside = true;
    for (int k = 0; k < 3; ++k) {
      if (value_of(local.c[k]) > gb.size[k]) clamped.c[k] = S(gb.size[k]), inside = false;
      if (value_of(local.c[k]) < -gb.size[k]) clamped.c[k] = S(-gb.size[k]), inside = false;
    }
    if (!inside) {
      const Vec3<S> surface = fb.pos + fb.rot * clamped;
      const Vec3<S> d = fa.pos - surface;
      const S len = norm(d);
      const Vec3<S> n = -1.0 * (d / len);  // from the sphere to the box
      emit(surface + (0.5 * (len - ra)) * (-1.0 * n), n, len - ra);
      return;
    }
    int face = 0;
    double depth = INFINITY;
    for (int k = 0; k < 3; ++k) {
      const double gap = gb.size[k] - std::abs(value_of(local.c[k]));
      if (gap < depth) depth = gap, face = k;
    }
    const double sign = value_of(local.c[face]) >= 0.0 ? 1.0 : -1.0;
    const Vec3<S> n = (-sign) * fb.axis(face);
    const S d = -(S(gb.size[face]) - sign * local.c[face]) - ra;
    emit(fa.pos + (ra + 0.5 * d) * n, n, d);
  }
}

// The contact points of geoms ga (frame fa) and gb (frame fb), passed to
// emit(point, normal from a to b, signed distance). Requires collision_supported.
template <class S, class Emit>
void collide(const Geom& ga, const GeomFrame<S>& fa, const Geom& gb, const GeomFrame<S>& fb, const Emit& emit) {
  if (ga.type <= gb.type) return collide_ordered(ga, fa, gb, fb, emit);
  collide_ordered(gb, fb, ga, fa, [&emit](const Vec3<S>& p, const Vec3<S>& n, const S& d) { emit(p, -1.0 * n, d); });
}

}  // namespace simgrad::rigid
