// PNG files through libpng: 8-bit RGB, with libpng's adaptive row filters and zlib's default
// compression. Frames are 37-62% of the size the earlier hand-written encoder's (unfiltered, fixed
// Huffman) were, and take about 3 ms more each to write (docs/benchmarks.md).
#pragma once

#include <filesystem>
#include <string>

#include "report/raster.hpp"

namespace simgrad::report {

// The image as the bytes of a PNG file; std::runtime_error with libpng's message if it fails.
std::string encode_png(const Image& image);

// Writes the image as a PNG file, atomically (atomic_file.hpp): e.g. a density field,
// write_png(path, scalar_field_image(density, nx, ny, 0.0, 1.0, 4)).
void write_png(const std::filesystem::path& file, const Image& image);

}  // namespace simgrad::report
