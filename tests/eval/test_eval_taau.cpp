// The FSR2-class TAAU: converges to the truth on a still scene, follows motion, honours resets.
#include <gtest/gtest.h>

#include <cmath>

#include "eval/display_encode.h"
#include "eval/psnr.h"
#include "eval/spatial_upscale.h"
#include "eval/taau.h"
#include "frame/halton_jitter.h"
#include "sequence_fixture.h"

using swinup::Frame;
using swinup::Image;
using swinup::SequenceInfo;
namespace ev = swinup::eval;

namespace {

constexpr int kRender = 32, kDisplay = 64;  // scale 2

// A display-resolution picture full of detail a 2x upscale cannot guess: thin lines, a fine
// checker, a sharp disc and smooth gradients, in colour. `shift` moves it right by display pixels.
float truth_value(int x, int y, int c, int shift) {
    const int xs = x - shift;
    float v = 0.2f + 0.1f * float(c) + 0.3f * float((xs + 64) % 64) / 64.0f;
    if (((xs + 640) % 7) == 0) v = 0.95f;                       // thin vertical lines
    if (y > 40 && ((xs + 640) / 2 + y / 2) % 2 == 0) v = 0.1f;  // fine checker
    const float dx = float(xs % 64) - 20.0f, dy = float(y) - 20.0f;
    if (dx * dx + dy * dy < 90.0f) v = 0.8f - 0.3f * float(c);  // disc
    return v;
}

Image truth_image(int shift) {
    Image img(kDisplay, kDisplay, 3);
    for (int y = 0; y < kDisplay; ++y)
        for (int x = 0; x < kDisplay; ++x)
            for (int c = 0; c < 3; ++c) img.at(x, y, c) = truth_value(x, y, c, shift);
    return img;
}

// The render frame: each render pixel point-samples the truth at its jittered sample position.
Frame render_frame(float jx, float jy, int shift, float mv_x) {
    Frame f = swinup::test::blank_frame(kRender, kRender);
    for (int y = 0; y < kRender; ++y) {
        for (int x = 0; x < kRender; ++x) {
            const int dx = std::min(int((float(x) + 0.5f + jx) * 2.0f), kDisplay - 1);
            const int dy = std::min(int((float(y) + 0.5f + jy) * 2.0f), kDisplay - 1);
            for (int c = 0; c < 3; ++c) f.color.at(x, y, c) = truth_value(dx, dy, c, shift);
            f.mv.at(x, y, 0) = mv_x;
        }
    }
    return f;
}

SequenceInfo info_for(int frames) {
    SequenceInfo info = swinup::test::sequence_info(kRender, kRender, kDisplay, kDisplay, frames);
    for (int i = 0; i < frames; ++i)
        swinup::halton_jitter(static_cast<uint32_t>(i), 32, &info.jitter_x[size_t(i)], &info.jitter_y[size_t(i)]);
    info.has_ground_truth = true;
    return info;
}

double error_db(const Image& out, const Image& truth) {
    return ev::psnr(ev::display_encode(out, 1.0f, false), ev::display_encode(truth, 1.0f, false));
}

// error_db of the bilinear baseline: frame i's render colour f upscaled at its jitter.
double bilinear_error_db(const Frame& f, const SequenceInfo& info, int i, const Image& truth) {
    return error_db(ev::spatial_upscale(f.color, kDisplay, kDisplay, info.jitter_x[i], info.jitter_y[i],
                                        ev::SpatialFilter::bilinear),
                    truth);
}

}  // namespace

TEST(EvalTaau, ConvergesToTheTruthOnAStillScene) {
    const int frames = 32;
    const SequenceInfo info = info_for(frames);
    const Image truth = truth_image(0);
    ev::TaauUpscaler taau;
    double first_db = 0.0, last_db = 0.0, bilinear_db = 0.0;
    for (int i = 0; i < frames; ++i) {
        const Frame f = render_frame(info.jitter_x[i], info.jitter_y[i], 0, 0.0f);
        const Image out =
            taau.upscale({info, f, i, info.jitter_x[i], info.jitter_y[i], 1.0f, false});
        if (i == 0) first_db = error_db(out, truth);
        if (i == frames - 1) {
            last_db = error_db(out, truth);
            bilinear_db = bilinear_error_db(f, info, i, truth);
        }
    }
    // "Well below the bilinear baseline's error": at least 6 dB better (a quarter of its MSE),
    // and far better than its own first frame.
    EXPECT_GT(last_db, bilinear_db + 6.0) << "taau " << last_db << " dB, bilinear " << bilinear_db;
    EXPECT_GT(last_db, first_db + 6.0) << "first " << first_db << " dB, last " << last_db;
}

TEST(EvalTaau, FollowsAMovingScene) {
    // The picture moves right by 2 display pixels (1 render pixel) per frame, with exact MVs
    // (current -> previous: -1 render pixel). History must be reprojected, not smeared.
    const int frames = 24;
    const SequenceInfo info = info_for(frames);
    ev::TaauUpscaler taau;
    double last_db = 0.0, bilinear_db = 0.0;
    for (int i = 0; i < frames; ++i) {
        const Frame f =
            render_frame(info.jitter_x[i], info.jitter_y[i], 2 * i, i == 0 ? 0.0f : -1.0f);
        const Image out =
            taau.upscale({info, f, i, info.jitter_x[i], info.jitter_y[i], 1.0f, false});
        if (i == frames - 1) {
            const Image truth = truth_image(2 * i);
            last_db = error_db(out, truth);
            bilinear_db = bilinear_error_db(f, info, i, truth);
        }
    }
    EXPECT_GT(last_db, bilinear_db + 3.0) << "taau " << last_db << " dB, bilinear " << bilinear_db;
}

TEST(EvalTaau, ResetDropsTheHistory) {
    const SequenceInfo info = info_for(6);
    ev::TaauUpscaler warmed, fresh;
    for (int i = 0; i < 5; ++i) {
        const Frame f = render_frame(info.jitter_x[i], info.jitter_y[i], 3 * i, 0.0f);
        warmed.upscale({info, f, i, info.jitter_x[i], info.jitter_y[i], 1.0f, false});
    }
    const Frame last = render_frame(info.jitter_x[5], info.jitter_y[5], 40, 0.0f);
    const Image after_reset =
        warmed.upscale({info, last, 5, info.jitter_x[5], info.jitter_y[5], 1.0f, true});
    const Image first =
        fresh.upscale({info, last, 5, info.jitter_x[5], info.jitter_y[5], 1.0f, false});
    ASSERT_EQ(after_reset.data.size(), first.data.size());
    for (size_t i = 0; i < first.data.size(); ++i)
        ASSERT_EQ(after_reset.data[i], first.data[i]) << i;
}

TEST(EvalTaau, OutputIsInTheInputUnitsAndFinite) {
    // Exposure is applied inside and divided out: an exposure of 4 on HDR input scaled by 1/4
    // gives the same output scaled by 1/4 (the blend weights see the same exposed colours).
    SequenceInfo info = info_for(3);
    info.hdr = true;
    ev::TaauUpscaler a, b;
    for (int i = 0; i < 3; ++i) {
        Frame f = render_frame(info.jitter_x[i], info.jitter_y[i], 0, 0.0f);
        Frame g = f;
        for (float& v : g.color.data) v *= 0.25f;
        f.color.at(3, 3, 0) = NAN;  // bad input never becomes NaN output
        g.color.at(3, 3, 0) = NAN;
        const Image oa = a.upscale({info, f, i, info.jitter_x[i], info.jitter_y[i], 1.0f, false});
        const Image ob = b.upscale({info, g, i, info.jitter_x[i], info.jitter_y[i], 4.0f, false});
        for (size_t k = 0; k < oa.data.size(); ++k) {
            ASSERT_TRUE(std::isfinite(oa.data[k]));
            ASSERT_NEAR(ob.data[k], 0.25f * oa.data[k], 1e-5f * (1.0f + oa.data[k]));
        }
    }
}

// ---- masks (taau.h): reactive replaces the history, transparency drops the locks and the cap ----

namespace {

// The render pixels of the masked square [8, 24)^2 and the display pixels well inside it (their
// 3x3 render neighbourhood is inside the square too).
bool in_square(int x, int y) { return x >= 8 && x < 24 && y >= 8 && y < 24; }
bool deep_inside(int dx, int dy) { return dx >= 20 && dx < 44 && dy >= 20 && dy < 44; }

Image masks_of_square(float reactive, float transparency) {
    Image m(kRender, kRender, 2, 0.0f);
    for (int y = 0; y < kRender; ++y)
        for (int x = 0; x < kRender; ++x)
            if (in_square(x, y)) {
                m.at(x, y, 0) = reactive;
                m.at(x, y, 1) = transparency;
            }
    return m;
}

// Warms a TAAU on a still picture (truth shifted by `shift`) for 16 frames.
void warm(ev::TaauUpscaler& taau, const SequenceInfo& info, int shift) {
    for (int i = 0; i < 16; ++i) {
        const Frame f = render_frame(info.jitter_x[i], info.jitter_y[i], shift, 0.0f);
        taau.upscale({info, f, i, info.jitter_x[i], info.jitter_y[i], 1.0f, false});
    }
}

double max_difference_deep_inside(const Image& a, const Image& b) {
    double worst = 0.0;
    for (int y = 0; y < kDisplay; ++y)
        for (int x = 0; x < kDisplay; ++x)
            if (deep_inside(x, y))
                for (int c = 0; c < 3; ++c) worst = std::max(worst, double(std::fabs(a.at(x, y, c) - b.at(x, y, c))));
    return worst;
}

}  // namespace

// Reactive 1: the history is not used. Two TAAUs with different histories give the same frame
// inside the square when it is reactive; without the mask their histories show through (the
// square holds a two-colour checker whose clipping box is wide enough to keep either history).
TEST(EvalTaauMasks, ReactiveOneIgnoresTheHistory) {
    const SequenceInfo info = info_for(17);
    const int i = 16;
    Frame f = render_frame(info.jitter_x[i], info.jitter_y[i], 0, 0.0f);
    for (int y = 0; y < kRender; ++y)
        for (int x = 0; x < kRender; ++x)
            if (in_square(x, y)) {
                const bool odd = (x + y) % 2 != 0;
                f.color.at(x, y, 0) = odd ? 0.9f : 0.1f;
                f.color.at(x, y, 1) = odd ? 0.1f : 0.9f;
                f.color.at(x, y, 2) = odd ? 0.1f : 0.9f;
            }
    auto frame_after = [&](int history_shift, bool masked) {
        ev::TaauUpscaler taau;
        warm(taau, info, history_shift);
        Frame g = f;
        if (masked) g.masks = masks_of_square(1.0f, 0.0f);
        return taau.upscale({info, g, i, info.jitter_x[i], info.jitter_y[i], 1.0f, false});
    };
    EXPECT_LT(max_difference_deep_inside(frame_after(0, true), frame_after(5, true)), 1e-5);
    EXPECT_GT(max_difference_deep_inside(frame_after(0, false), frame_after(5, false)), 0.05);
}

// Transparency & composition 1: the remembered boxes no longer widen the clipping box and the
// history is one frame long, so a colour that the motion vectors do not explain (here: the square
// turns a flat colour over a still surface) replaces the old picture at once. Without the mask
// the locks keep most of the old picture.
TEST(EvalTaauMasks, TransparencyOneDropsLocksAndShortensTheHistory) {
    const SequenceInfo info = info_for(17);
    const int i = 16;
    const float flat[3] = {0.85f, 0.3f, 0.6f};
    Frame f = render_frame(info.jitter_x[i], info.jitter_y[i], 0, 0.0f);
    for (int y = 0; y < kRender; ++y)
        for (int x = 0; x < kRender; ++x)
            if (in_square(x, y))
                for (int c = 0; c < 3; ++c) f.color.at(x, y, c) = flat[c];
    Image flat_image(kDisplay, kDisplay, 3);
    for (int y = 0; y < kDisplay; ++y)
        for (int x = 0; x < kDisplay; ++x)
            for (int c = 0; c < 3; ++c) flat_image.at(x, y, c) = flat[c];
    auto frame_after = [&](bool masked) {
        ev::TaauUpscaler taau;
        warm(taau, info, 0);
        Frame g = f;
        if (masked) g.masks = masks_of_square(0.0f, 1.0f);
        return taau.upscale({info, g, i, info.jitter_x[i], info.jitter_y[i], 1.0f, false});
    };
    EXPECT_LT(max_difference_deep_inside(frame_after(true), flat_image), 1e-3);
    EXPECT_GT(max_difference_deep_inside(frame_after(false), flat_image), 0.1);
}

// Masks of zero are no masks: the same bytes, frame after frame. A mask of the wrong size is
// refused.
TEST(EvalTaauMasks, ZeroMasksChangeNothingAndWrongSizesAreRefused) {
    const SequenceInfo info = info_for(6);
    ev::TaauUpscaler plain, zero;
    for (int i = 0; i < 6; ++i) {
        Frame f = render_frame(info.jitter_x[i], info.jitter_y[i], 2 * i, i == 0 ? 0.0f : -1.0f);
        const Image a = plain.upscale({info, f, i, info.jitter_x[i], info.jitter_y[i], 1.0f, false});
        f.masks = Image(kRender, kRender, 2, 0.0f);
        const Image b = zero.upscale({info, f, i, info.jitter_x[i], info.jitter_y[i], 1.0f, false});
        ASSERT_EQ(a.data, b.data) << "frame " << i;
    }
    Frame f = render_frame(0.0f, 0.0f, 0, 0.0f);
    f.masks = Image(kDisplay, kDisplay, 2, 0.0f);
    ev::TaauUpscaler taau;
    EXPECT_THROW(taau.upscale({info, f, 0, 0.0f, 0.0f, 1.0f, false}), std::invalid_argument);
}

// A reactive particle that covered the square for one frame leaves no ghost: the box remembered
// where it was does not keep its colour inside the clipping box on the next frame (FSR 2 creates
// no locks on reactive pixels). Measured against a run that never saw the particle: what is left
// is the one frame of samples the square has had since (0.10 on average; 0.22 when the remembered
// box still widens the clipping).
TEST(EvalTaauMasks, NoLockFromAReactiveParticle) {
    const SequenceInfo info = info_for(18);
    const float flat[3] = {0.95f, 0.6f, 0.1f};
    auto frame17 = [&](bool particle) {
        ev::TaauUpscaler taau;
        warm(taau, info, 0);
        Frame f = render_frame(info.jitter_x[16], info.jitter_y[16], 0, 0.0f);
        if (particle) {
            for (int y = 0; y < kRender; ++y)
                for (int x = 0; x < kRender; ++x)
                    if (in_square(x, y))
                        for (int c = 0; c < 3; ++c) f.color.at(x, y, c) = flat[c];
            f.masks = masks_of_square(1.0f, 0.0f);
        }
        taau.upscale({info, f, 16, info.jitter_x[16], info.jitter_y[16], 1.0f, false});
        const Frame next = render_frame(info.jitter_x[17], info.jitter_y[17], 0, 0.0f);
        return taau.upscale({info, next, 17, info.jitter_x[17], info.jitter_y[17], 1.0f, false});
    };
    const Image with_particle = frame17(true), without = frame17(false);
    double sum = 0.0;
    int n = 0;
    for (int y = 0; y < kDisplay; ++y)
        for (int x = 0; x < kDisplay; ++x)
            if (deep_inside(x, y))
                for (int c = 0; c < 3; ++c, ++n) sum += std::fabs(with_particle.at(x, y, c) - without.at(x, y, c));
    EXPECT_LT(sum / n, 0.15) << "mean ghost of the particle";
}
