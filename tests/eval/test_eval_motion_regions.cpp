// The disocclusion and moving-object columns of `swinup eval`: PSNR over the regions of the
// sequence's motion masks, in the table, the JSON and the report, and absent without them.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "eval/evaluation.h"
#include "eval/psnr.h"
#include "eval/report.h"
#include "render/render_sequence.h"
#include "render_test_settings.h"
#include "sequence_fixture.h"

using swinup::Frame;
using swinup::Image;
using swinup::SequenceInfo;
namespace ev = swinup::eval;

namespace {

constexpr int kRender = 16, kDisplay = 32, kFrames = 4;

// A still sequence (16x16 -> 32x32) whose truth is a smooth ramp and whose render samples are
// that ramp, except in render rows 0-3 (display rows 0-7), where the samples are black: every
// method errs there. Its motion masks (when `with_motion_masks`) mark display rows 0-7 as
// disoccluded and display columns 0-7 as a moving object.
ev::SequenceSource sequence(bool with_motion_masks) {
    SequenceInfo info = swinup::test::sequence_info(kRender, kRender, kDisplay, kDisplay, kFrames);
    info.has_ground_truth = true;
    info.has_motion_masks = with_motion_masks;
    std::vector<Frame> frames;
    auto truth = [](float x, float y, int c) { return 0.2f + 0.02f * x + 0.01f * y + 0.1f * float(c); };
    for (int i = 0; i < kFrames; ++i) {
        Frame f = swinup::test::blank_frame(kRender, kRender);
        for (int y = 0; y < kRender; ++y)
            for (int x = 0; x < kRender; ++x)
                for (int c = 0; c < 3; ++c) f.color.at(x, y, c) = y < 4 ? 0.0f : truth(2.0f * float(x) + 1.0f, 2.0f * float(y) + 1.0f, c);
        f.gt = Image(kDisplay, kDisplay, 4, 1.0f);
        for (int y = 0; y < kDisplay; ++y)
            for (int x = 0; x < kDisplay; ++x)
                for (int c = 0; c < 3; ++c) f.gt.at(x, y, c) = truth(float(x) + 0.5f, float(y) + 0.5f, c);
        if (with_motion_masks) {
            f.motion_masks = Image(kDisplay, kDisplay, 2);
            for (int y = 0; y < kDisplay; ++y)
                for (int x = 0; x < kDisplay; ++x) {
                    f.motion_masks.at(x, y, 0) = y < 8 ? 1.0f : 0.0f;
                    f.motion_masks.at(x, y, 1) = x < 8 ? 1.0f : 0.0f;
                }
        }
        frames.push_back(std::move(f));
    }
    return ev::sequence_source_from_frames(info, std::move(frames), "motion regions test");
}

// PSNR over the display pixels where `inside(x, y)`, from the kept pictures of the last frame.
template <class Inside>
double region_psnr(const Image& output, const Image& truth, Inside inside) {
    std::vector<uint8_t> region(size_t(kDisplay) * kDisplay);
    for (int y = 0; y < kDisplay; ++y)
        for (int x = 0; x < kDisplay; ++x) region[size_t(y) * kDisplay + x] = inside(x, y) ? 1 : 0;
    return ev::region_squared_error(output, truth, region, 1).psnr_db();
}

}  // namespace

// Scoring the last frame alone, each column is the PSNR of exactly its region of that frame.
TEST(EvalMotionRegions, ColumnsArePsnrOverTheMaskedPixels) {
    ev::EvaluationOptions options;
    options.methods = {"bilinear", "taau"};
    options.skip_frames = kFrames - 1;
    options.flip = false;
    const ev::EvaluationResult r = ev::evaluate_sequence(sequence(true), options);
    EXPECT_TRUE(r.has_motion_masks);
    EXPECT_DOUBLE_EQ(r.disoccluded_fraction, 0.25);
    EXPECT_DOUBLE_EQ(r.moving_object_fraction, 0.25);
    for (size_t m = 0; m < r.methods.size(); ++m) {
        const ev::MethodScores& s = r.methods[m];
        const Image& out = r.picture_outputs[m];
        EXPECT_DOUBLE_EQ(s.disocclusion_psnr_db, region_psnr(out, r.picture_truth, [](int, int y) { return y < 8; }))
            << s.name;
        EXPECT_DOUBLE_EQ(s.moving_object_psnr_db, region_psnr(out, r.picture_truth, [](int x, int) { return x < 8; }))
            << s.name;
        // The black rows are where the errors are: the disocclusion column is far below the rest.
        EXPECT_LT(s.disocclusion_psnr_db + 10.0, region_psnr(out, r.picture_truth, [](int, int y) { return y >= 10; }))
            << s.name;
    }
}

TEST(EvalMotionRegions, ColumnsAppearInTableJsonAndReport) {
    ev::EvaluationOptions options;
    options.methods = {"bicubic", "taau"};
    options.flip = false;
    const ev::EvaluationResult r = ev::evaluate_sequence(sequence(true), options);
    const std::string table = ev::format_results_table(r);
    EXPECT_NE(table.find("disocc PSNR"), std::string::npos) << table;
    EXPECT_NE(table.find("moving PSNR"), std::string::npos) << table;
    EXPECT_NE(table.find("disoccluded pixels 25.00%"), std::string::npos) << table;
    const auto j = nlohmann::json::parse(ev::results_json(r));
    EXPECT_TRUE(j["has_motion_masks"].get<bool>());
    EXPECT_DOUBLE_EQ(j["disoccluded_pixel_fraction"].get<double>(), 0.25);
    for (size_t m = 0; m < r.methods.size(); ++m) {
        EXPECT_NEAR(j["methods"][m]["disocclusion_psnr_db"].get<double>(), r.methods[m].disocclusion_psnr_db, 1e-9);
        EXPECT_NEAR(j["methods"][m]["moving_object_psnr_db"].get<double>(), r.methods[m].moving_object_psnr_db, 1e-9);
    }
    const std::string md = ev::report_markdown(r, {"T", "", {}, {}, {}});
    EXPECT_NE(md.find("disocclusion PSNR (dB) | moving-object PSNR (dB) |"), std::string::npos) << md;
    EXPECT_NE(md.find("| taau | "), std::string::npos) << md;
}

// A sequence without motion masks (every sequence written before them) has no such columns and
// null scores.
TEST(EvalMotionRegions, WithoutMotionMasksNoColumns) {
    ev::EvaluationOptions options;
    options.methods = {"bilinear"};
    options.flip = false;
    const ev::EvaluationResult r = ev::evaluate_sequence(sequence(false), options);
    EXPECT_FALSE(r.has_motion_masks);
    EXPECT_TRUE(std::isnan(r.methods[0].disocclusion_psnr_db));
    EXPECT_TRUE(std::isnan(r.methods[0].moving_object_psnr_db));
    EXPECT_EQ(ev::format_results_table(r).find("disocc PSNR"), std::string::npos);
    EXPECT_EQ(ev::report_markdown(r, {"T", "", {}, {}, {}}).find("disocclusion PSNR"), std::string::npos);
    const auto j = nlohmann::json::parse(ev::results_json(r));
    EXPECT_TRUE(j["methods"][0]["disocclusion_psnr_db"].is_null());
}

// What the renderer writes: a rendered spinner (a still camera, moving objects) has motion masks
// with both regions non-empty, and the evaluation scores them for every method.
TEST(EvalMotionRegions, RenderedSpinnerHasBothRegions) {
    swinup::render::RenderSettings settings = swinup::test::render_settings("spinner", 3, 64, 36, 128, 72);
    const swinup::render::RenderedSequence seq = swinup::render::render_sequence(settings);
    ASSERT_TRUE(seq.info.has_motion_masks);
    ev::EvaluationOptions options;
    options.methods = {"bicubic", "taau"};
    options.flip = false;
    const ev::EvaluationResult r =
        ev::evaluate_sequence(ev::sequence_source_from_frames(seq.info, seq.frames, "spinner"), options);
    EXPECT_GT(r.disoccluded_fraction, 0.0);
    EXPECT_GT(r.moving_object_fraction, 0.01);
    for (const ev::MethodScores& m : r.methods) {
        EXPECT_TRUE(std::isfinite(m.disocclusion_psnr_db)) << m.name;
        EXPECT_TRUE(std::isfinite(m.moving_object_psnr_db)) << m.name;
    }
}
