// Reading scenario JSON files with errors that point at the file, line and field.
//
// nlohmann::json keeps no source positions, so the text is parsed here with line tracking and
// every value remembers where it started. Readers ask a ScenarioNode for typed, validated
// fields; every field asked for counts as known, and finish() then rejects the ones nobody
// asked for, suggesting the nearest known name, so a misspelt field never passes silently.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace simgrad::scenario {

// An error in a scenario file. what() reads "file:line: path: message" (with ":column" after
// the line for syntax errors); each part is also available on its own.
class ScenarioError : public std::runtime_error {
public:
  ScenarioError(std::string file, int line, int column, std::string path, std::string message);

  const std::string& file() const { return file_; }
  int line() const { return line_; }      // 1-based; 0 when the error is about the whole file
  int column() const { return column_; }  // 1-based; 0 when only the line is known
  const std::string& path() const { return path_; }  // "softbody.springs[3].k"; empty at the top
  const std::string& message() const { return message_; }

private:
  std::string file_;
  int line_;
  int column_;
  std::string path_;
  std::string message_;
};

namespace detail {
struct ScenarioDocument;
struct SourceNode;
}  // namespace detail

// A view of one value in a scenario file: its json, its path and its line. Cheap to copy;
// copies share the record of which fields were asked for. Stays valid after its ScenarioFile
// is destroyed. Every getter that takes a key marks that key as known, found or not. Nodes of
// one file share that record, so one file is read by one thread at a time.
class ScenarioNode {
public:
  const nlohmann::json& json() const { return *value_; }
  const std::string& path() const { return path_; }
  int line() const;
  const std::string& file() const;

  // Fields of an object node. A missing required field, a field of the wrong type, or a value
  // out of range throws ScenarioError; the default overloads only apply when the key is absent.
  bool has(std::string_view key) const;
  double number(std::string_view key) const;
  double number(std::string_view key, double fallback) const;
  double positive(std::string_view key) const;
  double positive(std::string_view key, double fallback) const;
  double non_negative(std::string_view key) const;
  double non_negative(std::string_view key, double fallback) const;
  double in_range(std::string_view key, double lo, double hi) const;
  double in_range(std::string_view key, double lo, double hi, double fallback) const;
  std::int64_t integer(std::string_view key, std::int64_t lo, std::int64_t hi) const;
  std::int64_t integer(std::string_view key, std::int64_t lo, std::int64_t hi,
                       std::int64_t fallback) const;
  bool boolean(std::string_view key) const;
  bool boolean(std::string_view key, bool fallback) const;
  std::string string(std::string_view key) const;
  std::string string(std::string_view key, std::string fallback) const;
  std::string choice(std::string_view key, std::initializer_list<std::string_view> options) const;
  std::string choice(std::string_view key, std::initializer_list<std::string_view> options,
                     std::string fallback) const;
  std::string choice(std::string_view key, const std::vector<std::string>& options) const;
  // An array of numbers; with a length, exactly that many.
  std::vector<double> numbers(std::string_view key,
                              std::optional<std::size_t> length = std::nullopt) const;
  // An array of integers in [lo, hi] (indices, counts, sizes); with a length, exactly that many.
  std::vector<std::int64_t> integers(std::string_view key, std::int64_t lo, std::int64_t hi,
                                     std::optional<std::size_t> length = std::nullopt) const;
  // An array of indices of `count` things (joints, nodes, members), each in [0, count).
  std::vector<int> indices(std::string_view key, std::int64_t count) const;
  // A file named relative to the scenario's folder (absolute names stay as they are); it must
  // exist.
  std::filesystem::path existing_file(std::string_view key) const;
  ScenarioNode child(std::string_view key) const;  // must be an object
  std::optional<ScenarioNode> optional_child(std::string_view key) const;
  std::vector<ScenarioNode> array(std::string_view key) const;  // elements of an array field
  std::vector<ScenarioNode> optional_array(std::string_view key) const;  // the same; none when absent
  ScenarioNode member(std::string_view key) const;  // a required field of any type, unchecked
  // Every member of an object whose keys are the user's names (load cases, materials, ...);
  // all of them count as known.
  std::vector<std::pair<std::string, ScenarioNode>> members() const;

  // The same checks on this node's own value, for array elements and members().
  double as_number() const;
  double as_positive() const;
  double as_non_negative() const;
  double as_in_range(double lo, double hi) const;
  std::int64_t as_integer(std::int64_t lo, std::int64_t hi) const;
  bool as_boolean() const;
  std::string as_string() const;
  std::string as_choice(std::initializer_list<std::string_view> options) const;
  std::string as_choice(const std::vector<std::string>& options) const;
  std::vector<double> as_numbers(std::optional<std::size_t> length = std::nullopt) const;
  std::vector<std::int64_t> as_integers(std::int64_t lo, std::int64_t hi,
                                        std::optional<std::size_t> length = std::nullopt) const;
  ScenarioNode as_object() const;              // this node, after checking it is an object
  std::vector<ScenarioNode> elements() const;  // must be an array

  // Rejects the fields that no getter asked for, in this object and in every object beneath it
  // that was read through this reader (a field asked for, or child(), as_object(), members()).
  // Objects taken only as raw json() are not checked. The error names the first such field in
  // the file and the nearest known name.
  void finish() const;

  // The fields asked for in every object read through this reader, at and beneath this node,
  // by path with array indices written "[]" (every element of an array shares one entry): the
  // fields a loader accepts there, for checking the scenario schema against the loaders.
  std::map<std::string, std::set<std::string>> asked_fields() const;

  // Throws a ScenarioError at this node, or at its field `key` (at the object when absent).
  [[noreturn]] void fail(std::string message) const;
  [[noreturn]] void fail(std::string_view key, std::string message) const;
  // Throws "expected <what>, got <value>" for this node, for callers' own checks.
  [[noreturn]] void fail_expected(std::string_view what) const;

private:
  friend class ScenarioFile;
  ScenarioNode(std::shared_ptr<detail::ScenarioDocument> document, const nlohmann::json* value,
               detail::SourceNode* source, std::string path);
  std::optional<ScenarioNode> find(std::string_view key) const;
  ScenarioNode required(std::string_view key) const;
  void require_object() const;
  // The elements, after checking this is an array of `length` (if given) `kind`s.
  std::vector<ScenarioNode> elements_of(std::string_view kind,
                                        std::optional<std::size_t> length) const;

  std::shared_ptr<detail::ScenarioDocument> document_;
  const nlohmann::json* value_;
  detail::SourceNode* source_;
  std::string path_;
};

// A parsed scenario file.
class ScenarioFile {
public:
  // Reads and parses a file; errors name it as given (so relative names stay short).
  static ScenarioFile load(const std::filesystem::path& file);
  // Parses text; `name` stands for the file in error messages and anchors relative file names.
  static ScenarioFile parse(std::string_view text, std::string name);

  const std::string& name() const;
  const nlohmann::json& json() const;
  ScenarioNode root() const;  // the top-level object; anything else is an error

private:
  explicit ScenarioFile(std::shared_ptr<detail::ScenarioDocument> document);
  std::shared_ptr<detail::ScenarioDocument> document_;
};

// The nearest of `candidates` to `word` by edit distance (transpositions count once), if it is
// close enough to be a plausible misspelling.
std::optional<std::string> nearest_name(std::string_view word,
                                        const std::vector<std::string>& candidates);

}  // namespace simgrad::scenario
