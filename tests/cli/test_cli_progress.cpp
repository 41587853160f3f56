// The time left on the CLI's progress line (tools/swinup/progress.cpp): its wording at each scale.
#include <gtest/gtest.h>

#include "progress.h"

using swinup::cli::time_left_text;

TEST(CliProgress, TimeLeftUnderAMinuteInTenthsOfSeconds) {
    EXPECT_EQ(time_left_text(3.14), "3.1 s left");
    EXPECT_EQ(time_left_text(0.0), "0.0 s left");
    EXPECT_EQ(time_left_text(-2.0), "0.0 s left");  // clock jitter never shows a negative time
    EXPECT_EQ(time_left_text(59.94), "59.9 s left");
}

TEST(CliProgress, TimeLeftInMinutesAndHours) {
    EXPECT_EQ(time_left_text(60.0), "1 min 00 s left");
    EXPECT_EQ(time_left_text(125.7), "2 min 05 s left");
    EXPECT_EQ(time_left_text(3599.0), "59 min 59 s left");
    EXPECT_EQ(time_left_text(3600.0), "1 h 00 min left");
    EXPECT_EQ(time_left_text(3720.0 + 59.0), "1 h 02 min left");
}
