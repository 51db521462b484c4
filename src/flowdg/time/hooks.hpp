#pragma once
// Step hooks of the solver-agnostic time loop (cases/run.cpp), configured by name like PyFR's
// plugins or Trixi's callbacks: progress, check (admissibility / NaN), snapshot (the last good
// state on the device), vtu (a ParaView series), checkpoint (HDF5 restart files), steady (the
// steady-state residual). The loop knows none of them; each sees the operator and the loop state
// after every step and at the start and end of the run. The Navier-Stokes issue adds forces.
#include <memory>
#include <atomic>
#include <string>
#include <vector>

#include "flowdg/dg/operator.hpp"

namespace flowdg {

struct Case;
struct Checkpoint;

/// What the loop shares with its hooks.
struct LoopState {
  dg::Operator& op;
  const Case& problem;
  double t = 0, dt = 0;
  long long step = 0, first_step = 0;
  bool write_files = true;
  bool stop = false;           ///< a hook asks the loop to end after this step (steady state reached)
  bool converged = false;      ///< set by the steady hook
  double last_change = 0;      ///< max |c^{n+1} - c^n| of the last monitored step
  double saved_time = 0;       ///< the snapshot's time and step (the last good state)
  long long saved_step = 0;
  /// True while the snapshot is read back for a checkpoint (on the writer thread): a snapshot due
  /// meanwhile is skipped rather than waited for, so the last good state is then a little older.
  std::atomic<bool> snapshot_in_use{false};
};

class Hook {
 public:
  virtual ~Hook() = default;
  virtual std::string name() const = 0;
  /// Whether some steps must report their change (the steady-state hook).
  virtual bool monitors_change() const { return false; }
  /// Whether step number `step` (counted from 1 as LoopState::step is after it) must report it.
  virtual bool monitors_step(long long step) const {
    (void)step;
    return monitors_change();
  }
  virtual void start(LoopState&) {}
  virtual void after_step(LoopState&) {}
  /// The run ended normally (the final state is good).
  virtual void finish(LoopState&) {}
};

struct RunOptions {
  bool quiet = false;
  bool write_summary = true;     ///< also the VTU files and checkpoints
  std::string restart;           ///< checkpoint to continue from ("" to start from the flow)
  long long snapshot_every = 10; ///< steps between device copies of the last good state
  /// Hooks of the caller's, run after the case's own (not owned; for library users and tests).
  std::vector<Hook*> extra_hooks;
  /// p-continuation's stages (cases/run.cpp): the state to start from, held in memory (the last
  /// stage's, as `restart` would read it from a file; it takes precedence), and where a stage
  /// leaves its final state for the next.
  const Checkpoint* start_from = nullptr;
  Checkpoint* keep_final = nullptr;
};

/// A history CSV (step first on each line after the header) that a run restarted at first_step
/// continues: true when it exists and first_step > 0, after dropping the rows written beyond
/// first_step by the run that was interrupted (so a restart from an older checkpoint does not
/// repeat steps); false for a fresh file.
bool continue_history(const std::string& path, long long first_step);

/// The hook of a name: "progress", "check", "snapshot", "vtu", "checkpoint", "steady"; InputError
/// listing the names for any other.
std::unique_ptr<Hook> make_hook(const std::string& name, const Case& problem, const RunOptions& options);
/// The hooks a case asks for, in the order they run after each step.
std::vector<std::unique_ptr<Hook>> case_hooks(const Case& problem, const RunOptions& options);

}  // namespace flowdg
