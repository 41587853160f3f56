// The reactive and transparency masks (docs/masks.md) through whole frames of the Vulkan backend on
// host pointers, against the CPU backend: staging's mask plane, the output pass's rule and the
// input statistics. Both backends run the same stand-in network (head outputs that vary per pixel,
// written by the test), so that everything around the network, which is all the masks act on in
// weights without mask_embed, must agree byte for byte in exact mode. Frames of 37x23 -> 80x50,
// the left half still (the still-pixel shift acts, so the transparency mask matters), the right
// half sliding; a reactive disc that moves, a transparency pane with a NaN pixel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/resource_desc.h"
#include "input_statistics_check.h"
#include "cpu/cpu_backend.h"
#include "model/model_spec.h"
#include "model/weights.h"
#include "numeric/half.h"
#include "sliding_plane_frames.h"
#include "swinup/swinup.h"
#include "vulkan/backend/vulkan_backend.h"
#include "vulkan_test_support.h"

namespace swinup::vulkan {
namespace {

using testing::VulkanTest;

constexpr int kRw = 37, kRh = 23, kDw = 80, kDh = 50;
constexpr int kFrames = 3;

// The stand-in network's head outputs at padded pixel (x, y), output k: alpha (7) from -2 to 2.5
// across the frame, the kernel's sigmas and angle (4-6) varying, the rest small.
float head_value(int x, int y, int k) {
    const float u = float(x) / float(kRw), v = float(y) / float(kRh);
    if (k == kHeadAlpha) return -2.0f + 4.5f * u * (0.5f + 0.5f * v);
    return 0.25f * std::sin(1.3f * float(k) + 0.7f * float(x) - 0.4f * float(y));
}

std::vector<float> stand_in_head(int padded_width, int padded_height) {
    std::vector<float> head(size_t(padded_width) * padded_height * kHeadOutputs);
    for (int y = 0; y < padded_height; ++y)
        for (int x = 0; x < padded_width; ++x)
            for (int k = 0; k < kHeadOutputs; ++k)
                head[(size_t(y) * padded_width + x) * kHeadOutputs + k] = head_value(x, y, k);
    return head;
}

void cpu_network(const float*, int pw, int ph, uint64_t, float* head) {
    const std::vector<float> h = stand_in_head(pw, ph);
    std::memcpy(head, h.data(), h.size() * sizeof(float));
}

// The same head on the device: uploaded into the head buffer within the frame's recording.
struct DeviceNetwork {
    Device& device;
    std::shared_ptr<Buffer> upload;  // shared: std::function copies the network
    void operator()(Recorder& rec, const Buffer&, int pw, int ph, uint64_t, const Buffer& head) {
        const std::vector<float> h = stand_in_head(pw, ph);
        if (!upload) upload = std::make_shared<Buffer>(device, h.size() * sizeof(float), MemoryUse::Upload);
        upload->write(h.data(), h.size() * sizeof(float));
        rec.copy_buffer(*upload, 0, head, 0, h.size() * sizeof(float));
    }
};

// Frame f's inputs (the sliding plane of sliding_plane_frames.h, its left half still) and masks.
// Mask formats: SWINUP_FORMAT_UNKNOWN = absent.
struct MaskedFrame : test::SlidingPlaneFrame {
    std::vector<uint8_t> reactive, transparency;
    swinup_format reactive_format, transparency_format;
    std::vector<uint8_t> output;

    MaskedFrame(int f, swinup_format reactive_fmt, swinup_format transparency_fmt, bool zero_masks = false)
        : SlidingPlaneFrame(kRw, kRh, f, /*still_left_half=*/true), reactive_format(reactive_fmt),
          transparency_format(transparency_fmt), output(size_t(kDw) * kDh * 8, 0xcd) {
        // Reactive: a disc moving right with a soft edge. Transparency: a pane over both halves.
        std::vector<float> r(size_t(kRw) * kRh), t(size_t(kRw) * kRh);
        for (int y = 0; y < kRh; ++y)
            for (int x = 0; x < kRw; ++x) {
                const size_t i = size_t(y) * kRw + x;
                const float d = std::hypot(float(x) - (8.0f + 5.0f * float(f)), float(y) - 11.0f);
                r[i] = zero_masks ? 0.0f : std::min(1.0f, std::max(0.0f, (7.0f - d) / 3.0f));
                t[i] = zero_masks ? 0.0f : (y >= 4 && y < 19 && x >= 6 && x < 30 ? 0.25f + 0.03f * float(x - 6) : 0.0f);
            }
        if (!zero_masks) t[size_t(10) * kRw + 12] = NAN;  // read as 0 and counted
        encode(r, reactive_format, reactive);
        encode(t, transparency_format, transparency);
    }

    static void encode(const std::vector<float>& v, swinup_format format, std::vector<uint8_t>& bytes) {
        if (format == SWINUP_FORMAT_R8_UNORM) {
            bytes.resize(v.size());
            for (size_t i = 0; i < v.size(); ++i) bytes[i] = uint8_t(std::isnan(v[i]) ? 0 : std::lround(v[i] * 255.0f));
        } else if (format == SWINUP_FORMAT_R16F) {
            bytes.resize(v.size() * 2);
            for (size_t i = 0; i < v.size(); ++i) {
                const uint16_t h = f32_to_f16_bits(v[i]);
                std::memcpy(&bytes[i * 2], &h, 2);
            }
        } else if (format == SWINUP_FORMAT_R32F) {
            bytes.resize(v.size() * 4);
            std::memcpy(bytes.data(), v.data(), bytes.size());
        }
    }

    swinup_dispatch_desc describe(int f) {
        output.assign(output.size(), 0xcd);
        swinup_dispatch_desc d = dispatch_desc(output.data(), SWINUP_FORMAT_RGBA16F, kDw, kDh);
        swinup_get_jitter(uint32_t(f), swinup_get_jitter_phase_count(float(kDw) / float(kRw)), &d.jitter_x, &d.jitter_y);
        if (reactive_format != SWINUP_FORMAT_UNKNOWN) d.reactive_mask = input_resource(reactive.data(), reactive_format, kRw, kRh);
        if (transparency_format != SWINUP_FORMAT_UNKNOWN) {
            d.transparency_mask = input_resource(transparency.data(), transparency_format, kRw, kRh);
        }
        return d;
    }
};

swinup_context_desc context() {
    swinup_context_desc desc = test::sliding_plane_context_desc(kRw, kRh, kDw, kDh, SWINUP_FORMAT_RGBA16F);
    desc.variant = SWINUP_VARIANT_LITE;
    desc.precision = SWINUP_PRECISION_EXACT;
    return desc;
}

std::vector<std::vector<uint8_t>> run(Backend& backend, swinup_format reactive, swinup_format transparency,
                                      bool zero_masks = false) {
    std::vector<std::vector<uint8_t>> outputs;
    for (int f = 0; f < kFrames; ++f) {
        MaskedFrame frame(f, reactive, transparency, zero_masks);
        const swinup_dispatch_desc d = frame.describe(f);
        std::string error;
        EXPECT_EQ(backend.dispatch(d, uint64_t(f), &error), SWINUP_STATUS_OK) << error;
        outputs.push_back(frame.output);
    }
    return outputs;
}

InputStatistics statistics(const Backend& backend) {
    InputStatistics s;
    std::string error;
    EXPECT_EQ(backend.input_statistics(&s, &error), SWINUP_STATUS_OK) << error;
    return s;
}

class VulkanMasks : public VulkanTest {
protected:
    std::shared_ptr<const Weights> weights() {
        std::string error;
        auto w = weights_load_embedded(Variant::lite, &error);
        EXPECT_TRUE(w) << error;
        return w;
    }
    std::unique_ptr<VulkanBackend> vulkan_backend() {
        return std::make_unique<VulkanBackend>(context(), weights(), device(), nullptr,
                                               DeviceNetwork{device(), nullptr});
    }
};

// Exact mode: every frame's bytes equal the CPU backend's, for each mask format, and the masks act
// (the frames differ from those without masks). The statistics agree with the CPU's.
TEST_F(VulkanMasks, HostMasksGiveTheCpuBackendsBytes) {
    const auto w = weights();
    ASSERT_TRUE(w);
    ASSERT_NE(w->config.still_history_shift, 0.0f) << "the transparency mask acts only where the shift does";
    cpu::CpuBackend unmasked(context(), w, cpu_network);
    const auto without = run(unmasked, SWINUP_FORMAT_UNKNOWN, SWINUP_FORMAT_UNKNOWN);
    const struct {
        swinup_format reactive, transparency;
    } cases[] = {{SWINUP_FORMAT_R8_UNORM, SWINUP_FORMAT_R16F},
                 {SWINUP_FORMAT_R32F, SWINUP_FORMAT_UNKNOWN},
                 {SWINUP_FORMAT_UNKNOWN, SWINUP_FORMAT_R32F}};
    for (const auto& c : cases) {
        SCOPED_TRACE("reactive format " + std::to_string(c.reactive) + ", transparency format " +
                     std::to_string(c.transparency));
        cpu::CpuBackend cpu(context(), w, cpu_network);
        const auto gpu = vulkan_backend();
        const auto want = run(cpu, c.reactive, c.transparency);
        const auto got = run(*gpu, c.reactive, c.transparency);
        for (int f = 0; f < kFrames; ++f) {
            EXPECT_TRUE(got[f] == want[f]) << "frame " << f << " differs from the CPU backend's";
            if (f > 0) {
                EXPECT_FALSE(want[f] == without[f]) << "frame " << f << ": the masks changed nothing";
            }
        }
        const InputStatistics a = statistics(*gpu), b = statistics(cpu);
        EXPECT_EQ(a.frames, uint64_t(kFrames));
        test::expect_same_counts(a, b);
        const bool float_transparency = c.transparency == SWINUP_FORMAT_R16F || c.transparency == SWINUP_FORMAT_R32F;
        EXPECT_EQ(a.transparency_nonfinite, float_transparency ? uint64_t(kFrames) : 0u)
            << "one NaN pixel a frame in a float transparency mask";
        EXPECT_EQ(a.reactive_out_of_range + a.transparency_out_of_range, 0u);
    }
}

// Masks that are 0 everywhere give the bytes of a frame without masks (R8_UNORM and R16F).
TEST_F(VulkanMasks, ZeroMasksGiveTheBytesOfNoMasks) {
    const auto none = vulkan_backend();
    const auto zero = vulkan_backend();
    const auto want = run(*none, SWINUP_FORMAT_UNKNOWN, SWINUP_FORMAT_UNKNOWN);
    const auto got = run(*zero, SWINUP_FORMAT_R8_UNORM, SWINUP_FORMAT_R16F, true);
    for (int f = 0; f < kFrames; ++f) EXPECT_TRUE(got[f] == want[f]) << "frame " << f;
}

}  // namespace
}  // namespace swinup::vulkan
