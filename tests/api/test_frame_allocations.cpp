// A frame allocates nothing: the CPU backend sizes every buffer at creation for the largest
// render size, and validating a good dispatch builds no strings. Counted by replacing the global
// operator new of this test executable (the network is a stand-in: its own allocations are the
// network's business and are tested with it).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "api/validation.h"
#include "model/weights.h"
#include "cpu/cpu_backend.h"
#include "pipeline_fixture.h"

namespace {
std::atomic<uint64_t> g_allocations{0};
}

void* operator new(size_t size) {
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }

namespace swinup::test {
namespace {

TEST(FrameAllocations, DispatchAllocatesNothingAfterTheFirstFrame) {
    std::string error;
    auto weights = weights_load_embedded(Variant::lite, &error);
    ASSERT_TRUE(weights) << error;
    const swinup_context_desc cd = small_context_desc(32, 32, 64, 64);
    cpu::CpuBackend backend(cd, weights, [](const float*, int w, int h, uint64_t, float* head) {
        for (int i = 0; i < w * h * 16; ++i) head[i] = 0.25f;
    });
    FrameData big(32, 32, 64, 64), small(24, 22, 64, 64);
    fill_pattern(big, 0.0f);
    fill_pattern(small, 1.0f);
    swinup_dispatch_desc d = big.dispatch();
    ASSERT_EQ(backend.dispatch(d, 0, &error), SWINUP_STATUS_OK) << error;
    const uint64_t before = g_allocations.load();
    for (uint64_t i = 1; i < 5; ++i) {
        // Dynamic resolution included: a smaller frame uses the same buffers.
        d = (i % 2 == 0) ? big.dispatch() : small.dispatch();
        d.jitter_x = 0.125f * float(i % 3);
        ASSERT_TRUE(validate_dispatch_desc(d, cd, SWINUP_BACKEND_CPU).ok());
        ASSERT_EQ(backend.dispatch(d, i, &error), SWINUP_STATUS_OK) << error;
    }
    EXPECT_EQ(g_allocations.load() - before, 0u);
}

}  // namespace
}  // namespace swinup::test
