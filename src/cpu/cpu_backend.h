// The CPU backend: staging, the network (cpu::Network), the output pass, and the temporal state,
// multithreaded with oneTBB in an arena the context holds while it lives (cpu/arena_pool.h). Every buffer is allocated at creation for
// the largest sizes, so a dispatch allocates nothing (beyond what the network itself does).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "api/backend.h"
#include "cpu/arena_pool.h"
#include "cpu/frame_state.h"

namespace swinup::cpu {

class Network;

class CpuBackend final : public Backend {
public:
    // The network of one frame: staged slots (padded w x h x 16) in, raw head outputs out.
    using NetworkFn = std::function<void(const float* staged, int padded_width, int padded_height,
                                         uint64_t frame_index, float* head)>;

    // Throws std::bad_alloc when the buffers do not fit in memory. `network` replaces the real
    // network (tests of the pipeline around it); empty means cpu::Network on `weights`.
    CpuBackend(const swinup_context_desc& desc, std::shared_ptr<const Weights> weights,
               NetworkFn network = {});
    ~CpuBackend() override;

    swinup_backend kind() const override { return SWINUP_BACKEND_CPU; }
    std::string device_name() const override;
    swinup_status dispatch(const swinup_dispatch_desc& desc, uint64_t frame_index,
                           std::string* error) override;
    BackendMemory memory() const override;
    swinup_status input_statistics(InputStatistics* out, std::string* error) const override;
    swinup_status generate_reactive_mask(const swinup_reactive_mask_desc& desc, std::string* error) override;

    // What the last successful frame's staging replaced, and the exposure it used.
    const FrameStats& last_frame_stats() const { return stats_; }
    // The state a frame reads (for tests): history of the last output, display w * h * 4 f16.
    const TemporalState& temporal_state() const { return state_; }
    // The last frame's staged slots (padded grid) and planes (for tests).
    const FramePlanes& frame_planes() const { return planes_; }

private:
    void run_frame(const swinup_dispatch_desc& desc, uint64_t frame_index);

    swinup_context_desc desc_;
    std::shared_ptr<const Weights> weights_;
    std::unique_ptr<Network> network_;
    NetworkFn network_fn_;
    PooledArena arena_;
    TemporalState state_;
    FramePlanes planes_;
    FrameStats stats_;
    InputStatistics input_statistics_;  // summed over the committed frames since creation
};

}  // namespace swinup::cpu
