// Deterministic seeded initial weights, so that every part of the system runs (and gives a
// sensible picture) before trained weights exist.
//
// Determinism: the random numbers come from splitmix64, written here, and are turned into floats
// by integer arithmetic and exact scaling only (no std:: distributions, whose output differs
// between standard libraries, and no libm calls whose last bit may differ between platforms).
// Each tensor draws from its own stream, seeded by (seed, FNV-1a hash of the tensor's name), so
// the values of one tensor do not depend on the order or presence of the others.
//
// The choices (why the untrained network already gives a reasonable picture):
// - Linear weights: uniform in [-a, a] with a = sqrt(3 / fan_in), variance 1 / fan_in, so a
//   layer fed by an RMS-normalised (RMS ~ 1) input gives outputs of RMS ~ 1.
// - The residual branches' output layers (X.proj, X.fc2) are scaled by 0.1: every Swin block
//   starts close to the identity, so the untrained stack does not amplify noise level by level.
// - Quantisation: per output channel o, scale[o] = 2^e with the smallest e such that
//   max_k |w[o,k]| / 2^e <= 448 (e4m3's largest finite value). The row's largest weight then
//   lands in (224, 448], the top binade, and the row's values use e4m3's whole normal range
//   (3 mantissa bits of relative precision down to 2^-6 * scale); the power of two makes the
//   division exact, so the only rounding is the e4m3 encoding itself.
// - Biases 0, RMSNorm gains 1, relative-position bias tables 0 (attention starts uniform over
//   the window).
// - Head (32 -> 16 per render pixel, docs/model-spec.md "Output pass"):
//   rows 0-3 (recurrent features): the usual init scaled by 0.1: small, non-zero features;
//   rows 4-5 (log2 sigma major / minor): zero weights, bias log2(0.6), i.e. an isotropic
//     Gaussian of sigma 0.6 render pixels: a slightly soft reconstruction of the current samples;
//   row 6 (angle): zero weights and bias (angle 0; irrelevant while the kernel is isotropic);
//   row 7 (alpha): zero weights, bias ln(4) so that sigmoid(bias) = 0.8, a typical TAA blend of
//     the reprojected history (the output pass forces alpha to 0 where history is invalid);
//   rows 8-15 (reserved): zero weights and biases (model.md: zero in v1).
// - A row of zero weights has scale 1.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "numeric/e4m3.h"
#include "model/weights.h"

namespace swinup {
namespace {

// splitmix64 (Steele, Lea, Flood 2014): a tiny, well-mixed 64-bit generator.
class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // Uniform in [-1, 1): 24 random bits scaled by 2^-23 (exact in f32), minus 1.
    float uniform_pm1() {
        const auto bits = static_cast<uint32_t>(next() >> 40);  // 24 bits
        return static_cast<float>(bits) * (1.0f / 8388608.0f) - 1.0f;
    }

private:
    uint64_t state_;
};

uint64_t fnv1a(const std::string& s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    return h;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The linear layer's name of a tensor name "X.weight" -> "X".
std::string layer_of(const std::string& tensor_name) {
    return tensor_name.substr(0, tensor_name.rfind('.'));
}

// Rounded constants (literals, not libm calls, so every platform stores the same bits).
constexpr float kLog2InitialSigma = -0.7369655941662062f;  // log2(0.6)
constexpr float kInitialAlphaLogit = 1.3862943611198906f;  // ln(4): sigmoid = 0.8
constexpr double kResidualOutputGain = 0.1;
constexpr double kRecurrentHeadGain = 0.1;

// sqrt(3 / fan_in) computed in double and rounded once: IEEE sqrt is correctly rounded, so this
// is the same on every platform.
float uniform_bound(int64_t fan_in, double gain) {
    return static_cast<float>(gain * std::sqrt(3.0 / static_cast<double>(fan_in)));
}

// The power-of-two scale of a row: the smallest 2^e with max_abs / 2^e <= 448.
float row_scale(float max_abs) {
    if (max_abs == 0.0f) return 1.0f;
    int e = 0;
    while (max_abs / std::ldexp(1.0f, e) > kE4m3Max) ++e;
    while (max_abs / std::ldexp(1.0f, e - 1) <= kE4m3Max) --e;
    return std::ldexp(1.0f, e);
}

Tensor make_tensor(const TensorSpec& spec) {
    Tensor t;
    t.dtype = spec.dtype;
    t.shape = spec.shape;
    t.bytes.assign(static_cast<size_t>(spec.elements()) * dtype_size(spec.dtype), 0);
    return t;
}

void fill_f32(Tensor& t, float value) {
    float* p = reinterpret_cast<float*>(t.bytes.data());
    for (int64_t i = 0; i < t.elements(); ++i) p[i] = value;
}

// One linear layer: random rows [random_rows_begin, random_rows_end) with bound gain * a; the
// other rows zero. Writes X.weight and X.scale (X.bias stays zero unless the caller sets it).
void init_linear(Tensor& weight, Tensor& scale, const std::string& name, uint64_t seed,
                 int64_t random_rows, double gain) {
    const int64_t out = weight.shape[0];
    const int64_t in = weight.shape[1];
    SplitMix64 rng(seed ^ fnv1a(name));
    const float bound = uniform_bound(in, gain);
    std::vector<float> row(static_cast<size_t>(in));
    float* scales = reinterpret_cast<float*>(scale.bytes.data());
    for (int64_t o = 0; o < out; ++o) {
        float max_abs = 0.0f;
        for (int64_t k = 0; k < in; ++k) {
            const float w = o < random_rows ? rng.uniform_pm1() * bound : 0.0f;
            row[static_cast<size_t>(k)] = w;
            max_abs = std::max(max_abs, std::fabs(w));
        }
        const float s = row_scale(max_abs);
        scales[o] = s;
        for (int64_t k = 0; k < in; ++k)
            weight.bytes[static_cast<size_t>(o * in + k)] =
                f32_to_e4m3(row[static_cast<size_t>(k)] / s);
    }
}

}  // namespace

Weights weights_make_initial(Variant variant, uint64_t seed, bool head_mlp, bool masks) {
    Weights w;
    w.config = ModelConfig::make(variant, head_mlp, masks);
    w.description = "seeded initial weights, seed " + std::to_string(seed) + ", untrained";
    const std::vector<TensorSpec> specs = model_tensors(w.config);
    for (const TensorSpec& spec : specs) w.tensors.emplace(spec.name, make_tensor(spec));

    for (const TensorSpec& spec : specs) {
        Tensor& t = w.tensors.at(spec.name);
        if (ends_with(spec.name, ".gain")) {
            fill_f32(t, 1.0f);
        } else if (ends_with(spec.name, ".weight")) {
            const std::string layer = layer_of(spec.name);
            Tensor& scale = w.tensors.at(layer + ".scale");
            const bool residual_output = ends_with(layer, ".proj") || ends_with(layer, ".fc2");
            if (layer == "head.linear") {
                init_linear(t, scale, spec.name, seed, 4, kRecurrentHeadGain);
                float* bias = reinterpret_cast<float*>(w.tensors.at(layer + ".bias").bytes.data());
                bias[4] = kLog2InitialSigma;
                bias[5] = kLog2InitialSigma;
                bias[7] = kInitialAlphaLogit;
            } else if (layer == "head_mlp.fc3" || layer == "mask_embed") {
                // Zero (scale 1): a network with the head MLP or the mask embedding starts as
                // exactly the network without it.
                init_linear(t, scale, spec.name, seed, 0, 1.0);
            } else {
                init_linear(t, scale, spec.name, seed, spec.shape[0],
                            residual_output ? kResidualOutputGain : 1.0);
            }
        }
        // .bias: zero (head biases set above); .rel_bias: f16 zeros (all-zero bits).
    }
    return w;
}

bool mask_embed_absent_is_zero(const Weights& weights) {
    if (!weights.config.masks) return true;
    const Tensor& bias = weights.at("mask_embed.bias");
    for (int64_t i = 0; i < bias.elements(); ++i)
        if (bias.f32()[i] != 0.0f) return false;
    return true;
}

}  // namespace swinup
