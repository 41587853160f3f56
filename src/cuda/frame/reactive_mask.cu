#include "cuda/frame/reactive_mask.cuh"

#include "cuda/backend/cuda_check.cuh"

namespace swinup::cuda {
namespace {

__global__ void reactive_mask_kernel(InputImage opaque, InputImage final_color, ReactiveMaskParams p, int width,
                                     int height, swinup_format format, uint8_t* output, size_t pitch) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= width || y >= height) return;
    float a[3], b[3];
    for (int c = 0; c < 3; ++c) {
        a[c] = read_input(opaque, x, y, c);
        b[c] = read_input(final_color, x, y, c);
    }
    write_mask_pixel(format, reactive_mask_value(a, b, p), output + size_t(y) * pitch, x);
}

}  // namespace

void launch_reactive_mask(const InputImage& opaque, const InputImage& final_color, const ReactiveMaskParams& params,
                          int width, int height, swinup_format format, uint8_t* output, size_t pitch,
                          cudaStream_t stream) {
    const dim3 block(16, 8);
    const dim3 grid((unsigned(width) + block.x - 1) / block.x, (unsigned(height) + block.y - 1) / block.y);
    reactive_mask_kernel<<<grid, block, 0, stream>>>(opaque, final_color, params, width, height, format, output, pitch);
    SWINUP_CUDA_CHECK(cudaGetLastError());
}

}  // namespace swinup::cuda
