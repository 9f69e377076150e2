#include "app/json_output.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace simgrad::app {
namespace {

TEST(JsonOutput, DoublesRoundTripBitForBit) {
  const double values[] = {0.1, 1.0 / 3.0, 2.0 / 3.0 * 1e-300, 1.7976931348623157e308,
                           4.9e-324, -123456.789012345678, 1e21, 0.0};
  for (const double value : values) {
    const auto text = to_json_text(nlohmann::json{{"v", value}}, -1);
    const double back = nlohmann::json::parse(text)["v"].get<double>();
    EXPECT_EQ(std::memcmp(&back, &value, sizeof value), 0) << text;
  }
  EXPECT_EQ(to_json_text(0.1, -1), "0.1");
}

TEST(JsonOutput, NonFiniteNumbersAreNull) {
  const nlohmann::json value = {{"nan", std::nan("")},
                                {"inf", std::numeric_limits<double>::infinity()},
                                {"list", {1.5, -std::numeric_limits<double>::infinity()}}};
  EXPECT_EQ(to_json_text(value, -1), R"({"inf":null,"list":[1.5,null],"nan":null})");
  EXPECT_TRUE(finite_or_null(std::nan("")).is_null());
  EXPECT_EQ(finite_or_null(2.5), 2.5);
}

TEST(JsonOutput, InvalidUtf8DoesNotThrow) {
  const nlohmann::json value = {{"file", std::string("bad\xff name")}};
  EXPECT_NO_THROW(to_json_text(value));
  EXPECT_TRUE(nlohmann::json::accept(to_json_text(value)));
}

TEST(JsonOutput, PrintsOneDocumentAndANewline) {
  std::ostringstream out;
  print_json({{"loss", 0.25}, {"ok", true}}, out);
  const std::string text = out.str();
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(nlohmann::json::parse(text), (nlohmann::json{{"loss", 0.25}, {"ok", true}}));
}

}  // namespace
}  // namespace simgrad::app
