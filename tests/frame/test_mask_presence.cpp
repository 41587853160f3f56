// Whether a mask is given, as every backend decides it (frame/input_image.h input_given,
// frame/mask_pixel.h staged_mask_pixel) and as the CUDA backend's frame records it
// (cuda/backend/frame_params.cuh set_masks). A mask imported from a Vulkan image reaches the CUDA
// backend as a texture object with no data pointer: it must count as given (has_masks, staging
// reads it), or the frame runs the graph with masks and stages zeros (the masks change nothing).
// Device-free: the texture itself is read only on a GPU (test_cuda_vulkan_interop's
// MaskImagesGiveTheHostPointerFramesWithMasks); here its handle is only compared with 0.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "cuda/backend/frame_params.cuh"
#include "frame/input_image.h"
#include "frame/mask_pixel.h"

namespace {

using swinup::InputImage;

// An R8_UNORM mask as the imported-image path describes it (vulkan_interop_backend.cu
// texture_input): a texture object, no data, no pitch.
InputImage imported_r8_mask() {
    InputImage im;
    im.texture = 0x1234;  // any non-zero cudaTextureObject_t
    im.channels = 1;
    im.unorm8 = 1;
    im.width = 4;
    im.height = 2;
    return im;
}

TEST(MaskPresence, AnInputIsGivenByDataOrByTexture) {
    EXPECT_FALSE(swinup::input_given(InputImage{}));
    InputImage in_memory;
    const uint8_t codes[2] = {0, 255};
    in_memory.data = codes;
    EXPECT_TRUE(swinup::input_given(in_memory));
    EXPECT_TRUE(swinup::input_given(imported_r8_mask())) << "an imported image has a texture and no data";
}

TEST(MaskPresence, AnImportedMaskMakesAFrameWithMasks) {
    const InputImage none;
    for (int which = 0; which < 3; ++which) {  // reactive only, transparency only, both
        swinup::cuda::FrameParams p;
        const InputImage reactive = which != 1 ? imported_r8_mask() : none;
        const InputImage transparency = which != 0 ? imported_r8_mask() : none;
        swinup::cuda::set_masks(&p, reactive, transparency);
        EXPECT_EQ(p.has_masks, 1) << "case " << which;
        EXPECT_EQ(p.reactive_mask.texture, reactive.texture) << "case " << which;
        EXPECT_EQ(p.transparency_mask.texture, transparency.texture) << "case " << which;
    }
    swinup::cuda::FrameParams p;
    p.has_masks = 1;  // a previous frame's value must not stay
    swinup::cuda::set_masks(&p, none, none);
    EXPECT_EQ(p.has_masks, 0);
}

TEST(MaskPresence, AMaskInMemoryMakesAFrameWithMasks) {
    const uint16_t half_one = 0x3c00;
    InputImage transparency;
    transparency.data = &half_one;
    transparency.pitch = 2;
    transparency.channels = 1;
    transparency.half = 1;
    transparency.width = transparency.height = 1;
    swinup::cuda::FrameParams p;
    swinup::cuda::set_masks(&p, InputImage{}, transparency);
    EXPECT_EQ(p.has_masks, 1);
    EXPECT_EQ(p.transparency_mask.data, &half_one);
}

// Staging: a mask not given is 0 everywhere, with nothing counted; a given one is its stage_mask()
// value (R8_UNORM code / 255, clamped, NaN -> 0 and counted).
TEST(MaskPresence, StagingReadsAGivenMaskAndZeroForAnAbsentOne) {
    bool nonfinite = true, out_of_range = true;
    EXPECT_EQ(swinup::staged_mask_pixel(InputImage{}, 3, 1, &nonfinite, &out_of_range), 0.0f);
    EXPECT_FALSE(nonfinite);
    EXPECT_FALSE(out_of_range);

    const std::vector<uint8_t> codes = {0, 51, 255, 0, 0, 0, 0, 102};  // 4x2, rows 4 bytes apart
    InputImage r8;
    r8.data = codes.data();
    r8.pitch = 4;
    r8.channels = 1;
    r8.unorm8 = 1;
    r8.width = 4;
    r8.height = 2;
    EXPECT_EQ(swinup::staged_mask_pixel(r8, 1, 0, &nonfinite, &out_of_range), 0.2f);
    EXPECT_EQ(swinup::staged_mask_pixel(r8, 2, 0, &nonfinite, &out_of_range), 1.0f);
    EXPECT_EQ(swinup::staged_mask_pixel(r8, 3, 1, &nonfinite, &out_of_range), 0.4f);

    const float values[3] = {0.25f, 1.5f, std::numeric_limits<float>::quiet_NaN()};
    InputImage r32;
    r32.data = values;
    r32.pitch = sizeof values;
    r32.channels = 1;
    r32.width = 3;
    r32.height = 1;
    EXPECT_EQ(swinup::staged_mask_pixel(r32, 0, 0, &nonfinite, &out_of_range), 0.25f);
    EXPECT_FALSE(nonfinite || out_of_range);
    EXPECT_EQ(swinup::staged_mask_pixel(r32, 1, 0, &nonfinite, &out_of_range), 1.0f);
    EXPECT_TRUE(out_of_range);
    EXPECT_EQ(swinup::staged_mask_pixel(r32, 2, 0, &nonfinite, &out_of_range), 0.0f);
    EXPECT_TRUE(nonfinite);
}

}  // namespace
