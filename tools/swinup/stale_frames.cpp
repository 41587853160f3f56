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
        if (!std::filesystem::is_regular_file(path, error)) break;
        if (!std::filesystem::remove(path, error) || error) {
            throw std::runtime_error(path.string() + ": cannot remove this frame of an earlier run: " +
                                     error.message());
        }
        ++removed;
    }
    return removed;
}

}  // namespace swinup::cli
