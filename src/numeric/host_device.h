// Marks functions that one definition serves on the CPU and in CUDA kernels (style.md: the same
// function is never written twice for CPU and GPU).
#pragma once

#if defined(__CUDACC__)
#define SWINUP_HD __host__ __device__ __forceinline__
#else
#define SWINUP_HD inline
#endif
