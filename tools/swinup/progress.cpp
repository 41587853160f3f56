#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace swinup::cli {

std::string time_left_text(double seconds) {
    char text[64];
    seconds = std::max(seconds, 0.0);
    if (seconds < 60.0) {
        std::snprintf(text, sizeof text, "%.1f s left", seconds);
    } else if (seconds < 3600.0) {
        const long whole = static_cast<long>(seconds);
        std::snprintf(text, sizeof text, "%ld min %02ld s left", whole / 60, whole % 60);
    } else {
        const long minutes = static_cast<long>(seconds / 60.0);
        std::snprintf(text, sizeof text, "%ld h %02ld min left", minutes / 60, minutes % 60);
    }
    return text;
}

Progress::Progress(std::string label, int total)
    : label_(std::move(label)),
      total_(std::max(total, 1)),
      terminal_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()) {}

void Progress::update(int done, double last_ms) {
    done = std::clamp(done, 0, total_);
    std::string left;
    if (done > 0 && done < total_) {
        const double elapsed_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        left = ", " + time_left_text(elapsed_s / done * (total_ - done));
    }
    if (terminal_) {
        constexpr int kBarWidth = 30;
        const int filled = done * kBarWidth / total_;
        std::string bar(static_cast<size_t>(filled), '#');
        bar.resize(kBarWidth, '-');
        std::fprintf(stderr, "\r%s [%s] %d/%d  %.1f ms%s   ", label_.c_str(), bar.c_str(), done,
                     total_, last_ms, left.c_str());
        std::fflush(stderr);
        return;
    }
    const int tenth = done * 10 / total_;
    if (tenth > last_tenth_) {
        last_tenth_ = tenth;
        std::fprintf(stderr, "%s: %d%% (%d/%d), last %.1f ms%s\n", label_.c_str(),
                     done * 100 / total_, done, total_, last_ms, left.c_str());
    }
}

void Progress::finish() {
    if (terminal_ && !finished_) std::fputc('\n', stderr);
    finished_ = true;
}

}  // namespace swinup::cli
