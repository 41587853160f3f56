// A refusal of the CUDA backend's Vulkan path that names the resource ("vulkan_dispatch.color.memory:
// ..."): thrown by the imports before anything is enqueued, reported with its status.
#pragma once

#include <stdexcept>
#include <string>

#include "swinup/swinup.h"

namespace swinup::cuda {

struct InteropError : std::runtime_error {
    InteropError(swinup_status status, const std::string& message) : std::runtime_error(message), status(status) {}
    swinup_status status;
};

}  // namespace swinup::cuda
