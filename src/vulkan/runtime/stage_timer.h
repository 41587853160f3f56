// GPU time per stage of a recording, from timestamp queries: mark() after each stage records when
// the device finished everything recorded before it; stages() gives the time between consecutive
// marks. For `swinup bench --backend vulkan`; the frames of the Vulkan-facing API record none.
#pragma once

#include <vulkan/vulkan.h>

#include <string>
#include <utility>
#include <vector>

namespace swinup::vulkan {

class Device;
class Recorder;

class StageTimer {
public:
    // Throws VulkanError(UNSUPPORTED) when the device's queue family writes no timestamps.
    StageTimer(Device& device, uint32_t max_marks = 64);
    ~StageTimer();
    StageTimer(const StageTimer&) = delete;
    StageTimer& operator=(const StageTimer&) = delete;

    // Starts a recording's marks (resets the queries; records the first mark, "start").
    void begin(Recorder& rec);
    // The time the device finishes everything recorded before this point.
    void mark(Recorder& rec, const char* stage);
    // After the recording completed: (stage, milliseconds since the previous mark), in order.
    std::vector<std::pair<std::string, double>> stages() const;

private:
    Device& device_;
    VkQueryPool pool_ = VK_NULL_HANDLE;
    uint32_t capacity_;
    double period_ns_;
    uint64_t valid_mask_;
    std::vector<std::string> labels_;
};

}  // namespace swinup::vulkan
