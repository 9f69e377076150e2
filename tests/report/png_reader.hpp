// A strict reader for the PNG files report/png.cpp writes (8-bit RGB, not interlaced, any row
// filter), independent of libpng, which writes them: zlib inflates, and the rest is written here
// from the PNG specification, so that tests check the files against the format. Any deviation
// throws std::runtime_error.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <zlib.h>

namespace simgrad::report::testing {

struct DecodedPng {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  // rows from the top
  std::vector<std::string> chunks;  // chunk types in file order
};

inline std::uint32_t read_u32_big(std::string_view bytes, std::size_t at) {
  if (at + 4 > bytes.size()) throw std::runtime_error("png: truncated");
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<std::uint8_t>(bytes[at + i]);
  return v;
}

// CRC-32 of PNG chunks and the inflating are zlib's; the chunk layout, the checks and the row
// filters are written here from the PNG specification (sections 5 and 9).
inline std::uint32_t chunk_crc(std::string_view typed) {
  return static_cast<std::uint32_t>(::crc32(0L, reinterpret_cast<const Bytef*>(typed.data()), static_cast<uInt>(typed.size())));
}

// The zlib stream inflated to exactly `expected` bytes; anything else throws.
inline std::vector<std::uint8_t> inflate(std::string_view z, std::size_t expected) {
  std::vector<std::uint8_t> out(expected + 1);  // one spare byte: a longer stream is an error
  uLongf length = static_cast<uLongf>(out.size());
  const int status = ::uncompress(out.data(), &length, reinterpret_cast<const Bytef*>(z.data()), static_cast<uLong>(z.size()));
  if (status != Z_OK || length != expected) throw std::runtime_error("zlib: the pixel data does not inflate to its size");
  out.resize(expected);
  return out;
}

// The Paeth predictor (PNG specification, 9.4).
inline std::uint8_t paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return static_cast<std::uint8_t>(a);
  return static_cast<std::uint8_t>(pb <= pc ? b : c);
}

inline DecodedPng decode_png(std::string_view bytes) {
  if (bytes.substr(0, 8) != std::string_view("\x89PNG\r\n\x1a\n", 8)) throw std::runtime_error("png: bad signature");
  DecodedPng png;
  std::string idat;
  std::size_t at = 8;
  while (at < bytes.size()) {
    const std::uint32_t length = read_u32_big(bytes, at);
    if (at + 12 + length > bytes.size()) throw std::runtime_error("png: chunk past the end");
    const std::string_view typed = bytes.substr(at + 4, 4 + length);
    const std::uint32_t crc = read_u32_big(bytes, at + 8 + length);
    if (crc != chunk_crc(typed))
      throw std::runtime_error("png: CRC mismatch in " + std::string(typed.substr(0, 4)));
    const std::string type(typed.substr(0, 4));
    const std::string_view data = typed.substr(4);
    png.chunks.push_back(type);
    if (type == "IHDR") {
      if (length != 13) throw std::runtime_error("png: IHDR length");
      png.width = static_cast<int>(read_u32_big(data, 0));
      png.height = static_cast<int>(read_u32_big(data, 4));
      if (data.substr(8) != std::string_view("\x08\x02\x00\x00\x00", 5)) throw std::runtime_error("png: not 8-bit RGB");
    } else if (type == "IDAT") {
      idat += data;
    }
    at += 12 + length;
  }
  if (png.chunks.empty() || png.chunks.front() != "IHDR" || png.chunks.back() != "IEND")
    throw std::runtime_error("png: IHDR must come first and IEND last");
  const std::size_t row = static_cast<std::size_t>(png.width) * 3;
  const std::vector<std::uint8_t> raw = inflate(idat, (row + 1) * static_cast<std::size_t>(png.height));
  std::vector<std::uint8_t> previous(row, 0);
  for (int y = 0; y < png.height; ++y) {
    const auto* line = raw.data() + static_cast<std::size_t>(y) * (row + 1);
    std::vector<std::uint8_t> current(row);
    for (std::size_t i = 0; i < row; ++i) {
      const int a = i >= 3 ? current[i - 3] : 0, b = previous[i], c = i >= 3 ? previous[i - 3] : 0;
      int predicted = 0;
      switch (line[0]) {
        case 0: predicted = 0; break;
        case 1: predicted = a; break;
        case 2: predicted = b; break;
        case 3: predicted = (a + b) / 2; break;
        case 4: predicted = paeth(a, b, c); break;
        default: throw std::runtime_error("png: unknown filter type " + std::to_string(line[0]));
      }
      current[i] = static_cast<std::uint8_t>(line[1 + i] + predicted);
    }
    png.rgb.insert(png.rgb.end(), current.begin(), current.end());
    previous = std::move(current);
  }
  return png;
}

}  // namespace simgrad::report::testing
