// swinup: the command-line tool. Subcommands register themselves (commands.h); this file only
// parses and turns every failure into one line "swinup: error: <message>" and an exit status:
// 2 for a usage error (an unknown command or option, a bad or missing value: anything CLI11
// reports as a parse error, and the commands' own checks of values, UsageError), 1 for any other
// failure.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "command_suggestion.h"
#include "commands.h"
#include "swinup/swinup.h"
#include "usage_error.h"

namespace {

// CLI11 gives each kind of parse error its own code (105, 106, 109, ...); scripts need one.
constexpr int kUsageError = 2;

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"swinup: an open real-time neural temporal upscaler (Swin-transformer U-Net)",
                 "swinup"};
    app.set_version_flag("--version", std::to_string(SWINUP_VERSION_MAJOR) + "." +
                                          std::to_string(SWINUP_VERSION_MINOR) + "." +
                                          std::to_string(SWINUP_VERSION_PATCH));
    app.require_subcommand(1);
    app.footer("Exit status: 0 on success, 2 on a usage error (unknown command or option, a bad "
               "or missing value), 1 on any other error.");

    swinup::cli::register_demo(app);
    swinup::cli::register_upscale(app);
    swinup::cli::register_render(app);
    swinup::cli::register_eval(app);
    swinup::cli::register_bench(app);
    swinup::cli::register_info(app);

    // The top level takes only flags, so a first argument that is not one must name a command.
    if (argc > 1 && argv[1][0] != '-') {
        std::vector<std::string> names;
        for (const CLI::App* command : app.get_subcommands({})) names.push_back(command->get_name());
        if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
            std::fprintf(stderr, "swinup: error: %s\n",
                         swinup::cli::unknown_command_message(argv[1], names).c_str());
            return kUsageError;
        }
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        std::fprintf(stderr, "swinup: error: %s\n(run 'swinup --help' for usage)\n", e.what());
        return kUsageError;
    } catch (const swinup::cli::UsageError& e) {
        std::fprintf(stderr, "swinup: error: %s\n(run 'swinup --help' for usage)\n", e.what());
        return kUsageError;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swinup: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
