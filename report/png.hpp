// PNG files without a library: 8-bit RGB, unfiltered rows, the zlib stream one deflate block
// with the fixed Huffman code (RFC 1951) after a greedy LZ77 pass.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "report/raster.hpp"

namespace simgrad::report {

// CRC-32 (ISO 3309, as PNG chunks use), continuing from `crc` (0 to start).
std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0);
// Adler-32 (RFC 1950, as the zlib stream's trailer uses), continuing from `adler` (1 to start).
std::uint32_t adler32(std::span<const std::uint8_t> bytes, std::uint32_t adler = 1);

// The image as the bytes of a PNG file.
std::string encode_png(const Image& image);

// Writes the image as a PNG file, atomically (atomic_file.hpp): e.g. a density field,
// write_png(path, scalar_field_image(density, nx, ny, 0.0, 1.0, 4)).
void write_png(const std::filesystem::path& file, const Image& image);

}  // namespace simgrad::report
