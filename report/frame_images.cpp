#include "report/frame_images.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "report/png.hpp"
#include "report/svg_plot.hpp"

namespace simgrad::report {

namespace {

using nlohmann::json;

// Entry i of a numeric list; a missing or non-numeric entry draws at 0.
double number_at(const json& list, std::size_t i) {
  return i < list.size() && list[i].is_number() ? list[i].get<double>() : 0.0;
}

// The box around everything any frame draws.
FrameView fit_view(const json& run, int width, int height) {
  double box[4] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  auto grow = [&](double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    box[0] = std::min(box[0], x);
    box[1] = std::min(box[1], y);
    box[2] = std::max(box[2], x);
    box[3] = std::max(box[3], y);
  };
  std::vector<const json*> all;
  for (const json& f : run.at("frames")) all.push_back(&f);
  if (run.contains("background")) all.push_back(&run["background"]);
  for (const json* f : all) {
    for (const json& l : f->value("lines", json::array())) {
      grow(number_at(l, 0), number_at(l, 1));
      grow(number_at(l, 2), number_at(l, 3));
    }
    for (const json& p : f->value("points", json::array())) grow(number_at(p, 0), number_at(p, 1));
    for (const json& a : f->value("arrows", json::array())) {
      grow(number_at(a, 0), number_at(a, 1));
      grow(number_at(a, 0) + number_at(a, 2), number_at(a, 1) + number_at(a, 3));
    }
    if (f->contains("field")) {
      const json& box_of = (*f)["field"].at("box");
      grow(number_at(box_of, 0), number_at(box_of, 1));
      grow(number_at(box_of, 2), number_at(box_of, 3));
    }
  }
  if (!(box[2] >= box[0])) {  // nothing drawn: any view will do
    box[0] = box[1] = -1.0;
    box[2] = box[3] = 1.0;
  }
  for (int axis = 0; axis < 2; ++axis)
    if (!(box[axis + 2] > box[axis])) {  // a drawing flat along this axis: one unit each side
      box[axis] -= 1.0;
      box[axis + 2] += 1.0;
    }
  constexpr double pad = 12;  // the least margin, pixels
  FrameView v;
  v.height = height;
  v.scale = std::min((width - 2 * pad) / (box[2] - box[0]), (height - 2 * pad) / (box[3] - box[1]));
  v.x0 = box[0];
  v.y0 = box[1];
  v.left = (width - (box[2] - box[0]) * v.scale) / 2;
  v.bottom = (height - (box[3] - box[1]) * v.scale) / 2;
  return v;
}

// The largest |colour value| of the run's lines and edge values: the colour scale when the
// frames give none.
double colour_scale(const json& run) {
  if (run.contains("scale") && run["scale"].is_number()) return run["scale"].get<double>();
  double cmax = 1e-12;
  for (const json& f : run.at("frames")) {
    for (const json& l : f.value("lines", json::array())) cmax = std::max(cmax, std::abs(number_at(l, 4)));
    for (const json& v : f.value("values", json::array()))
      if (v.is_number()) cmax = std::max(cmax, std::abs(v.get<double>()));
  }
  return cmax;
}

void draw_field(Image& image, const FrameView& v, const json& field) {
  const int nx = field.at("nx").get<int>(), ny = field.at("ny").get<int>();
  const json& values = field.at("values");
  const json& box = field.at("box");
  if (nx <= 0 || ny <= 0 || values.size() != static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny))
    throw std::invalid_argument("frames: a field needs nx * ny values");
  // The colour range: as given, else the field's own.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const json& value : values) {
    lo = std::min(lo, value.get<double>());
    hi = std::max(hi, value.get<double>());
  }
  lo = field.value("lo", lo);
  hi = field.value("hi", hi);
  const double cw = (number_at(box, 2) - number_at(box, 0)) / nx, ch = (number_at(box, 3) - number_at(box, 1)) / ny;
  const double range = hi > lo ? hi - lo : 1.0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const double value = values[static_cast<std::size_t>(j * nx + i)].get<double>();
      const double wx = number_at(box, 0) + i * cw, wy = number_at(box, 1) + j * ch;
      fill_rect(image, v.x(wx), v.y(wy), v.x(wx + cw), v.y(wy + ch), sequential_colour((value - lo) / range));
    }
}

void draw_lines(Image& image, const FrameView& v, const json& lines, double scale, double width) {
  for (const json& l : lines)
    draw_line(image, v.x(number_at(l, 0)), v.y(number_at(l, 1)), v.x(number_at(l, 2)), v.y(number_at(l, 3)),
              diverging_colour(number_at(l, 4), scale), width);
}

// An arrow from (x, y) along (dx, dy), with a head, in green as in the report.
void draw_arrow(Image& image, const FrameView& v, const json& a) {
  const Rgb green{0, 170, 0};
  const double x0 = v.x(number_at(a, 0)), y0 = v.y(number_at(a, 1));
  const double x1 = v.x(number_at(a, 0) + number_at(a, 2)), y1 = v.y(number_at(a, 1) + number_at(a, 3));
  draw_line(image, x0, y0, x1, y1, green, 2.0);
  const double angle = std::atan2(y1 - y0, x1 - x0);
  for (double side : {-0.4, 0.4})
    draw_line(image, x1, y1, x1 - 8 * std::cos(angle + side), y1 - 8 * std::sin(angle + side), green, 2.0);
}

// The run's first chart, small, in the lower right corner, its series in the report's colours;
// a grey line marks the frame's "time" when it has one (the chart's x of this frame).
void draw_inset_chart(Image& image, const json& chart, const json& frame) {
  const double x0 = image.width() * 0.6, x1 = image.width() - 8.0, y0 = image.height() * 0.68, y1 = image.height() - 8.0;
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  const json series = chart.value("series", json::array());
  for (const json& s : series)
    for (const char* axis : {"x", "y"})
      for (const json& v : s.value(axis, json::array()))
        if (v.is_number() && std::isfinite(v.get<double>())) {
          const int k = axis[0] == 'x' ? 0 : 1;
          lo[k] = std::min(lo[k], v.get<double>());
          hi[k] = std::max(hi[k], v.get<double>());
        }
  if (!(hi[0] > lo[0]) || !(hi[1] >= lo[1])) return;  // nothing to plot
  if (!(hi[1] > lo[1])) hi[1] = lo[1] + 1.0;
  auto px = [&](double x) { return x0 + 4 + (x - lo[0]) / (hi[0] - lo[0]) * (x1 - x0 - 8); };
  auto py = [&](double y) { return y1 - 4 - (y - lo[1]) / (hi[1] - lo[1]) * (y1 - y0 - 16); };  // room for the title
  fill_rect(image, x0, y0, x1, y1, Rgb{255, 255, 255});
  for (const auto& [ax0, ay0, ax1, ay1] : {std::array{x0, y0, x1, y0}, std::array{x0, y1, x1, y1}, std::array{x0, y0, x0, y1},
                                           std::array{x1, y0, x1, y1}})
    draw_line(image, ax0, ay0, ax1, ay1, Rgb{200, 200, 200});
  if (frame.contains("time") && frame["time"].is_number())
    draw_line(image, px(frame["time"].get<double>()), y0, px(frame["time"].get<double>()), y1, Rgb{170, 170, 170});
  for (std::size_t k = 0; k < series.size(); ++k) {
    const json xs = series[k].value("x", json::array()), ys = series[k].value("y", json::array());
    const Rgb colour = parse_colour(series_colour(k));
    // A null or non-finite value is a gap in the line (the report's charts break there too).
    auto finite = [&](std::size_t i) {
      return xs[i].is_number() && ys[i].is_number() && std::isfinite(xs[i].get<double>()) && std::isfinite(ys[i].get<double>());
    };
    for (std::size_t i = 1; i < std::min(xs.size(), ys.size()); ++i)
      if (finite(i - 1) && finite(i))
        draw_line(image, px(number_at(xs, i - 1)), py(number_at(ys, i - 1)), px(number_at(xs, i)), py(number_at(ys, i)), colour, 1.5);
  }
  draw_text(image, static_cast<int>(x0) + 4, static_cast<int>(y0) + 4, chart.value("title", ""), Rgb{60, 60, 60}, 1);
}

}  // namespace

FrameDrawer::FrameDrawer(const json& run, int width, int height) : run_(run), width_(width), height_(height) {
  if (!run.is_object() || !run.contains("frames") || !run["frames"].is_array())
    throw std::invalid_argument("frames: expected an object with a \"frames\" array");
  try {
    view_ = fit_view(run, width, height);
    colour_scale_ = colour_scale(run);
    for (const json& c : run.value("palette", json::array())) palette_.push_back(parse_colour(c.get<std::string>()));
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("frames: ") + e.what());
  }
}

std::size_t FrameDrawer::size() const { return run_["frames"].size(); }

Image FrameDrawer::draw(std::size_t index) const {
  const FrameView& v = view_;
  const Rgb ink{34, 34, 34};
  Image image(width_, height_);
  try {
    const json& frames = run_["frames"];
    const json& f = frames.at(index);
    if (f.contains("field")) draw_field(image, v, f["field"]);
    if (run_.contains("background")) draw_lines(image, v, run_["background"].value("lines", json::array()), colour_scale_, 1.0);
    const json& points = f.contains("points") ? f["points"] : json::array();
    if (run_.value("trail", false))
      for (std::size_t k = 0; k < points.size(); ++k)
        for (std::size_t i = 1; i <= index; ++i) {
          const json& a = frames[i - 1].at("points").at(k);
          const json& b = frames[i].at("points").at(k);
          draw_line(image, v.x(number_at(a, 0)), v.y(number_at(a, 1)), v.x(number_at(b, 0)), v.y(number_at(b, 1)),
                    diverging_colour(1, 1), 2.0);
        }
    draw_lines(image, v, f.value("lines", json::array()), colour_scale_, 2.0);
    if (run_.contains("edges")) {
      const json& values = f.at("values");
      for (std::size_t k = 0; k < run_["edges"].size(); ++k) {
        const json& edge = run_["edges"][k];
        const json& a = points.at(edge.at(0).get<std::size_t>());
        const json& b = points.at(edge.at(1).get<std::size_t>());
        draw_line(image, v.x(number_at(a, 0)), v.y(number_at(a, 1)), v.x(number_at(b, 0)), v.y(number_at(b, 1)),
                  diverging_colour(number_at(values, k), colour_scale_), 2.0);
      }
    }
    const json& classes = f.contains("classes") ? f["classes"] : json::array();
    for (std::size_t k = 0; k < points.size(); ++k) {
      const std::size_t c = k < classes.size() ? classes[k].get<std::size_t>() : palette_.size();
      fill_circle(image, v.x(number_at(points[k], 0)), v.y(number_at(points[k], 1)), 3.0, c < palette_.size() ? palette_[c] : ink);
    }
    for (const json& a : f.value("arrows", json::array())) draw_arrow(image, v, a);
    if (run_.contains("charts") && !run_["charts"].empty()) draw_inset_chart(image, run_["charts"][0], f);
    draw_text(image, 8, 8, f.value("label", ""), Rgb{0, 0, 0});
  } catch (const json::exception& e) {
    throw std::invalid_argument(std::string("frames: ") + e.what());
  }
  return image;
}

std::vector<Image> draw_frames(const json& run, int width, int height) {
  const FrameDrawer drawer(run, width, height);
  std::vector<Image> images;
  for (std::size_t i = 0; i < drawer.size(); ++i) images.push_back(drawer.draw(i));
  return images;
}

namespace {

// DIR/frame_00042.png for i = 42.
std::filesystem::path frame_file(const std::filesystem::path& dir, std::size_t i) {
  char name[32];
  std::snprintf(name, sizeof name, "frame_%05zu.png", i);
  return dir / name;
}

}  // namespace

int write_frame_pngs(const std::filesystem::path& dir, const json& frames, int width, int height) {
  const FrameDrawer drawer(frames, width, height);
  std::filesystem::create_directories(dir);
  // One image at a time: a long run's frames need not all fit in memory.
  for (std::size_t i = 0; i < drawer.size(); ++i) write_png(frame_file(dir, i), drawer.draw(i));
  // A longer earlier run's frames would play on after this one's: they go.
  std::size_t stale = drawer.size();
  while (std::filesystem::remove(frame_file(dir, stale))) ++stale;
  return static_cast<int>(drawer.size());
}

}  // namespace simgrad::report
