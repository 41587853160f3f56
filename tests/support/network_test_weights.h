// Seeded random weights for every tensor of model_tensors(), for the network tests. Unlike
// weights_make_initial (zero biases, unit gains, zero bias tables), every parameter is random
// here, so that a layer that ignored one of them would be caught.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "numeric/e4m3.h"
#include "numeric/half.h"
#include "model/model_spec.h"
#include "model/weights.h"

namespace swinup::test {

inline bool name_ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Weights: e4m3 codes of values uniform in [-448, 448]; per-channel scales 2^-e chosen so that an
// input of RMS ~1 gives outputs of RMS ~1 (times a random factor 1/2, 1 or 2); biases uniform in
// [-0.2, 0.2]; gains uniform in [0.5, 1.5]; bias tables uniform in [-1, 1] (as f16).
// head_mlp: the network with the head MLP; masks: with mask_embed (their tensors random too).
inline std::shared_ptr<Weights> make_random_weights(Variant variant, uint32_t seed, bool head_mlp = false,
                                                    bool masks = false) {
    auto weights = std::make_shared<Weights>();
    weights->config = ModelConfig::make(variant, head_mlp, masks);
    weights->description = "random test weights";
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::uniform_int_distribution<int> octave(-1, 1);
    std::map<std::string, int64_t> fan_in;
    for (const TensorSpec& spec : model_tensors(weights->config)) {
        Tensor t;
        t.dtype = spec.dtype;
        t.shape = spec.shape;
        t.bytes.resize(size_t(spec.elements()) * dtype_size(spec.dtype));
        const std::string& n = spec.name;
        if (name_ends_with(n, ".weight")) {
            fan_in[n.substr(0, n.size() - 7)] = spec.shape[1];
            for (auto& b : t.bytes) b = f32_to_e4m3(unit(rng) * 448.0f);
        } else if (name_ends_with(n, ".scale")) {
            // RMS of the weights is 448 / sqrt(3) ~ 2^8; of a K-term sum, 2^8 sqrt(K).
            const double rms = 258.7 * std::sqrt(double(fan_in.at(n.substr(0, n.size() - 6))));
            const float s = std::ldexp(1.0f, -int(std::lround(std::log2(rms))) + octave(rng));
            float* p = reinterpret_cast<float*>(t.bytes.data());
            for (int64_t i = 0; i < spec.elements(); ++i) p[i] = s;
        } else if (name_ends_with(n, ".bias") || name_ends_with(n, ".gain")) {
            const bool gain = name_ends_with(n, ".gain");
            float* p = reinterpret_cast<float*>(t.bytes.data());
            for (int64_t i = 0; i < spec.elements(); ++i) p[i] = gain ? 1.0f + 0.5f * unit(rng) : 0.2f * unit(rng);
        } else {  // rel_bias, f16
            uint16_t* p = reinterpret_cast<uint16_t*>(t.bytes.data());
            for (int64_t i = 0; i < spec.elements(); ++i) p[i] = f32_to_f16_bits(unit(rng));
        }
        weights->tensors.emplace(n, std::move(t));
    }
    return weights;
}

// Seeded random staged slots (w x h x kSlots), uniform in [lo, hi) and rounded to e4m3 as staging
// stores them: the network's input without running staging.
inline std::vector<float> random_staged(int w, int h, uint32_t seed, float lo, float hi) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> staged(size_t(w) * h * kSlots);
    for (float& s : staged) s = round_to_e4m3(u(rng));
    return staged;
}

}  // namespace swinup::test
