#include "report/atomic_file.hpp"

#include <atomic>
#include <cerrno>
#include <string>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace simgrad::report {

namespace {

// Retries a system call interrupted by a signal.
template <class Call>
auto retry_on_interrupt(Call call) {
  auto result = call();
  while (result == -1 && errno == EINTR) result = call();
  return result;
}

// A temporary file that removes itself unless it was renamed into place.
class TemporaryFile {
public:
  // Creates a fresh, hidden file in `folder`; the name is unique to this process and call.
  TemporaryFile(const std::filesystem::path& folder, const std::filesystem::path& target)
      : target_(target) {
    static std::atomic<unsigned> counter{0};
    std::string stem = target.filename().string();
    stem.insert(0, 1, '.').append(".tmp.").append(std::to_string(getpid()));
    while (true) {
      path_ = folder / (stem + "." + std::to_string(counter++));
      fd_ = retry_on_interrupt(
          [&] { return ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666); });
      if (fd_ >= 0) return;
      if (errno != EEXIST) fail("cannot create a temporary file in " + folder.string());
    }
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!renamed_) ::unlink(path_.c_str());
  }

  // Writes everything, however many partial writes that takes.
  void write(std::string_view contents) {
    while (!contents.empty()) {
      const ssize_t written =
          retry_on_interrupt([&] { return ::write(fd_, contents.data(), contents.size()); });
      if (written < 0) fail("cannot write " + path_.string());
      contents.remove_prefix(static_cast<std::size_t>(written));
    }
  }

  // Flushes to disk and closes; close can report a delayed write error, so it is checked too.
  void sync_and_close() {
    if (::fsync(fd_) != 0) fail("cannot flush " + path_.string());
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("cannot close " + path_.string());
  }

  void rename_over_target() {
    if (::rename(path_.c_str(), target_.c_str()) != 0)
      fail("cannot rename " + path_.string() + " over it");
    renamed_ = true;
  }

private:
  // Throws for the current errno, naming the target first: that is the file the user knows.
  [[noreturn]] void fail(const std::string& what) const {
    throw std::system_error(errno, std::generic_category(),
                            "cannot write " + target_.string() + ": " + what);
  }

  std::filesystem::path target_;
  std::filesystem::path path_;
  int fd_ = -1;
  bool renamed_ = false;
};

// Makes the rename itself durable; some file systems refuse to sync a folder, which is harmless.
void sync_folder(const std::filesystem::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& target, std::string_view contents) {
  const std::filesystem::path folder =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  TemporaryFile temporary(folder, target);
  temporary.write(contents);
  temporary.sync_and_close();
  temporary.rename_over_target();
  sync_folder(folder);
}

}  // namespace simgrad::report
