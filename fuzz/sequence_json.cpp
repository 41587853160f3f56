// Fuzzes sequence.json's reader (sequence_info_from_json), the first thing `swinup upscale` and
// `swinup eval` read of a sequence folder.
// Promises checked: the reader returns or throws SequenceError (anything else escaping is a
// crash here); an accepted file passes sequence_info_validate; and it writes back to text that
// reads as the same sequence (writing that text again gives the same text).
#include <cstddef>
#include <cstdint>
#include <string>

#include "sequence/sequence.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    swinup::SequenceInfo info;
    try {
        info = swinup::sequence_info_from_json(text, "sequence.json");
    } catch (const swinup::SequenceError& e) {
        FUZZ_CHECK(std::string(e.what()).rfind("sequence.json: ", 0) == 0,
                   std::string("the error does not name the file: ") + e.what());
        return 0;
    }
    try {
        swinup::sequence_info_validate(info, "accepted");
    } catch (const swinup::SequenceError& e) {
        swinup::fuzz::broken_promise(__FILE__, __LINE__, std::string("accepted but invalid: ") + e.what());
    }
    const std::string written = swinup::sequence_info_to_json(info);
    swinup::SequenceInfo back;
    try {
        back = swinup::sequence_info_from_json(written, "written");
    } catch (const swinup::SequenceError& e) {
        swinup::fuzz::broken_promise(__FILE__, __LINE__,
                                     std::string("its own text is refused: ") + e.what() + "\n" + written);
    }
    const std::string again = swinup::sequence_info_to_json(back);
    FUZZ_CHECK(again == written, "not the same after a round trip:\n" + written + "\n" + again);
    return 0;
}
