// The network's structure: its variants, layers and the exact list of weight tensors.
// Single source of truth for tensor names and shapes (docs/model-spec.md explains each).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace swinup {

enum class Variant { lite, full };
enum class DType { f8_e4m3, f16, f32 };

const char* variant_name(Variant v);                // "lite" / "full"
bool parse_variant(const std::string& s, Variant* v);
const char* dtype_name(DType t);                    // safetensors names: "F8_E4M3", "F16", "F32"
bool parse_dtype(const std::string& s, DType* t);
size_t dtype_size(DType t);

constexpr int kSlots = 16;         // staged features per render pixel
constexpr int kHeadOutputs = 16;   // head outputs per render pixel
constexpr int kWindow = 4;         // window side in tokens
constexpr int kWindowTokens = 16;  // tokens per window
constexpr int kShift = 2;          // cyclic shift of shifted blocks, in tokens
constexpr int kPadMultiple = 32;   // the render grid is padded to a multiple of this
constexpr float kRmsEps = 1.0f / 8192.0f;  // 2^-13
// Weights file format version. 2 (2026-11-30): staging slots 3-5 hold t(history) - t(colour)
// instead of t(history), and the output pass's current-frame share is (1 - alpha) * min(1, kernel
// weight sum) instead of 1 - alpha; version-1 weights would compute something else
// (docs/weights-format.md).
// 3 (2026-12-02): the config says whether the network has the head MLP (`head_mlp`, its tensors
// `head_mlp.fc1..fc3`); a version-2 file reads as a network without it (the same function), an
// older build refuses a version-3 file instead of dropping the MLP.
// 4 (2026-12-04): the config carries `still_history_shift`, added to the history weight's logit
// at render pixels whose dilated motion is exactly zero (docs/model-spec.md, "Output pass"); a
// version-2 or -3 file reads as shift 0 (the same function), and an older build refuses a
// version-4 file instead of running it without the shift.
// 5 (2026-12-05): the config says whether the network reads the reactive and transparency masks
// (`masks`, its layer `mask_embed`: docs/masks.md); a version-2 to -4 file reads as a network
// without it (the masks then act in the output pass only), and an older build refuses a version-5
// file instead of running it without the layer.
constexpr int kFormatVersion = 5;
constexpr int kOldestFormatVersion = 2;  // the oldest version this build reads
// A still-pixel shift beyond this moves the history weight to 0 or 1 for any head output the
// network gives; a file that says more was not made for this network.
constexpr float kMaxStillHistoryShift = 8.0f;

// The head MLP (docs/model-spec.md, "The head MLP"): 32 normalised head inputs + 16 staged slots ->
// 64 -> 64 -> 8, added to head outputs 0-7.
constexpr int kHeadMlpInputs = 32 + kSlots;
constexpr int kHeadMlpHidden = 64;
constexpr int kHeadMlpOutputs = 8;

// The mask embedding (docs/masks.md, weights format 5): a linear layer from the staged masks,
// added to the first layer's f32 output. lite: the 2x2 render pixels' (reactive, transparency)
// pairs of a level-1 token, index (dy * 2 + dx) * 2 + k -> C1, added to `embed`; full: one
// pixel's pair -> C0, added to `embed0`.
constexpr int kMaskInputs = 2;

struct BlockSpec {
    std::string name;  // tensor prefix, e.g. "enc1"
    int level;         // 0 = render resolution, 1 = /2, 2 = /4, 3 = /8
    int channels;      // C
    int heads;         // h; head dim d = C / h
};

struct ModelConfig {
    Variant variant = Variant::lite;
    int tube_blocks = 4;  // T
    // Channels per level: level 0 (full only) 32, then 64, 96, 128.
    int channels[4] = {32, 64, 96, 128};
    int heads[4] = {2, 2, 4, 4};
    // Whether the head MLP adds to the head's outputs 0-7 (weights format 3; false in format 2).
    bool head_mlp = false;
    // Added to head output 7 (the history weight's logit) where the render pixel's dilated motion
    // is exactly zero: a still pixel's history is read at whole-pixel offsets, so nothing is lost
    // in resampling it, and a still image can settle (weights format 4; 0 in formats 2 and 3).
    float still_history_shift = 0.0f;
    // Whether the network reads the masks through `mask_embed` (weights format 5; false before).
    bool masks = false;

    static ModelConfig make(Variant v, bool head_mlp = false, bool masks = false);
    // Swin blocks in execution order (block i is shifted when (i + frame) is odd).
    std::vector<BlockSpec> blocks() const;
    std::string to_json() const;                       // carried in the weights metadata
    static bool from_json(const std::string& json, ModelConfig* out, std::string* error);
};

// mask_embed's input and output widths for a variant (lite 8 -> 64, full 2 -> 32).
int mask_embed_inputs(const ModelConfig& config);
int mask_embed_outputs(const ModelConfig& config);

struct TensorSpec {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    int64_t elements() const;
};

// Every tensor of the model, in a fixed order (the order the weights file writes them).
std::vector<TensorSpec> model_tensors(const ModelConfig& config);

// Multiply-accumulates of the linear layers (GEMMs) for one frame at a padded render size;
// attention's QK^T and PV are counted separately.
struct ModelCost {
    double linear_macs = 0;
    double attention_macs = 0;
};
ModelCost model_cost(const ModelConfig& config, int padded_width, int padded_height);

// Round a render size up to the padded grid.
inline int pad_to_grid(int n) { return (n + kPadMultiple - 1) / kPadMultiple * kPadMultiple; }

}  // namespace swinup
