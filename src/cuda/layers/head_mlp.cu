#include "cuda/layers/head_mlp.cuh"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "numeric/exact_math.h"
#include "model/model_spec.h"
#include "cuda/backend/cuda_check.cuh"

namespace swinup::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kNormBytes = kHeadMlpInputs - kSlots;  // the head norm's row (32 channels)
static_assert(kNormBytes == 32 && kHeadMlpInputs == 48, "fc1's input row: 2 words of norm + 1 of slots");

// One thread per 16-byte word of the output (3 per pixel: norm bytes 0-15, 16-31, the slots).
__global__ void head_mlp_input_kernel(const uint8_t* normed, const uint8_t* staged, int pixels, uint8_t* out) {
    const int i = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
    if (i >= 3 * pixels) return;
    const int p = i / 3, j = i - 3 * p;
    const uint4* src = j < 2 ? reinterpret_cast<const uint4*>(normed + static_cast<size_t>(p) * kNormBytes) + j
                             : reinterpret_cast<const uint4*>(staged + static_cast<size_t>(p) * kSlots);
    reinterpret_cast<uint4*>(out + static_cast<size_t>(p) * kHeadMlpInputs)[j] = *src;
}

// One thread per 4 outputs (2 per pixel: outputs 0-3, 4-7).
__global__ void head_mlp_add_kernel(const float* y3, int pixels, float* head) {
    const int i = static_cast<int>(blockIdx.x) * kThreads + static_cast<int>(threadIdx.x);
    if (i >= 2 * pixels) return;
    const size_t at = static_cast<size_t>(i / 2) * kHeadOutputs + 4 * (i & 1);
    const float4 y = *reinterpret_cast<const float4*>(y3 + at);
    float4 h = *reinterpret_cast<const float4*>(head + at);
    h.x = exact::add(h.x, y.x);
    h.y = exact::add(h.y, y.y);
    h.z = exact::add(h.z, y.z);
    h.w = exact::add(h.w, y.w);
    *reinterpret_cast<float4*>(head + at) = h;
}

void require_aligned(const void* p, const char* what) {
    if (!p || reinterpret_cast<uintptr_t>(p) % 16 != 0)
        throw std::invalid_argument(std::string("head_mlp: ") + what + " must be a 16-byte aligned pointer");
}

int blocks_for(int threads) { return std::max(1, (threads + kThreads - 1) / kThreads); }

}  // namespace

void head_mlp_input(const uint8_t* normed, const uint8_t* staged, int pixels, uint8_t* out, cudaStream_t stream) {
    require_aligned(normed, "normed");
    require_aligned(staged, "staged");
    require_aligned(out, "out");
    if (pixels <= 0) throw std::invalid_argument("head_mlp: pixels must be positive");
    head_mlp_input_kernel<<<blocks_for(3 * pixels), kThreads, 0, stream>>>(normed, staged, pixels, out);
    SWINUP_CUDA_CHECK_LAUNCH();
}

void head_mlp_add(const float* y3, int pixels, float* head, cudaStream_t stream) {
    require_aligned(y3, "y3");
    require_aligned(head, "head");
    if (pixels <= 0) throw std::invalid_argument("head_mlp: pixels must be positive");
    head_mlp_add_kernel<<<blocks_for(2 * pixels), kThreads, 0, stream>>>(y3, pixels, head);
    SWINUP_CUDA_CHECK_LAUNCH();
}

}  // namespace swinup::cuda
