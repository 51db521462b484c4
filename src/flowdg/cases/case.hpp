#pragma once
// A run composed from a case file, for any mesh the DG core runs (2D and 3D Euler; triangles,
// quadrilaterals, tetrahedra, hexahedra, affine or curved): mesh + flow + solver + boundary
// conditions + time control + output, then the solver-agnostic time loop (cases/run.cpp) with
// its hooks (time/hooks.hpp). Trixi-style composition: no case is coded into the loop.
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flowdg/cases/forces.hpp"
#include "flowdg/core/config.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

struct Parallel;  // cases/distributed.hpp
class Communicator;

struct TimeControl {
  std::string scheme = "ssp-rk3";
  double cfl = 0.5;
  std::optional<double> fixed_dt;
  double end_time = std::numeric_limits<double>::infinity();
  long long max_steps = -1;          ///< -1: no limit
  double steady_tolerance = 0;       ///< > 0: stop when max |c^{n+1} - c^n| is below it
  /// Steps between steady-state checks (the paper's "norm every 1000 iterations": each check copies
  /// the state and reads a maximum back to the host, which on a small mesh costs as much as a step).
  long long steady_every = 1;
  /// The residual monitor (the "residuals" hook): every residual_every steps (0: off) the L2 norm of
  /// du/dt per variable into OUTPUT/residuals.csv; with residual_tolerance > 0 the run stops when
  /// the largest of them falls below it.
  long long residual_every = 0;
  double residual_tolerance = 0;
  long long progress_every = 0;      ///< 0: about every 2 seconds of wall time
  /// Steps between CFL time-step evaluations (1: every step). Between them dt is kept; each
  /// evaluation also checks every element mean (docs/user-guide.md: the host round trip it costs).
  long long dt_every = 1;
  /// Local time stepping (steady states only): every element advances with its own step, cfl times
  /// its own limit; t is then a pseudo-time advanced by the smallest step.
  bool local_time_step = false;
  /// p-continuation: the orders run before [solver] order, lowest first, each continued from the
  /// last one's state (hierarchical bases: the new modes start at zero); a stage ends when the
  /// residual monitor's largest norm falls below p_continuation_tolerance (> 0) or after
  /// p_continuation_steps steps at its order (>= 0), whichever comes first.
  std::vector<int> p_continuation;
  double p_continuation_tolerance = 0;
  long long p_continuation_steps = -1;
  /// p-multigrid (cases/multigrid.hpp; steady states): each step of the run is a cycle over these
  /// orders, the solver's order first and last, with p_multigrid_steps[i] steps at visit i (1 each
  /// when not given); p-continuation stages below the order take the cycle's visits at or below theirs.
  std::vector<int> p_multigrid;
  std::vector<long long> p_multigrid_steps;
  std::vector<double> p_multigrid_cfl;  ///< the lower orders' CFL numbers, p = 0 first (empty: cfl)
  /// CFL ramp (steady states from an impulsive start): over the first cfl_ramp_steps steps of each
  /// start (a run, a restart, each p-continuation stage) the CFL number rises geometrically from
  /// cfl_start to cfl (0: no ramp).
  double cfl_start = 0;
  long long cfl_ramp_steps = 0;
  /// The CFL number after `done` steps of a start (see cfl_ramp_steps).
  double cfl_after(long long done) const {
    if (cfl_ramp_steps <= 0 || done >= cfl_ramp_steps) return cfl;
    return cfl_start * std::pow(cfl / cfl_start, static_cast<double>(done < 0 ? 0 : done) / static_cast<double>(cfl_ramp_steps));
  }
};

struct OutputControl {
  bool vtu = true;                 ///< write VTU files (the final state at least)
  long long vtu_every = 0;         ///< also every N steps (0: final only)
  bool lagrange_cells = true;      ///< high-order Lagrange cells, else subdivided linear ones
  long long checkpoint_every = 0;  ///< HDF5 checkpoint every N steps (0: final only)
  /// false: no checkpoint.h5 at all (benchmark runs of large meshes: the final state is not kept).
  bool checkpoint = true;
  /// Report the entropy error of a uniform [flow] at the end (cases/run.hpp: entropy_error; a host
  /// evaluation of the state at every quadrature point, so asked for, not done for every run).
  bool entropy_error = false;
};

struct Case {
  std::string name;
  std::string source;              ///< case file path or "builtin:..."
  std::string toml;                ///< the case as run (after --set overrides)
  Mesh mesh;
  Connectivity connectivity;
  dg::OperatorOptions options;
  physics::FlowSpec initial;       ///< initial data at t = 0
  bool has_exact = false;          ///< errors are reported against `initial` at the final time
  TimeControl time;
  ForcesControl forces;            ///< [forces]: force coefficients, wall distributions, wake
  /// What the case may not mean (printed by the run unless quiet): e.g. a curved no-slip wall
  /// meshed with straight-sided elements.
  std::vector<std::string> warnings;
  /// What the loading did that the run reports (unless quiet): e.g. the mesh curving's summary.
  std::vector<std::string> notes;
  std::string output_directory;
  OutputControl output;
  /// A distributed run's rank (cases/distributed.hpp: distribute_case): `mesh` is then its part;
  /// null on one rank.
  std::shared_ptr<const Parallel> parallel;
  std::optional<double> free_stream_mach;  ///< [physics] mach
  double angle_of_attack = 0;              ///< [physics] angle_of_attack, degrees
  /// [physics] lift_axis: the axis (1: y, 2: z; 3D only) the free stream turns towards with the
  /// angle of attack and the lift points along: a wing with z up (the ONERA M6's axes) is "z".
  int lift_axis = 1;
  /// "euler2d", "euler3d", "navier_stokes2d" or "navier_stokes3d" (the equations and the mesh's dimension).
  std::string physics() const {
    const char* equations = options.viscous.enabled ? "navier_stokes" : "euler";
    return cat(equations, mesh.dimension == 3 ? "3d" : "2d");
  }
};

/// Builds a case from its configuration. Every problem (unknown key, wrong type, missing mesh,
/// boundary tag without condition or the reverse, order out of range, an option the mesh's
/// elements cannot run) is an InputError raised here, before any work. `backend`: where it runs.
/// A [mesh] file that is a partitioned mesh's directory (flowdg mesh partition -o DIR) is read one
/// part per rank of `communicator` (mpirun -np with its number of parts): each rank reads only its
/// own (cases/distributed.hpp: adopt_part); InputError for another rank count, a refine, curve or
/// reorder of it, or a ghost layer too thin for the case's options.
Case load_case(const Config& config, Backend backend, std::shared_ptr<const Communicator> communicator = nullptr);

/// The built-in default case: the double Mach reflection at p = 1 with the Barth-Jespersen
/// limiter, on 41,472 triangles on the CPU (about three minutes on 2 cores) and on the 2015 paper's
/// mesh-A size (64,800 triangles) on a GPU.
std::string default_case_toml(Backend backend);

}  // namespace flowdg
