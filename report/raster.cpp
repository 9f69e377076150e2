#include "report/raster.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace simgrad::report {

namespace {

// The pixel range [first, last] whose centres may lie within [lo, hi], clipped to [0, size).
std::pair<int, int> pixel_span(double lo, double hi, int size) {
  const double first = std::max(0.0, std::floor(lo - 0.5));
  const double last = std::min(static_cast<double>(size) - 1.0, std::ceil(hi - 0.5));
  if (!(first <= last)) return {0, -1};  // also when lo or hi is NaN
  return {static_cast<int>(first), static_cast<int>(last)};
}

std::uint8_t channel(double v) { return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 255.0))); }

}  // namespace

Image::Image(int width, int height, Rgb background) : width_(width), height_(height) {
  // The bound keeps pixel arithmetic in int and an image's bytes in reason.
  constexpr int largest = 1 << 14;
  if (width <= 0 || height <= 0 || width > largest || height > largest)
    throw std::invalid_argument("image: expected a width and height from 1 to " + std::to_string(largest) + ", got " +
                                std::to_string(width) + " x " + std::to_string(height));
  pixels_.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
  for (std::size_t i = 0; i < pixels_.size(); i += 3) {
    pixels_[i] = background.r;
    pixels_[i + 1] = background.g;
    pixels_[i + 2] = background.b;
  }
}

Rgb Image::at(int x, int y) const {
  const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x)) * 3;
  return {pixels_[i], pixels_[i + 1], pixels_[i + 2]};
}

void Image::set(int x, int y, Rgb colour) {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
  const std::size_t i = (static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x)) * 3;
  pixels_[i] = colour.r;
  pixels_[i + 1] = colour.g;
  pixels_[i + 2] = colour.b;
}

// Every pixel whose centre lies within width/2 of the segment.
void draw_line(Image& image, double x0, double y0, double x1, double y1, Rgb colour, double width) {
  const double half = std::max(0.5, width / 2.0);
  const auto [px0, px1] = pixel_span(std::min(x0, x1) - half, std::max(x0, x1) + half, image.width());
  const auto [py0, py1] = pixel_span(std::min(y0, y1) - half, std::max(y0, y1) + half, image.height());
  const double dx = x1 - x0, dy = y1 - y0, length2 = dx * dx + dy * dy;
  for (int py = py0; py <= py1; ++py) {
    for (int px = px0; px <= px1; ++px) {
      const double cx = px + 0.5 - x0, cy = py + 0.5 - y0;
      const double s = length2 > 0.0 ? std::clamp((cx * dx + cy * dy) / length2, 0.0, 1.0) : 0.0;
      const double ex = cx - s * dx, ey = cy - s * dy;
      if (ex * ex + ey * ey <= half * half) image.set(px, py, colour);
    }
  }
}

void fill_circle(Image& image, double cx, double cy, double radius, Rgb colour) {
  const auto [px0, px1] = pixel_span(cx - radius, cx + radius, image.width());
  const auto [py0, py1] = pixel_span(cy - radius, cy + radius, image.height());
  for (int py = py0; py <= py1; ++py)
    for (int px = px0; px <= px1; ++px) {
      const double ex = px + 0.5 - cx, ey = py + 0.5 - cy;
      if (ex * ex + ey * ey <= radius * radius) image.set(px, py, colour);
    }
}

void fill_rect(Image& image, double x0, double y0, double x1, double y1, Rgb colour) {
  const auto [px0, px1] = pixel_span(std::min(x0, x1), std::max(x0, x1), image.width());
  const auto [py0, py1] = pixel_span(std::min(y0, y1), std::max(y0, y1), image.height());
  for (int py = py0; py <= py1; ++py)
    for (int px = px0; px <= px1; ++px) {
      const double cx = px + 0.5, cy = py + 0.5;
      if (cx >= std::min(x0, x1) && cx <= std::max(x0, x1) && cy >= std::min(y0, y1) && cy <= std::max(y0, y1))
        image.set(px, py, colour);
    }
}

// Rows top to bottom, three bits each, the leftmost pixel in the high bit.
int draw_text(Image& image, int x, int y, std::string_view text, Rgb colour, int size) {
  static const std::map<char, std::uint16_t> font = {
      {'#', 0x5f7d},
      {'%', 0x52a5},
      {'(', 0x2922},
      {')', 0x224a},
      {'+', 0x05d0},
      {',', 0x0014},
      {'-', 0x01c0},
      {'.', 0x0002},
      {'/', 0x12a4},
      {'0', 0x7b6f},
      {'1', 0x2c97},
      {'2', 0x73e7},
      {'3', 0x73cf},
      {'4', 0x5bc9},
      {'5', 0x79cf},
      {'6', 0x79ef},
      {'7', 0x7249},
      {'8', 0x7bef},
      {'9', 0x7bcf},
      {':', 0x0410},
      {'=', 0x0e38},
      {'A', 0x2bed},
      {'B', 0x6bae},
      {'C', 0x3923},
      {'D', 0x6b6e},
      {'E', 0x79a7},
      {'F', 0x79a4},
      {'G', 0x396b},
      {'H', 0x5bed},
      {'I', 0x7497},
      {'J', 0x126a},
      {'K', 0x5bad},
      {'L', 0x4927},
      {'M', 0x5fed},
      {'N', 0x6b6d},
      {'O', 0x2b6a},
      {'P', 0x6ba4},
      {'Q', 0x2b73},
      {'R', 0x6bad},
      {'S', 0x388e},
      {'T', 0x7492},
      {'U', 0x5b6f},
      {'V', 0x5b6a},
      {'W', 0x5bfd},
      {'X', 0x5aad},
      {'Y', 0x5a92},
      {'Z', 0x72a7},
      {'_', 0x0007},
  };
  int at = x;
  for (char c : text) {
    const auto glyph = font.find(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    if (glyph != font.end())
      for (int row = 0; row < 5; ++row)
        for (int column = 0; column < 3; ++column)
          if (glyph->second >> (14 - 3 * row - column) & 1)
            fill_rect(image, at + column * size, y + row * size, at + (column + 1) * size, y + (row + 1) * size, colour);
    at += 4 * size;  // a column of space between characters
  }
  return at - x;
}

Rgb diverging_colour(double value, double scale) {
  const double ratio = value / scale;
  const double s = std::isfinite(ratio) ? std::clamp(ratio, -1.0, 1.0) : value > 0 && scale > 0 ? 1.0 : 0.0;
  const double r = s > 0 ? 120 + 135 * s : 120 * (1 + s);
  const double b = s < 0 ? 120 - 135 * s : 120 * (1 - s);
  return {channel(r), channel(120 * (1 - std::abs(s))), channel(b)};
}

// Piecewise linear through five stops of the viridis map.
Rgb sequential_colour(double t) {
  static constexpr double stops[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  const double u = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4.0;
  const int k = std::min(3, static_cast<int>(u));
  const double f = u - k;
  return {channel(stops[k][0] + f * (stops[k + 1][0] - stops[k][0])),
          channel(stops[k][1] + f * (stops[k + 1][1] - stops[k][1])),
          channel(stops[k][2] + f * (stops[k + 1][2] - stops[k][2]))};
}

Rgb parse_colour(std::string_view text) {
  if (text.size() != 7 || text[0] != '#') return {};
  unsigned value = 0;
  for (char c : text.substr(1)) {
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (digit < 0) return {};
    value = value * 16 + static_cast<unsigned>(digit);
  }
  return {static_cast<std::uint8_t>(value >> 16), static_cast<std::uint8_t>(value >> 8), static_cast<std::uint8_t>(value)};
}

Image scalar_field_image(std::span<const double> values, int nx, int ny, double lo, double hi, int cell_pixels) {
  if (nx <= 0 || ny <= 0 || cell_pixels <= 0 || values.size() != static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny) ||
      static_cast<long>(nx) * cell_pixels > (1 << 14) || static_cast<long>(ny) * cell_pixels > (1 << 14))
    throw std::invalid_argument("scalar field: expected nx * ny = " + std::to_string(static_cast<long>(nx) * ny) +
                                " values and an image of 1 to 16384 pixels a side, got " + std::to_string(values.size()) +
                                " values");
  Image image(nx * cell_pixels, ny * cell_pixels);
  const double range = hi > lo ? hi - lo : 1.0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const Rgb c = sequential_colour((values[static_cast<std::size_t>(j) * static_cast<std::size_t>(nx) + static_cast<std::size_t>(i)] - lo) / range);
      const int top = (ny - 1 - j) * cell_pixels;
      for (int y = 0; y < cell_pixels; ++y)
        for (int x = 0; x < cell_pixels; ++x) image.set(i * cell_pixels + x, top + y, c);
    }
  return image;
}

}  // namespace simgrad::report
