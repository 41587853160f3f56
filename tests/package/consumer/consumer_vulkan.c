/* Compiles against the installed Vulkan-facing header and calls the library through it, without
 * needing a Vulkan device: the descriptors' defaults (struct sizes, the frame's scalars as
 * swinup_dispatch_desc_init sets them, formats VK_FORMAT_UNDEFINED) and a context request the
 * library must refuse naming the field (SWINUP_BACKEND_CPU cannot record into Vulkan command
 * buffers). An engine's Vulkan integration needs exactly this header, its own Vulkan headers and
 * loader, and one of the two libraries.
 * Exit status 0 on success; on failure it prints what went wrong. */
#include <stdio.h>
#include <string.h>

#include <swinup/swinup_vulkan.h>

static int fail(const char* what) {
    fprintf(stderr, "consumer_vulkan: %s\n", what);
    return 1;
}

int main(void) {
    swinup_vulkan_device_desc device;
    memset(&device, 0xff, sizeof device);
    swinup_vulkan_device_desc_init(&device);
    if (device.struct_size != SWINUP_VULKAN_DEVICE_DESC_SIZE_V2) return fail("device desc: struct_size not set");
    if (device.device != VK_NULL_HANDLE || device.get_device_proc_addr != NULL)
        return fail("device desc: handles not VK_NULL_HANDLE");
    if (device.pipeline_cache != VK_NULL_HANDLE || device.allocation_callbacks != NULL)
        return fail("device desc: pipeline cache or allocation callbacks set");

    swinup_vulkan_dispatch_desc dispatch;
    memset(&dispatch, 0xff, sizeof dispatch);
    swinup_vulkan_dispatch_desc_init(&dispatch);
    swinup_dispatch_desc frame;
    swinup_dispatch_desc_init(&frame);
    if (dispatch.struct_size != SWINUP_VULKAN_DISPATCH_DESC_SIZE_V5)
        return fail("dispatch desc: struct_size not the current size");
    if (dispatch.frame.struct_size != frame.struct_size || dispatch.frame.exposure_value != frame.exposure_value ||
        dispatch.frame.sharpness != 0.0f)
        return fail("dispatch desc: frame not as swinup_dispatch_desc_init sets it");
    if (dispatch.color.format != VK_FORMAT_UNDEFINED || dispatch.output.image != VK_NULL_HANDLE)
        return fail("dispatch desc: images not empty");
    if (dispatch.output_buffer.buffer != VK_NULL_HANDLE || dispatch.color_buffer.size != 0)
        return fail("dispatch desc: buffers not empty");

    swinup_vulkan_reactive_mask_desc mask;
    swinup_vulkan_reactive_mask_desc_init(&mask);
    if (mask.struct_size != SWINUP_VULKAN_REACTIVE_MASK_DESC_SIZE_V1)
        return fail("reactive mask desc: struct_size not set");

    swinup_context_desc cd;
    swinup_context_desc_init(&cd);
    cd.backend = SWINUP_BACKEND_CPU;
    cd.display_width = 64;
    cd.display_height = 64;
    cd.max_render_width = 32;
    cd.max_render_height = 32;
    swinup_context* ctx = (swinup_context*)&cd; /* must come back NULL */
    const swinup_status status = swinup_vulkan_context_create(&cd, NULL, &ctx);
    const char* message = swinup_last_error(NULL);
    if (status != SWINUP_STATUS_INVALID_ARGUMENT || ctx != NULL || strstr(message, "backend") == NULL) {
        fprintf(stderr, "consumer_vulkan: a CPU-backend Vulkan context gave %s, \"%s\"\n", swinup_status_name(status),
                message);
        return 1;
    }
    printf("consumer_vulkan: swinup %d.%d.%d, Vulkan descriptors as documented, refused: %s\n", SWINUP_VERSION_MAJOR,
           SWINUP_VERSION_MINOR, SWINUP_VERSION_PATCH, message);
    return 0;
}
