// A team of warps of one CTA that works on one item together (the team kernels: attention_team.cu,
// mlp_team.cu): warps [kTeam * team, kTeam * team + kTeam) of the CTA, which meet at a named
// barrier of their own, so that the CTA's other teams are never held up by it.
//
// Why teams: a kernel that gives each item (a 4x4 window, a 16-token tile) to one warp finishes
// no sooner than one warp's chain of dependent steps on one item. Where the items are few (level
// 3 of 720p has ~900 windows for the H200's 132 SMs: one round of a few warps per SM), that chain
// is the kernel's time; a team splits each step's columns (or heads) over its warps, so the chain
// is shorter by about the team's size while every output is still computed by one warp in the same
// order (the same bytes).
#pragma once

namespace swinup::cuda {

// Named barriers 1..15 (0 is __syncthreads'): one per team, so at most 15 teams per CTA.
constexpr int kMaxTeamsPerCta = 15;

template <int kTeam>
struct WarpTeam {
    static constexpr int kThreads = 32 * kTeam;
    int index;   // the team's index in its CTA
    int member;  // the warp's index in its team, 0 .. kTeam - 1
    int thread;  // the thread's index in its team, 0 .. kThreads - 1

    __device__ __forceinline__ static WarpTeam of_this_thread() {
        const int t = static_cast<int>(threadIdx.x);
        return {t / kThreads, (t % kThreads) / 32, t % kThreads};
    }
    // The team's barrier: its kThreads threads, and their shared-memory accesses, meet here.
    __device__ __forceinline__ void sync() const {
        asm volatile("bar.sync %0, %1;\n" ::"r"(index + 1), "n"(kThreads) : "memory");
    }
};

}  // namespace swinup::cuda
