// report.html: self-contained, read back from report.json, and (in headless Chromium) rendered
// without errors; the reports `simgrad tune` writes are tested with the command line
// (tests/app/report_cli_test.cpp).
#include "report/report.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "tests/report/report_files.hpp"

namespace simgrad::report {
namespace {

namespace fs = std::filesystem;
using testing::read_text;
using testing::scratch;
using testing::shell;

ReportInput sample_input() {
  ReportInput in;
  in.title = "a <test> & more";
  in.simulator = "softbody";
  in.losses.push_back({"lbfgs", {1, 3, 5}, {1.0, 0.1, 0.01}});
  in.parameters.push_back({"rest_length[0]", "m", 0.1, 0.2, 0.01, 2.0, 1e-3});
  in.initial_loss = 1.0;
  in.relaxed_loss = 0.01;
  in.hard_loss = 0.011;
  in.adjoint_norms = {1.0, 2.0, 4.0};
  const nlohmann::json frame = {{"label", "step 0"}, {"lines", {{0, 0, 1, 1, 0.5}}}, {"points", {{0, 0}}}};
  in.before = {{"legend", "springs"}, {"frames", {frame, frame}}};
  in.after = in.before;
  return in;
}

TEST(Report, IsSelfContainedAndEscapesText) {
  const std::string html = render_report(sample_input());
  EXPECT_NE(html.find("a &lt;test&gt; &amp; more"), std::string::npos);
  EXPECT_NE(html.find("<canvas id=\"animation\""), std::string::npos);
  EXPECT_NE(html.find("id=\"loss-plot\"><svg"), std::string::npos);
  EXPECT_NE(html.find("id=\"adjoint-plot\"><svg"), std::string::npos);
  EXPECT_NE(html.find("rest_length[0]"), std::string::npos);
  // Nothing is fetched: no external scripts, styles, fonts or images.
  for (const char* external : {"<script src", "<link", "@import", "url(", "<img", "<iframe"})
    EXPECT_EQ(html.find(external), std::string::npos) << external;
}

TEST(Report, SimulatorsWithoutFramesGetLossPlotsOnly) {
  ReportInput in = sample_input();
  in.before = nullptr;
  in.after = nullptr;
  in.adjoint_norms.clear();
  const std::string html = render_report(in);
  EXPECT_EQ(html.find("<canvas"), std::string::npos);
  EXPECT_NE(html.find("draws no animation"), std::string::npos);
  EXPECT_NE(html.find("id=\"loss-plot\"><svg"), std::string::npos);
}

TEST(Report, ScriptTextInDataCannotEndTheScriptElement) {
  ReportInput in = sample_input();
  in.after["legend"] = "</script><script>alert(1)</script>";
  in.before["frames"][0]["label"] = "</script>";
  const std::string html = render_report(in);
  EXPECT_EQ(html.find("</script><script>alert"), std::string::npos);
}

TEST(Report, SavedJsonRendersTheSamePage) {
  ReportInput in = sample_input();
  in.parameters[0].upper = std::numeric_limits<double>::infinity();  // saved as null, read back as not finite
  const nlohmann::json saved = nlohmann::json::parse(report_to_json(in).dump());
  EXPECT_EQ(render_report(report_from_json(saved)), render_report(in));
  EXPECT_THROW(report_from_json(nlohmann::json::object()), std::invalid_argument);
}

// The drawing kinds no shipped example uses yet, a scalar field under points coloured by class,
// draw in Chromium without errors.
TEST(Report, FieldsAndPointClassesDrawInHeadlessChromium) {
  if (shell("command -v chromium > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it): the report was not opened in a browser";
  ReportInput in = sample_input();
  const nlohmann::json field = {{"nx", 2}, {"ny", 2}, {"values", {0.0, 1.0, 2.0, 3.0}}, {"box", {0, 0, 1, 1}}};
  const nlohmann::json frame = {{"label", "t 0"}, {"points", {{0.2, 0.2}, {0.8, 0.8}}}, {"classes", {0, 1}}, {"field", field}};
  in.before = {{"legend", "density"}, {"palette", {"#b0b0b0", "#d62728"}}, {"frames", {frame, frame}}};
  in.after = in.before;
  const fs::path report = scratch("field.html"), dom = scratch("field_dom.html");
  std::ofstream(report) << render_report(in);
  ASSERT_EQ(shell("chromium --headless --no-sandbox --disable-gpu --user-data-dir=" + scratch("profile").string() +
                  " --virtual-time-budget=1000 --dump-dom file://" + report.string() + " > " + dom.string() + " 2> /dev/null"),
            0);
  const std::string page = read_text(dom);
  EXPECT_NE(page.find("data-script=\"ok\""), std::string::npos);
  EXPECT_EQ(page.find("data-error=\""), std::string::npos) << page.substr(page.find("<body"), 300);
  fs::remove_all(scratch("").parent_path());
}

}  // namespace
}  // namespace simgrad::report
