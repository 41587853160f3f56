/*
 * An engine's frame loop around swinup, in plain C (docs/integration.md walks through it).
 *
 * The "engine" here draws an analytic scene, a textured plane seen by a camera that pans, so that
 * the program knows the true display-resolution image and can score what swinup returns. Each
 * frame it does what a game does:
 *   - takes the jitter from swinup_get_jitter and puts it into the projection matrix;
 *   - renders colour, depth and motion vectors at this frame's render size (dynamic resolution
 *     between a minimum and the context's maximum), with the texture mip bias for that size;
 *   - hands them to swinup_dispatch with the jitter, the motion-vector scale, the exposure and the
 *     pre-exposure, and asks for a reset on a camera cut;
 *   - reads the output in the context's format.
 *
 *   engine_loop [--format rgba16f|r10g10b10a2|rgba8] [--hdr] [--wrong-motion-sign] [--wrong-jitter-sign]
 *               [--fsr-jitter]
 *
 * --fsr-jitter is an engine that keeps its FSR 2 jitter code: the projection moved by +2 jx / w and
 * -2 jy / h in NDC, and dispatch.jitter_convention = SWINUP_JITTER_FSR_DLSS.
 * It prints the PSNR of the last frames against the truth; the --wrong-* switches break one
 * convention on purpose, and the test suite checks that each of them scores clearly lower.
 * Exit status: 0 when every call succeeded and every output value was finite, else 1.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <swinup/swinup.h>

enum { kDisplayW = 192, kDisplayH = 108, kMaxRenderW = 128, kMaxRenderH = 72, kFrames = 40, kCutFrame = 20 };

/* ---- the scene: a plane textured with soft stripes and a checker, under a panning camera ---------- */

/* Texture value at plane coordinates (u, v) in texels, low-passed by a footprint `blur` (texels):
 * what trilinear filtering at the mip level for that footprint would give, in closed form. */
static float texture(double u, double v, double blur) {
    const double damp = exp(-blur * blur * 0.35);
    const double stripes = 0.5 + 0.5 * sin(u * 0.9 + 0.4 * sin(v * 0.21)) * damp;
    const double checker = (fmod(floor(u / 6.0) + floor(v / 6.0), 2.0) == 0.0 ? 0.8 : 0.2);
    return (float)(0.55 * stripes + 0.45 * checker);
}

/* The camera's position on the plane (texels) at frame t: a pan, and after the cut another place. */
static void camera_at(int t, double* cx, double* cy) {
    if (t < kCutFrame) { *cx = 1.7 * t;             *cy = 0.6 * t; }
    else               { *cx = 500.0 - 1.3 * t;     *cy = 200.0 + 0.9 * t; }
}

/* The view covers kDisplayW x kDisplayH texels, whatever the render size. */
static const double kViewW = kDisplayW, kViewH = kDisplayH;

/* ---- projection with jitter -------------------------------------------------------------------- */

/* A 2D orthographic projection as a 3x3 matrix (row-major) from plane coordinates to NDC (x right,
 * y up, [-1, 1]). Jitter: swinup's jitter (jx, jy) is where the sample lies relative to the pixel
 * centre, in render pixels, +y down. A pixel centre then sees the point that the unjittered
 * projection puts at centre + jitter, so the projection is translated by the opposite:
 * -2 jx / render_width in NDC x, and +2 jy / render_height in NDC y (NDC's y points up). */
static void projection(double cx, double cy, float jx, float jy, int rw, int rh, double m[9]) {
    const double sx = 2.0 / kViewW, sy = -2.0 / kViewH; /* plane y grows downwards like rows */
    m[0] = sx;  m[1] = 0.0; m[2] = -sx * cx - 1.0 - 2.0 * jx / rw;
    m[3] = 0.0; m[4] = sy;  m[5] = -sy * cy + 1.0 + 2.0 * jy / rh;
    m[6] = 0.0; m[7] = 0.0; m[8] = 1.0;
}

/* The plane point a render pixel's centre sees through projection m: the inverse of the matrix
 * applied to the pixel centre's NDC position (what rasterising with that matrix does). */
static void unproject(const double m[9], double px, double py, int rw, int rh, double* u, double* v) {
    const double ndc_x = 2.0 * px / rw - 1.0, ndc_y = 1.0 - 2.0 * py / rh;
    *u = (ndc_x - m[2]) / m[0];
    *v = (ndc_y - m[5]) / m[4];
}

/* ---- one frame of the engine ------------------------------------------------------------------ */

typedef struct Options {
    swinup_format format;
    int hdr, wrong_motion_sign, wrong_jitter_sign, fsr_jitter;
} Options;

static float half_to_float(uint16_t h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    const float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? INFINITY : ldexpf((float)(m | 1024), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* The output's linear RGB at display pixel i, decoded from the context's format. */
static void read_output(const uint8_t* out, swinup_format format, int i, float rgb[3]) {
    if (format == SWINUP_FORMAT_RGBA16F) {
        const uint16_t* h = (const uint16_t*)out + (size_t)i * 4;
        for (int c = 0; c < 3; ++c) rgb[c] = half_to_float(h[c]);
    } else {
        uint32_t p;
        memcpy(&p, out + (size_t)i * 4, 4);
        if (format == SWINUP_FORMAT_R10G10B10A2)
            for (int c = 0; c < 3; ++c) rgb[c] = (float)((p >> (10 * c)) & 1023u) / 1023.0f;
        else
            for (int c = 0; c < 3; ++c) rgb[c] = (float)((p >> (8 * c)) & 255u) / 255.0f;
    }
}

/* The library writes nothing by itself; an engine routes its messages to its own log. */
static void log_message(swinup_log_level level, const char* message, void* user_data) {
    (void)user_data;
    if (level != SWINUP_LOG_INFO) fprintf(stderr, "swinup %s: %s\n", level == SWINUP_LOG_ERROR ? "error" : "warning", message);
}

static int parse(int argc, char** argv, Options* o) {
    o->format = SWINUP_FORMAT_RGBA16F;
    o->hdr = o->wrong_motion_sign = o->wrong_jitter_sign = o->fsr_jitter = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            const char* f = argv[++i];
            if (!strcmp(f, "rgba16f")) o->format = SWINUP_FORMAT_RGBA16F;
            else if (!strcmp(f, "r10g10b10a2")) o->format = SWINUP_FORMAT_R10G10B10A2;
            else if (!strcmp(f, "rgba8")) o->format = SWINUP_FORMAT_RGBA8;
            else { fprintf(stderr, "engine_loop: unknown format %s\n", f); return 0; }
        } else if (!strcmp(argv[i], "--hdr")) o->hdr = 1;
        else if (!strcmp(argv[i], "--wrong-motion-sign")) o->wrong_motion_sign = 1;
        else if (!strcmp(argv[i], "--wrong-jitter-sign")) o->wrong_jitter_sign = 1;
        else if (!strcmp(argv[i], "--fsr-jitter")) o->fsr_jitter = 1;
        else { fprintf(stderr, "usage: engine_loop [--format rgba16f|r10g10b10a2|rgba8] [--hdr] "
                               "[--wrong-motion-sign] [--wrong-jitter-sign] [--fsr-jitter]\n"); return 0; }
    }
    if (o->hdr && o->format != SWINUP_FORMAT_RGBA16F) {
        fprintf(stderr, "engine_loop: --hdr needs --format rgba16f (UNORM formats clamp to 1)\n");
        return 0;
    }
    return 1;
}

int main(int argc, char** argv) {
    Options opt;
    if (!parse(argc, argv, &opt)) return 2;

    /* The engine's HDR pipeline: scene radiance up to ~4, a pre-exposure it multiplies into the
     * colour it renders (to keep f16 targets in range), and an exposure it will apply later. */
    const float radiance_scale = opt.hdr ? 4.0f : 1.0f;
    const float pre_exposure = opt.hdr ? 0.5f : 1.0f;
    const float exposure = opt.hdr ? 0.25f : 1.0f;

    swinup_context_desc cd;
    swinup_context_desc_init(&cd);
    cd.backend = SWINUP_BACKEND_CPU; /* runs anywhere; SWINUP_BACKEND_AUTO picks CUDA when present */
    cd.display_width = kDisplayW;
    cd.display_height = kDisplayH;
    cd.max_render_width = kMaxRenderW; /* the largest render size dynamic resolution will use */
    cd.max_render_height = kMaxRenderH;
    cd.output_format = opt.format;
    cd.flags = opt.hdr ? SWINUP_FLAG_HDR : 0;
    cd.log_callback = log_message;
    swinup_context* ctx = NULL;
    if (swinup_context_create(&cd, &ctx) != SWINUP_STATUS_OK) {
        fprintf(stderr, "swinup_context_create: %s\n", swinup_last_error(NULL));
        return 1;
    }

    float* color = malloc(sizeof(float) * 4 * kMaxRenderW * kMaxRenderH);
    float* depth = malloc(sizeof(float) * kMaxRenderW * kMaxRenderH);
    float* motion = malloc(sizeof(float) * 2 * kMaxRenderW * kMaxRenderH);
    uint8_t* output = malloc((size_t)8 * kDisplayW * kDisplayH);
    int ok = color && depth && motion && output;
    double err2 = 0.0;
    long scored = 0;
    int finite = 1;

    for (int t = 0; ok && t < kFrames; ++t) {
        /* Dynamic resolution: the render size moves between 2x and 1.5x below the display, never
         * above max_render_*; the jitter's phase count follows the current ratio. */
        const int rw = (t / 5) % 2 ? kMaxRenderW : kDisplayW / 2;
        const int rh = (t / 5) % 2 ? kMaxRenderH : kDisplayH / 2;
        const float scale = (float)kDisplayW / (float)rw;
        float jx, jy;
        swinup_get_jitter((uint32_t)t, swinup_get_jitter_phase_count(scale), &jx, &jy);
        const float sign = opt.wrong_jitter_sign ? -1.0f : 1.0f;
        /* projection() moves the image as swinup's convention says (-2 jx / w, +2 jy / h). FSR 2's
         * code moves it by +2 jx / w, -2 jy / h: the same matrix with the jitter negated. */
        const float convention = opt.fsr_jitter ? -1.0f : 1.0f;

        /* Texture mip bias for an upscaler: log2(render / display) - 1 (sharper than native by one
         * level: the upscaler accumulates the detail over frames). As a footprint, in texels. */
        const double mip_bias = log2((double)rw / kDisplayW) - 1.0;
        const double footprint = (kViewW / rw) * exp2(mip_bias);

        double cx, cy, px_, py_;
        camera_at(t, &cx, &cy);
        camera_at(t > 0 ? t - 1 : 0, &px_, &py_);
        const int cut = t == kCutFrame;
        double m[9];
        projection(cx, cy, convention * sign * jx, convention * sign * jy, rw, rh, m);
        for (int y = 0; y < rh; ++y)
            for (int x = 0; x < rw; ++x) {
                double u, v;
                unproject(m, x + 0.5, y + 0.5, rw, rh, &u, &v);
                const float c = texture(u, v, footprint) * radiance_scale * pre_exposure;
                float* p = color + ((size_t)y * rw + x) * 4;
                p[0] = c; p[1] = 0.85f * c; p[2] = 0.7f * c; p[3] = 1.0f;
                depth[(size_t)y * rw + x] = 0.5f;
                /* Motion: from this pixel to where the same surface point was in the previous
                 * frame, in UV units (fractions of the screen); mv_scale below turns them into
                 * render pixels. The camera moved by (cx - px_, cy - py_) texels, so the point
                 * was that much further along the screen's axes. */
                const float mu = (float)((cx - px_) / kViewW), mv = (float)((cy - py_) / kViewH);
                const float msign = opt.wrong_motion_sign ? -1.0f : 1.0f;
                motion[((size_t)y * rw + x) * 2 + 0] = cut ? 0.0f : msign * mu;
                motion[((size_t)y * rw + x) * 2 + 1] = cut ? 0.0f : msign * mv;
            }

        swinup_dispatch_desc dd;
        swinup_dispatch_desc_init(&dd);
        const swinup_resource none = {0};
        dd.color = none;
        dd.color.data = color; dd.color.format = SWINUP_FORMAT_RGBA32F;
        dd.color.width = (uint32_t)rw; dd.color.height = (uint32_t)rh;
        dd.depth = none;
        dd.depth.data = depth; dd.depth.format = SWINUP_FORMAT_R32F;
        dd.depth.width = (uint32_t)rw; dd.depth.height = (uint32_t)rh;
        dd.motion_vectors = none;
        dd.motion_vectors.data = motion; dd.motion_vectors.format = SWINUP_FORMAT_RG32F;
        dd.motion_vectors.width = (uint32_t)rw; dd.motion_vectors.height = (uint32_t)rh;
        dd.output = none;
        dd.output.data_mut = output; dd.output.data = output; dd.output.format = opt.format;
        dd.output.width = kDisplayW; dd.output.height = kDisplayH;
        dd.render_width = (uint32_t)rw;
        dd.render_height = (uint32_t)rh;
        dd.jitter_x = jx; /* the jitter as swinup_get_jitter gave it, whatever the matrix did */
        dd.jitter_y = jy;
        dd.jitter_convention = opt.fsr_jitter ? SWINUP_JITTER_FSR_DLSS : SWINUP_JITTER_SAMPLE_OFFSET;
        dd.mv_scale_x = (float)rw; /* UV units -> render pixels */
        dd.mv_scale_y = (float)rh;
        dd.exposure_value = exposure;
        dd.pre_exposure = pre_exposure;
        dd.reset = cut; /* a camera cut: the history shows another place */
        dd.frame_time_delta_ms = 16.7f;
        if (swinup_dispatch(ctx, &dd) != SWINUP_STATUS_OK) {
            fprintf(stderr, "frame %d: swinup_dispatch: %s\n", t, swinup_last_error(ctx));
            ok = 0;
            break;
        }

        /* Score the frames before the cut that have settled, and the last ones after it. The
         * output is in the colour's units (pre-exposed): truth * radiance * pre_exposure. */
        if ((t >= 10 && t < kCutFrame) || t >= kFrames - 8) {
            for (int y = 0; y < kDisplayH; ++y)
                for (int x = 0; x < kDisplayW; ++x) {
                    float rgb[3];
                    read_output(output, opt.format, y * kDisplayW + x, rgb);
                    /* Truth: the display pixel's box average (4x4 samples) of the unfiltered texture. */
                    double truth = 0.0;
                    for (int s = 0; s < 16; ++s)
                        truth += texture(cx + x + (s % 4 + 0.5) / 4.0, cy + y + (s / 4 + 0.5) / 4.0, 0.0);
                    truth = truth / 16.0 * radiance_scale * pre_exposure;
                    const double want[3] = {truth, 0.85 * truth, 0.7 * truth};
                    for (int c = 0; c < 3; ++c) {
                        if (!isfinite(rgb[c])) finite = 0;
                        const double d = (rgb[c] - want[c]) / (radiance_scale * pre_exposure);
                        err2 += d * d;
                    }
                    scored += 3;
                }
        }
    }

    if (ok) {
        const double mse = err2 / (double)(scored > 0 ? scored : 1);
        printf("psnr %.2f dB over %ld values%s\n", 10.0 * log10(1.0 / mse), scored,
               finite ? "" : " (non-finite output!)");
    }
    swinup_context_destroy(ctx);
    free(color); free(depth); free(motion); free(output);
    return ok && finite ? 0 : 1;
}
