// bench_handover_floor: the least a frame handed from Vulkan to CUDA and back can cost, with no
// swinup in it (docs/performance.md: the CUDA backend on Vulkan images costs about 0.47 ms a frame
// more than on device pointers, all of it in the hand-over). Each iteration is what bench_vulkan_interop's cuda-vulkan row does around swinup's
// frame, with an empty kernel in its place:
//   Vulkan submit A   (waits `upscaled` = i - 1, writes timestamp A_end, signals `rendered` = i)
//   CUDA stream       (waits `rendered` = i, the empty kernel, signals `upscaled` = i)
//   Vulkan submit B   (waits `upscaled` = i, writes timestamp B_start; fenced)
// one iteration in flight (the host waits for B's fence), the two APIs in strict turns. Measured
// per iteration, printed as medians (and 10th / 90th percentiles) over --iterations after --warmup:
//   host:  the duration of each API call (vkQueueSubmit A, cudaWaitExternalSemaphoresAsync, the
//          kernel launch, cudaSignalExternalSemaphoresAsync, vkQueueSubmit B, the fence wait);
//          a call that waits on the host for the GPU shows here;
//   GPU:   A_end -> B_start (Vulkan timestamp queries, one clock): the round trip through CUDA;
//          the kernel's own span (CUDA events around it); the kernel's entry and exit read from
//          %globaltimer, split against A_end and B_start when that timer and Vulkan's timestamps
//          are one clock (checked: A_end <= entry <= exit <= B_start on every iteration, else the
//          split is not printed).
// Rows (--modes, default all):
//   vulkan-only    A then B with B waiting on A's signal directly: the floor of two Vulkan submits;
//   stream         the hand-over as swinup does it: cudaWait/SignalExternalSemaphoresAsync around
//                  a kernel launch on a non-blocking stream;
//   stream-legacy  the same on the legacy default stream (the stream the work runs on);
//   graph          the wait, the kernel and the signal as nodes of one CUDA graph (external
//                  semaphore nodes; their values set per launch with
//                  cudaGraphExecExternalSemaphores{Wait,Signal}NodeSetParams);
//   cuda-only      the kernel alone, back to back on the stream: CUDA's own launch floor.
// The difference stream - vulkan-only is the hand-over's floor; compare it with the cuda-vulkan
// row's overhead over cuda-pointers in bench_vulkan_interop (docs/performance.md). Exit 77 without
// a CUDA GPU or an NVIDIA Vulkan device with the external-fd extensions.
#include <cuda_runtime.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vulkan_app.h"

namespace {

using vulkan_app::Gpu;
using Clock = std::chrono::steady_clock;

void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// The empty kernel, except that its one thread records when it ran (the GPU's global ns timer).
__global__ void empty_kernel(unsigned long long* entry_exit) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    entry_exit[0] = t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    entry_exit[1] = t;
}

struct Options {
    int warmup = 200, iterations = 2000;
    std::string modes = "vulkan-only,stream,stream-legacy,graph,cuda-only";
};

// One named series of per-iteration values (microseconds), summarised as percentiles.
struct Series {
    std::string name;
    std::vector<double> us;
    std::string summary() const {
        if (us.empty()) return name + ": -";
        std::vector<double> v = us;
        std::sort(v.begin(), v.end());
        const auto at = [&](double q) { return v[std::min(v.size() - 1, size_t(q * double(v.size())))]; };
        char text[160];
        std::snprintf(text, sizeof text, "%-34s median %9.2f us   p10 %9.2f   p90 %9.2f", name.c_str(), at(0.5),
                      at(0.1), at(0.9));
        return text;
    }
};

// A command buffer submitted once per iteration, recorded once (no ONE_TIME_SUBMIT).
void begin_reusable(VkCommandBuffer cmd) {
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vulkan_app::check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
}

double us_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

// Times `call` on the host into `series` (when recording).
template <typename Call>
void timed(Series* series, bool record, Call&& call) {
    const auto t0 = Clock::now();
    call();
    if (record) series->us.push_back(us_since(t0));
}

class Bench {
public:
    explicit Bench(const Options& o) : o_(o), gpu_(true) {
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(gpu_.physical, &props);
        device_name_ = props.deviceName;
        timestamp_ns_ = props.limits.timestampPeriod;
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(gpu_.physical, &families, nullptr);
        std::vector<VkQueueFamilyProperties> family(families);
        vkGetPhysicalDeviceQueueFamilyProperties(gpu_.physical, &families, family.data());
        if (family[gpu_.family].timestampValidBits == 0) throw vulkan_app::Unavailable("the queue writes no timestamps");
        rendered_ = vulkan_app::create_timeline_semaphore(gpu_.device, true);
        upscaled_ = vulkan_app::create_timeline_semaphore(gpu_.device, true);
        fence_ = vulkan_app::create_fence(gpu_.device);
        VkQueryPoolCreateInfo qp{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qp.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qp.queryCount = 2;
        vulkan_app::check(vkCreateQueryPool(gpu_.device, &qp, nullptr, &queries_), "vkCreateQueryPool");
        vulkan_app::allocate_command_buffers(gpu_.device, gpu_.pool, 2, cmds_);
        // A: reset both queries, then A_end at the bottom of the pipe; B: B_start at the top.
        begin_reusable(cmds_[0]);
        vkCmdResetQueryPool(cmds_[0], queries_, 0, 2);
        vkCmdWriteTimestamp(cmds_[0], VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 0);
        vulkan_app::check(vkEndCommandBuffer(cmds_[0]), "vkEndCommandBuffer");
        begin_reusable(cmds_[1]);
        vkCmdWriteTimestamp(cmds_[1], VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 1);
        vulkan_app::check(vkEndCommandBuffer(cmds_[1]), "vkEndCommandBuffer");

        cuda_check(cudaSetDevice(cuda_device()), "cudaSetDevice");
        cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        cuda_check(cudaHostAlloc(&stamps_, 2 * sizeof(unsigned long long), cudaHostAllocMapped), "cudaHostAlloc");
        cuda_check(cudaEventCreate(&before_), "cudaEventCreate");
        cuda_check(cudaEventCreate(&after_), "cudaEventCreate");
        rendered_cuda_ = import_semaphore(rendered_);
        upscaled_cuda_ = import_semaphore(upscaled_);
    }

    ~Bench() {
        vkDeviceWaitIdle(gpu_.device);
        cudaDeviceSynchronize();
        if (graph_exec_) cudaGraphExecDestroy(graph_exec_);
        cudaDestroyExternalSemaphore(rendered_cuda_);
        cudaDestroyExternalSemaphore(upscaled_cuda_);
        cudaEventDestroy(before_);
        cudaEventDestroy(after_);
        cudaFreeHost(stamps_);
        cudaStreamDestroy(stream_);
        vkFreeCommandBuffers(gpu_.device, gpu_.pool, 2, cmds_);
        vkDestroyQueryPool(gpu_.device, queries_, nullptr);
        vkDestroyFence(gpu_.device, fence_, nullptr);
        vkDestroySemaphore(gpu_.device, rendered_, nullptr);
        vkDestroySemaphore(gpu_.device, upscaled_, nullptr);
    }

    const std::string& device_name() const { return device_name_; }

    // One row: `mode` as the header comment describes.
    void run(const std::string& mode) {
        std::vector<Series> host{{"host: vkQueueSubmit A"},      {"host: cudaWaitExternalSemaphoresAsync"},
                                 {"host: empty kernel launch"},  {"host: cudaSignalExternalSemaphoresAsync"},
                                 {"host: cudaGraphExec*SetParams"}, {"host: cudaGraphLaunch"},
                                 {"host: vkQueueSubmit B"},      {"host: vkWaitForFences"},
                                 {"host: whole iteration"}};
        Series round_trip{"GPU: A_end -> B_start (Vulkan)"}, kernel{"GPU: kernel span (CUDA events)"};
        Series to_cuda{"GPU: A_end -> kernel entry"}, to_vulkan{"GPU: kernel exit -> B_start"};
        bool one_clock = true;
        const bool cuda_only = mode == "cuda-only";
        const bool vulkan_only = mode == "vulkan-only";
        const cudaStream_t stream = mode == "stream-legacy" ? cudaStreamLegacy : stream_;
        if (mode == "graph") make_graph();

        for (int i = 0; i < o_.warmup + o_.iterations; ++i) {
            const bool record = i >= o_.warmup;
            const auto start = Clock::now();
            if (cuda_only) {
                timed(&host[2], record, [&] {
                    cuda_check(cudaEventRecord(before_, stream_), "cudaEventRecord");
                    empty_kernel<<<1, 1, 0, stream_>>>(stamps_);
                    cuda_check(cudaGetLastError(), "empty_kernel");
                    cuda_check(cudaEventRecord(after_, stream_), "cudaEventRecord");
                });
                cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
                if (record) {
                    kernel.us.push_back(event_us());
                    host[8].us.push_back(us_since(start));
                }
                continue;
            }
            ++value_;
            timed(&host[0], record, [&] {
                vulkan_app::submit(gpu_.queue, cmds_[0], {upscaled_, value_ - 1}, {rendered_, value_}, VK_NULL_HANDLE,
                                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
            });
            if (vulkan_only) {
                // B waits for A's own signal: no CUDA in between. `upscaled` is kept in step by B.
                timed(&host[6], record, [&] {
                    vulkan_app::submit(gpu_.queue, cmds_[1], {rendered_, value_}, {upscaled_, value_}, fence_,
                                       VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
                });
            } else {
                if (mode == "graph") {
                    timed(&host[4], record, [&] { set_graph_values(); });
                    timed(&host[5], record, [&] { cuda_check(cudaGraphLaunch(graph_exec_, stream), "cudaGraphLaunch"); });
                } else {
                    timed(&host[1], record, [&] {
                        cudaExternalSemaphoreWaitParams wait{};
                        wait.params.fence.value = value_;
                        cuda_check(cudaWaitExternalSemaphoresAsync(&rendered_cuda_, &wait, 1, stream),
                                   "cudaWaitExternalSemaphoresAsync");
                    });
                    timed(&host[2], record, [&] {
                        cuda_check(cudaEventRecord(before_, stream), "cudaEventRecord");
                        empty_kernel<<<1, 1, 0, stream>>>(stamps_);
                        cuda_check(cudaGetLastError(), "empty_kernel");
                        cuda_check(cudaEventRecord(after_, stream), "cudaEventRecord");
                    });
                    timed(&host[3], record, [&] {
                        cudaExternalSemaphoreSignalParams signal{};
                        signal.params.fence.value = value_;
                        cuda_check(cudaSignalExternalSemaphoresAsync(&upscaled_cuda_, &signal, 1, stream),
                                   "cudaSignalExternalSemaphoresAsync");
                    });
                }
                timed(&host[6], record, [&] {
                    vulkan_app::submit(gpu_.queue, cmds_[1], {upscaled_, value_}, {}, fence_,
                                       VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
                });
            }
            timed(&host[7], record, [&] {
                vulkan_app::check(vkWaitForFences(gpu_.device, 1, &fence_, VK_TRUE, 10ull * 1000 * 1000 * 1000),
                                  "vkWaitForFences (10 s)");
            });
            vulkan_app::check(vkResetFences(gpu_.device, 1, &fence_), "vkResetFences");
            if (!record) continue;
            host[8].us.push_back(us_since(start));
            uint64_t ticks[2] = {};
            vulkan_app::check(vkGetQueryPoolResults(gpu_.device, queries_, 0, 2, sizeof ticks, ticks, sizeof ticks[0],
                                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
                              "vkGetQueryPoolResults");
            const double a_end = double(ticks[0]) * timestamp_ns_, b_start = double(ticks[1]) * timestamp_ns_;
            round_trip.us.push_back((b_start - a_end) / 1000.0);
            if (vulkan_only) continue;
            if (mode != "graph") kernel.us.push_back(event_us());
            // The kernel's stamps are complete: B waited for the signal after the kernel.
            const double entry = double(stamps_[0]), exit = double(stamps_[1]);
            one_clock = one_clock && a_end <= entry && entry <= exit && exit <= b_start;
            to_cuda.us.push_back((entry - a_end) / 1000.0);
            to_vulkan.us.push_back((b_start - exit) / 1000.0);
        }
        cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");

        std::printf("== %s (%d iterations)\n", mode.c_str(), o_.iterations);
        for (const Series& s : host)
            if (!s.us.empty()) std::printf("  %s\n", s.summary().c_str());
        for (const Series* s : {&round_trip, &kernel})
            if (!s->us.empty()) std::printf("  %s\n", s->summary().c_str());
        if (!to_cuda.us.empty()) {
            if (one_clock) {
                std::printf("  %s\n  %s\n", to_cuda.summary().c_str(), to_vulkan.summary().c_str());
            } else {
                std::printf("  (the split at the kernel is not printed: %%globaltimer and the Vulkan timestamps are "
                            "not one clock here)\n");
            }
        }
        std::fflush(stdout);
    }

private:
    // The CUDA device that is the Vulkan physical device (equal deviceUUIDs).
    int cuda_device() const {
        VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        props.pNext = &id;
        vkGetPhysicalDeviceProperties2(gpu_.physical, &props);
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess) throw vulkan_app::Unavailable("no CUDA device");
        for (int i = 0; i < count; ++i) {
            cudaDeviceProp p{};
            if (cudaGetDeviceProperties(&p, i) == cudaSuccess && std::equal(id.deviceUUID, id.deviceUUID + VK_UUID_SIZE,
                                                                              reinterpret_cast<const uint8_t*>(p.uuid.bytes)))
                return i;
        }
        throw vulkan_app::Unavailable("the Vulkan device is no CUDA device");
    }

    cudaExternalSemaphore_t import_semaphore(VkSemaphore semaphore) {
        const auto get_fd = reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(gpu_.device, "vkGetSemaphoreFdKHR"));
        if (get_fd == nullptr) throw vulkan_app::Unavailable("no vkGetSemaphoreFdKHR");
        VkSemaphoreGetFdInfoKHR info{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
        info.semaphore = semaphore;
        info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
        int fd = -1;
        vulkan_app::check(get_fd(gpu_.device, &info, &fd), "vkGetSemaphoreFdKHR");
        cudaExternalSemaphoreHandleDesc desc{};
        desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
        desc.handle.fd = fd;
        cudaExternalSemaphore_t imported = nullptr;
        cuda_check(cudaImportExternalSemaphore(&imported, &desc), "cudaImportExternalSemaphore");
        return imported;
    }

    double event_us() {
        float ms = 0.0f;
        cuda_check(cudaEventElapsedTime(&ms, before_, after_), "cudaEventElapsedTime");
        return double(ms) * 1000.0;
    }

    // The graph mode's graph: wait node -> kernel node -> signal node.
    void make_graph() {
        if (graph_exec_) return;
        cudaGraph_t graph = nullptr;
        cuda_check(cudaGraphCreate(&graph, 0), "cudaGraphCreate");
        cudaExternalSemaphoreWaitParams wait_params{};
        cudaExternalSemaphoreWaitNodeParams wait{};
        wait.extSemArray = &rendered_cuda_;
        wait.paramsArray = &wait_params;
        wait.numExtSems = 1;
        cuda_check(cudaGraphAddExternalSemaphoresWaitNode(&wait_node_, graph, nullptr, 0, &wait),
                   "cudaGraphAddExternalSemaphoresWaitNode");
        void* args[] = {&stamps_};
        cudaKernelNodeParams k{};
        k.func = reinterpret_cast<void*>(empty_kernel);
        k.gridDim = dim3(1);
        k.blockDim = dim3(1);
        k.kernelParams = args;
        cudaGraphNode_t kernel_node = nullptr;
        cuda_check(cudaGraphAddKernelNode(&kernel_node, graph, &wait_node_, 1, &k), "cudaGraphAddKernelNode");
        cudaExternalSemaphoreSignalParams signal_params{};
        cudaExternalSemaphoreSignalNodeParams signal{};
        signal.extSemArray = &upscaled_cuda_;
        signal.paramsArray = &signal_params;
        signal.numExtSems = 1;
        cuda_check(cudaGraphAddExternalSemaphoresSignalNode(&signal_node_, graph, &kernel_node, 1, &signal),
                   "cudaGraphAddExternalSemaphoresSignalNode");
        cuda_check(cudaGraphInstantiate(&graph_exec_, graph, 0), "cudaGraphInstantiate");
        cudaGraphDestroy(graph);
    }

    void set_graph_values() {
        cudaExternalSemaphoreWaitParams wait_params{};
        wait_params.params.fence.value = value_;
        cudaExternalSemaphoreWaitNodeParams wait{};
        wait.extSemArray = &rendered_cuda_;
        wait.paramsArray = &wait_params;
        wait.numExtSems = 1;
        cuda_check(cudaGraphExecExternalSemaphoresWaitNodeSetParams(graph_exec_, wait_node_, &wait),
                   "cudaGraphExecExternalSemaphoresWaitNodeSetParams");
        cudaExternalSemaphoreSignalParams signal_params{};
        signal_params.params.fence.value = value_;
        cudaExternalSemaphoreSignalNodeParams signal{};
        signal.extSemArray = &upscaled_cuda_;
        signal.paramsArray = &signal_params;
        signal.numExtSems = 1;
        cuda_check(cudaGraphExecExternalSemaphoresSignalNodeSetParams(graph_exec_, signal_node_, &signal),
                   "cudaGraphExecExternalSemaphoresSignalNodeSetParams");
    }

    Options o_;
    Gpu gpu_;
    std::string device_name_;
    double timestamp_ns_ = 1.0;
    VkSemaphore rendered_ = VK_NULL_HANDLE, upscaled_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    VkQueryPool queries_ = VK_NULL_HANDLE;
    VkCommandBuffer cmds_[2]{};
    uint64_t value_ = 0;  // the last value of both semaphores
    cudaStream_t stream_ = nullptr;
    unsigned long long* stamps_ = nullptr;  // mapped host memory: the kernel's entry and exit
    cudaEvent_t before_ = nullptr, after_ = nullptr;
    cudaExternalSemaphore_t rendered_cuda_ = nullptr, upscaled_cuda_ = nullptr;
    cudaGraphExec_t graph_exec_ = nullptr;
    cudaGraphNode_t wait_node_ = nullptr, signal_node_ = nullptr;
};

Options parse(int argc, char** argv) {
    Options o;
    vulkan_app::parse_arguments(argc, argv, [&](const std::string& a, auto value) {
        if (a == "--iterations") o.iterations = std::stoi(value());
        else if (a == "--warmup") o.warmup = std::stoi(value());
        else if (a == "--modes") o.modes = value();
        else throw std::runtime_error("unknown option " + a);
    });
    if (o.iterations < 1 || o.warmup < 0) throw std::runtime_error("bad options");
    return o;
}

int run(const Options& o) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) throw vulkan_app::Unavailable("no CUDA device");
    Bench bench(o);
    std::printf("bench_handover_floor: %s; medians (p10, p90) of %d iterations after %d\n", bench.device_name().c_str(),
                o.iterations, o.warmup);
    std::string modes = o.modes + ",";
    for (size_t at = modes.find(','); at != std::string::npos; at = modes.find(',')) {
        const std::string mode = modes.substr(0, at);
        modes.erase(0, at + 1);
        if (mode.empty()) continue;
        if (mode != "vulkan-only" && mode != "stream" && mode != "stream-legacy" && mode != "graph" &&
            mode != "cuda-only")
            throw std::runtime_error("unknown mode " + mode);
        bench.run(mode);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return vulkan_app::run_program("bench_handover_floor", [&] { return run(parse(argc, argv)); });
}
