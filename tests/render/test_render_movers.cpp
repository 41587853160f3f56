// The `movers` scene (training data for disocclusion): laid out by the seed, the same for the
// same seed, its objects moving at speeds that differ between seeds, uncovering its backdrop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "render/render_sequence.h"
#include "render/scenes.h"
#include "render_test_settings.h"

using namespace swinup;
using namespace swinup::render;

namespace {

bool same_layout(const Scene& a, const Scene& b, float t) {
    if (a.instances.size() != b.instances.size()) return false;
    for (size_t i = 0; i < a.animations.size(); ++i) {
        const Affine x = a.animations[i](t), y = b.animations[i](t);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 4; ++c)
                if (x.m[r][c] != y.m[r][c]) return false;
    }
    return true;
}

}  // namespace

TEST(RenderMovers, IsABuiltinSceneLaidOutByTheSeed) {
    const std::vector<std::string> names = builtin_scene_names();
    EXPECT_NE(std::find(names.begin(), names.end(), "movers"), names.end());
    EXPECT_FALSE(builtin_scene_description("movers").empty());
    auto a = builtin_scene_create("movers", 5), b = builtin_scene_create("movers", 5), c = builtin_scene_create("movers", 6);
    ASSERT_TRUE(a && b && c);
    EXPECT_TRUE(same_layout(*a, *b, 0.4f));
    EXPECT_FALSE(same_layout(*a, *c, 0.4f));
    // Six to nine movers and the backdrop's one static instance.
    EXPECT_GE(a->instances.size(), 7u);
    EXPECT_LE(a->instances.size(), 10u);
}

// Rendered: moving objects cover a share of the picture and uncover the backdrop, and how fast
// they move differs from seed to seed (the training sees slow and fast motion).
TEST(RenderMovers, ObjectsMoveAtVariedSpeedsAndUncoverTheBackdrop) {
    std::vector<double> fastest;
    for (const uint64_t seed : {1u, 2u, 3u, 4u}) {
        RenderSettings s = test::render_settings("movers", 4, 96, 54, 192, 108);
        s.ground_truth = false;
        s.seed = seed;
        const RenderedSequence seq = render_sequence(s);
        ASSERT_TRUE(seq.info.has_motion_masks);
        double moving = 0, uncovered = 0, top = 0;
        for (int i = 1; i < 4; ++i) {
            const Frame& f = seq.frames[size_t(i)];
            for (int p = 0; p < 192 * 108; ++p) {
                uncovered += f.motion_masks.data[size_t(p) * 2];
                moving += f.motion_masks.data[size_t(p) * 2 + 1];
            }
            for (int p = 0; p < 96 * 54; ++p) {
                top = std::max(top, double(std::hypot(f.mv.data[size_t(p) * 2], f.mv.data[size_t(p) * 2 + 1])));
            }
        }
        const double pixels = 3.0 * 192 * 108;
        EXPECT_GT(moving / pixels, 0.02) << "seed " << seed;
        EXPECT_GT(uncovered / pixels, 0.002) << "seed " << seed;
        fastest.push_back(top);
        std::printf("seed %d: moving objects %.1f%%, uncovered %.1f%%, fastest %.1f render px a frame\n", int(seed),
                    100.0 * moving / pixels, 100.0 * uncovered / pixels, top);
    }
    const auto [lo, hi] = std::minmax_element(fastest.begin(), fastest.end());
    EXPECT_GT(*lo, 0.2);        // render pixels a frame: every layout moves
    EXPECT_GT(*hi, 1.5 * *lo);  // and the seeds differ in how fast
}
