// The CUDA backend's memory: swinup_query_memory's device_bytes before creation equal what the
// created context reports and are within 10% of the device memory creation takes (cudaMemGetInfo
// around swinup_context_create); a full graph cache stays within graph_device_bytes; and the graph
// cache keeps SWINUP_CUDA_GRAPH_CACHE_SIZES render sizes however many sizes are dispatched, with
// the same output bytes as frames run without graphs. Skipped (visibly) without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "gpu_test_support.h"
#include "pipeline_fixture.h"
#include "swinup/swinup.h"

#ifdef SWINUP_HAVE_CUDA
#include "cuda/tools/cuda_tools.h"
#endif

namespace swinup::test {
namespace {

#ifdef SWINUP_HAVE_CUDA

swinup_context_desc cuda_desc(uint32_t render_w, uint32_t render_h, uint32_t display_w, uint32_t display_h) {
    swinup_context_desc d = sized_context_desc(render_w, render_h, display_w, display_h);
    d.backend = SWINUP_BACKEND_CUDA;
    return d;
}

swinup_memory_requirements requirements() {
    swinup_memory_requirements r{};
    r.struct_size = sizeof r;
    return r;
}

// Creates and destroys a small context of the variant and precision, so that the CUDA runtime,
// the primary context and the kernels' modules are loaded before anything is measured.
void warm_up(swinup_variant variant, swinup_precision precision) {
    swinup_context_desc d = cuda_desc(64, 64, 128, 128);
    d.variant = variant;
    d.precision = precision;
    ContextHandle c(d);
    FrameData f(64, 64, 128, 128);
    for (uint32_t i = 0; i < 2; ++i) {
        swinup_dispatch_desc dd = moving_frame(f, i);
        ASSERT_EQ(swinup_dispatch(c.ctx, &dd), SWINUP_STATUS_OK) << swinup_last_error(c.ctx);
    }
}

void check_creation(swinup_variant variant, swinup_precision precision) {
    warm_up(variant, precision);
    swinup_context_desc desc = cuda_desc(1920, 1080, 3840, 2160);
    desc.variant = variant;
    desc.precision = precision;
    swinup_memory_requirements predicted = requirements();
    ASSERT_EQ(swinup_query_memory(&desc, &predicted), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    EXPECT_EQ(predicted.backend, SWINUP_BACKEND_CUDA);
    EXPECT_GT(predicted.device_bytes, 100u << 20);

    const size_t free_before = cuda_tools::device_free_bytes();
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const double taken = double(free_before) - double(cuda_tools::device_free_bytes());
    swinup_memory_requirements actual = requirements();
    ASSERT_EQ(swinup_context_get_memory(ctx, &actual), SWINUP_STATUS_OK);
    EXPECT_EQ(actual.device_bytes, predicted.device_bytes);
    EXPECT_EQ(actual.graph_device_bytes, predicted.graph_device_bytes);
    const double error = std::fabs(taken - double(predicted.device_bytes)) / double(predicted.device_bytes);
    std::printf("device memory taken by creation: %.0f bytes, predicted %llu (%.2f%% off)\n", taken,
                static_cast<unsigned long long>(predicted.device_bytes), 100.0 * error);
    EXPECT_LT(error, 0.10) << "taken " << taken << ", predicted " << predicted.device_bytes;
    swinup_context_destroy(ctx);
}

#endif  // SWINUP_HAVE_CUDA

TEST(CudaMemory, LiteExactCreationTakesWhatTheQuerySaid) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    check_creation(SWINUP_VARIANT_LITE, SWINUP_PRECISION_EXACT);
#endif
}

TEST(CudaMemory, FullFastCreationTakesWhatTheQuerySaid) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    check_creation(SWINUP_VARIANT_FULL, SWINUP_PRECISION_FAST);
#endif
}

TEST(CudaMemory, AFullGraphCacheStaysWithinItsEstimate) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    warm_up(SWINUP_VARIANT_LITE, SWINUP_PRECISION_EXACT);
    const uint32_t display_w = 1920, display_h = 1080;
    ContextHandle c(cuda_desc(1280, 720, display_w, display_h));
    swinup_memory_requirements r = requirements();
    ASSERT_EQ(swinup_context_get_memory(c.ctx, &r), SWINUP_STATUS_OK);
    const size_t free_before = cuda_tools::device_free_bytes();
    for (uint32_t s = 0; s < SWINUP_CUDA_GRAPH_CACHE_SIZES; ++s) {
        FrameData f(1280 - 32 * s, 720 - 16 * s, display_w, display_h);
        for (uint32_t i = 0; i < 2; ++i) {  // both window-shift parities
            swinup_dispatch_desc d = moving_frame(f, i);
            ASSERT_EQ(swinup_dispatch(c.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(c.ctx);
        }
    }
    const double taken = double(free_before) - double(cuda_tools::device_free_bytes());
    std::printf("device memory of a full graph cache: %.0f bytes, estimated %llu\n", taken,
                static_cast<unsigned long long>(r.graph_device_bytes));
    EXPECT_LE(taken, double(r.graph_device_bytes));
#endif
}

TEST(CudaMemory, TheGraphCacheKeepsItsBoundAndTheFramesAreUnchanged) {
    SWINUP_REQUIRE_GPU();
#ifdef SWINUP_HAVE_CUDA
    // 12 render sizes, each dispatched twice (both parities), then the first four again (evicted
    // by then): more sizes than the bound, and evicted sizes captured anew.
    const uint32_t display_w = 192, display_h = 128;
    const swinup_context_desc desc = cuda_desc(96, 64, display_w, display_h);
    std::vector<uint32_t> widths;
    for (uint32_t s = 0; s < 12; ++s) widths.push_back(96 - 2 * s);
    for (uint32_t s = 0; s < 4; ++s) widths.push_back(96 - 2 * s);
    std::vector<FrameData> frames;
    for (uint32_t w : widths)
        for (int i = 0; i < 2; ++i) frames.emplace_back(w, 64, display_w, display_h);
    std::vector<swinup_dispatch_desc> dispatches;
    for (size_t i = 0; i < frames.size(); ++i) dispatches.push_back(moving_frame(frames[i], uint32_t(i)));

    const std::vector<size_t> counts = cuda_tools::dispatch_counting_graphs(desc, true, dispatches);
    std::vector<std::vector<uint8_t>> with_graphs;
    for (const FrameData& f : frames) with_graphs.push_back(f.output);
    cuda_tools::dispatch_counting_graphs(desc, false, dispatches);

    ASSERT_EQ(counts.size(), frames.size());
    for (size_t i = 0; i < counts.size(); ++i) {
        const size_t sizes_met = std::min<size_t>(i / 2 + 1, 12);
        EXPECT_EQ(counts[i], std::min<size_t>(sizes_met, SWINUP_CUDA_GRAPH_CACHE_SIZES)) << "after frame " << i;
        EXPECT_EQ(with_graphs[i], frames[i].output) << "frame " << i << " (render width " << widths[i / 2] << ")";
    }
#endif
}

}  // namespace
}  // namespace swinup::test
