#include "app/progress.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

namespace simgrad::app {
namespace {

TEST(Progress, FormatsTheLine) {
  EXPECT_EQ(format_progress({12, 30, 3.2e-4, 2.9e-4, 4.1, 7.2}),
            "iter 12/30  loss 3.2e-04  best 2.9e-04  4.1 rollouts/s  eta 7s");
  EXPECT_EQ(format_progress({3, 0, 1.0, 0.5, std::nullopt, std::nullopt}),
            "iter 3  loss 1.0e+00  best 5.0e-01");
  EXPECT_EQ(format_progress({1, 9, 1, 1, 1234.4, 125}),
            "iter 1/9  loss 1.0e+00  best 1.0e+00  1234 rollouts/s  eta 2m05s");
  EXPECT_EQ(format_progress({1, 9, 1, 1, std::nullopt, 3725}),
            "iter 1/9  loss 1.0e+00  best 1.0e+00  eta 1h02m");
  const std::string absurd = format_progress({1, 9, 1, 1, 1e300, 1e300});
  EXPECT_EQ(absurd.rfind("iter 1/9  loss 1.0e+00  best 1.0e+00  1000000", 0), 0u);
}

// What a stream received, read back from the start.
std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
  return text;
}

TEST(Progress, SilentWhenNotATerminal) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressLine progress(3, false, file);
    EXPECT_FALSE(progress.enabled());
    for (int i = 1; i <= 3; ++i) progress.update(i, 1.0 / i, 1.0 / i, i);
    progress.clear();
    progress.finish();
  }
  EXPECT_EQ(contents(file), "");
  std::fclose(file);
}

// A pseudo-terminal: what is written to `terminal` can be read from `reader`.
struct PseudoTerminal {
  PseudoTerminal() {
    reader = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (reader < 0 || ::grantpt(reader) != 0 || ::unlockpt(reader) != 0) return;
    const int fd = ::open(::ptsname(reader), O_RDWR | O_NOCTTY);
    if (fd >= 0) terminal = ::fdopen(fd, "w");
  }
  ~PseudoTerminal() {
    if (terminal != nullptr) std::fclose(terminal);
    if (reader >= 0) ::close(reader);
  }
  // Everything written so far (the terminal may turn "\n" into "\r\n").
  std::string read_all() const {
    std::fflush(terminal);
    ::fcntl(reader, F_SETFL, O_NONBLOCK);
    std::string text;
    char buffer[256];
    for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
    return text;
  }
  int reader = -1;
  std::FILE* terminal = nullptr;
};

TEST(Progress, DrawsInPlaceOnATerminalAndEndsTheLine) {
  PseudoTerminal pty;
  if (pty.terminal == nullptr) GTEST_SKIP() << "this machine offers no pseudo-terminal";
  {
    ProgressLine progress(3, false, pty.terminal);
    ASSERT_TRUE(progress.enabled());
    progress.update(1, 0.5, 0.5, 4);
    progress.update(3, 0.25, 0.25, 12);  // the last iteration is always drawn
    progress.finish();
  }
  const std::string text = pty.read_all();
  EXPECT_EQ(text.rfind("\riter 1/3  loss 5.0e-01  best 5.0e-01", 0), 0u) << text;
  EXPECT_NE(text.find("\riter 3/3  loss 2.5e-01  best 2.5e-01"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1);  // one line, redrawn
}

TEST(Progress, QuietOnATerminalIsSilent) {
  PseudoTerminal pty;
  if (pty.terminal == nullptr) GTEST_SKIP() << "this machine offers no pseudo-terminal";
  {
    ProgressLine progress(3, true, pty.terminal);
    EXPECT_FALSE(progress.enabled());
    progress.update(3, 0.25, 0.25, 12);
  }
  EXPECT_EQ(pty.read_all(), "");
}

TEST(Progress, DestructorEndsAnUnfinishedLine) {
  PseudoTerminal pty;
  if (pty.terminal == nullptr) GTEST_SKIP() << "this machine offers no pseudo-terminal";
  { ProgressLine(2, false, pty.terminal).update(1, 1, 1, 1); }
  const std::string text = pty.read_all();
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
}

}  // namespace
}  // namespace simgrad::app
