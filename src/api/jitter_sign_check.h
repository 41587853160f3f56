// A check of the jitter's sign over a context's first frames: an engine whose projection follows
// one convention while jitter_convention says the other (the usual slip of an engine coming from
// FSR 2/3 or DLSS) gets a softer, unstable image and no error. The check warns, once per context,
// when the frames fit the opposite sign clearly better.
//
// The idea: a render pixel p of frame t shows the scene at p + s_t (s: the sample offset from the
// pixel centre), which the previous frame's pixel centres saw at q = p + mv(p) + (s_t - s_t-1)
// (mv: this frame's motion vector to the previous one, render pixels). Two hypotheses give two
// places: q+ with the sign as given (s = j) and q- with it reversed (s = -j), 2 (j_t - j_t-1)
// apart. The previous frame's luminance, sampled bilinearly at each, is compared with this frame's:
// the summed absolute differences E+ and E- over the first kJitterSignCheckPairs usable frame pairs
// decide. Everything that is not the jitter (interpolation, inexact motion vectors, disocclusion,
// animation, lighting) adds to both alike; the jitter's sign adds to one only.
//
// Decision: warn when E- < kJitterSignCheckRatio * E+ (the reversed sign fits clearly better) and
// E- < kJitterSignCheckNoStepRatio * E0, where E0 is the same sum at q0 = p + mv (no jitter step):
// with trustworthy motion vectors the right sign beats q0, which lies halfway; with wrong ones
// (their sign flipped) all three places are far from the truth and one of the signs may win by
// chance, but not against q0 by that margin. Measured (examples/engine_loop, 8 pairs): right sign
// E-/E+ 2.50; jitter sign flipped 0.26 (E-/E0 0.39): warns; motion-vector sign flipped 0.78 (E-/E0
// 0.81) and both flipped 1.21: no warning; tests/api/test_jitter_convention.cpp's pan 8.7 / 0.115.
// Limits (said in docs/integration.md): it runs only on frames whose colour and motion vectors are
// in host memory (swinup_dispatch; recorded Vulkan frames and device pointers are not read on the
// host); not under SWINUP_FLAG_MV_JITTERED (jittered vectors already tie each pixel to the previous
// frame's pixel whatever the sign: the colours cannot tell the two apart); frame pairs across a
// reset or a change of render size, or whose jitter changed by less than kJitterSignCheckMinStep
// pixels on both axes, are skipped; content without detail (flat colour) gives E+ = E- and no
// warning, as it gives no visible error either. It gives up after kJitterSignCheckMaxFrames frames.
// Cost: the luminance of every render pixel and two bilinear reads per second pixel of each axis,
// for the first frames only; the buffer of the previous luminance is freed once it has decided.
#pragma once

#include <cstdint>
#include <vector>

#include "api/log.h"
#include "swinup/swinup.h"

namespace swinup {

constexpr uint32_t kJitterSignCheckPairs = 8;       // usable frame pairs the decision is made on
constexpr uint32_t kJitterSignCheckMaxFrames = 64;  // frames after which it stops without deciding
constexpr double kJitterSignCheckRatio = 0.5;       // warn when E- < ratio * E+
constexpr double kJitterSignCheckNoStepRatio = 0.75;  // ... and E- < this * E0
constexpr float kJitterSignCheckMinStep = 0.1f;     // render pixels of jitter change a pair needs

class JitterSignCheck {
public:
    // After a successful dispatch of `d` (validated, its jitter already in swinup's convention:
    // api/jitter_convention.h) on a context created from `context`; `given` is the convention the
    // caller used (named in the warning).
    void after_dispatch(const swinup_dispatch_desc& d, const swinup_context_desc& context,
                        swinup_jitter_convention given, const Log& log);

    // The sums so far (tests, and the figures in docs/integration.md).
    double error_as_given() const { return error_given_; }
    double error_reversed() const { return error_reversed_; }
    double error_no_step() const { return error_no_step_; }
    uint32_t pairs() const { return pairs_; }
    bool decided() const { return done_; }

private:
    bool done_ = false;
    uint32_t frames_ = 0;
    uint32_t pairs_ = 0;
    double error_given_ = 0.0, error_reversed_ = 0.0, error_no_step_ = 0.0;
    std::vector<float> previous_;  // the previous frame's luminance (empty: none usable)
    int previous_width_ = 0, previous_height_ = 0;
    float previous_jitter_[2] = {0.0f, 0.0f};
    std::vector<float> current_;  // reused buffer of this frame's luminance
};

}  // namespace swinup
