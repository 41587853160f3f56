// The log callback (swinup_context_desc.log_callback): the context's warnings, failures and its
// creation note reach it, on the calling thread; nothing is written to stderr or stdout, with or
// without a callback; a user pointer without a callback is refused.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "api/dispatch_warnings.h"
#include "pipeline_fixture.h"
#include "swinup/swinup.h"

namespace swinup::test {
namespace {

struct Message {
    swinup_log_level level;
    std::string text;
    std::thread::id thread;
};

void record(swinup_log_level level, const char* message, void* user_data) {
    static_cast<std::vector<Message>*>(user_data)->push_back({level, message, std::this_thread::get_id()});
}

// What the process writes to stderr and stdout while it lives (both descriptors point into files).
class CapturedOutput {
public:
    CapturedOutput() {
        std::fflush(stdout);
        std::fflush(stderr);
        for (int i = 0; i < 2; ++i) {
            files_[i] = std::tmpfile();
            saved_[i] = dup(kFds[i]);
            dup2(fileno(files_[i]), kFds[i]);
        }
    }
    ~CapturedOutput() { restore(); }
    // Restores the descriptors; returns what was written to fd 1 and fd 2.
    std::string restore() {
        if (restored_) return text_;
        restored_ = true;
        std::fflush(stdout);
        std::fflush(stderr);
        for (int i = 0; i < 2; ++i) {
            dup2(saved_[i], kFds[i]);
            close(saved_[i]);
            std::rewind(files_[i]);
            char buffer[4096];
            size_t n;
            while ((n = std::fread(buffer, 1, sizeof buffer, files_[i])) > 0) text_.append(buffer, n);
            std::fclose(files_[i]);
        }
        return text_;
    }

private:
    static constexpr int kFds[2] = {1, 2};
    std::FILE* files_[2] = {};
    int saved_[2] = {-1, -1};
    bool restored_ = false;
    std::string text_;
};

std::vector<const Message*> at_level(const std::vector<Message>& log, swinup_log_level level) {
    std::vector<const Message*> out;
    for (const Message& m : log)
        if (m.level == level) out.push_back(&m);
    return out;
}

// Dispatches `frames` frames with the same (zero) jitter, an exposure texture under
// SWINUP_FLAG_AUTO_EXPOSURE, and one bad dispatch: two warnings and one failure.
void run_warned_sequence(const swinup_context_desc& desc, uint32_t frames) {
    swinup_context* ctx = nullptr;
    ASSERT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    FrameData f(32, 32, 64, 64);
    fill_pattern(f, 0.0f);
    float exposure = 1.0f;
    for (uint32_t i = 0; i < frames; ++i) {
        swinup_dispatch_desc d = f.dispatch();  // jitter (0, 0) every frame
        d.exposure = input_resource(&exposure, SWINUP_FORMAT_R32F, 1, 1);
        ASSERT_EQ(swinup_dispatch(ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(ctx);
    }
    swinup_dispatch_desc bad = f.dispatch();
    bad.jitter_x = 2.0f;
    EXPECT_EQ(swinup_dispatch(ctx, &bad), SWINUP_STATUS_INVALID_ARGUMENT);
    swinup_context_destroy(ctx);
}

TEST(LogCallback, ReceivesTheWarningsFailuresAndCreationNoteAndNothingGoesToStderr) {
    std::vector<Message> log;
    swinup_context_desc desc = small_context_desc();
    desc.flags = SWINUP_FLAG_AUTO_EXPOSURE;
    desc.log_callback = record;
    desc.log_user_data = &log;
    CapturedOutput output;
    run_warned_sequence(desc, kSameJitterWarningFrames + 4);
    EXPECT_EQ(output.restore(), "");

    const auto infos = at_level(log, SWINUP_LOG_INFO);
    ASSERT_EQ(infos.size(), 1u);
    EXPECT_NE(infos[0]->text.find("CPU backend"), std::string::npos) << infos[0]->text;
    const auto warnings = at_level(log, SWINUP_LOG_WARNING);
    ASSERT_EQ(warnings.size(), 2u);  // each once per context, though repeated every frame
    EXPECT_EQ(warnings[0]->text.rfind("dispatch.exposure: ", 0), 0u) << warnings[0]->text;
    EXPECT_EQ(warnings[1]->text.rfind("dispatch.jitter_x, dispatch.jitter_y: " +
                                          std::to_string(kSameJitterWarningFrames) + " dispatches in a row",
                                      0),
              0u)
        << warnings[1]->text;
    const auto errors = at_level(log, SWINUP_LOG_ERROR);
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0]->text.rfind("dispatch.jitter_x: must be a finite number in [-0.5, 0.5]", 0), 0u)
        << errors[0]->text;
    for (const Message& m : log) EXPECT_EQ(m.thread, std::this_thread::get_id()) << m.text;
}

TEST(LogCallback, WithoutACallbackNothingIsWrittenAnywhere) {
    swinup_context_desc desc = small_context_desc();
    desc.flags = SWINUP_FLAG_AUTO_EXPOSURE;
    CapturedOutput output;
    run_warned_sequence(desc, kSameJitterWarningFrames + 4);
    swinup_context* ctx = nullptr;
    desc.display_width = 0;  // a failed create too
    EXPECT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(output.restore(), "");
}

TEST(LogCallback, AJitterSequenceGivesNoWarning) {
    std::vector<Message> log;
    swinup_context_desc desc = small_context_desc();
    desc.log_callback = record;
    desc.log_user_data = &log;
    ContextHandle c(desc);
    FrameData f(32, 32, 64, 64);
    for (uint32_t i = 0; i < 2 * kSameJitterWarningFrames; ++i) {
        swinup_dispatch_desc d = moving_frame(f, i);
        ASSERT_EQ(swinup_dispatch(c.ctx, &d), SWINUP_STATUS_OK) << swinup_last_error(c.ctx);
    }
    EXPECT_TRUE(at_level(log, SWINUP_LOG_WARNING).empty()) << at_level(log, SWINUP_LOG_WARNING)[0]->text;
}

TEST(LogCallback, AFailedCreateIsReportedToTheCallback) {
    std::vector<Message> log;
    swinup_context_desc desc = small_context_desc();
    desc.log_callback = record;
    desc.log_user_data = &log;
    desc.weights_source = SWINUP_WEIGHTS_PATH;
    desc.weights_path = "/nonexistent/weights.safetensors";
    swinup_context* ctx = nullptr;
    EXPECT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_IO_ERROR);
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0].level, SWINUP_LOG_ERROR);
    EXPECT_EQ(log[0].text, swinup_last_error(nullptr));
}

TEST(LogCallback, AUserPointerWithoutACallbackIsRefused) {
    int user = 0;
    swinup_context_desc desc = small_context_desc();
    desc.log_user_data = &user;
    swinup_context* ctx = nullptr;
    EXPECT_EQ(swinup_context_create(&desc, &ctx), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_EQ(ctx, nullptr);
    EXPECT_EQ(std::string(swinup_last_error(nullptr)).rfind("context_desc.log_user_data: is not NULL, but log_callback is NULL", 0),
              0u)
        << swinup_last_error(nullptr);
    swinup_memory_requirements r{};
    r.struct_size = sizeof r;
    EXPECT_EQ(swinup_query_memory(&desc, &r), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(swinup_last_error(nullptr)).find("context_desc.log_user_data"), std::string::npos);
}

TEST(LogCallback, ACallbackWithoutAUserPointerIsFine) {
    swinup_context_desc desc = small_context_desc();
    desc.log_callback = [](swinup_log_level, const char*, void* user_data) { EXPECT_EQ(user_data, nullptr); };
    ContextHandle c(desc);
    EXPECT_NE(c.ctx, nullptr);
}

}  // namespace
}  // namespace swinup::test
