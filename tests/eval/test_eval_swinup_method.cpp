// The network as an evaluated method: the sequence's masks reach swinup_dispatch as its
// reactive_mask / transparency_mask (R32F host planes), and a frame without masks dispatches none.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "eval/swinup_method.h"
#include "sequence_fixture.h"

using swinup::Frame;
using swinup::Image;
using swinup::SequenceInfo;
namespace ev = swinup::eval;

namespace {

constexpr int kRender = 16, kDisplay = 32;

Frame textured_frame(int index) {
    Frame f = swinup::test::blank_frame(kRender, kRender);
    for (int y = 0; y < kRender; ++y)
        for (int x = 0; x < kRender; ++x)
            for (int c = 0; c < 3; ++c) f.color.at(x, y, c) = float((x * 3 + y * 5 + c + index) % 7) / 7.0f;
    return f;
}

ev::SwinupMethodOptions cpu_lite() {
    ev::SwinupMethodOptions o;
    o.backend = SWINUP_BACKEND_CPU;
    o.variant = SWINUP_VARIANT_LITE;
    o.precision = SWINUP_PRECISION_EXACT;
    return o;
}

// Frames 0..frames-1 through one context; `masks` (if not empty) given with every frame.
Image run(const SequenceInfo& info, int frames, const Image& masks) {
    ev::SwinupUpscaler method(cpu_lite());
    Image out;
    for (int i = 0; i < frames; ++i) {
        Frame f = textured_frame(i);
        f.masks = masks;
        out = method.upscale({info, f, i, 0.0f, 0.0f, 1.0f, i == 0});
    }
    return out;
}

}  // namespace

// A mask value the API refuses comes back as the dispatch's error naming the mask: the masks do
// reach the dispatch.
TEST(EvalSwinupMethod, MasksReachTheDispatch) {
    const SequenceInfo info = swinup::test::sequence_info(kRender, kRender, kDisplay, kDisplay, 1);
    Image masks(kRender, kRender, 2, 0.0f);
    masks.at(3, 4, 0) = 1.5f;
    ev::SwinupUpscaler method(cpu_lite());
    Frame f = textured_frame(0);
    f.masks = masks;
    try {
        method.upscale({info, f, 0, 0.0f, 0.0f, 1.0f, true});
        FAIL() << "a reactive value of 1.5 was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("reactive_mask"), std::string::npos) << e.what();
    }
    masks.at(3, 4, 0) = 0.0f;
    masks.at(5, 6, 1) = -0.5f;
    f.masks = masks;
    ev::SwinupUpscaler other(cpu_lite());
    try {
        other.upscale({info, f, 0, 0.0f, 0.0f, 1.0f, true});
        FAIL() << "a transparency value of -0.5 was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("transparency_mask"), std::string::npos) << e.what();
    }
}

// Masks of zero are no masks: the same frames to the last bit.
TEST(EvalSwinupMethod, ZeroMasksGiveTheFramesOfNoMasks) {
    const SequenceInfo info = swinup::test::sequence_info(kRender, kRender, kDisplay, kDisplay, 3);
    EXPECT_EQ(run(info, 3, Image()).data, run(info, 3, Image(kRender, kRender, 2, 0.0f)).data);
}

// The Vulkan backend reads the masks (since 2026-12-05, f667292): it scores a sequence whose
// masks are zero everywhere and one with a non-zero mask.
TEST(EvalSwinupMethod, MasksRunOnTheVulkanBackend) {
    const SequenceInfo info = swinup::test::sequence_info(kRender, kRender, kDisplay, kDisplay, 2);
    ev::SwinupMethodOptions vulkan = cpu_lite();
    vulkan.backend = SWINUP_BACKEND_VULKAN;
    Frame f = textured_frame(0);
    f.masks = Image(kRender, kRender, 2, 0.0f);
    ev::SwinupUpscaler method(vulkan);
    try {
        method.upscale({info, f, 0, 0.0f, 0.0f, 1.0f, true});
    } catch (const std::runtime_error& e) {
        if (std::string(e.what()).find("context creation failed") != std::string::npos) {
            GTEST_SKIP() << "no Vulkan device: " << e.what();
        }
        FAIL() << e.what();
    }
    f.masks.at(2, 2, 0) = 0.5f;
    try {
        method.upscale({info, f, 1, 0.0f, 0.0f, 1.0f, false});
    } catch (const std::runtime_error& e) {
        FAIL() << "the Vulkan backend refused a mask: " << e.what();
    }
}
