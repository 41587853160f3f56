// The default weights compiled into the library (model/embedded_weights.h: the bytes of
// weights/lite.safetensors and weights/full.safetensors). They go through the same validating
// loader as a file; each variant is parsed once, on first use, and shared afterwards (Weights
// are immutable, so sharing one instance between contexts is safe).
#include <string>

#include "model/embedded_weights.h"
#include "model/weights.h"

namespace swinup {
namespace {

struct EmbeddedLoad {
    std::shared_ptr<const Weights> weights;
    std::string error;
};

EmbeddedLoad load_embedded(Variant variant) {
    const bool lite = variant == Variant::lite;
    const unsigned char* data = lite ? embedded::lite : embedded::full;
    const size_t size = lite ? embedded::lite_size : embedded::full_size;
    EmbeddedLoad result;
    std::string error;
    result.weights = weights_load_memory(data, size, &error);
    if (result.weights && result.weights->config.variant != variant) {
        error = std::string("weights: the image holds the ") +
                variant_name(result.weights->config.variant) + " model";
        result.weights = nullptr;
    }
    if (!result.weights)
        result.error = std::string("embedded ") + variant_name(variant) + " " + error;
    return result;
}

}  // namespace

std::shared_ptr<const Weights> weights_load_embedded(Variant variant, std::string* error) {
    // Function-local statics: each initialised on its first use, once, thread-safely.
    const EmbeddedLoad* loaded = nullptr;
    if (variant == Variant::lite) {
        static const EmbeddedLoad lite = load_embedded(Variant::lite);
        loaded = &lite;
    } else {
        static const EmbeddedLoad full = load_embedded(Variant::full);
        loaded = &full;
    }
    if (!loaded->weights && error) *error = loaded->error;
    return loaded->weights;
}

}  // namespace swinup
