#include "cuda/fused/mlp_team.cuh"

#include <stdexcept>
#include <string>

#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/cp_async.cuh"
#include "cuda/device/cta_teams.cuh"
#include "cuda/device/device_math.cuh"
#include "cuda/device/persistent_tile_loop.cuh"
#include "cuda/device/warp_team.cuh"
#include "cuda/device/warp_tile_mma.cuh"
#include "cuda/fused/mlp_half.cuh"
#include "cuda/fused/warp_token_rows.cuh"
#include "cuda/layers/rms_norm_row.cuh"

namespace swinup::cuda {
namespace {

constexpr int kMinTeams = 2;

// Shared memory of a CTA: the CTA's operands as mlp_fused's (MlpHalf<kC, kParts>: W1 [4C][C + 16],
// W2 [C][4C + 16], the scale/bias pairs, norm2's gains), then per team kXBuffers buffers of its tile's 16 f16 token
// rows [16][2C + 16] (they take fc2's residual add in place before the store; with two, the next
// tile's copy overlaps this one), the e4m3 normalised rows [16][C + 16] (fc1's A) and the e4m3
// hidden rows of one part of the hidden width [16][4C / kParts + 16]. With two parts (as
// mlp_fused<128>): fc1 of part 0, fc2's K chunks of part 0, fc1 of part 1, fc2's K chunks of part
// 1; each fc2 accumulator still takes its chunks in increasing order.
//
// Per level (sm_90, 227 KiB a block; kMaxTeams is the launch bound, i.e. the register budget):
//   C = 128 (level 3): teams of 4 warps, one row buffer, two parts: 146,944 bytes for the CTA,
//     11,008 per team, 7 teams (28 warps, 72 registers): the H200's 132 x 7 teams take the 900
//     tiles of 720p in one round;
//   C = 96 (level 2): teams of 2 warps, two row buffers, one part: 85,632 bytes for the CTA, 14,848
//     per team, 9 teams (18 warps, 96 registers: up to five warps share an SM sub-partition's
//     16,384, allocated 8 a thread at a time): 3,600 tiles at 720p in about three rounds, each
//     tile's chain half as long as one warp's.
template <int kC>
struct MlpTeamLayout {
    static_assert(kC % 32 == 0, "C must be a multiple of the K chunk");
    static constexpr int kTeam = kC >= 128 ? 4 : 2;
    static constexpr int kXBuffers = kC >= 128 ? 1 : 2;
    static constexpr int kParts = kC >= 128 ? 2 : 1;
    static constexpr int kMaxTeams = kC >= 128 ? 7 : 9;
    using Half = MlpHalf<kC, kParts>;  // the one-warp half's rows, strides and CTA operands
    using Operands = typename Half::Operands;
    static constexpr int kW1Stride = Half::kW1Stride;
    static constexpr int kW2Stride = Half::kW2Stride;
    static constexpr int kXStride = Half::kXStride;
    static constexpr int kAStride = Half::kAStride;
    static constexpr int kPart = Half::kPart;  // hidden columns computed at a time
    static constexpr int kHStride = Half::kHStride;
    // fc2's output steps per warp, contiguous: warp w owns columns [16 kSteps2 w, 16 kSteps2 (w + 1)).
    static constexpr int kSteps2 = kC / 16 / kTeam;
    static_assert(kSteps2 * 16 * kTeam == kC, "fc2's columns split evenly over the team");
    static_assert((kPart / 16) % kTeam == 0 && 16 % kTeam == 0, "fc1's steps and the rows split evenly");
    static constexpr int kCtaBytes = Operands::kBytes;
    static constexpr int kXBytes = Half::kXBufBytes;
    static constexpr int kTeamBytes = kXBuffers * kXBytes + 16 * kAStride + Half::kHBytes;
    static_assert(kCtaBytes % 16 == 0 && kTeamBytes % 16 == 0, "16-byte aligned regions");
    static constexpr int kMaxThreads = kMaxTeams * kTeam * 32;
};

// One CTA keeps W1, W2 and their scales and biases in shared memory; each team walks 16-token tiles
// (persistent_tile_loop.cuh's loop with the team's barrier) through norm2 (warp w of a team of n:
// rows 16w/n ..), per part fc1 + GELU -> e4m3 hidden rows (warp w: the part's 16-column steps w,
// w + n, ...) and fc2's K chunks of that part (warp w: output steps [kSteps2 w, kSteps2 (w + 1))),
// the residual add in place, and the rows' store.
template <int kC>
__global__ void __launch_bounds__(MlpTeamLayout<kC>::kMaxThreads) mlp_team_kernel(const MlpArgs p) {
    using L = MlpTeamLayout<kC>;
    using Team = WarpTeam<L::kTeam>;
    extern __shared__ uint4 smem_words[];
    uint8_t* smem = reinterpret_cast<uint8_t*>(smem_words);
    const typename L::Operands cta(smem);  // W1, W2, their scale/bias pairs, norm2's gains
    const Team team = Team::of_this_thread();
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int teams = static_cast<int>(blockDim.x) / Team::kThreads;
    uint8_t* x_base = smem + L::kCtaBytes + team.index * L::kTeamBytes;  // kXBuffers buffers of f16 rows
    uint8_t* a_s = x_base + L::kXBuffers * L::kXBytes;                     // norm2's e4m3 rows
    uint8_t* h_s = a_s + 16 * L::kAStride;                             // one part's hidden rows

    cta.stage(p.norm_gain, p.w1, p.scale1, p.bias1, p.w2, p.scale2, p.bias2);

    const int g = lane >> 2, t = lane & 3;
    const FragmentRows f = fragment_rows(lane);
    const int n2 = 16 * L::kSteps2 * team.member;  // the warp's first fc2 output column
    auto load = [&](int tile, int buf) {
        load_tile_rows<kC, Team::kThreads>(p, tile, x_base + buf * L::kXBytes, team.thread);
    };
    auto compute = [&](int tile, int buf) {
        uint8_t* x_s = x_base + buf * L::kXBytes;
        // norm2 -> fc1's A (16 x C e4m3), each warp its rows. fc1 reads A from shared memory one K chunk
        // at a time (mma_step16_shared_a): 28 warps per SM leave 72 registers a thread.
        rms_normalise_rows<kC, 16 / L::kTeam>(x_s, L::kXStride, cta.gain_s, a_s, L::kAStride, p.precision, lane,
                                              team.member * (16 / L::kTeam));
        team.sync();  // every row normalised

        float acc2[L::kSteps2][2][4];
        zero_accumulators(acc2);
#pragma unroll 1
        for (int part = 0; part < L::kParts; ++part) {
            if (part > 0) team.sync();  // every warp's fc2 has read the previous part's hidden rows
#pragma unroll
            for (int j0 = 16 * team.member; j0 < L::kPart; j0 += 16 * L::kTeam) {  // local hidden column
                const int n0 = part * L::kPart + j0;
                float acc[2][4];  // (n8 tile, fragment)
                mma_step16_shared_a<kC / 32>(acc, a_s, L::kAStride, cta.w1_s, L::kW1Stride, n0, f);
                scale_bias_step16(acc, cta.sb1_s, n0, j0, g, t, [&](int row, int col, float y0, float y1) {
                    *reinterpret_cast<uint16_t*>(h_s + row * L::kHStride + col) = gelu_e4m3x2(y0, y1, p.precision);
                });
            }
            team.sync();  // the part's hidden rows complete before fc2 reads them
            mma_all_steps_accumulate<L::kPart, L::kSteps2>(acc2, h_s, L::kHStride,
                                                           cta.w2_s + n2 * L::kW2Stride + part * L::kPart,
                                                           L::kW2Stride, f);
        }
        // Residual epilogue in place in the tile's f16 rows (the x that norm2 read), the warp's
        // columns, each element by its owner.
        residual_add_f16_rows<L::kSteps2>(acc2, x_s + n2 * 2, L::kXStride, cta.sb2_s + n2 / 2, g, t);
        team.sync();  // every column's residual added before the rows are stored
        store_token_rows16<kC, Team::kThreads>(p.x, x_s, L::kXStride, team.thread, [&](int r) {
            const int m = tile * 16 + r;
            return RowToken{m, m < p.m};
        });
    };
    persistent_item_loop<L::kXBuffers, false>(static_cast<int>(blockIdx.x) * teams + team.index,
                                   static_cast<int>(gridDim.x) * teams, (p.m + 15) / 16, [&] { team.sync(); },
                                   load, compute);
}

void require(bool ok, const char* what) {
    if (!ok) throw std::invalid_argument(std::string("mlp_team: ") + what);
}

}  // namespace

bool mlp_team_supported(int channels) {
    if (channels == 96) return cta_teams_for_device<MlpTeamLayout<96>>() >= kMinTeams;
    if (channels == 128) return cta_teams_for_device<MlpTeamLayout<128>>() >= kMinTeams;
    return false;
}

void mlp_team(const MlpArgs& p, cudaStream_t stream) {
    check_mlp_args(p, "mlp_team");
    require(mlp_team_supported(p.channels), "unsupported channel count (see mlp_team_supported)");
    const long long tiles = (p.m + 15) / 16;
    if (p.channels == 96) {
        launch_cta_teams<MlpTeamLayout<96>>(mlp_team_kernel<96>, p, kMinTeams, tiles, "mlp_team", stream);
    } else {
        launch_cta_teams<MlpTeamLayout<128>>(mlp_team_kernel<128>, p, kMinTeams, tiles, "mlp_team", stream);
    }
}

}  // namespace swinup::cuda
