// swinup bench: GPU time per stage and per evaluation (CUDA events, medians of 100+ after
// warm-up), with each stage's FLOPs and bytes and their ratio to the machine's measured ceilings
// (a device-to-device copy, the mma.sync issue rates): a roofline-style table. Without a GPU it
// times whole frames on the CPU backend instead.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "api/backend.h"
#include "api/resource_desc.h"
#include "api_context.h"
#include "model/model_spec.h"
#include "model/weights.h"
#include "options.h"
#include "usage_error.h"
#ifdef SWINUP_HAVE_VULKAN
#include <cstdlib>

#include "vulkan/backend/vulkan_backend.h"
#include "vulkan/runtime/device.h"
#include "vulkan/runtime/matrix_rate.h"
#include "vulkan/runtime/vulkan_error.h"
#endif

#ifdef SWINUP_HAVE_CUDA
#include "cuda/tools/cuda_tools.h"
#endif

namespace swinup::cli {
namespace {

struct BenchOptions {
    std::string render, display;
    std::string variant = "both";
    std::string precision = "fast";
    int iterations = 200;
    bool detail = false;
    std::vector<std::string> unfused;  // fused kernels to replace by layer-by-layer launches
    std::vector<std::string> with;     // candidate kernels to run (off by default: not yet run on a GPU)
    std::string weights;               // a .safetensors file instead of the embedded weights
    std::string backend = "auto";      // auto, cpu or vulkan
};

// --weights: the file loaded and validated once for all sizes, its variant the one --variant
// names (a file holds one network, so "both" is refused). Null without the option.
std::shared_ptr<const Weights> load_bench_weights(const BenchOptions& o) {
    if (o.weights.empty()) return nullptr;
    std::string error;
    std::shared_ptr<const Weights> w = weights_load_file(o.weights, &error);
    if (!w) throw std::runtime_error("bench: cannot load --weights '" + o.weights + "': " + error);
    const std::string file_variant = variant_name(w->config.variant);
    if (o.variant != file_variant)
        throw UsageError("bench: --weights '" + o.weights + "' holds a " + file_variant +
                                    " network but --variant is " + o.variant + " (give --variant " + file_variant +
                                    ")");
    return w;
}

// " (weights FILE)" for the table header; empty for the embedded weights.
std::string weights_label(const BenchOptions& o) { return o.weights.empty() ? "" : " (weights " + o.weights + ")"; }

#ifdef SWINUP_HAVE_CUDA
// " (unfused MLP, attention; with teams)" for the table header: the run's configuration is in its
// output.
std::string kernels_label(const cuda::NetworkFusions& f, const cuda::OutputKernels& o) {
    std::string off, on;
    for (auto [used, name] : {std::pair{f.norms, "norms"}, std::pair{f.mlp, "MLP"}, std::pair{f.attention, "attention"},
                              std::pair{f.lite_tail, "lite tail"}, std::pair{f.head, "full head"}})
        if (!used) off += (off.empty() ? "" : ", ") + std::string(name);
    for (auto [used, name] : {std::pair{f.block, "block"}, std::pair{f.teams, "teams"},
                              std::pair{f.published_counts, "counts"},
                              std::pair{o.exact_table || o.fast_tuples, "output"}})
        if (used) on += (on.empty() ? "" : ", ") + std::string(name);
    if (off.empty() && on.empty()) return "";
    return " (" + (off.empty() ? "" : "unfused " + off) + (off.empty() || on.empty() ? "" : "; ") +
           (on.empty() ? "" : "with " + on) + ")";
}
#endif

struct SizePair {
    Size2 render, display;
};

// The sizes of the issue: 720p, 1080p and 1440p to 4K, and 540p to 1080p.
std::vector<SizePair> default_sizes() {
    return {{{1280, 720}, {3840, 2160}}, {{1920, 1080}, {3840, 2160}}, {{2560, 1440}, {3840, 2160}},
            {{960, 540}, {1920, 1080}}};
}

std::vector<swinup_variant> variants_of(const std::string& v) {
    if (v == "both") return {SWINUP_VARIANT_LITE, SWINUP_VARIANT_FULL};
    return {parse_variant_option(v)};
}

// The context of a whole-frame row: HDR input at the size pair, the variant, --precision.
swinup_context_desc whole_frame_context(swinup_backend backend, swinup_variant v, const BenchOptions& o,
                                        const SizePair& sp) {
    swinup_context_desc desc =
        sized_context_desc(sp.render.width, sp.render.height, sp.display.width, sp.display.height);
    desc.backend = backend;
    desc.variant = v;
    desc.precision = parse_precision_option(o.precision);
    desc.flags = SWINUP_FLAG_HDR;
    return desc;
}

// A whole frame on host pointers at a size pair: constant inputs (the network's time does not
// depend on the values) and an RGBA16F output.
struct HostFrame {
    std::vector<float> color, depth, mv;
    std::vector<uint16_t> out;
    swinup_dispatch_desc desc;

    explicit HostFrame(const SizePair& sp)
        : color(size_t(sp.render.width) * sp.render.height * 4, 0.5f),
          depth(size_t(sp.render.width) * sp.render.height, 0.5f),
          mv(size_t(sp.render.width) * sp.render.height * 2, 0.25f),
          out(size_t(sp.display.width) * sp.display.height * 4),
          desc(frame_dispatch_desc(
              input_resource(color.data(), SWINUP_FORMAT_RGBA32F, sp.render.width, sp.render.height),
              input_resource(depth.data(), SWINUP_FORMAT_R32F, sp.render.width, sp.render.height),
              input_resource(mv.data(), SWINUP_FORMAT_RG32F, sp.render.width, sp.render.height),
              output_resource(out.data(), SWINUP_FORMAT_RGBA16F, sp.display.width, sp.display.height))) {}
    HostFrame(const HostFrame&) = delete;  // desc points into the vectors
    HostFrame& operator=(const HostFrame&) = delete;
};

#ifdef SWINUP_HAVE_CUDA
// Which ceiling a stage is held to: GEMMs the FP8 mma rate, attention the f16 one.
double compute_ceiling(const std::string& op, const cuda_tools::BenchResult& r) {
    if (op == "attention") return r.mma_f16_tflops;
    if (op == "norm" || op == "norm1" || op == "norm2" || op == "exposure" || op == "input_planes" ||
        op == "staging" || op == "output_prepass" || op == "output" || op == "recurrent")
        return 0;  // no matrix work: only the memory ceiling applies
    return r.mma_fp8_tflops;
}

void print_row(const std::string& name, double ms, double flops, double bytes, double ceiling_tflops,
               const cuda_tools::BenchResult& r) {
    const double s = ms * 1e-3;
    const double tflops = s > 0 ? flops / s / 1e12 : 0, gbs = s > 0 ? bytes / s / 1e9 : 0;
    const double mem_floor_ms = bytes / (r.copy_bandwidth_gbs * 1e9) * 1e3;
    const double math_floor_ms = ceiling_tflops > 0 ? flops / (ceiling_tflops * 1e12) * 1e3 : 0;
    std::printf("| %-22s | %8.4f | %8.3f | %8.2f | %7.1f | %6.1f%% | %7.0f | %6.1f%% | %8.4f | %-4s |\n", name.c_str(), ms,
                flops / 1e9, bytes / 1e6, tflops, ceiling_tflops > 0 ? 100 * tflops / ceiling_tflops : 0.0, gbs,
                100 * gbs / r.copy_bandwidth_gbs, std::max(mem_floor_ms, math_floor_ms),
                mem_floor_ms >= math_floor_ms ? "mem" : "math");
}

void bench_gpu(const BenchOptions& o, const std::vector<SizePair>& sizes) {
    const std::shared_ptr<const Weights> weights = load_bench_weights(o);
    for (const SizePair& sp : sizes) {
        for (swinup_variant v : variants_of(o.variant)) {
            cuda_tools::BenchConfig c;
            c.variant = v;
            c.precision = parse_precision_option(o.precision);
            c.render_width = int(sp.render.width);
            c.render_height = int(sp.render.height);
            c.display_width = int(sp.display.width);
            c.display_height = int(sp.display.height);
            c.iterations = std::max(100, o.iterations);
            c.weights = weights;
            for (const std::string& kind : o.unfused) {
                const bool all = kind == "all";
                if (all || kind == "norms") c.fusions.norms = false;
                if (all || kind == "mlp") c.fusions.mlp = false;
                if (all || kind == "attention") c.fusions.attention = false;
                if (all || kind == "tail") c.fusions.lite_tail = false;
                if (all || kind == "head") c.fusions.head = false;
            }
            for (const std::string& kind : o.with) {
                const bool all = kind == "all";
                if (all || kind == "block") c.fusions.block = true;
                if (all || kind == "teams") c.fusions.teams = true;
                if (all || kind == "counts") c.fusions.published_counts = true;
                if (all || kind == "output") c.output_kernels = cuda::OutputKernels{true, true};
            }
            const cuda_tools::BenchResult r = cuda_tools::bench(c);
            std::printf("\n## %s %s, %s -> %s on %s%s%s\n", variant_label(v), precision_label(c.precision),
                        size_text(sp.render.width, sp.render.height).c_str(),
                        size_text(sp.display.width, sp.display.height).c_str(), r.device.c_str(),
                        kernels_label(c.fusions, c.output_kernels).c_str(), weights_label(o).c_str());
            std::printf("whole evaluation (CUDA graph, events, %d runs): median %.3f ms (min %.3f, max %.3f); "
                        "stages launched one by one sum to %.3f ms\n",
                        c.iterations, r.whole_median_ms, r.whole_min_ms, r.whole_max_ms, r.stages_sum_ms);
            // The network alone (every stage but the frame passes around it): what
            // python/scripts/peer_bench.py times in PyTorch, for its --cuda-ms ratio.
            double network_ms = 0;
            for (const cuda_tools::BenchStage& s : r.stages)
                if (s.layer != "frame") network_ms += s.median_ms;
            std::printf("the network's stages (launched one by one, the frame passes left out) sum to %.3f ms\n",
                        network_ms);
            std::printf("measured ceilings: copy %.0f GB/s (read + write), mma.sync e4m3 %.0f TFLOP/s, "
                        "mma.sync f16 %.0f TFLOP/s\n\n",
                        r.copy_bandwidth_gbs, r.mma_fp8_tflops, r.mma_f16_tflops);
            std::printf("| %-22s | %8s | %8s | %8s | %7s | %7s | %7s | %7s | %8s | %-4s |\n", "stage", "ms", "GFLOP",
                        "MB", "TFLOP/s", "of mma", "GB/s", "of copy", "floor ms", "by");
            std::printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
            // Rows: per layer (its kernels summed), or per kernel with --detail; then per op class.
            std::vector<std::string> order;
            std::map<std::string, cuda_tools::BenchStage> rows;
            std::map<std::string, double> floor_flops_ceiling;  // per row: compute-weighted ceiling
            std::map<std::string, cuda_tools::BenchStage> classes;
            for (const cuda_tools::BenchStage& s : r.stages) {
                const std::string key = o.detail || s.layer == "frame" ? s.layer + "." + s.op : s.layer;
                if (!rows.count(key)) order.push_back(key);
                auto& row = rows[key];
                row.median_ms += s.median_ms;
                row.flops += s.flops;
                row.bytes += s.bytes;
                row.op = (row.op.empty() || row.op == s.op) ? s.op : "mixed";
                std::string cls = s.op;
                if (cls == "norm1" || cls == "norm2") cls = "norm";
                if (cls == "output_prepass") cls = "output";
                if (cls == "qkv" || cls == "proj" || cls == "fc1" || cls == "fc2" || cls == "linear" ||
                    cls == "fc3" ||                              // the head MLP's last layer
                    cls == "norm1+qkv" || cls == "norm2+fc1" ||  // the fused norm + GEMM kernels
                    cls == "norm+linear" ||
                    cls == "norm2+mlp" ||                        // the fused MLP
                    cls == "norm1+qkv+attention+proj" ||         // the fused attention half
                    cls == "attention+mlp" ||                    // the fused Swin block
                    cls == "expand0+skip0+head" ||               // lite's fused tail,
                    cls == "expand0+skip0+head+head_mlp" ||      // with the head MLP,
                    cls == "norm+linear+head_mlp")               // and full's fused head with it
                    cls = "gemm";
                auto& k = classes[cls];
                k.median_ms += s.median_ms;
                k.flops += s.flops;
                k.bytes += s.bytes;
            }
            for (const std::string& key : order) {
                const auto& row = rows[key];
                print_row(key, row.median_ms, row.flops, row.bytes,
                          row.op == "mixed" ? r.mma_fp8_tflops : compute_ceiling(row.op, r), r);
            }
            std::printf("| *by op class* | | | | | | | | | |\n");
            for (const auto& [cls, k] : classes)
                print_row("all " + cls, k.median_ms, k.flops, k.bytes, compute_ceiling(cls == "gemm" ? "qkv" : cls, r), r);
        }
    }
}
#endif

// CPU, or Vulkan (--backend vulkan): whole frames through the C API on host pointers (uploads and
// readback included; no per-stage breakdown yet), a few runs each.
void bench_whole_frames(const BenchOptions& o, const std::vector<SizePair>& sizes, swinup_backend backend) {
    if (backend == SWINUP_BACKEND_VULKAN) {
        std::printf("timing whole frames on the Vulkan backend (host pointers: uploads and readback included)\n");
    } else {
        std::printf("no usable CUDA GPU: timing whole frames on the CPU backend\n");
    }
    load_bench_weights(o);  // the same checks and messages as on the GPU; the context loads it again
    for (const SizePair& sp : sizes) {
        for (swinup_variant v : variants_of(o.variant)) {
            swinup_context_desc desc = whole_frame_context(backend, v, o, sp);
            if (!o.weights.empty()) {
                desc.weights_source = SWINUP_WEIGHTS_PATH;
                desc.weights_path = o.weights.c_str();
            }
            swinup_context* ctx = nullptr;
            if (swinup_context_create(&desc, &ctx) != SWINUP_STATUS_OK)
                throw std::runtime_error(std::string("bench: ") + swinup_last_error(nullptr));
            const HostFrame frame(sp);
            const swinup_dispatch_desc& d = frame.desc;
            std::vector<double> ms;
            const int runs = 1 + std::max(1, std::min(o.iterations, 5));
            for (int i = 0; i < runs; ++i) {
                const auto t0 = std::chrono::steady_clock::now();
                if (swinup_dispatch(ctx, &d) != SWINUP_STATUS_OK) {
                    const std::string e = swinup_last_error(ctx);
                    swinup_context_destroy(ctx);
                    throw std::runtime_error("bench: " + e);
                }
                const auto t1 = std::chrono::steady_clock::now();
                if (i > 0) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            }
            swinup_context_destroy(ctx);
            std::sort(ms.begin(), ms.end());
            std::printf("%s %s %s -> %s%s: median %.1f ms per frame (%zu runs after one warm-up)\n", variant_label(v),
                        precision_label(desc.precision), size_text(sp.render.width, sp.render.height).c_str(),
                        size_text(sp.display.width, sp.display.height).c_str(), weights_label(o).c_str(),
                        ms[ms.size() / 2], ms.size());
        }
    }
}

#ifdef SWINUP_HAVE_VULKAN
// The multiply-add FLOPs (2 per multiply-add) of one network layer of the Vulkan backend's stage
// names ("network: enc1", ...) on a grid of `pixels` render pixels: its linear layers, and a
// block's attention (Q K^T and P V, 16 keys a token); 0 for other stages.
double vulkan_layer_flops(const ModelConfig& config, const std::string& stage, double pixels) {
    const std::string prefix = "network: ";
    if (stage.rfind(prefix, 0) != 0) return 0;
    const std::string layer = stage.substr(prefix.size());
    const int* ch = config.channels;
    auto tokens = [&](int level) { return pixels / double(1 << (2 * level)); };
    auto level_of = [&](const std::string& name) {
        return name.rfind("tube", 0) == 0 ? 3 : name.back() - '0';
    };
    if (layer == "embed") return 2 * tokens(1) * 4 * kSlots * ch[1];
    if (layer == "embed0") return 2 * pixels * kSlots * ch[0];
    if (layer == "embed1") return 2 * pixels * ch[0] * ch[0];
    if (layer.rfind("enc", 0) == 0 || layer.rfind("dec", 0) == 0 || layer.rfind("tube", 0) == 0) {
        const int l = level_of(layer);
        const double t = tokens(l), c = ch[l];
        return 2 * t * 12 * c * c + 4 * t * kWindowTokens * c;
    }
    if (layer.rfind("merge", 0) == 0) {
        const int l = level_of(layer);
        return 2 * tokens(l + 1) * 4 * ch[l] * ch[l + 1];
    }
    if (layer.rfind("expand", 0) == 0) {
        const int l = level_of(layer);  // expand_l: level l + 1 -> l
        const double skip0 = (l == 0 && config.variant == Variant::lite) ? 2 * pixels * kSlots * ch[0] : 0;
        return 2 * tokens(l + 1) * ch[l + 1] * 4 * ch[l] + skip0;
    }
    if (layer == "head") {
        const double mlp = config.head_mlp ? double(kHeadMlpInputs) * kHeadMlpHidden +
                                                 double(kHeadMlpHidden) * kHeadMlpHidden +
                                                 double(kHeadMlpHidden) * kHeadMlpOutputs
                                           : 0;
        return 2 * pixels * (double(ch[0]) * kHeadOutputs + mlp);
    }
    return 0;
}

// Vulkan: host-pointer frames on the Vulkan backend (SWINUP_VULKAN_DEVICE picks the device), the
// GPU time of each stage from timestamps (uploads and readback included as their own stages) and
// the whole frame's wall time, medians over the runs after one warm-up.
void bench_vulkan(const BenchOptions& o, const std::vector<SizePair>& sizes) {
    const std::shared_ptr<const Weights> file_weights = load_bench_weights(o);
    vulkan::DeviceOptions options;
    const char* env = std::getenv("SWINUP_VULKAN_DEVICE");
    options.selector = env != nullptr ? env : "";
    auto device = vulkan::Device::create(options);
    std::printf("Vulkan device: %s (Vulkan %s)\n", device->name().c_str(),
                vulkan::version_text(device->capabilities().api_version).c_str());
    std::printf("fast mode's GEMM: %s%s\n", vulkan::fast_gemm_path_name(device->fast_gemm_path()),
                device->fast_gemm_path() == vulkan::FastGemmPath::portable
                    ? ""
                    : (" (" + vulkan::shape_text(device->gemm_matrix_shape()) + ")").c_str());
    for (const vulkan::MatrixShape& shape : device->capabilities().matrix_shapes) {
        std::printf("  the device reports cooperative-matrix shape %s\n", vulkan::shape_text(shape).c_str());
    }
    const vulkan::MatrixRate rate = vulkan::measure_matrix_rate(*device);
    if (rate.tflops > 0) {
        std::printf("measured ceiling: cooperative-matrix f16 multiply-add %.0f TFLOP/s (%s)\n", rate.tflops,
                    vulkan::shape_text(device->capabilities().matrix_shape).c_str());
    }
    for (const SizePair& sp : sizes) {
        for (swinup_variant v : variants_of(o.variant)) {
            std::shared_ptr<const Weights> weights = file_weights;
            if (!weights) {
                std::string error;
                weights = weights_load_embedded(v == SWINUP_VARIANT_FULL ? Variant::full : Variant::lite, &error);
                if (!weights) throw std::runtime_error("bench: " + error);
            }
            const swinup_context_desc desc = whole_frame_context(SWINUP_BACKEND_VULKAN, v, o, sp);
            vulkan::VulkanBackend backend(desc, weights, *device);
            backend.set_stage_timing(true, o.detail);
            const HostFrame frame(sp);
            const swinup_dispatch_desc& d = frame.desc;
            std::vector<double> wall;
            std::map<std::string, std::vector<double>> stages;
            std::vector<std::string> order;
            const int runs = 1 + std::max(1, o.iterations);
            for (int i = 0; i < runs; ++i) {
                std::string error;
                const auto t0 = std::chrono::steady_clock::now();
                if (backend.dispatch(d, uint64_t(i), &error) != SWINUP_STATUS_OK) throw std::runtime_error("bench: " + error);
                const auto t1 = std::chrono::steady_clock::now();
                if (i == 0) continue;  // warm-up: pipelines made, memory touched
                wall.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
                // Per kernel, a layer's kernels of one name are summed into one row.
                std::map<std::string, double> frame_stages;
                for (const auto& [stage, ms] : backend.last_stage_times()) {
                    if (!frame_stages.count(stage) && !stages.count(stage)) order.push_back(stage);
                    frame_stages[stage] += ms;
                }
                for (const auto& [stage, ms] : frame_stages) stages[stage].push_back(ms);
            }
            auto median = [](std::vector<double> values) {
                std::sort(values.begin(), values.end());
                return values[values.size() / 2];
            };
            std::printf("\n%s %s %s -> %s%s, %zu runs after one warm-up:\n", variant_label(v),
                        precision_label(desc.precision), size_text(sp.render.width, sp.render.height).c_str(),
                        size_text(sp.display.width, sp.display.height).c_str(), weights_label(o).c_str(), wall.size());
            // Each layer's FLOPs at the padded grid (the render size up to a multiple of 16).
            const double pixels = double((sp.render.width + 15) / 16 * 16) * ((sp.render.height + 15) / 16 * 16);
            std::printf("| stage | GPU ms (median) | GFLOP | TFLOP/s | of the matrix rate |\n"
                        "| --- | ---: | ---: | ---: | ---: |\n");
            double network_ms = 0, network_flops = 0;
            for (const std::string& stage : order) {
                const double ms = median(stages[stage]);
                const double flops = o.detail ? 0 : vulkan_layer_flops(weights->config, stage, pixels);
                if (stage.rfind("network", 0) == 0) {
                    network_ms += ms;
                    network_flops += flops;
                }
                if (flops <= 0) {
                    std::printf("| %s | %.3f | | | |\n", stage.c_str(), ms);
                    continue;
                }
                const double tflops = flops / (ms * 1e-3) / 1e12;
                std::printf("| %s | %.3f | %.2f | %.2f | %s |\n", stage.c_str(), ms, flops / 1e9, tflops,
                            rate.tflops > 0 ? (std::to_string(int(100 * tflops / rate.tflops + 0.5)) + "%").c_str() : "");
            }
            if (network_ms > 0) {
                const double tflops = network_flops / (network_ms * 1e-3) / 1e12;
                std::printf("| network, all layers | %.3f | %.2f | %.2f | %s |\n", network_ms, network_flops / 1e9,
                            tflops,
                            rate.tflops > 0 ? (std::to_string(int(100 * tflops / rate.tflops + 0.5)) + "%").c_str() : "");
            }
            std::printf("| whole frame, wall clock (submit and wait included) | %.3f |\n", median(wall));
        }
    }
}
#endif

}  // namespace

void register_bench(CLI::App& app) {
    auto options = std::make_shared<BenchOptions>();
    CLI::App* cmd = app.add_subcommand(
        "bench", "Time per stage and per evaluation on the GPU (CPU time without one); roofline table");
    cmd->add_option("--render", options->render, "render size WxH (default: the four standard size pairs)");
    cmd->add_option("--display", options->display, "display size WxH (with --render)");
    cmd->add_option("--variant", options->variant, "lite, full or both")->check(CLI::IsMember({"lite", "full", "both"}));
    cmd->add_option("--precision", options->precision, "exact or fast")->check(CLI::IsMember(precision_names()));
    cmd->add_option("--iterations", options->iterations, "timed evaluations per size (at least 100 on the GPU)")
        ->check(CLI::Range(1, 100000));
    cmd->add_option("--backend", options->backend,
                    "auto (CUDA per stage when a GPU is usable, else CPU whole frames), cpu, or vulkan (GPU time per "
                    "stage from timestamps, and whole frames, on the Vulkan backend; SWINUP_VULKAN_DEVICE picks the device)")
        ->check(CLI::IsMember({"auto", "cpu", "vulkan"}));
    cmd->add_flag("--detail", options->detail, "one row per kernel instead of per layer");
    cmd->add_option("--unfused", options->unfused,
                    "GPU: run these fused kernels as their layer-by-layer launches instead (norms: norm1 -> qkv "
                    "and norm2 -> fc1; mlp: norm2 -> fc1 -> fc2; attention: norm1 -> qkv -> attention -> proj; "
                    "tail: lite's expand0 + skip0 -> head (-> head MLP); head: full's head norm -> head linear (-> head "
                    "MLP); all); the same bytes, for comparing times (CudaNetwork::set_fusions)")
        ->delimiter(',')
        ->check(CLI::IsMember({"norms", "mlp", "attention", "tail", "head", "all"}));
    cmd->add_option("--with", options->with,
                    "GPU: also run these candidate kernels, off by default until a GPU run has checked their bytes "
                    "and timed them (block: a Swin block of levels 0 to 2 as one kernel instead of its two halves; teams: levels 2 and 3's attention and MLP with a team of warps per window or "
                    "tile instead of one warp; counts: the input statistics' counters published by the staging "
                    "kernel instead of a memset node and a copy after each frame; output: exact mode's output pass "
                    "on a per-render-pixel table and fast mode's thread per 2 or 3 display pixels; all); meant to "
                    "give the same bytes and counts (CudaBackend::set_fusions, CudaBackend::set_output_kernels)")
        ->delimiter(',')
        ->check(CLI::IsMember({"block", "teams", "counts", "output", "all"}));
    cmd->add_option("--weights", options->weights,
                    "a .safetensors weights file instead of the embedded weights (its variant must be the one "
                    "--variant names), e.g. to compare two files' times")
        ->check(CLI::ExistingFile);
    cmd->callback([options] {
        std::vector<SizePair> sizes;
        if (!options->render.empty() || !options->display.empty()) {
            if (options->render.empty() || options->display.empty())
                throw UsageError("bench: --render and --display go together");
            sizes.push_back({parse_size(options->render, "--render"), parse_size(options->display, "--display")});
            // The library's rules for the pair (e.g. the display/render ratio), before any timing.
            for (swinup_variant v : variants_of(options->variant))
                check_context_values(whole_frame_context(SWINUP_BACKEND_CPU, v, *options, sizes.back()),
                                     "--render " + options->render + " / --display " + options->display);
        } else {
            sizes = default_sizes();
        }
        if (options->backend == "vulkan") {
#ifdef SWINUP_HAVE_VULKAN
            bench_vulkan(*options, sizes);
#else
            bench_whole_frames(*options, sizes, SWINUP_BACKEND_VULKAN);  // refused with the build's reason
#endif
            return;
        }
#ifdef SWINUP_HAVE_CUDA
        if (cuda_backend_available() && options->backend != "cpu") {
            bench_gpu(*options, sizes);
            return;
        }
#endif
        bench_whole_frames(*options, sizes, SWINUP_BACKEND_CPU);
    });
}

}  // namespace swinup::cli
