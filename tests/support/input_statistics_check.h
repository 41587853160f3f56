// Every count of two input statistics compared, each field named in a failure: the C API's
// swinup_input_statistics or a backend's InputStatistics (src/api/backend.h), which have the same
// fields, against a backend's counts or the counts a test expects.
#pragma once

#include <gtest/gtest.h>

namespace swinup::test {

template <class Got, class Want>
void expect_same_counts(const Got& got, const Want& want) {
    SCOPED_TRACE(testing::Message() << "the input statistics of " << want.frames << " frames");
    EXPECT_EQ(got.frames, want.frames);
    EXPECT_EQ(got.color_nonfinite, want.color_nonfinite);
    EXPECT_EQ(got.depth_nonfinite, want.depth_nonfinite);
    EXPECT_EQ(got.motion_nonfinite, want.motion_nonfinite);
    EXPECT_EQ(got.reactive_nonfinite, want.reactive_nonfinite);
    EXPECT_EQ(got.transparency_nonfinite, want.transparency_nonfinite);
    EXPECT_EQ(got.reactive_out_of_range, want.reactive_out_of_range);
    EXPECT_EQ(got.transparency_out_of_range, want.transparency_out_of_range);
}

}  // namespace swinup::test
