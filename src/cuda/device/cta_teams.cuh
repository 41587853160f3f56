// Teams per CTA of a team kernel (warp_team.cuh: attention_team.cu, mlp_team.cu) whose shared
// memory is one region shared by the CTA (the weights: Layout::kCtaBytes) plus one region per team
// (its item's rows: Layout::kTeamBytes): as many teams as the per-block shared memory holds, at
// most Layout::kMaxTeams (the kernel's launch bound, set by its register budget); and the kernel's
// persistent launch with that many.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cuda/backend/cuda_check.cuh"
#include "cuda/device/device_limits.cuh"
#include "cuda/device/persistent_grid.cuh"
#include "cuda/device/warp_team.cuh"

namespace swinup::cuda {

template <class Layout>
int cta_teams_for_device() {
    static_assert(Layout::kMaxTeams <= kMaxTeamsPerCta, "one named barrier per team");
    const long long room = static_cast<long long>(device_limits().smem_optin) - Layout::kCtaBytes;
    return static_cast<int>(std::min<long long>(Layout::kMaxTeams, room > 0 ? room / Layout::kTeamBytes : 0));
}

// Launches kernel(p) with cta_teams_for_device teams per CTA, persistent over work_items items, one
// item per team at a time. Fewer than min_teams: std::invalid_argument "<who>: the weights do not
// fit in shared memory".
template <class Layout, class Args>
void launch_cta_teams(void (*kernel)(Args), const Args& p, int min_teams, long long work_items, const char* who,
                      cudaStream_t stream) {
    const int teams = cta_teams_for_device<Layout>();
    if (teams < min_teams) throw std::invalid_argument(std::string(who) + ": the weights do not fit in shared memory");
    const int warps = teams * Layout::kTeam;
    const int smem = Layout::kCtaBytes + teams * Layout::kTeamBytes;
    // persistent_blocks counts one item per warp; a team's warps share one, so the items are
    // counted once per warp of a team.
    const int blocks = persistent_blocks(kernel, warps, smem, work_items * Layout::kTeam, who);
    kernel<<<blocks, warps * 32, smem, stream>>>(p);
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace swinup::cuda
