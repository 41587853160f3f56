// A method whose frames were made elsewhere (another upscaler, an engine's own output): a folder
// of display-size EXR frames named as `swinup upscale` writes them, out.NNNN.exr with NNNN the
// sequence's frame number (docs/sequence-format.md), linear colour in the units of the
// sequence's colour (exposure not applied). It is scored like the built-in methods; its time per
// frame is the time to read a frame.
#pragma once

#include <string>
#include <vector>

#include "eval/upscaler.h"

namespace swinup::eval {

struct FramesFolder {
    std::string name;    // the method's name in the table and JSON
    std::string folder;  // holds out.NNNN.exr
};

// "NAME=FOLDER" as given on the command line. Throws std::invalid_argument naming `text` when
// either side is empty.
FramesFolder parse_frames_folder(const std::string& text);

// Checks before any frame is read: each name is new (not a built-in method, not in
// `built_in_chosen`, not repeated) and each folder holds every frame of the sequence. Throws
// std::invalid_argument naming the clashing name, the missing folder or the first missing frame.
void check_frames_folders(const std::vector<FramesFolder>& folders, const SequenceInfo& info,
                          const std::vector<std::string>& built_in_chosen);

class FramesFolderMethod : public Upscaler {
public:
    explicit FramesFolderMethod(FramesFolder folder) : folder_(std::move(folder)) {}
    std::string name() const override { return folder_.name; }
    // Reads out.NNNN.exr of input.index; throws std::runtime_error naming the file when it is
    // missing, unreadable, not the display size (found and expected) or has no RGB.
    Image upscale(const UpscaleInput& input) override;

private:
    FramesFolder folder_;
};

}  // namespace swinup::eval
