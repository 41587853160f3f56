// Shared by the GPU tests: skip (GTEST_SKIP, reported as skipped, never as passed) with a message
// when this build has no CUDA backend or no usable GPU is present.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "api/backend.h"

namespace swinup::gpu_test {

inline bool gpu_ready(std::string* why) {
#ifndef SWINUP_HAVE_CUDA
    *why = "this build has no CUDA backend (configure with -DSWINUP_CUDA=ON)";
    return false;
#else
    if (!swinup::cuda_backend_available()) {
        *why = "no CUDA GPU of compute capability 8.9 or newer was found";
        return false;
    }
    return true;
#endif
}

// Relative RMS difference ||a - b|| / ||b|| (b the reference; 0 / 0 counts as 0).
template <class A, class B>
double relative_rms(const A& a, const B& b) {
    double num = 0, den = 0;
    for (size_t i = 0; i < b.size(); ++i) {
        const double d = double(a[i]) - double(b[i]);
        num += d * d;
        den += double(b[i]) * double(b[i]);
    }
    return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

}  // namespace swinup::gpu_test

#define SWINUP_REQUIRE_GPU()                                          \
    do {                                                              \
        std::string swinup_gpu_why;                                   \
        if (!::swinup::gpu_test::gpu_ready(&swinup_gpu_why))          \
            GTEST_SKIP() << "GPU test skipped: " << swinup_gpu_why;  \
    } while (0)
