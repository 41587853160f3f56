// An owning device allocation (cudaMalloc once at context creation; never per frame), and the
// tally that counts them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "cuda/backend/cuda_check.cuh"

namespace swinup::cuda {

// Counts the bytes of every DeviceBuffer made on this thread while it lives. In count_only mode
// nothing is allocated (and upload() does nothing): cuda_memory_estimate runs the backend's own
// constructors this way, so that the figure of swinup_query_memory comes from the code that sizes
// the allocations. In allocate mode the buffers are made as usual and counted (what a context
// holds). Tallies nest; the innermost counts.
class DeviceTally {
public:
    enum class Mode { allocate, count_only };
    explicit DeviceTally(Mode mode) : mode_(mode), outer_(current_) { current_ = this; }
    ~DeviceTally() { current_ = outer_; }
    DeviceTally(const DeviceTally&) = delete;
    DeviceTally& operator=(const DeviceTally&) = delete;

    size_t bytes() const { return bytes_; }
    static DeviceTally* current() { return current_; }
    // Counts `bytes`; false when they are not to be allocated.
    bool count(size_t bytes) {
        bytes_ += bytes;
        return mode_ == Mode::allocate;
    }

private:
    inline static thread_local DeviceTally* current_ = nullptr;
    Mode mode_;
    DeviceTally* outer_;
    size_t bytes_ = 0;
};

class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
        DeviceTally* tally = DeviceTally::current();
        if (tally != nullptr && !tally->count(bytes)) return;  // counted only
        if (bytes) SWINUP_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
    }
    ~DeviceBuffer() {
        if (ptr_) cudaFree(ptr_);
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            if (ptr_) cudaFree(ptr_);
            ptr_ = std::exchange(o.ptr_, nullptr);
            bytes_ = std::exchange(o.bytes_, 0);
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    template <class T = void>
    T* get() const { return static_cast<T*>(ptr_); }
    size_t bytes() const { return bytes_; }

    // Copies host bytes in (synchronously: creation time only). Nothing for a buffer that was
    // only counted (DeviceTally::Mode::count_only).
    void upload(const void* host, size_t bytes) {
        if (ptr_ == nullptr) return;
        SWINUP_CUDA_CHECK(cudaMemcpy(ptr_, host, bytes, cudaMemcpyHostToDevice));
    }

private:
    void* ptr_ = nullptr;
    size_t bytes_ = 0;
};

}  // namespace swinup::cuda
