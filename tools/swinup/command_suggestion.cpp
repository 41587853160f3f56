#include "command_suggestion.h"

#include <algorithm>
#include <numeric>

namespace swinup::cli {

int edit_distance(const std::string& a, const std::string& b) {
    // One row of the dynamic-programming table at a time.
    std::vector<int> row(b.size() + 1);
    std::iota(row.begin(), row.end(), 0);
    for (size_t i = 1; i <= a.size(); ++i) {
        int diagonal = row[0];
        row[0] = static_cast<int>(i);
        for (size_t j = 1; j <= b.size(); ++j) {
            const int substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
            diagonal = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
        }
    }
    return row[b.size()];
}

std::string unknown_command_message(const std::string& typed, const std::vector<std::string>& names) {
    std::string message = "unknown command '" + typed + "'";
    const int limit = std::max(2, static_cast<int>(typed.size()) / 3);
    const std::string* best = nullptr;
    int best_distance = limit + 1;
    for (const std::string& name : names) {
        const int distance = edit_distance(typed, name);
        if (distance < best_distance) {
            best_distance = distance;
            best = &name;
        }
    }
    if (best != nullptr) return message + "; did you mean '" + *best + "'?";
    message += " (commands:";
    for (const std::string& name : names) message += " " + name;
    return message + ")";
}

}  // namespace swinup::cli
