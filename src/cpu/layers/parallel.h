// Work sharing that keeps results independent of the thread count: the work is cut into blocks
// of a fixed size (decided by the data, never by the number of threads), each block is computed
// by one thread with one fixed operation order, so its bits cannot depend on who ran it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace swinup::cpu {

// Calls fn(begin, end) for [0, count) cut into consecutive blocks of `block` items (the last one
// shorter), in parallel with oneTBB.
template <class Fn>
void for_each_block(int count, int block, const Fn& fn) {
    const int blocks = (count + block - 1) / block;
    tbb::parallel_for(tbb::blocked_range<int>(0, blocks, 1), [&](const tbb::blocked_range<int>& r) {
        for (int b = r.begin(); b != r.end(); ++b) fn(b * block, std::min(count, (b + 1) * block));
    });
}

// A per-thread buffer of at least n floats, reused between calls of the same Tag (one tag per
// distinct use, so that nested layers never share a buffer). Safe with oneTBB's work stealing
// because no task waits (and so could run another task) while it holds a buffer: the layers'
// block functions never start parallel work themselves.
template <class Tag>
float* thread_scratch(size_t n) {
    thread_local std::vector<float> buffer;
    if (buffer.size() < n) buffer.resize(n);
    return buffer.data();
}

}  // namespace swinup::cpu
