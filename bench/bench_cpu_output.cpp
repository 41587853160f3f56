// The CPU backend's output pass alone (cpu::output_frame: each render pixel's kernel into a
// table, then every display pixel's kernel over the 3x3 samples, the history's Lanczos-3 sample
// and blend, the f16 history and RGBA16F output), at 960x540 -> 1920x1080 (2x) and 640x360 ->
// 1920x1080 (3x), with history. The planes are random but in the ranges a trained head produces,
// so the exact functions take their usual paths. It is about a third of a lite frame on the CPU
// (docs/performance.md), so its changes are measured here, apart from the network's noise.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "api/resource_desc.h"
#include "numeric/half.h"
#include "model/model_spec.h"
#include "frame/output_pixel.h"
#include "cpu/output_pass.h"

namespace {

void BM_cpu_output_pass(benchmark::State& state, int w, int h, int dw, int dh) {
    std::mt19937 rng(7);
    auto uniform = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
    std::vector<float> tc(size_t(w) * h * 3), motion(size_t(w) * h * 2), head(size_t(w) * h * swinup::kHeadOutputs);
    for (float& t : tc) t = uniform(0.0f, 1.0f);
    for (float& m : motion) m = uniform(-2.0f, 2.0f);
    for (size_t i = 0; i < size_t(w) * h; ++i) {
        float* o = &head[i * swinup::kHeadOutputs];
        for (int k = 0; k < swinup::kHeadOutputs; ++k) o[k] = uniform(-1.0f, 1.0f);
        o[swinup::kHeadSigmaMajor] = uniform(-2.0f, 1.0f);
        o[swinup::kHeadSigmaMinor] = uniform(-2.0f, 1.0f);
        o[swinup::kHeadAngle] = uniform(-3.0f, 3.0f);
        o[swinup::kHeadAlpha] = uniform(-2.0f, 3.0f);
    }
    std::vector<uint16_t> history(size_t(dw) * dh * 4), new_history(history.size());
    for (size_t i = 0; i < history.size(); ++i)
        history[i] = i % 4 == 3 ? uint16_t{0x3c00} : swinup::f32_to_f16_bits(uniform(0.0f, 1.0f));
    std::vector<uint16_t> output(size_t(dw) * dh * 4);

    swinup::OutputCurrent cur;
    cur.width = w;
    cur.height = h;
    cur.display_width = dw;
    cur.display_height = dh;
    cur.scale_x = float(dw) / float(w);
    cur.scale_y = float(dh) / float(h);
    cur.jitter_x = 0.3125f;
    cur.jitter_y = -0.1875f;
    cur.tc = tc.data();
    cur.motion = motion.data();
    cur.head = head.data();
    cur.head_stride = w;
    swinup::OutputPrevious prev;
    prev.valid = true;
    prev.history = history.data();
    swinup_resource out = swinup::output_resource(output.data(), SWINUP_FORMAT_RGBA16F, dw, dh);
    swinup::cpu::OutputTarget target;
    target.resource = &out;
    std::vector<swinup::PixelKernel> kernel_scratch(size_t(w) * h);
    for (auto _ : state) {
        swinup::cpu::output_frame(cur, prev, kernel_scratch.data(), new_history.data(), target);
        benchmark::DoNotOptimize(new_history.data());
        benchmark::ClobberMemory();
    }
    state.counters["Mpixel/s"] =
        benchmark::Counter(double(dw) * dh * double(state.iterations()) / 1e6, benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_cpu_output_pass, 2x_960x540_to_1920x1080, 960, 540, 1920, 1080)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_cpu_output_pass, 3x_640x360_to_1920x1080, 640, 360, 1920, 1080)
    ->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
