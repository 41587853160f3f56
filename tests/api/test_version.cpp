// swinup_get_version: the library's version is the header's and CMake's project version (which
// CMakeLists.txt reads from the header; the SONAME's major comes from it too: tests/package), and
// the weights format versions are the ones the loader accepts.
#include <gtest/gtest.h>

#include <string>

#include "model/model_spec.h"
#include "swinup/swinup.h"

namespace swinup {
namespace {

TEST(Version, IsTheHeadersAndTheProjects) {
    swinup_version_info v{};
    v.struct_size = sizeof v;
    ASSERT_EQ(swinup_get_version(&v), SWINUP_STATUS_OK) << swinup_last_error(nullptr);
    EXPECT_EQ(v.struct_size, sizeof v);
    EXPECT_EQ(v.major, SWINUP_VERSION_MAJOR);
    EXPECT_EQ(v.minor, SWINUP_VERSION_MINOR);
    EXPECT_EQ(v.patch, SWINUP_VERSION_PATCH);
    EXPECT_EQ(std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch),
              SWINUP_CMAKE_PROJECT_VERSION);
    EXPECT_STREQ(swinup_last_error(nullptr), "");
}

TEST(Version, NamesTheWeightsFormatsTheLoaderReads) {
    swinup_version_info v{};
    v.struct_size = sizeof v;
    ASSERT_EQ(swinup_get_version(&v), SWINUP_STATUS_OK);
    EXPECT_EQ(v.weights_format_oldest, uint32_t(kOldestFormatVersion));
    EXPECT_EQ(v.weights_format_newest, uint32_t(kFormatVersion));
    EXPECT_LE(v.weights_format_oldest, v.weights_format_newest);
}

TEST(Version, NullIsRefusedByName) {
    EXPECT_EQ(swinup_get_version(nullptr), SWINUP_STATUS_INVALID_ARGUMENT);
    EXPECT_STREQ(swinup_last_error(nullptr), "swinup_get_version: version is NULL");
}

}  // namespace
}  // namespace swinup
