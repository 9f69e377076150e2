// Local reverse-mode AD: the scalar a kernel body is re-run on to derive its adjoint.
//
// A kernel's adjoint is computed element by element. For one element the engine re-runs the
// body with `ad::Var` in place of `double`; every operation appends one entry to a small
// per-thread tape (two parent indices and two local partials), and a backward sweep over that
// tape turns the adjoints of the element's outputs into adjoints of its inputs. The tape is
// cleared for the next element, so it stays a few hundred entries long, lives in cache and never
// touches the heap once warmed up. There is no global per-operation tape across elements or steps:
// across steps the rollout (rollout.hpp) chains the per-step vector-Jacobian products.
//
// Entry 0 of every tape is a sink: constants point at it, so each entry has exactly two parents
// and the sweep has no branches. The sink's adjoint is discarded.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>

namespace simgrad::ad {

// One recorded operation: result = f(a, b), with partials da = df/da and db = df/db.
struct TapeEntry {
  std::int32_t a;
  std::int32_t b;
  double da;
  double db;
};

// The per-thread tape for one element at a time.
class LocalTape {
 public:
  // Starts a new element: only the sink entry remains.
  void reset() {
    if (capacity_ == 0) grow();
    entries_[0] = {0, 0, 0.0, 0.0};
    size_ = 1;
  }

  // Appends an entry and returns its index.
  std::int32_t push(std::int32_t a, double da, std::int32_t b, double db) {
    if (size_ == capacity_) grow();
    entries_[size_] = {a, b, da, db};
    return size_++;
  }

  // Appends an input with no parents.
  std::int32_t leaf() { return push(0, 0.0, 0, 0.0); }

  std::int32_t size() const { return size_; }

  // Zeroes the adjoints of all entries, ready for seeding.
  void clear_adjoints() { std::memset(adjoints_.get(), 0, sizeof(double) * size_); }

  double& adjoint(std::int32_t i) { return adjoints_[i]; }

  // Propagates seeded adjoints from the last entry back to the first.
  void sweep() {
    const TapeEntry* e = entries_.get();
    double* g = adjoints_.get();
    for (std::int32_t i = size_ - 1; i > 0; --i) {
      const double gi = g[i];
      g[e[i].a] += e[i].da * gi;
      g[e[i].b] += e[i].db * gi;
    }
  }

 private:
  // Doubles the capacity, keeping the recorded entries.
  void grow() {
    const std::int32_t capacity = capacity_ == 0 ? 1024 : 2 * capacity_;
    auto entries = std::make_unique<TapeEntry[]>(capacity);
    if (size_ > 0) std::memcpy(entries.get(), entries_.get(), sizeof(TapeEntry) * size_);
    entries_ = std::move(entries);
    adjoints_ = std::make_unique<double[]>(capacity);
    capacity_ = capacity;
  }

  std::unique_ptr<TapeEntry[]> entries_;
  std::unique_ptr<double[]> adjoints_;
  std::int32_t size_ = 0;
  std::int32_t capacity_ = 0;
};

// The tape that Var operations on this thread record to. A plain pointer (no guarded
// thread_local object) so that every operation pays one TLS load and nothing more.
inline thread_local LocalTape* active_tape = nullptr;

// Makes this thread's own tape active and returns it, reset for a new element.
inline LocalTape& thread_tape() {
  thread_local LocalTape tape;
  active_tape = &tape;
  return tape;
}

// A reverse-mode scalar recorded on the active tape. Index 0 marks a constant.
struct Var {
  double v = 0.0;
  std::int32_t i = 0;

  Var() = default;
  Var(double value) : v(value), i(0) {}  // NOLINT: constants convert implicitly
  Var(double value, std::int32_t index) : v(value), i(index) {}

  // A new independent input on the active tape.
  static Var input(double value) { return {value, active_tape->leaf()}; }

  Var& operator+=(const Var& o) { return *this = *this + o; }
  Var& operator-=(const Var& o) { return *this = *this - o; }
  Var& operator*=(const Var& o) { return *this = *this * o; }
  Var& operator/=(const Var& o) { return *this = *this / o; }

  friend Var operator+(const Var& a, const Var& b) {
    return {a.v + b.v, active_tape->push(a.i, 1.0, b.i, 1.0)};
  }
  friend Var operator-(const Var& a, const Var& b) {
    return {a.v - b.v, active_tape->push(a.i, 1.0, b.i, -1.0)};
  }
  friend Var operator*(const Var& a, const Var& b) {
    return {a.v * b.v, active_tape->push(a.i, b.v, b.i, a.v)};
  }
  friend Var operator/(const Var& a, const Var& b) {
    const double q = a.v / b.v;
    return {q, active_tape->push(a.i, 1.0 / b.v, b.i, -q / b.v)};
  }
  friend Var operator+(const Var& a, double b) { return {a.v + b, active_tape->push(a.i, 1.0, 0, 0.0)}; }
  friend Var operator+(double a, const Var& b) { return b + a; }
  friend Var operator-(const Var& a, double b) { return {a.v - b, active_tape->push(a.i, 1.0, 0, 0.0)}; }
  friend Var operator-(double a, const Var& b) { return {a - b.v, active_tape->push(b.i, -1.0, 0, 0.0)}; }
  friend Var operator*(const Var& a, double b) { return {a.v * b, active_tape->push(a.i, b, 0, 0.0)}; }
  friend Var operator*(double a, const Var& b) { return b * a; }
  friend Var operator/(const Var& a, double b) { return {a.v / b, active_tape->push(a.i, 1.0 / b, 0, 0.0)}; }
  friend Var operator/(double a, const Var& b) {
    const double q = a / b.v;
    return {q, active_tape->push(b.i, -q / b.v, 0, 0.0)};
  }
  friend Var operator-(const Var& a) { return {-a.v, active_tape->push(a.i, -1.0, 0, 0.0)}; }

  // Comparisons look at values only: branches in a body select a piece of a piecewise function.
  friend bool operator<(const Var& a, const Var& b) { return a.v < b.v; }
  friend bool operator>(const Var& a, const Var& b) { return a.v > b.v; }
  friend bool operator<=(const Var& a, const Var& b) { return a.v <= b.v; }
  friend bool operator>=(const Var& a, const Var& b) { return a.v >= b.v; }
  friend bool operator==(const Var& a, const Var& b) { return a.v == b.v; }
  friend bool operator!=(const Var& a, const Var& b) { return a.v != b.v; }
};

// Applies a unary function with value f and derivative df.
inline Var unary(const Var& a, double f, double df) { return {f, active_tape->push(a.i, df, 0, 0.0)}; }

inline Var sqrt(const Var& a) {
  const double r = std::sqrt(a.v);
  return unary(a, r, 0.5 / r);
}
inline Var exp(const Var& a) {
  const double e = std::exp(a.v);
  return unary(a, e, e);
}
inline Var log(const Var& a) { return unary(a, std::log(a.v), 1.0 / a.v); }
inline Var log1p(const Var& a) { return unary(a, std::log1p(a.v), 1.0 / (1.0 + a.v)); }
inline Var expm1(const Var& a) { return unary(a, std::expm1(a.v), std::exp(a.v)); }
inline Var sin(const Var& a) { return unary(a, std::sin(a.v), std::cos(a.v)); }
inline Var cos(const Var& a) { return unary(a, std::cos(a.v), -std::sin(a.v)); }
inline Var tanh(const Var& a) {
  const double t = std::tanh(a.v);
  return unary(a, t, 1.0 - t * t);
}
inline Var abs(const Var& a) { return unary(a, std::abs(a.v), a.v < 0.0 ? -1.0 : 1.0); }
inline Var pow(const Var& a, double p) {
  const double r = std::pow(a.v, p);
  return unary(a, r, p * std::pow(a.v, p - 1.0));
}
inline Var pow(const Var& a, const Var& p) { return exp(p * log(a)); }
inline Var atan2(const Var& y, const Var& x) {
  const double r2 = x.v * x.v + y.v * y.v;
  return {std::atan2(y.v, x.v), active_tape->push(y.i, x.v / r2, x.i, -y.v / r2)};
}
inline Var min(const Var& a, const Var& b) { return a.v <= b.v ? a : b; }
inline Var max(const Var& a, const Var& b) { return a.v >= b.v ? a : b; }
inline bool isfinite(const Var& a) { return std::isfinite(a.v); }

}  // namespace simgrad::ad

namespace simgrad {

// The plain value of a scalar, for branching and output.
inline double value_of(double x) { return x; }
inline double value_of(const ad::Var& x) { return x.v; }

// Scalar-generic min/max (std::min on double, value selection on Var).
inline double smin(double a, double b) { return a <= b ? a : b; }
inline double smax(double a, double b) { return a >= b ? a : b; }
inline ad::Var smin(const ad::Var& a, const ad::Var& b) { return ad::min(a, b); }
inline ad::Var smax(const ad::Var& a, const ad::Var& b) { return ad::max(a, b); }

}  // namespace simgrad
