#include "sims/rigid/mjcf_geometry.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

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

Vec3<double> eigenvalues(const Mat3<double>& m) {
  Eigen::Matrix3d a;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a(i, j) = m(i, j);
  const Eigen::Vector3d e = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(a, Eigen::EigenvaluesOnly).eigenvalues();
  return {{e(0), e(1), e(2)}};
}

}  // namespace simgrad::rigid::mjcf
