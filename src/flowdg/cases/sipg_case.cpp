#include "flowdg/cases/sipg_case.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <numeric>
#include <optional>
#include <vector>

#include "flowdg/backend/memory.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/core/signals.hpp"
#include "flowdg/io/checkpoint.hpp"
#include "flowdg/io/json.hpp"
#include "flowdg/io/vtu.hpp"
#include "flowdg/linalg/direct.hpp"
#include "flowdg/linalg/distributed.hpp"
#include "flowdg/linalg/krylov.hpp"
#include "flowdg/linalg/ops.hpp"
#include "flowdg/linalg/preconditioner.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/mesh_info.hpp"
#include "flowdg/poly/agglomerate.hpp"
#include "flowdg/poly/poly_mesh.hpp"
#include "flowdg/poly/poly_partition.hpp"
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

SolverSettings read_solver(const Config& table, bool space_time = false) {
  for (const char* key : {"space", "time_degree", "reassemble"})
    if (!space_time && table.has(key))
      throw InputError(cat(table.where(), " ", key, ": a space-time key; a steady SIPG case has no [time] table"));
  if (space_time)
    table.allow_only({"method", "degree", "penalty", "penalty_cap", "quadrature_extra", "assembly", "precision", "linear_solver",
                      "preconditioner", "tolerance", "absolute_tolerance", "max_iterations", "restart", "direct_limit", "space",
                      "time_degree", "reassemble", "orthogonalization"});
  else
    table.allow_only({"method", "degree", "penalty", "penalty_cap", "quadrature_extra", "assembly", "precision", "linear_solver",
                      "preconditioner", "tolerance", "absolute_tolerance", "max_iterations", "restart", "direct_limit", "orthogonalization"});

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
  const std::string orthogonalization = table.string_or("orthogonalization", "auto");
  using Orthogonalization = linalg::KrylovOptions::Orthogonalization;
  if (orthogonalization == "auto") s.krylov.orthogonalization = Orthogonalization::automatic;
  else if (orthogonalization == "classical") s.krylov.orthogonalization = Orthogonalization::classical_twice;
  else if (orthogonalization == "modified") s.krylov.orthogonalization = Orthogonalization::modified;
  else
    throw InputError(cat(table.where(), " orthogonalization = \"", orthogonalization,
                         "\": auto (classical on a GPU or several ranks, else modified), classical (Gram-Schmidt twice, fused "
                         "reductions) or modified (GMRES's)"));
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

/// A distributed solve's rank (run_distributed_sipg_case): its communicator and its part's halo of
/// unknowns; the vectors hold the owned unknowns, the solution comes back with the ghosts' too.
struct DistributedSolve {
  std::shared_ptr<const Communicator> communicator;
  HaloPlan unknowns;  ///< linalg::unknowns_plan of the part's halo
};

template <class Real>
SolveOutcome assemble_and_solve(const poly::SipgDiscretisation& sipg, const SolverSettings& s, Backend backend,
                                poly::AssemblyTimes& times, const DistributedSolve* distributed = nullptr) {
  const bool root = distributed == nullptr || distributed->communicator->rank() == 0;
  poly::AssembledSystem<Real> system = sipg.assemble<Real>(s.assembly);
  times = system.times;
  SolveOutcome out;
  std::string method = s.linear_solver;
  if (method == "auto")
    method = distributed == nullptr && sipg.dofs() <= s.direct_limit ? "direct" : sipg.symmetric() ? "cg" : "gmres";
  if (method == "cg" && !sipg.symmetric() && root)
    std::printf("flowdg: warning: linear_solver = \"cg\" on a non-symmetric system (advection): CG may not converge; gmres or bicgstab fit\n");
  if (method == "direct" && distributed != nullptr)
    throw InputError("linear_solver = \"direct\": the sparse direct solve runs on one rank; under mpirun use cg, gmres or bicgstab (or auto)");
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
  // a rank's own rows: its owned elements' blocks (all of them on one rank)
  const std::vector<index_t> blocks(sipg.dof_start().begin(), sipg.dof_start().begin() + sipg.owned_elements() + 1);
  const index_t owned = sipg.owned_dofs();
  std::unique_ptr<linalg::Preconditioner<Real>> preconditioner;
  std::string preconditioner_failure;
  if (s.preconditioner == "block-jacobi") {
    try {
      preconditioner = std::make_unique<linalg::BlockJacobi<Real>>(system.matrix, blocks, space);
    } catch (const NumericalError& error) {
      preconditioner_failure = cat(error.what(), " (try preconditioner = \"none\")");
    }
  } else {
    preconditioner = std::make_unique<linalg::IdentityPreconditioner<Real>>();
  }
  // every rank stops when one cannot build its blocks (collective)
  const bool failed = distributed != nullptr ? distributed->communicator->any(!preconditioner_failure.empty()) : !preconditioner_failure.empty();
  if (failed) {
    out.failure = preconditioner_failure.empty() ? "another rank's block Jacobi preconditioner failed (its message is above)" : preconditioner_failure;
    if (!preconditioner_failure.empty()) std::fprintf(stderr, "flowdg: %s\n", preconditioner_failure.c_str());
    out.solution.assign(static_cast<std::size_t>(sipg.dofs()), 0.0);
    out.method = method;
    return out;
  }
  out.preconditioner_seconds = seconds_since(preconditioner_start);
  Array<Real> x(space, owned);
  linalg::fill<Real>(backend, 0, x.view());
  linalg::KrylovOptions options = s.krylov;
  const int every = std::max(1, options.max_iterations / 20);
  options.on_iteration = [every, root](int iteration, double residual) {
    if (root && iteration % every == 0) std::printf("  iteration %d: relative residual %.3e\n", iteration, residual);
  };
  const double total_blocks = distributed != nullptr ? distributed->communicator->sum(static_cast<double>(sipg.owned_elements())) : 0;
  std::unique_ptr<linalg::LinearOperator<Real>> A;
  const linalg::DistributedCsrOperator<Real>* parts = nullptr;
  if (distributed != nullptr) {
    auto op = std::make_unique<linalg::DistributedCsrOperator<Real>>(system.matrix, owned, distributed->unknowns, distributed->communicator);
    parts = op.get();
    A = std::move(op);
    options.global_sum = [communicator = distributed->communicator](std::vector<double>& values) { communicator->sum(values); };
  } else {
    A = std::make_unique<linalg::CsrOperator<Real>>(system.matrix);
  }
  const View<const Real> b{system.rhs.data(), owned};
  linalg::SolveResult result;
  if (method == "cg") result = linalg::cg<Real>(backend, *A, b, x.view(), *preconditioner, options);
  else if (method == "gmres") result = linalg::gmres<Real>(backend, *A, b, x.view(), *preconditioner, options);
  else result = linalg::bicgstab<Real>(backend, *A, b, x.view(), *preconditioner, options);
  if (distributed != nullptr && s.preconditioner == "block-jacobi")
    result.preconditioner = cat("block Jacobi (", static_cast<long long>(total_blocks), " blocks on ", distributed->communicator->size(), " ranks)");
  std::vector<Real> solution;
  if (parts != nullptr) {  // the owned unknowns and the ghosts' (the errors' interfaces read them)
    const View<const Real> local = parts->with_ghosts(backend, x.view());
    solution.resize(static_cast<std::size_t>(local.size()));
    copy_bytes(solution.data(), Space::host, local.data, space, sizeof(Real) * solution.size());
  } else {
    solution = x.to_host();
  }
  out.solution.assign(solution.begin(), solution.end());
  out.method = result.method;
  out.converged = result.converged;
  if (!result.converged) out.failure = linalg::describe(result);
  out.seconds = seconds_since(start);
  out.krylov = std::move(result);
  return out;
}

/// residuals.csv of a Krylov solve: iteration, relative residual (0: the initial guess's).
void write_residuals(const std::string& path, const linalg::SolveResult& result) {
  std::ofstream csv(path);
  csv << "iteration,relative_residual\n";
  char line[64];
  std::snprintf(line, sizeof line, "0,%.17g\n", result.initial_relative_residual);
  csv << line;
  for (std::size_t i = 0; i < result.history.size(); ++i) {
    std::snprintf(line, sizeof line, "%zu,%.17g\n", i + 1, result.history[i]);
    csv << line;
  }
}

/// The VTU fields of a solution at the fine vertices: u, and u_exact and error where `exact` is set.
std::vector<poly::PolyVtuField> solution_fields(const poly::SipgDiscretisation& sipg, const poly::PolyMesh& mesh,
                                                const std::vector<double>& solution, const poly::BulkField& exact) {
  std::vector<poly::PolyVtuField> fields;
  fields.push_back({"u", 1, sipg.sample_at_fine_vertices(solution)});
  if (exact) {
    std::vector<Point3> points(mesh.fine_vertices.size());
    for (std::size_t i = 0; i < points.size(); ++i) points[i] = mesh.nodes[static_cast<std::size_t>(mesh.fine_vertices[i])];
    std::vector<double> values(points.size()), error(points.size());
    exact(points, values.data());
    for (std::size_t i = 0; i < points.size(); ++i) error[i] = fields[0].values[i] - values[i];
    fields.push_back({"u_exact", 1, std::move(values)});
    fields.push_back({"error", 1, std::move(error)});
  }
  return fields;
}

std::string warnings_json(const std::vector<std::string>& warnings) {
  std::vector<std::string> quoted;
  for (const auto& w : warnings) quoted.push_back(json::quote(w));
  return json::array(quoted);
}

std::string times_json(const poly::AssemblyTimes& t) {
  json::Object o;
  o.add_number("setup", t.setup).add_number("pattern", t.pattern).add_number("element", t.element).add_number("interior", t.interior)
      .add_number("boundary", t.boundary).add_number("indices", t.indices).add_number("rhs", t.rhs).add_number("total", t.total)
      .add_integer("coo_entries", t.coo_entries).add_integer("nonzeros", t.nonzeros);
  return o.str(2);
}

/// The fine mesh, its agglomeration and the polytopic mesh of a case's [mesh] table (printed).
struct PolyCaseMesh {
  std::string spec, note, agglomeration, sub_simplices;
  long long requested = 0;
  Mesh fine;
  std::vector<index_t> assignment;
  poly::PolyMesh mesh;  // not built for a distributed run
  poly::PolyMeshOptions build;
  double seconds = 0;
};

/// distributed (several ranks): every rank reads the fine mesh, rank 0 agglomerates it and sends the
/// assignment, the whole polytopic mesh is not built (each rank builds its part's) and only rank 0
/// prints.
PolyCaseMesh load_poly_case_mesh(const Config& config, const Communicator* distributed = nullptr) {
  const bool root = distributed == nullptr || distributed->rank() == 0;
  const Config mesh_table = config.table("mesh");
  mesh_table.allow_only({"file", "agglomerate", "agglomeration", "sub_simplices", "seed", "refine"});
  const long long refine = mesh_table.integer_or("refine", 0);
  if (refine < 0 || refine > 6) throw InputError(cat(mesh_table.where(), " refine = ", refine, ": 0 to 6 uniform refinements of the fine mesh"));
  const long long requested = mesh_table.integer_or("agglomerate", 0);
  if (requested < 0) throw InputError(cat(mesh_table.where(), " agglomerate = ", requested, ": 0 (the fine simplices as they are) or more"));
  const std::string agglomeration_method = mesh_table.string_or("agglomeration", "metis");
  if (agglomeration_method != "metis" && agglomeration_method != "bisection")
    throw InputError(cat(mesh_table.where(), " agglomeration = \"", agglomeration_method, "\": metis or bisection"));
  const std::string sub_simplices = mesh_table.string_or("sub_simplices", "coarse");
  if (sub_simplices != "coarse" && sub_simplices != "fine")
    throw InputError(cat(mesh_table.where(), " sub_simplices = \"", sub_simplices, "\": coarse or fine"));
  const long long seed = mesh_table.integer_or("seed", 1);

  auto start = Clock::now();
  const std::string spec = resolve_path(mesh_table.require_string("file"), config.directory());
  Mesh fine = load_mesh(spec);
  for (long long r = 0; r < refine; ++r) {
    if (fine.dimension != 2)
      throw InputError(cat(mesh_table.where(), " refine = ", refine, ": uniform refinement is for triangle meshes (", spec, " is ", fine.dimension, "D)"));
    fine = refine_uniform(fine);  // the boundary stays the coarse mesh's polygon
  }
  const Connectivity connectivity = build_connectivity(fine);
  if (requested > fine.n_elements())
    throw InputError(cat(mesh_table.where(), " agglomerate = ", requested, ": the mesh ", spec, " has only ", fine.n_elements(),
                         " elements to agglomerate (0 uses them as they are)"));
  std::vector<index_t> assignment(static_cast<std::size_t>(fine.n_elements()));
  std::string note;
  if (requested == 0) {
    std::iota(assignment.begin(), assignment.end(), index_t(0));
  } else if (!root) {  // rank 0's agglomeration (below)
  } else {
    poly::Agglomeration a = agglomeration_method == "metis"
                                ? poly::agglomerate_metis(fine, connectivity, static_cast<index_t>(requested), static_cast<int>(seed))
                                : std::move(poly::agglomerate_bisection(fine, connectivity, static_cast<index_t>(requested)).front());
    assignment = std::move(a.agglomerate);
    note = a.note;
  }
  if (distributed != nullptr && requested != 0) {
    std::vector<int> sent(assignment.begin(), assignment.end());
    distributed->broadcast(sent, 0);
    assignment.assign(sent.begin(), sent.end());
  }
  poly::PolyMeshOptions build;
  build.quadrature = sub_simplices == "fine" ? poly::SubSimplices::fine : poly::SubSimplices::coarse;
  poly::PolyMesh mesh_built = distributed == nullptr ? poly::build_poly_mesh(fine, connectivity, assignment, build) : poly::PolyMesh{};
  const double mesh_seconds = seconds_since(start);
  const long long n_elements = assignment.empty() ? 0 : *std::max_element(assignment.begin(), assignment.end()) + 1;
  if (root)
    std::printf("flowdg: %s%s: %lld fine %s agglomerated into %lld elements (%s) in %.3g s\n", spec.c_str(),
                refine > 0 ? cat(" refined ", refine, " times").c_str() : "", static_cast<long long>(fine.n_elements()),
                fine.dimension == 2 ? "triangles" : "tetrahedra", n_elements, requested == 0 ? "as they are" : agglomeration_method.c_str(),
                mesh_seconds);
  if (!note.empty()) std::printf("flowdg: note: %s\n", note.c_str());

  PolyCaseMesh out;
  out.spec = spec;
  out.note = note;
  out.agglomeration = agglomeration_method;
  out.sub_simplices = sub_simplices;
  out.requested = requested;
  out.seconds = mesh_seconds;
  out.build = build;
  out.mesh = std::move(mesh_built);
  out.fine = std::move(fine);
  out.assignment = std::move(assignment);
  return out;
}

}  // namespace

bool is_sipg_case(const Config& config) { return config.table("solver").string_or("method", "") == "sipg"; }

namespace {
SipgCaseResult run_distributed_sipg_case(const Config& config, Backend backend, std::shared_ptr<const Communicator> communicator);
}  // namespace

SipgCaseResult run_sipg_case(const Config& config, Backend backend, const std::string& restart,
                             std::shared_ptr<const Communicator> communicator) {
  if (communicator != nullptr && communicator->size() > 1) {
    if (config.has("time")) return run_space_time_case(config, backend, restart, communicator);
    if (!restart.empty()) throw InputError("a steady SIPG case (no [time] table) is one solve: it takes no --restart");
    return run_distributed_sipg_case(config, backend, std::move(communicator));
  }
  if (config.has("time")) return run_space_time_case(config, backend, restart);
  if (!restart.empty()) throw InputError("a steady SIPG case (no [time] table) is one solve: it takes no --restart");
  const auto run_start = Clock::now();
  config.allow_only({"case", "mesh", "solver", "problem", "output"});
  const Config case_table = config.table("case");
  case_table.allow_only({"name", "description"});
  const std::string name = case_table.string_or("name", "sipg");
  const SolverSettings settings = read_solver(config.table("solver"));
  const Config output = config.table("output");
  output.allow_only({"directory", "vtu"});
  const std::string directory = output.string_or("directory", cat("runs/", name));
  const bool write_vtu = output.bool_or("vtu", true);
  const PolyCaseMesh loaded = load_poly_case_mesh(config);
  const poly::PolyMesh& mesh = loaded.mesh;
  const Mesh& fine = loaded.fine;
  const std::string& spec = loaded.spec;
  const long long requested = loaded.requested;
  const std::string& note = loaded.note;
  const std::string& agglomeration_method = loaded.agglomeration;
  const std::string& sub_simplices = loaded.sub_simplices;
  const double mesh_seconds = loaded.seconds;

  // ---- problem and discretisation
  const poly::PolyProblem problem = poly::make_problem(config.table("problem"), mesh);
  std::printf("flowdg: problem %s\n", problem.description.c_str());
  for (const std::string& warning : problem.warnings) std::printf("flowdg: warning: %s\n", warning.c_str());
  auto start = Clock::now();
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
  if (solve.krylov) write_residuals(directory + "/residuals.csv", *solve.krylov);
  if (write_vtu) {
    const std::vector<poly::PolyVtuField> fields = solution_fields(sipg, mesh, solve.solution, problem.has_exact() ? problem.exact : poly::BulkField{});
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
  summary.add_string("problem", problem.description).add("warnings", warnings_json(problem.warnings));
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


namespace {

/// A distributed run's part of the polytopic mesh (poly/poly_partition.hpp): rank 0 partitions the
/// agglomerates with METIS (weights: their fine elements) and sends the assignment; each rank
/// extracts and builds its part (collective; prints the partition on rank 0).
struct CasePart {
  poly::PolyPart part;
  poly::PolyMesh mesh;
  index_t elements = 0;  ///< the whole polytopic mesh's
  double seconds = 0;    ///< the slowest rank's
  double ghosts = 0;     ///< ghost elements over all ranks
};

CasePart make_case_part(const PolyCaseMesh& loaded, const Communicator& world) {
  const int rank = world.rank(), ranks = world.size();
  CasePart out;
  out.elements = *std::max_element(loaded.assignment.begin(), loaded.assignment.end()) + 1;
  const index_t n = out.elements;
  if (n < ranks)
    throw InputError(cat("the polytopic mesh has ", n, " elements for ", ranks, " ranks: each rank needs at least one (fewer ranks or a larger agglomerate)"));
  const auto start = Clock::now();
  const Connectivity connectivity = build_connectivity(loaded.fine);
  std::vector<int> rank_of;
  if (rank == 0) rank_of = poly::partition_agglomerates(loaded.fine, connectivity, loaded.assignment, n, ranks);
  world.broadcast(rank_of, 0);
  out.part = poly::extract_poly_part(loaded.fine, connectivity, loaded.assignment, n, rank_of, rank);
  const Connectivity local_connectivity = build_connectivity(out.part.fine);
  out.mesh = poly::build_poly_mesh(out.part.fine, local_connectivity, out.part.agglomerate, loaded.build);
  out.seconds = world.max(seconds_since(start));
  const double owned_count = static_cast<double>(out.part.n_owned);
  const double largest = world.max(owned_count), smallest = -world.max(-owned_count);
  out.ghosts = world.sum(static_cast<double>(out.part.n_ghost));
  if (rank == 0)
    std::printf("flowdg: distributed over %s: METIS on the %lld elements (weights: fine elements), %g to %g per rank, %g ghosts in all; parts "
                "built in %.3g s\n",
                world.describe().c_str(), static_cast<long long>(n), smallest, largest, out.ghosts, out.seconds);
  return out;
}

/// mpirun -np N flowdg run of a steady SIPG case (issue 19 item 4): rank 0 agglomerates the fine
/// mesh and partitions the agglomerates (METIS, weighted by their fine elements); each rank builds
/// its part (poly/poly_partition.hpp), assembles its rows on its device and takes part in the
/// distributed Krylov solve (linalg/distributed.hpp); the errors are summed over the ranks; each rank
/// writes its piece solution_<rank>.vtu and rank 0 solution.pvtu, summary.json (per-rank assembly
/// times), residuals.csv and case.toml.
SipgCaseResult run_distributed_sipg_case(const Config& config, Backend backend, std::shared_ptr<const Communicator> communicator) {
  const auto run_start = Clock::now();
  const Communicator& world = *communicator;
  const int rank = world.rank(), ranks = world.size();
  const bool root = rank == 0;
  config.allow_only({"case", "mesh", "solver", "problem", "output"});
  const Config case_table = config.table("case");
  case_table.allow_only({"name", "description"});
  const std::string name = case_table.string_or("name", "sipg");
  const SolverSettings settings = read_solver(config.table("solver"));
  if (settings.linear_solver == "direct")
    throw InputError(cat(config.table("solver").where(), " linear_solver = \"direct\": the sparse direct solve runs on one rank; under "
                                                           "mpirun use cg, gmres or bicgstab (auto picks cg or gmres)"));
  const Config output = config.table("output");
  output.allow_only({"directory", "vtu"});
  const std::string directory = output.string_or("directory", cat("runs/", name));
  const bool write_vtu = output.bool_or("vtu", true);
  const PolyCaseMesh loaded = load_poly_case_mesh(config, &world);
  const Mesh& fine = loaded.fine;
  const CasePart held = make_case_part(loaded, world);
  const poly::PolyPart& part = held.part;
  const poly::PolyMesh& mesh = held.mesh;
  const index_t n = held.elements;
  const double part_seconds = held.seconds, ghost_total = held.ghosts;

  // ---- problem and discretisation of the part
  const poly::PolyProblem problem = poly::make_problem(config.table("problem"), mesh);
  // Checks that look at the mesh (c - div(b)/2 >= 0 at its nodes) saw this rank's part only: the
  // smallest value over every rank's, and where it is, on rank 0.
  const std::vector<double> smallest = world.gather({problem.smallest_reaction, problem.smallest_reaction_at.x,
                                                     problem.smallest_reaction_at.y, problem.smallest_reaction_at.z}, 0);
  std::vector<std::string> warnings;
  if (root) {
    std::size_t at = 0;
    for (std::size_t r = 4; r + 3 < smallest.size(); r += 4)
      if (smallest[r] < smallest[at]) at = r;
    warnings = poly::warnings_with_reaction(problem, smallest[at], {smallest[at + 1], smallest[at + 2], smallest[at + 3]}, mesh.dimension);
    std::printf("flowdg: problem %s\n", problem.description.c_str());
    for (const std::string& warning : warnings) std::printf("flowdg: warning: %s\n", warning.c_str());
  }
  auto start = Clock::now();
  poly::SipgOptions options = settings.sipg;
  options.owned_elements = part.n_owned;
  const poly::SipgDiscretisation sipg(mesh, problem.coefficients, options, backend);
  const double dofs = world.sum(static_cast<double>(sipg.owned_dofs()));
  const double setup_seconds = world.max(seconds_since(start));
  if (root)
    std::printf("flowdg: SIPG p = %d, %.0f unknowns (rank 0: %lld), volume rule of degree %d, penalty C = %g%s (set-up %.3g s)\n",
                settings.sipg.degree, dofs, static_cast<long long>(sipg.owned_dofs()), sipg.volume_rule_degree(), settings.sipg.penalty,
                settings.sipg.penalty_cap ? " capped" : "", setup_seconds);

  DistributedSolve distributed{communicator, linalg::unknowns_plan(part.halo, sipg.dof_start())};
  poly::AssemblyTimes times;
  const SolveOutcome solve = settings.precision == "double" ? assemble_and_solve<double>(sipg, settings, backend, times, &distributed)
                                                            : assemble_and_solve<float>(sipg, settings, backend, times, &distributed);
  // per rank: set-up, index (pattern + indices), quadrature (element + interior + boundary + rhs), total
  const std::vector<double> all_times = world.gather(
      {times.setup, times.pattern + times.indices, times.element + times.interior + times.boundary + times.rhs, times.total,
       static_cast<double>(times.nonzeros)},
      0);
  const double nonzeros = world.sum(static_cast<double>(times.nonzeros));
  if (root) {
    double slowest = 0;
    for (int k = 0; k < ranks; ++k) slowest = std::max(slowest, all_times[static_cast<std::size_t>(5 * k + 3)]);
    std::printf("flowdg: assembled (%s, %s) on %d ranks: %.0f nonzeros, slowest rank %.3g s\n", poly::assembly_method_name(settings.assembly),
                settings.precision.c_str(), ranks, nonzeros, slowest);
    if (solve.krylov) std::printf("flowdg: %s\n", linalg::describe(*solve.krylov).c_str());
  }

  // ---- errors (summed over the ranks) and output
  SipgCaseResult result;
  result.elements = n;
  result.dofs = static_cast<long long>(dofs);
  result.converged = solve.converged;
  result.output_directory = directory;
  poly::SipgErrors errors;
  if (problem.has_exact()) {
    const poly::SipgErrorSquares mine = sipg.error_squares(solve.solution, problem.exact, problem.exact_gradient);
    std::vector<double> squares{mine.l2, mine.h1, mine.dg, mine.jumps};
    world.sum(squares);
    errors = poly::errors_from_squares({squares[0], squares[1], squares[2], squares[3]});
    result.has_errors = true;
    result.l2_error = errors.l2;
    result.dg_error = errors.dg;
    if (root) std::printf("flowdg: errors: L2 %.6e, DG norm %.6e, broken H1 %.6e\n", errors.l2, errors.dg, errors.h1);
  }
  if (root) std::filesystem::create_directories(directory);
  world.barrier();
  std::vector<poly::PolyVtuField> fields;
  if (write_vtu) {
    fields = solution_fields(sipg, mesh, solve.solution, problem.has_exact() ? problem.exact : poly::BulkField{});
    poly::PolyVtuPart piece{part.n_owned, part.global, part.fine_global};
    poly::write_poly_vtu(cat(directory, "/solution_", rank, ".vtu"), mesh, fields, 0, &piece);
  }
  if (root) {
    std::ofstream(directory + "/case.toml") << config.to_toml();
    if (write_vtu) {
      std::vector<std::string> pieces;
      for (int k = 0; k < ranks; ++k) pieces.push_back(cat("solution_", k, ".vtu"));
      poly::write_poly_pvtu(directory + "/solution.pvtu", pieces, fields);
    }
    if (solve.krylov) write_residuals(directory + "/residuals.csv", *solve.krylov);
    json::Object summary;
    summary.add_string("case", config.where()).add_string("name", name).add_string("method", "sipg")
        .add_string("backend", to_string(backend)).add_string("device", describe(backend)).add_integer("ranks", ranks)
        .add_string("communicator", world.describe());
    json::Object mesh_json;
    mesh_json.add_string("file", loaded.spec).add_integer("fine_elements", fine.n_elements()).add_integer("elements", n)
        .add_integer("agglomerate_requested", loaded.requested).add_string("agglomeration", loaded.requested == 0 ? "none" : loaded.agglomeration)
        .add_integer("dimension", fine.dimension).add_string("sub_simplices", loaded.sub_simplices).add_number("seconds", loaded.seconds)
        .add_number("partition_seconds", part_seconds).add_number("ghosts", ghost_total).add_string("note", loaded.note);
    summary.add("mesh", mesh_json.str(2));
    summary.add_string("problem", problem.description).add("warnings", warnings_json(warnings));
    summary.add_integer("degree", settings.sipg.degree).add_number("dofs", dofs).add_number("penalty", settings.sipg.penalty)
        .add_bool("penalty_cap", settings.sipg.penalty_cap).add_integer("volume_rule_degree", sipg.volume_rule_degree())
        .add_string("assembly", poly::assembly_method_name(settings.assembly)).add_string("precision", settings.precision)
        .add_number("nonzeros", nonzeros);
    std::vector<std::string> per_rank;
    for (int k = 0; k < ranks; ++k) {
      json::Object t;
      const double* v = all_times.data() + 5 * k;
      t.add_integer("rank", k).add_number("setup", v[0]).add_number("index", v[1]).add_number("quadrature", v[2]).add_number("total", v[3])
          .add_number("nonzeros", v[4]);
      per_rank.push_back(t.str());
    }
    summary.add("assembly_seconds_per_rank", json::array(per_rank));
    json::Object solver_json;
    solver_json.add_string("method", solve.method).add_bool("converged", solve.converged).add_number("seconds", solve.seconds)
        .add_number("preconditioner_seconds", solve.preconditioner_seconds).add_string("failure", solve.failure);
    if (solve.krylov)
      solver_json.add_string("preconditioner", solve.krylov->preconditioner).add_integer("iterations", solve.krylov->iterations)
          .add_number("relative_residual", solve.krylov->relative_residual).add_number("relative_tolerance", solve.krylov->relative_tolerance);
    summary.add("solver", solver_json.str(2));
    if (problem.has_exact()) {
      json::Object e;
      e.add_number("l2", errors.l2).add_number("dg", errors.dg).add_number("h1", errors.h1).add_number("jumps", errors.jumps);
      summary.add("errors", e.str(2));
    }
    summary.add_number("wall_seconds", seconds_since(run_start));
    std::ofstream(directory + "/summary.json") << summary.str() << "\n";
    std::printf("flowdg: wrote %s/summary.json%s\n", directory.c_str(), write_vtu ? cat(", solution.pvtu (", ranks, " pieces)").c_str() : "");
  }
  world.barrier();
  if (!solve.converged)
    throw NumericalError(cat("the linear solve failed: ", solve.failure, "; what it reached is in ", directory,
                             " (summary.json, residuals.csv", write_vtu ? ", solution.pvtu" : "", ")"));
  return result;
}

}  // namespace


namespace {

/// FNV-1a of the agglomeration mixed into the fine mesh's hash: a checkpoint's coefficients belong
/// to one polytopic mesh.
std::uint64_t poly_mesh_hash(const Mesh& fine, const std::vector<index_t>& assignment) {
  std::uint64_t h = 1469598103934665603ull;
  for (index_t a : assignment) {
    h ^= static_cast<std::uint64_t>(a);
    h *= 1099511628211ull;
  }
  return mesh_hash(fine) ^ (h * 0x9E3779B97F4A7C15ull);
}

std::string fixed(double value, int digits = 6) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

}  // namespace

SipgCaseResult run_space_time_case(const Config& config, Backend backend, const std::string& restart,
                                   std::shared_ptr<const Communicator> communicator) {
  const auto run_start = Clock::now();
  // several ranks: each its part of the polytopic mesh, the slabs solved over all of them
  const bool distributed = communicator != nullptr && communicator->size() > 1;
  const Communicator* world = distributed ? communicator.get() : nullptr;
  const bool root = !distributed || world->rank() == 0;
  config.allow_only({"case", "mesh", "solver", "problem", "output", "time"});
  const Config case_table = config.table("case");
  case_table.allow_only({"name", "description"});
  const std::string name = case_table.string_or("name", "space_time");
  const Config solver_table = config.table("solver");
  SolverSettings settings = read_solver(solver_table, true);
  settings.sipg.space = poly::parse_space_time_space(solver_table.string_or("space", "reduced"), solver_table.where());
  settings.sipg.time_degree = static_cast<int>(solver_table.integer_or("time_degree", -1));
  if (settings.sipg.space == poly::LocalSpace::reduced && solver_table.has("time_degree"))
    throw InputError(cat(solver_table.where(), " time_degree: the reduced space has total degree p in space and time; time_degree "
                                                "belongs to space = \"full\""));
  const std::string reassemble = solver_table.string_or("reassemble", "auto");
  if (reassemble != "auto" && reassemble != "every-slab")
    throw InputError(cat(solver_table.where(), " reassemble = \"", reassemble, "\": auto (when the coefficients change in time) or every-slab"));
  if (settings.precision != "double")
    throw InputError(cat(solver_table.where(), " precision = \"", settings.precision, "\": space-time systems are double precision"));
  if (settings.sipg.degree > poly::max_space_time_degree(3) + 1)
    throw InputError(cat(solver_table.where(), " degree = ", settings.sipg.degree, ": space-time degrees are 1 to ",
                         poly::max_space_time_degree(2), " in 2D and 1 to ", poly::max_space_time_degree(3), " in 3D"));
  const Config time = config.table("time");
  time.allow_only({"start", "end", "slabs", "dt", "max_slabs"});
  const long long max_slabs = time.integer_or("max_slabs", 0);
  if (max_slabs < 0) throw InputError(cat(time.where(), " max_slabs = ", max_slabs, ": 0 (all) or the slabs this run may do"));
  const double start = time.double_or("start", 0.0);
  const auto end_value = time.get_double("end");
  if (!end_value) throw InputError(cat(time.where(), ": give end (the final time)"));
  const double end = *end_value;
  if (!std::isfinite(start) || !std::isfinite(end) || !(end > start))
    throw InputError(cat(time.where(), ": end = ", end, " must be a finite time after start = ", start));
  long long slabs = 0;
  if (time.has("slabs") && time.has("dt")) throw InputError(cat(time.where(), ": give slabs or dt, not both"));
  if (time.has("slabs")) {
    slabs = time.integer_or("slabs", 0);
  } else if (time.has("dt")) {
    const double requested = time.double_or("dt", 0.0);
    if (!(requested > 0)) throw InputError(cat(time.where(), " dt = ", requested, ": must be positive"));
    slabs = static_cast<long long>(std::ceil((end - start) / requested - 1e-9));
  } else {
    throw InputError(cat(time.where(), ": give slabs (their number) or dt (their length) between start and end"));
  }
  if (slabs < 1 || slabs > 100000000) throw InputError(cat(time.where(), " slabs = ", slabs, ": 1 or more"));
  const double dt = (end - start) / static_cast<double>(slabs);
  const Config output = config.table("output");
  output.allow_only({"directory", "vtu", "every", "checkpoint_every"});
  const std::string directory = output.string_or("directory", cat("runs/", name));
  const bool write_vtu = output.bool_or("vtu", true);
  const long long every = output.integer_or("every", 1), checkpoint_every = output.integer_or("checkpoint_every", 1);
  if (every < 1) throw InputError(cat(output.where(), " every = ", every, ": write the solution every N >= 1 slabs"));
  if (checkpoint_every < 1) throw InputError(cat(output.where(), " checkpoint_every = ", checkpoint_every, ": every N >= 1 slabs"));

  if (distributed && settings.linear_solver == "direct")
    throw InputError(cat(solver_table.where(), " linear_solver = \"direct\": the sparse direct solve runs on one rank; under mpirun use "
                                               "gmres or bicgstab (auto picks gmres)"));
  const PolyCaseMesh loaded = load_poly_case_mesh(config, world);
  std::optional<CasePart> held;
  if (distributed) held.emplace(make_case_part(loaded, *world));
  const poly::PolyMesh& mesh = distributed ? held->mesh : loaded.mesh;
  const index_t whole_elements = distributed ? held->elements : mesh.n_elements();
  const poly::ParabolicProblem problem = poly::make_parabolic_problem(config.table("problem"), mesh);
  if (root) {
    std::printf("flowdg: problem %s\n", problem.description.c_str());
    for (const std::string& warning : problem.warnings) std::printf("flowdg: warning: %s\n", warning.c_str());
  }
  auto setup_start = Clock::now();
  poly::SipgOptions options = settings.sipg;
  if (distributed) options.owned_elements = held->part.n_owned;
  poly::SipgDiscretisation st(mesh, problem.coefficients(start), options, backend);
  const int p = settings.sipg.degree;
  // every element has p's unknowns (one degree): element g of the whole mesh holds [g n, (g + 1) n), n = per_element
  const index_t per_element = st.dof_start()[1] - st.dof_start()[0], whole_dofs = whole_elements * per_element;
  if (root) std::printf("flowdg: space-time SIPG, %s space p = %d%s, %lld slabs of dt = %s on [%s, %s], %lld unknowns per slab, %d time points "
              "(set-up %.3g s)\n",
              poly::local_space_name(st.local_space()), p,
              st.local_space() == poly::LocalSpace::full ? cat(" (time degree ", st.time_degree(), ")").c_str() : "", slabs,
              fixed(dt).c_str(), fixed(start).c_str(), fixed(end).c_str(), static_cast<long long>(whole_dofs), st.time_points(),
              seconds_since(setup_start));
  const std::string layout = cat("slabs ", poly::local_space_name(st.local_space()), " q ", st.time_degree(), " count ", slabs,
                                 " start ", fixed(start, 17), " end ", fixed(end, 17), " penalty ", fixed(settings.sipg.penalty, 17));
  const std::uint64_t hash = poly_mesh_hash(loaded.fine, loaded.assignment);
  const Space space = space_of(backend);

  // ---- the start: the initial condition, or a checkpoint's last slab
  long long first = 0;
  // the local solution: every local element's unknowns (a part: owned, ghosts, fillers' zeros)
  std::vector<double> x(static_cast<std::size_t>(st.dofs()), 0.0);
  double l2l2_squared = 0, dg_squared = 0, jump_squared = 0;
  if (!restart.empty()) {  // every rank reads the file (the whole mesh's numbering) and keeps its elements
    const Checkpoint checkpoint = read_checkpoint(restart);
    check_compatible(checkpoint, whole_elements, hash, loaded.spec, p, "space_time_sipg");
    if (checkpoint.n_basis_total != whole_dofs || checkpoint.scheme != layout ||
        static_cast<index_t>(checkpoint.coefficients.size()) != whole_dofs)
      throw InputError(cat("the checkpoint ", restart, " is of another space-time layout (checkpoint: '", checkpoint.scheme, "', ",
                           checkpoint.n_basis_total, " unknowns; this case: '", layout, "', ", whole_dofs, " unknowns)"));
    if (checkpoint.step < 1 || checkpoint.step > slabs)
      throw InputError(cat("the checkpoint ", restart, " is after slab ", checkpoint.step, " of ", slabs));
    first = checkpoint.step;
    if (!distributed) {
      x = checkpoint.coefficients;
    } else {
      const poly::PolyPart& part = held->part;
      for (index_t j = 0; j < part.n_owned + part.n_ghost; ++j)
        for (index_t i = 0; i < per_element; ++i)
          x[static_cast<std::size_t>(j * per_element + i)] =
              checkpoint.coefficients[static_cast<std::size_t>(part.global[static_cast<std::size_t>(j)] * per_element + i)];
    }
    if (checkpoint.accumulators.size() == 3) {
      l2l2_squared = checkpoint.accumulators[0];
      dg_squared = checkpoint.accumulators[1];
      jump_squared = checkpoint.accumulators[2];
    }
    st.top_trace(Array<double>(space, x), dt);
    if (root) std::printf("flowdg: restart from %s: slab %lld of %lld done (t = %s)\n", restart.c_str(), first, slabs, fixed(checkpoint.time).c_str());
  } else {
    st.set_initial_trace(problem.initial(start));
  }
  if (root) {
    std::filesystem::create_directories(directory);
    std::ofstream(directory + "/case.toml") << config.to_toml();
  }
  if (distributed) world->barrier();

  // slabs.csv: the rows up to the start kept (a restart continues the file)
  const std::string csv_path = directory + "/slabs.csv";
  const std::string header = "slab,t_start,t_end,reassembled,sample_seconds,assembly_seconds,factor_seconds,solve_seconds,iterations,"
                             "relative_residual,l2_at_end,l2l2_so_far,energy_so_far,error_seconds,vtu_seconds";
  if (root) {
    std::vector<std::string> kept;
    if (first > 0) {
      std::ifstream in(csv_path);
      std::string line;
      std::getline(in, line);
      while (std::getline(in, line)) {
        const long long slab = std::atoll(line.c_str());
        if (slab >= 1 && slab <= first) kept.push_back(line);
      }
    }
    std::ofstream csv(csv_path);
    csv << header << "\n";
    for (const auto& line : kept) csv << line << "\n";
  }
  std::optional<euler2d::PvdSeries> series;  // rank 0's
  if (root) {
    series.emplace(directory + "/solution.pvd");
    if (first > 0) series->resume(start + static_cast<double>(first) * dt + 0.5 * dt);
  }

  // ---- the solver
  std::string method = settings.linear_solver;
  if (method == "auto") method = !distributed && st.dofs() <= settings.direct_limit ? "direct" : "gmres";
  if (method == "cg")
    throw InputError(cat(solver_table.where(), " linear_solver = \"cg\": the space-time system is not symmetric (the time derivative "
                                               "and the time jump); gmres, bicgstab or direct"));
  linalg::CsrMatrix<double> matrix;
  std::optional<linalg::SparseLu> lu;
  std::unique_ptr<linalg::Preconditioner<double>> preconditioner;
  std::unique_ptr<linalg::LinearOperator<double>> op;  // the matrix, or a part's rows over the ranks
  const linalg::DistributedCsrOperator<double>* parts = nullptr;
  const HaloPlan unknowns = distributed ? linalg::unknowns_plan(held->part.halo, st.dof_start()) : HaloPlan{};
  const index_t owned = st.owned_dofs();
  linalg::KrylovOptions krylov = settings.krylov;
  if (distributed) krylov.global_sum = [world](std::vector<double>& values) { world->sum(values); };
  const std::vector<index_t> blocks(st.dof_start().begin(), st.dof_start().begin() + st.owned_elements() + 1);
  bool have_matrix = false;
  Array<double> xd(space, x);                             // the local solution on the backend (the top trace reads it)
  Array<double> xo(space, std::vector<double>(x.begin(), x.begin() + owned));  // the owned unknowns: the Krylov vector
  const auto exact_at = [&problem](double t) { return problem.exact(t); };
  const auto gradient_at = [&problem](double t) { return problem.exact_gradient(t); };
  double total_sample = 0, total_assembly = 0, total_factor = 0, total_solve = 0, total_error = 0, total_output = 0, last_top = 0;
  long long total_iterations = 0, assemblies = 0;
  poly::AssemblyTimes last_times;
  std::string failure;
  const long long progress_every = std::max<long long>(1, slabs / 20);
  long long done = first;
  const InterruptGuard interrupts;  // SIGINT / SIGTERM: finish the slab, save, stop (core/signals.hpp)
  int interrupted = 0;
  bool stopped_early = false;
  for (long long n = first; n < slabs; ++n) {
    const double t0 = start + static_cast<double>(n) * dt, t1 = t0 + dt;
    auto mark = Clock::now();
    st.set_slab(t0, dt, problem.coefficients);
    const double sample_seconds = seconds_since(mark);
    const bool reassembling = !have_matrix || problem.operator_depends_on_time || reassemble == "every-slab";
    double assembly_seconds = 0, factor_seconds = 0;
    Array<double> rhs;
    mark = Clock::now();
    if (reassembling) {
      poly::AssembledSystem<double> system = st.assemble<double>(settings.assembly);
      last_times = system.times;
      matrix = std::move(system.matrix);
      rhs = std::move(system.rhs);
      assembly_seconds = seconds_since(mark);
      ++assemblies;
      have_matrix = true;
      mark = Clock::now();
      std::string factor_failure;
      try {
        if (method == "direct") {
          lu.emplace(matrix);
        } else if (settings.preconditioner == "block-jacobi") {
          preconditioner = std::make_unique<linalg::BlockJacobi<double>>(matrix, blocks, space);
        } else {
          preconditioner = std::make_unique<linalg::IdentityPreconditioner<double>>();
        }
      } catch (const NumericalError& error) {
        factor_failure = cat("slab ", n + 1, ": ", error.what());
      }
      // a rank whose blocks fail stops every rank (collective)
      if (distributed ? world->any(!factor_failure.empty()) : !factor_failure.empty()) {
        failure = factor_failure.empty() ? cat("slab ", n + 1, ": another rank's block Jacobi preconditioner failed") : factor_failure;
        if (!factor_failure.empty() && distributed) std::fprintf(stderr, "flowdg: rank %d: %s\n", world->rank(), factor_failure.c_str());
        break;
      }
      if (distributed) {
        auto distributed_op = std::make_unique<linalg::DistributedCsrOperator<double>>(matrix, owned, unknowns, communicator);
        parts = distributed_op.get();
        op = std::move(distributed_op);
      } else {
        op = std::make_unique<linalg::CsrOperator<double>>(matrix);
      }
      factor_seconds = seconds_since(mark);
    } else {
      rhs = st.assemble_rhs<double>();
      assembly_seconds = seconds_since(mark);
    }
    mark = Clock::now();
    int iterations = 0;
    double residual = 0;
    if (method == "direct") {
      try {
        x = lu->solve(rhs.to_host());
      } catch (const NumericalError& error) {
        failure = cat("slab ", n + 1, ": ", error.what());
        break;
      }
      xd = Array<double>(space, x);
      xo = Array<double>(space, x);
    } else {
      // the previous slab's coefficients are the initial guess (xo holds them)
      const linalg::SolveResult result =
          method == "gmres" ? linalg::gmres<double>(backend, *op, rhs.view(), xo.view(), *preconditioner, krylov)
                            : linalg::bicgstab<double>(backend, *op, rhs.view(), xo.view(), *preconditioner, krylov);
      iterations = result.iterations;
      residual = result.relative_residual;
      total_iterations += iterations;
      if (!result.converged) {
        failure = cat("slab ", n + 1, " (t = ", fixed(t0), " to ", fixed(t1), "): ", linalg::describe(result));
        break;
      }
      if (parts != nullptr) {  // the owned unknowns and the ghosts' (the errors' interfaces read them)
        const View<const double> local = parts->with_ghosts(backend, xo.view());
        copy_bytes(xd.data(), space, local.data, space, sizeof(double) * static_cast<std::size_t>(local.size()));
      } else {
        xd.copy_from(xo);
      }
      x = xd.to_host();
    }
    const double solve_seconds = seconds_since(mark);
    total_sample += sample_seconds;
    total_assembly += assembly_seconds;
    total_factor += factor_seconds;
    total_solve += solve_seconds;
    mark = Clock::now();
    if (problem.has_exact()) {
      const poly::SlabErrors e = st.slab_errors(x, exact_at, gradient_at);
      std::vector<double> sums{e.l2l2_squared, e.dg_squared, e.jump_squared, e.top_l2 * e.top_l2};
      if (distributed) world->sum(sums);  // every rank's owned elements
      l2l2_squared += sums[0];
      dg_squared += sums[1];
      jump_squared += sums[2];
      last_top = std::sqrt(sums[3]);
    }
    const double energy = std::sqrt(dg_squared + 0.5 * last_top * last_top + 0.5 * jump_squared);
    const double error_seconds = seconds_since(mark);
    total_error += error_seconds;
    st.top_trace(xd, dt);  // u_h^- for the next slab
    done = n + 1;
    mark = Clock::now();
    std::string csv_line;
    {
      char line[512];
      std::snprintf(line, sizeof line, "%lld,%.17g,%.17g,%d,%.6g,%.6g,%.6g,%.6g,%d,%.6g,%.10g,%.10g,%.10g,%.6g", n + 1, t0, t1,
                    reassembling ? 1 : 0, sample_seconds, assembly_seconds, factor_seconds, solve_seconds, iterations, residual,
                    problem.has_exact() ? last_top : NAN, problem.has_exact() ? std::sqrt(l2l2_squared) : NAN,
                    problem.has_exact() ? energy : NAN, error_seconds);
      csv_line = line;
    }
    if (write_vtu && (done % every == 0 || done == slabs)) {
      const std::vector<poly::PolyVtuField> fields =
          solution_fields(st, mesh, x, problem.has_exact() ? problem.exact(t1) : poly::BulkField{});
      if (!distributed) {
        const std::string file = cat("solution_", done, ".vtu");
        poly::write_poly_vtu(directory + "/" + file, mesh, fields, t1);
        series->add(t1, file);
      } else {  // each rank its piece, rank 0 the .pvtu that the series lists
        const poly::PolyPart& part = held->part;
        const poly::PolyVtuPart piece{part.n_owned, part.global, part.fine_global};
        poly::write_poly_vtu(cat(directory, "/solution_", done, "_", world->rank(), ".vtu"), mesh, fields, t1, &piece);
        world->barrier();
        if (root) {
          std::vector<std::string> pieces;
          for (int k = 0; k < world->size(); ++k) pieces.push_back(cat("solution_", done, "_", k, ".vtu"));
          const std::string file = cat("solution_", done, ".pvtu");
          poly::write_poly_pvtu(directory + "/" + file, pieces, fields, t1);
          series->add(t1, file);
        }
      }
    }
    {  // this slab's line, with the seconds its output took (VTU) before its checkpoint
      const double output_seconds = seconds_since(mark);
      total_output += output_seconds;
      if (root) {
        std::ofstream csv(csv_path, std::ios::app);
        char tail[64];
        std::snprintf(tail, sizeof tail, ",%.6g\n", output_seconds);
        csv << csv_line << tail;
      }
    }
    interrupted = InterruptGuard::received();
    if (distributed) interrupted = static_cast<int>(world->max(interrupted));  // every rank stops after the same slab
    stopped_early = interrupted != 0 || (max_slabs > 0 && done - first >= max_slabs && done < slabs);
    if (done % checkpoint_every == 0 || done == slabs || stopped_early) {
      Checkpoint checkpoint;
      checkpoint.case_toml = config.to_toml();
      checkpoint.mesh_source = loaded.spec;
      checkpoint.mesh_hash = hash;
      checkpoint.n_elements = whole_elements;
      checkpoint.order = p;
      checkpoint.n_variables = 1;
      checkpoint.time = t1;
      checkpoint.step = done;
      checkpoint.scheme = layout;
      checkpoint.physics = "space_time_sipg";
      checkpoint.n_basis_total = whole_dofs;
      checkpoint.accumulators = {l2l2_squared, dg_squared, jump_squared};
      if (!distributed) {
        checkpoint.coefficients = x;
      } else {  // the owned elements' unknowns gathered on rank 0 in the whole mesh's numbering
        const poly::PolyPart& part = held->part;
        std::vector<double> ids(part.global.begin(), part.global.begin() + part.n_owned);
        const std::vector<double> all_ids = world->gather(ids, 0);
        const std::vector<double> all_values = world->gather(std::vector<double>(x.begin(), x.begin() + owned), 0);
        if (root) {
          checkpoint.coefficients.assign(static_cast<std::size_t>(whole_dofs), 0.0);
          for (std::size_t k = 0; k < all_ids.size(); ++k)
            for (index_t i = 0; i < per_element; ++i)
              checkpoint.coefficients[static_cast<std::size_t>(static_cast<index_t>(all_ids[k]) * per_element + i)] =
                  all_values[k * static_cast<std::size_t>(per_element) + static_cast<std::size_t>(i)];
        }
      }
      if (root) write_checkpoint(directory + "/checkpoint.h5", checkpoint);
    }
    if (root && (done % progress_every == 0 || done == slabs || done == first + 1))
      std::printf("slab %lld/%lld t = %s: %s%s%s\n", done, slabs, fixed(t1).c_str(),
                  method == "direct" ? cat("direct").c_str() : cat(iterations, " iterations").c_str(),
                  reassembling ? ", reassembled" : "",
                  problem.has_exact() ? cat(", L2 error ", fixed(last_top, 4), ", L2(L2) so far ", fixed(std::sqrt(l2l2_squared), 4)).c_str()
                                      : "");
    if (stopped_early) break;
  }

  // ---- summary
  SipgCaseResult result;
  result.elements = whole_elements;
  result.dofs = whole_dofs;
  result.converged = failure.empty();
  result.output_directory = directory;
  const double energy = std::sqrt(dg_squared + 0.5 * last_top * last_top + 0.5 * jump_squared);
  if (problem.has_exact()) {
    result.has_errors = true;
    result.l2_error = std::sqrt(l2l2_squared);
    result.dg_error = energy;
    if (root) std::printf("flowdg: errors: L2(L2) %.6e, energy %.6e, L2 at t = %s %.6e\n", result.l2_error, energy,
                fixed(start + static_cast<double>(done) * dt).c_str(), last_top);
  }
  const long long run_slabs = done - first;
  if (distributed) world->barrier();
  if (root) {
  json::Object summary;
  summary.add_string("case", config.where()).add_string("name", name).add_string("method", "sipg space-time")
      .add_string("backend", to_string(backend)).add_string("device", describe(backend)).add_integer("ranks", distributed ? world->size() : 1);
  json::Object mesh_json;
  mesh_json.add_string("file", loaded.spec).add_integer("fine_elements", loaded.fine.n_elements()).add_integer("elements", whole_elements)
      .add_integer("agglomerate_requested", loaded.requested).add_string("agglomeration", loaded.requested == 0 ? "none" : loaded.agglomeration)
      .add_integer("dimension", mesh.dimension).add_integer("interior_subfaces", mesh.n_interior_subfaces())
      .add_integer("boundary_subfaces", mesh.n_boundary_subfaces()).add_integer("quadrature_simplices", mesh.quadrature.n_simplices())
      .add_string("sub_simplices", loaded.sub_simplices).add_number("seconds", loaded.seconds).add_string("note", loaded.note);
  summary.add("mesh", mesh_json.str(2));
  summary.add_string("problem", problem.description).add_bool("coefficients_vary_in_time", problem.operator_depends_on_time);
  summary.add_string("space", poly::local_space_name(st.local_space())).add_integer("degree", p).add_integer("time_degree", st.time_degree())
      .add_integer("dofs_per_slab", whole_dofs).add_integer("time_points", st.time_points()).add_number("penalty", settings.sipg.penalty)
      .add_string("assembly", poly::assembly_method_name(settings.assembly)).add_string("linear_solver", method)
      .add_string("reassemble", reassemble);
  json::Object time_json;
  time_json.add_number("start", start).add_number("end", end).add_integer("slabs", slabs).add_number("dt", dt)
      .add_integer("first_slab_of_this_run", first + 1).add_integer("slabs_done", done).add_integer("max_slabs", max_slabs);
  summary.add("time", time_json.str(2));
  json::Object per;
  per.add_integer("slabs_run", run_slabs).add_integer("assemblies", assemblies).add_number("sample_total", total_sample)
      .add_number("assembly_total", total_assembly).add_number("factor_total", total_factor).add_number("solve_total", total_solve)
      .add_number("error_total", total_error).add_number("vtu_total", total_output)
      .add_integer("iterations_total", total_iterations)
      .add_number("assembly_per_slab", run_slabs ? total_assembly / static_cast<double>(run_slabs) : 0.0)
      .add_number("solve_per_slab", run_slabs ? (total_solve + total_factor) / static_cast<double>(run_slabs) : 0.0);
  summary.add("seconds", per.str(2)).add("last_assembly", times_json(last_times));
  if (problem.has_exact()) {
    json::Object e;
    e.add_number("l2l2", std::sqrt(l2l2_squared)).add_number("energy", energy).add_number("l2_at_end", last_top)
        .add_number("dg_time_integral", std::sqrt(dg_squared)).add_number("time_jumps", std::sqrt(jump_squared));
    summary.add("errors", e.str(2));
  }
  summary.add_bool("converged", failure.empty()).add_string("failure", failure).add_number("wall_seconds", seconds_since(run_start));
  std::ofstream(directory + "/summary.json") << summary.str() << "\n";
  std::printf("flowdg: %lld slabs in %.3g s (sampling %.3g s, assembly %.3g s in %lld assemblies, factor %.3g s, solve %.3g s, errors %.3g s, "
              "VTU %.3g s; the rest: mesh, set-up, checkpoints); wrote %s\n",
              run_slabs, seconds_since(run_start), total_sample, total_assembly, assemblies, total_factor, total_solve, total_error,
              total_output, directory.c_str());
  }
  if (!failure.empty())
    throw NumericalError(cat("the space-time run stopped at ", failure, "; the slabs before it are in ", directory,
                             " (checkpoint.h5, slabs.csv", write_vtu ? ", solution_*.vtu" : "", ")"));
  if (interrupted != 0)
    throw Interrupted(interrupted, cat("interrupted by ", signal_name(interrupted), " after slab ", done, " of ", slabs, "; continue with --restart ",
                                       directory, "/checkpoint.h5"));
  if (stopped_early && root)
    std::printf("flowdg: stopped after %lld slabs (max_slabs); continue with --restart %s/checkpoint.h5\n", done - first, directory.c_str());
  return result;
}

}  // namespace flowdg
