// A strict reader for the PNG files app/png.cpp writes (8-bit RGB, unfiltered rows, stored
// deflate blocks), written from the PNG and zlib specifications so that tests check the files
// against the formats, not against the writer. Any deviation throws std::runtime_error.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "app/png.hpp"

namespace simgrad::app::testing {

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

// Inflates a zlib stream made only of stored blocks, checking its header and Adler-32.
inline std::vector<std::uint8_t> inflate_stored(std::string_view z) {
  if (z.size() < 6) throw std::runtime_error("zlib: truncated");
  const auto cmf = static_cast<std::uint8_t>(z[0]), flg = static_cast<std::uint8_t>(z[1]);
  if ((cmf & 0x0F) != 8 || (cmf * 256 + flg) % 31 != 0 || (flg & 0x20)) throw std::runtime_error("zlib: bad header");
  std::vector<std::uint8_t> out;
  std::size_t at = 2;
  bool last = false;
  while (!last) {
    if (at + 5 > z.size()) throw std::runtime_error("zlib: truncated block");
    const auto header = static_cast<std::uint8_t>(z[at]);
    last = header & 1;
    if ((header >> 1) != 0) throw std::runtime_error("zlib: not a stored block");
    const unsigned len = static_cast<std::uint8_t>(z[at + 1]) | static_cast<std::uint8_t>(z[at + 2]) << 8;
    const unsigned nlen = static_cast<std::uint8_t>(z[at + 3]) | static_cast<std::uint8_t>(z[at + 4]) << 8;
    if ((len ^ 0xFFFFu) != nlen) throw std::runtime_error("zlib: LEN and NLEN disagree");
    at += 5;
    if (at + len > z.size()) throw std::runtime_error("zlib: block past the end");
    out.insert(out.end(), z.begin() + static_cast<std::ptrdiff_t>(at), z.begin() + static_cast<std::ptrdiff_t>(at + len));
    at += len;
  }
  if (at + 4 != z.size()) throw std::runtime_error("zlib: bytes after the stream");
  if (read_u32_big(z, at) != adler32(out)) throw std::runtime_error("zlib: Adler-32 mismatch");
  return out;
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
    if (crc != crc32({reinterpret_cast<const std::uint8_t*>(typed.data()), typed.size()}))
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
  const std::vector<std::uint8_t> raw = inflate_stored(idat);
  const std::size_t row = static_cast<std::size_t>(png.width) * 3;
  if (raw.size() != (row + 1) * static_cast<std::size_t>(png.height)) throw std::runtime_error("png: wrong amount of pixel data");
  for (int y = 0; y < png.height; ++y) {
    const auto* line = raw.data() + static_cast<std::size_t>(y) * (row + 1);
    if (line[0] != 0) throw std::runtime_error("png: a filtered row");
    png.rgb.insert(png.rgb.end(), line + 1, line + 1 + row);
  }
  return png;
}

}  // namespace simgrad::app::testing
