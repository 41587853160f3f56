// What a Vulkan context costs at creation and what it takes from the application there
// (include/swinup/swinup_vulkan.h, swinup_vulkan_device_desc's V2 fields):
//   - every compute pipeline is made while the context is created: the first frame (host pointers
//     or recorded) makes none (a count on the Device, and the application's pipeline cache, which
//     grows at creation and not at the first recorded frame);
//   - the application's VkPipelineCache is filled (vkGetPipelineCacheData's size grows);
//   - the application's VkAllocationCallbacks are called for swinup's objects, and every
//     allocation made with them is freed with them by swinup_context_destroy;
//   - a SWINUP_VULKAN_DEVICE_DESC_SIZE_V1 descriptor (0.1.0's) is still accepted.
// The creation and first-frame times are printed (the figure swinup_vulkan.h quotes).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "model/weights.h"
#include "sliding_plane_frames.h"
#include "swinup/swinup.h"
#include "swinup/swinup_vulkan.h"
#include "vulkan/backend/vulkan_backend.h"
#include "vulkan/runtime/device.h"
#include "vulkan/runtime/fast_gemm_path.h"
#include "vulkan/runtime/vulkan_error.h"
#include "vulkan/runtime/pipeline.h"
#include "vulkan_test_device.h"
#include "vulkan_test_shaders.h"

namespace swinup {
namespace {

using vulkan_test::TestDevice;
using vulkan_test::TestImage;

constexpr uint32_t kRenderW = 32, kRenderH = 16;
constexpr uint32_t kDisplayW = 64, kDisplayH = 32;

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

swinup_context_desc context_desc() {
    swinup_context_desc d =
        test::sliding_plane_context_desc(kRenderW, kRenderH, kDisplayW, kDisplayH, SWINUP_FORMAT_RGBA16F);
    d.backend = SWINUP_BACKEND_VULKAN;
    return d;
}

#define SKIP_WITHOUT_DEVICE(dev) \
    if (!(dev).skip_reason.empty()) GTEST_SKIP() << (dev).skip_reason

// A device of swinup's own made for one test (its pipeline count starts at zero), or null with the
// reason when none can be made.
std::unique_ptr<vulkan::Device> fresh_device(std::string* skip) {
    try {
        vulkan::DeviceOptions options;
        const char* selector = std::getenv("SWINUP_VULKAN_DEVICE");
        options.selector = selector ? selector : "";
        return vulkan::Device::create(options);
    } catch (const vulkan::VulkanError& e) {
        *skip = e.what();
        return nullptr;
    }
}

// The host path on a VulkanBackend of a fresh device of swinup's own: the pipelines are counted
// on that device from the start.
TEST(VulkanContextCreation, TheFirstFrameMakesNoPipeline) {
    std::string skip;
    std::unique_ptr<vulkan::Device> device = fresh_device(&skip);
    if (!device) GTEST_SKIP() << skip;
    std::string error;
    const auto weights = weights_load_embedded(Variant::lite, &error);
    ASSERT_TRUE(weights) << error;
    const swinup_context_desc desc = context_desc();
    ASSERT_EQ(device->pipelines_created(), 0u);
    const auto created = std::chrono::steady_clock::now();
    vulkan::VulkanBackend backend(desc, weights, *device);
    const double creation_s = seconds_since(created);
    const uint64_t at_creation = device->pipelines_created();
    EXPECT_GT(at_creation, 10u);  // the frame passes and the layer kernels
    // A second backend on the device, whose pipelines the device keeps: creation without them.
    const auto again = std::chrono::steady_clock::now();
    { vulkan::VulkanBackend second(desc, weights, *device); }
    const double without_pipelines_s = seconds_since(again);
    EXPECT_EQ(device->pipelines_created(), at_creation);

    const test::SlidingPlaneFrame frame(int(kRenderW), int(kRenderH), 0);
    std::vector<uint8_t> out(size_t(kDisplayW) * kDisplayH * 8, 0xcd);
    swinup_dispatch_desc d = frame.dispatch_desc(out.data(), SWINUP_FORMAT_RGBA16F, kDisplayW, kDisplayH);
    const auto first = std::chrono::steady_clock::now();
    ASSERT_EQ(backend.dispatch(d, 0, &error), SWINUP_STATUS_OK) << error;
    const double first_frame_s = seconds_since(first);
    EXPECT_EQ(device->pipelines_created(), at_creation) << "the first frame made pipelines";
    ASSERT_EQ(backend.dispatch(d, 1, &error), SWINUP_STATUS_OK) << error;
    EXPECT_EQ(device->pipelines_created(), at_creation);
    std::printf("[ vulkan   ] %s: backend creation %.2f s making %llu pipelines, %.2f s with them made; "
                "first frame %.3f s\n",
                device->name().c_str(), creation_s, static_cast<unsigned long long>(at_creation), without_pipelines_s,
                first_frame_s);
}

// Fast mode's layer kernels (the portable or matrix GEMMs, the fast attention) are made at creation
// too, for the fast-GEMM path the device is on: its first frame makes none. A path switched after
// creation (tests do: set_fast_gemm_path) makes the kernels it lacks at their first use.
TEST(VulkanContextCreation, AFastContextsFirstFrameMakesNoPipelineAndASwitchedPathMakesItsOwn) {
    std::string skip;
    std::unique_ptr<vulkan::Device> device = fresh_device(&skip);
    if (!device) GTEST_SKIP() << skip;
    std::string error;
    const auto weights = weights_load_embedded(Variant::lite, &error);
    ASSERT_TRUE(weights) << error;
    swinup_context_desc desc = context_desc();
    desc.precision = SWINUP_PRECISION_FAST;
    vulkan::VulkanBackend backend(desc, weights, *device);
    const uint64_t at_creation = device->pipelines_created();
    const test::SlidingPlaneFrame frame(int(kRenderW), int(kRenderH), 0);
    std::vector<uint8_t> out(size_t(kDisplayW) * kDisplayH * 8, 0xcd);
    swinup_dispatch_desc d = frame.dispatch_desc(out.data(), SWINUP_FORMAT_RGBA16F, kDisplayW, kDisplayH);
    ASSERT_EQ(backend.dispatch(d, 0, &error), SWINUP_STATUS_OK) << error;
    EXPECT_EQ(device->pipelines_created(), at_creation)
        << "the first fast frame made pipelines on the " << vulkan::fast_gemm_path_name(device->fast_gemm_path())
        << " path";
    // Another matrix variant (the emulated one, or the real one from the emulated): its kernels
    // were not made at creation, and are made when first used.
    const vulkan::FastGemmPath other = device->fast_gemm_path() == vulkan::FastGemmPath::matrix_emulated
                                           ? vulkan::FastGemmPath::matrix
                                           : vulkan::FastGemmPath::matrix_emulated;
    if (!device->set_fast_gemm_path(other)) GTEST_SKIP() << "the device runs no other matrix path";
    ASSERT_EQ(backend.dispatch(d, 1, &error), SWINUP_STATUS_OK) << error;
    EXPECT_GT(device->pipelines_created(), at_creation) << "the switched path's kernels were not made on first use";
}

size_t cache_size(VkDevice device, VkPipelineCache cache) {
    size_t size = 0;
    EXPECT_EQ(vkGetPipelineCacheData(device, cache, &size, nullptr), VK_SUCCESS);
    return size;
}

// Whether the driver keeps pipelines in a VkPipelineCache at all (Mesa 22's lavapipe does not:
// vkGetPipelineCacheData stays at its 32-byte header): a pipeline of the test's own, made with a
// cache of its own.
bool driver_fills_pipeline_caches(VkDevice device) {
    VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    VkPipelineCache cache = VK_NULL_HANDLE;
    if (vkCreatePipelineCache(device, &info, nullptr, &cache) != VK_SUCCESS) return false;
    const size_t empty = cache_size(device, cache);
    vulkan::PipelineDesc desc{&vulkan::test_shaders::fill_pattern,
                              {vulkan::BindingKind::StorageBuffer, vulkan::BindingKind::StorageBuffer,
                               vulkan::BindingKind::StorageImage, vulkan::BindingKind::SampledImage},
                              12, {}};
    const size_t filled = [&] {
        const vulkan::ComputePipeline probe(device, desc, cache, nullptr);
        return cache_size(device, cache);
    }();
    vkDestroyPipelineCache(device, cache, nullptr);
    return filled > empty;
}

// Records frame 0 of the sliding plane into the test's command buffer on its images, submits it
// and waits.
void record_first_frame(TestDevice& dev, swinup_context* ctx) {
    const test::SlidingPlaneFrame frame(int(kRenderW), int(kRenderH), 0);
    TestImage color = dev.make_image(VK_FORMAT_R32G32B32A32_SFLOAT, kRenderW, kRenderH, VK_IMAGE_USAGE_SAMPLED_BIT, 16);
    TestImage depth = dev.make_image(VK_FORMAT_R32_SFLOAT, kRenderW, kRenderH, VK_IMAGE_USAGE_SAMPLED_BIT, 4);
    TestImage motion = dev.make_image(VK_FORMAT_R32G32_SFLOAT, kRenderW, kRenderH, VK_IMAGE_USAGE_SAMPLED_BIT, 8);
    TestImage output = dev.make_image(VK_FORMAT_R16G16B16A16_SFLOAT, kDisplayW, kDisplayH, VK_IMAGE_USAGE_STORAGE_BIT, 8);
    dev.upload(color, frame.color.data(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    dev.upload(depth, frame.depth.data(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    dev.upload(motion, frame.mv.data(), VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    dev.fill(output, 0xcd, VK_IMAGE_LAYOUT_GENERAL);
    swinup_vulkan_dispatch_desc d;
    swinup_vulkan_dispatch_desc_init(&d);
    d.frame.render_width = kRenderW;
    d.frame.render_height = kRenderH;
    d.color = color.described(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    d.depth = depth.described(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    d.motion_vectors = motion.described(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    d.output = output.described(VK_IMAGE_LAYOUT_GENERAL);
    VkCommandBuffer cmd = dev.begin();
    TestDevice::barrier(cmd, output, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_GENERAL,
                        VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                        VK_ACCESS_SHADER_WRITE_BIT);
    EXPECT_EQ(swinup_vulkan_record_dispatch(ctx, cmd, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    dev.submit_and_wait(cmd);
}

TEST(VulkanContextCreation, TheApplicationsPipelineCacheIsFilledAtCreationOnly) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    if (!driver_fills_pipeline_caches(dev.device)) {
        GTEST_SKIP() << dev.name << " keeps nothing in pipeline caches (a pipeline of the test's own leaves "
                     << "vkGetPipelineCacheData's size as it was); run on a driver that does (NVIDIA's, RADV)";
    }
    VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    VkPipelineCache cache = VK_NULL_HANDLE;
    ASSERT_EQ(vkCreatePipelineCache(dev.device, &info, nullptr, &cache), VK_SUCCESS);
    const size_t empty = cache_size(dev.device, cache);

    swinup_vulkan_device_desc device = dev.description();
    device.pipeline_cache = cache;
    const swinup_context_desc desc = context_desc();
    swinup_context* ctx = nullptr;
    const auto created = std::chrono::steady_clock::now();
    ASSERT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const double cold_s = seconds_since(created);
    const size_t after_creation = cache_size(dev.device, cache);
    EXPECT_GT(after_creation, empty) << "swinup made its pipelines without the application's cache";

    const auto first = std::chrono::steady_clock::now();
    record_first_frame(dev, ctx);
    const double first_frame_s = seconds_since(first);
    EXPECT_EQ(cache_size(dev.device, cache), after_creation) << "the first recorded frame made pipelines";
    swinup_vulkan_device_desc back;
    swinup_vulkan_device_desc_init(&back);
    ASSERT_EQ(swinup_vulkan_context_get_device(ctx, &back), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    EXPECT_EQ(back.pipeline_cache, VK_NULL_HANDLE);  // not kept
    swinup_context_destroy(ctx);

    // A second context with the filled cache: what a re-created context (or the next run, with
    // the cache's data saved) pays.
    ctx = nullptr;
    const auto again = std::chrono::steady_clock::now();
    ASSERT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    const double warm_s = seconds_since(again);
    swinup_context_destroy(ctx);
    vkDestroyPipelineCache(dev.device, cache, nullptr);
    std::printf("[ vulkan   ] %s: context creation %.2f s with an empty pipeline cache, %.2f s with it filled "
                "(%zu bytes); first recorded frame %.3f s\n",
                dev.name.c_str(), cold_s, warm_s, after_creation, first_frame_s);
    EXPECT_TRUE(dev.messages.empty()) << dev.messages.size() << " validation messages; first: " << dev.messages[0];
}

// Host allocation callbacks that count what they are asked for and check that each pointer freed
// is one they gave (aligned blocks with their size kept for realloc).
struct CountingAllocator {
    std::mutex mutex;
    std::map<void*, size_t> live;
    size_t allocations = 0, reallocations = 0, frees = 0, foreign_frees = 0;

    static void* allocate(void* user, size_t size, size_t alignment, VkSystemAllocationScope) {
        auto* self = static_cast<CountingAllocator*>(user);
        void* p = nullptr;
        if (posix_memalign(&p, alignment < sizeof(void*) ? sizeof(void*) : alignment, size ? size : 1) != 0) {
            return nullptr;
        }
        std::lock_guard<std::mutex> lock(self->mutex);
        self->live[p] = size;
        ++self->allocations;
        return p;
    }
    static void* reallocate(void* user, void* old, size_t size, size_t alignment, VkSystemAllocationScope scope) {
        auto* self = static_cast<CountingAllocator*>(user);
        if (old == nullptr) return allocate(user, size, alignment, scope);
        if (size == 0) {
            release(user, old);
            return nullptr;
        }
        size_t old_size = 0;
        {
            std::lock_guard<std::mutex> lock(self->mutex);
            ++self->reallocations;
            const auto it = self->live.find(old);
            if (it == self->live.end()) return nullptr;
            old_size = it->second;
        }
        void* p = allocate(user, size, alignment, scope);
        if (p == nullptr) return nullptr;
        std::memcpy(p, old, old_size < size ? old_size : size);
        release(user, old);
        return p;
    }
    static void release(void* user, void* p) {
        if (p == nullptr) return;
        auto* self = static_cast<CountingAllocator*>(user);
        {
            std::lock_guard<std::mutex> lock(self->mutex);
            ++self->frees;
            if (self->live.erase(p) == 0) {
                ++self->foreign_frees;
                return;  // not ours: leave it alone
            }
        }
        std::free(p);
    }
    VkAllocationCallbacks callbacks() {
        VkAllocationCallbacks c{};
        c.pUserData = this;
        c.pfnAllocation = &allocate;
        c.pfnReallocation = &reallocate;
        c.pfnFree = &release;
        return c;
    }
};

TEST(VulkanContextCreation, TheApplicationsAllocationCallbacksServeEveryObjectAndAreAllFreed) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    CountingAllocator counting;
    VkAllocationCallbacks callbacks = counting.callbacks();
    swinup_vulkan_device_desc device = dev.description();
    device.allocation_callbacks = &callbacks;
    const swinup_context_desc desc = context_desc();
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    std::memset(&callbacks, 0, sizeof callbacks);  // swinup keeps its own copy
    EXPECT_GT(counting.allocations, 0u) << "the allocation callbacks were not called";
    record_first_frame(dev, ctx);  // a recording slot's event and descriptor pool: made with them too
    swinup_context_destroy(ctx);
    EXPECT_TRUE(counting.live.empty()) << counting.live.size() << " allocations still live after destroy";
    EXPECT_EQ(counting.foreign_frees, 0u);
    std::printf("[ vulkan   ] %s: %zu allocations, %zu reallocations, %zu frees through the callbacks\n",
                dev.name.c_str(), counting.allocations, counting.reallocations, counting.frees);
    EXPECT_TRUE(dev.messages.empty()) << dev.messages.size() << " validation messages; first: " << dev.messages[0];
}

TEST(VulkanContextCreation, AnOlderDeviceDescriptorIsAcceptedAndBadCallbacksAreRefused) {
    TestDevice dev;
    SKIP_WITHOUT_DEVICE(dev);
    swinup_vulkan_device_desc device = dev.description();
    const swinup_context_desc desc = context_desc();
    // 0.1.0's descriptor: the fields past its size are whatever follows it in the caller's memory.
    device.struct_size = SWINUP_VULKAN_DEVICE_DESC_SIZE_V1;
    std::memset(&device.pipeline_cache, 0xab, sizeof device - SWINUP_VULKAN_DEVICE_DESC_SIZE_V1);
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    swinup_vulkan_device_desc back;
    std::memset(&back, 0xcd, sizeof back);
    back.struct_size = SWINUP_VULKAN_DEVICE_DESC_SIZE_V1;
    ASSERT_EQ(swinup_vulkan_context_get_device(ctx, &back), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    EXPECT_EQ(back.device, dev.device);
    const auto* tail = reinterpret_cast<const uint8_t*>(&back) + SWINUP_VULKAN_DEVICE_DESC_SIZE_V1;
    for (size_t i = 0; i < sizeof back - SWINUP_VULKAN_DEVICE_DESC_SIZE_V1; ++i) {
        ASSERT_EQ(tail[i], 0xcd) << "get_device wrote past a V1 struct_size";
    }
    swinup_context_destroy(ctx);

    device = dev.description();
    VkAllocationCallbacks half{};
    half.pfnAllocation = &CountingAllocator::allocate;
    device.allocation_callbacks = &half;
    ctx = nullptr;
    EXPECT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_EQ(std::string(swinup_last_error(nullptr)), "vulkan_device.allocation_callbacks->pfnReallocation: is NULL");
    EXPECT_TRUE(dev.messages.empty()) << dev.messages.size() << " validation messages; first: " << dev.messages[0];
}

}  // namespace
}  // namespace swinup
