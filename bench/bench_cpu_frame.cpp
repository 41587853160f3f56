// CPU time per frame through the public C API, lite and full, at the two common 2x cases:
// 960x540 -> 1920x1080 and 1280x720 -> 2560x1440. Real (wall) time, since the CPU backend runs on
// all worker threads. The GFLOP/s counter is 2 x the network's MACs (model_cost: linear layers
// plus attention at the padded render grid) per second of dispatch; staging and the output pass
// are in the time but not in the FLOPs, so it is a lower bound on the network's own rate.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/resource_desc.h"
#include "model/model_spec.h"
#include "model/weights.h"
#include "swinup/swinup.h"

namespace {

struct Case {
    swinup_variant variant;
    uint32_t render_w, render_h, display_w, display_h;
};

// A smooth synthetic frame that drifts a little per frame, with jitter and a small pan, so the
// temporal path (history, reprojection) is exercised as in a real sequence.
struct SyntheticFrame {
    std::vector<float> color, depth, motion;
    SyntheticFrame(uint32_t w, uint32_t h)
        : color(size_t(w) * h * 4), depth(size_t(w) * h), motion(size_t(w) * h * 2) {
        for (uint32_t y = 0; y < h; ++y) {
            for (uint32_t x = 0; x < w; ++x) {
                const size_t i = size_t(y) * w + x;
                const float u = float(x) / float(w), v = float(y) / float(h);
                color[i * 4 + 0] = 0.5f + 0.5f * std::sin(40.0f * u);
                color[i * 4 + 1] = 0.5f + 0.5f * std::sin(30.0f * v + 1.0f);
                color[i * 4 + 2] = 0.5f + 0.5f * std::sin(20.0f * (u + v));
                color[i * 4 + 3] = 1.0f;
                depth[i] = 0.2f + 0.6f * v;
                motion[i * 2 + 0] = 0.75f;
                motion[i * 2 + 1] = -0.25f;
            }
        }
    }
};

void BM_cpu_frame(benchmark::State& state, Case c) {
    swinup_context_desc desc;
    swinup_context_desc_init(&desc);
    desc.backend = SWINUP_BACKEND_CPU;
    desc.variant = c.variant;
    desc.max_render_width = c.render_w;
    desc.max_render_height = c.render_h;
    desc.display_width = c.display_w;
    desc.display_height = c.display_h;
    swinup_context* ctx = nullptr;
    if (swinup_context_create(&desc, &ctx) != SWINUP_STATUS_OK) {
        state.SkipWithError((std::string("context: ") + swinup_last_error(nullptr)).c_str());
        return;
    }
    const SyntheticFrame frame(c.render_w, c.render_h);
    std::vector<uint16_t> output(size_t(c.display_w) * c.display_h * 4);

    const uint32_t phases = swinup_get_jitter_phase_count(float(c.display_w) / float(c.render_w));
    uint32_t frame_index = 0;
    double dispatch_seconds = 0.0;
    for (auto _ : state) {
        swinup_dispatch_desc d = swinup::frame_dispatch_desc(
            swinup::input_resource(frame.color.data(), SWINUP_FORMAT_RGBA32F, c.render_w, c.render_h),
            swinup::input_resource(frame.depth.data(), SWINUP_FORMAT_R32F, c.render_w, c.render_h),
            swinup::input_resource(frame.motion.data(), SWINUP_FORMAT_RG32F, c.render_w, c.render_h),
            swinup::output_resource(output.data(), SWINUP_FORMAT_RGBA16F, c.display_w, c.display_h));
        swinup_get_jitter(frame_index, phases, &d.jitter_x, &d.jitter_y);
        d.reset = frame_index == 0;
        const auto start = std::chrono::steady_clock::now();
        const swinup_status status = swinup_dispatch(ctx, &d);
        dispatch_seconds +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (status != SWINUP_STATUS_OK) {
            state.SkipWithError((std::string("dispatch: ") + swinup_last_error(ctx)).c_str());
            break;
        }
        benchmark::DoNotOptimize(output.data());
        ++frame_index;
    }
    swinup_context_destroy(ctx);
    if (frame_index == 0) return;

    // The embedded network's own config: it says whether the head MLP is there (lite's is).
    std::string error;
    const auto weights = swinup::weights_load_embedded(
        c.variant == SWINUP_VARIANT_LITE ? swinup::Variant::lite : swinup::Variant::full, &error);
    if (!weights) {
        state.SkipWithError(("embedded weights: " + error).c_str());
        return;
    }
    const swinup::ModelCost cost = swinup::model_cost(
        weights->config, swinup::pad_to_grid(int(c.render_w)), swinup::pad_to_grid(int(c.render_h)));
    const double flops_per_frame = 2.0 * (cost.linear_macs + cost.attention_macs);
    state.counters["GFLOP/frame"] = flops_per_frame * 1e-9;
    state.counters["GFLOP/s"] = flops_per_frame * frame_index / dispatch_seconds * 1e-9;
    state.counters["ms/frame"] = dispatch_seconds / frame_index * 1e3;
}

// A few frames each: one frame of full at 1280x720 takes seconds on a small CPU.
#define SWINUP_CPU_FRAME(name, variant, rw, rh, dw, dh)                                        \
    BENCHMARK_CAPTURE(BM_cpu_frame, name, Case{variant, rw, rh, dw, dh})                       \
        ->UseRealTime()                                                                        \
        ->Unit(benchmark::kMillisecond)                                                        \
        ->Iterations(4)

SWINUP_CPU_FRAME(lite_960x540_to_1920x1080, SWINUP_VARIANT_LITE, 960, 540, 1920, 1080);
SWINUP_CPU_FRAME(full_960x540_to_1920x1080, SWINUP_VARIANT_FULL, 960, 540, 1920, 1080);
SWINUP_CPU_FRAME(lite_1280x720_to_2560x1440, SWINUP_VARIANT_LITE, 1280, 720, 2560, 1440);
SWINUP_CPU_FRAME(full_1280x720_to_2560x1440, SWINUP_VARIANT_FULL, 1280, 720, 2560, 1440);

}  // namespace

BENCHMARK_MAIN();
