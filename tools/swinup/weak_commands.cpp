// Empty stand-ins for subcommands whose cmd_<name>.cpp is not written yet, so the CLI builds and
// runs while the parts are developed in parallel. They are weak symbols: the real definitions in
// cmd_render.cpp, cmd_eval.cpp, cmd_demo.cpp and cmd_bench.cpp override them at link time, and a
// stand-in simply registers no subcommand.
#include "commands.h"

namespace swinup::cli {

[[gnu::weak]] void register_demo(CLI::App&) {}
[[gnu::weak]] void register_render(CLI::App&) {}
[[gnu::weak]] void register_eval(CLI::App&) {}
[[gnu::weak]] void register_bench(CLI::App&) {}

}  // namespace swinup::cli
