// The PNG writer, the rasteriser and frames drawn as images.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "report/frame_images.hpp"
#include "report/png.hpp"
#include "report/raster.hpp"
#include "report/svg_plot.hpp"
#include "tests/report/png_reader.hpp"

namespace simgrad::report {
namespace {

using nlohmann::json;

std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(Png, IhdrChunkOfAOnePixelImageHasTheSpecifiedBytes) {
  const std::string png = encode_png(Image(1, 1, {255, 0, 0}));
  // Signature, then IHDR: length 13, width 1, height 1, depth 8, colour type 2, and the CRC of
  // "IHDR" + data as every PNG encoder writes it for a 1x1 RGB image.
  const std::string head("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90\x77\x53\xde", 33);
  EXPECT_EQ(png.substr(0, 33), head);
  // IEND with its fixed CRC closes the file.
  EXPECT_EQ(png.substr(png.size() - 12), std::string("\x00\x00\x00\x00IEND\xae\x42\x60\x82", 12));
}

TEST(Png, RoundTripsPixelsThroughAStrictReader) {
  Image image(7, 5);
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 7; ++x) image.set(x, y, {static_cast<std::uint8_t>(x * 30), static_cast<std::uint8_t>(y * 50), 7});
  const testing::DecodedPng png = testing::decode_png(encode_png(image));
  EXPECT_EQ(png.width, 7);
  EXPECT_EQ(png.height, 5);
  // sRGB: the colours are sRGB values, which viewers then show alike.
  EXPECT_EQ((std::vector<std::string>{"IHDR", "sRGB", "IDAT", "IEND"}), png.chunks);
  EXPECT_TRUE(std::equal(png.rgb.begin(), png.rgb.end(), image.pixels().begin(), image.pixels().end()));
}

TEST(Png, LargeImagesWithRunsAndNoiseRoundTripAndFlatOnesCompress) {
  // Noise (few matches), runs longer than one match (258) and a far repeat (distance > 4096).
  Image image(300, 200, {255, 255, 255});
  std::uint32_t state = 12345;
  for (int y = 0; y < 60; ++y)
    for (int x = 0; x < 300; ++x) {
      state = state * 1664525u + 1013904223u;
      image.set(x, y, {static_cast<std::uint8_t>(state >> 24), static_cast<std::uint8_t>(state >> 16), static_cast<std::uint8_t>(x)});
    }
  for (int y = 150; y < 160; ++y)
    for (int x = 0; x < 300; ++x) image.set(x, y, image.at(x, y - 140));
  const std::string bytes = encode_png(image);
  const testing::DecodedPng png = testing::decode_png(bytes);
  ASSERT_EQ(png.rgb.size(), 300u * 200u * 3u);
  EXPECT_TRUE(std::equal(png.rgb.begin(), png.rgb.end(), image.pixels().begin(), image.pixels().end()));
  const std::string flat = encode_png(Image(640, 480));
  EXPECT_LT(flat.size(), 640u * 480u * 3u / 100u);  // a blank frame: under 1% of its pixels' bytes
  EXPECT_EQ(testing::decode_png(flat).rgb.size(), 640u * 480u * 3u);
}

TEST(Png, ReaderInflatesStoredBlocksToo) {
  // A zlib stream of two stored blocks ("ab", then "c"), as RFC 1951 lays them out.
  const unsigned char stream[] = {0x78, 0x01, 0x00, 0x02, 0x00, 0xfd, 0xff, 'a', 'b', 0x01,
                                  0x01, 0x00, 0xfe, 0xff, 'c',  0x02, 0x4d, 0x01, 0x27};
  const std::string z(reinterpret_cast<const char*>(stream), sizeof stream);
  const std::vector<std::uint8_t> out = testing::inflate(z, 3);
  EXPECT_EQ(std::string(out.begin(), out.end()), "abc");
}

TEST(Png, ReaderRejectsACorruptedChunk) {
  std::string png = encode_png(Image(3, 3));
  png[40] ^= 1;  // a byte of the IDAT data
  EXPECT_THROW(testing::decode_png(png), std::runtime_error);
}

int count(const Image& image, Rgb colour) {
  int n = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) n += image.at(x, y) == colour;
  return n;
}

TEST(Raster, ShapesCoverTheirAreaAndClipAtTheEdges) {
  const Rgb ink{0, 0, 0};
  Image rect(20, 20);
  fill_rect(rect, 15, 15, 2, 5, ink);  // corners in any order: 13 x 10 pixels
  EXPECT_EQ(count(rect, ink), 130);
  Image circle(100, 100);
  fill_circle(circle, 50, 50, 20, ink);
  EXPECT_NEAR(count(circle, ink), 3.14159265 * 400, 40);  // pi r^2 within the rim's pixels
  Image line(30, 30);
  draw_line(line, 5, 10.5, 25, 10.5, ink);  // horizontal, one pixel wide: 20 pixels and the ends
  EXPECT_GE(count(line, ink), 20);
  EXPECT_LE(count(line, ink), 22);
  EXPECT_EQ(line.at(15, 10), ink);
  EXPECT_NE(line.at(15, 12), ink);
  Image clipped(10, 10);
  fill_circle(clipped, -100, -100, 5, ink);  // wholly outside: nothing, and no fault
  draw_line(clipped, -5, -5, 50, 50, ink);   // crosses the image along its diagonal
  EXPECT_EQ(count(clipped, Rgb{255, 255, 255}) + count(clipped, ink), 100);
  EXPECT_EQ(clipped.at(4, 4), ink);
}

TEST(Raster, TextDrawsGlyphsOfTheFont) {
  const Rgb ink{0, 0, 0};
  Image image(40, 12);
  EXPECT_EQ(draw_text(image, 1, 1, "1 a?", ink, 2), 32);  // four characters, 8 pixels apart
  // "1": 010 / 110 / 010 / 010 / 111 in 2 x 2 pixel blocks; its top row has only the middle lit.
  EXPECT_NE(image.at(1, 1), ink);
  EXPECT_EQ(image.at(3, 1), ink);
  EXPECT_EQ(image.at(1, 9), ink);  // bottom row: all three lit
  EXPECT_EQ(count(image, ink), 4 * (7 + 11));  // "1" has 7 pixels, "A" 11; space and '?' none
}

TEST(Raster, ColourMapsMatchTheReportsEnds) {
  EXPECT_EQ(diverging_colour(0, 1), (Rgb{120, 120, 120}));
  EXPECT_EQ(diverging_colour(5, 1), (Rgb{255, 0, 0}));
  EXPECT_EQ(diverging_colour(-1, 1), (Rgb{0, 0, 255}));
  EXPECT_EQ(diverging_colour(0, 0), (Rgb{120, 120, 120}));  // no scale: grey, not undefined
  EXPECT_EQ(diverging_colour(NAN, 1), (Rgb{120, 120, 120}));
  EXPECT_EQ(sequential_colour(0), (Rgb{68, 1, 84}));
  EXPECT_EQ(sequential_colour(1), (Rgb{253, 231, 37}));
  EXPECT_EQ(parse_colour("#1f77b4"), (Rgb{0x1f, 0x77, 0xb4}));
  EXPECT_EQ(parse_colour("red"), (Rgb{}));
}

TEST(Png, WritesAScalarFieldAsAFile) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / ("simgrad_field_" + std::to_string(getpid()) + ".png");
  const std::vector<double> density = {0.0, 0.5, 1.0, 0.25};
  write_png(file, scalar_field_image(density, 2, 2, 0.0, 1.0, 3));
  const testing::DecodedPng png = testing::decode_png(read_bytes(file));
  EXPECT_EQ(png.width, 6);
  EXPECT_EQ(png.height, 6);
  const Rgb top_right = sequential_colour(0.25);  // row 1 (the top), column 1
  EXPECT_EQ(png.rgb[3 * 5], top_right.r);
  std::filesystem::remove(file);
}

TEST(Raster, ScalarFieldPutsRowZeroAtTheBottom) {
  const std::vector<double> values = {0, 0, 0, 1, 1, 1};  // 3 x 2: bottom row 0, top row 1
  const Image image = scalar_field_image(values, 3, 2, 0.0, 1.0, 4);
  EXPECT_EQ(image.width(), 12);
  EXPECT_EQ(image.height(), 8);
  EXPECT_EQ(image.at(0, 0), sequential_colour(1));
  EXPECT_EQ(image.at(11, 7), sequential_colour(0));
  EXPECT_THROW(scalar_field_image(values, 4, 2, 0, 1), std::invalid_argument);
  EXPECT_THROW(scalar_field_image(values, 3, 2, 0, 1, 1 << 30), std::invalid_argument);
  EXPECT_THROW(Image(0, 5), std::invalid_argument);
}

TEST(FrameImages, EdgesColouredByValueAndPaletteClasses) {
  const json run = {{"edges", {{0, 1}}},
                    {"palette", {"#00ff00"}},
                    {"frames",
                     {{{"points", {{0, 0}, {1, 0}}}, {"values", {1.0}}, {"classes", {0, 0}}},
                      {{"points", {{0, 0}, {1, 1}}}, {"values", {-1.0}}}}}};
  const std::vector<Image> images = draw_frames(run, 100, 80);
  ASSERT_EQ(images.size(), 2u);
  EXPECT_EQ(images[0].width(), 100);
  EXPECT_EQ(images[0].height(), 80);
  EXPECT_GT(count(images[0], Rgb{255, 0, 0}), 10);    // the stretched edge, red
  EXPECT_GT(count(images[0], Rgb{0, 255, 0}), 10);    // points in palette colour 0
  EXPECT_EQ(count(images[0], Rgb{0, 0, 255}), 0);
  EXPECT_GT(count(images[1], Rgb{0, 0, 255}), 10);    // the compressed edge, blue
  EXPECT_GT(count(images[1], Rgb{34, 34, 34}), 10);   // points without a class: ink
  EXPECT_THROW(draw_frames(json{{"frames", {{{"points", {{0, 0}}}}}}, {"edges", {{0, 5}}}}, 50, 50),
               std::invalid_argument);
  EXPECT_THROW(draw_frames(json::array(), 50, 50), std::invalid_argument);
}

TEST(FrameImages, FirstChartIsDrawnSmallWithTheFramesTimeMarked) {
  const json chart = {{"title", "count"}, {"series", {{{"name", "data"}, {"x", {0, 10}}, {"y", {0, 5}}}}}};
  const json run = {{"charts", {chart}}, {"frames", {{{"points", {{0, 0}}}, {"time", 5}}}}};
  const Image image = draw_frames(run, 200, 150).at(0);
  const Rgb blue = parse_colour(series_colour(0));
  int series_pixels = 0, marker_pixels = 0;
  for (int y = 0; y < 150; ++y)
    for (int x = 0; x < 200; ++x) {
      series_pixels += image.at(x, y) == blue;
      marker_pixels += image.at(x, y) == Rgb{170, 170, 170};
    }
  EXPECT_GT(series_pixels, 20);  // the data line, in the lower right
  EXPECT_GT(marker_pixels, 20);  // the vertical line at x = 5
  EXPECT_EQ(image.at(20, 20), (Rgb{255, 255, 255}));  // the upper left stays the drawing's
  // A null is a gap: a series of two points with a null between draws no line.
  json gappy = run;
  gappy["charts"][0]["series"][0]["x"] = {0, 5, 10};
  gappy["charts"][0]["series"][0]["y"] = {0, nullptr, 5};
  const Image gap = draw_frames(gappy, 200, 150).at(0);
  int gap_pixels = 0;
  for (int y = 0; y < 150; ++y)
    for (int x = 0; x < 200; ++x) gap_pixels += gap.at(x, y) == blue;
  EXPECT_EQ(gap_pixels, 0);
}

TEST(FrameImages, FieldFillsItsBox) {
  const json run = {{"frames", {{{"field", {{"nx", 2}, {"ny", 1}, {"values", {0.0, 1.0}}, {"box", {0, 0, 2, 1}}}}}}}};
  const Image image = draw_frames(run, 120, 90).at(0);
  // The box fills the width between the margins: left half the low colour, right half the high.
  EXPECT_EQ(image.at(30, 45), sequential_colour(0));
  EXPECT_EQ(image.at(90, 45), sequential_colour(1));
  EXPECT_EQ(image.at(2, 2), (Rgb{255, 255, 255}));
}

TEST(FrameImages, WritesNumberedPngFiles) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("simgrad_png_test_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const json run = {{"frames", {{{"lines", {{0, 0, 1, 1, 0.5}}}}, {{"lines", {{0, 1, 1, 0, -0.5}}}}}}};
  ASSERT_EQ(write_frame_pngs(dir, run, 64, 48), 2);
  for (const char* name : {"frame_00000.png", "frame_00001.png"}) {
    const testing::DecodedPng png = testing::decode_png(read_bytes(dir / name));
    EXPECT_EQ(png.width, 64);
    EXPECT_EQ(png.height, 48);
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "frame_00002.png"));
  // A shorter run into the same folder leaves only its own frames.
  ASSERT_EQ(write_frame_pngs(dir, json{{"frames", {run["frames"][0]}}}, 64, 48), 1);
  EXPECT_FALSE(std::filesystem::exists(dir / "frame_00001.png"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace simgrad::report
