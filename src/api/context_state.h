// What a swinup_context holds, and context creation with a backend chosen by the caller: shared by
// the C API of swinup.h (api/context.cpp) and the entry points of other headers that make or drive
// a context (swinup_vulkan.h: vulkan/api/), so that every kind of context validates, loads its
// weights, counts frames and reports errors the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "api/backend.h"
#include "api/dispatch_warnings.h"
#include "api/jitter_sign_check.h"
#include "api/log.h"
#include "model/weights.h"
#include "swinup/swinup.h"

struct swinup_context {
    swinup_context_desc desc{};  // as created (weights_path / weights_data cleared: not ours)
    std::shared_ptr<const swinup::Weights> weights;
    std::unique_ptr<swinup::Backend> backend;
    std::string weights_origin;  // "embedded", "file <path>", "memory"
    // The index the next dispatch gets: successful dispatches since creation or since the last
    // dispatch with reset, which is frame 0 again (the window-shift parity; swinup.h's `reset`).
    uint64_t frame_index = 0;
    std::string last_error;
    swinup::Log log;  // desc.log_callback: every failure and warning on this context goes there
    swinup::DispatchWarnings warnings;
    swinup::JitterSignCheck jitter_sign;  // swinup_dispatch's frames (host memory) over the first frames
};

namespace swinup {

// Makes the backend of a new context from its validated descriptor and loaded weights (`log`: the
// context's messages, for warnings such as a fallback); on failure returns nullptr and sets
// *status and *message.
using BackendMaker = std::function<std::unique_ptr<Backend>(
    const swinup_context_desc& desc, const std::shared_ptr<const Weights>& weights, const Log& log,
    swinup_status* status, std::string* message)>;

// swinup_context_create's steps with `make_backend` in place of the backend choice: reading the
// descriptor by the struct_size rule (api/struct_size.h), validation, weights, backend; sets *out
// (NULL on failure) and swinup_last_error(NULL), whose messages start with `caller` where they are
// the entry point's own. Failures go to the descriptor's log callback once it is read, and a
// created context is announced there (info). Catches everything.
swinup_status create_context(const char* caller, const swinup_context_desc* desc,
                             const BackendMaker& make_backend, swinup_context** out);

// The reporting of the C API: a failure of a call reported on the thread (swinup_last_error(NULL))
// or on a context (and to its log callback); clear_thread_error after a thread-reported call
// succeeds.
swinup_status fail_thread(swinup_status status, std::string message);
swinup_status fail_context(swinup_context* ctx, swinup_status status, std::string message);
void clear_thread_error();

// The frame index a dispatch of `desc` runs as (0 on reset), and the bookkeeping after it
// succeeded (the frame count, and the warnings about the dispatch's scalars): every kind of
// dispatch of a context goes through these two.
uint64_t frame_index_for(const swinup_context& ctx, const swinup_dispatch_desc& desc);
void frame_succeeded(swinup_context* ctx, const swinup_dispatch_desc& desc, uint64_t frame_index);

// The context's own part of the temporal sequence as it was before a frame: the frame count and the
// dispatch warnings' per-sequence counters. A Vulkan context keeps it for each frame it recorded and
// not yet saw run, so that abandoning the frame (swinup_vulkan_abandon_frame) puts it back.
struct ContextSequencePoint {
    uint64_t frame_index = 0;
    DispatchWarnings warnings;
};
inline ContextSequencePoint sequence_point(const swinup_context& ctx) { return {ctx.frame_index, ctx.warnings}; }
inline void restore_sequence_point(swinup_context* ctx, const ContextSequencePoint& point) {
    ctx->frame_index = point.frame_index;
    ctx->warnings = point.warnings;
}

// The name of a backend in messages ("CPU", "CUDA", "Vulkan").
const char* backend_text(swinup_backend backend);

}  // namespace swinup
