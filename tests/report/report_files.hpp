// What the tests that write report.html and open it in headless Chromium share
// (tests/report/report_test.cpp, tests/app/report_cli_test.cpp): a scratch folder of the test
// process, a file's text and a shell command's exit status.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace simgrad::report::testing {

// `name` in the scratch folder of this process (made if missing); scratch("") names the folder.
inline std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("simgrad_report_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Runs a shell command; returns its exit status.
inline int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace simgrad::report::testing
