#include "report/svg_plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <locale>
#include <optional>
#include <sstream>
#include <utility>

namespace simgrad::report {

namespace {

// Colour-blind-safe (Okabe-Ito), dark enough to read on white; later series repeat them dashed.
constexpr std::array<const char*, 8> palette = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                "#E69F00", "#56B4E9", "#7F7F7F", "#000000"};

}  // namespace

std::string xml_escape(const std::string& text, bool apostrophes) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += apostrophes ? "&apos;" : "'"; break;
      default: out += c;
    }
  }
  return out;
}

const char* series_colour(std::size_t index) { return palette[index % palette.size()]; }

namespace {

// Keeps a floor or ceil of a computed logarithm or quotient from landing one off.
constexpr double slack = 1e-9;

// The stroke attributes of series `index`, shared by its line and its legend entry.
std::string series_stroke(std::size_t index) {
  std::string stroke = "stroke=\"" + std::string(palette[index % palette.size()]) +
                       "\" stroke-width=\"2\"";
  if ((index / palette.size()) % 2 == 1) stroke += " stroke-dasharray=\"6 3\"";
  return stroke;
}

// printf into a std::string, for fixed-width number formats.
template <class... Args>
std::string printf_string(const char* format, Args... args) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, args...);
  return buffer;
}

// "2.50" -> "2.5", "3.0" -> "3": tick labels carry no zeros that say nothing.
std::string trim_zeros(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

// A tick value with the precision its step needs; exponent form when fixed would be unwieldy.
std::string format_tick(double value, double step) {
  if (std::fabs(value) < step * 1e-6) return "0";
  const int step_exponent = static_cast<int>(std::floor(std::log10(step) + slack));
  if (step >= 1e5 || step < 1e-3) {
    const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value)) + slack));
    const int decimals = std::max(0, exponent - step_exponent);
    const double mantissa = value / std::pow(10.0, exponent);
    return trim_zeros(printf_string("%.*f", decimals, mantissa)) + "e" + std::to_string(exponent);
  }
  return trim_zeros(printf_string("%.*f", std::max(0, -step_exponent), value));
}

// The smallest of 1, 2, 5 times a power of ten that is at least `raw`.
double nice_step(double raw) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  if (fraction <= 1 + slack) return magnitude;
  if (fraction <= 2 + slack) return 2 * magnitude;
  if (fraction <= 5 + slack) return 5 * magnitude;
  return 10 * magnitude;
}

// "0.01", "1", "1000" or "1e-5": a power of ten as a tick label.
std::string power_of_ten_label(int exponent, bool plain) {
  if (!plain) return "1e" + std::to_string(exponent);
  return printf_string("%.*f", std::max(0, -exponent), std::pow(10.0, exponent));
}

// Maps data values onto pixels along one axis, through log10 when the axis is logarithmic.
class AxisMap {
public:
  AxisMap(const std::vector<AxisTick>& ticks, AxisScale scale, double from_px, double to_px)
      : scale_(scale),
        lo_(transform(ticks.front().value)),
        hi_(transform(ticks.back().value)),
        from_px_(from_px),
        to_px_(to_px) {}

  double operator()(double value) const {
    return from_px_ + (transform(value) - lo_) / (hi_ - lo_) * (to_px_ - from_px_);
  }

private:
  double transform(double value) const {
    return scale_ == AxisScale::log10 ? std::log10(value) : value;
  }
  AxisScale scale_;
  double lo_, hi_, from_px_, to_px_;
};

using Segment = std::vector<std::pair<double, double>>;

// A series' drawable points, split wherever a point had to be left out.
std::vector<Segment> drawable_segments(const PlotSeries& series, AxisScale y_scale) {
  std::vector<Segment> segments(1);
  const std::size_t count = std::min(series.x.size(), series.y.size());
  for (std::size_t i = 0; i < count; ++i) {
    const double x = series.x[i];
    const double y = series.y[i];
    const bool drawable =
        std::isfinite(x) && std::isfinite(y) && (y_scale == AxisScale::linear || y > 0);
    if (drawable) segments.back().emplace_back(x, y);
    else if (!segments.back().empty()) segments.emplace_back();
  }
  if (segments.back().empty()) segments.pop_back();
  return segments;
}

// The smallest and largest of one coordinate over all segments, or nothing without points.
template <class Get>
std::optional<std::pair<double, double>> data_range(const std::vector<std::vector<Segment>>& all,
                                                Get get) {
  std::optional<std::pair<double, double>> range;
  for (const auto& segments : all)
    for (const auto& segment : segments)
      for (const auto& point : segment) {
        const double v = get(point);
        range = range ? std::pair(std::min(range->first, v), std::max(range->second, v))
                      : std::pair(v, v);
      }
  return range;
}

// The pixel rectangle the data is drawn in.
struct Frame {
  double left, top, width, height;
};

void draw_axes(std::ostringstream& svg, const Frame& frame, const std::vector<AxisTick>& x_ticks,
               const AxisMap& x_map, const std::vector<AxisTick>& y_ticks, const AxisMap& y_map) {
  const double bottom = frame.top + frame.height;
  const double right = frame.left + frame.width;
  svg << "<g stroke=\"#e0e0e0\" stroke-width=\"1\">\n";
  for (const auto& tick : x_ticks) {
    const double x = x_map(tick.value);
    svg << "<line x1=\"" << x << "\" y1=\"" << frame.top << "\" x2=\"" << x << "\" y2=\""
        << bottom << "\"/>\n";
  }
  for (const auto& tick : y_ticks) {
    const double y = y_map(tick.value);
    svg << "<line x1=\"" << frame.left << "\" y1=\"" << y << "\" x2=\"" << right << "\" y2=\""
        << y << "\"/>\n";
  }
  svg << "</g>\n<g fill=\"#333\">\n";
  for (const auto& tick : x_ticks) {
    svg << "<text x=\"" << x_map(tick.value) << "\" y=\"" << bottom + 16
        << "\" text-anchor=\"middle\">" << xml_escape(tick.label) << "</text>\n";
  }
  for (const auto& tick : y_ticks) {
    svg << "<text x=\"" << frame.left - 6 << "\" y=\"" << y_map(tick.value) + 4
        << "\" text-anchor=\"end\">" << xml_escape(tick.label) << "</text>\n";
  }
  svg << "</g>\n<rect x=\"" << frame.left << "\" y=\"" << frame.top << "\" width=\""
      << frame.width << "\" height=\"" << frame.height
      << "\" fill=\"none\" stroke=\"#333\" stroke-width=\"1\"/>\n";
}

void draw_series(std::ostringstream& svg, const std::string& name,
                 const std::vector<Segment>& segments, std::size_t index, const AxisMap& x_map,
                 const AxisMap& y_map) {
  svg << "<g class=\"series\" data-name=\"" << xml_escape(name) << "\">\n";
  for (const auto& segment : segments) {
    if (segment.size() == 1) {
      svg << "<circle cx=\"" << x_map(segment[0].first) << "\" cy=\"" << y_map(segment[0].second)
          << "\" r=\"3\" fill=\"" << palette[index % palette.size()] << "\"/>\n";
      continue;
    }
    svg << "<polyline fill=\"none\" stroke-linejoin=\"round\" " << series_stroke(index)
        << " points=\"";
    for (const auto& [x, y] : segment) svg << x_map(x) << "," << y_map(y) << " ";
    svg << "\"/>\n";
  }
  svg << "</g>\n";
}

void draw_legend(std::ostringstream& svg, const std::vector<PlotSeries>& series, double left,
                 double top) {
  for (std::size_t i = 0; i < series.size(); ++i) {
    const double y = top + 10 + 18 * static_cast<double>(i);
    svg << "<line x1=\"" << left << "\" y1=\"" << y << "\" x2=\"" << left + 20 << "\" y2=\"" << y
        << "\" " << series_stroke(i) << "/>\n";
    svg << "<text x=\"" << left + 26 << "\" y=\"" << y + 4 << "\">" << xml_escape(series[i].name)
        << "</text>\n";
  }
}

}  // namespace

std::vector<AxisTick> linear_ticks(double lo, double hi, int target) {
  if (lo > hi) std::swap(lo, hi);
  if (!(hi > lo)) {  // one value: widen around it so it sits mid-axis
    const double pad = lo != 0 ? std::fabs(lo) * 0.5 : 1.0;
    lo -= pad;
    hi += pad;
  }
  const double step = nice_step((hi - lo) / std::max(1, target - 1));
  const auto first = static_cast<long long>(std::floor(lo / step + slack));
  const auto last = static_cast<long long>(std::ceil(hi / step - slack));
  std::vector<AxisTick> ticks;
  for (long long k = first; k <= last; ++k) {
    const double value = static_cast<double>(k) * step;
    ticks.push_back({value, format_tick(value, step)});
  }
  return ticks;
}

std::vector<AxisTick> log10_ticks(double lo, double hi) {
  if (lo > hi) std::swap(lo, hi);
  int first = static_cast<int>(std::floor(std::log10(lo) + slack));
  int last = static_cast<int>(std::ceil(std::log10(hi) - slack));
  if (last == first) {  // one power of ten: give it a decade either side
    --first;
    ++last;
  }
  constexpr int most_ticks = 8;
  const int step = std::max(1, (last - first + most_ticks - 1) / most_ticks);
  last = first + (last - first + step - 1) / step * step;
  const bool plain = first >= -2 && last <= 3;
  std::vector<AxisTick> ticks;
  for (int k = first; k <= last; k += step)
    ticks.push_back({std::pow(10.0, k), power_of_ten_label(k, plain)});
  return ticks;
}

std::string render_svg(const LineChart& chart) {
  std::vector<std::vector<Segment>> segments;
  for (const auto& series : chart.series)
    segments.push_back(drawable_segments(series, chart.y_scale));
  const auto x_range = data_range(segments, [](const auto& p) { return p.first; });
  const auto y_range = data_range(segments, [](const auto& p) { return p.second; });
  const bool log_y = chart.y_scale == AxisScale::log10;
  const auto [y_lo, y_hi] = y_range.value_or(log_y ? std::pair(0.1, 1.0) : std::pair(0.0, 1.0));
  const auto [x_lo, x_hi] = x_range.value_or(std::pair(0.0, 1.0));

  std::size_t longest_name = 0;
  for (const auto& series : chart.series) longest_name = std::max(longest_name, series.name.size());
  const double legend_width =
      longest_name == 0 ? 0 : std::min(220.0, 40.0 + 7.0 * static_cast<double>(longest_name));
  const int width = std::max(chart.width, 200);
  const int height = std::max(chart.height, 150);
  Frame frame;
  frame.left = 70;
  frame.top = chart.title.empty() ? 16 : 40;
  frame.width = std::max(40.0, width - frame.left - 20 - legend_width);
  frame.height = std::max(40.0, height - frame.top - 50);

  const auto x_ticks = linear_ticks(x_lo, x_hi);
  const auto y_ticks = log_y ? log10_ticks(y_lo, y_hi) : linear_ticks(y_lo, y_hi);
  const AxisMap x_map(x_ticks, AxisScale::linear, frame.left, frame.left + frame.width);
  const AxisMap y_map(y_ticks, chart.y_scale, frame.top + frame.height, frame.top);

  std::ostringstream svg;
  svg.imbue(std::locale::classic());
  svg.setf(std::ios::fixed);
  svg.precision(1);
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" viewBox=\"0 0 " << width << " " << height
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  if (!chart.title.empty()) {
    svg << "<text x=\"" << width / 2.0 << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\""
        << " font-weight=\"bold\">" << xml_escape(chart.title) << "</text>\n";
  }
  draw_axes(svg, frame, x_ticks, x_map, y_ticks, y_map);
  if (!chart.x_label.empty()) {
    svg << "<text x=\"" << frame.left + frame.width / 2 << "\" y=\"" << height - 10
        << "\" text-anchor=\"middle\">" << xml_escape(chart.x_label) << "</text>\n";
  }
  if (!chart.y_label.empty()) {
    svg << "<text transform=\"translate(16," << frame.top + frame.height / 2
        << ") rotate(-90)\" text-anchor=\"middle\">" << xml_escape(chart.y_label) << "</text>\n";
  }
  if (!x_range) {
    svg << "<text x=\"" << frame.left + frame.width / 2 << "\" y=\""
        << frame.top + frame.height / 2
        << "\" text-anchor=\"middle\" fill=\"#888\">no data</text>\n";
  }
  for (std::size_t i = 0; i < chart.series.size(); ++i)
    draw_series(svg, chart.series[i].name, segments[i], i, x_map, y_map);
  if (legend_width > 0) draw_legend(svg, chart.series, frame.left + frame.width + 14, frame.top);
  svg << "</svg>\n";
  return std::move(svg).str();
}

}  // namespace simgrad::report
