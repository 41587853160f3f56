// vulkan_upscale: a headless Vulkan program that upscales a sequence (`swinup render` output) the
// way a Vulkan engine does: its own instance, device and VkImages, written by its own commands
// frame by frame, upscaled through include/swinup/swinup_vulkan.h by either backend, and the
// output image copied back and written as OUT/out.NNNN.exr. Its output equals `swinup upscale` of
// the same sequence on the same backend byte for byte (examples/check_vulkan_upscale.cmake).
//
//   vulkan_upscale SEQ -o OUT [--backend vulkan|cuda] [--variant lite|full] [--precision exact|fast]
//                  [--format rgba16f|r10g10b10a2|rgba8] [--frames N]
//
// The two backends differ only where the work runs (docs/integration.md, "Vulkan"):
//   vulkan: swinup records the frame into the application's command buffer, between the barrier
//           after the uploads and the barrier before the read-back, all in one submit, which
//           signals a timeline semaphore to i+1 (swinup reuses the frame's descriptor sets once
//           it reads that value);
//   cuda:   the images are exportable (VK_KHR_external_memory_fd) and swinup imports them; the
//           upload is submitted signalling a timeline semaphore (exportable,
//           VK_KHR_external_semaphore_fd) to 2i+1, swinup's CUDA work waits for it and signals
//           2i+2, and the read-back submit waits for that. The host waits only for the read-back.
//
// Device: SWINUP_VULKAN_DEVICE (an index or a name substring) when set, else the first device (cuda:
// the first NVIDIA device with both external-fd extensions). Exit status 77: no such device, or the
// backend is not in this build (the test reports it as skipped); 1: any other failure.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "output_decode.h"
#include "sequence/sequence.h"
#include "swinup/swinup.h"
#include "swinup/swinup_vulkan.h"
#include "vulkan_app.h"

namespace {

using namespace vulkan_app;

struct Options {
    std::string sequence, output;
    std::string backend = "vulkan", variant = "lite", precision = "exact", format = "rgba16f";
    int frames = 0;
};

Options parse(int argc, char** argv) {
    Options o;
    parse_arguments(argc, argv, [&](const std::string& a, auto value) {
        if (a == "-o" || a == "--output") o.output = value();
        else if (a == "--backend") o.backend = value();
        else if (a == "--variant") o.variant = value();
        else if (a == "--precision") o.precision = value();
        else if (a == "--format") o.format = value();
        else if (a == "--frames") o.frames = std::stoi(value());
        else if (!a.empty() && a[0] == '-') throw std::runtime_error("unknown option " + a);
        else o.sequence = a;
    });
    if (o.sequence.empty() || o.output.empty()) throw std::runtime_error("usage: vulkan_upscale SEQ -o OUT [options]");
    if (o.backend != "vulkan" && o.backend != "cuda") throw std::runtime_error("--backend: vulkan or cuda");
    return o;
}

void fail_on(swinup_status status, swinup_context* ctx, const std::string& what) {
    if (status == SWINUP_STATUS_OK) return;
    throw std::runtime_error(what + ": " + swinup_status_name(status) + ": " + swinup_last_error(ctx));
}

int run(const Options& opt) {
    const bool cuda = opt.backend == "cuda";
    const swinup::SequenceInfo info =
        swinup::sequence_read_info(opt.sequence, swinup::FilesNeeded{/*mv_display=*/false, /*ground_truth=*/false});
    const int frames = opt.frames > 0 ? std::min(opt.frames, info.frame_count) : info.frame_count;
    const uint32_t rw = static_cast<uint32_t>(info.render_width), rh = static_cast<uint32_t>(info.render_height);
    const uint32_t dw = static_cast<uint32_t>(info.display_width), dh = static_cast<uint32_t>(info.display_height);

    Gpu gpu(cuda);
    const swinup_vulkan_device_desc device = device_desc(gpu);

    // The same context as `swinup upscale` makes for this sequence.
    swinup_context_desc desc;
    swinup_context_desc_init(&desc);
    desc.backend = cuda ? SWINUP_BACKEND_CUDA : SWINUP_BACKEND_VULKAN;
    desc.variant = opt.variant == "full" ? SWINUP_VARIANT_FULL : SWINUP_VARIANT_LITE;
    desc.precision = opt.precision == "fast" ? SWINUP_PRECISION_FAST : SWINUP_PRECISION_EXACT;
    desc.output_format = output_format_of(opt.format);
    desc.max_render_width = rw;
    desc.max_render_height = rh;
    desc.display_width = dw;
    desc.display_height = dh;
    desc.flags = (info.hdr ? uint32_t(SWINUP_FLAG_HDR) : 0u) | (info.mv_jittered ? uint32_t(SWINUP_FLAG_MV_JITTERED) : 0u) |
                 (info.depth_inverted ? uint32_t(SWINUP_FLAG_DEPTH_INVERTED) : 0u);
    swinup_context* ctx = nullptr;
    const swinup_status created = swinup_vulkan_context_create(&desc, &device, &ctx);
    if (created == SWINUP_STATUS_UNSUPPORTED) throw vulkan_app::Unavailable(swinup_last_error(nullptr));
    fail_on(created, nullptr, "swinup_vulkan_context_create");
    // Destroyed before the device (declared after it), after the images: it releases the imports.
    struct ContextGuard {
        swinup_context* ctx;
        ~ContextGuard() { swinup_context_destroy(ctx); }
    } context_guard{ctx};

    const VkImageUsageFlags input_usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    AppImage color(gpu, VK_FORMAT_R32G32B32A32_SFLOAT, rw, rh, input_usage, cuda);
    AppImage depth(gpu, VK_FORMAT_R32_SFLOAT, rw, rh, input_usage, cuda);
    AppImage motion(gpu, VK_FORMAT_R32G32_SFLOAT, rw, rh, input_usage, cuda);
    AppImage output(gpu, vk_output_format(desc.output_format), dw, dh,
                    VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, cuda);
    const size_t render = size_t(rw) * rh, out_bytes = size_t(dw) * dh * swinup::cli::output_bytes_per_pixel(desc.output_format);
    HostBuffer color_up(gpu, render * 16, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    HostBuffer depth_up(gpu, render * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    HostBuffer motion_up(gpu, render * 8, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    HostBuffer readback(gpu, out_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT);

    // The frame's ordering: a timeline semaphore the CUDA backend waits on and signals (exportable);
    // with the Vulkan backend, the submit of each frame's command buffer signals it.
    VkSemaphore timeline = create_timeline_semaphore(gpu.device, cuda);
    VkFence fence = create_fence(gpu.device);
    VkCommandBuffer cmds[2];
    allocate_command_buffers(gpu.device, gpu.pool, 2, cmds);

    std::filesystem::create_directories(opt.output);
    swinup::SequenceInfo inputs_only = info;
    inputs_only.has_ground_truth = false;
    inputs_only.has_mv_display = false;
    std::vector<uint8_t> out(out_bytes);
    for (int i = 0; i < frames; ++i) {
        const swinup::Frame frame = swinup::sequence_read_frame(opt.sequence, inputs_only, i);
        if (frame.color.channels != 4 || frame.depth.channels != 1 || frame.mv.channels != 2)
            throw std::runtime_error("frame " + std::to_string(i) + ": unexpected channel counts");
        std::memcpy(color_up.mapped, frame.color.data.data(), render * 16);
        std::memcpy(depth_up.mapped, frame.depth.data.data(), render * 4);
        std::memcpy(motion_up.mapped, frame.mv.data.data(), render * 8);

        swinup_vulkan_dispatch_desc d;
        swinup_vulkan_dispatch_desc_init(&d);
        d.frame.render_width = rw;
        d.frame.render_height = rh;
        d.frame.exposure_value = info.exposure[size_t(i)];
        d.frame.jitter_x = info.jitter_x[size_t(i)];
        d.frame.jitter_y = info.jitter_y[size_t(i)];
        d.frame.reset = info.reset[size_t(i)];
        d.color = color.desc();
        d.depth = depth.desc();
        d.motion_vectors = motion.desc();
        d.output = output.desc();

        // Upload: the application's own commands write the inputs.
        begin_once(cmds[0]);
        if (i == 0) to_general(cmds[0], {&color, &depth, &motion, &output});
        copy_buffer_to_image(cmds[0], color_up, color);
        copy_buffer_to_image(cmds[0], depth_up, depth);
        copy_buffer_to_image(cmds[0], motion_up, motion);
        // The barrier before swinup's reads (and, for the output, its writes after last frame's copy).
        memory_barrier(cmds[0], VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);

        if (!cuda) {
            // Vulkan backend: swinup's commands go into this command buffer; one submit, which
            // signals the value that tells swinup the command buffer has completed (when it may
            // reuse the frame's descriptor sets).
            const uint64_t done = uint64_t(i) + 1;
            d.signal_semaphore = timeline;
            d.signal_value = done;
            fail_on(swinup_vulkan_record_dispatch(ctx, cmds[0], &d), ctx, "frame " + std::to_string(i));
            memory_barrier(cmds[0], VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
            copy_image_to_buffer(cmds[0], output, readback);
            VULKAN_APP_CHECK(vkEndCommandBuffer(cmds[0]));
            submit(gpu.queue, cmds[0], {}, {timeline, done}, fence);
        } else {
            // CUDA backend: the upload signals 2i+1; swinup's CUDA work waits for it and signals
            // 2i+2; the read-back waits for that. No host wait in between.
            VULKAN_APP_CHECK(vkEndCommandBuffer(cmds[0]));
            const uint64_t uploaded = 2 * uint64_t(i) + 1, upscaled = uploaded + 1;
            submit(gpu.queue, cmds[0], {}, {timeline, uploaded});

            d.wait_semaphore = timeline;
            d.wait_value = uploaded;
            d.signal_semaphore = timeline;
            d.signal_value = upscaled;
            fail_on(swinup_vulkan_record_dispatch(ctx, VK_NULL_HANDLE, &d), ctx, "frame " + std::to_string(i));

            begin_once(cmds[1]);
            copy_image_to_buffer(cmds[1], output, readback);
            VULKAN_APP_CHECK(vkEndCommandBuffer(cmds[1]));
            submit(gpu.queue, cmds[1], {timeline, upscaled}, {}, fence);
        }
        VULKAN_APP_CHECK(vkWaitForFences(gpu.device, 1, &fence, VK_TRUE, UINT64_MAX));
        VULKAN_APP_CHECK(vkResetFences(gpu.device, 1, &fence));

        std::memcpy(out.data(), readback.mapped, out_bytes);
        const std::string path = (std::filesystem::path(opt.output) / swinup::frame_file("out", i)).string();
        swinup::exr_write(path, swinup::cli::decode_output(out, desc.output_format, int(dw), int(dh)),
                          /*half_precision=*/true);
    }
    std::printf("vulkan_upscale: %d frames %ux%u -> %ux%u on %s (%s backend) -> %s\n", frames, rw, rh, dw, dh,
                [&] {
                    VkPhysicalDeviceProperties p;
                    vkGetPhysicalDeviceProperties(gpu.physical, &p);
                    return std::string(p.deviceName);
                }()
                    .c_str(),
                opt.backend.c_str(), opt.output.c_str());

    VULKAN_APP_CHECK(vkDeviceWaitIdle(gpu.device));
    vkDestroyFence(gpu.device, fence, nullptr);
    vkDestroySemaphore(gpu.device, timeline, nullptr);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    return vulkan_app::run_program("vulkan_upscale", [&] { return run(parse(argc, argv)); });
}
