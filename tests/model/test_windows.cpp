// The token index maps of model/window_map.h (shared by the CPU and CUDA backends) against
// independent constructions: an explicitly rolled grid, Swin's region-label mask, and the 2x2
// space-to-depth layout written out by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "model/window_map.h"
#include "cpu/layers/patch_merge.h"

namespace swinup {
namespace {

struct Grid {
    int w, h;
};
const Grid kGrids[] = {{4, 4}, {8, 8}, {16, 12}, {12, 16}, {32, 4}, {4, 20}};

TEST(Windows, PartitionAndReverseAreInverses) {
    for (const Grid g : kGrids) {
        for (bool shifted : {false, true}) {
            std::vector<int> seen(size_t(g.w) * g.h, 0);
            for (int win = 0; win < window_count(g.w, g.h); ++win) {
                for (int t = 0; t < kWindowTokens; ++t) {
                    const TokenCoord c = window_token(win, t, g.w, g.h, shifted);
                    ASSERT_TRUE(c.x >= 0 && c.x < g.w && c.y >= 0 && c.y < g.h);
                    ASSERT_EQ(window_token_index(win, t, g.w, g.h, shifted), c.y * g.w + c.x);
                    ++seen[size_t(c.y) * g.w + c.x];
                    int back_window = -1, back_token = -1;
                    token_window(c.x, c.y, g.w, g.h, shifted, &back_window, &back_token);
                    ASSERT_EQ(back_window, win);
                    ASSERT_EQ(back_token, t);
                }
            }
            for (int n : seen) ASSERT_EQ(n, 1) << "every token in exactly one window";
        }
    }
}

TEST(Windows, UnshiftedWindowsAreContiguous4x4Tiles) {
    const int w = 16, h = 12;
    for (int win = 0; win < window_count(w, h); ++win) {
        for (int t = 0; t < kWindowTokens; ++t) {
            const TokenCoord c = window_token(win, t, w, h, false);
            EXPECT_EQ(c.x, (win % (w / 4)) * 4 + t % 4);
            EXPECT_EQ(c.y, (win / (w / 4)) * 4 + t / 4);
        }
    }
}

TEST(Windows, ShiftedWindowsTileTheGridRolledByTwo) {
    for (const Grid g : kGrids) {
        // The rolled grid built explicitly: rolled[y][x] holds the index of grid token
        // ((y + 2) mod h, (x + 2) mod w) (torch.roll(x, shifts=(-2, -2))).
        std::vector<int> rolled(size_t(g.w) * g.h);
        for (int y = 0; y < g.h; ++y)
            for (int x = 0; x < g.w; ++x) rolled[size_t(y) * g.w + x] = ((y + 2) % g.h) * g.w + (x + 2) % g.w;
        for (int win = 0; win < window_count(g.w, g.h); ++win) {
            for (int t = 0; t < kWindowTokens; ++t) {
                const TokenCoord r = window_token(win, t, g.w, g.h, false);  // tile of the rolled grid
                ASSERT_EQ(window_token_index(win, t, g.w, g.h, true), rolled[size_t(r.y) * g.w + r.x]);
            }
        }
        // Rolling by +2 then by -2 is the identity.
        for (int y = 0; y < g.h; ++y) {
            for (int x = 0; x < g.w; ++x) {
                const int back = rolled[size_t((y - 2 + g.h) % g.h) * g.w + (x - 2 + g.w) % g.w];
                ASSERT_EQ(back, y * g.w + x);
            }
        }
    }
}

TEST(Windows, ShiftMaskMatchesSwinRegionLabels) {
    for (const Grid g : kGrids) {
        // Swin's construction: label the rolled grid's regions by slices
        // (0, -4), (-4, -2), (-2, None) along each axis, 9 labels in all.
        std::vector<int> label(size_t(g.w) * g.h);
        auto slice_of = [](int i, int n) { return i < n - 4 ? 0 : (i < n - 2 ? 1 : 2); };
        for (int y = 0; y < g.h; ++y)
            for (int x = 0; x < g.w; ++x) label[size_t(y) * g.w + x] = slice_of(y, g.h) * 3 + slice_of(x, g.w);
        for (int win = 0; win < window_count(g.w, g.h); ++win) {
            bool any_masked = false;
            for (int q = 0; q < kWindowTokens; ++q) {
                const TokenCoord qc = window_token(win, q, g.w, g.h, false);  // rolled-grid position
                uint32_t want = 0;
                for (int k = 0; k < kWindowTokens; ++k) {
                    const TokenCoord kc = window_token(win, k, g.w, g.h, false);
                    if (label[size_t(qc.y) * g.w + qc.x] == label[size_t(kc.y) * g.w + kc.x]) want |= 1u << k;
                }
                EXPECT_EQ(window_key_mask(win, q, g.w, g.h, true), want) << g.w << "x" << g.h << " window " << win;
                EXPECT_EQ(window_key_mask(win, q, g.w, g.h, false), 0xffffu);
                EXPECT_TRUE(want >> q & 1u) << "a query always sees itself";
                any_masked = any_masked || want != 0xffffu;
            }
            // window_has_mask may only skip windows that have no masked pair.
            if (any_masked) {
                EXPECT_TRUE(window_has_mask(win, g.w, g.h, true));
            }
            EXPECT_FALSE(window_has_mask(win, g.w, g.h, false));
        }
    }
}

TEST(Windows, MergeAndExpandIndexMapsAreInverse) {
    const int cw = 6, ch = 5;  // coarse grid
    std::vector<int> seen(size_t(4) * cw * ch, 0);
    for (int cy = 0; cy < ch; ++cy) {
        for (int cx = 0; cx < cw; ++cx) {
            for (int q = 0; q < 4; ++q) {
                // Quadrant order (dy, dx) = (0,0), (0,1), (1,0), (1,1).
                const TokenCoord f = quadrant_fine_token(cx, cy, q);
                EXPECT_EQ(f.x, 2 * cx + q % 2);
                EXPECT_EQ(f.y, 2 * cy + q / 2);
                EXPECT_EQ(fine_token_quadrant(f.x, f.y), q);
                EXPECT_EQ(f.x / 2, cx);
                EXPECT_EQ(f.y / 2, cy);
                ++seen[size_t(f.y) * 2 * cw + f.x];
            }
        }
    }
    for (int n : seen) EXPECT_EQ(n, 1);
}

TEST(Windows, GatherQuadrantsIsSpaceToDepth) {
    const int fw = 8, fh = 6, c = 3;
    std::vector<float> fine(size_t(fw) * fh * c);
    for (size_t i = 0; i < fine.size(); ++i) fine[i] = float(i);
    std::vector<float> merged(size_t(4) * c);
    for (int cy = 0; cy < fh / 2; ++cy) {
        for (int cx = 0; cx < fw / 2; ++cx) {
            cpu::gather_quadrants(fine.data(), fw, c, cx, cy, merged.data());
            for (int dy = 0; dy < 2; ++dy)
                for (int dx = 0; dx < 2; ++dx)
                    for (int k = 0; k < c; ++k)
                        EXPECT_EQ(merged[size_t((dy * 2 + dx) * c + k)],
                                  fine[(size_t(2 * cy + dy) * fw + 2 * cx + dx) * c + k]);
        }
    }
}

}  // namespace
}  // namespace swinup
