// Every example's loss and gradient, bit for bit, as recorded in tests/app/example_bits.json
// (tools/record_example_bits.py): a refactoring of loaders, binders or kernels that changes a
// single bit of any result fails here. A change meant to change results re-records the file and
// says so in its commit.
//
// Each compiler has its own record: the local AD tape records operations in the order the
// operands of an expression are evaluated, which C++ leaves to the compiler, and sums adjoints in
// that order, so GCC's and clang's gradients differ in their last bits (8 of 42 examples, up to
// 6e-14 relative, GCC 12 against clang 14). Within one compiler they are the same on every run,
// thread count and checkpoint policy.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/app/run_simgrad.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = SIMGRAD_SOURCE_DIR;

json recorded() {
  std::ifstream in(kSource / "tests" / "app" / "example_bits.json");
  return json::parse(in);
}

// FNV-1a over the IEEE-754 bits of each value, as the recording script computes it.
std::uint64_t fnv1a(const std::vector<double>& values) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (double v : values) {
    unsigned char bytes[sizeof v];
    std::memcpy(bytes, &v, sizeof v);
    for (unsigned char b : bytes) {
      h ^= b;
      h *= 0x100000001B3ull;
    }
  }
  return h;
}

// The gradient's values in key order (json objects iterate sorted), lists flattened.
std::vector<double> flatten(const json& gradient) {
  std::vector<double> out;
  for (const auto& [name, value] : gradient.items()) {
    if (value.is_array())
      for (const json& v : value) out.push_back(v.get<double>());
    else out.push_back(value.get<double>());
  }
  return out;
}

// `simgrad grad --json` on one example.
json grad(const std::string& example) {
  const simgrad::testing::ToolResult r =
      simgrad::testing::run_simgrad("grad --json --quiet --threads 2 " + (kSource / example).string());
  EXPECT_EQ(r.status, 0) << example << ": " << r.err;
  return json::parse(r.out);
}

TEST(ExampleBits, EveryExampleIsRecorded) {
  const json bits = recorded();
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "examples")) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      EXPECT_TRUE(bits.contains(fs::relative(entry.path(), kSource).generic_string())) << entry.path();
    }
  }
}

// This compiler's record of an example: the top-level entries are GCC's, "clang" clang's.
json for_this_compiler(const json& entry) {
#if defined(__clang__)
  json record = entry;
  EXPECT_TRUE(entry.contains("clang")) << "no clang record: tools/record_example_bits.py with the clang build's tool";
  if (entry.contains("clang")) record.update(entry["clang"]);
  return record;
#else
  return entry;
#endif
}

TEST(ExampleBits, LossAndGradientAreTheRecordedBits) {
  const json bits = recorded();
  for (const auto& [example, entry] : bits.items()) {
    const json expected = for_this_compiler(entry);
    const json result = grad(example);
    ASSERT_TRUE(result.contains("loss") && result.contains("gradient")) << example;
    const double loss = result["loss"].get<double>(), want = expected["loss"].get<double>();
    EXPECT_EQ(std::memcmp(&loss, &want, sizeof loss), 0) << example << ": loss " << loss << ", recorded " << want;
    const std::vector<double> gradient = flatten(result["gradient"]);
    EXPECT_EQ(gradient.size(), expected["gradient_values"].get<std::size_t>()) << example;
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(gradient)));
    EXPECT_EQ(hash, expected["gradient_fnv1a"].get<std::string>()) << example << ": the gradient's bits changed";
  }
}

}  // namespace
