#include "app/png.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace simgrad::app {

namespace {

// CRC-32 of every byte value, for the table-driven update.
const std::array<std::uint32_t, 256>& crc_table() {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  return table;
}

void put_u32_big(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

// A chunk: length, type, data, and the CRC over type and data.
void put_chunk(std::string& out, const char type[4], const std::string& data) {
  put_u32_big(out, static_cast<std::uint32_t>(data.size()));
  std::string typed(type, 4);
  typed += data;
  out += typed;
  put_u32_big(out, crc32({reinterpret_cast<const std::uint8_t*>(typed.data()), typed.size()}));
}

// A zlib stream of stored deflate blocks (at most 65535 bytes each).
std::string zlib_stored(const std::vector<std::uint8_t>& raw) {
  std::string out = {'\x78', '\x01'};  // deflate, 32 KiB window; 0x7801 is a multiple of 31
  std::size_t done = 0;
  do {
    const std::size_t n = std::min<std::size_t>(65535, raw.size() - done);
    const bool last = done + n == raw.size();
    out.push_back(last ? '\x01' : '\x00');
    out.push_back(static_cast<char>(n & 0xFF));
    out.push_back(static_cast<char>(n >> 8));
    out.push_back(static_cast<char>(~n & 0xFF));
    out.push_back(static_cast<char>((~n >> 8) & 0xFF));
    out.append(reinterpret_cast<const char*>(raw.data() + done), n);
    done += n;
  } while (done < raw.size());
  put_u32_big(out, adler32(raw));
  return out;
}

}  // namespace

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc) {
  const auto& table = crc_table();
  std::uint32_t c = crc ^ 0xFFFFFFFFu;
  for (std::uint8_t b : bytes) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::uint32_t adler32(std::span<const std::uint8_t> bytes, std::uint32_t adler) {
  constexpr std::uint32_t modulus = 65521;
  std::uint32_t a = adler & 0xFFFF, b = adler >> 16;
  for (std::uint8_t v : bytes) {
    a = (a + v) % modulus;
    b = (b + a) % modulus;
  }
  return (b << 16) | a;
}

std::string encode_png(const Image& image) {
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string header;
  put_u32_big(header, static_cast<std::uint32_t>(image.width()));
  put_u32_big(header, static_cast<std::uint32_t>(image.height()));
  header += std::string{'\x08', '\x02', '\x00', '\x00', '\x00'};  // 8-bit RGB, deflate, no filter, not interlaced
  put_chunk(png, "IHDR", header);
  // Each row: filter type 0 (none), then its pixels.
  const std::size_t row = static_cast<std::size_t>(image.width()) * 3;
  std::vector<std::uint8_t> raw;
  raw.reserve((row + 1) * static_cast<std::size_t>(image.height()));
  const auto pixels = image.pixels();
  for (int y = 0; y < image.height(); ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), pixels.begin() + static_cast<std::ptrdiff_t>(y * row),
               pixels.begin() + static_cast<std::ptrdiff_t>((y + 1) * row));
  }
  put_chunk(png, "IDAT", zlib_stored(raw));
  put_chunk(png, "IEND", "");
  return png;
}

}  // namespace simgrad::app
