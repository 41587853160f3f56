#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace swinup::cli {

Progress::Progress(std::string label, int total)
    : label_(std::move(label)), total_(std::max(total, 1)), terminal_(isatty(STDERR_FILENO) != 0) {}

void Progress::update(int done, double last_ms) {
    done = std::clamp(done, 0, total_);
    if (terminal_) {
        constexpr int kBarWidth = 30;
        const int filled = done * kBarWidth / total_;
        std::string bar(static_cast<size_t>(filled), '#');
        bar.resize(kBarWidth, '-');
        std::fprintf(stderr, "\r%s [%s] %d/%d  %.1f ms", label_.c_str(), bar.c_str(), done, total_,
                     last_ms);
        std::fflush(stderr);
        return;
    }
    const int tenth = done * 10 / total_;
    if (tenth > last_tenth_) {
        last_tenth_ = tenth;
        std::fprintf(stderr, "%s: %d%% (%d/%d), last %.1f ms\n", label_.c_str(),
                     done * 100 / total_, done, total_, last_ms);
    }
}

void Progress::finish() {
    if (terminal_ && !finished_) std::fputc('\n', stderr);
    finished_ = true;
}

}  // namespace swinup::cli
