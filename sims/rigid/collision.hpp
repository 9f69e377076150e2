// Collision geometry: for a pair of geoms, the points where they touch or nearly touch, each with
// the normal from the first geom to the second and the signed distance along it (negative when
// they overlap). Written for the pairs the standard models need; the contact force law
// (contact_force.hpp) turns these points into forces.
//
//   plane    - sphere, capsule, ellipsoid, box (8 corners), cylinder (4 rim points per cap)
//   sphere   - sphere, capsule, box;  capsule - capsule
//   box      - box (each box's corners against the other), capsule (its end spheres and the
//              sphere at its axis point nearest the box), cylinder (per cap, the disk against the
//              box beside its rim, or the rim points facing the box)
// A capsule is a segment with a radius, so its pairs are those of its closest points. Against a
// box, every shape is reduced to spheres and points (spheres of radius 0) tested against the box:
// vertex-face and edge-face contact is exact, edge-edge contact between two boxes is missed
// (a penalty method recovers from it through the next corner that enters), which is the price of
// one short, branch-light routine for the machines' blocks, rods and wheels against steps and loads.
#pragma once

#include <algorithm>
#include <array>
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
  if (a == GeomType::kCapsule) return b == GeomType::kCapsule || b == GeomType::kBox;
  return (a == GeomType::kCylinder || a == GeomType::kBox) && b == GeomType::kBox;
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

// Corner `corner` (bits 0-2: the sign along each axis) of the box of half sizes `half` at f.
template <class S>
Vec3<S> box_corner(const GeomFrame<S>& f, const double* half, int corner) {
  Vec3<S> x = f.pos;
  for (int k = 0; k < 3; ++k) x += ((corner >> k & 1) ? half[k] : -half[k]) * f.axis(k);
  return x;
}

// The point of box g nearest `local` (a point in the box's frame), in the box's frame, and
// whether the point is inside the box.
template <class S>
Vec3<S> box_clamp(const Geom& g, Vec3<S> local, bool& inside) {
  inside = true;
  for (int k = 0; k < 3; ++k) {
    if (value_of(local.c[k]) > g.size[k]) local.c[k] = S(g.size[k]), inside = false;
    if (value_of(local.c[k]) < -g.size[k]) local.c[k] = S(-g.size[k]), inside = false;
  }
  return local;
}

// The point of box g (frame f) nearest the world point x, in the world.
template <class S>
Vec3<S> box_nearest(const Geom& g, const GeomFrame<S>& f, const Vec3<S>& x, bool& inside) {
  return f.pos + f.rot * box_clamp(g, transpose_times(f.rot, x - f.pos), inside);
}

// A sphere (centre x, radius r; r = 0 for a point) against box g at f: one point midway between
// the surfaces, the normal from the sphere to the box. Outside the box, along the line to its
// nearest surface point (measured in the box's frame, where a point beyond a face is beyond it by
// a non-zero amount); inside, out through the nearest face.
template <class S, class Emit>
void sphere_box(const Vec3<S>& x, double r, const Geom& g, const GeomFrame<S>& f, const Emit& emit) {
  const Vec3<S> local = transpose_times(f.rot, x - f.pos);
  bool inside = false;
  const Vec3<S> clamped = box_clamp(g, local, inside);
  if (!inside) {
    const Vec3<S> beyond = local - clamped;
    const S len = norm(beyond);
    const Vec3<S> out = (f.rot * beyond) / len;  // from the box to the sphere
    emit(f.pos + f.rot * clamped + (0.5 * (len - r)) * out, -1.0 * out, len - r);
    return;
  }
  int face = 0;
  double depth = INFINITY;
  for (int k = 0; k < 3; ++k) {
    const double gap = g.size[k] - std::abs(value_of(local.c[k]));
    if (gap < depth) depth = gap, face = k;
  }
  const double sign = value_of(local.c[face]) >= 0.0 ? 1.0 : -1.0;
  const Vec3<S> n = (-sign) * f.axis(face);
  const S d = -(S(g.size[face]) - sign * local.c[face]) - r;
  emit(x + (r + 0.5 * d) * n, n, d);
}

// The fraction along segment [p, q] of its point nearest box g (frame f). In the box's frame the
// segment is a + s b, and its squared distance to the box is a convex piecewise quadratic in s,
// whose pieces end where a coordinate crosses a face plane: the least of each piece's minimum is
// the answer. It is a stationary point of one piece (returned as a function of the geometry, so
// that the contact point's motion is on the tape), an end of the segment, or, where the segment
// passes through the box, the middle of its stretch inside.
template <class S>
S segment_box_fraction(const Vec3<S>& p, const Vec3<S>& q, const Geom& g, const GeomFrame<S>& f) {
  const Vec3<S> a = transpose_times(f.rot, p - f.pos), b = transpose_times(f.rot, q - p);
  std::array<double, 3> av{}, bv{};
  for (std::size_t k = 0; k < 3; ++k) av[k] = value_of(a.c[k]), bv[k] = value_of(b.c[k]);
  std::array<double, 8> cuts{0.0, 1.0};
  std::size_t count = 2;
  for (std::size_t k = 0; k < 3; ++k) {
    if (bv[k] == 0.0) continue;
    for (double side : {-1.0, 1.0}) {
      const double t = (side * g.size[k] - av[k]) / bv[k];
      if (t > 0.0 && t < 1.0) cuts[count++] = t;
    }
  }
  for (std::size_t i = 1; i < count; ++i)  // insertion sort: at most eight
    for (std::size_t j = i; j > 0 && cuts[j] < cuts[j - 1]; --j) std::swap(cuts[j], cuts[j - 1]);
  // Each piece: the faces it lies beyond (side_k = +-1, 0 within the slab) and its quadratic
  // sum_k (a_k + s b_k - side_k h_k)^2 over those faces.
  double best = INFINITY, best_s = 0.0;
  std::array<double, 3> best_sides{};
  bool stationary = false;
  for (std::size_t i = 0; i + 1 < count; ++i) {
    const double lo = cuts[i], hi = cuts[i + 1], mid = 0.5 * (lo + hi);
    if (!(hi > lo)) continue;
    std::array<double, 3> sides{};
    double num = 0.0, den = 0.0;
    for (std::size_t k = 0; k < 3; ++k) {
      const double x = av[k] + mid * bv[k];
      sides[k] = x > g.size[k] ? 1.0 : x < -g.size[k] ? -1.0 : 0.0;
      if (sides[k] == 0.0) continue;
      num += bv[k] * (av[k] - sides[k] * g.size[k]);
      den += bv[k] * bv[k];
    }
    const double free_s = den > 0.0 ? -num / den : mid;
    const double s = std::clamp(free_s, lo, hi);
    double distance2 = 0.0;
    for (std::size_t k = 0; k < 3; ++k)
      if (sides[k] != 0.0) distance2 += (av[k] + s * bv[k] - sides[k] * g.size[k]) * (av[k] + s * bv[k] - sides[k] * g.size[k]);
    if (distance2 < best) best = distance2, best_s = s, best_sides = sides, stationary = den > 0.0 && s == free_s;
  }
  if (!stationary || best_s == 0.0 || best_s == 1.0) return S(best_s);
  S num(0.0), den(0.0);
  for (std::size_t k = 0; k < 3; ++k) {
    if (best_sides[k] == 0.0) continue;
    num = num + b.c[k] * (a.c[k] - best_sides[k] * g.size[k]);
    den = den + b.c[k] * b.c[k];
  }
  return -num / den;
}

// Cylinder g at f against a surface whose normal toward the cylinder is n: on each cap (side -1
// or +1; 0 for both), the rim point deepest along -n and three more a quarter turn apart (so an
// upright cylinder stands on its rim), each passed to visit(point).
template <class S, class Visit>
void cylinder_rim(const Geom& g, const GeomFrame<S>& f, const Vec3<S>& n, int cap, const Visit& visit) {
  const Vec3<S> z = f.axis(2);
  Vec3<S> radial = n - dot(n, z) * z;
  S length = norm(radial);
  if (value_of(length) < 1e-9) {
    radial = f.axis(0);
    length = S(1.0);
  }
  const Vec3<S> u = radial / length, v = cross(z, u);
  for (double side : {-1.0, 1.0}) {
    if (cap != 0 && side != cap) continue;
    for (int k = 0; k < 4; ++k) {
      const double cu = k == 0 ? -1.0 : k == 2 ? 1.0 : 0.0, cv = k == 1 ? 1.0 : k == 3 ? -1.0 : 0.0;
      visit(f.pos + (side * g.size[1]) * z + (g.size[0] * cu) * u + (g.size[0] * cv) * v);
    }
  }
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
        for (int corner = 0; corner < 8; ++corner) point(box_corner(fb, gb.size, corner), 0.0);
        return;
      case GeomType::kCylinder:
        cylinder_rim(gb, fb, n, 0, [&](const Vec3<S>& x) { point(x, 0.0); });
        return;
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
  if (ga.type == GeomType::kSphere && gb.type == GeomType::kBox) return sphere_box(fa.pos, ra, gb, fb, emit);
  if (ga.type == GeomType::kCapsule && gb.type == GeomType::kBox) {
    // The end spheres, and the sphere at the axis point nearest the box unless it lies within a
    // radius of an end (a rod across a step's edge touches there, not at its ends).
    Vec3<S> p, q;
    segment_ends(fa, ga.size[1], p, q);
    sphere_box(p, ra, gb, fb, emit);
    sphere_box(q, ra, gb, fb, emit);
    const S f = segment_box_fraction(p, q, gb, fb);
    const double margin = ra / (2.0 * ga.size[1]);
    if (value_of(f) > margin && value_of(f) < 1.0 - margin) sphere_box(p + f * (q - p), ra, gb, fb, emit);
    return;
  }
  if (ga.type == GeomType::kCylinder && gb.type == GeomType::kBox) {
    // Per cap: where the box lies beside the rim (its point nearest the cap's centre within about
    // 11 degrees of the cap's plane: a wheel on a face or against an edge along its axle), the
    // cap's disk meets it as a sphere of the wheel's radius would, so the push runs from the
    // contact to the axle, rising smoothly as a wheel rolls over a step's edge; otherwise (a cap
    // facing the box, or its centre inside) the rim points facing the box.
    const Vec3<S> z = fa.axis(2);
    for (double side : {-1.0, 1.0}) {
      const Vec3<S> centre = fa.pos + (side * ga.size[1]) * z;
      bool inside = false;
      const Vec3<S> near = box_nearest(gb, fb, centre, inside);
      const Vec3<S> w = centre - near;
      if (!inside && std::abs(value_of(dot(w, z))) <= 0.2 * value_of(norm(w))) {
        sphere_box(centre, ra, gb, fb, emit);
        continue;
      }
      cylinder_rim(ga, fa, w, static_cast<int>(side), [&](const Vec3<S>& x) { sphere_box(x, 0.0, gb, fb, emit); });
    }
    return;
  }
  if (ga.type == GeomType::kBox && gb.type == GeomType::kBox) {
    // Each box's corners against the other; b's corners push from b to a, so their normals turn.
    for (int corner = 0; corner < 8; ++corner) sphere_box(box_corner(fa, ga.size, corner), 0.0, gb, fb, emit);
    for (int corner = 0; corner < 8; ++corner)
      sphere_box(box_corner(fb, gb.size, corner), 0.0, ga, fa,
                 [&emit](const Vec3<S>& x, const Vec3<S>& n, const S& d) { emit(x, -1.0 * n, d); });
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
