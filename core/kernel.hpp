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
// the node fields in `scattered()`. Neither uses atomics: every node receives its contributions
// (scattered values, or adjoints of slot reads) in ascending slot order, whatever the number of
// threads. Each thread takes a contiguous run of elements and adds straight to the nodes it is
// the first to touch; a later thread's contributions to a node an earlier one touched go to
// per-(element, slot) entries that are added in slot order afterwards (see Partition in
// incidence.hpp). A scattered field is overwritten by the kernel (it holds the sum of the
// contributions, nothing else).
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
// A body with no branch on values may also run on small groups of elements at once, one per
// SIMD lane, with the same results bit for bit (lanes.hpp).
//
// Every loop runs over fixed-size blocks (parallel.hpp); shared-parameter adjoints are summed
// per block and then in block order, so results are identical for any thread count. A kernel
// over one process's part of a split model (split_over) adds every process's blocks in the whole
// model's block order, so its results are also identical for any number of processes.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/field.hpp"
#include "core/incidence.hpp"
#include "core/lanes.hpp"
#include "core/local_ad.hpp"
#include "core/parallel.hpp"
#include "core/subdomain.hpp"

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

// A node field that a kernel scatters into (values) or gathers from (adjoints), with what it
// needs to sum contributions without atomics (see Partition in incidence.hpp): per-(element,
// slot) entries for slots whose node is shared between parts, and, per part, the current
// element's entries (`scratch`) for derived adjoints, which may add to one slot several times.
// Each node receives its contributions in ascending slot order, after the value it already had,
// whatever the number of parts.
//
// A scatter, and a hand-written adjoint's deposit, reaches each (field, slot) at most once per
// element and goes straight to a private node; a derived adjoint's deposits are summed per slot
// in the scratch first, then moved on when the element is done.
struct SlotBuffer {
  double* node_field = nullptr;  // the node field's adjoint (gathered) or value (scattered)
  int dim = 0;
  Buffer slots;                  // entries of slots whose node is shared (unused with one part)
  std::vector<Buffer> scratch;   // per part

  double* entry(const Incidence& incidence, Index e, int s) { return slots.data() + (e * incidence.arity() + s) * dim; }
};

// The buffer of node field `node_field`, or null when the field is not listed.
inline SlotBuffer* find_buffer(std::vector<SlotBuffer>& buffers, const double* node_field) {
  for (SlotBuffer& b : buffers)
    if (b.node_field == node_field) return &b;
  return nullptr;
}

// With several parts: zeroes the entries of element e's slots whose contributions go through
// entries (its part is not the node's first), which those contributions add to.
inline void zero_shared_entries(std::vector<SlotBuffer>& buffers, const Incidence& incidence,
                                const Partition& partition, Index e, int part) {
  for (int s = 0; s < incidence.arity(); ++s)
    if (partition.through_entries(incidence.node(e, s), part))
      for (SlotBuffer& b : buffers) {
        double* entry = b.entry(incidence, e, s);
        for (int c = 0; c < b.dim; ++c) entry[c] = 0.0;
      }
}

// Zeroes part p's scratch, before a derived adjoint deposits into it.
inline void begin_staging(std::vector<SlotBuffer>& buffers, int arity, int part) {
  for (SlotBuffer& b : buffers) {
    double* scratch = b.scratch[static_cast<std::size_t>(part)].data();
    for (int i = 0, n = arity * b.dim; i < n; ++i) scratch[i] = 0.0;
  }
}

// Moves part p's scratch on: added to the nodes it reaches first, stored in the entries of the
// others.
inline void end_staging(std::vector<SlotBuffer>& buffers, const Incidence& incidence, const Partition& partition,
                        Index e, int part) {
  for (SlotBuffer& b : buffers) {
    const double* scratch = b.scratch[static_cast<std::size_t>(part)].data();
    for (int s = 0; s < incidence.arity(); ++s) {
      const Index n = incidence.node(e, s);
      const bool entry = partition.through_entries(n, part);
      double* target = entry ? b.entry(incidence, e, s) : b.node_field + n * b.dim;
      for (int c = 0; c < b.dim; ++c) {
        if (entry) target[c] = scratch[s * b.dim + c];
        else target[c] += scratch[s * b.dim + c];
      }
    }
  }
}

// Adds the entries of every shared node's slots to it, in slot order.
void sum_shared_entries(const Incidence& incidence, const Partition& partition, std::vector<SlotBuffer>& buffers);

// What an element needs to reach its slots: the incidence, the partition of the elements, its
// part, and the kernel's slot buffers (scattered or gathered fields).
struct SlotContext {
  const Incidence* incidence = nullptr;
  const Partition* partition = nullptr;
  int part = 0;
  std::vector<SlotBuffer>* buffers = nullptr;
};

// Where the adjoints of one element's inputs go: own entries directly, slot reads to the nodes
// (see SlotBuffer), shared reads into the block's partials.
//
// kStaged: a derived adjoint, whose slot deposits are summed in the part's scratch first.
// kPartitioned: several parts, so a slot's node may be shared (one part: every node private).
template <bool kStaged, bool kPartitioned>
class DepositTargets {
 public:
  DepositTargets(Index e, const SlotContext* context, SharedPartials* shared)
      : e_(e), context_(context), incidence_(context ? context->incidence : nullptr), shared_(shared) {
    if constexpr (kPartitioned) {
      first_part_ = context->partition->first_part.data();
      part_ = context->part;
    }
    // Bodies look their nodes up many times (reads, output adjoints, deposits): look once.
    if (incidence_ != nullptr)
      for (int s = 0; s < std::min(incidence_->arity(), kCachedNodes); ++s) nodes_[s] = incidence_->node(e, s);
  }

  Index index() const { return e_; }
  bool misuse() const { return misuse_; }
  // How many slots the element has (0 without an incidence).
  int arity() const { return incidence_ == nullptr ? 0 : incidence_->arity(); }
  // The node at slot s of this element.
  // Bodies name their slots by constants, so the test on s folds away once inlined.
  Index node(int s) const { return s < kCachedNodes ? nodes_[s] : incidence_->node(e_, s); }

 protected:
  static constexpr int kCachedNodes = 8;
  template <int D>
  double* own_target(const Field<D>& f) const {
    return f.adjoint == nullptr ? nullptr : f.adjoint + e_ * D;
  }
  template <int D>
  double* slot_target(const Field<D>& f, int s) {
    if (f.adjoint == nullptr) return nullptr;
    if constexpr (!kStaged) {
      const Index n = node(s);
      if (!kPartitioned || part_ <= first_part_[n]) return f.adjoint + n * D;
    }
    SlotBuffer* b = find_buffer(*context_->buffers, f.adjoint);
    if (b == nullptr) {
      misuse_ = true;  // read through a slot but not listed in gathered()
      return nullptr;
    }
    if constexpr (kStaged) return b->scratch[static_cast<std::size_t>(context_->part)].data() + s * D;
    return b->entry(*incidence_, e_, s);
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
  // Adds g to target[0..D) unless the input is not differentiated. Always inlined: a hand-written
  // adjoint makes several deposits an element, and a call for each measured 4% more instructions
  // in the jelly's gradient (callgrind).
  template <int D>
  [[gnu::always_inline]] void deposit(double* target, const Value<double, D>& g) {
    if (target == nullptr) return;
    for (int c = 0; c < D; ++c) {
      const double x = component<double, D>(g, c);
      target[c] += x;
    }
  }

  Index e_;
  const SlotContext* context_;
  const Incidence* incidence_;
  SharedPartials* shared_;
  std::array<Index, kCachedNodes> nodes_;
  // The partition's per-node first parts and this element's part, held here rather than reached
  // through the context at every deposit: the deposits' stores could otherwise make the compiler
  // reload that chain.
  const std::uint16_t* first_part_ = nullptr;
  int part_ = 0;
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

// How a forward element scatters: straight into the nodes (one part), into private nodes or
// shared entries (several parts), or not at all, only checking the values (diagnose).
enum class ScatterMode { kPrivate, kPartitioned, kDiagnose };

// The element view of the forward pass.
template <ScatterMode kMode = ScatterMode::kPrivate>
class ForwardElementT : public PlainReads<ForwardElementT<kMode>> {
 public:
  using Scalar = double;
  ForwardElementT(Index e, const detail::SlotContext* context)
      : e_(e), context_(context), incidence_(context ? context->incidence : nullptr) {
    if constexpr (kMode == ScatterMode::kPartitioned) {
      first_part_ = context->partition->first_part.data();
      part_ = context->part;
    }
  }

  Index index() const { return e_; }
  // How many slots the element has (0 without an incidence).
  int arity() const { return incidence_ == nullptr ? 0 : incidence_->arity(); }
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
    }
    const Index n = node(s);
    double* out = f.value + n * D;
    if constexpr (kMode == ScatterMode::kPartitioned) {
      if (part_ > first_part_[n]) {
        detail::SlotBuffer* b = detail::find_buffer(*context_->buffers, f.value);
        if (b == nullptr) {
          misuse_ = true;  // scattered into a field not listed in scattered()
          return;
        }
        out = b->entry(*incidence_, e_, s);
      }
    }
    for (int c = 0; c < D; ++c) out[c] += component<double, D>(v, c);
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
  const detail::SlotContext* context_;
  const Incidence* incidence_;
  const std::uint16_t* first_part_ = nullptr;  // as in DepositTargets
  int part_ = 0;
  bool nonfinite_ = false;
  bool misuse_ = false;
};

using ForwardElement = ForwardElementT<ScatterMode::kPrivate>;

// The element view when the adjoint is derived: reads become tape inputs, writes are remembered
// so their adjoints can seed the sweep.
class ReverseElement : public detail::DepositTargets<true, false> {
 public:
  using Scalar = ad::Var;
  static constexpr int kMaxRecords = 128;  // a four-wheel car reads 70 inputs
  using DepositTargets::DepositTargets;

  template <int D>
  Value<ad::Var, D> own(const Field<D>& f) {
    return records_.template read<D>(f.value + e_ * D, own_target(f), misuse_);
  }
  template <int D>
  Value<ad::Var, D> slot(const Field<D>& f, int s) {
    return records_.template read<D>(f.value + incidence_->node(e_, s) * D, slot_target(f, s), misuse_);
  }
  template <int D>
  Value<ad::Var, D> shared(const Field<D>& f) {
    return records_.template read<D>(f.value, shared_target(f), misuse_);
  }
  template <int D>
  void write(const Field<D>& f, const Value<ad::Var, D>& v) {
    if (f.adjoint != nullptr) records_.template remember_output<D>(f.adjoint + e_ * D, v, misuse_);
  }
  template <int D>
  void write_slot(const Field<D>& f, int s, const Value<ad::Var, D>& v) {
    if (f.adjoint != nullptr)
      records_.template remember_output<D>(f.adjoint + (e_ * incidence_->arity() + s) * D, v, misuse_);
  }
  // A scattered contribution's adjoint is its node's adjoint: the gather's adjoint is a read.
  template <int D>
  void scatter(const Field<D>& f, int s, const Value<ad::Var, D>& v) {
    if (f.adjoint != nullptr) records_.template remember_output<D>(f.adjoint + incidence_->node(e_, s) * D, v, misuse_);
  }

  // Seeds the outputs' adjoints (and `seed` on `value`, for a summed body), sweeps the tape and
  // deposits the inputs' adjoints.
  void backpropagate(ad::LocalTape& tape, const ad::Var& value = ad::Var(), double seed = 0.0) {
    nonfinite_ |= !records_.backpropagate(tape, value.i, seed);
  }

 private:
  detail::TapeRecords<kMaxRecords> records_;
};

// The element view of a hand-written adjoint: plain reads, output adjoints, and deposits.
template <bool kPartitioned>
class AdjointElementT : public detail::DepositTargets<false, kPartitioned>,
                        public PlainReads<AdjointElementT<kPartitioned>> {
  using Base = detail::DepositTargets<false, kPartitioned>;
  using Base::e_;
  using Base::context_;
  using Base::incidence_;
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
    // The derived deposits are summed per slot first, as the engine does for derived adjoints.
    const bool slots = context_ != nullptr && context_->buffers != nullptr && !context_->buffers->empty();
    if (slots) detail::begin_staging(*context_->buffers, incidence_->arity(), context_->part);
    ReverseElement element(e_, context_, shared_);
    ad::LocalTape& tape = *ad::active_tape;
    tape.reset();
    body(element);
    element.backpropagate(tape);
    misuse_ = misuse_ || element.misuse();
    nonfinite_ |= !element.finite();
    if (slots) detail::end_staging(*context_->buffers, *incidence_, *context_->partition, e_, context_->part);
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

// Whether a body's forward pass, or its hand-written adjoint, also runs on groups of elements,
// one per SIMD lane (lanes.hpp).
template <class Body>
inline constexpr bool kForwardInLanes = requires { requires Body::kForwardLanes; };
template <class Body>
inline constexpr bool kAdjointInLanes = requires { requires Body::kAdjointLanes; };

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

  // Makes this a kernel over one process's elements of a split model: its elements are the
  // subdomain's own (element e is the whole model's subdomain.first() + e), and sum() and the
  // shared-field adjoints add every process's per-block values in the whole model's block order,
  // the whole model's kernel's bits. `shared` lists every field the body reads through
  // e.shared() (adjoint null where not differentiated). sum() and the reverse passes are then
  // collective. Called again with the same subdomain (to update the list: an adjoint enabled
  // since), it allocates nothing.
  void split_over(const Subdomain& subdomain, std::span<const FieldRef> shared = {});

  // Runs the body on every element; scattered fields then hold the sums of their contributions.
  template <class Body>
  void forward(const Body& body) {
    const detail::SlotContext context = begin_pass(nullptr);
    std::size_t count = 0;
    if constexpr (requires { body.scattered(); })
      for (const FieldRef& f : body.scattered()) {
        prepare_slots(scattered_, count, f.value, f.dim);
        std::fill(f.value, f.value + f.size * f.dim, 0.0);
      }
    scattered_.resize(count);
    detail::SlotContext scatter = context;
    scatter.buffers = &scattered_;
    const bool partitioned = context.partition != nullptr && context.partition->parts > 1;
    FirstNonFinite bad;
    std::atomic<bool> misuse = false;
    auto elements = [&]<ScatterMode kMode>(const detail::SlotContext& local, Index first, Index last) {
      for (Index e = first; e < last;) {
        // Groups of lanes while they can, then elements one by one: a group that cannot run in
        // lanes, or the elements left at the end.
        Index one_by_one = last;
        if constexpr (kForwardInLanes<Body>) {
          auto zero_shared = [&](Index k) {
            if constexpr (kMode == ScatterMode::kPartitioned)
              detail::zero_shared_entries(scattered_, *incidence_, *context.partition, k, local.part);
          };
          auto run = [&](auto& group) { body(group); };
          if (!run_lane_groups<ForwardElementT<kMode>>(e, last, zero_shared, run, bad, misuse, &local)) return;
          one_by_one = std::min(last, e + kLaneCount);
        }
        for (; e < one_by_one; ++e) {
          if constexpr (kMode == ScatterMode::kPartitioned)
            detail::zero_shared_entries(scattered_, *incidence_, *context.partition, e, local.part);
          ForwardElementT<kMode> element(e, &local);
          body(element);
          if (element.misuse()) misuse = true;
          if (!element.finite()) {
            bad.note(e);
            return;
          }
        }
      }
    };
    if (partitioned && !scattered_.empty()) {
      const std::uint8_t* block_shared = context.partition->block_shared.data();
      for_each_block(context, [&](int part, Index b, Index first, Index last) {
        detail::SlotContext local = scatter;
        local.part = part;
        if (block_shared[b])
          elements.template operator()<ScatterMode::kPartitioned>(local, first, last);
        else
          elements.template operator()<ScatterMode::kPrivate>(local, first, last);
      });
    } else {
      // One part (every node private) or nothing scattered: the plain block loop.
      parallel_for_blocks(elements_, [&](Index first, Index last) {
        elements.template operator()<ScatterMode::kPrivate>(scatter, first, last);
      });
    }
    if (misuse) throw std::logic_error("kernel " + name_ + ": scatter into a field missing from scattered()");
    bad.raise_if_any(name_, false);
    if (partitioned && !scattered_.empty()) detail::sum_shared_entries(*incidence_, *context.partition, scattered_);
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
      const detail::SlotContext context{incidence_, nullptr, 0, nullptr};
      for (Index e = first; e < last; ++e) {
        ForwardElement element(e, &context);
        const double v = body(element);
        if (!std::isfinite(v)) bad.note(e);
        s += v;
      }
      block_sums_[b] = s;
    });
    if (split_ != nullptr) return split_sum(bad);  // collective: every process gathers, then raises
    bad.raise_if_any(name_, false);
    double total = 0.0;
    for (double s : block_sums_) total += s;
    return total;
  }

  // Accumulates input adjoints: the hand-written adjoint if the body has one, else the derived.
  template <class Body>
  void adjoint(const Body& body) {
    if constexpr (requires(AdjointElement& e) { body.adjoint(e); }) {
      if (pass_parts() > 1)
        run_reverse<AdjointElementT<true>>(body, [](const Body& b, auto& e) { b.adjoint(e); });
      else
        run_reverse<AdjointElement>(body, [](const Body& b, auto& e) { b.adjoint(e); });
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
  // sum() over a split model: every process's block sums, in the whole model's order. Raises on
  // every process when any block's sum is not finite (the process that noted it, `bad`, names
  // the element).
  double split_sum(const FirstNonFinite& bad);
  // Adds the shared partials of the `blocks` own blocks, and the other processes', to the
  // shared fields' adjoints in the whole model's block order.
  void flush_split_shared(Index blocks);
  // Shared driver of all reverse passes: gathered buffers, per-block partials, deposits.
  template <class ElementType, class Body, class Run>
  void run_reverse(const Body& body, const Run& run);
  // Runs the groups of lanes (lanes.hpp) from element e on while they can run in lanes, moving e
  // past them; false when an element went non-finite (noted in `bad`). zero_shared(k) prepares
  // element k's shared slot entries; run(group) runs the body.
  template <class Lane, class ZeroShared, class Run, class... LaneArgs>
  bool run_lane_groups(Index& e, Index last, const ZeroShared& zero_shared, const Run& run, FirstNonFinite& bad,
                       std::atomic<bool>& misuse, const LaneArgs&... lane_args) const {
    for (; e + kLaneCount <= last; e += kLaneCount) {
      if (incidence_ != nullptr && incidence_->group_crosses_slots(e)) break;
      LanesElement<Lane> group(e, lane_args...);
      for (int l = 0; l < kLaneCount; ++l) zero_shared(e + l);
      run(group);
      if (group.misuse()) misuse = true;
      if (const int l = group.first_nonfinite(); l >= 0) {
        bad.note(e + l);
        return false;
      }
    }
    return true;
  }
  // Makes buffers[count++] the slot buffer of node field `node_field` (capacity kept across calls).
  void prepare_slots(std::vector<detail::SlotBuffer>& buffers, std::size_t& count, double* node_field, int dim) {
    if (incidence_ == nullptr) throw std::logic_error("kernel " + name_ + ": slot fields need an incidence");
    if (dim > 16) throw std::logic_error("kernel " + name_ + ": slot fields have at most 16 components");
    if (buffers.size() <= count) buffers.emplace_back();
    detail::SlotBuffer& b = buffers[count++];
    b.node_field = node_field;
    b.dim = dim;
    const int parts = pass_parts();
    const std::size_t per_element = static_cast<std::size_t>(incidence_->arity() * dim);
    b.scratch.resize(static_cast<std::size_t>(parts));
    for (Buffer& s : b.scratch) s.resize(per_element);
    if (parts > 1) b.slots.resize(static_cast<std::size_t>(elements_) * per_element);
  }
  // Re-runs every element serially, checking its scattered values, and raises the first bad one.
  template <class Body>
  [[noreturn]] void diagnose_scatter(const Body& body) {
    const detail::SlotContext context{incidence_, nullptr, 0, &scattered_};
    for (Index e = 0; e < elements_; ++e) {
      ForwardElementT<ScatterMode::kDiagnose> element(e, &context);
      body(element);
      if (!element.finite()) throw NonFiniteError(name_, e, false);
    }
    throw NonFiniteError(name_ + " (scattered sum)", 0, false);
  }
  // How many parts a pass splits the elements into: one per thread, or one when the loop runs
  // on one thread anyway (or the kernel has no incidence, hence no slots).
  int pass_parts() const { return incidence_ == nullptr || runs_serially(elements_) ? 1 : thread_count(); }
  // The slot context of a pass: incidence and partition.
  detail::SlotContext begin_pass(std::vector<detail::SlotBuffer>* buffers) const {
    if (incidence_ == nullptr) return {nullptr, nullptr, 0, buffers};
    return {incidence_, &incidence_->partition(pass_parts()), 0, buffers};
  }
  // Calls body(part, block, first, last) for every block: in parallel over the partition's parts,
  // each part's blocks in order; without an incidence, in parallel over blocks.
  template <class Body>
  void for_each_block(const detail::SlotContext& context, const Body& body) const {
    if (context.partition == nullptr) {
      parallel_for_indexed_blocks(elements_, [&](Index b, Index first, Index last) { body(0, b, first, last); });
      return;
    }
    const Partition& p = *context.partition;
    auto run_part = [&](int part) {
      for (Index b = p.first_block[part]; b < p.first_block[part + 1]; ++b)
        body(part, b, b * kBlockSize, std::min((b + 1) * kBlockSize, elements_));
    };
    if (p.parts == 1) {
      run_part(0);
      return;
    }
    parallel_parts(p.parts, run_part);
  }

  std::string name_;
  const Incidence* incidence_ = nullptr;
  Index elements_ = 0;
  std::vector<double> block_sums_;
  std::vector<detail::SlotBuffer> gathered_;
  std::vector<detail::SlotBuffer> scattered_;
  std::vector<detail::SharedPartials> shared_;
  // Split over processes (split_over): the shared fields, and the rows gathered for sum() and
  // for the shared adjoints (per block: a flag, then the sum, for each shared field).
  const Subdomain* split_ = nullptr;
  std::vector<FieldRef> split_shared_;
  std::shared_ptr<BlockRows> sum_rows_, shared_rows_;
};

template <class ElementType, class Body, class Run>
void Kernel::run_reverse(const Body& body, const Run& run) {
  // One slot buffer per differentiated gathered field.
  std::size_t count = 0;
  if constexpr (requires { body.gathered(); })
    for (const FieldRef& f : body.gathered())
      if (f.adjoint != nullptr) prepare_slots(gathered_, count, f.adjoint, f.dim);
  gathered_.resize(count);
  const detail::SlotContext context = begin_pass(&gathered_);
  const bool partitioned = context.partition != nullptr && context.partition->parts > 1;
  constexpr bool staged = std::is_same_v<ElementType, ReverseElement>;
  const bool slots = !gathered_.empty();
  const Index blocks = block_count(elements_);
  if (static_cast<Index>(shared_.size()) < blocks) shared_.resize(static_cast<std::size_t>(blocks));

  FirstNonFinite bad;
  std::atomic<bool> misuse = false;
  // The elements [first, last) of one block through views of type Element; `shares_nodes`: the
  // block touches a node shared between parts. False when an element went non-finite.
  auto elements = [&]<class Element>(detail::SlotContext& local, detail::SharedPartials& partials, Index first,
                                     Index last, bool shares_nodes) {
    for (Index e = first; e < last;) {
      // As in forward(): groups of lanes while they can, then elements one by one.
      Index one_by_one = last;
      if constexpr (kAdjointInLanes<Body> && !staged) {
        auto zero_shared = [&](Index k) {
          if (slots && shares_nodes) detail::zero_shared_entries(gathered_, *incidence_, *context.partition, k, local.part);
        };
        auto run_group = [&](auto& group) { run(body, group); };
        if (!run_lane_groups<Element>(e, last, zero_shared, run_group, bad, misuse, &local, &partials)) return false;
        one_by_one = std::min(last, e + kLaneCount);
      }
      for (; e < one_by_one; ++e) {
        if (slots) {
          if (staged) detail::begin_staging(gathered_, incidence_->arity(), local.part);
          else if (shares_nodes) detail::zero_shared_entries(gathered_, *incidence_, *context.partition, e, local.part);
        }
        Element element(e, &local, &partials);
        run(body, element);
        if (staged && slots) detail::end_staging(gathered_, *incidence_, *context.partition, e, local.part);
        if (element.misuse()) misuse = true;
        if (!element.finite()) {
          bad.note(e);
          return false;
        }
      }
    }
    return true;
  };
  for_each_block(context, [&](int part, Index b, Index first, Index last) {
    detail::SharedPartials& partials = shared_[b];
    partials.count = 0;
    ad::thread_tape();
    detail::SlotContext local = context;
    local.part = part;
    // A block that touches no shared node deposits as with one part (see Partition::block_shared).
    if constexpr (std::is_same_v<ElementType, AdjointElementT<true>>)
      if (!context.partition->block_shared[b]) {
        elements.template operator()<AdjointElementT<false>>(local, partials, first, last, false);
        return;
      }
    elements.template operator()<ElementType>(local, partials, first, last, partitioned);
  });
  if (misuse)
    throw std::logic_error("kernel " + name_ +
                           ": a field read through a slot is missing from gathered(), or an element "
                           "has too many inputs or shared fields");
  // Split, a process that met a non-finite value still takes part in the gather: every process
  // raises together, or the others would wait for it.
  if (split_ != nullptr && split_->any(bad.any())) {
    bad.raise_if_any(name_, true);
    throw NonFiniteError(name_, -1, true);
  }
  bad.raise_if_any(name_, true);

  if (partitioned && slots) detail::sum_shared_entries(*incidence_, *context.partition, gathered_);
  if (split_ != nullptr) return flush_split_shared(blocks);
  for (Index b = 0; b < blocks; ++b) {
    const detail::SharedPartials& partials = shared_[b];
    for (int k = 0; k < partials.count; ++k)
      for (int c = 0; c < partials.entries[k].dim; ++c) partials.entries[k].target[c] += partials.entries[k].sum[c];
  }
}

}  // namespace simgrad
