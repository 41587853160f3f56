// The C API's context as an owning C++ handle for the CLI: created from a descriptor, destroyed
// automatically, and every failure turned into an exception whose message carries the library's
// own explanation (swinup_last_error) and status name.
#pragma once

#include <memory>
#include <string>

#include "swinup/swinup.h"

namespace swinup::cli {

struct ContextDeleter {
    void operator()(swinup_context* ctx) const { swinup_context_destroy(ctx); }
};
using ContextHandle = std::unique_ptr<swinup_context, ContextDeleter>;

// Throws std::runtime_error("cannot create a context: <why> (<status>)") on failure. Without a
// log callback in `desc`, the library's warnings are printed to stderr as "swinup: warning: ...".
ContextHandle create_context(const swinup_context_desc& desc);
// Throws std::runtime_error on failure.
swinup_context_info context_info(const swinup_context* ctx);
// Throws std::runtime_error("<what>: <why> (<status>)") unless status is OK.
void check_status(swinup_status status, const swinup_context* ctx, const std::string& what);

}  // namespace swinup::cli
