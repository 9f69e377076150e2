// Small D x D matrices templated on the scalar, for the deformation gradient and stresses of FEM
// elements (D = 2 or 3). Row-major; products sum in index order, so results do not depend on
// how a compiler schedules them.
#pragma once

#include "core/field.hpp"
#include "core/vec.hpp"

namespace simgrad::fem {

template <class S, int D>
struct Mat {
  S a[D][D];

  // The zero matrix.
  SIMGRAD_HD static Mat zero() {
    Mat m;
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) m.a[i][j] = S(0.0);
    return m;
  }
  // The identity.
  SIMGRAD_HD static Mat identity() {
    Mat m = zero();
    for (int i = 0; i < D; ++i) m.a[i][i] = S(1.0);
    return m;
  }
  // A matrix from D * D values, row by row (how fields store matrices).
  SIMGRAD_HD static Mat from_rows(const Vec<S, D * D>& v) {
    Mat m;
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) m.a[i][j] = v[i * D + j];
    return m;
  }
  // Column j.
  SIMGRAD_HD Vec<S, D> column(int j) const {
    Vec<S, D> c;
    for (int i = 0; i < D; ++i) c[i] = a[i][j];
    return c;
  }
  // Sets column j.
  SIMGRAD_HD void set_column(int j, const Vec<S, D>& c) {
    for (int i = 0; i < D; ++i) a[i][j] = c[i];
  }
};

template <class S, int D>
SIMGRAD_HD Mat<S, D> operator+(const Mat<S, D>& x, const Mat<S, D>& y) {
  Mat<S, D> r;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) r.a[i][j] = x.a[i][j] + y.a[i][j];
  return r;
}
template <class S, int D>
SIMGRAD_HD Mat<S, D> operator-(const Mat<S, D>& x, const Mat<S, D>& y) {
  Mat<S, D> r;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) r.a[i][j] = x.a[i][j] - y.a[i][j];
  return r;
}
template <class T>
inline constexpr bool kIsMat = false;
template <class S, int D>
inline constexpr bool kIsMat<Mat<S, D>> = true;

template <class K, class S, int D>
  requires(!IsVec<K>::value && !kIsMat<K>)
SIMGRAD_HD Mat<S, D> operator*(const K& k, const Mat<S, D>& x) {
  Mat<S, D> r;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) r.a[i][j] = k * x.a[i][j];
  return r;
}
template <class S, int D>
SIMGRAD_HD Mat<S, D> operator*(const Mat<S, D>& x, const Mat<S, D>& y) {
  Mat<S, D> r;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) {
      S s = x.a[i][0] * y.a[0][j];
      for (int k = 1; k < D; ++k) s = s + x.a[i][k] * y.a[k][j];
      r.a[i][j] = s;
    }
  return r;
}
template <class S, int D>
SIMGRAD_HD Mat<S, D> transpose(const Mat<S, D>& x) {
  Mat<S, D> r;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) r.a[i][j] = x.a[j][i];
  return r;
}
template <class S, int D>
SIMGRAD_HD S trace(const Mat<S, D>& x) {
  S s = x.a[0][0];
  for (int i = 1; i < D; ++i) s = s + x.a[i][i];
  return s;
}
// sum_ij x_ij y_ij.
template <class S, int D>
SIMGRAD_HD S contract(const Mat<S, D>& x, const Mat<S, D>& y) {
  S s = x.a[0][0] * y.a[0][0];
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j)
      if (i + j > 0) s = s + x.a[i][j] * y.a[i][j];
  return s;
}
// (x + x^T) / 2.
template <class S, int D>
SIMGRAD_HD Mat<S, D> symmetric_part(const Mat<S, D>& x) {
  return 0.5 * (x + transpose(x));
}

template <class S>
SIMGRAD_HD S determinant(const Mat<S, 2>& x) {
  return x.a[0][0] * x.a[1][1] - x.a[0][1] * x.a[1][0];
}
template <class S>
SIMGRAD_HD S determinant(const Mat<S, 3>& x) {
  return x.a[0][0] * (x.a[1][1] * x.a[2][2] - x.a[1][2] * x.a[2][1]) -
         x.a[0][1] * (x.a[1][0] * x.a[2][2] - x.a[1][2] * x.a[2][0]) +
         x.a[0][2] * (x.a[1][0] * x.a[2][1] - x.a[1][1] * x.a[2][0]);
}

// The cofactor matrix, det(x) x^{-T}: the derivative of det(x) with respect to x.
template <class S>
SIMGRAD_HD Mat<S, 2> cofactor(const Mat<S, 2>& x) {
  Mat<S, 2> r;
  r.a[0][0] = x.a[1][1];
  r.a[0][1] = -x.a[1][0];
  r.a[1][0] = -x.a[0][1];
  r.a[1][1] = x.a[0][0];
  return r;
}
template <class S>
SIMGRAD_HD Mat<S, 3> cofactor(const Mat<S, 3>& x) {
  Mat<S, 3> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      r.a[i][j] = x.a[i1][j1] * x.a[i2][j2] - x.a[i1][j2] * x.a[i2][j1];
    }
  return r;
}

}  // namespace simgrad::fem
