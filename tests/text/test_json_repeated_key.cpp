// parse_json_finding_repeated_key (text/json_repeated_key.h): the value json::parse gives, the
// first key given twice in one object, whatever the object's size or depth, and the refusal of
// documents nested deeper than kMaxJsonNesting; json_summary (text/json_summary.h).
#include <chrono>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "small_stack.h"
#include "text/json_repeated_key.h"
#include "text/json_summary.h"

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

std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string nested_objects(std::size_t depth) {
    std::string text;
    for (std::size_t i = 0; i < depth; ++i) text += "{\"a\": ";
    return text + "1" + std::string(depth, '}');
}

// The depth JsonNestingTooDeep reports for `text`, or 0 if it parses.
std::size_t refused_depth(const std::string& text) {
    try {
        parse_json_finding_repeated_key(text);
    } catch (const JsonNestingTooDeep& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(std::to_string(e.depth()) + " levels deep"), std::string::npos) << what;
        EXPECT_NE(what.find("limit of " + std::to_string(kMaxJsonNesting)), std::string::npos) << what;
        return e.depth();
    }
    return 0;
}

TEST(JsonNesting, DocumentsUpToTheLimitParse) {
    EXPECT_EQ(refused_depth(nested_arrays(kMaxJsonNesting)), 0u);
    EXPECT_EQ(refused_depth(nested_objects(kMaxJsonNesting)), 0u);
    const ParsedJson parsed = parse_json_finding_repeated_key(nested_arrays(kMaxJsonNesting));
    EXPECT_EQ(parsed.value, nlohmann::json::parse(nested_arrays(kMaxJsonNesting)));
    // Depth is how many arrays and objects are open at once, not how many there are in all.
    std::string wide = "[";
    for (int i = 0; i < 1000; ++i) wide += nested_arrays(kMaxJsonNesting - 1) + ",";
    wide += "1]";
    EXPECT_EQ(refused_depth(wide), 0u);
    EXPECT_NO_THROW(check_json_nesting(wide));
}

// A 200 KB document nested 100,000 deep: refused before any value that deep exists, on a small
// thread stack, with its whole depth named (arrays, objects, and both mixed).
TEST(JsonNesting, DeeperDocumentsAreRefusedNamingTheirDepthAndTheLimit) {
    test::run_on_small_stack([] {
        EXPECT_EQ(refused_depth(nested_arrays(kMaxJsonNesting + 1)), kMaxJsonNesting + 1);
        EXPECT_EQ(refused_depth(nested_arrays(100000)), 100000u);
        EXPECT_EQ(refused_depth(nested_objects(100000)), 100000u);
        EXPECT_EQ(refused_depth("{\"k\": [1, " + nested_objects(50) + ", {\"x\": " + nested_arrays(300) + "}]}"),
                  303u);
        // Refused as JSON that cannot be read, by readers that catch json::exception.
        EXPECT_THROW(parse_json_finding_repeated_key(nested_arrays(1000)), nlohmann::json::exception);
    });
}

TEST(JsonNesting, TheCheckAloneMeasuresTheSameDepthAndLeavesMalformedTextToItsParser) {
    test::run_on_small_stack([] {
        EXPECT_NO_THROW(check_json_nesting(nested_objects(kMaxJsonNesting)));
        try {
            check_json_nesting(nested_objects(100000));
            ADD_FAILURE() << "not refused";
        } catch (const JsonNestingTooDeep& e) {
            EXPECT_EQ(e.depth(), 100000u);
        }
        EXPECT_NO_THROW(check_json_nesting("{ not json"));
        EXPECT_NO_THROW(check_json_nesting("[[[1] x"));
        // Text that goes wrong only after it went too deep is still too deep.
        EXPECT_THROW(check_json_nesting(std::string(1000, '[') + "x"), JsonNestingTooDeep);
    });
}

TEST(JsonSummary, NamesAValueInAFewCharacters) {
    EXPECT_EQ(json_summary(nlohmann::json::parse("-3")), "-3");
    EXPECT_EQ(json_summary(nlohmann::json::parse("2.5")), "2.5");
    EXPECT_EQ(json_summary(nlohmann::json::parse("true")), "true");
    EXPECT_EQ(json_summary(nlohmann::json::parse("null")), "null");
    EXPECT_EQ(json_summary(nlohmann::json::parse("\"a\\nb\"")), "\"a?b\"");
    EXPECT_EQ(json_summary(nlohmann::json::parse("[1]")), "an array of 1 element");
    EXPECT_EQ(json_summary(nlohmann::json::parse(nested_arrays(100))), "an array of 1 element");
    EXPECT_EQ(json_summary(nlohmann::json::parse("{\"a\": 1, \"b\": [2]}")), "an object of 2 keys");
    nlohmann::json big = nlohmann::json::array();
    for (int i = 0; i < 100000; ++i) big.push_back(i);
    EXPECT_EQ(json_summary(big), "an array of 100000 elements");
    const std::string long_text = json_summary(std::string(1 << 20, 'x'));
    EXPECT_EQ(long_text, "\"" + std::string(kJsonSummaryStringChars, 'x') + "...\"");
    // A cut never splits a UTF-8 character: 39 'x' then a two-byte e-acute.
    EXPECT_EQ(json_summary(std::string(39, 'x') + "\xc3\xa9yyy"), "\"" + std::string(39, 'x') + "...\"");
}

}  // namespace
}  // namespace swinup
