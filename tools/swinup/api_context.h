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
// The library's own checks of a context's values (sizes, display/render ratio, output format,
// flags, variant, precision) before the command does any work: a refusal
// (SWINUP_STATUS_INVALID_ARGUMENT) throws UsageError("<source>: <the library's message naming the
// field>"), since every one of those values comes from the command line or the sequence it names;
// `source` says which ("--render 64x64 / --display 320x320"). It asks
// swinup_query_memory for the CPU backend and the embedded weights, so no device is opened and no
// file read: what only creation can find (a backend the machine lacks, a weights file that does
// not load) is reported by create_context, as any other failure.
void check_context_values(const swinup_context_desc& desc, const std::string& source);
// Throws std::runtime_error("<what>: <why> (<status>)") unless status is OK.
void check_status(swinup_status status, const swinup_context* ctx, const std::string& what);

}  // namespace swinup::cli
