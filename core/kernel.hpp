// Kernels: data-parallel loops over elements whose body is written once, generic in the scalar.
//
// A body is a callable `template <class E> void operator()(E& e) const` that reads its inputs
// through the element view `e` and writes its outputs through it:
//   e.own(f)            entry e of field f (per-element data: a spring's stiffness)
//   e.slot(f, s)        field f at the node in slot s of element e (a spring's end points)
//   e.shared(f)         entry 0 of f (a parameter shared by all elements: gravity)
//   e.write(f, v)       entry e of output field f
//   e.write_slot(f,s,v) entry (e, s) of an output field with one entry per slot
//   e.scatter(f, s, v)  adds v to node field f at the node in slot s (a spring's force on its ends);
//                       at most once per field and slot in an element
// `typename E::Scalar` is double in the forward pass and ad::Var when the adjoint is derived.
// A body that reads fields through slots lists them in `gathered()`, and one that scatters lists
// the node fields in `scattered()`. Neither uses atomics: a scatter is written per (element,
// slot) and each node then sums its slots in a fixed order over the incidence transpose; the
// adjoints of slot reads are summed back into nodes the same way. A scattered field is
// overwritten by the kernel (it holds the sum of the contributions, nothing else).
//
// The adjoint of a kernel accumulates, for every element, the vector-Jacobian product of the body
// into the adjoints of its inputs, given the adjoints of its outputs. By default the engine
// derives it by re-running the body on ad::Var (local_ad.hpp) and sweeping back. A body may
// instead define `template <class E> void adjoint(E& e) const` (E an AdjointElementT), a
// hand-written adjoint, which is then used. It reads values and output adjoints
// (output_adjoint, scattered_adjoint) and adds input adjoints (add_own, add_slot, add_shared),
// at most once per field and slot; for a case it does not cover it may call e.derive(*this) to
// have the engine derive that element. `derived_adjoint` always runs the derived adjoint, so
// the tests can compare the two.
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

// Whether all n values are finite (a parallel scan).
bool all_finite(const double* values, Index n);

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

// A per-(element, slot) buffer in front of a node field: the adjoints of a gathered field's
// slot reads, or a scattered field's contributions. Each node receives the sum of its slots'
// entries, in ascending slot order, after any value it already had.
//
// Run in parallel, every element fills its own entries of `slots` and a pass over the nodes sums
// them. Run serially (one thread, or a single block) elements come in ascending order, so adding
// each element's entries to the nodes as soon as it is done gives the same sums in the same
// order, bit for bit, without the buffer's memory traffic: a scatter (one value per slot) goes
// straight to its node; adjoint deposits, of which a slot may receive several, are first summed
// in `scratch`, the current element's entries only.
//
// A hand-written adjoint adds to each (field, slot) at most once per element, like a scatter;
// run serially, its deposits go straight to the nodes (AdjointElementT<true>).
struct SlotBuffer {
  double* node_field = nullptr;  // the node field's adjoint (gathered) or value (scattered)
  int dim = 0;
  bool serial = false;
  Buffer slots;
  Buffer scratch;

  double* entry(const Incidence& incidence, Index e, int s) {
    return serial ? scratch.data() + s * dim : slots.data() + (e * incidence.arity() + s) * dim;
  }
};

// The slot entry of field `node_field` for (e, s), or null when the field is not listed.
inline double* slot_entry(std::vector<SlotBuffer>& buffers, const double* node_field, const Incidence& incidence,
                          Index e, int s) {
  for (SlotBuffer& b : buffers)
    if (b.node_field == node_field) return b.entry(incidence, e, s);
  return nullptr;
}

// Zeroes element e's entries, before the element adds to them.
inline void begin_element(std::vector<SlotBuffer>& buffers, const Incidence& incidence, Index e) {
  for (SlotBuffer& b : buffers) {
    double* entries = b.entry(incidence, e, 0);
    for (int i = 0, n = incidence.arity() * b.dim; i < n; ++i) entries[i] = 0.0;
  }
}

// Serially: adds element e's entries to their nodes, slot by slot.
inline void end_element(std::vector<SlotBuffer>& buffers, const Incidence& incidence, Index e) {
  const int arity = incidence.arity();
  for (SlotBuffer& b : buffers)
    for (int s = 0; s < arity; ++s) {
      double* node = b.node_field + incidence.node(e, s) * b.dim;
      const double* add = b.scratch.data() + s * b.dim;
      for (int c = 0; c < b.dim; ++c) node[c] += add[c];
    }
}

// In parallel: sums every buffer's slots into its node field, one pass over the nodes.
void sum_slot_buffers(const Incidence& incidence, std::vector<SlotBuffer>& buffers, bool accumulate);

// Where the adjoints of one element's inputs go: own entries directly, slot reads into the
// gathered buffers, shared reads into the block's partials.
//
// kDirect: run serially with a hand-written adjoint, slot deposits go straight to the nodes'
// adjoints (see SlotBuffer), with no buffer lookup at all.
template <bool kDirect = false>
class DepositTargets {
 public:
  DepositTargets(Index e, const Incidence* incidence, std::vector<SlotBuffer>* gathered,
                 SharedPartials* shared)
      : e_(e), incidence_(incidence), gathered_(gathered), shared_(shared) {
    // Bodies look their nodes up many times (reads, output adjoints, deposits): look once.
    if (incidence != nullptr && incidence->arity() <= kCachedNodes)
      for (int s = 0; s < incidence->arity(); ++s) nodes_[s] = incidence->node(e, s);
  }

  Index index() const { return e_; }
  bool misuse() const { return misuse_; }
  // The node at slot s of this element.
  Index node(int s) const { return incidence_->arity() <= kCachedNodes ? nodes_[s] : incidence_->node(e_, s); }

 protected:
  static constexpr int kCachedNodes = 8;
  template <int D>
  double* own_target(const Field<D>& f) const {
    return f.adjoint == nullptr ? nullptr : f.adjoint + e_ * D;
  }
  template <int D>
  double* slot_target(const Field<D>& f, int s) {
    if (f.adjoint == nullptr) return nullptr;
    if constexpr (kDirect) return f.adjoint + node(s) * D;
    double* target = slot_entry(*gathered_, f.adjoint, *incidence_, e_, s);
    if (target == nullptr) misuse_ = true;  // read through a slot but not listed in gathered()
    return target;
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
  // Adds g to target[0..D) unless the input is not differentiated.
  template <int D>
  void deposit(double* target, const Value<double, D>& g) {
    if (target == nullptr) return;
    for (int c = 0; c < D; ++c) {
      const double x = component<double, D>(g, c);
      target[c] += x;
    }
  }

  Index e_;
  const Incidence* incidence_;
  std::vector<SlotBuffer>* gathered_;
  SharedPartials* shared_;
  std::array<Index, kCachedNodes> nodes_;
  bool misuse_ = false;
  // A bool, not a double: stores through the double* targets cannot alias it, so it stays in a
  // register instead of making every deposit wait on the last.
  bool nonfinite_ = false;

 public:
  bool finite() const { return !nonfinite_; }
};

}  // namespace detail

// Reads of plain values, shared by the forward view and the hand-written adjoint's view.
template <class Self>
class PlainReads {
 public:
  template <int D>
  Value<double, D> own(const Field<D>& f) const {
    return load<double, D>(f.value, self().index());
  }
  template <int D>
  Value<double, D> slot(const Field<D>& f, int s) const {
    return load<double, D>(f.value, self().node(s));
  }
  template <int D>
  Value<double, D> shared(const Field<D>& f) const {
    return load<double, D>(f.value, 0);
  }

 private:
  const Self& self() const { return static_cast<const Self&>(*this); }
};

// How a forward element scatters: into slot buffers (parallel), straight into the nodes
// (serial), or not at all, only checking the values (diagnose).
enum class ScatterMode { kParallel, kSerial, kDiagnose };

// The element view of the forward pass.
template <ScatterMode kMode = ScatterMode::kParallel>
class ForwardElementT : public PlainReads<ForwardElementT<kMode>> {
 public:
  using Scalar = double;
  ForwardElementT(Index e, const Incidence* incidence, std::vector<detail::SlotBuffer>* scattered = nullptr)
      : e_(e), incidence_(incidence), scattered_(scattered) {}

  Index index() const { return e_; }
  // The node at slot s of this element.
  Index node(int s) const { return incidence_->node(e_, s); }
  template <int D>
  void write(const Field<D>& f, const Value<double, D>& v) {
    store<D>(f.value + e_ * D, v);
  }
  template <int D>
  void write_slot(const Field<D>& f, int s, const Value<double, D>& v) {
    store<D>(f.value + (e_ * incidence_->arity() + s) * D, v);
  }
  template <int D>
  void scatter(const Field<D>& f, int s, const Value<double, D>& v) {
    // Scatters are not checked one by one: the kernel checks the node sums afterwards, and only
    // when one is not finite re-runs the elements with checks on (diagnose) to name the first.
    if constexpr (kMode == ScatterMode::kDiagnose) {
      for (int c = 0; c < D; ++c) nonfinite_ |= !std::isfinite(component<double, D>(v, c));
      return;
    } else if constexpr (kMode == ScatterMode::kSerial) {
      double* out = f.value + node(s) * D;
      for (int c = 0; c < D; ++c) out[c] += component<double, D>(v, c);
      return;
    }
    double* out = detail::slot_entry(*scattered_, f.value, *incidence_, e_, s);
    if (out == nullptr) {
      misuse_ = true;  // scattered into a field not listed in scattered()
      return;
    }
    for (int c = 0; c < D; ++c) out[c] = component<double, D>(v, c);
  }
  bool finite() const { return !nonfinite_; }
  bool misuse() const { return misuse_; }

 private:
  template <int D>
  void store(double* out, const Value<double, D>& v) {
    for (int c = 0; c < D; ++c) {
      out[c] = component<double, D>(v, c);
      nonfinite_ |= !std::isfinite(out[c]);
    }
  }

  Index e_;
  const Incidence* incidence_;
  std::vector<detail::SlotBuffer>* scattered_;
  bool nonfinite_ = false;
  bool misuse_ = false;
};

using ForwardElement = ForwardElementT<ScatterMode::kParallel>;

// The element view when the adjoint is derived: reads become tape inputs, writes are remembered
// so their adjoints can seed the sweep.
class ReverseElement : public detail::DepositTargets<> {
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
  // A scattered contribution's adjoint is its node's adjoint: the gather's adjoint is a read.
  template <int D>
  void scatter(const Field<D>& f, int s, const Value<ad::Var, D>& v) {
    if (f.adjoint != nullptr) remember_output<D>(f.adjoint + incidence_->node(e_, s) * D, v);
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
      nonfinite_ |= !std::isfinite(g);
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
template <bool kDirect>
class AdjointElementT : public detail::DepositTargets<kDirect>, public PlainReads<AdjointElementT<kDirect>> {
  using Base = detail::DepositTargets<kDirect>;
  using Base::e_;
  using Base::incidence_;
  using Base::gathered_;
  using Base::shared_;
  using Base::misuse_;
  using Base::nonfinite_;

 public:
  using Scalar = double;
  using Base::Base;
  using Base::index;
  using Base::node;

  // The adjoint of output entry e of f (zero when f is not differentiated).
  template <int D>
  Value<double, D> output_adjoint(const Field<D>& f) const {
    return f.adjoint == nullptr ? Value<double, D>(zero<D>()) : load<double, D>(f.adjoint, e_);
  }
  // The adjoint of a contribution scattered into node field f at slot s.
  template <int D>
  Value<double, D> scattered_adjoint(const Field<D>& f, int s) const {
    return f.adjoint == nullptr ? Value<double, D>(zero<D>()) : load<double, D>(f.adjoint, node(s));
  }
  template <int D>
  Value<double, D> output_slot_adjoint(const Field<D>& f, int s) const {
    return f.adjoint == nullptr ? Value<double, D>(zero<D>())
                                : load<double, D>(f.adjoint, e_ * incidence_->arity() + s);
  }
  template <int D>
  void add_own(const Field<D>& f, const Value<double, D>& g) {
    this->template deposit<D>(this->own_target(f), g);
  }
  template <int D>
  void add_slot(const Field<D>& f, int s, const Value<double, D>& g) {
    this->template deposit<D>(this->slot_target(f, s), g);
  }
  template <int D>
  void add_shared(const Field<D>& f, const Value<double, D>& g) {
    this->template deposit<D>(this->shared_target(f), g);
  }

  // Runs the derived adjoint of `body` for this element instead: for the cases a hand-written
  // adjoint leaves to the engine (a rare contact branch, say).
  template <class Body>
  void derive(const Body& body) {
    // Serially, the derived deposits are summed per slot first, as the engine does for them.
    if constexpr (kDirect)
      if (!gathered_->empty()) detail::begin_element(*gathered_, *incidence_, e_);
    ReverseElement element(e_, incidence_, gathered_, shared_);
    ad::LocalTape& tape = *ad::active_tape;
    tape.reset();
    body(element);
    element.backpropagate(tape);
    misuse_ = misuse_ || element.misuse();
    nonfinite_ |= !element.finite();
    if constexpr (kDirect)
      if (!gathered_->empty()) detail::end_element(*gathered_, *incidence_, e_);
  }

 private:
  template <int D>
  static Value<double, D> zero() {
    if constexpr (D == 1) return 0.0;
    else return Vec<double, D>::zero();
  }
};

// The element view of a hand-written adjoint, as bodies name it.
using AdjointElement = AdjointElementT<false>;

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

  // Runs the body on every element; scattered fields then hold the sums of their contributions.
  template <class Body>
  void forward(const Body& body) {
    std::size_t count = 0;
    const bool serial = runs_serially();
    if constexpr (requires { body.scattered(); })
      for (const FieldRef& f : body.scattered()) {
        prepare_slots(scattered_, count, f.value, f.dim, serial);
        if (serial) std::fill(f.value, f.value + f.size * f.dim, 0.0);
      }
    scattered_.resize(count);
    FirstNonFinite bad;
    std::atomic<bool> misuse = false;
    auto loop = [&]<ScatterMode kMode>() {
      parallel_for_blocks(elements_, [&](Index first, Index last) {
        for (Index e = first; e < last; ++e) {
          ForwardElementT<kMode> element(e, incidence_, &scattered_);
          body(element);
          if (element.misuse()) misuse = true;
          if (!element.finite()) {
            bad.note(e);
            break;
          }
        }
      });
    };
    if (serial) loop.template operator()<ScatterMode::kSerial>();
    else loop.template operator()<ScatterMode::kParallel>();
    if (misuse) throw std::logic_error("kernel " + name_ + ": scatter into a field missing from scattered()");
    bad.raise_if_any(name_, false);
    if (!scattered_.empty() && !serial) detail::sum_slot_buffers(*incidence_, scattered_, /*accumulate=*/false);
    if constexpr (requires { body.scattered(); })
      for (const FieldRef& f : body.scattered())
        if (!detail::all_finite(f.value, f.size * f.dim)) diagnose_scatter(body);
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
      if (runs_serially())
        run_reverse<AdjointElementT<true>>(body, [](const Body& b, AdjointElementT<true>& e) { b.adjoint(e); });
      else
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
  // Makes buffers[count++] the slot buffer of node field `node_field` (capacity kept across calls).
  void prepare_slots(std::vector<detail::SlotBuffer>& buffers, std::size_t& count, double* node_field, int dim,
                     bool serial) {
    if (incidence_ == nullptr) throw std::logic_error("kernel " + name_ + ": slot fields need an incidence");
    if (buffers.size() <= count) buffers.emplace_back();
    detail::SlotBuffer& b = buffers[count++];
    if (dim > 16) throw std::logic_error("kernel " + name_ + ": slot fields have at most 16 components");
    b.node_field = node_field;
    b.dim = dim;
    b.serial = serial;
    const std::size_t per_element = static_cast<std::size_t>(incidence_->arity() * dim);
    if (serial) b.scratch.resize(per_element);
    else b.slots.resize(static_cast<std::size_t>(elements_) * per_element);
  }
  // Re-runs every element serially, checking its scattered values, and raises the first bad one.
  template <class Body>
  [[noreturn]] void diagnose_scatter(const Body& body) {
    for (Index e = 0; e < elements_; ++e) {
      ForwardElementT<ScatterMode::kDiagnose> element(e, incidence_, &scattered_);
      body(element);
      if (!element.finite()) throw NonFiniteError(name_, e, false);
    }
    throw NonFiniteError(name_ + " (scattered sum)", 0, false);
  }
  // Whether the element loop runs on one thread (then slot sums need no buffer).
  bool runs_serially() const { return simgrad::runs_serially(elements_); }

  std::string name_;
  const Incidence* incidence_ = nullptr;
  Index elements_ = 0;
  std::vector<double> block_sums_;
  std::vector<detail::SlotBuffer> gathered_;
  std::vector<detail::SlotBuffer> scattered_;
  std::vector<detail::SharedPartials> shared_;
};

template <class ElementType, class Body, class Run>
void Kernel::run_reverse(const Body& body, const Run& run) {
  // One slot-indexed buffer per differentiated gathered field.
  std::size_t count = 0;
  const bool serial = runs_serially();
  constexpr bool direct = std::is_same_v<ElementType, AdjointElementT<true>>;
  if constexpr (requires { body.gathered(); })
    for (const FieldRef& f : body.gathered())
      if (f.adjoint != nullptr) prepare_slots(gathered_, count, f.adjoint, f.dim, serial);
  gathered_.resize(count);
  const bool stage = serial && !direct && !gathered_.empty();
  const Index blocks = block_count(elements_);
  if (static_cast<Index>(shared_.size()) < blocks) shared_.resize(static_cast<std::size_t>(blocks));

  FirstNonFinite bad;
  std::atomic<bool> misuse = false;
  parallel_for_indexed_blocks(elements_, [&](Index b, Index first, Index last) {
    detail::SharedPartials& partials = shared_[b];
    partials.count = 0;
    ad::thread_tape();
    for (Index e = first; e < last; ++e) {
      if (!direct && !gathered_.empty()) detail::begin_element(gathered_, *incidence_, e);
      ElementType element(e, incidence_, &gathered_, &partials);
      run(body, element);
      if (stage) detail::end_element(gathered_, *incidence_, e);
      if (element.misuse()) misuse = true;
      if (!element.finite()) {
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

  if (!gathered_.empty() && !serial) detail::sum_slot_buffers(*incidence_, gathered_, /*accumulate=*/true);
  for (Index b = 0; b < blocks; ++b) {
    const detail::SharedPartials& partials = shared_[b];
    for (int k = 0; k < partials.count; ++k)
      for (int c = 0; c < partials.entries[k].dim; ++c) partials.entries[k].target[c] += partials.entries[k].sum[c];
  }
}

}  // namespace simgrad
