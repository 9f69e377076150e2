// CSV text as simgrad's data files use it: marker tracks, populations and contact lists,
// telemetry and case counts, all read by this one reader.
//
// One record per line, fields separated by commas, no quoting (the fields are numbers and
// names); \n or \r\n line ends. Fields are trimmed of spaces and tabs; blank lines and lines
// starting with '#' are skipped. Each record keeps its line number, so a caller's error names the
// file, line and column. Records are read in place, without an allocation per line: a contact list
// of a few million lines reads in about a second.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace simgrad {

// The whole file; std::invalid_argument "FILE: cannot open the file" when it cannot be read.
std::string read_text_file(const std::filesystem::path& file);

// A file's bytes mapped read-only, for files too large to copy into every process: processes of
// one node reading one file (each its part of a split population) share its pages. Throws
// std::invalid_argument naming the file when it cannot be opened or mapped.
class MappedText {
 public:
  explicit MappedText(const std::filesystem::path& file);
  ~MappedText();
  MappedText(const MappedText&) = delete;
  MappedText& operator=(const MappedText&) = delete;
  std::string_view text() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

class CsvReader {
 public:
  // Reads `text`, which must outlive the reader.
  explicit CsvReader(std::string_view text) : text_(text) {}

  // Moves to the next record; false at the end of the text.
  bool next();
  // The current record's line, from 1.
  int line() const { return line_; }
  std::span<const std::string_view> fields() const { return fields_; }
  std::size_t size() const { return fields_.size(); }
  std::string_view operator[](std::size_t k) const { return fields_[k]; }
  // How much of the text has been read, from 0 to 1 (for progress reports).
  double fraction_read() const {
    return text_.empty() ? 1.0 : static_cast<double>(position_) / static_cast<double>(text_.size());
  }

 private:
  std::string_view text_;
  std::size_t position_ = 0;  // the start of the next line
  int next_line_ = 1;
  int line_ = 0;
  std::vector<std::string_view> fields_;
};

// A whole field as a finite number (a leading '+' allowed); nullopt when it is anything else.
std::optional<double> parse_number(std::string_view field);
// A whole field as a decimal integer; nullopt when it is anything else or out of range.
std::optional<std::int64_t> parse_integer(std::string_view field);

}  // namespace simgrad
