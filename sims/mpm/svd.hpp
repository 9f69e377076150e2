// The singular value decomposition F = U diag(sigma) V^T of a deformation gradient with det F > 0,
// for the plastic return mappings (sand, snow), written once for any scalar so that its adjoint
// is derived. F = R S is the polar decomposition (sims/fem/material.hpp); the symmetric S = V
// diag(sigma) V^T by cyclic Jacobi rotations (one rotation is exact in 2D; six sweeps reach
// double precision in 3D), and U = R V. The counts are fixed, so the forward pass and its
// derived adjoint see the same function. Repeated singular values (F a rotation, at rest in
// particular) leave the singular vectors undefined: there the rotation is skipped.
#pragma once

#include <cmath>

#include "sims/fem/material.hpp"
#include "sims/fem/matrix.hpp"

namespace simgrad::mpm {

using fem::Mat;

template <class S, int D>
struct Svd {
  Mat<S, D> u, v;
  Vec<S, D> sigma;
};

// One Jacobi rotation of the symmetric a in the (p, q) plane, accumulated into v: a <- J^T a J.
template <class S, int D>
void jacobi_rotation(Mat<S, D>& a, Mat<S, D>& v, int p, int q) {
  using std::abs;
  using std::sqrt;
  // t = tan of the angle that zeroes a_pq, as 2 a_pq / (gap + sign(gap) sqrt(gap^2 + 4 a_pq^2)):
  // defined (and differentiable) at a_pq = 0, where the rotation is the identity but its
  // derivative is not. Only equal diagonal entries with nothing off the diagonal are skipped.
  const S gap = a.a[q][q] - a.a[p][p];
  const double scale = std::abs(value_of(a.a[p][p])) + std::abs(value_of(a.a[q][q]));
  if (std::abs(value_of(a.a[p][q])) <= 1e-15 * scale && std::abs(value_of(gap)) <= 1e-15 * scale) return;
  const double sign = value_of(gap) >= 0.0 ? 1.0 : -1.0;
  const S t = (2.0 * a.a[p][q]) / (gap + sign * sqrt(gap * gap + 4.0 * (a.a[p][q] * a.a[p][q])));
  const S c = 1.0 / sqrt(t * t + 1.0);
  const S s = t * c;
  for (int k = 0; k < D; ++k) {  // a <- a J (columns p, q)
    const S akp = a.a[k][p], akq = a.a[k][q];
    a.a[k][p] = c * akp - s * akq;
    a.a[k][q] = s * akp + c * akq;
  }
  for (int k = 0; k < D; ++k) {  // a <- J^T a (rows p, q)
    const S apk = a.a[p][k], aqk = a.a[q][k];
    a.a[p][k] = c * apk - s * aqk;
    a.a[q][k] = s * apk + c * aqk;
  }
  for (int k = 0; k < D; ++k) {
    const S vkp = v.a[k][p], vkq = v.a[k][q];
    v.a[k][p] = c * vkp - s * vkq;
    v.a[k][q] = s * vkp + c * vkq;
  }
}

// F = U diag(sigma) V^T, det F > 0, with U and V rotations.
template <class S, int D>
Svd<S, D> singular_values(const Mat<S, D>& f) {
  const Mat<S, D> r = fem::polar_rotation(f);
  Mat<S, D> a = transpose(r) * f;
  a = fem::symmetric_part(a);
  Mat<S, D> v = Mat<S, D>::identity();
  constexpr int kSweeps = D == 2 ? 1 : 6;
  for (int sweep = 0; sweep < kSweeps; ++sweep)
    for (int p = 0; p < D - 1; ++p)
      for (int q = p + 1; q < D; ++q) jacobi_rotation(a, v, p, q);
  Svd<S, D> out;
  for (int d = 0; d < D; ++d) out.sigma[d] = a.a[d][d];
  out.v = v;
  out.u = r * v;
  return out;
}

// m x.
template <class S, int D>
Vec<S, D> apply(const Mat<S, D>& m, const Vec<S, D>& x) {
  Vec<S, D> r;
  for (int i = 0; i < D; ++i) {
    S sum = m.a[i][0] * x[0];
    for (int j = 1; j < D; ++j) sum = sum + m.a[i][j] * x[j];
    r[i] = sum;
  }
  return r;
}

// U diag(sigma) V^T.
template <class S, int D>
Mat<S, D> compose(const Mat<S, D>& u, const Vec<S, D>& sigma, const Mat<S, D>& v) {
  Mat<S, D> us = u;
  for (int i = 0; i < D; ++i)
    for (int j = 0; j < D; ++j) us.a[i][j] = u.a[i][j] * sigma[j];
  return us * transpose(v);
}

}  // namespace simgrad::mpm
