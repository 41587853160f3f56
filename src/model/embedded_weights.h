// The default weights compiled into the library: the bytes of weights/lite.safetensors and
// weights/full.safetensors, defined in a source file that the build generates from them
// (model/embed_weights.cmake). model/weights_embedded.cpp parses them.
#pragma once

#include <cstddef>

namespace swinup::embedded {

extern const unsigned char lite[];
extern const size_t lite_size;
extern const unsigned char full[];
extern const size_t full_size;

}  // namespace swinup::embedded
