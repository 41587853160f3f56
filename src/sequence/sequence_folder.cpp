// A sequence folder as a whole: sequence.json and the per-frame file names it implies.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "sequence/atomic_write.h"
#include "sequence/sequence.h"

namespace swinup {
namespace {

constexpr const char* kInfoFile = "sequence.json";

std::string join_path(const std::string& dir, const std::string& name) {
    return (std::filesystem::path(dir) / name).string();
}

// Every file the info promises (of those needed) must be a regular file; the first one that is
// not is named, with what is there instead.
void check_frame_files_exist(const std::string& dir, const SequenceInfo& info,
                             const FilesNeeded& needed) {
    std::vector<std::string> kinds = {"color", "depth", "mv"};
    if (info.has_mv_display && needed.mv_display) kinds.push_back("mv_display");
    if (info.has_ground_truth && needed.ground_truth) kinds.push_back("gt");
    if (info.has_masks && needed.masks) kinds.push_back("masks");
    if (info.has_motion_masks && needed.motion_masks) kinds.push_back("motion_masks");
    for (int i = 0; i < info.frame_count; ++i) {
        for (const std::string& kind : kinds) {
            const std::string path = join_path(dir, frame_file(kind, i));
            std::error_code error;
            const auto status = std::filesystem::status(path, error);
            if (std::filesystem::is_regular_file(status)) continue;
            const std::string listed =
                " (sequence.json lists " + std::to_string(info.frame_count) + " frames)";
            if (std::filesystem::is_directory(status)) {
                throw SequenceError(path + ": is a directory, not an EXR file" + listed);
            }
            if (std::filesystem::exists(status)) {
                throw SequenceError(path + ": is not a regular file" + listed);
            }
            throw SequenceError(path + ": missing" + listed);
        }
    }
}

}  // namespace

std::string frame_file(const std::string& kind, int index) {
    char number[16];
    std::snprintf(number, sizeof(number), "%04d", index);
    return kind + "." + number + ".exr";
}

SequenceInfo sequence_read_info(const std::string& dir, const FilesNeeded& needed) {
    const std::string path = join_path(dir, kInfoFile);
    if (!std::filesystem::is_directory(dir)) {
        throw SequenceError(dir + ": not a sequence folder (no such directory)");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) throw SequenceError(path + ": missing or unreadable");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw SequenceError(path + ": read failed");
    SequenceInfo info = sequence_info_from_json(text.str(), path);
    check_frame_files_exist(dir, info, needed);
    return info;
}

void sequence_write_info(const std::string& dir, const SequenceInfo& info) {
    const std::string path = join_path(dir, kInfoFile);
    sequence_info_validate(info, path);
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) throw SequenceError(dir + ": cannot create directory: " + error.message());
    write_text_file_atomically(path, sequence_info_to_json(info));
}

}  // namespace swinup
