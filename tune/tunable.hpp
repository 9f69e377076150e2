// Tunables: the one table in which a simulator declares every quantity a scenario may tune.
//
// Simulators declare, tune binds, front-ends parse and print. A table entry says what a quantity
// is (name, unit, what one entry belongs to, a description, its default) and where it lives in a
// model (its values and adjoints, how many numbers make one entry, and how entries group into
// the items a scenario may pick: sources, vents). One binder, bind_tunable, then maps a tuned
// parameter onto those entries for every simulator alike, so sharing, selection, bounds and
// transforms are written once, and `list`, `describe`, the scenario errors ("expected one of
// ...") and the documentation all read the same table.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/field.hpp"
#include "tune/problem.hpp"

namespace simgrad::tune {

// What a scenario that leaves a quantity out gets, as people read it.
struct TunableDefault {
  enum class Kind { none, number, numbers, presets, words };
  Kind kind = Kind::none;
  std::vector<double> numbers;       // number: one; numbers: one per entry; presets: one per preset
  std::vector<std::string> presets;  // presets: their names, in the order of `numbers`
  std::string words;                 // words: where the value comes from ("each spring's initial length")

  static TunableDefault number(double v) { return {Kind::number, {v}, {}, {}}; }
  static TunableDefault list(std::vector<double> v) { return {Kind::numbers, std::move(v), {}, {}}; }
  static TunableDefault text(std::string w) { return {Kind::words, {}, {}, std::move(w)}; }
  static TunableDefault per_preset(std::vector<std::string> names, std::vector<double> v) {
    return {Kind::presets, std::move(v), std::move(names), {}};
  }
};

// How a tuned parameter's values map onto the entries it covers.
enum class Sharing {
  each,     // one tuned value (of `components` numbers) per entry
  uniform,  // one tuned value for every entry; its gradient sums over them in entry order
  groups,   // one tuned value per group of entries, given by TuneRequest::groups
};

// What `simgrad list`, `describe` and scenario errors say about a tunable quantity.
struct TunableInfo {
  std::string name;
  std::string unit;
  std::string per;  // what one entry belongs to: "spring", "source and knot", "model"
  std::string description;
  TunableDefault default_value;
  // Entries come in items a scenario may pick by index ("source": picked by "sources"); empty:
  // the quantity is not per item.
  std::string item;
  // The sharings a scenario may ask for, the default first (a constant stored in two slots is
  // one value: uniform only).
  std::vector<Sharing> sharings = {Sharing::each, Sharing::uniform, Sharing::groups};
};

// Where a tunable quantity lives in one model. The spans stay valid while the model is not
// resized; the binder asks for them again at every use.
struct TunableStorage {
  std::span<double> values;    // entries x components
  std::span<double> adjoints;  // the same length; the backward pass adds dL/d(values) here
  int components = 1;          // numbers per entry (D for a position)
  int entries_per_item = 1;    // with TunableInfo::item: entries per item (knots per source)
  // With TunableInfo::item, items of different sizes (an MPM body's particles): item k covers
  // entries [item_starts[k], item_starts[k + 1]); empty: entries_per_item each.
  std::vector<std::size_t> item_starts;
  std::vector<std::size_t> entries;  // the entries covered, in order; empty: all of them
};

// A tuned parameter as a scenario asks for it.
struct TuneRequest {
  std::optional<Sharing> sharing;  // empty: the quantity's default (TunableInfo::sharings)
  std::vector<int> groups;         // groups: the group of every covered entry, numbered from 0; -1: not tuned
  std::vector<int> items;          // the items picked (per-item quantities); empty: all
  int leading = 0;  // each: > 0 tunes the first `leading` entries; later ones follow the last
  double lower = -1e300;
  double upper = 1e300;
  Transform transform = Transform::identity;
};

// Binds the quantity that `locate` finds to the tuner: the initial value of a tuned value is
// that of its first entry; `assign` writes a tuned value into all its entries, `gradient` sums
// their adjoints in entry order, so the bits do not depend on how the entries are shared.
// Throws std::invalid_argument (naming the quantity) for a request the quantity does not allow
// or its storage cannot meet.
BoundParameter bind_tunable(const TunableInfo& info, std::function<TunableStorage()> locate, const TuneRequest& request);

// One row of a model type's table: the quantity and where it lives in a model. `storage` may
// throw std::invalid_argument when the model has the quantity switched off.
template <class Model>
struct Tunable {
  TunableInfo info;
  std::function<TunableStorage(Model&)> storage;
};

template <class Model>
using TunableTable = std::vector<Tunable<Model>>;

// The row named `name`, or null.
template <class Model>
const Tunable<Model>* find_tunable(const TunableTable<Model>& table, std::string_view name) {
  for (const Tunable<Model>& t : table)
    if (t.info.name == name) return &t;
  return nullptr;
}

// The rows' infos, in table order, for listings.
template <class Model>
std::vector<TunableInfo> tunable_infos(const TunableTable<Model>& table) {
  std::vector<TunableInfo> out;
  for (const Tunable<Model>& t : table) out.push_back(t.info);
  return out;
}

// Binds row `name` of `table` in `model` (which must outlive the binding); throws
// std::invalid_argument for an unknown name.
template <class Model>
BoundParameter bind(const TunableTable<Model>& table, Model& model, std::string_view name, const TuneRequest& request) {
  const Tunable<Model>* t = find_tunable(table, name);
  if (t == nullptr) throw std::invalid_argument("unknown parameter \"" + std::string(name) + "\"");
  return bind_tunable(t->info, [&model, locate = t->storage] { return locate(model); }, request);
}

// The storage of a core::Array, its adjoint switched on; `entries_per_item` as in TunableStorage.
template <int D>
TunableStorage array_storage(Array<D>& array, int components = D, int entries_per_item = 1) {
  if (!array.differentiable()) array.set_differentiable(true);
  return {array.values(), array.adjoints(), components, entries_per_item, {}};
}

// Fills every entry a request covers with `value` (a scenario's "initial").
void fill_tunable(const TunableInfo& info, const TunableStorage& storage, const TuneRequest& request, double value);

}  // namespace simgrad::tune
