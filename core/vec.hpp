// Small fixed-size vectors templated on the scalar, so one physics body serves plain evaluation
// (double) and differentiation (ad::Var). Deliberately tiny: element bodies use a handful of
// 2- and 3-vectors, and a hand-rolled type keeps the generated code and compile errors simple.
#pragma once

#include <cmath>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "core/portable.hpp"

namespace simgrad {

using Index = std::ptrdiff_t;

template <class S, int D>
struct Vec;

template <class T>
struct IsVec : std::false_type {};
template <class S, int D>
struct IsVec<Vec<S, D>> : std::true_type {};

template <class S, int D>
struct Vec {
  S c[D];

  // Zero vector.
  SIMGRAD_HD static Vec zero() {
    Vec v;
    for (int i = 0; i < D; ++i) v.c[i] = S(0.0);
    return v;
  }
  // Unit vector along axis.
  SIMGRAD_HD static Vec unit(int axis) {
    Vec v = zero();
    v.c[axis] = S(1.0);
    return v;
  }

  SIMGRAD_HD S& operator[](int i) { return c[i]; }
  SIMGRAD_HD const S& operator[](int i) const { return c[i]; }

  template <class T>
  SIMGRAD_HD Vec& operator+=(const Vec<T, D>& o) {
    for (int i = 0; i < D; ++i) c[i] = c[i] + o.c[i];
    return *this;
  }
  template <class T>
  SIMGRAD_HD Vec& operator-=(const Vec<T, D>& o) {
    for (int i = 0; i < D; ++i) c[i] = c[i] - o.c[i];
    return *this;
  }
  // Converts from a vector of another scalar (double -> ad::Var constants).
  template <class T>
  SIMGRAD_HD static Vec from(const Vec<T, D>& o) {
    Vec v;
    for (int i = 0; i < D; ++i) v.c[i] = S(o.c[i]);
    return v;
  }
};

// Arithmetic mixes scalar types (a double plane normal times an ad::Var speed): the result
// has the type of the product of the two scalars.
template <class A, class B>
using Product = decltype(std::declval<A>() * std::declval<B>());

template <class A, class B, int D>
SIMGRAD_HD Vec<Product<A, B>, D> operator+(const Vec<A, D>& a, const Vec<B, D>& b) {
  Vec<Product<A, B>, D> r;
  for (int i = 0; i < D; ++i) r.c[i] = a.c[i] + b.c[i];
  return r;
}
template <class A, class B, int D>
SIMGRAD_HD Vec<Product<A, B>, D> operator-(const Vec<A, D>& a, const Vec<B, D>& b) {
  Vec<Product<A, B>, D> r;
  for (int i = 0; i < D; ++i) r.c[i] = a.c[i] - b.c[i];
  return r;
}
template <class S, int D>
SIMGRAD_HD Vec<S, D> operator-(const Vec<S, D>& a) {
  Vec<S, D> r;
  for (int i = 0; i < D; ++i) r.c[i] = -a.c[i];
  return r;
}
template <class K, class S, int D>
  requires(!IsVec<K>::value)
SIMGRAD_HD Vec<Product<K, S>, D> operator*(const K& k, const Vec<S, D>& a) {
  Vec<Product<K, S>, D> r;
  for (int i = 0; i < D; ++i) r.c[i] = k * a.c[i];
  return r;
}
template <class K, class S, int D>
  requires(!IsVec<K>::value)
SIMGRAD_HD Vec<Product<K, S>, D> operator*(const Vec<S, D>& a, const K& k) {
  return k * a;
}
template <class K, class S, int D>
  requires(!IsVec<K>::value)
SIMGRAD_HD Vec<Product<S, K>, D> operator/(const Vec<S, D>& a, const K& k) {
  Vec<Product<S, K>, D> r;
  for (int i = 0; i < D; ++i) r.c[i] = a.c[i] / k;
  return r;
}

// Dot product, summed in index order.
template <class A, class B, int D>
SIMGRAD_HD Product<A, B> dot(const Vec<A, D>& a, const Vec<B, D>& b) {
  Product<A, B> s = a.c[0] * b.c[0];
  for (int i = 1; i < D; ++i) s = s + a.c[i] * b.c[i];
  return s;
}

// Euclidean length.
template <class S, int D>
[[gnu::always_inline]] SIMGRAD_HD inline S norm(const Vec<S, D>& a) {
  using std::sqrt;
  return sqrt(dot(a, a));
}

// z-component of the 2D cross product (signed parallelogram area).
template <class S>
SIMGRAD_HD S cross(const Vec<S, 2>& a, const Vec<S, 2>& b) {
  return a.c[0] * b.c[1] - a.c[1] * b.c[0];
}

// 3D cross product.
template <class S>
SIMGRAD_HD Vec<S, 3> cross(const Vec<S, 3>& a, const Vec<S, 3>& b) {
  return {{a.c[1] * b.c[2] - a.c[2] * b.c[1], a.c[2] * b.c[0] - a.c[0] * b.c[2],
           a.c[0] * b.c[1] - a.c[1] * b.c[0]}};
}

}  // namespace simgrad
