// Bit casts between float and uint32 that work in host and device code.
#pragma once

#include <cstdint>
#include <cstring>

#include "numeric/host_device.h"

namespace swinup {

SWINUP_HD uint32_t float_to_bits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
#endif
}

SWINUP_HD float bits_to_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
#endif
}

}  // namespace swinup
