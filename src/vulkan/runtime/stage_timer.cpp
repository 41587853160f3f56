#include "vulkan/runtime/stage_timer.h"

#include "vulkan/runtime/device.h"
#include "vulkan/runtime/recorder.h"
#include "vulkan/runtime/vulkan_error.h"

namespace swinup::vulkan {

StageTimer::StageTimer(Device& device, uint32_t max_marks) : device_(device), capacity_(max_marks) {
    uint32_t count = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device.physical_device(), &count, nullptr);
    std::vector<VkQueueFamilyProperties> families(count);
    vkGetPhysicalDeviceQueueFamilyProperties(device.physical_device(), &count, families.data());
    const uint32_t bits = device.queue_family() < count ? families[device.queue_family()].timestampValidBits : 0;
    if (bits == 0 || device.properties().limits.timestampPeriod <= 0.0f) {
        throw VulkanError(SWINUP_STATUS_UNSUPPORTED,
                          "Vulkan device \"" + device.name() + "\" writes no timestamps on its compute queue");
    }
    valid_mask_ = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    period_ns_ = static_cast<double>(device.properties().limits.timestampPeriod);
    VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    info.queryCount = capacity_;
    check(vkCreateQueryPool(device.handle(), &info, device.allocator(), &pool_), "vkCreateQueryPool");
}

StageTimer::~StageTimer() { vkDestroyQueryPool(device_.handle(), pool_, device_.allocator()); }

void StageTimer::begin(Recorder& rec) {
    labels_.clear();
    vkCmdResetQueryPool(rec.command_buffer(), pool_, 0, capacity_);
    mark(rec, "start");
}

void StageTimer::mark(Recorder& rec, const char* stage) {
    if (labels_.size() >= capacity_) return;  // more marks than queries: the rest are not timed
    vkCmdWriteTimestamp(rec.command_buffer(), VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_,
                        static_cast<uint32_t>(labels_.size()));
    labels_.emplace_back(stage);
}

std::vector<std::pair<std::string, double>> StageTimer::stages() const {
    std::vector<std::pair<std::string, double>> out;
    if (labels_.size() < 2) return out;
    std::vector<uint64_t> ticks(labels_.size());
    check(vkGetQueryPoolResults(device_.handle(), pool_, 0, static_cast<uint32_t>(ticks.size()),
                                ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
          "vkGetQueryPoolResults");
    for (size_t i = 1; i < ticks.size(); ++i) {
        const uint64_t delta = (ticks[i] - ticks[i - 1]) & valid_mask_;
        out.emplace_back(labels_[i], static_cast<double>(delta) * period_ns_ * 1e-6);
    }
    return out;
}

}  // namespace swinup::vulkan
