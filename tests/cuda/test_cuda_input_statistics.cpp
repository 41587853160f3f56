// The CUDA backend's input statistics (swinup_context_get_input_statistics) over more frames than
// it has counter slots (CudaBackend::kCountSlots, 8): every frame repairs a known number of pixels
// (NaN / Inf colour, Inf / NaN depth, NaN / Inf motion; NaN transparency on the frames with a
// mask), the frames change render size and masks' presence (so several frame graphs publish), and
// the statistics are read midway and at the end. Each reading must be the sum of the frames
// dispatched so far, in exact and fast mode, from host and device pointers, with the counters
// published by the staging kernel (NetworkFusions::published_counts, a candidate) and with the
// memset-and-copy path (the default, which the C API's contexts run). The expected counts are the test's own arithmetic,
// checked against the CPU backend's counts of the same frames (no GPU needed for that).
// GPU tests (label gpu): they skip, saying so, without a CUDA GPU of compute capability 8.9+.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "api/backend.h"
#include "api/resource_desc.h"
#include "gpu_test_support.h"
#include "input_statistics_check.h"
#include "swinup/swinup.h"

#ifdef SWINUP_HAVE_CUDA
#include "cuda/tools/cuda_tools.h"
#endif

namespace swinup {
namespace {

constexpr int kFrames = 20;  // more than twice the backend's 8 counter slots
constexpr uint32_t kMaxRenderW = 40, kMaxRenderH = 24, kDisplayW = 80, kDisplayH = 48;
const std::vector<size_t> kReadAfter = {4, 11, kFrames - 1};  // frame indices after which to read

// One frame's inputs (RGBA32F colour, R32F depth, RG32F motion, optionally an R32F transparency
// mask) and the pixels it repairs.
struct Frame {
    uint32_t width = 0, height = 0;
    std::vector<float> color, depth, motion, transparency;  // transparency empty: no masks
    InputStatistics repaired;                               // frames = 1
};

// Frame f: every third frame at a smaller render size, every fourth (from 1) with a mask; the
// repaired pixels' counts change from frame to frame, none the same sequence as another.
Frame make_frame(int f) {
    Frame fr;
    const bool small = f % 3 == 2;
    fr.width = small ? 32 : kMaxRenderW;
    fr.height = small ? 20 : kMaxRenderH;
    const size_t pixels = size_t(fr.width) * fr.height;
    fr.color.resize(pixels * 4);
    fr.depth.assign(pixels, 0.5f);
    fr.motion.assign(pixels * 2, 0.25f);
    for (size_t i = 0; i < pixels; ++i) {
        for (int c = 0; c < 3; ++c) fr.color[i * 4 + c] = 0.1f + 0.02f * float((i + c * 7 + f) % 31);
        fr.color[i * 4 + 3] = 1.0f;
    }
    fr.repaired.frames = 1;
    // Colour: 1 to 3 pixels; the first has NaN and Inf in two channels, which counts once.
    const int colour_pixels = 1 + f % 3;
    for (int k = 0; k < colour_pixels; ++k) fr.color[size_t(7 * k) * 4 + 2] = NAN;
    fr.color[1] = INFINITY;
    fr.repaired.color_nonfinite = uint64_t(colour_pixels);
    // Depth: 0 to 3 values from the end, +Inf and NaN alternating.
    const int depth_pixels = f % 4;
    for (int k = 0; k < depth_pixels; ++k) fr.depth[pixels - 1 - size_t(5 * k)] = k % 2 ? NAN : INFINITY;
    fr.repaired.depth_nonfinite = uint64_t(depth_pixels);
    // Motion: 0 to 4 pixels, NaN in x or -Inf in y; the first has both, which counts once.
    const int motion_pixels = (2 * f) % 5;
    for (int k = 0; k < motion_pixels; ++k) {
        const size_t p = 3 + size_t(11 * k);
        if (k % 2) {
            fr.motion[p * 2 + 1] = -INFINITY;
        } else {
            fr.motion[p * 2 + 0] = NAN;
        }
        if (k == 0) fr.motion[p * 2 + 1] = NAN;
    }
    fr.repaired.motion_nonfinite = uint64_t(motion_pixels);
    // The transparency mask: 1 or 2 NaN pixels (a mask's NaN is counted, never refused).
    if (f % 4 == 1) {
        fr.transparency.assign(pixels, 0.25f);
        const int nan_pixels = 1 + (f / 4) % 2;
        for (int k = 0; k < nan_pixels; ++k) fr.transparency[9 + size_t(13 * k)] = NAN;
        fr.repaired.transparency_nonfinite = uint64_t(nan_pixels);
    }
    return fr;
}

std::vector<Frame> make_frames() {
    std::vector<Frame> frames;
    for (int f = 0; f < kFrames; ++f) frames.push_back(make_frame(f));
    return frames;
}

void add(InputStatistics& total, const InputStatistics& frame) {
    total.frames += frame.frames;
    total.color_nonfinite += frame.color_nonfinite;
    total.depth_nonfinite += frame.depth_nonfinite;
    total.motion_nonfinite += frame.motion_nonfinite;
    total.reactive_nonfinite += frame.reactive_nonfinite;
    total.transparency_nonfinite += frame.transparency_nonfinite;
    total.reactive_out_of_range += frame.reactive_out_of_range;
    total.transparency_out_of_range += frame.transparency_out_of_range;
}

// The statistics expected after each frame of kReadAfter: the sums of the frames up to it.
std::vector<InputStatistics> expected_readings(const std::vector<Frame>& frames) {
    std::vector<InputStatistics> readings;
    InputStatistics total;
    size_t next = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
        add(total, frames[i].repaired);
        if (next < kReadAfter.size() && kReadAfter[next] == i) {
            readings.push_back(total);
            ++next;
        }
    }
    return readings;
}

swinup_context_desc context(swinup_backend backend, swinup_precision precision) {
    swinup_context_desc desc = sized_context_desc(kMaxRenderW, kMaxRenderH, kDisplayW, kDisplayH);
    desc.backend = backend;
    desc.variant = SWINUP_VARIANT_LITE;
    desc.precision = precision;
    desc.output_format = SWINUP_FORMAT_RGBA16F;
    desc.flags = SWINUP_FLAG_HDR;
    return desc;
}

// The frame's dispatch descriptor on the given pixels (host or device memory alike).
swinup_dispatch_desc dispatch_desc(const Frame& fr, const void* color, const void* depth, const void* motion,
                                   const void* transparency, void* output, swinup_memory memory) {
    swinup_dispatch_desc d = frame_dispatch_desc(
        input_resource(color, SWINUP_FORMAT_RGBA32F, fr.width, fr.height, memory),
        input_resource(depth, SWINUP_FORMAT_R32F, fr.width, fr.height, memory),
        input_resource(motion, SWINUP_FORMAT_RG32F, fr.width, fr.height, memory),
        output_resource(output, SWINUP_FORMAT_RGBA16F, kDisplayW, kDisplayH, memory));
    if (transparency != nullptr)
        d.transparency_mask = input_resource(transparency, SWINUP_FORMAT_R32F, fr.width, fr.height, memory);
    return d;
}

// The expected counts are right: the CPU backend, through the C API, reads the same statistics
// after the same frames (host memory). Needs no GPU.
TEST(CudaInputStatistics, TheExpectedCountsAreTheCpuBackendsCounts) {
    const std::vector<Frame> frames = make_frames();
    const swinup_context_desc desc = context(SWINUP_BACKEND_CPU, SWINUP_PRECISION_FAST);
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    std::vector<uint16_t> output(size_t(kDisplayW) * kDisplayH * 4);
    const std::vector<InputStatistics> expected = expected_readings(frames);
    size_t next = 0;
    for (size_t i = 0; i < frames.size(); ++i) {
        const Frame& fr = frames[i];
        const swinup_dispatch_desc d =
            dispatch_desc(fr, fr.color.data(), fr.depth.data(), fr.motion.data(),
                          fr.transparency.empty() ? nullptr : fr.transparency.data(), output.data(), SWINUP_MEMORY_HOST);
        ASSERT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << "frame " << i << ": " << swinup_last_error(ctx);
        if (next < kReadAfter.size() && kReadAfter[next] == i) {
            swinup_input_statistics s{};
            s.struct_size = SWINUP_INPUT_STATISTICS_SIZE_V1;
            ASSERT_EQ(swinup_context_get_input_statistics(ctx, &s), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
            SCOPED_TRACE("after frame " + std::to_string(i));
            test::expect_same_counts(s, expected[next]);
            ++next;
        }
    }
    swinup_context_destroy(ctx);
}

#ifdef SWINUP_HAVE_CUDA
// The frames' pixels in device memory, one set per frame (uploaded before the first dispatch, so
// that the frames are enqueued back to back and run while later ones are dispatched), and one
// device output.
struct DeviceFrames {
    std::vector<void*> allocations;
    std::vector<swinup_dispatch_desc> descs;
    void* output = nullptr;

    explicit DeviceFrames(const std::vector<Frame>& frames) {
        output = alloc(size_t(kDisplayW) * kDisplayH * 8);
        for (const Frame& fr : frames) {
            const void* color = upload(fr.color);
            const void* depth = upload(fr.depth);
            const void* motion = upload(fr.motion);
            const void* transparency = fr.transparency.empty() ? nullptr : upload(fr.transparency);
            descs.push_back(dispatch_desc(fr, color, depth, motion, transparency, output, SWINUP_MEMORY_CUDA));
        }
    }
    ~DeviceFrames() {
        for (void* p : allocations) cuda_tools::device_free(p);
    }
    DeviceFrames(const DeviceFrames&) = delete;
    DeviceFrames& operator=(const DeviceFrames&) = delete;

private:
    void* alloc(size_t bytes) {
        allocations.push_back(cuda_tools::device_alloc(bytes));
        return allocations.back();
    }
    const void* upload(const std::vector<float>& v) {
        void* p = alloc(v.size() * sizeof(float));
        cuda_tools::copy_to_device(p, v.data(), v.size() * sizeof(float));
        return p;
    }
};

struct StatisticsCase {
    swinup_precision precision;
    swinup_memory memory;
    bool published;  // NetworkFusions::published_counts
};

std::string case_name(const testing::TestParamInfo<StatisticsCase>& info) {
    const StatisticsCase& c = info.param;
    return std::string(c.precision == SWINUP_PRECISION_EXACT ? "Exact" : "Fast") +
           (c.memory == SWINUP_MEMORY_HOST ? "Host" : "Device") + (c.published ? "Published" : "Copied");
}

class CudaInputStatisticsSlots : public testing::TestWithParam<StatisticsCase> {};

// Every reading (midway and at the end) is the sum of the frames dispatched up to it.
TEST_P(CudaInputStatisticsSlots, EveryReadingIsTheSumOfTheFramesSoFar) {
    SWINUP_REQUIRE_GPU();
    const StatisticsCase& c = GetParam();
    const std::vector<Frame> frames = make_frames();
    std::vector<uint16_t> host_output(size_t(kDisplayW) * kDisplayH * 4);
    std::vector<swinup_dispatch_desc> descs;
    std::unique_ptr<DeviceFrames> device;
    if (c.memory == SWINUP_MEMORY_HOST) {
        for (const Frame& fr : frames)
            descs.push_back(dispatch_desc(fr, fr.color.data(), fr.depth.data(), fr.motion.data(),
                                          fr.transparency.empty() ? nullptr : fr.transparency.data(),
                                          host_output.data(), SWINUP_MEMORY_HOST));
    } else {
        device = std::make_unique<DeviceFrames>(frames);
        descs = device->descs;
    }
    cuda::NetworkFusions fusions;
    fusions.published_counts = c.published;
    const std::vector<InputStatistics> got = cuda_tools::dispatch_reading_statistics(
        context(SWINUP_BACKEND_CUDA, c.precision), fusions, descs, kReadAfter);
    const std::vector<InputStatistics> want = expected_readings(frames);
    ASSERT_EQ(got.size(), want.size());
    for (size_t r = 0; r < want.size(); ++r) {
        SCOPED_TRACE("after frame " + std::to_string(kReadAfter[r]));
        test::expect_same_counts(got[r], want[r]);
    }
}

INSTANTIATE_TEST_SUITE_P(
    PrecisionMemoryHandOver, CudaInputStatisticsSlots,
    testing::Values(StatisticsCase{SWINUP_PRECISION_EXACT, SWINUP_MEMORY_HOST, true},
                    StatisticsCase{SWINUP_PRECISION_EXACT, SWINUP_MEMORY_CUDA, true},
                    StatisticsCase{SWINUP_PRECISION_FAST, SWINUP_MEMORY_HOST, true},
                    StatisticsCase{SWINUP_PRECISION_FAST, SWINUP_MEMORY_CUDA, true},
                    StatisticsCase{SWINUP_PRECISION_EXACT, SWINUP_MEMORY_CUDA, false},
                    StatisticsCase{SWINUP_PRECISION_FAST, SWINUP_MEMORY_CUDA, false}),
    case_name);

// Through the C API, device pointers (the dispatch returns before the frame has run, so frames
// queue up behind each other): nothing counted at creation; each reading (midway and at the end)
// is the sum of the frames so far, in both precisions. Between the readings the context collects
// the slots of the frames it sees completed after every dispatch (for its warnings) while later
// frames run, and each frame claims a slot whose frame 8 back may still be running.
TEST(CudaInputStatistics, TheCApiReadsEveryFrameWhileLaterFramesRun) {
    SWINUP_REQUIRE_GPU();
    const std::vector<Frame> frames = make_frames();
    const std::vector<InputStatistics> want = expected_readings(frames);
    const DeviceFrames device(frames);
    for (swinup_precision precision : {SWINUP_PRECISION_EXACT, SWINUP_PRECISION_FAST}) {
        SCOPED_TRACE(precision == SWINUP_PRECISION_EXACT ? "exact" : "fast");
        const swinup_context_desc desc = context(SWINUP_BACKEND_CUDA, precision);
        swinup_context* ctx = nullptr;
        ASSERT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
        swinup_input_statistics s{};
        s.struct_size = SWINUP_INPUT_STATISTICS_SIZE_V1;
        ASSERT_EQ(swinup_context_get_input_statistics(ctx, &s), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
        test::expect_same_counts(s, InputStatistics{});
        size_t next = 0;
        for (size_t i = 0; i < device.descs.size(); ++i) {
            ASSERT_EQ(swinup_dispatch(ctx, &device.descs[i]), SWINUP_STATUS_OK)
                << "frame " << i << ": " << swinup_last_error(ctx);
            if (next < kReadAfter.size() && kReadAfter[next] == i) {
                ASSERT_EQ(swinup_context_get_input_statistics(ctx, &s), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
                SCOPED_TRACE("after frame " + std::to_string(i));
                test::expect_same_counts(s, want[next]);
                ++next;
            }
        }
        swinup_context_destroy(ctx);
    }
}
#endif

}  // namespace
}  // namespace swinup
