// The CPU backend's test doubles: the embedded lite weights, and a stand-in network whose head
// gives every render pixel the same kernel and history weight, so that a test of the frame's
// edges (staging, output pass, masks, state) controls what the network would decide.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "cpu/cpu_backend.h"
#include "model/weights.h"

namespace swinup::test {

// The lite weights built into the library (a failure to decode them fails the calling test).
inline std::shared_ptr<const Weights> embedded_lite_weights() {
    std::string error;
    auto w = weights_load_embedded(Variant::lite, &error);
    EXPECT_TRUE(w) << error;
    return w;
}

// A stand-in head: a round Gaussian of sigma 0.5 render pixels and a fixed alpha logit.
inline cpu::CpuBackend::NetworkFn fixed_head(float alpha_logit) {
    return [alpha_logit](const float*, int w, int h, uint64_t, float* head) {
        for (int i = 0; i < w * h; ++i) {
            float* o = head + size_t(i) * kHeadOutputs;
            std::fill(o, o + kHeadOutputs, 0.0f);
            o[4] = o[5] = -1.0f;
            o[7] = alpha_logit;
        }
    };
}

}  // namespace swinup::test
