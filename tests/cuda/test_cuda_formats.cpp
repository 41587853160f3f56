// The packed formats and sRGB colour input on the CUDA backend, which reads and writes them with the
// CPU's definitions (frame/input_image.h, frame/output_encoding.h, frame/pixel_ops.h): host-pointer
// frames of each (tests/support/packed_format_frames.h, srgb_input_frames.h) against the CPU
// backend's, exact mode, within the exact-mode frame bound (the count of byte-identical frames is
// printed), and the packed frames equal to those of their float equivalents on the CUDA backend.
// Skipped without a CUDA GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <utility>
#include <string>

#include "gpu_test_support.h"
#include "packed_format_frames.h"
#include "srgb_input_frames.h"

namespace swinup {
namespace {

using namespace test;

void expect_near_cpu(const std::vector<std::vector<uint8_t>>& gpu, const std::vector<std::vector<uint8_t>>& cpu,
                     swinup_format output, const char* what) {
    ASSERT_EQ(gpu.size(), cpu.size());
    int identical = 0;
    double worst = 0.0;
    for (size_t f = 0; f < cpu.size(); ++f) {
        identical += gpu[f] == cpu[f];
        worst = std::max(worst, gpu_test::relative_rms(decode_output_rgb(gpu[f], output), decode_output_rgb(cpu[f], output)));
    }
    std::printf("[ cuda     ] %s: %d of %zu frames byte-identical to the CPU's, worst relative RMS %.3g\n", what,
                identical, cpu.size(), worst);
    EXPECT_LE(worst, kExactFrameBound);
}

class CudaFormats : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        if (!gpu_test::gpu_ready(&why)) GTEST_SKIP() << why;
    }
};

TEST_F(CudaFormats, PackedColourAndDepthAreReadAsOnTheCpu) {
    std::string skip;
    for (const auto& [color, depth] : {std::pair{SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D24_UNORM_S8},
                                       std::pair{SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_D32F_S8}}) {
        const auto packed = run_packed_frames(SWINUP_BACKEND_CUDA, color, depth, false, SWINUP_FORMAT_RGBA16F, &skip);
        const auto floats = run_packed_frames(SWINUP_BACKEND_CUDA, color, depth, true, SWINUP_FORMAT_RGBA16F, &skip);
        const auto cpu = run_packed_frames(SWINUP_BACKEND_CPU, color, depth, false, SWINUP_FORMAT_RGBA16F, &skip);
        ASSERT_EQ(packed.size(), size_t(kPackedFrames)) << skip;
        ASSERT_EQ(floats.size(), size_t(kPackedFrames)) << skip;
        for (int f = 0; f < kPackedFrames; ++f) EXPECT_TRUE(packed[f] == floats[f]) << "frame " << f;
        expect_near_cpu(packed, cpu, SWINUP_FORMAT_RGBA16F, "packed inputs");
    }
}

TEST_F(CudaFormats, B10G11R11FOutputIsWrittenAsOnTheCpu) {
    std::string skip;
    const auto gpu = run_packed_frames(SWINUP_BACKEND_CUDA, SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D32F_S8, true,
                                       SWINUP_FORMAT_B10G11R11F, &skip);
    const auto cpu = run_packed_frames(SWINUP_BACKEND_CPU, SWINUP_FORMAT_B10G11R11F, SWINUP_FORMAT_D32F_S8, true,
                                       SWINUP_FORMAT_B10G11R11F, &skip);
    ASSERT_EQ(gpu.size(), size_t(kPackedFrames)) << skip;
    expect_near_cpu(gpu, cpu, SWINUP_FORMAT_B10G11R11F, "B10G11R11F output");
}

TEST_F(CudaFormats, SrgbInputIsDecodedAsOnTheCpu) {
    for (bool auto_exposure : {false, true}) {
        const auto gpu = expect_srgb_frames_equal_decoded(SWINUP_BACKEND_CUDA, auto_exposure);
        std::string skip;
        const auto cpu = run_srgb_frames(SWINUP_BACKEND_CPU, SrgbCase::kCodesWithFlag, auto_exposure, &skip);
        expect_near_cpu(gpu, cpu, SWINUP_FORMAT_RGBA16F, auto_exposure ? "sRGB input, auto exposure" : "sRGB input");
    }
}

}  // namespace
}  // namespace swinup
