// Lanes: a kernel body run on several consecutive elements at once, one per SIMD lane.
//
// A body with no branch on values may opt in, for its forward pass (`static constexpr bool
// kForwardLanes = true;`) or its hand-written adjoint (`kAdjointLanes`); it is then also
// instantiated with `E::Scalar = Pack<kLaneCount>`: every arithmetic operation
// then works on kLaneCount elements side by side, and the square roots and divisions that bound a
// spring's cost run in vector units. Each lane performs exactly the IEEE operations the scalar
// body performs (no fused multiply-add: the build has -ffp-contract=off), so a lane's values are
// the scalar body's values, bit for bit.
//
// Reads gather per lane; writes and deposits go through one scalar element view per lane, so the
// scatter rules (private nodes, shared entries, non-finite checks) are the scalar views' own. A
// per-element scalar is the exception: the lanes' entries are adjacent, so it loads, and its
// adjoint adds, as one vector.
// Deposits go slot by slot, each slot lane by lane; a node shared by two lanes in the same slot
// (springs that start at one node) thus still receives the earlier element's contribution first.
// A group where a node sits in different slots of two lanes would break that order, and the
// kernel runs it element by element instead (Incidence::group_crosses_slots). Every node therefore receives its contributions in
// ascending (element, slot) order, as from scalar elements, and the kernel's results are the
// scalar path's, bit for bit, for any thread count.
#pragma once

#include <array>
#include <cmath>
#include <utility>

#include "core/field.hpp"
#include "core/vec.hpp"

namespace simgrad {

inline constexpr int kLaneCount = 2;

namespace detail {
// The compiler's vector of W doubles (GCC's vector_size does not take a template argument).
template <int W>
struct NativePack;
template <>
struct NativePack<2> {
  typedef double type __attribute__((vector_size(16)));
};
template <>
struct NativePack<4> {
  typedef double type __attribute__((vector_size(32)));
};
}  // namespace detail

#define SIMGRAD_INLINE [[gnu::always_inline]] inline

// W doubles operated on together.
template <int W>
struct Pack {
  using Native = typename detail::NativePack<W>::type;
  Native v;

  Pack() = default;
  SIMGRAD_INLINE Pack(double x) : v(x - Native{}) {}  // NOLINT: a constant broadcast to every lane
  SIMGRAD_INLINE static Pack of(Native n) {
    Pack p;
    p.v = n;
    return p;
  }
  SIMGRAD_INLINE double operator[](int l) const { return v[l]; }
  SIMGRAD_INLINE void set(int l, double x) { v[l] = x; }
};

template <int W>
SIMGRAD_INLINE Pack<W> operator+(const Pack<W>& a, const Pack<W>& b) { return Pack<W>::of(a.v + b.v); }
template <int W>
SIMGRAD_INLINE Pack<W> operator-(const Pack<W>& a, const Pack<W>& b) { return Pack<W>::of(a.v - b.v); }
template <int W>
SIMGRAD_INLINE Pack<W> operator*(const Pack<W>& a, const Pack<W>& b) { return Pack<W>::of(a.v * b.v); }
template <int W>
SIMGRAD_INLINE Pack<W> operator/(const Pack<W>& a, const Pack<W>& b) { return Pack<W>::of(a.v / b.v); }
template <int W>
SIMGRAD_INLINE Pack<W> operator-(const Pack<W>& a) { return Pack<W>::of(-a.v); }
template <int W>
SIMGRAD_INLINE Pack<W> operator+(double a, const Pack<W>& b) { return Pack<W>::of(a + b.v); }
template <int W>
SIMGRAD_INLINE Pack<W> operator+(const Pack<W>& a, double b) { return Pack<W>::of(a.v + b); }
template <int W>
SIMGRAD_INLINE Pack<W> operator-(double a, const Pack<W>& b) { return Pack<W>::of(a - b.v); }
template <int W>
SIMGRAD_INLINE Pack<W> operator-(const Pack<W>& a, double b) { return Pack<W>::of(a.v - b); }
template <int W>
SIMGRAD_INLINE Pack<W> operator*(double a, const Pack<W>& b) { return Pack<W>::of(a * b.v); }
template <int W>
SIMGRAD_INLINE Pack<W> operator*(const Pack<W>& a, double b) { return Pack<W>::of(a.v * b); }
template <int W>
SIMGRAD_INLINE Pack<W> operator/(double a, const Pack<W>& b) { return Pack<W>::of(a / b.v); }
template <int W>
SIMGRAD_INLINE Pack<W> operator/(const Pack<W>& a, double b) { return Pack<W>::of(a.v / b); }

// Lane-wise square root (correctly rounded, as the scalar one).
template <int W>
SIMGRAD_INLINE Pack<W> sqrt(const Pack<W>& a) {
  Pack<W> r;
  for (int l = 0; l < W; ++l) r.v[l] = __builtin_sqrt(a.v[l]);
  return r;
}

// Lane l of a Value of packs.
template <int W, int D>
SIMGRAD_INLINE Value<double, D> lane(const Value<Pack<W>, D>& v, int l) {
  if constexpr (D == 1) {
    return v[l];
  } else {
    Vec<double, D> r;
    for (int c = 0; c < D; ++c) r.c[c] = v.c[c][l];
    return r;
  }
}

// Sets lane l of a Value of packs.
template <int W, int D>
SIMGRAD_INLINE void set_lane(Value<Pack<W>, D>& v, int l, const Value<double, D>& x) {
  if constexpr (D == 1) {
    v.set(l, x);
  } else {
    for (int c = 0; c < D; ++c) v.c[c].set(l, x.c[c]);
  }
}

// kLaneCount consecutive elements seen as one, through one scalar view (`Lane`) per element:
// reads gather the lanes' values into packs, writes and deposits hand each lane its value.
template <class Lane>
class LanesElement {
 public:
  static constexpr int W = kLaneCount;
  using Scalar = Pack<W>;

  template <class... Args>
  SIMGRAD_INLINE LanesElement(Index first, const Args&... args)
      : lanes_(make(std::make_integer_sequence<int, W>{}, first, args...)) {}

  // A scalar per element: the lanes' entries are adjacent, one vector load.
  template <int D>
  SIMGRAD_INLINE Value<Scalar, D> own(const Field<D>& f) const {
    if constexpr (D == 1) {
      Scalar v;
      __builtin_memcpy(&v.v, f.value + lanes_[0].index(), sizeof(v.v));
      return v;
    } else {
      return gather<D>([&](const Lane& e) { return e.own(f); });
    }
  }
  template <int D>
  SIMGRAD_INLINE Value<Scalar, D> slot(const Field<D>& f, int s) const {
    return gather<D>([&](const Lane& e) { return e.slot(f, s); });
  }
  template <int D>
  SIMGRAD_INLINE Value<Scalar, D> shared(const Field<D>& f) const {
    return gather<D>([&](const Lane& e) { return e.shared(f); });
  }
  template <int D>
  SIMGRAD_INLINE Value<Scalar, D> output_adjoint(const Field<D>& f) const {
    return gather<D>([&](const Lane& e) { return e.output_adjoint(f); });
  }
  template <int D>
  SIMGRAD_INLINE Value<Scalar, D> scattered_adjoint(const Field<D>& f, int s) const {
    return gather<D>([&](const Lane& e) { return e.scattered_adjoint(f, s); });
  }

  template <int D>
  SIMGRAD_INLINE void write(const Field<D>& f, const Value<Scalar, D>& v) {
    for (int l = 0; l < W; ++l) lanes_[l].write(f, lane<W, D>(v, l));
  }
  template <int D>
  SIMGRAD_INLINE void write_slot(const Field<D>& f, int s, const Value<Scalar, D>& v) {
    for (int l = 0; l < W; ++l) lanes_[l].write_slot(f, s, lane<W, D>(v, l));
  }
  template <int D>
  SIMGRAD_INLINE void scatter(const Field<D>& f, int s, const Value<Scalar, D>& v) {
    for (int l = 0; l < W; ++l) lanes_[l].scatter(f, s, lane<W, D>(v, l));
  }
  // A scalar per element adds as one vector too: the same additions, lane by lane.
  template <int D>
  SIMGRAD_INLINE void add_own(const Field<D>& f, const Value<Scalar, D>& g) {
    if constexpr (D == 1) {
      if (f.adjoint == nullptr) return;
      double* target = f.adjoint + lanes_[0].index();
      Scalar sum;
      __builtin_memcpy(&sum.v, target, sizeof(sum.v));
      sum = sum + g;
      __builtin_memcpy(target, &sum.v, sizeof(sum.v));
    } else {
      for (int l = 0; l < W; ++l) lanes_[l].add_own(f, lane<W, D>(g, l));
    }
  }
  template <int D>
  SIMGRAD_INLINE void add_slot(const Field<D>& f, int s, const Value<Scalar, D>& g) {
    for (int l = 0; l < W; ++l) lanes_[l].add_slot(f, s, lane<W, D>(g, l));
  }
  template <int D>
  SIMGRAD_INLINE void add_shared(const Field<D>& f, const Value<Scalar, D>& g) {
    for (int l = 0; l < W; ++l) lanes_[l].add_shared(f, lane<W, D>(g, l));
  }

  // The first lane whose element went non-finite, or -1.
  int first_nonfinite() const {
    for (int l = 0; l < W; ++l)
      if (!lanes_[l].finite()) return l;
    return -1;
  }
  bool misuse() const {
    bool any = false;
    for (const Lane& e : lanes_) any = any || e.misuse();
    return any;
  }

 private:
  template <int... L, class... Args>
  SIMGRAD_INLINE static std::array<Lane, W> make(std::integer_sequence<int, L...>, Index first, const Args&... args) {
    return {Lane(first + L, args...)...};
  }
  template <int D, class Read>
  SIMGRAD_INLINE Value<Scalar, D> gather(const Read& read) const {
    Value<Scalar, D> v;
    for (int l = 0; l < W; ++l) set_lane<W, D>(v, l, read(lanes_[l]));
    return v;
  }

  std::array<Lane, W> lanes_;
};

#undef SIMGRAD_INLINE

}  // namespace simgrad
