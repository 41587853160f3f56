// Which kernels fast mode's linear layers run (layers/gemm.cpp), chosen per device at creation
// (runtime/device.cpp): the matrix units where the device offers a usable cooperative-matrix
// shape, else the portable kernels.
#pragma once

namespace swinup::vulkan {

enum class FastGemmPath {
    portable,         // layers/gemm_e4m3.comp's PORTABLE_FAST variant: register-blocked fused multiply-adds
    matrix,           // layers/gemm_matrix.comp on the matrix units (VK_KHR_cooperative_matrix)
    matrix_emulated,  // the same shader with the matrix operations as shared-memory loops (tests)
};

// "portable", "matrix", "matrix-emulated"
const char* fast_gemm_path_name(FastGemmPath path);

}  // namespace swinup::vulkan
