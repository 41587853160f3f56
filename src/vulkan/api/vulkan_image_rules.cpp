#include "vulkan/api/vulkan_image_rules.h"

#include "vulkan/runtime/vk_format_name.h"

namespace swinup::vulkan_api {

namespace {

// The swinup_format each accepted VkFormat carries (names: vk_format_name).
struct FormatEntry {
    VkFormat format;
    swinup_format carries;
};

constexpr FormatEntry kFormats[] = {
    {VK_FORMAT_R16G16B16A16_SFLOAT, SWINUP_FORMAT_RGBA16F},
    {VK_FORMAT_R32G32B32A32_SFLOAT, SWINUP_FORMAT_RGBA32F},
    {VK_FORMAT_R32_SFLOAT, SWINUP_FORMAT_R32F},
    {VK_FORMAT_D32_SFLOAT, SWINUP_FORMAT_R32F},
    {VK_FORMAT_R16G16_SFLOAT, SWINUP_FORMAT_RG16F},
    {VK_FORMAT_R32G32_SFLOAT, SWINUP_FORMAT_RG32F},
    {VK_FORMAT_A2B10G10R10_UNORM_PACK32, SWINUP_FORMAT_R10G10B10A2},
    {VK_FORMAT_R8G8B8A8_UNORM, SWINUP_FORMAT_RGBA8},
    {VK_FORMAT_R8_UNORM, SWINUP_FORMAT_R8_UNORM},
    {VK_FORMAT_R16_SFLOAT, SWINUP_FORMAT_R16F},
    {VK_FORMAT_B10G11R11_UFLOAT_PACK32, SWINUP_FORMAT_B10G11R11F},
    // Depth-stencil buffers read through their depth aspect: the depth as the host formats carry it.
    {VK_FORMAT_D24_UNORM_S8_UINT, SWINUP_FORMAT_D24_UNORM_S8},
    {VK_FORMAT_D32_SFLOAT_S8_UINT, SWINUP_FORMAT_D32F_S8},
};

struct LayoutEntry {
    VkImageLayout layout;
    const char* name;
};

constexpr LayoutEntry kLayouts[] = {
    {VK_IMAGE_LAYOUT_UNDEFINED, "VK_IMAGE_LAYOUT_UNDEFINED"},
    {VK_IMAGE_LAYOUT_GENERAL, "VK_IMAGE_LAYOUT_GENERAL"},
    {VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, "VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL"},
    {VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL, "VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL"},
    {VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL, "VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL"},
    {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, "VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL"},
    {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, "VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL"},
    {VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, "VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL"},
    {VK_IMAGE_LAYOUT_PREINITIALIZED, "VK_IMAGE_LAYOUT_PREINITIALIZED"},
    {VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL, "VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL"},
    {VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL, "VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL"},
    {VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL, "VK_IMAGE_LAYOUT_READ_ONLY_OPTIMAL"},
    {VK_IMAGE_LAYOUT_ATTACHMENT_OPTIMAL, "VK_IMAGE_LAYOUT_ATTACHMENT_OPTIMAL"},
    {VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, "VK_IMAGE_LAYOUT_PRESENT_SRC_KHR"},
};

constexpr VkImageLayout kSampledLayouts = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
constexpr const char* kSampledReason = "swinup reads the inputs as sampled images with texelFetch";

template <typename List, typename Value, typename Name>
std::string join(const List& list, size_t count, Value end, const Name& name) {
    size_t n = 0;
    while (n < count && list[n] != end) ++n;
    std::string s;
    for (size_t i = 0; i < n; ++i) {
        if (i > 0) s += (i + 1 == n) ? " or " : ", ";
        s += name(list[i]);
    }
    return s;
}

}  // namespace

// An unnamed value is shown as the 32-bit signed number a C caller stores in the field (raw_enum
// reads it as the enum's unsigned underlying type: -7 arrives as 4294967289); a stored value is
// converted to VkFormat only when it is one of the enum's (non-negative) values.
std::string vk_format_name(int64_t format) {
    const int32_t stored = static_cast<int32_t>(format);
    if (stored < 0) return "VkFormat " + std::to_string(stored);
    return vulkan::vk_format_name(static_cast<VkFormat>(stored));
}

std::string vk_layout_name(int64_t layout) {
    for (const LayoutEntry& e : kLayouts)
        if (static_cast<int64_t>(e.layout) == layout) return e.name;
    return "VkImageLayout " + std::to_string(static_cast<int32_t>(layout));
}

swinup_format swinup_format_of(VkFormat format) {
    for (const FormatEntry& e : kFormats)
        if (e.format == format) return e.carries;
    return SWINUP_FORMAT_UNKNOWN;
}

const ImageRule& color_rule() {
    static const ImageRule rule{"color",
                                {VK_FORMAT_R16G16B16A16_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT,
                                 VK_FORMAT_B10G11R11_UFLOAT_PACK32, VK_FORMAT_A2B10G10R10_UNORM_PACK32},
                                VK_IMAGE_USAGE_SAMPLED_BIT,
                                kSampledReason,
                                {kSampledLayouts, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_UNDEFINED}};
    return rule;
}

const ImageRule& depth_rule() {
    static const ImageRule rule{"depth",
                                {VK_FORMAT_R32_SFLOAT, VK_FORMAT_D32_SFLOAT, VK_FORMAT_D24_UNORM_S8_UINT,
                                 VK_FORMAT_D32_SFLOAT_S8_UINT},
                                VK_IMAGE_USAGE_SAMPLED_BIT,
                                kSampledReason,
                                {kSampledLayouts, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL,
                                 VK_IMAGE_LAYOUT_DEPTH_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL}};
    return rule;
}

const ImageRule& motion_vectors_rule() {
    static const ImageRule rule{"motion_vectors",
                                {VK_FORMAT_R16G16_SFLOAT, VK_FORMAT_R32G32_SFLOAT, VK_FORMAT_UNDEFINED},
                                VK_IMAGE_USAGE_SAMPLED_BIT,
                                kSampledReason,
                                {kSampledLayouts, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_UNDEFINED}};
    return rule;
}

const ImageRule& exposure_rule() {
    static const ImageRule rule{"exposure",
                                {VK_FORMAT_R32_SFLOAT, VK_FORMAT_UNDEFINED, VK_FORMAT_UNDEFINED},
                                VK_IMAGE_USAGE_SAMPLED_BIT,
                                kSampledReason,
                                {kSampledLayouts, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_UNDEFINED}};
    return rule;
}

namespace {
ImageRule mask_rule(const char* name) {
    return ImageRule{name,
                     {VK_FORMAT_R8_UNORM, VK_FORMAT_R16_SFLOAT, VK_FORMAT_R32_SFLOAT},
                     VK_IMAGE_USAGE_SAMPLED_BIT,
                     kSampledReason,
                     {kSampledLayouts, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_UNDEFINED}};
}
}  // namespace

const ImageRule& reactive_mask_rule() {
    static const ImageRule rule = mask_rule("reactive_mask");
    return rule;
}

const ImageRule& transparency_mask_rule() {
    static const ImageRule rule = mask_rule("transparency_mask");
    return rule;
}

ImageRule reactive_colour_rule(const char* name) {
    // The float colour formats only: the reactive mask's values are the CPU's to the bit, and
    // swinup_generate_reactive_mask takes float colours (the packed ones are a frame's input).
    ImageRule rule = color_rule();
    rule.name = name;
    rule.formats[2] = VK_FORMAT_UNDEFINED;
    rule.formats[3] = VK_FORMAT_UNDEFINED;
    return rule;
}

const ImageRule& reactive_output_rule() {
    static const ImageRule rule{"output",
                                {VK_FORMAT_R8_UNORM, VK_FORMAT_R16_SFLOAT, VK_FORMAT_R32_SFLOAT},
                                VK_IMAGE_USAGE_STORAGE_BIT,
                                "swinup writes the mask with imageStore",
                                {VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_UNDEFINED,
                                 VK_IMAGE_LAYOUT_UNDEFINED}};
    return rule;
}

ImageRule output_rule(swinup_format output_format) {
    VkFormat format = VK_FORMAT_R16G16B16A16_SFLOAT;
    if (output_format == SWINUP_FORMAT_R10G10B10A2) format = VK_FORMAT_A2B10G10R10_UNORM_PACK32;
    if (output_format == SWINUP_FORMAT_RGBA8) format = VK_FORMAT_R8G8B8A8_UNORM;
    if (output_format == SWINUP_FORMAT_B10G11R11F) format = VK_FORMAT_B10G11R11_UFLOAT_PACK32;
    return ImageRule{"output",
                     {format, VK_FORMAT_UNDEFINED, VK_FORMAT_UNDEFINED},
                     VK_IMAGE_USAGE_STORAGE_BIT,
                     "swinup writes the output with imageStore",
                     {VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_UNDEFINED}};
}

std::string format_list(const ImageRule& rule) {
    return join(rule.formats, sizeof rule.formats / sizeof rule.formats[0], VK_FORMAT_UNDEFINED,
                [](VkFormat f) { return vk_format_name(f); });
}

std::string layout_list(const ImageRule& rule) {
    return join(rule.layouts, 4, VK_IMAGE_LAYOUT_UNDEFINED, [](VkImageLayout l) { return vk_layout_name(l); });
}

}  // namespace swinup::vulkan_api
