#include "command_line.h"

#include <algorithm>
#include <cctype>

namespace swinup::cli {

std::string shell_word(const std::string& value) {
    const bool safe = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string("-_./,=:+@%").find(c) != std::string::npos;
    });
    if (safe) return value;
    std::string quoted = "'";
    for (char c : value) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string command_line_of(const CLI::App& command) {
    std::string line = "swinup " + command.get_name();
    for (const CLI::Option* option : command.get_options()) {
        if (option->count() == 0 || option == command.get_help_ptr()) continue;
        const std::string name = option->nonpositional()
                                     ? (option->get_lnames().empty() ? "-" + option->get_snames()[0]
                                                                     : "--" + option->get_lnames()[0])
                                     : std::string();
        if (option->get_type_size_max() == 0) {  // a flag
            line += " " + name;
            continue;
        }
        for (const std::string& value : option->results()) {
            line += (name.empty() ? "" : " " + name) + " " + shell_word(value);
        }
    }
    return line;
}

}  // namespace swinup::cli
