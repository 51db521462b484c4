#pragma once
// The solver-agnostic time loop: builds the operator a case asks for (dg::make_operator: the
// tuned triangle kernels or the portable core), projects the initial data or reads a restart
// checkpoint, steps, and leaves everything else to its hooks (time/hooks.hpp).
#include <optional>
#include <string>

#include "flowdg/cases/case.hpp"
#include "flowdg/time/hooks.hpp"

namespace flowdg {

class Communicator;

struct RunResult {
  long long steps = 0;
  int stages = 0;
  double time = 0;
  double wall_seconds = 0;       ///< stepping only (excludes set-up and error evaluation)
  double setup_seconds = 0;
  bool converged = false;        ///< steady tolerance reached
  double last_change = 0;
  std::optional<dg::Norms> errors;
  /// With [output] entropy_error = true, a uniform [flow]'s relative entropy error, sqrt(int (s / s_inf - 1)^2 / |domain|) with
  /// s = p / rho^gamma (entropy_error below): the spurious entropy a steady inviscid run produces.
  std::optional<double> entropy_error;
  std::string status = "completed";
  std::string implementation;    ///< what ran (dg::Operator::implementation)
  /// p-multigrid: the steps taken at each order ("p = 4 2000, p = 3 1000, ..."), "" without cycles;
  /// `steps` then counts cycles.
  std::string multigrid_steps;
};

/// Runs a case (a live progress line on a terminal, plain lines otherwise), evaluates errors where
/// an exact solution is known, and writes OUTPUT/summary.json, the VTU files and
/// OUTPUT/checkpoint.h5 (each replaced atomically). A non-physical state stops the run with a
/// NumericalError naming the element, place, variable and time; the last good state (at most
/// snapshot_every steps old) is written to OUTPUT/last_good.h5 and last_good.vtu first.
RunResult run_case(const Case& problem, const RunOptions& options = {});

/// sqrt(int_domain (s / s_inf - 1)^2 dx / |domain|), s = p / rho^gamma, through a volume rule of
/// degree 2p + 2 mapped by each element's own (curved) geometry, the state evaluated on the host.
/// A distributed run passes its communicator: the integrals are then the whole domain's.
double entropy_error(const dg::Operator& op, const Mesh& mesh, double gamma, double s_inf, const Communicator* communicator = nullptr);

/// Writes summary.json for a run (DESIGN.md's fields).
void write_summary(const Case& problem, const dg::Operator& op, const RunResult& result);

/// Writes OUTPUT/NAME as a checkpoint of the given coefficients (the operator's layout).
void write_case_checkpoint(const Case& problem, const dg::Operator& op, const std::vector<double>& coefficients,
                           double time, long long step, const std::string& name);

}  // namespace flowdg
