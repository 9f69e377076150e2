// End-to-end tests of the simgrad command line: the built tool, run as a user would.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/app/run_simgrad.hpp"
#include "tests/report/png_reader.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using Result = simgrad::testing::ToolResult;

fs::path source_dir() { return fs::path(SIMGRAD_SOURCE_DIR); }

fs::path scratch(const std::string& name) { return simgrad::testing::tool_scratch(name); }

// Runs `simgrad ARGS`, capturing stdout and stderr.
Result simgrad(const std::string& args) { return simgrad::testing::run_simgrad(args); }

std::string example(const std::string& name) { return (source_dir() / "examples" / name).string(); }

// Writes a scenario file from the example with one textual replacement.
std::string edited_example(const std::string& from, const std::string& to,
                           const std::string& name = "mass_spring_simple.json") {
  std::ifstream in(example(name));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  const fs::path file = scratch("edited.json");
  std::ofstream(file) << text;
  // The data files that examples name relative to their folder.
  std::error_code ignored;
  fs::create_directory_symlink(source_dir() / "examples" / "data", scratch("data"), ignored);
  return file.string();
}

TEST(Cli, TuneMassSpringSimpleLowersTheLossHundredfoldWithinThirtyIterations) {
  const fs::path out = scratch("tune_out");
  const Result r = simgrad("tune " + example("mass_spring_simple.json") + " --out " + out.string() + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_LE(j["iterations"].get<int>(), 30);
  EXPECT_LT(j["final_loss"].get<double>(), j["initial_loss"].get<double>() / 100.0);
  EXPECT_NEAR(j["summary"]["final_area"].get<double>(), 0.1, 1e-3);
  EXPECT_EQ(j["hard_loss"], j["final_loss"]);  // no relaxation in this scenario
  EXPECT_EQ(j["parameters"]["rest_length"].size(), 3u);
  EXPECT_TRUE(fs::exists(out / "result.json"));
  EXPECT_TRUE(fs::exists(out / "loss.svg"));
  const json saved = json::parse(std::ifstream(out / "result.json"));
  EXPECT_EQ(saved["final_loss"], j["final_loss"]);
}

TEST(Cli, InterruptedTuneResumesToTheSameResult) {
  const fs::path whole = scratch("whole"), parts = scratch("parts");
  const std::string s = example("mass_spring_simple.json");
  const Result full = simgrad("tune " + s + " --out " + whole.string() + " --iterations 5 --json");
  ASSERT_EQ(full.status, 0) << full.err;
  ASSERT_EQ(simgrad("tune " + s + " --out " + parts.string() + " --iterations 2 --json").status, 0);
  const Result resumed = simgrad("tune " + s + " --out " + parts.string() + " --iterations 5 --resume --json");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  const json a = json::parse(full.out), b = json::parse(resumed.out);
  EXPECT_EQ(a["parameters"], b["parameters"]);
  EXPECT_EQ(a["final_loss"], b["final_loss"]);
  EXPECT_EQ(a["iterations"], b["iterations"]);
}

TEST(Cli, GradientIsIdenticalForEveryCheckpointPolicyAndThreadCount) {
  const std::string s = example("mass_spring_simple.json");
  const json reference = json::parse(simgrad("grad " + s + " --json --threads 1").out);
  for (const std::string flags : {"--checkpoint every:10", "--checkpoint binomial:8", "--threads 2"}) {
    const json other = json::parse(simgrad("grad " + s + " --json " + flags).out);
    EXPECT_EQ(other["gradient"], reference["gradient"]) << flags;
    EXPECT_EQ(other["loss"], reference["loss"]) << flags;
  }
  EXPECT_EQ(reference["adjoint_norms"].size(), 1025u);
}

TEST(Cli, GradcheckPasses) {
  const Result r = simgrad("gradcheck " + example("mass_spring_simple.json") + " --json");
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_TRUE(j["ok"].get<bool>());
  ASSERT_EQ(j["checks"].size(), 3u);
  EXPECT_EQ(j["checks"][0]["parameter"], "rest_length[0]");
}

TEST(Cli, ListNamesTheSoftbodyParametersWithUnits) {
  const json j = json::parse(simgrad("list --json").out);
  ASSERT_EQ(j["simulators"][0]["name"], "softbody");
  bool stiffness = false;
  for (const auto& p : j["simulators"][0]["parameters"]) stiffness = stiffness || (p["name"] == "stiffness" && p["unit"] == "N/m");
  EXPECT_TRUE(stiffness);
}

TEST(Cli, BadInputNamesFileLineAndFieldAndExitsWithTwo) {
  const Result typo = simgrad("run " + edited_example("\"stiffness\": 10", "\"stifness\": 10"));
  EXPECT_EQ(typo.status, 2);
  EXPECT_NE(typo.err.find("edited.json:14: stifness: unknown field (did you mean \"stiffness\"?)"), std::string::npos)
      << typo.err;
  const Result negative = simgrad("run " + edited_example("\"dt\": 0.001", "\"dt\": -1"));
  EXPECT_EQ(negative.status, 2);
  EXPECT_NE(negative.err.find("edited.json:5: dt: expected a number > 0, got -1"), std::string::npos) << negative.err;
  const Result policy = simgrad("run " + edited_example("\"checkpoint\": \"all\"", "\"checkpoint\": \"most\""));
  EXPECT_EQ(policy.status, 2);
  EXPECT_NE(policy.err.find("checkpoint: expected one of \"all\", \"every:K\", \"binomial:S\", got \"most\""),
            std::string::npos)
      << policy.err;
  const Result json_error = simgrad("run " + edited_example("\"mass\": 1", "\"mass\": [1, 2]") + " --json");
  EXPECT_EQ(json_error.status, 2);
  EXPECT_TRUE(json::parse(json_error.out).contains("error"));
  EXPECT_EQ(simgrad("run /nonexistent/scenario.json").status, 2);
  EXPECT_EQ(simgrad("run --checkpoint every:0").status, 2);
  EXPECT_EQ(simgrad("frobnicate").status, 2);
}

TEST(Cli, NonFiniteRunNamesStepKernelAndElementAndExitsWithOne) {
  const Result r = simgrad("run " + edited_example("\"stiffness\": 10", "\"stiffness\": 1e200"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("non-finite value at step "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kernel "), std::string::npos) << r.err;
}

TEST(Cli, CompareNeedsFewerRolloutsWithGradientsThanWithCmaes) {
  const fs::path out = scratch("compare_out");
  const Result r = simgrad("compare " + example("mass_spring_simple.json") + " --budget 400 --json --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  // The report plots every method that ran.
  std::ifstream report(out / "report.html");
  const std::string html((std::istreambuf_iterator<char>(report)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("cmaes"), std::string::npos);
  EXPECT_NE(html.find("<canvas id=\"animation\""), std::string::npos);
  const json j = json::parse(r.out);
  EXPECT_TRUE(j["gradient"]["reached"].get<bool>());
  EXPECT_LT(j["gradient"]["rollouts"].get<long>(), 30);
  if (j["cmaes"]["reached"].get<bool>()) {
    EXPECT_GT(j["cmaes"]["rollouts"].get<long>(), j["gradient"]["rollouts"].get<long>());
  }
  EXPECT_TRUE(j.contains("random"));
}

TEST(Cli, VehicleExamplesGradcheckAndTune) {
  const Result check = simgrad("gradcheck " + example("vehicle/bmw_320i_fit.json") + " --json --threads 2");
  ASSERT_EQ(check.status, 0) << check.out << check.err;
  EXPECT_TRUE(json::parse(check.out)["ok"].get<bool>());
  const Result tune = simgrad("tune " + example("vehicle/orca_fit.json") + " --out " + scratch("vehicle_out").string() + " --json");
  ASSERT_EQ(tune.status, 0) << tune.err;
  const json j = json::parse(tune.out);
  EXPECT_LE(j["iterations"].get<int>(), 50);
  for (const char* p : {"yaw_inertia", "cg_to_front", "drive_gain"})
    EXPECT_LT(j["summary"]["parameters_vs_preset"][p]["relative_error"].get<double>(), 0.02) << p;
  EXPECT_LT(j["summary"]["fit_rmse"]["current"]["yaw_rate"].get<double>(),
            0.1 * j["summary"]["fit_rmse"]["initial"]["yaw_rate"].get<double>());
}

TEST(Cli, DefaultScenarioIsBuiltIn) {
  const Result r = simgrad("run --json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["steps"], 1024);
}

TEST(Cli, ExplainPrintsHintsCheckedByReRatingAsJson) {
  const Result r = simgrad("explain " + example("bridge_warren.json") + " --json --hints 4");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["simulator"], "structure");
  EXPECT_GT(j["rating"].get<double>(), 0.0);
  EXPECT_GT(j["hard_rating"].get<double>(), 0.0);
  ASSERT_EQ(j["hints"].size(), 4u);
  for (const json& h : j["hints"]) {
    for (const char* field : {"text", "action", "part", "index", "parameter", "step", "state", "predicted_change",
                              "predicted_percent", "rerated_change", "rerated_percent", "hard_rerated_change"})
      EXPECT_TRUE(h.contains(field)) << field;
    EXPECT_LT(h["predicted_change"].get<double>(), 0.0);  // every hint predicts a better (lower) rating
    EXPECT_LT(h["rerated_change"].get<double>(), 0.0) << h["text"];  // and re-rating agrees in sign
    EXPECT_NE(h["text"].get<std::string>().find("re-rated"), std::string::npos);
  }
  // The same hints for people, one per line.
  const Result text = simgrad("explain " + example("bridge_warren.json") + " --hints 4");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find(j["hints"][0]["text"].get<std::string>()), std::string::npos) << text.out;
}

TEST(Cli, ExplainIsDeterministicAcrossThreadCounts) {
  const std::string s = example("portal_frame_catalogue.json");
  const Result one = simgrad("explain " + s + " --json --threads 1");
  const Result two = simgrad("explain " + s + " --json --threads 2");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(json::parse(one.out), json::parse(two.out));
}

TEST(Cli, ExplainOfASimulatorWithoutHintsIsBadUsage) {
  const Result r = simgrad("explain " + example("mass_spring_simple.json"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("gives no hints"), std::string::npos) << r.err;
}

TEST(Cli, TuneSizesTheTenBarTrussToThePublishedMinimumWeight) {
  // Published optimum with stress and deflection limits: 5060.85 lb (Haftka and Gurdal,
  // Elements of Structural Optimization, 1992, p. 244).
  const Result r = simgrad("tune " + example("ten_bar_truss.json") + " --out " + scratch("ten_bar").string() + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_NEAR(j["summary"]["mass"].get<double>(), 5060.85, 0.01 * 5060.85);
  EXPECT_LE(j["summary"]["max_stress_ratio"].get<double>(), 1.001);
  EXPECT_LE(j["summary"]["max_deflection_ratio"].get<double>(), 1.001);
  EXPECT_EQ(j["parameters"]["area"].size(), 10u);
}

TEST(Cli, TuneSnapsCatalogueChoicesAndReScoresThemOnTheHardModel) {
  const Result r = simgrad("tune " + example("portal_frame_catalogue.json") + " --out " + scratch("portal").string() + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_LT(j["final_loss"].get<double>(), j["initial_loss"].get<double>());
  EXPECT_EQ(j["summary"]["sections"].size(), 4u);  // every member snapped to one catalogue entry
  EXPECT_EQ(j["hard_loss"], j["summary"]["hard_rating"]);
  EXPECT_LT(j["hard_loss"].get<double>(), j["initial_loss"].get<double>());
}

TEST(Cli, TuneImprovesTheBridgeWithTheDeckFixedAndWithinBudget) {
  const Result r = simgrad("tune " + example("bridge_warren.json") + " --out " + scratch("bridge").string() + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["hard_loss"], j["summary"]["hard_rating"]);
  EXPECT_LT(j["final_loss"].get<double>(), 0.85 * j["initial_loss"].get<double>());
  // Only the six top joints move (the deck joints 0-6 are fixed), two axes each.
  EXPECT_EQ(j["parameters"]["joint_offset"].size(), 12u);
  EXPECT_LE(j["summary"]["cost"].get<double>(), 6000.0);
  EXPECT_LE(j["summary"]["max_stress_ratio"].get<double>(), 1.0);
}

TEST(Cli, ListNamesTheStructureParameters) {
  const json j = json::parse(simgrad("list --json").out);
  bool found = false;
  for (const auto& sim : j["simulators"])
    if (sim["name"] == "structure") found = sim["parameters"].size() == 3u;
  EXPECT_TRUE(found);
}

// Contagion scenarios through the same commands.
TEST(Cli, ContagionRunReportsR0AndTheHardModelOverSeeds) {
  const Result r = simgrad("run " + example("contagion_boarding_school.json") + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["simulator"], "contagion");
  EXPECT_GT(j["summary"]["r0"].get<double>(), 0.0);
  EXPECT_EQ(j["summary"]["hard_model"]["mean"].size(), 14u);
  EXPECT_EQ(j["summary"]["data"][5], 298.0);
}

TEST(Cli, ContagionGradcheckOfTheRelaxedModelPasses) {
  const std::string file = edited_example("\"temperature\": 0.5", "\"temperature\": 0.5, \"straight_through\": false",
                                          "contagion_boarding_school.json");
  const Result r = simgrad("gradcheck " + file + " --json --threads 2");
  fs::remove(file);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(json::parse(r.out)["ok"].get<bool>()) << r.out;
}

TEST(Cli, ContagionBadInputNamesFileLineAndField) {
  const std::string file = edited_example("\"temperature\": 0.5", "\"temperature\": 2", "contagion_boarding_school.json");
  const Result r = simgrad("run " + file);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("edited.json:5: disease.temperature"), std::string::npos) << r.err;
  const std::string column = edited_example("\"column\": \"confined_to_bed\"", "\"column\": \"in_bed\"",
                                            "contagion_boarding_school.json");
  const Result c = simgrad("run " + column);
  EXPECT_EQ(c.status, 2);
  EXPECT_NE(c.err.find("boarding_school_flu_1978.csv:1: no column \"in_bed\""), std::string::npos) << c.err;
  fs::remove(file);
  fs::remove(column);
}

// The fluid simulator through the command line: a run reports the region's density and the
// smoke's mass.
TEST(Cli, FluidRunReportsTheRegionDensity) {
  const Result r = simgrad("run " + example("vent_room.json") + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["simulator"], "fluid");
  EXPECT_GT(j["summary"]["final_region_density"].get<double>(), 0.0);
  const double density = j["summary"]["final_region_density"].get<double>();
  EXPECT_NEAR(j["loss"].get<double>(), (density - 1.0) * (density - 1.0), 1e-12);  // the example's target 1
  EXPECT_GT(j["summary"]["final_smoke_mass"].get<double>(), 0.0);
}

}  // namespace

namespace {

// `run --frames DIR`: one PNG per frame of the run, each a valid file of the asked size.
TEST(Cli, RunWritesPngFramesOfTheRun) {
  const fs::path dir = scratch("frames");
  const Result r = simgrad("run " + example("mass_spring_simple.json") + " --frames " + dir.string() + " --frame-size 320 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  const int count = j["frames"]["count"].get<int>();
  EXPECT_GT(count, 10);
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.path().extension() == ".png";
  EXPECT_EQ(files, count);
  std::ifstream in(dir / "frame_00000.png", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const simgrad::report::testing::DecodedPng png = simgrad::report::testing::decode_png(bytes);
  EXPECT_EQ(png.width, 320);
  EXPECT_EQ(png.height, 240);
  // Bad usage: a frame size out of range.
  EXPECT_EQ(simgrad("run " + example("mass_spring_simple.json") + " --frames " + dir.string() + " --frame-size 5").status, 2);
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `run --export` and `tune --export`: the run, or the tuned run, as glTF and a VTK series; a
// name of no known format is bad usage, refused before anything runs or is written.
TEST(Cli, RunAndTuneExportTheirRuns) {
  const fs::path dir = scratch("exports");
  const Result r = simgrad("run " + example("mass_spring_simple.json") + " --export " + (dir / "start.gltf").string() +
                           " --export " + (dir / "start.pvd").string() + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  ASSERT_EQ(j["exports"].size(), 2u);
  EXPECT_EQ(j["exports"][0]["frames"], 104);
  EXPECT_TRUE(fs::exists(dir / "start.gltf"));
  EXPECT_TRUE(fs::exists(dir / "start" / "start_0103.vtu"));

  const fs::path out = scratch("exports_tune");
  const Result t = simgrad("tune " + example("mass_spring_simple.json") + " --iterations 3 --out " + out.string() +
                           " --export " + (dir / "tuned.gltf").string() + " --json");
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_EQ(json::parse(t.out)["exports"][0]["file"], (dir / "tuned.gltf").string());
  EXPECT_NE(read_text(dir / "tuned.gltf"), read_text(dir / "start.gltf"));  // the tuned rest lengths move it otherwise

  const Result bad = simgrad("run " + example("mass_spring_simple.json") + " --export " + (dir / "x.obj").string());
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("unknown export format"), std::string::npos) << bad.err;
}

}  // namespace
