// Built instead of the CUDA backend when SWINUP_CUDA is off: the context reports that this build
// has no CUDA, so `backend = cuda` fails with SWINUP_STATUS_UNSUPPORTED and `auto` picks the CPU.
#include <stdexcept>

#include "api/backend.h"

namespace swinup {

std::unique_ptr<Backend> make_cuda_backend(const swinup_context_desc&, std::shared_ptr<const Weights>,
                                           std::string* error) {
    *error = "backend: this build of swinup has no CUDA backend (configure with -DSWINUP_CUDA=ON)";
    return nullptr;
}

bool cuda_backend_available() { return false; }

BackendMemory cuda_memory_estimate(const swinup_context_desc&, const Weights&) {
    // The context asks only where cuda_backend_available() holds, which it never does here.
    throw std::logic_error("this build of swinup has no CUDA backend");
}

}  // namespace swinup
