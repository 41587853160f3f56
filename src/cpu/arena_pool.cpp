#include "cpu/arena_pool.h"

#include <map>
#include <mutex>
#include <vector>

namespace swinup::cpu {
namespace {

struct Pool {
    std::mutex mutex;
    std::map<int, std::vector<std::unique_ptr<tbb::task_arena>>> idle;  // by concurrency
};

// Never destroyed: a context may be destroyed during the host program's static destruction, after
// a function-local static pool would be gone.
Pool& pool() {
    static Pool* const instance = new Pool;
    return *instance;
}

}  // namespace

PooledArena::PooledArena(int concurrency) : concurrency_(concurrency) {
    Pool& p = pool();
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        std::vector<std::unique_ptr<tbb::task_arena>>& idle = p.idle[concurrency];
        if (!idle.empty()) {
            arena_ = std::move(idle.back());
            idle.pop_back();
            return;
        }
    }
    arena_ = std::make_unique<tbb::task_arena>(concurrency);
}

PooledArena::~PooledArena() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    try {
        p.idle[concurrency_].push_back(std::move(arena_));
    } catch (...) {
        // Out of memory for the pool's list: the arena is destroyed instead (push_back left it here).
    }
}

}  // namespace swinup::cpu
