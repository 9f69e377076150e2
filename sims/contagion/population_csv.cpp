// Population CSV files, parsed from one memory buffer per file (no stream per field): a
// million agents and 3.5 million contacts load in about a second.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "sims/contagion/population.hpp"

namespace simgrad::contagion {

namespace {

// The whole file in memory.
std::string read_file(const std::filesystem::path& file) {
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (f == nullptr) throw std::invalid_argument(file.string() + ": cannot open the file");
  std::string text;
  char buffer[1 << 16];
  std::size_t r;
  while ((r = std::fread(buffer, 1, sizeof buffer, f)) > 0) text.append(buffer, r);
  std::fclose(f);
  return text;
}

// A cursor over CSV text that knows its line and column, for error messages.
class CsvCursor {
 public:
  CsvCursor(const std::filesystem::path& file, const std::string& text) : file_(file), text_(text) {}

  bool at_end() const { return pos_ >= text_.size(); }
  double fraction() const { return text_.empty() ? 1.0 : static_cast<double>(pos_) / static_cast<double>(text_.size()); }
  long line() const { return line_; }
  // Whether the current line starts with a digit (a header line does not).
  bool line_starts_with_digit() const { return !at_end() && text_[pos_] >= '0' && text_[pos_] <= '9'; }
  // Whether the current line is empty (a trailing newline, or a blank line).
  bool line_empty() const { return at_end() || text_[pos_] == '\n' || text_[pos_] == '\r'; }
  // Reads a non-negative integer field of column `column` (1-based) named `what`, up to `hi`.
  std::int64_t integer(int column, const char* what, std::int64_t hi) {
    std::int64_t v = 0;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      v = v * 10 + (text_[pos_] - '0');
      if (v > hi) fail(column, std::string(what) + " above " + std::to_string(hi));
      ++pos_;
    }
    if (pos_ == start) fail(column, std::string("expected a non-negative integer ") + what);
    return v;
  }
  // Whether another field follows on this line (consumes the comma).
  bool comma() {
    if (pos_ < text_.size() && text_[pos_] == ',') {
      ++pos_;
      return true;
    }
    return false;
  }
  // Requires the end of the line (or a comma if more fields are allowed and skipped).
  void end_line(int column, bool skip_rest) {
    if (skip_rest)
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '\r') ++pos_;
    if (pos_ < text_.size() && text_[pos_] != '\n') fail(column, "unexpected text after the last field");
    skip_line();
  }
  void skip_line() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    if (pos_ < text_.size()) ++pos_;
    ++line_;
  }
  [[noreturn]] void fail(int column, const std::string& message) const {
    throw std::invalid_argument(file_.string() + ":" + std::to_string(line_) + ": column " + std::to_string(column) +
                                ": " + message);
  }

 private:
  const std::filesystem::path& file_;
  const std::string& text_;
  std::size_t pos_ = 0;
  long line_ = 1;
};

}  // namespace

Population load_population_csv(const std::filesystem::path& agents_file, const std::filesystem::path& contacts_file,
                               const ProgressCallback& progress) {
  Population p;
  {
    const std::string text = read_file(agents_file);
    CsvCursor c(agents_file, text);
    if (!c.line_starts_with_digit()) c.skip_line();  // header
    int max_age = 0;
    while (!c.at_end()) {
      if (c.line_empty()) {
        c.skip_line();
        continue;
      }
      const std::int64_t index = c.integer(1, "agent index", INT32_MAX - 1);
      if (index != p.agents) c.fail(1, "expected agent index " + std::to_string(p.agents) + " (agents in order from 0)");
      if (!c.comma()) c.fail(2, "missing age_group");
      const std::int64_t age = c.integer(2, "age_group", 255);
      c.end_line(3, true);
      p.age.push_back(static_cast<std::uint8_t>(age));
      max_age = std::max(max_age, static_cast<int>(age));
      ++p.agents;
    }
    if (p.agents == 0) throw std::invalid_argument(agents_file.string() + ": no agents");
    p.age_groups = max_age + 1;
  }
  if (progress) progress(0.1);
  EdgeList edges;
  {
    const std::string text = read_file(contacts_file);
    CsvCursor c(contacts_file, text);
    // About 12 bytes per line: reserve once instead of regrowing.
    const std::size_t guess = text.size() / 10 + 16;
    edges.from.reserve(guess);
    edges.to.reserve(guess);
    edges.layer.reserve(guess);
    int max_layer = 0;
    long lines = 0;
    if (!c.line_starts_with_digit() && !c.at_end()) c.skip_line();  // header
    while (!c.at_end()) {
      if (c.line_empty()) {
        c.skip_line();
        continue;
      }
      const std::int64_t a = c.integer(1, "agent index", p.agents - 1);
      if (!c.comma()) c.fail(2, "missing the second agent of the contact");
      const std::int64_t b = c.integer(2, "agent index", p.agents - 1);
      std::int64_t l = 0;
      if (c.comma()) l = c.integer(3, "layer", 255);
      c.end_line(4, false);
      edges.add(static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), static_cast<std::uint8_t>(l));
      max_layer = std::max(max_layer, static_cast<int>(l));
      if (progress && (++lines & 0xFFFFF) == 0) progress(0.1 + 0.7 * c.fraction());
    }
    p.layers = max_layer + 1;
    for (int l = 0; l < p.layers; ++l) p.layer_names.push_back("layer" + std::to_string(l));
  }
  if (progress) progress(0.8);
  build_contacts(p, edges);
  if (progress) progress(1.0);
  return p;
}

}  // namespace simgrad::contagion
