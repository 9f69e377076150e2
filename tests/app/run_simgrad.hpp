// Running the built command line from a test, as a user would: `simgrad ARGS` with its exit
// status, standard output and standard error.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace simgrad::testing {

struct ToolResult {
  int status;  // the exit status; -1 when the tool did not exit normally
  std::string out;
  std::string err;
};

// A file of this test process's own scratch folder.
inline std::filesystem::path tool_scratch(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("simgrad_cli_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

// Runs `simgrad ARGS`, capturing stdout and stderr.
inline ToolResult run_simgrad(const std::string& args) {
  const std::filesystem::path err = tool_scratch("stderr.txt");
  const std::string command = std::string(SIMGRAD_BINARY) + " " + args + " 2>" + err.string();
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = pclose(pipe);
  std::ifstream e(err);
  std::string err_text((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, err_text};
}

}  // namespace simgrad::testing
