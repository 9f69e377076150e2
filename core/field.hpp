// Fields: arrays of per-element values (scalars or D-vectors) with an optional adjoint array of
// the same shape. A Field is a cheap view that kernels read and write; an Array owns the storage.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <initializer_list>
#include <new>
#include <span>
#include <type_traits>
#include <vector>

#include "core/vec.hpp"

namespace simgrad {

// Allocates with 64-byte alignment so that element loops start on a cache line and vectorise.
template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) { std::free(p); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const {
    return true;
  }
};

using Buffer = std::vector<double, AlignedAllocator<double>>;

// The type an element body sees for one entry of a field: a scalar for D = 1, else a vector.
template <class S, int D>
using Value = std::conditional_t<D == 1, S, Vec<S, D>>;

// A view of `size` entries of D doubles each, entry-major, plus their adjoints (or null when the
// field is not differentiated).
template <int D>
struct Field {
  static constexpr int dim = D;
  double* value = nullptr;
  double* adjoint = nullptr;
  Index size = 0;

  // The same view shifted to entries [first, first + count).
  SIMGRAD_HD Field slice(Index first, Index count) const {
    return {value + first * D, adjoint ? adjoint + first * D : nullptr, count};
  }
};

// A field's type-erased view, for lists of fields of different dimensions.
struct FieldRef {
  double* value = nullptr;
  double* adjoint = nullptr;
  Index size = 0;
  int dim = 0;

  template <int D>
  FieldRef(const Field<D>& f) : value(f.value), adjoint(f.adjoint), size(f.size), dim(D) {}  // NOLINT
};

// Owns the values (and, when differentiated, the adjoints) behind a Field.
template <int D>
class Array {
 public:
  Array() = default;
  explicit Array(Index size, bool differentiable = false) { resize(size, differentiable); }

  // Resizes to `size` entries, every number `value` (zero unless given), adjoints zero.
  void resize(Index size, bool differentiable, double value = 0.0) {
    value_.assign(static_cast<std::size_t>(size * D), value);
    adjoint_.assign(differentiable ? static_cast<std::size_t>(size * D) : 0, 0.0);
    size_ = size;
  }
  // Resizes to the entries in `values` (D numbers each) and copies them in, adjoints zero.
  void assign(std::span<const double> values, bool differentiable) {
    value_.assign(values.begin(), values.end());
    adjoint_.assign(differentiable ? value_.size() : 0, 0.0);
    size_ = static_cast<Index>(values.size()) / D;
  }
  // The same from a braced list of numbers.
  void assign(std::initializer_list<double> values, bool differentiable) {
    assign(std::span<const double>(values.begin(), values.size()), differentiable);
  }
  // Appends `count` entries, every number `value`, keeping the others (and their adjoints); an
  // empty array cannot tell whether it is differentiable, so the caller says, as to resize.
  void append(Index count, double value, bool differentiable) {
    value_.resize(value_.size() + static_cast<std::size_t>(count * D), value);
    adjoint_.resize(differentiable ? value_.size() : 0, 0.0);
    size_ += count;
  }
  // Sets every value to `value`, keeping the adjoints.
  void fill(double value) { std::fill(value_.begin(), value_.end(), value); }

  Index size() const { return size_; }
  bool differentiable() const { return !adjoint_.empty(); }
  // Adds (zeroed) or drops the adjoint array, keeping the values.
  void set_differentiable(bool on) {
    adjoint_.assign(on ? value_.size() : 0, 0.0);
  }
  Field<D> field() { return {value_.data(), adjoint_.empty() ? nullptr : adjoint_.data(), size_}; }
  std::span<double> values() { return value_; }
  std::span<const double> values() const { return value_; }
  std::span<double> adjoints() { return adjoint_; }
  std::span<const double> adjoints() const { return adjoint_; }

 private:
  Buffer value_;
  Buffer adjoint_;
  Index size_ = 0;
};

// Loads entry i of a D-wide array as a Value.
template <class S, int D>
SIMGRAD_HD Value<S, D> load(const double* base, Index i) {
  if constexpr (D == 1) {
    return S(base[i]);
  } else {
    Vec<S, D> v;
    for (int c = 0; c < D; ++c) v.c[c] = S(base[i * D + c]);
    return v;
  }
}

// Component c of a Value (c = 0 for a scalar).
template <class S, int D>
SIMGRAD_HD const S& component(const Value<S, D>& v, int c) {
  if constexpr (D == 1) {
    (void)c;
    return v;
  } else {
    return v.c[c];
  }
}

template <class S, int D>
SIMGRAD_HD S& component(Value<S, D>& v, int c) {
  if constexpr (D == 1) {
    (void)c;
    return v;
  } else {
    return v.c[c];
  }
}

}  // namespace simgrad
