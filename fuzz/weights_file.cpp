// Fuzzes a weights file whole, as an application hands one to the library: through
// swinup_context_create's memory source (SWINUP_WEIGHTS_MEMORY) and a CPU context.
// Promises checked: the call returns (no crash, no escaping exception); a file it refuses gives
// SWINUP_STATUS_WEIGHTS_INVALID and a message naming the descriptor field; a file it accepts
// makes a working context whose info names the weights.
#include <cstddef>
#include <cstdint>
#include <string>

#include "swinup/swinup.h"
#include "fuzz_check.h"

namespace {

swinup_status create(const uint8_t* data, size_t size, swinup_variant variant, swinup_context** ctx) {
    swinup_context_desc desc;
    swinup_context_desc_init(&desc);
    desc.backend = SWINUP_BACKEND_CPU;
    desc.variant = variant;
    // The smallest sizes: the buffers a context allocates are not what is fuzzed here.
    desc.max_render_width = desc.max_render_height = 8;
    desc.display_width = desc.display_height = 8;
    desc.num_threads = 1;
    desc.weights_source = SWINUP_WEIGHTS_MEMORY;
    desc.weights_data = data;
    desc.weights_size = size;
    return swinup_context_create(&desc, ctx);
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    swinup_context* ctx = nullptr;
    swinup_status status = create(data, size, SWINUP_VARIANT_LITE, &ctx);
    std::string error = swinup_last_error(nullptr);
    // The variant is checked after the file is read: a valid full file is refused as such, once.
    if (status == SWINUP_STATUS_WEIGHTS_INVALID && starts_with(error, "context_desc.variant:")) {
        status = create(data, size, SWINUP_VARIANT_FULL, &ctx);
        error = swinup_last_error(nullptr);
    }
    if (size == 0) {  // no file at all is a descriptor error, found before any reading
        FUZZ_CHECK(status == SWINUP_STATUS_INVALID_ARGUMENT && starts_with(error, "context_desc.weights_size:"),
                   std::string("status ") + swinup_status_name(status) + ": " + error);
        return 0;
    }
    if (status != SWINUP_STATUS_OK) {
        FUZZ_CHECK(status == SWINUP_STATUS_WEIGHTS_INVALID,
                   std::string("status ") + swinup_status_name(status) + ": " + error);
        FUZZ_CHECK(starts_with(error, "context_desc.weights_data: weights: ") &&
                       error.size() > sizeof "context_desc.weights_data: weights: ",
                   "the message does not name the field and the reason: " + error);
        FUZZ_CHECK(ctx == nullptr, "a refused create returned a context");
        return 0;
    }
    swinup_context_info info{};
    FUZZ_CHECK(swinup_context_get_info(ctx, &info) == SWINUP_STATUS_OK, swinup_last_error(ctx));
    FUZZ_CHECK(info.parameter_count > 0, "a context whose weights have no parameters");
    FUZZ_CHECK(starts_with(info.weights_description, "memory"),
               std::string("weights description: ") + info.weights_description);
    swinup_context_destroy(ctx);
    return 0;
}
