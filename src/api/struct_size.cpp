#include "api/struct_size.h"

#include <cstring>
#include <initializer_list>

namespace swinup {

namespace {

struct AcceptedSize {
    const char* name;  // the swinup.h constant
    uint32_t bytes;
};

// "" when size is accepted; else e.g. "context_desc.struct_size: 12 is not a size of
// swinup_context_desc that this library accepts (SWINUP_CONTEXT_DESC_SIZE_V1 = 80,
// SWINUP_CONTEXT_DESC_SIZE_V2 = 96; swinup_context_desc_init sets the newest)".
std::string size_error(const char* field, const char* type, uint32_t size, std::initializer_list<AcceptedSize> accepted,
                       const char* hint) {
    for (const AcceptedSize& a : accepted)
        if (a.bytes == size) return {};
    std::string list;
    for (const AcceptedSize& a : accepted) {
        if (!list.empty()) list += ", ";
        list += std::string(a.name) + " = " + std::to_string(a.bytes);
    }
    return std::string(field) + ": " + std::to_string(size) + " is not a size of " + type +
           " that this library accepts (" + list + "; " + hint + ")";
}

// The caller's first struct_size bytes over the defaults; the result has the newest size.
template <typename Desc>
void read_over_defaults(const Desc* in, Desc* out, void (*init)(Desc*)) {
    init(out);
    std::memcpy(static_cast<void*>(out), static_cast<const void*>(in), in->struct_size);
    out->struct_size = sizeof(Desc);
}

}  // namespace

bool read_context_desc(const swinup_context_desc* in, swinup_context_desc* out, std::string* error) {
    *error = size_error("context_desc.struct_size", "swinup_context_desc", in->struct_size,
                        {{"SWINUP_CONTEXT_DESC_SIZE_V1", SWINUP_CONTEXT_DESC_SIZE_V1},
                         {"SWINUP_CONTEXT_DESC_SIZE_V2", SWINUP_CONTEXT_DESC_SIZE_V2}},
                        "swinup_context_desc_init sets the newest");
    if (!error->empty()) return false;
    read_over_defaults(in, out, swinup_context_desc_init);
    return true;
}

bool read_dispatch_desc(const swinup_dispatch_desc* in, swinup_dispatch_desc* out, std::string* error) {
    *error = size_error("dispatch.struct_size", "swinup_dispatch_desc", in->struct_size,
                        {{"SWINUP_DISPATCH_DESC_SIZE_V1", SWINUP_DISPATCH_DESC_SIZE_V1},
                         {"SWINUP_DISPATCH_DESC_SIZE_V2", SWINUP_DISPATCH_DESC_SIZE_V2},
                         {"SWINUP_DISPATCH_DESC_SIZE_V3", SWINUP_DISPATCH_DESC_SIZE_V3},
                         {"SWINUP_DISPATCH_DESC_SIZE_V4", SWINUP_DISPATCH_DESC_SIZE_V4}},
                        "swinup_dispatch_desc_init sets the newest");
    if (!error->empty()) return false;
    read_over_defaults(in, out, swinup_dispatch_desc_init);
    return true;
}

std::string version_info_size_error(const char* field, uint32_t struct_size) {
    return size_error(field, "swinup_version_info", struct_size,
                      {{"SWINUP_VERSION_INFO_SIZE_V1", SWINUP_VERSION_INFO_SIZE_V1}},
                      "set it to sizeof(swinup_version_info)");
}

std::string input_statistics_size_error(const char* field, uint32_t struct_size) {
    return size_error(field, "swinup_input_statistics", struct_size,
                      {{"SWINUP_INPUT_STATISTICS_SIZE_V1", SWINUP_INPUT_STATISTICS_SIZE_V1}},
                      "set it to sizeof(swinup_input_statistics)");
}

bool read_reactive_mask_desc(const swinup_reactive_mask_desc* in, swinup_reactive_mask_desc* out,
                             std::string* error) {
    *error = size_error("reactive_mask_desc.struct_size", "swinup_reactive_mask_desc", in->struct_size,
                        {{"SWINUP_REACTIVE_MASK_DESC_SIZE_V1", SWINUP_REACTIVE_MASK_DESC_SIZE_V1}},
                        "swinup_reactive_mask_desc_init sets the newest");
    if (!error->empty()) return false;
    read_over_defaults(in, out, swinup_reactive_mask_desc_init);
    return true;
}

std::string memory_requirements_size_error(const char* field, uint32_t struct_size) {
    return size_error(field, "swinup_memory_requirements", struct_size,
                      {{"SWINUP_MEMORY_REQUIREMENTS_SIZE_V1", SWINUP_MEMORY_REQUIREMENTS_SIZE_V1}},
                      "set it to sizeof(swinup_memory_requirements)");
}

}  // namespace swinup
