// RenderSizeCache (frame/render_size_cache.h), the bound on the CUDA backend's frame graphs: it
// holds at most its capacity, evicts the least recently used size (a hit counts as a use),
// releases every value exactly once, and refuses a capacity of 0.
#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "frame/render_size_cache.h"
#include "swinup/swinup.h"

namespace swinup {
namespace {

struct Released {
    std::vector<int> values;
};

TEST(RenderSizeCache, HoldsAtMostItsCapacityEvictingTheLeastRecentlyUsed) {
    Released released;
    RenderSizeCache<int> cache(3, [&](int& v) { released.values.push_back(v); });
    for (int i = 0; i < 3; ++i) cache.insert(100 + i, 50, i);
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_TRUE(released.values.empty());

    ASSERT_NE(cache.find(100, 50), nullptr);  // size 0 is now the most recent; 1 the least
    EXPECT_EQ(*cache.find(100, 50), 0);
    cache.insert(200, 50, 3);
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_EQ(released.values, std::vector<int>{1});
    EXPECT_EQ(cache.find(101, 50), nullptr);
    EXPECT_NE(cache.find(102, 50), nullptr);  // 0 is the least recent now
    cache.insert(201, 50, 4);
    EXPECT_EQ(released.values, (std::vector<int>{1, 0}));
    EXPECT_EQ(cache.find(100, 50), nullptr);
    EXPECT_EQ(*cache.find(102, 50), 2);
    EXPECT_EQ(*cache.find(200, 50), 3);
    EXPECT_EQ(*cache.find(201, 50), 4);
}

TEST(RenderSizeCache, WidthAndHeightAreBothTheKey) {
    RenderSizeCache<int> cache(4, [](int&) {});
    cache.insert(64, 32, 1);
    cache.insert(32, 64, 2);
    EXPECT_EQ(*cache.find(64, 32), 1);
    EXPECT_EQ(*cache.find(32, 64), 2);
    EXPECT_EQ(cache.find(64, 64), nullptr);
}

TEST(RenderSizeCache, ManySizesInTurnKeepTheBoundAndReleaseEachValueOnce) {
    std::vector<int> releases(40, 0);
    {
        RenderSizeCache<int> cache(SWINUP_CUDA_GRAPH_CACHE_SIZES, [&](int& v) { ++releases[size_t(v)]; });
        for (int round = 0; round < 2; ++round)
            for (int i = 0; i < 20; ++i) {
                const int value = round * 20 + i;
                if (cache.find(i + 1, 1) == nullptr) cache.insert(i + 1, 1, value);
                EXPECT_LE(cache.size(), size_t(SWINUP_CUDA_GRAPH_CACHE_SIZES));
            }
        EXPECT_EQ(cache.size(), size_t(SWINUP_CUDA_GRAPH_CACHE_SIZES));
    }  // the destructor releases what is left
    for (int v = 0; v < 40; ++v) EXPECT_EQ(releases[size_t(v)], 1) << "value " << v;
}

TEST(RenderSizeCache, ValuesAreUpdatedInPlace) {
    RenderSizeCache<std::pair<int, int>> cache(2, [](std::pair<int, int>&) {});
    cache.insert(8, 8, {0, 0}).second = 5;  // as the CUDA backend fills one parity at a time
    cache.find(8, 8)->first = 4;
    EXPECT_EQ(*cache.find(8, 8), std::make_pair(4, 5));
}

TEST(RenderSizeCache, ClearReleasesEverything) {
    int released = 0;
    RenderSizeCache<int> cache(5, [&](int&) { ++released; });
    for (int i = 0; i < 4; ++i) cache.insert(i + 1, 1, i);
    cache.clear();
    EXPECT_EQ(released, 4);
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_EQ(cache.find(1, 1), nullptr);
}

TEST(RenderSizeCache, ACapacityOfZeroIsRefused) {
    EXPECT_THROW(RenderSizeCache<int>(0, [](int&) {}), std::invalid_argument);
}

}  // namespace
}  // namespace swinup
