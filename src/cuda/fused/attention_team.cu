#include "cuda/fused/attention_team.cuh"

#include <stdexcept>
#include <string>

#include "model/model_spec.h"
#include "model/window_map.h"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/cp_async.cuh"
#include "cuda/device/cta_teams.cuh"
#include "cuda/device/persistent_tile_loop.cuh"
#include "cuda/device/warp_team.cuh"
#include "cuda/device/warp_tile_mma.cuh"
#include "cuda/fused/attention_half.cuh"
#include "cuda/fused/warp_token_rows.cuh"
#include "cuda/layers/rms_norm_row.cuh"

namespace swinup::cuda {
namespace {

constexpr int kMinTeams = 2;

// Shared memory of a CTA: the CTA's operands as attention_fused's (AttentionHalf<kC>: Wqkv
// [3C][C + 16], Wproj [C][C + 16], the scale/bias pairs, norm1's gains), then per team kXBuffers
// buffers of its window's 16 f16 token rows [16][2C + 16] (they take proj's residual add in place before the
// store; with two, the next window's copy overlaps this one), the e4m3 rows [16][C + 16] (norm1's
// output, qkv's A; then the attention output, proj's A) and the f16 Q K V rows [16][6C + 16].
//
// Per level (sm_90, 227 KiB a block; kMaxTeams is the launch bound, i.e. the register budget):
//   C = 128 (level 3, 4 heads): teams of 4 warps (a head each), one row buffer: 78,336 bytes for
//     the CTA, 19,200 per team, 7 teams (28 warps, 72 registers): the H200's 132 x 7 teams take the
//     900 windows of 720p in one round (a second buffer would leave 6 teams and a second round);
//   C = 96 (level 2, 4 heads): teams of 2 warps (two heads each), two row buffers: 46,464 bytes for
//     the CTA, 17,920 per team, 10 teams (20 warps, 96 registers: five warps share an SM
//     sub-partition's 16,384, allocated 8 a thread at a time): 3,600 windows at 720p in about
//     three rounds, each window's chain half as long as one warp's.
template <int kC, int kHeads>
struct AttentionTeamLayout {
    static_assert(kC % 32 == 0 && kC % kHeads == 0, "C a multiple of the K chunk and of the heads");
    static constexpr int kTeam = kC >= 128 ? 4 : 2;
    static constexpr int kXBuffers = kC >= 128 ? 1 : 2;
    static constexpr int kMaxTeams = kC >= 128 ? 7 : 10;
    static_assert(kHeads % kTeam == 0, "the heads split evenly over the team");
    static constexpr int kHeadsPerWarp = kHeads / kTeam;
    using Half = AttentionHalf<kC>;  // the one-warp half's rows, strides and CTA operands
    using Operands = typename Half::Operands;
    static constexpr int kWStride = Half::kWStride;
    static constexpr int kXStride = Half::kXStride;
    static constexpr int kAStride = Half::kAStride;
    static constexpr int kQkvStride = Half::kQkvStride;
    // proj's output steps per warp, contiguous: warp w owns columns [16 kProjSteps w, + 16 kProjSteps).
    static constexpr int kProjSteps = kC / 16 / kTeam;
    static_assert(kProjSteps * 16 * kTeam == kC, "proj's columns split evenly over the team");
    static_assert(16 % kTeam == 0 && (3 * kC / 16) % kTeam == 0, "rows and qkv steps split evenly");
    static constexpr int kCtaBytes = Operands::kBytes;
    static constexpr int kXBytes = Half::kXBufBytes;
    static constexpr int kTeamBytes = kXBuffers * kXBytes + Half::kABytes + Half::kQkvBytes;
    static_assert(kCtaBytes % 16 == 0 && kTeamBytes % 16 == 0, "16-byte aligned regions");
    static constexpr int kMaxThreads = kMaxTeams * kTeam * 32;
};

// One CTA keeps Wqkv, Wproj and their scales and biases in shared memory; each team walks windows
// (persistent_tile_loop.cuh's loop with the team's barrier) through norm1 (warp w of a team of n:
// rows 16w/n ..), qkv (warp w: the 16-column steps w, w + n, ...), the heads' attention (warp w:
// heads w h/n ..), proj (warp w: the w-th n-th of the columns) with the residual add in place,
// and the rows' store. A is read from shared memory one K chunk at a time (mma_step16_shared_a,
// mma_all_steps): 28 warps per SM leave 72 registers a thread.
template <int kC, int kHeads>
__global__ void __launch_bounds__(AttentionTeamLayout<kC, kHeads>::kMaxThreads)
    attention_team_kernel(const AttentionBlockArgs p) {
    using L = AttentionTeamLayout<kC, kHeads>;
    using Team = WarpTeam<L::kTeam>;
    extern __shared__ uint4 smem_words[];
    uint8_t* smem = reinterpret_cast<uint8_t*>(smem_words);
    const typename L::Operands cta(smem);
    const Team team = Team::of_this_thread();
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int teams = static_cast<int>(blockDim.x) / Team::kThreads;
    uint8_t* x_base = smem + L::kCtaBytes + team.index * L::kTeamBytes;  // kXBuffers buffers of f16 rows
    uint8_t* a_s = x_base + L::kXBuffers * L::kXBytes;                     // norm1 output, then attention output
    uint8_t* qkv_s = a_s + 16 * L::kAStride;

    cta.stage(p.norm_gain, p.w_qkv, p.scale_qkv, p.bias_qkv, p.w_proj, p.scale_proj, p.bias_proj);

    const int g = lane >> 2, t = lane & 3;
    const FragmentRows f = fragment_rows(lane);
    auto load = [&](int window, int buf) {
        load_window_rows<kC, Team::kThreads>(p, window, x_base + buf * L::kXBytes, team.thread);
    };
    auto compute = [&](int window, int buf) {
        uint8_t* x_s = x_base + buf * L::kXBytes;
        // norm1 -> qkv's A (16 x C e4m3), each warp its rows.
        rms_normalise_rows<kC, 16 / L::kTeam>(x_s, L::kXStride, cta.gain_s, a_s, L::kAStride, p.precision, lane,
                                              team.member * (16 / L::kTeam));
        team.sync();  // every row normalised

        // qkv -> f16 rows (the GEMM's store_f16 epilogue), the warp's 16-column steps.
#pragma unroll 1
        for (int n0 = 16 * team.member; n0 < 3 * kC; n0 += 16 * L::kTeam) {
            float acc[2][4];
            mma_step16_shared_a<kC / 32>(acc, a_s, L::kAStride, cta.w1_s, L::kWStride, n0, f);
            scale_bias_step16(acc, cta.sb1_s, n0, n0, g, t, [&](int row, int col, float y0, float y1) {
                *reinterpret_cast<uint32_t*>(qkv_s + row * L::kQkvStride + col * 2) = f16x2(y0, y1);
            });
        }
        team.sync();  // Q K V complete, and norm1's rows read by every warp, before the heads overwrite a_s

        // The warp's heads: window_attention's arithmetic -> their e4m3 columns of a_s.
        attend_window_heads<kC, kHeads>(p, window, qkv_s, a_s, team.member * L::kHeadsPerWarp, L::kHeadsPerWarp, g,
                                        t);
        team.sync();  // every head's columns complete before proj reads them

        // proj: the warp's kProjSteps contiguous 16-column steps from n0, the residual add in place
        // in the window's f16 rows (the x that norm1 read), each element by its fragment owner.
        {
            const int n0 = 16 * L::kProjSteps * team.member;
            float acc[L::kProjSteps][2][4];
            mma_all_steps<kC, L::kProjSteps>(acc, a_s, L::kAStride, cta.w2_s + n0 * L::kWStride, L::kWStride, f);
            residual_add_f16_rows<L::kProjSteps>(acc, x_s + n0 * 2, L::kXStride, cta.sb2_s + n0 / 2, g, t);
        }
        team.sync();  // every column's residual added before the rows are stored
        store_token_rows16<kC, Team::kThreads>(p.x, x_s, L::kXStride, team.thread, [&](int r) {
            return RowToken{window_token_index(window, r, p.width, p.height, p.shifted), true};
        });
    };
    persistent_item_loop<L::kXBuffers, false>(static_cast<int>(blockIdx.x) * teams + team.index,
                                   static_cast<int>(gridDim.x) * teams, window_count(p.width, p.height),
                                   [&] { team.sync(); }, load, compute);
}

void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("attention_team: ") + what);
}

}  // namespace

bool attention_team_supported(int channels, int heads) {
    if (channels == 96 && heads == 4) return cta_teams_for_device<AttentionTeamLayout<96, 4>>() >= kMinTeams;
    if (channels == 128 && heads == 4) return cta_teams_for_device<AttentionTeamLayout<128, 4>>() >= kMinTeams;
    return false;
}

void attention_team(const AttentionBlockArgs& p, cudaStream_t stream) {
    check_attention_args(p, "attention_team");
    require(attention_team_supported(p.channels, p.heads),
            "unsupported (channels, heads) (see attention_team_supported)");
    const long long windows = window_count(p.width, p.height);
    if (p.channels == 96) {
        launch_cta_teams<AttentionTeamLayout<96, 4>>(attention_team_kernel<96, 4>, p, kMinTeams, windows,
                                                     "attention_team", stream);
    } else {
        launch_cta_teams<AttentionTeamLayout<128, 4>>(attention_team_kernel<128, 4>, p, kMinTeams, windows,
                                                      "attention_team", stream);
    }
}

}  // namespace swinup::cuda
