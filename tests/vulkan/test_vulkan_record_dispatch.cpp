// The Vulkan-facing API (include/swinup/swinup_vulkan.h) on a device the test makes as an
// application would (vulkan_test_device.h: validation layer on, every message fails the test):
// images the test creates and uploads a short sequence into; swinup's frame recorded into the
// test's command buffer between the test's own barriers; submitted by the test; the output read
// back. Its bytes must equal swinup_dispatch with host pointers on the Vulkan backend, and be within
// the exact-mode frame bound of the CPU backend. Refused frames (wrong format, missing usage,
// mismatched size, null view, wrong layout) must record nothing and leave the history as it was:
// the next good frame equals that of a context that never saw them.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "api/context_state.h"
#include "api/resource_desc.h"
#include "gpu_test_support.h"
#include "sliding_plane_frames.h"
#include "swinup/swinup.h"
#include "swinup/swinup_vulkan.h"
#include "vulkan/api/vulkan_api_backend.h"
#include "vulkan_test_device.h"

namespace swinup {
namespace {

using vulkan_test::TestDevice;
using vulkan_test::TestImage;

constexpr uint32_t kRenderW = 40, kRenderH = 24;   // not multiples of the window: padding is exercised
constexpr uint32_t kDisplayW = 80, kDisplayH = 48;  // s = 2
constexpr int kFrames = 3;  // history, recurrent state and both shift parities; lavapipe is slow

using test::decode_output_rgb;
using test::kExactFrameBound;
using test::output_pixel_bytes;

// The sliding plane (sliding_plane_frames.h) at this size.
struct SyntheticFrame : test::SlidingPlaneFrame {
    explicit SyntheticFrame(int f) : SlidingPlaneFrame(int(kRenderW), int(kRenderH), f) {}
};

swinup_context_desc context_desc(swinup_backend backend, swinup_format output) {
    swinup_context_desc d = test::sliding_plane_context_desc(kRenderW, kRenderH, kDisplayW, kDisplayH, output);
    d.backend = backend;
    d.num_threads = 2;
    return d;
}

void set_scalars(swinup_dispatch_desc* d, int f) {
    d->render_width = kRenderW;
    d->render_height = kRenderH;
    swinup_get_jitter(uint32_t(f), swinup_get_jitter_phase_count(2.0f), &d->jitter_x, &d->jitter_y);
}

// Frame f through swinup_dispatch on host pointers; returns the output bytes.
std::vector<uint8_t> host_frame(swinup_context* ctx, int f, swinup_format format) {
    const SyntheticFrame frame(f);
    std::vector<uint8_t> out(size_t(kDisplayW) * kDisplayH * output_pixel_bytes(format), 0xcd);
    swinup_dispatch_desc d = frame.dispatch_desc(out.data(), format, kDisplayW, kDisplayH);
    set_scalars(&d, f);
    EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    return out;
}

// The application's images of one frame.
struct AppImages {
    TestImage color, depth, motion, output;
    AppImages(TestDevice& dev, swinup_format format, VkFormat depth_format = VK_FORMAT_R32_SFLOAT) {
        color = dev.make_image(VK_FORMAT_R32G32B32A32_SFLOAT, kRenderW, kRenderH, VK_IMAGE_USAGE_SAMPLED_BIT, 16);
        depth = dev.make_image(depth_format, kRenderW, kRenderH, VK_IMAGE_USAGE_SAMPLED_BIT, 4);
        motion = dev.make_image(VK_FORMAT_R32G32_SFLOAT, kRenderW, kRenderH, VK_IMAGE_USAGE_SAMPLED_BIT, 8);
        output = dev.make_image(vulkan_app::vk_output_format(format), kDisplayW, kDisplayH, VK_IMAGE_USAGE_STORAGE_BIT,
                                uint32_t(output_pixel_bytes(format)));
    }

    // Uploads frame f and poisons the output (every byte must be written).
    void upload(TestDevice& dev, int f) {
        const SyntheticFrame frame(f);
        dev.upload(color, frame.color.data(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        dev.upload(depth, frame.depth.data(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        dev.upload(motion, frame.mv.data(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        dev.fill(output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
    }

    swinup_vulkan_dispatch_desc describe(int f) const {
        swinup_vulkan_dispatch_desc d;
        swinup_vulkan_dispatch_desc_init(&d);
        set_scalars(&d.frame, f);
        d.color = color.described(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        d.depth = depth.described(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        d.motion_vectors = motion.described(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        d.output = output.described(VK_IMAGE_LAYOUT_GENERAL);
        return d;
    }
};

// Records frame f with desc into the test's own command buffer, between the barriers an engine
// records (the inputs were made visible by the upload), submits, and reads the output back.
std::vector<uint8_t> recorded_frame(TestDevice& dev, swinup_context* ctx, AppImages& images,
                                    const swinup_vulkan_dispatch_desc& desc) {
    VkCommandBuffer cmd = dev.begin();
    // Before: the output's earlier use (here the poison upload) finished, image in GENERAL.
    TestDevice::barrier(cmd, images.output, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    EXPECT_EQ(swinup_vulkan_record_dispatch(ctx, cmd, &desc), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    dev.submit_and_wait(cmd);  // read() records the after-barrier: compute write -> transfer read
    return dev.read(images.output, VK_IMAGE_LAYOUT_GENERAL);
}

struct Context {
    swinup_context* ctx = nullptr;
    ~Context() { swinup_context_destroy(ctx); }
};

// A Vulkan-backend context (context_desc) on the test's device.
swinup_status create_on(const TestDevice& dev, swinup_format format, Context* ctx) {
    const swinup_vulkan_device_desc device = dev.description();
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_VULKAN, format);
    return swinup_vulkan_context_create(&desc, &device, &ctx->ctx);
}

void expect_no_validation_messages(const TestDevice& dev) {
    EXPECT_TRUE(dev.messages.empty()) << dev.messages.size() << " validation messages; first: " << dev.messages[0];
}

#define SKIP_WITHOUT_DEVICE(dev) \
    if (!(dev).skip_reason.empty()) GTEST_SKIP() << (dev).skip_reason

class RecordDispatch : public ::testing::TestWithParam<swinup_format> {};

TEST_P(RecordDispatch, EqualsHostPointerDispatchAndStaysWithinTheCpuBound) {
    const swinup_format format = GetParam();
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    const swinup_vulkan_device_desc device = dev.description();
    Context recorded, host, cpu;
    const swinup_context_desc vk_desc = context_desc(SWINUP_BACKEND_VULKAN, format);
    ASSERT_EQ(swinup_vulkan_context_create(&vk_desc, &device, &recorded.ctx), SWINUP_STATUS_OK)
        << swinup_last_error(nullptr);
    ASSERT_EQ(swinup_context_create(&vk_desc, &host.ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const swinup_context_desc cpu_desc = context_desc(SWINUP_BACKEND_CPU, format);
    ASSERT_EQ(swinup_context_create(&cpu_desc, &cpu.ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);

    AppImages images(dev, format);
    // The packed formats differ only in the output pass's encoding: two frames (history in use) do.
    const int frames = format == SWINUP_FORMAT_RGBA16F ? kFrames : 2;
    for (int f = 0; f < frames; ++f) {
        images.upload(dev, f);
        const std::vector<uint8_t> mine = recorded_frame(dev, recorded.ctx, images, images.describe(f));
        const std::vector<uint8_t> theirs = host_frame(host.ctx, f, format);
        const std::vector<uint8_t> reference = host_frame(cpu.ctx, f, format);
        EXPECT_TRUE(mine == theirs) << "frame " << f << ": recorded output differs from swinup_dispatch's";
        EXPECT_LE(gpu_test::relative_rms(decode_output_rgb(mine, format), decode_output_rgb(reference, format)),
                  kExactFrameBound)
            << "frame " << f;
    }
    expect_no_validation_messages(dev);
}

INSTANTIATE_TEST_SUITE_P(OutputFormats, RecordDispatch,
                         ::testing::Values(SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_RGBA8));

TEST(RecordDispatchInput, ADepthBufferIsReadThroughItsDepthAspect) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    Context with_depth_buffer, with_r32;
    ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &with_depth_buffer), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &with_r32), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    AppImages d32(dev, SWINUP_FORMAT_RGBA16F, VK_FORMAT_D32_SFLOAT);
    AppImages r32(dev, SWINUP_FORMAT_RGBA16F);
    for (int f = 0; f < 2; ++f) {
        d32.upload(dev, f);
        r32.upload(dev, f);
        EXPECT_TRUE(recorded_frame(dev, with_depth_buffer.ctx, d32, d32.describe(f)) ==
                    recorded_frame(dev, with_r32.ctx, r32, r32.describe(f)))
            << "frame " << f;
    }
    expect_no_validation_messages(dev);
}

// A bad frame: what is changed and the start of the message it must get.
struct BadFrame {
    const char* what;
    void (*spoil)(swinup_vulkan_dispatch_desc*);
    const char* message;
};

TEST(RecordDispatchRefusal, RefusedFramesRecordNothingAndLeaveTheHistory) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    const swinup_format format = SWINUP_FORMAT_RGBA16F;
    Context tested, clean;
    ASSERT_EQ(create_on(dev, format, &tested), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_EQ(create_on(dev, format, &clean), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    AppImages images(dev, format);

    images.upload(dev, 0);
    const std::vector<uint8_t> first = recorded_frame(dev, tested.ctx, images, images.describe(0));
    dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
    EXPECT_TRUE(first == recorded_frame(dev, clean.ctx, images, images.describe(0)));
    dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);

    const BadFrame bad[] = {
        {"wrong format", [](swinup_vulkan_dispatch_desc* d) { d->depth.format = VK_FORMAT_R16G16_SFLOAT; },
         "vulkan_dispatch.depth.format: expected VK_FORMAT_R32_SFLOAT, VK_FORMAT_D32_SFLOAT, "
         "VK_FORMAT_D24_UNORM_S8_UINT or VK_FORMAT_D32_SFLOAT_S8_UINT"},
        {"missing usage", [](swinup_vulkan_dispatch_desc* d) { d->output.usage &= ~VkImageUsageFlags(VK_IMAGE_USAGE_STORAGE_BIT); },
         "vulkan_dispatch.output.usage: lacks VK_IMAGE_USAGE_STORAGE_BIT"},
        {"mismatched size", [](swinup_vulkan_dispatch_desc* d) { d->frame.render_width = kRenderW + 1; d->color.width = kRenderW; },
         "vulkan_dispatch.frame.render_width: must be 1..max_render_width (40), got 41"},
        {"image smaller than the render size", [](swinup_vulkan_dispatch_desc* d) { d->motion_vectors.height = kRenderH - 1; },
         "vulkan_dispatch.motion_vectors.height: the image is 40x23, smaller than the 40x24 texels swinup reads"},
        {"null view", [](swinup_vulkan_dispatch_desc* d) { d->color.view = VK_NULL_HANDLE; },
         "vulkan_dispatch.color.view: is VK_NULL_HANDLE"},
        {"null image", [](swinup_vulkan_dispatch_desc* d) { d->output.image = VK_NULL_HANDLE; },
         "vulkan_dispatch.output.image: is VK_NULL_HANDLE"},
        {"wrong layout", [](swinup_vulkan_dispatch_desc* d) { d->output.layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL; },
         "vulkan_dispatch.output.layout: expected VK_IMAGE_LAYOUT_GENERAL, got VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL"},
        {"NaN jitter", [](swinup_vulkan_dispatch_desc* d) { d->frame.jitter_x = std::nanf(""); },
         "vulkan_dispatch.frame.jitter_x: must be a finite number in [-0.5, 0.5]"},
    };
    images.upload(dev, 1);
    for (const BadFrame& b : bad) {
        swinup_vulkan_dispatch_desc d = images.describe(1);
        b.spoil(&d);
        VkCommandBuffer cmd = dev.begin();
        EXPECT_EQ(swinup_vulkan_record_dispatch(tested.ctx, cmd, &d), SWINUP_STATUS_INVALID_ARGUMENT) << b.what;
        EXPECT_EQ(std::string(swinup_last_error(tested.ctx)).rfind(b.message, 0), 0u)
            << b.what << ": " << swinup_last_error(tested.ctx);
        dev.submit_and_wait(cmd);  // whatever was recorded runs: nothing may touch the output
        const std::vector<uint8_t> untouched = dev.read(images.output, VK_IMAGE_LAYOUT_GENERAL);
        EXPECT_TRUE(untouched == std::vector<uint8_t>(untouched.size(), 0xcd)) << b.what << ": the output was written";
    }
    // The next good frame: as if the refused ones never happened.
    const std::vector<uint8_t> after = recorded_frame(dev, tested.ctx, images, images.describe(1));
    dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
    EXPECT_TRUE(after == recorded_frame(dev, clean.ctx, images, images.describe(1)));
    expect_no_validation_messages(dev);
}

TEST(RecordDispatchContext, SwinupsOwnDeviceServesRecordingAndHostPointers) {
    const swinup_format format = SWINUP_FORMAT_R10G10B10A2;
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_VULKAN, format);
    Context own, host;
    const swinup_status s = swinup_vulkan_context_create(&desc, nullptr, &own.ctx);
    if (s == SWINUP_STATUS_UNSUPPORTED) GTEST_SKIP() << swinup_last_error(nullptr);
    ASSERT_EQ(s, SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_EQ(swinup_context_create(&desc, &host.ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    swinup_vulkan_device_desc handles;
    swinup_vulkan_device_desc_init(&handles);
    ASSERT_EQ(swinup_vulkan_context_get_device(own.ctx, &handles), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_NE(handles.device, VK_NULL_HANDLE);
    ASSERT_NE(handles.get_instance_proc_addr, nullptr);
    TestDevice dev(handles);
    AppImages images(dev, format);
    // Frame 0 recorded, frame 1 through host pointers, frame 2 recorded: one temporal state.
    images.upload(dev, 0);
    EXPECT_TRUE(recorded_frame(dev, own.ctx, images, images.describe(0)) == host_frame(host.ctx, 0, format));
    EXPECT_TRUE(host_frame(own.ctx, 1, format) == host_frame(host.ctx, 1, format));
    images.upload(dev, 2);
    EXPECT_TRUE(recorded_frame(dev, own.ctx, images, images.describe(2)) == host_frame(host.ctx, 2, format));
}

// Mask images on the application's device: the frames equal swinup_dispatch's on the Vulkan
// backend with the same masks in host memory (there clamped to [0, 1] by the test, as staging
// clamps device values); the device values outside [0, 1] and the NaN are counted once each frame
// is seen completed, and the context warns once, naming the mask.
TEST(RecordDispatchMasks, MaskImagesAreReadClampedCountedAndWarnedAbout) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    const swinup_format format = SWINUP_FORMAT_RGBA16F;
    swinup_context_desc desc = context_desc(SWINUP_BACKEND_VULKAN, format);
    desc.precision = SWINUP_PRECISION_FAST;  // both sides alike; lavapipe is slow
    std::vector<std::string> warnings;
    desc.log_callback = [](swinup_log_level level, const char* message, void* user) {
        if (level == SWINUP_LOG_WARNING) static_cast<std::vector<std::string>*>(user)->push_back(message);
    };
    desc.log_user_data = &warnings;
    Context recorded, host;
    const swinup_vulkan_device_desc handles = dev.description();
    ASSERT_EQ(swinup_vulkan_context_create(&desc, &handles, &recorded.ctx), SWINUP_STATUS_OK)
        << swinup_last_error(nullptr);
    swinup_context_desc host_desc = desc;
    host_desc.log_callback = nullptr;
    host_desc.log_user_data = nullptr;
    ASSERT_EQ(swinup_context_create(&host_desc, &host.ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);

    // Reactive: R8_UNORM codes; transparency: R16_SFLOAT with values outside [0, 1] and a NaN.
    const size_t n = size_t(kRenderW) * kRenderH;
    std::vector<uint8_t> reactive(n);
    std::vector<uint16_t> transparency(n);
    std::vector<float> transparency_clamped(n);
    for (size_t i = 0; i < n; ++i) {
        reactive[i] = uint8_t((i * 37) % 256);
        transparency[i] = f32_to_f16_bits(float(i % 23) / 11.0f - 0.5f);  // -0.5 .. 1.5
    }
    transparency[5] = 0x7e00;  // NaN: read as 0
    uint64_t out_of_range = 0;
    for (size_t i = 0; i < n; ++i) {
        const float v = f16_bits_to_f32(transparency[i]);
        const bool nan = std::isnan(v);
        out_of_range += !nan && (v < 0.0f || v > 1.0f) ? 1 : 0;
        transparency_clamped[i] = nan ? 0.0f : std::min(1.0f, std::max(0.0f, v));
    }
    TestImage reactive_image = dev.make_image(VK_FORMAT_R8_UNORM, kRenderW, kRenderH, VK_IMAGE_USAGE_SAMPLED_BIT, 1);
    TestImage transparency_image =
        dev.make_image(VK_FORMAT_R16_SFLOAT, kRenderW, kRenderH, VK_IMAGE_USAGE_SAMPLED_BIT, 2);
    dev.upload(reactive_image, reactive.data(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    dev.upload(transparency_image, transparency.data(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);

    AppImages images(dev, format);
    constexpr int kMaskFrames = 2;
    for (int f = 0; f < kMaskFrames; ++f) {
        images.upload(dev, f);
        swinup_vulkan_dispatch_desc d = images.describe(f);
        d.reactive_mask = reactive_image.described(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        d.transparency_mask = transparency_image.described(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        const std::vector<uint8_t> got = recorded_frame(dev, recorded.ctx, images, d);

        const SyntheticFrame frame(f);
        std::vector<uint8_t> want(size_t(kDisplayW) * kDisplayH * output_pixel_bytes(format), 0xcd);
        swinup_dispatch_desc h = frame.dispatch_desc(want.data(), format, kDisplayW, kDisplayH);
        set_scalars(&h, f);
        h.reactive_mask = input_resource(reactive.data(), SWINUP_FORMAT_R8_UNORM, kRenderW, kRenderH);
        h.transparency_mask = input_resource(transparency_clamped.data(), SWINUP_FORMAT_R32F, kRenderW, kRenderH);
        ASSERT_EQ(swinup_dispatch(host.ctx, &h), SWINUP_STATUS_OK) << swinup_last_error(host.ctx);
        EXPECT_TRUE(got == want) << "frame " << f << ": the recorded frame differs from swinup_dispatch's";
    }
    // Both frames ran (submit_and_wait): the call sees their events and reads their counts.
    swinup_input_statistics stats{};
    stats.struct_size = SWINUP_INPUT_STATISTICS_SIZE_V1;
    ASSERT_EQ(swinup_context_get_input_statistics(recorded.ctx, &stats), SWINUP_STATUS_OK)
        << swinup_last_error(nullptr);
    EXPECT_EQ(stats.frames, uint64_t(kMaskFrames));
    EXPECT_EQ(stats.transparency_nonfinite, uint64_t(kMaskFrames));
    EXPECT_EQ(stats.transparency_out_of_range, out_of_range * kMaskFrames);
    EXPECT_GT(out_of_range, 0u);
    EXPECT_EQ(stats.reactive_nonfinite + stats.reactive_out_of_range, 0u);
    // The warning came with the second frame (the first frame's counts were read as it was
    // recorded), once.
    size_t named = 0;
    for (const std::string& w : warnings) named += w.find("dispatch.transparency_mask:") == 0 ? 1 : 0;
    EXPECT_EQ(named, 1u);
}

TEST(RecordDispatchContext, AtMostEightRecordedFramesArePendingAndARunFrameFreesItsSlot) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    std::vector<VkCommandBuffer> recorded;
    {
        Context ctx;
        ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
        AppImages images(dev, SWINUP_FORMAT_RGBA16F);
        images.upload(dev, 0);
        const swinup_vulkan_dispatch_desc frame = images.describe(0);
        for (int f = 0; f < 8; ++f) {  // recorded, none submitted
            recorded.push_back(dev.begin());
            ASSERT_EQ(swinup_vulkan_record_dispatch(ctx.ctx, recorded.back(), &frame), SWINUP_STATUS_OK)
                << swinup_last_error(ctx.ctx);
        }
        VkCommandBuffer ninth = dev.begin();
        EXPECT_EQ(swinup_vulkan_record_dispatch(ctx.ctx, ninth, &frame), SWINUP_STATUS_UNSUPPORTED);
        EXPECT_EQ(std::string(swinup_last_error(ctx.ctx)).rfind("swinup_vulkan_record_dispatch: 8 frames recorded earlier "
                                                                "have not completed on the GPU", 0), 0u)
            << swinup_last_error(ctx.ctx);
        dev.submit_and_wait(recorded.front());  // the first frame runs: its slot is free again
        recorded.erase(recorded.begin());
        EXPECT_EQ(swinup_vulkan_record_dispatch(ctx.ctx, ninth, &frame), SWINUP_STATUS_OK)
            << swinup_last_error(ctx.ctx);
        recorded.push_back(ninth);
        for (VkCommandBuffer cmd : recorded) dev.discard(cmd);  // never submitted
    }
    expect_no_validation_messages(dev);
}

// The first frame recorded on a context prepares swinup's internal images (the 1x1 exposure image
// bound when the frame has no exposure texture); a first frame that is never submitted must not
// leave a later frame using them in a layout they never reached.
TEST(RecordDispatchContext, AFirstFrameNeverSubmittedLeavesTheNextFrameValid) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    Context ctx;
    ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    AppImages images(dev, SWINUP_FORMAT_RGBA16F);
    images.upload(dev, 0);
    const swinup_vulkan_dispatch_desc first = images.describe(0);
    VkCommandBuffer discarded = dev.begin();
    ASSERT_EQ(swinup_vulkan_record_dispatch(ctx.ctx, discarded, &first), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
    dev.discard(discarded);  // never submitted: its slot stays taken (1 of 8)
    images.upload(dev, 1);
    swinup_vulkan_dispatch_desc second = images.describe(1);
    second.frame.reset = 1;  // the history is one frame ahead of what ran
    const std::vector<uint8_t> out = recorded_frame(dev, ctx.ctx, images, second);
    // A reset frame is a fresh context's first frame: the weights, whose copy into device memory
    // the discarded frame carried, are copied again by this one.
    Context fresh;
    ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &fresh), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
    EXPECT_TRUE(out == recorded_frame(dev, fresh.ctx, images, second));
    expect_no_validation_messages(dev);
}

// Creation on the application's device touches none of its queues (the weights' copy is recorded
// into the frames): a render thread submitting to queue 0 of the family, without any lock, while
// contexts are created on another thread, draws no threading error from the validation layer
// (whose thread-safety checks report two threads in vkQueueSubmit on one queue at once).
TEST(RecordDispatchContext, CreationOnTheApplicationsDeviceSubmitsToNoQueue) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    if (!dev.validation) GTEST_SKIP() << "needs the validation layer's thread-safety checks";
    std::atomic<bool> done{false};
    std::atomic<uint64_t> submits{0};
    std::thread render([&] {
        while (!done.load()) {
            EXPECT_EQ(vkQueueSubmit(dev.queue, 0, nullptr, VK_NULL_HANDLE), VK_SUCCESS);
            submits.fetch_add(1);
        }
    });
    for (int i = 0; i < 3; ++i) {
        Context ctx;
        EXPECT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    }
    done.store(true);
    render.join();
    EXPECT_GT(submits.load(), 0u);
    expect_no_validation_messages(dev);
}

// Frames recorded and then abandoned (never submitted) leave nothing behind: after 20 of them (more
// than the 8 recording slots, some command buffers holding two frames) the next frames succeed and
// give the bytes of a context that never saw them, the window-shift parity included (two frames
// after the abandoned ones are compared).
TEST(RecordDispatchAbandon, AbandonedFramesFreeTheirSlotsAndLeaveTheHistoryAsItWas) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    const swinup_format format = SWINUP_FORMAT_RGBA16F;
    Context tested, clean;
    ASSERT_EQ(create_on(dev, format, &tested), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_EQ(create_on(dev, format, &clean), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    AppImages images(dev, format);

    images.upload(dev, 0);
    const std::vector<uint8_t> first = recorded_frame(dev, tested.ctx, images, images.describe(0));
    dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
    ASSERT_TRUE(first == recorded_frame(dev, clean.ctx, images, images.describe(0)));

    images.upload(dev, 1);
    int abandoned = 0;
    for (int i = 0; abandoned < 20; ++i) {
        VkCommandBuffer cmd = dev.begin();
        const int frames = i % 3 == 2 ? 2 : 1;  // a command buffer may hold several frames
        for (int f = 0; f < frames; ++f) {
            const swinup_vulkan_dispatch_desc d = images.describe(1 + f);
            ASSERT_EQ(swinup_vulkan_record_dispatch(tested.ctx, cmd, &d), SWINUP_STATUS_OK)
                << "abandoned so far " << abandoned << ": " << swinup_last_error(tested.ctx);
        }
        ASSERT_EQ(swinup_vulkan_abandon_frame(tested.ctx, cmd), SWINUP_STATUS_OK) << swinup_last_error(tested.ctx);
        EXPECT_STREQ(swinup_last_error(tested.ctx), "");
        dev.discard(cmd);  // never submitted
        abandoned += frames;
    }

    for (int f = 1; f <= 2; ++f) {
        images.upload(dev, f);
        const std::vector<uint8_t> after = recorded_frame(dev, tested.ctx, images, images.describe(f));
        dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
        EXPECT_TRUE(after == recorded_frame(dev, clean.ctx, images, images.describe(f)))
            << "frame " << f << " after 20 abandoned frames differs from a context that never saw them";
        dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
    }
    expect_no_validation_messages(dev);
}

// The first frame of a context, abandoned: the state zeroing it carried is recorded again with the
// next frame, which equals a fresh context's first frame.
TEST(RecordDispatchAbandon, AnAbandonedFirstFrameLeavesAFreshContext) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    const swinup_format format = SWINUP_FORMAT_RGBA16F;
    Context tested, clean;
    ASSERT_EQ(create_on(dev, format, &tested), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_EQ(create_on(dev, format, &clean), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    AppImages images(dev, format);
    images.upload(dev, 0);
    VkCommandBuffer cmd = dev.begin();
    const swinup_vulkan_dispatch_desc first = images.describe(0);
    ASSERT_EQ(swinup_vulkan_record_dispatch(tested.ctx, cmd, &first), SWINUP_STATUS_OK);
    dev.discard(cmd);  // freed first, abandoned after: either order is allowed
    ASSERT_EQ(swinup_vulkan_abandon_frame(tested.ctx, cmd), SWINUP_STATUS_OK) << swinup_last_error(tested.ctx);
    const std::vector<uint8_t> mine = recorded_frame(dev, tested.ctx, images, images.describe(0));
    dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
    EXPECT_TRUE(mine == recorded_frame(dev, clean.ctx, images, images.describe(0)));
    expect_no_validation_messages(dev);
}

// What cannot be abandoned is refused naming why, and changes nothing: a command buffer with
// nothing pending (never recorded into, or run), an older command buffer whose frames a later one
// builds on (abandoned newest first, both then go), a null handle.
TEST(RecordDispatchAbandon, WhatCannotBeAbandonedIsRefusedAndChangesNothing) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    Context ctx;
    ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    AppImages images(dev, SWINUP_FORMAT_RGBA16F);
    images.upload(dev, 0);
    const swinup_vulkan_dispatch_desc frame = images.describe(0);

    EXPECT_EQ(swinup_vulkan_abandon_frame(nullptr, VK_NULL_HANDLE), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(swinup_last_error(nullptr), "swinup_vulkan_abandon_frame: ctx is NULL");
    EXPECT_EQ(swinup_vulkan_abandon_frame(ctx.ctx, VK_NULL_HANDLE), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(swinup_last_error(ctx.ctx), "swinup_vulkan_abandon_frame: cmd is VK_NULL_HANDLE");

    const std::string kNothing = "swinup_vulkan_abandon_frame: cmd: nothing recorded into this command buffer";
    VkCommandBuffer empty = dev.begin();
    EXPECT_EQ(swinup_vulkan_abandon_frame(ctx.ctx, empty), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(swinup_last_error(ctx.ctx)).rfind(kNothing, 0), 0u) << swinup_last_error(ctx.ctx);
    dev.discard(empty);

    // A frame that ran is not pending any more.
    VkCommandBuffer ran = dev.begin();
    ASSERT_EQ(swinup_vulkan_record_dispatch(ctx.ctx, ran, &frame), SWINUP_STATUS_OK);
    dev.submit_and_wait(ran);
    EXPECT_EQ(swinup_vulkan_abandon_frame(ctx.ctx, ran), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(swinup_last_error(ctx.ctx)).rfind(kNothing, 0), 0u) << swinup_last_error(ctx.ctx);

    VkCommandBuffer older = dev.begin(), newer = dev.begin();
    ASSERT_EQ(swinup_vulkan_record_dispatch(ctx.ctx, older, &frame), SWINUP_STATUS_OK);
    ASSERT_EQ(swinup_vulkan_record_dispatch(ctx.ctx, newer, &frame), SWINUP_STATUS_OK);
    EXPECT_EQ(swinup_vulkan_abandon_frame(ctx.ctx, older), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(swinup_last_error(ctx.ctx))
                  .rfind("swinup_vulkan_abandon_frame: cmd: 1 frame(s) recorded later into another command buffer", 0),
              0u)
        << swinup_last_error(ctx.ctx);
    EXPECT_EQ(swinup_vulkan_abandon_frame(ctx.ctx, newer), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
    EXPECT_EQ(swinup_vulkan_abandon_frame(ctx.ctx, older), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
    dev.discard(older);
    dev.discard(newer);
    expect_no_validation_messages(dev);
}

// The frame's jitter_convention is read on this path too: FSR's / DLSS's jitter J with
// SWINUP_JITTER_FSR_DLSS records the bytes of swinup's convention given -J (over two frames, so the
// previous jitter's use is covered), and differs from J read in swinup's convention.
TEST(RecordDispatchInput, TheJitterConventionIsReadAsSwinupDispatchReadsIt) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    const swinup_format format = SWINUP_FORMAT_RGBA16F;
    Context fsr, native, misread;
    for (Context* c : {&fsr, &native, &misread}) {
        ASSERT_EQ(create_on(dev, format, c), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    }
    AppImages images(dev, format);
    std::vector<uint8_t> last[3];
    for (int f = 0; f < 2; ++f) {
        images.upload(dev, f);
        swinup_vulkan_dispatch_desc d = images.describe(f);
        d.frame.jitter_convention = SWINUP_JITTER_FSR_DLSS;
        last[0] = recorded_frame(dev, fsr.ctx, images, d);
        dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
        swinup_vulkan_dispatch_desc n = images.describe(f);
        n.frame.jitter_x = 0.0f - n.frame.jitter_x;
        n.frame.jitter_y = 0.0f - n.frame.jitter_y;
        last[1] = recorded_frame(dev, native.ctx, images, n);
        dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
        last[2] = recorded_frame(dev, misread.ctx, images, images.describe(f));
        dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
        EXPECT_TRUE(last[0] == last[1]) << "frame " << f;
    }
    EXPECT_FALSE(last[0] == last[2]);
    expect_no_validation_messages(dev);
}

// A failure past validation (a device error while recording): the status and a message that says
// the command buffer is invalid, the temporal state unchanged (the next frame gives the bytes of a
// context that never saw the failed one) and the recording slot given back.
TEST(RecordDispatchRefusal, AFailurePastValidationSaysTheCommandBufferIsInvalidAndChangesNothing) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    const swinup_format format = SWINUP_FORMAT_RGBA16F;
    Context tested, clean;
    ASSERT_EQ(create_on(dev, format, &tested), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_EQ(create_on(dev, format, &clean), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    auto* backend = dynamic_cast<vulkan_api::VulkanApiBackend*>(tested.ctx->backend.get());
    ASSERT_NE(backend, nullptr);
    AppImages images(dev, format);
    images.upload(dev, 0);
    const std::vector<uint8_t> first = recorded_frame(dev, tested.ctx, images, images.describe(0));
    dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
    ASSERT_TRUE(first == recorded_frame(dev, clean.ctx, images, images.describe(0)));
    dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);

    images.upload(dev, 1);
    const swinup_vulkan_dispatch_desc second = images.describe(1);
    for (int i = 0; i < 9; ++i) {  // more than the 8 slots: each failure gives its slot back
        backend->inject_record_failure(VK_ERROR_OUT_OF_DEVICE_MEMORY);
        VkCommandBuffer cmd = dev.begin();
        EXPECT_EQ(swinup_vulkan_record_dispatch(tested.ctx, cmd, &second), SWINUP_STATUS_OUT_OF_MEMORY);
        const std::string message = swinup_last_error(tested.ctx);
        EXPECT_EQ(message.rfind("swinup_vulkan_record_dispatch: ", 0), 0u) << message;
        EXPECT_NE(message.find("(the temporal state is unchanged; the command buffer holds part of the frame and is "
                               "invalid: record nothing more into it, do not end or submit it; reset or free it)"),
                  std::string::npos)
            << message;
        // As the header says: freed as it is, neither ended nor submitted (ending it is an error the
        // validation layer reports: it refers to descriptor sets swinup gave back).
        vkFreeCommandBuffers(dev.device, dev.pool, 1, &cmd);
    }
    const std::vector<uint8_t> after = recorded_frame(dev, tested.ctx, images, second);
    dev.fill(images.output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
    EXPECT_TRUE(after == recorded_frame(dev, clean.ctx, images, second));
    expect_no_validation_messages(dev);
}

// A context's warnings, collected through its log callback.
struct Warnings {
    std::vector<std::string> messages;
    void attach(swinup_context_desc* desc) {
        desc->log_callback = [](swinup_log_level level, const char* message, void* user) {
            if (level == SWINUP_LOG_WARNING) static_cast<Warnings*>(user)->messages.push_back(message);
        };
        desc->log_user_data = this;
    }
    size_t starting_with(const std::string& prefix) const {
        size_t n = 0;
        for (const std::string& m : messages) n += m.rfind(prefix, 0) == 0 ? 1 : 0;
        return n;
    }
};

// Destroying a context while a frame it recorded may still run frees what that frame uses: swinup
// cannot wait for the application's queue, but it says so when it never saw a recording complete.
// A context whose frames all ran (seen through their events) is destroyed silently.
TEST(RecordDispatchContext, DestroyingWithRecordingsNeverSeenCompletedWarns) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    const swinup_vulkan_device_desc device = dev.description();
    AppImages images(dev, SWINUP_FORMAT_RGBA16F);
    images.upload(dev, 0);
    const swinup_vulkan_dispatch_desc frame = images.describe(0);
    const std::string kWarning = "swinup_context_destroy: ";

    Warnings ran;
    {
        swinup_context_desc desc = context_desc(SWINUP_BACKEND_VULKAN, SWINUP_FORMAT_RGBA16F);
        ran.attach(&desc);
        Context ctx;
        ASSERT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx.ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
        recorded_frame(dev, ctx.ctx, images, frame);  // submitted and waited for
    }
    EXPECT_EQ(ran.starting_with(kWarning), 0u);

    Warnings unfinished;
    {
        std::vector<VkCommandBuffer> never_submitted;
        swinup_context_desc desc = context_desc(SWINUP_BACKEND_VULKAN, SWINUP_FORMAT_RGBA16F);
        unfinished.attach(&desc);
        Context ctx;
        ASSERT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx.ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
        recorded_frame(dev, ctx.ctx, images, frame);  // ran: not counted
        for (int f = 0; f < 2; ++f) {
            never_submitted.push_back(dev.begin());
            ASSERT_EQ(swinup_vulkan_record_dispatch(ctx.ctx, never_submitted.back(), &frame), SWINUP_STATUS_OK)
                << swinup_last_error(ctx.ctx);
        }
        EXPECT_EQ(unfinished.starting_with(kWarning), 0u);
        // Freed while the context still exists (ending them after the destroy would be invalid:
        // they refer to its pipelines); swinup still never saw them complete.
        for (VkCommandBuffer cmd : never_submitted) dev.discard(cmd);
    }
    ASSERT_EQ(unfinished.starting_with(kWarning), 1u);
    for (const std::string& m : unfinished.messages) {
        if (m.rfind(kWarning, 0) != 0) continue;
        EXPECT_EQ(m.rfind(kWarning + "2 recording(s) made with swinup_vulkan_record_dispatch", 0), 0u) << m;
        EXPECT_NE(m.find("destroy a context only after the frames it recorded have completed"), std::string::npos) << m;
    }
    expect_no_validation_messages(dev);
}

TEST(RecordDispatchContext, HostPointersOnTheApplicationsDeviceAreRefused) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    Context ctx;
    ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const SyntheticFrame frame(0);
    std::vector<uint8_t> out(size_t(kDisplayW) * kDisplayH * 8, 0xcd);
    swinup_dispatch_desc d = frame.dispatch_desc(out.data(), SWINUP_FORMAT_RGBA16F, kDisplayW, kDisplayH);
    EXPECT_EQ(swinup_dispatch(ctx.ctx, &d), SWINUP_STATUS_UNSUPPORTED);
    EXPECT_EQ(std::string(swinup_last_error(ctx.ctx)).rfind("swinup_dispatch: this context runs on the application's "
                                                            "VkDevice", 0), 0u)
        << swinup_last_error(ctx.ctx);
    EXPECT_TRUE(out == std::vector<uint8_t>(out.size(), 0xcd));
    swinup_context_info info;
    ASSERT_EQ(swinup_context_get_info(ctx.ctx, &info), SWINUP_STATUS_OK);
    EXPECT_EQ(info.backend, SWINUP_BACKEND_VULKAN);
    EXPECT_EQ(std::string(info.device_name), dev.name);
    swinup_vulkan_device_desc back;
    std::memset(&back, 0xab, sizeof back);  // a size this struct never had
    EXPECT_EQ(swinup_vulkan_context_get_device(ctx.ctx, &back), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("out->struct_size: swinup_vulkan_device_desc accepts"),
              std::string::npos)
        << swinup_last_error(nullptr);
    EXPECT_EQ(back.queue_family_index, 0xababababu);  // not written
    swinup_vulkan_device_desc_init(&back);
    ASSERT_EQ(swinup_vulkan_context_get_device(ctx.ctx, &back), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    EXPECT_EQ(back.device, dev.device);
    EXPECT_EQ(back.queue_family_index, dev.family);
    expect_no_validation_messages(dev);
}

// Roles as VkBuffers (swinup_vulkan_buffer) are the CUDA backend's: the Vulkan backend refuses them
// as unsupported, naming the field, and records nothing (the next frame equals a fresh context's).
TEST(RecordDispatchContext, BufferRolesAreRefusedByTheVulkanBackend) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    Context ctx, fresh;
    ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &fresh), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    AppImages images(dev, SWINUP_FORMAT_RGBA16F);
    images.upload(dev, 0);
    swinup_vulkan_dispatch_desc d = images.describe(0);
    d.motion_vectors = swinup_vulkan_image{};
    d.motion_vectors_buffer.buffer = reinterpret_cast<VkBuffer>(uintptr_t{0x700});
    VkCommandBuffer cmd = dev.begin();
    EXPECT_EQ(swinup_vulkan_record_dispatch(ctx.ctx, cmd, &d), SWINUP_STATUS_UNSUPPORTED);
    EXPECT_EQ(std::string(swinup_last_error(ctx.ctx)).rfind("vulkan_dispatch.motion_vectors_buffer.buffer: the Vulkan "
                                                            "backend reads and writes images only", 0), 0u)
        << swinup_last_error(ctx.ctx);
    dev.discard(cmd);
    const std::vector<uint8_t> after = recorded_frame(dev, ctx.ctx, images, images.describe(0));
    EXPECT_TRUE(after == recorded_frame(dev, fresh.ctx, images, images.describe(0)));
    expect_no_validation_messages(dev);
}

// A frame's slot (its descriptor pool) must not be reset while the application's command buffer
// holding the frame is still pending, even once swinup's own commands in it have run. The frame's
// command buffer here goes on after swinup's commands with a wait for an event the host sets later,
// so it stays pending; with the frame's completion point given (signal_semaphore / signal_value,
// which the submit signals), the ninth recording finds no free slot instead of resetting that
// frame's pool. Then every frame is submitted in recording order, more are recorded while earlier
// ones run (nothing waited for but the semaphore the test polls), and the last output must equal
// that of a context whose frames each ran before the next was recorded; the validation layer
// (which sees the counter reads) stays silent.
TEST(RecordDispatchContext, ASlotIsReusedOnlyOnceItsCommandBufferCompleted) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    constexpr int kRecorded = 12;  // 8 slots, reused
    std::vector<uint8_t> expected, got;
    {
        Context ctx, reference;
        ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
        ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &reference), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
        AppImages images(dev, SWINUP_FORMAT_RGBA16F);
        images.upload(dev, 0);
        for (int f = 0; f < kRecorded; ++f) expected = recorded_frame(dev, reference.ctx, images, images.describe(f));

        const VkSemaphore timeline = vulkan_app::create_timeline_semaphore(dev.device, false);
        VkEventCreateInfo event_info{VK_STRUCTURE_TYPE_EVENT_CREATE_INFO};
        VkEvent reached = VK_NULL_HANDLE, gate = VK_NULL_HANDLE;
        ASSERT_EQ(vkCreateEvent(dev.device, &event_info, nullptr, &reached), VK_SUCCESS);
        ASSERT_EQ(vkCreateEvent(dev.device, &event_info, nullptr, &gate), VK_SUCCESS);
        auto record = [&](int f, VkCommandBuffer cmd) {
            swinup_vulkan_dispatch_desc d = images.describe(f);
            d.signal_semaphore = timeline;
            d.signal_value = uint64_t(f) + 1;
            return swinup_vulkan_record_dispatch(ctx.ctx, cmd, &d);
        };
        auto submit = [&](int f, VkCommandBuffer cmd) {
            ASSERT_EQ(vkEndCommandBuffer(cmd), VK_SUCCESS);
            vulkan_app::submit(dev.queue, cmd, {}, {timeline, uint64_t(f) + 1});
        };
        std::vector<VkCommandBuffer> cmds;
        for (int f = 0; f < kRecorded; ++f) cmds.push_back(dev.begin());

        // Frame 0, then the application's own commands: a mark, and a wait for the host's gate.
        ASSERT_EQ(record(0, cmds[0]), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
        vkCmdSetEvent(cmds[0], reached, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
        vkCmdWaitEvents(cmds[0], 1, &gate, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, nullptr,
                        0, nullptr, 0, nullptr);
        submit(0, cmds[0]);
        for (int tries = 0; vkGetEventStatus(dev.device, reached) != VK_EVENT_SET; ++tries) {
            ASSERT_LT(tries, 600000) << "frame 0's commands did not run in 60 s";
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
        // Frame 0's commands have run and its end-of-frame event is set, but its command buffer is
        // pending: 7 more frames take the other slots, and the ninth finds none.
        for (int f = 1; f < 8; ++f) ASSERT_EQ(record(f, cmds[f]), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
        EXPECT_EQ(record(8, cmds[8]), SWINUP_STATUS_UNSUPPORTED)
            << "a slot was reused while its frame's command buffer was pending";

        ASSERT_EQ(vkSetEvent(dev.device, gate), VK_SUCCESS);
        for (int f = 1; f < 8; ++f) submit(f, cmds[f]);
        // The later frames as an application that records ahead would: retried until a slot is free.
        for (int f = 8; f < kRecorded; ++f) {
            swinup_status status = SWINUP_STATUS_UNSUPPORTED;
            for (int tries = 0; (status = record(f, cmds[f])) == SWINUP_STATUS_UNSUPPORTED; ++tries) {
                ASSERT_LT(tries, 600000) << "no slot came free in 60 s: " << swinup_last_error(ctx.ctx);
                std::this_thread::sleep_for(std::chrono::microseconds(100));
            }
            ASSERT_EQ(status, SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
            submit(f, cmds[f]);
        }
        ASSERT_EQ(vkQueueWaitIdle(dev.queue), VK_SUCCESS);
        got = dev.read(images.output, VK_IMAGE_LAYOUT_GENERAL);
        vkFreeCommandBuffers(dev.device, dev.pool, uint32_t(cmds.size()), cmds.data());
        vkDestroyEvent(dev.device, reached, nullptr);
        vkDestroyEvent(dev.device, gate, nullptr);
        // Destroyed before the context, as an application may once its frames completed: the
        // context's destruction (its warning's count) must not read it.
        vkDestroySemaphore(dev.device, timeline, nullptr);
    }
    EXPECT_TRUE(got == expected) << "the frames recorded ahead gave other bytes than frames run one by one";
    expect_no_validation_messages(dev);
}

// A context on the application's device runs no host-pointer frame (swinup_dispatch is refused
// there), so it must not hold the host path's upload and readback buffers and output image: what
// it reports is smaller than a context of the same description on swinup's own device by at least
// their sizes (at 1920x1080 -> 3840x2160 they were about 240 MB).
TEST(RecordDispatchContext, TheApplicationsDeviceHoldsNoHostPathCopies) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    Context app, own;
    ASSERT_EQ(create_on(dev, SWINUP_FORMAT_RGBA16F, &app), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_VULKAN, SWINUP_FORMAT_RGBA16F);
    ASSERT_EQ(swinup_vulkan_context_create(&desc, nullptr, &own.ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    swinup_memory_requirements on_app{}, on_own{};
    on_app.struct_size = on_own.struct_size = SWINUP_MEMORY_REQUIREMENTS_SIZE_V1;
    ASSERT_EQ(swinup_context_get_memory(app.ctx, &on_app), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_EQ(swinup_context_get_memory(own.ctx, &on_own), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    // The host path's fewest bytes (HostFrameIo): the upload buffer (colour 16, depth 4, motion 8 at
    // display size, two masks 4 bytes a pixel), the readback (8 a display pixel), the RGBA16F output.
    const uint64_t render = uint64_t(kRenderW) * kRenderH, display = uint64_t(kDisplayW) * kDisplayH;
    const uint64_t host_path = render * (16 + 4 + 2 * 4) + display * 8 + display * 8 + display * 8;
    ASSERT_GT(on_own.device_bytes, on_app.device_bytes);
    EXPECT_GE(on_own.device_bytes - on_app.device_bytes, host_path)
        << "application's device: " << on_app.device_bytes << " bytes, swinup's own: " << on_own.device_bytes;
    expect_no_validation_messages(dev);
}

TEST(RecordDispatchContext, AutoExposureWithoutFloat64IsRefusedAtCreate) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    VkPhysicalDeviceFeatures2 without_f64 = dev.enabled.core;  // the same chain, shaderFloat64 said off
    without_f64.features.shaderFloat64 = VK_FALSE;
    swinup_vulkan_device_desc device = dev.description();
    device.enabled_features = &without_f64;
    swinup_context_desc desc = context_desc(SWINUP_BACKEND_VULKAN, SWINUP_FORMAT_RGBA16F);
    desc.flags |= SWINUP_FLAG_AUTO_EXPOSURE;
    swinup_context* ctx = nullptr;
    EXPECT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx), SWINUP_STATUS_UNSUPPORTED);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_EQ(std::string(swinup_last_error(nullptr)),
              "swinup_vulkan_context_create: SWINUP_FLAG_AUTO_EXPOSURE needs shaderFloat64, which Vulkan device \"" +
                  dev.name + "\" lacks (pass an exposure value or texture instead)");
    desc.flags &= ~uint32_t(SWINUP_FLAG_AUTO_EXPOSURE);  // without the flag the device serves the context
    EXPECT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    swinup_context_destroy(ctx);
    expect_no_validation_messages(dev);
}

TEST(RecordDispatchContext, AQueueFamilyTheDeviceLacksIsRefusedBeforeAnyQueueIsTaken) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    swinup_vulkan_device_desc device = dev.description();
    device.queue_family_index = 99;
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_VULKAN, SWINUP_FORMAT_RGBA16F);
    swinup_context* ctx = nullptr;
    EXPECT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(ctx, nullptr);
    const std::string error = swinup_last_error(nullptr);
    EXPECT_NE(error.find("queue_family_index 99 does not exist"), std::string::npos) << error;
    // vkGetDeviceQueue with a family the device lacks would have drawn a validation error.
    expect_no_validation_messages(dev);
}

TEST(RecordDispatchContext, BackendsThatCannotRecordAreRefusedAtCreate) {
    swinup_context_desc desc = context_desc(SWINUP_BACKEND_CPU, SWINUP_FORMAT_RGBA16F);
    swinup_context* ctx = reinterpret_cast<swinup_context*>(&desc);  // must be set to NULL
    EXPECT_EQ(swinup_vulkan_context_create(&desc, nullptr, &ctx), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_STREQ(swinup_last_error(nullptr),
                 "context_desc.backend: SWINUP_BACKEND_CPU cannot record into Vulkan command buffers; use "
                 "SWINUP_BACKEND_VULKAN (or swinup_context_create for the CPU)");
    // The CUDA backend runs on the application's images only (test_cuda_vulkan_interop.cpp runs it).
    desc.backend = SWINUP_BACKEND_CUDA;
    EXPECT_EQ(swinup_vulkan_context_create(&desc, nullptr, &ctx), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(swinup_last_error(nullptr),
                 "swinup_vulkan_context_create: device is NULL, but SWINUP_BACKEND_CUDA runs on the application's "
                 "images, which need the application's device");
    swinup_vulkan_device_desc device;
    swinup_vulkan_device_desc_init(&device);
    desc.backend = SWINUP_BACKEND_VULKAN;
    EXPECT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(swinup_last_error(nullptr), "vulkan_device.instance: is VK_NULL_HANDLE");

    // A context of swinup_context_create cannot record.
    desc.backend = SWINUP_BACKEND_CPU;
    Context cpu;
    ASSERT_EQ(swinup_context_create(&desc, &cpu.ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    swinup_vulkan_dispatch_desc d;
    swinup_vulkan_dispatch_desc_init(&d);
    EXPECT_EQ(swinup_vulkan_record_dispatch(cpu.ctx, reinterpret_cast<VkCommandBuffer>(&d), &d),
              SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(swinup_last_error(cpu.ctx),
                 "swinup_vulkan_record_dispatch: ctx was not made by swinup_vulkan_context_create");
}

}  // namespace
}  // namespace swinup
