#include "scenario/tuned_parameter.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace simgrad::scenario {

namespace {

using nlohmann::json;

std::string_view sharing_name(tune::Sharing s) {
  switch (s) {
    case tune::Sharing::each: return "each";
    case tune::Sharing::uniform: return "uniform";
    case tune::Sharing::groups: return "groups";
  }
  return "each";
}

// The scenario key that picks items of a kind: "sources" for "source", "bodies" for "body".
std::string items_key(const std::string& item) {
  if (item.size() > 1 && item.back() == 'y' && std::string("aeiou").find(item[item.size() - 2]) == std::string::npos)
    return item.substr(0, item.size() - 1) + "ies";
  return item + "s";
}

// The kinds of item the table's rows are per, in table order.
std::vector<std::string> item_kinds(const std::vector<tune::TunableInfo>& table) {
  std::vector<std::string> kinds;
  for (const tune::TunableInfo& info : table)
    if (!info.item.empty() && std::find(kinds.begin(), kinds.end(), info.item) == kinds.end()) kinds.push_back(info.item);
  return kinds;
}

// The sharing a parameter asks for: "sharing", or the older "uniform": true.
tune::Sharing read_sharing(const ScenarioNode& p, const tune::TunableInfo& info) {
  std::vector<std::string> allowed;
  for (tune::Sharing s : info.sharings) allowed.emplace_back(sharing_name(s));
  std::string chosen = allowed.front();
  if (p.has("sharing")) chosen = p.choice("sharing", allowed);
  if (p.has("uniform") && p.boolean("uniform")) {
    if (p.has("sharing") && chosen != "uniform") p.fail("uniform", "contradicts \"sharing\": \"" + chosen + "\"");
    if (std::find(allowed.begin(), allowed.end(), "uniform") == allowed.end())
      p.fail("uniform", "\"" + info.name + "\" cannot be shared uniformly");
    chosen = "uniform";
  }
  for (tune::Sharing s : info.sharings)
    if (sharing_name(s) == chosen) return s;
  return info.sharings.front();
}

// The number of items of a per-item quantity in the model (0 for others).
int item_count(const tune::TunableInfo& info, const tune::TunableStorage& s) {
  if (!info.item.empty() && !s.item_starts.empty()) return static_cast<int>(s.item_starts.size()) - 1;
  if (info.item.empty() || s.components <= 0 || s.entries_per_item <= 0) return 0;
  return static_cast<int>(s.values.size() / static_cast<std::size_t>(s.components) / static_cast<std::size_t>(s.entries_per_item));
}

}  // namespace

ParameterBounds read_parameter_bounds(const ScenarioNode& p, const ParameterBounds& defaults) {
  ParameterBounds b;
  b.lower = p.number("lower", defaults.lower);
  b.upper = p.number("upper", defaults.upper);
  if (!(b.lower < b.upper)) p.fail("upper", "expected upper > lower");
  b.transform = tune::parse_transform(p.choice("transform", {"identity", "log", "logit"}, "identity"));
  if (b.transform == tune::Transform::log && !(b.lower > 0)) p.fail("lower", "a log transform needs lower > 0");
  if (b.transform == tune::Transform::logit && (b.lower < -1e299 || b.upper > 1e299))
    p.fail("transform", "a logit transform needs finite lower and upper bounds");
  return b;
}

tune::BoundParameter read_tuned_parameter(const ScenarioNode& p, const std::vector<tune::TunableInfo>& table,
                                          const std::function<tune::TunableStorage(std::string_view name)>& locate,
                                          const TunedParameterRules& rules) {
  std::vector<std::string> names;
  for (const tune::TunableInfo& info : table) names.push_back(info.name);
  const std::string name = p.choice("name", names);
  const tune::TunableInfo& info = *std::find_if(table.begin(), table.end(), [&](const auto& i) { return i.name == name; });
  tune::TuneRequest r;
  r.sharing = read_sharing(p, info);
  tune::TunableStorage storage;
  try {
    storage = locate(name);
  } catch (const std::invalid_argument& e) {
    p.fail("name", e.what());
  }
  // The items of another kind cannot be picked for this quantity.
  for (const std::string& kind : item_kinds(table))
    if (kind != info.item && p.has(items_key(kind)))
      p.fail(items_key(kind), "\"" + name + "\" is not per " + kind +
                                  (info.item.empty() ? std::string() : ": pick its " + items_key(info.item) + " by \"" + items_key(info.item) + "\""));
  if (!info.item.empty() && p.has(items_key(info.item)))
    for (std::int64_t s : p.integers(items_key(info.item), 0, std::max(0, item_count(info, storage) - 1)))
      r.items.push_back(static_cast<int>(s));
  auto allows = [&info](tune::Sharing s) { return std::find(info.sharings.begin(), info.sharings.end(), s) != info.sharings.end(); };
  if (allows(tune::Sharing::groups) && (p.has("groups") || *r.sharing == tune::Sharing::groups)) {
    if (*r.sharing != tune::Sharing::groups) p.fail("groups", "\"groups\" needs \"sharing\": \"groups\"");
    for (const ScenarioNode& g : p.array("groups")) r.groups.push_back(static_cast<int>(g.as_integer(-1, 1 << 30)));
  }
  if (allows(tune::Sharing::each)) {
    const int default_entries = rules.default_entries ? rules.default_entries(name) : 0;
    r.leading = static_cast<int>(p.integer("entries", 1, 1 << 30, default_entries));
    if (p.has("entries") && *r.sharing != tune::Sharing::each) p.fail("entries", "\"entries\" needs \"sharing\": \"each\"");
    if (*r.sharing != tune::Sharing::each) r.leading = 0;
  }
  const ParameterBounds bounds = read_parameter_bounds(p);
  r.lower = bounds.lower;
  r.upper = bounds.upper;
  r.transform = bounds.transform;
  tune::BoundParameter b;
  try {
    if (p.has("initial")) {
      const double v = p.number("initial");
      if (v < r.lower || v > r.upper) p.fail("initial", "expected a value within [lower, upper]");
      tune::fill_tunable(info, storage, r, v);
    }
    b = tune::bind_tunable(info, [locate, name] { return locate(name); }, r);
  } catch (const std::invalid_argument& e) {
    p.fail("name", e.what());
  }
  // A logit coordinate is infinite on a bound.
  const bool open = r.transform == tune::Transform::logit;
  for (double v : b.parameter.initial)
    if (v < r.lower || v > r.upper || (open && (v == r.lower || v == r.upper)))
      p.fail("name", "the model's value " + std::to_string(v) + " of \"" + name + "\" lies outside " +
                         (open ? "(lower, upper)" : "[lower, upper]"));
  return b;
}

nlohmann::ordered_json tuned_parameter_schema(const std::vector<tune::TunableInfo>& table) {
  using json = nlohmann::ordered_json;
  json names = json::array();
  std::set<std::string> sharings_seen;
  json sharings = json::array();
  bool groups = false, each = false;
  for (const tune::TunableInfo& info : table) {
    names.push_back(info.name);
    for (tune::Sharing s : info.sharings) {
      groups = groups || s == tune::Sharing::groups;
      each = each || s == tune::Sharing::each;
      if (sharings_seen.insert(std::string(sharing_name(s))).second) sharings.push_back(sharing_name(s));
    }
  }
  json properties = {
      {"name", {{"enum", names}}},
      {"sharing", {{"enum", sharings}, {"description", "how one tuned value maps onto entries (default: each entry its own)"}}},
      {"uniform", {{"type", "boolean"}, {"description", "true: the same as \"sharing\": \"uniform\""}}},
      {"initial", {{"type", "number"}, {"description", "a starting value for every entry covered"}}},
      {"lower", {{"type", "number"}, {"description", "lower bound"}}},
      {"upper", {{"type", "number"}, {"description", "upper bound"}}},
      {"transform", {{"enum", {"identity", "log", "logit"}}, {"description", "the optimizer's coordinate"}}}};
  if (each)
    properties["entries"] = {{"type", "integer"}, {"minimum", 1}, {"description", "tune only the first entries; later ones follow the last"}};
  if (groups)
    properties["groups"] = {{"type", "array"},
                            {"description", "sharing groups: the group of every entry (-1: left as it is)"},
                            {"items", {{"type", "integer"}, {"minimum", -1}}}};
  for (const std::string& kind : item_kinds(table))
    properties[items_key(kind)] = {{"type", "array"},
                                   {"description", "the " + items_key(kind) + " tuned by a per-" + kind + " parameter (default: all)"},
                                   {"items", {{"type", "integer"}, {"minimum", 0}}}};
  return {{"type", "array"},
          {"description", "the tuned parameters"},
          {"items", {{"type", "object"}, {"properties", properties}, {"required", {"name"}}, {"additionalProperties", false}}},
          {"minItems", 1}};
}

json tunable_json(const tune::TunableInfo& info) {
  const tune::TunableDefault& d = info.default_value;
  json value;
  switch (d.kind) {
    case tune::TunableDefault::Kind::none: value = nullptr; break;
    case tune::TunableDefault::Kind::number: value = d.numbers.front(); break;
    case tune::TunableDefault::Kind::numbers: value = d.numbers; break;
    case tune::TunableDefault::Kind::words: value = d.words; break;
    case tune::TunableDefault::Kind::presets:
      value = json::object();
      for (std::size_t k = 0; k < d.presets.size(); ++k) value[d.presets[k]] = d.numbers[k];
      break;
  }
  return {{"name", info.name}, {"unit", info.unit}, {"per", info.per}, {"description", info.description}, {"default", value}};
}

}  // namespace simgrad::scenario
