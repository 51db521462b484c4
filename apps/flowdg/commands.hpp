#pragma once
// Each subcommand family registers itself on the CLI11 app; main() only dispatches and reports errors.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace flowdg::cli {
void add_info_command(CLI::App& app);
void add_mesh_commands(CLI::App& app);
void add_run_commands(CLI::App& app);
void add_bench_command(CLI::App& app);
/// "0..3", "1,2,4" or "2"; InputError naming `what` otherwise.
std::vector<int> parse_int_list(const std::string& text, const char* what);
}  // namespace flowdg::cli
