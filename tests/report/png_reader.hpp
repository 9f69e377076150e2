// A strict reader for the PNG files report/png.cpp writes (8-bit RGB, unfiltered rows, stored or
// fixed-Huffman deflate blocks), written from the PNG, zlib and deflate specifications so that
// tests check the files against the formats, not against the writer. Any deviation throws
// std::runtime_error.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "report/png.hpp"

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

// Bits of a deflate stream, least significant first (RFC 1951, 3.1.1).
class BitReader {
 public:
  BitReader(std::string_view bytes, std::size_t start) : bytes_(bytes), bit_(start * 8) {}
  unsigned bit() {
    if (bit_ / 8 >= bytes_.size()) throw std::runtime_error("deflate: truncated");
    const unsigned b = (static_cast<std::uint8_t>(bytes_[bit_ / 8]) >> (bit_ % 8)) & 1;
    ++bit_;
    return b;
  }
  // A number of `count` bits, lowest first (extra bits, headers).
  unsigned bits(int count) {
    unsigned v = 0;
    for (int k = 0; k < count; ++k) v |= bit() << k;
    return v;
  }
  // A Huffman code of `count` more bits, most significant first, appended to `code`.
  unsigned code(unsigned code, int count) {
    for (int k = 0; k < count; ++k) code = (code << 1) | bit();
    return code;
  }
  void align() { bit_ = (bit_ + 7) / 8 * 8; }
  std::size_t byte() const { return bit_ / 8; }
  void skip_bytes(std::size_t n) { bit_ += 8 * n; }

 private:
  std::string_view bytes_;
  std::size_t bit_;
};

// A literal/length symbol of the fixed Huffman code (RFC 1951, 3.2.6): 7, 8 or 9 bits.
inline unsigned fixed_symbol(BitReader& in) {
  unsigned c = in.code(0, 7);
  if (c <= 0x17) return 256 + c;
  c = in.code(c, 1);
  if (c >= 0x30 && c <= 0xBF) return c - 0x30;
  if (c >= 0xC0 && c <= 0xC7) return 280 + (c - 0xC0);
  c = in.code(c, 1);
  if (c >= 0x190 && c <= 0x1FF) return 144 + (c - 0x190);
  throw std::runtime_error("deflate: bad fixed code");
}

// Inflates a zlib stream of stored and fixed-Huffman blocks (what a dynamic block would need,
// the writer never makes), checking the zlib header and Adler-32.
inline std::vector<std::uint8_t> inflate(std::string_view z) {
  static constexpr unsigned length_base[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
                                               67, 83, 99, 115, 131, 163, 195, 227, 258};
  static constexpr int length_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  static constexpr unsigned distance_base[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513,
                                                 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
  static constexpr int distance_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
  if (z.size() < 6) throw std::runtime_error("zlib: truncated");
  const auto cmf = static_cast<std::uint8_t>(z[0]), flg = static_cast<std::uint8_t>(z[1]);
  if ((cmf & 0x0F) != 8 || (cmf * 256 + flg) % 31 != 0 || (flg & 0x20)) throw std::runtime_error("zlib: bad header");
  std::vector<std::uint8_t> out;
  BitReader in(z, 2);
  bool last = false;
  while (!last) {
    last = in.bits(1);
    const unsigned type = in.bits(2);
    if (type == 0) {
      in.align();
      const unsigned len = in.bits(16), nlen = in.bits(16);
      if ((len ^ 0xFFFFu) != nlen) throw std::runtime_error("zlib: LEN and NLEN disagree");
      if (in.byte() + len > z.size()) throw std::runtime_error("zlib: block past the end");
      out.insert(out.end(), z.begin() + static_cast<std::ptrdiff_t>(in.byte()),
                 z.begin() + static_cast<std::ptrdiff_t>(in.byte() + len));
      in.skip_bytes(len);
    } else if (type == 1) {
      for (unsigned symbol = fixed_symbol(in); symbol != 256; symbol = fixed_symbol(in)) {
        if (symbol < 256) {
          out.push_back(static_cast<std::uint8_t>(symbol));
          continue;
        }
        if (symbol > 285) throw std::runtime_error("deflate: bad length symbol");
        const unsigned length = length_base[symbol - 257] + in.bits(length_extra[symbol - 257]);
        const unsigned d = in.code(0, 5);
        if (d > 29) throw std::runtime_error("deflate: bad distance symbol");
        const unsigned distance = distance_base[d] + in.bits(distance_extra[d]);
        if (distance > out.size()) throw std::runtime_error("deflate: distance before the start");
        for (unsigned k = 0; k < length; ++k) out.push_back(out[out.size() - distance]);
      }
    } else {
      throw std::runtime_error("deflate: a block type this reader does not take");
    }
  }
  in.align();
  if (in.byte() + 4 != z.size()) throw std::runtime_error("zlib: bytes after the stream");
  if (read_u32_big(z, in.byte()) != adler32(out)) throw std::runtime_error("zlib: Adler-32 mismatch");
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
  const std::vector<std::uint8_t> raw = inflate(idat);
  const std::size_t row = static_cast<std::size_t>(png.width) * 3;
  if (raw.size() != (row + 1) * static_cast<std::size_t>(png.height)) throw std::runtime_error("png: wrong amount of pixel data");
  for (int y = 0; y < png.height; ++y) {
    const auto* line = raw.data() + static_cast<std::size_t>(y) * (row + 1);
    if (line[0] != 0) throw std::runtime_error("png: a filtered row");
    png.rgb.insert(png.rgb.end(), line + 1, line + 1 + row);
  }
  return png;
}

}  // namespace simgrad::report::testing
