// Host-only entry points into the CUDA backend for the GPU tests and `swinup bench`: plain C++
// (no CUDA headers), defined in cuda_tools.cu when the build has CUDA. Callers guard their use
// with #ifdef SWINUP_HAVE_CUDA and check swinup::cuda_backend_available() first.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/backend.h"
#include "model/weights.h"
#include "cuda/backend/network_fusions.h"
#include "cuda/frame/output_kernels.h"
#include "swinup/swinup.h"

namespace swinup::cuda_tools {

// The device's e4m3 encoder (the kernels' cvt.rn.satfinite) applied to each value.
std::vector<uint8_t> encode_e4m3(const std::vector<float>& values);

// One GEMM on the device with the f32 epilogue: y[m, n] = scale[n] * sum_k a[m, k] w[n, k] + bias[n].
// a: m x k e4m3 codes; w: n x k e4m3 codes (k any size >= 1: padded here; n % 16 == 0).
std::vector<float> linear_f32(const std::vector<uint8_t>& a, int m, int k, const std::vector<uint8_t>& w, int n,
                              const std::vector<float>& scale, const std::vector<float>& bias);

// The network on the device, layer by layer: staged (h x w x 16 e4m3 values as floats) in; `hook`
// sees every layer's output with the CPU network's names; returns the head outputs. fusions:
// CudaNetwork::set_fusions (default: all fused kernels).
using LayerHook = std::function<void(const std::string& layer, const float* data, int w, int h, int c)>;
// masks: the staged masks as cpu::Network::run takes them (width * height * 2 e4m3 values), packed
// here into the rows the network's mask_embed reads; null: none.
std::vector<float> run_network(std::shared_ptr<const Weights> weights, swinup_precision precision,
                               const std::vector<float>& staged, int width, int height, uint64_t frame_index,
                               const LayerHook& hook, const cuda::NetworkFusions& fusions = {},
                               const std::vector<float>* masks = nullptr);

// The output pass alone (the frame's last pass) on the device, for its test: the render-resolution
// planes it reads in, the linear output (before the format's encoding) of every display pixel
// out, RGB. Exposure and pre-exposure are 1; the scale is display / render per axis.
struct OutputPassCase {
    int width = 0, height = 0, display_width = 0, display_height = 0;
    float jitter_x = 0.0f, jitter_y = 0.0f;
    std::vector<float> tc;          // width * height * 3: t(staged colour)
    std::vector<float> motion;      // width * height * 2: dilated motion, render pixels
    std::vector<float> head;        // width * height * 16: raw head outputs, row stride width
    std::vector<uint16_t> history;  // display w * h * 4 f16 (the previous output), or empty: none
    float still_history_shift = 0.0f;  // the network's (output_pixel.h history_weight)
    std::vector<float> masks;       // width * height * 2 staged (reactive, transparency), or empty: none
};
// Returns the linear displayed colours; `new_history` (optional) receives the f16 history written
// (display w * h * 4), which differs from the displayed colour under a reactive mask; `recurrent`
// (optional) the recurrent state written (w * h * 4 f16). kernels: the output pass's kernels
// (CudaBackend::set_output_kernels; default: the per-display-pixel ones).
std::vector<float> output_pass(const OutputPassCase& c, swinup_precision precision,
                               std::vector<uint16_t>* new_history = nullptr, const cuda::OutputKernels& kernels = {},
                               std::vector<uint16_t>* recurrent = nullptr);

// How many CUDA devices this process sees (0 when none or no driver): the multi-device tests.
int device_count();

// Free bytes of device 0's memory now (cudaMemGetInfo): the memory query's GPU test.
size_t device_free_bytes();

// Dispatches `frames` in order (frame index 0, 1, ...) on one CUDA backend made from `desc` with
// its embedded weights, with the frame graphs on or off; returns, after each dispatch, how many
// render sizes have graphs kept. Throws std::runtime_error naming the frame when one fails.
std::vector<size_t> dispatch_counting_graphs(const swinup_context_desc& desc, bool use_graphs,
                                             const std::vector<swinup_dispatch_desc>& frames);

// Dispatches `frames` in order (frame index 0, 1, ...) on one CUDA backend made from `desc` with
// its embedded weights and `fusions` (CudaBackend::set_fusions: NetworkFusions::published_counts
// chooses how the input statistics leave the device); after the frames at the indices of
// `read_after` (ascending), reads the input statistics, which waits for the frames dispatched.
// Returns one reading per index. Throws std::runtime_error naming the frame when one fails.
std::vector<InputStatistics> dispatch_reading_statistics(const swinup_context_desc& desc,
                                                         const cuda::NetworkFusions& fusions,
                                                         const std::vector<swinup_dispatch_desc>& frames,
                                                         const std::vector<size_t>& read_after);

// Device memory for tests of the C API's SWINUP_MEMORY_CUDA path (device 0).
void* device_alloc(size_t bytes);
void device_free(void* p);
void copy_to_device(void* dst, const void* src, size_t bytes);
void copy_from_device(void* dst, const void* src, size_t bytes);

// `swinup bench` on the GPU.
struct BenchConfig {
    swinup_variant variant = SWINUP_VARIANT_LITE;
    swinup_precision precision = SWINUP_PRECISION_EXACT;
    int render_width = 1280, render_height = 720;
    int display_width = 3840, display_height = 2160;
    int warmup = 20;
    int iterations = 200;  // timed evaluations (medians are of these)
    cuda::NetworkFusions fusions;        // CudaBackend::set_fusions
    cuda::OutputKernels output_kernels;  // CudaBackend::set_output_kernels
    // The network's weights (their config's variant must be `variant`); null: the embedded ones.
    std::shared_ptr<const Weights> weights;
};
struct BenchStage {
    std::string layer, op;
    double flops = 0, bytes = 0;
    double median_ms = 0;
};
struct BenchResult {
    std::string device;
    double whole_median_ms = 0, whole_min_ms = 0, whole_max_ms = 0;  // graph launches, events
    double stages_sum_ms = 0;            // the stages' medians summed (launched one by one)
    double copy_bandwidth_gbs = 0;       // measured: device-to-device copy, read + write bytes
    double mma_fp8_tflops = 0;           // measured: mma.sync e4m3 issue rate, all SMs
    double mma_f16_tflops = 0;           // measured: mma.sync f16 issue rate, all SMs
    std::vector<BenchStage> stages;
};
BenchResult bench(const BenchConfig& config);

}  // namespace swinup::cuda_tools
