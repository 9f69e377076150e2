// Grey images as density maps: PGM reading (plain and binary) and the image's orientation on
// the grid (image rows run from the top, grid rows from the bottom).
#include "sims/fluid/density_image.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace simgrad::fluid {
namespace {

std::filesystem::path scratch(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("simgrad_pgm_" + std::to_string(getpid()) + "_" + name);
}

TEST(DensityImage, PlainAndBinaryPgmReadAlike) {
  std::ofstream(scratch("a.pgm")) << "P2\n# a comment\n2 2\n255\n0 255\n51 102\n";
  std::ofstream(scratch("b.pgm"), std::ios::binary) << "P5\n2 2\n255\n" << std::string("\x00\xff\x33\x66", 4);
  const GreyImage a = read_pgm(scratch("a.pgm")), b = read_pgm(scratch("b.pgm"));
  ASSERT_EQ(a.values.size(), 4u);
  EXPECT_EQ(a.values, b.values);
  EXPECT_DOUBLE_EQ(a.values[1], 1.0);
  EXPECT_DOUBLE_EQ(a.values[2], 0.2);
  std::ofstream(scratch("c.pgm")) << "P3\n1 1\n255\n0 0 0\n";
  EXPECT_THROW(read_pgm(scratch("c.pgm")), std::runtime_error);
  for (const char* f : {"a.pgm", "b.pgm", "c.pgm"}) std::filesystem::remove(scratch(f));
}

TEST(DensityImage, TopImageRowLandsOnTheTopGridRow) {
  GreyImage image;
  image.width = 1;
  image.height = 2;
  image.values = {0.0, 1.0};  // black above white
  const Grid g(2, 4, 0.5, Side::kClosed, Side::kClosed, Side::kClosed, Side::kClosed);
  const std::vector<double> d = image_on_grid(image, g, true, 2.0);  // dark is dense, times 2
  EXPECT_DOUBLE_EQ(d[static_cast<std::size_t>(g.cell(0, 3))], 2.0);
  EXPECT_DOUBLE_EQ(d[static_cast<std::size_t>(g.cell(1, 0))], 0.0);
  EXPECT_GT(d[static_cast<std::size_t>(g.cell(0, 2))], d[static_cast<std::size_t>(g.cell(0, 1))]);
}

}  // namespace
}  // namespace simgrad::fluid
