// Fuzzes a weights file's JSON header alone (metadata, model config, tensor entries): the input
// is the header text; the harness adds the 8-byte length in front and, behind, a data region of
// the size the lite or full model's tensors take (the full one when the text says "full"),
// filled with the float 1.0, a valid value of every dtype and scale. So a valid header loads
// whole, and mutations explore the header's checks rather than the byte-level framing
// (weights_file does that).
// Promises checked: the reader returns (no crash, no escaping exception); a refusal comes with
// a message; an accepted header's model has every tensor of model_tensors() with its shape.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "model/model_spec.h"
#include "model/weights.h"
#include "fuzz_check.h"

namespace {

size_t data_bytes(swinup::Variant variant) {
    size_t bytes = 0;
    for (const swinup::TensorSpec& spec : swinup::model_tensors(swinup::ModelConfig::make(variant)))
        bytes += static_cast<size_t>(spec.elements()) * swinup::dtype_size(spec.dtype);
    return bytes;
}

// The data region of a variant: little-endian 1.0f repeated.
const std::vector<uint8_t>& data_region(swinup::Variant variant) {
    static const auto make = [](swinup::Variant v) {
        std::vector<uint8_t> bytes(data_bytes(v));
        const uint8_t one[4] = {0x00, 0x00, 0x80, 0x3f};
        for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = one[i % 4];
        return bytes;
    };
    static const std::vector<uint8_t> lite = make(swinup::Variant::lite);
    static const std::vector<uint8_t> full = make(swinup::Variant::full);
    return variant == swinup::Variant::full ? full : lite;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view header(reinterpret_cast<const char*>(data), size);
    const swinup::Variant variant = header.find("\"full\"") != std::string_view::npos
                                        ? swinup::Variant::full
                                        : swinup::Variant::lite;
    const std::vector<uint8_t>& region = data_region(variant);
    std::vector<uint8_t> file(8 + size + region.size());
    for (int i = 0; i < 8; ++i) file[static_cast<size_t>(i)] = static_cast<uint8_t>(uint64_t{size} >> (8 * i));
    if (size > 0) std::memcpy(file.data() + 8, data, size);
    std::memcpy(file.data() + 8 + size, region.data(), region.size());

    std::string error;
    const auto weights = swinup::weights_load_memory(file.data(), file.size(), &error);
    if (!weights) {
        FUZZ_CHECK(error.rfind("weights: ", 0) == 0 && error.size() > sizeof "weights: ",
                   "a refusal without a reason: " + error);
        return 0;
    }
    for (const swinup::TensorSpec& spec : swinup::model_tensors(weights->config)) {
        const auto it = weights->tensors.find(spec.name);
        FUZZ_CHECK(it != weights->tensors.end(), "accepted without tensor " + spec.name);
        FUZZ_CHECK(it->second.shape == spec.shape && it->second.dtype == spec.dtype &&
                       it->second.bytes.size() ==
                           static_cast<size_t>(spec.elements()) * swinup::dtype_size(spec.dtype),
                   "accepted tensor " + spec.name + " with the wrong shape, dtype or size");
    }
    FUZZ_CHECK(weights->tensors.size() == swinup::model_tensors(weights->config).size(),
               "accepted with tensors the model does not have");
    return 0;
}
