// The CUDA backend does not sharpen the output in this version: a non-zero
// swinup_dispatch_desc.sharpness is SWINUP_STATUS_UNSUPPORTED naming the field (never silently
// ignored), and 0 runs. Skipped without a CUDA GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "sharpen_frames.h"

namespace swinup {
namespace {

TEST(CudaSharpen, ANonZeroSharpnessIsRefusedNamingIt) {
    std::string why;
    if (!gpu_test::gpu_ready(&why)) GTEST_SKIP() << why;
    swinup_context_desc cd = test::sharpen_context_desc();
    cd.backend = SWINUP_BACKEND_CUDA;
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&cd, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const test::SlidingPlaneFrame frame(test::kSharpenRenderW, test::kSharpenRenderH, 0);
    std::vector<uint8_t> out(size_t(test::kSharpenDisplayW) * test::kSharpenDisplayH * 8, 0xcd);
    swinup_dispatch_desc d =
        frame.dispatch_desc(out.data(), SWINUP_FORMAT_RGBA16F, test::kSharpenDisplayW, test::kSharpenDisplayH);
    d.sharpness = 0.5f;
    EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_UNSUPPORTED);
    EXPECT_EQ(std::string(swinup_last_error(ctx)).rfind("dispatch.sharpness: the CUDA backend does not sharpen", 0), 0u)
        << swinup_last_error(ctx);
    d.sharpness = 0.0f;
    EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    swinup_context_destroy(ctx);
}

}  // namespace
}  // namespace swinup
