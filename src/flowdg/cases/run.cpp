#include "flowdg/cases/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/cases/distributed.hpp"
#include "flowdg/cases/forces.hpp"
#include "flowdg/cases/multigrid.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/mesh/lagrange.hpp"
#include "flowdg/io/checkpoint.hpp"
#include "flowdg/io/checkpoint_writer.hpp"
#include "flowdg/core/signals.hpp"
#include "flowdg/io/json.hpp"
#include "flowdg/io/solution_output.hpp"

namespace flowdg {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

/// A checkpoint of the run (mesh_hash: the mesh's, computed once per run: it costs a pass over the mesh).
Checkpoint case_checkpoint(const Case& problem, const dg::Operator& op, std::vector<double> coefficients, double time,
                           long long step, std::uint64_t mesh_hash);

namespace {

std::string output_path(const Case& problem, const std::string& name) {
  return (std::filesystem::path(problem.output_directory) / name).string();
}

VtuCells cells_of(const Case& problem) {
  return problem.output.lagrange_cells ? VtuCells::lagrange : VtuCells::subdivided;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  if (seconds < 60) return cat(static_cast<long long>(seconds), "s");
  if (seconds < 3600) return cat(static_cast<long long>(seconds / 60), "m", static_cast<long long>(seconds) % 60, "s");
  return cat(static_cast<long long>(seconds / 3600), "h", static_cast<long long>(seconds / 60) % 60, "m");
}

// ---- the hooks ------------------------------------------------------------------------------

/// A live line on a terminal (carriage return), plain lines otherwise, every progress_every steps
/// or every 2 s (0.25 s on a terminal).
class ProgressHook final : public Hook {
 public:
  explicit ProgressHook(bool quiet) : quiet_(quiet), terminal_(isatty(fileno(stdout)) != 0) {}
  std::string name() const override { return "progress"; }
  void start(LoopState& state) override {
    start_ = last_ = Clock::now();
    t_start_ = state.t;
  }
  void after_step(LoopState& state) override {
    if (quiet_) return;
    const TimeControl& control = state.problem.time;
    const auto now = Clock::now();
    const bool due = control.progress_every > 0 ? state.step % control.progress_every == 0
                                                : now - last_ > std::chrono::milliseconds(terminal_ ? 250 : 2000);
    if (!due) return;
    last_ = now;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const long long done = state.step - state.first_step;
    double remaining = NAN;
    if (std::isfinite(control.end_time)) remaining = elapsed * (control.end_time - state.t) / (state.t - t_start_);
    if (control.max_steps >= 0) {
      const double by_steps = elapsed * static_cast<double>(control.max_steps - state.step) / static_cast<double>(done);
      remaining = std::isfinite(remaining) ? std::min(remaining, by_steps) : by_steps;
    }
    const bool steady = control.steady_tolerance > 0 || control.residual_tolerance > 0;
    // (a p-multigrid run: its steps are cycles, whose work is not one stage count times the DOF)
    const double rate = elapsed > 0 ? (cycles_ ? 1.0 : static_cast<double>(state.op.global_dof()) * stages_) * static_cast<double>(done) / elapsed
                                    : 0.0;
    char text[200];
    std::snprintf(text, sizeof text, "  %s %lld  t = %.6g  dt = %.3e  wall %s  ETA %s  %.3g %s", cycles_ ? "cycle" : "step", state.step,
                  state.t, state.dt, format_duration(elapsed).c_str(), steady ? "steady" : format_duration(remaining).c_str(), rate,
                  cycles_ ? "cycles/s" : "DOF-stages/s");
    std::string line = text;
    if (control.steady_tolerance > 0) line += cat("  change ", state.last_change);
    if (terminal_) {
      std::printf("\r%-110s", line.c_str());
      live_ = true;
    } else {
      std::printf("%s\n", line.c_str());
    }
    std::fflush(stdout);
  }
  void finish(LoopState&) override { end_line(); }
  ~ProgressHook() override { end_line(); }
  void set_stages(int stages) { stages_ = stages; }
  void set_cycles(bool cycles) { cycles_ = cycles; }

 private:
  void end_line() {
    if (live_) std::printf("\n");
    live_ = false;
  }
  bool quiet_, terminal_, live_ = false, cycles_ = false;
  int stages_ = 1;
  Clock::time_point start_, last_;
  double t_start_ = 0;
};

/// Every `every` steps, the admissibility of every element mean (a non-physical or NaN state
/// stops the run with a NumericalError that names the element), then a device copy of the state:
/// the last good one, written out if a later step fails.
class SnapshotHook final : public Hook {
 public:
  explicit SnapshotHook(long long every) : every_(every) {}
  std::string name() const override { return "snapshot"; }
  void start(LoopState& state) override {
    state.op.save_snapshot();
    state.saved_time = state.t;
    state.saved_step = state.step;
  }
  void after_step(LoopState& state) override {
    if ((state.step - state.first_step) % every_ != 0) return;
    (void)state.op.stable_time_step(1.0);  // throws NumericalError on a bad state: never save one
    if (state.snapshot_in_use.load(std::memory_order_acquire)) return;  // a checkpoint is reading it: keep it
    state.op.save_snapshot();
    state.saved_time = state.t;
    state.saved_step = state.step;
  }

 private:
  long long every_;
};

/// The admissibility check alone, every step (the "check" hook; the snapshot hook checks too).
class CheckHook final : public Hook {
 public:
  std::string name() const override { return "check"; }
  void after_step(LoopState& state) override { (void)state.op.stable_time_step(1.0); }
};

/// The solution as ParaView reads it: OUTPUT/STEM.vtu on one rank; in a distributed run each
/// rank's piece OUTPUT/STEM/STEM_<rank>.vtu (cells numbered as in the whole mesh) and the root's
/// OUTPUT/STEM.pvtu listing them. Returns the file a series lists (relative to OUTPUT).
std::string write_solution(const Case& problem, const dg::Operator& op, double time, const std::string& stem) {
  const Parallel* parallel = problem.parallel.get();
  if (parallel == nullptr) {
    write_solution_vtu(output_path(problem, stem + ".vtu"), op, problem.options.gamma, time, cells_of(problem));
    return stem + ".vtu";
  }
  std::filesystem::create_directories(output_path(problem, stem));
  const auto piece = [&](int rank) { return cat(stem, "/", stem, "_", rank, ".vtu"); };
  write_solution_vtu(output_path(problem, piece(parallel->rank())), op, problem.options.gamma, time, cells_of(problem),
                     parallel->global_element);
  if (parallel->root()) {
    std::vector<std::string> pieces;
    for (int r = 0; r < parallel->size(); ++r) pieces.push_back(piece(r));
    write_solution_pvtu(output_path(problem, stem + ".pvtu"), pieces, !op.element_viscosity().empty(), time);
  }
  return stem + ".pvtu";
}

/// A ParaView series: solution_<step>.vtu (.pvtu in a distributed run) every vtu_every steps and at
/// the end, listed in solution.pvd (or one solution.vtu at the end when vtu_every is 0).
class VtuHook final : public Hook {
 public:
  VtuHook(const Case& problem, const RunOptions& options)
      : every_(problem.output.vtu_every), restarted_(!options.restart.empty() || options.start_from != nullptr),
        root_(is_root(problem)), series_(output_path(problem, "solution.pvd")) {}
  std::string name() const override { return "vtu"; }
  void start(LoopState& state) override {
    if (every_ == 0) return;
    if (restarted_) {
      if (root_) series_.resume(state.t);
    } else {
      write(state);
    }
  }
  void after_step(LoopState& state) override {
    if (every_ > 0 && state.step % every_ == 0) {
      (void)state.op.stable_time_step(1.0);  // never write a broken state
      write(state);
    }
  }
  void finish(LoopState& state) override {
    if (every_ == 0)
      (void)write_solution(state.problem, state.op, state.t, "solution");
    else if (state.step % every_ != 0)
      write(state);
  }

 private:
  void write(LoopState& state) {
    const std::string step = std::to_string(state.step);
    const std::string stem = cat("solution_", std::string(8 - std::min<std::size_t>(8, step.size()), '0'), step);
    const std::string name = write_solution(state.problem, state.op, state.t, stem);
    if (root_) series_.add(state.t, name);
  }
  long long every_;
  bool restarted_, root_;
  euler2d::PvdSeries series_;
};

/// checkpoint.h5 every checkpoint_every steps and at the end, written by a background thread while
/// the run steps on (io/checkpoint_writer.hpp); the run waits only when the next checkpoint is due
/// before the last one is on disk, and at the end. In a distributed run the state is gathered on the
/// root in the whole mesh's layout (GlobalLayout: the file one rank writes) at the step, and the
/// root's thread writes it.
class CheckpointHook final : public Hook {
 public:
  explicit CheckpointHook(long long every) : every_(every) {}
  std::string name() const override { return "checkpoint"; }
  void start(LoopState& state) override {
    const Case& problem = state.problem;
    mesh_hash_ = problem.parallel != nullptr ? problem.parallel->mesh_hash : mesh_hash(problem.mesh);  // once: it cannot change
    if (problem.parallel != nullptr) layout_ = std::make_unique<GlobalLayout>(problem, state.op);
  }
  void after_step(LoopState& state) override {
    if (every_ == 0 || state.step % every_ != 0) return;
    (void)state.op.stable_time_step(1.0);  // never write a broken state
    writer_.wait();  // the previous checkpoint's read is over (and its error, if any, is thrown)
    if (layout_ != nullptr) {
      std::vector<double> whole = layout_->gather(state.op.coefficients(), state.op.order());
      if (is_root(state.problem))
        writer_.submit(output_path(state.problem, "checkpoint.h5"),
                       case_checkpoint(state.problem, state.op, std::move(whole), state.t, state.step, mesh_hash_));
      return;
    }
    // The state goes into the device snapshot (a copy on the device, microseconds); the writer
    // thread reads it back and writes it while the run steps on. The snapshot is the last good
    // state as well: it is good (checked above) and the snapshot hook leaves it alone until read.
    state.op.save_snapshot();
    state.saved_time = state.t;
    state.saved_step = state.step;
    state.snapshot_in_use.store(true, std::memory_order_release);
    dg::Operator* op = &state.op;
    std::atomic<bool>* in_use = &state.snapshot_in_use;
    writer_.submit(output_path(state.problem, "checkpoint.h5"), case_checkpoint(state.problem, state.op, {}, state.t, state.step, mesh_hash_),
                   [op, in_use] {
                     std::vector<double> coefficients = op->snapshot();
                     in_use->store(false, std::memory_order_release);
                     return coefficients;
                   });
  }
  void finish(LoopState& state) override {
    writer_.wait();
    std::vector<double> whole =
        layout_ != nullptr ? layout_->gather(state.op.coefficients(), state.op.order()) : state.op.coefficients();
    if (is_root(state.problem))
      writer_.submit(output_path(state.problem, "checkpoint.h5"),
                     case_checkpoint(state.problem, state.op, std::move(whole), state.t, state.step, mesh_hash_));
    writer_.wait();
  }
  /// The write in flight finished (a failure path writes last_good.h5 after it).
  void settle() { writer_.wait(); }
  double waited_seconds() const { return writer_.waited_seconds(); }

 private:
  long long every_;
  std::uint64_t mesh_hash_ = 0;
  std::unique_ptr<GlobalLayout> layout_;
  CheckpointWriter writer_;
};

/// Stops the run when max |c^{n+1} - c^n| falls below the case's steady tolerance, checked every
/// `every` steps (the steps whose number is a multiple of it).
class SteadyHook final : public Hook {
 public:
  SteadyHook(double tolerance, long long every) : tolerance_(tolerance), every_(every) {}
  std::string name() const override { return "steady"; }
  bool monitors_change() const override { return true; }
  bool monitors_step(long long step) const override { return step % every_ == 0; }
  void after_step(LoopState& state) override {
    if (!monitors_step(state.step)) return;
    state.last_change = state.op.last_change();
    if (!std::isfinite(state.last_change)) (void)state.op.stable_time_step(1.0);  // names the element
    if (state.last_change < tolerance_) {
      state.converged = true;
      state.stop = true;
    }
  }

 private:
  double tolerance_;
  long long every_;
};

/// The steady-state residual monitor: every `every` steps the L2 norm of du/dt per conserved
/// variable, appended to OUTPUT/residuals.csv (step, t, one column per variable); with a tolerance,
/// the run stops once the largest of them is below it.
class ResidualsHook final : public Hook {
 public:
  ResidualsHook(long long every, double tolerance) : every_(every), tolerance_(tolerance) {}
  std::string name() const override { return "residuals"; }
  void start(LoopState& state) override {
    if (!state.write_files) return;
    const std::string path = output_path(state.problem, "residuals.csv");
    // A restart continues the file; a fresh run starts it.
    const bool append = continue_history(path, state.first_step);
    out_.open(path, append ? std::ios::app : std::ios::trunc);
    if (!out_) throw InputError(cat("cannot write ", path));
    if (!append) out_ << (state.op.dimension() == 3 ? "step,time,rho,rho_u,rho_v,rho_w,energy\n" : "step,time,rho,rho_u,rho_v,energy\n");
  }
  void after_step(LoopState& state) override {
    if (state.step % every_ != 0) return;
    const std::vector<double> norms = state.op.residual_norms(state.t);
    double largest = 0;
    for (const double value : norms) largest = std::max(largest, value);
    if (out_.is_open()) {
      char number[32];
      std::snprintf(number, sizeof number, "%.10e", state.t);
      out_ << state.step << ',' << number;
      for (const double value : norms) {
        std::snprintf(number, sizeof number, "%.6e", value);
        out_ << ',' << number;
      }
      out_ << '\n';
      out_.flush();
    }
    if (!std::isfinite(largest)) (void)state.op.stable_time_step(1.0);  // names the element
    if (tolerance_ > 0 && largest < tolerance_) {
      state.converged = true;
      state.stop = true;
    }
  }

 private:
  long long every_;
  double tolerance_;
  std::ofstream out_;
};

std::string norms_json(const std::vector<double>& values, int dim) {
  const char* names2[] = {"rho", "rho_u", "rho_v", "energy"};
  const char* names3[] = {"rho", "rho_u", "rho_v", "rho_w", "energy"};
  json::Object object;
  for (std::size_t v = 0; v < values.size(); ++v) object.add_number(dim == 3 ? names3[v] : names2[v], values[v]);
  return object.str();
}

}  // namespace

double entropy_error(const dg::Operator& op, const Mesh& mesh, double gamma, double s_inf, const Communicator* communicator) {
  // One rule per shape, exact to 2p + 2 on the reference element.
  const std::size_t n_shapes = static_cast<std::size_t>(Shape::hexahedron) + 1;
  std::vector<std::vector<Point3>> points(n_shapes);
  std::vector<QuadratureRule> rules(n_shapes);
  for (const dg::ElementGroup& group : op.groups().element_groups) {
    const auto s = static_cast<std::size_t>(group.shape);
    if (!points[s].empty()) continue;
    rules[s] = quadrature_rule(group.shape, 2 * op.order() + 2);
    points[s] = rules[s].points;
  }
  const int dim = op.dimension(), NV = op.n_variables();
  double integral = 0, volume = 0;
  for (const dg::PointValues& values : op.evaluate(points)) {
    const QuadratureRule& rule = rules[static_cast<std::size_t>(values.shape)];
    const std::size_t n_points = rule.points.size();
    for (std::size_t i = 0; i < values.elements.size(); ++i)
      for (std::size_t k = 0; k < n_points; ++k) {
        const double* u = &values.values[(i * n_points + k) * static_cast<std::size_t>(NV)];
        double kinetic = 0;
        for (int d = 0; d < dim; ++d) kinetic += u[1 + d] * u[1 + d];
        const double p = (gamma - 1) * (u[NV - 1] - 0.5 * kinetic / u[0]);
        const double error = p / std::pow(u[0], gamma) / s_inf - 1;
        const double w = rule.weights[k] * element_jacobian(mesh, values.elements[i], rule.points[k]).det;
        integral += w * error * error;
        volume += w;
      }
  }
  if (communicator != nullptr) {
    integral = communicator->sum(integral);
    volume = communicator->sum(volume);
  }
  return std::sqrt(integral / volume);
}

bool continue_history(const std::string& path, long long first_step) {
  if (first_step <= 0 || !std::filesystem::exists(path)) return false;
  std::ifstream in(path);
  std::string line, kept;
  bool header = true;
  while (std::getline(in, line)) {
    if (header || std::atoll(line.c_str()) <= first_step) kept += line + "\n";
    header = false;
  }
  in.close();
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) throw InputError(cat("cannot write ", temporary));
    out << kept;
  }
  std::filesystem::rename(temporary, path);
  return true;
}

std::unique_ptr<Hook> make_hook(const std::string& name, const Case& problem, const RunOptions& options) {
  if (name == "progress") return std::make_unique<ProgressHook>(options.quiet);
  if (name == "check") return std::make_unique<CheckHook>();
  if (name == "snapshot") return std::make_unique<SnapshotHook>(std::max<long long>(1, options.snapshot_every));
  if (name == "vtu") return std::make_unique<VtuHook>(problem, options);
  if (name == "checkpoint") return std::make_unique<CheckpointHook>(problem.output.checkpoint_every);
  if (name == "steady") return std::make_unique<SteadyHook>(problem.time.steady_tolerance, std::max<long long>(1, problem.time.steady_every));
  if (name == "residuals")
    return std::make_unique<ResidualsHook>(std::max<long long>(1, problem.time.residual_every), problem.time.residual_tolerance);
  if (name == "forces") {
    if (!problem.forces.enabled) throw InputError("the forces hook needs a [forces] table in the case (its walls at least)");
    return make_forces_hook(problem, options);
  }
  throw InputError(cat("unknown hook '", name, "' (valid: progress, check, snapshot, vtu, checkpoint, steady, residuals, forces)"));
}

std::vector<std::unique_ptr<Hook>> case_hooks(const Case& problem, const RunOptions& options) {
  std::vector<std::string> names;
  if (problem.time.steady_tolerance > 0) names.push_back("steady");
  if (problem.time.residual_every > 0) names.push_back("residuals");
  if (problem.forces.enabled) names.push_back("forces");
  names.push_back("snapshot");
  if (options.write_summary && problem.output.vtu) names.push_back("vtu");
  if (options.write_summary && problem.output.checkpoint) names.push_back("checkpoint");
  names.push_back("progress");
  std::vector<std::unique_ptr<Hook>> hooks;
  for (const std::string& name : names) hooks.push_back(make_hook(name, problem, options));
  return hooks;
}

Checkpoint case_checkpoint(const Case& problem, const dg::Operator& op, std::vector<double> coefficients, double time,
                           long long step, std::uint64_t hash) {
  Checkpoint data;
  data.case_toml = problem.toml;
  data.mesh_source = problem.parallel != nullptr ? problem.parallel->mesh_source : problem.mesh.source;
  data.mesh_hash = hash;
  data.n_elements = op.global_elements();
  data.order = op.order();
  data.n_variables = op.n_variables();
  data.time = time;
  data.step = step;
  data.scheme = problem.time.scheme;
  data.physics = problem.physics();
  // Meshes of triangles only keep the files of the 2D solver (no n_basis_total attribute).
  const index_t basis_total = op.global_dof() / op.n_variables();
  if (basis_total != n_basis(Shape::triangle, op.order()) * op.global_elements()) data.n_basis_total = basis_total;
  data.coefficients = std::move(coefficients);
  return data;
}

void write_case_checkpoint(const Case& problem, const dg::Operator& op, const std::vector<double>& coefficients, double time,
                           long long step, const std::string& name) {
  if (problem.parallel != nullptr) {  // collective: the whole state on the root
    const std::vector<double> whole = GlobalLayout(problem, op).gather(coefficients, op.order());
    if (problem.parallel->root())
      write_checkpoint(output_path(problem, name), case_checkpoint(problem, op, whole, time, step, problem.parallel->mesh_hash));
    return;
  }
  write_checkpoint(output_path(problem, name), case_checkpoint(problem, op, coefficients, time, step, mesh_hash(problem.mesh)));
}

void write_summary(const Case& problem, const dg::Operator& op, const RunResult& result) {
  std::filesystem::create_directories(problem.output_directory);
  json::Object summary;
  summary.add_string("case", problem.name)
      .add_string("source", problem.source)
      .add_string("physics", problem.physics())
      .add_string("backend", to_string(problem.options.backend))
      .add_string("device", describe(problem.options.backend))
      .add_string("mesh", problem.parallel != nullptr ? problem.parallel->mesh_source : problem.mesh.source)
      .add_integer("ranks", problem.parallel != nullptr ? problem.parallel->size() : 1)
      .add_string("kernels", result.implementation)
      .add_string("groups", op.describe())
      .add_string("precision", op.precision() == dg::Precision::single_precision ? "single" : "double")
      .add_integer("elements", op.global_elements())
      .add_integer("order", op.order())
      .add_string("volume_quadrature", problem.options.volume_degree_shift == 0  ? std::string("2p")
                                       : problem.options.volume_degree_shift < 0 ? cat("2p", problem.options.volume_degree_shift)
                                                                                 : cat("2p+", problem.options.volume_degree_shift))
      .add_integer("dof", op.global_dof())
      .add_string("scheme", problem.time.scheme)
      .add_integer("steps", result.steps)
      .add_string("p_multigrid_steps", result.multigrid_steps)
      .add_integer("stages", result.stages)
      .add_number("final_time", result.time)
      .add_number("setup_seconds", result.setup_seconds)
      .add_number("wall_seconds", result.wall_seconds);
  // (a p-multigrid run's steps are cycles: these rates, per step of the finest level, are then 0;
  // p_multigrid_steps has the steps per order)
  const bool per_step = result.multigrid_steps.empty();
  const double updates = per_step ? static_cast<double>(op.global_dof()) * result.stages * static_cast<double>(result.steps) : 0.0;
  summary.add_number("throughput_dof_stage_per_second", result.wall_seconds > 0 ? updates / result.wall_seconds : 0.0);
  // The memory model's bytes per stage (docs/performance.md) and what the run moved by it per second.
  const double stage_bytes = op.stage_bytes(runge_kutta_scheme(problem.time.scheme));
  summary.add_number("model_bytes_per_stage", stage_bytes)
      .add_number("model_bytes_per_second",
                  per_step && result.wall_seconds > 0 ? stage_bytes * result.stages * static_cast<double>(result.steps) / result.wall_seconds : 0.0);
  summary.add_number("tk_microseconds",
                     per_step && result.steps > 0 ? 1e6 * result.wall_seconds / result.steps / static_cast<double>(op.global_dof()) : 0.0);
  // How CUDA loaded the kernels (flowdg run sets EAGER unless exported otherwise: lazy loading
  // slows every launch, backend/module_loading.hpp), for reading a run's throughput.
  if (problem.options.backend == Backend::cuda) {
    const char* module_loading = std::getenv("CUDA_MODULE_LOADING");
    summary.add_string("cuda_module_loading", module_loading != nullptr ? module_loading : "LAZY (CUDA's default)");
  }
  if (const std::string halo = op.halo_report(); !halo.empty()) summary.add_string("halo", halo);
  summary.add_bool("steady_converged", result.converged).add_number("last_change", result.last_change);
  if (result.errors) {
    json::Object errors;
    errors.add("l2", norms_json(result.errors->l2, op.dimension())).add("linf", norms_json(result.errors->linf, op.dimension()));
    summary.add("errors", errors.str());
  }
  if (result.entropy_error) summary.add_number("entropy_error", *result.entropy_error);
  summary.add_integer("peak_device_bytes", static_cast<long long>(peak_bytes(Space::device)))
      .add_integer("peak_host_array_bytes", static_cast<long long>(peak_bytes(Space::host)))
      .add_string("status", result.status);
  const std::string path = output_path(problem, "summary.json");
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    if (!out) throw InputError(cat("cannot write ", temporary));
    out << summary.str() << "\n";
  }
  std::filesystem::rename(temporary, path);  // never leave a half-written summary
}

namespace {

/// What a non-physical state's message adds where an inviscid case runs without shock capturing: a
/// shock, or an impulsive start into a wall (its corners where walls meet), grows undershoots that no
/// high-order DG scheme survives without it.
std::string shock_capturing_hint(const Case& problem, const std::string& message) {
  const dg::OperatorOptions& options = problem.options;
  if (message.find("non-physical state") == std::string::npos || options.viscous.enabled) return {};
  std::string cure;
  if (problem.mesh.dimension == 3 && !options.artificial_viscosity.enabled)
    cure = "[artificial_viscosity] (Persson & Peraire)";
  else if (problem.mesh.dimension == 2 && options.limiter == dg::Limiter::none && !options.positivity)
    cure = "[solver] limiter = \"barth-jespersen\" (and positivity = true)";
  if (cure.empty()) return {};
  return cat("; nothing captures shocks in this case: a shock, or an impulsive start against a wall, needs ", cure,
             ", or a smaller time.cfl (time.cfl_start with time.cfl_ramp_steps: a gentler start)");
}

/// One run at the case's order (run_case: a p-continuation runs one per order).
RunResult run_one(const Case& problem, const RunOptions& options_in) {
  const auto setup_start = Clock::now();
  // A distributed run: the root rank prints; every rank writes its VTU piece, the root the rest.
  RunOptions run_options = options_in;
  if (!is_root(problem)) run_options.quiet = true;
  const Parallel* parallel = problem.parallel.get();
  const Communicator* communicator = parallel != nullptr ? parallel->communicator.get() : nullptr;
  if (!run_options.quiet) {
    for (const std::string& note : problem.notes) std::printf("flowdg: %s\n", note.c_str());
    for (const std::string& warning : problem.warnings) std::fprintf(stderr, "flowdg: warning: %s\n", warning.c_str());
  }
  const std::unique_ptr<dg::Operator> op = dg::make_operator(problem.mesh, problem.connectivity, problem.options);
  LoopState state{*op, problem};
  state.write_files = run_options.write_summary && is_root(problem);
  const GlobalLayout layout(problem, *op);  // checkpoints in the whole mesh's layout (collective)
  const bool restarted = run_options.start_from != nullptr || !run_options.restart.empty();
  if (restarted) {
    const std::string origin = run_options.start_from != nullptr ? "the last stage" : run_options.restart;
    std::optional<Checkpoint> read;
    if (run_options.start_from == nullptr) read = read_checkpoint(run_options.restart);
    const Checkpoint& checkpoint = run_options.start_from != nullptr ? *run_options.start_from : *read;
    // p-continuation: a checkpoint of another order starts this run from its modes (hierarchical
    // bases: padded with zeros, or the highest dropped); everything else must match.
    if (parallel != nullptr)
      check_compatible(checkpoint, parallel->global_elements, parallel->mesh_hash, parallel->mesh_source, checkpoint.order,
                       problem.physics());
    else
      check_compatible(checkpoint, problem.mesh, checkpoint.order, problem.physics());
    // A file holds the whole mesh's layout; a p-continuation stage hands over this rank's own.
    const std::vector<double> coefficients =
        run_options.start_from != nullptr ? checkpoint.coefficients : layout.scatter(checkpoint.coefficients, checkpoint.order);
    if (checkpoint.order != problem.options.order) {
      if (!run_options.quiet)
        std::printf("flowdg: restarting at p = %d from the p = %d state of %s (%s)\n", problem.options.order, checkpoint.order,
                    origin.c_str(), checkpoint.order < problem.options.order ? "higher modes zero" : "highest modes dropped");
      op->set_coefficients(dg::change_order(op->groups(), coefficients, op->n_variables(), checkpoint.order,
                                            problem.options.order));
      // The new order's quadrature points are not the old ones: a state kept admissible (limited,
      // positivity-scaled) at those may not be at these. The configured limiter first, as after a
      // projection; what it leaves inadmissible is refused here rather than as NaN a step later.
      op->apply_limiter();
      if (const std::string bad = op->describe_bad_state(); !bad.empty())
        throw InputError(cat("the p = ", checkpoint.order, " state of ", origin, " is not admissible at the p = ",
                             problem.options.order, " quadrature points: ", bad,
                             " (restart at the checkpoint's order, or with [solver] positivity = true where it runs)"));
    } else {
      op->set_coefficients(coefficients);
    }
    state.t = checkpoint.time;
    state.step = checkpoint.step;
  } else {
    op->project(problem.initial, 0.0);
    op->apply_limiter();
  }
  state.first_step = state.step;
  const RungeKuttaScheme scheme = runge_kutta_scheme(problem.time.scheme);
  // p-multigrid: the lower orders' operators, built with the run's (a p-continuation stage below
  // the cycle's finest order takes the visits at or below its own; none: plain steps).
  std::unique_ptr<PMultigrid> multigrid;
  if (!problem.time.p_multigrid.empty()) {
    MultigridCycle cycle = multigrid_cycle_at({problem.time.p_multigrid, problem.time.p_multigrid_steps, problem.time.p_multigrid_cfl},
                                              problem.options.order);
    if (!cycle.empty()) {
      multigrid = std::make_unique<PMultigrid>(problem.mesh, problem.connectivity, problem.options, std::move(cycle), problem.time.dt_every);
      if (!run_options.quiet)
        std::printf("flowdg: p-multigrid, a cycle per step: %s (order(steps))\n", multigrid->visits().describe().c_str());
    }
  }
  RunResult result;
  result.stages = scheme.n_stages();
  result.time = state.t;
  result.implementation = op->implementation();
  synchronize(problem.options.backend);
  result.setup_seconds = std::chrono::duration<double>(Clock::now() - setup_start).count();
  if (run_options.write_summary) std::filesystem::create_directories(problem.output_directory);

  std::vector<std::unique_ptr<Hook>> owned = case_hooks(problem, run_options);
  std::vector<Hook*> hooks;
  for (const auto& hook : owned) hooks.push_back(hook.get());
  hooks.insert(hooks.end(), run_options.extra_hooks.begin(), run_options.extra_hooks.end());
  bool monitor_change = false;
  CheckpointHook* checkpoints = nullptr;
  for (Hook* hook : hooks) {
    monitor_change |= hook->monitors_change();
    if (auto* progress = dynamic_cast<ProgressHook*>(hook)) {
      progress->set_stages(scheme.n_stages());
      progress->set_cycles(multigrid != nullptr);
    }
    if (auto* checkpoint = dynamic_cast<CheckpointHook*>(hook)) checkpoints = checkpoint;
  }
  const InterruptGuard interrupts;  // SIGINT / SIGTERM: finish the step, save, stop (core/signals.hpp)
  int interrupted = 0;
  const TimeControl& control = problem.time;
  if (!run_options.quiet && parallel != nullptr)
    std::printf("flowdg: distributed over %s; %s (rank 0's part below)\n", communicator->describe().c_str(), parallel->summary.c_str());
  if (!run_options.quiet)
    std::printf("flowdg: %s on %s: %lld elements, p = %d, %lld DOF, %s, %s; %s%s\n", problem.name.c_str(),
                describe(problem.options.backend).c_str(), static_cast<long long>(op->global_elements()), op->order(),
                static_cast<long long>(op->global_dof()), scheme.name.c_str(),
                (parallel != nullptr ? parallel->mesh_source : problem.mesh.source).c_str(), op->describe().c_str(),
                !restarted ? ""
                           : cat(", restarted from ", run_options.start_from != nullptr ? "the last stage" : run_options.restart,
                                 " at t = ", state.t, ", step ", state.step)
                                 .c_str());

  // What the first step would otherwise pay once is set-up, done before the clock starts: the
  // Runge-Kutta registers' allocation and the hooks' start (the checkpoint hook hashes the mesh,
  // ~45 ms on 800k triangles; the snapshot hook copies the state; a VTU series writes step 0).
  op->prepare(scheme, monitor_change);
  auto start = Clock::now();
  try {
    for (Hook* hook : hooks) hook->start(state);
    synchronize(problem.options.backend);
    start = Clock::now();
    result.setup_seconds = std::chrono::duration<double>(start - setup_start).count();
    double dt = 0;
    while (true) {
      if (state.t >= control.end_time * (1 - 1e-14)) break;
      if (control.max_steps >= 0 && state.step >= control.max_steps) break;
      // The CFL time step reads the element means back to the host (and checks them): every
      // dt_every steps only, the step size kept in between.
      if (control.fixed_dt)
        dt = *control.fixed_dt;
      else if ((state.step - state.first_step) % control.dt_every == 0 ||
               (state.step - state.first_step) <= control.cfl_ramp_steps) {
        const double cfl = control.cfl_after(state.step - state.first_step);
        dt = control.local_time_step ? op->set_local_time_steps(cfl) : op->stable_time_step(cfl);
      }
      state.dt = std::min(dt, control.end_time - state.t);
      bool monitor_step = false;
      if (monitor_change)
        for (const Hook* hook : hooks) monitor_step |= hook->monitors_step(state.step + 1);
      if (multigrid != nullptr) {
        // A cycle is the run's step; t advances by the finest level's steps in it (pseudo-time).
        const double advanced = multigrid->cycle(*op, scheme, state.t, state.dt, control.cfl_after(state.step - state.first_step),
                                                 control.local_time_step, monitor_step);
        state.t += advanced;
      } else {
        op->step(scheme, state.t, state.dt, monitor_step);
        state.t += state.dt;
      }
      ++state.step;
      result.time = state.t;
      result.steps = state.step - state.first_step;
      for (Hook* hook : hooks) hook->after_step(state);
      if (state.stop) break;
      interrupted = InterruptGuard::received();
      if (communicator != nullptr) interrupted = static_cast<int>(communicator->max(interrupted));  // every rank stops at the same step
      if (interrupted != 0) break;
    }
    (void)op->stable_time_step(1.0);  // a broken final state is not "completed"
  } catch (const NumericalError& error) {
    // One HDF5 write at a time, and the last checkpoint whole before last_good.h5 is written
    // (synchronously: the run is over, nothing is left to overlap it with). A failure of that
    // background write must not hide the numerical one: it is reported with it.
    std::string checkpoint_failure;
    if (checkpoints != nullptr) {
      try {
        checkpoints->settle();
      } catch (const Error& failure) {
        checkpoint_failure = cat("; besides, the background checkpoint failed: ", failure.what());
      }
    }
    hooks.clear();
    owned.clear();  // ends a live progress line
    synchronize(problem.options.backend);
    result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.status = cat("failed at step ", state.step, ", t = ", state.t, ": ", error.what(), checkpoint_failure);
    std::string saved_note;
    if (run_options.write_summary) {  // every rank: the state is gathered, the pieces written by each
      const std::string where = op->describe_bad_state();
      const std::vector<double> good = op->snapshot();
      write_case_checkpoint(problem, *op, good, state.saved_time, state.saved_step, "last_good.h5");
      std::string vtu_name;
      if (problem.output.vtu) {
        op->set_coefficients(good);
        vtu_name = write_solution(problem, *op, state.saved_time, "last_good");
      }
      if (state.write_files) write_summary(problem, *op, result);
      saved_note = cat(where.empty() ? "" : cat(" (", where, ")"), "; the last good state (step ", state.saved_step, ", t = ",
                       state.saved_time, ") is in ", problem.output_directory,
                       "/last_good.h5", vtu_name.empty() ? std::string() : cat(" and ", vtu_name), ", the summary in summary.json");
    }
    throw NumericalError(cat(error.what(), ", at step ", state.step, ", t = ", state.t, saved_note, checkpoint_failure,
                             shock_capturing_hint(problem, error.what())));
  }
  synchronize(problem.options.backend);
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  result.converged = state.converged;
  result.last_change = state.last_change;
  if (multigrid != nullptr)
    for (auto it = multigrid->steps_taken().rbegin(); it != multigrid->steps_taken().rend(); ++it)
      result.multigrid_steps += cat(result.multigrid_steps.empty() ? "" : ", ", "p = ", it->first, " ", it->second);
  for (Hook* hook : hooks) hook->finish(state);
  if (run_options.keep_final != nullptr)
    *run_options.keep_final = case_checkpoint(problem, *op, op->coefficients(), state.t, state.step,
                                              parallel != nullptr ? parallel->mesh_hash : mesh_hash(problem.mesh));
  if (interrupted != 0)
    result.status = cat("interrupted by ", signal_name(interrupted), " at step ", state.step, ", t = ", state.t);
  if (problem.has_exact) result.errors = op->errors(problem.initial, state.t);
  if (problem.output.entropy_error)
    result.entropy_error = entropy_error(*op, problem.mesh, problem.options.gamma,
                                         problem.initial.pressure / std::pow(problem.initial.density, problem.options.gamma), communicator);
  if (!run_options.quiet) {
    const double rate = result.wall_seconds > 0 ? static_cast<double>(op->global_dof()) * result.stages * static_cast<double>(result.steps) /
                                                      result.wall_seconds
                                                : 0.0;
    const bool steady = control.steady_tolerance > 0 || control.residual_tolerance > 0;
    const char* reached = steady ? (result.converged ? ", steady state reached" : ", steady state NOT reached") : "";
    if (multigrid != nullptr)
      std::printf("flowdg: %lld cycles to t = %.6g in %.2f s (%.3g cycles/s)%s\n", result.steps, state.t, result.wall_seconds,
                  result.wall_seconds > 0 ? static_cast<double>(result.steps) / result.wall_seconds : 0.0, reached);
    else
      std::printf("flowdg: %lld steps to t = %.6g in %.2f s (%.3g DOF-stages/s)%s\n", result.steps, state.t, result.wall_seconds, rate, reached);
    if (multigrid != nullptr)
      std::printf("flowdg: p-multigrid: %lld cycles; steps per order: %s\n", result.steps, result.multigrid_steps.c_str());
    if (const std::string halo = op->halo_report(); !halo.empty()) std::printf("flowdg: halo: %s\n", halo.c_str());
    if (result.errors) std::printf("flowdg: L2 error: rho %.4e  energy %.4e\n", result.errors->l2.front(), result.errors->l2.back());
    if (result.entropy_error) std::printf("flowdg: entropy error (L2, relative to the free stream): %.4e\n", *result.entropy_error);
  }
  if (state.write_files) {
    write_summary(problem, *op, result);
    if (!run_options.quiet)
      std::printf("flowdg: wrote %s/{summary.json,checkpoint.h5%s}\n", problem.output_directory.c_str(),
                  problem.output.vtu ? (problem.output.vtu_every > 0 ? ",solution.pvd" : (parallel != nullptr ? ",solution.pvtu" : ",solution.vtu"))
                                     : "");
  }
  if (interrupted != 0)
    throw Interrupted(interrupted, cat(result.status, state.write_files ? cat("; the state is in ", problem.output_directory,
                                                                             "/checkpoint.h5 (continue with --restart)")
                                                                       : std::string()));
  return result;
}

}  // namespace

RunResult run_case(const Case& problem, const RunOptions& options_in) {
  RunOptions options = options_in;
  if (!is_root(problem)) options.quiet = true;  // a distributed run: the root rank prints
  if (problem.time.p_continuation.empty()) return run_one(problem, options);
  // p-continuation: a run per order, each from the last one's final state (in memory; each stage's
  // checkpoint.h5, summary and histories are written as by any run, the histories continued), the
  // operator and its tables built anew for each order. A --restart starts at the stage of the
  // checkpoint's order (the first above it when its order is not in the list).
  std::vector<int> orders = problem.time.p_continuation;
  orders.push_back(problem.options.order);
  std::size_t first = 0;
  long long start_step = 0;
  if (!options.restart.empty()) {
    const Checkpoint checkpoint = read_checkpoint(options.restart);
    while (first + 1 < orders.size() && orders[first] < checkpoint.order) ++first;
    start_step = checkpoint.step;
  }
  Case stage = problem;  // one copy: each stage changes its order and its limits
  stage.time.p_continuation.clear();
  Checkpoint carried;
  RunResult result;
  for (std::size_t i = first; i < orders.size(); ++i) {
    const bool last = i + 1 == orders.size();
    stage.options.order = orders[i];
    stage.time.max_steps = problem.time.max_steps;
    stage.time.residual_tolerance = problem.time.residual_tolerance;
    if (!last) {
      // A stage ends at its tolerance or after its steps, or where the whole run would (max_steps).
      stage.time.residual_tolerance = problem.time.p_continuation_tolerance;
      if (problem.time.p_continuation_steps >= 0) {
        const long long cap = start_step + problem.time.p_continuation_steps;
        stage.time.max_steps = problem.time.max_steps >= 0 ? std::min(problem.time.max_steps, cap) : cap;
      }
    }
    if (!options.quiet) {
      std::string until;
      if (!last) {
        char tolerance[32];
        std::snprintf(tolerance, sizeof tolerance, "%g", problem.time.p_continuation_tolerance);
        const bool by_residual = problem.time.p_continuation_tolerance > 0, by_steps = problem.time.p_continuation_steps >= 0;
        until = cat(" until ", by_residual ? cat("the residual < ", tolerance) : std::string(), by_residual && by_steps ? " or " : "",
                    by_steps ? cat(problem.time.p_continuation_steps, " steps") : std::string());
      }
      std::printf("flowdg: p-continuation, stage %zu of %zu: p = %d%s\n", i + 1, orders.size(), orders[i], until.c_str());
    }
    RunOptions stage_options = options;
    Checkpoint next;
    if (i > first) {
      stage_options.restart.clear();
      stage_options.start_from = &carried;
    }
    stage_options.keep_final = last ? nullptr : &next;
    result = run_one(stage, stage_options);
    if (last) break;
    stage.warnings.clear();  // said once
    stage.notes.clear();
    // The whole run's own ends (end_time, max_steps) end the continuation too.
    if (result.time >= problem.time.end_time * (1 - 1e-14) || (problem.time.max_steps >= 0 && next.step >= problem.time.max_steps)) {
      if (!options.quiet)
        std::printf("flowdg: p-continuation stopped at p = %d: the run's %s is reached\n", orders[i],
                    problem.time.max_steps >= 0 && next.step >= problem.time.max_steps ? "max_steps" : "end_time");
      break;
    }
    carried = std::move(next);
    start_step = carried.step;
  }
  return result;
}

}  // namespace flowdg
