// swinup_generate_reactive_mask (docs/masks.md, "Auto-reactive"): the mask of each pixel from the
// opaque and final colours, against values computed here in double, in every output format and
// mode; bad descriptors refused naming the field; the temporal state untouched.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "numeric/half.h"
#include "pipeline_fixture.h"
#include "swinup/swinup.h"

namespace swinup::test {
namespace {

constexpr uint32_t kW = 4, kH = 2;

// Two RGBA32F images and the expected mask, per pixel.
struct Colours {
    std::vector<float> opaque = std::vector<float>(kW * kH * 4, 0.0f);
    std::vector<float> final_colour = std::vector<float>(kW * kH * 4, 0.0f);
    void set(uint32_t i, const float a[3], const float b[3]) {
        for (int c = 0; c < 3; ++c) {
            opaque[i * 4 + c] = a[c];
            final_colour[i * 4 + c] = b[c];
        }
    }
};

Colours colours() {
    Colours s;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float o0[3] = {1, 1, 1}, f0[3] = {3, 1, 1};              // a red glow over white
    const float o1[3] = {0.5f, 0.5f, 0.5f}, f1[3] = {nan, 0.5f, 0.5f};  // NaN reads as 0
    const float o2[3] = {0.2f, 0.4f, 0.6f}, f2[3] = {0.2f, 0.4f, 0.6f};  // unchanged
    const float o3[3] = {0, 0, 0}, f3[3] = {0.1f, 2.0f, -5.0f};    // negative colour counts as 0 (tonemap)
    s.set(0, o0, f0);
    s.set(1, o1, f1);
    s.set(2, o2, f2);
    s.set(3, o3, f3);
    for (uint32_t i = 4; i < kW * kH; ++i) s.set(i, o2, f0);
    return s;
}

// The definition in double: d = |f(final) - f(opaque)|, f(x) = max(x, 0) / (1 + max(x, 0)) or x
// (NaN/Inf as 0); luma or max; min(1, scale * diff); binary mode.
double expected(const float a[3], const float b[3], double scale, bool tonemap, bool max_channel, double threshold = -1,
                double binary_value = 0) {
    auto f = [&](float x) {
        double v = std::isfinite(x) ? double(x) : 0.0;
        if (!tonemap) return v;
        v = std::max(v, 0.0);
        return v / (1.0 + v);
    };
    double d[3];
    for (int c = 0; c < 3; ++c) d[c] = std::fabs(f(b[c]) - f(a[c]));
    const double diff = max_channel ? std::max({d[0], d[1], d[2]}) : 0.2126 * d[0] + 0.7152 * d[1] + 0.0722 * d[2];
    const double v = std::min(1.0, scale * diff);
    if (threshold >= 0) return v >= threshold ? binary_value : 0.0;
    return v;
}

class ReactiveMask : public ::testing::Test {
protected:
    ReactiveMask() : ctx_(small_context_desc(32, 32, 64, 64)) {}

    swinup_reactive_mask_desc desc(void* out, swinup_format format) {
        swinup_reactive_mask_desc d;
        swinup_reactive_mask_desc_init(&d);
        d.opaque_color = input_resource(c_.opaque.data(), SWINUP_FORMAT_RGBA32F, kW, kH);
        d.final_color = input_resource(c_.final_colour.data(), SWINUP_FORMAT_RGBA32F, kW, kH);
        d.output = output_resource(out, format, kW, kH);
        d.render_width = kW;
        d.render_height = kH;
        return d;
    }
    void expect_fails(const swinup_reactive_mask_desc& d, swinup_status status, const std::string& text) {
        EXPECT_EQ(swinup_generate_reactive_mask(ctx_.ctx, &d), status);
        const std::string message = swinup_last_error(ctx_.ctx);
        EXPECT_NE(message.find(text), std::string::npos) << "message: " << message;
    }
    const float* a(uint32_t i) const { return &c_.opaque[i * 4]; }
    const float* b(uint32_t i) const { return &c_.final_colour[i * 4]; }

    ContextHandle ctx_;
    Colours c_ = colours();
};

TEST_F(ReactiveMask, DefaultsAreTonemappedLumaScaleOne) {
    swinup_reactive_mask_desc d;
    std::memset(&d, 0x33, sizeof d);
    swinup_reactive_mask_desc_init(&d);
    EXPECT_EQ(d.struct_size, SWINUP_REACTIVE_MASK_DESC_SIZE_V1);
    EXPECT_EQ(d.scale, 1.0f);
    EXPECT_EQ(d.threshold, 0.2f);
    EXPECT_EQ(d.binary_value, 0.9f);
    EXPECT_EQ(d.flags, uint32_t(SWINUP_REACTIVE_TONEMAP));
    EXPECT_EQ(d.output.data_mut, nullptr);

    std::vector<float> out(kW * kH, -1.0f);
    d = desc(out.data(), SWINUP_FORMAT_R32F);
    ASSERT_EQ(swinup_generate_reactive_mask(ctx_.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx_.ctx);
    EXPECT_NEAR(out[0], 0.2126 * 0.25, 1e-7);  // t(3) - t(1) = 0.75 - 0.5 in red
    EXPECT_NEAR(out[1], 0.2126 / 3.0, 1e-7);   // NaN as 0: t(0.5) = 1/3 in red
    EXPECT_EQ(out[2], 0.0f);
    for (uint32_t i = 0; i < kW * kH; ++i) EXPECT_NEAR(out[i], expected(a(i), b(i), 1, true, false), 1e-6) << i;
}

TEST_F(ReactiveMask, ScaleMaxChannelNoTonemapAndBinaryMode) {
    std::vector<float> out(kW * kH);
    swinup_reactive_mask_desc d = desc(out.data(), SWINUP_FORMAT_R32F);
    d.scale = 4.0f;
    d.flags = SWINUP_REACTIVE_TONEMAP | SWINUP_REACTIVE_MAX_CHANNEL;
    ASSERT_EQ(swinup_generate_reactive_mask(ctx_.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx_.ctx);
    EXPECT_EQ(out[0], 1.0f);  // 4 * 0.25
    for (uint32_t i = 0; i < kW * kH; ++i) EXPECT_NEAR(out[i], expected(a(i), b(i), 4, true, true), 1e-6) << i;

    d.scale = 0.25f;
    d.flags = 0;  // raw colour, luma
    ASSERT_EQ(swinup_generate_reactive_mask(ctx_.ctx, &d), SWINUP_STATUS_OK);
    EXPECT_NEAR(out[0], 0.25 * 0.2126 * 2.0, 1e-7);
    EXPECT_NEAR(out[3], 0.25 * (0.2126 * 0.1 + 0.7152 * 2.0 + 0.0722 * 5.0), 1e-6);  // |-5 - 0| counts raw
    for (uint32_t i = 0; i < kW * kH; ++i) EXPECT_NEAR(out[i], expected(a(i), b(i), 0.25, false, false), 1e-6) << i;

    d.scale = 1.0f;
    d.flags = SWINUP_REACTIVE_TONEMAP | SWINUP_REACTIVE_THRESHOLD | SWINUP_REACTIVE_MAX_CHANNEL;
    d.threshold = 0.25f;
    d.binary_value = 0.75f;
    ASSERT_EQ(swinup_generate_reactive_mask(ctx_.ctx, &d), SWINUP_STATUS_OK);
    EXPECT_EQ(out[0], 0.75f);  // max channel 0.25 >= 0.25
    EXPECT_EQ(out[1], 0.75f);  // 1/3
    EXPECT_EQ(out[2], 0.0f);
    for (uint32_t i = 0; i < kW * kH; ++i)
        EXPECT_EQ(out[i], float(expected(a(i), b(i), 1, true, true, 0.25, 0.75))) << i;
}

TEST_F(ReactiveMask, EveryMaskFormatIsWritten) {
    std::vector<float> f32(kW * kH);
    std::vector<uint16_t> f16(kW * kH);
    std::vector<uint8_t> u8(kW * kH + 3, 0xEE);  // a pitch of kW + 1: the padding stays
    swinup_reactive_mask_desc d = desc(f32.data(), SWINUP_FORMAT_R32F);
    d.scale = 3.0f;
    ASSERT_EQ(swinup_generate_reactive_mask(ctx_.ctx, &d), SWINUP_STATUS_OK);
    d.output = output_resource(f16.data(), SWINUP_FORMAT_R16F, kW, kH);
    ASSERT_EQ(swinup_generate_reactive_mask(ctx_.ctx, &d), SWINUP_STATUS_OK);
    d.output = output_resource(u8.data(), SWINUP_FORMAT_R8_UNORM, kW, kH, SWINUP_MEMORY_HOST, kW + 1);
    ASSERT_EQ(swinup_generate_reactive_mask(ctx_.ctx, &d), SWINUP_STATUS_OK);
    for (uint32_t y = 0; y < kH; ++y) {
        for (uint32_t x = 0; x < kW; ++x) {
            const float v = f32[y * kW + x];
            EXPECT_EQ(f16[y * kW + x], f32_to_f16_bits(v));
            EXPECT_EQ(u8[y * (kW + 1) + x], uint8_t(std::lround(double(v) * 255.0))) << x << "," << y;
        }
        EXPECT_EQ(u8[y * (kW + 1) + kW], 0xEE);
    }
    EXPECT_EQ(u8[0], uint8_t(std::lround(3.0 * 0.2126 * 0.25 * 255.0)));
}

TEST_F(ReactiveMask, BadDescriptorsAreRefusedNamingTheField) {
    std::vector<float> out(kW * kH, 7.0f);
    swinup_reactive_mask_desc d = desc(out.data(), SWINUP_FORMAT_R32F);
    d.struct_size = 8;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "reactive_mask_desc.struct_size: 8 is not a size");
    d = desc(out.data(), SWINUP_FORMAT_R32F);
    d.scale = -1.0f;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "reactive_mask_desc.scale: must be a finite non-negative number, got -1");
    d.scale = std::numeric_limits<float>::quiet_NaN();
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "reactive_mask_desc.scale");
    d = desc(out.data(), SWINUP_FORMAT_R32F);
    d.threshold = 1.5f;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "reactive_mask_desc.threshold: must be a finite number in [0, 1], got 1.5");
    d = desc(out.data(), SWINUP_FORMAT_R32F);
    d.binary_value = -0.1f;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "reactive_mask_desc.binary_value");
    d = desc(out.data(), SWINUP_FORMAT_R32F);
    d.flags = 1u << 7;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "reactive_mask_desc.flags: unknown bits 0x80");
    d = desc(out.data(), SWINUP_FORMAT_RG32F);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT,
                 "reactive_mask_desc.output.format: expected SWINUP_FORMAT_R8_UNORM, SWINUP_FORMAT_R16F or SWINUP_FORMAT_R32F");
    d = desc(out.data(), SWINUP_FORMAT_R32F);
    d.output.data_mut = nullptr;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "reactive_mask_desc.output.data_mut: is NULL");
    d = desc(out.data(), SWINUP_FORMAT_R32F);
    d.final_color.width = kW + 1;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "reactive_mask_desc.final_color.width: expected 4x2");
    d = desc(out.data(), SWINUP_FORMAT_R32F);
    d.render_width = 33;  // the context's largest render width is 32
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "reactive_mask_desc.render_width: must be 1..max_render_width (32), got 33");
    d = desc(c_.opaque.data(), SWINUP_FORMAT_R32F);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "reactive_mask_desc.output.data_mut: overlaps reactive_mask_desc.opaque_color.data");
    d = desc(out.data(), SWINUP_FORMAT_R32F);
    d.opaque_color.memory = SWINUP_MEMORY_CUDA;
    expect_fails(d, SWINUP_STATUS_UNSUPPORTED, "reactive_mask_desc.opaque_color.memory");
    for (float v : out) EXPECT_EQ(v, 7.0f);  // nothing written by a refused call
    EXPECT_EQ(swinup_generate_reactive_mask(ctx_.ctx, nullptr), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(swinup_generate_reactive_mask(nullptr, &d), SWINUP_STATUS_INVALID_ARGUMENT);
}

// The generated mask feeds a dispatch, and generating one changes nothing of the frames.
TEST(ReactiveMaskFrames, GeneratingLeavesTheTemporalStateAndTheMaskFeedsADispatch) {
    ContextHandle with(small_context_desc(32, 32, 64, 64)), without(small_context_desc(32, 32, 64, 64));
    FrameData f(32, 32, 64, 64), g(32, 32, 64, 64);
    std::vector<uint8_t> mask(32 * 32);
    for (uint32_t i = 0; i < 3; ++i) {
        const swinup_dispatch_desc da = moving_frame(f, i);
        const swinup_dispatch_desc db = moving_frame(g, i);
        swinup_reactive_mask_desc r;
        swinup_reactive_mask_desc_init(&r);
        r.opaque_color = da.color;
        r.final_color = db.color;
        r.output = output_resource(mask.data(), SWINUP_FORMAT_R8_UNORM, 32, 32);
        r.render_width = r.render_height = 32;
        ASSERT_EQ(swinup_generate_reactive_mask(with.ctx, &r), SWINUP_STATUS_OK) << swinup_last_error(with.ctx);
        ASSERT_EQ(swinup_dispatch(with.ctx, &da), SWINUP_STATUS_OK);
        ASSERT_EQ(swinup_dispatch(without.ctx, &db), SWINUP_STATUS_OK);
        EXPECT_EQ(f.output, g.output) << "frame " << i;
    }
    swinup_dispatch_desc d = moving_frame(f, 3);
    d.reactive_mask = input_resource(mask.data(), SWINUP_FORMAT_R8_UNORM, 32, 32);
    EXPECT_EQ(swinup_dispatch(with.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(with.ctx);
}

}  // namespace
}  // namespace swinup::test
