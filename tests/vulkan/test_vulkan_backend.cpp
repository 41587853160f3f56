// Whole frames on the Vulkan backend (host pointers: upload, the recorded frame with the network,
// readback, the temporal state) against the CPU backend, for both variants in exact and fast mode,
// on lavapipe with the validation layer on. Sequences of frames so that the history, the
// recurrent features and the window-shift parity are all in play, at 64x64 -> 128x128 and the odd
// 37x23 -> 80x50. Bounds: relative RMS of every frame's linear output against the CPU's, exact
// 1e-2 and fast 3e-2 (tests/support/sliding_plane_frames.h, as for the CUDA backend); the
// measured value and the count of byte-identical frames are printed. Also: a failed submission
// (device lost) reports a status naming it, writes no output and leaves the history as it was;
// the C API makes a Vulkan context and reports it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "api/resource_desc.h"
#include "cpu/cpu_backend.h"
#include "gpu_test_support.h"
#include "model/weights.h"
#include "sliding_plane_frames.h"
#include "swinup/swinup.h"
#include "vulkan/backend/vulkan_backend.h"
#include "vulkan_test_support.h"

namespace swinup::vulkan {
namespace {

using testing::VulkanTest;

struct Sizes {
    int rw, rh, dw, dh;
};

using test::decode_output_rgb;
using test::kExactFrameBound;
using test::kFastFrameBound;
using test::output_pixel_bytes;

// The sliding plane (sliding_plane_frames.h) at this size; frame 1's colour has a NaN, which
// staging replaces and which never reaches the history.
struct SyntheticFrame : test::SlidingPlaneFrame {
    SyntheticFrame(const Sizes& s, int f) : SlidingPlaneFrame(s.rw, s.rh, f) {
        if (f == 1) color[7] = NAN;
    }
};

swinup_context_desc context_for(const Sizes& s, swinup_variant variant, swinup_precision precision,
                                swinup_format format) {
    swinup_context_desc desc = test::sliding_plane_context_desc(s.rw, s.rh, s.dw, s.dh, format);
    desc.variant = variant;
    desc.precision = precision;
    return desc;
}

// Frame f of the sequence into `out` (poisoned first: every byte must be written).
swinup_dispatch_desc frame_desc(const Sizes& s, const SyntheticFrame& frame, int f, swinup_format format,
                                std::vector<uint8_t>& out) {
    out.assign(size_t(s.dw) * s.dh * output_pixel_bytes(format), 0xcd);
    swinup_dispatch_desc d = frame.dispatch_desc(out.data(), format, s.dw, s.dh);
    swinup_get_jitter(uint32_t(f), swinup_get_jitter_phase_count(float(s.dw) / float(s.rw)), &d.jitter_x, &d.jitter_y);
    return d;
}

std::vector<std::vector<uint8_t>> run_frames(Backend& backend, const Sizes& s, swinup_format format, int frames) {
    std::vector<std::vector<uint8_t>> outputs;
    for (int f = 0; f < frames; ++f) {
        const SyntheticFrame frame(s, f);
        std::vector<uint8_t> out;
        const swinup_dispatch_desc d = frame_desc(s, frame, f, format, out);
        std::string error;
        EXPECT_EQ(backend.dispatch(d, uint64_t(f), &error), SWINUP_STATUS_OK) << error;
        outputs.push_back(std::move(out));
    }
    return outputs;
}

const Sizes kSquare{64, 64, 128, 128};
const Sizes kOdd{37, 23, 80, 50};

class VulkanBackendFrames : public VulkanTest {
protected:
    void compare(const Sizes& s, swinup_variant variant, swinup_precision precision, swinup_format format, int frames) {
        std::string error;
        const auto weights = weights_load_embedded(variant == SWINUP_VARIANT_FULL ? Variant::full : Variant::lite, &error);
        ASSERT_TRUE(weights) << error;
        const swinup_context_desc desc = context_for(s, variant, precision, format);
        cpu::CpuBackend cpu(desc, weights);
        VulkanBackend gpu(desc, weights, device());
        const auto want = run_frames(cpu, s, format, frames);
        const auto got = run_frames(gpu, s, format, frames);
        ASSERT_EQ(got.size(), want.size());
        const double bound = precision == SWINUP_PRECISION_EXACT ? kExactFrameBound : kFastFrameBound;
        double worst = 0.0;
        int identical = 0;
        for (size_t f = 0; f < got.size(); ++f) {
            const double err =
                gpu_test::relative_rms(decode_output_rgb(got[f], format), decode_output_rgb(want[f], format));
            worst = std::max(worst, err);
            identical += got[f] == want[f] ? 1 : 0;
            EXPECT_LE(err, bound) << "frame " << f;
        }
        EXPECT_EQ(gpu.last_frame_stats().color_replaced, cpu.last_frame_stats().color_replaced);
        std::printf("[ measured ] %s %s %dx%d->%dx%d format %d: worst frame relative RMS %.3e, %d of %zu frames "
                    "byte-identical to the CPU\n",
                    variant == SWINUP_VARIANT_LITE ? "lite" : "full", precision == SWINUP_PRECISION_EXACT ? "exact" : "fast",
                    s.rw, s.rh, s.dw, s.dh, int(format), worst, identical, got.size());
    }

    // The failure tests' two backends (lite, fast, kOdd, RGBA8 output): failing_ is made to fail,
    // clean_ never fails.
    void make_failing_and_clean() {
        std::string error;
        const auto weights = weights_load_embedded(Variant::lite, &error);
        ASSERT_TRUE(weights) << error;
        const swinup_context_desc desc = context_for(kOdd, SWINUP_VARIANT_LITE, SWINUP_PRECISION_FAST, SWINUP_FORMAT_RGBA8);
        failing_ = std::make_unique<VulkanBackend>(desc, weights, device());
        clean_ = std::make_unique<VulkanBackend>(desc, weights, device());
    }

    // Frame f after the failure equals frame f of the backend that never failed.
    void expect_next_frame_unchanged(const SyntheticFrame& frame, int f, const char* what) {
        std::string error;
        std::vector<uint8_t> after_failure, reference;
        const swinup_dispatch_desc a = frame_desc(kOdd, frame, f, SWINUP_FORMAT_RGBA8, after_failure);
        const swinup_dispatch_desc b = frame_desc(kOdd, frame, f, SWINUP_FORMAT_RGBA8, reference);
        ASSERT_EQ(failing_->dispatch(a, uint64_t(f), &error), SWINUP_STATUS_OK) << error;
        ASSERT_EQ(clean_->dispatch(b, uint64_t(f), &error), SWINUP_STATUS_OK) << error;
        EXPECT_EQ(after_failure, reference) << what;
    }

    void TearDown() override {  // the backends go before the validation messages are read
        failing_.reset();
        clean_.reset();
        VulkanTest::TearDown();
    }

    std::unique_ptr<VulkanBackend> failing_, clean_;
};

// Two frames each: the first without history, the second with history, recurrent features and
// the other window-shift parity (lavapipe needs about a minute for an exact-mode frame).
TEST_F(VulkanBackendFrames, LiteExactMatchesCpu) {
    compare(kOdd, SWINUP_VARIANT_LITE, SWINUP_PRECISION_EXACT, SWINUP_FORMAT_RGBA16F, 2);
    compare(kSquare, SWINUP_VARIANT_LITE, SWINUP_PRECISION_EXACT, SWINUP_FORMAT_R10G10B10A2, 2);
}
TEST_F(VulkanBackendFrames, FullExactMatchesCpu) {
    compare(kOdd, SWINUP_VARIANT_FULL, SWINUP_PRECISION_EXACT, SWINUP_FORMAT_RGBA16F, 2);
}
TEST_F(VulkanBackendFrames, LiteFastWithinBound) {
    compare(kSquare, SWINUP_VARIANT_LITE, SWINUP_PRECISION_FAST, SWINUP_FORMAT_RGBA16F, 2);
    compare(kOdd, SWINUP_VARIANT_LITE, SWINUP_PRECISION_FAST, SWINUP_FORMAT_RGBA8, 2);
}
TEST_F(VulkanBackendFrames, FullFastWithinBound) {
    compare(kOdd, SWINUP_VARIANT_FULL, SWINUP_PRECISION_FAST, SWINUP_FORMAT_R10G10B10A2, 2);
}

// A device lost at submission: a status and a message naming it, the caller's output untouched,
// and the history as it was (the next frame equals that of a backend that never failed).
TEST_F(VulkanBackendFrames, DeviceLostLeavesOutputAndHistoryUntouched) {
    ASSERT_NO_FATAL_FAILURE(make_failing_and_clean());
    VulkanBackend& failing = *failing_;
    VulkanBackend& clean = *clean_;
    std::string error;
    clean.set_stage_timing(true);  // the timestamps (swinup bench) must not change a frame
    std::vector<uint8_t> out;
    const SyntheticFrame f0(kOdd, 0), f1(kOdd, 1);
    swinup_dispatch_desc d0 = frame_desc(kOdd, f0, 0, SWINUP_FORMAT_RGBA8, out);
    ASSERT_EQ(failing.dispatch(d0, 0, &error), SWINUP_STATUS_OK) << error;
    ASSERT_EQ(clean.dispatch(d0, 0, &error), SWINUP_STATUS_OK) << error;

    std::vector<uint8_t> lost_out;
    swinup_dispatch_desc d1 = frame_desc(kOdd, f1, 1, SWINUP_FORMAT_RGBA8, lost_out);
    const int slot_before = failing.current_slot();
    failing.inject_submit_failure(VK_ERROR_DEVICE_LOST);
    error.clear();
    EXPECT_EQ(failing.dispatch(d1, 1, &error), SWINUP_STATUS_DEVICE_ERROR);
    EXPECT_NE(error.find("VK_ERROR_DEVICE_LOST"), std::string::npos) << error;
    EXPECT_NE(error.find("temporal state is unchanged"), std::string::npos) << error;
    EXPECT_EQ(failing.current_slot(), slot_before);
    EXPECT_TRUE(std::all_of(lost_out.begin(), lost_out.end(), [](uint8_t b) { return b == 0xcd; }))
        << "a failed frame wrote into the caller's output";

    expect_next_frame_unchanged(f1, 1, "the failed frame changed the temporal state");
    // The frame's stages and, inside the network, one per layer ("network: enc1", ...).
    size_t frame_stages = 0, layer_stages = 0;
    for (const auto& [stage, ms] : clean.last_stage_times()) {
        (stage.rfind("network: ", 0) == 0 ? layer_stages : frame_stages) += 1;
    }
    EXPECT_EQ(frame_stages, 5u) << "upload, pre-network, network, output, readback";
    EXPECT_GT(layer_stages, 10u) << "every layer of the network timed";
}

// A failed first frame: its layout transitions (the output and input images' first use) never
// ran, so the next frame must record them again (the fixture fails on the validation layer's
// image-layout error otherwise) and equal a first frame of a backend that never failed.
TEST_F(VulkanBackendFrames, AFailedFirstFrameLeavesTheImagesForTheNextFrameToPrepare) {
    ASSERT_NO_FATAL_FAILURE(make_failing_and_clean());
    const SyntheticFrame f0(kOdd, 0);
    std::vector<uint8_t> lost_out;
    const swinup_dispatch_desc lost = frame_desc(kOdd, f0, 0, SWINUP_FORMAT_RGBA8, lost_out);
    failing_->inject_submit_failure(VK_ERROR_DEVICE_LOST);
    std::string error;
    EXPECT_EQ(failing_->dispatch(lost, 0, &error), SWINUP_STATUS_DEVICE_ERROR);
    expect_next_frame_unchanged(f0, 0, "the failed first frame changed what the next one computes");
}

// The C API on the Vulkan backend reads the masks (tests/vulkan/test_vulkan_masks.cpp holds their
// frames to the CPU's) and counts the input statistics; weights whose mask_embed bias is not zero
// (which would add that bias even without masks) are refused at creation.
TEST_F(VulkanBackendFrames, MasksAreReadAndCountedThroughTheCApi) {
    swinup_context_desc desc = context_for(kOdd, SWINUP_VARIANT_LITE, SWINUP_PRECISION_FAST, SWINUP_FORMAT_RGBA16F);
    desc.backend = SWINUP_BACKEND_VULKAN;
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const SyntheticFrame frame(kOdd, 0);
    std::vector<uint8_t> out;
    swinup_dispatch_desc d = frame_desc(kOdd, frame, 0, SWINUP_FORMAT_RGBA16F, out);
    const std::vector<float> mask(size_t(d.render_width) * d.render_height, 0.5f);
    d.transparency_mask = input_resource(mask.data(), SWINUP_FORMAT_R32F, d.render_width, d.render_height);
    std::vector<float> reactive(mask.size(), 0.25f);
    reactive[3] = NAN;
    d.reactive_mask = input_resource(reactive.data(), SWINUP_FORMAT_R32F, d.render_width, d.render_height);
    EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    d.transparency_mask = swinup_resource{};
    d.reactive_mask = swinup_resource{};
    EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    swinup_input_statistics stats{};
    stats.struct_size = SWINUP_INPUT_STATISTICS_SIZE_V1;
    ASSERT_EQ(swinup_context_get_input_statistics(ctx, &stats), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    EXPECT_EQ(stats.frames, 2u);
    EXPECT_EQ(stats.reactive_nonfinite, 1u);
    EXPECT_EQ(stats.transparency_nonfinite, 0u);
    EXPECT_EQ(stats.color_nonfinite, 0u);  // SyntheticFrame's NaN is in frame 1 only
    EXPECT_EQ(stats.reactive_out_of_range + stats.transparency_out_of_range, 0u);
    swinup_context_destroy(ctx);

    std::string error;
    Weights biased = *weights_load_embedded(Variant::lite, &error);
    ASSERT_TRUE(biased.config.masks);
    float bias = 0.125f;
    std::memcpy(biased.tensors.at("mask_embed.bias").bytes.data(), &bias, sizeof bias);
    const std::vector<uint8_t> image = weights_serialize(biased);
    desc.weights_source = SWINUP_WEIGHTS_MEMORY;
    desc.weights_data = image.data();
    desc.weights_size = image.size();
    EXPECT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_UNSUPPORTED);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("mask_embed layer with a non-zero bias"), std::string::npos)
        << swinup_last_error(nullptr);
    swinup_memory_requirements req{};
    req.struct_size = sizeof req;
    EXPECT_EQ(swinup_query_memory(&desc, &req), SWINUP_STATUS_UNSUPPORTED);  // as creation answers
    desc.backend = SWINUP_BACKEND_CPU;  // the CPU backend adds the bias
    ASSERT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    swinup_context_destroy(ctx);
}

// The C API: SWINUP_BACKEND_VULKAN makes a Vulkan context (its own device), reports it, runs a
// frame; host-only memory is required.
TEST_F(VulkanBackendFrames, CApiCreatesAVulkanContext) {
    swinup_context_desc desc = context_for(kOdd, SWINUP_VARIANT_LITE, SWINUP_PRECISION_FAST, SWINUP_FORMAT_RGBA16F);
    desc.backend = SWINUP_BACKEND_VULKAN;
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    swinup_context_info info;
    ASSERT_EQ(swinup_context_get_info(ctx, &info), SWINUP_STATUS_OK);
    EXPECT_EQ(info.backend, SWINUP_BACKEND_VULKAN);
    EXPECT_STRNE(info.device_name, "");
    std::printf("[ vulkan   ] C API context on: %s\n", info.device_name);
    const SyntheticFrame frame(kOdd, 0);
    std::vector<uint8_t> out;
    swinup_dispatch_desc d = frame_desc(kOdd, frame, 0, SWINUP_FORMAT_RGBA16F, out);
    EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    EXPECT_FALSE(std::all_of(out.begin(), out.end(), [](uint8_t v) { return v == 0xcd; }));
    d.color.memory = SWINUP_MEMORY_CUDA;
    EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_UNSUPPORTED);
    EXPECT_NE(std::string(swinup_last_error(ctx)).find("not read by the Vulkan backend"), std::string::npos)
        << swinup_last_error(ctx);
    swinup_context_destroy(ctx);
}

// The memory query answers SWINUP_BACKEND_VULKAN with what the created context then reports: every
// vkAllocateMemory of swinup's runtime on the context's device, counted as it allocates. The
// host-pointer path's input images come at the first dispatch that uses them (one per input and
// format), so the figure grows by exactly their size then and by nothing at a second frame.
TEST_F(VulkanBackendFrames, MemoryQueryMatchesTheCreatedContext) {
    swinup_context_desc desc = context_for(kOdd, SWINUP_VARIANT_LITE, SWINUP_PRECISION_FAST, SWINUP_FORMAT_RGBA16F);
    desc.backend = SWINUP_BACKEND_VULKAN;
    swinup_memory_requirements query;
    std::memset(&query, 0, sizeof query);
    query.struct_size = sizeof query;
    ASSERT_EQ(swinup_query_memory(&desc, &query), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    EXPECT_EQ(query.backend, SWINUP_BACKEND_VULKAN);
    // At least the temporal state (two RGBA16F history planes at the display size) and the
    // uploaded weights are device memory.
    const uint64_t history = 2ull * kOdd.dw * kOdd.dh * 8;
    EXPECT_GT(query.device_bytes, history);
    EXPECT_EQ(query.graph_device_bytes, 0u);

    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    swinup_memory_requirements held;
    std::memset(&held, 0, sizeof held);
    held.struct_size = sizeof held;
    ASSERT_EQ(swinup_context_get_memory(ctx, &held), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    EXPECT_EQ(held.backend, SWINUP_BACKEND_VULKAN);
    EXPECT_EQ(held.device_bytes, query.device_bytes) << "the query made the same backend";
    EXPECT_EQ(held.host_bytes, query.host_bytes);
    std::printf("[ vulkan   ] %dx%d -> %dx%d lite fast: device_bytes %llu\n", kOdd.rw, kOdd.rh,
                kOdd.dw, kOdd.dh, static_cast<unsigned long long>(held.device_bytes));

    const SyntheticFrame frame(kOdd, 0);
    std::vector<uint8_t> out;
    swinup_dispatch_desc d = frame_desc(kOdd, frame, 0, SWINUP_FORMAT_RGBA16F, out);
    ASSERT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    swinup_memory_requirements after;
    std::memset(&after, 0, sizeof after);
    after.struct_size = sizeof after;
    ASSERT_EQ(swinup_context_get_memory(ctx, &after), SWINUP_STATUS_OK);
    // The input images (colour, depth, motion at most at the render size, up to 16 bytes a texel).
    const uint64_t render = uint64_t{desc.max_render_width} * desc.max_render_height;
    EXPECT_GT(after.device_bytes, held.device_bytes);
    EXPECT_LE(after.device_bytes - held.device_bytes, render * (16 + 4 + 8) * 2) << "alignment aside";
    d = frame_desc(kOdd, frame, 1, SWINUP_FORMAT_RGBA16F, out);
    ASSERT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    swinup_memory_requirements second;
    std::memset(&second, 0, sizeof second);
    second.struct_size = sizeof second;
    ASSERT_EQ(swinup_context_get_memory(ctx, &second), SWINUP_STATUS_OK);
    EXPECT_EQ(second.device_bytes, after.device_bytes) << "a frame allocates nothing of its own";
    swinup_context_destroy(ctx);
}

// A Vulkan context has the log callback of every context: the creation message names the Vulkan
// backend, and a refused dispatch's message reaches the callback as an error.
TEST_F(VulkanBackendFrames, LogCallbackNamesTheVulkanBackend) {
    struct Heard {
        std::vector<std::pair<swinup_log_level, std::string>> messages;
    } heard;
    swinup_context_desc desc = context_for(kOdd, SWINUP_VARIANT_LITE, SWINUP_PRECISION_FAST, SWINUP_FORMAT_RGBA16F);
    desc.backend = SWINUP_BACKEND_VULKAN;
    desc.log_callback = [](swinup_log_level level, const char* message, void* user) {
        static_cast<Heard*>(user)->messages.emplace_back(level, message);
    };
    desc.log_user_data = &heard;
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_EQ(heard.messages.size(), 1u);
    EXPECT_EQ(heard.messages[0].first, SWINUP_LOG_INFO);
    EXPECT_EQ(heard.messages[0].second.rfind("swinup_context_create: Vulkan backend on ", 0), 0u)
        << heard.messages[0].second;
    const SyntheticFrame frame(kOdd, 0);
    std::vector<uint8_t> out;
    swinup_dispatch_desc d = frame_desc(kOdd, frame, 0, SWINUP_FORMAT_RGBA16F, out);
    d.color.memory = SWINUP_MEMORY_CUDA;
    EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_UNSUPPORTED);
    ASSERT_EQ(heard.messages.size(), 2u);
    EXPECT_EQ(heard.messages[1].first, SWINUP_LOG_ERROR);
    EXPECT_EQ(heard.messages[1].second, swinup_last_error(ctx));
    swinup_context_destroy(ctx);
}

}  // namespace
}  // namespace swinup::vulkan
