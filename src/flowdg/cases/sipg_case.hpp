#pragma once
// `flowdg run case.toml` for steady problems by symmetric interior-penalty DG on polytopic meshes
// (issue 18 item 9): a case with [solver] method = "sipg". It reads the fine mesh, agglomerates it
// ([mesh] agglomerate = N), makes the problem ([problem], poly/problem.hpp), assembles the system on
// the backend (poly/sipg.hpp), solves it (a sparse direct solve, or CG / GMRES / BiCGStab with
// block Jacobi), and writes into the output directory:
//   solution.vtu, solution_outline.vtu   the solution (and the exact one and the error, where known)
//                                        on the fine cells, and the elements' outlines
//   residuals.csv                        iteration, relative residual (Krylov solvers)
//   summary.json                         mesh, degrees of freedom, assembly times, the solve, errors
//   case.toml                            the case as run
// A solve that does not converge (or a singular matrix) writes all of them (summary.json says
// "converged": false and why) and then stops with a NumericalError (exit code 3).
// With a [time] table the case is parabolic and runs slab by slab (run_space_time_case below).
#include <memory>
#include <string>

#include "flowdg/backend/backend.hpp"
#include "flowdg/core/config.hpp"
#include "flowdg/parallel/communicator.hpp"

namespace flowdg {

/// True when the case's [solver] method is "sipg".
bool is_sipg_case(const Config& config);

struct SipgCaseResult {
  long long elements = 0;
  long long dofs = 0;
  bool converged = false;
  bool has_errors = false;
  double l2_error = 0;
  double dg_error = 0;
  std::string output_directory;
};

/// Runs the case (see the top), printing its progress to stdout. InputError: an unknown key, a bad
/// value, a mesh that cannot be agglomerated; NumericalError: a singular matrix, a solve that does
/// not converge (after the outputs are written).
/// A communicator of several ranks (mpirun -np N): a steady case runs distributed (issue 19 item 4):
/// rank 0 partitions the agglomerates with METIS (weights: their fine elements), every rank
/// assembles its own elements' rows on its device and the Krylov solve runs over all of them (halo
/// exchange of the ghosts' unknowns before every product, global sums; the direct solve is refused);
/// the errors are the whole mesh's; each rank writes solution_<rank>.vtu (its own elements), rank 0
/// solution.pvtu, summary.json (with per-rank assembly times), residuals.csv, case.toml. A
/// space-time case runs distributed too (run_space_time_case).
SipgCaseResult run_sipg_case(const Config& config, Backend backend, const std::string& restart = "",
                             std::shared_ptr<const Communicator> communicator = nullptr);

/// A parabolic case (a [time] table): space-time slabs (issue 19), one linear system per slab (the
/// matrix reassembled when the coefficients change in time, else only the right-hand side; a direct
/// solve keeps its factorisation), the previous slab's solution as the Krylov initial guess.
/// Writes into the output directory: solution_<slab>.vtu (every [output] every slabs, at the slab's
/// end) and solution.pvd, slabs.csv (per slab: times, reassembled, sampling / assembly / factor /
/// solve / error / VTU seconds, iterations, errors so far), checkpoint.h5 (every checkpoint_every slabs: restart
/// with --restart), summary.json, case.toml. run_sipg_case calls it for a case with [time].
/// Several ranks (communicator): each rank its part (as the steady case), every slab assembled by
/// rows and solved by the distributed GMRES / BiCGStab (no direct solve), the errors summed over the
/// ranks, per output slab one piece per rank and solution_<slab>.pvtu (listed by solution.pvd), the
/// checkpoint gathered on rank 0 in the whole mesh's numbering (a restart works on any rank count).
SipgCaseResult run_space_time_case(const Config& config, Backend backend, const std::string& restart = "",
                                   std::shared_ptr<const Communicator> communicator = nullptr);

}  // namespace flowdg
