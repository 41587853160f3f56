// swinup_dispatch_desc.jitter_convention and the jitter sign check (api/jitter_convention.h,
// api/jitter_sign_check.h), on the CPU backend. A textured plane panning under the camera is
// rendered the way an engine does: each render pixel centre unprojected through a jittered
// projection. An FSR 2 / DLSS engine translates its projection by +2 J / w in NDC x and -2 J / h in
// NDC y (NDC y up) and passes J; swinup's own convention translates it by -2 j / w and +2 j / h and
// passes j. With jitter_convention saying which, the two engines give the same frames, byte for
// byte; a convention that disagrees with the projection gives worse frames, and the context warns
// once through its log callback; one that agrees never warns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api/jitter_sign_check.h"
#include "api/resource_desc.h"
#include "swinup/swinup.h"

namespace swinup {
namespace {

constexpr int kRenderW = 48, kRenderH = 32;
constexpr int kDisplayW = 96, kDisplayH = 64;  // s = 2
constexpr int kFrames = 12;                    // the check decides after 8 usable pairs
constexpr double kPanX = 0.61, kPanY = 0.23;   // camera motion, render pixels a frame

// The scene, a function of the plane's position in render pixels of frame 0 (detail at a few
// pixels' period, so that a sample's place matters). `flat`: one colour.
double scene(double u, double v, bool flat) {
    if (flat) return 0.4;
    return 0.45 + 0.3 * std::sin(1.3 * u) * std::cos(0.9 * v) + 0.2 * std::sin(0.37 * u + 0.71 * v);
}

// How the engine jitters its projection.
enum class Projection { swinup, fsr };

struct Frame {
    std::vector<float> color, depth, mv;
    float jitter_x = 0.0f, jitter_y = 0.0f;  // what the engine passes
};

// Frame t rendered through the engine's projection with jitter (jx, jy) as that engine means it.
// NDC: x right, y up; pixel centre (x + 0.5, y + 0.5) has NDC (2 (x + 0.5) / w - 1, 1 - 2 (y + 0.5) / h).
// The jittered projection adds (dx, dy) to NDC; the pixel centre then sees the point the unjittered
// projection puts at NDC - (dx, dy).
Frame render(int t, float jx, float jy, Projection projection, bool flat = false) {
    const double dx = projection == Projection::fsr ? 2.0 * jx / kRenderW : -2.0 * jx / kRenderW;
    const double dy = projection == Projection::fsr ? -2.0 * jy / kRenderH : 2.0 * jy / kRenderH;
    Frame f;
    f.jitter_x = jx;
    f.jitter_y = jy;
    f.color.resize(size_t(kRenderW) * kRenderH * 4);
    f.depth.assign(size_t(kRenderW) * kRenderH, 0.5f);
    f.mv.resize(size_t(kRenderW) * kRenderH * 2);
    for (int y = 0; y < kRenderH; ++y)
        for (int x = 0; x < kRenderW; ++x) {
            const double ndc_x = 2.0 * (x + 0.5) / kRenderW - 1.0 - dx;
            const double ndc_y = 1.0 - 2.0 * (y + 0.5) / kRenderH - dy;
            const double px = (ndc_x + 1.0) * 0.5 * kRenderW, py = (1.0 - ndc_y) * 0.5 * kRenderH;  // pixels
            const double c = scene(px + kPanX * t, py + kPanY * t, flat);
            float* p = &f.color[(size_t(y) * kRenderW + x) * 4];
            p[0] = float(c);
            p[1] = float(0.8 * c);
            p[2] = float(0.6 * c + 0.1);
            p[3] = 1.0f;
            // To where the point was in the previous frame: the camera moved by +pan, so the
            // point seen here was pan further along the screen's axes.
            f.mv[(size_t(y) * kRenderW + x) * 2 + 0] = float(kPanX);
            f.mv[(size_t(y) * kRenderW + x) * 2 + 1] = float(kPanY);
        }
    return f;
}

// FSR's numbers for frame t (swinup_get_jitter is ffxFsr2GetJitterOffset's sequence).
void fsr_jitter(int t, float* jx, float* jy) {
    ASSERT_EQ(swinup_get_jitter(uint32_t(t), swinup_get_jitter_phase_count(2.0f), jx, jy), SWINUP_STATUS_OK);
}

struct Dispatched {
    std::vector<std::vector<uint8_t>> outputs;
    std::vector<std::string> warnings;
};

// Runs the frames through a new CPU context with `convention`; returns the outputs and warnings.
Dispatched run(const std::vector<Frame>& frames, swinup_jitter_convention convention) {
    Dispatched r;
    swinup_context_desc cd = sized_context_desc(kRenderW, kRenderH, kDisplayW, kDisplayH);
    cd.backend = SWINUP_BACKEND_CPU;
    cd.num_threads = 2;
    cd.log_callback = [](swinup_log_level level, const char* message, void* user) {
        if (level == SWINUP_LOG_WARNING) static_cast<Dispatched*>(user)->warnings.push_back(message);
    };
    cd.log_user_data = &r;
    swinup_context* ctx = nullptr;
    EXPECT_EQ(swinup_context_create(&cd, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    if (ctx == nullptr) return r;
    for (const Frame& f : frames) {
        std::vector<uint8_t> out(size_t(kDisplayW) * kDisplayH * 8, 0xcd);
        swinup_dispatch_desc d = frame_dispatch_desc(
            input_resource(f.color.data(), SWINUP_FORMAT_RGBA32F, kRenderW, kRenderH),
            input_resource(f.depth.data(), SWINUP_FORMAT_R32F, kRenderW, kRenderH),
            input_resource(f.mv.data(), SWINUP_FORMAT_RG32F, kRenderW, kRenderH),
            output_resource(out.data(), SWINUP_FORMAT_RGBA16F, kDisplayW, kDisplayH));
        d.jitter_x = f.jitter_x;
        d.jitter_y = f.jitter_y;
        d.jitter_convention = convention;
        EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
        r.outputs.push_back(std::move(out));
    }
    swinup_context_destroy(ctx);
    return r;
}

// An FSR 2 engine: FSR's jitter in FSR's projection.
std::vector<Frame> fsr_engine(bool flat = false) {
    std::vector<Frame> frames;
    for (int t = 0; t < kFrames; ++t) {
        float jx = 0.0f, jy = 0.0f;
        fsr_jitter(t, &jx, &jy);
        frames.push_back(render(t, jx, jy, Projection::fsr, flat));
    }
    return frames;
}

// swinup's own convention, rendering the same samples as fsr_engine: j = -J.
std::vector<Frame> native_engine_seeing_fsr_samples() {
    std::vector<Frame> frames;
    for (int t = 0; t < kFrames; ++t) {
        float jx = 0.0f, jy = 0.0f;
        fsr_jitter(t, &jx, &jy);
        frames.push_back(render(t, 0.0f - jx, 0.0f - jy, Projection::swinup));
    }
    return frames;
}

size_t sign_warnings(const Dispatched& r) {
    size_t n = 0;
    for (const std::string& w : r.warnings)
        n += w.rfind("dispatch.jitter_x, dispatch.jitter_y: over the first", 0) == 0 ? 1 : 0;
    return n;
}

TEST(JitterConvention, AnFsrEngineGivesTheFramesOfTheSameSamplesInSwinupsConvention) {
    const std::vector<Frame> fsr = fsr_engine(), native = native_engine_seeing_fsr_samples();
    for (int t = 0; t < kFrames; ++t) ASSERT_TRUE(fsr[t].color == native[t].color) << "the same samples, frame " << t;
    const Dispatched fsr_run = run(fsr, SWINUP_JITTER_FSR_DLSS);
    const Dispatched native_run = run(native, SWINUP_JITTER_SAMPLE_OFFSET);
    ASSERT_EQ(fsr_run.outputs.size(), size_t(kFrames));
    for (int t = 0; t < kFrames; ++t) EXPECT_TRUE(fsr_run.outputs[t] == native_run.outputs[t]) << "frame " << t;
    EXPECT_EQ(sign_warnings(fsr_run), 0u);
    EXPECT_EQ(sign_warnings(native_run), 0u);
    // The field is read: the FSR engine's numbers taken as swinup's give other frames.
    const Dispatched misread = run(fsr, SWINUP_JITTER_SAMPLE_OFFSET);
    EXPECT_FALSE(misread.outputs.back() == fsr_run.outputs.back());
}

TEST(JitterConvention, AConventionThatDisagreesWithTheProjectionWarnsOnce) {
    // FSR's projection, but the jitter passed as if it were swinup's.
    const Dispatched wrong = run(fsr_engine(), SWINUP_JITTER_SAMPLE_OFFSET);
    ASSERT_EQ(sign_warnings(wrong), 1u);
    for (const std::string& w : wrong.warnings) {
        if (w.rfind("dispatch.jitter_x", 0) != 0) continue;
        EXPECT_NE(w.find("(SWINUP_JITTER_SAMPLE_OFFSET) likely disagree"), std::string::npos) << w;
        EXPECT_NE(w.find("sets jitter_convention = SWINUP_JITTER_FSR_DLSS"), std::string::npos) << w;
    }
    // swinup's projection, but the jitter declared FSR's.
    const Dispatched wrong_other_way = run(native_engine_seeing_fsr_samples(), SWINUP_JITTER_FSR_DLSS);
    ASSERT_EQ(sign_warnings(wrong_other_way), 1u);
    for (const std::string& w : wrong_other_way.warnings) {
        if (w.rfind("dispatch.jitter_x", 0) != 0) continue;
        EXPECT_NE(w.find("(SWINUP_JITTER_FSR_DLSS) likely disagree"), std::string::npos) << w;
    }
}

TEST(JitterConvention, FlatContentGivesNoSignalAndNoWarning) {
    EXPECT_EQ(sign_warnings(run(fsr_engine(/*flat=*/true), SWINUP_JITTER_SAMPLE_OFFSET)), 0u);
}

TEST(JitterConvention, AnUnknownConventionIsRefusedNamingTheField) {
    const std::vector<Frame> frames = fsr_engine();
    swinup_context_desc cd = sized_context_desc(kRenderW, kRenderH, kDisplayW, kDisplayH);
    cd.backend = SWINUP_BACKEND_CPU;
    cd.num_threads = 1;
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&cd, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    std::vector<uint8_t> out(size_t(kDisplayW) * kDisplayH * 8, 0xcd);
    swinup_dispatch_desc d = frame_dispatch_desc(
        input_resource(frames[0].color.data(), SWINUP_FORMAT_RGBA32F, kRenderW, kRenderH),
        input_resource(frames[0].depth.data(), SWINUP_FORMAT_R32F, kRenderW, kRenderH),
        input_resource(frames[0].mv.data(), SWINUP_FORMAT_RG32F, kRenderW, kRenderH),
        output_resource(out.data(), SWINUP_FORMAT_RGBA16F, kDisplayW, kDisplayH));
    const int32_t raw = -3;  // as a C caller may store it
    std::memcpy(&d.jitter_convention, &raw, sizeof raw);
    EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(swinup_last_error(ctx), "dispatch.jitter_convention: must be SWINUP_JITTER_SAMPLE_OFFSET (0) or "
                                         "SWINUP_JITTER_FSR_DLSS (1), got -3");
    EXPECT_TRUE(out == std::vector<uint8_t>(out.size(), 0xcd));
    // A caller of the previous descriptor size gets swinup's convention, whatever lies past it.
    d.struct_size = SWINUP_DISPATCH_DESC_SIZE_V2;
    EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    swinup_context_destroy(ctx);
}

// The check's sums on the test's frames, right sign and wrong (printed: the figures
// api/jitter_sign_check.h quotes come from here), and with the motion vectors' sign flipped, where
// neither sign fits and nothing may be blamed on the jitter.
TEST(JitterSignCheck, TheSignAsGivenFitsBetterWhenItIsRight) {
    swinup_context_desc cd = sized_context_desc(kRenderW, kRenderH, kDisplayW, kDisplayH);
    for (const int c : {0, 1, 2}) {
        const bool right = c != 1, flipped_motion = c == 2;
        JitterSignCheck check;
        std::vector<Frame> frames = fsr_engine();
        for (Frame& f : frames) {
            if (flipped_motion)
                for (float& m : f.mv) m = -m;
            std::vector<uint8_t> out(8);
            swinup_dispatch_desc d = frame_dispatch_desc(
                input_resource(f.color.data(), SWINUP_FORMAT_RGBA32F, kRenderW, kRenderH),
                input_resource(f.depth.data(), SWINUP_FORMAT_R32F, kRenderW, kRenderH),
                input_resource(f.mv.data(), SWINUP_FORMAT_RG32F, kRenderW, kRenderH),
                output_resource(out.data(), SWINUP_FORMAT_RGBA16F, kDisplayW, kDisplayH));
            // Already in swinup's convention, as the context hands it over: right = -J.
            d.jitter_x = right ? 0.0f - f.jitter_x : f.jitter_x;
            d.jitter_y = right ? 0.0f - f.jitter_y : f.jitter_y;
            check.after_dispatch(d, cd, SWINUP_JITTER_SAMPLE_OFFSET, Log());
        }
        ASSERT_TRUE(check.decided());
        const double ratio = check.error_reversed() / check.error_as_given();
        const double no_step = check.error_reversed() / check.error_no_step();
        std::printf("jitter sign %s%s: E+ %.3f, E- %.3f, E0 %.3f, E-/E+ %.3f, E-/E0 %.3f over %u pairs\n",
                    right ? "right" : "wrong", flipped_motion ? ", motion sign flipped" : "", check.error_as_given(),
                    check.error_reversed(), check.error_no_step(), ratio, no_step, check.pairs());
        const bool warns = ratio < kJitterSignCheckRatio && no_step < kJitterSignCheckNoStepRatio;
        EXPECT_EQ(warns, !right);
        if (c == 0) {
            EXPECT_GT(ratio, 1.0 / kJitterSignCheckRatio);
        }
    }
}

}  // namespace
}  // namespace swinup
