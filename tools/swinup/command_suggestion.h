// A misspelt subcommand ("swinup upscal") is answered with the registered name nearest to it.
#pragma once

#include <string>
#include <vector>

namespace swinup::cli {

// Levenshtein distance: single-character insertions, deletions and substitutions.
int edit_distance(const std::string& a, const std::string& b);

// The message for a first argument that names no command: "unknown command 'upscal'; did you
// mean 'upscale'?" when one name is within a third of its length (at least 2) edits, otherwise
// the list of commands.
std::string unknown_command_message(const std::string& typed, const std::vector<std::string>& names);

}  // namespace swinup::cli
