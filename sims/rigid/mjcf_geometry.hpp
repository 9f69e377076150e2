// The geometry MuJoCo's model compiler does while reading MJCF, written as MuJoCo writes it
// (user_objects.cc, user_util.cc of MuJoCo 2.2.2) so that simgrad's frames, masses and inertias
// agree with MuJoCo's to rounding: frames from the alternative orientations (euler, axisangle,
// xyaxes, zaxis), a geom's volume and principal inertia, and the inertia of a set of geoms.
//
// Functions throw std::invalid_argument with a short reason; the reader adds file and line.
#pragma once

#include <span>
#include <string_view>

#include "sims/rigid/model.hpp"

namespace simgrad::rigid::mjcf {

// MuJoCo's thresholds: mjEPS for degenerate directions, mjMINVAL for masses.
inline constexpr double kEpsilon = 1e-14;
inline constexpr double kMinValue = 1e-15;

// v scaled to unit length; throws when shorter than kEpsilon.
Vec3<double> unit(const Vec3<double>& v, const char* what);

// The rotation by `angle` (rad) about `axis` (normalised here).
Quat<double> quat_from_axis_angle(const Vec3<double>& axis, double angle);

// Euler angles (rad) in MuJoCo's sequence notation: lower case rotates about the moving axes,
// upper case about the fixed ones.
Quat<double> quat_from_euler(const Vec3<double>& angles, std::string_view sequence);

// The frame whose x axis is xy[0..2] and whose y axis is xy[3..5] made orthogonal to it.
Quat<double> quat_from_xyaxes(std::span<const double, 6> xy);

// The shortest rotation taking (0, 0, 1) to `z` (MuJoCo's mjuu_z2quat).
Quat<double> quat_from_zaxis(const Vec3<double>& z);

// The quaternion of the rotation matrix whose columns are x, y, z.
Quat<double> quat_from_columns(const Vec3<double>& x, const Vec3<double>& y, const Vec3<double>& z);

// Volume of a primitive geom of MuJoCo's `size` (0 for planes).
double geom_volume(GeomType type, const double size[3]);

// Principal moments of inertia of a primitive geom of `mass`, about its centre, in its frame.
Vec3<double> geom_inertia(GeomType type, const double size[3], double mass);

// R diag(principal) R^T: a principal inertia turned into the parent frame by q.
Mat3<double> rotated_inertia(const Vec3<double>& principal, const Quat<double>& q);

// m (|d|^2 1 - d d^T): what the parallel-axis theorem adds for a mass m offset by d.
Mat3<double> offset_inertia(double mass, const Vec3<double>& d);

// A symmetric 3x3 matrix as rotation q and diagonal: m = R(q) diag(moments) R(q)^T.
struct Principal {
  Vec3<double> moments;  // decreasing
  Quat<double> axes;
};

// The principal axes of an inertia as MuJoCo 2.2.2 finds them (mju_eig3): Jacobi rotations on
// the largest off-diagonal entry, stopped once a rotation's cosine is within 1e-12 of 1. That
// leaves off-diagonal terms of about 1e-6 of the diagonal, and MuJoCo simulates with the
// truncated result, so simgrad takes the same steps to hold the same inertia.
Principal principal_axes(const Mat3<double>& m);

}  // namespace simgrad::rigid::mjcf
