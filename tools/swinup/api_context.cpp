#include "api_context.h"

#include <cstdio>
#include <stdexcept>

#include "usage_error.h"

namespace swinup::cli {

void check_status(swinup_status status, const swinup_context* ctx, const std::string& what) {
    if (status == SWINUP_STATUS_OK) return;
    const char* why = swinup_last_error(ctx);
    throw std::runtime_error(what + ": " + (why != nullptr && *why ? why : "no message") + " (" +
                             swinup_status_name(status) + ")");
}

void check_context_values(const swinup_context_desc& desc, const std::string& source) {
    swinup_context_desc values = desc;
    values.backend = SWINUP_BACKEND_CPU;
    values.device_index = 0;
    values.weights_source = SWINUP_WEIGHTS_EMBEDDED;
    values.weights_path = nullptr;
    values.weights_data = nullptr;
    values.weights_size = 0;
    values.log_callback = nullptr;
    values.log_user_data = nullptr;
    swinup_memory_requirements memory{};
    memory.struct_size = sizeof memory;
    if (swinup_query_memory(&values, &memory) == SWINUP_STATUS_INVALID_ARGUMENT) {
        throw UsageError(source + ": " + swinup_last_error(nullptr));
    }
}

namespace {

// The library is silent unless given a callback. A person at a terminal wants its warnings (a
// jitter that never changes, an exposure texture that is ignored); errors already reach them as
// exceptions and info lines would only repeat what the command prints.
void print_warning(swinup_log_level level, const char* message, void*) {
    if (level == SWINUP_LOG_WARNING) std::fprintf(stderr, "swinup: warning: %s\n", message);
}

}  // namespace

ContextHandle create_context(const swinup_context_desc& desc) {
    swinup_context_desc with_log = desc;
    if (with_log.log_callback == nullptr && with_log.log_user_data == nullptr)
        with_log.log_callback = print_warning;
    swinup_context* ctx = nullptr;
    check_status(swinup_context_create(&with_log, &ctx), nullptr, "cannot create a context");
    return ContextHandle(ctx);
}

swinup_context_info context_info(const swinup_context* ctx) {
    swinup_context_info info{};
    check_status(swinup_context_get_info(ctx, &info), ctx, "cannot query the context");
    return info;
}

}  // namespace swinup::cli
