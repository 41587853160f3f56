// The packed formats on the Vulkan backend, on lavapipe with the validation layer on
// (tests/support/packed_format_frames.h; the CPU twin is tests/api/test_packed_format_frames.cpp):
//   - host pointers (swinup_dispatch): colour in B10G11R11F / R10G10B10A2 and depth in
//     D24_UNORM_S8 / D32F_S8 give the frames of the same values in RGBA16F / RGBA32F / R32F, byte
//     for byte (the host path decodes them with the CPU's reader), and a B10G11R11F output is the
//     RGBA16F output within one code;
//   - the application's images (swinup_vulkan_record_dispatch): VK_FORMAT_B10G11R11_UFLOAT_PACK32
//     and A2B10G10R10_UNORM_PACK32 colour, the depth aspect of D24_UNORM_S8_UINT and
//     D32_SFLOAT_S8_UINT, read by the sampler's own conversion, give the frames of the float images
//     of the same values: byte for byte where the conversion is exact (the small floats, the f32
//     depth), within the exact-mode frame bound where it is a UNORM division the device may round
//     differently; a B10G11R11_UFLOAT_PACK32 output image holds the bytes of the host-pointer
//     frame. A format the device cannot sample (or store) is reported and left out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "packed_format_frames.h"
#include "swinup/swinup_vulkan.h"
#include "vulkan_test_device.h"

namespace swinup {
namespace {

using namespace test;
using vulkan_test::TestDevice;
using vulkan_test::TestImage;

#define SKIP_WITHOUT_DEVICE(dev) \
    if (!(dev).skip_reason.empty()) GTEST_SKIP() << (dev).skip_reason

void expect_same_host_frames(swinup_format color, swinup_format depth) {
    std::string skip;
    const auto packed = run_packed_frames(SWINUP_BACKEND_VULKAN, color, depth, false, SWINUP_FORMAT_RGBA16F, &skip);
    if (packed.empty()) GTEST_SKIP() << skip;
    const auto floats = run_packed_frames(SWINUP_BACKEND_VULKAN, color, depth, true, SWINUP_FORMAT_RGBA16F, &skip);
    ASSERT_EQ(floats.size(), size_t(kPackedFrames)) << skip;
    for (int f = 0; f < kPackedFrames; ++f) EXPECT_TRUE(packed[f] == floats[f]) << "frame " << f;
}

TEST(VulkanPackedFormats, HostB10G11R11FColourAndD24DepthGiveTheFramesOfTheirValues) {
    expect_same_host_frames(SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D24_UNORM_S8);
}

TEST(VulkanPackedFormats, HostR10G10B10A2ColourAndD32FS8DepthGiveTheFramesOfTheirValues) {
    expect_same_host_frames(SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_D32F_S8);
}

TEST(VulkanPackedFormats, HostB10G11R11FOutputIsTheRgba16fOutputWithinOneCode) {
    std::string skip;
    const auto packed = run_packed_frames(SWINUP_BACKEND_VULKAN, SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D32F_S8, true,
                                          SWINUP_FORMAT_B10G11R11F, &skip);
    if (packed.empty()) GTEST_SKIP() << skip;
    const auto half = run_packed_frames(SWINUP_BACKEND_VULKAN, SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D32F_S8, true,
                                        SWINUP_FORMAT_RGBA16F, &skip);
    ASSERT_EQ(half.size(), size_t(kPackedFrames)) << skip;
    for (int f = 0; f < kPackedFrames; ++f) expect_b10g11r11f_near_rgba16f(packed[f], half[f]);
    // And the CPU backend's B10G11R11F frames, byte for byte (exact mode).
    const auto cpu = run_packed_frames(SWINUP_BACKEND_CPU, SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D32F_S8, true,
                                       SWINUP_FORMAT_B10G11R11F, &skip);
    int identical = 0;
    for (int f = 0; f < kPackedFrames; ++f) identical += packed[f] == cpu[f];
    const auto got = decode_output_rgb(packed.back(), SWINUP_FORMAT_B10G11R11F);
    const auto want = decode_output_rgb(cpu.back(), SWINUP_FORMAT_B10G11R11F);
    EXPECT_LE(gpu_test::relative_rms(got, want), kExactFrameBound);
    std::printf("[ formats  ] B10G11R11F output: %d of %d frames byte-identical to the CPU backend's\n", identical,
                kPackedFrames);
}

// ---- The application's images ------------------------------------------------------------------

VkFormat vk_format(swinup_format f) {
    switch (f) {
        case SWINUP_FORMAT_RGBA16F: return VK_FORMAT_R16G16B16A16_SFLOAT;
        case SWINUP_FORMAT_RGBA32F: return VK_FORMAT_R32G32B32A32_SFLOAT;
        case SWINUP_FORMAT_B10G11R11F: return VK_FORMAT_B10G11R11_UFLOAT_PACK32;
        case SWINUP_FORMAT_R10G10B10A2: return VK_FORMAT_A2B10G10R10_UNORM_PACK32;
        case SWINUP_FORMAT_R32F: return VK_FORMAT_R32_SFLOAT;
        case SWINUP_FORMAT_D24_UNORM_S8: return VK_FORMAT_D24_UNORM_S8_UINT;
        case SWINUP_FORMAT_D32F_S8: return VK_FORMAT_D32_SFLOAT_S8_UINT;
        default: return VK_FORMAT_UNDEFINED;
    }
}

const char* vk_name(VkFormat f) {
    switch (f) {
        case VK_FORMAT_B10G11R11_UFLOAT_PACK32: return "B10G11R11_UFLOAT_PACK32";
        case VK_FORMAT_A2B10G10R10_UNORM_PACK32: return "A2B10G10R10_UNORM_PACK32";
        case VK_FORMAT_D24_UNORM_S8_UINT: return "D24_UNORM_S8_UINT";
        case VK_FORMAT_D32_SFLOAT_S8_UINT: return "D32_SFLOAT_S8_UINT";
        default: return "another format";
    }
}

bool supports(const TestDevice& dev, VkFormat format, VkFormatFeatureFlags features) {
    VkFormatProperties props;
    vkGetPhysicalDeviceFormatProperties(dev.physical, format, &props);
    return (props.optimalTilingFeatures & features) == features;
}

// The depth aspect's texels as a copy into the image reads them: 4 bytes each (D24 in the low 24
// bits; D32F_S8's f32 alone).
std::vector<uint8_t> depth_aspect_texels(const PackedFrame& p) {
    if (p.depth_format != SWINUP_FORMAT_D32F_S8) return p.depth;
    std::vector<uint8_t> texels;
    for (size_t i = 0; i < p.depth.size(); i += 8) texels.insert(texels.end(), &p.depth[i], &p.depth[i] + 4);
    return texels;
}

// kPackedFrames frames recorded on the test's images of the formats of `equivalent` (see
// packed_frame); the output bytes of each. `output` the context's output format.
std::vector<std::vector<uint8_t>> record_frames(TestDevice& dev, swinup_format color, swinup_format depth,
                                                bool equivalent, swinup_format output) {
    swinup_context_desc cd = sliding_plane_context_desc(kPackedRenderW, kPackedRenderH, kPackedDisplayW,
                                                        kPackedDisplayH, output);
    cd.backend = SWINUP_BACKEND_VULKAN;
    const swinup_vulkan_device_desc device = dev.description();
    swinup_context* ctx = nullptr;
    EXPECT_EQ(swinup_vulkan_context_create(&cd, &device, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    if (ctx == nullptr) return {};
    const PackedFrame first = packed_frame(0, color, depth, equivalent);
    const VkFormat color_vk = vk_format(first.color_format), depth_vk = vk_format(first.depth_format);
    TestImage color_image = dev.make_image(color_vk, kPackedRenderW, kPackedRenderH, VK_IMAGE_USAGE_SAMPLED_BIT,
                                           uint32_t(first.color.size() / (kPackedRenderW * kPackedRenderH)));
    // A depth-stencil buffer is an engine's depth attachment, read in DEPTH_STENCIL_READ_ONLY_OPTIMAL.
    const bool depth_stencil = depth_vk != VK_FORMAT_R32_SFLOAT;
    TestImage depth_image = dev.make_image(
        depth_vk, kPackedRenderW, kPackedRenderH,
        VK_IMAGE_USAGE_SAMPLED_BIT | (depth_stencil ? VkImageUsageFlags(VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT) : 0u), 4);
    TestImage motion = dev.make_image(VK_FORMAT_R32G32_SFLOAT, kPackedRenderW, kPackedRenderH, VK_IMAGE_USAGE_SAMPLED_BIT, 8);
    const uint32_t out_bytes = uint32_t(packed_output_pixel_bytes(output));
    TestImage out = dev.make_image(vulkan_app::vk_output_format(output), kPackedDisplayW, kPackedDisplayH,
                                   VK_IMAGE_USAGE_STORAGE_BIT, out_bytes);
    const VkImageLayout depth_layout = depth_stencil ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL
                                                     : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    std::vector<std::vector<uint8_t>> outputs;
    for (int f = 0; f < kPackedFrames; ++f) {
        const PackedFrame p = packed_frame(f, color, depth, equivalent);
        dev.upload(color_image, p.color.data(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        const std::vector<uint8_t> depth_texels = depth_aspect_texels(p);
        dev.upload(depth_image, depth_texels.data(), depth_layout);
        dev.upload(motion, p.mv.data(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        dev.fill(out, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
        swinup_vulkan_dispatch_desc d;
        swinup_vulkan_dispatch_desc_init(&d);
        d.frame.render_width = kPackedRenderW;
        d.frame.render_height = kPackedRenderH;
        swinup_get_jitter(uint32_t(f), swinup_get_jitter_phase_count(2.0f), &d.frame.jitter_x, &d.frame.jitter_y);
        d.color = color_image.described(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        d.depth = depth_image.described(depth_layout);
        d.motion_vectors = motion.described(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        d.output = out.described(VK_IMAGE_LAYOUT_GENERAL);
        VkCommandBuffer cmd = dev.begin();
        TestDevice::barrier(cmd, out, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_ACCESS_SHADER_WRITE_BIT);
        EXPECT_EQ(swinup_vulkan_record_dispatch(ctx, cmd, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
        dev.submit_and_wait(cmd);
        outputs.push_back(dev.read(out, VK_IMAGE_LAYOUT_GENERAL));
    }
    swinup_context_destroy(ctx);
    return outputs;
}

// The frames of packed images against those of their float equivalents: identical when `exact`,
// else within the exact-mode frame bound.
void expect_image_frames(TestDevice& dev, swinup_format color, swinup_format depth, bool exact) {
    const auto packed = record_frames(dev, color, depth, false, SWINUP_FORMAT_RGBA16F);
    const auto floats = record_frames(dev, color, depth, true, SWINUP_FORMAT_RGBA16F);
    ASSERT_EQ(packed.size(), size_t(kPackedFrames));
    ASSERT_EQ(floats.size(), size_t(kPackedFrames));
    int identical = 0;
    double worst = 0.0;
    for (int f = 0; f < kPackedFrames; ++f) {
        identical += packed[f] == floats[f];
        worst = std::max(worst, gpu_test::relative_rms(decode_output_rgb(packed[f], SWINUP_FORMAT_RGBA16F),
                                             decode_output_rgb(floats[f], SWINUP_FORMAT_RGBA16F)));
    }
    std::printf("[ formats  ] %s colour, %s depth images: %d of %d frames byte-identical to their float "
                "equivalents', worst relative RMS %.3g\n",
                vk_name(vk_format(color)), vk_name(vk_format(depth)), identical,
                kPackedFrames, worst);
    if (exact) {
        EXPECT_EQ(identical, kPackedFrames);
    } else {
        EXPECT_LE(worst, kExactFrameBound);
    }
}

TEST(VulkanPackedFormats, ImagesOfThePackedFormatsGiveTheFramesOfTheirValues) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    const VkFormatFeatureFlags sampled = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
    const VkFormatFeatureFlags depth_buffer = sampled | VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT;
    int run = 0;
    // The small floats and the f32 depth convert exactly: byte for byte.
    if (supports(dev, VK_FORMAT_B10G11R11_UFLOAT_PACK32, sampled) && supports(dev, VK_FORMAT_D32_SFLOAT_S8_UINT, depth_buffer)) {
        expect_image_frames(dev, SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D32F_S8, true);
        ++run;
    } else {
        std::printf("[ formats  ] %s cannot sample B10G11R11_UFLOAT_PACK32 or D32_SFLOAT_S8_UINT: not run\n",
                    dev.name.c_str());
    }
    // UNORM10 colour and UNORM24 depth: the device's division.
    if (supports(dev, VK_FORMAT_A2B10G10R10_UNORM_PACK32, sampled) && supports(dev, VK_FORMAT_D24_UNORM_S8_UINT, depth_buffer)) {
        expect_image_frames(dev, SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_D24_UNORM_S8, false);
        ++run;
    } else {
        std::printf("[ formats  ] %s cannot sample A2B10G10R10_UNORM_PACK32 or D24_UNORM_S8_UINT: not run\n",
                    dev.name.c_str());
    }
    EXPECT_GT(run, 0) << dev.name << " samples none of the packed formats";
    EXPECT_TRUE(dev.messages.empty()) << dev.messages.size() << " validation messages; first: " << dev.messages[0];
}

TEST(VulkanPackedFormats, AB10G11R11OutputImageHoldsTheHostPointerFramesBytes) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    if (!supports(dev, VK_FORMAT_B10G11R11_UFLOAT_PACK32, VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT)) {
        GTEST_SKIP() << dev.name << " cannot store B10G11R11_UFLOAT_PACK32 images";
    }
    const auto recorded = record_frames(dev, SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D32F_S8, true,
                                        SWINUP_FORMAT_B10G11R11F);
    std::string skip;
    const auto host = run_packed_frames(SWINUP_BACKEND_VULKAN, SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D32F_S8, true,
                                        SWINUP_FORMAT_B10G11R11F, &skip);
    ASSERT_EQ(recorded.size(), size_t(kPackedFrames));
    ASSERT_EQ(host.size(), size_t(kPackedFrames)) << skip;
    for (int f = 0; f < kPackedFrames; ++f) EXPECT_TRUE(recorded[f] == host[f]) << "frame " << f;
    EXPECT_TRUE(dev.messages.empty()) << dev.messages.size() << " validation messages; first: " << dev.messages[0];
}

}  // namespace
}  // namespace swinup
