// swinup_query_memory and swinup_context_get_memory on the CPU backend: the query made before
// creation equals what the created context reports, and both are within 10% of the heap the
// process actually gains when the context is created (glibc's mallinfo2: bytes in use, from
// malloc's arenas and its mmap'ed blocks) and still holds after frames at the largest size. The
// worker threads' scratch (thread-local, grown on the first frame, kept by the threads for every
// context; swinup.h) is grown by a warm-up frame first: measured 2.3 MB a thread for lite.
#include <gtest/gtest.h>

#include <malloc.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "address_sanitizer.h"
#include "model/weights.h"
#include "pipeline_fixture.h"
#include "swinup/swinup.h"

namespace swinup::test {
namespace {

// Bytes of heap in use now.
long long heap_in_use() {
    const struct mallinfo2 m = mallinfo2();
    return static_cast<long long>(m.uordblks) + static_cast<long long>(m.hblkhd);
}

swinup_memory_requirements query(const swinup_context_desc& d) {
    swinup_memory_requirements r{};
    r.struct_size = sizeof r;
    EXPECT_EQ(swinup_query_memory(&d, &r), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    return r;
}

swinup_memory_requirements held(const swinup_context* ctx) {
    swinup_memory_requirements r{};
    r.struct_size = sizeof r;
    EXPECT_EQ(swinup_context_get_memory(ctx, &r), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    return r;
}

// Creates a context of the variant and runs a frame: the embedded weights are loaded, the worker
// threads' arena is in the pool and their scratch is grown (a grid large enough that every task
// is whole), none of it the next context's.
void warm_up(swinup_variant variant) {
    swinup_context_desc d = small_context_desc(256, 256, 512, 512);
    d.variant = variant;
    ContextHandle c(d);
    FrameData f(256, 256, 512, 512);
    swinup_dispatch_desc dd = moving_frame(f, 0);
    ASSERT_EQ(swinup_dispatch(c.ctx, &dd), SWINUP_STATUS_OK) << swinup_last_error(c.ctx);
}

// A context large enough that its buffers and activations dwarf a few small allocations.
swinup_context_desc large_desc(swinup_variant variant) {
    swinup_context_desc d = small_context_desc(480, 272, 960, 544);
    d.variant = variant;
    return d;
}

void expect_within_ten_percent(long long measured, uint64_t predicted, const char* what) {
    const double error = std::fabs(double(measured) - double(predicted)) / double(predicted);
    EXPECT_LT(error, 0.10) << what << ": measured " << measured << " bytes, predicted " << predicted;
    std::printf("%s: measured %lld bytes, predicted %llu (%.2f%% off)\n", what, measured,
                static_cast<unsigned long long>(predicted), 100.0 * error);
}

void check_created_context_matches_query(swinup_variant variant) {
    const swinup_context_desc desc = large_desc(variant);
    warm_up(variant);

    const swinup_memory_requirements predicted = query(desc);
    EXPECT_EQ(predicted.backend, SWINUP_BACKEND_CPU);
    EXPECT_EQ(predicted.device_bytes, 0u);
    EXPECT_EQ(predicted.graph_device_bytes, 0u);
    EXPECT_GT(predicted.shared_host_bytes, 1000000u);  // the embedded weights, about 1.4 MB
    EXPECT_GT(predicted.host_bytes, 10u * predicted.shared_host_bytes);

    const long long before = heap_in_use();
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const long long created = heap_in_use() - before;
    const swinup_memory_requirements actual = held(ctx);
    EXPECT_EQ(actual.host_bytes, predicted.host_bytes);
    EXPECT_EQ(actual.shared_host_bytes, predicted.shared_host_bytes);
    EXPECT_EQ(actual.backend, SWINUP_BACKEND_CPU);
    expect_within_ten_percent(created, predicted.host_bytes, "heap growth at creation");

    // Frames at the largest size allocate nothing more.
    FrameData f(desc.max_render_width, desc.max_render_height, desc.display_width, desc.display_height);
    for (uint32_t i = 0; i < 2; ++i) {
        swinup_dispatch_desc d = moving_frame(f, i);
        ASSERT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    }
    expect_within_ten_percent(heap_in_use() - before - static_cast<long long>(f.color.size() * 4 + f.depth.size() * 4 +
                                                                               f.motion.size() * 4 + f.output.size()),
                              predicted.host_bytes, "heap growth after two frames");
    swinup_context_destroy(ctx);
}

TEST(MemoryQuery, LiteContextHoldsWhatTheQuerySaid) {
    SWINUP_SKIP_UNDER_ASAN("whose allocator mallinfo2 does not see");
    check_created_context_matches_query(SWINUP_VARIANT_LITE);
}
TEST(MemoryQuery, FullContextHoldsWhatTheQuerySaid) {
    SWINUP_SKIP_UNDER_ASAN("whose allocator mallinfo2 does not see");
    check_created_context_matches_query(SWINUP_VARIANT_FULL);
}

TEST(MemoryQuery, WeightsReadFromMemoryAreTheContextsOwn) {
    SWINUP_SKIP_UNDER_ASAN("whose allocator mallinfo2 does not see");
    std::string error;
    const std::shared_ptr<const Weights> lite = weights_load_embedded(Variant::lite, &error);
    ASSERT_TRUE(lite) << error;
    const std::vector<uint8_t> image = weights_serialize(*lite);
    swinup_context_desc desc = large_desc(SWINUP_VARIANT_LITE);
    const swinup_memory_requirements embedded = query(desc);
    desc.weights_source = SWINUP_WEIGHTS_MEMORY;
    desc.weights_data = image.data();
    desc.weights_size = image.size();
    const swinup_memory_requirements own = query(desc);
    EXPECT_EQ(own.shared_host_bytes, 0u);
    EXPECT_EQ(own.host_bytes, embedded.host_bytes + embedded.shared_host_bytes);

    warm_up(SWINUP_VARIANT_LITE);
    const long long before = heap_in_use();
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    expect_within_ten_percent(heap_in_use() - before, own.host_bytes, "heap growth with weights from memory");
    EXPECT_EQ(held(ctx).host_bytes, own.host_bytes);
    swinup_context_destroy(ctx);
}

TEST(MemoryQuery, GrowsWithTheSizes) {
    const uint64_t small = query(small_context_desc(64, 64, 128, 128)).host_bytes;
    const uint64_t larger_display = query(small_context_desc(64, 64, 192, 192)).host_bytes;
    const uint64_t larger_render = query(small_context_desc(96, 96, 192, 192)).host_bytes;
    EXPECT_LT(small, larger_display);
    EXPECT_LT(larger_display, larger_render);
}

TEST(MemoryQuery, BadArgumentsAreRefusedByName) {
    const swinup_context_desc desc = small_context_desc();
    swinup_memory_requirements r{};
    r.struct_size = sizeof r;
    EXPECT_EQ(swinup_query_memory(nullptr, &r), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(swinup_last_error(nullptr), "swinup_query_memory: desc is NULL");
    EXPECT_EQ(swinup_query_memory(&desc, nullptr), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(swinup_last_error(nullptr), "swinup_query_memory: requirements is NULL");

    swinup_context_desc bad = desc;
    bad.max_render_width = 0;
    EXPECT_EQ(swinup_query_memory(&bad, &r), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(swinup_last_error(nullptr)).rfind("context_desc.max_render_width: ", 0), 0u);

    bad = desc;
    bad.weights_source = SWINUP_WEIGHTS_PATH;
    bad.weights_path = "/nonexistent/weights.safetensors";
    EXPECT_EQ(swinup_query_memory(&bad, &r), SWINUP_STATUS_IO_ERROR);
    EXPECT_EQ(std::string(swinup_last_error(nullptr)).rfind("context_desc.weights_path: ", 0), 0u);

    ContextHandle c(desc);
    EXPECT_EQ(swinup_context_get_memory(nullptr, &r), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(swinup_last_error(nullptr), "swinup_context_get_memory: ctx is NULL");
    EXPECT_EQ(swinup_context_get_memory(c.ctx, nullptr), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(swinup_last_error(nullptr), "swinup_context_get_memory: requirements is NULL");
    EXPECT_EQ(swinup_context_get_memory(c.ctx, &r), SWINUP_STATUS_OK);
    EXPECT_STREQ(swinup_last_error(nullptr), "");
}

#ifndef SWINUP_HAVE_CUDA
TEST(MemoryQuery, CudaInABuildWithoutCudaIsUnsupported) {
    swinup_context_desc desc = small_context_desc();
    desc.backend = SWINUP_BACKEND_CUDA;
    swinup_memory_requirements r{};
    r.struct_size = sizeof r;
    EXPECT_EQ(swinup_query_memory(&desc, &r), SWINUP_STATUS_UNSUPPORTED);
    EXPECT_EQ(std::string(swinup_last_error(nullptr)).rfind("context_desc.backend: SWINUP_BACKEND_CUDA", 0), 0u);
    desc.backend = SWINUP_BACKEND_AUTO;
    EXPECT_EQ(swinup_query_memory(&desc, &r), SWINUP_STATUS_OK);
    EXPECT_EQ(r.backend, SWINUP_BACKEND_CPU);
}
#endif

}  // namespace
}  // namespace swinup::test
