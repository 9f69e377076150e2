#include "report/png.hpp"

#include <png.h>

#include <stdexcept>

#include "report/atomic_file.hpp"

namespace simgrad::report {

std::string encode_png(const Image& image) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width());
  png.height = static_cast<png_uint_32>(image.height());
  png.format = PNG_FORMAT_RGB;
  // The largest file these pixels can make, so that one pass writes it.
  png_alloc_size_t size = PNG_IMAGE_PNG_SIZE_MAX(png);
  std::string out(size, '\0');
  if (!png_image_write_to_memory(&png, out.data(), &size, 0, image.pixels().data(), 0, nullptr))
    throw std::runtime_error(std::string("png: ") + png.message);
  out.resize(size);
  return out;
}

void write_png(const std::filesystem::path& file, const Image& image) { write_file_atomically(file, encode_png(image)); }

}  // namespace simgrad::report
