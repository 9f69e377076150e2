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
//
// A block of a body may instead carry an adjoint written by hand (an external block: a linear
// solve, say, whose taped form costs far more than its adjoint). Its outputs are recorded as new
// leaves, and the sweep, on passing them, calls the block's adjoint, which adds their adjoints'
// contributions to the block's inputs, all recorded earlier; the sweep then goes on.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "core/portable.hpp"

namespace simgrad::ad {

// One recorded operation: result = f(a, b), with partials da = df/da and db = df/db.
struct TapeEntry {
  std::int32_t a;
  std::int32_t b;
  double da;
  double db;
};

// Propagates adjoints through tape entries from..to (from >= to, both included): each entry
// passes its adjoint times its partials to its two parents.
SIMGRAD_HD inline void sweep_entries(const TapeEntry* e, double* g, std::int32_t from, std::int32_t to) {
  for (std::int32_t i = from; i >= to; --i) {
    const double gi = g[i];
    g[e[i].a] += e[i].da * gi;
    g[e[i].b] += e[i].db * gi;
  }
}

// The adjoint of an external block: adds to `adjoints` (the tape's) what the block's outputs'
// adjoints contribute to its inputs, from the integers and reals it recorded (the reals may
// double as its scratch space).
using ExternalAdjoint = void (*)(double* adjoints, const std::int32_t* ints, double* reals);

// Where an external block's recorded integers and reals go (valid until the next block).
struct ExternalData {
  std::int32_t* ints;
  double* reals;
};

// The per-thread tape for one element at a time.
class LocalTape {
 public:
  // Starts a new element: only the sink entry remains.
  void reset() {
    if (capacity_ == 0) grow();
    entries_[0] = {0, 0, 0.0, 0.0};
    next_ = entries_.get() + 1;
    externals_.clear();
    external_ints_.clear();
    external_reals_.clear();
  }

  // Appends an entry and returns its index.
  std::int32_t push(std::int32_t a, double da, std::int32_t b, double db) {
    if (next_ == end_) [[unlikely]]
      grow();
    *next_ = {a, b, da, db};
    return static_cast<std::int32_t>(next_++ - entries_.get());
  }

  // Appends an input with no parents.
  std::int32_t leaf() { return push(0, 0.0, 0, 0.0); }

  std::int32_t size() const { return static_cast<std::int32_t>(next_ - entries_.get()); }

  // Zeroes the adjoints of all entries, ready for seeding.
  void clear_adjoints() { std::memset(adjoints_.get(), 0, sizeof(double) * static_cast<std::size_t>(size())); }

  double& adjoint(std::int32_t i) { return adjoints_[i]; }

  // Registers an external block whose outputs are the leaves recorded from entry `first` on;
  // returns room for `ints` integers and `reals` reals for its adjoint to read.
  ExternalData external(std::int32_t first, ExternalAdjoint adjoint, std::size_t ints, std::size_t reals) {
    externals_.push_back({first, adjoint, external_ints_.size(), external_reals_.size()});
    external_ints_.resize(external_ints_.size() + ints);
    external_reals_.resize(external_reals_.size() + reals);
    return {external_ints_.data() + externals_.back().int_offset, external_reals_.data() + externals_.back().real_offset};
  }

  // Propagates seeded adjoints from the last entry back to the first, through the external
  // blocks' adjoints on the way.
  void sweep() {
    std::int32_t i = size() - 1;
    for (std::size_t k = externals_.size(); k-- > 0;) {
      const External& x = externals_[k];
      sweep_entries(i, x.first);
      x.adjoint(adjoints_.get(), external_ints_.data() + x.int_offset, external_reals_.data() + x.real_offset);
      i = x.first - 1;
    }
    sweep_entries(i, 1);
  }

 private:
  struct External {
    std::int32_t first;
    ExternalAdjoint adjoint;
    std::size_t int_offset;
    std::size_t real_offset;
  };

  // Propagates adjoints through entries from..to (from >= to, both included).
  void sweep_entries(std::int32_t from, std::int32_t to) { ad::sweep_entries(entries_.get(), adjoints_.get(), from, to); }

  // Doubles the capacity, keeping the recorded entries. Out of line, so that every operation
  // inlines only the size test.
  [[gnu::noinline, gnu::cold]] void grow() {
    const std::int32_t size = capacity_ == 0 ? 0 : this->size();
    const std::int32_t capacity = capacity_ == 0 ? 1024 : 2 * capacity_;
    auto entries = std::make_unique<TapeEntry[]>(capacity);
    if (size > 0) std::memcpy(entries.get(), entries_.get(), sizeof(TapeEntry) * static_cast<std::size_t>(size));
    entries_ = std::move(entries);
    adjoints_ = std::make_unique<double[]>(capacity);
    capacity_ = capacity;
    next_ = entries_.get() + size;
    end_ = entries_.get() + capacity;
  }

  std::unique_ptr<TapeEntry[]> entries_;
  std::unique_ptr<double[]> adjoints_;
  // Pointers rather than counts: a store to an entry cannot alias them, so a run of operations
  // keeps them in registers.
  TapeEntry* next_ = nullptr;
  TapeEntry* end_ = nullptr;
  std::int32_t capacity_ = 0;
  std::vector<External> externals_;
  std::vector<std::int32_t> external_ints_;
  std::vector<double> external_reals_;
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

// A tape over storage its owner provides, of fixed capacity: what a device thread records an
// element to (device code has neither a heap worth using per element nor thread_local). An
// element that outgrows it is flagged, never truncated silently; no external blocks.
struct FixedTape {
  TapeEntry* entries = nullptr;
  double* adjoints = nullptr;
  std::int32_t capacity = 0;
  std::int32_t count = 0;
  bool overflow = false;

  SIMGRAD_HD void reset() {
    entries[0] = {0, 0, 0.0, 0.0};
    count = 1;
  }
  SIMGRAD_HD std::int32_t push(std::int32_t a, double da, std::int32_t b, double db) {
    if (count == capacity) {
      overflow = true;
      return 0;  // the sink: the element's adjoint is void, and the caller reports it
    }
    entries[count] = {a, b, da, db};
    return count++;
  }
  SIMGRAD_HD std::int32_t leaf() { return push(0, 0.0, 0, 0.0); }
  SIMGRAD_HD std::int32_t size() const { return count; }
  SIMGRAD_HD void clear_adjoints() {
    for (std::int32_t i = 0; i < count; ++i) adjoints[i] = 0.0;
  }
  SIMGRAD_HD double& adjoint(std::int32_t i) { return adjoints[i]; }
  SIMGRAD_HD void sweep() { sweep_entries(entries, adjoints, count - 1, 1); }
};

#if defined(__CUDACC__)
// On the device each thread finds its tape by its index in the launch, in a table the launcher
// fills (docs/gpu.md).
static __device__ FixedTape* device_tapes = nullptr;
__device__ inline FixedTape& device_tape() {
  return device_tapes[blockIdx.x * blockDim.x + threadIdx.x];
}
#endif

// Records one operation on this thread's tape: the host's active LocalTape, or on the device the
// thread's FixedTape. Always inlined, as the push it wraps was before: GCC otherwise calls it out
// of line from the four-wheel car's derived adjoint (16 calls in vehicle_batch.cpp).
[[gnu::always_inline]] SIMGRAD_HD inline std::int32_t record(std::int32_t a, double da, std::int32_t b, double db) {
#if SIMGRAD_DEVICE_PASS
  return device_tape().push(a, da, b, db);
#else
  return active_tape->push(a, da, b, db);
#endif
}

// A reverse-mode scalar recorded on the active tape. Index 0 marks a constant.
struct Var {
  double v = 0.0;
  std::int32_t i = 0;

  Var() = default;
  SIMGRAD_HD Var(double value) : v(value), i(0) {}  // NOLINT: constants convert implicitly
  SIMGRAD_HD Var(double value, std::int32_t index) : v(value), i(index) {}

  // A new independent input on the active tape.
  SIMGRAD_HD static Var input(double value) { return {value, record(0, 0.0, 0, 0.0)}; }

  SIMGRAD_HD Var& operator+=(const Var& o) { return *this = *this + o; }
  SIMGRAD_HD Var& operator-=(const Var& o) { return *this = *this - o; }
  SIMGRAD_HD Var& operator*=(const Var& o) { return *this = *this * o; }
  SIMGRAD_HD Var& operator/=(const Var& o) { return *this = *this / o; }

  SIMGRAD_HD friend Var operator+(const Var& a, const Var& b) {
    return {a.v + b.v, record(a.i, 1.0, b.i, 1.0)};
  }
  SIMGRAD_HD friend Var operator-(const Var& a, const Var& b) {
    return {a.v - b.v, record(a.i, 1.0, b.i, -1.0)};
  }
  SIMGRAD_HD friend Var operator*(const Var& a, const Var& b) {
    return {a.v * b.v, record(a.i, b.v, b.i, a.v)};
  }
  SIMGRAD_HD friend Var operator/(const Var& a, const Var& b) {
    const double q = a.v / b.v;
    return {q, record(a.i, 1.0 / b.v, b.i, -q / b.v)};
  }
  SIMGRAD_HD friend Var operator+(const Var& a, double b) { return {a.v + b, record(a.i, 1.0, 0, 0.0)}; }
  SIMGRAD_HD friend Var operator+(double a, const Var& b) { return b + a; }
  SIMGRAD_HD friend Var operator-(const Var& a, double b) { return {a.v - b, record(a.i, 1.0, 0, 0.0)}; }
  SIMGRAD_HD friend Var operator-(double a, const Var& b) { return {a - b.v, record(b.i, -1.0, 0, 0.0)}; }
  SIMGRAD_HD friend Var operator*(const Var& a, double b) { return {a.v * b, record(a.i, b, 0, 0.0)}; }
  SIMGRAD_HD friend Var operator*(double a, const Var& b) { return b * a; }
  SIMGRAD_HD friend Var operator/(const Var& a, double b) { return {a.v / b, record(a.i, 1.0 / b, 0, 0.0)}; }
  SIMGRAD_HD friend Var operator/(double a, const Var& b) {
    const double q = a / b.v;
    return {q, record(b.i, -q / b.v, 0, 0.0)};
  }
  SIMGRAD_HD friend Var operator-(const Var& a) { return {-a.v, record(a.i, -1.0, 0, 0.0)}; }

  // Comparisons look at values only: branches in a body select a piece of a piecewise function.
  SIMGRAD_HD friend bool operator<(const Var& a, const Var& b) { return a.v < b.v; }
  SIMGRAD_HD friend bool operator>(const Var& a, const Var& b) { return a.v > b.v; }
  SIMGRAD_HD friend bool operator<=(const Var& a, const Var& b) { return a.v <= b.v; }
  SIMGRAD_HD friend bool operator>=(const Var& a, const Var& b) { return a.v >= b.v; }
  SIMGRAD_HD friend bool operator==(const Var& a, const Var& b) { return a.v == b.v; }
  SIMGRAD_HD friend bool operator!=(const Var& a, const Var& b) { return a.v != b.v; }
};

// Applies a unary function with value f and derivative df.
SIMGRAD_HD inline Var unary(const Var& a, double f, double df) { return {f, record(a.i, df, 0, 0.0)}; }

SIMGRAD_HD inline Var sqrt(const Var& a) {
  const double r = std::sqrt(a.v);
  return unary(a, r, 0.5 / r);
}
SIMGRAD_HD inline Var exp(const Var& a) {
  const double e = std::exp(a.v);
  return unary(a, e, e);
}
SIMGRAD_HD inline Var log(const Var& a) { return unary(a, std::log(a.v), 1.0 / a.v); }
SIMGRAD_HD inline Var log1p(const Var& a) { return unary(a, std::log1p(a.v), 1.0 / (1.0 + a.v)); }
SIMGRAD_HD inline Var expm1(const Var& a) { return unary(a, std::expm1(a.v), std::exp(a.v)); }
SIMGRAD_HD inline Var sin(const Var& a) { return unary(a, std::sin(a.v), std::cos(a.v)); }
SIMGRAD_HD inline Var cos(const Var& a) { return unary(a, std::cos(a.v), -std::sin(a.v)); }
SIMGRAD_HD inline Var tanh(const Var& a) {
  const double t = std::tanh(a.v);
  return unary(a, t, 1.0 - t * t);
}
SIMGRAD_HD inline Var abs(const Var& a) { return unary(a, std::abs(a.v), a.v < 0.0 ? -1.0 : 1.0); }
SIMGRAD_HD inline Var pow(const Var& a, double p) {
  const double r = std::pow(a.v, p);
  return unary(a, r, p * std::pow(a.v, p - 1.0));
}
SIMGRAD_HD inline Var pow(const Var& a, const Var& p) { return exp(p * log(a)); }
SIMGRAD_HD inline Var atan2(const Var& y, const Var& x) {
  const double r2 = x.v * x.v + y.v * y.v;
  return {std::atan2(y.v, x.v), record(y.i, x.v / r2, x.i, -y.v / r2)};
}
SIMGRAD_HD inline Var min(const Var& a, const Var& b) { return a.v <= b.v ? a : b; }
SIMGRAD_HD inline Var max(const Var& a, const Var& b) { return a.v >= b.v ? a : b; }
SIMGRAD_HD inline bool isfinite(const Var& a) { return std::isfinite(a.v); }

}  // namespace simgrad::ad

namespace simgrad {

// The plain value of a scalar, for branching and output.
SIMGRAD_HD inline double value_of(double x) { return x; }
SIMGRAD_HD inline double value_of(const ad::Var& x) { return x.v; }

// Scalar-generic min/max (std::min on double, value selection on Var).
SIMGRAD_HD inline double smin(double a, double b) { return a <= b ? a : b; }
SIMGRAD_HD inline double smax(double a, double b) { return a >= b ? a : b; }
SIMGRAD_HD inline ad::Var smin(const ad::Var& a, const ad::Var& b) { return ad::min(a, b); }
SIMGRAD_HD inline ad::Var smax(const ad::Var& a, const ad::Var& b) { return ad::max(a, b); }

}  // namespace simgrad
