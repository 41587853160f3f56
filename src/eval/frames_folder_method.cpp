#include "eval/frames_folder_method.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "eval/method_registry.h"

namespace swinup::eval {

namespace {

// The name `swinup upscale` gives its frames (tools/swinup/cmd_upscale.cpp).
constexpr const char* kFrameKind = "out";

std::string size_text(int width, int height) {
    return std::to_string(width) + "x" + std::to_string(height);
}

}  // namespace

FramesFolder parse_frames_folder(const std::string& text) {
    const size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
        throw std::invalid_argument("--method " + text + ": expected NAME=FOLDER");
    }
    return {text.substr(0, equals), text.substr(equals + 1)};
}

void check_frames_folders(const std::vector<FramesFolder>& folders, const SequenceInfo& info,
                          const std::vector<std::string>& built_in_chosen) {
    std::vector<std::string> taken = method_names();
    taken.insert(taken.end(), built_in_chosen.begin(), built_in_chosen.end());
    for (const FramesFolder& f : folders) {
        if (std::find(taken.begin(), taken.end(), f.name) != taken.end()) {
            const bool built_in = std::find(method_names().begin(), method_names().end(), f.name) !=
                                  method_names().end();
            throw std::invalid_argument("--method " + f.name + "=" + f.folder + ": the name '" +
                                        f.name + "' " +
                                        (built_in ? "is a built-in method" : "is given twice"));
        }
        taken.push_back(f.name);
        std::error_code error;
        if (!std::filesystem::is_directory(f.folder, error)) {
            throw std::invalid_argument("--method " + f.name + "=" + f.folder +
                                        ": no such folder");
        }
        for (int i = 0; i < info.frame_count; ++i) {
            const std::filesystem::path path = std::filesystem::path(f.folder) / frame_file(kFrameKind, i);
            if (!std::filesystem::is_regular_file(path, error)) {
                throw std::invalid_argument("--method " + f.name + ": " + path.string() +
                                            ": missing (frame " + std::to_string(i) + " of " +
                                            std::to_string(info.frame_count) + ")");
            }
        }
    }
}

Image FramesFolderMethod::upscale(const UpscaleInput& input) {
    const std::string path =
        (std::filesystem::path(folder_.folder) / frame_file(kFrameKind, input.index)).string();
    const int want_w = input.info.display_width, want_h = input.info.display_height;
    Image image;
    try {
        image = exr_read(path, [&](int width, int height, int channels) {
            if (width != want_w || height != want_h) {
                throw SequenceError(path + ": is " + size_text(width, height) + ", expected the display size " +
                                         size_text(want_w, want_h));
            }
            if (channels < 3) throw SequenceError(path + ": has no RGB channels");
        });
    } catch (const SequenceError& e) {  // names the file
        throw std::runtime_error("method " + folder_.name + ": " + e.what());
    }
    return image;
}

}  // namespace swinup::eval
