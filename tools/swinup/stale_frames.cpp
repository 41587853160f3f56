#include "stale_frames.h"

#include <filesystem>
#include <stdexcept>

#include "sequence/sequence.h"

namespace swinup::cli {

int remove_stale_frames(const std::string& dir, const std::string& kind, int first, int end) {
    int removed = 0;
    for (int i = first; i < end; ++i) {
        const std::filesystem::path path = std::filesystem::path(dir) / frame_file(kind, i);
        std::error_code error;
        // symlink_status: a link planted under a frame's name is not the run's frame, and what it
        // points to is never removed.
        if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, error))) continue;
        const bool was_there = std::filesystem::remove(path, error);
        if (error) {
            throw std::runtime_error(path.string() + ": cannot remove this frame of an earlier run: " +
                                     error.message());
        }
        if (was_there) ++removed;
    }
    return removed;
}

}  // namespace swinup::cli
