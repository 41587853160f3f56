// What a harness does when a reader breaks one of its promises without crashing (a wrong status,
// a value it should have refused): print what and where, then abort, which libFuzzer reports
// as a crash and saves the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace swinup::fuzz {

[[noreturn]] inline void broken_promise(const char* file, int line, const std::string& what) {
    std::fprintf(stderr, "%s:%d: broken promise: %s\n", file, line, what.c_str());
    std::abort();
}

}  // namespace swinup::fuzz

#define FUZZ_CHECK(condition, what) \
    do { \
        if (!(condition)) ::swinup::fuzz::broken_promise(__FILE__, __LINE__, (what)); \
    } while (0)
