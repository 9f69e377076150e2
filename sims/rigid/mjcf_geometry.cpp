#include "sims/rigid/mjcf_geometry.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

namespace simgrad::rigid::mjcf {

Vec3<double> unit(const Vec3<double>& v, const char* what) {
  const double n = std::sqrt(dot(v, v));
  if (n < kEpsilon) throw std::invalid_argument(std::string(what) + " is too short");
  return v / n;
}

Quat<double> quat_from_axis_angle(const Vec3<double>& axis, double angle) {
  return axis_angle(unit(axis, "the axis"), angle);
}

Quat<double> quat_from_euler(const Vec3<double>& angles, std::string_view sequence) {
  if (sequence.size() != 3) throw std::invalid_argument("eulerseq must have three letters");
  Quat<double> q{{1.0, 0.0, 0.0, 0.0}};
  for (int i = 0; i < 3; ++i) {
    const char c = sequence[static_cast<std::size_t>(i)];
    const int axis = c == 'x' || c == 'X' ? 0 : c == 'y' || c == 'Y' ? 1 : c == 'z' || c == 'Z' ? 2 : -1;
    if (axis < 0) throw std::invalid_argument("eulerseq may only contain x, y, z, X, Y, Z");
    const Quat<double> turn = axis_angle(Vec3<double>::unit(axis), angles.c[i]);
    // Moving axes compose on the right, fixed axes on the left (MuJoCo's convention).
    q = c >= 'a' ? quat_multiply(q, turn) : quat_multiply(turn, q);
  }
  return normalized(q);
}

Quat<double> quat_from_xyaxes(std::span<const double, 6> xy) {
  const Vec3<double> x = unit({{xy[0], xy[1], xy[2]}}, "the x axis");
  Vec3<double> y{{xy[3], xy[4], xy[5]}};
  y = unit(y - dot(x, y) * x, "the y axis (made orthogonal to x)");
  const Vec3<double> z = unit(cross(x, y), "cross(x axis, y axis)");
  return quat_from_columns(x, y, z);
}

Quat<double> quat_from_zaxis(const Vec3<double>& z) {
  const Vec3<double> v = unit(z, "the z axis");
  Vec3<double> axis = cross(Vec3<double>::unit(2), v);
  const double s = std::sqrt(dot(axis, axis));
  // Parallel to z (either way): turn about x, as MuJoCo does.
  axis = s < 1e-10 ? Vec3<double>::unit(0) : axis / s;
  return axis_angle(axis, std::atan2(s, v.c[2]));
}

Quat<double> quat_from_columns(const Vec3<double>& x, const Vec3<double>& y, const Vec3<double>& z) {
  // r(i, j): row i of column j. Shepperd's method: divide by the largest of the four terms.
  const auto r = [&](int i, int j) { return j == 0 ? x.c[i] : j == 1 ? y.c[i] : z.c[i]; };
  const double trace = r(0, 0) + r(1, 1) + r(2, 2);
  Quat<double> q;
  if (trace > 0.0) {
    const double w = 0.5 * std::sqrt(1.0 + trace);
    q = {{w, 0.25 * (r(2, 1) - r(1, 2)) / w, 0.25 * (r(0, 2) - r(2, 0)) / w, 0.25 * (r(1, 0) - r(0, 1)) / w}};
  } else if (r(0, 0) > r(1, 1) && r(0, 0) > r(2, 2)) {
    const double a = 0.5 * std::sqrt(1.0 + r(0, 0) - r(1, 1) - r(2, 2));
    q = {{0.25 * (r(2, 1) - r(1, 2)) / a, a, 0.25 * (r(0, 1) + r(1, 0)) / a, 0.25 * (r(0, 2) + r(2, 0)) / a}};
  } else if (r(1, 1) > r(2, 2)) {
    const double a = 0.5 * std::sqrt(1.0 - r(0, 0) + r(1, 1) - r(2, 2));
    q = {{0.25 * (r(0, 2) - r(2, 0)) / a, 0.25 * (r(0, 1) + r(1, 0)) / a, a, 0.25 * (r(1, 2) + r(2, 1)) / a}};
  } else {
    const double a = 0.5 * std::sqrt(1.0 - r(0, 0) - r(1, 1) + r(2, 2));
    q = {{0.25 * (r(1, 0) - r(0, 1)) / a, 0.25 * (r(0, 2) + r(2, 0)) / a, 0.25 * (r(1, 2) + r(2, 1)) / a, a}};
  }
  return normalized(q);
}

double geom_volume(GeomType type, const double size[3]) {
  constexpr double pi = std::numbers::pi;
  const double r = size[0];
  switch (type) {
    case GeomType::kSphere: return 4.0 * pi * r * r * r / 3.0;
    case GeomType::kCapsule: return pi * (r * r * 2.0 * size[1] + 4.0 * r * r * r / 3.0);
    case GeomType::kCylinder: return pi * r * r * 2.0 * size[1];
    case GeomType::kEllipsoid: return 4.0 * pi * size[0] * size[1] * size[2] / 3.0;
    case GeomType::kBox: return 8.0 * size[0] * size[1] * size[2];
    case GeomType::kPlane: return 0.0;
  }
  return 0.0;
}

// A capsule as MuJoCo 2.2.2 takes it: a cylinder plus two hemispheres whose inertia about the
// capsule's centre is that of a sphere shifted along the axis (the exact formula, not the
// cylinder approximation that some engines use).
static Vec3<double> capsule_inertia(const double size[3], double mass) {
  const double r = size[0];
  const double h = 2.0 * size[1];
  const double sphere_mass = mass * 4.0 * r / (4.0 * r + 3.0 * h);
  const double cylinder_mass = mass - sphere_mass;
  const double sphere = 2.0 * sphere_mass * r * r / 5.0;
  const double across = cylinder_mass * (3.0 * r * r + h * h) / 12.0 + sphere + sphere_mass * h * (3.0 * r + 2.0 * h) / 8.0;
  return {{across, across, cylinder_mass * r * r / 2.0 + sphere}};
}

Vec3<double> geom_inertia(GeomType type, const double size[3], double mass) {
  const double a = size[0] * size[0], b = size[1] * size[1], c = size[2] * size[2];
  switch (type) {
    case GeomType::kSphere: {
      const double i = 2.0 * mass * a / 5.0;
      return {{i, i, i}};
    }
    case GeomType::kCapsule: return capsule_inertia(size, mass);
    case GeomType::kCylinder: {
      const double h = 2.0 * size[1];
      const double across = mass * (3.0 * a + h * h) / 12.0;
      return {{across, across, mass * a / 2.0}};
    }
    case GeomType::kEllipsoid: return {{mass * (b + c) / 5.0, mass * (a + c) / 5.0, mass * (a + b) / 5.0}};
    case GeomType::kBox: return {{mass * (b + c) / 3.0, mass * (a + c) / 3.0, mass * (a + b) / 3.0}};
    case GeomType::kPlane: return Vec3<double>::zero();
  }
  return Vec3<double>::zero();
}

Mat3<double> rotated_inertia(const Vec3<double>& principal, const Quat<double>& q) {
  const Mat3<double> r = rotation_matrix(q);
  Mat3<double> out = Mat3<double>::zero();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) out(i, j) += r(i, k) * principal.c[k] * r(j, k);
  return out;
}

Mat3<double> offset_inertia(double mass, const Vec3<double>& d) {
  Mat3<double> out;
  const double d2 = dot(d, d);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out(i, j) = mass * ((i == j ? d2 : 0.0) - d.c[i] * d.c[j]);
  return out;
}

// R^T m R, summed in MuJoCo's order.
static Mat3<double> rotate_into(const Mat3<double>& m, const Mat3<double>& r) {
  Mat3<double> left, out;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) left(i, j) = r(0, i) * m(0, j) + r(1, i) * m(1, j) + r(2, i) * m(2, j);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out(i, j) = left(i, 0) * r(0, j) + left(i, 1) * r(1, j) + left(i, 2) * r(2, j);
  return out;
}

// q scaled to unit length (identity if q is about zero), as mju_normalize4.
static Quat<double> unit_quat(const Quat<double>& q) {
  const double n = std::sqrt(dot(q, q));
  if (n < kMinValue) return {{1.0, 0.0, 0.0, 0.0}};
  return q / n;
}

// One Jacobi step on the largest off-diagonal entry of d; false once it is negligible.
static bool jacobi_step(const Mat3<double>& d, Quat<double>& q) {
  constexpr double tolerance = 1000.0 * kMinValue;
  // The pivot (row, column) and the axis the rotation turns about.
  int row = 1, column = 2, axis = 0;
  if (std::abs(d(0, 1)) > std::abs(d(0, 2)) && std::abs(d(0, 1)) > std::abs(d(1, 2))) row = 0, column = 1, axis = 2;
  else if (std::abs(d(0, 2)) > std::abs(d(1, 2))) row = 0, column = 2, axis = 1;
  if (std::abs(d(row, column)) < tolerance) return false;
  // The 2x2 symmetric Schur decomposition (Golub and Van Loan): tan t, cos c.
  const double tau = (d(column, column) - d(row, row)) / (2.0 * d(row, column));
  const double t = tau >= 0.0 ? 1.0 / (tau + std::sqrt(1.0 + tau * tau)) : -1.0 / (-tau + std::sqrt(1.0 + tau * tau));
  const double c = 1.0 / std::sqrt(1.0 + t * t);
  if (c > 1.0 - tolerance) return false;
  // The same rotation as a quaternion about `axis` (half-angle sine from the cosine).
  double s = std::sqrt(0.5 - 0.5 * c) * (tau >= 0.0 ? -1.0 : 1.0);
  if (axis == 1) s = -s;
  Quat<double> turn{{0.0, 0.0, 0.0, 0.0}};
  turn.c[axis + 1] = s;
  turn.c[0] = std::sqrt(1.0 - s * s);
  q = unit_quat(quat_multiply(q, unit_quat(turn)));
  return true;
}

Principal principal_axes(const Mat3<double>& m) {
  constexpr double tolerance = 1000.0 * kMinValue;
  Principal p{Vec3<double>::zero(), {{1.0, 0.0, 0.0, 0.0}}};
  for (int iteration = 0; iteration < 500; ++iteration) {
    const Mat3<double> d = rotate_into(m, rotation_matrix(p.axes));
    p.moments = {{d(0, 0), d(1, 1), d(2, 2)}};
    if (!jacobi_step(d, p.axes)) break;
  }
  // Decreasing order, each swap a quarter turn of the axes (pairs 0-1, 1-2, 0-1).
  for (int j = 0; j < 3; ++j) {
    const int k = j % 2;
    if (!(p.moments.c[k] + tolerance < p.moments.c[k + 1])) continue;
    std::swap(p.moments.c[k], p.moments.c[k + 1]);
    Quat<double> quarter{{0.707106781186548, 0.0, 0.0, 0.0}};
    quarter.c[(k + 2) % 3 + 1] = 0.707106781186548;
    p.axes = unit_quat(quat_multiply(p.axes, quarter));
  }
  return p;
}

}  // namespace simgrad::rigid::mjcf
