// What SWINUP_BACKEND_CUDA adds to the checks of a Vulkan dispatch (src/vulkan/api/
// cuda_interop_validation.h), without a device: stand-in handles, compared but never used. Each bad
// field is refused with a message naming the resource; the import itself (a driver refusing a
// handle) is tested on the GPU (test_cuda_vulkan_interop.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "api/resource_desc.h"
#include "stand_in_image.h"
#include "swinup/swinup_vulkan.h"
#include "vulkan/api/cuda_interop_validation.h"
#include "vulkan/api/vulkan_dispatch_validation.h"

namespace {

using swinup::Validation;
using swinup::vulkan_api::validate_cuda_interop_desc;
using swinup::vulkan_api::validate_cuda_interop_device;
using swinup::vulkan_api::validate_vulkan_dispatch_desc;

using swinup::test::fake;

// A stand-in image with exportable memory, as the CUDA import path requires.
swinup_vulkan_image image(uintptr_t id, VkFormat format, uint32_t w, uint32_t h, VkImageLayout layout,
                          VkImageUsageFlags usage) {
    swinup_vulkan_image i = swinup::test::stand_in_image(id, format, w, h, layout, usage);
    i.memory = fake<VkDeviceMemory>(id + 2);
    i.memory_size = 1 << 20;
    i.memory_handle_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    i.dedicated = VK_TRUE;
    i.tiling = VK_IMAGE_TILING_OPTIMAL;
    return i;
}

// A stand-in buffer of exportable memory holding one role's rows, packed, at `offset`.
swinup_vulkan_buffer buffer(uintptr_t id, swinup_format format, uint32_t w, uint32_t h, VkDeviceSize offset = 0) {
    swinup_vulkan_buffer b{};
    b.buffer = fake<VkBuffer>(id);
    b.size = 1 << 18;
    b.offset = offset;
    b.format = format;
    b.width = w;
    b.height = h;
    b.memory = fake<VkDeviceMemory>(id + 2);
    b.memory_size = 1 << 20;
    b.memory_handle_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    b.dedicated = VK_TRUE;
    return b;
}

struct Frame {
    swinup_context_desc context = swinup::sized_context_desc(64, 48, 128, 96);
    swinup_vulkan_dispatch_desc desc = swinup::test::stand_in_dispatch(image);

    Frame() {
        context.backend = SWINUP_BACKEND_CUDA;
        desc.wait_semaphore = fake<VkSemaphore>(0x900);
        desc.wait_value = 1;
        desc.signal_semaphore = fake<VkSemaphore>(0x900);
        desc.signal_value = 2;
    }

    Validation check(bool exposure_image = false) const {
        const Validation v = validate_vulkan_dispatch_desc(desc, context);
        if (!v.ok()) return v;
        return validate_cuda_interop_desc(desc, context, exposure_image);
    }
};

void expect_refused(const Frame& f, swinup_status status, const std::string& message, bool exposure = false) {
    const Validation v = f.check(exposure);
    EXPECT_EQ(v.status, status);
    EXPECT_EQ(v.message, message);
}

TEST(CudaInteropValidation, AWellFormedFrameIsAccepted) {
    Frame f;
    EXPECT_TRUE(f.check().ok()) << f.check().message;
    f.desc.wait_semaphore = VK_NULL_HANDLE;  // no wait, no signal: allowed
    f.desc.wait_value = 0;
    f.desc.signal_semaphore = VK_NULL_HANDLE;
    f.desc.signal_value = 0;
    EXPECT_TRUE(f.check().ok()) << f.check().message;
}

TEST(CudaInteropValidation, AnImageWithoutExportableMemoryIsNamed) {
    Frame f;
    f.desc.depth.memory_handle_type = static_cast<VkExternalMemoryHandleTypeFlagBits>(0);
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.depth.memory_handle_type: is 0, an image without exportable memory; the CUDA "
                   "backend imports the image's memory (allocate it with VkExportMemoryAllocateInfo and create the "
                   "image with VkExternalMemoryImageCreateInfo, both VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT)");
}

TEST(CudaInteropValidation, AWrongHandleTypeIsNamed) {
    Frame f;
    f.desc.color.memory_handle_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.color.memory_handle_type: expected VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, "
                   "got VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT");
    f.desc.color.memory_handle_type = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT;
    expect_refused(f, SWINUP_STATUS_UNSUPPORTED,
                   "vulkan_dispatch.color.memory_handle_type: VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_BIT: the "
                   "Windows handle types are not supported by this version (untested); the CUDA backend imports "
                   "VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT");
}

TEST(CudaInteropValidation, MemoryFieldsAreChecked) {
    Frame f;
    f.desc.output.memory = VK_NULL_HANDLE;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.output.memory: is VK_NULL_HANDLE (the CUDA backend imports the memory the image "
                   "is bound to)");
    f = Frame();
    f.desc.motion_vectors.memory_size = 0;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.motion_vectors.memory_size: is 0 (the memory's VkMemoryAllocateInfo.allocationSize)");
    f = Frame();
    f.desc.color.memory_offset = 1 << 20;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.color.memory_offset: 1048576 is not inside the memory of memory_size 1048576");
    f = Frame();
    f.desc.color.dedicated = 7;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT, "vulkan_dispatch.color.dedicated: expected VK_TRUE or VK_FALSE, got 7");
}

TEST(CudaInteropValidation, LinearTilingIsRefused) {
    Frame f;
    f.desc.color.tiling = VK_IMAGE_TILING_LINEAR;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.color.tiling: expected VK_IMAGE_TILING_OPTIMAL, got VK_IMAGE_TILING_LINEAR (the "
                   "CUDA backend maps images as CUDA arrays, whose layout is the optimal tiling's)");
}

TEST(CudaInteropValidation, ADepthFormatIsRefused) {
    Frame f;
    f.desc.depth.format = VK_FORMAT_D32_SFLOAT;  // accepted by the Vulkan backend
    f.desc.depth.layout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL;
    ASSERT_TRUE(validate_vulkan_dispatch_desc(f.desc, f.context).ok());
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.depth.format: VK_FORMAT_D32_SFLOAT cannot be read by the CUDA backend (CUDA maps "
                   "no depth format); pass the depth as a VK_FORMAT_R32_SFLOAT image");
}

TEST(CudaInteropValidation, SharpeningIsUnsupported) {
    Frame f;
    f.desc.frame.sharpness = 0.25f;  // accepted by the Vulkan backend
    ASSERT_TRUE(validate_vulkan_dispatch_desc(f.desc, f.context).ok());
    expect_refused(f, SWINUP_STATUS_UNSUPPORTED,
                   "vulkan_dispatch.frame.sharpness: the CUDA backend does not sharpen the output in this version (0 "
                   "turns it off; the Vulkan backend sharpens)");
}

TEST(CudaInteropValidation, ThePackedAndDepthStencilFormatsAreUnsupported) {
    Frame f;
    f.desc.color.format = VK_FORMAT_B10G11R11_UFLOAT_PACK32;  // accepted by the Vulkan backend
    ASSERT_TRUE(validate_vulkan_dispatch_desc(f.desc, f.context).ok());
    expect_refused(f, SWINUP_STATUS_UNSUPPORTED,
                   "vulkan_dispatch.color.format: VK_FORMAT_B10G11R11_UFLOAT_PACK32 is not read or written by the CUDA "
                   "backend on Vulkan images in this version (the Vulkan backend takes it; on CUDA pass the colour as "
                   "VK_FORMAT_R16G16B16A16_SFLOAT)");
    f.desc.color.format = VK_FORMAT_A2B10G10R10_UNORM_PACK32;
    EXPECT_EQ(f.check().status, SWINUP_STATUS_UNSUPPORTED);
    EXPECT_EQ(f.check().message.rfind("vulkan_dispatch.color.format: VK_FORMAT_A2B10G10R10_UNORM_PACK32 is not", 0), 0u);
    Frame d;
    d.desc.depth.format = VK_FORMAT_D24_UNORM_S8_UINT;
    d.desc.depth.layout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL;
    ASSERT_TRUE(validate_vulkan_dispatch_desc(d.desc, d.context).ok());
    expect_refused(d, SWINUP_STATUS_UNSUPPORTED,
                   "vulkan_dispatch.depth.format: VK_FORMAT_D24_UNORM_S8_UINT is not read or written by the CUDA "
                   "backend on Vulkan images in this version (the Vulkan backend takes it; on CUDA pass the depth as "
                   "VK_FORMAT_R32_SFLOAT)");
    d.desc.depth.format = VK_FORMAT_D32_SFLOAT_S8_UINT;
    EXPECT_EQ(d.check().status, SWINUP_STATUS_UNSUPPORTED);
    EXPECT_EQ(d.check().message.rfind("vulkan_dispatch.depth.format: VK_FORMAT_D32_SFLOAT_S8_UINT is not", 0), 0u);
}

TEST(CudaInteropValidation, TheExposureImageIsCheckedOnlyWhenRead) {
    Frame f;
    f.desc.exposure = image(0x500, VK_FORMAT_R32_SFLOAT, 1, 1, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                            VK_IMAGE_USAGE_SAMPLED_BIT);
    f.desc.exposure.memory = VK_NULL_HANDLE;
    EXPECT_TRUE(f.check(false).ok());
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.exposure.memory: is VK_NULL_HANDLE (the CUDA backend imports the memory the image "
                   "is bound to)",
                   true);
}

TEST(CudaInteropValidation, SemaphoreValuesAreChecked) {
    Frame f;
    f.desc.signal_value = 1;  // the same semaphore as the wait, not above its value
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.signal_value: 1 is not above wait_value 1 of the same semaphore (a timeline "
                   "semaphore's value only grows)");
    f = Frame();
    f.desc.wait_semaphore = VK_NULL_HANDLE;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.wait_value: is 1 but wait_semaphore is VK_NULL_HANDLE");
    f = Frame();
    f.desc.signal_semaphore = VK_NULL_HANDLE;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.signal_value: is 2 but signal_semaphore is VK_NULL_HANDLE");
}

// Mask images are imported like the other inputs: a well-formed one passes, and one without
// exportable memory is refused naming the mask.
TEST(CudaInteropValidation, MaskImagesAreCheckedLikeTheOtherInputs) {
    for (int m = 0; m < 2; ++m) {
        const std::string name = m == 0 ? "reactive_mask" : "transparency_mask";
        for (VkFormat format : {VK_FORMAT_R8_UNORM, VK_FORMAT_R16_SFLOAT, VK_FORMAT_R32_SFLOAT}) {
            Frame f;
            swinup_vulkan_image& mask = m == 0 ? f.desc.reactive_mask : f.desc.transparency_mask;
            mask = image(0x600, format, 64, 48, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_USAGE_SAMPLED_BIT);
            const Validation ok = f.check();
            EXPECT_TRUE(ok.ok()) << name << " format " << format << ": " << ok.message;
            mask.memory_handle_type = static_cast<VkExternalMemoryHandleTypeFlagBits>(0);
            const Validation v = f.check();
            EXPECT_EQ(v.status, SWINUP_STATUS_INVALID_ARGUMENT);
            EXPECT_EQ(v.message.rfind("vulkan_dispatch." + name + ".memory_handle_type: is 0", 0), 0u) << v.message;
        }
    }
}

TEST(CudaInteropValidation, TheDeviceNeedsTheExternalFdExtensions) {
    swinup_vulkan_device_desc device;
    swinup_vulkan_device_desc_init(&device);
    device.api_version = VK_API_VERSION_1_2;
    const char* only_memory[] = {"VK_KHR_external_memory_fd"};
    device.enabled_extension_count = 1;
    device.enabled_extensions = only_memory;
    Validation v = validate_cuda_interop_device(device);
    EXPECT_EQ(v.status, SWINUP_STATUS_UNSUPPORTED);
    EXPECT_EQ(v.message, "vulkan_device.enabled_extensions: lacks VK_KHR_external_semaphore_fd, which "
                         "SWINUP_BACKEND_CUDA needs to import the application's images and semaphores");
    const char* both[] = {"VK_KHR_external_memory_fd", "VK_KHR_external_semaphore_fd"};
    device.enabled_extension_count = 2;
    device.enabled_extensions = both;
    EXPECT_TRUE(validate_cuda_interop_device(device).ok());
    device.api_version = VK_API_VERSION_1_1;  // no timeline semaphores without the extension
    v = validate_cuda_interop_device(device);
    EXPECT_EQ(v.status, SWINUP_STATUS_UNSUPPORTED);
    device.api_version = 0;  // 0 means 1.1
    v = validate_cuda_interop_device(device);
    EXPECT_EQ(v.status, SWINUP_STATUS_UNSUPPORTED);
    EXPECT_EQ(v.message.rfind("vulkan_device.api_version: below 1.2", 0), 0u) << v.message;
    const char* with_timeline[] = {"VK_KHR_external_memory_fd", "VK_KHR_external_semaphore_fd",
                                   "VK_KHR_timeline_semaphore"};
    device.enabled_extension_count = 3;
    device.enabled_extensions = with_timeline;
    EXPECT_TRUE(validate_cuda_interop_device(device).ok());
}

// A CUDA context needs the application's device: swinup's own has no exported memory to import.
TEST(CudaInteropValidation, ACudaContextWithoutTheApplicationsDeviceIsRefused) {
    swinup_context_desc desc;
    swinup_context_desc_init(&desc);
    desc.backend = SWINUP_BACKEND_CUDA;
    swinup_context* ctx = reinterpret_cast<swinup_context*>(1);
    EXPECT_EQ(swinup_vulkan_context_create(&desc, nullptr, &ctx), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_STREQ(swinup_last_error(nullptr),
                 "swinup_vulkan_context_create: device is NULL, but SWINUP_BACKEND_CUDA runs on the application's "
                 "images, which need the application's device");
}

// Every role as a buffer (swinup_vulkan_buffer, read and written as device pointers): the images of
// those roles are absent, and a well-formed frame passes with the roles' formats and exact sizes.
struct BufferFrame : Frame {
    BufferFrame() {
        desc.color = desc.depth = desc.motion_vectors = desc.output = swinup_vulkan_image{};
        desc.color_buffer = buffer(0xb00, SWINUP_FORMAT_RGBA16F, 64, 48);
        desc.depth_buffer = buffer(0xb10, SWINUP_FORMAT_R32F, 64, 48);
        desc.motion_vectors_buffer = buffer(0xb20, SWINUP_FORMAT_RG32F, 64, 48);
        desc.output_buffer = buffer(0xb30, SWINUP_FORMAT_RGBA16F, 128, 96);
        desc.reactive_mask_buffer = buffer(0xb40, SWINUP_FORMAT_R8_UNORM, 64, 48);
        desc.transparency_mask_buffer = buffer(0xb50, SWINUP_FORMAT_R16F, 64, 48);
    }
};

TEST(CudaInteropValidation, WellFormedBuffersAreAccepted) {
    BufferFrame f;
    EXPECT_TRUE(f.check().ok()) << f.check().message;
    // Several roles in one buffer at offsets of their own, rows with padding: also well formed.
    f.desc.depth_buffer = buffer(0xb00, SWINUP_FORMAT_R32F, 64, 48, 64 * 48 * 8);
    f.desc.depth_buffer.row_pitch = 64 * 4 + 64;
    f.desc.output_buffer = buffer(0xb00, SWINUP_FORMAT_RGBA16F, 128, 96, 1 << 16);
    EXPECT_TRUE(f.check().ok()) << f.check().message;
}

TEST(CudaInteropValidation, ABufferWithoutExportableMemoryIsNamed) {
    BufferFrame f;
    f.desc.motion_vectors_buffer.memory_handle_type = static_cast<VkExternalMemoryHandleTypeFlagBits>(0);
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.motion_vectors_buffer.memory_handle_type: is 0, a buffer without exportable "
                   "memory; the CUDA backend imports the buffer's memory (allocate it with VkExportMemoryAllocateInfo "
                   "and create the buffer with VkExternalMemoryBufferCreateInfo, both "
                   "VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT)");
    f = BufferFrame();
    f.desc.color_buffer.memory = VK_NULL_HANDLE;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.color_buffer.memory: is VK_NULL_HANDLE (the CUDA backend imports the memory the "
                   "buffer is bound to)");
    f = BufferFrame();
    f.desc.color_buffer.dedicated = 3;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.color_buffer.dedicated: expected VK_TRUE or VK_FALSE, got 3");
}

TEST(CudaInteropValidation, ABuffersRowsFollowTheDevicePointerRules) {
    BufferFrame f;
    f.desc.depth_buffer.format = SWINUP_FORMAT_RG16F;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.depth_buffer.format: expected SWINUP_FORMAT_R32F, SWINUP_FORMAT_D24_UNORM_S8 or "
                   "SWINUP_FORMAT_D32F_S8, got SWINUP_FORMAT_RG16F");
    f = BufferFrame();
    f.desc.color_buffer.width = 63;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.color_buffer.width: expected 64x48 (render_width x render_height), got 63x48");
    f = BufferFrame();
    f.desc.color_buffer.row_pitch = 64 * 8 - 2;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.color_buffer.row_pitch: 510 bytes is less than one row (512 bytes)");
    f = BufferFrame();
    f.desc.output_buffer.format = SWINUP_FORMAT_RGBA8;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.output_buffer.format: expected SWINUP_FORMAT_RGBA16F, got SWINUP_FORMAT_RGBA8 (the "
                   "context's output_format)");
}

// A C caller may store any int in a buffer's format: it is judged as that raw value (api/raw_enum.h),
// named in the message, and never loaded as a swinup_format before its range is checked.
TEST(CudaInteropValidation, ABuffersFormatOutsideTheEnumIsNamedAsItsValue) {
    BufferFrame f;
    const int32_t raw = 99;
    std::memcpy(&f.desc.depth_buffer.format, &raw, sizeof raw);
    const Validation v = f.check();
    EXPECT_EQ(v.status, SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(v.message.rfind("vulkan_dispatch.depth_buffer.format: expected SWINUP_FORMAT_R32F, SWINUP_FORMAT_D24_UNORM_S8 or "
                              "SWINUP_FORMAT_D32F_S8, got ", 0), 0u)
        << v.message;
    EXPECT_NE(v.message.find("99"), std::string::npos) << v.message;
}

TEST(CudaInteropValidation, ABuffersRowsMustLieInsideIt) {
    BufferFrame f;
    f.desc.depth_buffer.offset = 2;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.depth_buffer.offset: 2 is not a multiple of 4 bytes (the element size of "
                   "SWINUP_FORMAT_R32F)");
    f = BufferFrame();
    f.desc.output_buffer.size = 128 * 96 * 8 - 8;  // one pixel short
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.output_buffer.offset: 0 plus the rows' 98304 bytes (96 rows of pitch 1024) run "
                   "past the buffer's size 98296");
    f = BufferFrame();
    f.desc.color_buffer.memory_offset = (1 << 20) - (1 << 17);  // the buffer's 2^18 bytes do not fit
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.color_buffer.size: 262144 bytes at memory_offset 917504 run past the memory's "
                   "memory_size 1048576");
    f = BufferFrame();
    f.desc.color_buffer.size = 0;
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.color_buffer.size: is 0 (the buffer's VkBufferCreateInfo.size)");
}

TEST(CudaInteropValidation, AnOutputOverlappingAnInputInOneBufferIsRefused) {
    BufferFrame f;
    f.desc.output_buffer = buffer(0xb20, SWINUP_FORMAT_RGBA16F, 128, 96, 64 * 48 * 8 - 8);  // the motion's last pixel
    expect_refused(f, SWINUP_STATUS_INVALID_ARGUMENT,
                   "vulkan_dispatch.output_buffer.offset: the output's bytes overlap "
                   "vulkan_dispatch.motion_vectors_buffer's in the same buffer (the output must be separate)");
    f.desc.output_buffer.offset = 64 * 48 * 8;  // right after it
    EXPECT_TRUE(f.check().ok()) << f.check().message;
}

}  // namespace
