// A temporal anti-aliasing upscaler of the FSR 2 class, written here from the published technique
// (AMD's FSR 2 talks and documentation, Karis' "High quality temporal supersampling" 2014, Salvi's
// variance clipping 2016). It is the strong analytic baseline that swinup's network is measured
// against. Per frame, at display resolution:
//
//  1. Dilated motion: each render pixel takes the motion of the nearest-depth pixel of its 3x3
//     neighbourhood, so that the edges of foreground objects move with them.
//  2. Disocclusion from depth: a render pixel whose dilated depth is farther (by a relative
//     tolerance) than the previous frame's depth where its dilated motion points was hidden last
//     frame, and so is one that the dilation gave a motion not its own (a background pixel
//     uncovered beside a moving object: the dilation gives it the object's depth and motion,
//     which the first test alone would pass) whose own depth is farther than the previous depth
//     where its own motion points; its history is dropped. So is history that reprojects off
//     screen, and all of it on reset.
//  3. History: a Catmull-Rom sample of the previous output at o + motion, clamped to its 4 central
//     taps (no ringing), with the per-pixel accumulated sample weight carried alongside.
//  4. Jitter-aware reconstruction of the current frame from the 3x3 render samples around the
//     display pixel, each at its jittered position: the samples that landed inside the display
//     pixel (a box with soft borders, in display pixels), whose total weight is how much this
//     frame adds; and, for pixels with no history, a Gaussian of all nine (a smooth spatial
//     upscale that the next samples quickly replace).
//  5. Neighbourhood clipping in YCoCg: the history is clipped (along the line to the box centre,
//     not per axis) into the box of the current samples: the min/max box intersected with
//     mean +- gamma * std, widened by the boxes of recent frames (reprojected with the history,
//     fading per frame): a thin feature that only some jitter phases sample is not clipped away
//     on the frames that miss it, which is what FSR 2's "locks" achieve. Still pixels get a wider
//     gamma and a longer memory; moving ones a tight box that forgets fast (no ghosting).
//  6. Blend: the current reconstruction enters with weight w / min(A + w, A_max), where A is the
//     accumulated weight of the history (so a still pixel converges as a running mean of up to
//     A_max frames), and both colours are weighted by 1 / (1 + luma) (Karis) so that one bright
//     sample cannot flicker through.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eval/upscaler.h"

namespace swinup::eval {

// The tuning knobs; the defaults are the values tuned on the procedural scenes
// (docs/journal/2026-11-30-taau-tuning-157adc8.md).
struct TaauSettings {
    // Spatial estimate for pixels with no history: Gaussian sigma (display px) and the
    // accumulated weight it is given (low, so that real samples soon replace it).
    float sigma_wide = 0.80f;
    float wide_confidence = 0.2f;
    // Half-width (display px) of the soft border of a display pixel's sample box.
    float box_softness = 0.2f;
    // Least weight of the current frame on moving pixels, even with no sample in the box.
    float moving_current_floor = 0.3f;
    // A_max: the blend never gives the current frame less than 1/A_max of its weight.
    float max_accumulation = 12.0f;
    // Variance-box half width in standard deviations, moving and still pixels.
    float gamma_moving = 1.5f;
    float gamma_still = 2.5f;
    // Share of the remembered box kept per frame, still and moving pixels.
    float box_memory_still = 0.9f;
    float box_memory_moving = 0.8f;
    // Display px per frame from which a pixel counts as moving.
    float moving_speed = 0.5f;
    // Relative reverse-Z difference that marks a disocclusion.
    float depth_tolerance = 0.05f;
    // Also test a pixel's own depth along its own motion where the dilation gave it a motion
    // more than own_test_motion_px (render px) from its own (step 2). Off: the test as it was
    // before 2026-12-07 (FSR 2's dilated test alone).
    bool own_depth_test = true;
    float own_test_motion_px = 1.0f;
    // Karis' 1 / (1 + luma) blend weights.
    bool luminance_weighting = true;
};

class TaauUpscaler final : public Upscaler {
public:
    explicit TaauUpscaler(const TaauSettings& settings = {});
    std::string name() const override { return "taau"; }
    Image upscale(const UpscaleInput& input) override;

    // What step 2 decided in the last frame, per render pixel (row-major): 1 where the history
    // was kept, 0 where it was dropped (disoccluded, off screen, reset). For tests and analysis.
    const std::vector<uint8_t>& history_kept() const { return keep_; }

private:
    TaauSettings settings_;
    // Previous frame: display-res history (R, G, B exposure-applied linear, accumulated weight)
    // and render-res reverse-Z depth; empty before the first frame.
    Image history_;
    Image previous_depth_;
    std::vector<uint8_t> keep_;
};

}  // namespace swinup::eval
