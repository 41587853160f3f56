// The once-per-context warning about device-memory mask values outside [0, 1]
// (api/dispatch_warnings.h DispatchWarnings::after_counts), which the CUDA and Vulkan backends'
// counts feed after every dispatch: nothing while the counts are 0, then one warning per mask,
// naming it and the pixels counted so far, never again for that mask.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/dispatch_warnings.h"
#include "api/log.h"

namespace swinup {
namespace {

struct Collected {
    std::vector<std::string> warnings;
    Log log() {
        return Log(
            [](swinup_log_level level, const char* message, void* user) {
                if (level == SWINUP_LOG_WARNING) static_cast<Collected*>(user)->warnings.push_back(message);
            },
            this);
    }
};

TEST(MaskRangeWarning, EachMaskIsNamedOnceWhenItsFirstOutOfRangePixelsAreCounted) {
    Collected c;
    const Log log = c.log();
    DispatchWarnings w;
    InputStatistics counts;
    counts.frames = 3;
    counts.reactive_nonfinite = 7;  // NaN/Inf are counted, not warned about
    w.after_counts(counts, log);
    EXPECT_TRUE(c.warnings.empty());

    counts.transparency_out_of_range = 12;
    w.after_counts(counts, log);
    ASSERT_EQ(c.warnings.size(), 1u);
    EXPECT_EQ(c.warnings[0].rfind("dispatch.transparency_mask: the device-memory mask held values outside [0, 1], clamped (pixels so far: 12;", 0),
              0u)
        << c.warnings[0];

    counts.transparency_out_of_range = 40;  // said once
    w.after_counts(counts, log);
    EXPECT_EQ(c.warnings.size(), 1u);

    counts.reactive_out_of_range = 1;  // the other mask: its own warning
    w.after_counts(counts, log);
    ASSERT_EQ(c.warnings.size(), 2u);
    EXPECT_EQ(c.warnings[1].rfind("dispatch.reactive_mask: the device-memory mask held values outside [0, 1], clamped (pixels so far: 1;", 0), 0u) << c.warnings[1];
    w.after_counts(counts, log);
    EXPECT_EQ(c.warnings.size(), 2u);
}

}  // namespace
}  // namespace swinup
