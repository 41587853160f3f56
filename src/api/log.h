// A context's messages (swinup_context_desc.log_callback): the callback and its user pointer, or
// nothing. Without a callback the library says nothing (swinup.h, swinup_log_callback): no code
// in libswinup writes to stderr or stdout; every message goes through here.
#pragma once

#include <string>

#include "swinup/swinup.h"

namespace swinup {

class Log {
public:
    Log() = default;
    Log(swinup_log_callback callback, void* user_data) : callback_(callback), user_data_(user_data) {}

    void operator()(swinup_log_level level, const std::string& message) const {
        if (callback_ != nullptr) callback_(level, message.c_str(), user_data_);
    }
    void error(const std::string& message) const { (*this)(SWINUP_LOG_ERROR, message); }
    void warning(const std::string& message) const { (*this)(SWINUP_LOG_WARNING, message); }
    void info(const std::string& message) const { (*this)(SWINUP_LOG_INFO, message); }

private:
    swinup_log_callback callback_ = nullptr;
    void* user_data_ = nullptr;
};

}  // namespace swinup
