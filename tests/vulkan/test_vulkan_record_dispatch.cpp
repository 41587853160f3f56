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
#include <cmath>
#include <string>
#include <vector>

#include "api/resource_desc.h"
#include "gpu_test_support.h"
#include "sliding_plane_frames.h"
#include "swinup/swinup.h"
#include "swinup/swinup_vulkan.h"
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
    EXPECT_FALSE(out.empty());
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
