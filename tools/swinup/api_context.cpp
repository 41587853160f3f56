#include "api_context.h"

#include <stdexcept>

namespace swinup::cli {

void check_status(swinup_status status, const swinup_context* ctx, const std::string& what) {
    if (status == SWINUP_STATUS_OK) return;
    const char* why = swinup_last_error(ctx);
    throw std::runtime_error(what + ": " + (why != nullptr && *why ? why : "no message") + " (" +
                             swinup_status_name(status) + ")");
}

ContextHandle create_context(const swinup_context_desc& desc) {
    swinup_context* ctx = nullptr;
    check_status(swinup_context_create(&desc, &ctx), nullptr, "cannot create a context");
    return ContextHandle(ctx);
}

swinup_context_info context_info(const swinup_context* ctx) {
    swinup_context_info info{};
    check_status(swinup_context_get_info(ctx, &info), ctx, "cannot query the context");
    return info;
}

}  // namespace swinup::cli
