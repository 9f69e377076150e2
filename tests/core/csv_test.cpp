// The CSV reader every data file goes through: records, fields, line numbers and numbers.
#include "core/csv.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace simgrad {
namespace {

std::vector<std::string> fields_of(const CsvReader& csv) { return {csv.fields().begin(), csv.fields().end()}; }

TEST(Csv, RecordsKeepTheirLinesAndSkipBlankAndCommentLines) {
  const std::string text = "time, x ,y\r\n\n# a comment\n0,1.5,\t2\r\n  \n1,,3,\n";
  CsvReader csv(text);
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.line(), 1);
  EXPECT_EQ(fields_of(csv), (std::vector<std::string>{"time", "x", "y"}));
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.line(), 4);
  EXPECT_EQ(fields_of(csv), (std::vector<std::string>{"0", "1.5", "2"}));
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.line(), 6);
  EXPECT_EQ(fields_of(csv), (std::vector<std::string>{"1", "", "3", ""}));  // empty fields stay
  EXPECT_FALSE(csv.next());
  EXPECT_EQ(csv.fraction_read(), 1.0);
  EXPECT_FALSE(CsvReader("").next());
  CsvReader last_line_unterminated("a,b");
  ASSERT_TRUE(last_line_unterminated.next());
  EXPECT_EQ(last_line_unterminated.size(), 2u);
}

TEST(Csv, NumbersAreWholeFieldsAndFinite) {
  EXPECT_EQ(parse_number("1.25"), 1.25);
  EXPECT_EQ(parse_number("+3e-2"), 3e-2);
  EXPECT_EQ(parse_number("-0.5"), -0.5);
  EXPECT_EQ(parse_number("0.1"), 0.1);  // correctly rounded, as from_chars is
  for (const char* bad : {"", "abc", "1.5x", "nan", "inf", "1e999", "1,5"}) EXPECT_FALSE(parse_number(bad)) << bad;
  EXPECT_EQ(parse_integer("42"), 42);
  EXPECT_EQ(parse_integer("-7"), -7);
  for (const char* bad : {"", "4.0", "x", "99999999999999999999"}) EXPECT_FALSE(parse_integer(bad)) << bad;
}

TEST(Csv, AMissingFileNamesItself) {
  try {
    read_text_file("/no/such/simgrad.csv");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "/no/such/simgrad.csv: cannot open the file");
  }
  try {
    MappedText mapped("/no/such/simgrad.csv");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "/no/such/simgrad.csv: cannot open the file");
  }
}

// A mapped file's text is the file's bytes, as read_text_file reads them; an empty file is empty.
TEST(Csv, AMappedFileIsItsBytes) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("simgrad_csv_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string bytes;
  for (int i = 0; i < 5000; ++i) bytes += std::to_string(i) + "," + std::to_string(i % 7) + "\n";
  std::ofstream(dir / "a.csv", std::ios::binary) << bytes;
  std::ofstream(dir / "empty.csv").close();
  {
    const MappedText mapped(dir / "a.csv");
    EXPECT_EQ(mapped.text(), bytes);
    EXPECT_EQ(mapped.text(), read_text_file(dir / "a.csv"));
    const MappedText empty(dir / "empty.csv");
    EXPECT_TRUE(empty.text().empty());
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace simgrad
