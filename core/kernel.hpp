// Kernels: data-parallel loops over elements whose body is written once, generic in the scalar.
//
// A body is a callable `template <class E> void operator()(E& e) const` that reads its inputs
// through the element view `e` and writes its outputs through it:
//   e.own(f)            entry e of field f (per-element data: a spring's stiffness)
//   e.slot(f, s)        field f at the node in slot s of element e (a spring's end points)
//   e.shared(f)         entry 0 of f (a parameter shared by all elements: gravity)
//   e.write(f, v)       entry e of output field f
//   e.write_slot(f,s,v) entry (e, s) of an output field with one entry per slot
// `typename E::Scalar` is double in the forward pass and ad::Var when the adjoint is derived.
// A body that reads fields through slots lists them in `gathered()`, so the engine can sum their
// adjoints back into nodes over the incidence transpose instead of scattering with atomics.
//
// The adjoint of a kernel accumulates, for every element, the vector-Jacobian product of the body
// into the adjoints of its inputs, given the adjoints of its outputs. By default the engine
// derives it by re-running the body on ad::Var (local_ad.hpp) and sweeping back. A body may
// instead define `void adjoint(AdjointElement& e) const`, a hand-written adjoint, which then
// is used; `derived_adjoint` still runs the derived one so the two can be compared in tests.
//
// Every loop runs over fixed-size blocks (parallel.hpp); shared-parameter adjoints are summed
// per block and then in block order, so results are identical for any thread count.
#pragma once

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/field.hpp"
#include "core/incidence.hpp"
#include "core/local_ad.hpp"
#include "core/parallel.hpp"

namespace simgrad {

namespace detail {

inline constexpr int kMaxSharedFields = 16;
inline constexpr int kMaxSharedDim = 4;

// Per-block partial adjoints of shared fields, flushed in block order.
struct SharedPartials {
  struct Entry {
    double* target;
    int dim;
    double sum[kMaxSharedDim];
  };
  std::array<Entry, kMaxSharedFields> entries;
  int count = 0;
};

// The slot-indexed adjoint buffer of one gathered field.
struct GatheredAdjoint {
  double* node_adjoint = nullptr;
  int dim = 0;
  Buffer slot_adjoint;
};

// Where the adjoints of one element's inputs go: own entries directly, slot reads into the
// gathered buffers, shared reads into the block's partials.
class DepositTargets {
 public:
  DepositTargets(Index e, const Incidence* incidence, std::vector<GatheredAdjoint>* gathered,
                 SharedPartials* shared)
      : e_(e), incidence_(incidence), gathered_(gathered), shared_(shared) {}

  Index index() const { return e_; }
  bool misuse() const { return misuse_; }

 protected:
  template <int D>
  double* own_target(const Field<D>& f) const {
    return f.adjoint == nullptr ? nullptr : f.adjoint + e_ * D;
  }
  template <int D>
  double* slot_target(const Field<D>& f, int s) {
    if (f.adjoint == nullptr) return nullptr;
    for (GatheredAdjoint& g : *gathered_)
      if (g.node_adjoint == f.adjoint) return g.slot_adjoint.data() + (e_ * incidence_->arity() + s) * D;
    misuse_ = true;  // read through a slot but not listed in gathered()
    return nullptr;
  }
  template <int D>
  double* shared_target(const Field<D>& f) {
    static_assert(D <= kMaxSharedDim, "shared fields have at most kMaxSharedDim components");
    if (f.adjoint == nullptr) return nullptr;
    for (int k = 0; k < shared_->count; ++k)
      if (shared_->entries[k].target == f.adjoint) return shared_->entries[k].sum;
    if (shared_->count == kMaxSharedFields) {
      misuse_ = true;
      return nullptr;
    }
    SharedPartials::Entry& entry = shared_->entries[shared_->count++];
    entry.target = f.adjoint;
    entry.dim = D;
    for (double& x : entry.sum) x = 0.0;
    return entry.sum;
  }
  // Adds g to target[0..D) unless the input is not differentiated; notes non-finite values.
  template <int D>
  void deposit(double* target, const Value<double, D>& g) {
    if (target == nullptr) return;
    for (int c = 0; c < D; ++c) {
      const double x = component<double, D>(g, c);
      if (!std::isfinite(x)) finite_ = false;
      target[c] += x;
    }
  }

  Index e_;
  const Incidence* incidence_;
  std::vector<GatheredAdjoint>* gathered_;
  SharedPartials* shared_;
  bool misuse_ = false;

 public:
  bool finite_ = true;
};

}  // namespace detail

// The element view of the forward pass.
class ForwardElement {
 public:
  using Scalar = double;
  ForwardElement(Index e, const Incidence* incidence) : e_(e), incidence_(incidence) {}

  Index index() const { return e_; }
  template <int D>
  Value<double, D> own(const Field<D>& f) const {
    return load<double, D>(f.value, e_);
  }
  template <int D>
  Value<double, D> slot(const Field<D>& f, int s) const {
    return load<double, D>(f.value, incidence_->node(e_, s));
  }
  template <int D>
  Value<double, D> shared(const Field<D>& f) const {
    return load<double, D>(f.value, 0);
  }
  template <int D>
  void write(const Field<D>& f, const Value<double, D>& v) {
    store<D>(f.value + e_ * D, v);
  }
  template <int D>
  void write_slot(const Field<D>& f, int s, const Value<double, D>& v) {
    store<D>(f.value + (e_ * incidence_->arity() + s) * D, v);
  }
  bool finite() const { return finite_; }

 private:
  template <int D>
  void store(double* out, const Value<double, D>& v) {
    for (int c = 0; c < D; ++c) {
      out[c] = component<double, D>(v, c);
      if (!std::isfinite(out[c])) finite_ = false;
    }
  }

  Index e_;
  const Incidence* incidence_;
  bool finite_ = true;
};

// The element view when the adjoint is derived: reads become tape inputs, writes are remembered
// so their adjoints can seed the sweep.
class ReverseElement : public detail::DepositTargets {
 public:
  using Scalar = ad::Var;
  static constexpr int kMaxRecords = 64;
  using DepositTargets::DepositTargets;

  template <int D>
  Value<ad::Var, D> own(const Field<D>& f) {
    return read<D>(f.value + e_ * D, own_target(f));
  }
  template <int D>
  Value<ad::Var, D> slot(const Field<D>& f, int s) {
    return read<D>(f.value + incidence_->node(e_, s) * D, slot_target(f, s));
  }
  template <int D>
  Value<ad::Var, D> shared(const Field<D>& f) {
    return read<D>(f.value, shared_target(f));
  }
  template <int D>
  void write(const Field<D>& f, const Value<ad::Var, D>& v) {
    if (f.adjoint != nullptr) remember_output<D>(f.adjoint + e_ * D, v);
  }
  template <int D>
  void write_slot(const Field<D>& f, int s, const Value<ad::Var, D>& v) {
    if (f.adjoint != nullptr) remember_output<D>(f.adjoint + (e_ * incidence_->arity() + s) * D, v);
  }

  // Seeds the outputs' adjoints (and `seed` on `value`, for a summed body), sweeps the tape and
  // deposits the inputs' adjoints.
  void backpropagate(ad::LocalTape& tape, const ad::Var& value = ad::Var(), double seed = 0.0) {
    tape.clear_adjoints();
    for (int k = 0; k < output_count_; ++k) tape.adjoint(outputs_[k].var) += *outputs_[k].adjoint;
    tape.adjoint(value.i) += seed;
    tape.sweep();
    for (int k = 0; k < input_count_; ++k) {
      const double g = tape.adjoint(inputs_[k].leaf);
      if (!std::isfinite(g)) finite_ = false;
      *inputs_[k].target += g;
    }
  }

 private:
  struct Input {
    double* target;
    std::int32_t leaf;
  };
  struct Output {
    const double* adjoint;
    std::int32_t var;
  };

  template <int D>
  Value<ad::Var, D> read(const double* value, double* target) {
    Value<ad::Var, D> v;
    for (int c = 0; c < D; ++c) {
      if (target == nullptr) {
        component<ad::Var, D>(v, c) = ad::Var(value[c]);
      } else if (input_count_ == kMaxRecords) {
        misuse_ = true;
        component<ad::Var, D>(v, c) = ad::Var(value[c]);
      } else {
        component<ad::Var, D>(v, c) = ad::Var::input(value[c]);
        inputs_[input_count_++] = {target + c, component<ad::Var, D>(v, c).i};
      }
    }
    return v;
  }
  template <int D>
  void remember_output(const double* adjoint, const Value<ad::Var, D>& v) {
    for (int c = 0; c < D; ++c) {
      if (output_count_ == kMaxRecords) {
        misuse_ = true;
        return;
      }
      outputs_[output_count_++] = {adjoint + c, component<ad::Var, D>(v, c).i};
    }
  }

  std::array<Input, kMaxRecords> inputs_;
  std::array<Output, kMaxRecords> outputs_;
  int input_count_ = 0;
  int output_count_ = 0;
};

// The element view of a hand-written adjoint: plain reads, output adjoints, and deposits.
class AdjointElement : public detail::DepositTargets {
 public:
  using Scalar = double;
  using DepositTargets::DepositTargets;

  template <int D>
  Value<double, D> own(const Field<D>& f) const {
    return load<double, D>(f.value, e_);
  }
  template <int D>
  Value<double, D> slot(const Field<D>& f, int s) const {
    return load<double, D>(f.value, incidence_->node(e_, s));
  }
  template <int D>
  Value<double, D> shared(const Field<D>& f) const {
    return load<double, D>(f.value, 0);
  }
  // The adjoint of output entry e of f (zero when f is not differentiated).
  template <int D>
  Value<double, D> output_adjoint(const Field<D>& f) const {
    return f.adjoint == nullptr ? Value<double, D>(zero<D>()) : load<double, D>(f.adjoint, e_);
  }
  template <int D>
  Value<double, D> output_slot_adjoint(const Field<D>& f, int s) const {
    return f.adjoint == nullptr ? Value<double, D>(zero<D>())
                                : load<double, D>(f.adjoint, e_ * incidence_->arity() + s);
  }
  template <int D>
  void add_own(const Field<D>& f, const Value<double, D>& g) {
    deposit<D>(own_target(f), g);
  }
  template <int D>
  void add_slot(const Field<D>& f, int s, const Value<double, D>& g) {
    deposit<D>(slot_target(f, s), g);
  }
  template <int D>
  void add_shared(const Field<D>& f, const Value<double, D>& g) {
    deposit<D>(shared_target(f), g);
  }

 private:
  template <int D>
  static Value<double, D> zero() {
    if constexpr (D == 1) return 0.0;
    else return Vec<double, D>::zero();
  }
};

// A named kernel over `elements` elements, optionally with an incidence, and the workspace its
// adjoint needs (allocated on first use, reused afterwards: no allocation inside a step).
class Kernel {
 public:
  Kernel() = default;
  Kernel(std::string name, Index elements) : name_(std::move(name)), elements_(elements) {}
  Kernel(std::string name, const Incidence* incidence)
      : name_(std::move(name)), incidence_(incidence), elements_(incidence->elements()) {}

  const std::string& name() const { return name_; }
  Index elements() const { return elements_; }

  // Runs the body on every element.
  template <class Body>
  void forward(const Body& body) {
    FirstNonFinite bad;
    parallel_for_blocks(elements_, [&](Index first, Index last) {
      for (Index e = first; e < last; ++e) {
        ForwardElement element(e, incidence_);
        body(element);
        if (!element.finite()) {
          bad.note(e);
          break;
        }
      }
    });
    bad.raise_if_any(name_, false);
  }

  // Sum over elements of the body's value, in a fixed order.
  template <class Body>
  double sum(const Body& body) {
    block_sums_.assign(static_cast<std::size_t>(block_count(elements_)), 0.0);
    FirstNonFinite bad;
    parallel_for_indexed_blocks(elements_, [&](Index b, Index first, Index last) {
      double s = 0.0;
      for (Index e = first; e < last; ++e) {
        ForwardElement element(e, incidence_);
        const double v = body(element);
        if (!std::isfinite(v)) bad.note(e);
        s += v;
      }
      block_sums_[b] = s;
    });
    bad.raise_if_any(name_, false);
    double total = 0.0;
    for (double s : block_sums_) total += s;
    return total;
  }

  // Accumulates input adjoints: the hand-written adjoint if the body has one, else the derived.
  template <class Body>
  void adjoint(const Body& body) {
    if constexpr (requires(AdjointElement& e) { body.adjoint(e); }) {
      run_reverse<AdjointElement>(body, [](const Body& b, AdjointElement& e) { b.adjoint(e); });
    } else {
      derived_adjoint(body);
    }
  }

  // Accumulates input adjoints by re-running the body on the local reverse-mode scalar.
  template <class Body>
  void derived_adjoint(const Body& body) {
    run_reverse<ReverseElement>(body, [](const Body& b, ReverseElement& e) {
      ad::LocalTape& tape = *ad::active_tape;
      tape.reset();
      b(e);
      e.backpropagate(tape);
    });
  }

  // Accumulates input adjoints of sum(body) given d(loss)/d(sum) = seed.
  template <class Body>
  void sum_adjoint(const Body& body, double seed) {
    run_reverse<ReverseElement>(body, [seed](const Body& b, ReverseElement& e) {
      ad::LocalTape& tape = *ad::active_tape;
      tape.reset();
      const ad::Var v = b(e);
      e.backpropagate(tape, v, seed);
    });
  }

 private:
  // Shared driver of all reverse passes: gathered buffers, per-block partials, deposits.
  template <class ElementType, class Body, class Run>
  void run_reverse(const Body& body, const Run& run);

  std::string name_;
  const Incidence* incidence_ = nullptr;
  Index elements_ = 0;
  std::vector<double> block_sums_;
  std::vector<detail::GatheredAdjoint> gathered_;
  std::vector<detail::SharedPartials> shared_;
};

template <class ElementType, class Body, class Run>
void Kernel::run_reverse(const Body& body, const Run& run) {
  // Prepare one slot-indexed buffer per gathered field (capacity kept across calls).
  std::size_t count = 0;
  if constexpr (requires { body.gathered(); }) {
    if (incidence_ == nullptr) throw std::logic_error("kernel " + name_ + ": gathered() without an incidence");
    for (const FieldRef& f : body.gathered()) {
      if (f.adjoint == nullptr) continue;
      if (gathered_.size() <= count) gathered_.emplace_back();
      detail::GatheredAdjoint& g = gathered_[count++];
      g.node_adjoint = f.adjoint;
      g.dim = f.dim;
      g.slot_adjoint.resize(static_cast<std::size_t>(elements_ * incidence_->arity() * f.dim));
    }
  }
  gathered_.resize(count);
  const Index blocks = block_count(elements_);
  if (static_cast<Index>(shared_.size()) < blocks) shared_.resize(static_cast<std::size_t>(blocks));

  FirstNonFinite bad;
  std::atomic<bool> misuse = false;
  parallel_for_indexed_blocks(elements_, [&](Index b, Index first, Index last) {
    detail::SharedPartials& partials = shared_[b];
    partials.count = 0;
    ad::thread_tape();
    const int arity = incidence_ ? incidence_->arity() : 0;
    for (Index e = first; e < last; ++e) {
      for (detail::GatheredAdjoint& g : gathered_)
        std::memset(g.slot_adjoint.data() + e * arity * g.dim, 0, sizeof(double) * arity * g.dim);
      ElementType element(e, incidence_, &gathered_, &partials);
      run(body, element);
      if (element.misuse()) misuse = true;
      if (!element.finite_) {
        bad.note(e);
        break;
      }
    }
  });
  if (misuse)
    throw std::logic_error("kernel " + name_ +
                           ": a field read through a slot is missing from gathered(), or an element "
                           "has too many inputs or shared fields");
  bad.raise_if_any(name_, true);

  for (const detail::GatheredAdjoint& g : gathered_)
    sum_slots_to_nodes(*incidence_, g.slot_adjoint.data(), g.node_adjoint, g.dim, /*accumulate=*/true);
  for (Index b = 0; b < blocks; ++b) {
    const detail::SharedPartials& partials = shared_[b];
    for (int k = 0; k < partials.count; ++k)
      for (int c = 0; c < partials.entries[k].dim; ++c) partials.entries[k].target[c] += partials.entries[k].sum[c];
  }
}

}  // namespace simgrad
