// The Vulkan-facing API's descriptor checks (src/vulkan/api/vulkan_dispatch_validation.h), without a
// device: the handles are stand-in values, which validation compares but never uses. Each bad field
// must be refused with a message that names the image and what is wrong; the recording path
// (test_vulkan_record_dispatch.cpp) checks on a device that a refused frame records nothing and
// leaves the history as it was.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "api/resource_desc.h"
#include "stand_in_image.h"
#include "swinup/swinup_vulkan.h"
#include "vulkan/api/vulkan_dispatch_validation.h"

namespace {

// An older layout of the Vulkan dispatch descriptor, as a caller built against an older header
// lays it out, made from a current one: the bytes up to the end of its frame descriptor of
// `frame_size` bytes, then the `tail` bytes from `color` on (the fields the older header had after
// frame). older_layout_size is its size; dst must hold that many bytes.
size_t older_layout_size(size_t frame_size, size_t tail) {
    return offsetof(swinup_vulkan_dispatch_desc, frame) + frame_size + tail;
}
void write_older_layout(unsigned char* dst, const swinup_vulkan_dispatch_desc& current, size_t frame_size,
                        size_t tail) {
    const size_t frame_end = offsetof(swinup_vulkan_dispatch_desc, frame) + frame_size;
    std::memcpy(dst, &current, frame_end);
    std::memcpy(dst + frame_end,
                reinterpret_cast<const unsigned char*>(&current) + offsetof(swinup_vulkan_dispatch_desc, color), tail);
}

using swinup::Validation;
using swinup::vulkan_api::read_vulkan_dispatch_desc;
using swinup::vulkan_api::read_vulkan_device_desc;
using swinup::vulkan_api::validate_vulkan_device_desc;
using swinup::vulkan_api::validate_vulkan_dispatch_desc;

// The released layouts keep their sizes: V4 only appended the buffers after V3's last field and V5
// grew the frame (sharpness), so every older size is still a layout of its own. The values are those of the headers that
// released them, on LP64 (the platforms the tests run on).
static_assert(SWINUP_VULKAN_DISPATCH_DESC_SIZE_V1 < SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2 &&
              SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2 < SWINUP_VULKAN_DISPATCH_DESC_SIZE_V3 &&
              SWINUP_VULKAN_DISPATCH_DESC_SIZE_V3 < SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4 &&
              SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4 < SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5);
#if UINTPTR_MAX == UINT64_MAX
static_assert(SWINUP_VULKAN_DISPATCH_DESC_SIZE_V1 == 696, "the 0.1.0 layout");
static_assert(SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2 == 936, "the masks' layout");
static_assert(SWINUP_VULKAN_DISPATCH_DESC_SIZE_V3 == 944, "the jitter convention's layout");
static_assert(SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4 == 1376, "the buffers' layout");
static_assert(SWINUP_DISPATCH_DESC_SIZE_V3 == 344, "the jitter convention's swinup_dispatch_desc");
#endif
using swinup::vulkan_api::validate_vulkan_reactive_mask_desc;

using swinup::test::fake;
using swinup::test::stand_in_image;

struct Frame {
    swinup_context_desc context = swinup::sized_context_desc(64, 48, 128, 96);
    swinup_vulkan_dispatch_desc desc = swinup::test::stand_in_dispatch(stand_in_image);

    Frame() {
        context.output_format = SWINUP_FORMAT_R10G10B10A2;
        desc.depth = stand_in_image(0x200, VK_FORMAT_D32_SFLOAT, 64, 48,
                                    VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL,
                                    VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT);
        desc.output = stand_in_image(0x400, VK_FORMAT_A2B10G10R10_UNORM_PACK32, 128, 96, VK_IMAGE_LAYOUT_GENERAL,
                                     VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    }

    Validation check() const { return validate_vulkan_dispatch_desc(desc, context); }
};

void expect_refused(const Frame& f, const std::string& message) {
    const Validation v = f.check();
    EXPECT_EQ(v.status, SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(v.message, message);
}

// A fresh well-formed frame with one change (`change`) is refused with `message`.
template <class Change>
void expect_refused_after(const Change& change, const std::string& message) {
    Frame f;
    change(f);
    expect_refused(f, message);
}

// Stores `value` in an enum field as a C caller may: the int's bytes, whatever the enum's range.
template <typename Enum>
void store_raw(Enum* field, int32_t value) {
    static_assert(sizeof(Enum) == sizeof value);
    std::memcpy(field, &value, sizeof value);
}

TEST(VulkanDispatchValidation, AWellFormedFrameIsAccepted) {
    Frame f;
    EXPECT_TRUE(f.check().ok()) << f.check().message;
    // Images larger than what is read or written (an engine's dynamic-resolution targets) are fine.
    f.desc.color.width = 100;
    f.desc.depth.height = 90;
    f.desc.output.width = 200;
    f.desc.frame.render_width = 50;  // 128 / 50 <= 3
    EXPECT_TRUE(f.check().ok()) << f.check().message;
}

TEST(VulkanDispatchValidation, WrongFormatsAreNamed) {
    expect_refused_after([](Frame& f) { f.desc.depth.format = VK_FORMAT_R16G16_SFLOAT; },
                         "vulkan_dispatch.depth.format: expected VK_FORMAT_R32_SFLOAT, VK_FORMAT_D32_SFLOAT, "
                         "VK_FORMAT_D24_UNORM_S8_UINT or VK_FORMAT_D32_SFLOAT_S8_UINT (SWINUP_FORMAT_R32F), got "
                         "VK_FORMAT_R16G16_SFLOAT");
    expect_refused_after([](Frame& f) { f.desc.color.format = VK_FORMAT_R16G16B16_SFLOAT; },
                         "vulkan_dispatch.color.format: expected VK_FORMAT_R16G16B16A16_SFLOAT, "
                         "VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_B10G11R11_UFLOAT_PACK32 or "
                         "VK_FORMAT_A2B10G10R10_UNORM_PACK32 (SWINUP_FORMAT_RGBA16F), got VK_FORMAT_R16G16B16_SFLOAT");
    expect_refused_after([](Frame& f) { f.desc.motion_vectors.format = static_cast<VkFormat>(123456); },
                         "vulkan_dispatch.motion_vectors.format: expected VK_FORMAT_R16G16_SFLOAT or "
                         "VK_FORMAT_R32G32_SFLOAT (SWINUP_FORMAT_RG16F), got VkFormat 123456");
    Frame f;
    f.desc.output.format = VK_FORMAT_R16G16B16A16_SFLOAT;  // valid output format, not the context's
    expect_refused(f, "vulkan_dispatch.output.format: expected VK_FORMAT_A2B10G10R10_UNORM_PACK32 "
                      "(SWINUP_FORMAT_R10G10B10A2), got VK_FORMAT_R16G16B16A16_SFLOAT (the context's output_format)");
    f = Frame();
    f.desc.output.format = VK_FORMAT_UNDEFINED;
    EXPECT_EQ(f.check().status, SWINUP_STATUS_INVALID_ARGUMENT);
}

TEST(VulkanDispatchValidation, MissingUsageFlagsAreNamed) {
    expect_refused_after(
        [](Frame& f) {
            f.desc.output.usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
        },
        "vulkan_dispatch.output.usage: lacks VK_IMAGE_USAGE_STORAGE_BIT (swinup writes the "
        "output with imageStore)");
    expect_refused_after([](Frame& f) { f.desc.motion_vectors.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT; },
                         "vulkan_dispatch.motion_vectors.usage: lacks VK_IMAGE_USAGE_SAMPLED_BIT (swinup reads "
                         "the inputs as sampled images with texelFetch)");
}

TEST(VulkanDispatchValidation, LayoutsOutsideTheListAreNamed) {
    expect_refused_after([](Frame& f) { f.desc.color.layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL; },
                         "vulkan_dispatch.color.layout: expected VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL or "
                         "VK_IMAGE_LAYOUT_GENERAL, got VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL (swinup records no "
                         "layout transition: the application's barrier puts the image in one of these)");
    expect_refused_after([](Frame& f) { f.desc.output.layout = VK_IMAGE_LAYOUT_UNDEFINED; },
                         "vulkan_dispatch.output.layout: expected VK_IMAGE_LAYOUT_GENERAL, got "
                         "VK_IMAGE_LAYOUT_UNDEFINED (swinup records no layout transition: the application's "
                         "barrier puts the image in one of these)");
}

TEST(VulkanDispatchValidation, ImagesSmallerThanWhatIsReadOrWrittenAreNamed) {
    expect_refused_after([](Frame& f) { f.desc.color.width = 63; },
                         "vulkan_dispatch.color.width: the image is 63x48, smaller than the 64x48 texels swinup "
                         "reads (frame.render_width x frame.render_height)");
    expect_refused_after([](Frame& f) { f.desc.output.height = 95; },
                         "vulkan_dispatch.output.height: the image is 128x95, smaller than the 128x96 texels "
                         "swinup writes (the context's display size)");
    Frame f;
    f.context.flags = SWINUP_FLAG_MV_DISPLAY_RES;  // motion vectors must then cover the display
    expect_refused(f, "vulkan_dispatch.motion_vectors.width: the image is 64x48, smaller than the 128x96 "
                      "texels swinup reads (the display size: the context has SWINUP_FLAG_MV_DISPLAY_RES)");
}

TEST(VulkanDispatchValidation, NullHandlesAndSharedOutputAreNamed) {
    expect_refused_after([](Frame& f) { f.desc.depth.image = VK_NULL_HANDLE; },
                         "vulkan_dispatch.depth.image: is VK_NULL_HANDLE");
    expect_refused_after([](Frame& f) { f.desc.output.view = VK_NULL_HANDLE; },
                         "vulkan_dispatch.output.view: is VK_NULL_HANDLE (swinup reads and writes images "
                         "through the application's views: a 2D view of mip 0, layer 0)");
    expect_refused_after(
        [](Frame& f) {
            f.context.output_format = SWINUP_FORMAT_RGBA16F;
            f.desc.output = f.desc.color;
            f.desc.output.usage |= VK_IMAGE_USAGE_STORAGE_BIT;
            f.desc.output.layout = VK_IMAGE_LAYOUT_GENERAL;
            f.desc.output.width = 128;
            f.desc.output.height = 96;
        },
        "vulkan_dispatch.output.image: is also vulkan_dispatch.color.image (the output must be "
        "an image of its own)");
}

TEST(VulkanDispatchValidation, OneImageInTwoInputRolesIsRefusedNamingBoth) {
    // Each role's view and format is valid on its own; the shared VkImage is what is wrong.
    expect_refused_after([](Frame& f) { f.desc.motion_vectors.image = f.desc.color.image; },
                         "vulkan_dispatch.motion_vectors.image: is also vulkan_dispatch.color.image (each input "
                         "must be an image of its own)");
    Frame f;
    f.desc.exposure = stand_in_image(0x500, VK_FORMAT_R32_SFLOAT, 1, 1, VK_IMAGE_LAYOUT_GENERAL,
                                     VK_IMAGE_USAGE_SAMPLED_BIT);
    f.desc.exposure.image = f.desc.depth.image;
    expect_refused(f, "vulkan_dispatch.exposure.image: is also vulkan_dispatch.depth.image (each input must be "
                      "an image of its own)");
    // Under auto exposure the exposure image is not read, so it is not compared.
    f.context.flags |= SWINUP_FLAG_AUTO_EXPOSURE;
    EXPECT_TRUE(f.check().ok()) << f.check().message;
}

TEST(VulkanDispatchValidation, TheExposureImageIsCheckedWhenGivenAndIgnoredUnderAutoExposure) {
    Frame f;
    f.desc.exposure = stand_in_image(0x500, VK_FORMAT_R16G16_SFLOAT, 1, 1, VK_IMAGE_LAYOUT_GENERAL,
                                     VK_IMAGE_USAGE_SAMPLED_BIT);
    expect_refused(f, "vulkan_dispatch.exposure.format: expected VK_FORMAT_R32_SFLOAT (SWINUP_FORMAT_R32F), "
                      "got VK_FORMAT_R16G16_SFLOAT");
    f.context.flags = SWINUP_FLAG_AUTO_EXPOSURE;
    EXPECT_TRUE(f.check().ok()) << f.check().message;
    f.context.flags = 0;
    f.desc.exposure.format = VK_FORMAT_R32_SFLOAT;
    EXPECT_TRUE(f.check().ok()) << f.check().message;
}

TEST(VulkanDispatchValidation, StructSizesAndScalarsUseTheFieldPath) {
    expect_refused_after([](Frame& f) { f.desc.struct_size = 8; },
                         "vulkan_dispatch.struct_size: swinup_vulkan_dispatch_desc accepts " +
                             std::to_string(SWINUP_VULKAN_DISPATCH_DESC_SIZE_V1) +
                             " (SWINUP_VULKAN_DISPATCH_DESC_SIZE_V1), " +
                             std::to_string(SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2) +
                             " (SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2), " +
                             std::to_string(SWINUP_VULKAN_DISPATCH_DESC_SIZE_V3) +
                             " (SWINUP_VULKAN_DISPATCH_DESC_SIZE_V3), " +
                             std::to_string(SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4) +
                             " (SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4) or " +
                             std::to_string(sizeof(swinup_vulkan_dispatch_desc)) +
                             " (SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5; call swinup_vulkan_dispatch_desc_init), got 8");
    expect_refused_after([](Frame& f) { f.desc.frame.struct_size = SWINUP_DISPATCH_DESC_SIZE_V1; },
                         "vulkan_dispatch.frame.struct_size: swinup_dispatch_desc as a member of a "
                         "swinup_vulkan_dispatch_desc of SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5 must be " +
                             std::to_string(sizeof(swinup_dispatch_desc)) +
                             " (SWINUP_DISPATCH_DESC_SIZE_V4; call swinup_vulkan_dispatch_desc_init), got " +
                             std::to_string(SWINUP_DISPATCH_DESC_SIZE_V1));
    expect_refused_after([](Frame& f) { f.desc.frame.sharpness = 1.5f; },
                         "vulkan_dispatch.frame.sharpness: must be in [0, 1] (0: off), got 1.5");
    expect_refused_after([](Frame& f) { f.desc.frame.jitter_x = 0.75f; },
                         "vulkan_dispatch.frame.jitter_x: must be a finite number in [-0.5, 0.5], got 0.75");
    expect_refused_after([](Frame& f) { f.desc.frame.render_width = 65; },
                         "vulkan_dispatch.frame.render_width: must be 1..max_render_width (64), got 65");
}

// A program built against the 0.1.0 header passes the layout it knew: struct_size V1, frame of
// SWINUP_DISPATCH_DESC_SIZE_V1 bytes, and every field after frame that much earlier. It is read
// into the new layout field for field, with the masks absent.
TEST(VulkanDispatchValidation, TheFirstLayoutIsReadIntoTheNewOneWithoutMasks) {
    Frame f;
    f.desc.frame.jitter_x = 0.25f;
    f.desc.wait_value = 17;
    f.desc.signal_value = 99;
    f.desc.exposure = stand_in_image(0x500, VK_FORMAT_R32_SFLOAT, 1, 1, VK_IMAGE_LAYOUT_GENERAL,
                                     VK_IMAGE_USAGE_SAMPLED_BIT);
    // The V1 bytes: struct_size and frame's first V1 bytes, then color .. signal_value.
    const size_t tail = offsetof(swinup_vulkan_dispatch_desc, reactive_mask) - offsetof(swinup_vulkan_dispatch_desc, color);
    ASSERT_EQ(older_layout_size(SWINUP_DISPATCH_DESC_SIZE_V1, tail), size_t{SWINUP_VULKAN_DISPATCH_DESC_SIZE_V1});
    alignas(swinup_vulkan_dispatch_desc) unsigned char v1[sizeof(swinup_vulkan_dispatch_desc)];
    std::memset(v1, 0xA5, sizeof v1);  // past the V1 size: not the caller's, never read
    write_older_layout(v1, f.desc, SWINUP_DISPATCH_DESC_SIZE_V1, tail);
    auto* caller = reinterpret_cast<swinup_vulkan_dispatch_desc*>(v1);
    caller->struct_size = SWINUP_VULKAN_DISPATCH_DESC_SIZE_V1;
    caller->frame.struct_size = SWINUP_DISPATCH_DESC_SIZE_V1;

    swinup_vulkan_dispatch_desc read;
    const Validation v = read_vulkan_dispatch_desc(caller, &read);
    ASSERT_TRUE(v.ok()) << v.message;
    EXPECT_EQ(read.struct_size, SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5);
    EXPECT_EQ(read.frame.struct_size, SWINUP_DISPATCH_DESC_SIZE_V4);
    EXPECT_EQ(read.frame.jitter_x, 0.25f);
    EXPECT_EQ(read.frame.jitter_convention, SWINUP_JITTER_SAMPLE_OFFSET);
    EXPECT_EQ(read.frame.sharpness, 0.0f);  // the 0xA5 bytes past the V1 size are not read
    EXPECT_EQ(read.frame.render_width, 64u);
    EXPECT_EQ(read.frame.reactive_mask.data, nullptr);
    EXPECT_EQ(read.color.image, f.desc.color.image);
    EXPECT_EQ(read.depth.format, VK_FORMAT_D32_SFLOAT);
    EXPECT_EQ(read.output.usage, f.desc.output.usage);
    EXPECT_EQ(read.exposure.image, f.desc.exposure.image);
    EXPECT_EQ(read.wait_value, 17u);
    EXPECT_EQ(read.signal_value, 99u);
    EXPECT_EQ(read.reactive_mask.image, VK_NULL_HANDLE);
    EXPECT_EQ(read.transparency_mask.image, VK_NULL_HANDLE);
    f.desc = read;
    EXPECT_TRUE(f.check().ok()) << f.check().message;

    // A V1 descriptor whose frame claims the new size mixes the two layouts.
    caller->frame.struct_size = SWINUP_DISPATCH_DESC_SIZE_V2;
    const Validation mixed = read_vulkan_dispatch_desc(caller, &read);
    EXPECT_EQ(mixed.status, SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(mixed.message.find("vulkan_dispatch.frame.struct_size: swinup_dispatch_desc as a member of a "
                                 "swinup_vulkan_dispatch_desc of SWINUP_VULKAN_DISPATCH_DESC_SIZE_V1 must be " +
                                 std::to_string(SWINUP_DISPATCH_DESC_SIZE_V1)),
              std::string::npos)
        << mixed.message;
}

// A program built against the header of the masks passes the V2 layout: frame of
// SWINUP_DISPATCH_DESC_SIZE_V2 bytes (no jitter_convention), the fields after it that much earlier,
// masks included. It is read with swinup's jitter convention, whatever lies past its size.
TEST(VulkanDispatchValidation, TheMaskLayoutIsReadIntoTheNewOneWithSwinupsJitterConvention) {
    Frame f;
    f.desc.frame.jitter_x = -0.125f;
    f.desc.signal_value = 42;
    f.desc.transparency_mask = stand_in_image(0x600, VK_FORMAT_R8_UNORM, 64, 48, VK_IMAGE_LAYOUT_GENERAL,
                                              VK_IMAGE_USAGE_SAMPLED_BIT);
    // color .. transparency_mask: the V2 fields after frame (the buffers came later).
    const size_t tail = offsetof(swinup_vulkan_dispatch_desc, color_buffer) - offsetof(swinup_vulkan_dispatch_desc, color);
    ASSERT_EQ(older_layout_size(SWINUP_DISPATCH_DESC_SIZE_V2, tail), size_t{SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2});
    auto* v2 = static_cast<unsigned char*>(std::malloc(SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2));  // exactly its size
    ASSERT_NE(v2, nullptr);
    write_older_layout(v2, f.desc, SWINUP_DISPATCH_DESC_SIZE_V2, tail);
    auto* caller = reinterpret_cast<swinup_vulkan_dispatch_desc*>(v2);
    const uint32_t sizes[2] = {SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2, SWINUP_DISPATCH_DESC_SIZE_V2};
    std::memcpy(v2, &sizes[0], sizeof sizes[0]);
    std::memcpy(v2 + offsetof(swinup_vulkan_dispatch_desc, frame), &sizes[1], sizeof sizes[1]);
    swinup_vulkan_dispatch_desc read;
    const Validation v = read_vulkan_dispatch_desc(caller, &read);
    std::free(v2);
    ASSERT_TRUE(v.ok()) << v.message;
    EXPECT_EQ(read.struct_size, SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5);
    EXPECT_EQ(read.frame.jitter_x, -0.125f);
    EXPECT_EQ(read.frame.jitter_convention, SWINUP_JITTER_SAMPLE_OFFSET);
    EXPECT_EQ(read.frame.sharpness, 0.0f);
    EXPECT_EQ(read.signal_value, 42u);
    EXPECT_EQ(read.transparency_mask.image, f.desc.transparency_mask.image);
    EXPECT_EQ(read.transparency_mask.format, VK_FORMAT_R8_UNORM);
    EXPECT_EQ(read.color_buffer.buffer, VK_NULL_HANDLE);
    EXPECT_EQ(read.transparency_mask_buffer.buffer, VK_NULL_HANDLE);
    f.desc = read;
    EXPECT_TRUE(f.check().ok()) << f.check().message;
}

// A program built against the header of the jitter convention (V3) passes the layout without the
// buffers: frame of SWINUP_DISPATCH_DESC_SIZE_V3 bytes (no sharpness), then color ..
// transparency_mask. It is read field for field (jitter_convention included, masks in place),
// with every buffer absent and sharpening off, and nothing past its size is read.
TEST(VulkanDispatchValidation, TheJitterConventionLayoutIsReadIntoTheNewOneWithoutBuffers) {
    Frame f;
    f.desc.frame.jitter_x = -0.25f;
    f.desc.frame.jitter_convention = SWINUP_JITTER_FSR_DLSS;
    f.desc.signal_value = 7;
    f.desc.reactive_mask = stand_in_image(0x600, VK_FORMAT_R8_UNORM, 64, 48, VK_IMAGE_LAYOUT_GENERAL,
                                          VK_IMAGE_USAGE_SAMPLED_BIT);
    const size_t tail = offsetof(swinup_vulkan_dispatch_desc, color_buffer) - offsetof(swinup_vulkan_dispatch_desc, color);
    ASSERT_EQ(older_layout_size(SWINUP_DISPATCH_DESC_SIZE_V3, tail), size_t{SWINUP_VULKAN_DISPATCH_DESC_SIZE_V3});
    alignas(swinup_vulkan_dispatch_desc) unsigned char v3[sizeof(swinup_vulkan_dispatch_desc)];
    std::memset(v3, 0xA5, sizeof v3);  // past the V3 size: not the caller's, never read
    write_older_layout(v3, f.desc, SWINUP_DISPATCH_DESC_SIZE_V3, tail);
    auto* caller = reinterpret_cast<swinup_vulkan_dispatch_desc*>(v3);
    caller->struct_size = SWINUP_VULKAN_DISPATCH_DESC_SIZE_V3;
    caller->frame.struct_size = SWINUP_DISPATCH_DESC_SIZE_V3;
    swinup_vulkan_dispatch_desc read;
    const Validation v = read_vulkan_dispatch_desc(caller, &read);
    ASSERT_TRUE(v.ok()) << v.message;
    EXPECT_EQ(read.struct_size, SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5);
    EXPECT_EQ(read.frame.struct_size, SWINUP_DISPATCH_DESC_SIZE_V4);
    EXPECT_EQ(read.frame.jitter_x, -0.25f);
    EXPECT_EQ(read.frame.jitter_convention, SWINUP_JITTER_FSR_DLSS);
    EXPECT_EQ(read.frame.sharpness, 0.0f);
    EXPECT_EQ(read.signal_value, 7u);
    EXPECT_EQ(read.reactive_mask.image, f.desc.reactive_mask.image);
    for (const swinup_vulkan_buffer* b : {&read.color_buffer, &read.depth_buffer, &read.motion_vectors_buffer,
                                          &read.output_buffer, &read.reactive_mask_buffer,
                                          &read.transparency_mask_buffer}) {
        EXPECT_EQ(b->buffer, VK_NULL_HANDLE);
    }
    f.desc = read;
    EXPECT_TRUE(f.check().ok()) << f.check().message;
}

// A program built against the header of the buffers (V4) passes V3's frame (no sharpness) and the
// buffers after the masks: read field for field, buffers included, with sharpening off.
TEST(VulkanDispatchValidation, TheBufferLayoutIsReadIntoTheNewOneWithoutSharpening) {
    Frame f;
    f.desc.frame.jitter_x = 0.125f;
    f.desc.frame.jitter_convention = SWINUP_JITTER_FSR_DLSS;
    f.desc.signal_value = 11;
    f.desc.output_buffer.buffer = fake<VkBuffer>(0x702);
    f.desc.output = swinup_vulkan_image{};
    const size_t tail = sizeof(swinup_vulkan_dispatch_desc) - offsetof(swinup_vulkan_dispatch_desc, color);
    ASSERT_EQ(older_layout_size(SWINUP_DISPATCH_DESC_SIZE_V3, tail), size_t{SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4});
    alignas(swinup_vulkan_dispatch_desc) unsigned char v4[sizeof(swinup_vulkan_dispatch_desc)];
    std::memset(v4, 0xA5, sizeof v4);  // past the V4 size: not the caller's, never read
    write_older_layout(v4, f.desc, SWINUP_DISPATCH_DESC_SIZE_V3, tail);
    auto* caller = reinterpret_cast<swinup_vulkan_dispatch_desc*>(v4);
    caller->struct_size = SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4;
    caller->frame.struct_size = SWINUP_DISPATCH_DESC_SIZE_V3;
    swinup_vulkan_dispatch_desc read;
    const Validation v = read_vulkan_dispatch_desc(caller, &read);
    ASSERT_TRUE(v.ok()) << v.message;
    EXPECT_EQ(read.struct_size, SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5);
    EXPECT_EQ(read.frame.struct_size, SWINUP_DISPATCH_DESC_SIZE_V4);
    EXPECT_EQ(read.frame.jitter_x, 0.125f);
    EXPECT_EQ(read.frame.jitter_convention, SWINUP_JITTER_FSR_DLSS);
    EXPECT_EQ(read.frame.sharpness, 0.0f);
    EXPECT_EQ(read.signal_value, 11u);
    EXPECT_EQ(read.output_buffer.buffer, f.desc.output_buffer.buffer);
    EXPECT_EQ(read.output.image, VK_NULL_HANDLE);
}

// The signal point is read by both backends: a semaphore with the value 0 (reached before anything
// ran) is refused; no semaphore with 0 is the default.
TEST(VulkanDispatchValidation, ASignalSemaphoreNeedsAValueAboveZero) {
    Frame f;
    f.desc.signal_semaphore = fake<VkSemaphore>(0x900);
    expect_refused(f, "vulkan_dispatch.signal_value: is 0, but signal_semaphore is set (a timeline semaphore starts at "
                      "0 and is signalled to values above it)");
    f.desc.signal_value = 1;
    EXPECT_TRUE(f.check().ok()) << f.check().message;
}

// A role given as a buffer has no image: both set is refused, naming both fields; a buffer role's
// image checks are skipped (the CUDA backend's checks of the buffer are test_vulkan_import_validation's).
TEST(VulkanDispatchValidation, ARoleIsAnImageOrABufferNotBoth) {
    Frame f;
    f.desc.depth_buffer.buffer = fake<VkBuffer>(0x700);
    expect_refused(f, "vulkan_dispatch.depth_buffer.buffer: is set, and so is vulkan_dispatch.depth.image (give the "
                      "depth as an image or as a buffer, not both)");
    f.desc.depth = swinup_vulkan_image{};
    EXPECT_TRUE(f.check().ok()) << f.check().message;
    f.desc.output_buffer.buffer = fake<VkBuffer>(0x701);
    f.desc.output = swinup_vulkan_image{};
    EXPECT_TRUE(f.check().ok()) << f.check().message;
}

// An unknown jitter convention is refused with the frame's field path.
TEST(VulkanDispatchValidation, AnUnknownJitterConventionIsRefused) {
    expect_refused_after([](Frame& f) { store_raw(&f.desc.frame.jitter_convention, 7); },
                         "vulkan_dispatch.frame.jitter_convention: must be SWINUP_JITTER_SAMPLE_OFFSET (0) or "
                         "SWINUP_JITTER_FSR_DLSS (1), got 7");
}

// The masks' images: R8_UNORM, R16_SFLOAT or R32_SFLOAT, sampled, in a read layout, at least the
// render size, each an image of its own; absent (VK_NULL_HANDLE) needs nothing else.
TEST(VulkanDispatchValidation, MaskImagesAreCheckedLikeTheOtherInputs) {
    for (int m = 0; m < 2; ++m) {
        const std::string name = m == 0 ? "reactive_mask" : "transparency_mask";
        SCOPED_TRACE(name);
        for (VkFormat format : {VK_FORMAT_R8_UNORM, VK_FORMAT_R16_SFLOAT, VK_FORMAT_R32_SFLOAT}) {
            Frame f;
            swinup_vulkan_image& mask = m == 0 ? f.desc.reactive_mask : f.desc.transparency_mask;
            mask = stand_in_image(0x600, format, 64, 48, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                  VK_IMAGE_USAGE_SAMPLED_BIT);
            EXPECT_TRUE(f.check().ok()) << f.check().message;
        }
        const auto refused = [&](auto change, const std::string& message) {
            Frame f;
            swinup_vulkan_image& mask = m == 0 ? f.desc.reactive_mask : f.desc.transparency_mask;
            mask = stand_in_image(0x600, VK_FORMAT_R8_UNORM, 64, 48, VK_IMAGE_LAYOUT_GENERAL,
                                  VK_IMAGE_USAGE_SAMPLED_BIT);
            change(f, mask);
            const Validation v = f.check();
            EXPECT_EQ(v.status, SWINUP_STATUS_INVALID_ARGUMENT);
            EXPECT_EQ(v.message.rfind(message, 0), 0u) << v.message;
        };
        refused([](Frame&, swinup_vulkan_image& i) { i.format = VK_FORMAT_R8G8B8A8_UNORM; },
                "vulkan_dispatch." + name +
                    ".format: expected VK_FORMAT_R8_UNORM, VK_FORMAT_R16_SFLOAT or VK_FORMAT_R32_SFLOAT "
                    "(SWINUP_FORMAT_R8_UNORM), got VK_FORMAT_R8G8B8A8_UNORM");
        refused([](Frame&, swinup_vulkan_image& i) { i.usage = VK_IMAGE_USAGE_STORAGE_BIT; },
                "vulkan_dispatch." + name + ".usage: lacks VK_IMAGE_USAGE_SAMPLED_BIT");
        refused([](Frame&, swinup_vulkan_image& i) { i.layout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL; },
                "vulkan_dispatch." + name + ".layout: expected VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL or "
                                            "VK_IMAGE_LAYOUT_GENERAL, got VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL");
        refused([](Frame&, swinup_vulkan_image& i) { i.height = 47; },
                "vulkan_dispatch." + name + ".height: the image is 64x47, smaller than the 64x48 texels");
        refused([](Frame&, swinup_vulkan_image& i) { i.view = VK_NULL_HANDLE; },
                "vulkan_dispatch." + name + ".view: is VK_NULL_HANDLE");
        refused([](Frame& f, swinup_vulkan_image& i) { i.image = f.desc.depth.image; },
                "vulkan_dispatch." + name + ".image: is also vulkan_dispatch.depth.image");
    }
    Frame both;
    both.desc.reactive_mask = stand_in_image(0x600, VK_FORMAT_R8_UNORM, 64, 48, VK_IMAGE_LAYOUT_GENERAL,
                                             VK_IMAGE_USAGE_SAMPLED_BIT);
    both.desc.transparency_mask = both.desc.reactive_mask;
    EXPECT_EQ(both.check().message.rfind("vulkan_dispatch.transparency_mask.image: is also "
                                         "vulkan_dispatch.reactive_mask.image",
                                         0),
              0u)
        << both.check().message;
}

// Formats and layouts that no enumerator has, negative ones included (outside the range of
// VkFormat and VkImageLayout as C++ sees them, whose enumerators are all >= 0): refused naming the
// field and the number the caller stored, compared as integers, never converted to the enum
// (the sanitizer build's -fsanitize=enum reports any load of such a value as the enum type).
TEST(VulkanDispatchValidation, FormatsAndLayoutsOutsideTheEnumsAreNamedByTheirNumber) {
    for (const int32_t raw : {-7, -2147483647 - 1, 1000999999}) {
        SCOPED_TRACE(raw);
        const std::string n = std::to_string(raw);
        expect_refused_after([raw](Frame& f) { store_raw(&f.desc.color.format, raw); },
                             "vulkan_dispatch.color.format: expected VK_FORMAT_R16G16B16A16_SFLOAT, "
                             "VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_B10G11R11_UFLOAT_PACK32 or "
                             "VK_FORMAT_A2B10G10R10_UNORM_PACK32 (SWINUP_FORMAT_RGBA16F), got VkFormat " + n);
        expect_refused_after([raw](Frame& f) { store_raw(&f.desc.motion_vectors.layout, raw); },
                             "vulkan_dispatch.motion_vectors.layout: expected VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL "
                             "or VK_IMAGE_LAYOUT_GENERAL, got VkImageLayout " + n +
                                 " (swinup records no layout transition: the application's barrier puts the image "
                                 "in one of these)");
        Frame masked;
        masked.desc.reactive_mask = stand_in_image(0x600, VK_FORMAT_R8_UNORM, 64, 48, VK_IMAGE_LAYOUT_GENERAL,
                                                   VK_IMAGE_USAGE_SAMPLED_BIT);
        store_raw(&masked.desc.reactive_mask.format, raw);
        EXPECT_EQ(masked.check().message.rfind("vulkan_dispatch.reactive_mask.format: expected VK_FORMAT_R8_UNORM, "
                                               "VK_FORMAT_R16_SFLOAT or VK_FORMAT_R32_SFLOAT (SWINUP_FORMAT_R8_UNORM), "
                                               "got VkFormat " + n, 0),
                  0u)
            << masked.check().message;

        // The reactive-mask descriptor's images go through the same checks.
        swinup_vulkan_reactive_mask_desc mask;
        swinup_vulkan_reactive_mask_desc_init(&mask);
        mask.mask.render_width = 64;
        mask.mask.render_height = 48;
        mask.opaque_color = stand_in_image(0x100, VK_FORMAT_R16G16B16A16_SFLOAT, 64, 48, swinup::test::kStandInRead,
                                           swinup::test::kStandInSampled);
        mask.final_color = stand_in_image(0x200, VK_FORMAT_R16G16B16A16_SFLOAT, 64, 48, swinup::test::kStandInRead,
                                          swinup::test::kStandInSampled);
        mask.output = stand_in_image(0x300, VK_FORMAT_R8_UNORM, 64, 48, VK_IMAGE_LAYOUT_GENERAL,
                                     VK_IMAGE_USAGE_STORAGE_BIT);
        const swinup_context_desc context = swinup::sized_context_desc(64, 48, 128, 96);
        ASSERT_TRUE(validate_vulkan_reactive_mask_desc(mask, context).ok())
            << validate_vulkan_reactive_mask_desc(mask, context).message;
        swinup_vulkan_reactive_mask_desc bad_format = mask;
        store_raw(&bad_format.output.format, raw);
        EXPECT_EQ(validate_vulkan_reactive_mask_desc(bad_format, context).message.rfind(
                      "vulkan_reactive_mask.output.format: expected VK_FORMAT_R8_UNORM, VK_FORMAT_R16_SFLOAT or "
                      "VK_FORMAT_R32_SFLOAT", 0),
                  0u)
            << validate_vulkan_reactive_mask_desc(bad_format, context).message;
        EXPECT_NE(validate_vulkan_reactive_mask_desc(bad_format, context).message.find("got VkFormat " + n),
                  std::string::npos);
        swinup_vulkan_reactive_mask_desc bad_layout = mask;
        store_raw(&bad_layout.final_color.layout, raw);
        EXPECT_EQ(validate_vulkan_reactive_mask_desc(bad_layout, context).message.rfind(
                      "vulkan_reactive_mask.final_color.layout: expected VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL or "
                      "VK_IMAGE_LAYOUT_GENERAL, got VkImageLayout " + n, 0),
                  0u)
            << validate_vulkan_reactive_mask_desc(bad_layout, context).message;
    }
}

// A caller whose struct is only struct_size bytes long (here 4, allocated exactly: the sanitizer
// build reports any read past them) is refused on struct_size alone: the member frame's
// struct_size, which lies past those bytes, is not read.
TEST(VulkanDispatchValidation, AStructOfFourBytesIsRefusedWithoutReadingPastThem) {
    auto* bytes = static_cast<unsigned char*>(std::malloc(sizeof(uint32_t)));
    ASSERT_NE(bytes, nullptr);
    const uint32_t size = sizeof(uint32_t);
    std::memcpy(bytes, &size, sizeof size);
    swinup_vulkan_dispatch_desc out;
    const Validation v = read_vulkan_dispatch_desc(reinterpret_cast<const swinup_vulkan_dispatch_desc*>(bytes), &out);
    std::free(bytes);
    EXPECT_EQ(v.status, SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(v.message.rfind("vulkan_dispatch.struct_size: swinup_vulkan_dispatch_desc accepts ", 0), 0u) << v.message;
    EXPECT_NE(v.message.find("got 4"), std::string::npos) << v.message;
}

TEST(VulkanDispatchValidation, DeviceDescriptionsNameTheMissingHandle) {
    swinup_vulkan_device_desc d;
    swinup_vulkan_device_desc_init(&d);
    Validation v = validate_vulkan_device_desc(d);
    EXPECT_EQ(v.message, "vulkan_device.instance: is VK_NULL_HANDLE");
    d.instance = fake<VkInstance>(0x10);
    d.physical_device = fake<VkPhysicalDevice>(0x20);
    v = validate_vulkan_device_desc(d);
    EXPECT_EQ(v.message, "vulkan_device.device: is VK_NULL_HANDLE");
    d.device = fake<VkDevice>(0x30);
    EXPECT_TRUE(validate_vulkan_device_desc(d).ok()) << validate_vulkan_device_desc(d).message;
    d.api_version = VK_API_VERSION_1_0;
    v = validate_vulkan_device_desc(d);
    EXPECT_EQ(v.status, SWINUP_STATUS_UNSUPPORTED);
    EXPECT_EQ(v.message, "vulkan_device.api_version: 1.0: swinup needs Vulkan 1.1 or newer");
    d.api_version = VK_API_VERSION_1_3;
    d.enabled_extension_count = 2;
    v = validate_vulkan_device_desc(d);
    EXPECT_EQ(v.message, "vulkan_device.enabled_extensions: is NULL, but enabled_extension_count is 2");
    const char* names[2] = {"VK_KHR_16bit_storage", nullptr};
    d.enabled_extensions = names;
    EXPECT_EQ(validate_vulkan_device_desc(d).message, "vulkan_device.enabled_extensions[1]: is NULL");
    d.enabled_extensions = nullptr;
    d.enabled_extension_count = 0;
    d.struct_size = SWINUP_VULKAN_DEVICE_DESC_SIZE_V1;  // 0.1.0's size: still accepted
    EXPECT_TRUE(validate_vulkan_device_desc(d).ok()) << validate_vulkan_device_desc(d).message;
    d.struct_size = 3;
    const std::string refused = "vulkan_device.struct_size: swinup_vulkan_device_desc accepts " +
                                std::to_string(SWINUP_VULKAN_DEVICE_DESC_SIZE_V1) +
                                " (SWINUP_VULKAN_DEVICE_DESC_SIZE_V1) or " + std::to_string(sizeof(swinup_vulkan_device_desc)) +
                                " (SWINUP_VULKAN_DEVICE_DESC_SIZE_V2; call swinup_vulkan_device_desc_init), got 3";
    EXPECT_EQ(validate_vulkan_device_desc(d).message, refused);
    // The read takes only struct_size from a descriptor of a size it never had.
    swinup_vulkan_device_desc read;
    EXPECT_EQ(read_vulkan_device_desc(&d, &read).message, refused);
}

TEST(VulkanDispatchValidation, AllocationCallbacksFollowVulkansRules) {
    swinup_vulkan_device_desc d;
    swinup_vulkan_device_desc_init(&d);
    d.instance = fake<VkInstance>(0x10);
    d.physical_device = fake<VkPhysicalDevice>(0x20);
    d.device = fake<VkDevice>(0x30);
    VkAllocationCallbacks a{};
    d.allocation_callbacks = &a;
    EXPECT_EQ(validate_vulkan_device_desc(d).message, "vulkan_device.allocation_callbacks->pfnAllocation: is NULL");
    a.pfnAllocation = [](void*, size_t, size_t, VkSystemAllocationScope) -> void* { return nullptr; };
    EXPECT_EQ(validate_vulkan_device_desc(d).message, "vulkan_device.allocation_callbacks->pfnReallocation: is NULL");
    a.pfnReallocation = [](void*, void*, size_t, size_t, VkSystemAllocationScope) -> void* { return nullptr; };
    EXPECT_EQ(validate_vulkan_device_desc(d).message, "vulkan_device.allocation_callbacks->pfnFree: is NULL");
    a.pfnFree = [](void*, void*) {};
    EXPECT_TRUE(validate_vulkan_device_desc(d).ok()) << validate_vulkan_device_desc(d).message;
    a.pfnInternalFree = [](void*, size_t, VkInternalAllocationType, VkSystemAllocationScope) {};
    EXPECT_EQ(validate_vulkan_device_desc(d).message,
              "vulkan_device.allocation_callbacks->pfnInternalAllocation: must be given together with "
              "pfnInternalFree (both or neither)");
}

}  // namespace
