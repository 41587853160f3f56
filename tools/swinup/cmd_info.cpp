// swinup info: what this build and machine would run: the variant and its weights, the backend
// and device chosen, the render size of each quality mode for a display size and the range of
// render sizes dynamic resolution may use, and the build.
#include <cstdio>
#include <memory>
#include <string>

#include "api_context.h"
#ifdef SWINUP_HAVE_VULKAN
#include "vulkan/runtime/device.h"
#include "vulkan/runtime/vulkan_error.h"
#endif
#include "commands.h"
#include "options.h"

namespace swinup::cli {
namespace {

struct InfoOptions {
    NetworkOptions net;
    std::string display = "1920x1080";
};

struct QualityMode {
    swinup_quality_mode mode;
    const char* name;
};

constexpr QualityMode kQualityModes[] = {
    {SWINUP_QUALITY_NATIVE_AA, "native AA"},
    {SWINUP_QUALITY_QUALITY, "quality"},
    {SWINUP_QUALITY_BALANCED, "balanced"},
    {SWINUP_QUALITY_PERFORMANCE, "performance"},
    {SWINUP_QUALITY_ULTRA_PERFORMANCE, "ultra performance"},
};

void print_build() {
#ifdef SWINUP_HAVE_CUDA
    const char* cuda = "compiled in";
#else
    const char* cuda = "not compiled (CPU only)";
#endif
#if defined(__clang__)
    const char* compiler = "clang";
#elif defined(__GNUC__)
    const char* compiler = "gcc";
#else
    const char* compiler = "compiler";
#endif
#ifdef NDEBUG
    const char* build = "release";
#else
    const char* build = "debug";
#endif
    std::printf("swinup     %d.%d.%d (%s build, %s %s)\n", SWINUP_VERSION_MAJOR,
                SWINUP_VERSION_MINOR, SWINUP_VERSION_PATCH, build, compiler, __VERSION__);
    std::printf("cuda       %s\n", cuda);
}

// The Vulkan devices the loader sees (the Vulkan backend runs only when asked for: --backend
// vulkan; SWINUP_VULKAN_DEVICE or the device index picks one).
void print_vulkan_devices() {
#ifdef SWINUP_HAVE_VULKAN
    try {
        const auto devices = vulkan::list_physical_devices();
        if (devices.empty()) std::printf("vulkan     compiled in; no Vulkan device found\n");
        for (const auto& d : devices) {
            std::printf("vulkan     device %u: %s (%s, Vulkan %s)%s%s\n", d.index, d.name.c_str(), d.type.c_str(),
                        vulkan::version_text(d.api_version).c_str(), d.missing.empty() ? "" : ", unusable: lacks ",
                        d.missing.c_str());
            if (d.missing.empty()) std::printf("vulkan       fast mode's GEMM: %s\n", d.fast_gemm.c_str());
        }
    } catch (const vulkan::VulkanError& e) {
        std::printf("vulkan     compiled in; %s\n", e.what());
    }
#else
    std::printf("vulkan     not compiled (configure with -DSWINUP_VULKAN=ON)\n");
#endif
}

// Each quality mode's ratio and render size, and the range of render sizes a context of this
// display accepts (dynamic resolution), from the library's queries.
void print_render_sizes(const Size2& display) {
    std::printf("render sizes for display %s:\n", size_text(display.width, display.height).c_str());
    for (const QualityMode& q : kQualityModes) {
        uint32_t w = 0, h = 0;
        float ratio = 0.0f;
        check_status(swinup_get_render_size(q.mode, display.width, display.height, &w, &h),
                     nullptr, std::string("render size of ") + q.name);
        check_status(swinup_get_upscale_ratio(q.mode, &ratio), nullptr, std::string("upscale ratio of ") + q.name);
        std::printf("  %-18s %4.2fx  %s\n", q.name, double(ratio), size_text(w, h).c_str());
    }
    uint32_t min_w = 0, min_h = 0, max_w = 0, max_h = 0;
    check_status(swinup_get_render_size_range(display.width, display.height, &min_w, &min_h, &max_w, &max_h),
                 nullptr, "render size range");
    std::printf("  %-18s %s to %s\n", "dynamic resolution", size_text(min_w, min_h).c_str(),
                size_text(max_w, max_h).c_str());
}

void run_info(const InfoOptions& opt) {
    const Size2 display = parse_size(opt.display, "--display");
    print_build();
    print_vulkan_devices();
    print_render_sizes(display);

    // A context at the performance mode's render size: what the backend would really pick.
    uint32_t render_w = 0, render_h = 0;
    check_status(swinup_get_render_size(SWINUP_QUALITY_PERFORMANCE, display.width, display.height,
                                        &render_w, &render_h),
                 nullptr, "render size");
    swinup_context_desc desc;
    swinup_context_desc_init(&desc);
    apply_network_options(opt.net, &desc);
    desc.max_render_width = render_w;
    desc.max_render_height = render_h;
    desc.display_width = display.width;
    desc.display_height = display.height;
    check_context_values(desc, "--display " + opt.display);
    ContextHandle ctx = create_context(desc);
    const swinup_context_info info = context_info(ctx.get());
    std::printf("variant    %s\n", variant_label(info.variant));
    std::printf("precision  %s\n", precision_label(info.precision));
    std::printf("weights    %s\n", info.weights_description);
    std::printf("parameters %llu\n", static_cast<unsigned long long>(info.parameter_count));
    std::printf("backend    %s\n", backend_label(info.backend));
    std::printf("device     %s\n", info.device_name);
}

}  // namespace

void register_info(CLI::App& app) {
    auto opt = std::make_shared<InfoOptions>();
    CLI::App* cmd = app.add_subcommand("info", "Show the variant, weights, backend and build");
    add_network_options(cmd, &opt->net, "");
    cmd->add_option("--display", opt->display, "display size WxH for the render-size table")
        ->capture_default_str();
    cmd->callback([opt] { run_info(*opt); });
}

}  // namespace swinup::cli
