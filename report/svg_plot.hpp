// A self-contained SVG line chart, for loss curves and other series in reports.
#pragma once

#include <string>
#include <vector>

namespace simgrad::report {

// One named line; x and y are paired by index (the shorter one decides the length).
struct PlotSeries {
  std::string name;
  std::vector<double> x;
  std::vector<double> y;
};

enum class AxisScale { linear, log10 };

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  AxisScale y_scale = AxisScale::linear;
  int width = 720;  // pixels
  int height = 420;
  std::vector<PlotSeries> series;
};

// One labelled tick on an axis.
struct AxisTick {
  double value;
  std::string label;
};

// The chart as SVG text (no XML declaration, so it can also sit inline in HTML). Points that
// are not finite, or not > 0 on a log axis, are left out and break the line there; a point
// with no neighbour is drawn as a dot. With no points at all the chart says "no data".
std::string render_svg(const LineChart& chart);

// Text safe inside XML and HTML elements and attribute values: & < > " escaped, and ' too unless
// `apostrophes` is false (report.html leaves them as they are).
std::string xml_escape(const std::string& text, bool apostrophes = true);

// The colour of series `index` ("#rrggbb"), for drawings that show the same series elsewhere.
const char* series_colour(std::size_t index);

// About `target` ticks at 1, 2 or 5 times a power of ten, covering [lo, hi] (widened when
// lo == hi), labelled with as many decimals as the step needs ("0.25", "2.5e7").
std::vector<AxisTick> linear_ticks(double lo, double hi, int target = 6);

// Ticks at powers of ten covering [lo, hi] (both > 0), at most about eight of them, labelled
// "0.01", "1", "100" when all are in [1e-2, 1e3] and "1e-5" otherwise.
std::vector<AxisTick> log10_ticks(double lo, double hi);

}  // namespace simgrad::report
