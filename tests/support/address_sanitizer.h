// SWINUP_TEST_ASAN is defined when the test is built with AddressSanitizer (gcc and clang).
// Tests that measure the process's memory skip under it: its allocator replaces malloc (glibc's
// mallinfo2 no longer sees the heap) and holds freed memory back in its quarantine (256 MB), so the
// resident size grows whatever the code does.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define SWINUP_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SWINUP_TEST_ASAN 1
#endif
#endif

// Skips the test (GTEST_SKIP, reported as skipped) under AddressSanitizer, saying why the
// measurement means nothing there; elsewhere nothing.
#ifdef SWINUP_TEST_ASAN
#define SWINUP_SKIP_UNDER_ASAN(why) GTEST_SKIP() << "under AddressSanitizer, " << (why)
#else
#define SWINUP_SKIP_UNDER_ASAN(why) static_cast<void>(why)
#endif
