// `flowdg run` and `flowdg convergence`.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "flowdg/backend/backend.hpp"
#include "flowdg/cases/distributed.hpp"
#include "flowdg/cases/run.hpp"
#include "flowdg/cases/sipg_case.hpp"
#include "flowdg/core/config.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/io/json.hpp"

namespace flowdg::cli {

namespace {

struct CaseArguments {
  std::string file;
  std::vector<std::string> overrides;
  std::string backend = "auto";
  std::string output;
  std::string restart;
};

void add_case_options(CLI::App* command, CaseArguments& arguments) {
  command->add_option("case", arguments.file, "Case file (TOML); without it, the built-in default case");
  command->add_option("--set", arguments.overrides, "Override a case value: section.key=value (repeatable)");
  command->add_option("--backend", arguments.backend, "cpu, cuda or auto (cuda when a GPU is present)")
      ->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  command->add_option("--output", arguments.output, "Output directory (default: [output] directory, or runs/<case name>)");
  command->add_option("--restart", arguments.restart, "Continue from a checkpoint (.h5) written by an earlier run of the same case")
      ->check(CLI::ExistingFile);
}

Config read_config(const CaseArguments& arguments, Backend backend) {
  Config config = arguments.file.empty() ? Config::from_string(default_case_toml(backend), "builtin:default-case")
                                         : Config::from_file(arguments.file);
  for (const std::string& assignment : arguments.overrides) config.set(assignment);
  if (!arguments.output.empty()) config.set("output.directory=" + json::quote(arguments.output));
  return config;
}

Backend choose_backend(const std::string& name) {
  const Backend backend = parse_backend(name);
  if (world()->rank() == 0) std::printf("flowdg: backend %s\n", describe(backend).c_str());
  return backend;
}

}  // namespace

std::vector<int> parse_int_list(const std::string& text, const char* what) {
  std::vector<int> values;
  try {
    const auto dots = text.find("..");
    if (dots != std::string::npos) {
      const int first = std::stoi(text.substr(0, dots)), last = std::stoi(text.substr(dots + 2));
      for (int value = first; value <= last; ++value) values.push_back(value);
    } else {
      std::size_t start = 0;
      while (start <= text.size()) {
        const auto comma = text.find(',', start);
        values.push_back(std::stoi(text.substr(start, comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    }
  } catch (const std::exception&) {
    throw InputError(cat(what, " '", text, "': expected a list like 1,2,3 or a range like 0..3"));
  }
  if (values.empty()) throw InputError(cat(what, " '", text, "' is empty"));
  return values;
}

void add_run_commands(CLI::App& app) {
  static CaseArguments run_arguments;
  auto* run = app.add_subcommand("run", "Run a case (the built-in double Mach reflection when no case file is given)");
  add_case_options(run, run_arguments);
  run->callback([] {
    const Backend backend = choose_backend(run_arguments.backend);
    const Config config = read_config(run_arguments, backend);
    if (is_sipg_case(config)) {  // a polytopic SIPG problem, steady or in space-time slabs (cases/sipg_case.hpp)
      run_sipg_case(config, backend, run_arguments.restart, world());
      return;
    }
    Case problem = load_case(config, backend, world());  // a partitioned mesh: each rank reads its part
    distribute_case(problem, world());  // mpirun -np N: this rank's part (one rank: the whole mesh)
    RunOptions options;
    options.restart = run_arguments.restart;
    run_case(problem, options);
  });

  static CaseArguments convergence_arguments;
  static std::string orders_text = "1,2,3", levels_text = "0..2";
  auto* convergence = app.add_subcommand(
      "convergence", "Run a case on successively refined meshes and orders; print and write the error table");
  add_case_options(convergence, convergence_arguments);
  convergence->add_option("--orders", orders_text, "Polynomial orders, e.g. 1,2,3,4");
  convergence->add_option("--levels", levels_text, "Uniform refinement levels added to the case's mesh, e.g. 0..3");
  convergence->callback([] {
    const std::vector<int> orders = parse_int_list(orders_text, "--orders");
    const std::vector<int> levels = parse_int_list(levels_text, "--levels");
    if (!convergence_arguments.restart.empty()) throw InputError("convergence does not take --restart");
    if (world()->size() > 1) throw InputError("convergence runs on one rank (its runs are small); run it without mpirun");
    const Backend backend = choose_backend(convergence_arguments.backend);
    const Config base = read_config(convergence_arguments, backend);
    if (is_sipg_case(base))
      throw InputError("convergence refines explicit cases' meshes; for a SIPG case use tools/sipg_convergence.py (agglomerate counts and degrees)");
    const long long base_refine = base.table("mesh").integer_or("refine", 0);
    std::string output_directory;
    // errors[order index][level index]
    std::vector<std::vector<double>> errors(orders.size(), std::vector<double>(levels.size(), NAN));
    std::vector<long long> elements(levels.size(), 0);
    std::vector<std::string> runs_json;
    for (std::size_t o = 0; o < orders.size(); ++o)
      for (std::size_t l = 0; l < levels.size(); ++l) {
        Config config = base;
        config = Config::from_string(base.to_toml(), base.where());
        config.set(cat("solver.order=", orders[o]));
        config.set(cat("mesh.refine=", base_refine + levels[l]));
        Case problem = load_case(config, backend);
        if (output_directory.empty()) output_directory = problem.output_directory;
        problem.output_directory = cat(output_directory, "/p", orders[o], "_level", levels[l]);
        std::printf("\n== p = %d, level %d ==\n", orders[o], levels[l]);
        const RunResult result = run_case(problem);
        errors[o][l] = result.errors ? result.errors->l2[0] : NAN;
        elements[l] = problem.mesh.n_elements();
        json::Object entry;
        entry.add_integer("order", orders[o]).add_integer("level", levels[l]).add_integer("elements", elements[l])
            .add_number("l2_density", errors[o][l]).add_integer("steps", result.steps)
            .add_bool("steady_converged", result.converged).add_number("wall_seconds", result.wall_seconds);
        runs_json.push_back(entry.str());
      }
    // Rates: each level halves h.
    auto rate = [&](std::size_t o, std::size_t l) {
      return std::log(errors[o][l - 1] / errors[o][l]) / std::log(std::pow(2.0, levels[l] - levels[l - 1]));
    };
    std::string table = "| level | elements |";
    std::string rule = "|---|---|";
    for (int p : orders) {
      table += cat(" p = ", p, " L2(rho) | rate |");
      rule += "---|---|";
    }
    table += "\n" + rule + "\n";
    for (std::size_t l = 0; l < levels.size(); ++l) {
      table += cat("| ", levels[l], " | ", elements[l], " |");
      for (std::size_t o = 0; o < orders.size(); ++o) {
        char cell[64];
        if (l == 0) {
          std::snprintf(cell, sizeof cell, " %.3e | - |", errors[o][l]);
        } else {
          std::snprintf(cell, sizeof cell, " %.3e | %.2f |", errors[o][l], rate(o, l));
        }
        table += cell;
      }
      table += "\n";
    }
    std::printf("\n%s", table.c_str());
    std::filesystem::create_directories(output_directory);
    std::ofstream(output_directory + "/convergence.md") << table;
    json::Object document;
    document.add_string("case", base.where()).add_string("backend", to_string(backend)).add("runs", json::array(runs_json));
    std::ofstream(output_directory + "/convergence.json") << document.str() << "\n";
    std::printf("flowdg: wrote %s/convergence.md and convergence.json\n", output_directory.c_str());
  });
}

}  // namespace flowdg::cli
