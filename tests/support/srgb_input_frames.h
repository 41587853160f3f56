// SWINUP_FLAG_SRGB_INPUT's whole-frame tests, shared by the CPU backend's (tests/api) and the Vulkan
// backend's (tests/vulkan): the sliding plane's LDR colour sRGB-encoded, given with the flag, must
// give the frames of the same colour decoded on the host by the library's definition
// (frame/pixel_ops.h srgb_to_linear) and given without it, byte for byte, with a fixed exposure and
// with auto exposure (which reads the decoded colour too).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "frame/pixel_ops.h"
#include "sliding_plane_frames.h"
#include "swinup/swinup.h"

namespace swinup::test {

constexpr uint32_t kSrgbRenderW = 32, kSrgbRenderH = 16, kSrgbDisplayW = 64, kSrgbDisplayH = 32;
constexpr int kSrgbFrames = 3;

// sRGB encoding of a linear value in [0, 1] (the test's own, in double: any encoding will do, the
// frames compare the library's decode of it with the same decode done on the host).
inline float srgb_encode(float linear) {
    const double l = std::fmin(std::fmax(double(linear), 0.0), 1.0);
    return float(l <= 0.0031308 ? 12.92 * l : 1.055 * std::pow(l, 1.0 / 2.4) - 0.055);
}

enum class SrgbCase {
    kCodesWithFlag,       // the sRGB codes, SWINUP_FLAG_SRGB_INPUT
    kDecodedWithoutFlag,  // the codes decoded on the host, no flag
    kCodesWithoutFlag,    // the codes read as if linear (what the flag is for)
};

// kSrgbFrames frames of the plane (colour clamped to [0, 1]) as `which` says. Empty when the
// context cannot be made (*skip says why).
inline std::vector<std::vector<uint8_t>> run_srgb_frames(swinup_backend backend, SrgbCase which, bool auto_exposure,
                                                         std::string* skip) {
    const bool encoded = which != SrgbCase::kDecodedWithoutFlag;
    const bool flag = which == SrgbCase::kCodesWithFlag;
    swinup_context_desc cd =
        sliding_plane_context_desc(kSrgbRenderW, kSrgbRenderH, kSrgbDisplayW, kSrgbDisplayH, SWINUP_FORMAT_RGBA16F);
    cd.backend = backend;
    cd.num_threads = 2;
    cd.flags = (flag ? uint32_t(SWINUP_FLAG_SRGB_INPUT) : 0u) | (auto_exposure ? uint32_t(SWINUP_FLAG_AUTO_EXPOSURE) : 0u);  // LDR
    swinup_context* ctx = nullptr;
    if (swinup_context_create(&cd, &ctx) != SWINUP_STATUS_OK) {
        *skip = swinup_last_error(nullptr);
        return {};
    }
    std::vector<std::vector<uint8_t>> outputs;
    for (int f = 0; f < kSrgbFrames; ++f) {
        SlidingPlaneFrame plane(int(kSrgbRenderW), int(kSrgbRenderH), f);
        for (size_t i = 0; i < plane.color.size(); ++i) {
            if (i % 4 == 3) continue;
            const float code = srgb_encode(plane.color[i]);
            plane.color[i] = encoded ? code : px::srgb_to_linear(code);
        }
        std::vector<uint8_t> out(size_t(kSrgbDisplayW) * kSrgbDisplayH * 8, 0xcd);
        swinup_dispatch_desc d = plane.dispatch_desc(out.data(), SWINUP_FORMAT_RGBA16F, kSrgbDisplayW, kSrgbDisplayH);
        swinup_get_jitter(uint32_t(f), swinup_get_jitter_phase_count(2.0f), &d.jitter_x, &d.jitter_y);
        EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
        outputs.push_back(std::move(out));
    }
    swinup_context_destroy(ctx);
    return outputs;
}

// The frames with the flag equal those of the host-decoded colour; returns the flagged frames.
inline std::vector<std::vector<uint8_t>> expect_srgb_frames_equal_decoded(swinup_backend backend, bool auto_exposure) {
    std::string skip;
    const auto encoded = run_srgb_frames(backend, SrgbCase::kCodesWithFlag, auto_exposure, &skip);
    if (encoded.empty()) {
        ADD_FAILURE() << skip;
        return {};
    }
    const auto decoded = run_srgb_frames(backend, SrgbCase::kDecodedWithoutFlag, auto_exposure, &skip);
    const auto undecoded = run_srgb_frames(backend, SrgbCase::kCodesWithoutFlag, auto_exposure, &skip);
    // The codes read as linear are another picture: without the decode the frames would differ.
    EXPECT_FALSE(!undecoded.empty() && undecoded.back() == encoded.back());
    EXPECT_EQ(decoded.size(), encoded.size()) << skip;
    for (size_t f = 0; f < encoded.size() && f < decoded.size(); ++f) {
        EXPECT_TRUE(encoded[f] == decoded[f]) << "frame " << f;
    }
    return encoded;
}

}  // namespace swinup::test
