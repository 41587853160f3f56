// VK_KHR_cooperative_matrix: what a device's matrix units offer, and the one shape the fast GEMM
// (shaders/layers/gemm_matrix.comp) is specialised for. Debian 12's Vulkan headers (1.3.239)
// predate the extension (1.3.255), so its structures are declared here when the headers lack
// them, with the registry's values.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <string>
#include <vector>

#ifndef VK_KHR_cooperative_matrix
#define VK_KHR_cooperative_matrix 1
#define VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME "VK_KHR_cooperative_matrix"
constexpr VkStructureType VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR = VkStructureType(1000506000);
constexpr VkStructureType VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR = VkStructureType(1000506001);
typedef enum VkComponentTypeKHR {
    VK_COMPONENT_TYPE_FLOAT16_KHR = 0,
    VK_COMPONENT_TYPE_FLOAT32_KHR = 1,
    VK_COMPONENT_TYPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkComponentTypeKHR;
typedef enum VkScopeKHR {
    VK_SCOPE_DEVICE_KHR = 1,
    VK_SCOPE_WORKGROUP_KHR = 2,
    VK_SCOPE_SUBGROUP_KHR = 3,
    VK_SCOPE_QUEUE_FAMILY_KHR = 5,
    VK_SCOPE_MAX_ENUM_KHR = 0x7FFFFFFF
} VkScopeKHR;
typedef struct VkCooperativeMatrixPropertiesKHR {
    VkStructureType sType;
    void* pNext;
    uint32_t MSize;
    uint32_t NSize;
    uint32_t KSize;
    VkComponentTypeKHR AType;
    VkComponentTypeKHR BType;
    VkComponentTypeKHR CType;
    VkComponentTypeKHR ResultType;
    VkBool32 saturatingAccumulation;
    VkScopeKHR scope;
} VkCooperativeMatrixPropertiesKHR;
typedef struct VkPhysicalDeviceCooperativeMatrixFeaturesKHR {
    VkStructureType sType;
    void* pNext;
    VkBool32 cooperativeMatrix;
    VkBool32 cooperativeMatrixRobustBufferAccess;
} VkPhysicalDeviceCooperativeMatrixFeaturesKHR;
typedef VkResult(VKAPI_PTR* PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR)(
    VkPhysicalDevice physicalDevice, uint32_t* pPropertyCount, VkCooperativeMatrixPropertiesKHR* pProperties);
#endif

namespace swinup::vulkan {

// One multiply-add shape D (M x N) = A (M x K) B (K x N) + C, with its component types and scope.
struct MatrixShape {
    uint32_t m = 0, n = 0, k = 0;
    VkComponentTypeKHR a = VK_COMPONENT_TYPE_FLOAT16_KHR, b = VK_COMPONENT_TYPE_FLOAT16_KHR;
    VkComponentTypeKHR c = VK_COMPONENT_TYPE_FLOAT32_KHR, result = VK_COMPONENT_TYPE_FLOAT32_KHR;
    bool saturating = false;
    VkScopeKHR scope = VK_SCOPE_SUBGROUP_KHR;
};

// The shapes the device reports (empty without the extension or its query).
std::vector<MatrixShape> query_matrix_shapes(VkInstance instance, VkPhysicalDevice physical);

// Whether the device offers VK_KHR_cooperative_matrix at all (an extension of the device).
bool has_cooperative_matrix_extension(VkPhysicalDevice physical);

// The workgroup tile of gemm_matrix.comp: 64 rows x kMatrixTileN outputs (64, or 32 for narrow
// layers) in K chunks of 32, four subgroups; a shape fits when its M divides 16 (the rows of a
// subgroup's part of a 32-output tile), its N divides 32 and its K divides 32.
constexpr uint32_t kMatrixTileRows = 64;
constexpr uint32_t kMatrixChunkK = 32;

// The shape the fast GEMM runs with: f16 A and B, f32 C and result, subgroup scope, not
// saturating, fitting the tile; among those the one with the fewest multiply-adds per K chunk
// issued by a subgroup (largest M x N, then K). Returns false when none fits (then the portable
// path runs).
bool choose_matrix_shape(const std::vector<MatrixShape>& shapes, MatrixShape* chosen);

// "16x16x16 f16*f16+f32 subgroup"
std::string shape_text(const MatrixShape& s);

}  // namespace swinup::vulkan
