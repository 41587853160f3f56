// The CLI's subcommands. Each lives in its own cmd_<name>.cpp and adds itself to the app through
// its register function; main.cpp calls them all. A subcommand reports failure by throwing:
// UsageError (usage_error.h) for a bad or missing value, which main exits with 2 for, checked
// before the command does any work; any other std::exception for any other failure (exit 1). main
// prints "swinup: error: <what()>".
#pragma once

#include <CLI/CLI.hpp>

namespace swinup::cli {

void register_demo(CLI::App& app);     // cmd_demo.cpp: render, upscale, evaluate the built-in scene
void register_upscale(CLI::App& app);  // cmd_upscale.cpp: a sequence through the C API
void register_render(CLI::App& app);   // cmd_render.cpp: a scene to a sequence with ground truth
void register_eval(CLI::App& app);     // cmd_eval.cpp: metrics against ground truth and baselines
void register_bench(CLI::App& app);    // cmd_bench.cpp: time per stage and per frame
void register_info(CLI::App& app);     // cmd_info.cpp: variant, weights, backend, build

}  // namespace swinup::cli
