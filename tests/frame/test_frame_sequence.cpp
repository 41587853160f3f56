// The frame-to-frame bookkeeping both backends share (frame/frame_sequence.h): what begin() decides
// and what commit() records.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "frame/frame_sequence.h"
#include "model/model_spec.h"
#include "pipeline_fixture.h"

namespace {

swinup_context_desc context(uint32_t flags = 0) {
    swinup_context_desc c = swinup::test::small_context_desc(67, 34, 100, 50);
    c.flags = flags;
    return c;
}

// A 67 x 34 frame with this jitter.
swinup_dispatch_desc frame(float jitter_x = 0.25f, float jitter_y = -0.125f) {
    swinup_dispatch_desc d;
    swinup_dispatch_desc_init(&d);
    d.render_width = 67, d.render_height = 34;
    d.jitter_x = jitter_x, d.jitter_y = jitter_y;
    return d;
}

// Whether the set-up reads the history, and its slots.
void expect_slots(const swinup::FrameSetup& s, bool history_valid, int current, int next) {
    EXPECT_EQ(s.history_valid, history_valid);
    EXPECT_EQ(s.current, current);
    EXPECT_EQ(s.next, next);
}

TEST(FrameSequence, FirstFrameReadsNoHistoryAndWritesTheOtherSlot) {
    const swinup::FrameSequence frames;
    const swinup::FrameSetup s = frames.begin(context(), frame());
    expect_slots(s, false, 0, 1);
    EXPECT_EQ(s.previous_width, 0);
    EXPECT_EQ(s.geometry.width, 67);
    EXPECT_EQ(s.geometry.height, 34);
    EXPECT_EQ(s.geometry.display_width, 100);
    EXPECT_EQ(s.geometry.display_height, 50);
    EXPECT_EQ(s.geometry.scale_x, 100.0f / 67.0f);
    EXPECT_EQ(s.geometry.scale_y, 50.0f / 34.0f);
    EXPECT_EQ(s.geometry.jitter_x, 0.25f);
    EXPECT_EQ(s.padded_width, swinup::pad_to_grid(67));
    EXPECT_EQ(s.padded_height, swinup::pad_to_grid(34));
    EXPECT_TRUE(s.ldr);
    EXPECT_FALSE(s.depth_inverted);
    EXPECT_FALSE(s.mv_display_res);
}

TEST(FrameSequence, OnlyCommitAdvancesTheState) {
    swinup::FrameSequence frames;
    const swinup::FrameSetup first = frames.begin(context(), frame());
    // A frame that fails is never committed: the next one is planned exactly like it.
    expect_slots(frames.begin(context(), frame()), false, first.current, first.next);
    EXPECT_FALSE(frames.valid());

    frames.commit(first);
    EXPECT_TRUE(frames.valid());
    EXPECT_EQ(frames.current(), 1);
    swinup_dispatch_desc smaller = frame();
    smaller.render_width = 40;
    const swinup::FrameSetup second = frames.begin(context(), smaller);
    expect_slots(second, true, 1, 0);
    EXPECT_EQ(second.previous_width, 67);  // the committed frame's render size
    EXPECT_EQ(second.previous_height, 34);
    EXPECT_EQ(second.geometry.width, 40);
    frames.commit(second);
    EXPECT_EQ(frames.current(), 0);
    EXPECT_EQ(frames.begin(context(), frame()).previous_width, 40);
}

TEST(FrameSequence, ResetReadsNoHistoryButKeepsTheSlots) {
    swinup::FrameSequence frames;
    frames.commit(frames.begin(context(), frame()));
    swinup_dispatch_desc d = frame();
    d.reset = 1;
    expect_slots(frames.begin(context(), d), false, 1, 0);
}

TEST(FrameSequence, JitteredVectorsGetThePreviousMinusThisJitter) {
    swinup::FrameSequence frames;
    const swinup_context_desc c = context(SWINUP_FLAG_MV_JITTERED);
    const swinup::FrameSetup first = frames.begin(c, frame(0.25f, -0.125f));
    EXPECT_EQ(first.motion_offset_x, 0.0f);  // no history: nothing to cancel
    EXPECT_EQ(first.motion_offset_y, 0.0f);
    frames.commit(first);
    const swinup::FrameSetup second = frames.begin(c, frame(-0.375f, 0.25f));
    EXPECT_EQ(second.motion_offset_x, 0.625f);
    EXPECT_EQ(second.motion_offset_y, -0.375f);
    // Without the flag the vectors are used as given.
    swinup::FrameSequence plain;
    plain.commit(plain.begin(context(), frame(0.25f, -0.125f)));
    EXPECT_EQ(plain.begin(context(), frame(-0.375f, 0.25f)).motion_offset_x, 0.0f);
}

TEST(FrameSequence, FlagsAreRead) {
    const swinup::FrameSetup s = swinup::FrameSequence().begin(
        context(SWINUP_FLAG_HDR | SWINUP_FLAG_DEPTH_INVERTED | SWINUP_FLAG_MV_DISPLAY_RES), frame());
    EXPECT_FALSE(s.ldr);
    EXPECT_TRUE(s.depth_inverted);
    EXPECT_TRUE(s.mv_display_res);
}

TEST(FrameSequence, ExposureChoice) {
    const swinup::FrameSequence frames;
    swinup_dispatch_desc d = frame();
    d.exposure_value = 0.0f;
    d.pre_exposure = 0.0f;
    swinup::ExposureChoice e = frames.begin(context(), d).exposure;
    EXPECT_FALSE(e.automatic);
    EXPECT_EQ(e.value, 1.0f);  // 0 means 1
    EXPECT_EQ(e.pre_exposure, 1.0f);

    d.exposure_value = 2.5f;
    d.pre_exposure = 4.0f;
    e = frames.begin(context(), d).exposure;
    EXPECT_EQ(e.value, 2.5f);
    EXPECT_EQ(e.pre_exposure, 4.0f);

    // A host texture is read at set-up, its bad values as 1; a device one is left to the GPU.
    float texel = 0.75f;
    d.exposure.data = &texel;
    d.exposure.memory = SWINUP_MEMORY_HOST;
    d.exposure.format = SWINUP_FORMAT_R32F;
    d.exposure.width = d.exposure.height = 1;
    EXPECT_EQ(frames.begin(context(), d).exposure.value, 0.75f);
    for (float bad : {0.0f, -2.0f, std::numeric_limits<float>::infinity(), std::nanf("")}) {
        texel = bad;
        e = frames.begin(context(), d).exposure;
        EXPECT_EQ(e.value, 1.0f) << bad;
        EXPECT_EQ(e.device_texture, nullptr);
    }
    d.exposure.memory = SWINUP_MEMORY_CUDA;
    e = frames.begin(context(), d).exposure;
    EXPECT_EQ(e.device_texture, &texel);

    // Auto exposure wins over the texture and the value.
    e = frames.begin(context(SWINUP_FLAG_AUTO_EXPOSURE), d).exposure;
    EXPECT_TRUE(e.automatic);
    EXPECT_EQ(e.device_texture, nullptr);
    EXPECT_EQ(e.pre_exposure, 4.0f);
}

}  // namespace
