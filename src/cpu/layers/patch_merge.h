// Patch merge (2x2 tokens -> 1, docs/model-spec.md): the four f16 tokens concatenated in quadrant
// order (model/window_map.h), RMSNorm over the 4C values -> e4m3 -> linear 4C -> C' -> f16.
#pragma once

#include <string>
#include <vector>

#include "model/weights.h"
#include "cpu/layers/linear.h"

namespace swinup::cpu {

struct PatchMerge {
    int in_channels = 0;   // C of the fine grid
    int out_channels = 0;  // C' of the coarse grid
    std::vector<float> gain;  // 4C
    Linear linear;            // 4C -> C'

    static PatchMerge from_weights(const Weights& weights, const std::string& name, int in_channels,
                                   int out_channels);
    size_t heap_bytes() const { return gain.capacity() * sizeof(float) + linear.heap_bytes(); }
};

// The 4C concatenation of coarse token (cx, cy)'s quadrants from a fine grid of width fine_w.
void gather_quadrants(const float* fine, int fine_w, int channels, int cx, int cy, float* out);

// Coarse tokens [first, first + count) (row-major in the (w/2) x (h/2) grid) from the fine w x h
// grid x; y receives count x C' f16 values. Single-threaded.
void patch_merge_tokens(const PatchMerge& merge, const float* x, int w, int h, int first, int count,
                        float* y);

// The whole coarse grid, in parallel over fixed token blocks.
void patch_merge(const PatchMerge& merge, const float* x, int w, int h, float* y);

}  // namespace swinup::cpu
