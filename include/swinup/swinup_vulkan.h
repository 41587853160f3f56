/*
 * swinup on Vulkan: a context made from the application's Vulkan device (or one swinup makes), and
 * a dispatch that records the whole frame into the application's command buffer, reading its
 * images and writing its output image in place. No copies through the host, no submits, no waits:
 * the application submits the command buffer when it wants, on a queue of the family it named.
 * Context creation on the application's device submits nothing either (the weights' copy into
 * device-local memory is recorded into the frames: see swinup_vulkan_context_create).
 *
 * Everything else is swinup.h's: the context descriptor (variant, precision, sizes, flags, output
 * format, weights), the per-frame scalars of swinup_dispatch_desc (jitter, motion-vector scale,
 * exposure, pre-exposure, render size, reset), swinup_last_error, swinup_context_get_info and
 * swinup_context_destroy. docs/integration.md ("Vulkan") walks through an engine's frame;
 * docs/vulkan.md lists what the device must support.
 *
 * ---- Images: formats, usage, layouts -----------------------------------------------------------
 *
 *   resource        VkFormat (swinup_format)                              usage bit needed   layout on entry (= on exit)
 *   color           R16G16B16A16_SFLOAT (RGBA16F), R32G32B32A32_SFLOAT     SAMPLED            SHADER_READ_ONLY_OPTIMAL or GENERAL
 *                   (RGBA32F), B10G11R11_UFLOAT_PACK32 (B10G11R11F),
 *                   A2B10G10R10_UNORM_PACK32 (R10G10B10A2)
 *   depth           R32_SFLOAT or D32_SFLOAT (R32F), D24_UNORM_S8_UINT    SAMPLED            SHADER_READ_ONLY_OPTIMAL, DEPTH_STENCIL_READ_ONLY_OPTIMAL,
 *                   (D24_UNORM_S8), D32_SFLOAT_S8_UINT (D32F_S8)                             DEPTH_READ_ONLY_OPTIMAL or GENERAL
 *   motion_vectors  R16G16_SFLOAT (RG16F), R32G32_SFLOAT (RG32F)          SAMPLED            SHADER_READ_ONLY_OPTIMAL or GENERAL
 *   exposure        R32_SFLOAT (R32F), 1x1, optional                      SAMPLED            SHADER_READ_ONLY_OPTIMAL or GENERAL
 *   reactive_mask,  R8_UNORM, R16_SFLOAT or R32_SFLOAT, optional          SAMPLED            SHADER_READ_ONLY_OPTIMAL or GENERAL
 *   transparency_mask
 *   output          the context's output_format: R16G16B16A16_SFLOAT      STORAGE            GENERAL
 *                   (RGBA16F), A2B10G10R10_UNORM_PACK32 (R10G10B10A2),
 *                   R8G8B8A8_UNORM (RGBA8), B10G11R11_UFLOAT_PACK32
 *                   (B10G11R11F; the device must store it: most desktop
 *                   GPUs and lavapipe do)
 *
 * Each image is a 2D, single-sample image; swinup reads the top-left render_width x
 * render_height texels of mip level 0, array layer 0 (display size for motion vectors under
 * SWINUP_FLAG_MV_DISPLAY_RES, one texel of the exposure image) and writes the top-left
 * display_width x display_height texels of the output: an image may be larger than what is read
 * (an engine's dynamic-resolution targets are). The view is the application's: a 2D view of that
 * mip level and layer in the image's format, identity swizzle, colour aspect (the depth aspect
 * alone for the depth formats: a depth-stencil buffer's stencil is never read). The sampler's own
 * conversion decodes the packed formats: the small floats and f32 depths exactly, the UNORM ones
 * (A2B10G10R10, D24) as the device divides (Vulkan allows it a small error, so a frame may differ
 * from the CPU backend's in the last bits there). swinup does not make views, because it cannot
 * know when an image is destroyed.
 * The layout and usage fields declare what the image is in and was created with; a missing usage
 * bit or an unlisted layout or format is refused before anything is recorded. swinup never changes
 * a layout: each image is in the same layout after swinup's commands as before.
 *
 * ---- Synchronisation the application owns ------------------------------------------------------
 *
 * Before swinup_vulkan_record_dispatch's commands (a barrier the application records first):
 *   - colour, depth, motion vectors, exposure: the writes that produced them (e.g.
 *     COLOR_ATTACHMENT_OUTPUT / COLOR_ATTACHMENT_WRITE, LATE_FRAGMENT_TESTS /
 *     DEPTH_STENCIL_ATTACHMENT_WRITE, COMPUTE_SHADER / SHADER_WRITE) made visible to
 *     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_READ_BIT, with the transition into
 *     the layout declared in the descriptor;
 *   - output: every earlier read or write of it (last frame's post-processing, presentation
 *     copies) finished before VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_WRITE_BIT,
 *     and the image in VK_IMAGE_LAYOUT_GENERAL.
 * After them (a barrier the application records next):
 *   - output: written at VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT with VK_ACCESS_SHADER_WRITE_BIT;
 *     make that visible to whatever reads it next;
 *   - inputs: read at VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT (VK_ACCESS_SHADER_READ_BIT); the next
 *     write to them (the next frame's rendering) must wait for that stage.
 * swinup's own buffers and images (history, recurrent features, network activations) are
 * synchronised by barriers swinup records, also between consecutive frames, on the condition that
 * the recorded frames execute on one queue in the order they were recorded (or that the
 * application orders them with semaphores when it uses several queues of the family).
 *
 * ---- The command buffer ------------------------------------------------------------------------
 *
 * A primary command buffer in the recording state, allocated from a pool of the queue family given
 * at creation, outside a render pass. swinup binds compute pipelines, compute descriptor sets and
 * push constants: after the call the command buffer's compute bindings are undefined (re-bind
 * yours); graphics state is untouched. Each recorded frame must be submitted exactly once, in
 * recording order, and must complete before the context is destroyed. A successful call advances
 * the temporal state at once (it counts as the context's dispatch of that frame). A command buffer
 * that is recorded but then never submitted breaks that rule, with two lasting effects: the history
 * is one frame ahead, and the frame keeps one of the 8 slots below (it is never seen completed).
 * swinup_vulkan_abandon_frame undoes both. A refused call (bad input: SWINUP_STATUS_INVALID_ARGUMENT)
 * records nothing and changes nothing. A failure after validation
 * (a device error, out of memory) also leaves the temporal state unchanged, but the command buffer
 * then holds part of the frame and refers to descriptor sets swinup has given back for reuse: it is
 * invalid. Record nothing more into it, do not end or submit it (ending it is already an error the
 * validation layer reports): reset it (vkResetCommandBuffer, or its pool) or free it, and record
 * the frame again into a command buffer in the recording state.
 *
 * The images' views and the descriptor sets swinup writes for a frame must stay valid until that
 * frame has run: keep the images alive until then. Tell swinup when the command buffer has
 * completed: signal_semaphore / signal_value name a timeline semaphore value that the application's
 * submission of cmd signals (VkTimelineSemaphoreSubmitInfo), and swinup reuses the frame's
 * descriptor pool only once that semaphore's counter has reached the value (it reads it with
 * vkGetSemaphoreCounterValue, never waits). Without them swinup reuses it once an event it sets at
 * the end of the frame's commands is seen set: its dispatches have run, but commands recorded after
 * them may not have, so the command buffer may still be pending, and the validation layer then
 * reports VUID-vkResetDescriptorPool-descriptorPool-00313 unless the application has waited for it
 * (a fence, vkQueueWaitIdle, the semaphore) before the next recording. At most 8 recorded frames may
 * be pending at once (the ninth recording is SWINUP_STATUS_UNSUPPORTED until one has completed or
 * been abandoned). Destroying the context frees those descriptor sets and swinup's buffers and
 * images: a recorded frame still to run, or running, then corrupts memory in the driver (neither
 * swinup nor the validation layer sees it happen), and so does submitting a recorded frame after
 * the destroy. swinup_context_destroy warns through the log callback (SWINUP_LOG_WARNING, saying how
 * many) when the context holds recordings whose end-of-frame event it does not see set; wait for
 * the frames (a fence, vkQueueWaitIdle, the semaphore) before destroying it. swinup reads a
 * signal_semaphore whenever it looks for completed frames (each recording, the input statistics),
 * so keep it valid until the context is destroyed (the destroy itself does not read it).
 *
 * This header's functions exist in builds with the Vulkan backend (SWINUP_VULKAN, the default
 * when libvulkan-dev and glslang-tools are installed; docs/vulkan.md).
 *
 * ---- The CUDA backend (desc->backend = SWINUP_BACKEND_CUDA) ------------------------------------
 *
 * On an NVIDIA device the same images can run through the CUDA backend instead: the application
 * switches the context's backend field, fills the memory fields of each swinup_vulkan_image and
 * the semaphores of the dispatch, and submits its own work around the call instead of swinup's
 * commands. Nothing is copied: swinup imports each image's memory into CUDA once (external memory;
 * images as CUDA mipmapped arrays, inputs read through texture objects, the output written through
 * a surface object) and runs the frame on a CUDA stream that waits on the application's timeline
 * semaphore and signals another. The frame is the CUDA backend's (byte for byte what
 * swinup_dispatch gives on device pointers).
 *
 *   - The device: made with VK_KHR_external_memory_fd and VK_KHR_external_semaphore_fd enabled (and
 *     named in enabled_extensions), timeline semaphores (Vulkan 1.2 or VK_KHR_timeline_semaphore),
 *     and a physical device that is a CUDA device (the deviceUUIDs match; the CUDA device is chosen
 *     by that match, desc->device_index is not read). The device argument must be non-NULL.
 *   - Handle type: VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT for memory and
 *     VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT for semaphores (Linux). swinup calls
 *     vkGetMemoryFdKHR / vkGetSemaphoreFdKHR itself, once per import; the application keeps its
 *     handles. The Windows handle types (OPAQUE_WIN32, D3D) are not accepted by this version
 *     (untested: no Windows machine runs the tests).
 *   - Images: 2D, one array layer, one sample, VK_IMAGE_TILING_OPTIMAL (LINEAR is refused: CUDA maps
 *     images as block-linear arrays), created with VkExternalMemoryImageCreateInfo and bound to
 *     memory allocated with VkExportMemoryAllocateInfo of the handle type above (a dedicated
 *     allocation, VkMemoryDedicatedAllocateInfo, is what NVIDIA recommends; say so in `dedicated`).
 *     Formats: the table above, except that depth must be R32_SFLOAT (a D32_SFLOAT depth buffer's
 *     layout is not one CUDA maps; copy depth into an R32_SFLOAT image) and the packed and
 *     depth-stencil formats (B10G11R11_UFLOAT_PACK32, A2B10G10R10 colour, D24_UNORM_S8_UINT,
 *     D32_SFLOAT_S8_UINT) are SWINUP_STATUS_UNSUPPORTED naming the image (no CUDA array format
 *     reads them per channel). Usage: the table's bits;
 *     swinup mirrors COLOR_ATTACHMENT and STORAGE into the CUDA array's flags (cudaArrayColorAttachment,
 *     cudaArraySurfaceLoadStore) so that CUDA computes the driver's layout. Layouts: as above (the
 *     layout the image is in while swinup's CUDA work runs; views are checked but not used).
 *   - Imports are cached per image, keyed on (image, memory, offset, size, format, extent, mip levels,
 *     usage, dedicated): a re-created image bound to new memory is imported afresh, and an import of
 *     an image handle that was imported with another key is released (after the context's CUDA work
 *     has finished with it). Imports are released by swinup_vulkan_release_image /
 *     swinup_vulkan_release_semaphore and by swinup_context_destroy. An application that destroys an
 *     image or its memory, or a semaphore, and could create another with the same handle values,
 *     releases it first.
 *   - Order: the application submits the work that writes the inputs (and finishes reading last
 *     frame's output) with a signal of wait_semaphore to wait_value, calls
 *     swinup_vulkan_record_dispatch (cmd is not recorded into; pass VK_NULL_HANDLE or any command
 *     buffer), and submits what reads the output with a wait for signal_semaphore at signal_value.
 *     The call does not wait on the host, except when a re-created image's old import is released
 *     and when the application calls it more than 4 frames ahead of the semaphore values its queue
 *     has signalled (the frame parameters' staging slots are reused then). A frame that needs a new
 *     CUDA graph (the first of each render size, window-shift parity and masks' presence) captures
 *     it before anything of the frame is enqueued behind wait_semaphore, so the call never waits for
 *     the frame's own inputs (CUDA's first load of a kernel, once per process, may still wait for
 *     the earlier frames' work to finish).
 *     The queue family ownership is the application's: swinup's CUDA work acts as another queue of
 *     no family (VK_QUEUE_FAMILY_EXTERNAL); NVIDIA's driver needs no ownership transfer for
 *     images in GENERAL or SHADER_READ_ONLY_OPTIMAL layout.
 *   - The stream: frame.cuda_stream when non-NULL, else a stream swinup made. swinup_dispatch (host
 *     or CUDA device pointers) also works on a CUDA context, on the same temporal state; the
 *     buffers host pointers are copied through (about 190 MB at 1920x1080 -> 3840x2160) are
 *     allocated at the first host-pointer frame, not at creation.
 *   - Buffers: any role but the exposure may be a VkBuffer instead (swinup_vulkan_buffer, the
 *     descriptor's *_buffer fields), imported as a CUDA device pointer and read or written in place
 *     by swinup_dispatch's rules for SWINUP_MEMORY_CUDA resources; created with
 *     VkExternalMemoryBufferCreateInfo on memory of VkExportMemoryAllocateInfo, both opaque fd.
 *   - Refusals: an image without memory or not exportable, a wrong handle type, LINEAR tiling, a
 *     format the import cannot read (D32_SFLOAT), a handle vkGetMemoryFdKHR / CUDA will not import,
 *     a semaphore CUDA will not import are SWINUP_STATUS_INVALID_ARGUMENT (or UNSUPPORTED for the
 *     Windows handle types) naming the resource, e.g. "vulkan_dispatch.color.memory_handle_type: ...";
 *     nothing runs and the output and the temporal state are untouched. swinup cannot tell a
 *     handle of another VkDevice on the same GPU from its own (Vulkan's validation layer can).
 *
 * ---- Struct sizes ------------------------------------------------------------------------------
 *
 * swinup.h's rule ("Descriptor sizes"): each struct starts with struct_size, grows only at its end,
 * and a call accepts exactly the sizes it has had, listed after the structs below
 * (SWINUP_VULKAN_*_SIZE_V*). swinup_vulkan_dispatch_desc.frame is a member, not a pointer, so its
 * size is fixed by the enclosing struct: with SWINUP_VULKAN_DISPATCH_DESC_SIZE_Vn its struct_size
 * must be SWINUP_DISPATCH_DESC_SIZE_Vn (n = 1, 2, 3), with SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4
 * (which only appended the buffers) SWINUP_DISPATCH_DESC_SIZE_V3, and with
 * SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5 SWINUP_DISPATCH_DESC_SIZE_V4 (frame.sharpness, read by the
 * Vulkan backend as by swinup_dispatch). The _init functions set the newest sizes; any other value
 * is SWINUP_STATUS_INVALID_ARGUMENT naming the struct, the field and the accepted sizes.
 */
#ifndef SWINUP_SWINUP_VULKAN_H
#define SWINUP_SWINUP_VULKAN_H

#include <vulkan/vulkan.h>

#include "swinup/swinup.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The application's device. swinup keeps the handles (it does not own them: destroy the context
   before the device). It calls Vulkan through the loader it is linked with (libvulkan.so.1), so
   the handles must come from that loader (as they do with volk or any loader that loads
   libvulkan); the two loader entry points are recorded for a later version that dispatches
   through them. The CUDA backend calls get_device_proc_addr (the loader's vkGetDeviceProcAddr when
   NULL) for vkGetMemoryFdKHR and vkGetSemaphoreFdKHR, and nothing else through them. */
typedef struct swinup_vulkan_device_desc {
    uint32_t struct_size;                      /* a SWINUP_VULKAN_DEVICE_DESC_SIZE_* */
    VkInstance instance;                       /* created with apiVersion >= 1.1 */
    VkPhysicalDevice physical_device;          /* the device's physical device */
    VkDevice device;                           /* the application's logical device */
    uint32_t queue_family_index;               /* the family the command buffers come from and are
                                                  submitted to; it must support compute */
    uint32_t api_version;                      /* the apiVersion the instance was created with; swinup
                                                  uses no command or structure above it (0: 1.1) */
    PFN_vkGetInstanceProcAddr get_instance_proc_addr; /* may be NULL (see above) */
    PFN_vkGetDeviceProcAddr get_device_proc_addr;     /* may be NULL (see above) */
    uint32_t enabled_extension_count;          /* device extensions the application enabled */
    const char* const* enabled_extensions;     /* (VkDeviceCreateInfo.ppEnabledExtensionNames);
                                                  checked for NULL entries; read only for
                                                  SWINUP_BACKEND_CUDA, which needs
                                                  VK_KHR_external_memory_fd and
                                                  VK_KHR_external_semaphore_fd */
    const VkPhysicalDeviceFeatures2* enabled_features; /* the feature chain the device was created
                                                  with (VkDeviceCreateInfo.pNext, its
                                                  VkPhysicalDeviceVulkan11/12/13Features are read),
                                                  or NULL: no optional feature is assumed enabled.
                                                  swinup uses an optional feature (and shaderFloat64,
                                                  which SWINUP_FLAG_AUTO_EXPOSURE needs) only when it
                                                  is enabled here. Fast mode runs its linear layers
                                                  on the matrix units (much faster) when the chain
                                                  holds VkPhysicalDeviceCooperativeMatrixFeaturesKHR
                                                  with cooperativeMatrix (VK_KHR_cooperative_matrix
                                                  enabled), on a Vulkan 1.3 device with
                                                  shaderFloat16, vulkanMemoryModel (with
                                                  vulkanMemoryModelDeviceScope) and maintenance4
                                                  enabled; else on portable shaders. `swinup info`
                                                  says which a device gets (docs/vulkan.md) */
    /* --- SWINUP_VULKAN_DEVICE_DESC_SIZE_V2 (both optional; the Vulkan backend reads them, the CUDA
       backend makes no Vulkan object and ignores them) --- */
    VkPipelineCache pipeline_cache;            /* the application's pipeline cache, or VK_NULL_HANDLE:
                                                  swinup makes every compute pipeline with it while
                                                  swinup_vulkan_context_create runs (so a cache the
                                                  application saved from an earlier run,
                                                  vkGetPipelineCacheData, makes creation cheaper) and
                                                  never uses it after that call returns; the
                                                  application may destroy it then. The driver
                                                  synchronises it unless the application made it with
                                                  VK_PIPELINE_CACHE_CREATE_EXTERNALLY_SYNCHRONIZED_BIT,
                                                  in which case no other thread may use it during the
                                                  call */
    const VkAllocationCallbacks* allocation_callbacks; /* or NULL: the host allocation callbacks every
                                                  Vulkan object swinup makes on the device (buffers,
                                                  images, memory, views, pipelines, descriptor pools,
                                                  events, the sampler) is created and destroyed with.
                                                  The struct is copied; its functions and pUserData
                                                  must stay valid until swinup_context_destroy
                                                  returns. Checked: pfnAllocation, pfnReallocation and
                                                  pfnFree non-NULL, the two internal ones both or
                                                  neither */
} swinup_vulkan_device_desc;

/* One of the application's images, as it is when the recorded commands execute. */
typedef struct swinup_vulkan_image {
    VkImage image;                 /* VK_NULL_HANDLE only for an absent exposure image */
    VkImageView view;              /* a 2D view of mip 0, layer 0 (see the table above) */
    VkFormat format;               /* the format of the image and the view */
    uint32_t width;                /* the image's width at mip 0 (>= what swinup reads or writes) */
    uint32_t height;               /* the image's height at mip 0 */
    VkImageLayout layout;          /* the layout it is in; left in it */
    VkImageUsageFlags usage;       /* the usage it was created with */
    /* Read only by the CUDA backend (desc->backend = SWINUP_BACKEND_CUDA), which imports the memory
       the image is bound to (see "The CUDA backend" above); the Vulkan backend ignores them. */
    VkDeviceMemory memory;         /* the memory the image is bound to (vkBindImageMemory) */
    VkDeviceSize memory_offset;    /* vkBindImageMemory's memoryOffset */
    VkDeviceSize memory_size;      /* that memory's VkMemoryAllocateInfo.allocationSize */
    VkExternalMemoryHandleTypeFlagBits memory_handle_type; /* the handle type the memory was allocated
                                      exportable as (VkExportMemoryAllocateInfo.handleTypes), and the
                                      image created with (VkExternalMemoryImageCreateInfo):
                                      VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT; 0 = not exportable */
    VkBool32 dedicated;            /* VK_TRUE: the memory is a dedicated allocation for this image
                                      (VkMemoryDedicatedAllocateInfo) */
    VkImageTiling tiling;          /* VkImageCreateInfo.tiling: VK_IMAGE_TILING_OPTIMAL (the default 0) */
    uint32_t mip_levels;           /* VkImageCreateInfo.mipLevels; 0 is read as 1 */
} swinup_vulkan_image;

/* One of the application's VkBuffers holding a frame resource as rows of pixels, for the CUDA backend
 * (desc->backend = SWINUP_BACKEND_CUDA), which imports the buffer's memory as a CUDA device pointer
 * (cudaExternalMemoryGetMappedBuffer) and reads or writes the rows in place, as it does CUDA device
 * pointers (swinup_resource with SWINUP_MEMORY_CUDA): the same formats, sizes and pitch rules. The
 * Vulkan backend reads images only (a buffer there is SWINUP_STATUS_UNSUPPORTED). A role is given as
 * an image or as a buffer, never both. Imports are cached per buffer, keyed on (buffer, memory,
 * memory_offset, memory_size, size, dedicated), and released by swinup_vulkan_release_buffer and
 * swinup_context_destroy (see "The CUDA backend" above for when to release). */
typedef struct swinup_vulkan_buffer {
    VkBuffer buffer;               /* VK_NULL_HANDLE (the default): the role is its swinup_vulkan_image */
    VkDeviceSize size;             /* VkBufferCreateInfo.size */
    VkDeviceSize offset;           /* bytes from the buffer's start to the first pixel; a multiple of the
                                      format's element size (2 or 4; 4 for the packed outputs) */
    swinup_format format;          /* the pixel format: a format swinup_dispatch_desc takes for the role
                                      (colour RGBA16F, RGBA32F, RGB16F or RGB32F; depth R32F; motion
                                      RG16F or RG32F; masks R8_UNORM, R16F or R32F; output the
                                      context's output_format) */
    uint32_t width;                /* pixels per row: exactly what swinup reads or writes (the render */
    uint32_t height;               /* size, the display size for the output and display-resolution motion) */
    uint32_t row_pitch;            /* bytes from one row to the next; 0 = width x the pixel's bytes */
    VkDeviceMemory memory;         /* the memory the buffer is bound to (vkBindBufferMemory) */
    VkDeviceSize memory_offset;    /* vkBindBufferMemory's memoryOffset */
    VkDeviceSize memory_size;      /* that memory's VkMemoryAllocateInfo.allocationSize */
    VkExternalMemoryHandleTypeFlagBits memory_handle_type; /* as for an image: the memory allocated
                                      exportable (VkExportMemoryAllocateInfo) and the buffer created with
                                      VkExternalMemoryBufferCreateInfo, both
                                      VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT; 0 = not exportable */
    VkBool32 dedicated;            /* VK_TRUE: a dedicated allocation for this buffer */
} swinup_vulkan_buffer;

/* One frame recorded into the application's command buffer. */
typedef struct swinup_vulkan_dispatch_desc {
    uint32_t struct_size;          /* a SWINUP_VULKAN_DISPATCH_DESC_SIZE_* */
    swinup_dispatch_desc frame;    /* the frame's scalars, exactly as for swinup_dispatch: jitter
                                      (and jitter_convention), mv_scale, exposure_value,
                                      pre_exposure, render size, reset, frame_time_delta_ms,
                                      sharpness (V5). Its swinup_resource fields (images and masks)
                                      are not read (the images are below); cuda_stream only by the
                                      CUDA backend (the stream to run on; NULL: one swinup made) */
    swinup_vulkan_image color;     /* render-resolution linear colour */
    swinup_vulkan_image depth;     /* render-resolution device depth */
    swinup_vulkan_image motion_vectors; /* render or display resolution (SWINUP_FLAG_MV_DISPLAY_RES) */
    swinup_vulkan_image output;    /* display-resolution output, written */
    swinup_vulkan_image exposure;  /* optional 1x1 exposure; image VK_NULL_HANDLE = frame.exposure_value
                                      (ignored under SWINUP_FLAG_AUTO_EXPOSURE) */
    /* Timeline semaphores of the application's device (VK_SEMAPHORE_TYPE_TIMELINE).
       CUDA backend (created exportable as VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT): swinup's
       CUDA work waits until wait_semaphore reaches wait_value before it reads any input, and signals
       signal_semaphore to signal_value once the output is written and no input is read any more.
       VK_NULL_HANDLE: no wait (the inputs are ready when the call is made) / no signal (the
       application finds the frame done otherwise).
       Vulkan backend: wait_semaphore is not read (the application puts its waits on the submit of
       the command buffer); signal_semaphore / signal_value, when set, are the value the submit of
       cmd signals once it has completed, which swinup reads to know when it may reuse the frame's
       descriptor sets ("The command buffer" above; the device needs timeline semaphores).
       With a signal_semaphore, signal_value must be above 0 (a timeline semaphore starts at 0). */
    VkSemaphore wait_semaphore;
    uint64_t wait_value;
    VkSemaphore signal_semaphore;
    uint64_t signal_value;
    /* --- SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2: the masks, with the meaning, size and value rules of
       swinup_dispatch_desc's reactive_mask and transparency_mask (docs/masks.md). image
       VK_NULL_HANDLE (the default) = absent, 0 at every pixel. Formats: VK_FORMAT_R8_UNORM,
       VK_FORMAT_R16_SFLOAT or VK_FORMAT_R32_SFLOAT; usage SAMPLED; layouts as colour. The values
       cannot be checked before the frame runs: they are clamped to [0, 1] and counted
       (swinup_input_statistics), and the context warns once per mask through its log callback
       when it sees such values (with a later call: a recorded frame's counts are read once swinup
       sees it completed). Both backends read them (the CUDA backend imports them like the other
       inputs: exportable memory, optimal tiling). --- */
    swinup_vulkan_image reactive_mask;
    swinup_vulkan_image transparency_mask;
    /* --- SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4: the roles as VkBuffers (CUDA backend only; see
       swinup_vulkan_buffer). A role whose buffer is set takes it instead of the image of the same
       name, whose image handle must then be VK_NULL_HANDLE (for a mask: the mask is present). --- */
    swinup_vulkan_buffer color_buffer;
    swinup_vulkan_buffer depth_buffer;
    swinup_vulkan_buffer motion_vectors_buffer;
    swinup_vulkan_buffer output_buffer;
    swinup_vulkan_buffer reactive_mask_buffer;
    swinup_vulkan_buffer transparency_mask_buffer;
} swinup_vulkan_dispatch_desc;

/* The automatic reactive mask (swinup.h's swinup_reactive_mask_desc and its definition) recorded
 * into the application's command buffer on its images, like FSR 2's GenerateReactiveMask: the
 * engine keeps the colour of its opaque pass (opaque_color), draws its transparent and animated
 * content over it (final_color), records this, and passes `output` as the frame's reactive_mask.
 *
 *   image           VkFormat                                              usage      layout on entry (= on exit)
 *   opaque_color,   R16G16B16A16_SFLOAT or R32G32B32A32_SFLOAT            SAMPLED    SHADER_READ_ONLY_OPTIMAL or GENERAL
 *   final_color
 *   output          R8_UNORM, R16_SFLOAT or R32_SFLOAT (the device must   STORAGE    GENERAL
 *                   support it as a storage image; R8_UNORM and R16_SFLOAT
 *                   are the usual choices, and read directly as the mask)
 *
 * The images follow the rules of the frame's images above (2D, mip 0 and layer 0 read through the
 * application's view, the top-left render_width x render_height texels, the output an image of its
 * own). The values are those of swinup_generate_reactive_mask on the CPU backend, to the bit.
 * Synchronisation, as for a frame: before, the colours' writes made visible to
 * COMPUTE_SHADER / SHADER_READ and the output's earlier accesses finished before COMPUTE_SHADER /
 * SHADER_WRITE; after, the output is written at COMPUTE_SHADER / SHADER_WRITE: a barrier to
 * COMPUTE_SHADER / SHADER_READ before swinup_vulkan_record_dispatch reads it as the reactive mask
 * (GENERAL is a layout that call accepts, so no transition is needed). It binds a compute pipeline,
 * a descriptor set and push constants, changes no temporal state, and shares the 8 pending
 * recordings of swinup_vulkan_record_dispatch (a recording's descriptor set is reused once it has
 * run). The CUDA backend on Vulkan images does not record it in this version
 * (SWINUP_STATUS_UNSUPPORTED). */
typedef struct swinup_vulkan_reactive_mask_desc {
    uint32_t struct_size;              /* SWINUP_VULKAN_REACTIVE_MASK_DESC_SIZE_V1 */
    swinup_reactive_mask_desc mask;    /* render size, scale, threshold, binary_value and flags, with
                                          swinup.h's rules; its swinup_resource fields are not read */
    swinup_vulkan_image opaque_color;  /* the colour before the transparent/animated pass */
    swinup_vulkan_image final_color;   /* the colour after it */
    swinup_vulkan_image output;        /* the mask, written */
} swinup_vulkan_reactive_mask_desc;

/* The sizes each struct of this header has had (see "Struct sizes" above). frame is a member, so
   when swinup_dispatch_desc grew, swinup_vulkan_dispatch_desc's fields after it moved: V1 is the
   0.1.0 layout (frame a SWINUP_DISPATCH_DESC_SIZE_V1 descriptor, no masks), V2 has frame at
   SWINUP_DISPATCH_DESC_SIZE_V2 and the masks at its end, V3 frame at SWINUP_DISPATCH_DESC_SIZE_V3
   (with jitter_convention), V4 V3's layout with the buffers appended, V5 (the newest) V4's fields
   after a frame of SWINUP_DISPATCH_DESC_SIZE_V4 (with sharpness); the library reads all five.
   swinup_vulkan_device_desc: V1 is the 0.1.0 layout, V2 adds the pipeline cache and the
   allocation callbacks. */
#define SWINUP_VULKAN_DEVICE_DESC_SIZE_V1 ((uint32_t)offsetof(swinup_vulkan_device_desc, pipeline_cache)) /* 0.1.0 */
#define SWINUP_VULKAN_DEVICE_DESC_SIZE_V2 ((uint32_t)sizeof(swinup_vulkan_device_desc)) /* adds pipeline_cache, allocation_callbacks */
#define SWINUP_VULKAN_DISPATCH_DESC_SIZE_V1                                                         \
    ((uint32_t)(offsetof(swinup_vulkan_dispatch_desc, reactive_mask) -                              \
                (SWINUP_DISPATCH_DESC_SIZE_V4 - SWINUP_DISPATCH_DESC_SIZE_V1)))
#define SWINUP_VULKAN_DISPATCH_DESC_SIZE_V2                                                         \
    ((uint32_t)(offsetof(swinup_vulkan_dispatch_desc, color_buffer) -                               \
                (SWINUP_DISPATCH_DESC_SIZE_V4 - SWINUP_DISPATCH_DESC_SIZE_V2)))
#define SWINUP_VULKAN_DISPATCH_DESC_SIZE_V3                                                         \
    ((uint32_t)(offsetof(swinup_vulkan_dispatch_desc, color_buffer) -                               \
                (SWINUP_DISPATCH_DESC_SIZE_V4 - SWINUP_DISPATCH_DESC_SIZE_V3)))
#define SWINUP_VULKAN_DISPATCH_DESC_SIZE_V4                                                         \
    ((uint32_t)(sizeof(swinup_vulkan_dispatch_desc) - (SWINUP_DISPATCH_DESC_SIZE_V4 - SWINUP_DISPATCH_DESC_SIZE_V3)))
#define SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5 ((uint32_t)sizeof(swinup_vulkan_dispatch_desc))
#define SWINUP_VULKAN_REACTIVE_MASK_DESC_SIZE_V1 ((uint32_t)sizeof(swinup_vulkan_reactive_mask_desc))

/* Fill the descriptors with their defaults: struct sizes set, frame as swinup_dispatch_desc_init,
   mask as swinup_reactive_mask_desc_init, every handle VK_NULL_HANDLE, formats VK_FORMAT_UNDEFINED. */
SWINUP_API void swinup_vulkan_device_desc_init(swinup_vulkan_device_desc* desc);
SWINUP_API void swinup_vulkan_dispatch_desc_init(swinup_vulkan_dispatch_desc* desc);
SWINUP_API void swinup_vulkan_reactive_mask_desc_init(swinup_vulkan_reactive_mask_desc* desc);

/* Create a context that records into Vulkan command buffers.
 *   device non-NULL: run on the application's device (the handles above).
 *   device NULL: swinup makes its own instance and device (desc->device_index among the usable
 *     devices, or the environment variable SWINUP_VULKAN_DEVICE: an index or a name substring),
 *     for tools and tests; swinup_vulkan_context_get_device returns its handles.
 * desc->backend selects what runs the frame: SWINUP_BACKEND_VULKAN (or AUTO) the Vulkan compute
 * backend on that device; SWINUP_BACKEND_CUDA the CUDA backend on the application's images through
 * external memory (device must be non-NULL; "The CUDA backend" above; a build without CUDA, a device
 * without the two external-fd extensions or one that is not a CUDA device is
 * SWINUP_STATUS_UNSUPPORTED saying which); SWINUP_BACKEND_CPU is refused.
 * The queue during creation: on the application's device, creation neither submits to nor waits on
 * any queue (no lock of the application's is needed, and a loading thread may create a context
 * while the render thread submits). The weights are written to a host-visible buffer at creation
 * and copied into device-local memory by commands recorded at the start of the network in each
 * recorded frame, until swinup sees one such frame completed (about 1.4 MB of copy per frame for
 * the first frames in flight; the host-visible copy is kept and counted in device_bytes).
 * A device without what docs/vulkan.md lists as required is SWINUP_STATUS_UNSUPPORTED naming the
 * missing extension, feature or format. On failure *out is NULL and swinup_last_error(NULL) says
 * why. swinup_dispatch (host pointers) works on a context with swinup's own device (it submits and
 * waits, as swinup_context_create's Vulkan contexts do); on one made from the application's device
 * it is SWINUP_STATUS_UNSUPPORTED, because the queues are the application's (and such a context
 * allocates none of the host path's copies). Both kinds of dispatch
 * advance the one temporal state of the context.
 * What creation costs: besides the buffers (swinup_query_memory; it submits nothing, the weights
 * are copied by the first frames' commands), it makes every compute pipeline the context's frames
 * and reactive masks use (19 for a lite context on a device whose fast GEMM runs the portable
 * kernels, 21 on a matrix path: the frame passes, the layer kernels of both precisions, 4
 * reactive-mask variants), with device->pipeline_cache when one is given, so that no recorded
 * frame makes a pipeline. On Mesa's lavapipe (llvmpipe, LLVM 15, two shared x86-64 cores) that is
 * nearly all of it: 2 to 5 s to make the pipelines, 0.01 s for the
 * rest, and the first recorded frame then takes what the next ones do (test_vulkan_context_creation
 * prints these figures). A re-created context makes them again; a driver that keeps pipelines in
 * a VkPipelineCache (NVIDIA's, RADV; lavapipe keeps nothing in one) makes them from the cache when
 * the application passes one it kept (or saved with vkGetPipelineCacheData). Create the context
 * where a stall is acceptable (a loading screen), or on a loading thread. */
SWINUP_API swinup_status swinup_vulkan_context_create(const swinup_context_desc* desc,
                                                      const swinup_vulkan_device_desc* device,
                                                      swinup_context** out);

/* The device a Vulkan context runs on: the application's handles as given, or those of the device
 * swinup made (with vkGetInstanceProcAddr / vkGetDeviceProcAddr of the loader swinup is linked
 * with; no extension list and no feature chain). For swinup's own device the application may create
 * images, views and command buffers on it and submit to queue 0 of queue_family_index;
 * swinup_dispatch (host pointers) on such a context submits to that same queue, so the application
 * must not use the queue from another thread during it. out->struct_size must be set first
 * (swinup_vulkan_device_desc_init does; a SWINUP_VULKAN_DEVICE_DESC_SIZE_* , of which that many bytes
 * are written); another size is SWINUP_STATUS_INVALID_ARGUMENT naming swinup_vulkan_device_desc,
 * with *out unchanged. pipeline_cache and allocation_callbacks come back VK_NULL_HANDLE and NULL
 * (swinup keeps neither the cache nor the application's pointer). */
SWINUP_API swinup_status swinup_vulkan_context_get_device(const swinup_context* ctx,
                                                          swinup_vulkan_device_desc* out);

/* Record one frame into cmd (see the header comment for the images, the barriers and the command
 * buffer). Every field is checked first, as swinup_dispatch does (the scalars with the same
 * messages); bad input is SWINUP_STATUS_INVALID_ARGUMENT with swinup_last_error(ctx) naming the
 * image and what is wrong, e.g. "vulkan_dispatch.output.usage: lacks VK_IMAGE_USAGE_STORAGE_BIT
 * (swinup writes the output with imageStore)", and nothing is recorded. A context not made by
 * swinup_vulkan_context_create is SWINUP_STATUS_INVALID_ARGUMENT. On a CUDA context (see "The CUDA
 * backend") nothing is recorded into cmd (it may be VK_NULL_HANDLE): the frame is enqueued on the CUDA
 * stream between the wait and the signal of the semaphores.
 * Input statistics (swinup_context_get_input_statistics) on a Vulkan context: swinup does not
 * submit the command buffers it records into, so it cannot wait for them (a frame recorded and not
 * yet submitted would never complete). A recorded frame is counted once swinup sees it completed
 * (its signal_value reached, or without one the event it records at the frame's end set); the
 * call does not wait, and `frames` says how many frames the counts cover. Frames of
 * swinup_dispatch (host pointers) are counted when they return. Call it after the application's own wait (fence, vkQueueWaitIdle) to count every frame
 * recorded so far. */
SWINUP_API swinup_status swinup_vulkan_record_dispatch(swinup_context* ctx, VkCommandBuffer cmd,
                                                       const swinup_vulkan_dispatch_desc* desc);

/* Record the automatic reactive mask into cmd (see swinup_vulkan_reactive_mask_desc). Every field is
 * checked first; bad input is SWINUP_STATUS_INVALID_ARGUMENT naming it, e.g.
 * "vulkan_reactive_mask.output.usage: lacks VK_IMAGE_USAGE_STORAGE_BIT (swinup writes the mask with
 * imageStore)", and nothing is recorded. An output format the device cannot store is
 * SWINUP_STATUS_UNSUPPORTED naming it. A context not made by swinup_vulkan_context_create is
 * SWINUP_STATUS_INVALID_ARGUMENT; a CUDA one SWINUP_STATUS_UNSUPPORTED. */
SWINUP_API swinup_status swinup_vulkan_record_reactive_mask(swinup_context* ctx, VkCommandBuffer cmd,
                                                            const swinup_vulkan_reactive_mask_desc* desc);

/* Abandon what was recorded into cmd and will never be submitted (a swapchain out of date, a
 * command buffer dropped): every frame of swinup_vulkan_record_dispatch and every reactive mask of
 * swinup_vulkan_record_reactive_mask recorded into cmd and not yet seen completed. Their recording slots
 * are free again, and the temporal state (history, recurrent features, the frame count that picks
 * the window shift, the previous jitter and size) is what it was before the first of those frames,
 * as if they had never been recorded: the next frame continues from the last frame before them
 * (it gives the bytes a context that never saw them gives) without re-creating the context.
 * cmd must never be submitted afterwards. End, reset or free it before swinup records anything more
 * (its descriptor sets are reused by the next recording, after which ending it is invalid); this
 * call may come before or after that. Frames must be abandoned newest first: when a frame recorded
 * later into another command buffer (or a swinup_dispatch on swinup's own device) read the history
 * that cmd's frames wrote, the call is SWINUP_STATUS_INVALID_ARGUMENT and abandons nothing; so is a
 * cmd with nothing pending in it (nothing recorded, or it has completed: its signal_value was seen
 * reached, or without one its end-of-frame event seen set). Never call it for a command buffer that was submitted: swinup cannot tell it from one that
 * was not until it has run. A CUDA context records nothing into command buffers:
 * SWINUP_STATUS_UNSUPPORTED. */
SWINUP_API swinup_status swinup_vulkan_abandon_frame(swinup_context* ctx, VkCommandBuffer cmd);

/* Release what a CUDA context imported of an image (its memory, CUDA array, texture or surface
 * object), or of a timeline semaphore, after the context's CUDA work using it has finished (this
 * waits on the host for the context's stream). VK_NULL_HANDLE releases every image (every
 * semaphore). A handle never imported is fine (nothing to do), and so is any handle on a Vulkan
 * context, which imports nothing. Call it before destroying an image, its memory or a semaphore
 * that a later one could share handle values with. */
SWINUP_API swinup_status swinup_vulkan_release_image(swinup_context* ctx, VkImage image);
/* The same for a buffer (swinup_vulkan_buffer): its memory import and device pointer. */
SWINUP_API swinup_status swinup_vulkan_release_buffer(swinup_context* ctx, VkBuffer buffer);
SWINUP_API swinup_status swinup_vulkan_release_semaphore(swinup_context* ctx, VkSemaphore semaphore);

#ifdef __cplusplus
}
#endif

#endif /* SWINUP_SWINUP_VULKAN_H */
