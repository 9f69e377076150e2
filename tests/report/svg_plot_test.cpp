#include "report/svg_plot.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace simgrad::report {
namespace {

// Checks that `text` is well-formed XML as far as SVG output needs: tags balance, attributes
// are quoted, and every '&' starts an entity. Returns an empty string or what is wrong.
std::string xml_problem(const std::string& text) {
  std::vector<std::string> open;
  int roots = 0;
  const auto entity_ok = [&](std::size_t at) {
    for (const char* entity : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (text.compare(at, std::char_traits<char>::length(entity), entity) == 0) return true;
    return false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '&' && !entity_ok(i)) return "bad entity at " + std::to_string(i);
    if (text[i] == '>') return "stray '>' at " + std::to_string(i);
    if (text[i] != '<') continue;
    const bool closing = text[i + 1] == '/';
    std::size_t j = i + (closing ? 2 : 1);
    std::string name;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '-'))
      name += text[j++];
    if (name.empty()) return "tag without a name at " + std::to_string(i);
    char quote = 0;
    for (; j < text.size() && (quote != 0 || text[j] != '>'); ++j) {
      if (quote == 0 && (text[j] == '"' || text[j] == '\'')) quote = text[j];
      else if (quote != 0 && text[j] == quote) quote = 0;
      else if (quote != 0 && text[j] == '<') return "'<' in an attribute at " + std::to_string(j);
      else if (text[j] == '&' && !entity_ok(j)) return "bad entity at " + std::to_string(j);
    }
    if (j >= text.size()) return "unterminated tag " + name;
    const bool self_closing = text[j - 1] == '/';
    if (closing) {
      if (open.empty() || open.back() != name) return "unbalanced </" + name + ">";
      open.pop_back();
    } else if (!self_closing) {
      if (open.empty()) ++roots;
      open.push_back(name);
    } else if (open.empty()) {
      ++roots;
    }
    i = j;
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (roots != 1) return std::to_string(roots) + " root elements";
  return "";
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The labels of ticks, for comparing in one line.
std::vector<std::string> labels(const std::vector<AxisTick>& ticks) {
  std::vector<std::string> out;
  for (const auto& tick : ticks) out.push_back(tick.label);
  return out;
}

using Labels = std::vector<std::string>;

TEST(SvgPlot, TwoSeriesWithLegendAndEscapedText) {
  LineChart chart;
  chart.title = "Loss <tuned> & \"black-box\"";
  chart.x_label = "iteration";
  chart.y_label = "loss";
  chart.series = {{"Adam", {0, 1, 2, 3}, {4, 2, 1, 0.5}}, {"CMA-ES", {0, 10, 20}, {4, 3, 2.5}}};
  const std::string svg = render_svg(chart);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_NE(svg.find(">Adam</text>"), std::string::npos);
  EXPECT_NE(svg.find(">CMA-ES</text>"), std::string::npos);
  EXPECT_NE(svg.find("Loss &lt;tuned&gt; &amp; &quot;black-box&quot;"), std::string::npos);
  EXPECT_NE(svg.find("#0072B2"), std::string::npos);
  EXPECT_NE(svg.find("#D55E00"), std::string::npos);
}

TEST(SvgPlot, LogAxisLabelsPowersOfTenAndSkipsNonPositiveValues) {
  LineChart chart;
  chart.y_scale = AxisScale::log10;
  chart.series = {{"loss", {0, 1, 2, 3, 4, 5}, {1e-1, 0, 1e-3, 1e-4, -1, 2e-5}}};
  const std::string svg = render_svg(chart);
  EXPECT_EQ(xml_problem(svg), "");
  for (const char* label : {">1e-5<", ">1e-4<", ">1e-3<", ">1e-2<", ">1e-1<"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  // 0 and -1 split the line: a dot, a line of two points, a dot.
  EXPECT_EQ(count(svg, "<polyline"), 1u);
  EXPECT_EQ(count(svg, "<circle"), 2u);
}

TEST(SvgPlot, EmptySeriesAndNoData) {
  LineChart chart;
  chart.y_scale = AxisScale::log10;
  chart.series = {{"empty", {}, {}}, {"negative", {1}, {-2}}};
  const std::string svg = render_svg(chart);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_NE(svg.find("no data"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 0u);
  EXPECT_EQ(xml_problem(render_svg(LineChart{})), "");
}

TEST(SvgPlot, SinglePointAndNonFiniteValues) {
  LineChart chart;
  chart.series = {{"one", {5}, {7}}, {"gap", {0, 1, 2, 3, 4}, {1, 2, std::nan(""), 3, 4}}};
  const std::string svg = render_svg(chart);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(count(svg, "<circle"), 1u);
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
}

TEST(SvgPlot, ManySeriesRepeatColoursDashed) {
  LineChart chart;
  for (int i = 0; i < 10; ++i) chart.series.push_back({std::to_string(i), {0, 1}, {0, 1.0 * i}});
  const std::string svg = render_svg(chart);
  EXPECT_EQ(xml_problem(svg), "");
  EXPECT_EQ(count(svg, "<polyline"), 10u);
  EXPECT_EQ(count(svg, "stroke-dasharray"), 4u);  // two lines and their two legend entries
}

TEST(SvgPlot, LinearTicks) {
  EXPECT_EQ(labels(linear_ticks(0, 1)), (Labels{"0", "0.2", "0.4", "0.6", "0.8", "1"}));
  EXPECT_EQ(labels(linear_ticks(0, 30)), (Labels{"0", "10", "20", "30"}));
  EXPECT_EQ(labels(linear_ticks(-0.3, 0.25)), (Labels{"-0.4", "-0.2", "0", "0.2", "0.4"}));
  EXPECT_EQ(labels(linear_ticks(5, 5)), (Labels{"2", "3", "4", "5", "6", "7", "8"}));
  EXPECT_EQ(labels(linear_ticks(0, 0)), (Labels{"-1", "-0.5", "0", "0.5", "1"}));
  EXPECT_EQ(labels(linear_ticks(0, 5e7)), (Labels{"0", "1e7", "2e7", "3e7", "4e7", "5e7"}));
  EXPECT_EQ(labels(linear_ticks(0, 0.0021)),
            (Labels{"0", "5e-4", "1e-3", "1.5e-3", "2e-3", "2.5e-3"}));
  const auto ticks = linear_ticks(0.13, 0.87);
  EXPECT_LE(ticks.front().value, 0.13);
  EXPECT_GE(ticks.back().value, 0.87);
}

TEST(SvgPlot, LogTicks) {
  EXPECT_EQ(labels(log10_ticks(0.05, 20)), (Labels{"0.01", "0.1", "1", "10", "100"}));
  EXPECT_EQ(labels(log10_ticks(2e-4, 0.5)), (Labels{"1e-4", "1e-3", "1e-2", "1e-1", "1e0"}));
  EXPECT_EQ(labels(log10_ticks(1e-3, 1e-3)), (Labels{"1e-4", "1e-3", "1e-2"}));
  const auto wide = log10_ticks(1e-20, 1);
  EXPECT_LE(wide.size(), 9u);
  EXPECT_LE(wide.front().value, 1e-20);
  EXPECT_GE(wide.back().value, 1.0);
}

}  // namespace
}  // namespace simgrad::report
