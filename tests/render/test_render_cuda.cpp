// The CUDA renderer against the CPU one (same tracer source, compiled twice): the same frame,
// compared pixel by pixel within stated bounds; and its speed at 1920x1080 with 16-spp ground
// truth (printed as RESULT lines for docs/performance.md). Skips without a GPU build or device.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "render/frame_renderer.h"
#include "render/gltf_loader.h"
#include "render/render_sequence.h"
#include "render/scenes.h"

using namespace swinup;
using namespace swinup::render;

namespace {

struct Difference {
    double max_abs = 0, mean_abs = 0, fraction_over = 0;
};

// Per value: max and mean absolute difference, and the fraction of pixels with any channel
// differing by more than `threshold`.
Difference compare(const Image& a, const Image& b, double threshold) {
    Difference d;
    EXPECT_EQ(a.data.size(), b.data.size());
    size_t over = 0;
    const size_t pixels = static_cast<size_t>(a.width) * a.height;
    for (size_t p = 0; p < pixels; ++p) {
        bool pixel_over = false;
        for (int c = 0; c < a.channels; ++c) {
            const double e = std::fabs(double(a.data[p * a.channels + c]) - b.data[p * a.channels + c]);
            d.max_abs = std::max(d.max_abs, e);
            d.mean_abs += e;
            pixel_over |= e > threshold;
        }
        over += pixel_over;
    }
    d.mean_abs /= static_cast<double>(a.data.size());
    d.fraction_over = static_cast<double>(over) / static_cast<double>(pixels);
    return d;
}

FrameRequest frame_request(const Scene& scene, const CameraPose& pose, int rw, int rh, int dw, int dh) {
    FrameRequest r;
    FrameParams& p = r.params;
    const float aspect = static_cast<float>(dw) / static_cast<float>(dh);
    p.camera = camera_from_pose(pose, aspect);
    CameraPose before = pose;
    before.position = before.position + Vec3{-0.05f, 0.0f, 0.02f};
    p.previous_camera = camera_from_pose(before, aspect);
    p.render_width = rw;
    p.render_height = rh;
    p.display_width = dw;
    p.display_height = dh;
    jitter_offset(3, jitter_phase_count(static_cast<float>(dw) / static_cast<float>(rw)), p.jitter_x, p.jitter_y);
    p.render_lod_bias = std::log2(static_cast<float>(rw) / static_cast<float>(dw)) - 1.0f;
    p.display_lod_bias = -1.0f;
    p.gt_strata = 4;
    p.seed = 11;
    p.frame_index = 3;
    r.mv_display = true;
    r.ground_truth = true;
    (void)scene;
    return r;
}

void expect_same_frame(const Frame& cpu, const Frame& gpu, const char* scene) {
    // Bounds: colours (LDR, [0,1]) differ by more than 1e-2 on at most 0.5% of pixels (a
    // different triangle or texel level where the last bit of a transcendental differs) and by
    // 2e-4 on average; depth and motion by more than 1e-3 on at most 0.5% of pixels.
    const Difference color = compare(cpu.color, gpu.color, 1e-2);
    const Difference gt = compare(cpu.gt, gpu.gt, 1e-2);
    const Difference depth = compare(cpu.depth, gpu.depth, 1e-3);
    const Difference mv = compare(cpu.mv, gpu.mv, 1e-3);
    const Difference mvd = compare(cpu.mv_display, gpu.mv_display, 1e-3);
    const Difference masks = compare(cpu.masks, gpu.masks, 1e-3);
    std::printf("RESULT cpu_vs_gpu %s color max %.3g mean %.3g over1e-2 %.4f%% | gt max %.3g mean %.3g over1e-2 %.4f%% | "
                "depth max %.3g over1e-3 %.4f%% | mv max %.3g over1e-3 %.4f%% | mv_display max %.3g over1e-3 %.4f%%\n",
                scene, color.max_abs, color.mean_abs, 100 * color.fraction_over, gt.max_abs, gt.mean_abs,
                100 * gt.fraction_over, depth.max_abs, 100 * depth.fraction_over, mv.max_abs, 100 * mv.fraction_over,
                mvd.max_abs, 100 * mvd.fraction_over);
    std::printf("RESULT cpu_vs_gpu %s masks max %.3g over1e-3 %.4f%%\n", scene, masks.max_abs, 100 * masks.fraction_over);
    for (const Difference* d : {&color, &gt}) {
        EXPECT_LE(d->fraction_over, 0.005);
        EXPECT_LE(d->mean_abs, 2e-4);
    }
    for (const Difference* d : {&depth, &mv, &mvd, &masks}) EXPECT_LE(d->fraction_over, 0.005);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void time_full_hd(Scene& scene, const CameraPose& pose, const char* name, bool also_cpu) {
    const FrameRequest r = frame_request(scene, pose, 960, 540, 1920, 1080);
    CudaFrameRenderer gpu(scene);
    gpu.render(scene, r);  // warm-up (module load, allocations)
    const int repeats = 3;
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < repeats; ++i) gpu.render(scene, r);
    const double gpu_s = seconds_since(start) / repeats;
    // Camera samples: one per render pixel, one per display pixel (display MVs, no shading), 16
    // per display pixel for the ground truth; each shaded one traces a closest-hit ray and, on
    // surfaces facing the sun, a shadow ray.
    const double samples = 960.0 * 540 + 1920.0 * 1080 * 17;
    std::printf("RESULT gpu_1080p %s seconds_per_frame %.4f camera_samples_per_s %.3g\n", name, gpu_s, samples / gpu_s);
    if (also_cpu) {
        const auto cpu_start = std::chrono::steady_clock::now();
        render_frame_cpu(scene.view(), r);
        const double cpu_s = seconds_since(cpu_start);
        std::printf("RESULT cpu_1080p %s seconds_per_frame %.3f camera_samples_per_s %.3g\n", name, cpu_s, samples / cpu_s);
    }
}

std::string shared_scene(const char* relative) {
    const char* env = std::getenv("SWINUP_RENDER_SCENES");
    const std::string root = env ? env : std::string(SWINUP_SHARED_DIR) + "/scenes";
    return root + "/" + relative;
}

}  // namespace

TEST(RenderCuda, SameFrameAsCpuProcedural) {
    if (!cuda_renderer_available()) GTEST_SKIP() << "no CUDA renderer in this build or no GPU";
    for (const char* name : {"showcase", "fence", "particles"}) {
        auto scene = builtin_scene_create(name);
        scene->set_time(0.2f, 0.2f - 1.0f / 30.0f);
        const FrameRequest r = frame_request(*scene, scene->camera_base, 320, 180, 640, 360);
        CudaFrameRenderer gpu(*scene);
        expect_same_frame(render_frame_cpu(scene->view(), r), gpu.render(*scene, r), name);
    }
}

TEST(RenderCuda, SameFrameAsCpuGltf) {
    if (!cuda_renderer_available()) GTEST_SKIP() << "no CUDA renderer in this build or no GPU";
    const std::string path = shared_scene("breakfast_room/BreakfastRoom.gltf");
    if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " is absent";
    auto scene = gltf_load_scene(path);
    scene->set_time(0, 0);
    const FrameRequest r = frame_request(*scene, scene->cameras[0], 320, 180, 640, 360);
    CudaFrameRenderer gpu(*scene);
    expect_same_frame(render_frame_cpu(scene->view(), r), gpu.render(*scene, r), "breakfast_room");
}

TEST(RenderCuda, SpeedAtFullHd) {
    if (!cuda_renderer_available()) GTEST_SKIP() << "no CUDA renderer in this build or no GPU";
    auto showcase = builtin_scene_create("showcase");
    showcase->set_time(0.2f, 0.2f - 1.0f / 30.0f);
    time_full_hd(*showcase, showcase->camera_base, "showcase", true);
    const std::string path = shared_scene("breakfast_room/BreakfastRoom.gltf");
    if (std::filesystem::exists(path)) {
        auto room = gltf_load_scene(path);
        room->set_time(0, 0);
        time_full_hd(*room, room->cameras[0], "breakfast_room", true);
    }
    const std::string gas = shared_scene("gas_station/GasStation.gltf");
    if (std::filesystem::exists(gas)) {
        auto station = gltf_load_scene(gas);
        station->set_time(0, 0);
        time_full_hd(*station, station->cameras[0], "gas_station", false);
    }
}
