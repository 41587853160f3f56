// The CUDA backend does not draw SWINUP_FLAG_DEBUG_VIEW in this version: creation refuses it with
// SWINUP_STATUS_UNSUPPORTED naming the flag (never a context that silently ignores it). Skipped
// without a CUDA GPU.
#include <gtest/gtest.h>

#include <string>

#include "debug_view_frames.h"
#include "gpu_test_support.h"

namespace swinup {
namespace {

TEST(CudaDebugView, CreationRefusesTheFlagNamingIt) {
    std::string why;
    if (!gpu_test::gpu_ready(&why)) GTEST_SKIP() << why;
    swinup_context_desc d = test::debug_view_context_desc(true);
    d.backend = SWINUP_BACKEND_CUDA;
    swinup_context* ctx = nullptr;
    EXPECT_EQ(swinup_context_create(&d, &ctx), SWINUP_STATUS_UNSUPPORTED);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("SWINUP_FLAG_DEBUG_VIEW is not drawn by the CUDA backend"),
              std::string::npos)
        << swinup_last_error(nullptr);
}

}  // namespace
}  // namespace swinup
