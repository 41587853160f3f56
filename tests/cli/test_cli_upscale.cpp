// The swinup CLI end to end: `swinup upscale` on a tiny sequence written here, its outputs and
// metadata, the agreement of its output formats, and its failures (one "swinup: error:" line, a
// non-zero exit, no half-written frame). Runs the built binary (SWINUP_CLI, set by CMake).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sequence/sequence.h"
#include "test_dir.h"
#include "text_file.h"
#include "sequence_fixture.h"

namespace fs = std::filesystem;
using namespace swinup;

namespace {

constexpr int kRenderW = 16, kRenderH = 8, kDisplayW = 32, kDisplayH = 16, kFrames = 2;

using swinup::test::read_text;

struct CliRun {
    int exit_code;
    std::string out, err;
};

class CliUpscale : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = swinup::test::fresh_test_dir("cli");
        fs::create_directories(root_);
        write_sequence(root_ / "seq");
    }
    void TearDown() override { fs::remove_all(root_); }

    // A smooth LDR scene panning right by half a pixel per frame.
    static void write_sequence(const fs::path& dir) {
        SequenceInfo info = swinup::test::sequence_info(kRenderW, kRenderH, kDisplayW, kDisplayH, kFrames);
        info.jitter_x = {0.25f, -0.25f};
        info.jitter_y = {-0.125f, 0.125f};
        info.exposure = {1.0f, 1.0f};
        info.reset = {1, 0};
        info.scene = "test_cli_upscale";
        sequence_write_info(dir.string(), info);
        for (int i = 0; i < kFrames; ++i) {
            Frame f = swinup::test::blank_frame(kRenderW, kRenderH);
            for (int y = 0; y < kRenderH; ++y) {
                for (int x = 0; x < kRenderW; ++x) {
                    const float u = (float(x) + 0.5f * float(i)) / kRenderW;
                    f.color.at(x, y, 0) = 0.5f + 0.4f * std::sin(6.0f * u);
                    f.color.at(x, y, 1) = 0.3f + 0.2f * float(y) / kRenderH;
                    f.color.at(x, y, 2) = 0.8f * u;
                    f.mv.at(x, y, 0) = i == 0 ? 0.0f : -0.5f;
                }
            }
            sequence_write_frame(dir.string(), info, i, f);
        }
    }

    CliRun swinup(const std::string& args) const {
        const fs::path out = root_ / "stdout.txt", err = root_ / "stderr.txt";
        const std::string command = std::string(SWINUP_CLI) + " " + args + " > " + out.string() +
                                    " 2> " + err.string();
        const int status = std::system(command.c_str());
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out), read_text(err)};
    }
    std::string seq() const { return (root_ / "seq").string(); }

    fs::path root_;
};

TEST_F(CliUpscale, WritesDisplaySizeFramesAndMetadata) {
    const CliRun run = swinup("upscale " + seq() + " -o " + (root_ / "out").string() + " --backend cpu");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    for (int i = 0; i < kFrames; ++i) {
        const Image image = exr_read((root_ / "out" / frame_file("out", i)).string());
        EXPECT_EQ(image.width, kDisplayW);
        EXPECT_EQ(image.height, kDisplayH);
        ASSERT_EQ(image.channels, 4);
        for (float v : image.data) ASSERT_TRUE(std::isfinite(v));
    }
    const auto meta = nlohmann::json::parse(read_text(root_ / "out" / "upscale.json"));
    EXPECT_EQ(meta.at("format"), "swinup-upscale");
    EXPECT_EQ(meta.at("frame_count"), kFrames);
    EXPECT_EQ(meta.at("backend"), "cpu");
    EXPECT_EQ(meta.at("dispatch_ms").at("per_frame").size(), size_t(kFrames));
    EXPECT_EQ(meta.at("sequence").at("scene"), "test_cli_upscale");
    EXPECT_NE(run.out.find("frames     2"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("median"), std::string::npos) << run.out;
}

// The sequence's masks reach the dispatch: a reactive block changes frame 0 (the shipped lite
// network's mask_embed, trained 2026-12-05, reads it) and frame 1 (there the output pass too, where
// history gives way); --no-masks leaves them out.
TEST_F(CliUpscale, PassesTheSequencesMasksUnlessToldNotTo) {
    // The fixture's sequence, written again with a reactive block in every frame.
    const fs::path masked = root_ / "masked";
    const SequenceInfo plain_info = sequence_read_info(seq(), FilesNeeded{false, false, false});
    SequenceInfo info = plain_info;
    info.has_masks = true;
    sequence_write_info(masked.string(), info);
    for (int i = 0; i < kFrames; ++i) {
        Frame f = sequence_read_frame(seq(), plain_info, i);
        f.masks = Image(kRenderW, kRenderH, 2, 0.0f);
        for (int y = 2; y < 6; ++y)
            for (int x = 4; x < 12; ++x) f.masks.at(x, y, 0) = 1.0f;
        sequence_write_frame(masked.string(), info, i, f);
    }
    const auto upscale = [&](const std::string& sequence, const std::string& extra, const std::string& out) {
        const CliRun run = swinup("upscale " + sequence + " -o " + (root_ / out).string() + " --backend cpu" + extra);
        EXPECT_EQ(run.exit_code, 0) << run.err;
        return std::vector<Image>{exr_read((root_ / out / frame_file("out", 0)).string()),
                                  exr_read((root_ / out / frame_file("out", 1)).string())};
    };
    const std::vector<Image> with = upscale(masked.string(), "", "with");
    const std::vector<Image> without = upscale(masked.string(), " --no-masks", "without");
    const std::vector<Image> plain = upscale(seq(), "", "plain");
    EXPECT_NE(with[0].data, without[0].data) << "the reactive mask did not reach the network";
    EXPECT_NE(with[1].data, without[1].data) << "the reactive mask did not reach the dispatch";
    for (int i = 0; i < 2; ++i)
        EXPECT_EQ(without[size_t(i)].data, plain[size_t(i)].data) << "--no-masks did not leave the masks out, frame " << i;
}

// The library is silent without a log callback; the CLI gives it one that prints its warnings. A
// sequence whose jitter never changes (the engine forgot to apply it) is such a warning.
TEST_F(CliUpscale, PrintsTheLibrarysWarnings) {
    constexpr int kStill = 9;
    SequenceInfo info = swinup::test::sequence_info(kRenderW, kRenderH, kDisplayW, kDisplayH, kStill);
    info.jitter_x.assign(kStill, 0.25f);
    info.jitter_y.assign(kStill, 0.25f);
    info.exposure.assign(kStill, 1.0f);
    info.reset.assign(kStill, 0);
    info.reset[0] = 1;
    const fs::path still = root_ / "still";
    sequence_write_info(still.string(), info);
    for (int i = 0; i < kStill; ++i)
        sequence_write_frame(still.string(), info, i, swinup::test::blank_frame(kRenderW, kRenderH));
    const CliRun run = swinup("upscale " + still.string() + " -o " + (root_ / "out").string() + " --backend cpu");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.err.find("swinup: warning: dispatch.jitter_x, dispatch.jitter_y"), std::string::npos)
        << run.err;
    // The jittered sequence gives no warning.
    const CliRun jittered = swinup("upscale " + seq() + " -o " + (root_ / "out2").string() + " --backend cpu");
    ASSERT_EQ(jittered.exit_code, 0) << jittered.err;
    EXPECT_EQ(jittered.err.find("warning"), std::string::npos) << jittered.err;
}

// The UNORM formats are the same picture as RGBA16F, clamped to [0,1] and quantised: each value
// lies within half a level (plus the f16 rounding of the reference) of the RGBA16F one.
TEST_F(CliUpscale, UnormFormatsAgreeWithHalfFloat) {
    const std::string common = "upscale " + seq() + " --backend cpu -o ";
    ASSERT_EQ(swinup(common + (root_ / "f16").string()).exit_code, 0);
    for (const auto& [format, levels] : {std::pair{"rgba8", 255.0f}, std::pair{"r10g10b10a2", 1023.0f}}) {
        const CliRun run = swinup(common + (root_ / format).string() + " --format " + format);
        ASSERT_EQ(run.exit_code, 0) << run.err;
        for (int i = 0; i < kFrames; ++i) {
            const Image reference = exr_read((root_ / "f16" / frame_file("out", i)).string());
            const Image unorm = exr_read((root_ / format / frame_file("out", i)).string());
            ASSERT_EQ(reference.data.size(), unorm.data.size());
            for (size_t k = 0; k < unorm.data.size(); ++k) {
                if (k % 4 == 3) {
                    ASSERT_EQ(unorm.data[k], 1.0f) << format << " alpha";
                    continue;
                }
                const float expected = std::clamp(reference.data[k], 0.0f, 1.0f);
                // half a level, the reference's f16 rounding (2^-11 relative), and the EXR
                // file's own f16 storage of the UNORM value.
                const float bound = 0.5f / levels + 2.0f * std::ldexp(1.0f, -11);
                ASSERT_NEAR(unorm.data[k], expected, bound) << format << " value " << k;
            }
        }
    }
}

TEST_F(CliUpscale, MissingSequenceIsOneErrorLine) {
    const CliRun run = swinup("upscale " + (root_ / "nothing").string() + " -o " + (root_ / "out").string());
    EXPECT_NE(run.exit_code, 0);
    EXPECT_EQ(run.err.rfind("swinup: error: ", 0), 0u) << run.err;
    EXPECT_NE(run.err.find("nothing"), std::string::npos) << run.err;
    EXPECT_FALSE(fs::exists(root_ / "out" / "out.0000.exr"));
}

TEST_F(CliUpscale, BadFrameStopsWithoutAHalfWrittenOutput) {
    const fs::path bad = root_ / "seq" / "color.0001.exr";
    const std::string bytes = read_text(bad);
    std::ofstream(bad, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
    const CliRun run = swinup("upscale " + seq() + " -o " + (root_ / "out").string() + " --backend cpu");
    EXPECT_NE(run.exit_code, 0);
    EXPECT_EQ(run.err.find("swinup: error: "), run.err.rfind("swinup: error: ")) << run.err;
    EXPECT_NE(run.err.find("color.0001.exr"), std::string::npos) << run.err;
    EXPECT_TRUE(fs::exists(root_ / "out" / "out.0000.exr"));  // the good frame, complete
    for (const auto& entry : fs::directory_iterator(root_ / "out")) {
        const std::string name = entry.path().filename().string();
        EXPECT_EQ(name.find("out.0001"), std::string::npos) << name;
        EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
    }
    EXPECT_FALSE(fs::exists(root_ / "out" / "upscale.json"));
}

TEST_F(CliUpscale, UnknownOptionValueIsRejected) {
    const CliRun run = swinup("upscale " + seq() + " -o " + (root_ / "out").string() + " --format rgb565");
    EXPECT_NE(run.exit_code, 0);
    EXPECT_EQ(run.err.rfind("swinup: error: ", 0), 0u) << run.err;
    EXPECT_NE(run.err.find("rgb565"), std::string::npos) << run.err;
}

// "--scale nan" passes CLI::Range (every comparison with NaN is false) and was then silently
// ignored; counts out of range named a 309-digit upper bound. Both are now plain errors.
TEST_F(CliUpscale, NanScaleAndBadCountsAreRejectedReadably) {
    const std::string common = "upscale " + seq() + " --backend cpu -o " + (root_ / "out").string();
    const CliRun nan_scale = swinup(common + " --scale nan");
    EXPECT_NE(nan_scale.exit_code, 0);
    EXPECT_NE(nan_scale.err.find("--scale"), std::string::npos) << nan_scale.err;
    EXPECT_NE(nan_scale.err.find("not a number"), std::string::npos) << nan_scale.err;
    EXPECT_FALSE(fs::exists(root_ / "out" / "out.0000.exr"));
    for (const auto& [option, bound] :
         {std::pair{" --frames 0", "2147483647"}, std::pair{" --threads -1", "1024"},
          std::pair{" --threads 100000", "1024"}}) {
        const CliRun run = swinup(common + option);
        EXPECT_NE(run.exit_code, 0) << option;
        EXPECT_EQ(run.err.rfind("swinup: error: ", 0), 0u) << run.err;
        EXPECT_NE(run.err.find(bound), std::string::npos) << run.err;
        EXPECT_LT(run.err.size(), 200u) << run.err;
    }
}

// CLI11 alone reads "--seed -1" into the unsigned seed as 2^64 - 1 and renders with it.
TEST_F(CliUpscale, RenderRejectsASeedThatIsNotAnUnsignedNumber) {
    for (const char* seed : {"-1", "18446744073709551616", "1e3"}) {
        const CliRun run = swinup("render showcase -o " + (root_ / "r").string() +
                                  " --frames 1 --render 16x16 --display 32x32 --seed " + seed);
        EXPECT_NE(run.exit_code, 0) << seed;
        EXPECT_EQ(run.err.rfind("swinup: error: --seed: Value ", 0), 0u) << run.err;
        EXPECT_NE(run.err.find("not a whole number from 0 to 18446744073709551615"),
                  std::string::npos) << run.err;
        EXPECT_FALSE(fs::exists(root_ / "r")) << seed;
    }
    const CliRun largest = swinup("render showcase -o " + (root_ / "r").string() +
                                  " --frames 1 --render 16x16 --display 32x32 --no-gt"
                                  " --seed 18446744073709551615");
    ASSERT_EQ(largest.exit_code, 0) << largest.err;
    EXPECT_NE(read_text(root_ / "r" / "sequence.json").find("seed 18446744073709551615"),
              std::string::npos);
}

// upscale reads no ground truth, so a sequence whose gt files are gone still upscales; eval, which
// scores against them, names the first one missing.
TEST_F(CliUpscale, UpscaleNeedsNoGroundTruthFiles) {
    SequenceInfo info = sequence_read_info(seq());
    info.has_ground_truth = true;  // listed, but no gt.NNNN.exr on disk
    sequence_write_info(seq(), info);
    const CliRun upscale = swinup("upscale " + seq() + " --backend cpu -o " + (root_ / "out").string());
    ASSERT_EQ(upscale.exit_code, 0) << upscale.err;
    EXPECT_TRUE(fs::exists(root_ / "out" / "out.0001.exr"));
    const CliRun eval = swinup("eval " + seq() + " --methods bilinear");
    EXPECT_NE(eval.exit_code, 0);
    EXPECT_NE(eval.err.find("gt.0000.exr: missing"), std::string::npos) << eval.err;
}

// A shorter run into the folder of a longer one leaves exactly its own frames and metadata.
TEST_F(CliUpscale, ShorterRunRemovesTheLongerRunsFrames) {
    const std::string common = "upscale " + seq() + " --backend cpu -o " + (root_ / "out").string();
    ASSERT_EQ(swinup(common).exit_code, 0);
    ASSERT_TRUE(fs::exists(root_ / "out" / "out.0001.exr"));
    std::ofstream(root_ / "out" / "notes.txt") << "the user's own file";
    const CliRun shorter = swinup(common + " --frames 1");
    ASSERT_EQ(shorter.exit_code, 0) << shorter.err;
    EXPECT_NE(shorter.out.find("removed    1 out.NNNN.exr frames"), std::string::npos) << shorter.out;
    EXPECT_TRUE(fs::exists(root_ / "out" / "out.0000.exr"));
    EXPECT_FALSE(fs::exists(root_ / "out" / "out.0001.exr"));
    EXPECT_TRUE(fs::exists(root_ / "out" / "notes.txt"));  // only names upscale writes are touched
    const auto run = nlohmann::json::parse(read_text(root_ / "out" / "upscale.json"));
    EXPECT_EQ(run["frame_count"], 1);
}

// upscale overwrites and removes only frames that the folder's upscale.json records as written by
// an earlier run (tools/swinup/upscale_folder.h). Files of the user's that happen to have its
// names: out.0000..out.0001 would be overwritten by a 2-frame run, out.0002..out.0003 were
// removed as "an earlier, longer run's" frames.
class CliUpscaleUserFiles : public CliUpscale {
protected:
    void SetUp() override {
        CliUpscale::SetUp();
        fs::create_directories(out());
        for (int i = 0; i < 4; ++i) write_mine(i);
    }
    fs::path out() const { return root_ / "out"; }
    void write_mine(int i) const { std::ofstream(out() / frame_file("out", i)) << "mine " << i; }
    bool still_mine(int i) const { return read_text(out() / frame_file("out", i)) == "mine " + std::to_string(i); }
    std::string upscale(const std::string& extra = "") const {
        return "upscale " + seq() + " --backend cpu -o " + out().string() + extra;
    }
};

TEST_F(CliUpscaleUserFiles, FolderWithoutARecordIsRefusedAndLeftAsItWas) {
    const CliRun run = swinup(upscale());
    EXPECT_NE(run.exit_code, 0);
    EXPECT_EQ(run.err.rfind("swinup: error: ", 0), 0u) << run.err;
    EXPECT_NE(run.err.find("out.0000.exr"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("--force"), std::string::npos) << run.err;
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(still_mine(i)) << i;
    EXPECT_FALSE(fs::exists(out() / "upscale.json"));
}

TEST_F(CliUpscaleUserFiles, FramesPastTheRunAreNeverRemoved) {
    fs::remove(out() / frame_file("out", 0));
    fs::remove(out() / frame_file("out", 1));
    const CliRun run = swinup(upscale());  // writes out.0000..0001: none of them the user's
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.out.find("removed"), std::string::npos) << run.out;
    EXPECT_TRUE(still_mine(2));
    EXPECT_TRUE(still_mine(3));
}

TEST_F(CliUpscaleUserFiles, ForceOverwritesThisRunsNamesAndRemovesNothing) {
    const CliRun run = swinup(upscale(" --force"));
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(exr_read((out() / frame_file("out", 1)).string()).width, kDisplayW);
    EXPECT_TRUE(still_mine(2));
    EXPECT_TRUE(still_mine(3));
    // The record lists this run's two frames only: a later, shorter run removes out.0001.exr
    // and still leaves the user's out.0002..0003.
    const CliRun shorter = swinup(upscale(" --frames 1"));
    ASSERT_EQ(shorter.exit_code, 0) << shorter.err;
    EXPECT_FALSE(fs::exists(out() / frame_file("out", 1)));
    EXPECT_TRUE(still_mine(2));
    EXPECT_TRUE(still_mine(3));
}

// A file of the user's beside a recorded run is left alone by a shorter run.
TEST_F(CliUpscaleUserFiles, OnlyRecordedFramesAreRemoved) {
    for (int i = 0; i < 4; ++i) fs::remove(out() / frame_file("out", i));
    ASSERT_EQ(swinup(upscale()).exit_code, 0);  // records out.0000..0001
    write_mine(2);
    const CliRun shorter = swinup(upscale(" --frames 1"));
    ASSERT_EQ(shorter.exit_code, 0) << shorter.err;
    EXPECT_NE(shorter.out.find("removed    1 out.NNNN.exr"), std::string::npos) << shorter.out;
    EXPECT_FALSE(fs::exists(out() / frame_file("out", 1)));
    EXPECT_TRUE(still_mine(2));
}

// An upscale.json that is not swinup's record is the user's file: refused, unless --force.
TEST_F(CliUpscaleUserFiles, ForeignUpscaleJsonIsNotReplacedUnasked) {
    for (int i = 0; i < 4; ++i) fs::remove(out() / frame_file("out", i));
    std::ofstream(out() / "upscale.json") << "{\"my\": \"notes\"}";
    const CliRun run = swinup(upscale());
    EXPECT_NE(run.exit_code, 0);
    EXPECT_NE(run.err.find("upscale.json"), std::string::npos) << run.err;
    EXPECT_EQ(read_text(out() / "upscale.json"), "{\"my\": \"notes\"}");
    EXPECT_FALSE(fs::exists(out() / frame_file("out", 0)));
    const CliRun forced = swinup(upscale(" --force"));
    ASSERT_EQ(forced.exit_code, 0) << forced.err;
    EXPECT_EQ(nlohmann::json::parse(read_text(out() / "upscale.json")).at("format"), "swinup-upscale");
}

// A symbolic link planted in the output folder where the frames' temporary files used to go
// ("out.0000.exr.tmp") must not make upscale write through it.
TEST_F(CliUpscale, UpscaleDoesNotWriteThroughAPlantedLink) {
    fs::create_directories(root_ / "out");
    const fs::path victim = root_ / "victim.txt";
    std::ofstream(victim) << "precious";
    for (int i = 0; i < kFrames; ++i) {
        fs::create_symlink(victim, root_ / "out" / (frame_file("out", i) + ".tmp"));
    }
    fs::create_symlink(victim, root_ / "out" / "upscale.json.tmp");
    const CliRun run = swinup("upscale " + seq() + " --backend cpu -o " + (root_ / "out").string());
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(read_text(victim), "precious");
    EXPECT_EQ(exr_read((root_ / "out" / frame_file("out", 1)).string()).width, kDisplayW);
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(root_ / "out" / "upscale.json")));
}

// eval tries --json's and --pictures' destinations before it evaluates (which can take minutes),
// so a folder that does not exist stops it at once, before the results table.
TEST_F(CliUpscale, EvalRejectsAnUnwritableDestinationBeforeEvaluating) {
    const SequenceInfo without_gt = sequence_read_info(seq());
    SequenceInfo info = without_gt;
    info.has_ground_truth = true;
    for (int i = 0; i < kFrames; ++i) {
        Frame f = sequence_read_frame(seq(), without_gt, i);
        f.gt = Image(kDisplayW, kDisplayH, 4, 0.5f);
        sequence_write_frame(seq(), info, i, f);
    }
    sequence_write_info(seq(), info);
    const std::string common = "eval " + seq() + " --methods bilinear";
    const CliRun ok = swinup(common + " --json " + (root_ / "scores.json").string());
    ASSERT_EQ(ok.exit_code, 0) << ok.err;
    EXPECT_NE(ok.out.find("bilinear"), std::string::npos) << ok.out;
    EXPECT_TRUE(fs::exists(root_ / "scores.json"));

    const fs::path missing = root_ / "no_such_folder" / "scores.json";
    const CliRun json = swinup(common + " --json " + missing.string());
    EXPECT_NE(json.exit_code, 0);
    EXPECT_EQ(json.err.rfind("swinup: error: --json ", 0), 0u) << json.err;
    EXPECT_NE(json.err.find("no_such_folder"), std::string::npos) << json.err;
    EXPECT_EQ(json.out.find("bilinear"), std::string::npos) << json.out;  // stopped before scoring
    EXPECT_FALSE(fs::exists(missing.parent_path()));

    std::ofstream(root_ / "a_file") << "not a folder";
    const CliRun pictures = swinup(common + " --pictures " + (root_ / "a_file" / "pics").string());
    EXPECT_NE(pictures.exit_code, 0);
    EXPECT_EQ(pictures.err.rfind("swinup: error: --pictures ", 0), 0u) << pictures.err;
    EXPECT_EQ(pictures.out.find("bilinear"), std::string::npos) << pictures.out;
}

// Scripts tell a mistyped command line (2) from a command that failed (1).
TEST_F(CliUpscale, UsageErrorsExitWithTwoOtherErrorsWithOne) {
    const std::string out = " -o " + (root_ / "out").string();
    for (const std::string& args :
         {"upscale " + seq() + out + " --format rgb565", "upscale " + seq() + out + " --no-such-option",
          "upscale" + out, std::string("")}) {
        const CliRun run = swinup(args);
        EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.err;
        EXPECT_EQ(run.err.rfind("swinup: error: ", 0), 0u) << run.err;
    }
    // A sequence folder that is not there is a bad value (2); one whose sequence.json cannot be
    // read is a failure of the command (1).
    const CliRun missing = swinup("upscale " + (root_ / "nothing").string() + out);
    EXPECT_EQ(missing.exit_code, 2) << missing.err;
    EXPECT_NE(missing.err.find("nothing"), std::string::npos) << missing.err;
    std::filesystem::create_directories(root_ / "broken");
    { std::ofstream(root_ / "broken" / "sequence.json") << "{ not json"; }
    const CliRun broken = swinup("upscale " + (root_ / "broken").string() + out);
    EXPECT_EQ(broken.exit_code, 1) << broken.err;
    EXPECT_NE(broken.err.find("broken"), std::string::npos) << broken.err;
    const CliRun help = swinup("--help");
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(help.out.find("Exit status: 0 on success, 2 on a usage error"), std::string::npos)
        << help.out;
}

TEST_F(CliUpscale, MisspeltCommandGetsASuggestion) {
    const CliRun typo = swinup("upscal " + seq());
    EXPECT_EQ(typo.exit_code, 2);
    EXPECT_EQ(typo.err, "swinup: error: unknown command 'upscal'; did you mean 'upscale'?\n");
    const CliRun swapped = swinup("ifno");
    EXPECT_EQ(swapped.exit_code, 2);
    EXPECT_NE(swapped.err.find("did you mean 'info'?"), std::string::npos) << swapped.err;
    const CliRun unrelated = swinup("frobnicate");
    EXPECT_EQ(unrelated.exit_code, 2);
    EXPECT_EQ(unrelated.err.find("did you mean"), std::string::npos) << unrelated.err;
    EXPECT_NE(unrelated.err.find("unknown command 'frobnicate' (commands: demo upscale"),
              std::string::npos) << unrelated.err;
}

// A shorter render into the folder of a longer one leaves exactly the frames its sequence.json
// lists; files the earlier sequence.json does not list as its frames stay.
TEST_F(CliUpscale, ShorterRenderRemovesTheLongerRendersFrames) {
    const fs::path dir = root_ / "r";
    const std::string common = "render showcase -o " + dir.string() + " --render 16x16 --display 32x32";
    ASSERT_EQ(swinup(common + " --frames 6 --gt-spp 16").exit_code, 0);
    ASSERT_TRUE(fs::exists(dir / "gt.0005.exr"));
    std::ofstream(dir / "notes.txt") << "the user's own file";
    std::ofstream(dir / "color.0009.exr") << "not listed by sequence.json";
    const CliRun shorter = swinup(common + " --frames 3 --no-gt");
    ASSERT_EQ(shorter.exit_code, 0) << shorter.err;
    for (int i = 0; i < 3; ++i) {
        for (const char* kind : {"color", "depth", "mv"}) EXPECT_TRUE(fs::exists(dir / frame_file(kind, i)));
    }
    for (int i = 3; i < 6; ++i) {
        for (const char* kind : {"color", "depth", "mv"}) EXPECT_FALSE(fs::exists(dir / frame_file(kind, i)));
    }
    for (int i = 0; i < 6; ++i) EXPECT_FALSE(fs::exists(dir / frame_file("gt", i))) << i;
    EXPECT_TRUE(fs::exists(dir / "notes.txt"));
    EXPECT_TRUE(fs::exists(dir / "color.0009.exr"));
    EXPECT_NO_THROW(sequence_read_info(dir.string()));
    EXPECT_EQ(sequence_read_info(dir.string()).frame_count, 3);
}

// report.md's "Reproduce with" repeats the options the demo was given, not a fixed line.
TEST_F(CliUpscale, DemoReportReproducesTheOptionsGiven) {
    const fs::path dir = root_ / "demo";
    const std::string options = " --frames 2 --render 64x64 --display 128x128 --methods bilinear,bicubic";
    const CliRun run = swinup("demo -o " + dir.string() + options + " --backend cpu");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::string report = read_text(dir / "report.md");
    EXPECT_NE(report.find("```\nswinup demo --output " + dir.string() + options + " --backend cpu\n```"),
              std::string::npos) << report;
}

// Gives the test sequence a ground truth that differs from frame to frame and across the picture.
void add_ground_truth(const std::string& dir) {
    const SequenceInfo without_gt = sequence_read_info(dir);
    SequenceInfo info = without_gt;
    info.has_ground_truth = true;
    for (int i = 0; i < info.frame_count; ++i) {
        Frame f = sequence_read_frame(dir, without_gt, i);
        f.gt = Image(kDisplayW, kDisplayH, 4, 1.0f);
        for (int y = 0; y < kDisplayH; ++y) {
            for (int x = 0; x < kDisplayW; ++x) {
                for (int c = 0; c < 3; ++c) f.gt.at(x, y, c) = 0.1f + 0.02f * float((x + 3 * y + 5 * i + c) % 30);
            }
        }
        sequence_write_frame(dir, info, i, f);
    }
    sequence_write_info(dir, info);
}

// Frames made elsewhere are scored in the same table and JSON: an upscale output folder, and the
// ground truth itself under other names (which must score a perfect SSIM, frame by frame).
TEST_F(CliUpscale, EvalScoresFramesFromAFolder) {
    add_ground_truth(seq());
    ASSERT_EQ(swinup("upscale " + seq() + " --backend cpu -o " + (root_ / "up").string()).exit_code, 0);
    fs::create_directories(root_ / "truth");
    for (int i = 0; i < kFrames; ++i) {
        fs::copy_file(root_ / "seq" / frame_file("gt", i), root_ / "truth" / frame_file("out", i));
    }
    const CliRun run = swinup("eval " + seq() + " --methods bilinear --method up=" + (root_ / "up").string() +
                              " --method truth=" + (root_ / "truth").string() + " --json " +
                              (root_ / "scores.json").string());
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("up "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("truth "), std::string::npos) << run.out;
    const auto json = nlohmann::json::parse(read_text(root_ / "scores.json"));
    std::vector<std::string> names;
    for (const auto& m : json.at("methods")) names.push_back(m.at("name"));
    ASSERT_EQ(names, (std::vector<std::string>{"bilinear", "up", "truth"}));
    EXPECT_TRUE(json["methods"][1]["psnr_db"].is_number());
    EXPECT_GT(json["methods"][1]["ssim"].get<double>(), 0.0);
    EXPECT_NEAR(json["methods"][2]["ssim"].get<double>(), 1.0, 1e-9);
    EXPECT_LT(json["methods"][0]["ssim"].get<double>(), 0.999);
    // FLIP: 0 for the truth itself, above 0 for the bilinear upscale.
    EXPECT_EQ(json["methods"][2]["flip"].get<double>(), 0.0);
    EXPECT_GT(json["methods"][0]["flip"].get<double>(), 0.0);
    EXPECT_NE(run.out.find("-FLIP"), std::string::npos) << run.out;
    // --no-flip leaves it out.
    const CliRun without = swinup("eval " + seq() + " --methods bilinear --no-flip");
    ASSERT_EQ(without.exit_code, 0) << without.err;
    EXPECT_NE(without.out.find("n/a"), std::string::npos) << without.out;
}

// A bad --method is a bad value (exit 2), refused before any method runs.
TEST_F(CliUpscale, EvalNamesWhatIsWrongWithAFramesFolder) {
    add_ground_truth(seq());
    const std::string eval = "eval " + seq() + " --methods bilinear";
    const auto error_of = [&](const std::string& args) {
        const CliRun run = swinup(eval + args);
        EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.err;
        EXPECT_EQ(run.err.rfind("swinup: error: ", 0), 0u) << run.err;
        EXPECT_EQ(run.out.find("bilinear"), std::string::npos) << run.out;  // nothing scored
        return run.err;
    };
    EXPECT_NE(error_of(" --method x=" + (root_ / "absent").string()).find("absent: no such folder"),
              std::string::npos);

    fs::create_directories(root_ / "part");
    exr_write((root_ / "part" / frame_file("out", 0)).string(), Image(kDisplayW, kDisplayH, 4, 0.5f), true);
    EXPECT_NE(error_of(" --method x=" + (root_ / "part").string()).find("out.0001.exr: missing"),
              std::string::npos);

    exr_write((root_ / "part" / frame_file("out", 1)).string(), Image(kRenderW, kRenderH, 4, 0.5f), true);
    const CliRun wrong_size = swinup(eval + " --method x=" + (root_ / "part").string());
    EXPECT_EQ(wrong_size.exit_code, 1);
    EXPECT_NE(wrong_size.err.find("out.0001.exr: is 16x8, expected the display size 32x16"),
              std::string::npos) << wrong_size.err;

    exr_write((root_ / "part" / frame_file("out", 1)).string(), Image(kDisplayW, kDisplayH, 4, 0.5f), true);
    const std::string part = (root_ / "part").string();
    EXPECT_NE(error_of(" --method bicubic=" + part).find("'bicubic' is a built-in method"), std::string::npos);
    EXPECT_NE(error_of(" --method x=" + part + " --method x=" + part).find("'x' is given twice"),
              std::string::npos);
    ASSERT_EQ(swinup(eval + " --method x=" + part).exit_code, 0);  // the folder itself is fine now
    const CliRun malformed = swinup(eval + " --method " + part);
    EXPECT_NE(malformed.exit_code, 0);
    EXPECT_NE(malformed.err.find("expected NAME=FOLDER"), std::string::npos) << malformed.err;
}

TEST_F(CliUpscale, InfoNamesBackendAndRenderSizes) {
    const CliRun run = swinup("info --backend cpu --display 1280x720");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("backend    cpu"), std::string::npos) << run.out;
    // 1280x720 / 1.5 = 853.3 x 480, rounded to the nearest pixel (swinup.h).
    EXPECT_NE(run.out.find("853x480"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("640x360"), std::string::npos) << run.out;
}

// swinup info: each quality mode's ratio and render size, and the dynamic-resolution range, as the
// library's queries give them.
TEST_F(CliUpscale, InfoPrintsTheQualityModesAndTheDynamicResolutionRange) {
    const CliRun run = swinup("info --display 3840x2160 --backend cpu");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("balanced           1.70x  2259x1271"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("ultra performance  3.00x  1280x720"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("dynamic resolution 1280x720 to 3840x2160"), std::string::npos) << run.out;
}

// --srgb-input: the context decodes the colour as sRGB (SWINUP_FLAG_SRGB_INPUT), which the run's
// record says, and the frames are those of the decoded colour, not of the codes read as linear.
TEST_F(CliUpscale, SrgbInputDecodesTheColour) {
    const CliRun plain = swinup("upscale " + seq() + " -o " + (root_ / "plain").string() + " --backend cpu");
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    const CliRun srgb = swinup("upscale " + seq() + " -o " + (root_ / "srgb").string() + " --backend cpu --srgb-input");
    ASSERT_EQ(srgb.exit_code, 0) << srgb.err;
    EXPECT_EQ(nlohmann::json::parse(read_text(root_ / "srgb" / "upscale.json")).at("srgb_input"), true);
    EXPECT_EQ(nlohmann::json::parse(read_text(root_ / "plain" / "upscale.json")).at("srgb_input"), false);
    const Image a = exr_read((root_ / "plain" / frame_file("out", 0)).string());
    const Image b = exr_read((root_ / "srgb" / frame_file("out", 0)).string());
    ASSERT_EQ(a.data.size(), b.data.size());
    double sum_a = 0, sum_b = 0;
    for (size_t i = 0; i < a.data.size(); ++i) {
        if (i % 4 == 3) continue;
        sum_a += a.data[i];
        sum_b += b.data[i];
    }
    EXPECT_LT(sum_b, 0.8 * sum_a);  // sRGB codes in (0, 1) decode to darker linear values
}

// --debug-view: the frames are the debug view (SWINUP_FLAG_DEBUG_VIEW), which the run's record
// says: frame 1's motion quadrant (bottom left) holds 0.5 + (-0.5) / 8 in red, 0.5 in green.
TEST_F(CliUpscale, DebugViewWritesTheQuadrants) {
    const CliRun run = swinup("upscale " + seq() + " -o " + (root_ / "debug").string() + " --backend cpu --debug-view");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(nlohmann::json::parse(read_text(root_ / "debug" / "upscale.json")).at("debug_view"), true);
    const Image image = exr_read((root_ / "debug" / frame_file("out", 1)).string());
    for (int y = kDisplayH / 2; y < kDisplayH; ++y) {
        for (int x = 0; x < kDisplayW / 2; ++x) {
            ASSERT_EQ(image.data[(size_t(y) * kDisplayW + x) * 4 + 0], 0.4375f) << x << "," << y;
            ASSERT_EQ(image.data[(size_t(y) * kDisplayW + x) * 4 + 1], 0.5f) << x << "," << y;
        }
    }
}

// --sharpness: every frame's swinup_dispatch_desc.sharpness, recorded in upscale.json; the frames
// differ from the unsharpened run's; a value outside [0, 1] is a usage error (exit 2).
TEST_F(CliUpscale, SharpnessSharpensTheFrames) {
    const CliRun plain = swinup("upscale " + seq() + " -o " + (root_ / "plain").string() + " --backend cpu");
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    const CliRun sharp = swinup("upscale " + seq() + " -o " + (root_ / "sharp").string() + " --backend cpu --sharpness 1");
    ASSERT_EQ(sharp.exit_code, 0) << sharp.err;
    EXPECT_EQ(nlohmann::json::parse(read_text(root_ / "sharp" / "upscale.json")).at("sharpness"), 1.0);
    const Image a = exr_read((root_ / "plain" / frame_file("out", 1)).string());
    const Image b = exr_read((root_ / "sharp" / frame_file("out", 1)).string());
    EXPECT_FALSE(a.data == b.data);
    EXPECT_EQ(swinup("upscale " + seq() + " -o " + (root_ / "bad").string() + " --sharpness 2").exit_code, 2);
}

}  // namespace
