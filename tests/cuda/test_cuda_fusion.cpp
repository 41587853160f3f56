// The fused kernels against the unfused layer-by-layer reference: the fused norm + GEMM kernels
// (norm1 -> qkv, norm2 -> fc1: GemmGather::rms_norm), the fused MLP (norm2 -> fc1 -> GELU -> fc2 +
// residual in one kernel, mlp_fused.cuh), the fused attention half (norm1 -> qkv -> window
// attention -> proj + residual, attention_fused.cuh), the fused Swin block (both halves in one
// kernel, block_fused.cuh; against the layer-by-layer launches and against the two half kernels),
// levels 2 and 3's team kernels (attention_team.cuh, mlp_team.cuh; against the one-warp kernels
// too), lite's fused tail (expand0 + skip0 -> head, lite_tail_fused.cuh), full's fused head (head
// norm -> head linear -> head MLP, head_fused.cuh) and all of them together, against the unfused
// norm, GEMM and attention kernels: every layer's output and the head outputs byte for byte, for
// both variants, both precision modes and both window-shift parities (docs/cuda-kernels.md: fused
// kernels must equal the layer-by-layer reference exactly). The HeadMlp cases do the same with
// weights that have the head MLP (format 3, random everywhere): lite's fused tail and full's fused
// head run it in the same kernel, the unfused reference as its own launches.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "numeric/e4m3.h"
#include "model/model_spec.h"
#include "model/weights.h"
#include "gpu_test_support.h"
#include "network_test_weights.h"
#include "network_test_weights.h"

#ifdef SWINUP_HAVE_CUDA
#include "cuda/tools/cuda_tools.h"
#endif

namespace swinup {
namespace {

#ifdef SWINUP_HAVE_CUDA
// Random staged slots in roughly their real ranges, rounded to e4m3. 96 x 64 (not square; level 3
// is 12 x 8 tokens) and 64 row tiles that do not divide every level's token count.
std::vector<float> random_staged(int w, int h, uint32_t seed) { return test::random_staged(w, h, seed, -1.0f, 2.0f); }

// Which fused kernels the compared run uses (the reference run uses none).
struct Fusion {
    cuda::NetworkFusions kernels;
    const char* label;
};
constexpr cuda::NetworkFusions kNone{false, false, false, false, false, false, false};
// Every fused kernel, a Swin block as its two half kernels (kAllFused) or as one (kAllFusedBlock,
// the network's default).
const Fusion kAllFused{{true, true, true, true, true, false, false}, "all fused kernels"};
const Fusion kAllFusedBlock{{true, true, true, true, true, true, false}, "all fused kernels with the fused block"};
// The two half kernels: the reference the fused block is compared with besides the unfused one.
const Fusion kHalves{{false, true, true, false, false, false, false}, "fused attention and MLP halves"};
// head_mlp: random weights with the head MLP (weights_make_initial's fc3 is zero, and its zero
// biases and unit gains would hide a parameter read from the wrong place). random: random weights
// without it too (the head's own scale, bias and gain then differ per channel). reference: the
// kernels of the run compared with (the layer-by-layer launches unless given).
void compare(Variant variant, swinup_precision precision, uint64_t frame, const Fusion& fusion, int w = 96,
             int h = 64, bool head_mlp = false, bool random = false, const Fusion& reference = {kNone, "unfused"}) {
    const std::shared_ptr<const Weights> weights =
        head_mlp || random ? std::shared_ptr<const Weights>(test::make_random_weights(variant, 2, head_mlp))
                           : std::make_shared<const Weights>(weights_make_initial(variant, 2));
    const std::vector<float> staged = random_staged(w, h, 9);
    std::map<std::string, std::vector<float>> layers[2];
    std::vector<float> head[2];
    for (int fused = 0; fused < 2; ++fused) {
        head[fused] = cuda_tools::run_network(
            weights, precision, staged, w, h, frame,
            [&](const std::string& name, const float* d, int lw, int lh, int c) {
                layers[fused][name].assign(d, d + size_t(lw) * lh * c);
            },
            fused == 1 ? fusion.kernels : reference.kernels);
    }
    ASSERT_EQ(layers[0].size(), layers[1].size());
    size_t differing_layers = 0;
    for (const auto& [name, unfused] : layers[0]) {
        const std::vector<float>& fused = layers[1][name];
        ASSERT_EQ(fused.size(), unfused.size()) << name;
        const bool same = std::memcmp(fused.data(), unfused.data(), unfused.size() * sizeof(float)) == 0;
        if (!same) ++differing_layers;
        EXPECT_TRUE(same) << "layer " << name << " differs between the " << fusion.label << " and "
                          << reference.label << " kernels";
    }
    ASSERT_EQ(head[0].size(), head[1].size());
    EXPECT_EQ(std::memcmp(head[0].data(), head[1].data(), head[0].size() * sizeof(float)), 0)
        << "head outputs differ between the " << fusion.label << " and " << reference.label << " kernels";
    std::printf("[ measured ] %s vs %s %s%s%s %s %dx%d frame %llu: %zu of %zu layers differ\n", fusion.label,
                reference.label,
                variant == Variant::lite ? "lite" : "full", head_mlp ? " head_mlp" : "",
                random && !head_mlp ? " random" : "", precision == SWINUP_PRECISION_EXACT ? "exact" : "fast", w, h,
                static_cast<unsigned long long>(frame), differing_layers, layers[0].size());
}
#endif

struct FusionCase {
    const char* name;  // the test's name suffix (gtest filters select on it)
    Variant variant;
    swinup_precision precision;
    bool norms, mlp, attention, tail, head;
    const char* label;
    bool head_mlp = false;  // weights with the head MLP (random)
    bool block = false;     // a Swin block as one kernel (NetworkFusions::block) where supported
    bool versus_halves = false;  // compared with the two half kernels instead of the unfused launches
    bool teams = false;          // levels 2 and 3's team kernels (NetworkFusions::teams)
};

// Each fused kernel alone and all of them together (the default), for both variants and both
// precision modes; each case runs both shift parities (frame 0 and 1).
const FusionCase kCases[] = {
    {"LiteExactNorms", Variant::lite, SWINUP_PRECISION_EXACT, true, false, false, false, false, "fused norms"},
    {"LiteFastNorms", Variant::lite, SWINUP_PRECISION_FAST, true, false, false, false, false, "fused norms"},
    {"FullExactNorms", Variant::full, SWINUP_PRECISION_EXACT, true, false, false, false, false, "fused norms"},
    {"FullFastNorms", Variant::full, SWINUP_PRECISION_FAST, true, false, false, false, false, "fused norms"},
    {"LiteExactNormsMlp", Variant::lite, SWINUP_PRECISION_EXACT, true, true, false, false, false, "fused norms + MLP"},
    {"LiteFastNormsMlp", Variant::lite, SWINUP_PRECISION_FAST, true, true, false, false, false, "fused norms + MLP"},
    {"FullExactNormsMlp", Variant::full, SWINUP_PRECISION_EXACT, true, true, false, false, false, "fused norms + MLP"},
    {"FullFastNormsMlp", Variant::full, SWINUP_PRECISION_FAST, true, true, false, false, false, "fused norms + MLP"},
    {"LiteExactAttention", Variant::lite, SWINUP_PRECISION_EXACT, false, false, true, false, false, "fused attention"},
    {"LiteFastAttention", Variant::lite, SWINUP_PRECISION_FAST, false, false, true, false, false, "fused attention"},
    {"FullExactAttention", Variant::full, SWINUP_PRECISION_EXACT, false, false, true, false, false, "fused attention"},
    {"FullFastAttention", Variant::full, SWINUP_PRECISION_FAST, false, false, true, false, false, "fused attention"},
    {"LiteExactTail", Variant::lite, SWINUP_PRECISION_EXACT, false, false, false, true, false, "fused lite tail"},
    {"LiteFastTail", Variant::lite, SWINUP_PRECISION_FAST, false, false, false, true, false, "fused lite tail"},
    {"LiteExactAll", Variant::lite, SWINUP_PRECISION_EXACT, true, true, true, true, true, "all fused kernels"},
    {"LiteFastAll", Variant::lite, SWINUP_PRECISION_FAST, true, true, true, true, true, "all fused kernels"},
    {"FullExactAll", Variant::full, SWINUP_PRECISION_EXACT, true, true, true, true, true, "all fused kernels"},
    {"FullFastAll", Variant::full, SWINUP_PRECISION_FAST, true, true, true, true, true, "all fused kernels"},
    {"LiteExactTailHeadMlp", Variant::lite, SWINUP_PRECISION_EXACT, false, false, false, true, false, "fused lite tail", true},
    {"LiteFastTailHeadMlp", Variant::lite, SWINUP_PRECISION_FAST, false, false, false, true, false, "fused lite tail", true},
    {"LiteExactAllHeadMlp", Variant::lite, SWINUP_PRECISION_EXACT, true, true, true, true, true, "all fused kernels", true},
    {"LiteFastAllHeadMlp", Variant::lite, SWINUP_PRECISION_FAST, true, true, true, true, true, "all fused kernels", true},
    {"FullExactAllHeadMlp", Variant::full, SWINUP_PRECISION_EXACT, true, true, true, true, true, "all fused kernels", true},
    {"FullFastAllHeadMlp", Variant::full, SWINUP_PRECISION_FAST, true, true, true, true, true, "all fused kernels", true},
    {"FullExactHead", Variant::full, SWINUP_PRECISION_EXACT, false, false, false, false, true, "fused full head"},
    {"FullFastHead", Variant::full, SWINUP_PRECISION_FAST, false, false, false, false, true, "fused full head"},
    {"FullExactHeadHeadMlp", Variant::full, SWINUP_PRECISION_EXACT, false, false, false, false, true, "fused full head", true},
    {"FullFastHeadHeadMlp", Variant::full, SWINUP_PRECISION_FAST, false, false, false, false, true, "fused full head", true},
    // The fused Swin block (levels 0 to 2; level 3 keeps its half kernels) against the
    // layer-by-layer launches, against the two half kernels (the same function per half: any
    // difference is the block kernel's own rows, buffers or barriers), and with every other fusion.
    {"LiteExactBlock", Variant::lite, SWINUP_PRECISION_EXACT, false, true, true, false, false, "fused block", false, true},
    {"LiteFastBlock", Variant::lite, SWINUP_PRECISION_FAST, false, true, true, false, false, "fused block", false, true},
    {"FullExactBlock", Variant::full, SWINUP_PRECISION_EXACT, false, true, true, false, false, "fused block", false, true},
    {"FullFastBlock", Variant::full, SWINUP_PRECISION_FAST, false, true, true, false, false, "fused block", false, true},
    {"LiteExactBlockVsHalves", Variant::lite, SWINUP_PRECISION_EXACT, false, true, true, false, false, "fused block", false, true, true},
    {"LiteFastBlockVsHalves", Variant::lite, SWINUP_PRECISION_FAST, false, true, true, false, false, "fused block", false, true, true},
    {"FullExactBlockVsHalves", Variant::full, SWINUP_PRECISION_EXACT, false, true, true, false, false, "fused block", false, true, true},
    {"FullFastBlockVsHalves", Variant::full, SWINUP_PRECISION_FAST, false, true, true, false, false, "fused block", false, true, true},
    {"LiteExactAllBlock", Variant::lite, SWINUP_PRECISION_EXACT, true, true, true, true, true, "all fused kernels with the fused block", false, true},
    {"LiteFastAllBlock", Variant::lite, SWINUP_PRECISION_FAST, true, true, true, true, true, "all fused kernels with the fused block", false, true},
    {"FullExactAllBlock", Variant::full, SWINUP_PRECISION_EXACT, true, true, true, true, true, "all fused kernels with the fused block", false, true},
    {"FullFastAllBlock", Variant::full, SWINUP_PRECISION_FAST, true, true, true, true, true, "all fused kernels with the fused block", false, true},
    // Levels 2 and 3's team kernels (NetworkFusions::teams) with every other fusion but the block,
    // against the layer-by-layer launches.
    {"LiteExactAllTeams", Variant::lite, SWINUP_PRECISION_EXACT, true, true, true, true, true, "all fused kernels with teams", false, false, false, true},
    {"LiteFastAllTeams", Variant::lite, SWINUP_PRECISION_FAST, true, true, true, true, true, "all fused kernels with teams", false, false, false, true},
    {"FullExactAllTeams", Variant::full, SWINUP_PRECISION_EXACT, true, true, true, true, true, "all fused kernels with teams", false, false, false, true},
    {"FullFastAllTeams", Variant::full, SWINUP_PRECISION_FAST, true, true, true, true, true, "all fused kernels with teams", false, false, false, true},
};

class CudaFusion : public ::testing::TestWithParam<FusionCase> {};

TEST_P(CudaFusion, FusedEqualsUnfused) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    const FusionCase& c = GetParam();
    const Fusion fusion{{c.norms, c.mlp, c.attention, c.tail, c.head, c.block, c.teams}, c.label};
    const Fusion reference = c.versus_halves ? kHalves : Fusion{kNone, "unfused"};
    compare(c.variant, c.precision, 0, fusion, 96, 64, c.head_mlp, false, reference);
    compare(c.variant, c.precision, 1, fusion, 96, 64, c.head_mlp, false, reference);
#endif
}

// A grid large enough that every fused kernel's warps walk several windows or tiles on an H200
// (level 1: 20,480 windows for 132 x 16 warps; level 3: 1,280 windows and tiles for 132 x 8 and
// 132 x 9 warps): the next-window copies (double buffer, or the one-buffer refill of C = 128) run
// here, which the 96 x 64 grid never reaches.
TEST(CudaFusionLarge, AllFusedEqualsUnfusedAt1280x1024) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    compare(Variant::lite, SWINUP_PRECISION_FAST, 1, kAllFused, 1280, 1024);
    compare(Variant::full, SWINUP_PRECISION_EXACT, 0, kAllFused, 1280, 1024);
#endif
}

// The fused block where its warps walk many windows (full's level 0 at 1280 x 1024: 81,920
// windows for 132 x 2 x 14 warps on an H200; level 1: 20,480 for 132 x 16; level 2: 5,120 for
// 132 x 6), so that the next-window copies (C = 32's double buffer, C = 64's and 96's one-buffer
// refill) run, which the 96 x 64 grid never reaches; and 1280 x 736 (the padded grid of a
// 1280x720 render, the benchmark's size: level 2's 3,680 windows leave a ragged last round of
// 132 x 6 warps). Against the two half kernels in both variants, modes and shift parities; against
// the layer-by-layer launches once per variant and mode.
TEST(CudaFusionLarge, BlockEqualsUnfusedAndHalvesAt1280x1024) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    for (const Variant variant : {Variant::lite, Variant::full})
        for (const swinup_precision precision : {SWINUP_PRECISION_EXACT, SWINUP_PRECISION_FAST})
            for (const uint64_t frame : {0, 1}) {
                SCOPED_TRACE(std::string(variant == Variant::lite ? "lite" : "full") +
                             (precision == SWINUP_PRECISION_EXACT ? " exact" : " fast") + " frame " +
                             std::to_string(frame));
                compare(variant, precision, frame, kAllFusedBlock, 1280, 1024, false, false, kAllFused);
                if (frame == (variant == Variant::lite ? 1u : 0u))
                    compare(variant, precision, frame, kAllFusedBlock, 1280, 1024);  // against the unfused launches
            }
    compare(Variant::lite, SWINUP_PRECISION_FAST, 1, kAllFusedBlock, 1280, 736, false, false, kAllFused);
    compare(Variant::full, SWINUP_PRECISION_EXACT, 0, kAllFusedBlock, 1280, 736, false, false, kAllFused);
#endif
}

// Levels 2 and 3's team kernels (attention_team, mlp_team: a team of warps per window or tile)
// against the same fused kernels with one warp per window or tile, every layer byte for byte.
// 96 x 64: 6 windows at level 3, so most teams get no item; 1280 x 1024: 1,280 windows and tiles
// at level 3 and 5,120 at level 2 for 132 x 7 and 132 x 10 teams on an H200, so teams walk more
// items (the one-buffer refill of C = 128, the double buffer of C = 96); 1280 x 736: the 720p
// benchmark's padded grid (920 and 3,680 windows).
TEST(CudaFusionTeams, TeamsEqualOneWarpPerWindow) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    const Fusion teams{{true, true, true, true, true, false, true}, "team kernels"};
    compare(Variant::lite, SWINUP_PRECISION_FAST, 0, teams, 96, 64, false, true, kAllFused);
    compare(Variant::lite, SWINUP_PRECISION_EXACT, 1, teams, 96, 64, false, true, kAllFused);
    compare(Variant::lite, SWINUP_PRECISION_FAST, 1, teams, 1280, 1024, false, true, kAllFused);
    compare(Variant::full, SWINUP_PRECISION_EXACT, 0, teams, 1280, 1024, false, true, kAllFused);
    compare(Variant::lite, SWINUP_PRECISION_FAST, 0, teams, 1280, 736, false, true, kAllFused);
#endif
}

// The same for lite's tail with the head MLP (its warps walk several tiles, the MLP per quadrant pair).
TEST(CudaFusionLarge, LiteHeadMlpAllFusedEqualsUnfusedAt1280x1024) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    compare(Variant::lite, SWINUP_PRECISION_EXACT, 0, kAllFused, 1280, 1024, true);
#endif
}

// And for full's head with the head MLP (1,310,720 pixels: 40,960 tiles of 32 for 132 x 2 x 8
// warps on an H200, so every warp's next-tile copy runs).
TEST(CudaFusionLarge, FullHeadMlpAllFusedEqualsUnfusedAt1280x1024) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    compare(Variant::full, SWINUP_PRECISION_FAST, 1, kAllFused, 1280, 1024, true);
#endif
}

// full's fused head alone at more grid sizes, random weights with and without the head MLP, both
// modes: 32 x 32 (the smallest grid: 32 tiles of 32 pixels, 4 CTAs of 8 warps, one tile each),
// 160 x 96 (non-square, 480 tiles, frame 1) and 1280 x 736 (the padded grid of a 1280x720 render,
// the benchmark's size: 29,440 tiles for 132 x 2 x 8 warps on an H200, 13 or 14 each, so the
// next-tile copies run and the grid stride's last round is ragged).
TEST(CudaFusionSizes, FullHeadEqualsUnfusedAtSeveralSizes) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    const Fusion head{{false, false, false, false, true, false, false}, "fused full head"};
    const int sizes[][2] = {{32, 32}, {160, 96}, {1280, 736}};
    for (const auto& size : sizes)
        for (const swinup_precision precision : {SWINUP_PRECISION_EXACT, SWINUP_PRECISION_FAST})
            for (const bool head_mlp : {false, true}) {
                SCOPED_TRACE(std::to_string(size[0]) + "x" + std::to_string(size[1]) +
                             (precision == SWINUP_PRECISION_EXACT ? " exact" : " fast") +
                             (head_mlp ? " head_mlp" : ""));
                compare(Variant::full, precision, size[0] == 160 ? 1 : 0, head, size[0], size[1], head_mlp, true);
            }
#endif
}

INSTANTIATE_TEST_SUITE_P(Cases, CudaFusion, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<FusionCase>& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace swinup
