// The CUDA backend on the application's Vulkan images (include/swinup/swinup_vulkan.h, "The CUDA
// backend"): each frame imports what it has not seen (imported_images.cuh, imported_buffers.cuh,
// imported_semaphores.cuh), then enqueues on one stream: the wait for the application's semaphore,
// the CUDA backend's frame graph reading the imported inputs through texture objects (images) or
// device pointers (buffers) and writing the output through a surface object or into a buffer's
// rows, the signal of the application's semaphore. No host wait, no copy.
#include <cstring>
#include <memory>
#include <string>

#include "cuda/backend/cuda_backend.cuh"
#include "cuda/backend/cuda_check.cuh"
#include "cuda/interop/imported_buffers.cuh"
#include "cuda/interop/imported_images.cuh"
#include "cuda/interop/imported_semaphores.cuh"
#include "cuda/interop/interop_error.cuh"
#include "frame/formats.h"
#include "frame/input_image.h"
#include "vulkan/api/cuda_interop_backend.h"
#include "vulkan/api/vulkan_image_rules.h"

namespace swinup::vulkan_api {

namespace {

using cuda::CudaBackend;
using cuda::CudaError;
using cuda::ImportedBuffers;
using cuda::ImportedImages;
using cuda::ImportedSemaphores;
using cuda::InteropError;

std::string hex(const uint8_t* bytes, size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) {
        s += digits[bytes[i] >> 4];
        s += digits[bytes[i] & 15];
    }
    return s;
}

// The CUDA device that is the application's Vulkan physical device (equal deviceUUIDs).
int cuda_device_of(VkPhysicalDevice physical_device) {
    VkPhysicalDeviceIDProperties id{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &id;
    vkGetPhysicalDeviceProperties2(physical_device, &props);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        throw InteropError(SWINUP_STATUS_UNSUPPORTED, std::string("no CUDA device is present (the Vulkan device is ") +
                                                          props.properties.deviceName + ")");
    }
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        if (cudaGetDeviceProperties(&prop, i) == cudaSuccess &&
            std::memcmp(prop.uuid.bytes, id.deviceUUID, VK_UUID_SIZE) == 0)
            return i;
    }
    throw InteropError(SWINUP_STATUS_UNSUPPORTED,
                       std::string("vulkan_device.physical_device: ") + props.properties.deviceName + " (UUID " +
                           hex(id.deviceUUID, VK_UUID_SIZE) + ") is none of the " + std::to_string(count) +
                           " CUDA device(s): SWINUP_BACKEND_CUDA runs on the GPU of the application's device");
}

template <typename Fn>
Fn device_function(const swinup_vulkan_device_desc& app, const char* name, const char* extension) {
    const PFN_vkGetDeviceProcAddr get = app.get_device_proc_addr != nullptr ? app.get_device_proc_addr : vkGetDeviceProcAddr;
    const auto fn = reinterpret_cast<Fn>(get(app.device, name));
    if (fn == nullptr) {
        throw InteropError(SWINUP_STATUS_UNSUPPORTED, std::string("vulkan_device.device: ") + name +
                                                          " is not available: is " + extension + " enabled on the device?");
    }
    return fn;
}

// A role given as a buffer, read where it lies (as a CUDA device pointer would be).
InputImage buffer_input(const swinup_vulkan_buffer& buffer, const cuda::ImportedBuffer& imported) {
    swinup_resource r{};
    r.data = static_cast<const uint8_t*>(imported.data) + buffer.offset;
    r.memory = SWINUP_MEMORY_CUDA;
    r.format = buffer.format;
    r.width = buffer.width;
    r.height = buffer.height;
    r.row_pitch = buffer.row_pitch;
    return input_image(r);
}

InputImage texture_input(const swinup_vulkan_image& image, const cuda::ImportedImage& imported) {
    InputImage im;
    im.texture = imported.texture;
    im.channels = format_channels(swinup_format_of(image.format));
    im.half = format_is_half(swinup_format_of(image.format)) ? 1 : 0;
    im.unorm8 = image.format == VK_FORMAT_R8_UNORM ? 1 : 0;
    im.width = static_cast<int>(image.width);
    im.height = static_cast<int>(image.height);
    return im;
}

// A CUDA stream and an event owned by the backend: released by their destructors, so also when
// the backend's constructor throws after creating them.
template <typename Handle, cudaError_t (*destroy)(Handle)>
struct OwnedCudaHandle {
    Handle handle = nullptr;
    OwnedCudaHandle() = default;
    OwnedCudaHandle(const OwnedCudaHandle&) = delete;
    OwnedCudaHandle& operator=(const OwnedCudaHandle&) = delete;
    ~OwnedCudaHandle() {
        if (handle != nullptr) destroy(handle);
    }
};
using OwnedStream = OwnedCudaHandle<cudaStream_t, cudaStreamDestroy>;
using OwnedEvent = OwnedCudaHandle<cudaEvent_t, cudaEventDestroy>;

class VulkanInteropBackend final : public CudaInteropBackend {
public:
    VulkanInteropBackend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights,
                         const swinup_vulkan_device_desc& app)
        : app_(app), ctx_output_format_(desc.output_format) {
        app_.enabled_extension_count = 0;  // the application's memory: not kept
        app_.enabled_extensions = nullptr;
        app_.enabled_features = nullptr;
        app_.pipeline_cache = VK_NULL_HANDLE;   // no Vulkan pipelines or objects are made here
        app_.allocation_callbacks = nullptr;
        const auto get_memory_fd =
            device_function<PFN_vkGetMemoryFdKHR>(app, "vkGetMemoryFdKHR", "VK_KHR_external_memory_fd");
        const auto get_semaphore_fd =
            device_function<PFN_vkGetSemaphoreFdKHR>(app, "vkGetSemaphoreFdKHR", "VK_KHR_external_semaphore_fd");
        swinup_context_desc on_device = desc;
        on_device.device_index = cuda_device_of(app.physical_device);
        // Its frames are the application's images; a host-pointer swinup_dispatch on it (allowed,
        // rare) makes the host copies' buffers when it first needs them.
        backend_ = std::make_unique<CudaBackend>(on_device, std::move(weights), CudaBackend::HostStaging::kOnFirstUse);
        SWINUP_CUDA_CHECK(cudaSetDevice(backend_->device_ordinal()));
        SWINUP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_.handle, cudaStreamNonBlocking));
        SWINUP_CUDA_CHECK(cudaEventCreateWithFlags(&done_.handle, cudaEventDisableTiming));
        // Before an import goes: this context's last frame on either path (swinup_dispatch on another
        // stream included) and the last imported frame's semaphore signal have run.
        const auto finish = [this] {
            SWINUP_CUDA_CHECK(cudaEventSynchronize(backend_->last_frame_done()));
            SWINUP_CUDA_CHECK(cudaEventSynchronize(done_.handle));
        };
        images_ = std::make_unique<ImportedImages>(app.device, get_memory_fd, finish);
        buffers_ = std::make_unique<ImportedBuffers>(app.device, get_memory_fd, finish);
        semaphores_ = std::make_unique<ImportedSemaphores>(app.device, get_semaphore_fd, finish);
    }

    ~VulkanInteropBackend() override {
        cudaSetDevice(backend_->device_ordinal());
        cudaEventSynchronize(done_.handle);  // the imports go below; nothing may still use them
        images_.reset();
        buffers_.reset();
        semaphores_.reset();
        // done_ and stream_ go with the members, after the imports.
    }

    swinup_backend kind() const override { return SWINUP_BACKEND_CUDA; }
    std::string device_name() const override { return backend_->device_name(); }
    // The CUDA backend's own allocations; the imported images and semaphores are the
    // application's memory and are not counted (swinup.h, swinup_context_get_memory).
    BackendMemory memory() const override { return backend_->memory(); }

    // swinup_dispatch on this context: the CUDA backend's device-pointer (or host) frame, which
    // shares the temporal state with the Vulkan images' frames.
    swinup_status dispatch(const swinup_dispatch_desc& desc, uint64_t frame_index, std::string* error) override {
        return backend_->dispatch(desc, frame_index, error);
    }
    // swinup_generate_reactive_mask on host or CUDA device pointers, as the CUDA backend runs it.
    swinup_status generate_reactive_mask(const swinup_reactive_mask_desc& desc, std::string* error) override {
        return backend_->generate_reactive_mask(desc, error);
    }

    swinup_status run(const swinup_vulkan_dispatch_desc& d, bool exposure_image, uint64_t frame_index,
                      std::string* error) override {
        try {
            SWINUP_CUDA_CHECK(cudaSetDevice(backend_->device_ordinal()));
            const cudaStream_t stream = d.frame.cuda_stream != nullptr ? static_cast<cudaStream_t>(d.frame.cuda_stream)
                                                                       : stream_.handle;
            // Every import first: a refusal enqueues nothing.
            using Access = ImportedImages::Access;
            // Each input role: its buffer when given, else its image (absent for a mask with neither).
            const auto input = [&](const swinup_vulkan_image& image, const swinup_vulkan_buffer& buffer,
                                   const char* name, const char* buffer_name) {
                if (buffer.buffer != VK_NULL_HANDLE) return buffer_input(buffer, buffers_->get(buffer, buffer_name));
                if (image.image == VK_NULL_HANDLE) return InputImage{};
                return texture_input(image, images_->get(image, name, Access::kRead));
            };
            CudaBackend::ImportedImages frame;
            frame.color = input(d.color, d.color_buffer, "color", "color_buffer");
            frame.depth = input(d.depth, d.depth_buffer, "depth", "depth_buffer");
            frame.motion = input(d.motion_vectors, d.motion_vectors_buffer, "motion_vectors", "motion_vectors_buffer");
            if (exposure_image) frame.exposure = images_->get(d.exposure, "exposure", Access::kRead).texture;
            frame.reactive_mask = input(d.reactive_mask, d.reactive_mask_buffer, "reactive_mask", "reactive_mask_buffer");
            frame.transparency_mask =
                input(d.transparency_mask, d.transparency_mask_buffer, "transparency_mask", "transparency_mask_buffer");
            const swinup_vulkan_buffer& out = d.output_buffer;
            if (out.buffer != VK_NULL_HANDLE) {
                frame.output_data = static_cast<uint8_t*>(buffers_->get(out, "output_buffer").data) + out.offset;
                swinup_resource rows{};
                rows.format = out.format;
                rows.width = out.width;
                rows.row_pitch = out.row_pitch;
                frame.output_pitch = resource_row_pitch(rows);
            } else {
                frame.output = images_->get(d.output, "output", Access::kWrite).surface;
            }
            frame.output_format = ctx_output_format_;
            const cudaExternalSemaphore_t wait =
                d.wait_semaphore != VK_NULL_HANDLE ? semaphores_->get(d.wait_semaphore, "wait_semaphore") : nullptr;
            const cudaExternalSemaphore_t signal =
                d.signal_semaphore != VK_NULL_HANDLE ? semaphores_->get(d.signal_semaphore, "signal_semaphore")
                                                     : nullptr;

            const CudaBackend::ExternalOrder order{wait, d.wait_value, signal, d.signal_value};
            backend_->run_imported_frame(d.frame, frame, order, frame_index, stream);
            SWINUP_CUDA_CHECK(cudaEventRecord(done_.handle, stream));
        } catch (const InteropError& e) {
            *error = e.what();
            return e.status;
        } catch (const CudaError& e) {
            *error = std::string("swinup_vulkan_record_dispatch: ") + e.what();
            return SWINUP_STATUS_DEVICE_ERROR;
        } catch (const std::bad_alloc&) {
            *error = "swinup_vulkan_record_dispatch: out of host memory";
            return SWINUP_STATUS_OUT_OF_MEMORY;
        }
        return SWINUP_STATUS_OK;
    }

    swinup_status release_image(VkImage image, std::string* error) override {
        return guarded([&] { images_->release(image); }, error);
    }
    swinup_status release_buffer(VkBuffer buffer, std::string* error) override {
        return guarded([&] { buffers_->release(buffer); }, error);
    }
    swinup_status release_semaphore(VkSemaphore semaphore, std::string* error) override {
        return guarded([&] { semaphores_->release(semaphore); }, error);
    }

    swinup_vulkan_device_desc device() const override { return app_; }

private:
    template <typename Fn>
    swinup_status guarded(const Fn& fn, std::string* error) {
        try {
            SWINUP_CUDA_CHECK(cudaSetDevice(backend_->device_ordinal()));
            fn();
        } catch (const CudaError& e) {
            *error = e.what();
            return SWINUP_STATUS_DEVICE_ERROR;
        }
        return SWINUP_STATUS_OK;
    }

    swinup_vulkan_device_desc app_;
    std::unique_ptr<CudaBackend> backend_;
    OwnedStream stream_;
    OwnedEvent done_;  // recorded after each frame's last enqueued work
    std::unique_ptr<ImportedImages> images_;
    std::unique_ptr<ImportedBuffers> buffers_;
    std::unique_ptr<ImportedSemaphores> semaphores_;
    swinup_format ctx_output_format_;  // the context's output format (an image's or a buffer's)
};

}  // namespace

std::unique_ptr<CudaInteropBackend> make_cuda_interop_backend(const swinup_context_desc& desc,
                                                              std::shared_ptr<const Weights> weights,
                                                              const swinup_vulkan_device_desc& device,
                                                              swinup_status* status, std::string* message) {
    try {
        return std::make_unique<VulkanInteropBackend>(desc, std::move(weights), device);
    } catch (const InteropError& e) {
        *status = e.status;
        *message = std::string("swinup_vulkan_context_create: ") + e.what();
    } catch (const std::exception& e) {
        cudaGetLastError();
        *status = SWINUP_STATUS_DEVICE_ERROR;
        *message = std::string("swinup_vulkan_context_create: the CUDA backend could not be created: ") + e.what();
    }
    return nullptr;
}

}  // namespace swinup::vulkan_api
