// parse_json_finding_repeated_key (text/json_repeated_key.h): the value json::parse gives, and the
// first key given twice in one object, whatever the object's size or depth.
#include <chrono>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "text/json_repeated_key.h"

namespace swinup {
namespace {

std::string repeated(const std::string& text) { return parse_json_finding_repeated_key(text).repeated_key; }

TEST(JsonRepeatedKey, TheValueIsWhatJsonParseGives) {
    const std::string text = R"({"a": [1, -2, 3.5e10, 18446744073709551615, true, null, "x\u00e9"],
        "b": {"c": {"d": []}, "e": {}}, "f": "", "g": -0.0})";
    const ParsedJson parsed = parse_json_finding_repeated_key(text);
    EXPECT_EQ(parsed.value, nlohmann::json::parse(text));
    EXPECT_EQ(parsed.value.dump(), nlohmann::json::parse(text).dump());
    EXPECT_TRUE(parsed.repeated_key.empty());
    EXPECT_EQ(parse_json_finding_repeated_key("[1, 2]").value, nlohmann::json::parse("[1, 2]"));
    EXPECT_EQ(parse_json_finding_repeated_key("7").value, 7);
}

TEST(JsonRepeatedKey, MalformedTextThrowsWhatJsonParseThrows) {
    // parse_error, or out_of_range for a number beyond a double: the callers catch json::exception.
    for (const char* bad : {"{ not json", "{\"a\": 1} x", "", "{\"a\": }", "[1, 2", "{\"a\": 1e500}"}) {
        std::string ours, theirs;
        try {
            parse_json_finding_repeated_key(bad);
        } catch (const nlohmann::json::exception& e) {
            ours = e.what();
        }
        try {
            const nlohmann::json value = nlohmann::json::parse(bad);
            ADD_FAILURE() << "json::parse accepted " << bad << ": " << value.dump();
        } catch (const nlohmann::json::exception& e) {
            theirs = e.what();
        }
        EXPECT_FALSE(ours.empty()) << bad;
        EXPECT_EQ(ours, theirs) << bad;
    }
}

TEST(JsonRepeatedKey, AKeyTwiceInOneObjectIsFound) {
    EXPECT_EQ(repeated(R"({"a": 1, "b": 2, "a": 3})"), "a");
    EXPECT_EQ(repeated(R"({"x": {"a": 1, "a": 1}})"), "a");            // nested
    EXPECT_EQ(repeated(R"([{"k": 1}, {"k": 2, "j": 0, "k": 3}])"), "k");  // in an array
    EXPECT_EQ(repeated(R"({"a": 1, "b": {"c": 1}, "b": 2})"), "b");   // after a nested object closed
    EXPECT_EQ(repeated(R"({"z": 1, "y": 1, "y": 2, "z": 2})"), "y");  // the first one found
    EXPECT_EQ(repeated("{\"a\\nb\": 1, \"a\\nb\": 2}"), "a?b");           // control characters as '?'
}

TEST(JsonRepeatedKey, EqualKeysInDifferentObjectsAreNotRepeats) {
    EXPECT_EQ(repeated(R"({"a": {"a": {"a": 1}}, "b": {"a": 2}})"), "");
    EXPECT_EQ(repeated(R"([{"time": 0, "position": 1}, {"time": 1, "position": 2}])"), "");
    EXPECT_EQ(repeated(R"({"a": 1, "A": 2, "a ": 3})"), "");  // keys compare exactly
}

TEST(JsonRepeatedKey, LargeObjectsAreCheckedToo) {
    // Past 32 keys an object's keys move into a hash set; repeats on either side of that move,
    // and nested objects opened after it, must behave as in a small object.
    std::string text = "{";
    for (int i = 0; i < 100; ++i) text += "\"k" + std::to_string(i) + "\": {\"k0\": " + std::to_string(i) + "},";
    EXPECT_EQ(repeated(text + "\"end\": 0}"), "");
    EXPECT_EQ(repeated(text + "\"k0\": 0}"), "k0");    // repeats a key from before the move
    EXPECT_EQ(repeated(text + "\"k77\": 0}"), "k77");  // and one from after it
    EXPECT_EQ(repeated(text + "\"n\": {\"k0\": 1, \"k0\": 2}}"), "k0");  // a small object inside
}

TEST(JsonRepeatedKey, AnObjectWithManyKeysIsNotQuadratic) {
    // 200,000 keys in one object: one by one comparisons would be 2e10 string compares (minutes);
    // the hash set takes well under a second, json::parse itself about as long.
    std::string text = "{";
    for (int i = 0; i < 200000; ++i) text += "\"key" + std::to_string(i) + "\": " + std::to_string(i) + ",";
    text += "\"key199999\": 0}";
    const auto start = std::chrono::steady_clock::now();
    const ParsedJson parsed = parse_json_finding_repeated_key(text);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(parsed.repeated_key, "key199999");
    EXPECT_EQ(parsed.value.size(), 200000u);
    EXPECT_LT(seconds, 10.0);
}

}  // namespace
}  // namespace swinup
