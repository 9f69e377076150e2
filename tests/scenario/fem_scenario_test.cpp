// FEM scenarios: files load, their gradient matches finite differences, L-BFGS recovers the
// material values of a reference made with other values, marker CSV references are read, and bad
// input names file, line and field.
#include "scenario/fem_scenario.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/gradcheck.hpp"
#include "tune/methods.hpp"

namespace simgrad::scenario {
namespace {

// A small 2D plane-strain strip clamped at x = 0, swinging under gravity; `reference` is the loss's
// reference section, `extra` more top-level fields.
std::string strip(const std::string& reference, const std::string& extra = "") {
  return R"({
  "simulator": "fem",
  "dimension": 2,
  "dt": 0.001,
  "steps": 200,
  "material": "corotated",
  "mesh": {"type": "rectangle", "cells": [4, 1], "size": [0.4, 0.1]},
  "youngs_modulus": 5e4,
  "poisson_ratio": 0.25,
  "mass_damping": 0.5,
  "pin_box": {"min": [0, 0], "max": [0, 0.1]},
  "gravity": [0, -9.81],)" + extra + R"(
  "loss": {"type": "trajectory_match", "stride": 20, "markers": [4, 9],
           "reference": )" + reference + R"(},
  "tune": {"parameters": [
    {"name": "youngs_modulus", "lower": 1e3, "upper": 1e7, "transform": "log"},
    {"name": "poisson_ratio", "lower": 0.0, "upper": 0.45, "transform": "logit"},
    {"name": "mass_damping", "lower": 0.01, "upper": 100, "transform": "log"}]}
})";
}

const std::string kGenerated = R"({"generate": {"youngs_modulus": 1e5, "poisson_ratio": 0.35, "mass_damping": 2.0}})";

TEST(FemScenario, GradientMatchesFiniteDifferences) {
  auto s = load_scenario_text(strip(kGenerated), "strip.json");
  EXPECT_EQ(s->simulator(), "fem");
  EXPECT_EQ(s->summary()["elements"], 8);
  tune::Problem& p = s->problem();
  const std::vector<double> x = p.initial();
  std::vector<double> g(x.size());
  p.value_and_gradient(x, g);
  GradCheckOptions options;
  options.rtol = 1e-5;
  const GradCheckReport report = check_gradient([&](std::span<const double> q) { return p.value(q); }, x, g, options);
  for (const GradCheckEntry& c : report.checks) EXPECT_TRUE(c.ok) << c.label << ": ad " << c.ad << " fd " << c.fd;
}

TEST(FemScenario, LbfgsRecoversTheMaterialFromNoiselessMotion) {
  auto s = load_scenario_text(strip(kGenerated), "strip.json");
  tune::Problem& p = s->problem();
  tune::OptimizerOptions options;
  options.max_iterations = 20;
  auto lbfgs = tune::make_optimizer("lbfgs", options);
  auto objective = p.space().objective(p);
  const auto result = tune::minimize(*lbfgs, objective, p.space().to_optimizer(p.initial()), p.space().optimizer_lower(),
                                     p.space().optimizer_upper());
  const std::vector<double> x = p.space().to_physical(result.x);
  EXPECT_NEAR(x[0], 1e5, 1e3);   // within 1%
  EXPECT_NEAR(x[1], 0.35, 3.5e-3);
  EXPECT_NEAR(x[2], 2.0, 2e-2);
}

TEST(FemScenario, ReadsAMarkerCsvReference) {
  // The reference the generated scenario fits, written as CSV and read back: the same loss.
  auto generated = load_scenario_text(strip(kGenerated), "strip.json");
  const std::filesystem::path csv = std::filesystem::temp_directory_path() / "simgrad_fem_strip_markers.csv";
  {
    std::ofstream out(csv);
    fem::write_marker_csv(out, fem_reference(*generated));
  }
  auto from_csv = load_scenario_text(
      R"({"simulator": "fem", "dimension": 2, "dt": 0.001, "steps": 200, "mesh": {"type": "rectangle", "cells": [4, 1], "size": [0.4, 0.1]},
          "youngs_modulus": 5e4, "poisson_ratio": 0.25, "mass_damping": 0.5, "pin_box": {"min": [0, 0], "max": [0, 0.1]},
          "gravity": [0, -9.81], "loss": {"type": "trajectory_match", "reference": {"csv": ")" + csv.string() + R"("}},
          "tune": {"parameters": [{"name": "youngs_modulus", "lower": 1e3, "upper": 1e7}]}})",
      "strip_csv.json");
  const double a = generated->problem().value(generated->problem().initial());
  const double b = from_csv->problem().value(std::vector<double>{5e4});
  EXPECT_NEAR(a, b, 1e-12 * a);
  std::filesystem::remove(csv);
}

TEST(FemScenario, FramesDrawElementEdgesAndWriteTheSurfaceAsObj) {
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "simgrad_fem_obj";
  std::filesystem::remove_all(folder);
  auto s = load_scenario_text(
      strip(kGenerated, R"( "surface_obj": {"folder": ")" + folder.string() + R"(", "every": 100},
      "boxes": [{"min": [0.3, -1], "max": [1, -0.01], "friction": 0.5}],)"),
      "strip.json");
  const nlohmann::json frames = s->frames(s->problem().initial());
  EXPECT_EQ(frames["edges"].size(), 8u + 5u + 4u);  // horizontal, vertical, diagonal
  EXPECT_EQ(frames["frames"][0]["points"].size(), 10u);
  for (const char* name : {"step_000000.obj", "step_000100.obj", "step_000200.obj"})
    EXPECT_TRUE(std::filesystem::exists(folder / name)) << name;
  std::filesystem::remove_all(folder);
}

TEST(FemScenario, RegionsHaveTheirOwnMaterial) {
  // The strip's outer half is a second region with its own Young's modulus, tuned per region.
  std::string text = strip(kGenerated, R"( "region_boxes": [{"min": [0.2, 0], "max": [0.4, 0.1]}],)");
  text.replace(text.find("\"youngs_modulus\": 5e4"), 21, "\"youngs_modulus\": [5e4, 8e4]");
  auto s = load_scenario_text(text, "strip.json");
  EXPECT_EQ(s->summary()["regions"], 2);
  tune::Problem& p = s->problem();
  ASSERT_EQ(p.dimension(), 5u);  // E and nu per region (sharing "each"), alpha per body
  const std::vector<double> x = p.initial();
  EXPECT_EQ(x[0], 5e4);
  EXPECT_EQ(x[1], 8e4);
  std::vector<double> g(x.size());
  p.value_and_gradient(x, g);
  EXPECT_NE(g[0], 0.0);
  EXPECT_NE(g[1], 0.0);
}

TEST(FemScenario, ExamplesLoad) {
  for (const char* name : {"fem_cantilever.json", "fem_bouncing_block.json"}) {
    auto s = load_scenario(std::filesystem::path(SIMGRAD_SOURCE_DIR) / "examples" / name);
    EXPECT_EQ(s->simulator(), "fem");
    EXPECT_EQ(s->problem().dimension(), 3u) << name;
  }
}

TEST(FemScenario, BadInputNamesFileLineAndField) {
  auto error_of = [](const std::string& text) {
    try {
      load_scenario_text(text, "strip.json");
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string text = strip(kGenerated);
  text.replace(text.find("\"rectangle\""), 11, "\"box\"");
  EXPECT_NE(error_of(text).find("strip.json:7: mesh.type: a box mesh needs \"dimension\": 3"), std::string::npos)
      << error_of(text);
  EXPECT_NE(error_of(strip(R"({"csv": "no_such_file.csv"})")).find("loss.reference.csv: expected an existing file"),
            std::string::npos);
  text = strip(kGenerated);
  text.replace(text.find("0.25"), 4, "0.55");
  EXPECT_NE(error_of(text).find("strip.json:9: poisson_ratio: expected values in (-1, 0.5)"), std::string::npos)
      << error_of(text);
}

}  // namespace
}  // namespace simgrad::scenario
