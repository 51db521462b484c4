#pragma once
// Each subcommand family registers itself on the CLI11 app; main() only dispatches and reports errors.
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "flowdg/parallel/communicator.hpp"

namespace flowdg::cli {
void add_info_command(CLI::App& app);
void add_mesh_commands(CLI::App& app);
void add_run_commands(CLI::App& app);
void add_bench_command(CLI::App& app);
/// "0..3", "1,2,4" or "2"; InputError naming `what` otherwise.
std::vector<int> parse_int_list(const std::string& text, const char* what);
/// The run's ranks: MPI's world when started by mpirun (main.cpp), else one rank.
const std::shared_ptr<const Communicator>& world();
void set_world(std::shared_ptr<const Communicator> communicator);
}  // namespace flowdg::cli
