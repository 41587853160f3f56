// src/frame/sharpen_pixel.h, the output's sharpening every backend runs: off at 0 (the pixel's own
// bits), a flat neighbourhood unchanged, an edge pushed apart but never beyond the local range,
// weaker where the local contrast is high, and stronger with the strength.
#include <gtest/gtest.h>

#include "frame/sharpen_pixel.h"

namespace swinup {
namespace {

void sharpen(float c, float n, float w, float e, float s, float sharpness, float* out) {
    const float cc[3] = {c, c, c}, nn[3] = {n, n, n}, ww[3] = {w, w, w}, ee[3] = {e, e, e}, ss[3] = {s, s, s};
    float o[3];
    sharpen_pixel(cc, nn, ww, ee, ss, sharpness, o);
    *out = o[0];
    EXPECT_EQ(o[1], o[0]);
    EXPECT_EQ(o[2], o[0]);
}

TEST(SharpenPixel, ZeroStrengthAndFlatNeighbourhoodsChangeNothing) {
    float out;
    sharpen(0.3f, 0.9f, 0.1f, 0.5f, 0.2f, 0.0f, &out);
    EXPECT_EQ(out, 0.3f);
    sharpen(0.42f, 0.42f, 0.42f, 0.42f, 0.42f, 1.0f, &out);
    EXPECT_EQ(out, 0.42f);
}

TEST(SharpenPixel, APixelIsPushedAwayFromItsNeighboursMeanMoreWithStrength) {
    // 0.7 among 0.5, 0.5, 0.5, 0.9 (mean 0.6): pushed up, within the local range [0.5, 0.9].
    float weak, strong;
    sharpen(0.7f, 0.5f, 0.5f, 0.5f, 0.9f, 0.5f, &weak);
    sharpen(0.7f, 0.5f, 0.5f, 0.5f, 0.9f, 1.0f, &strong);
    EXPECT_GT(weak, 0.7f);
    EXPECT_GT(strong, weak);
    EXPECT_NEAR(strong, (0.7 - 0.1875 * (0.5 / 0.9) * 2.4) / (1.0 - 4 * 0.1875 * (0.5 / 0.9)), 1e-6);
}

TEST(SharpenPixel, NeverLeavesTheLocalRange) {
    float out;
    sharpen(0.6f, 0.5f, 0.5f, 0.5f, 0.5f, 1.0f, &out);  // a local maximum stays where it is
    EXPECT_EQ(out, 0.6f);
    sharpen(0.2f, 0.5f, 0.3f, 0.4f, 0.25f, 1.0f, &out);  // and a local minimum
    EXPECT_EQ(out, 0.2f);
}

TEST(SharpenPixel, HighLocalContrastSharpensLess) {
    // The lobe scales with lo / hi: beside a near-black neighbour the same pixel gains less.
    float soft, hard;
    sharpen(0.7f, 0.5f, 0.5f, 0.5f, 0.9f, 1.0f, &soft);
    sharpen(0.7f, 0.5f, 0.5f, 0.05f, 0.9f, 1.0f, &hard);
    EXPECT_GT(hard, 0.7f);
    EXPECT_LT(hard - 0.7f, soft - 0.7f);
    float none;
    sharpen(0.7f, 0.5f, 0.5f, 0.0f, 0.9f, 1.0f, &none);  // lo = 0: no lobe at all
    EXPECT_EQ(none, 0.7f);
}

}  // namespace
}  // namespace swinup
