#include "tune/state_io.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace simgrad::tune {
namespace {

// Every field type StateWriter knows, listed once for both directions as optimizers do.
struct Sample {
  double number = 0;
  std::vector<double> tricky;
  int count = 0;
  long big = 0;
  uint64_t seed = 0;
  bool flag = false;
  std::string text;
  Eigen::VectorXd vector;
  Eigen::MatrixXd matrix;

  template <class Self, class Archive>
  static void transfer(Self& self, Archive& archive) {
    archive("number", self.number);
    archive("tricky", self.tricky);
    archive("count", self.count);
    archive("big", self.big);
    archive("seed", self.seed);
    archive("flag", self.flag);
    archive("text", self.text);
    archive("vector", self.vector);
    archive("matrix", self.matrix);
  }
};

// Values whose decimal printing would lose bits, plus the special ones.
Sample filled() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Sample s;
  s.number = 0.1;
  s.tricky = {1.0 / 3.0, -2.0 / 3.0, 5e-324, std::numeric_limits<double>::max(), -0.0, inf, -inf,
              nan, 1e-310, 123456789.123456789};
  s.count = -42;
  s.big = std::numeric_limits<long>::min();
  s.seed = std::numeric_limits<uint64_t>::max();
  s.flag = true;
  s.text = "line search found no lower loss";
  s.vector = Eigen::VectorXd::LinSpaced(4, -1.0 / 7.0, 3.0 / 7.0);
  s.matrix = Eigen::MatrixXd::Identity(2, 3) * std::sqrt(2.0);
  return s;
}

// Bit pattern of a double, so -0.0 and 0.0 count as different.
uint64_t bits(double value) { return std::bit_cast<uint64_t>(value); }

TEST(StateIo, RoundTripsEveryFieldBitForBit) {
  const Sample original = filled();
  std::stringstream stream;
  StateWriter writer(stream);
  Sample::transfer(original, writer);
  Sample copy;
  StateReader reader(stream);
  Sample::transfer(copy, reader);

  EXPECT_EQ(bits(copy.number), bits(original.number));
  ASSERT_EQ(copy.tricky.size(), original.tricky.size());
  for (std::size_t i = 0; i < copy.tricky.size(); ++i) {
    if (std::isnan(original.tricky[i])) {
      EXPECT_TRUE(std::isnan(copy.tricky[i]));
    } else {
      EXPECT_EQ(bits(copy.tricky[i]), bits(original.tricky[i])) << i;
    }
  }
  EXPECT_EQ(copy.count, original.count);
  EXPECT_EQ(copy.big, original.big);
  EXPECT_EQ(copy.seed, original.seed);
  EXPECT_EQ(copy.flag, original.flag);
  EXPECT_EQ(copy.text, original.text);
  EXPECT_EQ(copy.vector, original.vector);
  EXPECT_EQ(copy.matrix, original.matrix);
}

TEST(StateIo, WritesHexfloatText) {
  std::stringstream stream;
  StateWriter writer(stream);
  writer("half", 0.5);
  writer("minus_three", -3.0);
  EXPECT_EQ(stream.str(), "half 0x1p-1\nminus_three -0x1.8p+1\n");
}

// A wrong label means a file from another method or version: it must not load silently.
TEST(StateIo, RejectsAMisnamedField) {
  std::stringstream stream("sigma 0x1p+0\n");
  StateReader reader(stream);
  double value = 0;
  try {
    reader("mean", value);
    FAIL() << "no exception";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("'mean'"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("'sigma'"), std::string::npos);
  }
}

TEST(StateIo, RejectsTruncatedAndMalformedFields) {
  double value = 0;
  std::vector<double> values;
  int small = 0;
  std::stringstream empty("");
  EXPECT_THROW(StateReader{empty}("x", value), std::runtime_error);
  std::stringstream short_vector("v 3 0x1p+0 0x1p+1\n");
  EXPECT_THROW(StateReader{short_vector}("v", values), std::runtime_error);
  std::stringstream garbage("x 0x1.zp+0\n");
  EXPECT_THROW(StateReader{garbage}("x", value), std::runtime_error);
  std::stringstream overflow("n 99999999999\n");
  EXPECT_THROW(StateReader{overflow}("n", small), std::runtime_error);
}

}  // namespace
}  // namespace simgrad::tune
