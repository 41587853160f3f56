// Temporal stability: does the output change from frame to frame the way the ground truth does?
//
// For frames t-1, t and a display pixel o that is "stable" (see below), with the ground-truth
// motion m(o) (display pixels, current -> previous; motion.h):
//   d_out(o) = out_t(o) - out_{t-1}(o + m(o))      (bilinear sample of the previous output)
//   d_gt(o)  = gt_t(o)  - gt_{t-1}(o + m(o))
// and the error is the RMS of d_out - d_gt over stable pixels, colour channels and frame pairs, on
// display-encoded values (display_encode.h). It is 0 when the output is the ground truth, and it
// measures flicker and crawling (the output changes where the truth does not) as well as smearing
// (it does not change where the truth does) without being confused by real motion.
//
// A display pixel is stable when
//   - the frame is not a camera cut (reset) and has a previous frame;
//   - o + m(o) lies inside the previous frame (at least half a pixel from its border);
//   - none of the 3x3 render pixels around the one under o is disoccluded: a render pixel q with
//     reverse-Z depth z, whose reprojection q + mv(q) lands on a previous pixel of reverse-Z depth
//     z_prev, is disoccluded when (z_prev - z) / max(z_prev, z) > kDisocclusionTolerance: something
//     nearer covered it in the previous frame;
//   - none of those 3x3 render pixels moves differently from it by more than kMotionEdgeTolerance
//     render pixels: at motion edges the display-resolution truth mixes two motions and cannot be
//     warped by one vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sequence/sequence.h"

namespace swinup::eval {

inline constexpr float kDisocclusionTolerance = 0.05f;
inline constexpr float kMotionEdgeTolerance = 0.5f;

// One byte per display pixel: 1 stable, 0 not. `motion` is display_motion() of the current frame.
// Returns all zeros when `index` is 0 or the frame is a reset.
std::vector<uint8_t> stable_pixel_mask(const SequenceInfo& info, const Frame& previous,
                                       const Frame& current, int index, const Image& motion);

struct SquaredErrorSum {
    double sum = 0.0;  // sum of squared (d_out - d_gt) over channels and pixels
    size_t count = 0;  // number of terms
    void add(const SquaredErrorSum& other) {
        sum += other.sum;
        count += other.count;
    }
    // sqrt(sum / count); 0 when nothing was counted.
    double rms() const;
};

// The terms of one frame pair. All images display-encoded (3+ channels), the same size as the mask.
SquaredErrorSum temporal_change_error(const Image& output_previous, const Image& output_current,
                                      const Image& truth_previous, const Image& truth_current,
                                      const Image& motion, const std::vector<uint8_t>& stable);

}  // namespace swinup::eval
