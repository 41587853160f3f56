// The Vulkan tests' device: chosen by the environment, validated, shared by a test binary.
//   SWINUP_VULKAN_DEVICE      index or name substring of the device (default: the first)
//   SWINUP_VULKAN_VALIDATION  "0" turns the validation layer off (default: on; a missing layer
//                             is then a failure naming the package, not a skip)
// Without any Vulkan device a test reports GTEST_SKIP with the reason. Every test fixture of
// tests/vulkan/ fails a test that produced a validation message.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "vulkan/runtime/device.h"
#include "vulkan/runtime/vulkan_error.h"

namespace swinup::vulkan::testing {

struct TestDevice {
    std::unique_ptr<Device> device;
    std::string skip_reason;   // set when no device exists
    std::string failure;       // set when a device exists but could not be made as asked
};

inline TestDevice& test_device() {
    static TestDevice shared = [] {
        TestDevice t;
        DeviceOptions options;
        const char* selector = std::getenv("SWINUP_VULKAN_DEVICE");
        const char* validation = std::getenv("SWINUP_VULKAN_VALIDATION");
        options.selector = selector ? selector : "";
        options.validation = !(validation && std::string(validation) == "0");
        try {
            const auto devices = list_physical_devices();
            if (devices.empty()) {
                t.skip_reason = "no Vulkan device found";
                return t;
            }
            t.device = Device::create(options);
            std::printf("[ vulkan   ] device: %s (Vulkan %s), validation %s\n", t.device->name().c_str(),
                        version_text(t.device->capabilities().api_version).c_str(),
                        options.validation ? "on" : "off (SWINUP_VULKAN_VALIDATION=0)");
        } catch (const VulkanError& e) {
            if (e.status() == SWINUP_STATUS_UNSUPPORTED && std::string(e.what()).find("no Vulkan") != std::string::npos) {
                t.skip_reason = e.what();
            } else {
                t.failure = e.what();
            }
        }
        return t;
    }();
    return shared;
}

// Fixture: `device()` is the shared device; the test fails on any validation message.
class VulkanTest : public ::testing::Test {
protected:
    void SetUp() override {
        auto& t = test_device();
        if (!t.skip_reason.empty()) GTEST_SKIP() << t.skip_reason;
        ASSERT_TRUE(t.failure.empty()) << t.failure;
        t.device->clear_validation_messages();
    }
    void TearDown() override {
        auto& t = test_device();
        if (!t.device) return;
        const auto messages = t.device->validation_messages();
        for (const auto& m : messages) ADD_FAILURE() << "Vulkan validation: " << m;
        t.device->clear_validation_messages();
    }
    Device& device() { return *test_device().device; }
};

}  // namespace swinup::vulkan::testing
