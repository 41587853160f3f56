// bench_vulkan_interop: the frame time of the three ways a frame reaches swinup on an NVIDIA GPU
// (docs/performance.md, "CUDA fed by Vulkan images"), for lite and full at 1280x720 -> 3840x2160 and
// 1920x1080 -> 3840x2160:
//   cuda-pointers  swinup_dispatch on CUDA device pointers (RGBA16F colour, R32F depth, RG16F
//                  motion, RGBA16F output), frames back to back on one stream;
//   cuda-vulkan    swinup_vulkan_record_dispatch with SWINUP_BACKEND_CUDA on the application's
//                  exportable VkImages of the same formats, each frame a Vulkan submit (the
//                  engine's queue) signalling the timeline semaphore the CUDA work waits on, which
//                  then signals the value the next Vulkan submit waits on: one frame in flight,
//                  the two APIs in strict turns;
//   cuda-vulkan-2  the same with two frames in flight, as engines run: the engine's submit of
//                  frame N waits for the upscale of frame N - 2, so its work and the hand-over of
//                  frame N overlap the upscale of frame N - 1 ("overhead-2");
//   cuda-images    the same imported images with no semaphore and no Vulkan submit: frames back to
//                  back on the stream, which isolates the cost of texture reads and surface writes
//                  (the "images" column: its overhead over device pointers; "overhead": the
//                  cuda-vulkan row's, the hand-over included);
//   vulkan         swinup_vulkan_record_dispatch with SWINUP_BACKEND_VULKAN on the same images,
//                  recorded into a command buffer and submitted each frame.
// Each row: `--warmup` frames, then `--frames` frames timed on the host from the first submit to
// the last frame's completion, repeated `--repeats` times (defaults 10, 50, 3); the median per frame is printed, and the
// interop row's overhead over device pointers. Inputs are zero (the network's time does not depend
// on the values). Options: --precision exact|fast (default fast), --variant lite|full|both,
// --rows cuda-pointers,cuda-images,cuda-vulkan,cuda-vulkan-2,vulkan, --host-timing (after each size,
// the median host duration of each API call of a timed frame in the CUDA rows: swinup_dispatch,
// the engine's vkQueueSubmit, swinup_vulkan_record_dispatch; a call that waits on the host for the
// GPU shows as one as long as a frame). The floor of the hand-over itself, without swinup, is
// bench_handover_floor's. Exit 77 without a CUDA GPU or an NVIDIA Vulkan device.
#include <cuda_runtime.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/resource_desc.h"
#include "swinup/swinup.h"
#include "swinup/swinup_vulkan.h"
#include "vulkan_app.h"

namespace {

using vulkan_app::AppImage;
using vulkan_app::Gpu;

struct Size {
    uint32_t rw, rh, dw, dh;
};

struct Options {
    swinup_precision precision = SWINUP_PRECISION_FAST;
    std::vector<swinup_variant> variants{SWINUP_VARIANT_LITE, SWINUP_VARIANT_FULL};
    std::string rows = "cuda-pointers,cuda-vulkan,cuda-vulkan-2,cuda-images,vulkan";
    int warmup = 10, frames = 50, repeats = 3;
    bool host_timing = false;
};

// --host-timing: each API call's host duration in the timed frames (microseconds), per row and call.
class CallTimes {
public:
    // Runs `call`, and records its duration when `frame` is past the warm-up.
    template <typename Call>
    void time(const Options& o, int frame, const std::string& what, Call&& call) {
        if (!o.host_timing || frame < o.warmup) {
            call();
            return;
        }
        const auto start = std::chrono::steady_clock::now();
        call();
        calls_[what].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
    // Prints each call's median and 90th percentile, then forgets them.
    void print(const std::string& where) {
        for (auto& [what, us] : calls_) {
            std::sort(us.begin(), us.end());
            std::printf("  host timing, %s: %-44s median %8.1f us  p90 %8.1f us  (%zu calls)\n", where.c_str(),
                        what.c_str(), us[us.size() / 2], us[std::min(us.size() - 1, us.size() * 9 / 10)], us.size());
        }
        calls_.clear();
    }

private:
    std::map<std::string, std::vector<double>> calls_;
};
CallTimes call_times;

void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

void swinup_check(swinup_status s, const swinup_context* ctx, const char* what) {
    if (s != SWINUP_STATUS_OK)
        throw std::runtime_error(std::string(what) + ": " + swinup_status_name(s) + ": " + swinup_last_error(ctx));
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Runs `frame(i)` warmup + frames times per repeat; `finish()` waits for the last frame. Returns
// the median over repeats of the milliseconds per frame.
double time_frames(const Options& o, const std::function<void(int)>& frame, const std::function<void()>& finish) {
    int index = 0;
    for (int i = 0; i < o.warmup; ++i) frame(index++);
    finish();
    std::vector<double> per_frame;
    for (int r = 0; r < o.repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < o.frames; ++i) frame(index++);
        finish();
        const auto stop = std::chrono::steady_clock::now();
        per_frame.push_back(std::chrono::duration<double, std::milli>(stop - start).count() / o.frames);
    }
    return median(per_frame);
}

swinup_context_desc context_desc(swinup_backend backend, swinup_variant variant, swinup_precision precision,
                                 const Size& s) {
    swinup_context_desc d = swinup::sized_context_desc(s.rw, s.rh, s.dw, s.dh);
    d.backend = backend;
    d.variant = variant;
    d.precision = precision;
    d.output_format = SWINUP_FORMAT_RGBA16F;
    return d;
}

double bench_cuda_pointers(const Options& o, swinup_variant variant, const Size& s) {
    swinup_context* ctx = nullptr;
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_CUDA, variant, o.precision, s);
    swinup_check(swinup_context_create(&desc, &ctx), nullptr, "swinup_context_create (CUDA)");
    const size_t render = size_t(s.rw) * s.rh, display = size_t(s.dw) * s.dh;
    void *color, *depth, *motion, *output;
    cuda_check(cudaMalloc(&color, render * 8), "cudaMalloc");
    cuda_check(cudaMalloc(&depth, render * 4), "cudaMalloc");
    cuda_check(cudaMalloc(&motion, render * 4), "cudaMalloc");
    cuda_check(cudaMalloc(&output, display * 8), "cudaMalloc");
    for (auto [p, n] : {std::pair{color, render * 8}, {depth, render * 4}, {motion, render * 4}})
        cuda_check(cudaMemset(p, 0, n), "cudaMemset");
    cudaStream_t stream;
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    using swinup::input_resource;
    swinup_dispatch_desc d =
        swinup::frame_dispatch_desc(input_resource(color, SWINUP_FORMAT_RGBA16F, s.rw, s.rh, SWINUP_MEMORY_CUDA),
                                    input_resource(depth, SWINUP_FORMAT_R32F, s.rw, s.rh, SWINUP_MEMORY_CUDA),
                                    input_resource(motion, SWINUP_FORMAT_RG16F, s.rw, s.rh, SWINUP_MEMORY_CUDA),
                                    swinup::output_resource(output, SWINUP_FORMAT_RGBA16F, s.dw, s.dh, SWINUP_MEMORY_CUDA));
    d.cuda_stream = stream;
    const double ms = time_frames(
        o,
        [&](int i) {
            call_times.time(o, i, "cuda-pointers: swinup_dispatch",
                            [&] { swinup_check(swinup_dispatch(ctx, &d), ctx, "swinup_dispatch"); });
        },
        [&] { cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize"); });
    swinup_context_destroy(ctx);
    cudaStreamDestroy(stream);
    for (void* p : {color, depth, motion, output}) cudaFree(p);
    return ms;
}

// The application's images for one size, cleared to zero once.
struct Images {
    std::unique_ptr<AppImage> color, depth, motion, output;

    Images(Gpu& gpu, const Size& s, bool exportable) {
        const VkImageUsageFlags in = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
        color = std::make_unique<AppImage>(gpu, VK_FORMAT_R16G16B16A16_SFLOAT, s.rw, s.rh, in, exportable);
        depth = std::make_unique<AppImage>(gpu, VK_FORMAT_R32_SFLOAT, s.rw, s.rh, in, exportable);
        motion = std::make_unique<AppImage>(gpu, VK_FORMAT_R16G16_SFLOAT, s.rw, s.rh, in, exportable);
        output = std::make_unique<AppImage>(gpu, VK_FORMAT_R16G16B16A16_SFLOAT, s.dw, s.dh,
                                            VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, exportable);
        VkCommandBuffer cmd = vulkan_app::begin_one_shot(gpu.device, gpu.pool);
        vulkan_app::to_general(cmd, {color.get(), depth.get(), motion.get(), output.get()});
        const VkClearColorValue zero{};
        const VkImageSubresourceRange range{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
        for (const AppImage* i : {color.get(), depth.get(), motion.get(), output.get()})
            vkCmdClearColorImage(cmd, i->image, VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &range);
        vulkan_app::memory_barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                                   VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        vulkan_app::submit_and_wait(gpu.device, gpu.pool, gpu.queue, cmd);
    }

    void describe(swinup_vulkan_dispatch_desc* d) const {
        d->color = color->desc();
        d->depth = depth->desc();
        d->motion_vectors = motion->desc();
        d->output = output->desc();
    }
};

void wait_value(Gpu& gpu, VkSemaphore s, uint64_t value) {
    VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wait.semaphoreCount = 1;
    wait.pSemaphores = &s;
    wait.pValues = &value;
    vulkan_app::check(vkWaitSemaphores(gpu.device, &wait, 60ull * 1000 * 1000 * 1000), "vkWaitSemaphores (60 s)");
}

// `in_flight` > 0: each frame a Vulkan submit and the semaphore wait/signal around the CUDA work
// (the engine's case), the submit of frame N waiting for the upscale of frame N - in_flight; two
// timeline semaphores, `rendered` (Vulkan -> CUDA) and `upscaled` (CUDA -> Vulkan), so that each
// only ever grows. 0: the frames run back to back on the stream with no semaphore, which leaves
// the import's own cost (texture and surface access) alone.
double bench_cuda_vulkan(const Options& o, Gpu& gpu, swinup_variant variant, const Size& s, int in_flight) {
    const bool handover = in_flight > 0;
    Images images(gpu, s, true);
    const swinup_vulkan_device_desc device = vulkan_app::device_desc(gpu);
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_CUDA, variant, o.precision, s);
    swinup_context* ctx = nullptr;
    swinup_check(swinup_vulkan_context_create(&desc, &device, &ctx), nullptr, "swinup_vulkan_context_create (CUDA)");
    VkSemaphore rendered = vulkan_app::create_timeline_semaphore(gpu.device, true);
    VkSemaphore upscaled = vulkan_app::create_timeline_semaphore(gpu.device, true);
    uint64_t frame = 0;
    swinup_vulkan_dispatch_desc d;
    swinup_vulkan_dispatch_desc_init(&d);
    images.describe(&d);
    d.frame.render_width = s.rw;
    d.frame.render_height = s.rh;
    if (handover) {
        d.wait_semaphore = rendered;
        d.signal_semaphore = upscaled;
    }
    cudaStream_t stream;
    cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    d.frame.cuda_stream = stream;
    const double ms = time_frames(
        o,
        [&](int i) {
            const std::string row = handover ? "cuda-vulkan" + std::string(in_flight > 1 ? "-2" : "") : "cuda-images";
            if (!handover) {
                call_times.time(o, i, row + ": swinup_vulkan_record_dispatch", [&] {
                    swinup_check(swinup_vulkan_record_dispatch(ctx, VK_NULL_HANDLE, &d), ctx,
                                 "swinup_vulkan_record_dispatch");
                });
                return;
            }
            // The engine's submit of the frame (empty here): waits for the upscale of frame
            // `frame - in_flight` (value 0 at the start: already reached), signals the inputs.
            ++frame;
            const uint64_t waited = frame > uint64_t(in_flight) ? frame - in_flight : 0;
            call_times.time(o, i, row + ": vkQueueSubmit (the engine's)", [&] {
                vulkan_app::submit(gpu.queue, VK_NULL_HANDLE, {upscaled, waited}, {rendered, frame}, VK_NULL_HANDLE,
                                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
            });
            d.wait_value = frame;
            d.signal_value = frame;
            call_times.time(o, i, row + ": swinup_vulkan_record_dispatch", [&] {
                swinup_check(swinup_vulkan_record_dispatch(ctx, VK_NULL_HANDLE, &d), ctx,
                             "swinup_vulkan_record_dispatch");
            });
        },
        [&] {
            if (handover) wait_value(gpu, upscaled, frame);
            cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        });
    vulkan_app::check(vkDeviceWaitIdle(gpu.device), "vkDeviceWaitIdle");
    swinup_context_destroy(ctx);
    cudaStreamDestroy(stream);
    vkDestroySemaphore(gpu.device, rendered, nullptr);
    vkDestroySemaphore(gpu.device, upscaled, nullptr);
    return ms;
}

double bench_vulkan(const Options& o, Gpu& gpu, swinup_variant variant, const Size& s) {
    Images images(gpu, s, false);
    const swinup_vulkan_device_desc device = vulkan_app::device_desc(gpu);
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_VULKAN, variant, o.precision, s);
    swinup_context* ctx = nullptr;
    swinup_check(swinup_vulkan_context_create(&desc, &device, &ctx), nullptr, "swinup_vulkan_context_create (Vulkan)");
    constexpr int kRing = 3;  // command buffers in flight
    VkCommandBuffer cmds[kRing];
    VkFence fences[kRing];
    vulkan_app::allocate_command_buffers(gpu.device, gpu.pool, kRing, cmds);
    for (VkFence& f : fences) f = vulkan_app::create_fence(gpu.device, VK_FENCE_CREATE_SIGNALED_BIT);
    swinup_vulkan_dispatch_desc d;
    swinup_vulkan_dispatch_desc_init(&d);
    images.describe(&d);
    d.frame.render_width = s.rw;
    d.frame.render_height = s.rh;
    const double ms = time_frames(
        o,
        [&](int i) {
            const int k = i % kRing;
            vulkan_app::check(vkWaitForFences(gpu.device, 1, &fences[k], VK_TRUE, UINT64_MAX), "vkWaitForFences");
            vulkan_app::check(vkResetFences(gpu.device, 1, &fences[k]), "vkResetFences");
            vulkan_app::begin_once(cmds[k]);
            swinup_check(swinup_vulkan_record_dispatch(ctx, cmds[k], &d), ctx, "swinup_vulkan_record_dispatch");
            vulkan_app::check(vkEndCommandBuffer(cmds[k]), "vkEndCommandBuffer");
            vulkan_app::submit(gpu.queue, cmds[k], {}, {}, fences[k]);
        },
        [&] { vulkan_app::check(vkQueueWaitIdle(gpu.queue), "vkQueueWaitIdle"); });
    vulkan_app::check(vkDeviceWaitIdle(gpu.device), "vkDeviceWaitIdle");
    swinup_context_destroy(ctx);
    for (VkFence f : fences) vkDestroyFence(gpu.device, f, nullptr);
    vkFreeCommandBuffers(gpu.device, gpu.pool, kRing, cmds);
    return ms;
}

Options parse(int argc, char** argv) {
    Options o;
    vulkan_app::parse_arguments(argc, argv, [&](const std::string& a, auto value) {
        if (a == "--precision") o.precision = value() == "exact" ? SWINUP_PRECISION_EXACT : SWINUP_PRECISION_FAST;
        else if (a == "--variant") {
            const std::string v = value();
            o.variants.clear();
            if (v == "lite" || v == "both") o.variants.push_back(SWINUP_VARIANT_LITE);
            if (v == "full" || v == "both") o.variants.push_back(SWINUP_VARIANT_FULL);
        } else if (a == "--rows") o.rows = value();
        else if (a == "--frames") o.frames = std::stoi(value());
        else if (a == "--warmup") o.warmup = std::stoi(value());
        else if (a == "--repeats") o.repeats = std::stoi(value());
        else if (a == "--host-timing") o.host_timing = true;
        else throw std::runtime_error("unknown option " + a);
    });
    if (o.variants.empty() || o.frames < 1 || o.repeats < 1) throw std::runtime_error("bad options");
    return o;
}

int run(const Options& o) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) throw vulkan_app::Unavailable("no CUDA device");
    Gpu gpu(true);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(gpu.physical, &props);
    std::printf("bench_vulkan_interop: %s, %s precision, RGBA16F output; ms per frame (median of %d x %d frames)\n",
                props.deviceName, o.precision == SWINUP_PRECISION_EXACT ? "exact" : "fast", o.repeats, o.frames);
    std::printf("%-8s %-22s %14s %14s %14s %14s %14s %10s %10s %10s\n", "variant", "size", "cuda-pointers",
                "cuda-images", "cuda-vulkan", "cuda-vulkan-2", "vulkan", "images", "overhead", "overhead-2");
    const Size sizes[] = {{1280, 720, 3840, 2160}, {1920, 1080, 3840, 2160}};
    const auto wanted = [&](const std::string& row) { return ("," + o.rows + ",").find("," + row + ",") != std::string::npos; };
    for (swinup_variant variant : o.variants) {
        for (const Size& s : sizes) {
            const double pointers = wanted("cuda-pointers") ? bench_cuda_pointers(o, variant, s) : 0.0;
            const double images = wanted("cuda-images") ? bench_cuda_vulkan(o, gpu, variant, s, 0) : 0.0;
            const double interop = wanted("cuda-vulkan") ? bench_cuda_vulkan(o, gpu, variant, s, 1) : 0.0;
            const double interop2 = wanted("cuda-vulkan-2") ? bench_cuda_vulkan(o, gpu, variant, s, 2) : 0.0;
            const double vulkan = wanted("vulkan") ? bench_vulkan(o, gpu, variant, s) : 0.0;
            const std::string size = std::to_string(s.rw) + "x" + std::to_string(s.rh) + "->" + std::to_string(s.dw) +
                                     "x" + std::to_string(s.dh);
            const auto overhead = [&](double ms) {
                char text[32] = "-";
                if (pointers > 0.0 && ms > 0.0) std::snprintf(text, sizeof text, "%+.1f%%", 100.0 * (ms / pointers - 1.0));
                return std::string(text);
            };
            std::printf("%-8s %-22s %14.3f %14.3f %14.3f %14.3f %14.3f %10s %10s %10s\n",
                        variant == SWINUP_VARIANT_LITE ? "lite" : "full", size.c_str(), pointers, images, interop, interop2,
                        vulkan, overhead(images).c_str(), overhead(interop).c_str(), overhead(interop2).c_str());
            call_times.print(std::string(variant == SWINUP_VARIANT_LITE ? "lite " : "full ") + size);
            std::fflush(stdout);
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return vulkan_app::run_program("bench_vulkan_interop", [&] { return run(parse(argc, argv)); });
}
