// `flowdg mesh info FILE` (being written; see issue 3).
#include "commands.hpp"

namespace flowdg::cli {
void add_mesh_commands(CLI::App& app) { app.add_subcommand("mesh", "Mesh tools")->require_subcommand(1); }
}  // namespace flowdg::cli
