#include "cuda/backend/network_cuda.cuh"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "numeric/e4m3.h"
#include "numeric/half.h"
#include "model/model_spec.h"
#include "cuda/fused/attention_fused.cuh"
#include "cuda/fused/attention_team.cuh"
#include "cuda/fused/block_fused.cuh"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/frame/frame_planes.cuh"
#include "cuda/layers/gemm_e4m3.cuh"
#include "cuda/fused/head_fused.cuh"
#include "cuda/layers/head_mlp.cuh"
#include "cuda/fused/lite_tail_fused.cuh"
#include "cuda/fused/mlp_fused.cuh"
#include "cuda/fused/mlp_team.cuh"
#include "cuda/layers/rms_norm.cuh"
#include "cuda/layers/window_attention.cuh"

namespace swinup::cuda {
namespace {

int round_up(int x, int m) { return (x + m - 1) / m * m; }

// The head MLP's fc3 as the GEMM runs it: its 8 outputs padded to the GEMM's N % 16; head_mlp_add
// reads those rows with the head's row stride.
constexpr int kHeadMlpGemmN = 16;
static_assert(kHeadMlpGemmN == kHeadOutputs && kHeadMlpOutputs <= kHeadMlpGemmN, "fc3's rows are head-shaped");

const Tensor& tensor(const Weights& w, const std::string& name, int64_t elements) {
    auto it = w.tensors.find(name);
    if (it == w.tensors.end()) throw std::invalid_argument("cuda network: missing tensor " + name);
    if (it->second.elements() != elements)
        throw std::invalid_argument("cuda network: tensor " + name + " has the wrong shape");
    return it->second;
}

DeviceBuffer upload(const void* data, size_t bytes) {
    DeviceBuffer b(bytes);
    b.upload(data, bytes);
    return b;
}

// A linear layer on the device: the e4m3 weight matrix zero-padded to [out, round_up(in, 32)]
// (the GEMM's K chunk), f32 scale and bias. `out_padded` (the head MLP's fc3, 8 outputs): the
// GEMM's N % 16 == 0 is met by extra output rows of zero weights, scale 1 and bias 0, whose
// outputs nobody reads (`out` is then the padded count).
struct DeviceLinear {
    DeviceBuffer w, scale, bias;
    int in = 0, out = 0, k_padded = 0;

    static DeviceLinear make(const Weights& weights, const std::string& name, int in, int out, int out_padded = 0) {
        const int n = std::max(out, out_padded);
        if (n % 16 != 0) throw std::invalid_argument("cuda network: " + name + " output count is not a multiple of 16");
        DeviceLinear l;
        l.in = in;
        l.out = n;
        l.k_padded = round_up(in, 32);
        const Tensor& w = tensor(weights, name + ".weight", int64_t(out) * in);
        std::vector<uint8_t> padded(size_t(n) * l.k_padded, 0);
        for (int o = 0; o < out; ++o) std::memcpy(&padded[size_t(o) * l.k_padded], w.e4m3() + size_t(o) * in, size_t(in));
        std::vector<float> scale(size_t(n), 1.0f), bias(size_t(n), 0.0f);
        std::memcpy(scale.data(), tensor(weights, name + ".scale", out).f32(), sizeof(float) * out);
        std::memcpy(bias.data(), tensor(weights, name + ".bias", out).f32(), sizeof(float) * out);
        l.w = upload(padded.data(), padded.size());
        l.scale = upload(scale.data(), sizeof(float) * n);
        l.bias = upload(bias.data(), sizeof(float) * n);
        return l;
    }

    // The weights', scales' and biases' device pointers into the three fields a kernel's
    // arguments hold them in.
    void point(const uint8_t*& w_out, const float*& scale_out, const float*& bias_out) const {
        w_out = w.get<uint8_t>();
        scale_out = scale.get<float>();
        bias_out = bias.get<float>();
    }
};

DeviceBuffer upload_gain(const Weights& weights, const std::string& name, int channels) {
    return upload(tensor(weights, name, channels).f32(), sizeof(float) * channels);
}

struct DeviceBlock {
    BlockSpec spec;
    DeviceBuffer norm1, norm2, rel_bias;
    DeviceLinear qkv, proj, fc1, fc2;
};

struct DeviceMerge {  // also the expand: a norm and a linear
    DeviceBuffer gain;
    DeviceLinear linear;
};

}  // namespace

struct CudaNetwork::Impl {
    ModelConfig config;
    swinup_precision precision;
    int max_width, max_height;
    std::vector<DeviceBlock> blocks;
    DeviceLinear embed, skip0, embed0, embed1;
    DeviceLinear mask_embed;  // weights format 5 (config.masks)
    DeviceMerge merge0, merge1, merge2, expand2, expand1, expand0, head;
    DeviceLinear head_fc1, head_fc2, head_fc3;  // the head MLP (config.head_mlp); fc3 padded to 16 rows
    // Activations: e = encoder (the skips), d = decoder, t3 = the tube; f16 residual streams.
    DeviceBuffer e0, d0, e1, d1, e2, d2, t3;
    DeviceBuffer normed;  // e4m3 GEMM inputs (norm outputs, attention outputs)
    DeviceBuffer wide;    // e4m3 fc1 / embed0 outputs
    DeviceBuffer qkv;     // f16 Q, K, V
    DeviceBuffer skip;    // f32 skip0 outputs (lite)
    NetworkFusions fusions;
    LayerHook hook;
    StageMarker marker;
    cudaStream_t stream = nullptr;

    // ---- one launch each, announced to the marker --------------------------------------------
    void mark(const StageInfo& s, bool begin) {
        if (marker) marker(s, begin, stream);
    }

    void linear(const std::string& layer, const char* op, const DeviceLinear& l, const uint8_t* a, int lda,
                GemmGather gather, int m, int grid_width, GemmEpilogue epilogue, void* out,
                const void* skip_in = nullptr, bool skip_f32 = false, const DeviceBuffer* norm_gain = nullptr) {
        GemmArgs g;
        if (norm_gain) g.norm_gain = norm_gain->get<float>();
        g.a = a;
        g.lda = lda;
        g.a_cols = l.in;
        g.gather = gather;
        g.m = m;
        g.grid_width = grid_width;
        l.point(g.w, g.scale, g.bias);
        g.k_padded = l.k_padded;
        g.n = l.out;
        g.epilogue = epilogue;
        g.precision = precision;
        g.out = out;
        g.skip = skip_in;
        g.skip_f32 = skip_f32;
        double out_bytes = 2;
        switch (epilogue) {
            case GemmEpilogue::store_f16: out_bytes = 2; break;
            case GemmEpilogue::store_f32: out_bytes = 4; break;
            case GemmEpilogue::relu_e4m3: case GemmEpilogue::gelu_e4m3: out_bytes = 1; break;
            case GemmEpilogue::residual_add_f16: out_bytes = 4; break;
            case GemmEpilogue::expand_add_f16: out_bytes = 2 + (skip_f32 ? 4 : 2); break;
            case GemmEpilogue::add_f32_store_f16: out_bytes = 2 + 4; break;
            case GemmEpilogue::add_f32_relu_e4m3: out_bytes = 1 + 4; break;
        }
        const double a_bytes = gather == GemmGather::rms_norm ? 2.0 : 1.0;  // f16 rows or e4m3 rows
        const StageInfo s{layer, op, 2.0 * m * l.in * l.out,
                          double(m) * l.in * a_bytes + double(l.out) * l.in + double(m) * l.out * out_bytes};
        mark(s, true);
        gemm_e4m3(g, stream);
        mark(s, false);
    }

    void norm(const std::string& layer, const char* op, const DeviceBuffer& gain, const uint16_t* x,
              int channels, NormGather gather, int tokens, int grid_width, uint8_t* out) {
        RmsNormArgs r;
        r.x = x;
        r.channels = channels;
        r.gather = gather;
        r.tokens = tokens;
        r.grid_width = grid_width;
        r.gain = gain.get<float>();
        r.out = out;
        r.precision = precision;
        const int c_out = gather == NormGather::rows ? channels : 4 * channels;
        const StageInfo s{layer, op, 3.0 * tokens * c_out, double(tokens) * c_out * 3};
        mark(s, true);
        rms_norm_e4m3(r, stream);
        mark(s, false);
    }

    // ---- layers --------------------------------------------------------------------------------
    void block(size_t index, uint16_t* x, int w, int h, uint64_t frame) {
        const DeviceBlock& b = blocks[index];
        const int c = b.spec.channels, tokens = w * h;
        const bool shifted = (uint64_t(index) + frame) % 2 == 1;
        const std::string& name = b.spec.name;
        // Fused norms: the GEMM normalises its A tiles itself (byte for byte the norm kernel's
        // output). Only up to C = 64 (levels 0 and 1, most of the tokens): wider rows' f16 buffers
        // push the GEMM's shared memory over its slicing target, and every N slice would normalise
        // the tile again (not measured yet: a choice of where the fusion surely pays).
        const bool fuse_norm = fusions.norms && c % 32 == 0 && c <= 64;
        const bool fuse_attention = fusions.attention && attention_fused_supported(c, b.spec.heads);
        const bool fuse_mlp = fusions.mlp && mlp_fused_supported(c);
        // The whole block as one kernel where both halves are fused and it is supported (levels 0
        // to 2): the same bytes as the two half kernels.
        if (fusions.block && fuse_attention && fuse_mlp && block_fused_supported(c, b.spec.heads)) {
            whole_block(b, x, w, h, shifted);
            report(name, x, w, h, c);
            return;
        }
        if (fuse_attention) {
            attention_half(b, x, w, h, shifted);
        } else {
            attention_half_unfused(b, x, w, h, shifted, fuse_norm);
        }
        if (fuse_mlp) {
            mlp(name, b, x, tokens);
        } else {
            uint8_t* normed_p = normed.get<uint8_t>();
            if (fuse_norm) {
                linear(name, "norm2+fc1", b.fc1, reinterpret_cast<const uint8_t*>(x), 2 * c, GemmGather::rms_norm,
                       tokens, w, GemmEpilogue::gelu_e4m3, wide.get(), nullptr, false, &b.norm2);
            } else {
                norm(name, "norm2", b.norm2, x, c, NormGather::rows, tokens, w, normed_p);
                linear(name, "fc1", b.fc1, normed_p, c, GemmGather::rows, tokens, w, GemmEpilogue::gelu_e4m3,
                       wide.get());
            }
            linear(name, "fc2", b.fc2, wide.get<uint8_t>(), 4 * c, GemmGather::rows, tokens, w,
                   GemmEpilogue::residual_add_f16, x);
        }
        report(name, x, w, h, c);
    }

    // What the two attention launches (window_attention, attention_fused) take alike: block b's
    // window attention (channels, heads, relative position bias) over the w x h token grid.
    template <class Args>
    void window_attention_fields(Args& a, const DeviceBlock& b, int w, int h, bool shifted) const {
        a.width = w;
        a.height = h;
        a.channels = b.spec.channels;
        a.heads = b.spec.heads;
        a.shifted = shifted;
        a.rel_bias = b.rel_bias.get<uint16_t>();
        a.precision = precision;
    }

    // x = x + proj(attention(qkv(norm1(x)))) layer by layer: the reference the fused kernel equals.
    void attention_half_unfused(const DeviceBlock& b, uint16_t* x, int w, int h, bool shifted, bool fuse_norm) {
        const int c = b.spec.channels, tokens = w * h;
        const std::string& name = b.spec.name;
        uint8_t* normed_p = normed.get<uint8_t>();
        uint16_t* qkv_p = qkv.get<uint16_t>();
        if (fuse_norm) {
            linear(name, "norm1+qkv", b.qkv, reinterpret_cast<const uint8_t*>(x), 2 * c, GemmGather::rms_norm, tokens,
                   w, GemmEpilogue::store_f16, qkv_p, nullptr, false, &b.norm1);
        } else {
            norm(name, "norm1", b.norm1, x, c, NormGather::rows, tokens, w, normed_p);
            linear(name, "qkv", b.qkv, normed_p, c, GemmGather::rows, tokens, w, GemmEpilogue::store_f16, qkv_p);
        }
        WindowAttentionArgs a;
        a.qkv = qkv_p;
        window_attention_fields(a, b, w, h, shifted);
        a.out = normed_p;  // the norm output is dead once Q, K, V exist
        const StageInfo s{name, "attention", 2.0 * 2.0 * tokens * kWindowTokens * c,
                          double(tokens) * (3 * c * 2 + c)};
        mark(s, true);
        window_attention(a, stream);
        mark(s, false);
        linear(name, "proj", b.proj, normed_p, c, GemmGather::rows, tokens, w, GemmEpilogue::residual_add_f16, x);
    }

    // The fused attention half's operands: block b's norm1, qkv, window attention and proj on the
    // w x h token grid of x.
    AttentionBlockArgs attention_args(const DeviceBlock& b, uint16_t* x, int w, int h, bool shifted) const {
        AttentionBlockArgs a;
        a.x = x;
        window_attention_fields(a, b, w, h, shifted);
        a.norm_gain = b.norm1.get<float>();
        b.qkv.point(a.w_qkv, a.scale_qkv, a.bias_qkv);
        b.proj.point(a.w_proj, a.scale_proj, a.bias_proj);
        return a;
    }

    // The fused MLP half's operands: block b's norm2, fc1 and fc2 on the `tokens` rows of x.
    MlpArgs mlp_args(const DeviceBlock& b, uint16_t* x, int tokens) const {
        MlpArgs a;
        a.x = x;
        a.m = tokens;
        a.channels = b.spec.channels;
        a.norm_gain = b.norm2.get<float>();
        b.fc1.point(a.w1, a.scale1, a.bias1);
        b.fc2.point(a.w2, a.scale2, a.bias2);
        a.precision = precision;
        return a;
    }

    // GEMM flops (qkv 3C^2, proj C^2 per token) plus attention's; moves x in and out once
    // (f16) and both weight matrices; the norm, Q K V and attention rows stay on chip.
    static StageInfo attention_half_stage(const std::string& name, const char* op, int c, int tokens) {
        return {name, op, 2.0 * tokens * 4.0 * c * c + 2.0 * 2.0 * tokens * kWindowTokens * c,
                double(tokens) * c * 2 * 2 + 4.0 * c * c};
    }

    // Moves x in and out once (f16) and both weight matrices; the hidden rows stay on chip.
    static StageInfo mlp_half_stage(const std::string& name, const char* op, int c, int tokens) {
        return {name, op, 2.0 * 2.0 * tokens * c * 4 * c, double(tokens) * c * 2 * 2 + 2.0 * 4 * c * c};
    }

    // The same in one kernel, a warp per window, Q K V and the attention rows in shared memory
    // (attention_fused.cuh: the same bytes as the launches above).
    void attention_half(const DeviceBlock& b, uint16_t* x, int w, int h, bool shifted) {
        const StageInfo s = attention_half_stage(b.spec.name, "norm1+qkv+attention+proj", b.spec.channels, w * h);
        mark(s, true);
        if (fusions.teams && attention_team_supported(b.spec.channels, b.spec.heads)) {
            attention_team(attention_args(b, x, w, h, shifted), stream);  // a team of warps per window: the same bytes
        } else {
            attention_fused(attention_args(b, x, w, h, shifted), stream);
        }
        mark(s, false);
    }

    // norm2 -> fc1 -> GELU -> fc2 + residual in one kernel, the hidden rows in shared memory (the
    // same bytes as the three launches above; every level where mlp_fused_supported holds).
    void mlp(const std::string& name, const DeviceBlock& b, uint16_t* x, int tokens) {
        const StageInfo s = mlp_half_stage(name, "norm2+mlp", b.spec.channels, tokens);
        mark(s, true);
        if (fusions.teams && mlp_team_supported(b.spec.channels)) {
            mlp_team(mlp_args(b, x, tokens), stream);  // a team of warps per tile: the same bytes
        } else {
            mlp_fused(mlp_args(b, x, tokens), stream);
        }
        mark(s, false);
    }

    // Both halves in one kernel, a warp per window through the attention half and then the MLP
    // half on the same rows (block_fused.cuh: the same bytes as the two kernels above). x goes
    // in and out once instead of twice.
    void whole_block(const DeviceBlock& b, uint16_t* x, int w, int h, bool shifted) {
        const int c = b.spec.channels, tokens = w * h;
        const StageInfo attention = attention_half_stage(b.spec.name, "", c, tokens);
        const StageInfo mlp = mlp_half_stage(b.spec.name, "", c, tokens);
        const StageInfo s{b.spec.name, "attention+mlp", attention.flops + mlp.flops,
                          attention.bytes + mlp.bytes - double(tokens) * c * 2 * 2};
        BlockFusedArgs a;
        a.attention = attention_args(b, x, w, h, shifted);
        a.mlp = mlp_args(b, x, tokens);
        mark(s, true);
        block_fused(a, stream);
        mark(s, false);
    }

    // Merge: fine grid (w, h) of C channels -> coarse grid, norm over the 4C concatenation.
    void merge(const std::string& name, const DeviceMerge& m, const uint16_t* fine, int w, int h, int c,
               uint16_t* coarse) {
        const int cw = w / 2, tokens = (w / 2) * (h / 2);
        // The merge's norm stays a kernel of its own: folded into the GEMM (a gathered, normalised
        // A tile) it measured slower on the H200 (merge1 63 -> 80 us, merge2 44 -> 59 us: one
        // thread per 4C-channel row serialises the tile), unlike the expands' C-channel rows.
        norm(name, "norm", m.gain, fine, c, NormGather::space_to_depth, tokens, cw, normed.get<uint8_t>());
        linear(name, "linear", m.linear, normed.get<uint8_t>(), 4 * c, GemmGather::rows, tokens, cw,
               GemmEpilogue::store_f16, coarse);
        report(name, coarse, cw, h / 2, m.linear.out);
    }

    // Expand: coarse grid (w, h) of C channels -> fine grid, + skip (f16 or f32 at the fine grid).
    void expand(const std::string& name, const DeviceMerge& e, const uint16_t* coarse, int w, int h, int c,
                const void* skip_in, bool skip_f32, uint16_t* fine) {
        if (fusions.norms && c % 32 == 0) {  // the GEMM normalises its A tiles (the norm kernel's bytes)
            linear(name, "norm+linear", e.linear, reinterpret_cast<const uint8_t*>(coarse), 2 * c,
                   GemmGather::rms_norm, w * h, w, GemmEpilogue::expand_add_f16, fine, skip_in, skip_f32, &e.gain);
        } else {
            norm(name, "norm", e.gain, coarse, c, NormGather::rows, w * h, w, normed.get<uint8_t>());
            linear(name, "linear", e.linear, normed.get<uint8_t>(), c, GemmGather::rows, w * h, w,
                   GemmEpilogue::expand_add_f16, fine, skip_in, skip_f32);
        }
        report(name, fine, 2 * w, 2 * h, e.linear.out / 4);
    }

    // The head's weights for the fused kernels that compute it (head_weights.h); the head MLP's
    // only when the weights have it (the kernels' head-MLP instantiation; fc1's K padded to 64).
    HeadWeights head_weights() const {
        HeadWeights h;
        h.gain = head.gain.get<float>();
        head.linear.point(h.w, h.scale, h.bias);
        if (config.head_mlp) {
            head_fc1.point(h.w_fc1, h.scale_fc1, h.bias_fc1);
            head_fc2.point(h.w_fc2, h.scale_fc2, h.bias_fc2);
            head_fc3.point(h.w_fc3, h.scale_fc3, h.bias_fc3);
        }
        return h;
    }

    // lite's expand0 + skip0 -> head as one kernel (lite_tail_fused.cuh: the same bytes as the
    // skip0, expand0 and head launches). d0 (expand0's output) is only written for the layer hook.
    void lite_tail(const uint8_t* staged, const uint16_t* d1p, int w1, int h1, uint16_t* d0p, float* head_out) {
        LiteTailArgs a;
        a.d1 = d1p;
        a.staged = staged;
        a.width1 = w1;
        a.height1 = h1;
        a.expand_gain = expand0.gain.get<float>();
        expand0.linear.point(a.w_expand, a.scale_expand, a.bias_expand);
        skip0.point(a.w_skip, a.scale_skip, a.bias_skip);
        a.head_w = head_weights();
        a.precision = precision;
        a.head = head_out;
        a.d0 = d0p;
        const double pixels = 4.0 * w1 * h1;
        // skip0 (16 -> 32), expand0 (64 -> 128 per level-1 token), head (32 -> 16), the head MLP
        // (48 -> 64 -> 64 -> 8); bytes: dec1's rows and the staged slots in, the head outputs out,
        // the weights.
        const double mlp_macs = config.head_mlp ? double(kHeadMlpInputs * kHeadMlpHidden + kHeadMlpHidden * kHeadMlpHidden +
                                                         kHeadMlpHidden * kHeadMlpOutputs)
                                                : 0.0;
        const StageInfo s{"tail", config.head_mlp ? "expand0+skip0+head+head_mlp" : "expand0+skip0+head",
                          2.0 * pixels * (kSlots * 32 + 32 * 16 + mlp_macs) + 2.0 * w1 * h1 * 64 * 128,
                          double(w1) * h1 * 64 * 2 + pixels * kSlots + pixels * kHeadOutputs * 4 + 128 * 64 + 32 * 32 +
                              16 * 32 + mlp_macs};
        mark(s, true);
        lite_tail_fused(a, stream);
        mark(s, false);
    }

    // full's head norm -> head linear (-> the head MLP) as one kernel (head_fused.cuh: the same
    // bytes as the norm, linear and head_mlp_unfused launches below), per 32 consecutive pixels.
    void head_fused_stage(const uint8_t* staged, const uint16_t* d0p, int pixels, float* head_out) {
        HeadArgs a;
        a.d0 = d0p;
        a.pixels = pixels;
        a.head_w = head_weights();
        if (config.head_mlp) a.staged = staged;  // fc1's second K chunk (nothing else reads the slots)
        a.precision = precision;
        a.head = head_out;
        // head (32 -> 16), the head MLP (48 -> 64 -> 64 -> 8); bytes: d0's f16 rows (and with the
        // MLP the staged slots) in, the f32 head outputs out, the weights. The norm's few flops
        // are not counted (as in lite's tail).
        const double mlp_macs =
            config.head_mlp ? double(kHeadMlpInputs * kHeadMlpHidden + kHeadMlpHidden * kHeadMlpHidden +
                                     kHeadMlpHidden * kHeadMlpOutputs)
                            : 0.0;
        const double p = pixels;
        const StageInfo s{"head", config.head_mlp ? "norm+linear+head_mlp" : "norm+linear",
                          2.0 * p * (32 * kHeadOutputs + mlp_macs),
                          p * 32 * 2 + (config.head_mlp ? p * kSlots : 0.0) + p * kHeadOutputs * 4 +
                              kHeadOutputs * 32 + mlp_macs};
        mark(s, true);
        head_fused(a, stream);
        mark(s, false);
    }

    // The head MLP layer by layer, after head.linear has written head_out (docs/model-spec.md, "The
    // head MLP"): fc1's A rows are the head norm's rows (still in `normed`) followed by the staged
    // slots; fc1 -> ReLU -> e4m3, fc2 likewise, fc3 -> f32 (16 columns, 8..15 the zero padding),
    // added to head outputs 0-7. Scratch that is dead by then: the A rows and then h2 in `qkv`,
    // h1 and then fc3's rows in `wide` (the constructor sizes both for it).
    void head_mlp_unfused(const uint8_t* staged, int w, int h, float* head_out) {
        const int pixels = w * h;
        uint8_t* x = qkv.get<uint8_t>();
        uint8_t* h1 = wide.get<uint8_t>();
        uint8_t* h2 = qkv.get<uint8_t>();  // x is dead once fc1 has run
        float* y3 = wide.get<float>();     // h1 is dead once fc2 has run
        const StageInfo input{"head_mlp", "input", 0.0, double(pixels) * (2 * kHeadMlpInputs)};
        mark(input, true);
        head_mlp_input(normed.get<uint8_t>(), staged, pixels, x, stream);
        mark(input, false);
        linear("head_mlp", "fc1", head_fc1, x, kHeadMlpInputs, GemmGather::rows, pixels, w, GemmEpilogue::relu_e4m3,
               h1);
        linear("head_mlp", "fc2", head_fc2, h1, kHeadMlpHidden, GemmGather::rows, pixels, w,
               GemmEpilogue::relu_e4m3, h2);
        linear("head_mlp", "fc3", head_fc3, h2, kHeadMlpHidden, GemmGather::rows, pixels, w, GemmEpilogue::store_f32,
               y3);
        const StageInfo add{"head_mlp", "add", double(pixels) * kHeadMlpOutputs,
                            double(pixels) * kHeadMlpOutputs * 4 * 3};
        mark(add, true);
        head_mlp_add(y3, pixels, head_out, stream);
        mark(add, false);
    }

    size_t block_index(const std::string& name) const {
        for (size_t i = 0; i < blocks.size(); ++i)
            if (blocks[i].spec.name == name) return i;
        throw std::logic_error("cuda network: no block " + name);
    }

    // ---- hook (tests only) -----------------------------------------------------------------------
    template <class T>
    std::vector<T> download(const void* p, size_t n) {
        SWINUP_CUDA_CHECK(cudaStreamSynchronize(stream));
        std::vector<T> host(n);
        SWINUP_CUDA_CHECK(cudaMemcpy(host.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }
    // Hands the hook a layer's w x h x c output of f16 bits or e4m3 codes, decoded to floats.
    template <class T>
    void report_decoded(const std::string& name, const T* x, int w, int h, int c, float (*decode)(T)) {
        if (!hook) return;
        const std::vector<T> stored = download<T>(x, size_t(w) * h * c);
        std::vector<float> f(stored.size());
        for (size_t i = 0; i < f.size(); ++i) f[i] = decode(stored[i]);
        hook(name, f.data(), w, h, c);
    }
    void report(const std::string& name, const uint16_t* x, int w, int h, int c) {
        report_decoded<uint16_t>(name, x, w, h, c, f16_bits_to_f32);
    }
    void report_e4m3(const std::string& name, const uint8_t* x, int w, int h, int c) {
        report_decoded<uint8_t>(name, x, w, h, c, e4m3_to_f32);
    }
    void report_f32(const std::string& name, const float* x, int w, int h, int c) {
        if (!hook) return;
        const std::vector<float> f = download<float>(x, size_t(w) * h * c);
        hook(name, f.data(), w, h, c);
    }

    void run(const uint8_t* staged, const uint8_t* masks, int w, int h, uint64_t frame, float* head_out);
};

CudaNetwork::CudaNetwork(const Weights& weights, swinup_precision precision, int max_width, int max_height)
    : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    m.config = weights.config;
    m.precision = precision;
    m.max_width = max_width;
    m.max_height = max_height;
    if (max_width <= 0 || max_height <= 0 || max_width % kPadMultiple || max_height % kPadMultiple)
        throw std::invalid_argument("cuda network: the maximum grid must be a positive multiple of 32");
    const int* ch = m.config.channels;
    for (const BlockSpec& spec : m.config.blocks()) {
        DeviceBlock b;
        b.spec = spec;
        const int c = spec.channels;
        b.norm1 = upload_gain(weights, spec.name + ".norm1.gain", c);
        b.norm2 = upload_gain(weights, spec.name + ".norm2.gain", c);
        const Tensor& rb = tensor(weights, spec.name + ".rel_bias", int64_t(spec.heads) * kWindowTokens * kWindowTokens);
        b.rel_bias = upload(rb.f16(), rb.bytes.size());
        b.qkv = DeviceLinear::make(weights, spec.name + ".qkv", c, 3 * c);
        b.proj = DeviceLinear::make(weights, spec.name + ".proj", c, c);
        b.fc1 = DeviceLinear::make(weights, spec.name + ".fc1", c, 4 * c);
        b.fc2 = DeviceLinear::make(weights, spec.name + ".fc2", 4 * c, c);
        m.blocks.push_back(std::move(b));
    }
    auto make_merge = [&](const std::string& name, int c_in, int c_out) {
        return DeviceMerge{upload_gain(weights, name + ".norm.gain", 4 * c_in),
                           DeviceLinear::make(weights, name + ".linear", 4 * c_in, c_out)};
    };
    auto make_expand = [&](const std::string& name, int c_in, int c_out) {
        return DeviceMerge{upload_gain(weights, name + ".norm.gain", c_in),
                           DeviceLinear::make(weights, name + ".linear", c_in, 4 * c_out)};
    };
    const bool lite = m.config.variant == Variant::lite;
    if (lite) {
        m.embed = DeviceLinear::make(weights, "embed", 4 * kSlots, ch[1]);
        m.skip0 = DeviceLinear::make(weights, "skip0", kSlots, ch[0]);
    } else {
        m.embed0 = DeviceLinear::make(weights, "embed0", kSlots, ch[0]);
        m.embed1 = DeviceLinear::make(weights, "embed1", ch[0], ch[0]);
        m.merge0 = make_merge("merge0", ch[0], ch[1]);
    }
    if (m.config.masks)
        m.mask_embed = DeviceLinear::make(weights, "mask_embed", mask_embed_inputs(m.config), mask_embed_outputs(m.config));
    m.merge1 = make_merge("merge1", ch[1], ch[2]);
    m.merge2 = make_merge("merge2", ch[2], ch[3]);
    m.expand2 = make_expand("expand2", ch[3], ch[2]);
    m.expand1 = make_expand("expand1", ch[2], ch[1]);
    m.expand0 = make_expand("expand0", ch[1], ch[0]);
    m.head = DeviceMerge{upload_gain(weights, "head.norm.gain", ch[0]),
                         DeviceLinear::make(weights, "head.linear", ch[0], kHeadOutputs)};
    if (m.config.head_mlp) {
        m.head_fc1 = DeviceLinear::make(weights, "head_mlp.fc1", kHeadMlpInputs, kHeadMlpHidden);
        m.head_fc2 = DeviceLinear::make(weights, "head_mlp.fc2", kHeadMlpHidden, kHeadMlpHidden);
        m.head_fc3 = DeviceLinear::make(weights, "head_mlp.fc3", kHeadMlpHidden, kHeadMlpOutputs, kHeadMlpGemmN);
    }

    const size_t p = size_t(max_width) * max_height;  // level-0 tokens
    const size_t tokens[4] = {p, p / 4, p / 16, p / 64};
    if (!lite) m.e0 = DeviceBuffer(tokens[0] * ch[0] * 2);
    m.d0 = DeviceBuffer(tokens[0] * ch[0] * 2);
    m.e1 = DeviceBuffer(tokens[1] * ch[1] * 2);
    m.d1 = DeviceBuffer(tokens[1] * ch[1] * 2);
    m.e2 = DeviceBuffer(tokens[2] * ch[2] * 2);
    m.d2 = DeviceBuffer(tokens[2] * ch[2] * 2);
    m.t3 = DeviceBuffer(tokens[3] * ch[3] * 2);
    size_t normed = 0, wide = 0, qkv = 0;
    for (const BlockSpec& b : m.config.blocks()) {
        const size_t t = tokens[b.level];
        normed = std::max(normed, t * b.channels);
        wide = std::max(wide, t * 4 * b.channels);
        qkv = std::max(qkv, t * 3 * b.channels * 2);
    }
    normed = std::max(normed, tokens[0] * ch[0]);  // head norm
    if (!lite) wide = std::max(wide, tokens[0] * ch[0]);  // embed0
    // mask_embed's f32 outputs, added to embed's / embed0's (no attention runs before).
    if (m.config.masks) qkv = std::max(qkv, (lite ? tokens[1] * ch[1] : tokens[0] * ch[0]) * sizeof(float));
    if (m.config.head_mlp) {  // head_mlp_unfused: A rows then h2 in qkv, h1 then fc3's f32 rows in wide
        qkv = std::max(qkv, tokens[0] * std::max(kHeadMlpInputs, kHeadMlpHidden));
        wide = std::max(wide, tokens[0] * std::max<size_t>(kHeadMlpHidden, kHeadMlpGemmN * sizeof(float)));
    }
    m.normed = DeviceBuffer(normed);
    m.wide = DeviceBuffer(wide);
    m.qkv = DeviceBuffer(qkv);
    if (lite) m.skip = DeviceBuffer(tokens[0] * ch[0] * sizeof(float));
}

CudaNetwork::~CudaNetwork() = default;

void CudaNetwork::set_layer_hook(LayerHook hook) { impl_->hook = std::move(hook); }
void CudaNetwork::set_fusions(const NetworkFusions& fusions) { impl_->fusions = fusions; }
void CudaNetwork::set_stage_marker(StageMarker marker) { impl_->marker = std::move(marker); }

void CudaNetwork::run(const uint8_t* staged, int width, int height, uint64_t frame_index, float* head,
                      cudaStream_t stream, const uint8_t* masks) {
    Impl& m = *impl_;
    if (width <= 0 || height <= 0 || width % kPadMultiple || height % kPadMultiple || width > m.max_width ||
        height > m.max_height) {
        throw std::invalid_argument("cuda network: grid " + std::to_string(width) + "x" + std::to_string(height) +
                                    " is not a multiple of 32 within the maximum");
    }
    m.stream = stream;
    m.run(staged, m.config.masks ? masks : nullptr, width, height, frame_index, head);
}

void CudaNetwork::Impl::run(const uint8_t* staged, const uint8_t* masks, int w, int h, uint64_t frame,
                            float* head_out) {
    const int* ch = config.channels;
    const int w1 = w / 2, h1 = h / 2, w2 = w / 4, h2 = h / 4, w3 = w / 8, h3 = h / 8;
    const bool lite = config.variant == Variant::lite;
    uint16_t *e0p = e0.get<uint16_t>(), *d0p = d0.get<uint16_t>(), *e1p = e1.get<uint16_t>(),
             *d1p = d1.get<uint16_t>(), *e2p = e2.get<uint16_t>(), *d2p = d2.get<uint16_t>(),
             *t3p = t3.get<uint16_t>();
    if (lite) {
        // Level-1 token = its 2x2 pixels' 16 slots, (dy, dx) order: the GEMM gathers them.
        // With masks: + mask_embed of the token's 2x2 pixels' masks, in f32 before the f16 rounding.
        if (masks != nullptr) {
            linear("embed", "mask_embed", mask_embed, masks, kMaskTokenBytes, GemmGather::rows, w1 * h1, w1,
                   GemmEpilogue::store_f32, qkv.get());
            linear("embed", "linear", embed, staged, kSlots, GemmGather::space_to_depth, w1 * h1, w1,
                   GemmEpilogue::add_f32_store_f16, e1p, qkv.get(), true);
        } else {
            linear("embed", "linear", embed, staged, kSlots, GemmGather::space_to_depth, w1 * h1, w1,
                   GemmEpilogue::store_f16, e1p);
        }
        report("embed", e1p, w1, h1, ch[1]);
    } else {
        // With masks: + mask_embed of the pixel's masks, in f32 before the ReLU.
        if (masks != nullptr) {
            linear("embed0", "mask_embed", mask_embed, masks, kMaskTokenBytes, GemmGather::rows, w * h, w,
                   GemmEpilogue::store_f32, qkv.get());
            linear("embed0", "linear", embed0, staged, kSlots, GemmGather::rows, w * h, w,
                   GemmEpilogue::add_f32_relu_e4m3, wide.get(), qkv.get(), true);
        } else {
            linear("embed0", "linear", embed0, staged, kSlots, GemmGather::rows, w * h, w, GemmEpilogue::relu_e4m3,
                   wide.get());
        }
        report_e4m3("embed0", wide.get<uint8_t>(), w, h, ch[0]);
        linear("embed1", "linear", embed1, wide.get<uint8_t>(), ch[0], GemmGather::rows, w * h, w,
               GemmEpilogue::store_f16, e0p);
        report("embed1", e0p, w, h, ch[0]);
        block(block_index("enc0"), e0p, w, h, frame);
        merge("merge0", merge0, e0p, w, h, ch[0], e1p);
    }
    block(block_index("enc1"), e1p, w1, h1, frame);
    merge("merge1", merge1, e1p, w1, h1, ch[1], e2p);
    block(block_index("enc2"), e2p, w2, h2, frame);
    merge("merge2", merge2, e2p, w2, h2, ch[2], t3p);
    for (int i = 0; i < config.tube_blocks; ++i) block(block_index("tube" + std::to_string(i)), t3p, w3, h3, frame);
    expand("expand2", expand2, t3p, w3, h3, ch[3], e2p, false, d2p);
    block(block_index("dec2"), d2p, w2, h2, frame);
    expand("expand1", expand1, d2p, w2, h2, ch[2], e1p, false, d1p);
    block(block_index("dec1"), d1p, w1, h1, frame);
    if (lite && fusions.lite_tail && lite_tail_fused_supported(config.head_mlp)) {
        lite_tail(staged, d1p, w1, h1, hook ? d0p : nullptr, head_out);
        report("expand0", d0p, w, h, ch[0]);
        report_f32("head", head_out, w, h, kHeadOutputs);
        return;
    }
    if (lite) {
        float* skip_p = skip.get<float>();
        linear("skip0", "linear", skip0, staged, kSlots, GemmGather::rows, w * h, w, GemmEpilogue::store_f32,
               skip_p);
        expand("expand0", expand0, d1p, w1, h1, ch[1], skip_p, true, d0p);
    } else {
        expand("expand0", expand0, d1p, w1, h1, ch[1], e0p, false, d0p);
        block(block_index("dec0"), d0p, w, h, frame);
    }
    // full's head as one kernel (lite's fused tail, above, already contains the head; where it is
    // off or does not fit, lite keeps the launches below).
    if (!lite && fusions.head && head_fused_supported(config.head_mlp)) {
        head_fused_stage(staged, d0p, w * h, head_out);
        report_f32("head", head_out, w, h, kHeadOutputs);
        return;
    }
    norm("head", "norm", head.gain, d0p, ch[0], NormGather::rows, w * h, w, normed.get<uint8_t>());
    linear("head", "linear", head.linear, normed.get<uint8_t>(), ch[0], GemmGather::rows, w * h, w,
           GemmEpilogue::store_f32, head_out);
    if (config.head_mlp) head_mlp_unfused(staged, w, h, head_out);
    report_f32("head", head_out, w, h, kHeadOutputs);
}

}  // namespace swinup::cuda
