#include "core/csv.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace simgrad {

std::string read_text_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::invalid_argument(file.string() + ": cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

MappedText::MappedText(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY);
  if (fd < 0) throw std::invalid_argument(file.string() + ": cannot open the file");
  struct stat status {};
  if (::fstat(fd, &status) != 0) {
    ::close(fd);
    throw std::invalid_argument(file.string() + ": cannot read the file's size");
  }
  size_ = static_cast<std::size_t>(status.st_size);
  if (size_ > 0) {
    void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped == MAP_FAILED) {
      ::close(fd);
      throw std::invalid_argument(file.string() + ": cannot map the file");
    }
    ::madvise(mapped, size_, MADV_SEQUENTIAL);  // read once, front to back
    data_ = static_cast<const char*>(mapped);
  }
  ::close(fd);  // the mapping stays
}

MappedText::~MappedText() {
  if (data_) ::munmap(const_cast<char*>(data_), size_);
}

namespace {

std::string_view trimmed(std::string_view f) {
  while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
  while (!f.empty() && (f.back() == ' ' || f.back() == '\t' || f.back() == '\r')) f.remove_suffix(1);
  return f;
}

}  // namespace

bool CsvReader::next() {
  while (position_ < text_.size()) {
    std::size_t end = text_.find('\n', position_);
    if (end == std::string_view::npos) end = text_.size();
    const std::string_view record = trimmed(text_.substr(position_, end - position_));
    position_ = end + 1;
    line_ = next_line_++;
    if (record.empty() || record.front() == '#') continue;
    fields_.clear();
    for (std::size_t start = 0;;) {
      const std::size_t comma = record.find(',', start);
      fields_.push_back(trimmed(record.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return true;
  }
  fields_.clear();
  return false;
}

std::optional<double> parse_number(std::string_view field) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  double v = 0.0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (field.empty() || error != std::errc() || end != field.data() + field.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_integer(std::string_view field) {
  std::int64_t v = 0;
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (field.empty() || error != std::errc() || end != field.data() + field.size()) return std::nullopt;
  return v;
}

}  // namespace simgrad
