#pragma once

// Labelled text fields for saving and resuming optimizer state. Doubles are written as hexfloat,
// so a reloaded state is bit-for-bit the saved one and an interrupted run continues exactly as
// if it had never stopped. Every field carries its label, so a file from another method or
// version fails loudly instead of loading numbers into the wrong places.
//
// StateWriter and StateReader share one call shape, archive("label", member), so each optimizer
// lists its fields once in a template and the same list both saves and loads.

#include <charconv>
#include <concepts>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

namespace simgrad::tune {

class StateWriter {
 public:
  static constexpr bool loading = false;

  // Writes to out; the stream's own formatting flags are left alone.
  explicit StateWriter(std::ostream& out) : out_(out) {}

  // A double in hexfloat ("0x1.8p+1"), or inf, -inf, nan.
  void operator()(std::string_view label, double value);

  // 0 or 1.
  void operator()(std::string_view label, bool value);

  // Any integer, in decimal.
  template <std::integral Integer>
  void operator()(std::string_view label, Integer value) {
    char text[24];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    line(label, std::string_view(text, end));
  }

  // Length, then the raw characters, so that spaces survive.
  void operator()(std::string_view label, const std::string& value);

  // Size, then the values.
  void operator()(std::string_view label, const std::vector<double>& values);
  void operator()(std::string_view label, const Eigen::VectorXd& values);

  // Rows and columns, then the values in column-major order.
  void operator()(std::string_view label, const Eigen::MatrixXd& values);

 private:
  // One field per line: label, a space, the text.
  void line(std::string_view label, std::string_view text);

  // The numbers of a vector or matrix, each preceded by a space.
  static std::string number_list(const double* values, long count);

  std::ostream& out_;
};

class StateReader {
 public:
  static constexpr bool loading = true;

  // Reads from in; a missing, misnamed or malformed field throws std::runtime_error.
  explicit StateReader(std::istream& in) : in_(in) {}

  // Reads what StateWriter wrote for the same label.
  void operator()(std::string_view label, double& value);
  void operator()(std::string_view label, bool& value);
  void operator()(std::string_view label, std::string& value);
  void operator()(std::string_view label, std::vector<double>& values);
  void operator()(std::string_view label, Eigen::VectorXd& values);
  void operator()(std::string_view label, Eigen::MatrixXd& values);

  // Any integer, checked for range.
  template <std::integral Integer>
  void operator()(std::string_view label, Integer& value) {
    expect_label(label);
    const std::string text = token(label);
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) fail(label, "bad integer " + text);
  }

 private:
  // Reads the next label and throws unless it is the expected one.
  void expect_label(std::string_view label);

  // The next whitespace-separated token of the current field.
  std::string token(std::string_view label);

  // One double as written by StateWriter.
  double number(std::string_view label);

  // A non-negative count that prefixes a vector, matrix or string.
  long count(std::string_view label);

  // Throws std::runtime_error naming the field.
  [[noreturn]] static void fail(std::string_view label, const std::string& problem);

  std::istream& in_;
};

}  // namespace simgrad::tune
