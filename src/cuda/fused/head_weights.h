// The head's weights as the two fused kernels that compute the head read them (lite's tail,
// lite_tail_fused.cuh, and full's head, head_fused.cuh): the head norm's gain, head.linear, and
// the head MLP's three layers when the weights have it (docs/model-spec.md, "The head MLP").
// Device pointers, filled once by the network (network_cuda.cu) and checked here for both kernels.
#pragma once

#include <cstdint>

namespace swinup::cuda {

struct HeadWeights {
    const float* gain = nullptr;   // head's norm [32]
    const uint8_t* w = nullptr;    // head.linear e4m3 [16, 32]
    const float* scale = nullptr;  // [16]
    const float* bias = nullptr;   // [16]
    // The head MLP (all null without it): fc1 e4m3 [64, 64] (K zero-padded from 48), fc2 [64, 64],
    // fc3 [16, 64] (rows 8-15 zero: the layer-by-layer GEMM's N padding; only 8 scale/bias read).
    const uint8_t* w_fc1 = nullptr;
    const float* scale_fc1 = nullptr;
    const float* bias_fc1 = nullptr;
    const uint8_t* w_fc2 = nullptr;
    const float* scale_fc2 = nullptr;
    const float* bias_fc2 = nullptr;
    const uint8_t* w_fc3 = nullptr;
    const float* scale_fc3 = nullptr;
    const float* bias_fc3 = nullptr;

    bool has_mlp() const { return w_fc1 != nullptr; }

    // What is wrong with these pointers for a launch (nullptr: nothing): a missing one, or a
    // weight matrix not 16-byte aligned (the kernels copy them with cp.async in 16-byte words).
    const char* problem() const {
        if (!gain || !w || !scale || !bias) return "null head operand";
        if (has_mlp() && !(scale_fc1 && bias_fc1 && w_fc2 && scale_fc2 && bias_fc2 && w_fc3 && scale_fc3 && bias_fc3))
            return "null head-MLP operand";
        for (const uint8_t* m : {w, w_fc1, w_fc2, w_fc3})
            if (reinterpret_cast<uintptr_t>(m) % 16 != 0) return "head weights must be 16-byte aligned";
        return nullptr;
    }
};

}  // namespace swinup::cuda
