#include "scenario/scenario_reader.hpp"

#include "scenario/scenario_source.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <system_error>
#include <tuple>

namespace simgrad::scenario {

using detail::field_path;
using detail::index_path;
using detail::ScenarioDocument;
using detail::SourceNode;

namespace {

// "file:line:column: path: message", leaving out the parts that are unknown.
std::string format_error(const std::string& file, int line, int column, const std::string& path,
                         const std::string& message) {
  // Appended piece by piece: GCC 12 gives a false -Wrestrict on `":" + std::to_string(n)` here.
  std::string out = file;
  if (line > 0) out.append(":").append(std::to_string(line));
  if (line > 0 && column > 0) out.append(":").append(std::to_string(column));
  out.append(": ");
  if (!path.empty()) out.append(path).append(": ");
  return out.append(message);
}

// Shortest text that reads back as the same double; whole numbers without an exponent.
std::string format_number(double value) {
  char buffer[64];
  if (std::floor(value) == value && std::fabs(value) < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
    return buffer;
  }
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

// A json value as the "got ..." part of a message: scalars as written, containers in words.
std::string describe(const nlohmann::json& value) {
  if (value.is_object()) return value.empty() ? "an empty object" : "an object";
  if (value.is_array()) {
    if (value.empty()) return "an empty array";
    return "an array of " + std::to_string(value.size()) +
           (value.size() == 1 ? " element" : " elements");
  }
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  constexpr std::size_t longest = 60;
  if (value.is_string() && text.size() > longest) text = text.substr(0, longest - 4) + "...\"";
  return text;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "\"" : ", \"") + name + "\"";
  return out;
}

// The node's number, or an error that states the whole expectation (not just "a number").
double number_or_fail(const ScenarioNode& node, std::string_view expectation) {
  if (!node.json().is_number()) node.fail_expected(expectation);
  return node.json().get<double>();
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Optimal string alignment distance: edits, where swapping two neighbours counts as one.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::size_t> d((n + 1) * (m + 1));
  const auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= m; ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
    }
  }
  return at(n, m);
}

// A field nobody asked for, and what was asked for beside it.
struct UnknownField {
  int line;
  int column;
  std::string path;
  std::string key;
  std::vector<std::string> known;
};

// Walks a source tree, collecting unknown fields of every object that a reader opened.
void collect_unknown(const SourceNode& source, const nlohmann::json& value,
                     const std::string& path, std::vector<UnknownField>& out) {
  if (value.is_object()) {
    auto member = value.begin();  // same order as source.children
    for (const SourceNode& child : source.children) {
      const std::string child_path = field_path(path, child.key);
      if (source.opened && !source.asked.contains(child.key)) {
        out.push_back({child.key_line, child.key_column, child_path, child.key,
                       {source.asked.begin(), source.asked.end()}});
      }
      collect_unknown(child, *member, child_path, out);
      ++member;
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < source.children.size(); ++i)
      collect_unknown(source.children[i], value[i], index_path(path, i), out);
  }
}

// Walks a source tree like collect_unknown, gathering what was asked of each opened object.
void collect_asked(const SourceNode& source, const std::string& pattern,
                   std::map<std::string, std::set<std::string>>& out) {
  if (source.opened) out[pattern].insert(source.asked.begin(), source.asked.end());
  for (const SourceNode& child : source.children)
    collect_asked(child, child.key.empty() ? pattern + "[]" : field_path(pattern, child.key), out);
}

}  // namespace

ScenarioError::ScenarioError(std::string file, int line, int column, std::string path,
                             std::string message)
    : std::runtime_error(format_error(file, line, column, path, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      path_(std::move(path)),
      message_(std::move(message)) {}

std::optional<std::string> nearest_name(std::string_view word,
                                        const std::vector<std::string>& candidates) {
  const std::string lowered = lowercase(word);
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const auto& candidate : candidates) {
    const std::size_t distance = edit_distance(lowered, lowercase(candidate));
    const std::size_t allowed = std::max<std::size_t>(1, candidate.size() / 3);
    if (distance <= allowed && (!best || distance < best_distance)) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

// ----------------------------------------------------------------------------- ScenarioNode

ScenarioNode::ScenarioNode(std::shared_ptr<ScenarioDocument> document, const nlohmann::json* value,
                           SourceNode* source, std::string path)
    : document_(std::move(document)), value_(value), source_(source), path_(std::move(path)) {}

int ScenarioNode::line() const { return source_->line; }

const std::string& ScenarioNode::file() const { return document_->name; }

void ScenarioNode::fail(std::string message) const {
  throw ScenarioError(document_->name, source_->line, 0, path_, std::move(message));
}

void ScenarioNode::fail(std::string_view key, std::string message) const {
  if (const auto field = find(key)) field->fail(std::move(message));
  throw ScenarioError(document_->name, source_->line, 0, field_path(path_, key),
                      std::move(message));
}

void ScenarioNode::fail_expected(std::string_view what) const {
  fail("expected " + std::string(what) + ", got " + describe(*value_));
}

// Reading any field opens the object: from then on finish() checks its fields.
void ScenarioNode::require_object() const {
  if (!value_->is_object()) fail_expected("an object");
  source_->opened = true;
}

std::optional<ScenarioNode> ScenarioNode::find(std::string_view key) const {
  require_object();
  source_->asked.emplace(key);
  SourceNode* source = source_->member(key);
  if (source == nullptr) return std::nullopt;
  return ScenarioNode(document_, &*value_->find(key), source, field_path(path_, key));
}

ScenarioNode ScenarioNode::required(std::string_view key) const {
  if (auto field = find(key)) return *std::move(field);
  fail(key, "missing required field");
}

bool ScenarioNode::has(std::string_view key) const { return find(key).has_value(); }

ScenarioNode ScenarioNode::member(std::string_view key) const { return required(key); }

double ScenarioNode::as_number() const { return number_or_fail(*this, "a number"); }

double ScenarioNode::as_positive() const {
  constexpr std::string_view expectation = "a number > 0";
  const double value = number_or_fail(*this, expectation);
  if (!(value > 0)) fail_expected(expectation);
  return value;
}

double ScenarioNode::as_non_negative() const {
  constexpr std::string_view expectation = "a number >= 0";
  const double value = number_or_fail(*this, expectation);
  if (!(value >= 0)) fail_expected(expectation);
  return value;
}

double ScenarioNode::as_in_range(double lo, double hi) const {
  const std::string expectation =
      "a number in [" + format_number(lo) + ", " + format_number(hi) + "]";
  const double value = number_or_fail(*this, expectation);
  if (!(value >= lo && value <= hi)) fail_expected(expectation);
  return value;
}

std::int64_t ScenarioNode::as_integer(std::int64_t lo, std::int64_t hi) const {
  const std::string expectation =
      "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  const nlohmann::json& value = *value_;
  if (value.is_number_unsigned()) {
    const auto n = value.get<std::uint64_t>();
    if (hi < 0 || n > static_cast<std::uint64_t>(hi) || static_cast<std::int64_t>(n) < lo)
      fail_expected(expectation);
    return static_cast<std::int64_t>(n);
  }
  if (value.is_number_integer()) {
    const auto n = value.get<std::int64_t>();
    if (n < lo || n > hi) fail_expected(expectation);
    return n;
  }
  // A whole number written as 1e5 or 3.0 is still an integer to a person.
  const double real = number_or_fail(*this, expectation);
  constexpr double int64_limit = 9223372036854775808.0;  // 2^63: beyond it the cast is undefined
  if (std::floor(real) != real || std::fabs(real) >= int64_limit ||
      real < static_cast<double>(lo) || real > static_cast<double>(hi))
    fail_expected(expectation);
  return static_cast<std::int64_t>(real);
}

bool ScenarioNode::as_boolean() const {
  if (!value_->is_boolean()) fail_expected("true or false");
  return value_->get<bool>();
}

std::string ScenarioNode::as_string() const {
  if (!value_->is_string()) fail_expected("a string");
  return value_->get<std::string>();
}

std::string ScenarioNode::as_choice(std::initializer_list<std::string_view> options) const {
  return as_choice(std::vector<std::string>(options.begin(), options.end()));
}

std::string ScenarioNode::as_choice(const std::vector<std::string>& options) const {
  const std::string expectation = "one of " + quoted_list(options);
  if (!value_->is_string()) fail_expected(expectation);
  std::string value = value_->get<std::string>();
  if (std::find(options.begin(), options.end(), value) != options.end()) return value;
  std::string message = "expected " + expectation + ", got " + describe(*value_);
  if (const auto near = nearest_name(value, options)) message += " (did you mean \"" + *near + "\"?)";
  fail(std::move(message));
}

std::vector<ScenarioNode> ScenarioNode::elements_of(std::string_view kind,
                                                    std::optional<std::size_t> length) const {
  std::string expectation = "an array of ";
  if (length) expectation += std::to_string(*length) + " ";
  expectation += kind;
  if (!length || *length != 1) expectation += "s";
  if (!value_->is_array() || (length && value_->size() != *length)) fail_expected(expectation);
  return elements();
}

std::vector<double> ScenarioNode::as_numbers(std::optional<std::size_t> length) const {
  std::vector<double> out;
  for (const ScenarioNode& element : elements_of("number", length))
    out.push_back(element.as_number());
  return out;
}

std::vector<std::int64_t> ScenarioNode::as_integers(std::int64_t lo, std::int64_t hi,
                                                    std::optional<std::size_t> length) const {
  std::vector<std::int64_t> out;
  for (const ScenarioNode& element : elements_of("integer", length))
    out.push_back(element.as_integer(lo, hi));
  return out;
}

ScenarioNode ScenarioNode::as_object() const {
  require_object();
  return *this;
}

std::vector<ScenarioNode> ScenarioNode::elements() const {
  if (!value_->is_array()) fail_expected("an array");
  std::vector<ScenarioNode> out;
  out.reserve(value_->size());
  for (std::size_t i = 0; i < value_->size(); ++i) {
    out.push_back(
        ScenarioNode(document_, &(*value_)[i], &source_->children[i], index_path(path_, i)));
  }
  return out;
}

std::vector<std::pair<std::string, ScenarioNode>> ScenarioNode::members() const {
  require_object();
  std::vector<std::pair<std::string, ScenarioNode>> out;
  for (const SourceNode& child : source_->children) {
    out.emplace_back(child.key, required(child.key));
  }
  return out;
}

double ScenarioNode::number(std::string_view key) const { return required(key).as_number(); }

double ScenarioNode::number(std::string_view key, double fallback) const {
  return has(key) ? number(key) : fallback;
}

double ScenarioNode::positive(std::string_view key) const { return required(key).as_positive(); }

double ScenarioNode::positive(std::string_view key, double fallback) const {
  return has(key) ? positive(key) : fallback;
}

double ScenarioNode::non_negative(std::string_view key) const {
  return required(key).as_non_negative();
}

double ScenarioNode::non_negative(std::string_view key, double fallback) const {
  return has(key) ? non_negative(key) : fallback;
}

double ScenarioNode::in_range(std::string_view key, double lo, double hi) const {
  return required(key).as_in_range(lo, hi);
}

double ScenarioNode::in_range(std::string_view key, double lo, double hi, double fallback) const {
  return has(key) ? in_range(key, lo, hi) : fallback;
}

std::int64_t ScenarioNode::integer(std::string_view key, std::int64_t lo, std::int64_t hi) const {
  return required(key).as_integer(lo, hi);
}

std::int64_t ScenarioNode::integer(std::string_view key, std::int64_t lo, std::int64_t hi,
                                   std::int64_t fallback) const {
  return has(key) ? integer(key, lo, hi) : fallback;
}

bool ScenarioNode::boolean(std::string_view key) const { return required(key).as_boolean(); }

bool ScenarioNode::boolean(std::string_view key, bool fallback) const {
  return has(key) ? boolean(key) : fallback;
}

std::string ScenarioNode::string(std::string_view key) const { return required(key).as_string(); }

std::string ScenarioNode::string(std::string_view key, std::string fallback) const {
  return has(key) ? string(key) : fallback;
}

std::string ScenarioNode::choice(std::string_view key,
                                 std::initializer_list<std::string_view> options) const {
  return required(key).as_choice(options);
}

std::string ScenarioNode::choice(std::string_view key,
                                 std::initializer_list<std::string_view> options,
                                 std::string fallback) const {
  return has(key) ? choice(key, options) : fallback;
}

std::string ScenarioNode::choice(std::string_view key, const std::vector<std::string>& options) const {
  return required(key).as_choice(options);
}

std::vector<double> ScenarioNode::numbers(std::string_view key,
                                          std::optional<std::size_t> length) const {
  return required(key).as_numbers(length);
}

std::vector<std::int64_t> ScenarioNode::integers(std::string_view key, std::int64_t lo,
                                                 std::int64_t hi,
                                                 std::optional<std::size_t> length) const {
  return required(key).as_integers(lo, hi, length);
}

std::vector<int> ScenarioNode::indices(std::string_view key, std::int64_t count) const {
  std::vector<int> out;
  for (std::int64_t i : integers(key, 0, count - 1)) out.push_back(static_cast<int>(i));
  return out;
}

std::filesystem::path ScenarioNode::existing_file(std::string_view key) const {
  const ScenarioNode field = required(key);
  const std::filesystem::path named = field.as_string();
  const std::filesystem::path resolved = named.is_absolute() ? named : document_->folder / named;
  std::error_code error;
  if (!std::filesystem::is_regular_file(resolved, error))
    field.fail("expected an existing file, got " + describe(field.json()) + " (looked for " +
               resolved.string() + ")");
  return resolved;
}

ScenarioNode ScenarioNode::child(std::string_view key) const {
  return required(key).as_object();
}

std::optional<ScenarioNode> ScenarioNode::optional_child(std::string_view key) const {
  if (auto field = find(key)) return field->as_object();
  return std::nullopt;
}

std::vector<ScenarioNode> ScenarioNode::array(std::string_view key) const {
  return required(key).elements();
}

std::vector<ScenarioNode> ScenarioNode::optional_array(std::string_view key) const {
  return has(key) ? array(key) : std::vector<ScenarioNode>{};
}

std::map<std::string, std::set<std::string>> ScenarioNode::asked_fields() const {
  std::map<std::string, std::set<std::string>> out;
  std::string pattern;
  for (std::size_t i = 0; i < path_.size(); ++i) {  // "a.b[3]" -> "a.b[]"; a quoted name stays
    pattern += path_[i];
    if (path_[i] == '[' && i + 1 < path_.size() && std::isdigit(static_cast<unsigned char>(path_[i + 1])))
      i = path_.find(']', i) - 1;
  }
  collect_asked(*source_, pattern, out);
  return out;
}

void ScenarioNode::finish() const {
  std::vector<UnknownField> unknown;
  collect_unknown(*source_, *value_, path_, unknown);
  if (unknown.empty()) return;
  const auto first = std::min_element(
      unknown.begin(), unknown.end(), [](const UnknownField& a, const UnknownField& b) {
        return std::tie(a.line, a.column) < std::tie(b.line, b.column);
      });
  std::string message = "unknown field";
  if (const auto near = nearest_name(first->key, first->known))
    message += " (did you mean \"" + *near + "\"?)";
  else if (!first->known.empty())
    message += " (known fields: " + quoted_list(first->known) + ")";
  throw ScenarioError(document_->name, first->line, 0, first->path, std::move(message));
}

// ----------------------------------------------------------------------------- ScenarioFile

ScenarioFile::ScenarioFile(std::shared_ptr<ScenarioDocument> document)
    : document_(std::move(document)) {}

ScenarioFile ScenarioFile::load(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code error;
  if (std::filesystem::is_directory(file, error))
    throw ScenarioError(name, 0, 0, "", "is a folder, not a scenario file");
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    const bool exists = std::filesystem::exists(file, error);
    throw ScenarioError(name, 0, 0, "", exists ? "cannot read file" : "no such file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ScenarioError(name, 0, 0, "", "cannot read file");
  return parse(std::move(text).str(), name);
}

ScenarioFile ScenarioFile::parse(std::string_view text, std::string name) {
  auto document = std::make_shared<ScenarioDocument>();
  document->folder = std::filesystem::path(name).parent_path();
  document->name = std::move(name);
  detail::parse_with_positions(text, *document);
  return ScenarioFile(std::move(document));
}

const std::string& ScenarioFile::name() const { return document_->name; }

const nlohmann::json& ScenarioFile::json() const { return document_->value; }

ScenarioNode ScenarioFile::root() const {
  return ScenarioNode(document_, &document_->value, &document_->source, "").as_object();
}

}  // namespace simgrad::scenario
