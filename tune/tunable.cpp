#include "tune/tunable.hpp"

#include <algorithm>
#include <stdexcept>

namespace simgrad::tune {

namespace {

std::string quoted(const std::string& name) { return "\"" + name + "\""; }

// The entries a request covers, in order: the picked items' entries, the storage's own list,
// or every entry.
std::vector<std::size_t> covered_entries(const TunableInfo& info, const TunableStorage& storage, const TuneRequest& request) {
  const std::size_t components = static_cast<std::size_t>(storage.components);
  if (components == 0 || storage.values.size() % components != 0 || storage.adjoints.size() != storage.values.size())
    throw std::invalid_argument("parameter " + quoted(info.name) + ": its storage is malformed");
  const std::size_t count = storage.values.size() / components;
  std::vector<std::size_t> entries;
  if (!info.item.empty()) {
    const std::size_t block = static_cast<std::size_t>(storage.entries_per_item);
    const bool sized = !storage.item_starts.empty();
    const int items = sized ? static_cast<int>(storage.item_starts.size()) - 1 : static_cast<int>(block == 0 ? 0 : count / block);
    std::vector<int> picked = request.items;
    if (picked.empty())
      for (int s = 0; s < items; ++s) picked.push_back(s);
    for (int s : picked) {
      if (s < 0 || s >= items)
        throw std::invalid_argument(info.item + " " + std::to_string(s) + " does not exist (the model has " +
                                    std::to_string(items) + ")");
      const std::size_t first = sized ? storage.item_starts[static_cast<std::size_t>(s)] : static_cast<std::size_t>(s) * block;
      const std::size_t last = sized ? storage.item_starts[static_cast<std::size_t>(s) + 1] : first + block;
      for (std::size_t k = first; k < last; ++k) entries.push_back(k);
    }
  } else if (!request.items.empty()) {
    throw std::invalid_argument(quoted(info.name) + " is not a per-item quantity");
  } else if (!storage.entries.empty()) {
    entries = storage.entries;
  } else {
    for (std::size_t i = 0; i < count; ++i) entries.push_back(i);
  }
  for (std::size_t e : entries)
    if (e >= count) throw std::invalid_argument("parameter " + quoted(info.name) + ": entry " + std::to_string(e) + " out of range");
  if (entries.empty()) throw std::invalid_argument("parameter " + quoted(info.name) + " has no entries in this model");
  return entries;
}

// An entry that a "groups" request leaves as it is (group -1).
constexpr std::size_t kUntuned = static_cast<std::size_t>(-1);

// The tuned value each covered entry follows, or kUntuned.
std::vector<std::size_t> owners(const TunableInfo& info, std::size_t entries, const TuneRequest& request) {
  const Sharing sharing = request.sharing.value_or(info.sharings.front());
  if (std::find(info.sharings.begin(), info.sharings.end(), sharing) == info.sharings.end())
    throw std::invalid_argument("parameter " + quoted(info.name) + " cannot be shared that way");
  std::vector<std::size_t> owner(entries);
  for (std::size_t k = 0; k < entries; ++k) {
    switch (sharing) {
      case Sharing::each:
        owner[k] = request.leading > 0 ? std::min(k, static_cast<std::size_t>(request.leading) - 1) : k;
        break;
      case Sharing::uniform: owner[k] = 0; break;
      case Sharing::groups:
        if (request.groups.size() != entries || request.groups[k] < -1)
          throw std::invalid_argument("parameter " + quoted(info.name) + ": expected " + std::to_string(entries) +
                                      " group numbers >= -1, one per entry");
        owner[k] = request.groups[k] < 0 ? kUntuned : static_cast<std::size_t>(request.groups[k]);
        break;
    }
  }
  // Every tuned value must move some entry, or its gradient would be zero forever.
  std::size_t tuned = 0;
  for (std::size_t o : owner)
    if (o != kUntuned) tuned = std::max(tuned, o + 1);
  if (tuned == 0) throw std::invalid_argument("parameter " + quoted(info.name) + ": every entry is left untuned (group -1)");
  std::vector<bool> used(tuned, false);
  for (std::size_t o : owner)
    if (o != kUntuned) used[o] = true;
  for (std::size_t g = 0; g < tuned; ++g)
    if (!used[g])
      throw std::invalid_argument("parameter " + quoted(info.name) + ": group " + std::to_string(g) + " has no entries");
  return owner;
}

}  // namespace

BoundParameter bind_tunable(const TunableInfo& info, std::function<TunableStorage()> locate, const TuneRequest& request) {
  const TunableStorage storage = locate();
  std::vector<std::size_t> entries = covered_entries(info, storage, request);
  std::vector<std::size_t> owner = owners(info, entries.size(), request);
  // Untuned entries drop out: the tuner neither writes them nor reads their adjoints.
  std::size_t kept = 0;
  for (std::size_t k = 0; k < entries.size(); ++k)
    if (owner[k] != kUntuned) entries[kept] = entries[k], owner[kept++] = owner[k];
  entries.resize(kept);
  owner.resize(kept);
  const std::size_t components = static_cast<std::size_t>(storage.components);
  const std::size_t tuned = *std::max_element(owner.begin(), owner.end()) + 1;

  BoundParameter b;
  b.parameter.name = info.name;
  b.parameter.unit = info.unit;
  b.parameter.lower = request.lower;
  b.parameter.upper = request.upper;
  b.parameter.transform = request.transform;
  b.parameter.initial.assign(tuned * components, 0.0);
  std::vector<bool> seen(tuned, false);
  for (std::size_t k = 0; k < entries.size(); ++k)
    if (!seen[owner[k]]) {
      seen[owner[k]] = true;
      for (std::size_t c = 0; c < components; ++c)
        b.parameter.initial[owner[k] * components + c] = storage.values[entries[k] * components + c];
    }
  b.assign = [locate, entries, owner, components](std::span<const double> x) {
    const std::span<double> values = locate().values;
    for (std::size_t k = 0; k < entries.size(); ++k)
      for (std::size_t c = 0; c < components; ++c) values[entries[k] * components + c] = x[owner[k] * components + c];
  };
  b.gradient = [locate, entries, owner, components](std::span<double> g) {
    const std::span<double> adjoints = locate().adjoints;
    std::fill(g.begin(), g.end(), 0.0);
    for (std::size_t k = 0; k < entries.size(); ++k)
      for (std::size_t c = 0; c < components; ++c) g[owner[k] * components + c] += adjoints[entries[k] * components + c];
  };
  return b;
}

void fill_tunable(const TunableInfo& info, const TunableStorage& storage, const TuneRequest& request, double value) {
  const std::size_t components = static_cast<std::size_t>(storage.components);
  for (std::size_t e : covered_entries(info, storage, request))
    for (std::size_t c = 0; c < components; ++c) storage.values[e * components + c] = value;
}

}  // namespace simgrad::tune
