// Patch expand (1 token -> 2x2, docs/model-spec.md): RMSNorm -> e4m3 -> linear C -> 4C' (f32);
// output channel q * C' + c goes to quadrant q's fine token, channel c (depth-to-space); then the
// skip is added in f32 and the sum rounded to f16 once.
#pragma once

#include <string>
#include <vector>

#include "model/weights.h"
#include "cpu/layers/linear.h"

namespace swinup::cpu {

struct PatchExpand {
    int in_channels = 0;   // C of the coarse grid
    int out_channels = 0;  // C' of the fine grid
    std::vector<float> gain;  // C
    Linear linear;            // C -> 4C'

    static PatchExpand from_weights(const Weights& weights, const std::string& name, int in_channels,
                                    int out_channels);
    size_t heap_bytes() const { return gain.capacity() * sizeof(float) + linear.heap_bytes(); }
};

// Coarse tokens [first, first + count) of x (f16, C channels): y receives count x 4C' f32 values
// (the linear's outputs before depth-to-space and before the skip). Single-threaded.
void patch_expand_tokens(const PatchExpand& expand, const float* x, int first, int count, float* y);

// x: coarse w x h grid (f16, C); skip: fine 2w x 2h grid (f16, C'); y: fine grid,
// y = f16(expand(x) + skip). In parallel over fixed token blocks.
void patch_expand(const PatchExpand& expand, const float* x, int w, int h, const float* skip,
                  float* y);

}  // namespace swinup::cpu
