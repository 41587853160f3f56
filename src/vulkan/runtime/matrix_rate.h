// The device's cooperative-matrix f16 multiply-add rate, measured (shaders/probe/matrix_rate.comp):
// the ceiling `swinup bench --backend vulkan` reports the network's layers against.
#pragma once

namespace swinup::vulkan {

class Device;

struct MatrixRate {
    double tflops = 0;  // f16 x f16 + f32, 2 M N K per multiply-add; 0 when the device has no matrix path
    double ms = 0;      // the median dispatch's GPU time
};

// Medians of `runs` timed dispatches after one warm-up, on swinup's own device (it submits).
MatrixRate measure_matrix_rate(Device& device, int runs = 7);

}  // namespace swinup::vulkan
