#include "report/atomic_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <unistd.h>

namespace simgrad::report {
namespace {

namespace fs = std::filesystem;

// A scratch folder removed at the end of the test.
class AtomicFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("simgrad_atomic_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // Every name in the folder, to check nothing was left behind.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(folder_))
      out.push_back(entry.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path folder_;
};

TEST_F(AtomicFileTest, CreatesAFile) {
  write_file_atomically(folder_ / "result.json", "{\"a\": 1}\n");
  EXPECT_EQ(read(folder_ / "result.json"), "{\"a\": 1}\n");
  EXPECT_EQ(names(), std::vector<std::string>{"result.json"});
}

TEST_F(AtomicFileTest, ReplacesAFileAndLeavesNoTemporaries) {
  const fs::path target = folder_ / "result.json";
  write_file_atomically(target, std::string(100000, 'x'));
  write_file_atomically(target, "short");
  EXPECT_EQ(read(target), "short");
  write_file_atomically(target, "");
  EXPECT_EQ(read(target), "");
  EXPECT_EQ(names(), std::vector<std::string>{"result.json"});
}

TEST_F(AtomicFileTest, KeepsBinaryContents) {
  const std::string bytes("a\0b\r\n\xff", 6);
  write_file_atomically(folder_ / "data.bin", bytes);
  EXPECT_EQ(read(folder_ / "data.bin"), bytes);
}

TEST_F(AtomicFileTest, MissingFolderNamesThePath) {
  const fs::path target = folder_ / "no_such_folder" / "result.json";
  try {
    write_file_atomically(target, "x");
    FAIL() << "expected an error";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code(), std::errc::no_such_file_or_directory);
    EXPECT_NE(std::string(error.what()).find(target.string()), std::string::npos) << error.what();
  }
  EXPECT_TRUE(names().empty());
}

TEST_F(AtomicFileTest, TargetThatIsAFolderFailsAndLeavesNoTemporary) {
  fs::create_directories(folder_ / "report");
  std::ofstream(folder_ / "report" / "keep") << "k";
  EXPECT_THROW(write_file_atomically(folder_ / "report", "x"), std::system_error);
  EXPECT_EQ(names(), std::vector<std::string>{"report"});
  EXPECT_EQ(read(folder_ / "report" / "keep"), "k");
}

TEST_F(AtomicFileTest, WritesRelativeToTheWorkingFolder) {
  const fs::path previous = fs::current_path();
  fs::current_path(folder_);
  write_file_atomically("plain.txt", "p");
  fs::current_path(previous);
  EXPECT_EQ(read(folder_ / "plain.txt"), "p");
  EXPECT_EQ(names(), std::vector<std::string>{"plain.txt"});
}

}  // namespace
}  // namespace simgrad::report
