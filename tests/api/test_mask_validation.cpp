// The reactive and transparency masks of a dispatch are checked before anything runs
// (docs/masks.md, "Bad input"): format and size by the rules of the other inputs, and in host
// memory every value, which must lie in [0, 1]. NaN and Inf are not errors (staging reads them as
// 0 and counts them). A caller of the 0.1.0 descriptor size gets no masks, whatever lies past it.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "numeric/half.h"
#include "pipeline_fixture.h"
#include "swinup/swinup.h"

namespace swinup::test {
namespace {

constexpr uint32_t kW = 32, kH = 32;

class MaskValidation : public ::testing::Test {
protected:
    MaskValidation() : ctx_(small_context_desc(kW, kH, 64, 64)), frame_(kW, kH, 64, 64) {
        fill_pattern(frame_, 0.0f);
    }

    void expect_fails(const swinup_dispatch_desc& d, swinup_status status, const std::string& text) {
        EXPECT_EQ(swinup_dispatch(ctx_.ctx, &d), status) << swinup_last_error(ctx_.ctx);
        const std::string message = swinup_last_error(ctx_.ctx);
        EXPECT_NE(message.find(text), std::string::npos) << "message: " << message;
    }
    void expect_ok(const swinup_dispatch_desc& d) {
        EXPECT_EQ(swinup_dispatch(ctx_.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx_.ctx);
    }

    ContextHandle ctx_;
    FrameData frame_;
    std::vector<float> mask32_ = std::vector<float>(size_t(kW) * kH, 0.25f);
};

TEST_F(MaskValidation, FormatsOtherThanOneChannelUnormHalfOrFloatAreRefused) {
    swinup_dispatch_desc d = frame_.dispatch();
    d.reactive_mask = input_resource(mask32_.data(), SWINUP_FORMAT_RG16F, kW, kH);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT,
                 "dispatch.reactive_mask.format: expected SWINUP_FORMAT_R8_UNORM, SWINUP_FORMAT_R16F or "
                 "SWINUP_FORMAT_R32F, got SWINUP_FORMAT_RG16F");
    d = frame_.dispatch();
    d.transparency_mask = input_resource(mask32_.data(), SWINUP_FORMAT_RGBA8, kW, kH);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.transparency_mask.format: expected");
    const std::vector<uint8_t> mask8(size_t(kW) * kH, 64);
    const std::vector<uint16_t> mask16(size_t(kW) * kH, f32_to_f16_bits(0.25f));
    const void* data[3] = {mask8.data(), mask16.data(), mask32_.data()};
    const swinup_format formats[3] = {SWINUP_FORMAT_R8_UNORM, SWINUP_FORMAT_R16F, SWINUP_FORMAT_R32F};
    for (int i = 0; i < 3; ++i) {
        d = frame_.dispatch();
        d.transparency_mask = input_resource(data[i], formats[i], kW, kH);
        expect_ok(d);
    }
}

TEST_F(MaskValidation, AMaskMustHaveTheRenderSize) {
    swinup_dispatch_desc d = frame_.dispatch();
    d.transparency_mask = input_resource(mask32_.data(), SWINUP_FORMAT_R32F, kW / 2, kH);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT,
                 "dispatch.transparency_mask.width: expected 32x32 (render_width x render_height), got 16x32");
    d = frame_.dispatch();
    d.reactive_mask = input_resource(mask32_.data(), SWINUP_FORMAT_R32F, kW, kH - 1);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.reactive_mask.height");
    d = frame_.dispatch();
    d.reactive_mask = input_resource(mask32_.data(), SWINUP_FORMAT_R32F, kW, kH, SWINUP_MEMORY_HOST, kW * 4 - 4);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.reactive_mask.row_pitch");
}

TEST_F(MaskValidation, MemoryPointersAndOverlapFollowTheInputRules) {
    swinup_dispatch_desc d = frame_.dispatch();
    d.reactive_mask = input_resource(mask32_.data(), SWINUP_FORMAT_R32F, kW, kH, SWINUP_MEMORY_CUDA);
    expect_fails(d, SWINUP_STATUS_UNSUPPORTED, "dispatch.reactive_mask.memory: SWINUP_MEMORY_CUDA needs the CUDA backend");
    d = frame_.dispatch();
    d.transparency_mask = input_resource(reinterpret_cast<const uint8_t*>(mask32_.data()) + 1,
                                         SWINUP_FORMAT_R16F, kW, kH);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.transparency_mask.data: is not aligned to 2 bytes");
    d = frame_.dispatch();
    d.transparency_mask = input_resource(frame_.output.data(), SWINUP_FORMAT_R32F, kW, kH);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT,
                 "dispatch.output.data_mut: overlaps dispatch.transparency_mask.data");
    // One byte a pixel: any address and pitch will do.
    std::vector<uint8_t> bytes(size_t(kW + 3) * kH + 1, 200);
    d = frame_.dispatch();
    d.reactive_mask = input_resource(bytes.data() + 1, SWINUP_FORMAT_R8_UNORM, kW, kH, SWINUP_MEMORY_HOST, kW + 3);
    expect_ok(d);
}

TEST_F(MaskValidation, ValuesOutsideZeroToOneAreRefusedNamingThePixelAndTheValue) {
    std::vector<float> mask = mask32_;
    mask[size_t(3) * kW + 5] = 1.5f;
    swinup_dispatch_desc d = frame_.dispatch();
    d.reactive_mask = input_resource(mask.data(), SWINUP_FORMAT_R32F, kW, kH);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.reactive_mask: pixel (5, 3) is 1.5, outside [0, 1]");

    std::vector<uint16_t> half(size_t(kW) * kH, f32_to_f16_bits(1.0f));
    half[size_t(31) * kW + 31] = f32_to_f16_bits(-0.25f);
    d = frame_.dispatch();
    d.transparency_mask = input_resource(half.data(), SWINUP_FORMAT_R16F, kW, kH);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT,
                 "dispatch.transparency_mask: pixel (31, 31) is -0.25, outside [0, 1]");
    // The smallest step past 1 is refused too: exactly [0, 1], no tolerance.
    half[size_t(31) * kW + 31] = uint16_t(f32_to_f16_bits(1.0f) + 1);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.transparency_mask: pixel (31, 31) is 1.0009766");
    half[size_t(31) * kW + 31] = f32_to_f16_bits(0.0f);
    expect_ok(d);
}

TEST_F(MaskValidation, ARefusedMaskLeavesTheOutputUntouched) {
    std::vector<float> mask = mask32_;
    mask[7] = -1.0f;
    std::memset(frame_.output.data(), 0x5A, frame_.output.size());
    swinup_dispatch_desc d = frame_.dispatch();
    d.reactive_mask = input_resource(mask.data(), SWINUP_FORMAT_R32F, kW, kH);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.reactive_mask: pixel (7, 0) is -1");
    for (uint8_t b : frame_.output) ASSERT_EQ(b, 0x5A);
}

TEST_F(MaskValidation, NanAndInfAreNotErrors) {
    std::vector<float> mask = mask32_;
    mask[0] = std::numeric_limits<float>::quiet_NaN();
    mask[1] = std::numeric_limits<float>::infinity();
    mask[2] = -std::numeric_limits<float>::infinity();
    swinup_dispatch_desc d = frame_.dispatch();
    d.reactive_mask = input_resource(mask.data(), SWINUP_FORMAT_R32F, kW, kH);
    d.transparency_mask = input_resource(mask.data(), SWINUP_FORMAT_R32F, kW, kH);
    expect_ok(d);
}

TEST_F(MaskValidation, OnlyTheImageIsScannedNotTheRowPadding) {
    const size_t pitch_floats = kW + 4;
    std::vector<float> mask(pitch_floats * kH, 0.5f);
    for (uint32_t y = 0; y < kH; ++y)
        for (size_t x = kW; x < pitch_floats; ++x) mask[y * pitch_floats + x] = 7.0f;  // padding
    swinup_dispatch_desc d = frame_.dispatch();
    d.reactive_mask = input_resource(mask.data(), SWINUP_FORMAT_R32F, kW, kH, SWINUP_MEMORY_HOST,
                                     pitch_floats * sizeof(float));
    expect_ok(d);
    mask[size_t(9) * pitch_floats + 2] = 7.0f;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.reactive_mask: pixel (2, 9) is 7");
}

TEST_F(MaskValidation, ACallerOfTheFirstDescriptorSizeGetsNoMasks) {
    swinup_dispatch_desc d = frame_.dispatch();
    d.struct_size = SWINUP_DISPATCH_DESC_SIZE_V1;
    // What lies past the caller's size is not its: garbage there is never read.
    std::memset(&d.reactive_mask, 0xA5, sizeof d.reactive_mask);
    std::memset(&d.transparency_mask, 0xA5, sizeof d.transparency_mask);
    expect_ok(d);
    d.struct_size = SWINUP_DISPATCH_DESC_SIZE_V2;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.reactive_mask");
}

TEST(MaskDescriptor, InitLeavesBothMasksAbsent) {
    swinup_dispatch_desc d;
    std::memset(&d, 0x77, sizeof d);
    swinup_dispatch_desc_init(&d);
    EXPECT_EQ(d.struct_size, SWINUP_DISPATCH_DESC_SIZE_V4);  // the newest (with sharpness, 0: off)
    EXPECT_EQ(d.sharpness, 0.0f);
    EXPECT_GT(SWINUP_DISPATCH_DESC_SIZE_V2, SWINUP_DISPATCH_DESC_SIZE_V1);
    for (const swinup_resource* r : {&d.reactive_mask, &d.transparency_mask}) {
        EXPECT_EQ(r->data, nullptr);
        EXPECT_EQ(r->memory, SWINUP_MEMORY_HOST);
        EXPECT_EQ(r->format, SWINUP_FORMAT_UNKNOWN);
    }
}

}  // namespace
}  // namespace swinup::test
