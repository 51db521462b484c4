#include "flowdg/cases/euler2d_case.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "flowdg/backend/backend.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/io/checkpoint.hpp"
#include "flowdg/io/json.hpp"
#include "flowdg/io/vtu.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/mesh_info.hpp"
#include "flowdg/mesh/periodic.hpp"
#include "flowdg/mesh/validate.hpp"

namespace flowdg::euler2d {

namespace {

Primitive read_state(const Config& table, Primitive fallback) {
  return {table.double_or("rho", fallback.rho), table.double_or("u", fallback.u), table.double_or("v", fallback.v),
          table.double_or("p", fallback.p)};
}

Flow read_flow(const Config& config, const Gas& gas) {
  const Config table = config.table("flow");
  table.allow_only({"kind", "rho", "u", "v", "p", "strength", "center", "mach_inner", "r_inner"});
  Flow flow;
  flow.gas = gas;
  const std::string kind = table.string_or("kind", "uniform");
  if (kind == "uniform") {
    flow.kind = FlowKind::uniform;
  } else if (kind == "isentropic-vortex") {
    flow.kind = FlowKind::isentropic_vortex;
  } else if (kind == "supersonic-vortex") {
    flow.kind = FlowKind::supersonic_vortex;
  } else if (kind == "double-mach") {
    flow.kind = FlowKind::double_mach;
  } else {
    throw InputError(cat(table.where(), " kind: unknown flow '", kind,
                         "' (valid: uniform, isentropic-vortex, supersonic-vortex, double-mach)"));
  }
  flow.state = read_state(table, flow.state);
  flow.strength = table.double_or("strength", flow.strength);
  if (auto center = table.get_doubles("center")) {
    if (center->size() != 2) throw InputError(cat(table.where(), " center: expected [x, y]"));
    flow.center_x = (*center)[0];
    flow.center_y = (*center)[1];
  }
  flow.mach_inner = table.double_or("mach_inner", flow.mach_inner);
  flow.r_inner = table.double_or("r_inner", flow.r_inner);
  if (!(flow.state.rho > 0 && flow.state.p > 0))
    throw InputError(cat(table.where(), ": density and pressure must be positive"));
  return flow;
}

BoundaryKind parse_boundary_kind(const std::string& name, const std::string& where) {
  if (name == "slip-wall") return BoundaryKind::slip_wall;
  if (name == "curvature-wall") return BoundaryKind::curvature_wall;
  if (name == "inflow") return BoundaryKind::inflow;
  if (name == "outflow") return BoundaryKind::outflow;
  if (name == "farfield") return BoundaryKind::farfield;
  if (name == "prescribed") return BoundaryKind::prescribed;
  throw InputError(cat(where, " type: unknown boundary condition '", name,
                       "' (valid: slip-wall, curvature-wall, inflow, outflow, farfield, prescribed, periodic)"));
}

std::string resolve_mesh_path(const std::string& spec, const std::string& directory) {
  if (spec.rfind("builtin:", 0) == 0 || directory.empty() || std::filesystem::path(spec).is_absolute()) return spec;
  const auto relative = std::filesystem::path(directory) / spec;
  return std::filesystem::exists(relative) ? relative.string() : spec;
}

}  // namespace

Case load_case(const Config& config, Backend backend) {
  config.allow_only({"case", "mesh", "flow", "solver", "time", "boundary", "output"});
  Case problem;
  problem.toml = config.to_toml();

  const Config case_table = config.table("case");
  case_table.allow_only({"name"});
  problem.name = case_table.string_or("name", "unnamed");
  problem.source = config.where();

  const Config solver = config.table("solver");
  solver.allow_only({"order", "flux", "gamma", "limiter", "limit_variables", "positivity"});
  problem.options.backend = backend;
  const long long order = solver.integer_or("order", 1);
  if (order < 0 || order > max_order())
    throw InputError(cat(solver.where(), " order: ", order, " is out of range (0..", max_order(), ")"));
  problem.options.order = static_cast<int>(order);
  problem.options.flux = parse_riemann_solver(solver.string_or("flux", "hllc"));
  problem.options.gas.gamma = solver.double_or("gamma", 1.4);
  const std::string limiter = solver.string_or("limiter", "none");
  if (limiter == "barth-jespersen") {
    problem.options.limiter = Limiter::barth_jespersen;
  } else if (limiter != "none") {
    throw InputError(cat(solver.where(), " limiter: unknown limiter '", limiter, "' (valid: none, barth-jespersen)"));
  }
  problem.options.positivity = solver.bool_or("positivity", false);
  const std::string variables = solver.string_or("limit_variables", "conserved");
  if (variables != "conserved" && variables != "characteristic")
    throw InputError(cat(solver.where(), " limit_variables: '", variables, "' (valid: conserved, characteristic)"));
  problem.options.characteristic_limiting = variables == "characteristic";
  if (!(problem.options.gas.gamma > 1.0)) throw InputError(cat(solver.where(), " gamma: must be > 1"));

  problem.initial = read_flow(config, problem.options.gas);

  // Mesh: load, refine, reorder, validate, connect.
  const Config mesh_table = config.table("mesh");
  mesh_table.allow_only({"file", "refine", "reorder"});
  const std::string spec = resolve_mesh_path(mesh_table.require_string("file"), config.directory());
  problem.mesh = load_mesh(spec);
  const long long refine = mesh_table.integer_or("refine", 0);
  if (refine < 0 || refine > 12) throw InputError(cat(mesh_table.where(), " refine: ", refine, " is out of range (0..12)"));
  for (long long level = 0; level < refine; ++level) problem.mesh = refine_uniform(problem.mesh);
  // Validation builds the connectivity anyway; it is kept unless the elements are renumbered.
  validate_or_throw(problem.mesh, &problem.connectivity);
  const std::string reorder = mesh_table.string_or("reorder", "none");
  if (reorder != "none") problem.connectivity = Connectivity();  // its memory back before the renumbering
  if (reorder == "rcm") {
    reorder_elements(problem.mesh, ElementOrdering::reverse_cuthill_mckee);
  } else if (reorder == "hilbert") {
    reorder_elements(problem.mesh, ElementOrdering::hilbert);
  } else if (reorder != "none") {
    throw InputError(cat(mesh_table.where(), " reorder: unknown ordering '", reorder, "' (valid: none, rcm, hilbert)"));
  }
  if (reorder != "none") problem.connectivity = build_connectivity(problem.mesh);

  // Boundary conditions: every tag of the mesh needs one, and every condition a tag.
  const Config boundary = config.table("boundary");
  for (const std::string& name : boundary.keys())
    if (problem.mesh.find_tag(name) < 0)
      throw InputError(cat(boundary.where(), ": boundary '", name, "' is not a boundary tag of the mesh ", problem.mesh.source,
                           " (its tags: ", [&] {
                             std::string all;
                             for (const auto& tag : problem.mesh.boundary_names) all += (all.empty() ? "" : ", ") + tag;
                             return all;
                           }(), ")"));
  problem.options.boundary.resize(problem.mesh.boundary_names.size());
  std::vector<bool> periodic_done(problem.mesh.boundary_names.size(), false);
  for (std::size_t tag = 0; tag < problem.mesh.boundary_names.size(); ++tag) {
    const std::string& name = problem.mesh.boundary_names[tag];
    const bool has_faces = problem.connectivity.tag_offsets[tag + 1] > problem.connectivity.tag_offsets[tag];
    if (!boundary.has(name)) {
      if (has_faces)
        throw InputError(cat(config.where(), ": boundary tag '", name, "' of the mesh has no condition (add a [boundary.", name,
                             "] table with a type)"));
      continue;
    }
    const Config table = boundary.table(name);
    table.allow_only({"type", "state", "center", "partner", "translation"});
    const std::string type = table.require_string("type");
    if (type == "periodic") {
      if (periodic_done[tag]) continue;
      const std::string partner = table.require_string("partner");
      const int partner_tag = problem.mesh.require_tag(partner);
      auto translation = table.get_doubles("translation");
      if (!translation || translation->size() < 2 || translation->size() > 3)
        throw InputError(cat(table.where(), " translation: expected [dx, dy] taking '", name, "' onto '", partner, "'"));
      const Point3 shift{(*translation)[0], (*translation)[1], translation->size() == 3 ? (*translation)[2] : 0.0};
      make_periodic(problem.mesh, problem.connectivity, static_cast<int>(tag), partner_tag, shift);
      periodic_done[tag] = periodic_done[partner_tag] = true;
      if (problem.initial.kind == FlowKind::isentropic_vortex) {
        if (shift.x != 0) problem.initial.period_x = std::fabs(shift.x);
        if (shift.y != 0) problem.initial.period_y = std::fabs(shift.y);
      }
      continue;
    }
    if (periodic_done[tag]) throw InputError(cat(table.where(), ": '", name, "' is the partner of a periodic boundary; its type must be periodic too"));
    BoundaryCondition& condition = problem.options.boundary[tag];
    condition.kind = parse_boundary_kind(type, table.where());
    condition.flow = problem.initial;
    if (table.has("state")) {
      const Config state = table.table("state");
      state.allow_only({"rho", "u", "v", "p"});
      condition.flow.kind = FlowKind::uniform;
      condition.flow.state = read_state(state, problem.initial.state);
    }
    if (condition.kind == BoundaryKind::curvature_wall) {
      if (auto center = table.get_doubles("center")) {
        if (center->size() != 2) throw InputError(cat(table.where(), " center: expected [x, y]"));
        condition.center_x = (*center)[0];
        condition.center_y = (*center)[1];
      } else {
        bool found = false;
        for (const BoundaryCircle& circle : problem.mesh.boundary_circles)
          if (circle.tag == static_cast<int>(tag)) {
            condition.center_x = circle.center.x;
            condition.center_y = circle.center.y;
            found = true;
          }
        if (!found)
          throw InputError(cat(table.where(), ": a curvature wall needs the circle's center = [x, y] (the mesh does not record one)"));
      }
    }
  }
  // Errors are measured against the [flow]: the exact solution for the built-in vortices, the
  // free stream for a uniform flow (free-stream preservation). The double Mach flow is only the
  // initial and boundary data.
  problem.has_exact = problem.initial.kind != FlowKind::double_mach;

  const Config time = config.table("time");
  time.allow_only({"scheme", "cfl", "dt", "end_time", "max_steps", "steady_tolerance", "progress_every"});
  problem.time.scheme = time.string_or("scheme", problem.time.scheme);
  (void)runge_kutta_scheme(problem.time.scheme);  // validates the name now
  problem.time.cfl = time.double_or("cfl", problem.time.cfl);
  problem.time.fixed_dt = time.get_double("dt");
  problem.time.end_time = time.double_or("end_time", problem.time.end_time);
  problem.time.max_steps = time.integer_or("max_steps", problem.time.max_steps);
  problem.time.steady_tolerance = time.double_or("steady_tolerance", 0.0);
  problem.time.progress_every = time.integer_or("progress_every", 0);
  if (!(problem.time.cfl > 0)) throw InputError(cat(time.where(), " cfl: must be positive"));
  if (problem.time.fixed_dt && !(*problem.time.fixed_dt > 0)) throw InputError(cat(time.where(), " dt: must be positive"));
  if (std::isinf(problem.time.end_time) && problem.time.max_steps < 0 && problem.time.steady_tolerance <= 0)
    throw InputError(cat(time.where(), ": give end_time, max_steps or steady_tolerance, or the run never ends"));

  const Config output = config.table("output");
  output.allow_only({"directory", "vtu", "vtu_every", "vtu_cells", "checkpoint_every"});
  problem.output_directory = output.string_or("directory", cat("runs/", problem.name));
  problem.output.vtu = output.bool_or("vtu", true);
  problem.output.vtu_every = output.integer_or("vtu_every", 0);
  problem.output.checkpoint_every = output.integer_or("checkpoint_every", 0);
  const std::string cells = output.string_or("vtu_cells", "lagrange");
  if (cells != "lagrange" && cells != "subdivided")
    throw InputError(cat(output.where(), " vtu_cells: '", cells, "' (valid: lagrange, subdivided)"));
  problem.output.lagrange_cells = cells == "lagrange";
  if (problem.output.vtu_every < 0 || problem.output.checkpoint_every < 0)
    throw InputError(cat(output.where(), ": vtu_every and checkpoint_every must be >= 0"));
  return problem;
}

std::string default_case_toml(Backend backend) {
  return cat(R"(# Built-in default: the double Mach reflection (Woodward & Colella 1984; Fuhry, Giuliani &
# Krivodonova 2015, section 5.2) at p = 1 with the Barth-Jespersen limiter and SSP-RK2, to t = 0.2.
[case]
name = "double-mach"

[mesh]
file = "builtin:double-mach?ny=)", backend == Backend::cuda ? 90 : 72, R"("

[flow]
kind = "double-mach"

[solver]
order = 1
flux = "hllc"
limiter = "barth-jespersen"
positivity = true

[time]
scheme = "ssp-rk2"
cfl = 0.4
end_time = 0.2

[boundary.left]
type = "prescribed"
[boundary.bottom-inflow]
type = "prescribed"
[boundary.wall]
type = "slip-wall"
[boundary.top]
type = "prescribed"
[boundary.right]
type = "outflow"

[output]
vtu_every = 0
)");
}

namespace {
std::string norms_json(const std::array<double, n_variables>& values) {
  const char* names[] = {"rho", "rho_u", "rho_v", "energy"};
  json::Object object;
  for (int v = 0; v < n_variables; ++v) object.add_number(names[v], values[v]);
  return object.str();
}
}  // namespace

void write_summary(const Case& problem, const Solver& solver, const RunResult& result) {
  std::filesystem::create_directories(problem.output_directory);
  json::Object summary;
  summary.add_string("case", problem.name)
      .add_string("source", problem.source)
      .add_string("physics", "euler2d")
      .add_string("backend", to_string(solver.options().backend))
      .add_string("device", describe(solver.options().backend))
      .add_string("mesh", problem.mesh.source)
      .add_integer("elements", solver.n_elements())
      .add_integer("order", solver.order())
      .add_integer("dof", solver.dof())
      .add_string("scheme", problem.time.scheme)
      .add_integer("steps", result.steps)
      .add_integer("stages", result.stages)
      .add_number("final_time", result.time)
      .add_number("setup_seconds", result.setup_seconds)
      .add_number("wall_seconds", result.wall_seconds);
  const double updates = static_cast<double>(solver.dof()) * result.stages * static_cast<double>(result.steps);
  summary.add_number("throughput_dof_stage_per_second", result.wall_seconds > 0 ? updates / result.wall_seconds : 0.0);
  summary.add_number("tk_microseconds", result.steps > 0 ? 1e6 * result.wall_seconds / result.steps / static_cast<double>(solver.dof()) : 0.0);
  summary.add_bool("steady_converged", result.converged).add_number("last_change", result.last_change);
  if (result.errors) {
    json::Object errors;
    errors.add("l2", norms_json(result.errors->l2)).add("linf", norms_json(result.errors->linf));
    summary.add("errors", errors.str());
  }
  summary.add_integer("peak_device_bytes", static_cast<long long>(peak_bytes(Space::device)))
      .add_integer("peak_host_array_bytes", static_cast<long long>(peak_bytes(Space::host)))
      .add_string("status", result.status);
  const std::string path = (std::filesystem::path(problem.output_directory) / "summary.json").string();
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    if (!out) throw InputError(cat("cannot write ", temporary));
    out << summary.str() << "\n";
  }
  std::filesystem::rename(temporary, path);  // never leave a half-written summary
}

namespace {

/// Writes the run's files; every file is replaced atomically by the writers.
class OutputWriter {
 public:
  OutputWriter(const Case& problem, const Solver& solver)
      : problem_(problem), solver_(solver), directory_(problem.output_directory),
        series_((std::filesystem::path(problem.output_directory) / "solution.pvd").string()) {}

  void vtu(const std::vector<double>& coefficients, double time, const std::string& name) {
    const SolutionView view{&solver_.vertices(), solver_.n_elements(), solver_.order(), &coefficients, problem_.options.gas};
    VtuOptions options;
    options.cells = problem_.output.lagrange_cells ? VtuCells::lagrange : VtuCells::subdivided;
    write_vtu((std::filesystem::path(directory_) / name).string(), view, time, options);
  }
  void vtu_in_series(const std::vector<double>& coefficients, double time, long long step) {
    const std::string name = cat("solution_", std::string(8 - std::min<std::size_t>(8, std::to_string(step).size()), '0'), step, ".vtu");
    vtu(coefficients, time, name);
    series_.add(time, name);
  }
  void resume_series(double up_to_time) { series_.resume(up_to_time); }
  void checkpoint(const std::vector<double>& coefficients, double time, long long step, const std::string& name) {
    Checkpoint data;
    data.case_toml = problem_.toml;
    data.mesh_source = problem_.mesh.source;
    data.mesh_hash = mesh_hash(problem_.mesh);
    data.n_elements = solver_.n_elements();
    data.order = solver_.order();
    data.n_variables = n_variables;
    data.time = time;
    data.step = step;
    data.scheme = problem_.time.scheme;
    data.physics = "euler2d";
    data.coefficients = coefficients;
    write_checkpoint((std::filesystem::path(directory_) / name).string(), data);
  }

 private:
  const Case& problem_;
  const Solver& solver_;
  std::string directory_;
  PvdSeries series_;
};

/// A live line on a terminal (carriage return), plain lines otherwise.
class Progress {
 public:
  explicit Progress(bool quiet) : quiet_(quiet), terminal_(isatty(fileno(stdout)) != 0) {}
  void report(const std::string& line) {
    if (quiet_) return;
    if (terminal_) {
      std::printf("\r%-110s", line.c_str());
      live_ = true;
    } else {
      std::printf("%s\n", line.c_str());
    }
    std::fflush(stdout);
  }
  void finish() {
    if (live_) std::printf("\n");
    live_ = false;
  }
  bool terminal() const { return terminal_; }

 private:
  bool quiet_, terminal_, live_ = false;
};

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  if (seconds < 60) return cat(static_cast<long long>(seconds), "s");
  if (seconds < 3600) return cat(static_cast<long long>(seconds / 60), "m", static_cast<long long>(seconds) % 60, "s");
  return cat(static_cast<long long>(seconds / 3600), "h", static_cast<long long>(seconds / 60) % 60, "m");
}

}  // namespace

RunResult run_case(const Case& problem, const RunOptions& run_options) {
  using clock = std::chrono::steady_clock;
  const auto setup_start = clock::now();
  Solver solver(problem.mesh, problem.connectivity, problem.options);
  double t = 0;
  long long step = 0;
  if (!run_options.restart.empty()) {
    const Checkpoint checkpoint = read_checkpoint(run_options.restart);
    check_compatible(checkpoint, problem.mesh, problem.options.order, "euler2d");
    solver.set_coefficients(checkpoint.coefficients);
    t = checkpoint.time;
    step = checkpoint.step;
  } else {
    solver.project(problem.initial, 0.0);
  }
  const RungeKuttaScheme scheme = runge_kutta_scheme(problem.time.scheme);
  RunResult result;
  result.stages = scheme.n_stages();
  result.time = t;
  synchronize(problem.options.backend);
  result.setup_seconds = std::chrono::duration<double>(clock::now() - setup_start).count();
  const bool write_files = run_options.write_summary;
  if (write_files) std::filesystem::create_directories(problem.output_directory);
  OutputWriter writer(problem, solver);
  if (write_files && !run_options.restart.empty()) writer.resume_series(t);

  const TimeControl& control = problem.time;
  if (!run_options.quiet)
    std::printf("flowdg: %s on %s: %lld elements, p = %d, %lld DOF, %s, %s%s\n", problem.name.c_str(),
                describe(problem.options.backend).c_str(), static_cast<long long>(solver.n_elements()), solver.order(),
                static_cast<long long>(solver.dof()), scheme.name.c_str(), problem.mesh.source.c_str(),
                run_options.restart.empty() ? "" : cat(", restarted from ", run_options.restart, " at t = ", t, ", step ", step).c_str());
  const bool steady = control.steady_tolerance > 0;
  const double t_start = t;
  const long long first_step = step;
  double saved_time = t;
  long long saved_step = step;
  solver.save_snapshot();
  Progress progress(run_options.quiet);
  const auto start = clock::now();
  auto last_report = start;
  auto rate = [&](double elapsed) {
    return elapsed > 0 ? static_cast<double>(solver.dof()) * result.stages * static_cast<double>(step - first_step) / elapsed : 0.0;
  };
  try {
    if (write_files && problem.output.vtu && problem.output.vtu_every > 0 && run_options.restart.empty())
      writer.vtu_in_series(solver.coefficients(), t, step);
    while (true) {
      if (t >= control.end_time * (1 - 1e-14)) break;
      if (control.max_steps >= 0 && step >= control.max_steps) break;
      // A CFL time step checks every element mean; a fixed one is checked before snapshots and output.
      double dt = control.fixed_dt ? *control.fixed_dt : solver.stable_time_step(control.cfl);
      if (step > first_step && (step - first_step) % run_options.snapshot_every == 0) {
        if (control.fixed_dt) (void)solver.stable_time_step(1.0);
        solver.save_snapshot();
        saved_time = t;
        saved_step = step;
      }
      if (t + dt > control.end_time) dt = control.end_time - t;
      solver.step(scheme, t, dt, steady);
      t += dt;
      ++step;
      result.time = t;
      result.steps = step - first_step;
      if (steady) {
        result.last_change = solver.last_change();
        if (!std::isfinite(result.last_change)) (void)solver.stable_time_step(1.0);
        if (result.last_change < control.steady_tolerance) {
          result.converged = true;
          break;
        }
      }
      const bool vtu_now = write_files && problem.output.vtu && problem.output.vtu_every > 0 && step % problem.output.vtu_every == 0;
      const bool checkpoint_now = write_files && problem.output.checkpoint_every > 0 && step % problem.output.checkpoint_every == 0;
      if (vtu_now || checkpoint_now) {
        (void)solver.stable_time_step(1.0);  // never write a broken state
        const std::vector<double> coefficients = solver.coefficients();
        if (vtu_now) writer.vtu_in_series(coefficients, t, step);
        if (checkpoint_now) writer.checkpoint(coefficients, t, step, "checkpoint.h5");
      }
      const auto now = clock::now();
      const bool report = control.progress_every > 0 ? step % control.progress_every == 0
                                                     : now - last_report > std::chrono::milliseconds(progress.terminal() ? 250 : 2000);
      if (report) {
        last_report = now;
        const double elapsed = std::chrono::duration<double>(now - start).count();
        double remaining = NAN;
        if (std::isfinite(control.end_time)) remaining = elapsed * (control.end_time - t) / (t - t_start);
        if (control.max_steps >= 0) {
          const double by_steps = elapsed * static_cast<double>(control.max_steps - step) / static_cast<double>(step - first_step);
          remaining = std::isfinite(remaining) ? std::min(remaining, by_steps) : by_steps;
        }
        char text[160];
        std::snprintf(text, sizeof text, "  step %lld  t = %.6g  dt = %.3e  wall %s  ETA %s  %.3g DOF-stages/s", step, t, dt,
                      format_duration(elapsed).c_str(), steady ? "steady" : format_duration(remaining).c_str(), rate(elapsed));
        std::string line = text;
        if (steady) {
          std::snprintf(text, sizeof text, "  change %.3e", result.last_change);
          line += text;
        }
        progress.report(line);
      }
    }
    (void)solver.stable_time_step(1.0);  // a broken final state is not "completed"
  } catch (const NumericalError& error) {
    progress.finish();
    synchronize(problem.options.backend);
    result.wall_seconds = std::chrono::duration<double>(clock::now() - start).count();
    result.status = cat("failed at step ", step, ", t = ", t, ": ", error.what());
    std::string saved_note;
    if (write_files) {
      const std::vector<double> good = solver.snapshot();
      writer.checkpoint(good, saved_time, saved_step, "last_good.h5");
      if (problem.output.vtu) writer.vtu(good, saved_time, "last_good.vtu");
      write_summary(problem, solver, result);
      saved_note = cat("; the last good state (step ", saved_step, ", t = ", saved_time, ") is in ", problem.output_directory,
                       "/last_good.h5 and last_good.vtu, the summary in summary.json");
    }
    throw NumericalError(cat(error.what(), ", at step ", step, ", t = ", t, saved_note));
  }
  progress.finish();
  synchronize(problem.options.backend);
  result.wall_seconds = std::chrono::duration<double>(clock::now() - start).count();
  if (problem.has_exact) result.errors = solver.errors(problem.initial, t);
  if (!run_options.quiet) {
    std::printf("flowdg: %lld steps to t = %.6g in %.2f s (%.3g DOF-stages/s)%s\n", result.steps, t, result.wall_seconds,
                rate(result.wall_seconds), steady ? (result.converged ? ", steady state reached" : ", steady state NOT reached") : "");
    if (result.errors)
      std::printf("flowdg: L2 error: rho %.4e  rho_u %.4e  rho_v %.4e  energy %.4e\n", result.errors->l2[0], result.errors->l2[1],
                  result.errors->l2[2], result.errors->l2[3]);
  }
  if (write_files) {
    const std::vector<double> coefficients = solver.coefficients();
    if (problem.output.vtu) {
      if (problem.output.vtu_every > 0) {
        if (step % problem.output.vtu_every != 0) writer.vtu_in_series(coefficients, t, step);
      } else {
        writer.vtu(coefficients, t, "solution.vtu");
      }
    }
    writer.checkpoint(coefficients, t, step, "checkpoint.h5");
    write_summary(problem, solver, result);
    if (!run_options.quiet)
      std::printf("flowdg: wrote %s/{summary.json,checkpoint.h5%s}\n", problem.output_directory.c_str(),
                  problem.output.vtu ? (problem.output.vtu_every > 0 ? ",solution.pvd" : ",solution.vtu") : "");
  }
  return result;
}

}  // namespace flowdg::euler2d
