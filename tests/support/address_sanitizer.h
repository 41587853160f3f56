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
