// Progress of a long loop on stderr: a redrawn bar when stderr is a terminal, otherwise (logs,
// CI) one line per tenth of the work so that logs stay short and readable.
#pragma once

#include <string>

namespace swinup::cli {

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
    int last_tenth_ = 0;
    bool finished_ = false;
};

}  // namespace swinup::cli
