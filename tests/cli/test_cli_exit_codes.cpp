// README's rule for the command line's exit status, command by command: 2 for every bad or
// missing value, whether CLI11 or swinup's own checks find it (the CLI's, the renderer's settings,
// the evaluation's options, the library's refusal of a context's values), 1 for any other failure
// (an unreadable file, a weights file that does not load, a sequence without ground truth). A bad
// value must stop the command before its work: no frame rendered, nothing written. Runs the built
// binary (SWINUP_CLI, set by CMake).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>

#include "sequence/sequence.h"
#include "sequence_fixture.h"
#include "test_dir.h"
#include "text_file.h"

namespace fs = std::filesystem;

namespace {

struct CliRun {
    int exit_code;
    std::string err;
};

class CliExitCodes : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = swinup::test::fresh_test_dir("cli_exit");
        fs::create_directories(root_);
        // A two-frame sequence without ground truth or display motion vectors, 16x8 -> 32x16.
        const swinup::SequenceInfo info = swinup::test::sequence_info(16, 8, 32, 16, 2);
        swinup::sequence_write_info(seq(), info);
        for (int i = 0; i < 2; ++i) swinup::sequence_write_frame(seq(), info, i, swinup::test::blank_frame(16, 8));
        std::ofstream(garbage()) << "not a weights file";
    }
    void TearDown() override { fs::remove_all(root_); }

    CliRun swinup(const std::string& args) const {
        const fs::path err = root_ / "stderr.txt";
        const std::string command =
            std::string(SWINUP_CLI) + " " + args + " > " + (root_ / "stdout.txt").string() + " 2> " + err.string();
        const int status = std::system(command.c_str());
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, swinup::test::read_text(err)};
    }
    // Exit status 2, stderr starting with the "swinup: error:" line (nothing ran before the check)
    // that contains `names` (the bad value or field).
    void expect_usage_error(const std::string& args, const std::string& names) const {
        const CliRun run = swinup(args);
        EXPECT_EQ(run.exit_code, 2) << args << "\n" << run.err;
        EXPECT_EQ(run.err.rfind("swinup: error: ", 0), 0u) << args << "\n" << run.err;
        EXPECT_NE(run.err.find(names), std::string::npos) << args << "\n" << run.err;
    }
    // Exit status 1 and an error line containing `names`.
    void expect_failure(const std::string& args, const std::string& names) const {
        const CliRun run = swinup(args);
        EXPECT_EQ(run.exit_code, 1) << args << "\n" << run.err;
        EXPECT_NE(run.err.find("swinup: error: "), std::string::npos) << args << "\n" << run.err;  // after progress lines
        EXPECT_NE(run.err.find(names), std::string::npos) << args << "\n" << run.err;
    }
    std::string seq() const { return (root_ / "seq").string(); }
    std::string out(const char* name) const { return (root_ / name).string(); }
    std::string garbage() const { return (root_ / "garbage.safetensors").string(); }

    fs::path root_;
};

TEST_F(CliExitCodes, Demo) {
    const std::string small = "demo --frames 2 --render 16x16 --display 32x32 -o " + out("demo");
    expect_usage_error("demo --render foo -o " + out("demo"), "--render 'foo'");           // swinup's size check
    expect_usage_error("demo --frames 1 -o " + out("demo"), "--frames");                    // CLI11's range
    expect_usage_error(small + " --methods bilinear,bogus", "unknown method 'bogus'");      // the method list
    expect_usage_error(small + " --scene nosuch", "unknown scene \"nosuch\"");              // the renderer's
    expect_usage_error("demo --frames 2 --render 16x16 --display 200x200 -o " + out("demo"),
                       "context_desc.max_render_width");                                   // the library's
    EXPECT_FALSE(fs::exists(root_ / "demo"));
    // Values that pass every check, a weights file that does not load: a failure, not a usage error.
    expect_failure(small + " --methods bilinear,swinup --weights " + garbage(), "garbage.safetensors");
}

TEST_F(CliExitCodes, Upscale) {
    const std::string common = "upscale " + seq() + " --backend cpu -o " + out("up");
    expect_usage_error("upscale -o " + out("up"), "SEQ is required");
    expect_usage_error(common + " --format rgb565", "--format");
    expect_usage_error(common + " --scale 2 --mv-display", "--scale cannot be combined with --mv-display");
    expect_usage_error(common + " --mv-display", "--mv-display given but the sequence has no mv_display files");
    EXPECT_FALSE(fs::exists(root_ / "up"));
    expect_failure("upscale " + out("nothing") + " -o " + out("up"), "nothing");
    expect_failure(common + " --weights " + garbage(), "garbage.safetensors");
}

TEST_F(CliExitCodes, Render) {
    const std::string common = "render showcase --frames 1 --gt-spp 16 -o " + out("r");
    expect_usage_error(common + " --render 0x4", "--render '0x4'");
    expect_usage_error(common + " --render 16x16 --display 32x16", "same aspect ratio");
    expect_usage_error("render nosuch --frames 1 -o " + out("r"), "unknown scene \"nosuch\"");
    expect_usage_error(common + " --render 8x8 --display 16x16 --camera nosuch", "unknown camera preset \"nosuch\"");
    expect_usage_error(common + " --render 8x8 --display 16x16 --camera " + out("missing.json"), "missing.json");
    expect_usage_error(common + " --fps nan", "--fps");
    EXPECT_FALSE(fs::exists(root_ / "r"));
    // A glTF file that is not one: a failure reading it.
    std::ofstream(root_ / "broken.gltf") << "{ not json";
    expect_failure("render " + out("broken.gltf") + " --frames 1 --render 8x8 --display 16x16 --gt-spp 16 -o " + out("r"),
                   "broken.gltf");
}

TEST_F(CliExitCodes, Eval) {
    const std::string common = "eval " + seq() + " --backend cpu";
    expect_usage_error("eval", "SEQ is required");
    expect_usage_error(common + " --methods bogus", "unknown method 'bogus'");
    expect_usage_error(common + " --crop-at x", "--crop-at x");
    expect_usage_error(common + " --method nofolder", "--method nofolder");
    expect_usage_error(common + " --skip 2", "skip frames");            // the sequence has 2 frames
    expect_usage_error(common + " --picture-frame 5", "picture frame");
    expect_failure("eval " + out("nothing"), "nothing");
    expect_failure(common + " --methods bilinear", "no ground truth");
}

TEST_F(CliExitCodes, Bench) {
    expect_usage_error("bench --render 16x16", "--render and --display go together");
    expect_usage_error("bench --render 16x16 --display 32", "--display '32'");
    expect_usage_error("bench --render 16x16 --display 160x160", "context_desc.max_render_width");
    expect_usage_error("bench --backend nosuch", "--backend");
    expect_failure("bench --backend cpu --variant lite --render 16x16 --display 32x32 --weights " + garbage(),
                   "garbage.safetensors");
}

TEST_F(CliExitCodes, Info) {
    expect_usage_error("info --display 0x0", "--display '0x0'");
    expect_usage_error("info --variant huge", "--variant");
    expect_usage_error("info --weights " + out("nothing.safetensors"), "--weights");
    expect_failure("info --backend cpu --weights " + garbage(), "garbage.safetensors");
}

}  // namespace
