// Progress of a long loop on stderr: a redrawn bar when stderr is a terminal, otherwise (logs,
// CI) one line per tenth of the work so that logs stay short and readable. Both show, from the
// first item on, the time left: the mean time per item so far times the items still to do.
#pragma once

#include <chrono>
#include <string>

namespace swinup::cli {

// "3.1 s left", "2 min 05 s left", "1 h 02 min left" (seconds rounded down at each scale).
std::string time_left_text(double seconds);

class Progress {
public:
    Progress(std::string label, int total);
    // `done` items finished; `last_ms` is shown as the latest time per item.
    void update(int done, double last_ms);
    // Ends the bar's line (terminal only); call once after the loop.
    void finish();

private:
    std::string label_;
    int total_;
    bool terminal_;
    std::chrono::steady_clock::time_point start_;
    int last_tenth_ = 0;
    bool finished_ = false;
};

}  // namespace swinup::cli
