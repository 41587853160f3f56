// The CUDA backend on the application's Vulkan images (include/swinup/swinup_vulkan.h, "The CUDA
// backend"), on an NVIDIA GPU: images written by the application's own Vulkan commands, imported
// into CUDA, read through texture objects and written through a surface object, ordered by the
// application's timeline semaphore. Every frame's output must be byte for byte what the CUDA
// backend gives for the same inputs from host pointers (swinup_context_create), which shares the
// frame's kernels. Skipped (reported) without a CUDA GPU or an NVIDIA Vulkan device with
// VK_KHR_external_memory_fd and VK_KHR_external_semaphore_fd.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/resource_desc.h"
#include "gpu_test_support.h"
#include "numeric/half.h"
#include "swinup/swinup_vulkan.h"
#include "vulkan_app.h"

namespace {

using vulkan_app::AppImage;
using vulkan_app::Gpu;
using vulkan_app::HostBuffer;

constexpr uint32_t kRenderW = 64, kRenderH = 48, kDisplayW = 128, kDisplayH = 96;

// One frame's inputs as the application renders them: colour RGBA16F, depth R32F, motion RG32F.
struct Inputs {
    uint32_t width = 0, height = 0;
    std::vector<uint16_t> color;
    std::vector<float> depth, motion;
    // Optional masks (empty: none): reactive as R8_UNORM codes, transparency as R16F.
    std::vector<uint8_t> reactive;
    std::vector<uint16_t> transparency;
};

// Frame f's masks: a reactive disc moving right (codes 0..255), a transparency pane of 0.5 over the
// right third with a soft edge.
void add_masks(Inputs* in, int frame) {
    const uint32_t w = in->width, h = in->height;
    in->reactive.assign(size_t(w) * h, 0);
    in->transparency.assign(size_t(w) * h, 0);
    for (uint32_t y = 0; y < h; ++y) {
        for (uint32_t x = 0; x < w; ++x) {
            const float dx = float(x) - float(8 + 3 * frame), dy = float(y) - float(h) / 2.0f;
            const float r = std::max(0.0f, 1.0f - std::sqrt(dx * dx + dy * dy) / 10.0f);
            in->reactive[size_t(y) * w + x] = uint8_t(std::lround(r * 255.0f));
            const float t = std::min(0.5f, std::max(0.0f, (float(x) - 2.0f * float(w) / 3.0f) / 8.0f));
            in->transparency[size_t(y) * w + x] = swinup::f32_to_f16_bits(t);
        }
    }
}

Inputs make_inputs(uint32_t w, uint32_t h, int frame) {
    Inputs in;
    in.width = w;
    in.height = h;
    in.color.resize(size_t(w) * h * 4);
    in.depth.resize(size_t(w) * h);
    in.motion.resize(size_t(w) * h * 2);
    for (uint32_t y = 0; y < h; ++y) {
        for (uint32_t x = 0; x < w; ++x) {
            const size_t i = size_t(y) * w + x;
            const float u = float(x + frame) / float(w), v = float(y) / float(h);
            const float rgb[3] = {0.5f + 0.4f * std::sin(9.0f * u + 2.0f * v), 0.5f + 0.4f * std::cos(7.0f * v - 3.0f * u),
                                  ((x / 4 + y / 4 + frame) % 2) ? 0.8f : 0.15f};
            for (int c = 0; c < 3; ++c) in.color[i * 4 + c] = swinup::f32_to_f16_bits(rgb[c]);
            in.color[i * 4 + 3] = swinup::f32_to_f16_bits(1.0f);
            in.depth[i] = 0.2f + 0.6f * v;
            in.motion[i * 2 + 0] = -1.0f;
            in.motion[i * 2 + 1] = 0.25f * std::sin(3.0f * u);
        }
    }
    return in;
}

struct Scalars {
    float jitter_x = 0.0f, jitter_y = 0.0f;
    int reset = 0;
    float exposure = 0.0f;  // > 0: an exposure image (imported) / texture (reference) with this value
};

uint32_t output_bytes(swinup_format f) { return f == SWINUP_FORMAT_RGBA16F ? 8 : 4; }

swinup_context_desc context_desc(swinup_format output, uint32_t dw = kDisplayW, uint32_t dh = kDisplayH) {
    swinup_context_desc d = swinup::sized_context_desc(kRenderW, kRenderH, dw, dh);
    d.backend = SWINUP_BACKEND_CUDA;
    d.variant = SWINUP_VARIANT_LITE;
    d.precision = SWINUP_PRECISION_EXACT;
    d.output_format = output;
    return d;
}

// The CUDA backend from host pointers: what every imported frame must equal.
class Reference {
public:
    explicit Reference(const swinup_context_desc& desc) : desc_(desc) {
        EXPECT_EQ(swinup_context_create(&desc, &ctx_), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    }
    ~Reference() { swinup_context_destroy(ctx_); }

    std::vector<uint8_t> frame(const Inputs& in, const Scalars& s) { return frame_on(ctx_, desc_, in, s); }

    // The frame through swinup_dispatch on host pointers on `ctx` (a context of `desc`).
    static std::vector<uint8_t> frame_on(swinup_context* ctx, const swinup_context_desc& desc_, const Inputs& in,
                                         const Scalars& s) {
        std::vector<uint8_t> out(size_t(desc_.display_width) * desc_.display_height * output_bytes(desc_.output_format));
        using swinup::input_resource;
        swinup_dispatch_desc d = swinup::frame_dispatch_desc(
            input_resource(in.color.data(), SWINUP_FORMAT_RGBA16F, in.width, in.height),
            input_resource(in.depth.data(), SWINUP_FORMAT_R32F, in.width, in.height),
            input_resource(in.motion.data(), SWINUP_FORMAT_RG32F, in.width, in.height),
            swinup::output_resource(out.data(), desc_.output_format, desc_.display_width, desc_.display_height));
        const float exposure = s.exposure;
        if (exposure > 0.0f) d.exposure = input_resource(&exposure, SWINUP_FORMAT_R32F, 1, 1);
        if (!in.reactive.empty()) {
            d.reactive_mask = input_resource(in.reactive.data(), SWINUP_FORMAT_R8_UNORM, in.width, in.height);
            d.transparency_mask = input_resource(in.transparency.data(), SWINUP_FORMAT_R16F, in.width, in.height);
        }
        d.jitter_x = s.jitter_x;
        d.jitter_y = s.jitter_y;
        d.reset = s.reset;
        EXPECT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
        return out;
    }

    swinup_context* ctx() const { return ctx_; }

private:
    swinup_context_desc desc_;
    swinup_context* ctx_ = nullptr;
};

// The application: its images (exportable), its uploads by vkCmdCopyBufferToImage, its timeline
// semaphore, and swinup's CUDA context on its device.
class App {
public:
    App(Gpu& gpu, const swinup_context_desc& desc) : gpu_(gpu), desc_(desc) {
        const swinup_vulkan_device_desc device = vulkan_app::device_desc(gpu);
        const swinup_status status = swinup_vulkan_context_create(&desc, &device, &ctx_);
        EXPECT_EQ(status, SWINUP_STATUS_OK) << swinup_last_error(nullptr);
        const size_t render = size_t(kRenderW) * kRenderH;
        color_up_ = std::make_unique<HostBuffer>(gpu, render * 8, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
        depth_up_ = std::make_unique<HostBuffer>(gpu, render * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
        motion_up_ = std::make_unique<HostBuffer>(gpu, render * 8, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
        exposure_up_ = std::make_unique<HostBuffer>(gpu, 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
        reactive_up_ = std::make_unique<HostBuffer>(gpu, render, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
        transparency_up_ = std::make_unique<HostBuffer>(gpu, render * 2, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
        readback_ = std::make_unique<HostBuffer>(gpu, size_t(8192) * 8192 / 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT);
        timeline_ = vulkan_app::create_timeline_semaphore(gpu.device, true);
        gate_ = vulkan_app::create_timeline_semaphore(gpu.device, false);
        fence_ = vulkan_app::create_fence(gpu.device);
        vulkan_app::allocate_command_buffers(gpu.device, gpu.pool, 2, cmds_);
        make_inputs_images();
        make_output(desc.display_width, desc.display_height);
    }

    ~App() {
        vkDeviceWaitIdle(gpu_.device);
        swinup_context_destroy(ctx_);
        vkFreeCommandBuffers(gpu_.device, gpu_.pool, 2, cmds_);
        vkDestroyFence(gpu_.device, fence_, nullptr);
        vkDestroySemaphore(gpu_.device, timeline_, nullptr);
        vkDestroySemaphore(gpu_.device, gate_, nullptr);
    }

    swinup_context* ctx() const { return ctx_; }
    // The timeline's value 100 ms after the last held-back frame's swinup call, before the upload ran.
    uint64_t held_back_value() const { return held_back_value_; }
    uint64_t timeline_value() const { return value_; }
    // Whether the last held-back frame's swinup call returned before its upload was let run.
    bool returned_while_held_back() const { return returned_while_held_back_; }

    // New input images of the same size (new memory), as an engine re-creating its targets does.
    void make_inputs_images() {
        const VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
        color_ = std::make_unique<AppImage>(gpu_, VK_FORMAT_R16G16B16A16_SFLOAT, kRenderW, kRenderH, usage, true);
        depth_ = std::make_unique<AppImage>(gpu_, VK_FORMAT_R32_SFLOAT, kRenderW, kRenderH, usage, true);
        motion_ = std::make_unique<AppImage>(gpu_, VK_FORMAT_R32G32_SFLOAT, kRenderW, kRenderH, usage, true);
        exposure_ = std::make_unique<AppImage>(gpu_, VK_FORMAT_R32_SFLOAT, 1, 1, usage, true);
        reactive_ = std::make_unique<AppImage>(gpu_, VK_FORMAT_R8_UNORM, kRenderW, kRenderH, usage, true);
        transparency_ = std::make_unique<AppImage>(gpu_, VK_FORMAT_R16_SFLOAT, kRenderW, kRenderH, usage, true);
        for (const AppImage* i : {color_.get(), depth_.get(), motion_.get(), exposure_.get(), reactive_.get(),
                                  transparency_.get()})
            fresh_.push_back(i);
    }
    // A new output image (a swapchain re-created at a new size); it may be larger than the display.
    void make_output(uint32_t width, uint32_t height) {
        output_ = std::make_unique<AppImage>(gpu_, vulkan_app::vk_output_format(desc_.output_format), width, height,
                                             VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, true);
        fresh_.push_back(output_.get());
    }
    // The images as they are now (to release them before destroying them, or to keep them alive).
    std::vector<std::unique_ptr<AppImage>> take_inputs() {
        std::vector<std::unique_ptr<AppImage>> old;
        old.push_back(std::move(color_));
        old.push_back(std::move(depth_));
        old.push_back(std::move(motion_));
        old.push_back(std::move(exposure_));
        old.push_back(std::move(reactive_));
        old.push_back(std::move(transparency_));
        return old;
    }

    swinup_vulkan_dispatch_desc describe(const Scalars& s, bool masks = false) const {
        swinup_vulkan_dispatch_desc d;
        swinup_vulkan_dispatch_desc_init(&d);
        d.frame.render_width = kRenderW;
        d.frame.render_height = kRenderH;
        d.frame.jitter_x = s.jitter_x;
        d.frame.jitter_y = s.jitter_y;
        d.frame.reset = s.reset;
        d.color = color_->desc();
        d.depth = depth_->desc();
        d.motion_vectors = motion_->desc();
        d.output = output_->desc();
        if (s.exposure > 0.0f) d.exposure = exposure_->desc();
        if (masks) {
            d.reactive_mask = reactive_->desc();
            d.transparency_mask = transparency_->desc();
        }
        return d;
    }

    // One frame: the upload (held back by the host until after swinup's call when `gate`), swinup's
    // CUDA work between the semaphore values, the read-back of the output. *out gets the display
    // region of the output image (whatever it holds, also after a refusal). `tamper` edits the
    // descriptor before the call (bad-input tests).
    swinup_status frame(const Inputs& in, const Scalars& s, std::vector<uint8_t>* out, bool gate = false,
                        void (*tamper)(swinup_vulkan_dispatch_desc*) = nullptr) {
        std::memcpy(color_up_->mapped, in.color.data(), in.color.size() * 2);
        std::memcpy(depth_up_->mapped, in.depth.data(), in.depth.size() * 4);
        std::memcpy(motion_up_->mapped, in.motion.data(), in.motion.size() * 4);
        std::memcpy(exposure_up_->mapped, &s.exposure, 4);
        const bool masks = !in.reactive.empty();
        if (masks) {
            std::memcpy(reactive_up_->mapped, in.reactive.data(), in.reactive.size());
            std::memcpy(transparency_up_->mapped, in.transparency.data(), in.transparency.size() * 2);
        }

        vulkan_app::begin_once(cmds_[0]);
        if (!fresh_.empty()) vulkan_app::to_general(cmds_[0], fresh_);
        fresh_.clear();
        vulkan_app::copy_buffer_to_image(cmds_[0], *color_up_, *color_);
        vulkan_app::copy_buffer_to_image(cmds_[0], *depth_up_, *depth_);
        vulkan_app::copy_buffer_to_image(cmds_[0], *motion_up_, *motion_);
        vulkan_app::copy_buffer_to_image(cmds_[0], *exposure_up_, *exposure_);
        if (masks) {
            vulkan_app::copy_buffer_to_image(cmds_[0], *reactive_up_, *reactive_);
            vulkan_app::copy_buffer_to_image(cmds_[0], *transparency_up_, *transparency_);
        }
        vulkan_app::check(vkEndCommandBuffer(cmds_[0]), "vkEndCommandBuffer");
        const uint64_t uploaded = ++value_;
        const uint64_t gate_value = ++gate_value_;
        const vulkan_app::TimelinePoint held_back = gate ? vulkan_app::TimelinePoint{gate_, gate_value}
                                                         : vulkan_app::TimelinePoint{};
        vulkan_app::submit(gpu_.queue, cmds_[0], held_back, {timeline_, uploaded});

        swinup_vulkan_dispatch_desc d = describe(s, masks);
        d.wait_semaphore = timeline_;
        d.wait_value = uploaded;
        d.signal_semaphore = timeline_;
        d.signal_value = uploaded + 1;
        if (tamper) tamper(&d);
        // With a gate the call runs on a thread of its own: a call that waited on the host for its
        // inputs would wait for the gate, which this thread opens only after the call returned. It
        // is opened after 20 s anyway (the frame then runs, and returned_while_held_back() says so).
        std::future<swinup_status> call = std::async(std::launch::async, [this, &d] {
            return swinup_vulkan_record_dispatch(ctx_, VK_NULL_HANDLE, &d);
        });
        returned_while_held_back_ = true;
        if (gate) {  // once the call has returned (or 20 s passed) the upload may run
            returned_while_held_back_ = call.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            vulkan_app::check(vkGetSemaphoreCounterValue(gpu_.device, timeline_, &held_back_value_),
                              "vkGetSemaphoreCounterValue");
        }
        // The gate's value, also without a gate (kept in step).
        VkSemaphoreSignalInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
        signal.semaphore = gate_;
        signal.value = gate_value;
        vulkan_app::check(vkSignalSemaphore(gpu_.device, &signal), "vkSignalSemaphore");
        const swinup_status status = call.get();
        if (status == SWINUP_STATUS_OK) ++value_;

        vulkan_app::begin_once(cmds_[1]);
        vulkan_app::copy_image_to_buffer(cmds_[1], *output_, *readback_, VK_IMAGE_LAYOUT_GENERAL, desc_.display_width,
                                         desc_.display_height);
        vulkan_app::check(vkEndCommandBuffer(cmds_[1]), "vkEndCommandBuffer");
        const uint64_t ready = value_;  // swinup's signal, or the upload's after a refusal
        vulkan_app::submit(gpu_.queue, cmds_[1], {timeline_, ready}, {}, fence_);
        vulkan_app::check(vkWaitForFences(gpu_.device, 1, &fence_, VK_TRUE, 10ull * 1000 * 1000 * 1000),
                          "vkWaitForFences (10 s)");
        vulkan_app::check(vkResetFences(gpu_.device, 1, &fence_), "vkResetFences");
        const size_t bytes = size_t(desc_.display_width) * desc_.display_height * output_bytes(desc_.output_format);
        out->assign(static_cast<const uint8_t*>(readback_->mapped), static_cast<const uint8_t*>(readback_->mapped) + bytes);
        return status;
    }

private:
    Gpu& gpu_;
    swinup_context_desc desc_;
    swinup_context* ctx_ = nullptr;
    std::unique_ptr<AppImage> color_, depth_, motion_, exposure_, reactive_, transparency_, output_;
    std::vector<const vulkan_app::Image*> fresh_;  // not yet transitioned out of UNDEFINED
    std::unique_ptr<HostBuffer> color_up_, depth_up_, motion_up_, exposure_up_, reactive_up_, transparency_up_,
        readback_;
    VkSemaphore timeline_ = VK_NULL_HANDLE, gate_ = VK_NULL_HANDLE;
    uint64_t value_ = 0, gate_value_ = 0, held_back_value_ = 0;
    bool returned_while_held_back_ = true;
    VkFence fence_ = VK_NULL_HANDLE;
    VkCommandBuffer cmds_[2]{};
};

// The application with roles in VkBuffers (swinup_vulkan_buffer, read and written as CUDA device
// pointers): colour, motion vectors and both masks in one buffer at offsets of their own (one
// import serves them all), the output in a buffer of its own, depth an image (both kinds in one
// frame). Its uploads and read-back are buffer copies, ordered by the timeline semaphore as App's.
class BufferApp {
public:
    static constexpr size_t kRender = size_t(kRenderW) * kRenderH;
    // The inputs' places in their buffer: RGBA16F colour, RG32F motion, R8 reactive, R16F transparency.
    static constexpr VkDeviceSize kColorAt = 0, kMotionAt = kRender * 8, kReactiveAt = kRender * 16,
                                  kTransparencyAt = kRender * 17, kInputBytes = kRender * 19;

    BufferApp(Gpu& gpu, const swinup_context_desc& desc) : gpu_(gpu), desc_(desc) {
        const swinup_vulkan_device_desc device = vulkan_app::device_desc(gpu);
        EXPECT_EQ(swinup_vulkan_context_create(&desc, &device, &ctx_), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
        upload_ = std::make_unique<HostBuffer>(gpu, kInputBytes + kRender * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
        readback_ = std::make_unique<HostBuffer>(gpu, output_size(), VK_BUFFER_USAGE_TRANSFER_DST_BIT);
        timeline_ = vulkan_app::create_timeline_semaphore(gpu.device, true);
        fence_ = vulkan_app::create_fence(gpu.device);
        vulkan_app::allocate_command_buffers(gpu.device, gpu.pool, 2, cmds_);
        make_targets();
    }
    ~BufferApp() {
        vkDeviceWaitIdle(gpu_.device);
        swinup_context_destroy(ctx_);
        vkFreeCommandBuffers(gpu_.device, gpu_.pool, 2, cmds_);
        vkDestroyFence(gpu_.device, fence_, nullptr);
        vkDestroySemaphore(gpu_.device, timeline_, nullptr);
    }
    swinup_context* ctx() const { return ctx_; }

    // New buffers and depth image (an engine re-creating its targets), the old ones released first.
    void make_targets() {
        if (inputs_) {
            EXPECT_EQ(swinup_vulkan_release_buffer(ctx_, inputs_->buffer), SWINUP_STATUS_OK) << swinup_last_error(ctx_);
            EXPECT_EQ(swinup_vulkan_release_buffer(ctx_, output_->buffer), SWINUP_STATUS_OK) << swinup_last_error(ctx_);
            EXPECT_EQ(swinup_vulkan_release_image(ctx_, depth_->image), SWINUP_STATUS_OK) << swinup_last_error(ctx_);
        }
        inputs_ = std::make_unique<vulkan_app::ExportableBuffer>(gpu_, kInputBytes);
        output_ = std::make_unique<vulkan_app::ExportableBuffer>(gpu_, output_size());
        depth_ = std::make_unique<AppImage>(gpu_, VK_FORMAT_R32_SFLOAT, kRenderW, kRenderH,
                                            VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, true);
        depth_fresh_ = true;
    }

    swinup_status frame(const Inputs& in, const Scalars& s, std::vector<uint8_t>* out) {
        auto* up = static_cast<uint8_t*>(upload_->mapped);
        const bool masks = !in.reactive.empty();
        std::memcpy(up + kColorAt, in.color.data(), in.color.size() * 2);
        std::memcpy(up + kMotionAt, in.motion.data(), in.motion.size() * 4);
        if (masks) {
            std::memcpy(up + kReactiveAt, in.reactive.data(), in.reactive.size());
            std::memcpy(up + kTransparencyAt, in.transparency.data(), in.transparency.size() * 2);
        }
        std::memcpy(up + kInputBytes, in.depth.data(), in.depth.size() * 4);

        vulkan_app::begin_once(cmds_[0]);
        if (depth_fresh_) vulkan_app::to_general(cmds_[0], {depth_.get()});
        depth_fresh_ = false;
        const VkBufferCopy inputs{0, 0, kInputBytes};
        vkCmdCopyBuffer(cmds_[0], upload_->buffer, inputs_->buffer, 1, &inputs);
        VkBufferImageCopy depth = vulkan_app::copy_region(VK_FORMAT_R32_SFLOAT, kRenderW, kRenderH);
        depth.bufferOffset = kInputBytes;
        vkCmdCopyBufferToImage(cmds_[0], upload_->buffer, depth_->image, VK_IMAGE_LAYOUT_GENERAL, 1, &depth);
        vulkan_app::check(vkEndCommandBuffer(cmds_[0]), "vkEndCommandBuffer");
        const uint64_t uploaded = ++value_;
        vulkan_app::submit(gpu_.queue, cmds_[0], {}, {timeline_, uploaded});

        swinup_vulkan_dispatch_desc d;
        swinup_vulkan_dispatch_desc_init(&d);
        d.frame.render_width = kRenderW;
        d.frame.render_height = kRenderH;
        d.frame.jitter_x = s.jitter_x;
        d.frame.jitter_y = s.jitter_y;
        d.frame.reset = s.reset;
        d.color_buffer = inputs_->desc(SWINUP_FORMAT_RGBA16F, kRenderW, kRenderH, kColorAt);
        d.motion_vectors_buffer = inputs_->desc(SWINUP_FORMAT_RG32F, kRenderW, kRenderH, kMotionAt);
        if (masks) {
            d.reactive_mask_buffer = inputs_->desc(SWINUP_FORMAT_R8_UNORM, kRenderW, kRenderH, kReactiveAt);
            d.transparency_mask_buffer = inputs_->desc(SWINUP_FORMAT_R16F, kRenderW, kRenderH, kTransparencyAt);
        }
        d.depth = depth_->desc();
        d.output_buffer = output_->desc(desc_.output_format, desc_.display_width, desc_.display_height);
        d.wait_semaphore = timeline_;
        d.wait_value = uploaded;
        d.signal_semaphore = timeline_;
        d.signal_value = uploaded + 1;
        const swinup_status status = swinup_vulkan_record_dispatch(ctx_, VK_NULL_HANDLE, &d);
        if (status == SWINUP_STATUS_OK) ++value_;

        vulkan_app::begin_once(cmds_[1]);
        const VkBufferCopy result{0, 0, output_size()};
        vkCmdCopyBuffer(cmds_[1], output_->buffer, readback_->buffer, 1, &result);
        vulkan_app::check(vkEndCommandBuffer(cmds_[1]), "vkEndCommandBuffer");
        vulkan_app::submit(gpu_.queue, cmds_[1], {timeline_, value_}, {}, fence_);
        vulkan_app::check(vkWaitForFences(gpu_.device, 1, &fence_, VK_TRUE, 10ull * 1000 * 1000 * 1000),
                          "vkWaitForFences (10 s)");
        vulkan_app::check(vkResetFences(gpu_.device, 1, &fence_), "vkResetFences");
        const auto* back = static_cast<const uint8_t*>(readback_->mapped);
        out->assign(back, back + output_size());
        return status;
    }

private:
    VkDeviceSize output_size() const {
        return VkDeviceSize(desc_.display_width) * desc_.display_height * output_bytes(desc_.output_format);
    }

    Gpu& gpu_;
    swinup_context_desc desc_;
    swinup_context* ctx_ = nullptr;
    std::unique_ptr<vulkan_app::ExportableBuffer> inputs_, output_;
    std::unique_ptr<AppImage> depth_;
    bool depth_fresh_ = false;
    std::unique_ptr<HostBuffer> upload_, readback_;
    VkSemaphore timeline_ = VK_NULL_HANDLE;
    uint64_t value_ = 0;
    VkFence fence_ = VK_NULL_HANDLE;
    VkCommandBuffer cmds_[2]{};
};

size_t first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (a[i] != b[i]) return i;
    return a.size() == b.size() ? a.size() : std::min(a.size(), b.size());
}

#define EXPECT_SAME_BYTES(got, want, what)                                                                  \
    do {                                                                                                    \
        const auto& got_ = (got);                                                                           \
        const auto& want_ = (want);                                                                         \
        EXPECT_TRUE(got_ == want_) << what << ": first differing byte " << first_difference(got_, want_) \
                                   << " of " << want_.size();                                               \
    } while (0)

// The application and the host-pointer reference on one context description, compared frame by
// frame.
struct Compared {
    App app;
    Reference reference;
    std::vector<uint8_t> got;  // the application's last output

    Compared(Gpu& gpu, const swinup_context_desc& desc) : app(gpu, desc), reference(desc) {}

    // The application's frame of `in` (held back until after swinup's call when `gate`) equals
    // the host-pointer frame.
    void expect_same_frame(const Inputs& in, const Scalars& s, const std::string& what, bool gate = false) {
        ASSERT_EQ(app.frame(in, s, &got, gate), SWINUP_STATUS_OK) << what << ": " << swinup_last_error(app.ctx());
        EXPECT_SAME_BYTES(got, reference.frame(in, s), what);
    }
};

class CudaVulkanInterop : public ::testing::Test {
protected:
    void SetUp() override {
        SWINUP_REQUIRE_GPU();
        try {
            gpu_ = std::make_unique<Gpu>(true);
        } catch (const vulkan_app::Unavailable& e) {
            GTEST_SKIP() << "GPU test skipped: " << e.what();
        }
    }
    std::unique_ptr<Gpu> gpu_;
};

// The import path: four frames (history, shifted windows) from imported images equal the CUDA
// backend's frames from host pointers, in each output format, with and without an exposure image.
TEST_F(CudaVulkanInterop, ImportedImagesGiveTheHostPointerFrames) {
    for (swinup_format format : {SWINUP_FORMAT_RGBA16F, SWINUP_FORMAT_R10G10B10A2, SWINUP_FORMAT_RGBA8}) {
        Compared c(*gpu_, context_desc(format));
        for (int f = 0; f < 4; ++f) {
            const Inputs in = make_inputs(kRenderW, kRenderH, f);
            Scalars s;
            s.jitter_x = 0.25f * float(f % 2) - 0.125f;
            s.jitter_y = 0.125f * float(f % 3) - 0.125f;
            s.exposure = f == 2 ? 0.75f : 0.0f;
            c.expect_same_frame(in, s, "format " + std::to_string(format) + " frame " + std::to_string(f));
        }
    }
}

// Mask images (R8_UNORM reactive, R16_SFLOAT transparency) imported like the other inputs: the
// frames equal the CUDA backend's frames from host-pointer masks, and differ from those without.
TEST_F(CudaVulkanInterop, MaskImagesGiveTheHostPointerFramesWithMasks) {
    Compared c(*gpu_, context_desc(SWINUP_FORMAT_RGBA16F));
    Reference without(context_desc(SWINUP_FORMAT_RGBA16F));
    for (int f = 0; f < 4; ++f) {
        Inputs in = make_inputs(kRenderW, kRenderH, f);
        const std::vector<uint8_t> unmasked = without.frame(in, Scalars{});
        add_masks(&in, f);
        c.expect_same_frame(in, Scalars{}, "masked frame " + std::to_string(f));
        if (f > 0) {
            EXPECT_FALSE(c.got == unmasked) << "frame " << f << ": the masks changed nothing";
        }
    }
}

// The semaphore ordering: the upload that writes the frame's inputs is held back (it waits on a
// semaphore the host signals 100 ms after swinup's call returned); swinup's CUDA work must wait for
// it through the application's timeline semaphore, with no host wait in between. Reading too early
// would read the previous frame's inputs.
TEST_F(CudaVulkanInterop, TheApplicationsWriteIsWaitedForOnTheGpu) {
    Compared c(*gpu_, context_desc(SWINUP_FORMAT_RGBA16F));
    // Frames 0 and 1 build the frame graphs of both window-shift parities; 2 and 3 are held back.
    for (int f = 0; f < 4; ++f) {
        const Inputs in = make_inputs(kRenderW, kRenderH, 5 * f);
        c.expect_same_frame(in, Scalars{}, "frame " + std::to_string(f), /*gate=*/f >= 2);
        if (f >= 2) {  // while the upload was held back, swinup's signal (the frame's last value) had not come
            EXPECT_EQ(c.app.held_back_value(), c.app.timeline_value() - 2) << "frame " << f;
        }
    }
}

// The input statistics of imported frames (run_imported_frame publishes its counters like any
// frame): ten frames, more than the backend's 8 counter slots, with NaN colour (one pixel also
// Inf in another channel: counted once), Inf / NaN depth and NaN / Inf motion pixels, and masks on
// some frames (the graphs with mask staging); swinup_context_get_input_statistics on the
// application's context gives the counts the frames hold, as the host-pointer reference does.
TEST_F(CudaVulkanInterop, ImportedFramesCountTheirRepairedPixels) {
    Compared c(*gpu_, context_desc(SWINUP_FORMAT_RGBA16F));
    constexpr int kFrames = 10;
    constexpr uint16_t kF16NaN = 0x7e00, kF16Inf = 0x7c00;
    uint64_t colour = 0, depth = 0, motion = 0;
    for (int f = 0; f < kFrames; ++f) {
        Inputs in = make_inputs(kRenderW, kRenderH, f);
        if (f % 3 == 1) add_masks(&in, f);
        const int colour_pixels = 1 + f % 3, depth_pixels = f % 4, motion_pixels = (2 * f) % 5;
        for (int k = 0; k < colour_pixels; ++k) in.color[size_t(9 * k) * 4 + 1] = kF16NaN;
        in.color[2] = kF16Inf;  // pixel 0 again
        for (int k = 0; k < depth_pixels; ++k) in.depth[in.depth.size() - 1 - size_t(6 * k)] = k % 2 ? NAN : INFINITY;
        for (int k = 0; k < motion_pixels; ++k) in.motion[(4 + size_t(13 * k)) * 2 + k % 2] = k % 2 ? -INFINITY : NAN;
        colour += uint64_t(colour_pixels);
        depth += uint64_t(depth_pixels);
        motion += uint64_t(motion_pixels);
        c.expect_same_frame(in, Scalars{}, "frame " + std::to_string(f));
    }
    swinup_input_statistics got{}, reference{};
    got.struct_size = reference.struct_size = SWINUP_INPUT_STATISTICS_SIZE_V1;
    ASSERT_EQ(swinup_context_get_input_statistics(c.app.ctx(), &got), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    ASSERT_EQ(swinup_context_get_input_statistics(c.reference.ctx(), &reference), SWINUP_STATUS_OK)
        << swinup_last_error(nullptr);
    EXPECT_EQ(got.frames, uint64_t(kFrames));
    EXPECT_EQ(got.color_nonfinite, colour);
    EXPECT_EQ(got.depth_nonfinite, depth);
    EXPECT_EQ(got.motion_nonfinite, motion);
    for (const swinup_input_statistics* s : {&got, &reference}) {
        EXPECT_EQ(s->reactive_nonfinite + s->transparency_nonfinite, 0u);
        EXPECT_EQ(s->reactive_out_of_range + s->transparency_out_of_range, 0u);
    }
    EXPECT_EQ(reference.frames, got.frames);
    EXPECT_EQ(reference.color_nonfinite, got.color_nonfinite);
    EXPECT_EQ(reference.depth_nonfinite, got.depth_nonfinite);
    EXPECT_EQ(reference.motion_nonfinite, got.motion_nonfinite);
}

// A frame whose CUDA graph is captured in the call (the first of each window-shift parity, the
// first with masks) must not wait on the host either: its upload is held back until the call has
// returned, as above. A capture (and the loading of a kernel's module during it) that ran after
// the wait for the application's semaphore had been enqueued could synchronise with the stream and
// so wait for the upload, which waits for the call: a deadlock, broken here after 20 s.
TEST_F(CudaVulkanInterop, AFrameThatCapturesItsGraphDoesNotWaitOnTheHost) {
    Compared c(*gpu_, context_desc(SWINUP_FORMAT_RGBA16F));
    for (int f = 0; f < 3; ++f) {
        Inputs in = make_inputs(kRenderW, kRenderH, 5 * f);
        if (f == 2) add_masks(&in, f);
        c.expect_same_frame(in, Scalars{}, "frame " + std::to_string(f), /*gate=*/true);
        EXPECT_TRUE(c.app.returned_while_held_back()) << "frame " << f << ": the call waited for its inputs";
        EXPECT_EQ(c.app.held_back_value(), c.app.timeline_value() - 2) << "frame " << f;
    }
}

// A context on the application's images holds no buffers for host-pointer resources until a
// host-pointer frame needs them: it reports exactly their bytes less than a context of
// swinup_context_create with the same description, and the same once swinup_dispatch with host
// pointers has run on it (whose frame is the reference's).
TEST_F(CudaVulkanInterop, HostCopiesAreAllocatedOnlyForAHostPointerFrame) {
    const swinup_context_desc desc = context_desc(SWINUP_FORMAT_RGBA16F);
    App app(*gpu_, desc);
    Reference reference(desc);
    auto device_bytes = [](swinup_context* ctx) {
        swinup_memory_requirements m{};
        m.struct_size = SWINUP_MEMORY_REQUIREMENTS_SIZE_V1;
        EXPECT_EQ(swinup_context_get_memory(ctx, &m), SWINUP_STATUS_OK) << swinup_last_error(ctx);
        return m.device_bytes;
    };
    // FrameBuffers::allocate_host_staging: colour 16, depth 4, two masks 4 bytes a render pixel,
    // motion 8 a pixel at display size at most, the output 8 a display pixel.
    const uint64_t render = uint64_t(kRenderW) * kRenderH, display = uint64_t(kDisplayW) * kDisplayH;
    const uint64_t host_copies = render * (16 + 4 + 2 * 4) + std::max(render, display) * 8 + display * 8;
    EXPECT_EQ(device_bytes(reference.ctx()) - device_bytes(app.ctx()), host_copies);
    const Inputs in = make_inputs(kRenderW, kRenderH, 0);
    EXPECT_SAME_BYTES(Reference::frame_on(app.ctx(), desc, in, Scalars{}), reference.frame(in, Scalars{}),
                      "a host-pointer frame on the context on Vulkan images");
    EXPECT_EQ(device_bytes(app.ctx()), device_bytes(reference.ctx()));
}

// Re-created images of the same size: released and destroyed first (handle values may come back),
// or made while the old ones still exist (new handles; the old ones released before they go): either way the
// new memory is read, never a stale import.
TEST_F(CudaVulkanInterop, ReCreatedImagesAreImportedAfresh) {
    Compared c(*gpu_, context_desc(SWINUP_FORMAT_RGBA16F));
    App& app = c.app;
    int f = 0;
    auto step = [&](const char* what) {
        const Inputs in = make_inputs(kRenderW, kRenderH, 3 * f + 1);
        c.expect_same_frame(in, Scalars{}, what + (", frame " + std::to_string(f)));
        ++f;
    };
    step("first images");
    step("first images");
    {
        auto old = app.take_inputs();
        for (const auto& image : old) {
            EXPECT_EQ(swinup_vulkan_release_image(app.ctx(), image->image), SWINUP_STATUS_OK)
                << swinup_last_error(app.ctx());
        }
    }  // destroyed
    app.make_inputs_images();
    step("re-created after release");
    {
        auto old = app.take_inputs();
        app.make_inputs_images();  // made while the old ones exist: other handles, other memory
        step("re-created while the old images exist");
        for (const auto& image : old) {
            EXPECT_EQ(swinup_vulkan_release_image(app.ctx(), image->image), SWINUP_STATUS_OK)
                << swinup_last_error(app.ctx());
        }
    }  // the old ones destroyed after their release
    step("after the old images were destroyed");
}

// A re-created swapchain: a larger output image (only the display region is written) on the same
// context, then a new display size on a new context with a new output image.
TEST_F(CudaVulkanInterop, AResizedSwapchainIsWrittenAtItsNewSize) {
    {
        Compared c(*gpu_, context_desc(SWINUP_FORMAT_R10G10B10A2));
        for (int f = 0; f < 3; ++f) {
            if (f == 1) c.app.make_output(kDisplayW + 32, kDisplayH + 24);
            c.expect_same_frame(make_inputs(kRenderW, kRenderH, f), Scalars{}, "frame " + std::to_string(f));
        }
    }
    Compared resized(*gpu_, context_desc(SWINUP_FORMAT_R10G10B10A2, 96, 72));
    for (int f = 0; f < 2; ++f)
        resized.expect_same_frame(make_inputs(kRenderW, kRenderH, f), Scalars{}, "96x72, frame " + std::to_string(f));
}

// Bad handles fail with a message naming the image; the output image and the temporal state are
// untouched (the next good frame continues from the last good one).
TEST_F(CudaVulkanInterop, ABadHandleFailsWithAMessage) {
    Compared c(*gpu_, context_desc(SWINUP_FORMAT_RGBA16F));
    App& app = c.app;
    ASSERT_NO_FATAL_FAILURE(c.expect_same_frame(make_inputs(kRenderW, kRenderH, 0), Scalars{}, "frame 0"));
    const std::vector<uint8_t> good = c.got;
    std::vector<uint8_t> got;

    // Declared not exportable.
    EXPECT_EQ(app.frame(make_inputs(kRenderW, kRenderH, 7), Scalars{}, &got, false,
                        [](swinup_vulkan_dispatch_desc* d) {
                            d->depth.memory_handle_type = static_cast<VkExternalMemoryHandleTypeFlagBits>(0);
                        }),
              SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(app.ctx())).find("vulkan_dispatch.depth.memory_handle_type"),
              std::string::npos)
        << swinup_last_error(app.ctx());
    EXPECT_SAME_BYTES(got, good, "the output after a refused frame");

    // A memory handle whose declared size cannot hold the image: the import refuses it.
    const swinup_status status = app.frame(make_inputs(kRenderW, kRenderH, 8), Scalars{}, &got, false,
                                           [](swinup_vulkan_dispatch_desc* d) {
                                               d->color.memory_size = 256;
                                           });
    EXPECT_NE(status, SWINUP_STATUS_OK);
    EXPECT_NE(std::string(swinup_last_error(app.ctx())).find("vulkan_dispatch.color"), std::string::npos)
        << swinup_last_error(app.ctx());
    std::printf("the refusal of a too-small color.memory_size: %s: %s\n", swinup_status_name(status),
                swinup_last_error(app.ctx()));
    EXPECT_SAME_BYTES(got, good, "the output after a failed import");

    // The history is the last good frame's.
    c.expect_same_frame(make_inputs(kRenderW, kRenderH, 1), Scalars{}, "the frame after the failures");
}

// Roles in VkBuffers, imported as device pointers (several roles in one buffer, the output in
// another, depth an image): four frames, the last two with masks in the buffer too, equal the CUDA
// backend's frames from host pointers.
TEST_F(CudaVulkanInterop, BufferRolesGiveTheHostPointerFrames) {
    const swinup_context_desc desc = context_desc(SWINUP_FORMAT_RGBA16F);
    BufferApp app(*gpu_, desc);
    Reference reference(desc);
    std::vector<uint8_t> got;
    for (int f = 0; f < 4; ++f) {
        Inputs in = make_inputs(kRenderW, kRenderH, 2 * f);
        if (f >= 2) add_masks(&in, f);
        Scalars s;
        s.jitter_x = 0.25f * float(f % 2) - 0.125f;
        ASSERT_EQ(app.frame(in, s, &got), SWINUP_STATUS_OK) << "frame " << f << ": " << swinup_last_error(app.ctx());
        EXPECT_SAME_BYTES(got, reference.frame(in, s), "buffers, frame " + std::to_string(f));
    }
}

// Re-created buffers (released, destroyed, made again: the handle values may come back) are
// imported afresh: the frame after reads the new memory, never a stale import.
TEST_F(CudaVulkanInterop, ReCreatedBuffersAreImportedAfresh) {
    const swinup_context_desc desc = context_desc(SWINUP_FORMAT_RGBA16F);
    BufferApp app(*gpu_, desc);
    Reference reference(desc);
    std::vector<uint8_t> got;
    for (int f = 0; f < 3; ++f) {
        if (f == 2) app.make_targets();
        const Inputs in = make_inputs(kRenderW, kRenderH, 3 * f + 1);
        ASSERT_EQ(app.frame(in, Scalars{}, &got), SWINUP_STATUS_OK) << swinup_last_error(app.ctx());
        EXPECT_SAME_BYTES(got, reference.frame(in, Scalars{}), "frame " + std::to_string(f));
    }
}

}  // namespace
