// swinup_dispatch_desc.sharpness's frame tests, shared by the CPU backend's (tests/cpu) and the
// Vulkan backend's (tests/vulkan): the sliding plane through a backend with a given sharpness.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "api/backend.h"
#include "sliding_plane_frames.h"
#include "swinup/swinup.h"

namespace swinup::test {

constexpr int kSharpenRenderW = 32, kSharpenRenderH = 16, kSharpenDisplayW = 64, kSharpenDisplayH = 32;
constexpr int kSharpenFrames = 3;

inline swinup_context_desc sharpen_context_desc() {
    swinup_context_desc d = sliding_plane_context_desc(kSharpenRenderW, kSharpenRenderH, kSharpenDisplayW,
                                                       kSharpenDisplayH, SWINUP_FORMAT_RGBA16F);
    d.num_threads = 2;
    return d;
}

// Frame f with `sharpness` through backend.dispatch; the RGBA16F output bytes.
inline std::vector<uint8_t> sharpen_frame(Backend& backend, int f, float sharpness) {
    const SlidingPlaneFrame frame(kSharpenRenderW, kSharpenRenderH, f);
    std::vector<uint8_t> out(size_t(kSharpenDisplayW) * kSharpenDisplayH * 8, 0xcd);
    swinup_dispatch_desc d = frame.dispatch_desc(out.data(), SWINUP_FORMAT_RGBA16F, kSharpenDisplayW, kSharpenDisplayH);
    swinup_get_jitter(uint32_t(f), swinup_get_jitter_phase_count(2.0f), &d.jitter_x, &d.jitter_y);
    d.sharpness = sharpness;
    std::string error;
    EXPECT_EQ(backend.dispatch(d, uint64_t(f), &error), SWINUP_STATUS_OK) << error;
    return out;
}

}  // namespace swinup::test
