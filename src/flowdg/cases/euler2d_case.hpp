#pragma once
// A 2D Euler run composed from a case file: mesh + flow + solver + boundary conditions + time
// control + output (Trixi-style composition; no case is coded into the time loop).
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "flowdg/core/config.hpp"
#include "flowdg/dg/euler2d.hpp"

namespace flowdg::euler2d {

struct TimeControl {
  std::string scheme = "ssp-rk3";
  double cfl = 0.5;
  std::optional<double> fixed_dt;
  double end_time = std::numeric_limits<double>::infinity();
  long long max_steps = -1;          ///< -1: no limit
  double steady_tolerance = 0;       ///< > 0: stop when max |c^{n+1} - c^n| is below it
  long long progress_every = 0;      ///< 0: about every 2 seconds of wall time
};

struct Case {
  std::string name;
  std::string source;              ///< case file path or "builtin:..."
  std::string toml;                ///< the case as run (after --set overrides)
  Mesh mesh;
  Connectivity connectivity;
  SolverOptions options;
  Flow initial;                    ///< initial data at t = 0
  bool has_exact = false;          ///< errors are reported against `initial` at the final time
  TimeControl time;
  std::string output_directory;
  struct Output {
    bool vtu = true;                 ///< write VTU files (the final state at least)
    long long vtu_every = 0;         ///< also every N steps (0: final only)
    bool lagrange_cells = true;      ///< high-order Lagrange cells, else subdivided linear ones
    long long checkpoint_every = 0;  ///< HDF5 checkpoint every N steps (0: final only)
  } output;
};

/// Builds a case from its configuration. Every problem (unknown key, wrong type, missing mesh,
/// boundary tag without condition or the reverse, order out of range) is an InputError raised
/// here, before any work. `backend` is where the solver will run.
Case load_case(const Config& config, Backend backend);

/// The built-in default case: the double Mach reflection at p = 1 with the Barth-Jespersen
/// limiter, on 41,472 triangles on the CPU (about three minutes on 2 cores) and on the 2015 paper's
/// mesh-A size (64,800 triangles) on a GPU.
std::string default_case_toml(Backend backend);

struct RunResult {
  long long steps = 0;
  int stages = 0;
  double time = 0;
  double wall_seconds = 0;       ///< stepping only (excludes set-up and error evaluation)
  double setup_seconds = 0;
  bool converged = false;        ///< steady tolerance reached
  double last_change = 0;
  std::optional<ErrorNorms> errors;
  std::string status = "completed";
};

struct RunOptions {
  bool quiet = false;
  bool write_summary = true;     ///< also the VTU files and checkpoints
  std::string restart;           ///< checkpoint to continue from ("" to start from the flow)
  long long snapshot_every = 10; ///< steps between device copies of the last good state
};

/// Projects the initial data (or reads the restart checkpoint), runs the time loop (a live progress
/// line on a terminal, plain lines otherwise), evaluates errors where an exact solution is known,
/// and writes OUTPUT/summary.json, OUTPUT/solution_<step>.vtu + solution.pvd and
/// OUTPUT/checkpoint.h5 (each replaced atomically). A non-physical state stops the run with a
/// NumericalError naming the element, place, variable and time; the last good state (at most
/// snapshot_every steps old) is written to OUTPUT/last_good.h5 and last_good.vtu first.
RunResult run_case(const Case& problem, const RunOptions& options = {});

/// Writes summary.json for a run (DESIGN.md's fields).
void write_summary(const Case& problem, const Solver& solver, const RunResult& result);

}  // namespace flowdg::euler2d
