// A tiny software rasteriser for the PNG frames of `simgrad run --frames`: an RGB image and the
// few shapes the simulators' drawings need (lines, filled circles and rectangles), plus colour
// maps shared with report.html and a scalar grid drawn as a colour-mapped image.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace simgrad::report {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

// Pixels in rows from the top, three bytes (r, g, b) each, at most 16384 a side. Shapes take
// pixel coordinates (x right, y down, a pixel's centre at +0.5) and clip to the image.
class Image {
 public:
  Image(int width, int height, Rgb background = {255, 255, 255});

  int width() const { return width_; }
  int height() const { return height_; }
  std::span<const std::uint8_t> pixels() const { return pixels_; }
  Rgb at(int x, int y) const;
  // Sets one pixel; outside the image, nothing.
  void set(int x, int y, Rgb colour);

 private:
  int width_;
  int height_;
  std::vector<std::uint8_t> pixels_;
};

// A line of the given width (in pixels) with round ends.
void draw_line(Image& image, double x0, double y0, double x1, double y1, Rgb colour, double width = 1.0);
void fill_circle(Image& image, double cx, double cy, double radius, Rgb colour);
// The rectangle between two corners, in any order.
void fill_rect(Image& image, double x0, double y0, double x1, double y1, Rgb colour);

// Text in a 3 x 5 pixel font, each font pixel `size` pixels square, from the top left corner
// (x, y): digits, letters (drawn as capitals), space and . , - + = : / ( ) % _ #; any other
// character is a gap. Returns the width drawn, in pixels.
int draw_text(Image& image, int x, int y, std::string_view text, Rgb colour, int size = 2);

// Grey at 0, red towards +scale, blue towards -scale (strain, stress ratio): the report's map.
Rgb diverging_colour(double value, double scale);
// Dark blue at 0 through green to yellow at 1 (densities, concentrations); clamped.
Rgb sequential_colour(double t);
// A colour written "#rrggbb"; anything else is black.
Rgb parse_colour(std::string_view text);

// A scalar field on an nx by ny grid (row-major, row 0 at the bottom, as a simulation's y axis
// points up) as an image of cell_pixels square pixels per cell, values from lo to hi mapped
// by sequential_colour. Throws std::invalid_argument when values.size() != nx * ny.
Image scalar_field_image(std::span<const double> values, int nx, int ny, double lo, double hi, int cell_pixels = 1);

}  // namespace simgrad::report
