// Runs methods over a sequence with ground truth and scores each one: PSNR and SSIM against the
// ground truth and the temporal-stability error, all on display-encoded images (display_encode.h),
// and FLIP: LDR-FLIP (flip.h) of the display-encoded images of an LDR sequence, HDR-FLIP
// (hdr_flip.h) of the linear frames of an HDR one.
// Frames are read once and handed to every method in order, so memory stays at a few frames.
//
// Masked region: the display pixels whose nearest render pixel has max(reactive, transparency)
// > 0 in the sequence's masks (none without masks). PSNR and the temporal error are also scored
// over it alone (the temporal error's exclusions apply there too), and PSNR outside it.
//
// Motion regions, from the sequence's motion masks (motion_masks.NNNN.exr, display resolution;
// render/motion_masks.h derives them): PSNR over the disoccluded pixels (uncovered within the
// last four frames) and over the pixels of moving objects. NaN without motion masks.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "eval/frames_folder_method.h"
#include "eval/method_registry.h"
#include "sequence/sequence.h"

namespace swinup::eval {

// Where frames come from: a sequence folder on disk or frames already in memory (the demo).
struct SequenceSource {
    SequenceInfo info;
    std::function<Frame(int)> read_frame;  // frame i, validated
    std::string description;               // a folder path or what was rendered
};

// Reads sequence.json now and each frame when asked. Throws SequenceError naming the file.
SequenceSource sequence_source_from_directory(const std::string& dir);
// Serves the given frames (frames.size() must equal info.frame_count).
SequenceSource sequence_source_from_frames(SequenceInfo info, std::vector<Frame> frames,
                                           std::string description);

struct EvaluationOptions {
    std::vector<std::string> methods = method_names();
    MethodOptions method_options;
    // Frames made elsewhere, scored after `methods` (frames_folder_method.h); checked before the
    // first frame is read.
    std::vector<FramesFolder> frames_folders;
    // Frames at the start left out of every score (temporal methods start with no history; an
    // engine runs for a while before anyone looks). 0 scores every frame.
    int skip_frames = 0;
    // Hand the sequence's masks to the methods (false: `swinup eval --no-masks`, every method
    // runs without them). The masked region is scored either way.
    bool masks = true;
    // Score FLIP: the slowest metric (it filters the truth and every output at display size, for
    // HDR once per exposure; docs/quality.md has its cost). Off: each flip score is NaN.
    bool flip = true;
    // Keep the display-encoded outputs of this frame for pictures (-1: the last frame).
    int picture_frame = -1;
    // Called after each frame: (frames done, frame count).
    std::function<void(int, int)> progress;
};

struct MethodScores {
    std::string name;
    std::string description;            // e.g. the backend and weights of "swinup"
    double psnr_db = 0.0;               // 10 log10(1 / MSE), MSE pooled over scored frames
    double ssim = 0.0;                  // mean over scored frames
    double temporal_error = 0.0;        // RMS over stable pixels of scored frame pairs; NaN if none
    // Mean over scored frames of the frame's mean per-pixel FLIP error, in [0, 1], lower is better:
    // LDR-FLIP of the display-encoded frames (LDR sequences), HDR-FLIP of the linear frames (HDR
    // sequences). NaN when not scored (EvaluationOptions::flip).
    double flip = 0.0;
    // Over the masked region of scored frames (pooled like the whole-frame scores; NaN when the
    // region is empty, or for the temporal error when no scored pair has a stable masked pixel),
    // and PSNR over the rest of the frame.
    double masked_psnr_db = 0.0;
    double masked_temporal_error = 0.0;
    double unmasked_psnr_db = 0.0;
    // PSNR over the disoccluded pixels and over the moving objects' pixels of scored frames,
    // pooled like psnr_db; NaN when the sequence has no motion masks or the region is empty.
    double disocclusion_psnr_db = 0.0;
    double moving_object_psnr_db = 0.0;
    double ms_per_frame = 0.0;          // wall time of upscale() per frame
    std::vector<double> frame_psnr_db;  // per frame (all frames, scored or not)
    std::vector<double> frame_ssim;
    std::vector<double> frame_temporal_error;  // per frame t (pair t-1, t); 0 for frame 0 / resets
    std::vector<double> frame_flip;            // per frame; empty when FLIP is not scored
};

struct EvaluationResult {
    std::string sequence;
    SequenceInfo info;
    int skip_frames = 0;
    int scored_frames = 0;
    double stable_fraction = 0.0;  // share of display pixels of scored pairs that were stable
    bool has_masks = false;        // the sequence has masks (the masked columns mean something)
    bool methods_got_masks = false;  // they were handed to the methods (EvaluationOptions::masks)
    double masked_fraction = 0.0;  // share of display pixels of scored frames in the masked region
    bool has_motion_masks = false;   // the disocclusion and moving-object columns mean something
    double disoccluded_fraction = 0.0;    // share of display pixels of scored frames disoccluded
    double moving_object_fraction = 0.0;  // ... on moving objects
    std::vector<MethodScores> methods;
    int picture_frame = -1;
    Image picture_truth;                 // display-encoded ground truth of picture_frame
    std::vector<Image> picture_outputs;  // display-encoded outputs, in `methods` order
};

// The options' own checks for this sequence, before any frame is read: the skip count, the
// picture frame, at least one method, the --method folders (check_frames_folders). Throws
// std::invalid_argument naming the bad value; evaluate_sequence runs it first.
void check_evaluation_options(const SequenceInfo& info, const EvaluationOptions& options);

// Throws std::invalid_argument for unknown methods or a bad skip count (check_evaluation_options),
// SequenceError for a sequence without ground truth or unreadable frames, std::runtime_error when
// a method fails.
EvaluationResult evaluate_sequence(const SequenceSource& source, const EvaluationOptions& options);

}  // namespace swinup::eval
