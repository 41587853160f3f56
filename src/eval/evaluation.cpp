#include "eval/evaluation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "eval/display_encode.h"
#include "eval/flip.h"
#include "eval/hdr_flip.h"
#include "eval/motion.h"
#include "eval/psnr.h"
#include "eval/ssim.h"
#include "eval/temporal_stability.h"

namespace swinup::eval {

SequenceSource sequence_source_from_directory(const std::string& dir) {
    SequenceSource source;
    source.info = sequence_read_info(dir);
    source.description = dir;
    const SequenceInfo info = source.info;
    source.read_frame = [dir, info](int i) { return sequence_read_frame(dir, info, i); };
    return source;
}

SequenceSource sequence_source_from_frames(SequenceInfo info, std::vector<Frame> frames,
                                           std::string description) {
    if (int(frames.size()) != info.frame_count) {
        throw std::invalid_argument(
            "sequence_source_from_frames: " + std::to_string(frames.size()) +
            " frames given, the info says " + std::to_string(info.frame_count));
    }
    SequenceSource source;
    source.info = std::move(info);
    source.description = std::move(description);
    auto shared = std::make_shared<const std::vector<Frame>>(std::move(frames));
    source.read_frame = [shared](int i) { return (*shared)[size_t(i)]; };
    return source;
}

namespace {

struct MethodState {
    std::unique_ptr<Upscaler> method;
    MethodScores scores;
    Image previous_encoded;
    double squared_error_sum = 0.0;  // of scored frames, for the pooled PSNR
    size_t squared_error_frames = 0;
    double ssim_sum = 0.0;
    double flip_sum = 0.0;
    SquaredErrorSum temporal;
    RegionSquaredError masked, unmasked;
    RegionSquaredError disoccluded, moving_object;
    SquaredErrorSum masked_temporal;
    double seconds = 0.0;
};

// 1 for each display pixel whose nearest render pixel (the one under its centre) has
// max(reactive, transparency) > 0; all 0 without masks.
std::vector<uint8_t> masked_region(const SequenceInfo& info, const Image& masks) {
    const int wd = info.display_width, hd = info.display_height;
    std::vector<uint8_t> region(size_t(wd) * hd, 0);
    if (masks.empty()) return region;
    const int w = masks.width, h = masks.height;
    const float sx = float(wd) / float(w), sy = float(hd) / float(h);
    for (int y = 0; y < hd; ++y) {
        const int ry = std::min(int((float(y) + 0.5f) / sy), h - 1);
        for (int x = 0; x < wd; ++x) {
            const int rx = std::min(int((float(x) + 0.5f) / sx), w - 1);
            const float* m = masks.pixel(rx, ry);
            region[size_t(y) * wd + x] = std::max(m[0], m[1]) > 0.0f;
        }
    }
    return region;
}

// The mean FLIP of each method's output of one frame. LDR: LDR-FLIP of the display-encoded images
// (sRGB-encoded, as LDR-FLIP expects); HDR: HDR-FLIP of the linear frames. HDR-FLIP takes its
// exposures from the ground truth, so the sequence's exposure (a common scale) changes nothing
// and is not applied. The ground truth's half of FLIP is computed once for all methods.
std::vector<double> frame_flip_scores(bool hdr, const Image& linear_truth, const Image& encoded_truth,
                                      const std::vector<Image>& outputs) {
    std::vector<double> scores;
    if (hdr) {
        std::vector<const Image*> tests;
        for (const Image& o : outputs) tests.push_back(&o);
        for (const std::vector<float>& map : hdr_flip_error_maps(linear_truth, tests)) {
            scores.push_back(mean_flip(map));
        }
    } else {
        const LdrFlipReference reference(srgb_decode_image(encoded_truth));
        for (const Image& o : outputs) scores.push_back(mean_flip(reference.error_map(srgb_decode_image(o))));
    }
    return scores;
}

// 1 where channel `plane` of the display-resolution motion masks is set (0.5 and above: the
// planes hold 0 or 1, stored as half); empty without motion masks.
std::vector<uint8_t> motion_region(const Image& motion_masks, int plane) {
    std::vector<uint8_t> region;
    if (motion_masks.empty()) return region;
    region.resize(size_t(motion_masks.width) * motion_masks.height);
    for (size_t i = 0; i < region.size(); ++i) {
        region[i] = motion_masks.data[i * size_t(motion_masks.channels) + size_t(plane)] >= 0.5f;
    }
    return region;
}

}  // namespace

void check_evaluation_options(const SequenceInfo& info, const EvaluationOptions& options) {
    if (options.skip_frames < 0 || options.skip_frames >= info.frame_count) {
        throw std::invalid_argument("skip frames must be in [0, " +
                                    std::to_string(info.frame_count - 1) + "], got " +
                                    std::to_string(options.skip_frames));
    }
    // -1 is "the last frame"; any other frame outside the sequence is a mistake to report, not
    // to replace silently by the last frame (the pictures would show a frame nobody asked for).
    if (options.picture_frame < -1 || options.picture_frame >= info.frame_count) {
        throw std::invalid_argument("picture frame must be in [0, " +
                                    std::to_string(info.frame_count - 1) +
                                    "] (or -1: the last), got " +
                                    std::to_string(options.picture_frame));
    }
    if (options.methods.empty() && options.frames_folders.empty()) {
        throw std::invalid_argument("no method to evaluate");
    }
    check_frames_folders(options.frames_folders, info, options.methods);
}

EvaluationResult evaluate_sequence(const SequenceSource& source, const EvaluationOptions& options) {
    const SequenceInfo& info = source.info;
    if (!info.has_ground_truth) {
        throw SequenceError(source.description +
                            ": the sequence has no ground truth (gt.NNNN.exr); "
                            "render it with ground truth to evaluate");
    }
    if (info.frame_count <= 0) throw SequenceError(source.description + ": no frames");
    check_evaluation_options(info, options);

    EvaluationResult result;
    result.sequence = source.description;
    result.info = info;
    result.skip_frames = options.skip_frames;
    result.picture_frame = options.picture_frame < 0 ? info.frame_count - 1 : options.picture_frame;
    result.has_masks = info.has_masks;
    result.methods_got_masks = info.has_masks && options.masks;
    result.has_motion_masks = info.has_motion_masks;

    std::vector<MethodState> states;
    for (const std::string& name : options.methods) {
        MethodState s;
        s.method = make_method(name, options.method_options);
        s.scores.name = name;
        states.push_back(std::move(s));
    }
    for (const FramesFolder& folder : options.frames_folders) {
        MethodState s;
        s.method = std::make_unique<FramesFolderMethod>(folder);
        s.scores.name = folder.name;
        s.scores.description = "frames from " + folder.folder;
        states.push_back(std::move(s));
    }

    Frame previous;
    Image previous_truth;
    size_t stable_count = 0, pair_pixels = 0;
    size_t masked_count = 0, scored_pixels = 0;
    size_t disoccluded_count = 0, moving_object_count = 0;
    for (int t = 0; t < info.frame_count; ++t) {
        Frame frame = source.read_frame(t);
        // The region comes from the sequence's masks; the methods see them only when asked to.
        const std::vector<uint8_t> masked = masked_region(info, frame.masks);
        const std::vector<uint8_t> disoccluded = motion_region(frame.motion_masks, 0);
        const std::vector<uint8_t> moving_object = motion_region(frame.motion_masks, 1);
        if (!options.masks) frame.masks = Image();
        const float exposure = t < int(info.exposure.size()) ? info.exposure[t] : 1.0f;
        const bool reset = t < int(info.reset.size()) && info.reset[t] != 0;
        const Image truth = display_encode(frame.gt, exposure, info.hdr);
        const bool scored = t >= options.skip_frames;
        const bool pair_scored = t >= options.skip_frames + 1;

        if (scored) {
            for (uint8_t v : masked) masked_count += v;
            for (uint8_t v : disoccluded) disoccluded_count += v;
            for (uint8_t v : moving_object) moving_object_count += v;
            scored_pixels += masked.size();
        }
        std::vector<uint8_t> stable, stable_masked;
        Image motion;
        if (t > 0 && !reset) {
            motion = display_motion(info, frame, t);
            stable = stable_pixel_mask(info, previous, frame, t, motion);
            stable_masked = stable;
            for (size_t i = 0; i < stable_masked.size(); ++i) stable_masked[i] &= masked[i];
            if (pair_scored) {
                for (uint8_t v : stable) stable_count += v;
                pair_pixels += stable.size();
            }
        }

        const float jx = t < int(info.jitter_x.size()) ? info.jitter_x[t] : 0.0f;
        const float jy = t < int(info.jitter_y.size()) ? info.jitter_y[t] : 0.0f;
        const UpscaleInput input{info, frame, t, jx, jy, exposure, reset};
        std::vector<Image> flip_inputs;  // in `states` order
        for (MethodState& s : states) {
            const auto start = std::chrono::steady_clock::now();
            Image output = s.method->upscale(input);
            s.seconds +=
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (output.width != info.display_width || output.height != info.display_height) {
                throw std::runtime_error("method " + s.scores.name + " returned a " +
                                         std::to_string(output.width) + "x" +
                                         std::to_string(output.height) + " image for a " +
                                         std::to_string(info.display_width) + "x" +
                                         std::to_string(info.display_height) + " display");
            }
            Image encoded = display_encode(output, exposure, info.hdr);
            const double mse = mean_squared_error(encoded, truth);
            const double frame_ssim = ssim(encoded, truth);
            s.scores.frame_psnr_db.push_back(psnr_from_mse(mse));
            s.scores.frame_ssim.push_back(frame_ssim);
            double frame_temporal = 0.0;
            if (!stable.empty()) {
                const SquaredErrorSum e = temporal_change_error(
                    s.previous_encoded, encoded, previous_truth, truth, motion, stable);
                frame_temporal = e.rms();
                if (pair_scored) {
                    s.temporal.add(e);
                    s.masked_temporal.add(temporal_change_error(s.previous_encoded, encoded, previous_truth,
                                                                truth, motion, stable_masked));
                }
            }
            s.scores.frame_temporal_error.push_back(frame_temporal);
            if (scored) {
                s.squared_error_sum += mse;
                ++s.squared_error_frames;
                s.ssim_sum += frame_ssim;
                s.masked.add(region_squared_error(encoded, truth, masked, 1));
                s.unmasked.add(region_squared_error(encoded, truth, masked, 0));
                if (!disoccluded.empty()) {
                    s.disoccluded.add(region_squared_error(encoded, truth, disoccluded, 1));
                    s.moving_object.add(region_squared_error(encoded, truth, moving_object, 1));
                }
            }
            if (t == result.picture_frame) result.picture_outputs.push_back(encoded);
            if (options.flip) flip_inputs.push_back(info.hdr ? std::move(output) : encoded);
            s.previous_encoded = std::move(encoded);
        }
        if (options.flip) {
            const std::vector<double> flip = frame_flip_scores(info.hdr, frame.gt, truth, flip_inputs);
            for (size_t m = 0; m < states.size(); ++m) {
                states[m].scores.frame_flip.push_back(flip[m]);
                if (scored) states[m].flip_sum += flip[m];
            }
        }
        if (t == result.picture_frame) result.picture_truth = truth;
        previous_truth = truth;
        previous = std::move(frame);
        if (options.progress) options.progress(t + 1, info.frame_count);
    }

    result.scored_frames = info.frame_count - options.skip_frames;
    result.stable_fraction = pair_pixels == 0 ? 0.0 : double(stable_count) / double(pair_pixels);
    result.masked_fraction = scored_pixels == 0 ? 0.0 : double(masked_count) / double(scored_pixels);
    if (result.has_motion_masks && scored_pixels > 0) {
        result.disoccluded_fraction = double(disoccluded_count) / double(scored_pixels);
        result.moving_object_fraction = double(moving_object_count) / double(scored_pixels);
    }
    for (MethodState& s : states) {
        s.scores.psnr_db = psnr_from_mse(s.squared_error_sum / double(s.squared_error_frames));
        s.scores.ssim = s.ssim_sum / double(s.squared_error_frames);
        s.scores.flip = options.flip ? s.flip_sum / double(s.squared_error_frames)
                                     : std::numeric_limits<double>::quiet_NaN();
        // No scored frame pair (one scored frame, or a reset before each): the temporal error is
        // not measured, which is not the same as perfectly stable (0).
        s.scores.temporal_error =
            s.temporal.count == 0 ? std::numeric_limits<double>::quiet_NaN() : s.temporal.rms();
        s.scores.masked_psnr_db = s.masked.psnr_db();
        s.scores.unmasked_psnr_db = s.unmasked.psnr_db();
        s.scores.disocclusion_psnr_db = s.disoccluded.psnr_db();
        s.scores.moving_object_psnr_db = s.moving_object.psnr_db();
        s.scores.masked_temporal_error = s.masked_temporal.count == 0
                                             ? std::numeric_limits<double>::quiet_NaN()
                                             : s.masked_temporal.rms();
        s.scores.ms_per_frame = 1000.0 * s.seconds / double(info.frame_count);
        if (const std::string d = s.method->description(); !d.empty()) s.scores.description = d;
        result.methods.push_back(std::move(s.scores));
    }
    return result;
}

}  // namespace swinup::eval
