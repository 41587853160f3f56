// One kernel on guarded device buffers (single_kernel.h).
#include "cuda/tools/single_kernel.h"

#include <cstring>
#include <stdexcept>

#include "frame/frame_geometry.h"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/backend/device_buffer.cuh"
#include "cuda/backend/frame_params.cuh"
#include "cuda/frame/frame_planes.cuh"
#include "cuda/frame/post_network.cuh"
#include "cuda/frame/pre_network.cuh"
#include "cuda/fused/attention_fused.cuh"
#include "cuda/fused/block_fused.cuh"
#include "cuda/fused/head_fused.cuh"
#include "cuda/fused/lite_tail_fused.cuh"
#include "cuda/fused/mlp_fused.cuh"
#include "cuda/layers/gemm_e4m3.cuh"
#include "cuda/layers/head_mlp.cuh"
#include "cuda/layers/rms_norm.cuh"
#include "cuda/layers/window_attention.cuh"

namespace swinup::cuda_tools {
namespace {

using cuda::DeviceBuffer;

// The call's buffers on the device, each as [guard][payload][guard] in one allocation; the payload
// starts kGuardBytes (a multiple of 256) after cudaMalloc's 256-byte aligned base.
class GuardedBuffers {
public:
    explicit GuardedBuffers(const KernelBuffers& init) {
        for (const auto& [name, bytes] : init) {
            std::vector<uint8_t> host(bytes.size() + 2 * kGuardBytes);
            for (size_t i = 0; i < kGuardBytes; ++i) {
                host[i] = guard_byte(i);
                host[kGuardBytes + bytes.size() + i] = guard_byte(i);
            }
            if (!bytes.empty()) std::memcpy(host.data() + kGuardBytes, bytes.data(), bytes.size());
            DeviceBuffer d(host.size());
            d.upload(host.data(), host.size());
            buffers_.emplace(name, Entry{std::move(d), bytes.size()});
        }
    }

    bool has(const std::string& name) const { return buffers_.count(name) != 0; }

    template <class T>
    T* get(const std::string& name) const {
        const auto it = buffers_.find(name);
        if (it == buffers_.end()) throw std::invalid_argument("run_kernel: no buffer named " + name);
        return reinterpret_cast<T*>(it->second.device.template get<uint8_t>() + kGuardBytes);
    }
    // Null when the caller gave no such buffer (the kernel's optional operands).
    template <class T>
    T* optional(const std::string& name) const {
        return has(name) ? get<T>(name) : nullptr;
    }
    // A linear layer's e4m3 weights and f32 scales and biases: the buffers <prefix>w<suffix>,
    // <prefix>scale<suffix> and <prefix>bias<suffix> (as the callers name them: "w", "w_qkv",
    // "w1", "head_w", "fc1_w").
    void linear(const std::string& prefix, const std::string& suffix, const uint8_t*& w, const float*& scale,
                const float*& bias) const {
        w = get<const uint8_t>(prefix + "w" + suffix);
        scale = get<const float>(prefix + "scale" + suffix);
        bias = get<const float>(prefix + "bias" + suffix);
    }

    KernelRun read_back() const {
        SWINUP_CUDA_CHECK(cudaDeviceSynchronize());
        KernelRun run;
        for (const auto& [name, e] : buffers_) {
            std::vector<uint8_t> host(e.payload + 2 * kGuardBytes);
            SWINUP_CUDA_CHECK(cudaMemcpy(host.data(), e.device.get(), host.size(), cudaMemcpyDeviceToHost));
            size_t before = 0, after = 0;
            for (size_t i = 0; i < kGuardBytes; ++i) {
                before += host[i] != guard_byte(i);
                after += host[kGuardBytes + e.payload + i] != guard_byte(i);
            }
            if (before) run.damaged.push_back(name + " guard before, " + std::to_string(before) + " bytes changed");
            if (after) run.damaged.push_back(name + " guard after, " + std::to_string(after) + " bytes changed");
            run.buffers[name].assign(host.begin() + kGuardBytes, host.begin() + kGuardBytes + e.payload);
        }
        return run;
    }

private:
    struct Entry {
        DeviceBuffer device;
        size_t payload = 0;
    };
    std::map<std::string, Entry> buffers_;
};

int int_of(const KernelCall& c, const std::string& name) {
    const auto it = c.ints.find(name);
    if (it == c.ints.end()) throw std::invalid_argument("run_kernel " + c.kernel + ": no int named " + name);
    return it->second;
}
int int_or(const KernelCall& c, const std::string& name, int fallback) {
    const auto it = c.ints.find(name);
    return it == c.ints.end() ? fallback : it->second;
}
float float_or(const KernelCall& c, const std::string& name, float fallback) {
    const auto it = c.floats.find(name);
    return it == c.floats.end() ? fallback : it->second;
}

// What the two window-attention kernels (window_attention, attention_fused) take alike: the token
// grid, the block's channels and heads, the shift, the relative position bias and the precision.
template <class Args>
void window_attention_fields(const KernelCall& c, const GuardedBuffers& b, Args& a) {
    a.width = int_of(c, "width");
    a.height = int_of(c, "height");
    a.channels = int_of(c, "channels");
    a.heads = int_of(c, "heads");
    a.shifted = int_of(c, "shifted") != 0;
    a.rel_bias = b.get<const uint16_t>("rel_bias");
    a.precision = c.precision;
}

cuda::HeadWeights head_weights(const GuardedBuffers& b) {
    cuda::HeadWeights h;
    h.gain = b.get<float>("head_gain");
    b.linear("head_", "", h.w, h.scale, h.bias);
    if (b.has("fc1_w")) {
        b.linear("fc1_", "", h.w_fc1, h.scale_fc1, h.bias_fc1);
        b.linear("fc2_", "", h.w_fc2, h.scale_fc2, h.bias_fc2);
        b.linear("fc3_", "", h.w_fc3, h.scale_fc3, h.bias_fc3);
    }
    return h;
}

// An input resource as the backend hands it to the passes (cuda_backend.cu `input`).
InputImage input_image(const KernelCall& c, const GuardedBuffers& b, const std::string& name, int width,
                             int height) {
    InputImage im;
    im.data = b.optional<const void>(name);
    im.channels = int_or(c, name + "_channels", 0);
    im.half = int_or(c, name + "_half", 0);
    im.width = int_or(c, name + "_width", width);
    im.height = int_or(c, name + "_height", height);
    im.pitch = static_cast<size_t>(int_or(c, name + "_pitch", im.width * im.channels * (im.half ? 2 : 4)));
    return im;
}

// The frame parameters the passes read, as cuda_backend.cu fills them for a dispatch: the render
// and display sizes, the scale display / render (exact division), jitter, the input settings and
// the temporal state's buffers.
cuda::FrameParams frame_params(const KernelCall& c, const GuardedBuffers& b) {
    cuda::FrameParams p;
    const int width = int_of(c, "width"), height = int_of(c, "height");
    static_cast<FrameGeometry&>(p) =
        frame_geometry(width, height, int_or(c, "display_width", width), int_or(c, "display_height", height),
                       float_or(c, "jitter_x", 0.0f), float_or(c, "jitter_y", 0.0f));
    p.padded_width = int_or(c, "padded_width", p.width);
    p.padded_height = int_or(c, "padded_height", p.height);
    p.color = input_image(c, b, "color", p.width, p.height);
    p.depth = input_image(c, b, "depth", p.width, p.height);
    p.motion = input_image(c, b, "motion", p.width, p.height);
    p.exposure_texture = b.optional<const float>("exposure_texture");
    p.exposure_value = float_or(c, "exposure_value", 1.0f);
    p.pre_exposure = float_or(c, "pre_exposure", 1.0f);
    p.auto_exposure = int_or(c, "auto_exposure", 0);
    p.mv_scale_x = float_or(c, "mv_scale_x", 1.0f);
    p.mv_scale_y = float_or(c, "mv_scale_y", 1.0f);
    p.motion_offset_x = float_or(c, "motion_offset_x", 0.0f);
    p.motion_offset_y = float_or(c, "motion_offset_y", 0.0f);
    p.ldr = int_or(c, "ldr", 0);
    p.depth_inverted = int_or(c, "depth_inverted", 0);
    p.mv_display_res = int_or(c, "mv_display_res", 0);
    p.still_history_shift = float_or(c, "still_history_shift", 0.0f);
    p.history_valid = b.has("history_in") ? 1 : 0;
    p.prev_width = int_or(c, "prev_width", p.width);
    p.prev_height = int_or(c, "prev_height", p.height);
    p.history_in = b.optional<const uint16_t>("history_in");
    p.history_out = b.optional<uint16_t>("history_out");
    p.z_prev = b.optional<const float>("z_prev");
    p.z = b.optional<float>("z");
    p.recurrent_in = b.optional<const uint16_t>("recurrent_in");
    p.recurrent_out = b.optional<uint16_t>("recurrent_out");
    p.output = b.optional<void>("output");
    p.output_format = int_or(c, "output_format", SWINUP_FORMAT_RGBA16F);
    p.output_pitch = static_cast<size_t>(int_or(c, "output_pitch", p.display_width * 8));
    p.count_slot = int_or(c, "count_slot", -1);
    return p;
}

cuda::FramePlanes frame_planes(const GuardedBuffers& b) {
    cuda::FramePlanes f;
    f.color = b.optional<float>("color_plane");
    f.motion = b.optional<float>("motion_plane");
    f.dilated = b.optional<float>("dilated");
    f.tc = b.optional<float>("tc");
    f.staged = b.optional<uint8_t>("staged");
    f.head = b.optional<float>("head");
    f.row_sums = b.optional<double>("row_sums");
    f.exposure = b.optional<float>("exposure");
    f.out_color = b.optional<float4>("out_color");
    f.out_kernel = b.optional<float4>("out_kernel");
    f.out_motion = b.optional<float2>("out_motion");
    f.out_axes = b.optional<cuda::OutputAxis>("out_axes");
    f.out_pixel_kernel = b.optional<PixelKernel>("out_pixel_kernel");
    f.linear_out = b.optional<float>("linear_out");
    f.masks = b.optional<float>("masks");
    f.mask_tokens = b.optional<uint8_t>("mask_tokens");
    f.counts = b.optional<unsigned int>("counts");
    f.published_counts = b.optional<unsigned int>("published_counts");  // device memory here
    return f;
}

void launch_frame_pass(const KernelCall& c, const GuardedBuffers& b) {
    const cuda::FrameParams p = frame_params(c, b);
    DeviceBuffer params(sizeof p);
    params.upload(&p, sizeof p);
    const auto* pp = params.get<const cuda::FrameParams>();
    const cuda::FramePlanes planes = frame_planes(b);
    if (c.kernel == "exposure") {
        cuda::launch_exposure(p, pp, planes, nullptr);
    } else if (c.kernel == "input_planes") {
        cuda::launch_input_planes(p, pp, planes, nullptr);
    } else if (c.kernel == "staging") {
        cuda::launch_staging(p, pp, planes, nullptr);
    } else if (c.kernel == "output") {
        // The candidate kernels (output_kernels.h), whose guard bytes and pre-pass outputs the ops
        // test checks; the per-display-pixel kernels are test_cuda_output's reference.
        const cuda::OutputKernels kernels{true, true};
        cuda::launch_output_prepass(p, pp, planes, c.precision, kernels, nullptr);
        cuda::launch_output(p, pp, planes, c.precision, kernels, nullptr);
    } else {
        cuda::launch_recurrent(p, pp, planes, nullptr);
    }
    SWINUP_CUDA_CHECK(cudaDeviceSynchronize());  // before `params` is freed
}

}  // namespace

KernelRun run_kernel(const KernelCall& c) {
    const GuardedBuffers b(c.buffers);
    if (c.kernel == "gemm_e4m3") {
        cuda::GemmArgs g;
        g.a = b.get<const uint8_t>("a");
        g.lda = int_of(c, "lda");
        g.a_cols = int_of(c, "a_cols");
        g.gather = static_cast<cuda::GemmGather>(int_or(c, "gather", 0));
        g.m = int_of(c, "m");
        g.grid_width = int_or(c, "grid_width", g.m);
        b.linear("", "", g.w, g.scale, g.bias);
        g.k_padded = int_of(c, "k_padded");
        g.n = int_of(c, "n");
        g.norm_gain = b.optional<const float>("norm_gain");
        g.epilogue = static_cast<cuda::GemmEpilogue>(int_of(c, "epilogue"));
        g.precision = c.precision;
        g.out = b.get<void>("out");
        g.skip = b.optional<const void>("skip");
        g.skip_f32 = int_or(c, "skip_f32", 0) != 0;
        cuda::gemm_e4m3(g, nullptr);
    } else if (c.kernel == "rms_norm_e4m3") {
        cuda::RmsNormArgs r;
        r.x = b.get<const uint16_t>("x");
        r.channels = int_of(c, "channels");
        r.gather = static_cast<cuda::NormGather>(int_or(c, "gather", 0));
        r.tokens = int_of(c, "tokens");
        r.grid_width = int_or(c, "grid_width", 0);
        r.gain = b.get<const float>("gain");
        r.out = b.get<uint8_t>("out");
        r.precision = c.precision;
        cuda::rms_norm_e4m3(r, nullptr);
    } else if (c.kernel == "window_attention") {
        cuda::WindowAttentionArgs a;
        a.qkv = b.get<const uint16_t>("qkv");
        window_attention_fields(c, b, a);
        a.out = b.get<uint8_t>("out");
        cuda::window_attention(a, nullptr);
    } else if (c.kernel == "head_mlp_input") {
        cuda::head_mlp_input(b.get<const uint8_t>("normed"), b.get<const uint8_t>("staged"), int_of(c, "pixels"),
                             b.get<uint8_t>("out"), nullptr);
    } else if (c.kernel == "head_mlp_add") {
        cuda::head_mlp_add(b.get<const float>("y3"), int_of(c, "pixels"), b.get<float>("head"), nullptr);
    } else if (c.kernel == "attention_fused") {
        cuda::AttentionBlockArgs a;
        a.x = b.get<uint16_t>("x");
        window_attention_fields(c, b, a);
        a.norm_gain = b.get<const float>("norm_gain");
        b.linear("", "_qkv", a.w_qkv, a.scale_qkv, a.bias_qkv);
        b.linear("", "_proj", a.w_proj, a.scale_proj, a.bias_proj);
        cuda::attention_fused(a, nullptr);
    } else if (c.kernel == "mlp_fused") {
        cuda::MlpArgs a;
        a.x = b.get<uint16_t>("x");
        a.m = int_of(c, "m");
        a.channels = int_of(c, "channels");
        a.norm_gain = b.get<const float>("norm_gain");
        b.linear("", "1", a.w1, a.scale1, a.bias1);
        b.linear("", "2", a.w2, a.scale2, a.bias2);
        a.precision = c.precision;
        cuda::mlp_fused(a, nullptr);
    } else if (c.kernel == "block_fused") {
        cuda::BlockFusedArgs a;
        a.attention.x = b.get<uint16_t>("x");
        window_attention_fields(c, b, a.attention);
        a.attention.norm_gain = b.get<const float>("norm1_gain");
        b.linear("", "_qkv", a.attention.w_qkv, a.attention.scale_qkv, a.attention.bias_qkv);
        b.linear("", "_proj", a.attention.w_proj, a.attention.scale_proj, a.attention.bias_proj);
        a.mlp.x = a.attention.x;
        a.mlp.m = a.attention.width * a.attention.height;
        a.mlp.channels = a.attention.channels;
        a.mlp.norm_gain = b.get<const float>("norm2_gain");
        b.linear("", "1", a.mlp.w1, a.mlp.scale1, a.mlp.bias1);
        b.linear("", "2", a.mlp.w2, a.mlp.scale2, a.mlp.bias2);
        a.mlp.precision = c.precision;
        cuda::block_fused(a, nullptr);
    } else if (c.kernel == "lite_tail_fused") {
        cuda::LiteTailArgs a;
        a.d1 = b.get<const uint16_t>("d1");
        a.staged = b.get<const uint8_t>("staged");
        a.width1 = int_of(c, "width1");
        a.height1 = int_of(c, "height1");
        a.expand_gain = b.get<const float>("expand_gain");
        b.linear("", "_expand", a.w_expand, a.scale_expand, a.bias_expand);
        b.linear("", "_skip", a.w_skip, a.scale_skip, a.bias_skip);
        a.head_w = head_weights(b);
        a.precision = c.precision;
        a.head = b.get<float>("head");
        a.d0 = b.optional<uint16_t>("d0");
        cuda::lite_tail_fused(a, nullptr);
    } else if (c.kernel == "head_fused") {
        cuda::HeadArgs a;
        a.d0 = b.get<const uint16_t>("d0");
        a.staged = b.optional<const uint8_t>("staged");
        a.pixels = int_of(c, "pixels");
        a.head_w = head_weights(b);
        a.precision = c.precision;
        a.head = b.get<float>("head");
        cuda::head_fused(a, nullptr);
    } else if (c.kernel == "exposure" || c.kernel == "input_planes" || c.kernel == "staging" ||
               c.kernel == "output" || c.kernel == "recurrent") {
        launch_frame_pass(c, b);
    } else {
        throw std::invalid_argument("run_kernel: unknown kernel " + c.kernel);
    }
    SWINUP_CUDA_CHECK(cudaGetLastError());
    return b.read_back();
}

bool fused_kernel_fits(const std::string& kernel, int channels, int heads, bool head_mlp) {
    if (kernel == "attention_fused") return cuda::attention_fused_supported(channels, heads);
    if (kernel == "mlp_fused") return cuda::mlp_fused_supported(channels);
    if (kernel == "block_fused") return cuda::block_fused_supported(channels, heads);
    if (kernel == "lite_tail_fused") return cuda::lite_tail_fused_supported(head_mlp);
    if (kernel == "head_fused") return cuda::head_fused_supported(head_mlp);
    throw std::invalid_argument("fused_kernel_fits: unknown kernel " + kernel);
}

}  // namespace swinup::cuda_tools
