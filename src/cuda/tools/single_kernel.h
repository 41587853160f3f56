// One CUDA kernel (or one fused kernel, or one per-pixel pass) launched on its own, on device
// buffers that the caller fills byte for byte and gets back after the launch: the entry point of
// tests/cuda/test_cuda_ops.cpp, which compares every kernel with the CPU reference. Plain C++ (no
// CUDA headers), defined in single_kernel.cu when the build has CUDA.
//
// Every buffer lies between two guard regions of kGuardBytes canary bytes (a pattern, not a
// constant, so that no kernel writes it back by chance); after the launch the guards are read
// back and every changed byte is reported: a kernel that writes before or after any of its
// buffers, inputs included, is caught, down to one byte past the end (the payload starts on a
// 256-byte boundary and the after-guard right at its last byte).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "swinup/swinup.h"

namespace swinup::cuda_tools {

constexpr size_t kGuardBytes = 256;

// The canary byte at offset i of a guard region.
constexpr uint8_t guard_byte(size_t i) { return static_cast<uint8_t>(0xa5u ^ (i * 29u)); }

using KernelBuffers = std::map<std::string, std::vector<uint8_t>>;

struct KernelCall {
    // Which kernel, and the names it reads (single_kernel.cu lists each kernel's):
    //   gemm_e4m3        ints m n k_padded lda a_cols gather epilogue grid_width skip_f32;
    //                    buffers a w scale bias out [norm_gain] [skip]
    //   rms_norm_e4m3    ints channels gather tokens grid_width; buffers x gain out
    //   window_attention ints width height channels heads shifted; buffers qkv rel_bias out
    //   head_mlp_input   ints pixels; buffers normed staged out
    //   head_mlp_add     ints pixels; buffers y3 head
    //   attention_fused  ints width height channels heads shifted; buffers x norm_gain w_qkv
    //                    scale_qkv bias_qkv rel_bias w_proj scale_proj bias_proj
    //   mlp_fused        ints m channels; buffers x norm_gain w1 scale1 bias1 w2 scale2 bias2
    //   block_fused      ints width height channels heads shifted; buffers x norm1_gain w_qkv
    //                    scale_qkv bias_qkv rel_bias w_proj scale_proj bias_proj norm2_gain w1
    //                    scale1 bias1 w2 scale2 bias2
    //   lite_tail_fused  ints width1 height1; buffers d1 staged expand_gain w_expand scale_expand
    //                    bias_expand w_skip scale_skip bias_skip head [d0] and the head's (below)
    //   head_fused       ints pixels; buffers d0 staged head and the head's (below)
    //     the head's:    head_gain head_w head_scale head_bias, with the head MLP also
    //                    fc1_w fc1_scale fc1_bias fc2_w fc2_scale fc2_bias fc3_w fc3_scale fc3_bias
    //   exposure, input_planes, staging, output, recurrent: the frame passes, with the frame's
    //                    ints and floats (frame_params() in single_kernel.cu) and buffers
    //                    exposure: color [exposure_texture] row_sums exposure
    //                    input_planes: color depth motion exposure color_plane z motion_plane
    //                    staging: color_plane z motion_plane [history_in z_prev recurrent_in]
    //                             staged dilated tc
    //                    output: tc dilated head exposure [history_in] history_out output linear_out
    //                            (fast: also out_color out_kernel out_motion out_axes recurrent_out;
    //                            exact: also out_pixel_kernel recurrent_out; the candidate
    //                            OutputKernels, both on: test_cuda_output compares them with the default)
    //                    recurrent: head recurrent_out
    std::string kernel;
    swinup_precision precision = SWINUP_PRECISION_EXACT;
    std::map<std::string, int> ints;
    std::map<std::string, float> floats;
    KernelBuffers buffers;  // initial bytes of every buffer (outputs too: poison them)
};

struct KernelRun {
    KernelBuffers buffers;               // every buffer's bytes after the launch
    std::vector<std::string> damaged;    // "<buffer> guard before|after, N bytes changed"
};

// Uploads the buffers, launches the kernel, synchronises and reads everything back. Throws
// std::invalid_argument for an unknown kernel or a missing name, and whatever the kernel's own
// launch checks throw.
KernelRun run_kernel(const KernelCall& call);

// Whether a fused kernel's shared memory fits this device (its *_supported): attention_fused
// (channels, heads), mlp_fused (channels), block_fused (channels, heads), lite_tail_fused and
// head_fused (head_mlp).
bool fused_kernel_fits(const std::string& kernel, int channels, int heads, bool head_mlp);

}  // namespace swinup::cuda_tools
