// `flowdg mesh info MESH`: loads, validates and summarises a mesh file or built-in mesh.
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/mesh/mesh_info.hpp"

namespace flowdg::cli {

void add_mesh_commands(CLI::App& app) {
  auto* mesh = app.add_subcommand("mesh", "Mesh tools");
  mesh->require_subcommand(1);

  struct Options {
    std::string spec;
    bool json = false;
  };
  // CLI11 keeps pointers to the option targets until parsing ends, after this function returns.
  auto options = std::make_shared<Options>();
  auto* info = mesh->add_subcommand(
      "info", std::string("Validate a mesh and print its sizes, boundary tags and quality; exit code 2 "
                          "if it is invalid.\n") + mesh_spec_help);
  info->add_option("MESH", options->spec, "Gmsh file or builtin:NAME?key=value&...")->required();
  info->add_flag("--json", options->json, "Print the summary as JSON");
  info->callback([options] {
    Mesh loaded = load_mesh(options->spec);
    const MeshInfo summary = mesh_info(loaded);
    const std::string text = options->json ? to_json(summary) : to_text(summary);
    std::fputs(text.c_str(), stdout);
    std::fflush(stdout);
    if (!summary.report.ok())
      throw InputError(cat("mesh ", summary.source, " is invalid: ", summary.report.errors.front()));
  });
}

}  // namespace flowdg::cli
