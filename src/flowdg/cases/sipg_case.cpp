#include "flowdg/cases/sipg_case.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <vector>

#include "flowdg/backend/memory.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/io/json.hpp"
#include "flowdg/linalg/direct.hpp"
#include "flowdg/linalg/krylov.hpp"
#include "flowdg/linalg/ops.hpp"
#include "flowdg/linalg/preconditioner.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh_info.hpp"
#include "flowdg/poly/agglomerate.hpp"
#include "flowdg/poly/poly_mesh.hpp"
#include "flowdg/poly/poly_vtu.hpp"
#include "flowdg/poly/problem.hpp"
#include "flowdg/poly/sipg.hpp"

namespace flowdg {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// The case's solver settings ([solver] of a sipg case).
struct SolverSettings {
  poly::SipgOptions sipg;
  poly::AssemblyMethod assembly = poly::AssemblyMethod::deterministic;
  std::string precision = "double";
  std::string linear_solver = "auto";  // auto, direct, cg, gmres, bicgstab
  std::string preconditioner = "block-jacobi";
  linalg::KrylovOptions krylov;
  long long direct_limit = 200000;  // auto: the direct solve up to this many unknowns
};

SolverSettings read_solver(const Config& table) {
  table.allow_only({"method", "degree", "penalty", "penalty_cap", "quadrature_extra", "assembly", "precision", "linear_solver",
                    "preconditioner", "tolerance", "absolute_tolerance", "max_iterations", "restart", "direct_limit"});
  SolverSettings s;
  const long long degree = table.integer_or("degree", 1);
  if (degree < 1 || degree > poly::max_degree)
    throw InputError(cat(table.where(), " degree = ", degree, ": SIPG takes degrees 1 to ", poly::max_degree));
  s.sipg.degree = static_cast<int>(degree);
  s.sipg.penalty = table.double_or("penalty", s.sipg.penalty);
  if (!(s.sipg.penalty > 0)) throw InputError(cat(table.where(), " penalty = ", s.sipg.penalty, ": must be positive (default 3)"));
  s.sipg.penalty_cap = table.bool_or("penalty_cap", false);
  const long long extra = table.integer_or("quadrature_extra", s.sipg.quadrature_extra);
  if (extra < 0 || extra > 4) throw InputError(cat(table.where(), " quadrature_extra = ", extra, ": 0 to 4"));
  s.sipg.quadrature_extra = static_cast<int>(extra);
  s.assembly = poly::parse_assembly_method(table.string_or("assembly", "deterministic"), table.where() + " assembly");
  s.precision = table.string_or("precision", "double");
  if (s.precision != "double" && s.precision != "single")
    throw InputError(cat(table.where(), " precision = \"", s.precision, "\": double or single"));
  s.linear_solver = table.string_or("linear_solver", "auto");
  if (s.linear_solver != "auto" && s.linear_solver != "direct" && s.linear_solver != "cg" && s.linear_solver != "gmres" &&
      s.linear_solver != "bicgstab")
    throw InputError(cat(table.where(), " linear_solver = \"", s.linear_solver, "\": auto, direct, cg, gmres or bicgstab"));
  s.preconditioner = table.string_or("preconditioner", "block-jacobi");
  if (s.preconditioner != "block-jacobi" && s.preconditioner != "none")
    throw InputError(cat(table.where(), " preconditioner = \"", s.preconditioner, "\": block-jacobi or none"));
  s.krylov.relative_tolerance = table.double_or("tolerance", 1e-10);
  s.krylov.absolute_tolerance = table.double_or("absolute_tolerance", 0);
  if (!(s.krylov.relative_tolerance > 0) && !(s.krylov.absolute_tolerance > 0))
    throw InputError(cat(table.where(), ": tolerance (relative) or absolute_tolerance must be positive"));
  const long long iterations = table.integer_or("max_iterations", 5000);
  if (iterations < 1) throw InputError(cat(table.where(), " max_iterations = ", iterations, ": at least 1"));
  s.krylov.max_iterations = static_cast<int>(std::min<long long>(iterations, 1000000000));
  const long long restart = table.integer_or("restart", 100);
  if (restart < 1 || restart > 2000) throw InputError(cat(table.where(), " restart = ", restart, ": 1 to 2000"));
  s.krylov.restart = static_cast<int>(restart);
  s.direct_limit = table.integer_or("direct_limit", s.direct_limit);
  return s;
}

std::string resolve_path(const std::string& spec, const std::string& directory) {
  if (spec.rfind("builtin:", 0) == 0 || directory.empty() || std::filesystem::path(spec).is_absolute()) return spec;
  const auto relative = std::filesystem::path(directory) / spec;
  return std::filesystem::exists(relative) ? relative.string() : spec;
}

/// What the solve did, in double whatever the precision.
struct SolveOutcome {
  std::vector<double> solution;
  std::string method;
  std::optional<linalg::SolveResult> krylov;  // the Krylov solvers
  bool converged = false;
  std::string failure;  // why not converged (a NumericalError's message, or describe(result))
  double seconds = 0;
  double preconditioner_seconds = 0;
};

template <class Real>
SolveOutcome assemble_and_solve(const poly::SipgDiscretisation& sipg, const SolverSettings& s, Backend backend,
                                poly::AssemblyTimes& times) {
  poly::AssembledSystem<Real> system = sipg.assemble<Real>(s.assembly);
  times = system.times;
  SolveOutcome out;
  std::string method = s.linear_solver;
  if (method == "auto")
    method = sipg.dofs() <= s.direct_limit ? "direct" : sipg.symmetric() ? "cg" : "gmres";
  if (method == "cg" && !sipg.symmetric())
    std::printf("flowdg: warning: linear_solver = \"cg\" on a non-symmetric system (advection): CG may not converge; gmres or bicgstab fit\n");
  const auto start = Clock::now();
  if (method == "direct") {
    out.method = "sparse LU (Eigen, double)";
    try {
      const std::vector<Real> x = linalg::sparse_lu_solve(system.matrix, system.rhs.to_host());
      out.solution.assign(x.begin(), x.end());
      out.converged = true;
    } catch (const NumericalError& error) {
      out.failure = error.what();
      out.solution.assign(static_cast<std::size_t>(sipg.dofs()), 0.0);
    }
    out.seconds = seconds_since(start);
    return out;
  }
  const Space space = space_of(backend);
  const auto preconditioner_start = Clock::now();
  std::unique_ptr<linalg::Preconditioner<Real>> preconditioner;
  if (s.preconditioner == "block-jacobi") {
    try {
      preconditioner = std::make_unique<linalg::BlockJacobi<Real>>(system.matrix, sipg.dof_start(), space);
    } catch (const NumericalError& error) {
      out.failure = cat(error.what(), " (try preconditioner = \"none\")");
      out.solution.assign(static_cast<std::size_t>(sipg.dofs()), 0.0);
      out.method = method;
      return out;
    }
  } else {
    preconditioner = std::make_unique<linalg::IdentityPreconditioner<Real>>();
  }
  out.preconditioner_seconds = seconds_since(preconditioner_start);
  Array<Real> x(space, system.matrix.rows);
  linalg::fill<Real>(backend, 0, x.view());
  linalg::KrylovOptions options = s.krylov;
  const int every = std::max(1, options.max_iterations / 20);
  options.on_iteration = [every](int iteration, double residual) {
    if (iteration % every == 0) std::printf("  iteration %d: relative residual %.3e\n", iteration, residual);
  };
  linalg::SolveResult result;
  if (method == "cg") result = linalg::cg<Real>(backend, system.matrix, system.rhs.view(), x.view(), *preconditioner, options);
  else if (method == "gmres") result = linalg::gmres<Real>(backend, system.matrix, system.rhs.view(), x.view(), *preconditioner, options);
  else result = linalg::bicgstab<Real>(backend, system.matrix, system.rhs.view(), x.view(), *preconditioner, options);
  const std::vector<Real> solution = x.to_host();
  out.solution.assign(solution.begin(), solution.end());
  out.method = result.method;
  out.converged = result.converged;
  if (!result.converged) out.failure = linalg::describe(result);
  out.seconds = seconds_since(start);
  out.krylov = std::move(result);
  return out;
}

std::string times_json(const poly::AssemblyTimes& t) {
  json::Object o;
  o.add_number("setup", t.setup).add_number("pattern", t.pattern).add_number("element", t.element).add_number("interior", t.interior)
      .add_number("boundary", t.boundary).add_number("indices", t.indices).add_number("rhs", t.rhs).add_number("total", t.total)
      .add_integer("coo_entries", t.coo_entries).add_integer("nonzeros", t.nonzeros);
  return o.str(2);
}

}  // namespace

bool is_sipg_case(const Config& config) { return config.table("solver").string_or("method", "") == "sipg"; }

SipgCaseResult run_sipg_case(const Config& config, Backend backend) {
  const auto run_start = Clock::now();
  config.allow_only({"case", "mesh", "solver", "problem", "output"});
  const Config case_table = config.table("case");
  case_table.allow_only({"name", "description"});
  const std::string name = case_table.string_or("name", "sipg");
  const SolverSettings settings = read_solver(config.table("solver"));
  const Config mesh_table = config.table("mesh");
  mesh_table.allow_only({"file", "agglomerate", "agglomeration", "sub_simplices", "seed"});
  const Config output = config.table("output");
  output.allow_only({"directory", "vtu"});
  const std::string directory = output.string_or("directory", cat("runs/", name));
  const bool write_vtu = output.bool_or("vtu", true);
  const long long requested = mesh_table.integer_or("agglomerate", 0);
  if (requested < 0) throw InputError(cat(mesh_table.where(), " agglomerate = ", requested, ": 0 (the fine simplices as they are) or more"));
  const std::string agglomeration_method = mesh_table.string_or("agglomeration", "metis");
  if (agglomeration_method != "metis" && agglomeration_method != "bisection")
    throw InputError(cat(mesh_table.where(), " agglomeration = \"", agglomeration_method, "\": metis or bisection"));
  const std::string sub_simplices = mesh_table.string_or("sub_simplices", "coarse");
  if (sub_simplices != "coarse" && sub_simplices != "fine")
    throw InputError(cat(mesh_table.where(), " sub_simplices = \"", sub_simplices, "\": coarse or fine"));
  const long long seed = mesh_table.integer_or("seed", 1);

  // ---- mesh
  auto start = Clock::now();
  const std::string spec = resolve_path(mesh_table.require_string("file"), config.directory());
  Mesh fine = load_mesh(spec);
  const Connectivity connectivity = build_connectivity(fine);
  if (requested > fine.n_elements())
    throw InputError(cat(mesh_table.where(), " agglomerate = ", requested, ": the mesh ", spec, " has only ", fine.n_elements(),
                         " elements to agglomerate (0 uses them as they are)"));
  std::vector<index_t> assignment(static_cast<std::size_t>(fine.n_elements()));
  std::string note;
  if (requested == 0) {
    std::iota(assignment.begin(), assignment.end(), index_t(0));
  } else {
    poly::Agglomeration a = agglomeration_method == "metis"
                                ? poly::agglomerate_metis(fine, connectivity, static_cast<index_t>(requested), static_cast<int>(seed))
                                : std::move(poly::agglomerate_bisection(fine, connectivity, static_cast<index_t>(requested)).front());
    assignment = std::move(a.agglomerate);
    note = a.note;
  }
  poly::PolyMeshOptions build;
  build.quadrature = sub_simplices == "fine" ? poly::SubSimplices::fine : poly::SubSimplices::coarse;
  const poly::PolyMesh mesh = poly::build_poly_mesh(fine, connectivity, assignment, build);
  const double mesh_seconds = seconds_since(start);
  std::printf("flowdg: %s: %lld fine %s agglomerated into %lld elements (%s) in %.3g s\n", spec.c_str(),
              static_cast<long long>(fine.n_elements()), mesh.dimension == 2 ? "triangles" : "tetrahedra",
              static_cast<long long>(mesh.n_elements()), requested == 0 ? "as they are" : agglomeration_method.c_str(), mesh_seconds);
  if (!note.empty()) std::printf("flowdg: note: %s\n", note.c_str());

  // ---- problem and discretisation
  const poly::PolyProblem problem = poly::make_problem(config.table("problem"), mesh);
  std::printf("flowdg: problem %s\n", problem.description.c_str());
  for (const std::string& warning : problem.warnings) std::printf("flowdg: warning: %s\n", warning.c_str());
  start = Clock::now();
  const poly::SipgDiscretisation sipg(mesh, problem.coefficients, settings.sipg, backend);
  std::printf("flowdg: SIPG p = %d, %lld unknowns, volume rule of degree %d, penalty C = %g%s (set-up %.3g s)\n", settings.sipg.degree,
              static_cast<long long>(sipg.dofs()), sipg.volume_rule_degree(), settings.sipg.penalty,
              settings.sipg.penalty_cap ? " capped" : "", seconds_since(start));

  poly::AssemblyTimes times;
  const SolveOutcome solve = settings.precision == "double" ? assemble_and_solve<double>(sipg, settings, backend, times)
                                                            : assemble_and_solve<float>(sipg, settings, backend, times);
  std::printf("flowdg: assembled (%s, %s) in %.3g s: %lld nonzeros\n", poly::assembly_method_name(settings.assembly),
              settings.precision.c_str(), times.total, static_cast<long long>(times.nonzeros));
  if (solve.krylov) std::printf("flowdg: %s\n", linalg::describe(*solve.krylov).c_str());
  else if (solve.converged) std::printf("flowdg: %s solve in %.3g s\n", solve.method.c_str(), solve.seconds);

  // ---- errors and output (also when the solve failed: what it reached is kept)
  SipgCaseResult result;
  result.elements = mesh.n_elements();
  result.dofs = sipg.dofs();
  result.converged = solve.converged;
  result.output_directory = directory;
  poly::SipgErrors errors;
  if (problem.has_exact()) {
    errors = sipg.errors(solve.solution, problem.exact, problem.exact_gradient);
    result.has_errors = true;
    result.l2_error = errors.l2;
    result.dg_error = errors.dg;
    std::printf("flowdg: errors: L2 %.6e, DG norm %.6e, broken H1 %.6e\n", errors.l2, errors.dg, errors.h1);
  }
  std::filesystem::create_directories(directory);
  std::ofstream(directory + "/case.toml") << config.to_toml();
  if (solve.krylov) {
    std::ofstream csv(directory + "/residuals.csv");
    csv << "iteration,relative_residual\n";
    char line[64];
    std::snprintf(line, sizeof line, "0,%.17g\n", solve.krylov->initial_relative_residual);
    csv << line;
    for (std::size_t i = 0; i < solve.krylov->history.size(); ++i) {
      std::snprintf(line, sizeof line, "%zu,%.17g\n", i + 1, solve.krylov->history[i]);
      csv << line;
    }
  }
  if (write_vtu) {
    std::vector<poly::PolyVtuField> fields;
    fields.push_back({"u", 1, sipg.sample_at_fine_vertices(solve.solution)});
    if (problem.has_exact()) {
      std::vector<Point3> points(mesh.fine_vertices.size());
      for (std::size_t i = 0; i < points.size(); ++i) points[i] = mesh.nodes[static_cast<std::size_t>(mesh.fine_vertices[i])];
      std::vector<double> exact(points.size()), error(points.size());
      problem.exact(points, exact.data());
      for (std::size_t i = 0; i < points.size(); ++i) error[i] = fields[0].values[i] - exact[i];
      fields.push_back({"u_exact", 1, std::move(exact)});
      fields.push_back({"error", 1, std::move(error)});
    }
    poly::write_poly_vtu(directory + "/solution.vtu", mesh, fields);
  }

  json::Object summary;
  summary.add_string("case", config.where()).add_string("name", name).add_string("method", "sipg")
      .add_string("backend", to_string(backend)).add_string("device", describe(backend));
  json::Object mesh_json;
  mesh_json.add_string("file", spec).add_integer("fine_elements", fine.n_elements()).add_integer("elements", mesh.n_elements())
      .add_integer("agglomerate_requested", requested).add_string("agglomeration", requested == 0 ? "none" : agglomeration_method)
      .add_integer("dimension", mesh.dimension).add_integer("interior_subfaces", mesh.n_interior_subfaces())
      .add_integer("boundary_subfaces", mesh.n_boundary_subfaces()).add_integer("quadrature_simplices", mesh.quadrature.n_simplices())
      .add_string("sub_simplices", sub_simplices).add_number("seconds", mesh_seconds).add_string("note", note);
  summary.add("mesh", mesh_json.str(2));
  summary.add_string("problem", problem.description).add("warnings", [&] {
    std::vector<std::string> quoted;
    for (const auto& w : problem.warnings) quoted.push_back(json::quote(w));
    return json::array(quoted);
  }());
  summary.add_integer("degree", settings.sipg.degree).add_integer("dofs", sipg.dofs()).add_number("penalty", settings.sipg.penalty)
      .add_bool("penalty_cap", settings.sipg.penalty_cap).add_integer("volume_rule_degree", sipg.volume_rule_degree())
      .add_string("assembly", poly::assembly_method_name(settings.assembly)).add_string("precision", settings.precision)
      .add("assembly_seconds", times_json(times));
  json::Object solver_json;
  solver_json.add_string("method", solve.method).add_bool("converged", solve.converged).add_number("seconds", solve.seconds)
      .add_number("preconditioner_seconds", solve.preconditioner_seconds).add_string("failure", solve.failure);
  if (solve.krylov) {
    solver_json.add_string("preconditioner", solve.krylov->preconditioner).add_integer("iterations", solve.krylov->iterations)
        .add_number("relative_residual", solve.krylov->relative_residual)
        .add_number("relative_tolerance", solve.krylov->relative_tolerance);
  }
  summary.add("solver", solver_json.str(2));
  if (problem.has_exact()) {
    json::Object e;
    e.add_number("l2", errors.l2).add_number("dg", errors.dg).add_number("h1", errors.h1).add_number("jumps", errors.jumps);
    summary.add("errors", e.str(2));
  }
  summary.add_number("wall_seconds", seconds_since(run_start));
  std::ofstream(directory + "/summary.json") << summary.str() << "\n";
  std::printf("flowdg: wrote %s/summary.json%s\n", directory.c_str(), write_vtu ? ", solution.vtu and solution_outline.vtu" : "");
  if (!solve.converged)
    throw NumericalError(cat("the linear solve failed: ", solve.failure, "; what it reached is in ", directory,
                             " (summary.json, residuals.csv", write_vtu ? ", solution.vtu" : "", ")"));
  return result;
}

}  // namespace flowdg
