// Fast mode's choice of GEMM kernels: which cooperative-matrix shape the matrix path is
// specialised for, from the lists drivers report (public sources, docs/vulkan.md), and the
// portable fallback on a device with no usable shape (lavapipe has no VK_KHR_cooperative_matrix).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "vulkan/runtime/cooperative_matrix.h"
#include "vulkan_test_support.h"

namespace swinup::vulkan {
namespace {

constexpr VkComponentTypeKHR kF16 = VK_COMPONENT_TYPE_FLOAT16_KHR;
constexpr VkComponentTypeKHR kF32 = VK_COMPONENT_TYPE_FLOAT32_KHR;
constexpr VkComponentTypeKHR kS8 = VkComponentTypeKHR(3);
constexpr VkComponentTypeKHR kS32 = VkComponentTypeKHR(5);

MatrixShape shape(uint32_t m, uint32_t n, uint32_t k, VkComponentTypeKHR ab = kF16, VkComponentTypeKHR c = kF32,
                  VkScopeKHR scope = VK_SCOPE_SUBGROUP_KHR, bool saturating = false) {
    return {m, n, k, ab, ab, c, c, saturating, scope};
}

TEST(MatrixShapeChoice, NvidiaTakesTheLargestF16Shape) {
    // NVIDIA (Ampere to Blackwell): f16 16x16x16, 16x8x16, 16x8x8 with f16 or f32 sums; int8 16x16x32 and 16x8x32.
    const std::vector<MatrixShape> shapes = {shape(16, 8, 16), shape(16, 8, 8), shape(16, 16, 16, kF16, kF16),
                                             shape(16, 16, 16), shape(16, 16, 32, kS8, kS32), shape(16, 8, 32, kS8, kS32)};
    MatrixShape chosen;
    ASSERT_TRUE(choose_matrix_shape(shapes, &chosen));
    EXPECT_EQ(chosen.m, 16u);
    EXPECT_EQ(chosen.n, 16u);
    EXPECT_EQ(chosen.k, 16u);
    EXPECT_EQ(chosen.c, kF32);
}

TEST(MatrixShapeChoice, AmdAndIntelShapesAreTaken) {
    MatrixShape chosen;
    // AMD RDNA3 / RDNA4: 16x16x16 (f16, bf16, int8 and f16 sums as well).
    ASSERT_TRUE(choose_matrix_shape({shape(16, 16, 16, kF16, kF16), shape(16, 16, 16), shape(16, 16, 16, kS8, kS32)},
                                    &chosen));
    EXPECT_EQ(chosen.m * chosen.n * chosen.k, 16u * 16u * 16u);
    EXPECT_EQ(chosen.c, kF32);
    // Intel Arc (Alchemist, Battlemage): 8x16x16.
    ASSERT_TRUE(choose_matrix_shape({shape(8, 16, 16), shape(8, 16, 32, kS8, kS32)}, &chosen));
    EXPECT_EQ(chosen.m, 8u);
    EXPECT_EQ(chosen.n, 16u);
    EXPECT_EQ(chosen.k, 16u);
}

TEST(MatrixShapeChoice, NoUsableShapeMeansThePortablePath) {
    MatrixShape chosen{7, 7, 7};
    EXPECT_FALSE(choose_matrix_shape({}, &chosen));
    // f16 sums only, saturating, workgroup scope, integer operands, and shapes the tiles cannot take.
    EXPECT_FALSE(choose_matrix_shape({shape(16, 16, 16, kF16, kF16), shape(16, 16, 16, kF16, kF32, VK_SCOPE_SUBGROUP_KHR, true),
                                      shape(16, 16, 16, kF16, kF32, VK_SCOPE_WORKGROUP_KHR),
                                      shape(16, 16, 32, kS8, kS32), shape(32, 8, 16), shape(16, 64, 16),
                                      shape(16, 16, 64), shape(0, 16, 16)},
                                     &chosen));
    EXPECT_EQ(chosen.m, 7u) << "a refused choice leaves the output as it was";
}

TEST(MatrixShapeChoice, ShapeTextNamesSizesTypesAndScope) {
    EXPECT_EQ(shape_text(shape(16, 8, 16)), "16x8x16 f16*f16+f32->f32 subgroup");
}

class VulkanMatrixPath : public testing::VulkanTest {};

// The device's path follows what it reports; a path it cannot run is refused and leaves the path.
TEST_F(VulkanMatrixPath, DeviceWithoutAUsableShapeRunsThePortablePath) {
    Device& d = device();
    const FastGemmPath before = d.fast_gemm_path();
    const MatrixSupport support = query_matrix_support(d.instance(), d.physical_device());
    std::printf("[ device   ] fast mode's GEMM: %s%s%s\n", fast_gemm_path_name(before),
                support.usable ? ", " : " (", support.usable ? shape_text(support.shape).c_str() : (support.reason + ")").c_str());
    if (!d.capabilities().cooperative_matrix) {
        EXPECT_FALSE(support.usable);
        EXPECT_FALSE(support.reason.empty());
        if (std::getenv("SWINUP_VULKAN_FAST_GEMM") == nullptr) {
            EXPECT_EQ(before, FastGemmPath::portable);
        }
        EXPECT_FALSE(d.can_run(FastGemmPath::matrix));
        EXPECT_FALSE(d.set_fast_gemm_path(FastGemmPath::matrix));
        EXPECT_EQ(d.fast_gemm_path(), before);
    } else {
        EXPECT_TRUE(support.usable);
        if (std::getenv("SWINUP_VULKAN_FAST_GEMM") == nullptr) {
            EXPECT_EQ(before, FastGemmPath::matrix);
        }
    }
    // A shape the tiles cannot take is refused for the emulated path too.
    const MatrixShape too_wide{16, 64, 16};
    if (d.can_run(FastGemmPath::matrix_emulated)) {
        EXPECT_FALSE(d.set_fast_gemm_path(FastGemmPath::matrix_emulated, &too_wide));
        EXPECT_EQ(d.fast_gemm_path(), before);
    }
    EXPECT_TRUE(d.set_fast_gemm_path(FastGemmPath::portable));
    EXPECT_TRUE(d.set_fast_gemm_path(before));
}

}  // namespace
}  // namespace swinup::vulkan
