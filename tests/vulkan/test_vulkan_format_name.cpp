// vk_format_name (src/vulkan/runtime/vk_format_name.h), which every message about a VkFormat uses:
// each format the Vulkan-facing API accepts (every image rule's list, so a format added to a rule
// must be named too), the ones swinup's own images use and the usual mistakes are named as the
// Vulkan headers spell them; any other value is its number. No device needed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "vulkan/api/vulkan_image_rules.h"
#include "vulkan/runtime/vk_format_name.h"

namespace {

using swinup::vulkan::vk_format_name;
namespace rules = swinup::vulkan_api;

std::vector<const rules::ImageRule*> every_rule(std::vector<rules::ImageRule>* keep) {
    keep->push_back(rules::reactive_colour_rule("opaque_color"));
    for (swinup_format f : {SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_RGBA8})
        keep->push_back(rules::output_rule(f));
    std::vector<const rules::ImageRule*> all = {&rules::color_rule(),          &rules::depth_rule(),
                                                &rules::motion_vectors_rule(), &rules::exposure_rule(),
                                                &rules::reactive_mask_rule(),  &rules::transparency_mask_rule(),
                                                &rules::reactive_output_rule()};
    for (const rules::ImageRule& r : *keep) all.push_back(&r);
    return all;
}

TEST(VkFormatName, EveryAcceptedFormatIsNamed) {
    std::vector<rules::ImageRule> keep;
    int formats = 0;
    for (const rules::ImageRule* rule : every_rule(&keep)) {
        for (VkFormat format : rule->formats) {
            if (format == VK_FORMAT_UNDEFINED) break;
            const std::string name = vk_format_name(format);
            EXPECT_EQ(name.rfind("VK_FORMAT_", 0), 0u) << rule->name << " accepts VkFormat " << int(format)
                                                       << ", named \"" << name << "\"";
            // The accepted-format list of a message uses the same names.
            EXPECT_NE(rules::format_list(*rule).find(name), std::string::npos) << rule->name;
            ++formats;
        }
    }
    EXPECT_GE(formats, 15);
}

TEST(VkFormatName, SpelledAsTheVulkanHeaders) {
    EXPECT_EQ(vk_format_name(VK_FORMAT_R16G16B16A16_SFLOAT), "VK_FORMAT_R16G16B16A16_SFLOAT");
    EXPECT_EQ(vk_format_name(VK_FORMAT_A2B10G10R10_UNORM_PACK32), "VK_FORMAT_A2B10G10R10_UNORM_PACK32");
    EXPECT_EQ(vk_format_name(VK_FORMAT_D32_SFLOAT), "VK_FORMAT_D32_SFLOAT");
    EXPECT_EQ(vk_format_name(VK_FORMAT_R32_UINT), "VK_FORMAT_R32_UINT");  // a format of swinup's own images
    // Formats engines use that an application may pass: named in the refusal, not numbered.
    EXPECT_EQ(vk_format_name(VK_FORMAT_B10G11R11_UFLOAT_PACK32), "VK_FORMAT_B10G11R11_UFLOAT_PACK32");
    EXPECT_EQ(vk_format_name(VK_FORMAT_D24_UNORM_S8_UINT), "VK_FORMAT_D24_UNORM_S8_UINT");
    EXPECT_EQ(vk_format_name(VK_FORMAT_D32_SFLOAT_S8_UINT), "VK_FORMAT_D32_SFLOAT_S8_UINT");
    EXPECT_EQ(vk_format_name(VK_FORMAT_B8G8R8A8_SRGB), "VK_FORMAT_B8G8R8A8_SRGB");
    EXPECT_EQ(vk_format_name(VK_FORMAT_UNDEFINED), "VK_FORMAT_UNDEFINED");
}

TEST(VkFormatName, OtherValuesAreNumbered) {
    EXPECT_EQ(vk_format_name(VK_FORMAT_ASTC_4x4_UNORM_BLOCK), "VkFormat " + std::to_string(int(VK_FORMAT_ASTC_4x4_UNORM_BLOCK)));
    EXPECT_EQ(vk_format_name(static_cast<VkFormat>(123456)), "VkFormat 123456");
}

}  // namespace
