// swinup: the command-line tool. Subcommands register themselves (commands.h); this file only
// parses and turns every failure into one line "swinup: error: <message>" and a non-zero exit.
#include <cstdio>
#include <exception>
#include <string>

#include "commands.h"
#include "swinup/swinup.h"

int main(int argc, char** argv) {
    CLI::App app{"swinup: an open real-time neural temporal upscaler (Swin-transformer U-Net)",
                 "swinup"};
    app.set_version_flag("--version", std::to_string(SWINUP_VERSION_MAJOR) + "." +
                                          std::to_string(SWINUP_VERSION_MINOR) + "." +
                                          std::to_string(SWINUP_VERSION_PATCH));
    app.require_subcommand(1);

    swinup::cli::register_demo(app);
    swinup::cli::register_upscale(app);
    swinup::cli::register_render(app);
    swinup::cli::register_eval(app);
    swinup::cli::register_bench(app);
    swinup::cli::register_info(app);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        std::fprintf(stderr, "swinup: error: %s\n(run 'swinup --help' for usage)\n", e.what());
        return e.get_exit_code();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "swinup: error: %s\n", e.what());
        return 1;
    }
    return 0;
}
