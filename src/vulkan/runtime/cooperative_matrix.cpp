#include "vulkan/runtime/cooperative_matrix.h"

#include <cstring>

namespace swinup::vulkan {

bool has_cooperative_matrix_extension(VkPhysicalDevice physical) {
    uint32_t count = 0;
    if (vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr) != VK_SUCCESS) return false;
    std::vector<VkExtensionProperties> extensions(count);
    if (vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data()) != VK_SUCCESS) return false;
    for (const VkExtensionProperties& e : extensions) {
        if (std::strcmp(e.extensionName, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0) return true;
    }
    return false;
}

std::vector<MatrixShape> query_matrix_shapes(VkInstance instance, VkPhysicalDevice physical) {
    std::vector<MatrixShape> shapes;
    if (!has_cooperative_matrix_extension(physical)) return shapes;
    auto query = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
        vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
    if (!query) return shapes;
    uint32_t count = 0;
    if (query(physical, &count, nullptr) != VK_SUCCESS || count == 0) return shapes;
    std::vector<VkCooperativeMatrixPropertiesKHR> props(count);
    for (VkCooperativeMatrixPropertiesKHR& p : props) {
        p = {};
        p.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
    }
    if (query(physical, &count, props.data()) != VK_SUCCESS) return shapes;
    props.resize(count);
    for (const VkCooperativeMatrixPropertiesKHR& p : props) {
        shapes.push_back({p.MSize, p.NSize, p.KSize, p.AType, p.BType, p.CType, p.ResultType,
                          p.saturatingAccumulation == VK_TRUE, p.scope});
    }
    return shapes;
}

bool choose_matrix_shape(const std::vector<MatrixShape>& shapes, MatrixShape* chosen) {
    bool found = false;
    MatrixShape best;
    for (const MatrixShape& s : shapes) {
        const bool types = s.a == VK_COMPONENT_TYPE_FLOAT16_KHR && s.b == VK_COMPONENT_TYPE_FLOAT16_KHR &&
                           s.c == VK_COMPONENT_TYPE_FLOAT32_KHR && s.result == VK_COMPONENT_TYPE_FLOAT32_KHR;
        const bool fits = s.m != 0 && s.n != 0 && s.k != 0 && 16 % s.m == 0 && 32 % s.n == 0 &&
                          kMatrixChunkK % s.k == 0;
        if (!types || !fits || s.saturating || s.scope != VK_SCOPE_SUBGROUP_KHR) continue;
        const uint64_t area = uint64_t(s.m) * s.n, best_area = uint64_t(best.m) * best.n;
        if (!found || area > best_area || (area == best_area && s.k > best.k)) {
            best = s;
            found = true;
        }
    }
    if (found && chosen) *chosen = best;
    return found;
}

namespace {
const char* component_text(VkComponentTypeKHR t) {
    switch (int(t)) {
        case 0: return "f16";
        case 1: return "f32";
        case 2: return "f64";
        case 3: return "s8";
        case 4: return "s16";
        case 5: return "s32";
        case 6: return "s64";
        case 7: return "u8";
        case 8: return "u16";
        case 9: return "u32";
        case 10: return "u64";
        default: return "other";
    }
}
const char* scope_text(VkScopeKHR s) {
    switch (int(s)) {
        case 1: return "device";
        case 2: return "workgroup";
        case 3: return "subgroup";
        case 5: return "queue family";
        default: return "other";
    }
}
}  // namespace

std::string shape_text(const MatrixShape& s) {
    return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + " " + component_text(s.a) +
           "*" + component_text(s.b) + "+" + component_text(s.c) + "->" + component_text(s.result) + " " +
           scope_text(s.scope) + (s.saturating ? " saturating" : "");
}

}  // namespace swinup::vulkan
