// The struct_size rule of swinup.h ("Descriptor sizes"): each struct crossing the C API starts
// with struct_size, grows only at its end, and a call accepts exactly the sizes that struct has
// had (the SWINUP_*_SIZE_V* constants). Here is the one place that knows those lists: the
// descriptors the caller gives are read into copies of the newest layout, with the fields past
// the caller's size at their defaults, so that everything after this sees one layout only.
#pragma once

#include <cstdint>
#include <string>

#include "swinup/swinup.h"

namespace swinup {

// Reads *in (struct_size bytes of it, no more) over swinup_context_desc_init's defaults into
// *out, whose struct_size is then the newest. False with *error naming the struct and the
// accepted sizes when in->struct_size is not one of them.
bool read_context_desc(const swinup_context_desc* in, swinup_context_desc* out, std::string* error);
// The same for a dispatch descriptor (over swinup_dispatch_desc_init's defaults).
bool read_dispatch_desc(const swinup_dispatch_desc* in, swinup_dispatch_desc* out, std::string* error);

// The same for an auto-reactive mask descriptor (over swinup_reactive_mask_desc_init's defaults).
bool read_reactive_mask_desc(const swinup_reactive_mask_desc* in, swinup_reactive_mask_desc* out,
                             std::string* error);

// For the structs the library fills: "" when `struct_size` (of `field`, a `type`) is accepted,
// else the message. The library then writes only the first struct_size bytes.
std::string version_info_size_error(const char* field, uint32_t struct_size);
std::string memory_requirements_size_error(const char* field, uint32_t struct_size);
std::string input_statistics_size_error(const char* field, uint32_t struct_size);

}  // namespace swinup
