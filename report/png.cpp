#include "report/png.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "report/atomic_file.hpp"

namespace simgrad::report {

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

// Bits into bytes, least significant bit first, as deflate packs them (RFC 1951, 3.1.1).
class BitWriter {
 public:
  explicit BitWriter(std::string& out) : out_(out) {}
  // The low `count` bits of `bits`, lowest first (extra bits, block headers).
  void put(std::uint32_t bits, int count) {
    for (int k = 0; k < count; ++k) put_bit((bits >> k) & 1);
  }
  // A Huffman code of `length` bits, most significant bit first.
  void put_code(std::uint32_t code, int length) {
    for (int k = length - 1; k >= 0; --k) put_bit((code >> k) & 1);
  }
  // Pads the last byte with zeros.
  void flush() {
    if (used_ > 0) out_.push_back(static_cast<char>(byte_));
    byte_ = 0;
    used_ = 0;
  }

 private:
  void put_bit(std::uint32_t bit) {
    byte_ |= bit << used_;
    if (++used_ == 8) flush();
  }
  std::string& out_;
  std::uint32_t byte_ = 0;
  int used_ = 0;
};

// A literal/length symbol in the fixed Huffman code (RFC 1951, 3.2.6).
void put_fixed_symbol(BitWriter& bits, int symbol) {
  if (symbol < 144) bits.put_code(0x30 + symbol, 8);
  else if (symbol < 256) bits.put_code(0x190 + symbol - 144, 9);
  else if (symbol < 280) bits.put_code(symbol - 256, 7);
  else bits.put_code(0xC0 + symbol - 280, 8);
}

constexpr int kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr int kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr int kDistanceBase[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                   193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr int kDistanceExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

// A match: its length and distance codes with their extra bits.
void put_match(BitWriter& bits, int length, int distance) {
  int l = 28;
  while (kLengthBase[l] > length) --l;
  put_fixed_symbol(bits, 257 + l);
  bits.put(static_cast<std::uint32_t>(length - kLengthBase[l]), kLengthExtra[l]);
  int d = 29;
  while (kDistanceBase[d] > distance) --d;
  bits.put_code(static_cast<std::uint32_t>(d), 5);
  bits.put(static_cast<std::uint32_t>(distance - kDistanceBase[d]), kDistanceExtra[d]);
}

// A zlib stream of one deflate block with the fixed Huffman code, after a greedy LZ77 pass
// (hash chains over three-byte prefixes, a 32 KiB window). Frames are mostly background, so
// long matches make them a small fraction of their raw size.
std::string zlib_deflate(const std::vector<std::uint8_t>& raw) {
  std::string out = {'\x78', '\x01'};  // deflate, 32 KiB window; 0x7801 is a multiple of 31
  BitWriter bits(out);
  bits.put(1, 1);  // the final block
  bits.put(1, 2);  // fixed Huffman codes
  constexpr int window = 32768, min_match = 3, max_match = 258, max_chain = 64;
  constexpr std::size_t hash_size = 1 << 15;
  std::vector<int> head(hash_size, -1), previous(window, -1);
  const int n = static_cast<int>(raw.size());
  auto hash_at = [&](int i) {
    return ((static_cast<std::size_t>(raw[i]) << 10) ^ (static_cast<std::size_t>(raw[i + 1]) << 5) ^ raw[i + 2]) & (hash_size - 1);
  };
  auto insert = [&](int i) {
    if (i + min_match > n) return;
    const std::size_t h = hash_at(i);
    previous[i % window] = head[h];
    head[h] = i;
  };
  int i = 0;
  while (i < n) {
    int best_length = 0, best_distance = 0;
    if (i + min_match <= n) {
      const int limit = std::min(max_match, n - i);
      int candidate = head[hash_at(i)];
      for (int chain = 0; candidate >= 0 && i - candidate <= window && chain < max_chain; ++chain) {
        int length = 0;
        while (length < limit && raw[candidate + length] == raw[i + length]) ++length;
        if (length > best_length) {
          best_length = length;
          best_distance = i - candidate;
          if (length == limit) break;
        }
        const int next = previous[candidate % window];
        if (next >= candidate) break;  // the slot was reused by a newer position
        candidate = next;
      }
    }
    if (best_length >= min_match) {
      put_match(bits, best_length, best_distance);
      for (int k = 0; k < best_length; ++k) insert(i + k);
      i += best_length;
    } else {
      put_fixed_symbol(bits, raw[i]);
      insert(i);
      ++i;
    }
  }
  put_fixed_symbol(bits, 256);  // end of block
  bits.flush();
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

void write_png(const std::filesystem::path& file, const Image& image) { write_file_atomically(file, encode_png(image)); }

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
  put_chunk(png, "IDAT", zlib_deflate(raw));
  put_chunk(png, "IEND", "");
  return png;
}

}  // namespace simgrad::report
