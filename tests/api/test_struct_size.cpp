// The struct_size rule (swinup.h, "Descriptor sizes"): a call accepts exactly the listed sizes of
// each struct; the fields past an older size are not read and take their defaults; any other
// size is refused with a message naming the struct and the accepted sizes.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "pipeline_fixture.h"
#include "swinup/swinup.h"

namespace swinup::test {
namespace {

// swinup_context_desc as swinup 0.1.0 declared it (before log_callback): what a program built
// against that header passes.
struct ContextDescV1 {
    uint32_t struct_size;
    swinup_backend backend;
    int32_t device_index;
    swinup_variant variant;
    swinup_precision precision;
    uint32_t max_render_width, max_render_height, display_width, display_height;
    uint32_t flags;
    swinup_format output_format;
    swinup_weights_source weights_source;
    const char* weights_path;
    const void* weights_data;
    size_t weights_size;
    uint32_t num_threads;
};
static_assert(sizeof(ContextDescV1) == SWINUP_CONTEXT_DESC_SIZE_V1,
              "SWINUP_CONTEXT_DESC_SIZE_V1 must stay the size of the 0.1.0 descriptor");
static_assert(SWINUP_CONTEXT_DESC_SIZE_V1 < SWINUP_CONTEXT_DESC_SIZE_V2);

ContextDescV1 v1_desc() {
    const swinup_context_desc d = small_context_desc();
    ContextDescV1 v1;
    std::memcpy(&v1, &d, sizeof v1);  // the 0.1.0 fields are the first bytes of today's struct
    v1.struct_size = SWINUP_CONTEXT_DESC_SIZE_V1;
    return v1;
}

// The V1 descriptor at the start of a larger buffer whose remaining bytes are garbage: were the
// library to read past struct_size, it would take them for log_callback and log_user_data (and
// call the callback at creation, or refuse the user pointer).
struct V1InGarbage {
    std::vector<unsigned char> bytes;
    V1InGarbage() : bytes(sizeof(swinup_context_desc) + 64, 0xAB) {
        const ContextDescV1 v1 = v1_desc();
        std::memcpy(bytes.data(), &v1, sizeof v1);
    }
    const swinup_context_desc* desc() const { return reinterpret_cast<const swinup_context_desc*>(bytes.data()); }
};

TEST(StructSize, AContextDescOfTheOlderSizeCreatesAWorkingContext) {
    const V1InGarbage v1;
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(v1.desc(), &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    swinup_context_info info;
    ASSERT_EQ(swinup_context_get_info(ctx, &info), SWINUP_STATUS_OK);
    EXPECT_EQ(info.backend, SWINUP_BACKEND_CPU);

    // It upscales exactly as a context from today's descriptor with the same fields.
    const swinup_context_desc today = small_context_desc();
    ContextHandle reference(today);
    FrameData a(32, 32, 64, 64), b(32, 32, 64, 64);
    for (uint32_t i = 0; i < 3; ++i) {
        swinup_dispatch_desc da = moving_frame(a, i), db = moving_frame(b, i);
        ASSERT_EQ(swinup_dispatch(ctx, &da), SWINUP_STATUS_OK) << swinup_last_error(ctx);
        ASSERT_EQ(swinup_dispatch(reference.ctx, &db), SWINUP_STATUS_OK) << swinup_last_error(reference.ctx);
        EXPECT_EQ(a.output, b.output) << "frame " << i;
    }
    swinup_context_destroy(ctx);
}

TEST(StructSize, TheMemoryQueryTakesTheOlderSizeToo) {
    const V1InGarbage v1;
    swinup_memory_requirements old_size{}, new_size{};
    old_size.struct_size = new_size.struct_size = sizeof(swinup_memory_requirements);
    ASSERT_EQ(swinup_query_memory(v1.desc(), &old_size), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const swinup_context_desc today = small_context_desc();
    ASSERT_EQ(swinup_query_memory(&today, &new_size), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    EXPECT_EQ(old_size.host_bytes, new_size.host_bytes);
}

TEST(StructSize, EveryOtherContextDescSizeIsRefusedNamingTheAcceptedSizes) {
    const std::string v1 = "SWINUP_CONTEXT_DESC_SIZE_V1 = " + std::to_string(SWINUP_CONTEXT_DESC_SIZE_V1);
    const std::string v2 = "SWINUP_CONTEXT_DESC_SIZE_V2 = " + std::to_string(SWINUP_CONTEXT_DESC_SIZE_V2);
    for (uint32_t size : {0u, 4u, SWINUP_CONTEXT_DESC_SIZE_V1 - 4, SWINUP_CONTEXT_DESC_SIZE_V1 + 4,
                          SWINUP_CONTEXT_DESC_SIZE_V2 - 4, SWINUP_CONTEXT_DESC_SIZE_V2 + 8, 1u << 30}) {
        swinup_context_desc d = small_context_desc();
        d.struct_size = size;
        swinup_context* ctx = reinterpret_cast<swinup_context*>(&d);  // must come back NULL
        EXPECT_EQ(swinup_context_create(&d, &ctx), SWINUP_STATUS_INVALID_ARGUMENT) << size;
        EXPECT_EQ(ctx, nullptr);
        const std::string message = swinup_last_error(nullptr);
        EXPECT_EQ(message.rfind("context_desc.struct_size: " + std::to_string(size), 0), 0u) << message;
        EXPECT_NE(message.find("swinup_context_desc"), std::string::npos) << message;
        EXPECT_NE(message.find(v1), std::string::npos) << message;
        EXPECT_NE(message.find(v2), std::string::npos) << message;

        swinup_memory_requirements r{};
        r.struct_size = sizeof r;
        EXPECT_EQ(swinup_query_memory(&d, &r), SWINUP_STATUS_INVALID_ARGUMENT) << size;
        EXPECT_NE(std::string(swinup_last_error(nullptr)).find(v2), std::string::npos);
    }
}

TEST(StructSize, AWrongDispatchDescSizeIsRefusedNamingTheAcceptedSize) {
    ContextHandle c(small_context_desc());
    FrameData f(32, 32, 64, 64);
    swinup_dispatch_desc d = moving_frame(f, 0);
    d.struct_size = SWINUP_DISPATCH_DESC_SIZE_V1 + 8;
    EXPECT_EQ(swinup_dispatch(c.ctx, &d), SWINUP_STATUS_INVALID_ARGUMENT);
    const std::string message = swinup_last_error(c.ctx);
    EXPECT_EQ(message.rfind("dispatch.struct_size: ", 0), 0u) << message;
    EXPECT_NE(message.find("swinup_dispatch_desc"), std::string::npos) << message;
    EXPECT_NE(message.find("SWINUP_DISPATCH_DESC_SIZE_V1 = " + std::to_string(SWINUP_DISPATCH_DESC_SIZE_V1)),
              std::string::npos)
        << message;
    d.struct_size = SWINUP_DISPATCH_DESC_SIZE_V1;
    EXPECT_EQ(swinup_dispatch(c.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(c.ctx);
}

TEST(StructSize, TheFilledStructsRefuseOtherSizesAndWriteNothing) {
    swinup_version_info v;
    std::memset(&v, 0x5A, sizeof v);
    v.struct_size = sizeof v - 4;
    EXPECT_EQ(swinup_get_version(&v), SWINUP_STATUS_INVALID_ARGUMENT);
    std::string message = swinup_last_error(nullptr);
    EXPECT_NE(message.find("swinup_version_info"), std::string::npos) << message;
    EXPECT_NE(message.find("SWINUP_VERSION_INFO_SIZE_V1 = " + std::to_string(SWINUP_VERSION_INFO_SIZE_V1)),
              std::string::npos) << message;
    EXPECT_EQ(v.major, 0x5A5A5A5Au);  // untouched

    const swinup_context_desc d = small_context_desc();
    swinup_memory_requirements r;
    std::memset(&r, 0x5A, sizeof r);
    r.struct_size = 0;
    EXPECT_EQ(swinup_query_memory(&d, &r), SWINUP_STATUS_INVALID_ARGUMENT);
    message = swinup_last_error(nullptr);
    EXPECT_NE(message.find("requirements->struct_size"), std::string::npos) << message;
    EXPECT_NE(message.find("SWINUP_MEMORY_REQUIREMENTS_SIZE_V1 = " +
                           std::to_string(SWINUP_MEMORY_REQUIREMENTS_SIZE_V1)), std::string::npos) << message;
    EXPECT_EQ(r.host_bytes, 0x5A5A5A5A5A5A5A5Aull);

    ContextHandle c(d);
    EXPECT_EQ(swinup_context_get_memory(c.ctx, &r), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("swinup_context_get_memory: requirements->struct_size"),
              std::string::npos);
}

}  // namespace
}  // namespace swinup::test
