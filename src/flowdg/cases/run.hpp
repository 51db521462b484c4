#pragma once
// The solver-agnostic time loop: builds the operator a case asks for (dg::make_operator: the
// tuned triangle kernels or the portable core), projects the initial data or reads a restart
// checkpoint, steps, and leaves everything else to its hooks (time/hooks.hpp).
#include <optional>
#include <string>

#include "flowdg/cases/case.hpp"
#include "flowdg/time/hooks.hpp"

namespace flowdg {

struct RunResult {
  long long steps = 0;
  int stages = 0;
  double time = 0;
  double wall_seconds = 0;       ///< stepping only (excludes set-up and error evaluation)
  double setup_seconds = 0;
  bool converged = false;        ///< steady tolerance reached
  double last_change = 0;
  std::optional<dg::Norms> errors;
  std::string status = "completed";
  std::string implementation;    ///< what ran (dg::Operator::implementation)
};

/// Runs a case (a live progress line on a terminal, plain lines otherwise), evaluates errors where
/// an exact solution is known, and writes OUTPUT/summary.json, the VTU files and
/// OUTPUT/checkpoint.h5 (each replaced atomically). A non-physical state stops the run with a
/// NumericalError naming the element, place, variable and time; the last good state (at most
/// snapshot_every steps old) is written to OUTPUT/last_good.h5 and last_good.vtu first.
RunResult run_case(const Case& problem, const RunOptions& options = {});

/// Writes summary.json for a run (DESIGN.md's fields).
void write_summary(const Case& problem, const dg::Operator& op, const RunResult& result);

/// Writes OUTPUT/NAME as a checkpoint of the given coefficients (the operator's layout).
void write_case_checkpoint(const Case& problem, const dg::Operator& op, const std::vector<double>& coefficients,
                           double time, long long step, const std::string& name);

}  // namespace flowdg
