// The parsed text of a scenario file: its json value and, beside it, where every value starts.
// An implementation detail of scenario_reader.hpp, kept apart because parsing JSON with
// positions is a concept of its own.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace simgrad::scenario::detail {

// Where one json value came from, mirroring the json tree node for node.
struct SourceNode {
  int line = 0;  // where the value starts, 1-based
  int column = 0;
  int key_line = 0;  // where its key starts, for object members; the value's position otherwise
  int key_column = 0;
  std::string key;                   // for object members
  std::vector<SourceNode> children;  // array elements in order, or object members sorted by key
  // Set by the reader: whether anyone read this object's fields, and which ones they asked for.
  bool opened = false;
  std::set<std::string, std::less<>> asked;

  // The member with this key, or null; members are sorted, so this is a binary search.
  SourceNode* member(std::string_view name);
};

struct ScenarioDocument {
  std::string name;              // the file as the user named it, for messages
  std::filesystem::path folder;  // where relative file names in the scenario start from
  nlohmann::json value;
  SourceNode source;
};

// Parses JSON text into `document.value` and `document.source`; a syntax error throws
// ScenarioError with the file, line and column.
void parse_with_positions(std::string_view text, ScenarioDocument& document);

// Paths as messages show them: `softbody.springs[3].stiffness`. Keys that are not plain words
// are quoted (`loads["wind gust"]`) so the path stays unambiguous.
std::string field_path(std::string_view parent, std::string_view key);
std::string index_path(std::string_view parent, std::size_t index);

}  // namespace simgrad::scenario::detail
