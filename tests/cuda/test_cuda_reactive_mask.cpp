// swinup_generate_reactive_mask on the CUDA backend (cuda/frame/reactive_mask.cu): the CPU
// backend's bytes in every mask format and mode (reactive_mask_cases.h: colours with NaN, Inf,
// negative and large values at an odd size), from host memory (RGBA16F and RGB16F final colour,
// a padded output row pitch left alone) and from device memory (RGBA32F, the output in device
// memory).
// GPU test (label gpu): it skips, saying so, without a CUDA GPU of compute capability 8.9+.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "api/resource_desc.h"
#include "gpu_test_support.h"
#include "reactive_mask_cases.h"
#include "swinup/swinup.h"

#ifdef SWINUP_HAVE_CUDA
#include "cuda/tools/cuda_tools.h"
#endif

namespace swinup {
namespace {

using namespace test::reactive;

TEST(CudaReactiveMask, HostMemoryGivesTheCpuBackendsBytes) {
    SWINUP_REQUIRE_GPU();
    const Colours c;
    Context cuda;
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_CUDA);
    ASSERT_EQ(swinup_context_create(&desc, &cuda.ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    expect_host_memory_gives_cpu_bytes(cuda.ctx, c);
}

TEST(CudaReactiveMask, DeviceMemoryGivesTheCpuBackendsBytes) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    const Colours c;
    Context cuda;
    const swinup_context_desc desc = context_desc(SWINUP_BACKEND_CUDA);
    ASSERT_EQ(swinup_context_create(&desc, &cuda.ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const size_t colour_bytes = size_t(kW) * kH * 16;
    void* opaque = cuda_tools::device_alloc(colour_bytes);
    void* final_color = cuda_tools::device_alloc(colour_bytes);
    void* out = cuda_tools::device_alloc(size_t(kW) * kH * 4);
    cuda_tools::copy_to_device(opaque, c.opaque.data(), colour_bytes);
    cuda_tools::copy_to_device(final_color, c.final_f32.data(), colour_bytes);
    for (const Mode& m : kModes) {
        for (swinup_format format : kMaskFormats) {
            const std::vector<uint8_t> want = cpu_mask(c, m, format);
            const swinup_reactive_mask_desc d =
                host_desc(m, input_resource(opaque, SWINUP_FORMAT_RGBA32F, kW, kH, SWINUP_MEMORY_CUDA),
                          input_resource(final_color, SWINUP_FORMAT_RGBA32F, kW, kH, SWINUP_MEMORY_CUDA),
                          output_resource(out, format, kW, kH, SWINUP_MEMORY_CUDA));
            ASSERT_EQ(swinup_generate_reactive_mask(cuda.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(cuda.ctx);
            std::vector<uint8_t> got(want.size());
            cuda_tools::copy_from_device(got.data(), out, got.size());
            EXPECT_TRUE(got == want) << m.name << ", format " << format;
        }
    }
    cuda_tools::device_free(opaque);
    cuda_tools::device_free(final_color);
    cuda_tools::device_free(out);
#endif
}

}  // namespace
}  // namespace swinup
