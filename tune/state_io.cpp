#include "tune/state_io.hpp"

#include <cmath>
#include <stdexcept>

namespace simgrad::tune {
namespace {

// Hexfloat text that std::hexfloat would print, but locale-independent and exact by
// construction: to_chars in hex format never rounds.
std::string hexfloat_text(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char digits[40];
  const auto end =
      std::to_chars(digits, digits + sizeof digits, std::fabs(value), std::chars_format::hex).ptr;
  std::string text = std::signbit(value) ? "-0x" : "0x";
  text.append(digits, end);
  return text;
}

}  // namespace

void StateWriter::operator()(std::string_view label, double value) {
  line(label, hexfloat_text(value));
}

void StateWriter::operator()(std::string_view label, bool value) { line(label, value ? "1" : "0"); }

void StateWriter::operator()(std::string_view label, const std::string& value) {
  line(label, std::to_string(value.size()) + " " + value);
}

void StateWriter::operator()(std::string_view label, const std::vector<double>& values) {
  const long size = static_cast<long>(values.size());
  line(label, std::to_string(size) + number_list(values.data(), size));
}

void StateWriter::operator()(std::string_view label, const Eigen::VectorXd& values) {
  line(label, std::to_string(values.size()) + number_list(values.data(), values.size()));
}

void StateWriter::operator()(std::string_view label, const Eigen::MatrixXd& values) {
  line(label, std::to_string(values.rows()) + " " + std::to_string(values.cols()) +
                  number_list(values.data(), values.size()));
}

void StateWriter::line(std::string_view label, std::string_view text) {
  out_ << label << ' ' << text << '\n';
  if (!out_) throw std::runtime_error("optimizer state: writing field '" + std::string(label) + "' failed");
}

std::string StateWriter::number_list(const double* values, long count) {
  std::string text;
  for (long i = 0; i < count; ++i) {
    text += ' ';
    text += hexfloat_text(values[i]);
  }
  return text;
}

void StateReader::operator()(std::string_view label, double& value) {
  expect_label(label);
  value = number(label);
}

void StateReader::operator()(std::string_view label, bool& value) {
  int flag = 0;
  (*this)(label, flag);
  if (flag != 0 && flag != 1) fail(label, "expected 0 or 1");
  value = flag == 1;
}

void StateReader::operator()(std::string_view label, std::string& value) {
  expect_label(label);
  const long size = count(label);
  if (in_.get() != ' ') fail(label, "expected a space before the text");
  value.assign(static_cast<std::size_t>(size), '\0');
  if (!in_.read(value.data(), size)) fail(label, "text ends early");
}

void StateReader::operator()(std::string_view label, std::vector<double>& values) {
  expect_label(label);
  values.resize(static_cast<std::size_t>(count(label)));
  for (double& value : values) value = number(label);
}

void StateReader::operator()(std::string_view label, Eigen::VectorXd& values) {
  expect_label(label);
  values.resize(count(label));
  for (double& value : values) value = number(label);
}

void StateReader::operator()(std::string_view label, Eigen::MatrixXd& values) {
  expect_label(label);
  const long rows = count(label);
  const long cols = count(label);
  values.resize(rows, cols);
  for (long i = 0; i < values.size(); ++i) values.data()[i] = number(label);
}

void StateReader::expect_label(std::string_view label) {
  std::string found;
  if (!(in_ >> found)) fail(label, "the state ends before this field");
  if (found != label) fail(label, "found field '" + found + "' instead");
}

std::string StateReader::token(std::string_view label) {
  std::string text;
  if (!(in_ >> text)) fail(label, "the state ends inside this field");
  return text;
}

double StateReader::number(std::string_view label) {
  const std::string text = token(label);
  std::string_view digits = text;
  const bool negative = digits.starts_with('-');
  if (negative) digits.remove_prefix(1);
  const bool hex = digits.starts_with("0x");
  if (hex) digits.remove_prefix(2);
  double magnitude = 0;
  const auto [end, error] =
      std::from_chars(digits.data(), digits.data() + digits.size(), magnitude,
                      hex ? std::chars_format::hex : std::chars_format::general);
  if (error != std::errc() || end != digits.data() + digits.size()) {
    fail(label, "bad number " + text);
  }
  return negative ? -magnitude : magnitude;
}

long StateReader::count(std::string_view label) {
  long size = -1;
  const std::string text = token(label);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), size);
  if (error != std::errc() || end != text.data() + text.size() || size < 0) {
    fail(label, "bad count " + text);
  }
  return size;
}

void StateReader::fail(std::string_view label, const std::string& problem) {
  throw std::runtime_error("optimizer state, field '" + std::string(label) + "': " + problem);
}

}  // namespace simgrad::tune
