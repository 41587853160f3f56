// oneTBB task arenas shared over the life of the process. oneTBB 2021.8 (Debian 12's) keeps 3 to
// 7 kB of a task_arena that ran parallel work and is destroyed while arenas follow each other
// quickly (measured: the growth stops when 2 ms pass between one arena's work and the next's, and
// tbb::global_control does not stop it), so a context that made an arena of its own leaked up to
// that much per create/destroy: an engine that re-creates its context on every resolution change
// grows without bound. An arena that is reused keeps nothing more. So a CPU context borrows an
// idle arena of its thread count from a process-wide pool and gives it back when it is
// destroyed: arenas are made only while more contexts of one thread count live at once than ever
// before, and each live context still runs in an arena of its own (two contexts dispatching at
// once do not compete for one arena's slots).
#pragma once

#include <tbb/task_arena.h>

#include <memory>

namespace swinup::cpu {

class PooledArena {
public:
    // An idle arena of `concurrency` threads (tbb::task_arena::automatic: all hardware threads)
    // from the pool, or a new one. Thread-safe.
    explicit PooledArena(int concurrency);
    // Gives the arena back to the pool (it must not be running work). Thread-safe.
    ~PooledArena();
    PooledArena(const PooledArena&) = delete;
    PooledArena& operator=(const PooledArena&) = delete;

    tbb::task_arena& get() { return *arena_; }

private:
    int concurrency_;
    std::unique_ptr<tbb::task_arena> arena_;
};

}  // namespace swinup::cpu
