#include "upscale_folder.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <nlohmann/json.hpp>

#include "sequence/sequence.h"
#include "stale_frames.h"

namespace swinup::cli {
namespace {

constexpr const char* kRecordName = "upscale.json";
constexpr int kMaxRecordedFrames = 1000000;  // sequence.json's largest frame_count

std::filesystem::path frame_path(const UpscaleFolder& folder, int index) {
    return folder.dir / frame_file("out", index);
}

// Anything under that name: a file, a folder, a symbolic link (also a dangling one).
bool name_taken(const std::filesystem::path& path) {
    std::error_code error;
    return std::filesystem::exists(std::filesystem::symlink_status(path, error));
}

}  // namespace

UpscaleFolder read_upscale_folder(const std::filesystem::path& dir) {
    UpscaleFolder folder;
    folder.dir = dir;
    const std::filesystem::path record = dir / kRecordName;
    if (!name_taken(record)) return folder;
    std::error_code error;
    if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(record, error))) {
        folder.foreign_record = true;
        return folder;
    }
    std::ifstream in(record, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) throw std::runtime_error(record.string() + ": cannot read the earlier run's record");
    const nlohmann::json run = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    const auto is = [&](const char* key, const nlohmann::json& value) {
        return run.is_object() && run.contains(key) && run.at(key) == value;
    };
    if (!is("format", "swinup-upscale") || !is("version", 1) || !is("files", "out.NNNN.exr") ||
        !run.contains("frame_count") || !run.at("frame_count").is_number_integer() ||
        run.at("frame_count").get<int64_t>() < 1 || run.at("frame_count").get<int64_t>() > kMaxRecordedFrames) {
        folder.foreign_record = true;
        return folder;
    }
    folder.recorded_frames = run.at("frame_count").get<int>();
    return folder;
}

void check_upscale_may_write(const UpscaleFolder& folder, int frames, bool force) {
    if (force) return;
    const std::string advice = ": swinup upscale overwrites only files that an earlier run's " +
                               std::string(kRecordName) +
                               " records as its own. Choose another output folder, move the file away, "
                               "or pass --force to overwrite it";
    if (folder.foreign_record) {
        throw std::runtime_error((folder.dir / kRecordName).string() +
                                 ": is not the record of an earlier swinup upscale run" + advice);
    }
    for (int i = folder.recorded_frames; i < frames; ++i) {
        const std::filesystem::path path = frame_path(folder, i);
        if (name_taken(path)) {
            throw std::runtime_error(path.string() +
                                     ": exists, and no upscale.json in the folder records it as written by "
                                     "swinup upscale (a file of yours, or a frame of a run that was "
                                     "interrupted)" + advice);
        }
    }
}

int remove_recorded_frames_past(const UpscaleFolder& folder, int frames) {
    return remove_stale_frames(folder.dir.string(), "out", frames, folder.recorded_frames);
}

}  // namespace swinup::cli
