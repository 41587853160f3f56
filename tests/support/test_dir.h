// A per-test scratch folder under the system's temp directory, named after the running test and
// the process so that parallel CTest runs never share one. The fixtures remove it in TearDown.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace swinup::test {

// temp/swinup_<prefix>_<test name>_<pid>, emptied (removed) and not yet created.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() /
        ("swinup_" + prefix + "_" + std::string(test->name()) + "_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir;
}

}  // namespace swinup::test
