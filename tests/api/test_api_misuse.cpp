// Every error path of the C API returns its status and a message that names the field, and the
// small helpers (render size, jitter, phase count) return what their definitions say.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "api/backend.h"
#include "model/weights.h"
#include "pipeline_fixture.h"
#include "swinup/swinup.h"

namespace swinup::test {
namespace {

// Stores a value outside the enumerators into an enum field, as a C caller can (C converts any
// int to an enum type). Only its bytes are written: C++ loading such an enum object is undefined
// behaviour, so neither this test nor the library may read the field as its enum type.
template <class Enum>
void store_raw(Enum* field, int32_t value) {
    static_assert(sizeof *field == sizeof value);
    std::memcpy(field, &value, sizeof value);
}

}  // namespace
}  // namespace swinup::test

// enum_from_c.c: the calls that pass such a value as an argument, made from C.
extern "C" swinup_status render_size_with_raw_mode(int mode, uint32_t display_width, uint32_t display_height,
                                                   uint32_t* render_width, uint32_t* render_height);
extern "C" const char* status_name_of_raw(int status);

namespace swinup::test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// ---- context creation ------------------------------------------------------------------------

// Creates with `d`, expects `status` and a NULL context, and returns the message.
std::string create_error(const swinup_context_desc& d, swinup_status status) {
    swinup_context* ctx = reinterpret_cast<swinup_context*>(uintptr_t{0x1});  // must become NULL
    EXPECT_EQ(swinup_context_create(&d, &ctx), status) << swinup_last_error(nullptr);
    EXPECT_EQ(ctx, nullptr);
    swinup_context_destroy(ctx == reinterpret_cast<swinup_context*>(uintptr_t{0x1}) ? nullptr : ctx);
    return swinup_last_error(nullptr);
}

#define EXPECT_CREATE_FAILS(desc, status, field) \
    EXPECT_NE(create_error(desc, status).find(field), std::string::npos) << swinup_last_error(nullptr)

// small_context_desc() with one change (`change` applied to it) must fail as EXPECT_CREATE_FAILS
// says: every case starts from a clean descriptor, so it tests its field alone.
template <class Change>
void expect_create_change_fails(Change change, swinup_status status, const std::string& field) {
    swinup_context_desc d = small_context_desc();
    change(d);
    EXPECT_CREATE_FAILS(d, status, field);
}

TEST(ApiCreate, NullArguments) {
    swinup_context* ctx = nullptr;
    const swinup_context_desc d = small_context_desc();
    EXPECT_EQ(swinup_context_create(nullptr, &ctx), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("desc is NULL"), std::string::npos);
    EXPECT_EQ(swinup_context_create(&d, nullptr), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("out is NULL"), std::string::npos);
}

TEST(ApiCreate, StructSize) {
    swinup_context_desc d = small_context_desc();
    d.struct_size -= 4;
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_INVALID_ARGUMENT, "context_desc.struct_size");
}

TEST(ApiCreate, UnknownEnums) {
    const swinup_status invalid = SWINUP_STATUS_INVALID_ARGUMENT;
    expect_create_change_fails([](swinup_context_desc& d) { store_raw(&d.backend, 7); }, invalid, "context_desc.backend");
    expect_create_change_fails([](swinup_context_desc& d) { store_raw(&d.variant, 5); }, invalid, "context_desc.variant");
    expect_create_change_fails([](swinup_context_desc& d) { store_raw(&d.precision, 9); }, invalid,
                               "context_desc.precision");
    expect_create_change_fails([](swinup_context_desc& d) { store_raw(&d.weights_source, 3); }, invalid,
                               "context_desc.weights_source");
}

TEST(ApiCreate, DeviceIndex) {
    swinup_context_desc d = small_context_desc();
    d.backend = SWINUP_BACKEND_AUTO;
    d.device_index = -1;
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_INVALID_ARGUMENT, "context_desc.device_index");
}

TEST(ApiCreate, DisplaySize) {
    const swinup_status invalid = SWINUP_STATUS_INVALID_ARGUMENT;
    expect_create_change_fails([](swinup_context_desc& d) { d.display_width = 0; }, invalid, "context_desc.display_width");
    expect_create_change_fails([](swinup_context_desc& d) { d.display_height = 8193; }, invalid,
                               "context_desc.display_height");
}

TEST(ApiCreate, MaxRenderSize) {
    const swinup_status invalid = SWINUP_STATUS_INVALID_ARGUMENT;
    expect_create_change_fails([](swinup_context_desc& d) { d.max_render_width = 0; }, invalid,
                               "context_desc.max_render_width");
    // More than the display height (64).
    expect_create_change_fails([](swinup_context_desc& d) { d.max_render_height = 65; }, invalid,
                               "context_desc.max_render_height");
    EXPECT_CREATE_FAILS(small_context_desc(21, 32, 64, 64), invalid, "context_desc.max_render_width");  // 64 / 21 > 3
    EXPECT_CREATE_FAILS(small_context_desc(32, 21, 64, 64), invalid, "context_desc.max_render_height");
}

TEST(ApiCreate, Flags) {
    swinup_context_desc d = small_context_desc();
    d.flags = 1u << 7;
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_INVALID_ARGUMENT, "context_desc.flags");
}

TEST(ApiCreate, NumThreads) {
    swinup_context_desc d = small_context_desc();
    d.num_threads = SWINUP_MAX_THREADS + 1;
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_INVALID_ARGUMENT,
                        "context_desc.num_threads: must be 0..1024 (0: all hardware threads), got 1025");
    d.num_threads = 100000;
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_INVALID_ARGUMENT, "got 100000");
}

TEST(ApiCreate, OutputFormat) {
    swinup_context_desc d = small_context_desc();
    d.output_format = SWINUP_FORMAT_R32F;  // an input format
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_INVALID_ARGUMENT,
                        "context_desc.output_format: expected SWINUP_FORMAT_RGBA16F, "
                        "SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_RGBA8 or SWINUP_FORMAT_B10G11R11F, got "
                        "SWINUP_FORMAT_R32F");
    store_raw(&d.output_format, 99);
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_INVALID_ARGUMENT, "context_desc.output_format");
}

TEST(ApiCreate, WeightsFields) {
    swinup_context_desc d = small_context_desc();
    d.weights_source = SWINUP_WEIGHTS_PATH;
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_INVALID_ARGUMENT, "context_desc.weights_path");
    d.weights_path = "";
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_INVALID_ARGUMENT, "context_desc.weights_path");
    d = small_context_desc();
    d.weights_source = SWINUP_WEIGHTS_MEMORY;
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_INVALID_ARGUMENT, "context_desc.weights_data");
    const uint8_t byte = 0;
    d.weights_data = &byte;
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_INVALID_ARGUMENT, "context_desc.weights_size");
}

TEST(ApiCreate, WeightsFileMissingIsIoError) {
    swinup_context_desc d = small_context_desc();
    d.weights_source = SWINUP_WEIGHTS_PATH;
    d.weights_path = "/nonexistent/swinup/weights.safetensors";
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_IO_ERROR, "context_desc.weights_path");
}

TEST(ApiCreate, WeightsGarbageIsInvalid) {
    swinup_context_desc d = small_context_desc();
    const std::vector<uint8_t> garbage(1000, 0xab);
    d.weights_source = SWINUP_WEIGHTS_MEMORY;
    d.weights_data = garbage.data();
    d.weights_size = garbage.size();
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_WEIGHTS_INVALID, "context_desc.weights_data");
}

TEST(ApiCreate, WeightsOfAnotherVariant) {
    const std::vector<uint8_t> lite = weights_serialize(weights_make_initial(Variant::lite, 3));
    swinup_context_desc d = small_context_desc();
    d.weights_source = SWINUP_WEIGHTS_MEMORY;
    d.weights_data = lite.data();
    d.weights_size = lite.size();
    d.variant = SWINUP_VARIANT_FULL;
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_WEIGHTS_INVALID, "context_desc.variant");
    d.variant = SWINUP_VARIANT_LITE;  // the same image with the matching variant is accepted
    ContextHandle ok(d);
    EXPECT_NE(ok.ctx, nullptr);
}

TEST(ApiCreate, CudaBackendWithoutCuda) {
    if (cuda_backend_available()) GTEST_SKIP() << "this machine has a usable CUDA backend";
    swinup_context_desc d = small_context_desc();
    d.backend = SWINUP_BACKEND_CUDA;
    EXPECT_CREATE_FAILS(d, SWINUP_STATUS_UNSUPPORTED, "context_desc.backend");
    d.backend = SWINUP_BACKEND_AUTO;  // auto falls back to the CPU and says so in get_info
    ContextHandle ctx(d);
    swinup_context_info info;
    ASSERT_EQ(swinup_context_get_info(ctx.ctx, &info), SWINUP_STATUS_OK);
    EXPECT_EQ(info.backend, SWINUP_BACKEND_CPU);
}

TEST(ApiCreate, SuccessClearsTheThreadError) {
    swinup_context_desc bad = small_context_desc();
    bad.display_width = 0;
    create_error(bad, SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STRNE(swinup_last_error(nullptr), "");
    ContextHandle ctx(small_context_desc());
    EXPECT_STREQ(swinup_last_error(nullptr), "");
    EXPECT_STREQ(swinup_last_error(ctx.ctx), "");
}

TEST(ApiCreate, InfoDescribesTheContext) {
    swinup_context_desc d = small_context_desc();
    d.precision = SWINUP_PRECISION_EXACT;
    ContextHandle ctx(d);
    swinup_context_info info;
    ASSERT_EQ(swinup_context_get_info(ctx.ctx, &info), SWINUP_STATUS_OK);
    EXPECT_EQ(info.backend, SWINUP_BACKEND_CPU);
    EXPECT_EQ(info.variant, SWINUP_VARIANT_LITE);
    EXPECT_EQ(info.precision, SWINUP_PRECISION_EXACT);
    EXPECT_GT(std::string(info.device_name).size(), 0u);
    EXPECT_NE(std::string(info.weights_description).find("embedded lite"), std::string::npos);
    // The parameter count is that of the spec's tensor list for the embedded network (the shipped
    // lite has the head MLP).
    std::string error;
    const auto embedded = weights_load_embedded(Variant::lite, &error);
    ASSERT_NE(embedded, nullptr) << error;
    uint64_t expected = 0;
    for (const TensorSpec& t : model_tensors(embedded->config)) expected += uint64_t(t.elements());
    EXPECT_EQ(info.parameter_count, expected);
    EXPECT_EQ(swinup_context_get_info(nullptr, &info), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(swinup_context_get_info(ctx.ctx, nullptr), SWINUP_STATUS_INVALID_ARGUMENT);
}

TEST(ApiCreate, DestroyNullIsANoOp) { swinup_context_destroy(nullptr); }

// ---- dispatch --------------------------------------------------------------------------------

class ApiDispatch : public ::testing::Test {
protected:
    ApiDispatch() : ctx_(small_context_desc()), frame_(32, 32, 64, 64) {}

    // Dispatches `d`, expects `status` and a message containing `field`.
    void expect_fails(const swinup_dispatch_desc& d, swinup_status status, const std::string& field) {
        EXPECT_EQ(swinup_dispatch(ctx_.ctx, &d), status) << swinup_last_error(ctx_.ctx);
        const std::string message = swinup_last_error(ctx_.ctx);
        EXPECT_NE(message.find(field), std::string::npos) << "message: " << message;
    }

    // The frame's valid descriptor with one change (`change` applied to it) must fail as
    // expect_fails says: every case starts from a clean descriptor, so it tests its field alone.
    template <class Change>
    void expect_change_fails(Change change, swinup_status status, const std::string& field) {
        swinup_dispatch_desc d = frame_.dispatch();
        change(d);
        expect_fails(d, status, field);
    }

    ContextHandle ctx_;
    FrameData frame_;
};

TEST_F(ApiDispatch, NullArguments) {
    swinup_dispatch_desc d = frame_.dispatch();
    EXPECT_EQ(swinup_dispatch(nullptr, &d), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("ctx is NULL"), std::string::npos);
    EXPECT_EQ(swinup_dispatch(ctx_.ctx, nullptr), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(ctx_.ctx)).find("desc is NULL"), std::string::npos);
}

TEST_F(ApiDispatch, StructSize) {
    swinup_dispatch_desc d = frame_.dispatch();
    d.struct_size = 12;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.struct_size");
}

TEST_F(ApiDispatch, RenderSize) {
    expect_change_fails([](swinup_dispatch_desc& d) { d.render_width = 0; }, SWINUP_STATUS_INVALID_ARGUMENT,
                        "dispatch.render_width");
    expect_change_fails([](swinup_dispatch_desc& d) { d.render_height = 33; },  // over the maximum
                        SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.render_height: must be 1..max_render_height (32), got 33");
    expect_change_fails(
        [](swinup_dispatch_desc& d) {
            d.render_width = 21;  // 64 / 21 > 3
            d.color.width = d.depth.width = d.motion_vectors.width = 21;
        },
        SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.render_width");
}

TEST_F(ApiDispatch, Jitter) {
    for (float bad : {kNaN, kInf, -kInf, 0.51f, -0.6f}) {
        expect_change_fails([&](swinup_dispatch_desc& d) { d.jitter_x = bad; }, SWINUP_STATUS_INVALID_ARGUMENT,
                            "dispatch.jitter_x");
        expect_change_fails([&](swinup_dispatch_desc& d) { d.jitter_y = bad; }, SWINUP_STATUS_INVALID_ARGUMENT,
                            "dispatch.jitter_y");
    }
}

TEST_F(ApiDispatch, Scalars) {
    const swinup_status invalid = SWINUP_STATUS_INVALID_ARGUMENT;
    expect_change_fails([](swinup_dispatch_desc& d) { d.mv_scale_x = kNaN; }, invalid, "dispatch.mv_scale_x");
    expect_change_fails([](swinup_dispatch_desc& d) { d.mv_scale_y = kInf; }, invalid, "dispatch.mv_scale_y");
    expect_change_fails([](swinup_dispatch_desc& d) { d.exposure_value = -1.0f; }, invalid, "dispatch.exposure_value");
    expect_change_fails([](swinup_dispatch_desc& d) { d.pre_exposure = kNaN; }, invalid, "dispatch.pre_exposure");
    expect_change_fails([](swinup_dispatch_desc& d) { d.frame_time_delta_ms = kInf; }, invalid,
                        "dispatch.frame_time_delta_ms");
}

// A value just outside its range is printed as itself, not rounded onto the bound it broke
// (six significant digits printed the jitter 0.50000006 as "got 0.5", for the range [-0.5, 0.5]).
TEST_F(ApiDispatch, BadScalarsArePrintedExactly) {
    const swinup_status invalid = SWINUP_STATUS_INVALID_ARGUMENT;
    expect_change_fails([](swinup_dispatch_desc& d) { d.jitter_x = std::nextafter(0.5f, 1.0f); }, invalid,
                        "dispatch.jitter_x: must be a finite number in [-0.5, 0.5], got 0.50000006");
    expect_change_fails([](swinup_dispatch_desc& d) { d.jitter_y = std::nextafter(-0.5f, -1.0f); }, invalid,
                        "dispatch.jitter_y: must be a finite number in [-0.5, 0.5], got -0.50000006");
    expect_change_fails([](swinup_dispatch_desc& d) { d.pre_exposure = -std::numeric_limits<float>::denorm_min(); },
                        invalid, "dispatch.pre_exposure: must be a finite non-negative number, got -1e-45");
    expect_change_fails([](swinup_dispatch_desc& d) { d.mv_scale_x = -kInf; }, invalid,
                        "dispatch.mv_scale_x: must be a finite number, got -inf");
}

TEST_F(ApiDispatch, NullPointers) {
    const swinup_status invalid = SWINUP_STATUS_INVALID_ARGUMENT;
    expect_change_fails([](swinup_dispatch_desc& d) { d.color.data = nullptr; }, invalid, "dispatch.color.data: is NULL");
    expect_change_fails([](swinup_dispatch_desc& d) { d.depth.data = nullptr; }, invalid, "dispatch.depth.data: is NULL");
    expect_change_fails([](swinup_dispatch_desc& d) { d.motion_vectors.data = nullptr; }, invalid,
                        "dispatch.motion_vectors.data: is NULL");
    expect_change_fails([](swinup_dispatch_desc& d) { d.output.data_mut = nullptr; }, invalid,
                        "dispatch.output.data_mut: is NULL");
}

TEST_F(ApiDispatch, Formats) {
    const swinup_status invalid = SWINUP_STATUS_INVALID_ARGUMENT;
    expect_change_fails([](swinup_dispatch_desc& d) { d.depth.format = SWINUP_FORMAT_RG16F; }, invalid,
                        "dispatch.depth.format: expected SWINUP_FORMAT_R32F, SWINUP_FORMAT_D24_UNORM_S8 or "
                        "SWINUP_FORMAT_D32F_S8, got SWINUP_FORMAT_RG16F");
    expect_change_fails([](swinup_dispatch_desc& d) { d.color.format = SWINUP_FORMAT_R32F; }, invalid,
                        "dispatch.color.format");
    expect_change_fails([](swinup_dispatch_desc& d) { store_raw(&d.color.format, 77); }, invalid,
                        "dispatch.color.format: expected SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_RGBA32F, "
                        "SWINUP_FORMAT_RGB16F, SWINUP_FORMAT_RGB32F, SWINUP_FORMAT_R10G10B10A2 or "
                        "SWINUP_FORMAT_B10G11R11F, got unknown value 77");
    expect_change_fails([](swinup_dispatch_desc& d) { d.motion_vectors.format = SWINUP_FORMAT_RGBA16F; }, invalid,
                        "dispatch.motion_vectors.format");
    // The context's output format is RGBA16F.
    expect_change_fails([](swinup_dispatch_desc& d) { d.output.format = SWINUP_FORMAT_RGBA8; }, invalid,
                        "dispatch.output.format");
}

TEST_F(ApiDispatch, Misaligned) {
    swinup_dispatch_desc d = frame_.dispatch();
    d.depth.data = reinterpret_cast<const uint8_t*>(frame_.depth.data()) + 2;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.depth.data: is not aligned to 4 bytes");
    // Halves need 2-byte alignment only.
    std::vector<uint16_t> half_color(size_t(32) * 32 * 4 + 1, 0x3800);
    d = frame_.dispatch();
    d.color.format = SWINUP_FORMAT_RGBA16F;
    d.color.data = reinterpret_cast<const uint8_t*>(half_color.data()) + 1;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.color.data: is not aligned to 2 bytes");
    d.color.data = half_color.data() + 1;
    EXPECT_EQ(swinup_dispatch(ctx_.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx_.ctx);
}

TEST_F(ApiDispatch, Sizes) {
    const swinup_status invalid = SWINUP_STATUS_INVALID_ARGUMENT;
    expect_change_fails([](swinup_dispatch_desc& d) { d.color.width = 16; }, invalid, "dispatch.color.width: expected 32x32");
    expect_change_fails([](swinup_dispatch_desc& d) { d.depth.height = 64; }, invalid, "dispatch.depth.height");
    expect_change_fails(
        [](swinup_dispatch_desc& d) {  // display size, but the context expects render-size vectors
            d.motion_vectors.width = 64;
            d.motion_vectors.height = 64;
        },
        invalid, "dispatch.motion_vectors.width");
    expect_change_fails([](swinup_dispatch_desc& d) { d.output.width = 32; }, invalid,
                        "dispatch.output.width: expected 64x64");
}

TEST(ApiDispatchFlags, DisplayResolutionMotionVectorsNeedDisplaySize) {
    swinup_context_desc cd = small_context_desc();
    cd.flags = SWINUP_FLAG_MV_DISPLAY_RES;
    ContextHandle ctx(cd);
    FrameData frame(32, 32, 64, 64, SWINUP_FORMAT_RGBA16F, true);
    swinup_dispatch_desc d = frame.dispatch(true);
    d.motion_vectors.width = 32;
    d.motion_vectors.height = 32;
    EXPECT_EQ(swinup_dispatch(ctx.ctx, &d), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(ctx.ctx)).find("dispatch.motion_vectors.width"), std::string::npos);
    d = frame.dispatch(true);
    EXPECT_EQ(swinup_dispatch(ctx.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx.ctx);
}

TEST_F(ApiDispatch, RowPitch) {
    const swinup_status invalid = SWINUP_STATUS_INVALID_ARGUMENT;
    // Less than a row of RGBA32F; not a multiple of the element size; less than a row of RGBA16F.
    expect_change_fails([](swinup_dispatch_desc& d) { d.color.row_pitch = 32 * 16 - 4; }, invalid, "dispatch.color.row_pitch");
    expect_change_fails([](swinup_dispatch_desc& d) { d.depth.row_pitch = 32 * 4 + 2; }, invalid, "dispatch.depth.row_pitch");
    expect_change_fails([](swinup_dispatch_desc& d) { d.output.row_pitch = 64 * 8 - 8; }, invalid,
                        "dispatch.output.row_pitch");
}

TEST_F(ApiDispatch, MemoryKinds) {
    expect_change_fails([](swinup_dispatch_desc& d) { d.color.memory = SWINUP_MEMORY_CUDA; }, SWINUP_STATUS_UNSUPPORTED,
                        "dispatch.color.memory: SWINUP_MEMORY_CUDA needs the CUDA backend");
    expect_change_fails([](swinup_dispatch_desc& d) { d.output.memory = SWINUP_MEMORY_EXTERNAL; },
                        SWINUP_STATUS_UNSUPPORTED, "dispatch.output.memory");
    expect_change_fails([](swinup_dispatch_desc& d) { store_raw(&d.depth.memory, 9); }, SWINUP_STATUS_INVALID_ARGUMENT,
                        "dispatch.depth.memory: unknown value 9");
}

TEST_F(ApiDispatch, ExposureTexture) {
    const float exposure = 2.0f;
    swinup_dispatch_desc d = frame_.dispatch();
    d.exposure = input_resource(&exposure, SWINUP_FORMAT_RG32F, 1, 1);
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.exposure.format");
    d.exposure.format = SWINUP_FORMAT_R32F;
    d.exposure.width = 2;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.exposure.width");
    d.exposure.width = 1;
    EXPECT_EQ(swinup_dispatch(ctx_.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx_.ctx);
}

TEST_F(ApiDispatch, OutputOverlappingAnInput) {
    swinup_dispatch_desc d = frame_.dispatch();
    d.output.data_mut = frame_.color.data();  // 64*64*8 bytes = the colour's 32*32*16 bytes
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.output.data_mut: overlaps dispatch.color.data");
}

// A bottom-up image passed as its last row and a negative pitch (as D3D / GL readback code does)
// arrives as a size_t near 2^64: row y's address pointer + y * pitch wraps around the address
// space. Such a pitch was accepted (the image read upside down through wrapped addresses, or with
// the first row passed, memory before the buffer); it must be rejected naming the pitch, with the
// output and the history untouched.
TEST_F(ApiDispatch, NegativeRowPitchOfAnInput) {
    const size_t row = 32 * 16;  // RGBA32F
    swinup_dispatch_desc d = frame_.dispatch();
    d.color.data = frame_.color.data() + size_t(31) * 32 * 4;  // the last row
    d.color.row_pitch = size_t(0) - row;
    std::fill(frame_.output.begin(), frame_.output.end(), uint8_t{0xa5});
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.color.row_pitch: " + std::to_string(size_t(0) - row) +
                                                        " bytes x 32 rows runs past the end of the address space");
    EXPECT_EQ(std::count(frame_.output.begin(), frame_.output.end(), uint8_t{0xa5}),
              std::ptrdiff_t(frame_.output.size()));
    // Two rows and a pitch of minus two rows: (height - 1) * pitch + row does not overflow size_t,
    // only the address of the last byte does.
    ContextHandle thin(small_context_desc(32, 2, 64, 6));
    FrameData two_rows(32, 2, 64, 6);
    d = two_rows.dispatch();
    d.depth.data = two_rows.depth.data() + 32;
    d.depth.row_pitch = size_t(0) - 2 * 32 * 4;
    EXPECT_EQ(swinup_dispatch(thin.ctx, &d), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(thin.ctx)).find("dispatch.depth.row_pitch"), std::string::npos)
        << swinup_last_error(thin.ctx);
}

TEST_F(ApiDispatch, NegativeRowPitchOfTheOutput) {
    const size_t row = 64 * 8;  // RGBA16F
    swinup_dispatch_desc d = frame_.dispatch();
    d.output.data_mut = frame_.output.data() + size_t(63) * row;  // the last row
    d.output.row_pitch = size_t(0) - row;
    std::fill(frame_.output.begin(), frame_.output.end(), uint8_t{0xa5});
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.output.row_pitch");
    EXPECT_EQ(std::count(frame_.output.begin(), frame_.output.end(), uint8_t{0xa5}),
              std::ptrdiff_t(frame_.output.size()));
}

TEST_F(ApiDispatch, ResourceRunningPastTheEndOfTheAddressSpace) {
    // A packed resource whose end wraps around the address space. The output-overlap check's
    // arithmetic wrapped with it and let it through, and the backend crashed reading it.
    swinup_dispatch_desc d = frame_.dispatch();
    d.depth.data = reinterpret_cast<const void*>(~uintptr_t{0} & ~uintptr_t{4095});  // 4095 bytes left
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "plus the resource's 4096 bytes runs past the end of the address space");
    EXPECT_NE(std::string(swinup_last_error(ctx_.ctx)).find("dispatch.depth.data: "), std::string::npos);
}

// A rejected frame between two good ones changes nothing: the second good frame is bit-identical
// to that of a context which never saw the bad one.
TEST(ApiDispatchState, RejectedPitchLeavesTheStateUnchanged) {
    ContextHandle a(small_context_desc()), b(small_context_desc());
    FrameData fa(32, 32, 64, 64), fb(32, 32, 64, 64);
    for (FrameData* f : {&fa, &fb}) fill_pattern(*f, 0.0f);
    swinup_dispatch_desc d = fa.dispatch();
    ASSERT_EQ(swinup_dispatch(a.ctx, &d), SWINUP_STATUS_OK);
    d = fb.dispatch();
    ASSERT_EQ(swinup_dispatch(b.ctx, &d), SWINUP_STATUS_OK);
    fill_pattern(fa, 5.0f);
    d = fa.dispatch();
    d.color.data = fa.color.data() + size_t(31) * 32 * 4;
    d.color.row_pitch = size_t(0) - 32 * 16;
    ASSERT_EQ(swinup_dispatch(a.ctx, &d), SWINUP_STATUS_INVALID_ARGUMENT);
    for (FrameData* f : {&fa, &fb}) fill_pattern(*f, 1.0f);
    d = fa.dispatch();
    ASSERT_EQ(swinup_dispatch(a.ctx, &d), SWINUP_STATUS_OK);
    d = fb.dispatch();
    ASSERT_EQ(swinup_dispatch(b.ctx, &d), SWINUP_STATUS_OK);
    EXPECT_EQ(fa.output, fb.output);
}

TEST_F(ApiDispatch, SuccessClearsTheError) {
    swinup_dispatch_desc d = frame_.dispatch();
    d.jitter_x = kNaN;
    expect_fails(d, SWINUP_STATUS_INVALID_ARGUMENT, "dispatch.jitter_x");
    d = frame_.dispatch();
    ASSERT_EQ(swinup_dispatch(ctx_.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx_.ctx);
    EXPECT_STREQ(swinup_last_error(ctx_.ctx), "");
}

TEST(ApiContexts, ErrorsAreKeptPerContext) {
    ContextHandle a(small_context_desc());
    ContextHandle b(small_context_desc());
    FrameData frame(32, 32, 64, 64);
    swinup_dispatch_desc d = frame.dispatch();
    d.jitter_y = kNaN;
    EXPECT_EQ(swinup_dispatch(a.ctx, &d), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STRNE(swinup_last_error(a.ctx), "");
    EXPECT_STREQ(swinup_last_error(b.ctx), "");
}

// ---- helpers ---------------------------------------------------------------------------------

TEST(ApiHelpers, RenderSizePerMode) {
    struct Case {
        swinup_quality_mode mode;
        uint32_t w, h;  // for a 1920 x 1080 display: round(display / ratio)
    } cases[] = {{SWINUP_QUALITY_NATIVE_AA, 1920, 1080},
                 {SWINUP_QUALITY_QUALITY, 1280, 720},
                 {SWINUP_QUALITY_BALANCED, 1129, 635},  // 1129.41, 635.29
                 {SWINUP_QUALITY_PERFORMANCE, 960, 540},
                 {SWINUP_QUALITY_ULTRA_PERFORMANCE, 640, 360}};
    for (const Case& c : cases) {
        uint32_t w = 0, h = 0;
        ASSERT_EQ(swinup_get_render_size(c.mode, 1920, 1080, &w, &h), SWINUP_STATUS_OK);
        EXPECT_EQ(w, c.w) << "mode " << c.mode;
        EXPECT_EQ(h, c.h) << "mode " << c.mode;
    }
    uint32_t w = 0, h = 0;
    // 3840 x 2160 balanced: 2258.82 -> 2259, 1270.59 -> 1271.
    ASSERT_EQ(swinup_get_render_size(SWINUP_QUALITY_BALANCED, 3840, 2160, &w, &h), SWINUP_STATUS_OK);
    EXPECT_EQ(w, 2259u);
    EXPECT_EQ(h, 1271u);
    // Tiny displays stay valid context sizes (display / render <= 3, render >= 1).
    ASSERT_EQ(swinup_get_render_size(SWINUP_QUALITY_ULTRA_PERFORMANCE, 4, 1, &w, &h), SWINUP_STATUS_OK);
    EXPECT_EQ(w, 2u);  // round(4/3) = 1 would make the scale 4
    EXPECT_EQ(h, 1u);
}

TEST(ApiHelpers, RenderSizeErrors) {
    uint32_t w = 0, h = 0;
    EXPECT_EQ(render_size_with_raw_mode(9, 1920, 1080, &w, &h),
              SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("mode"), std::string::npos);
    EXPECT_EQ(swinup_get_render_size(SWINUP_QUALITY_QUALITY, 0, 1080, &w, &h), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("display_width"), std::string::npos);
    EXPECT_EQ(swinup_get_render_size(SWINUP_QUALITY_QUALITY, 1920, 9000, &w, &h), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("display_height"), std::string::npos);
    EXPECT_EQ(swinup_get_render_size(SWINUP_QUALITY_QUALITY, 1920, 1080, nullptr, &h), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("render_width"), std::string::npos);
}

TEST(ApiHelpers, UpscaleRatiosAreFsr2s) {
    const struct {
        swinup_quality_mode mode;
        float ratio;
    } cases[] = {{SWINUP_QUALITY_NATIVE_AA, 1.0f}, {SWINUP_QUALITY_QUALITY, 1.5f}, {SWINUP_QUALITY_BALANCED, 1.7f},
                 {SWINUP_QUALITY_PERFORMANCE, 2.0f}, {SWINUP_QUALITY_ULTRA_PERFORMANCE, 3.0f}};
    for (const auto& c : cases) {
        float ratio = 0.0f;
        ASSERT_EQ(swinup_get_upscale_ratio(c.mode, &ratio), SWINUP_STATUS_OK);
        EXPECT_EQ(ratio, c.ratio) << "mode " << c.mode;
        // The render size of the mode is the display size over its ratio (rounded).
        uint32_t w = 0, h = 0;
        ASSERT_EQ(swinup_get_render_size(c.mode, 3000, 1500, &w, &h), SWINUP_STATUS_OK);
        EXPECT_EQ(w, uint32_t(std::lround(3000.0 / double(c.ratio))));
    }
    float ratio = 0.0f;
    EXPECT_EQ(swinup_get_upscale_ratio(static_cast<swinup_quality_mode>(5), &ratio), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(swinup_last_error(nullptr)), "swinup_get_upscale_ratio: mode: unknown value 5");
    EXPECT_EQ(swinup_get_upscale_ratio(SWINUP_QUALITY_QUALITY, nullptr), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(swinup_last_error(nullptr)), "swinup_get_upscale_ratio: ratio is NULL");
}

// The range is what a context accepts: its ends make contexts, one pixel past them does not.
TEST(ApiHelpers, RenderSizeRangeIsWhatAContextAccepts) {
    uint32_t min_w = 0, min_h = 0, max_w = 0, max_h = 0;
    ASSERT_EQ(swinup_get_render_size_range(3840, 2160, &min_w, &min_h, &max_w, &max_h), SWINUP_STATUS_OK);
    EXPECT_EQ(min_w, 1280u);
    EXPECT_EQ(min_h, 720u);
    EXPECT_EQ(max_w, 3840u);
    EXPECT_EQ(max_h, 2160u);
    ASSERT_EQ(swinup_get_render_size_range(100, 31, &min_w, &min_h, &max_w, &max_h), SWINUP_STATUS_OK);
    EXPECT_EQ(min_w, 34u);  // 100 / 3 = 33.3: 33 would be a ratio above 3
    EXPECT_EQ(min_h, 11u);
    swinup_context_desc d = small_context_desc();
    d.backend = SWINUP_BACKEND_CPU;
    d.display_width = 100;
    d.display_height = 31;
    const auto creates = [&](uint32_t w, uint32_t h) {
        d.max_render_width = w;
        d.max_render_height = h;
        swinup_context* ctx = nullptr;
        const swinup_status s = swinup_context_create(&d, &ctx);
        swinup_context_destroy(ctx);
        return s == SWINUP_STATUS_OK;
    };
    EXPECT_TRUE(creates(min_w, min_h));
    EXPECT_TRUE(creates(max_w, max_h));
    EXPECT_FALSE(creates(min_w - 1, min_h));
    EXPECT_FALSE(creates(min_w, min_h - 1));
    EXPECT_FALSE(creates(max_w + 1, max_h));
    // Refusals name the argument.
    EXPECT_EQ(swinup_get_render_size_range(0, 1080, &min_w, &min_h, &max_w, &max_h), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(swinup_last_error(nullptr)),
              "swinup_get_render_size_range: display_width: must be 1..8192, got 0");
    EXPECT_EQ(swinup_get_render_size_range(1920, 1080, &min_w, nullptr, &max_w, &max_h), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(swinup_last_error(nullptr)), "swinup_get_render_size_range: min_render_height is NULL");
}

TEST(ApiHelpers, JitterIsHaltonTwoThreeMinusHalf) {
    // Halton(2): 1/2, 1/4, 3/4, 1/8, 5/8; Halton(3): 1/3, 2/3, 1/9, 4/9, 7/9 (indices 1..5).
    const double hx[5] = {1.0 / 2, 1.0 / 4, 3.0 / 4, 1.0 / 8, 5.0 / 8};
    const double hy[5] = {1.0 / 3, 2.0 / 3, 1.0 / 9, 4.0 / 9, 7.0 / 9};
    for (uint32_t phase = 0; phase < 5; ++phase) {
        float x = 9, y = 9;
        ASSERT_EQ(swinup_get_jitter(phase, 8, &x, &y), SWINUP_STATUS_OK);
        // The fraction rounded to float, then minus 0.5f (exact), as FSR computes it.
        EXPECT_EQ(x, float(hx[phase]) - 0.5f) << "phase " << phase;
        EXPECT_EQ(y, float(hy[phase]) - 0.5f) << "phase " << phase;
    }
    // The phase wraps modulo the count: phase 10 of 8 is phase 2.
    float x = 0, y = 0;
    ASSERT_EQ(swinup_get_jitter(10, 8, &x, &y), SWINUP_STATUS_OK);
    EXPECT_EQ(x, float(3.0 / 4) - 0.5f);
    EXPECT_EQ(y, float(1.0 / 9) - 0.5f);
    // Index 13 = 1101b -> 0.1011b = 11/16; 13 = 111 (base 3) -> 0.111 = 13/27.
    ASSERT_EQ(swinup_get_jitter(12, 72, &x, &y), SWINUP_STATUS_OK);
    EXPECT_EQ(x, float(11.0 / 16) - 0.5f);
    EXPECT_EQ(y, float(13.0 / 27) - 0.5f);
    // Every value of a full cycle is in [-0.5, 0.5).
    for (uint32_t p = 0; p < 72; ++p) {
        ASSERT_EQ(swinup_get_jitter(p, 72, &x, &y), SWINUP_STATUS_OK);
        EXPECT_GE(x, -0.5f);
        EXPECT_LT(x, 0.5f);
        EXPECT_GE(y, -0.5f);
        EXPECT_LT(y, 0.5f);
    }
}

TEST(ApiHelpers, JitterErrors) {
    float x = 0, y = 0;
    EXPECT_EQ(swinup_get_jitter(0, 0, &x, &y), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("count"), std::string::npos);
    EXPECT_EQ(swinup_get_jitter(0, 8, nullptr, &y), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("jitter_x"), std::string::npos);
}

TEST(ApiHelpers, PhaseCountIsCeilEightSSquared) {
    EXPECT_EQ(swinup_get_jitter_phase_count(1.0f), 8u);
    EXPECT_EQ(swinup_get_jitter_phase_count(1.5f), 18u);  // 8 * 2.25
    EXPECT_EQ(swinup_get_jitter_phase_count(1.7f), 24u);  // 8 * 2.89 = 23.12
    EXPECT_EQ(swinup_get_jitter_phase_count(2.0f), 32u);
    EXPECT_EQ(swinup_get_jitter_phase_count(3.0f), 72u);
    // Outside [1, 3] the nearest supported scale is used.
    EXPECT_EQ(swinup_get_jitter_phase_count(0.5f), 8u);
    EXPECT_EQ(swinup_get_jitter_phase_count(kNaN), 8u);
    EXPECT_EQ(swinup_get_jitter_phase_count(5.0f), 72u);
}

// The calls that report on the thread clear its message when they succeed, as create does: a
// stale message from an earlier failure read after a successful call would blame a field that is
// no longer wrong.
TEST(ApiHelpers, SuccessClearsTheThreadError) {
    swinup_context_desc bad = small_context_desc();
    bad.display_width = 0;
    create_error(bad, SWINUP_STATUS_INVALID_ARGUMENT);
    uint32_t w = 0, h = 0;
    ASSERT_EQ(swinup_get_render_size(SWINUP_QUALITY_QUALITY, 1920, 1080, &w, &h), SWINUP_STATUS_OK);
    EXPECT_STREQ(swinup_last_error(nullptr), "");

    float x = 0, y = 0;
    EXPECT_EQ(swinup_get_jitter(0, 0, &x, &y), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STRNE(swinup_last_error(nullptr), "");
    ASSERT_EQ(swinup_get_jitter(0, 8, &x, &y), SWINUP_STATUS_OK);
    EXPECT_STREQ(swinup_last_error(nullptr), "");

    ContextHandle ctx(small_context_desc());
    swinup_context_info info;
    EXPECT_EQ(swinup_context_get_info(ctx.ctx, nullptr), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STRNE(swinup_last_error(nullptr), "");
    ASSERT_EQ(swinup_context_get_info(ctx.ctx, &info), SWINUP_STATUS_OK);
    EXPECT_STREQ(swinup_last_error(nullptr), "");
}

TEST(ApiHelpers, StatusNames) {
    EXPECT_STREQ(swinup_status_name(SWINUP_STATUS_OK), "SWINUP_STATUS_OK");
    EXPECT_STREQ(swinup_status_name(SWINUP_STATUS_INVALID_ARGUMENT), "SWINUP_STATUS_INVALID_ARGUMENT");
    EXPECT_STREQ(swinup_status_name(SWINUP_STATUS_INTERNAL), "SWINUP_STATUS_INTERNAL");
    EXPECT_STREQ(status_name_of_raw(-42), "SWINUP_STATUS_UNKNOWN");
}

TEST(ApiHelpers, DescriptorDefaults) {
    swinup_context_desc c;
    swinup_context_desc_init(&c);
    EXPECT_EQ(c.struct_size, sizeof(swinup_context_desc));
    EXPECT_EQ(c.backend, SWINUP_BACKEND_AUTO);
    EXPECT_EQ(c.variant, SWINUP_VARIANT_LITE);
    EXPECT_EQ(c.precision, SWINUP_PRECISION_EXACT);
    EXPECT_EQ(c.flags, 0u);
    EXPECT_EQ(c.output_format, SWINUP_FORMAT_RGBA16F);
    EXPECT_EQ(c.weights_source, SWINUP_WEIGHTS_EMBEDDED);
    swinup_dispatch_desc d;
    swinup_dispatch_desc_init(&d);
    EXPECT_EQ(d.struct_size, sizeof(swinup_dispatch_desc));
    EXPECT_EQ(d.mv_scale_x, 1.0f);
    EXPECT_EQ(d.mv_scale_y, 1.0f);
    EXPECT_EQ(d.exposure_value, 1.0f);
    EXPECT_EQ(d.pre_exposure, 1.0f);
    EXPECT_EQ(d.reset, 0);
    EXPECT_EQ(d.exposure.data, nullptr);
    swinup_context_desc_init(nullptr);  // allowed, does nothing
    swinup_dispatch_desc_init(nullptr);
}

}  // namespace
}  // namespace swinup::test
