// The GPU tests' and `swinup bench`'s entry points (cuda_tools.h).
#include "cuda/tools/cuda_tools.h"

#include "frame/mask_pixel.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>

#include "api/resource_desc.h"
#include "numeric/e4m3.h"
#include "frame/frame_geometry.h"
#include "frame/mask_pixel.h"
#include "numeric/half.h"
#include "model/model_spec.h"
#include "cuda/backend/cuda_backend.cuh"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/backend/device_buffer.cuh"
#include "cuda/device/device_math.cuh"
#include "cuda/layers/gemm_e4m3.cuh"
#include "cuda/device/mma.cuh"
#include "cuda/backend/network_cuda.cuh"

namespace swinup::cuda_tools {

using cuda::DeviceBuffer;

namespace {

__global__ void encode_e4m3_kernel(const float* in, uint8_t* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = cuda::e4m3(in[i]);
}

template <class T>
std::vector<T> download(const DeviceBuffer& b, size_t n) {
    std::vector<T> host(n);
    SWINUP_CUDA_CHECK(cudaMemcpy(host.data(), b.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
}

template <class T>
DeviceBuffer upload(const std::vector<T>& v) {
    DeviceBuffer b(v.size() * sizeof(T));
    b.upload(v.data(), v.size() * sizeof(T));
    return b;
}

// Ceilings: each warp issues independent mma.sync chains with no memory traffic, through the
// e4m3 instruction (kFp8) or the f16 one, on fragments of small values of its type (the first
// words differ per thread). The B operand changes every iteration (b0 ^ i): sm_90 has no e4m3
// mma.sync in hardware, and ptxas lowers it to F2FP unpacks of the operands, two f16
// HMMA.16816 from zero and four FADDs into the accumulator; with loop-invariant operands it
// hoisted the two HMMAs out of the loop, and the "rate" measured until 2026-12-07 (~1830
// TFLOP/s) was the FADDs'. A B operand of its own per chain and iteration keeps the HMMAs (and
// B's unpacks) in the loop, as in the kernels, where A stays in registers and W changes from step
// to step.
constexpr int kPeakIterations = 4096;
struct PeakFragments {
    uint32_t a[4];
    uint32_t b0, b1;
};
constexpr PeakFragments kFp8PeakFragments = {{0x38383838u, 0x30303030u, 0x28282828u, 0x38303830u},
                                             0x30383038u, 0x38303830u};
constexpr PeakFragments kF16PeakFragments = {{0x3c003c00u, 0x38003800u, 0x34003400u, 0x3c003800u},
                                             0x38003c00u, 0x3c003800u};
template <bool kFp8>
__global__ void mma_peak_kernel(PeakFragments f, float* sink) {
    float acc[8][4] = {};
    const uint32_t a[4] = {f.a[0] ^ threadIdx.x, f.a[1], f.a[2], f.a[3]};
    const uint32_t b0 = f.b0 + threadIdx.x, b1 = f.b1;
    for (int i = 0; i < kPeakIterations; ++i) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const uint32_t bij = b0 ^ static_cast<uint32_t>(8 * i + j);  // distinct per chain and iteration
            if constexpr (kFp8) cuda::mma_m16n8k32_e4m3(acc[j], a, bij, b1);
            else cuda::mma_m16n8k16_f16(acc[j], a, bij, b1);
        }
    }
    float s = 0;
    for (int j = 0; j < 8; ++j) s += acc[j][0] + acc[j][1] + acc[j][2] + acc[j][3];
    if (s == 1234.5f) *sink = s;  // keeps the work alive
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

struct EventPair {
    cudaEvent_t begin = nullptr, end = nullptr;
};

}  // namespace

std::vector<uint8_t> encode_e4m3(const std::vector<float>& values) {
    DeviceBuffer in = upload(values);
    DeviceBuffer out(values.size());
    const int n = static_cast<int>(values.size());
    encode_e4m3_kernel<<<(n + 255) / 256, 256>>>(in.get<float>(), out.get<uint8_t>(), n);
    SWINUP_CUDA_CHECK_LAUNCH();
    SWINUP_CUDA_CHECK(cudaDeviceSynchronize());
    return download<uint8_t>(out, values.size());
}

std::vector<float> linear_f32(const std::vector<uint8_t>& a, int m, int k, const std::vector<uint8_t>& w, int n,
                              const std::vector<float>& scale, const std::vector<float>& bias) {
    const int k_padded = (k + 31) / 32 * 32, lda = (k + 15) / 16 * 16;
    std::vector<uint8_t> a_p(size_t(m) * lda, 0), w_p(size_t(n) * k_padded, 0);
    for (int i = 0; i < m; ++i) std::memcpy(&a_p[size_t(i) * lda], &a[size_t(i) * k], size_t(k));
    for (int i = 0; i < n; ++i) std::memcpy(&w_p[size_t(i) * k_padded], &w[size_t(i) * k], size_t(k));
    DeviceBuffer a_d = upload(a_p), w_d = upload(w_p), s_d = upload(scale), b_d = upload(bias);
    DeviceBuffer out(size_t(m) * n * sizeof(float));
    cuda::GemmArgs g;
    g.a = a_d.get<uint8_t>();
    g.lda = lda;
    g.a_cols = k;
    g.m = m;
    g.grid_width = m;
    g.w = w_d.get<uint8_t>();
    g.k_padded = k_padded;
    g.n = n;
    g.scale = s_d.get<float>();
    g.bias = b_d.get<float>();
    g.epilogue = cuda::GemmEpilogue::store_f32;
    g.out = out.get();
    cuda::gemm_e4m3(g, nullptr);
    SWINUP_CUDA_CHECK(cudaDeviceSynchronize());
    return download<float>(out, size_t(m) * n);
}

std::vector<float> run_network(std::shared_ptr<const Weights> weights, swinup_precision precision,
                               const std::vector<float>& staged, int width, int height, uint64_t frame_index,
                               const LayerHook& hook, const cuda::NetworkFusions& fusions,
                               const std::vector<float>* masks) {
    cuda::CudaNetwork net(*weights, precision, width, height);
    net.set_fusions(fusions);
    if (hook) net.set_layer_hook(hook);
    std::vector<uint8_t> codes(staged.size());
    for (size_t i = 0; i < staged.size(); ++i) codes[i] = f32_to_e4m3(staged[i]);
    DeviceBuffer staged_d = upload(codes);
    DeviceBuffer head(size_t(width) * height * kHeadOutputs * sizeof(float));
    // The mask rows as the staging kernel writes them (cuda/frame/frame_planes.cuh FramePlanes::mask_tokens).
    DeviceBuffer mask_rows;
    if (masks != nullptr) {
        const bool lite = weights->config.variant == Variant::lite;
        std::vector<uint8_t> rows(size_t(width) * height * cuda::kMaskTokenBytes, 0);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x)
                for (int k = 0; k < kMasks; ++k) {
                    const size_t at = lite ? (size_t(y / 2) * (width / 2) + x / 2) * cuda::kMaskTokenBytes +
                                                 size_t(((y & 1) * 2 + (x & 1)) * kMasks + k)
                                           : (size_t(y) * width + x) * cuda::kMaskTokenBytes + size_t(k);
                    rows[at] = f32_to_e4m3((*masks)[(size_t(y) * width + x) * kMasks + size_t(k)]);
                }
        mask_rows = upload(rows);
    }
    net.run(staged_d.get<uint8_t>(), width, height, frame_index, head.get<float>(), nullptr,
            masks != nullptr ? mask_rows.get<uint8_t>() : nullptr);
    SWINUP_CUDA_CHECK(cudaDeviceSynchronize());
    return download<float>(head, size_t(width) * height * kHeadOutputs);
}

std::vector<float> output_pass(const OutputPassCase& c, swinup_precision precision, std::vector<uint16_t>* new_history,
                               const cuda::OutputKernels& kernels, std::vector<uint16_t>* recurrent) {
    const size_t render = size_t(c.width) * c.height, display = size_t(c.display_width) * c.display_height;
    if (c.tc.size() != render * 3 || c.motion.size() != render * 2 || c.head.size() != render * kHeadOutputs ||
        (!c.history.empty() && c.history.size() != display * 4))
        throw std::invalid_argument("output_pass: plane sizes do not match the frame");
    cuda::FrameParams p;
    static_cast<FrameGeometry&>(p) =
        frame_geometry(c.width, c.height, c.display_width, c.display_height, c.jitter_x, c.jitter_y);
    p.padded_width = c.width;  // the head's row stride
    p.padded_height = c.height;
    p.still_history_shift = c.still_history_shift;
    DeviceBuffer tc = upload(c.tc), motion = upload(c.motion), head = upload(c.head);
    DeviceBuffer history_in = c.history.empty() ? DeviceBuffer() : upload(c.history);
    DeviceBuffer history_out(display * 8), output(display * 8), linear(display * 3 * sizeof(float));
    DeviceBuffer exposure = upload(std::vector<float>{1.0f});
    DeviceBuffer out_color(render * sizeof(float4)), out_kernel(render * sizeof(float4)),
        out_motion(render * sizeof(float2)),
        out_axes((size_t(c.display_width) + c.display_height) * sizeof(cuda::OutputAxis)),
        out_pixel_kernel(render * sizeof(PixelKernel)), recurrent_out(render * 8);
    p.history_valid = c.history.empty() ? 0 : 1;
    p.history_in = history_in.get<uint16_t>();
    p.history_out = history_out.get<uint16_t>();
    p.output = output.get();
    p.output_pitch = size_t(c.display_width) * 8;
    p.output_format = SWINUP_FORMAT_RGBA16F;
    if (recurrent != nullptr) p.recurrent_out = recurrent_out.get<uint16_t>();
    DeviceBuffer params(sizeof p);
    params.upload(&p, sizeof p);
    cuda::FramePlanes planes;
    planes.tc = tc.get<float>();
    planes.dilated = motion.get<float>();
    planes.head = head.get<float>();
    planes.exposure = exposure.get<float>();
    planes.out_color = out_color.get<float4>();
    planes.out_kernel = out_kernel.get<float4>();
    planes.out_motion = out_motion.get<float2>();
    planes.out_axes = out_axes.get<cuda::OutputAxis>();
    planes.out_pixel_kernel = out_pixel_kernel.get<PixelKernel>();
    planes.linear_out = linear.get<float>();
    DeviceBuffer masks;
    if (!c.masks.empty()) {
        if (c.masks.size() != render * kMasks) throw std::invalid_argument("output_pass: the mask plane's size");
        masks = upload(c.masks);
        planes.masks = masks.get<float>();
        p.has_masks = 1;
        params.upload(&p, sizeof p);
    }
    cuda::launch_output_prepass(p, params.get<cuda::FrameParams>(), planes, precision, kernels, nullptr);
    cuda::launch_output(p, params.get<cuda::FrameParams>(), planes, precision, kernels, nullptr);
    if (recurrent != nullptr && !cuda::output_prepass_writes_recurrent(precision, kernels))
        cuda::launch_recurrent(p, params.get<cuda::FrameParams>(), planes, nullptr);
    SWINUP_CUDA_CHECK(cudaDeviceSynchronize());
    if (new_history != nullptr) *new_history = download<uint16_t>(history_out, display * 4);
    if (recurrent != nullptr) *recurrent = download<uint16_t>(recurrent_out, render * 4);
    return download<float>(linear, display * 3);
}

int device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();  // no driver or no device: not an error for the caller
        return 0;
    }
    return count;
}

void* device_alloc(size_t bytes) {
    void* p = nullptr;
    SWINUP_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
}
void device_free(void* p) { cudaFree(p); }
void copy_to_device(void* dst, const void* src, size_t bytes) {
    SWINUP_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}
void copy_from_device(void* dst, const void* src, size_t bytes) {
    SWINUP_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

size_t device_free_bytes() {
    size_t free_bytes = 0, total_bytes = 0;
    SWINUP_CUDA_CHECK(cudaSetDevice(0));
    SWINUP_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    return free_bytes;
}

std::vector<size_t> dispatch_counting_graphs(const swinup_context_desc& desc, bool use_graphs,
                                             const std::vector<swinup_dispatch_desc>& frames) {
    std::string error;
    const Variant variant = desc.variant == SWINUP_VARIANT_FULL ? Variant::full : Variant::lite;
    const std::shared_ptr<const Weights> weights = weights_load_embedded(variant, &error);
    if (!weights) throw std::runtime_error("dispatch_counting_graphs: " + error);
    cuda::CudaBackend backend(desc, weights);
    backend.set_use_graphs(use_graphs);
    std::vector<size_t> counts;
    for (size_t i = 0; i < frames.size(); ++i) {
        if (backend.dispatch(frames[i], i, &error) != SWINUP_STATUS_OK)
            throw std::runtime_error("dispatch_counting_graphs: frame " + std::to_string(i) + ": " + error);
        counts.push_back(backend.cached_graph_sizes());
    }
    return counts;
}

std::vector<InputStatistics> dispatch_reading_statistics(const swinup_context_desc& desc,
                                                         const cuda::NetworkFusions& fusions,
                                                         const std::vector<swinup_dispatch_desc>& frames,
                                                         const std::vector<size_t>& read_after) {
    std::string error;
    const Variant variant = desc.variant == SWINUP_VARIANT_FULL ? Variant::full : Variant::lite;
    const std::shared_ptr<const Weights> weights = weights_load_embedded(variant, &error);
    if (!weights) throw std::runtime_error("dispatch_reading_statistics: " + error);
    cuda::CudaBackend backend(desc, weights);
    backend.set_fusions(fusions);
    std::vector<InputStatistics> readings;
    size_t next_read = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
        if (backend.dispatch(frames[i], i, &error) != SWINUP_STATUS_OK)
            throw std::runtime_error("dispatch_reading_statistics: frame " + std::to_string(i) + ": " + error);
        if (next_read < read_after.size() && read_after[next_read] == i) {
            InputStatistics s;
            if (backend.input_statistics(&s, &error) != SWINUP_STATUS_OK)
                throw std::runtime_error("dispatch_reading_statistics: after frame " + std::to_string(i) + ": " + error);
            readings.push_back(s);
            ++next_read;
        }
    }
    return readings;
}

BenchResult bench(const BenchConfig& c) {
    BenchResult r;
    swinup_context_desc desc;
    swinup_context_desc_init(&desc);
    desc.backend = SWINUP_BACKEND_CUDA;
    desc.variant = c.variant;
    desc.precision = c.precision;
    desc.max_render_width = static_cast<uint32_t>(c.render_width);
    desc.max_render_height = static_cast<uint32_t>(c.render_height);
    desc.display_width = static_cast<uint32_t>(c.display_width);
    desc.display_height = static_cast<uint32_t>(c.display_height);
    desc.flags = SWINUP_FLAG_HDR;
    desc.output_format = SWINUP_FORMAT_RGBA16F;
    std::string error;
    const Variant variant = c.variant == SWINUP_VARIANT_LITE ? Variant::lite : Variant::full;
    std::shared_ptr<const Weights> weights = c.weights ? c.weights : weights_load_embedded(variant, &error);
    if (!weights) throw std::runtime_error("bench: " + error);
    if (weights->config.variant != variant)
        throw std::invalid_argument(std::string("bench: the weights are for ") + variant_name(weights->config.variant) +
                                    ", not " + variant_name(variant));
    cuda::CudaBackend backend(desc, weights);
    backend.set_fusions(c.fusions);  // before the first dispatch captures the graphs
    backend.set_output_kernels(c.output_kernels);
    r.device = backend.device_name();

    // Synthetic frame: smooth colour with noise, a depth ramp, small motion (data, not zeros).
    const int w = c.render_width, h = c.render_height;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    std::vector<uint16_t> color(size_t(w) * h * 4);
    std::vector<float> depth(size_t(w) * h);
    std::vector<uint16_t> mv(size_t(w) * h * 2);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y) * w + x;
            for (int ch = 0; ch < 3; ++ch) color[i * 4 + ch] = f32_to_f16_bits(2.0f * u(rng) * (1 + ch) * x / w);
            color[i * 4 + 3] = 0x3c00;
            depth[i] = 0.2f + 0.6f * float(y) / h;
            mv[i * 2 + 0] = f32_to_f16_bits(1.5f * u(rng) - 0.75f);
            mv[i * 2 + 1] = f32_to_f16_bits(0.5f);
        }
    DeviceBuffer color_d = upload(color), depth_d = upload(depth), mv_d = upload(mv);
    DeviceBuffer out_d(size_t(c.display_width) * c.display_height * 8);
    cudaStream_t stream;
    SWINUP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    swinup_dispatch_desc d = frame_dispatch_desc(
        input_resource(color_d.get(), SWINUP_FORMAT_RGBA16F, w, h, SWINUP_MEMORY_CUDA),
        input_resource(depth_d.get(), SWINUP_FORMAT_R32F, w, h, SWINUP_MEMORY_CUDA),
        input_resource(mv_d.get(), SWINUP_FORMAT_RG16F, w, h, SWINUP_MEMORY_CUDA),
        output_resource(out_d.get(), SWINUP_FORMAT_RGBA16F, c.display_width, c.display_height, SWINUP_MEMORY_CUDA));
    d.cuda_stream = stream;

    auto dispatch = [&](uint64_t frame) {
        d.jitter_x = 0.25f * float(frame % 4) - 0.375f;
        d.jitter_y = 0.375f - 0.25f * float(frame % 3);
        std::string e;
        if (backend.dispatch(d, frame, &e) != SWINUP_STATUS_OK) throw std::runtime_error("bench: " + e);
    };

    // Whole evaluations through the graphs.
    uint64_t frame = 0;
    for (int i = 0; i < c.warmup; ++i) dispatch(frame++);
    std::vector<EventPair> events(static_cast<size_t>(c.iterations));
    for (EventPair& e : events) {
        SWINUP_CUDA_CHECK(cudaEventCreate(&e.begin));
        SWINUP_CUDA_CHECK(cudaEventCreate(&e.end));
    }
    for (EventPair& e : events) {
        SWINUP_CUDA_CHECK(cudaEventRecord(e.begin, stream));
        dispatch(frame++);
        SWINUP_CUDA_CHECK(cudaEventRecord(e.end, stream));
    }
    SWINUP_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<double> whole;
    for (EventPair& e : events) {
        float ms = 0;
        SWINUP_CUDA_CHECK(cudaEventElapsedTime(&ms, e.begin, e.end));
        whole.push_back(ms);
    }
    r.whole_median_ms = median(whole);
    r.whole_min_ms = *std::min_element(whole.begin(), whole.end());
    r.whole_max_ms = *std::max_element(whole.begin(), whole.end());

    // Stages one by one (no graph): an event pair around every launch.
    backend.set_use_graphs(false);
    struct Record {
        cuda::StageInfo info;
        std::vector<EventPair> pairs;
    };
    std::vector<Record> records;
    size_t cursor = 0;
    int iteration = -1;
    backend.set_stage_marker([&](const cuda::StageInfo& s, bool begin, cudaStream_t st) {
        if (begin) {
            if (iteration == 0) records.push_back({s, {}});
            Record& rec = records[cursor];
            if (rec.pairs.size() <= static_cast<size_t>(iteration)) {
                EventPair e;
                SWINUP_CUDA_CHECK(cudaEventCreate(&e.begin));
                SWINUP_CUDA_CHECK(cudaEventCreate(&e.end));
                rec.pairs.push_back(e);
            }
            SWINUP_CUDA_CHECK(cudaEventRecord(rec.pairs[static_cast<size_t>(iteration)].begin, st));
        } else {
            SWINUP_CUDA_CHECK(cudaEventRecord(records[cursor].pairs[static_cast<size_t>(iteration)].end, st));
            ++cursor;
        }
    });
    const int stage_iterations = std::max(100, c.iterations / 2);
    for (int i = 0; i < stage_iterations; ++i) {
        iteration = i;
        cursor = 0;
        dispatch(frame);  // the same parity each time: the same stage list
        frame += 2;
    }
    SWINUP_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (Record& rec : records) {
        std::vector<double> t;
        for (EventPair& e : rec.pairs) {
            float ms = 0;
            SWINUP_CUDA_CHECK(cudaEventElapsedTime(&ms, e.begin, e.end));
            t.push_back(ms);
            cudaEventDestroy(e.begin);
            cudaEventDestroy(e.end);
        }
        BenchStage s{rec.info.layer, rec.info.op, rec.info.flops, rec.info.bytes, median(t)};
        r.stages_sum_ms += s.median_ms;
        r.stages.push_back(s);
    }
    for (EventPair& e : events) {
        cudaEventDestroy(e.begin);
        cudaEventDestroy(e.end);
    }
    backend.set_stage_marker({});

    // Ceilings: a 1 GiB device-to-device copy, and the mma.sync issue rates.
    {
        const size_t bytes = size_t(1) << 30;
        DeviceBuffer src(bytes), dst(bytes);
        SWINUP_CUDA_CHECK(cudaMemsetAsync(src.get(), 1, bytes, stream));
        std::vector<double> t;
        cudaEvent_t b, e;
        SWINUP_CUDA_CHECK(cudaEventCreate(&b));
        SWINUP_CUDA_CHECK(cudaEventCreate(&e));
        for (int i = 0; i < 12; ++i) {
            SWINUP_CUDA_CHECK(cudaEventRecord(b, stream));
            SWINUP_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, stream));
            SWINUP_CUDA_CHECK(cudaEventRecord(e, stream));
            SWINUP_CUDA_CHECK(cudaEventSynchronize(e));
            float ms = 0;
            SWINUP_CUDA_CHECK(cudaEventElapsedTime(&ms, b, e));
            if (i >= 2) t.push_back(ms);
        }
        r.copy_bandwidth_gbs = 2.0 * double(bytes) / (median(t) * 1e-3) / 1e9;
        int device = 0, sms = 0;
        SWINUP_CUDA_CHECK(cudaGetDevice(&device));
        SWINUP_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        DeviceBuffer sink(4);
        const int blocks = sms * 8, threads = 256;
        const double warps = double(blocks) * threads / 32;
        for (int kind = 0; kind < 2; ++kind) {
            t.clear();
            for (int i = 0; i < 5; ++i) {
                SWINUP_CUDA_CHECK(cudaEventRecord(b, stream));
                if (kind == 0)
                    mma_peak_kernel<true><<<blocks, threads, 0, stream>>>(kFp8PeakFragments, sink.get<float>());
                else
                    mma_peak_kernel<false><<<blocks, threads, 0, stream>>>(kF16PeakFragments, sink.get<float>());
                SWINUP_CUDA_CHECK_LAUNCH();
                SWINUP_CUDA_CHECK(cudaEventRecord(e, stream));
                SWINUP_CUDA_CHECK(cudaEventSynchronize(e));
                float ms = 0;
                SWINUP_CUDA_CHECK(cudaEventElapsedTime(&ms, b, e));
                if (i >= 1) t.push_back(ms);
            }
            const double k = kind == 0 ? 32 : 16;
            const double flops = warps * kPeakIterations * 8 * 2.0 * 16 * 8 * k;
            (kind == 0 ? r.mma_fp8_tflops : r.mma_f16_tflops) = flops / (median(t) * 1e-3) / 1e12;
        }
        cudaEventDestroy(b);
        cudaEventDestroy(e);
    }
    SWINUP_CUDA_CHECK(cudaStreamDestroy(stream));
    return r;
}

}  // namespace swinup::cuda_tools
