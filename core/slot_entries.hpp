// Slot entries: a kernel's elements run in any order, each writing what it contributes to its
// nodes into its own per-(element, slot) entries, and a second pass adds each node's entries to
// it in slot order.
//
// This is how a device scatters without floating-point atomics (docs/gpu.md). In the terms of
// Partition (incidence.hpp) every element is a part of its own, so every node is shared and
// every contribution goes through an entry; the node then receives the same additions in the same
// order as from a one-thread Kernel (kernel.hpp): a scattered field is 0 + c_1 + c_2 + ..., an
// adjoint g + c_1 + c_2 + ..., slot by slot ascending. The results are therefore the host's bits,
// whatever order the elements ran in, and the tests check exactly that, running the elements
// backwards. (nvcc must not contract a * b + c into a fused multiply-add, as the host compilers
// do not: --fmad=false.)
//
// The same element bodies run here as in Kernel: the views below offer the calls a body makes
// (kernel.hpp's list), with the derived adjoint recorded on ad::Var. Everything is SIMGRAD_HD:
// the host runs it in the tests, the device in gpu/device_kernels.cu. Shared-parameter adjoints
// (add_shared), which the host sums per block, are not offered yet: a body that makes one is
// flagged as misused.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/field.hpp"
#include "core/local_ad.hpp"
#include "core/portable.hpp"

namespace simgrad {

// An incidence as plain arrays, which a device can hold: element e's node at slot s is
// nodes[e * arity + s]; the slots k = e * arity + s that touch node n are
// slots[offsets[n] .. offsets[n + 1]), ascending.
struct SlotIncidence {
  const std::int32_t* nodes = nullptr;
  const std::int32_t* offsets = nullptr;
  const std::int32_t* slots = nullptr;
  int arity = 0;
  Index elements = 0;
  Index node_count = 0;
};

// One node field whose contributions go through entries: the field (its values when scattered
// into, its adjoints when read through slots) and its entries, `dim` doubles per slot.
struct SlotEntries {
  const double* node_field = nullptr;
  double* entries = nullptr;
  int dim = 0;
};

// The node fields a kernel routes through entries.
struct EntryTable {
  static constexpr int kMaxFields = 4;
  SlotEntries fields[kMaxFields];
  int count = 0;
};

// Adds node n's entries to it in slot order: after its value when `accumulate` (adjoints), from
// zero otherwise (a scattered field holds the sum of its contributions).
SIMGRAD_HD inline void gather_node(const SlotIncidence& incidence, const SlotEntries& field, double* node_field, Index n,
                                   bool accumulate) {
  constexpr int kMaxDim = 16;
  double sum[kMaxDim];
  double* node = node_field + n * field.dim;
  for (int c = 0; c < field.dim; ++c) sum[c] = accumulate ? node[c] : 0.0;
  for (std::int32_t k = incidence.offsets[n]; k < incidence.offsets[n + 1]; ++k) {
    const double* entry = field.entries + static_cast<Index>(incidence.slots[k]) * field.dim;
    for (int c = 0; c < field.dim; ++c) sum[c] += entry[c];
  }
  for (int c = 0; c < field.dim; ++c) node[c] = sum[c];
}

namespace detail {

// What the three views share: the element, its nodes, its entries.
class EntryElementBase {
 public:
  SIMGRAD_HD EntryElementBase(Index e, const SlotIncidence& incidence, const EntryTable& table)
      : e_(e), incidence_(&incidence), table_(&table) {}

  SIMGRAD_HD Index index() const { return e_; }
  SIMGRAD_HD int arity() const { return incidence_->arity; }
  SIMGRAD_HD Index node(int s) const { return incidence_->nodes[e_ * incidence_->arity + s]; }
  SIMGRAD_HD bool misuse() const { return misuse_; }

 protected:
  // Zeroes this element's entries of every field: deposits add to them.
  SIMGRAD_HD void clear_entries() {
    for (int f = 0; f < table_->count; ++f) {
      const SlotEntries& field = table_->fields[f];
      double* first = field.entries + e_ * incidence_->arity * field.dim;
      for (int i = 0, n = incidence_->arity * field.dim; i < n; ++i) first[i] = 0.0;
    }
  }
  // The entry of slot s for node field `node_field`, or null (and the view flagged) when the
  // kernel did not route that field through entries.
  SIMGRAD_HD double* entry(const double* node_field, int s) {
    for (int f = 0; f < table_->count; ++f) {
      const SlotEntries& field = table_->fields[f];
      if (field.node_field == node_field) return field.entries + (e_ * incidence_->arity + s) * field.dim;
    }
    misuse_ = true;
    return nullptr;
  }
  template <int D>
  SIMGRAD_HD static void add(double* target, const Value<double, D>& v) {
    if (target == nullptr) return;
    for (int c = 0; c < D; ++c) target[c] += component<double, D>(v, c);
  }
  template <int D>
  SIMGRAD_HD static Value<double, D> zero() {
    if constexpr (D == 1) return 0.0;
    else return Vec<double, D>::zero();
  }

  Index e_;
  const SlotIncidence* incidence_;
  const EntryTable* table_;
  bool misuse_ = false;
};

// Reads of plain values, shared by the forward view and the hand-written adjoint's view; the
// element's entries are zeroed for the deposits to come.
class EntryPlainReads : public EntryElementBase {
 public:
  SIMGRAD_HD EntryPlainReads(Index e, const SlotIncidence& incidence, const EntryTable& table)
      : EntryElementBase(e, incidence, table) {
    clear_entries();
  }

  template <int D>
  SIMGRAD_HD Value<double, D> own(const Field<D>& f) const {
    return load<double, D>(f.value, e_);
  }
  template <int D>
  SIMGRAD_HD Value<double, D> slot(const Field<D>& f, int s) const {
    return load<double, D>(f.value, node(s));
  }
  template <int D>
  SIMGRAD_HD Value<double, D> shared(const Field<D>& f) const {
    return load<double, D>(f.value, 0);
  }
};

// The inputs and outputs a derived adjoint records for one element: each input's tape leaf and
// where its adjoint goes, each output's variable and where its adjoint comes from. Shared by the
// host Kernel's view (kernel.hpp) and the slot-entry view below.
template <int kMaxRecords>
class TapeRecords {
 public:
  // The value at `value` as a tape input whose adjoint goes to `target`, or as a constant when
  // target is null; a constant too, and `misuse` set, when the records are full.
  template <int D>
  SIMGRAD_HD Value<ad::Var, D> read(const double* value, double* target, bool& misuse) {
    Value<ad::Var, D> v;
    for (int c = 0; c < D; ++c) {
      if (target == nullptr) {
        component<ad::Var, D>(v, c) = ad::Var(value[c]);
      } else if (input_count_ == kMaxRecords) {
        misuse = true;
        component<ad::Var, D>(v, c) = ad::Var(value[c]);
      } else {
        component<ad::Var, D>(v, c) = ad::Var::input(value[c]);
        inputs_[input_count_++] = {target + c, component<ad::Var, D>(v, c).i};
      }
    }
    return v;
  }
  // Remembers output v, whose adjoint is at `adjoint`; `misuse` set when the records are full.
  template <int D>
  SIMGRAD_HD void remember_output(const double* adjoint, const Value<ad::Var, D>& v, bool& misuse) {
    for (int c = 0; c < D; ++c) {
      if (output_count_ == kMaxRecords) {
        misuse = true;
        return;
      }
      outputs_[output_count_++] = {adjoint + c, component<ad::Var, D>(v, c).i};
    }
  }
  // Seeds the outputs' adjoints (and `seed` on tape entry `seeded`, for a summed body), sweeps
  // the tape and adds the inputs' adjoints to their targets; false when one is not finite.
  SIMGRAD_HOST_INSTANTIABLE
  template <class Tape>
  SIMGRAD_HD bool backpropagate(Tape& tape, std::int32_t seeded = 0, double seed = 0.0) {
    tape.clear_adjoints();
    for (int k = 0; k < output_count_; ++k) tape.adjoint(outputs_[k].var) += *outputs_[k].adjoint;
    tape.adjoint(seeded) += seed;
    tape.sweep();
    bool finite = true;
    for (int k = 0; k < input_count_; ++k) {
      const double g = tape.adjoint(inputs_[k].leaf);
      finite = finite && std::isfinite(g);
      *inputs_[k].target += g;
    }
    return finite;
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
  Input inputs_[kMaxRecords];
  Output outputs_[kMaxRecords];
  int input_count_ = 0;
  int output_count_ = 0;
};

}  // namespace detail

// The forward view: plain reads; scatters go to the element's entries.
class EntryForwardElement : public detail::EntryPlainReads {
 public:
  using Scalar = double;
  using EntryPlainReads::EntryPlainReads;

  template <int D>
  SIMGRAD_HD void write(const Field<D>& f, const Value<double, D>& v) {
    for (int c = 0; c < D; ++c) f.value[e_ * D + c] = component<double, D>(v, c);
  }
  template <int D>
  SIMGRAD_HD void scatter(const Field<D>& f, int s, const Value<double, D>& v) {
    add<D>(entry(f.value, s), v);
  }
};

// The view of a derived adjoint: reads become tape inputs whose adjoints go to own adjoints or
// to the element's entries; outputs are remembered to seed the sweep.
class EntryReverseElement : public detail::EntryElementBase {
 public:
  using Scalar = ad::Var;
  static constexpr int kMaxRecords = 64;
  SIMGRAD_HD EntryReverseElement(Index e, const SlotIncidence& incidence, const EntryTable& table)
      : EntryElementBase(e, incidence, table) {
    clear_entries();
  }

  template <int D>
  SIMGRAD_HD Value<ad::Var, D> own(const Field<D>& f) {
    return records_.template read<D>(f.value + e_ * D, f.adjoint == nullptr ? nullptr : f.adjoint + e_ * D, misuse_);
  }
  template <int D>
  SIMGRAD_HD Value<ad::Var, D> slot(const Field<D>& f, int s) {
    return records_.template read<D>(f.value + node(s) * D, f.adjoint == nullptr ? nullptr : entry(f.adjoint, s),
                                     misuse_);
  }
  template <int D>
  SIMGRAD_HD Value<ad::Var, D> shared(const Field<D>& f) {
    if (f.adjoint != nullptr) misuse_ = true;  // shared adjoints: see the header comment
    return records_.template read<D>(f.value, nullptr, misuse_);
  }
  template <int D>
  SIMGRAD_HD void write(const Field<D>& f, const Value<ad::Var, D>& v) {
    if (f.adjoint != nullptr) records_.template remember_output<D>(f.adjoint + e_ * D, v, misuse_);
  }
  // A scattered contribution's adjoint is its node's adjoint.
  template <int D>
  SIMGRAD_HD void scatter(const Field<D>& f, int s, const Value<ad::Var, D>& v) {
    if (f.adjoint != nullptr) records_.template remember_output<D>(f.adjoint + node(s) * D, v, misuse_);
  }

  // Seeds the outputs' adjoints, sweeps the tape and deposits the inputs' adjoints.
  template <class Tape>
  SIMGRAD_HD void backpropagate(Tape& tape) {
    records_.backpropagate(tape);
  }

 private:
  detail::TapeRecords<kMaxRecords> records_;
};

// Runs the derived adjoint of `body` on element e, on this thread's tape (the host's LocalTape,
// or the device thread's FixedTape); false when the element misused its view or outgrew the tape.
template <class Body>
SIMGRAD_HD bool derived_adjoint_element(const Body& body, const SlotIncidence& incidence, const EntryTable& table,
                                        Index e) {
#if SIMGRAD_DEVICE_PASS
  ad::FixedTape& tape = ad::device_tape();
#else
  ad::LocalTape& tape = ad::thread_tape();
#endif
  tape.reset();
  EntryReverseElement element(e, incidence, table);
  body(element);
  bool ok = !element.misuse();
#if SIMGRAD_DEVICE_PASS
  ok = ok && !tape.overflow;
#endif
  element.backpropagate(tape);
  return ok;
}

// The view of a hand-written adjoint: plain reads and output adjoints; slot deposits go to the
// element's entries, own ones straight to the field (an element owns its entry).
class EntryAdjointElement : public detail::EntryPlainReads {
 public:
  using Scalar = double;
  using EntryPlainReads::EntryPlainReads;

  template <int D>
  SIMGRAD_HD Value<double, D> output_adjoint(const Field<D>& f) const {
    return f.adjoint == nullptr ? zero<D>() : load<double, D>(f.adjoint, e_);
  }
  template <int D>
  SIMGRAD_HD Value<double, D> scattered_adjoint(const Field<D>& f, int s) const {
    return f.adjoint == nullptr ? zero<D>() : load<double, D>(f.adjoint, node(s));
  }
  template <int D>
  SIMGRAD_HD void add_own(const Field<D>& f, const Value<double, D>& g) {
    add<D>(f.adjoint == nullptr ? nullptr : f.adjoint + e_ * D, g);
  }
  template <int D>
  SIMGRAD_HD void add_slot(const Field<D>& f, int s, const Value<double, D>& g) {
    add<D>(f.adjoint == nullptr ? nullptr : entry(f.adjoint, s), g);
  }
  template <int D>
  SIMGRAD_HD void add_shared(const Field<D>& f, const Value<double, D>&) {
    if (f.adjoint != nullptr) misuse_ = true;  // see the header comment
  }
  // The engine derives this element instead (the body's call for a case it leaves to the engine).
  template <class Body>
  SIMGRAD_HD void derive(const Body& body) {
    misuse_ = !derived_adjoint_element(body, *incidence_, *table_, e_) || misuse_;
  }
};

// Runs `body` forward on element e; false when it misused its view.
template <class Body>
SIMGRAD_HD bool forward_element(const Body& body, const SlotIncidence& incidence, const EntryTable& table, Index e) {
  EntryForwardElement element(e, incidence, table);
  body(element);
  return !element.misuse();
}

// Runs the adjoint of `body` on element e: its hand-written adjoint when it has one, else the
// derived one; false when it misused its view.
template <class Body>
SIMGRAD_HD bool adjoint_element(const Body& body, const SlotIncidence& incidence, const EntryTable& table, Index e) {
  if constexpr (requires(EntryAdjointElement& view) { body.adjoint(view); }) {
    EntryAdjointElement element(e, incidence, table);
    body.adjoint(element);
    return !element.misuse();
  } else {
    return derived_adjoint_element(body, incidence, table, e);
  }
}

}  // namespace simgrad
