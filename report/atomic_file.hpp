// Writing output files so that a reader sees the old contents or the new, never half of them.
#pragma once

#include <filesystem>
#include <string_view>

namespace simgrad::report {

// Writes `contents` to a new temporary file beside `target`, flushes it to disk, renames it
// over `target` and syncs the folder, so a crash or a concurrent reader never sees a partial
// file. The folder must exist. A symbolic link at `target` is replaced, not followed. Throws
// std::system_error naming the path on failure, leaving `target` as it was and no temporary.
void write_file_atomically(const std::filesystem::path& target, std::string_view contents);

}  // namespace simgrad::report
