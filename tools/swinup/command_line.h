// The command line a subcommand was run with, rebuilt from what CLI11 parsed: "swinup demo
// --frames 8 --scene orbit". Reports print it so that a run can be repeated exactly.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace swinup::cli {

// "swinup <name>" followed by every option given on the command line (long name, values quoted
// for a POSIX shell where needed), in the order the options were registered. Options left out
// have their defaults, so the line repeats the run.
std::string command_line_of(const CLI::App& command);

// A value as one POSIX shell word: as it is when it holds only safe characters, else in single
// quotes.
std::string shell_word(const std::string& value);

}  // namespace swinup::cli
