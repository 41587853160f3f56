/*
 * swinup: an open real-time neural temporal upscaler (Swin-transformer U-Net).
 *
 * The C API, shaped like the upscaler SDKs engines already integrate (FSR 2/3, DLSS, XeSS):
 * an opaque context created from a descriptor, one dispatch per frame, destroy. No exceptions
 * cross this boundary; every call returns a swinup_status and, on failure, swinup_last_error()
 * names the field that was wrong.
 *
 * Threading: a context is not thread-safe (one thread dispatches to it at a time); two contexts
 * are fully independent, also when two threads dispatch to them at once and when they are on
 * different CUDA devices. The context owns the temporal state (history, recurrent features).
 */
#ifndef SWINUP_SWINUP_H
#define SWINUP_SWINUP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(SWINUP_BUILD_SHARED)
#define SWINUP_API __declspec(dllexport)
#elif defined(__GNUC__)
#define SWINUP_API __attribute__((visibility("default")))
#else
#define SWINUP_API
#endif

/* The library version. CMakeLists.txt reads the project version from these three lines, so they
   are the one place it is written; the shared library's SONAME is libswinup.so.<MAJOR>.
   swinup_get_version reports the version the loaded library was built with. */
#define SWINUP_VERSION_MAJOR 0
#define SWINUP_VERSION_MINOR 1
#define SWINUP_VERSION_PATCH 0

/* The largest display / render ratio per axis a context or dispatch accepts (the smallest is 1). */
#define SWINUP_MAX_UPSCALE_RATIO 3.0f

/* The most CPU worker threads a context may ask for (swinup_context_desc.num_threads). */
#define SWINUP_MAX_THREADS 1024

/* Result of every call. Zero is success; failures are negative (ggml's convention). */
typedef enum swinup_status {
    SWINUP_STATUS_OK = 0,
    SWINUP_STATUS_INVALID_ARGUMENT = -1,   /* a null, misaligned, out-of-range or NaN/Inf field */
    SWINUP_STATUS_UNSUPPORTED = -2,        /* valid request this build or device cannot serve */
    SWINUP_STATUS_WEIGHTS_INVALID = -3,    /* weights truncated, corrupted, wrong version or shapes */
    SWINUP_STATUS_IO_ERROR = -4,           /* a file could not be opened or read */
    SWINUP_STATUS_OUT_OF_MEMORY = -5,      /* host or device allocation failed */
    SWINUP_STATUS_DEVICE_ERROR = -6,       /* a CUDA or Vulkan call failed (a lost device, a driver
                                              error); the message names the call */
    SWINUP_STATUS_INTERNAL = -7            /* a bug in swinup: please report it */
} swinup_status;

typedef enum swinup_backend {
    SWINUP_BACKEND_AUTO = 0, /* CUDA when built with it and a sm_89+ GPU is present, else CPU */
    SWINUP_BACKEND_CPU = 1,  /* the reference backend, any x86-64 / arm64 */
    SWINUP_BACKEND_CUDA = 2, /* NVIDIA sm_89+ (FP8 tensor cores) */
    SWINUP_BACKEND_VULKAN = 3 /* any Vulkan 1.1 GPU (docs/vulkan.md); only when asked for */
} swinup_backend;

typedef enum swinup_variant {
    SWINUP_VARIANT_LITE = 0, /* level-1 tokens are 2x2 render pixels: the fast default */
    SWINUP_VARIANT_FULL = 1  /* adds a C32 Swin block at render resolution: quality */
} swinup_variant;

typedef enum swinup_precision {
    SWINUP_PRECISION_EXACT = 0, /* fixed formulas for exp2/GELU/sqrt/div, identical on CPU and GPU */
    SWINUP_PRECISION_FAST = 1   /* hardware approximations, held to a measured bound vs exact */
} swinup_precision;

/* Pixel formats of resources (inputs and output). The packed formats are 32-bit words, little-
   endian, with the memory layout of the Vulkan and DXGI formats named (a host copy of such an image
   is passed as it is):
     colour input:  RGBA16F, RGBA32F, RGB16F, RGB32F, R10G10B10A2, B10G11R11F
     depth input:   R32F, D24_UNORM_S8, D32F_S8
     motion input:  RG16F, RG32F
     output:        RGBA16F, R10G10B10A2, RGBA8, B10G11R11F
     masks:         R8_UNORM, R16F, R32F */
typedef enum swinup_format {
    SWINUP_FORMAT_UNKNOWN = 0,
    SWINUP_FORMAT_RGBA16F = 1,    /* 4 x IEEE half, linear */
    SWINUP_FORMAT_RGBA32F = 2,    /* 4 x float, linear */
    SWINUP_FORMAT_RGB16F = 3,     /* 3 x IEEE half, linear (color input only) */
    SWINUP_FORMAT_RGB32F = 4,     /* 3 x float, linear (color input only) */
    SWINUP_FORMAT_R32F = 5,       /* 1 x float (depth) */
    SWINUP_FORMAT_RG16F = 6,      /* 2 x IEEE half (motion vectors) */
    SWINUP_FORMAT_RG32F = 7,      /* 2 x float (motion vectors) */
    SWINUP_FORMAT_R10G10B10A2 = 8,/* packed UNORM: R bits 0-9, G 10-19, B 20-29, A 30-31 (Vulkan's
                                     A2B10G10R10_UNORM_PACK32, DXGI R10G10B10A2_UNORM); colour input
                                     (code / 1023, alpha not read) and output (alpha 3) */
    SWINUP_FORMAT_RGBA8 = 9,      /* 4 x UNORM8, R first in memory (output only) */
    SWINUP_FORMAT_R8_UNORM = 10,  /* 1 x UNORM8, value / 255 (masks) */
    SWINUP_FORMAT_R16F = 11,      /* 1 x IEEE half (masks) */
    SWINUP_FORMAT_B10G11R11F = 12,/* packed unsigned floats, linear: R bits 0-10 and G 11-21 (5-bit
                                     exponent, 6-bit mantissa), B 22-31 (5-bit mantissa), exponent bias
                                     15 as f16 (Vulkan's B10G11R11_UFLOAT_PACK32, DXGI R11G11B10_FLOAT,
                                     the usual HDR scene format); colour input and output. As output,
                                     negative values and NaN are written as 0 and values above the
                                     largest finite one (65024, B 64512) as that one, rounded to nearest
                                     even */
    SWINUP_FORMAT_D24_UNORM_S8 = 13,/* depth input: 32-bit words, depth UNORM24 in bits 0-23 (read as
                                     code / 16777215), stencil in bits 24-31 (not read): DXGI
                                     D24_UNORM_S8_UINT, and what Vulkan's D24_UNORM_S8_UINT depth aspect
                                     copies to a buffer as */
    SWINUP_FORMAT_D32F_S8 = 14    /* depth input: 8 bytes a pixel, the float depth, then the stencil
                                     byte and 3 unused bytes (not read): DXGI D32_FLOAT_S8X24_UINT */
} swinup_format;

/* Context creation flags (bit mask): they say how the inputs are to be read, and stay fixed for
   the context's life (creation refuses unknown bits). No flag selects other compiled code: at each
   dispatch both backends pass them as run-time switches to the input pass, which converts colour
   (SRGB_INPUT: decoded to linear; HDR: no clamp to 1), depth (DEPTH_INVERTED) and motion vectors (MV_DISPLAY_RES: read at the
   display pixel and divided by the scale; MV_JITTERED: corrected by the jitter difference while
   history is valid); AUTO_EXPOSURE runs an exposure reduction over the colour before that pass.
   Dispatch validation expects display-sized motion vectors under MV_DISPLAY_RES and ignores the
   exposure texture under AUTO_EXPOSURE. */
typedef enum swinup_context_flags {
    SWINUP_FLAG_HDR = 1u << 0,            /* color is HDR (any positive value); else LDR [0,1] */
    SWINUP_FLAG_MV_DISPLAY_RES = 1u << 1, /* motion vectors are given at display resolution */
    SWINUP_FLAG_MV_JITTERED = 1u << 2,    /* motion vectors include the jitter difference */
    SWINUP_FLAG_DEPTH_INVERTED = 1u << 3, /* reverse-Z: 1 is near, 0 is far */
    SWINUP_FLAG_AUTO_EXPOSURE = 1u << 4,  /* compute exposure from the frame; ignore exposure input */
    SWINUP_FLAG_SRGB_INPUT = 1u << 5,     /* color holds sRGB-encoded values (the sRGB transfer function
                                             of IEC 61966-2-1, e.g. an 8-bit render target's codes read
                                             as [0, 1]): staging decodes each channel to linear before
                                             anything else reads it (exposure, the LDR clamp); values
                                             above 1 follow the curve, negative ones mirror it. The
                                             output stays linear. */
    SWINUP_FLAG_DEBUG_VIEW = 1u << 6      /* the output shows, instead of the upscaled frame, four
                                             half-size views of it: top left the colour as staged (in
                                             the output's units), top right the depth (reverse-Z: white
                                             near), bottom left the motion (R, G = 0.5 + motion / 8 in
                                             render pixels; grey is still), bottom right the network's
                                             history weight (white keeps the history). The history and
                                             recurrent state are the normal frame's (the view does not
                                             feed them). CPU and Vulkan backends; the CUDA backend
                                             refuses it (SWINUP_STATUS_UNSUPPORTED) */
} swinup_context_flags;

/* What swinup_dispatch_desc.jitter_x / jitter_y mean (both in render pixels, +x right, +y down
   the rows). The two conventions differ only in sign: a value j in one is -j in the other. */
typedef enum swinup_jitter_convention {
    SWINUP_JITTER_SAMPLE_OFFSET = 0, /* swinup's own: the offset of this frame's sample from the pixel
                                        centre; the engine translates its projection by -2 jx / w in
                                        NDC x and +2 jy / h in NDC y (NDC y up) */
    SWINUP_JITTER_FSR_DLSS = 1       /* FSR 2/3's jitterOffset (ffxFsr2GetJitterOffset /
                                        ffxFsr3UpscalerGetJitterOffset, applied as +2 jx / w in NDC x and
                                        -2 jy / h in NDC y) and DLSS's InJitterOffsetX/Y: the amount
                                        the projection moved the image, so the sample lies at the
                                        pixel centre minus it. An engine keeps its FSR 2/3 or DLSS
                                        jitter code and passes the same numbers */
} swinup_jitter_convention;

/* Where the weights come from. */
typedef enum swinup_weights_source {
    SWINUP_WEIGHTS_EMBEDDED = 0, /* the default weights compiled into the library */
    SWINUP_WEIGHTS_PATH = 1,     /* a .safetensors file on disk (weights_path) */
    SWINUP_WEIGHTS_MEMORY = 2    /* a .safetensors image in memory (weights_data, weights_size) */
} swinup_weights_source;

/* Where a resource's bytes live. */
typedef enum swinup_memory {
    SWINUP_MEMORY_HOST = 0,   /* host pointer; a CUDA context copies it to and from the device */
    SWINUP_MEMORY_CUDA = 1,   /* CUDA device pointer, valid on the context's device */
    SWINUP_MEMORY_EXTERNAL = 2/* imported external memory (cudaExternalMemory_t mapped by caller) */
} swinup_memory;

/* Quality modes: display / render ratio per axis. */
typedef enum swinup_quality_mode {
    SWINUP_QUALITY_NATIVE_AA = 0,        /* 1.0x */
    SWINUP_QUALITY_QUALITY = 1,          /* 1.5x */
    SWINUP_QUALITY_BALANCED = 2,         /* 1.7x */
    SWINUP_QUALITY_PERFORMANCE = 3,      /* 2.0x */
    SWINUP_QUALITY_ULTRA_PERFORMANCE = 4 /* 3.0x */
} swinup_quality_mode;

/* How much the library says, through swinup_context_desc.log_callback. */
typedef enum swinup_log_level {
    SWINUP_LOG_ERROR = 0,   /* a call failed; the message is the one swinup_last_error returns */
    SWINUP_LOG_WARNING = 1, /* the call succeeded, but its input is likely not what was meant */
    SWINUP_LOG_INFO = 2     /* what the library chose (at creation: the backend and device) */
} swinup_log_level;

/* Receives the library's messages. Called on the thread that made the API call, during that call
 * (never from a worker thread, never after swinup_context_destroy returns); `message` is valid
 * only during the call. It must not call back into the same context. Without a callback
 * (log_callback NULL, the default) the library says nothing: it never writes to stderr or stdout
 * (an engine's console is not the library's to write to); failures are still reported by the
 * status and swinup_last_error. */
typedef void (*swinup_log_callback)(swinup_log_level level, const char* message, void* user_data);

/* One image: a pointer, its format, its size and row pitch. */
typedef struct swinup_resource {
    const void* data;       /* first pixel (host or device pointer per `memory`); aligned to its
                               element size: 2 bytes for 16F formats, else 4 (row_pitch too) */
    void* data_mut;         /* writable alias for outputs; inputs leave it NULL */
    swinup_memory memory;   /* where `data` lives */
    swinup_format format;   /* pixel format */
    uint32_t width;         /* pixels per row */
    uint32_t height;        /* rows */
    size_t row_pitch;       /* bytes from one row to the next; 0 means tightly packed. Rows go
                               downwards in memory from `data`: a negative (bottom-up) pitch is
                               not supported */
} swinup_resource;

/* Descriptor sizes (struct_size). These structs start with struct_size: swinup_context_desc,
 * swinup_dispatch_desc, swinup_version_info, swinup_memory_requirements (and swinup_vulkan.h's
 * swinup_vulkan_device_desc and swinup_vulkan_dispatch_desc); swinup_resource (a member of
 * swinup_dispatch_desc) and swinup_context_info have none. A struct grows only at its end, and each
 * size it has had is listed below. A call accepts exactly the listed sizes of that struct: a
 * program built against an older swinup.h keeps working with a newer library. The fields past an
 * older size are not read and take their defaults (those of swinup_context_desc_init /
 * swinup_dispatch_desc_init); for a struct the library fills, only the fields within struct_size
 * are written. Any other size is SWINUP_STATUS_INVALID_ARGUMENT, and swinup_last_error names the
 * struct and the accepted sizes. The _init functions set the newest size; for the filled structs
 * set struct_size = sizeof. A struct's newest size is its sizeof; when fields are added, that
 * constant becomes the offsetof of the first added field, so every constant keeps its value. */
#define SWINUP_CONTEXT_DESC_SIZE_V1 ((uint32_t)offsetof(swinup_context_desc, log_callback)) /* 0.1.0: up to num_threads */
#define SWINUP_CONTEXT_DESC_SIZE_V2 ((uint32_t)sizeof(swinup_context_desc)) /* adds log_callback, log_user_data */
#define SWINUP_DISPATCH_DESC_SIZE_V1 ((uint32_t)offsetof(swinup_dispatch_desc, reactive_mask)) /* 0.1.0: up to cuda_stream */
#define SWINUP_DISPATCH_DESC_SIZE_V2 ((uint32_t)offsetof(swinup_dispatch_desc, jitter_convention)) /* adds reactive_mask, transparency_mask */
#define SWINUP_DISPATCH_DESC_SIZE_V3 ((uint32_t)offsetof(swinup_dispatch_desc, sharpness)) /* adds jitter_convention (and its padding) */
#define SWINUP_DISPATCH_DESC_SIZE_V4 ((uint32_t)sizeof(swinup_dispatch_desc)) /* adds sharpness */
#define SWINUP_VERSION_INFO_SIZE_V1 ((uint32_t)sizeof(swinup_version_info))
#define SWINUP_MEMORY_REQUIREMENTS_SIZE_V1 ((uint32_t)sizeof(swinup_memory_requirements))
#define SWINUP_INPUT_STATISTICS_SIZE_V1 ((uint32_t)sizeof(swinup_input_statistics))
#define SWINUP_REACTIVE_MASK_DESC_SIZE_V1 ((uint32_t)sizeof(swinup_reactive_mask_desc))

typedef struct swinup_context_desc {
    uint32_t struct_size;            /* a SWINUP_CONTEXT_DESC_SIZE_*; swinup_context_desc_init sets V2 */
    swinup_backend backend;          /* auto / cpu / cuda / vulkan (see swinup_backend) */
    int32_t device_index;            /* >= 0. cuda: the CUDA device ordinal. vulkan, on a device
                                        swinup makes: the index in the Vulkan loader's device list
                                        (`swinup info` prints it), unless the environment variable
                                        SWINUP_VULKAN_DEVICE (an index or part of a device name)
                                        is set. Not read by the CPU backend, nor with an
                                        application's VkDevice (swinup_vulkan.h) */
    swinup_variant variant;          /* lite / full */
    swinup_precision precision;      /* exact / fast */
    uint32_t max_render_width;       /* largest render width ever dispatched (1..display width) */
    uint32_t max_render_height;      /* largest render height ever dispatched */
    uint32_t display_width;          /* output width (<= 3 x render width, <= 8192) */
    uint32_t display_height;         /* output height */
    uint32_t flags;                  /* swinup_context_flags bit mask */
    swinup_format output_format;     /* RGBA16F, R10G10B10A2, RGBA8 or B10G11R11F */
    swinup_weights_source weights_source; /* embedded / path / memory */
    const char* weights_path;        /* weights file (SWINUP_WEIGHTS_PATH) */
    const void* weights_data;        /* weights image (SWINUP_WEIGHTS_MEMORY), copied at create */
    size_t weights_size;             /* bytes at weights_data */
    uint32_t num_threads;            /* CPU worker threads, 0..SWINUP_MAX_THREADS; 0 = all hardware threads */
    /* --- SWINUP_CONTEXT_DESC_SIZE_V2 --- */
    swinup_log_callback log_callback;/* receives the context's messages; NULL (default): none are
                                        made, nothing is written anywhere (see swinup_log_callback) */
    void* log_user_data;             /* passed to log_callback; must be NULL when log_callback is */
} swinup_context_desc;

typedef struct swinup_dispatch_desc {
    uint32_t struct_size;            /* a SWINUP_DISPATCH_DESC_SIZE_*; swinup_dispatch_desc_init sets V4 */
    swinup_resource color;           /* render-res linear color: RGB(A) 16F/32F, R10G10B10A2, B10G11R11F */
    swinup_resource depth;           /* render-res device depth: R32F, D24_UNORM_S8, D32F_S8 */
    swinup_resource motion_vectors;  /* RG 16F/32F, render or display res (context flag) */
    swinup_resource output;          /* display-res output in the context's output format */
    swinup_resource exposure;        /* optional 1x1 R32F exposure texture; data NULL = use `exposure_value` */
    float exposure_value;            /* color multiplier when no exposure texture; 0 means 1 */
    float pre_exposure;              /* the engine's pre-exposure: color is divided by it; 0 means 1 */
    float jitter_x;                  /* sample offset from pixel centre, render pixels, [-0.5, 0.5]
                                        (or FSR's / DLSS's jitter: see jitter_convention) */
    float jitter_y;                  /* same, vertical (+y is down, as rows grow) */
    float mv_scale_x;                /* motion vectors are multiplied by this to get pixels */
    float mv_scale_y;                /* same, vertical */
    uint32_t render_width;           /* this frame's render width (dynamic resolution), <= max */
    uint32_t render_height;          /* this frame's render height, <= max */
    int32_t reset;                   /* non-zero: a camera cut. The temporal state (history, recurrent
                                        features, previous depth and jitter) is dropped and the frame
                                        count restarts: the network's shifted windows alternate with
                                        the frames since creation or the last reset, and this frame
                                        is frame 0. So the output is byte for byte what a newly
                                        created context gives for this same descriptor as its first
                                        dispatch, and so are the frames after it (given the same
                                        descriptors). A failed dispatch resets nothing. */
    float frame_time_delta_ms;       /* time since the last frame, ms (informative in v1) */
    void* cuda_stream;               /* cudaStream_t to run on (cuda backend); NULL = default stream */
    /* --- SWINUP_DISPATCH_DESC_SIZE_V2: the masks (docs/masks.md). Both are optional: data NULL
       (the default, and what a SWINUP_DISPATCH_DESC_SIZE_V1 caller gets) means 0 at every pixel,
       which gives exactly the frames of a dispatch without them. Each is render_width x
       render_height (as depth), format SWINUP_FORMAT_R8_UNORM, SWINUP_FORMAT_R16F or
       SWINUP_FORMAT_R32F, values in [0, 1], with the memory rules of the other inputs. They mean
       what FSR 2's masks of the same names mean, so an engine passes what it already makes for
       FSR 2. In host memory a value outside [0, 1] is SWINUP_STATUS_INVALID_ARGUMENT naming the
       mask, the pixel and the value (checked before anything runs); in device memory it cannot be
       checked before the frame runs, so it is clamped to [0, 1], counted
       (swinup_input_statistics) and the context warns once per mask. NaN or Inf in a mask is not
       an error: it reads as 0 and is counted. Every backend reads them. --- */
    swinup_resource reactive_mask;   /* how far this frame's samples replace the history at each
                                        pixel: 1 = the history is not used there (particles and
                                        other content without motion vectors, animated textures, UI
                                        composited before upscaling; FSR 2 engines write e.g. the
                                        alpha of particles, or use swinup_generate_reactive_mask) */
    swinup_resource transparency_mask; /* transparency & composition: the colour is alpha-blended or
                                        animated content over the opaque surface that depth and
                                        motion vectors describe (glass, water, reflections on a
                                        pane, scrolling textures). The history there is kept, but
                                        the rules that assume a static, fully described surface
                                        (the still-pixel history shift) are switched off in
                                        proportion to the value */
    /* --- SWINUP_DISPATCH_DESC_SIZE_V3 --- */
    swinup_jitter_convention jitter_convention; /* what jitter_x / jitter_y mean (see the enum):
                                        SWINUP_JITTER_SAMPLE_OFFSET (the default, and what a V1 or V2
                                        caller gets) or SWINUP_JITTER_FSR_DLSS. A jitter of the
                                        wrong sign gives a softer, unstable image without any error:
                                        the context warns once through its log callback when the
                                        first frames fit the opposite sign clearly better
                                        (docs/integration.md, "The jitter convention") */
    uint32_t v3_tail_padding;        /* not read: the tail padding of the V3 layout made explicit, so
                                        that SWINUP_DISPATCH_DESC_SIZE_V3 keeps the value it was
                                        released with and the V4 fields start after it */
    /* --- SWINUP_DISPATCH_DESC_SIZE_V4 --- */
    float sharpness;                 /* contrast-adaptive sharpening of the output (RCAS-like: each
                                        pixel pushed away from its four neighbours, less where the
                                        local contrast is already high, never beyond their range):
                                        0 (the default) off, up to 1 the strongest. Applied to the
                                        output only, after the history is stored: it never feeds the
                                        next frame. CPU and Vulkan backends; the CUDA backend refuses a
                                        non-zero value (SWINUP_STATUS_UNSUPPORTED). */
} swinup_dispatch_desc;

typedef struct swinup_context swinup_context;

/* Fill a context descriptor with defaults: auto backend, lite, exact, LDR, RGBA16F, embedded weights. */
SWINUP_API void swinup_context_desc_init(swinup_context_desc* desc);
/* Fill a dispatch descriptor with defaults: mv_scale 1, exposure 1, pre-exposure 1, no reset, no
   masks, jitter in swinup's convention, no sharpening (struct_size SWINUP_DISPATCH_DESC_SIZE_V4). */
SWINUP_API void swinup_dispatch_desc_init(swinup_dispatch_desc* desc);

/* Create a context. On failure *out is NULL and swinup_last_error(NULL) says why. */
SWINUP_API swinup_status swinup_context_create(const swinup_context_desc* desc, swinup_context** out);
/* Upscale one frame and advance the temporal state. On failure the state is left unchanged.
 * Every field is checked before anything runs: NULL or misaligned pointers, formats, sizes, row
 * pitches, and NaN/Inf or out-of-range scalars (jitter, mv_scale, exposure, pre-exposure, frame
 * time, sharpness) are SWINUP_STATUS_INVALID_ARGUMENT, and so are host-memory mask values outside [0, 1].
 * NaN/Inf inside pixel data is not an error: staging replaces it (colour 0, depth far, motion 0,
 * masks 0), counts it (swinup_context_get_input_statistics) and it never reaches the history. */
SWINUP_API swinup_status swinup_dispatch(swinup_context* ctx, const swinup_dispatch_desc* desc);
/* Destroy a context; NULL is allowed and does nothing. */
SWINUP_API void swinup_context_destroy(swinup_context* ctx);

/* The message of the last failure on ctx; "" when the last call on ctx succeeded. With ctx NULL:
 * the message of the last call on this thread that reports there (swinup_context_create, the
 * render-size, upscale-ratio, jitter, info, version and memory calls, or any call given a NULL ctx); "" when that call
 * succeeded. Valid until the next call on the same context (or, for NULL, on this thread). */
SWINUP_API const char* swinup_last_error(const swinup_context* ctx);
/* A short name of a status code, e.g. "SWINUP_STATUS_INVALID_ARGUMENT". */
SWINUP_API const char* swinup_status_name(swinup_status status);

/* Render size for a quality mode and display size (rounded to the nearest pixel, at least 1, and
 * at least display / 3 rounded up, so that it is always a size a context accepts). */
SWINUP_API swinup_status swinup_get_render_size(swinup_quality_mode mode, uint32_t display_width,
                                                uint32_t display_height, uint32_t* render_width,
                                                uint32_t* render_height);
/* The display / render ratio per axis of a quality mode: 1.0, 1.5, 1.7, 2.0, 3.0 (FSR 2's
 * ffxFsr2GetUpscaleRatioFromQualityMode). An unknown mode or a NULL ratio is
 * SWINUP_STATUS_INVALID_ARGUMENT (reported on the thread). */
SWINUP_API swinup_status swinup_get_upscale_ratio(swinup_quality_mode mode, float* ratio);
/* For dynamic resolution: the render sizes a context of this display size accepts, per axis from
 * the smallest (display / SWINUP_MAX_UPSCALE_RATIO rounded up) to the largest (the display size: 1x).
 * A context's max_render_width / height may be anything in that range, and each dispatch's
 * render_width / height anything from the minimum to the context's maximum; an engine that scales
 * its resolution with the frame time creates the context with the largest size it will render at
 * and moves within [min, that]. Display axes outside 1..8192 or a NULL pointer are
 * SWINUP_STATUS_INVALID_ARGUMENT (reported on the thread). */
SWINUP_API swinup_status swinup_get_render_size_range(uint32_t display_width, uint32_t display_height,
                                                      uint32_t* min_render_width, uint32_t* min_render_height,
                                                      uint32_t* max_render_width, uint32_t* max_render_height);
/* Recommended phase count for a display/render ratio: ceil(8 * s^2), s clamped to [1, 3] (NaN: 1). */
SWINUP_API uint32_t swinup_get_jitter_phase_count(float scale);
/* Jitter of `phase` (taken modulo count): Halton(2,3), minus 0.5, in [-0.5, 0.5) render pixels:
   the numbers of FSR 2's ffxFsr2GetJitterOffset. They serve either convention of
   swinup_jitter_convention, as long as the projection and jitter_convention agree on one. */
SWINUP_API swinup_status swinup_get_jitter(uint32_t phase, uint32_t count, float* jitter_x,
                                           float* jitter_y);

/* What a context runs: filled by swinup_context_info. */
typedef struct swinup_context_info {
    swinup_backend backend;          /* the backend actually chosen (never AUTO) */
    swinup_variant variant;          /* the network variant */
    swinup_precision precision;      /* exact / fast */
    char device_name[128];           /* CPU model or GPU name */
    char weights_description[256];   /* where the weights came from and how they were trained */
    uint64_t parameter_count;        /* number of weight parameters */
} swinup_context_info;

SWINUP_API swinup_status swinup_context_get_info(const swinup_context* ctx, swinup_context_info* info);

/* The version of the loaded library (which may differ from the SWINUP_VERSION_* macros of the
 * header a program was built with) and the weights file versions it reads. */
typedef struct swinup_version_info {
    uint32_t struct_size;            /* in: a SWINUP_VERSION_INFO_SIZE_* (sizeof) */
    uint32_t major, minor, patch;    /* the library's version; libswinup.so.<major> */
    uint32_t weights_format_oldest;  /* the oldest weights "format_version" it reads */
    uint32_t weights_format_newest;  /* the newest it reads (and the one its tools write) */
} swinup_version_info;

/* Fills *version. NULL or a wrong struct_size is SWINUP_STATUS_INVALID_ARGUMENT (reported on the
 * thread: swinup_last_error(NULL)). */
SWINUP_API swinup_status swinup_get_version(swinup_version_info* version);

/* Memory a context holds. host_bytes and device_bytes are allocated by swinup_context_create and
 * held until swinup_context_destroy; a dispatch allocates nothing of its own, with two exceptions.
 * A CUDA context captures one CUDA graph per render size it meets (both window-shift parities) and
 * keeps at most SWINUP_CUDA_GRAPH_CACHE_SIZES of them, least recently used evicted:
 * graph_device_bytes is an estimate of the device memory they take when the cache is full. A Vulkan
 * context's swinup_dispatch (host pointers) creates, at the first dispatch that uses each input
 * format, a device image for that input and format (of the largest size the input can have), kept
 * until swinup_context_destroy: swinup_context_get_memory's device_bytes counts them once made;
 * swinup_query_memory's figure, measured on a backend that has run no frame, does not. Not counted:
 * the CPU backend's worker threads keep a scratch buffer each (about 2.3 MB a thread for lite),
 * grown at their first frame and reused by every context for the life of the process; and the
 * jitter sign check (swinup_dispatch_desc.jitter_convention) holds two float planes of the render
 * size (16 MB at 1920x1080) from a context's first swinup_dispatch with host-memory colour until it
 * has decided, after 9 to 64 frames, when they are freed. On the Vulkan
 * backend device_bytes is every VkDeviceMemory the context allocated (device-local and host-visible
 * staging alike). A context of swinup_vulkan_context_create with SWINUP_BACKEND_CUDA
 * (swinup_vulkan.h) reports the CUDA backend's own memory only: the application's images and
 * semaphores it imports are the application's memory and are not counted. */
typedef struct swinup_memory_requirements {
    uint32_t struct_size;            /* in: a SWINUP_MEMORY_REQUIREMENTS_SIZE_* (sizeof) */
    swinup_backend backend;          /* the backend the figures are for (CPU, CUDA or VULKAN, never AUTO) */
    uint64_t host_bytes;             /* host memory: buffers, temporal state, decoded weights,
                                        network activations, and the weights file or image read
                                        from weights_path / weights_data */
    uint64_t device_bytes;           /* device memory (0 on the CPU backend): buffers, temporal
                                        state, uploaded weights, network activations */
    uint64_t graph_device_bytes;     /* estimate: device memory of a full CUDA graph cache (0 CPU) */
    uint64_t shared_host_bytes;      /* the embedded weights (SWINUP_WEIGHTS_EMBEDDED): read once
                                        per process on first use and shared by every context, so
                                        not in host_bytes; 0 for weights from a path or memory */
} swinup_memory_requirements;

/* The most render sizes whose CUDA graphs a context keeps (see swinup_memory_requirements). An
 * engine that varies its render size over more sizes than this still runs correctly: a size
 * evicted is captured again (about a millisecond) when it comes back. */
#define SWINUP_CUDA_GRAPH_CACHE_SIZES 8

/* The memory a context created from *desc would hold, without creating it. *desc is checked as
 * swinup_context_create checks it, and the weights it names are read (as creation reads them).
 * SWINUP_BACKEND_AUTO is answered for the backend creation picks: CUDA when a usable GPU is
 * present (creation falls back to the CPU if the CUDA context then fails to be made). The CPU
 * figure decodes the weights once to count their decoded size; nothing else is allocated. The
 * Vulkan figure (SWINUP_BACKEND_VULKAN) depends on the driver's memory requirements: the backend
 * is made on the device creation would use, measured and freed before the call returns (it takes
 * about as long as a creation). Errors are reported on the thread (swinup_last_error(NULL)). */
SWINUP_API swinup_status swinup_query_memory(const swinup_context_desc* desc,
                                             swinup_memory_requirements* requirements);
/* The memory ctx holds (graph_device_bytes: the estimate for a full cache, as the query gives).
 * Errors are reported on the thread. */
SWINUP_API swinup_status swinup_context_get_memory(const swinup_context* ctx,
                                                   swinup_memory_requirements* requirements);

/* Pixels of the inputs that staging had to repair, counted since the context was created (a reset
 * does not clear them): a sign of an engine bug (NaN in the colour buffer, an uninitialised mask)
 * that the frames hide, because staging replaces such values. Every counter is in pixels: a pixel
 * with NaN in two channels counts once. */
typedef struct swinup_input_statistics {
    uint32_t struct_size;            /* in: a SWINUP_INPUT_STATISTICS_SIZE_* (sizeof) */
    uint64_t frames;                 /* successful dispatches counted */
    uint64_t color_nonfinite;        /* colour pixels with NaN or Inf (read as 0) */
    uint64_t depth_nonfinite;        /* depth pixels with NaN or Inf (read as far) */
    uint64_t motion_nonfinite;       /* motion-vector pixels with NaN or Inf (read as 0) */
    uint64_t reactive_nonfinite;     /* reactive-mask pixels with NaN or Inf (read as 0) */
    uint64_t transparency_nonfinite; /* transparency-mask pixels with NaN or Inf (read as 0) */
    uint64_t reactive_out_of_range;  /* device-memory reactive-mask pixels outside [0, 1] (clamped);
                                        host memory refuses them, so these stay 0 there */
    uint64_t transparency_out_of_range; /* the same for the transparency mask */
} swinup_input_statistics;

/* Fills *stats with ctx's counters (the first stats->struct_size bytes); `frames` says how many
 * frames the counts cover. CPU: every frame, counted as it runs. CUDA: the call waits until the
 * frames already dispatched have run (those on Vulkan images too), to read their counts. Vulkan:
 * swinup_dispatch's frames are counted when it returns (it waits for each); frames recorded with
 * swinup_vulkan_record_dispatch are counted once swinup sees them completed, and the call does not
 * wait for them (swinup does not submit them; see swinup_vulkan.h). Errors are reported on
 * the thread (swinup_last_error(NULL)). */
SWINUP_API swinup_status swinup_context_get_input_statistics(const swinup_context* ctx,
                                                             swinup_input_statistics* stats);

/* swinup_reactive_mask_desc.flags (bit mask). */
typedef enum swinup_reactive_mask_flags {
    SWINUP_REACTIVE_TONEMAP = 1u << 0,     /* compare x / (1 + x) of each channel, not x (for HDR
                                              colour, so a bright highlight does not saturate it) */
    SWINUP_REACTIVE_THRESHOLD = 1u << 1,   /* binary mode: binary_value where the value is >=
                                              threshold, else 0 */
    SWINUP_REACTIVE_MAX_CHANNEL = 1u << 2  /* the difference is the largest |difference| over R, G,
                                              B; else the Rec. 709 luma of the |differences| */
} swinup_reactive_mask_flags;

/* An automatic reactive mask, FSR 2's idea: the engine renders the opaque surfaces, keeps a copy of
 * the colour (opaque_color), then draws its transparent and animated content (particles, glass)
 * over it (final_color). Where the two differ, the pixel's colour is not what depth and motion
 * vectors describe, so the history should give way there:
 *   d     = per channel |f(final) - f(opaque)|, f(x) = x / (1 + x) with SWINUP_REACTIVE_TONEMAP
 *           (x clamped to >= 0), else f(x) = x; NaN/Inf read as 0;
 *   diff  = max(d.r, d.g, d.b) with SWINUP_REACTIVE_MAX_CHANNEL, else 0.2126 d.r + 0.7152 d.g +
 *           0.0722 d.b;
 *   value = min(1, scale * diff); with SWINUP_REACTIVE_THRESHOLD: value >= threshold ? binary_value : 0.
 * The result is written to `output`, ready to be the dispatch's reactive_mask. */
typedef struct swinup_reactive_mask_desc {
    uint32_t struct_size;            /* a SWINUP_REACTIVE_MASK_DESC_SIZE_*; _init sets the newest */
    swinup_resource opaque_color;    /* render-res colour before the transparent/animated pass
                                        (the colour formats of swinup_dispatch_desc.color) */
    swinup_resource final_color;     /* render-res colour after it (same size; any colour format) */
    swinup_resource output;          /* render-res mask, written through data_mut: R8_UNORM, R16F
                                        or R32F */
    uint32_t render_width;           /* the size of all three */
    uint32_t render_height;
    float scale;                     /* multiplies the difference (default 1); finite, >= 0 */
    float threshold;                 /* binary mode's threshold (default 0.2); finite, [0, 1] */
    float binary_value;              /* binary mode's value (default 0.9); finite, [0, 1] */
    uint32_t flags;                  /* swinup_reactive_mask_flags; default SWINUP_REACTIVE_TONEMAP
                                        (right for HDR colour; for LDR colour in [0, 1] clearing it
                                        compares the colours as they are) */
} swinup_reactive_mask_desc;

/* Defaults: scale 1, threshold 0.2, binary_value 0.9, flags SWINUP_REACTIVE_TONEMAP, no images. */
SWINUP_API void swinup_reactive_mask_desc_init(swinup_reactive_mask_desc* desc);
/* Writes desc->output from the two colour images (see swinup_reactive_mask_desc). Runs now, on the
 * memory the context's backend reads: host memory on the CPU backend; host or CUDA device memory
 * on the CUDA backend (run on the legacy default stream, returning when done); host memory on a
 * Vulkan context with swinup's own device (on the application's images,
 * swinup_vulkan_record_reactive_mask in swinup_vulkan.h records it into a command buffer). Every
 * backend writes the same bytes. It does not touch the temporal state.
 * Bad input is SWINUP_STATUS_INVALID_ARGUMENT naming the field ("reactive_mask_desc.scale: ..."),
 * reported on ctx. */
SWINUP_API swinup_status swinup_generate_reactive_mask(swinup_context* ctx, const swinup_reactive_mask_desc* desc);

#ifdef __cplusplus
}
#endif

#endif /* SWINUP_SWINUP_H */
