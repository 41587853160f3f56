// Sequences on disk (system.md): a folder with sequence.json and per-frame OpenEXR files
//   color.NNNN.exr (half RGBA, render res), depth.NNNN.exr (float Z, render res),
//   mv.NNNN.exr (RG, render res) and optionally mv_display.NNNN.exr (RG, display res),
//   gt.NNNN.exr (half RGBA, display res, when ground truth is known) and optionally
//   masks.NNNN.exr (half RG, render res: R reactive, G transparency & composition, in [0, 1]),
//   and optionally motion_masks.NNNN.exr (half RG, display res: R disocclusion, G moving object,
//   each 0 or 1; what `swinup eval` scores its disocclusion and moving-object columns over).
// Readers reject inconsistent sizes, missing frames and unknown conventions with a message that
// names the file. Writers write to a temporary name and rename, so no half-written file remains.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sequence/image.h"

namespace swinup {

// Raised by every reader and writer here; what() names the file and the problem.
struct SequenceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct SequenceInfo {
    int render_width = 0, render_height = 0;
    int display_width = 0, display_height = 0;
    int frame_count = 0;
    std::vector<float> jitter_x, jitter_y;  // per frame, render pixels, [-0.5, 0.5]
    std::vector<float> exposure;            // per frame colour multiplier (1 when unknown)
    std::vector<int> reset;                 // per frame camera-cut flag (0/1)
    float camera_near = 0.1f, camera_far = 1000.0f, camera_fov_y_deg = 60.0f;
    // Conventions.
    bool hdr = false;             // colour is HDR (else LDR in [0,1])
    bool depth_inverted = false;  // reverse-Z: 1 near, 0 far
    bool mv_jittered = false;     // MVs include the jitter difference
    // MVs point from the current pixel to where it was in the previous frame, in pixels of their
    // own resolution: mv_sign = +1. (-1 would mean previous -> current; readers flip it.)
    int mv_sign = 1;
    bool has_mv_display = false;  // mv_display.NNNN.exr present
    bool has_ground_truth = false;
    bool has_masks = false;       // masks.NNNN.exr present (sequence.json "has_masks")
    bool has_motion_masks = false;  // motion_masks.NNNN.exr present ("has_motion_masks")
    std::string scene;            // free text: what was rendered
    std::string generator;        // free text: which program wrote it
};

struct Frame {
    Image color;       // render res, 4 channels (RGBA)
    Image depth;       // render res, 1 channel
    Image mv;          // render res, 2 channels, pixels, current -> previous (always mv_sign +1:
                       // readers flip files of mv_sign -1, writers flip back)
    Image mv_display;  // display res, 2 channels, same convention (empty when absent)
    Image gt;          // display res, 4 channels (empty when absent)
    // Render res, 2 channels: R = reactive, G = transparency & composition, each in [0, 1]
    // (docs/sequence-format.md). Empty when the sequence has none: that means zero everywhere.
    Image masks;
    // Display res, 2 channels, for scoring (not an upscaler's input): R = disocclusion (the
    // pixel's surface was hidden or off screen in at least one of the previous 4 frames), G =
    // moving object (its surface belongs to an object that moved since the previous frame), each
    // 0 or 1 (render/motion_masks.h says how the renderer derives them). Empty when absent.
    Image motion_masks;
};

// Which of the optional per-frame files a reader will read. sequence_read_info checks that every
// frame's colour, depth and MV files exist, and these optional ones where the sequence lists them
// and the reader needs them: an upscale reads no ground truth, so a folder without it is not an
// error there, while an evaluation needs it.
struct FilesNeeded {
    bool mv_display = true;
    bool ground_truth = true;
    bool masks = true;
    bool motion_masks = true;
};

// Read and validate sequence.json, and check that the frames' files it lists (of those `needed`)
// are regular files: the first one that is missing or not a file is named.
SequenceInfo sequence_read_info(const std::string& dir, const FilesNeeded& needed = {});
// Read frame i, validating each file's size and channels against the info (and that every mask
// value, of the masks and the motion masks, is in [0, 1]).
Frame sequence_read_frame(const std::string& dir, const SequenceInfo& info, int index);
// Write sequence.json (creates dir).
void sequence_write_info(const std::string& dir, const SequenceInfo& info);
// Write frame i's files (those present in `frame`).
void sequence_write_frame(const std::string& dir, const SequenceInfo& info, int index,
                          const Frame& frame);

// Single EXR images (half RGBA / float Z / RG) and PNG pictures (8-bit sRGB, for people).
// The channel count names the channel set: 4 = R,G,B,A, 3 = R,G,B, 2 = R,G, 1 = Z. exr_read
// accepts exactly those sets (HALF or FLOAT) and returns floats; exr_write stores HALF (rounded to
// nearest even; finite values beyond +-65504 saturate) or FLOAT, losslessly compressed.
// png_write takes 1 (grey), 3 or 4 (alpha ignored) channels, clamps to [0,1], applies the sRGB
// encoding when encode_srgb (linear input) and writes 8-bit RGB. All writes are atomic.
// `check_header`, when given, sees the width, height and channel count from the header before
// any pixel memory is allocated, and throws to reject the file: a corrupt or hostile header that
// claims a huge data window must not make the reader allocate (and zero) gigabytes first.
Image exr_read(const std::string& path,
               const std::function<void(int width, int height, int channels)>& check_header = {});
// The same for an EXR file held in memory (`name` names it in errors): what the fuzz harness of
// fuzz/ reads, and any caller that has the file's bytes already.
Image exr_read_memory(const void* data, size_t size, const std::string& name,
                      const std::function<void(int width, int height, int channels)>& check_header = {});
void exr_write(const std::string& path, const Image& image, bool half_precision);
void png_write(const std::string& path, const Image& rgb8_linear_or_srgb, bool encode_srgb);

// The file name of frame i of a kind, e.g. frame_file("color", 3) == "color.0003.exr".
std::string frame_file(const std::string& kind, int index);

// sequence.json's text <-> SequenceInfo. The layout (docs/sequence-format.md):
//   {"format": "swinup-sequence", "version": 1, "generator", "scene",
//    "render_size": [w, h], "display_size": [w, h], "frame_count": n,
//    "camera": {"near", "far", "fov_y_deg"},
//    "conventions": {"hdr", "depth_inverted", "mv_jittered", "mv_sign"},
//    "files": {"mv_display", "ground_truth"}, "has_masks", "has_motion_masks" (each written
//    only when true),
//    "jitter_x": [n], "jitter_y": [n], "exposure": [n], "reset": [n]}
// `source` names the file in error messages. Unknown keys are rejected (a misspelt convention
// must not be silently ignored); camera, conventions, files, has_masks, has_motion_masks,
// exposure, reset, scene
// and generator may be omitted (defaults of SequenceInfo; exposure 1, reset 0).
std::string sequence_info_to_json(const SequenceInfo& info);
SequenceInfo sequence_info_from_json(const std::string& text, const std::string& source);
// Throws SequenceError (naming `source`) unless the info is self-consistent: sizes in
// [1, 16384], frame_count >= 1 and equal to every per-frame array's length, jitter finite and in
// [-0.5, 0.5], exposure finite and > 0, reset 0 or 1, 0 < near < far, 0 < fov < 180, mv_sign +-1.
void sequence_info_validate(const SequenceInfo& info, const std::string& source);

}  // namespace swinup
