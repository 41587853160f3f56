// What a backend (CPU, CUDA, Vulkan) implements behind the C API. The context (context.cpp) validates
// every descriptor before a backend sees it, so backends may assume well-formed input.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "model/weights.h"
#include "swinup/swinup.h"

namespace swinup {

// Bytes of memory a backend holds (swinup_memory_requirements without the weights the context
// keeps, which api/context.cpp adds).
struct BackendMemory {
    uint64_t host_bytes = 0;
    uint64_t device_bytes = 0;
    uint64_t graph_device_bytes = 0;  // estimate for a full per-render-size graph cache (CUDA)
};

// The memory hook, which every backend implements twice from one source of truth:
//   - a free function `<name>_memory_estimate(desc, weights)` (below) answers
//     swinup_query_memory before anything is created: it must compute its sizes with the very
//     functions the backend's constructor sizes its allocations with (a size plan the constructor
//     also allocates from, or the constructor's code run in a counting mode), not a formula of
//     its own, and must allocate nothing that lives past the call;
//   - Backend::memory() answers swinup_context_get_memory from what was actually allocated.
// tests/api/test_memory_query.cpp (CPU) and tests/cuda/test_cuda_memory.cpp hold both to the
// process's measured growth.
// Input pixels staging repaired, counted since the backend was created (swinup_input_statistics).
struct InputStatistics {
    uint64_t frames = 0;
    uint64_t color_nonfinite = 0, depth_nonfinite = 0, motion_nonfinite = 0;
    uint64_t reactive_nonfinite = 0, transparency_nonfinite = 0;
    uint64_t reactive_out_of_range = 0, transparency_out_of_range = 0;
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual swinup_backend kind() const = 0;
    virtual std::string device_name() const = 0;
    // Upscale one frame. `frame_index` counts successful dispatches since creation or since the
    // last reset (a dispatch with reset gets 0); it drives the window-shift parity, and nothing
    // else of a backend may depend on how many frames came before. On failure returns a status,
    // sets *error, and leaves the temporal state unchanged.
    virtual swinup_status dispatch(const swinup_dispatch_desc& desc, uint64_t frame_index,
                                   std::string* error) = 0;
    // What this backend allocated at creation and holds (see the memory hook above).
    virtual BackendMemory memory() const = 0;
    // Writes desc.output (validated) from its two colour images: swinup_generate_reactive_mask.
    // Every backend runs it (CPU: host memory; CUDA: host or device memory; Vulkan: host memory
    // on swinup's own device); a backend that cannot answers UNSUPPORTED, *error saying why.
    virtual swinup_status generate_reactive_mask(const swinup_reactive_mask_desc& desc, std::string* error) = 0;
    // The input statistics of the frames dispatched so far (a GPU backend waits for them where it
    // can). A backend that does not count them answers UNSUPPORTED, *error saying so.
    virtual swinup_status input_statistics(InputStatistics* out, std::string* error) const {
        (void)out;
        *error = std::string("the ") + (kind() == SWINUP_BACKEND_CUDA ? "CUDA" : "Vulkan") +
                 " backend does not count input statistics in this version (the CPU backend does)";
        return SWINUP_STATUS_UNSUPPORTED;
    }
    // The counts known now, without waiting for a device: what the context's once-per-context
    // warning about out-of-range device masks reads after every dispatch (api/dispatch_warnings.h).
    // A GPU backend's counts of frames still running arrive on a later call. Default: none.
    virtual InputStatistics input_statistics_known() const { return {}; }
};

// The memory a backend made from (desc, weights) would hold. `desc` is valid (validated).
// Throws std::bad_alloc / std::exception like the constructor would.
BackendMemory cpu_memory_estimate(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights);
// Throws when this build has no CUDA (the context asks only when it would create a CUDA backend).
BackendMemory cuda_memory_estimate(const swinup_context_desc& desc, const Weights& weights);

std::unique_ptr<Backend> make_cpu_backend(const swinup_context_desc& desc,
                                          std::shared_ptr<const Weights> weights, std::string* error);
// Returns nullptr with *error set when this build has no CUDA or no usable GPU is present.
std::unique_ptr<Backend> make_cuda_backend(const swinup_context_desc& desc,
                                           std::shared_ptr<const Weights> weights, std::string* error);
bool cuda_backend_available();
// The Vulkan backend (src/vulkan/) on its own device (SWINUP_VULKAN_DEVICE, else device_index).
// Returns nullptr with *error and *status set when this build has no Vulkan or the device cannot
// serve the context (the message names what is missing).
std::unique_ptr<Backend> make_vulkan_backend(const swinup_context_desc& desc,
                                             std::shared_ptr<const Weights> weights, std::string* error,
                                             swinup_status* status);
// Whether this build has the Vulkan backend (a device may still be missing).
bool vulkan_backend_available();
// The Vulkan backend's memory hook: its exact figures depend on the driver's memory requirements,
// so the estimate makes the backend on the device creation would use, reads its memory() and frees
// it all before returning. False with *status and *error (make_vulkan_backend's) when no backend
// can be made.
bool vulkan_memory_estimate(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights,
                            BackendMemory* memory, swinup_status* status, std::string* error);

}  // namespace swinup
