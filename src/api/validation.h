// Validation of the C API's descriptors. Every check names the field that is wrong, e.g.
// "dispatch.depth.format: expected SWINUP_FORMAT_R32F, got SWINUP_FORMAT_RG16F", so that an
// engine integrator sees what to fix. Nothing here touches a context's state. Enum fields are
// read as the integers the caller stored and converted only once they are known values
// (api/raw_enum.h): a C caller may store any int there.
#pragma once

#include <string>

#include "swinup/swinup.h"

namespace swinup {

constexpr uint32_t kMaxDisplaySize = 8192;
constexpr float kMaxScale = 3.0f;  // display / render, per axis (model.md: s from 1 to 3)

struct Validation {
    swinup_status status = SWINUP_STATUS_OK;
    std::string message;

    bool ok() const { return status == SWINUP_STATUS_OK; }
};

Validation validate_context_desc(const swinup_context_desc& desc);

// `backend` is the backend the context runs on: it decides which memory kinds are served.
Validation validate_dispatch_desc(const swinup_dispatch_desc& desc, const swinup_context_desc& context,
                                  swinup_backend backend);

}  // namespace swinup
