// The reactive and transparency masks (docs/masks.md) on the CUDA backend, through the C API and
// against the CPU backend: whole frames with masks within the CPU-vs-GPU exact frame bound (and
// the masks changing them), zero masks giving the bytes of no masks, the input statistics equal to
// the CPU's, device-memory masks with values outside [0, 1] clamped (the frames of their clamped
// copy in host memory), counted, and warned about once; mask_embed in the network against the CPU
// network (weights with a random mask_embed, zero bias), layer by layer; the output pass with masks
// bit-identical to the CPU's in exact mode and within its bound in fast mode.
// GPU tests (label gpu): they skip, saying so, without a CUDA GPU of compute capability 8.9+.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "api/resource_desc.h"
#include "cpu/network.h"
#include "frame/frame_geometry.h"
#include "frame/mask_pixel.h"
#include "frame/output_pixel.h"
#include "gpu_test_support.h"
#include "input_statistics_check.h"
#include "model/model_spec.h"
#include "network_test_weights.h"
#include "numeric/e4m3.h"
#include "numeric/half.h"
#include "sliding_plane_frames.h"
#include "swinup/swinup.h"

#ifdef SWINUP_HAVE_CUDA
#include "cuda/tools/cuda_tools.h"
#endif

namespace swinup {
namespace {

constexpr int kFrames = 6;
constexpr int kRenderW = 72, kRenderH = 40;     // not multiples of 32: the padding is exercised
constexpr int kDisplayW = 144, kDisplayH = 80;  // s = 2

using test::decode_output_rgb;
using test::kExactFrameBound;

// The sliding plane (sliding_plane_frames.h) with its left half still (the still-pixel shift acts
// there, so the transparency mask matters); one NaN colour pixel in frame 2 to count.
struct SlidingFrame : test::SlidingPlaneFrame {
    explicit SlidingFrame(int f) : SlidingPlaneFrame(kRenderW, kRenderH, f, /*still_left_half=*/true) {
        if (f == 2) color[size_t(5) * kRenderW * 4 + 9] = NAN;
    }
};

// Frame f's masks: a reactive disc moving right (R8_UNORM codes), a transparency pane (f32 values;
// one NaN pixel, and when `out_of_range` values outside [0, 1] in its top rows).
struct Masks {
    std::vector<uint8_t> reactive;
    std::vector<float> transparency;
    Masks(int f, bool out_of_range) : reactive(size_t(kRenderW) * kRenderH), transparency(reactive.size()) {
        for (int y = 0; y < kRenderH; ++y)
            for (int x = 0; x < kRenderW; ++x) {
                const size_t i = size_t(y) * kRenderW + x;
                const float d = std::hypot(float(x) - (12.0f + 6.0f * float(f)), float(y) - 20.0f);
                reactive[i] = uint8_t(std::lround(255.0f * std::min(1.0f, std::max(0.0f, (9.0f - d) / 4.0f))));
                transparency[i] = (y >= 6 && y < 34 && x >= 30 && x < 66) ? 0.2f + 0.02f * float(x - 30) : 0.0f;
                if (out_of_range && y < 3) transparency[i] = x % 2 ? 1.75f : -0.5f;
            }
        transparency[size_t(20) * kRenderW + 40] = NAN;
    }
    std::vector<float> clamped_transparency() const {
        std::vector<float> t(transparency);
        for (float& v : t) v = std::isnan(v) ? 0.0f : std::min(1.0f, std::max(0.0f, v));
        return t;
    }
};

swinup_context_desc context(swinup_backend backend, swinup_precision precision) {
    swinup_context_desc desc =
        test::sliding_plane_context_desc(kRenderW, kRenderH, kDisplayW, kDisplayH, SWINUP_FORMAT_RGBA16F);
    desc.backend = backend;
    desc.variant = SWINUP_VARIANT_LITE;
    desc.precision = precision;
    return desc;
}

enum class MaskInput { none, zero, host, device_out_of_range, host_clamped };

struct MaskedRun {
    std::vector<std::vector<uint8_t>> outputs;
    swinup_input_statistics stats{};
    std::vector<std::string> warnings;
};

// kFrames frames of the sliding plane with the masks `input` says.
MaskedRun run(swinup_backend backend, swinup_precision precision, MaskInput input) {
    MaskedRun r;
    swinup_context_desc desc = context(backend, precision);
    desc.log_callback = [](swinup_log_level level, const char* message, void* user) {
        if (level == SWINUP_LOG_WARNING) static_cast<std::vector<std::string>*>(user)->push_back(message);
    };
    desc.log_user_data = &r.warnings;
    swinup_context* ctx = nullptr;
    EXPECT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    if (!ctx) return r;
    [[maybe_unused]] void* device_mask = nullptr;
#ifdef SWINUP_HAVE_CUDA
    if (input == MaskInput::device_out_of_range) device_mask = cuda_tools::device_alloc(size_t(kRenderW) * kRenderH * 4);
#endif
    const uint32_t phases = swinup_get_jitter_phase_count(2.0f);
    for (int f = 0; f < kFrames; ++f) {
        const SlidingFrame frame(f);
        const Masks masks(f, input == MaskInput::device_out_of_range || input == MaskInput::host_clamped);
        const std::vector<float> clamped = masks.clamped_transparency();
        const std::vector<uint8_t> zero_r(masks.reactive.size(), 0);
        const std::vector<float> zero_t(masks.transparency.size(), 0.0f);
        std::vector<uint8_t> out(size_t(kDisplayW) * kDisplayH * 8, 0xcd);
        swinup_dispatch_desc d = frame.dispatch_desc(out.data(), SWINUP_FORMAT_RGBA16F, kDisplayW, kDisplayH);
        swinup_get_jitter(uint32_t(f) % phases, phases, &d.jitter_x, &d.jitter_y);
        switch (input) {
            case MaskInput::none: break;
            case MaskInput::zero:
                d.reactive_mask = input_resource(zero_r.data(), SWINUP_FORMAT_R8_UNORM, kRenderW, kRenderH);
                d.transparency_mask = input_resource(zero_t.data(), SWINUP_FORMAT_R32F, kRenderW, kRenderH);
                break;
            case MaskInput::host:
            case MaskInput::host_clamped:
                d.reactive_mask = input_resource(masks.reactive.data(), SWINUP_FORMAT_R8_UNORM, kRenderW, kRenderH);
                d.transparency_mask = input_resource(input == MaskInput::host ? masks.transparency.data() : clamped.data(),
                                                     SWINUP_FORMAT_R32F, kRenderW, kRenderH);
                break;
            case MaskInput::device_out_of_range:
#ifdef SWINUP_HAVE_CUDA
                cuda_tools::copy_to_device(device_mask, masks.transparency.data(), masks.transparency.size() * 4);
#endif
                d.reactive_mask = input_resource(masks.reactive.data(), SWINUP_FORMAT_R8_UNORM, kRenderW, kRenderH);
                d.transparency_mask =
                    input_resource(device_mask, SWINUP_FORMAT_R32F, kRenderW, kRenderH, SWINUP_MEMORY_CUDA);
                break;
        }
        EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
        r.outputs.push_back(std::move(out));
    }
    r.stats.struct_size = SWINUP_INPUT_STATISTICS_SIZE_V1;
    EXPECT_EQ(swinup_context_get_input_statistics(ctx, &r.stats), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    swinup_context_destroy(ctx);
#ifdef SWINUP_HAVE_CUDA
    if (device_mask) cuda_tools::device_free(device_mask);
#endif
    return r;
}

TEST(CudaMasks, HostMasksStayWithinTheExactBoundOfTheCpuAndChangeTheFrames) {
    SWINUP_REQUIRE_GPU();
    const MaskedRun cpu = run(SWINUP_BACKEND_CPU, SWINUP_PRECISION_EXACT, MaskInput::host);
    const MaskedRun gpu = run(SWINUP_BACKEND_CUDA, SWINUP_PRECISION_EXACT, MaskInput::host);
    const MaskedRun unmasked = run(SWINUP_BACKEND_CUDA, SWINUP_PRECISION_EXACT, MaskInput::none);
    ASSERT_EQ(gpu.outputs.size(), cpu.outputs.size());
    double worst = 0.0;
    for (size_t f = 0; f < gpu.outputs.size(); ++f) {
        const double err = gpu_test::relative_rms(decode_output_rgb(gpu.outputs[f], SWINUP_FORMAT_RGBA16F),
                                                   decode_output_rgb(cpu.outputs[f], SWINUP_FORMAT_RGBA16F));
        worst = std::max(worst, err);
        EXPECT_LE(err, kExactFrameBound) << "frame " << f;
        if (f > 0) {
            EXPECT_FALSE(gpu.outputs[f] == unmasked.outputs[f]) << "frame " << f << ": the masks changed nothing";
        }
    }
    std::printf("[ measured ] CUDA vs CPU with masks: worst frame relative RMS %.3e\n", worst);
}

TEST(CudaMasks, ZeroMasksGiveTheBytesOfNoMasks) {
    SWINUP_REQUIRE_GPU();
    const MaskedRun none = run(SWINUP_BACKEND_CUDA, SWINUP_PRECISION_EXACT, MaskInput::none);
    const MaskedRun zero = run(SWINUP_BACKEND_CUDA, SWINUP_PRECISION_EXACT, MaskInput::zero);
    for (size_t f = 0; f < none.outputs.size(); ++f) EXPECT_TRUE(none.outputs[f] == zero.outputs[f]) << "frame " << f;
}

TEST(CudaMasks, InputStatisticsEqualTheCpus) {
    SWINUP_REQUIRE_GPU();
    const MaskedRun cpu = run(SWINUP_BACKEND_CPU, SWINUP_PRECISION_EXACT, MaskInput::host);
    const MaskedRun gpu = run(SWINUP_BACKEND_CUDA, SWINUP_PRECISION_EXACT, MaskInput::host);
    test::expect_same_counts(gpu.stats, cpu.stats);
    EXPECT_EQ(gpu.stats.frames, uint64_t(kFrames));
    EXPECT_EQ(gpu.stats.color_nonfinite, 1u);
    EXPECT_EQ(gpu.stats.transparency_nonfinite, uint64_t(kFrames));  // one NaN pixel a frame
    EXPECT_EQ(gpu.stats.reactive_out_of_range + gpu.stats.transparency_out_of_range, 0u);
}

// A device-memory mask cannot be checked before the frame: its values outside [0, 1] are clamped
// (the frames equal those of its clamped copy in host memory, byte for byte), counted, and the
// context warns once, naming the mask.
TEST(CudaMasks, DeviceMaskValuesOutOfRangeAreClampedCountedAndWarnedAboutOnce) {
    SWINUP_REQUIRE_GPU();
    const MaskedRun device = run(SWINUP_BACKEND_CUDA, SWINUP_PRECISION_EXACT, MaskInput::device_out_of_range);
    const MaskedRun clamped = run(SWINUP_BACKEND_CUDA, SWINUP_PRECISION_EXACT, MaskInput::host_clamped);
    for (size_t f = 0; f < device.outputs.size(); ++f)
        EXPECT_TRUE(device.outputs[f] == clamped.outputs[f]) << "frame " << f;
    EXPECT_EQ(device.stats.transparency_out_of_range, uint64_t(kFrames) * 3 * kRenderW);
    EXPECT_EQ(device.stats.transparency_nonfinite, uint64_t(kFrames));
    EXPECT_EQ(device.stats.reactive_out_of_range, 0u);
    size_t named = 0;
    for (const std::string& w : device.warnings) named += w.rfind("dispatch.transparency_mask:", 0) == 0 ? 1 : 0;
    EXPECT_EQ(named, 1u);
}

// mask_embed in the CUDA network: weights with a random mask_embed (its bias zero, the only bias a
// GPU context accepts) and random staged masks, every layer within the CPU-vs-CUDA exact bound of
// tests/cuda/test_cuda_network.cpp (the tensor cores sum in another order).
void compare_network_with_masks([[maybe_unused]] Variant variant) {
#ifdef SWINUP_HAVE_CUDA
    constexpr double kExactBound = 2e-2;
    const int w = 64, h = 64;
    auto weights = test::make_random_weights(variant, 5, false, true);
    std::vector<uint8_t>& bias = weights->tensors.at("mask_embed.bias").bytes;
    std::fill(bias.begin(), bias.end(), uint8_t(0));
    const std::vector<float> staged = test::random_staged(w, h, 3, -1.5f, 1.5f);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::vector<float> masks(size_t(w) * h * kMasks);
    for (float& v : masks) v = round_to_e4m3(rng() % 3 == 0 ? 0.0f : unit(rng));

    std::map<std::string, std::vector<float>> cpu_layers;
    cpu::Network cpu_net(weights, SWINUP_PRECISION_EXACT);
    cpu_net.set_layer_hook([&](const std::string& name, const float* d, int lw, int lh, int ch) {
        cpu_layers[name].assign(d, d + size_t(lw) * lh * ch);
    });
    std::vector<float> cpu_head(size_t(w) * h * kHeadOutputs);
    cpu_net.run(staged.data(), w, h, 1, cpu_head.data(), masks.data());
    std::vector<float> cpu_unmasked(cpu_head.size());
    cpu::Network(weights, SWINUP_PRECISION_EXACT).run(staged.data(), w, h, 1, cpu_unmasked.data());
    ASSERT_GT(gpu_test::relative_rms(cpu_head, cpu_unmasked), 1e-3) << "the masks do not reach the head";

    std::map<std::string, std::vector<float>> gpu_layers;
    const std::vector<float> gpu_head = cuda_tools::run_network(
        weights, SWINUP_PRECISION_EXACT, staged, w, h, 1,
        [&](const std::string& name, const float* d, int lw, int lh, int ch) {
            gpu_layers[name].assign(d, d + size_t(lw) * lh * ch);
        },
        {}, &masks);
    for (const auto& [name, g] : gpu_layers) {
        ASSERT_TRUE(cpu_layers.count(name)) << name;
        EXPECT_LE(gpu_test::relative_rms(g, cpu_layers[name]), kExactBound) << "layer " << name;
    }
    const double err = gpu_test::relative_rms(gpu_head, cpu_head);
    std::printf("[ measured ] %s network with masks: head relative RMS %.3e\n", variant_name(variant), err);
    EXPECT_LE(err, kExactBound);
#endif
}

TEST(CudaMasks, LiteNetworkWithMaskEmbedMatchesTheCpu) {
    SWINUP_REQUIRE_GPU();
    compare_network_with_masks(Variant::lite);
}

TEST(CudaMasks, FullNetworkWithMaskEmbedMatchesTheCpu) {
    SWINUP_REQUIRE_GPU();
    compare_network_with_masks(Variant::full);
}

// The output pass alone with masks (reactive and transparency of zeros, ones and fractions; still
// pixels, so the transparency mask acts): exact mode gives the CPU's linear output bit for bit, and
// its history is the CPU's kept colour (under the reactive mask not the displayed one).
TEST(CudaMasks, OutputPassWithMasksMatchesTheCpuBitForBit) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    cuda_tools::OutputPassCase c;
    c.width = 37;
    c.height = 23;
    c.display_width = 80;
    c.display_height = 50;
    c.jitter_x = -0.375f;
    c.jitter_y = 0.0625f;
    c.still_history_shift = 1.5f;
    const size_t render = size_t(c.width) * c.height, display = size_t(c.display_width) * c.display_height;
    c.tc.resize(render * 3);
    c.motion.resize(render * 2);
    c.head.resize(render * kHeadOutputs);
    c.history.resize(display * 4);
    c.masks.resize(render * kMasks);
    for (float& v : c.tc) v = unit(rng) * 2.8f;
    for (size_t i = 0; i < render; ++i) {
        const bool still = rng() % 4 == 0;
        c.motion[i * 2] = still ? 0.0f : unit(rng) * 6.0f - 3.0f;
        c.motion[i * 2 + 1] = still ? 0.0f : unit(rng) * 6.0f - 3.0f;
    }
    for (float& v : c.head) v = unit(rng) * 6.0f - 3.0f;
    for (uint16_t& v : c.history) v = f32_to_f16_bits(unit(rng) * 3.0f);
    for (float& v : c.masks) {
        const uint32_t kind = static_cast<uint32_t>(rng() % 3);
        v = kind == 0 ? 0.0f : kind == 1 ? 1.0f : unit(rng);
    }
    OutputCurrent cur;
    static_cast<FrameGeometry&>(cur) =
        frame_geometry(c.width, c.height, c.display_width, c.display_height, c.jitter_x, c.jitter_y);
    cur.tc = c.tc.data();
    cur.motion = c.motion.data();
    cur.head = c.head.data();
    cur.head_stride = c.width;
    cur.still_history_shift = c.still_history_shift;
    cur.masks = c.masks.data();
    OutputPrevious prev{true, c.history.data()};
    std::vector<float> want(display * 3);
    std::vector<uint16_t> want_history(display * 4, 0);  // the kept colour's f16 (alpha word 0)
    size_t kept_differs = 0;  // display pixels whose kept colour is not the displayed one
    for (int y = 0; y < c.display_height; ++y) {
        for (int x = 0; x < c.display_width; ++x) {
            const size_t i = size_t(y) * c.display_width + x;
            float kept[3];
            output_pixel(cur, prev, x, y, &want[i * 3], kept);
            for (int k = 0; k < 3; ++k) want_history[i * 4 + k] = history_value(kept[k]);
            kept_differs += std::memcmp(kept, &want[i * 3], sizeof kept) != 0 ? 1 : 0;
        }
    }
    EXPECT_GT(kept_differs, display / 4) << "the reactive mask did not split display and history";
    std::vector<uint16_t> got_history;
    const std::vector<float> got = cuda_tools::output_pass(c, SWINUP_PRECISION_EXACT, &got_history);
    ASSERT_EQ(got.size(), want.size());
    size_t differ = 0;
    for (size_t i = 0; i < got.size(); ++i) differ += std::memcmp(&got[i], &want[i], 4) != 0 ? 1 : 0;
    EXPECT_EQ(differ, 0u) << "values differing from output_pixel()";
    // The history holds the kept colour (alpha words are not compared).
    ASSERT_EQ(got_history.size(), want_history.size());
    size_t history_differ = 0;
    for (size_t i = 0; i < display; ++i)
        for (int k = 0; k < 3; ++k) history_differ += got_history[i * 4 + k] != want_history[i * 4 + k] ? 1 : 0;
    EXPECT_EQ(history_differ, 0u) << "history values differing from output_pixel()'s kept colour";
    c.masks.clear();
    const std::vector<float> unmasked = cuda_tools::output_pass(c, SWINUP_PRECISION_EXACT);
    EXPECT_FALSE(unmasked == got) << "the masks changed nothing";
#endif
}

}  // namespace
}  // namespace swinup
