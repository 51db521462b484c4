#pragma once
// Each subcommand family registers itself on the CLI11 app; main() only dispatches and reports errors.
#include <CLI/CLI.hpp>

namespace flowdg::cli {
void add_info_command(CLI::App& app);
void add_mesh_commands(CLI::App& app);
void add_run_commands(CLI::App& app);
}  // namespace flowdg::cli
