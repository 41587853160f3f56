// The Vulkan runtime (src/vulkan/runtime/): a trivial embedded shader through buffers, a sampled
// image and a storage image, the recorder's checks and the errors that name what is wrong.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "vulkan/runtime/device.h"
#include "vulkan/runtime/memory.h"
#include "vulkan/runtime/recorder.h"
#include "vulkan/runtime/stage_timer.h"
#include "vulkan/runtime/vulkan_error.h"
#include "vulkan_test_shaders.h"
#include "vulkan_test_support.h"

namespace swinup::vulkan {
namespace {

using testing::VulkanTest;

struct FillPush {
    float scale;
    uint32_t count;
    uint32_t width;
};

PipelineDesc fill_desc() {
    return {&test_shaders::fill_pattern,
            {BindingKind::StorageBuffer, BindingKind::StorageBuffer, BindingKind::StorageImage, BindingKind::SampledImage},
            sizeof(FillPush), {}};
}

class VulkanRuntime : public VulkanTest {};

TEST_F(VulkanRuntime, TrivialShaderRunsThroughBuffersAndImages) {
    constexpr uint32_t kWidth = 13, kHeight = 7, kCount = kWidth * kHeight;
    std::vector<float> input(kCount), texels(kCount * 4);
    for (uint32_t i = 0; i < kCount; ++i) input[i] = 0.25f * static_cast<float>(i) - 3.0f;
    for (uint32_t i = 0; i < kCount * 4; ++i) texels[i] = static_cast<float>(i % 17) * 0.5f;

    Buffer in(device(), kCount * 4, MemoryUse::Upload);
    Buffer out(device(), kCount * 4, MemoryUse::DeviceLocal);
    Buffer pixels_in(device(), kCount * 16, MemoryUse::Upload);
    Buffer readback(device(), kCount * 4, MemoryUse::Readback);
    Buffer picture_readback(device(), kCount * 16, MemoryUse::Readback);
    in.write(input.data(), kCount * 4);
    pixels_in.write(texels.data(), kCount * 16);
    Image source(device(), kWidth, kHeight, VK_FORMAT_R32G32B32A32_SFLOAT,
                 VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    Image picture(device(), kWidth, kHeight, VK_FORMAT_R32G32B32A32_SFLOAT,
                  VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);

    HostSubmitter submitter(device());
    Recorder& rec = submitter.begin();
    rec.transition(source, VK_IMAGE_LAYOUT_GENERAL);
    rec.transition(picture, VK_IMAGE_LAYOUT_GENERAL);
    rec.copy_buffer_to_image(pixels_in, 0, source);
    rec.dispatch(device().pipeline(fill_desc()),
                 {Bind::buffer(in), Bind::buffer(out), Bind::storage_image(picture), Bind::sampled_image(source)},
                 FillPush{2.0f, kCount, kWidth}, Groups{div_up(kCount, 64)});
    rec.copy_buffer(out, 0, readback, 0, kCount * 4);
    rec.copy_image_to_buffer(picture, picture_readback, 0);
    submitter.submit_and_wait();

    std::vector<float> result(kCount + kCount * 4);
    readback.read(result.data(), kCount * 4);
    picture_readback.read(result.data() + kCount, kCount * 16);
    for (uint32_t i = 0; i < kCount; ++i) {
        ASSERT_EQ(result[i], input[i] * 2.0f + static_cast<float>(i)) << "element " << i;
        for (uint32_t c = 0; c < 4; ++c) {
            ASSERT_EQ(result[kCount + 4 * i + c], texels[4 * i + c] + static_cast<float>(i)) << "texel " << i;
        }
    }
}

TEST_F(VulkanRuntime, SecondRecordingReusesTheSubmitter) {
    Buffer in(device(), 64 * 4, MemoryUse::Upload);
    Buffer out(device(), 64 * 4, MemoryUse::Readback);
    Image source(device(), 8, 8, VK_FORMAT_R32G32B32A32_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
    Image picture(device(), 8, 8, VK_FORMAT_R32G32B32A32_SFLOAT, VK_IMAGE_USAGE_STORAGE_BIT);
    std::vector<float> ones(64, 1.0f);
    in.write(ones.data(), 256);
    HostSubmitter submitter(device());
    for (int round = 1; round <= 2; ++round) {
        Recorder& rec = submitter.begin();
        if (round == 1) {
            rec.transition(source, VK_IMAGE_LAYOUT_GENERAL);
            rec.transition(picture, VK_IMAGE_LAYOUT_GENERAL);
        }
        rec.dispatch(device().pipeline(fill_desc()),
                     {Bind::buffer(in), Bind::buffer(out), Bind::storage_image(picture), Bind::sampled_image(source)},
                     FillPush{static_cast<float>(round), 64, 8}, Groups{1});
        submitter.submit_and_wait();
        std::vector<float> r(64);
        out.read(r.data(), 256);
        EXPECT_EQ(r[10], static_cast<float>(round) + 10.0f);
    }
}

TEST_F(VulkanRuntime, MismatchedBindingsAndPushConstantsNameTheShader) {
    Buffer a(device(), 16, MemoryUse::DeviceLocal);
    HostSubmitter submitter(device());
    Recorder& rec = submitter.begin();
    const auto& pipeline = device().pipeline(fill_desc());
    try {
        rec.dispatch(pipeline, {Bind::buffer(a), Bind::buffer(a)}, FillPush{1, 1, 1}, Groups{1});
        FAIL() << "a dispatch with 2 of 4 bindings was accepted";
    } catch (const VulkanError& e) {
        EXPECT_EQ(e.status(), SWINUP_STATUS_INTERNAL);
        EXPECT_NE(std::string(e.what()).find("fill_pattern takes 4 bindings"), std::string::npos) << e.what();
    }
    struct Short {
        float scale;
    };
    try {
        rec.dispatch(pipeline, {Bind::buffer(a), Bind::buffer(a), Bind::buffer(a), Bind::buffer(a)}, Short{1},
                     Groups{1});
        FAIL() << "a dispatch with 4 bytes of push constants was accepted";
    } catch (const VulkanError& e) {
        EXPECT_NE(std::string(e.what()).find("12 bytes of push constants"), std::string::npos) << e.what();
    }
    try {
        rec.dispatch(pipeline, {Bind::buffer(a), Bind::buffer(a), Bind::buffer(a), Bind::buffer(a)},
                     FillPush{1, 1, 1}, Groups{1});
        FAIL() << "a buffer was accepted for an image binding";
    } catch (const VulkanError& e) {
        EXPECT_NE(std::string(e.what()).find("binding 2 is a storage image"), std::string::npos) << e.what();
    }
}

TEST_F(VulkanRuntime, FailedSubmitReportsDeviceLost) {
    HostSubmitter submitter(device());
    submitter.begin();
    submitter.inject_failure(VK_ERROR_DEVICE_LOST);
    try {
        submitter.submit_and_wait();
        FAIL() << "the injected failure was not reported";
    } catch (const VulkanError& e) {
        EXPECT_EQ(e.status(), SWINUP_STATUS_DEVICE_ERROR);
        EXPECT_NE(std::string(e.what()).find("VK_ERROR_DEVICE_LOST"), std::string::npos) << e.what();
    }
    // The submitter still works afterwards.
    submitter.begin();
    submitter.submit_and_wait();
}

// Stage timing (swinup bench): one entry per mark after the first, in order, each a time >= 0,
// and the dispatches' results unchanged by the timestamps around them.
TEST_F(VulkanRuntime, StageTimerTimesEachStage) {
    Buffer in(device(), 4096 * 4, MemoryUse::Upload);
    Buffer out(device(), 4096 * 4, MemoryUse::Readback);
    Image source(device(), 64, 64, VK_FORMAT_R32G32B32A32_SFLOAT, VK_IMAGE_USAGE_SAMPLED_BIT);
    Image picture(device(), 64, 64, VK_FORMAT_R32G32B32A32_SFLOAT, VK_IMAGE_USAGE_STORAGE_BIT);
    std::vector<float> ones(4096, 1.0f);
    in.write(ones.data(), ones.size() * 4);
    StageTimer timer(device());
    HostSubmitter submitter(device());
    Recorder& rec = submitter.begin();
    timer.begin(rec);
    rec.transition(source, VK_IMAGE_LAYOUT_GENERAL);
    rec.transition(picture, VK_IMAGE_LAYOUT_GENERAL);
    const auto& pipeline = device().pipeline(fill_desc());
    rec.dispatch(pipeline, {Bind::buffer(in), Bind::buffer(out), Bind::storage_image(picture), Bind::sampled_image(source)},
                 FillPush{3.0f, 4096, 64}, Groups{64});
    timer.mark(rec, "first");
    rec.dispatch(pipeline, {Bind::buffer(in), Bind::buffer(out), Bind::storage_image(picture), Bind::sampled_image(source)},
                 FillPush{5.0f, 4096, 64}, Groups{64});
    timer.mark(rec, "second");
    submitter.submit_and_wait();
    const auto stages = timer.stages();
    ASSERT_EQ(stages.size(), 2u);
    EXPECT_EQ(stages[0].first, "first");
    EXPECT_EQ(stages[1].first, "second");
    for (const auto& [name, ms] : stages) EXPECT_GE(ms, 0.0) << name;
    std::vector<float> r(4096);
    out.read(r.data(), r.size() * 4);
    EXPECT_EQ(r[100], 5.0f + 100.0f);
}

TEST(VulkanDeviceSelection, UnknownNameIsNamedInTheError) {
    auto& t = testing::test_device();
    if (!t.skip_reason.empty()) GTEST_SKIP() << t.skip_reason;
    DeviceOptions options;
    options.selector = "no-such-gpu-name";
    try {
        Device::create(options);
        FAIL() << "a device was made for a name no device has";
    } catch (const VulkanError& e) {
        EXPECT_EQ(e.status(), SWINUP_STATUS_INVALID_ARGUMENT);
        EXPECT_NE(std::string(e.what()).find("no-such-gpu-name"), std::string::npos) << e.what();
    }
    options.selector = "999";
    EXPECT_THROW(Device::create(options), VulkanError);
}

TEST(VulkanDeviceSelection, ListsTheDevicesItSees) {
    auto& t = testing::test_device();
    if (!t.skip_reason.empty()) GTEST_SKIP() << t.skip_reason;
    const auto devices = list_physical_devices();
    ASSERT_FALSE(devices.empty());
    bool found = false;
    for (const auto& d : devices) {
        EXPECT_FALSE(d.name.empty());
        if (t.device && d.name == t.device->name()) found = true;
    }
    EXPECT_TRUE(found) << "the test device is not in list_physical_devices()";
}

}  // namespace
}  // namespace swinup::vulkan
