// The automatic reactive mask on the Vulkan backend (shaders/frame/reactive_mask.comp):
// - swinup_generate_reactive_mask on host pointers (a context with swinup's own device) must write
//   the CPU backend's bytes in every mask format and mode, from colours with NaN, Inf, negative and
//   large values, in 4- and 3-channel formats, at an odd size, leaving the row padding alone;
// - swinup_vulkan_record_reactive_mask records it into the test's command buffer on images the test
//   made (vulkan_test_device.h: validation layer on, every message fails the test): the output
//   image's render-size corner must hold the CPU's values (R8 codes, R16F halves, R32F floats) and
//   its texels beyond it their poison;
// - refused descriptors name the field and record nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "api/resource_desc.h"
#include "reactive_mask_cases.h"
#include "swinup/swinup.h"
#include "swinup/swinup_vulkan.h"
#include "vulkan_test_device.h"

namespace swinup {
namespace {

using vulkan_test::TestDevice;
using vulkan_test::TestImage;

using namespace test::reactive;

constexpr uint32_t kImageW = 40, kImageH = 26;  // the application's images are larger than the render size

VkFormat mask_vk_format(swinup_format f) {
    return f == SWINUP_FORMAT_R8_UNORM ? VK_FORMAT_R8_UNORM : f == SWINUP_FORMAT_R16F ? VK_FORMAT_R16_SFLOAT
                                                                                      : VK_FORMAT_R32_SFLOAT;
}

#define SKIP_WITHOUT_DEVICE(dev) \
    if (!(dev).skip_reason.empty()) GTEST_SKIP() << (dev).skip_reason

TEST(VulkanReactiveMask, HostPointersGiveTheCpuBackendsBytes) {
    const Colours c;
    Context vk;
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_VULKAN);
    const swinup_status created = swinup_context_create(&desc, &vk.ctx);
    if (created == SWINUP_STATUS_UNSUPPORTED) GTEST_SKIP() << swinup_last_error(nullptr);
    ASSERT_EQ(created, SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    expect_host_memory_gives_cpu_bytes(vk.ctx, c);
}

// The images of a recorded mask.
struct MaskImages {
    TestImage opaque, final_color, output;
    MaskImages(TestDevice& dev, swinup_format format, VkImageUsageFlags output_usage = VK_IMAGE_USAGE_STORAGE_BIT) {
        opaque = dev.make_image(VK_FORMAT_R32G32B32A32_SFLOAT, kImageW, kImageH, VK_IMAGE_USAGE_SAMPLED_BIT, 16);
        final_color = dev.make_image(VK_FORMAT_R16G16B16A16_SFLOAT, kImageW, kImageH, VK_IMAGE_USAGE_SAMPLED_BIT, 8);
        output = dev.make_image(mask_vk_format(format), kImageW, kImageH, output_usage | VK_IMAGE_USAGE_SAMPLED_BIT,
                                uint32_t(mask_bytes(format)));
    }
    // The colours into the images' top-left corners (the rest 0), the output poisoned.
    void upload(TestDevice& dev, const Colours& c) {
        std::vector<float> a(size_t(kImageW) * kImageH * 4, 0.0f);
        std::vector<uint16_t> b(size_t(kImageW) * kImageH * 4, 0);
        for (uint32_t y = 0; y < kH; ++y) {
            std::memcpy(&a[size_t(y) * kImageW * 4], &c.opaque[size_t(y) * kW * 4], kW * 16);
            std::memcpy(&b[size_t(y) * kImageW * 4], &c.final_f16[size_t(y) * kW * 4], kW * 8);
        }
        dev.upload(opaque, a.data(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        dev.upload(final_color, b.data(), VK_IMAGE_LAYOUT_GENERAL);
        dev.fill(output, 0xC7, VK_IMAGE_LAYOUT_GENERAL);
    }
    swinup_vulkan_reactive_mask_desc describe(const Mode& m) const {
        swinup_vulkan_reactive_mask_desc d;
        swinup_vulkan_reactive_mask_desc_init(&d);
        d.mask.render_width = kW;
        d.mask.render_height = kH;
        d.mask.scale = m.scale;
        d.mask.threshold = m.threshold;
        d.mask.binary_value = m.binary_value;
        d.mask.flags = m.flags;
        d.opaque_color = opaque.described(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
        d.final_color = final_color.described(VK_IMAGE_LAYOUT_GENERAL);
        d.output = output.described(VK_IMAGE_LAYOUT_GENERAL);
        return d;
    }
};

// Records the mask between the barriers an engine records, submits, and reads the output image.
std::vector<uint8_t> recorded_mask(TestDevice& dev, swinup_context* ctx, MaskImages& images,
                                   const swinup_vulkan_reactive_mask_desc& desc, swinup_status expected = SWINUP_STATUS_OK) {
    VkCommandBuffer cmd = dev.begin();
    TestDevice::barrier(cmd, images.output, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
    EXPECT_EQ(swinup_vulkan_record_reactive_mask(ctx, cmd, &desc), expected) << swinup_last_error(ctx);
    dev.submit_and_wait(cmd);
    return dev.read(images.output, VK_IMAGE_LAYOUT_GENERAL);
}

// A Vulkan context on the test's device (as an application makes one).
void create_on(const TestDevice& dev, Context* ctx) {
    const swinup_vulkan_device_desc device = dev.description();
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_VULKAN);
    ASSERT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx->ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
}

TEST(VulkanReactiveMask, RecordedIntoTheApplicationsCommandBufferGivesTheCpuBackendsValues) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    const Colours c;
    Context ctx;
    ASSERT_NO_FATAL_FAILURE(create_on(dev, &ctx));
    for (swinup_format format : kMaskFormats) {
        MaskImages images(dev, format);
        for (const Mode& m : kModes) {
            const std::vector<uint8_t> want = cpu_mask(c, m, format);
            images.upload(dev, c);
            const std::vector<uint8_t> got = recorded_mask(dev, ctx.ctx, images, images.describe(m));
            const size_t texel = mask_bytes(format);
            for (uint32_t y = 0; y < kImageH; ++y) {
                for (uint32_t x = 0; x < kImageW; ++x) {
                    const uint8_t* g = &got[(size_t(y) * kImageW + x) * texel];
                    if (x < kW && y < kH) {
                        ASSERT_EQ(std::memcmp(g, &want[(size_t(y) * kW + x) * texel], texel), 0)
                            << m.name << ", format " << format << ": pixel " << x << "," << y;
                    } else {
                        for (size_t b = 0; b < texel; ++b) ASSERT_EQ(g[b], 0xC7) << "texel " << x << "," << y << " written";
                    }
                }
            }
        }
    }
    // A context on the application's device does not take host pointers (its queues are the application's).
    std::vector<float> out(size_t(kW) * kH);
    const swinup_reactive_mask_desc host =
        host_desc(kModes[0], input_resource(c.opaque.data(), SWINUP_FORMAT_RGBA32F, kW, kH),
                  input_resource(c.final_f16.data(), SWINUP_FORMAT_RGBA16F, kW, kH),
                  output_resource(out.data(), SWINUP_FORMAT_R32F, kW, kH));
    EXPECT_EQ(swinup_generate_reactive_mask(ctx.ctx, &host), SWINUP_STATUS_UNSUPPORTED);
    EXPECT_NE(std::string(swinup_last_error(ctx.ctx)).find("swinup_vulkan_record_reactive_mask"), std::string::npos)
        << swinup_last_error(ctx.ctx);
    EXPECT_TRUE(dev.messages.empty()) << dev.messages.size() << " validation messages; first: " << dev.messages[0];
}

// A bad descriptor: what is changed and the start of the message it must get.
struct BadMask {
    const char* what;
    void (*spoil)(swinup_vulkan_reactive_mask_desc*, const MaskImages&);
    const char* message;
};

TEST(VulkanReactiveMask, RefusedDescriptorsNameTheFieldAndRecordNothing) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    const Colours c;
    Context ctx;
    ASSERT_NO_FATAL_FAILURE(create_on(dev, &ctx));
    MaskImages images(dev, SWINUP_FORMAT_R8_UNORM);
    const BadMask bad[] = {
        {"struct size", [](auto* d, const auto&) { d->struct_size = 12; },
         "vulkan_reactive_mask.struct_size: swinup_vulkan_reactive_mask_desc accepts"},
        {"mask struct size", [](auto* d, const auto&) { d->mask.struct_size = 12; },
         "vulkan_reactive_mask.mask.struct_size: must be"},
        {"threshold", [](auto* d, const auto&) { d->mask.threshold = 2.0f; },
         "vulkan_reactive_mask.mask.threshold: must be a finite number in [0, 1], got 2"},
        {"render size", [](auto* d, const auto&) { d->mask.render_width = kMaxW + 1; },
         "vulkan_reactive_mask.mask.render_width: must be 1..max_render_width (48), got 49"},
        {"image smaller than the render size", [](auto* d, const auto&) { d->mask.render_height = kImageH + 1; },
         "vulkan_reactive_mask.opaque_color.height: the image is 40x26, smaller than the 37x27 texels swinup reads"},
        {"output format", [](auto* d, const auto&) { d->output.format = VK_FORMAT_R16G16B16A16_SFLOAT; },
         "vulkan_reactive_mask.output.format: expected VK_FORMAT_R8_UNORM, VK_FORMAT_R16_SFLOAT or VK_FORMAT_R32_SFLOAT"},
        {"output usage", [](auto* d, const auto&) { d->output.usage = VK_IMAGE_USAGE_SAMPLED_BIT; },
         "vulkan_reactive_mask.output.usage: lacks VK_IMAGE_USAGE_STORAGE_BIT (swinup writes the mask with imageStore)"},
        {"output layout", [](auto* d, const auto&) { d->output.layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL; },
         "vulkan_reactive_mask.output.layout: expected VK_IMAGE_LAYOUT_GENERAL"},
        {"colour format", [](auto* d, const auto&) { d->final_color.format = VK_FORMAT_R8G8B8A8_UNORM; },
         "vulkan_reactive_mask.final_color.format: expected VK_FORMAT_R16G16B16A16_SFLOAT or VK_FORMAT_R32G32B32A32_SFLOAT"},
        {"null view", [](auto* d, const auto&) { d->opaque_color.view = VK_NULL_HANDLE; },
         "vulkan_reactive_mask.opaque_color.view: is VK_NULL_HANDLE"},
        {"output is an input", [](auto* d, const auto&) { d->output.image = d->final_color.image; },
         "vulkan_reactive_mask.output.image: is also vulkan_reactive_mask.final_color.image"},
    };
    images.upload(dev, c);
    for (const BadMask& b : bad) {
        swinup_vulkan_reactive_mask_desc d = images.describe(kModes[0]);
        b.spoil(&d, images);
        const std::vector<uint8_t> got = recorded_mask(dev, ctx.ctx, images, d, SWINUP_STATUS_INVALID_ARGUMENT);
        EXPECT_EQ(std::string(swinup_last_error(ctx.ctx)).rfind(b.message, 0), 0u)
            << b.what << ": " << swinup_last_error(ctx.ctx);
        for (uint8_t v : got) ASSERT_EQ(v, 0xC7) << b.what << ": the output was written";
    }
    const swinup_vulkan_reactive_mask_desc good = images.describe(kModes[0]);
    EXPECT_EQ(swinup_vulkan_record_reactive_mask(ctx.ctx, VK_NULL_HANDLE, &good), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(swinup_vulkan_record_reactive_mask(ctx.ctx, dev.begin(), nullptr), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(swinup_vulkan_record_reactive_mask(nullptr, dev.begin(), &good), SWINUP_STATUS_INVALID_ARGUMENT);
    // A context of swinup_context_create is not one that records.
    Context plain;
    const swinup_context_desc cpu = context_desc(SWINUP_BACKEND_CPU);
    ASSERT_EQ(swinup_context_create(&cpu, &plain.ctx), SWINUP_STATUS_OK);
    EXPECT_EQ(swinup_vulkan_record_reactive_mask(plain.ctx, dev.begin(), &good), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(plain.ctx)).find("not made by swinup_vulkan_context_create"), std::string::npos);
    EXPECT_TRUE(dev.messages.empty()) << dev.messages.size() << " validation messages; first: " << dev.messages[0];
}

}  // namespace
}  // namespace swinup
