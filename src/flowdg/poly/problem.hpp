#pragma once
// The problem of a polytopic SIPG case (issue 18 items 6 and 9): the coefficients of
//   -div(a grad u) + b . grad u + c u = f
// with its boundary data (poly/sipg.hpp's Coefficients) and, where known, the exact solution and its
// gradient, made from a case file's [problem] table. Two kinds:
//
// Built-in (type = "poisson", "advection-diffusion-reaction", "hyperbolic", "degenerate"): constant
// a, b, c and a smooth manufactured solution
//   u = prod_r sin(k_r x_r + phi_r)   (r over the mesh's dimensions),
// whose gradient and Hessian are known, so f = -a : Hess u + b . grad u + c u exactly and every
// boundary tag takes g_D = u (or g_N = (a grad u) . n on the tags [problem.boundary] neumann names).
//   poisson                        a = I, b = 0, c = 0, k_r = pi, phi_r = 0 (u = 0 on the unit square's boundary)
//   advection-diffusion-reaction   a = [[1, 0.25], [0.25, 0.5]] (3D: diag 1, 0.5, 0.75 with the same
//                                  coupling of x and y), b = (1, -0.5, 0.25), c = 1, k_r = 2, 3, 2.5, phi_r = 0.3, 0.7, 0.2
//   hyperbolic                     a = 0, b = (1, 0.5, 0.25), c = 1, the same u (Dirichlet tags: the
//                                  inflow part takes g_D, the outflow part nothing)
//   degenerate                     a = diag(1, 0) (3D: diag(1, 0, 1)): diffusion across x (and z) only,
//                                  transport along y, b = (0, 1, 0), c = 1, the same u
// Each constant may be overridden in the table (diffusion = [..d*d..], advection = [..d..],
// reaction = c, wavenumbers = [..], phases = [..]); the manufactured f follows.
//
// Expression (type = "expression"): every coefficient a formula of x, y, z (muparser: + - * / ^,
// sin, cos, tan, exp, log, sqrt, abs, min, max, sum, avg, the ternary ?:, pi; a constant formula
// is evaluated once and used as a constant coefficient):
//   diffusion = "1" (a scalar times I) or d*d formulas (row-major, symmetric), advection = d formulas,
//   reaction, source, dirichlet = formulas (defaults "0"), neumann = the flux (a grad u) . n as a
//   formula of x, y, z, nx, ny, nz, and optionally exact = u and exact_gradient = d formulas, which
//   give the errors.
//
// Checks (PolyProblem::warnings, printed by the case): where the reaction is negative somewhere (the
// theory assumes c - div(b) / 2 >= c0 > 0; the problem may be ill-posed), and where the diffusion
// tensor is not symmetric positive semi-definite at a sample point (an InputError).
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "flowdg/core/config.hpp"
#include "flowdg/poly/poly_mesh.hpp"
#include "flowdg/poly/sipg.hpp"

namespace flowdg::poly {

/// A scalar field sampled in bulk (as Coefficients' functions): out[q] for points x[q] (gradients:
/// out[d q + r]).
using BulkField = std::function<void(std::span<const Point3>, double*)>;

struct PolyProblem {
  std::string type;           ///< "poisson", ..., "expression"
  std::string description;    ///< one line for the log and summary.json
  Coefficients coefficients;  ///< for SipgDiscretisation (neumann_tag sized to the mesh's tags)
  BulkField exact;            ///< u, or empty where the case gives none
  BulkField exact_gradient;   ///< grad u (d per point), or empty
  std::vector<std::string> neumann_tags;  ///< the tags that are Neumann (the others are Dirichlet)
  std::vector<std::string> warnings;      ///< lines to print (the case goes on)
  /// Expression problems: the smallest c - div(b)/2 at the mesh's nodes and where (INFINITY: not
  /// checked), its warning warnings[reaction_warning] (-1: none). A distributed run's parts each
  /// see their own nodes: reduce it over the ranks (warnings_with_reaction).
  double smallest_reaction = INFINITY;
  Point3 smallest_reaction_at{};
  int reaction_warning = -1;
  std::string reaction_where;  ///< the [problem] table's place in the case, for the warning
  bool has_exact() const { return static_cast<bool>(exact) && static_cast<bool>(exact_gradient); }
};

/// The warning for c - div(b)/2 = value < 0 at `at` (a problem table at `where`, `dimension` D).
std::string reaction_warning_text(const std::string& where, double value, Point3 at, int dimension);
/// The problem's warnings with its c - div(b)/2 check replaced by the whole mesh's (value, at):
/// the smallest over every rank's part, which the caller reduces.
std::vector<std::string> warnings_with_reaction(const PolyProblem& problem, double value, Point3 at, int dimension);

/// A parabolic problem u_t - div(a grad u) + b . grad u + c u = f for space-time slabs (issue 19),
/// from a [problem] table of a case with [time]:
//   heat                            a = I, b = 0, c = 0, u = prod_r sin(k_r x_r + phi_r) T(t), k_r = pi, phi_r = 0
//   advection-diffusion-reaction    a, b, c, k, phi of the steady problem of that name, times T(t)
// with T(t) = cos(omega t) + sin(2 omega t) / 2 (frequency = omega, default 2), the constants
// overridable as in the steady problems, and `oscillation = delta` making the diffusion
// a(t) = (1 + delta sin(omega t)) a (coefficients that change in time: the matrix is reassembled
// every slab); f, g_D = u, g_N = (a grad u) . n and u_0 = u(x, start) follow. type = "expression":
// the steady keys as formulas of x, y, z and t, plus `initial` (u_0; default the exact solution at
// the start where one is given).
struct ParabolicProblem {
  std::string type;
  std::string description;
  CoefficientsAt coefficients;                     ///< at time t (neumann_tag sized to the mesh's tags)
  std::function<BulkField(double)> exact;          ///< u(., t), or empty
  std::function<BulkField(double)> exact_gradient; ///< grad u(., t), or empty
  std::function<BulkField(double)> initial;        ///< u_0 given the start time
  bool operator_depends_on_time = false;           ///< a, b or c vary in t: reassemble every slab
  std::vector<std::string> neumann_tags;
  std::vector<std::string> warnings;
  bool has_exact() const { return static_cast<bool>(exact) && static_cast<bool>(exact_gradient); }
};

/// The parabolic problem of a [problem] table (InputError as make_problem).
ParabolicProblem make_parabolic_problem(const Config& table, const PolyMesh& mesh);

/// The problem of a [problem] table on `mesh` (its dimension and boundary tags). InputError: an
/// unknown type or key, a value of the wrong size, a formula muparser refuses (its message and the
/// key), a Neumann tag the mesh does not have, an expression problem in a build without muparser,
/// a diffusion tensor that is not symmetric positive semi-definite at a sample point.
PolyProblem make_problem(const Config& table, const PolyMesh& mesh);

/// The built-in types, for messages and the user guide.
const std::vector<std::string>& builtin_problem_types();

/// Whether this build evaluates formulas (muparser found at configure time).
bool have_expressions();

}  // namespace flowdg::poly
