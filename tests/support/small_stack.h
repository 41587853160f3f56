// Runs a test body on a thread with a small stack, so that input which makes code recurse once per
// level of nesting crashes the test instead of passing on the main thread's 8 MB. A game calls the
// library from threads of 1 MB or less; std::thread cannot choose its stack size, pthreads can.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <exception>
#include <functional>

#include <gtest/gtest.h>

namespace swinup::test {

inline constexpr std::size_t kSmallStackBytes = 256 * 1024;

// Runs `body` on a thread with a stack of `stack_bytes` and waits for it. An exception thrown by
// `body` is thrown again here, so EXPECT_THROW and friends work around this call.
inline void run_on_small_stack(const std::function<void()>& body, std::size_t stack_bytes = kSmallStackBytes) {
    struct Job {
        const std::function<void()>* body;
        std::exception_ptr error;
    } job{&body, nullptr};
    pthread_attr_t attr;
    ASSERT_EQ(pthread_attr_init(&attr), 0);
    ASSERT_EQ(pthread_attr_setstacksize(&attr, stack_bytes), 0);
    pthread_t thread;
    const int created = pthread_create(
        &thread, &attr,
        [](void* p) -> void* {
            auto* j = static_cast<Job*>(p);
            try {
                (*j->body)();
            } catch (...) {
                j->error = std::current_exception();
            }
            return nullptr;
        },
        &job);
    pthread_attr_destroy(&attr);
    ASSERT_EQ(created, 0);
    ASSERT_EQ(pthread_join(thread, nullptr), 0);
    if (job.error) std::rethrow_exception(job.error);
}

}  // namespace swinup::test
