// What a backend (CPU, CUDA) implements behind the C API. The context (context.cpp) validates
// every descriptor before a backend sees it, so backends may assume well-formed input.
#pragma once

#include <memory>
#include <string>

#include "model/weights.h"
#include "swinup/swinup.h"

namespace swinup {

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
};

std::unique_ptr<Backend> make_cpu_backend(const swinup_context_desc& desc,
                                          std::shared_ptr<const Weights> weights, std::string* error);
// Returns nullptr with *error set when this build has no CUDA or no usable GPU is present.
std::unique_ptr<Backend> make_cuda_backend(const swinup_context_desc& desc,
                                           std::shared_ptr<const Weights> weights, std::string* error);
bool cuda_backend_available();

}  // namespace swinup
