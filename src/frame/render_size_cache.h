// What a GPU backend keeps per render size (the CUDA backend: the frame's captured graphs), held
// for at most a fixed number of sizes, least recently used evicted. With dynamic resolution an
// engine may pass through many render sizes; without a bound every size it ever met would stay
// allocated until the context is destroyed. Plain C++ (no device code), so that its logic is
// tested without a GPU (tests/frame/test_render_size_cache.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <stdexcept>
#include <utility>

namespace swinup {

template <typename Value>
class RenderSizeCache {
public:
    // `release` is called on each value when it is evicted, cleared or the cache is destroyed.
    RenderSizeCache(size_t capacity, std::function<void(Value&)> release)
        : capacity_(capacity), release_(std::move(release)) {
        if (capacity_ == 0) throw std::invalid_argument("render size cache: the capacity must be at least 1");
    }
    ~RenderSizeCache() { clear(); }
    RenderSizeCache(const RenderSizeCache&) = delete;
    RenderSizeCache& operator=(const RenderSizeCache&) = delete;

    // The value of a render size, or nullptr; a hit makes the size the most recently used.
    Value* find(int width, int height) {
        for (auto it = entries_.begin(); it != entries_.end(); ++it) {
            if (it->width == width && it->height == height) {
                entries_.splice(entries_.begin(), entries_, it);  // to the front: most recent
                return &entries_.front().value;
            }
        }
        return nullptr;
    }

    // Adds a size that find() did not hold, as the most recently used, first evicting the least
    // recently used size when the cache is full. The reference is valid until that size is evicted.
    Value& insert(int width, int height, Value value) {
        if (entries_.size() == capacity_) {
            release_(entries_.back().value);
            entries_.pop_back();
        }
        entries_.push_front(Entry{width, height, std::move(value)});
        return entries_.front().value;
    }

    void clear() {
        for (Entry& e : entries_) release_(e.value);
        entries_.clear();
    }

    size_t size() const { return entries_.size(); }
    size_t capacity() const { return capacity_; }

private:
    struct Entry {
        int width, height;
        Value value;
    };
    size_t capacity_;
    std::function<void(Value&)> release_;
    std::list<Entry> entries_;  // most recently used first; a list: a few entries, stable references
};

}  // namespace swinup
