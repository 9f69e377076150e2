// Grey images as density maps: a target picture for the smoke, or its starting shape. Reads
// portable graymaps (PGM, plain P2 or binary P5), the simplest format any image tool writes.
#pragma once

#include <filesystem>
#include <vector>

#include "sims/fluid/grid.hpp"

namespace simgrad::fluid {

struct GreyImage {
  int width = 0, height = 0;
  std::vector<double> values;  // row-major from the top row, scaled to [0, 1]
};

// Reads a PGM file; throws std::runtime_error naming the file and what is wrong.
GreyImage read_pgm(const std::filesystem::path& file);

// The image stretched over the whole domain and sampled bilinearly at the cell centres, dark
// pixels as dense smoke when `invert` (a black drawing on white paper), times `scale`.
std::vector<double> image_on_grid(const GreyImage& image, const Grid& grid, bool invert, double scale);

}  // namespace simgrad::fluid
