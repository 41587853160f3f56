// A bad or missing value on the command line that swinup's own checks find (CLI11 finds the
// rest: unknown options, values outside a declared range or set). main.cpp exits with 2 for it,
// as for CLI11's parse errors, and with 1 for any other failure (a file that cannot be read, a
// device that fails), so that a script can tell a mistyped command from one that failed.
#pragma once

#include <stdexcept>
#include <utility>

namespace swinup::cli {

struct UsageError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

// Runs `check`, a library call whose std::invalid_argument (or `Refusal`) means that a value the
// command passed on is bad, and rethrows that as a UsageError with the same message.
template <typename Refusal = std::invalid_argument, typename Check>
decltype(auto) as_usage_error(Check&& check) {
    try {
        return std::forward<Check>(check)();
    } catch (const Refusal& e) {
        throw UsageError(e.what());
    }
}

}  // namespace swinup::cli
