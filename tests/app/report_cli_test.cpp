// report.html as the command line writes it: `simgrad render` rebuilds it byte for byte, and
// (in headless Chromium) the report of one example per mechanic renders without errors with its
// plots and a running animation.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <utility>

#include "tests/report/report_files.hpp"

namespace simgrad::app {
namespace {

namespace fs = std::filesystem;
using report::testing::read_text;
using report::testing::scratch;
using report::testing::shell;

// `simgrad render DIR` rebuilds the report tune wrote, byte for byte, without re-simulating.
TEST(Report, RenderRebuildsTheReportOfATune) {
  const fs::path out = scratch("render");
  const std::string scenario = std::string(SIMGRAD_SOURCE_DIR) + "/examples/mass_spring_simple.json";
  ASSERT_EQ(shell(std::string(SIMGRAD_BINARY) + " tune " + scenario + " --iterations 3 --quiet --out " + out.string() +
                  " > /dev/null"),
            0);
  const std::string written = read_text(out / "report.html");
  fs::remove(out / "report.html");
  ASSERT_EQ(shell(std::string(SIMGRAD_BINARY) + " render " + out.string() + " --quiet > /dev/null"), 0);
  EXPECT_EQ(read_text(out / "report.html"), written);
  EXPECT_EQ(shell(std::string(SIMGRAD_BINARY) + " render " + (out / "nothing").string() + " 2> /dev/null"), 2);
}

// The real thing: `simgrad tune` writes the report of one example per mechanic and headless
// Chromium renders it. Chromium is installed by scripts/setup.sh; without it the test says so
// and skips.
TEST(Report, RendersInHeadlessChromiumWithoutErrorsAndAnimates) {
  if (shell("command -v chromium > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it): the report was not opened in a browser";
  const std::pair<std::string, std::string> examples[] = {{"mass_spring_simple", "--iterations 5"},
                                                          {"ten_bar_truss", "--iterations 2"},
                                                          {"vehicle/bmw_320i_fit", "--iterations 1 --threads 2"},
                                                          {"contagion_boarding_school", "--iterations 1"},
                                                          {"vent_room", "--iterations 1 --threads 2"}};
  for (const auto& [example, flags] : examples) {
    SCOPED_TRACE(example);
    const std::string name = fs::path(example).filename().string();
    const fs::path out = scratch(name);
    const std::string scenario = std::string(SIMGRAD_SOURCE_DIR) + "/examples/" + example + ".json";
    ASSERT_EQ(shell(std::string(SIMGRAD_BINARY) + " tune " + scenario + " " + flags + " --quiet --out " + out.string() +
                    " > /dev/null"),
              0);
    const fs::path report = out / "report.html";
    ASSERT_TRUE(fs::exists(report));
    const std::string browser =
        "chromium --headless --no-sandbox --disable-gpu --enable-logging=stderr --v=0 --user-data-dir=" +
        scratch("profile").string() + " ";
    const fs::path dom = scratch("dom.html"), log = scratch("chromium.log");
    ASSERT_EQ(shell(browser + "--virtual-time-budget=3000 --dump-dom file://" + report.string() + " > " + dom.string() +
                    " 2> " + log.string()),
              0)
        << read_text(log);
    const std::string page = read_text(dom);
    EXPECT_NE(page.find("data-script=\"ok\""), std::string::npos) << "the page's script did not finish";
    EXPECT_EQ(page.find("data-error=\""), std::string::npos) << page.substr(page.find("<body"), 300);
    EXPECT_EQ(read_text(log).find("Uncaught"), std::string::npos) << read_text(log);
    EXPECT_NE(page.find("id=\"loss-plot\"><svg"), std::string::npos);
    std::smatch frame;
    const std::regex frame_attribute("<canvas id=\"animation\"[^>]*data-frame=\"([0-9]+)\"");
    ASSERT_TRUE(std::regex_search(page, frame, frame_attribute)) << "no animation canvas";
    EXPECT_GT(std::stoi(frame[1].str()), 10) << "the animation did not advance";
    // A screenshot in the build folder, beside the tool, for people to look at.
    const fs::path screenshot = fs::path(SIMGRAD_BINARY).parent_path() / ("report_" + name + ".png");
    EXPECT_EQ(shell(browser + "--virtual-time-budget=1000 --window-size=1100,2400 --screenshot=" + screenshot.string() +
                    " file://" + report.string() + " 2>> " + log.string()),
              0);
    EXPECT_TRUE(fs::exists(screenshot));
  }
  fs::remove_all(scratch("").parent_path());
}

}  // namespace
}  // namespace simgrad::app
