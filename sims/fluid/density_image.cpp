#include "sims/fluid/density_image.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace simgrad::fluid {

namespace {

// The next header number of a PGM file, skipping white space and # comments.
long header_number(const std::string& text, std::size_t& at, const std::string& file) {
  while (at < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[at]))) {
      ++at;
    } else if (text[at] == '#') {
      while (at < text.size() && text[at] != '\n') ++at;
    } else {
      break;
    }
  }
  std::size_t end = at;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  if (end == at) throw std::runtime_error(file + ": not a valid PGM image (expected a number in the header)");
  const long v = std::stol(text.substr(at, end - at));
  at = end;
  return v;
}

}  // namespace

GreyImage read_pgm(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file.string() + ": cannot open the image");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string name = file.string();
  if (text.size() < 2 || text[0] != 'P' || (text[1] != '2' && text[1] != '5'))
    throw std::runtime_error(name + ": not a PGM image (expected P2 or P5)");
  std::size_t at = 2;
  GreyImage image;
  image.width = static_cast<int>(header_number(text, at, name));
  image.height = static_cast<int>(header_number(text, at, name));
  const long max_value = header_number(text, at, name);
  if (image.width < 1 || image.height < 1 || image.width > 4096 || image.height > 4096 || max_value < 1 || max_value > 255)
    throw std::runtime_error(name + ": unsupported PGM size or depth (1-4096 pixels a side, 8 bits)");
  const std::size_t pixels = static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height);
  image.values.resize(pixels);
  if (text[1] == '5') {
    ++at;  // the single white space after the header
    if (text.size() < at + pixels) throw std::runtime_error(name + ": the image data is shorter than its header says");
    for (std::size_t k = 0; k < pixels; ++k)
      image.values[k] = static_cast<unsigned char>(text[at + k]) / static_cast<double>(max_value);
  } else {
    for (std::size_t k = 0; k < pixels; ++k) {
      const long v = header_number(text, at, name);
      if (v > max_value) throw std::runtime_error(name + ": pixel value above the header's maximum");
      image.values[k] = static_cast<double>(v) / static_cast<double>(max_value);
    }
  }
  return image;
}

std::vector<double> image_on_grid(const GreyImage& image, const Grid& grid, bool invert, double scale) {
  std::vector<double> out(static_cast<std::size_t>(grid.cells()));
  auto pixel = [&](int x, int y) {
    x = std::clamp(x, 0, image.width - 1);
    y = std::clamp(y, 0, image.height - 1);
    const double v = image.values[static_cast<std::size_t>(y) * static_cast<std::size_t>(image.width) + static_cast<std::size_t>(x)];
    return invert ? 1.0 - v : v;
  };
  for (int j = 0; j < grid.ny(); ++j)
    for (int i = 0; i < grid.nx(); ++i) {
      // Pixel coordinates of the cell centre; image rows run from the top.
      const double px = (i + 0.5) / grid.nx() * image.width - 0.5;
      const double py = (1.0 - (j + 0.5) / grid.ny()) * image.height - 0.5;
      const int x0 = static_cast<int>(std::floor(px)), y0 = static_cast<int>(std::floor(py));
      const double fx = px - x0, fy = py - y0;
      const double v = (1 - fx) * (1 - fy) * pixel(x0, y0) + fx * (1 - fy) * pixel(x0 + 1, y0) +
                       (1 - fx) * fy * pixel(x0, y0 + 1) + fx * fy * pixel(x0 + 1, y0 + 1);
      out[static_cast<std::size_t>(grid.cell(i, j))] = scale * v;
    }
  return out;
}

}  // namespace simgrad::fluid
