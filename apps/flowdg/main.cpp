// flowdg: the command-line program.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "flowdg/core/error.hpp"

int main(int argc, char** argv) {
  // Line-buffered output also into a pipe or a file: a run killed from outside (timeout, a batch
  // system) keeps every line it printed, as on a terminal.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  CLI::App app{"flowdg: GPU-first high-order discontinuous Galerkin solver"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "flowdg 0.1.0");
  flowdg::cli::add_info_command(app);
  flowdg::cli::add_mesh_commands(app);
  flowdg::cli::add_run_commands(app);
  flowdg::cli::add_bench_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // Prints the usage or the problem; --help and --version exit 0, every command-line error 2.
    return app.exit(error) == 0 ? 0 : 2;
  } catch (const flowdg::Error& error) {
    std::fprintf(stderr, "flowdg: error: %s\n", error.what());
    return error.exit_code();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "flowdg: error: %s\n", error.what());
    return 1;
  }
  return 0;
}
