/* Upscales two small frames with the embedded lite weights on the CPU backend through the
 * installed C API, and checks the output: every value finite, alpha 1, some colour. Before that,
 * the library's version (swinup_get_version) must be the installed header's, and the memory
 * query must answer for the CPU backend with some host memory.
 * Exit status 0 on success; on failure it prints what went wrong. */
#include <stdio.h>
#include <stdlib.h>

#include <swinup/swinup.h>

enum { RENDER_W = 32, RENDER_H = 32, DISPLAY_W = 64, DISPLAY_H = 64 };

static int fail(const char* what, const swinup_context* ctx) {
    fprintf(stderr, "consumer: %s: %s\n", what, swinup_last_error(ctx));
    return 1;
}

/* A host image, rows packed; the fields not named are zero (C99 designated initializers). */
static swinup_resource image(void* data, swinup_format format, uint32_t width, uint32_t height) {
    const swinup_resource r = {.data = data, .memory = SWINUP_MEMORY_HOST, .format = format, .width = width,
                               .height = height};
    return r;
}

int main(void) {
    swinup_version_info version = {0};
    version.struct_size = sizeof version;
    if (swinup_get_version(&version) != SWINUP_STATUS_OK) return fail("get_version", NULL);
    if (version.major != SWINUP_VERSION_MAJOR || version.minor != SWINUP_VERSION_MINOR ||
        version.patch != SWINUP_VERSION_PATCH) {
        fprintf(stderr, "consumer: the library is swinup %u.%u.%u, the header %d.%d.%d\n", version.major,
                version.minor, version.patch, SWINUP_VERSION_MAJOR, SWINUP_VERSION_MINOR, SWINUP_VERSION_PATCH);
        return 1;
    }

    swinup_context_desc cd;
    swinup_context_desc_init(&cd);
    cd.backend = SWINUP_BACKEND_CPU;
    cd.variant = SWINUP_VARIANT_LITE;
    cd.weights_source = SWINUP_WEIGHTS_EMBEDDED;
    cd.max_render_width = RENDER_W;
    cd.max_render_height = RENDER_H;
    cd.display_width = DISPLAY_W;
    cd.display_height = DISPLAY_H;
    cd.output_format = SWINUP_FORMAT_RGBA16F;
    cd.num_threads = 1;
    swinup_memory_requirements memory = {0};
    memory.struct_size = sizeof memory;
    if (swinup_query_memory(&cd, &memory) != SWINUP_STATUS_OK) return fail("query_memory", NULL);
    if (memory.backend != SWINUP_BACKEND_CPU || memory.host_bytes == 0 || memory.device_bytes != 0) {
        fprintf(stderr, "consumer: swinup_query_memory answered backend %d, %llu host bytes, %llu device bytes\n",
                (int)memory.backend, (unsigned long long)memory.host_bytes, (unsigned long long)memory.device_bytes);
        return 1;
    }
    swinup_context* ctx = NULL;
    if (swinup_context_create(&cd, &ctx) != SWINUP_STATUS_OK) return fail("create", NULL);

    static float color[RENDER_H][RENDER_W][4], depth[RENDER_H][RENDER_W], motion[RENDER_H][RENDER_W][2];
    static uint16_t output[DISPLAY_H][DISPLAY_W][4];
    for (int frame = 0; frame < 2; ++frame) {
        for (int y = 0; y < RENDER_H; ++y) {
            for (int x = 0; x < RENDER_W; ++x) {
                const float checker = ((x / 4 + y / 4 + frame) % 2) ? 0.8f : 0.2f;
                color[y][x][0] = checker;
                color[y][x][1] = 0.5f;
                color[y][x][2] = 1.0f - checker;
                color[y][x][3] = 1.0f;
                depth[y][x] = 0.5f;
                motion[y][x][0] = motion[y][x][1] = 0.0f;
            }
        }
        swinup_dispatch_desc dd;
        swinup_dispatch_desc_init(&dd);
        dd.color = image(color, SWINUP_FORMAT_RGBA32F, RENDER_W, RENDER_H);
        dd.depth = image(depth, SWINUP_FORMAT_R32F, RENDER_W, RENDER_H);
        dd.motion_vectors = image(motion, SWINUP_FORMAT_RG32F, RENDER_W, RENDER_H);
        dd.output = image(output, SWINUP_FORMAT_RGBA16F, DISPLAY_W, DISPLAY_H);
        dd.output.data_mut = output;
        dd.render_width = RENDER_W;
        dd.render_height = RENDER_H;
        if (swinup_get_jitter((uint32_t)frame, swinup_get_jitter_phase_count(2.0f), &dd.jitter_x,
                              &dd.jitter_y) != SWINUP_STATUS_OK)
            return fail("jitter", NULL);
        if (swinup_dispatch(ctx, &dd) != SWINUP_STATUS_OK) return fail("dispatch", ctx);
    }

    /* IEEE half: exponent bits all ones is Inf or NaN; 0x3c00 is 1.0. The FNV-1a hash of the
     * output lets two builds be compared bit for bit (portable and native give the same). */
    long nonzero = 0;
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < sizeof output; ++i) hash = (hash ^ ((const unsigned char*)output)[i]) * 0x100000001b3ull;
    for (int y = 0; y < DISPLAY_H; ++y) {
        for (int x = 0; x < DISPLAY_W; ++x) {
            for (int c = 0; c < 4; ++c) {
                const uint16_t h = output[y][x][c];
                if ((h & 0x7c00u) == 0x7c00u) {
                    fprintf(stderr, "consumer: output (%d, %d) channel %d is not finite (0x%04x)\n", x, y, c, h);
                    return 1;
                }
                if (c < 3 && (h & 0x7fffu) != 0) ++nonzero;
            }
            if (output[y][x][3] != 0x3c00u) {
                fprintf(stderr, "consumer: output (%d, %d) alpha is 0x%04x, not 1\n", x, y, output[y][x][3]);
                return 1;
            }
        }
    }
    if (nonzero == 0) {
        fprintf(stderr, "consumer: the output is black\n");
        return 1;
    }
    swinup_context_info info;
    if (swinup_context_get_info(ctx, &info) != SWINUP_STATUS_OK) return fail("get_info", ctx);
    printf("consumer: swinup %d.%d.%d, %s, %ld of %d colour values non-zero, all finite, output "
           "hash %016llx\n", SWINUP_VERSION_MAJOR, SWINUP_VERSION_MINOR, SWINUP_VERSION_PATCH,
           info.device_name, nonzero, DISPLAY_W * DISPLAY_H * 3, (unsigned long long)hash);
    swinup_context_destroy(ctx);
    return 0;
}
