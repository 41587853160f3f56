// A compiled compute shader embedded in the library (src/vulkan/shaders.cmake generates one per
// shader; no shader compiler runs at run time).
#pragma once

#include <cstddef>
#include <cstdint>

namespace swinup::vulkan {

struct SpirvCode {
    const char* name;       // e.g. "frame_staging": the shader's path under shaders/, '/' as '_'
    const uint32_t* words;  // the SPIR-V module
    size_t word_count;
};

}  // namespace swinup::vulkan
