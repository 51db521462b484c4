#pragma once
// Krylov solvers of A x = b on either backend (issue 18): CG for symmetric positive definite A,
// restarted GMRES(m) and BiCGStab otherwise, each with a preconditioner (linalg/preconditioner.hpp).
// They are written once on the vector primitives of linalg/ops.hpp; the vectors live in the
// backend's space, only scalars (and GMRES's small Hessenberg matrix) on the host.
//
// Convergence: ||b - A x||_2 <= max(relative_tolerance ||b||_2, absolute_tolerance). CG and
// BiCGStab test their recurrence's residual each iteration and then confirm with the true residual
// b - A x (a recurrence that has drifted is restarted from the true residual); GMRES tests its
// estimate each iteration and the true residual at each restart. Not converging within
// max_iterations, or a breakdown, is not an exception: SolveResult says so, and describe(result)
// gives the line for the caller's message.
#include <functional>
#include <string>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/linalg/csr.hpp"
#include "flowdg/linalg/ops.hpp"
#include "flowdg/linalg/preconditioner.hpp"

namespace flowdg::linalg {

/// y = A x for a square operator A of size() rows, on a backend; CsrOperator wraps a CsrMatrix, and
/// matrix-free operators derive from it too.
template <class Real>
class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  /// Number of rows (= columns).
  virtual index_t size() const = 0;
  /// y = A x; x and y (distinct) have size() entries in space_of(backend).
  virtual void apply(Backend backend, View<const Real> x, View<Real> y) const = 0;
  /// r = b - A x (the default: apply, then r = b - r).
  virtual void residual(Backend backend, View<const Real> b, View<const Real> x, View<Real> r) const;
};

/// A CsrMatrix as a LinearOperator (keeps a reference: the matrix must outlive it). Error: the
/// matrix is not square.
template <class Real>
class CsrOperator final : public LinearOperator<Real> {
 public:
  explicit CsrOperator(const CsrMatrix<Real>& matrix);
  index_t size() const override { return matrix_.rows; }
  void apply(Backend backend, View<const Real> x, View<Real> y) const override;
  void residual(Backend backend, View<const Real> b, View<const Real> x, View<Real> r) const override;

 private:
  const CsrMatrix<Real>& matrix_;
};

/// Stopping rule and restart length. The callback, when set, is called after every iteration with
/// its number (1, 2, ...) and the relative residual recorded in SolveResult::history.
struct KrylovOptions {
  double relative_tolerance = 1e-10;  ///< on ||r|| / ||b||
  double absolute_tolerance = 0;      ///< on ||r||
  int max_iterations = 1000;          ///< iterations (matrix-vector products with a new direction)
  int restart = 50;                   ///< GMRES: the basis size m before a restart (m + 1 vectors stored)
  /// GMRES's orthogonalisation of each new direction against the basis: classical Gram-Schmidt
  /// done twice (CGS2: two fused multi-dot reductions and one norm per iteration, whatever the
  /// basis size; as stable as modified Gram-Schmidt in practice) or modified Gram-Schmidt (j + 1
  /// separate inner products in iteration j, each a device synchronisation and, on several ranks,
  /// an Allreduce; but half CGS2's memory traffic). automatic: classical twice on the device or
  /// with global_sum (latency-bound), modified on one CPU rank (bandwidth-bound).
  enum class Orthogonalization { automatic, classical_twice, modified };
  Orthogonalization orthogonalization = Orthogonalization::automatic;
  /// A distributed solve (linalg/distributed.hpp): each rank holds its own rows of the vectors, and
  /// this sums, in place, a rank's partial inner products over every rank (Communicator::sum), so
  /// that every rank takes the same steps. Empty: one rank, the vectors whole.
  std::function<void(std::vector<double>&)> global_sum;
  std::function<void(int iteration, double relative_residual)> on_iteration;
};

/// What a solve did. seconds: wall time of the whole solve, the device synchronised at the end.
struct SolveResult {
  std::string method;                    ///< "CG", "GMRES(50)", "BiCGStab"
  std::string preconditioner;            ///< the preconditioner's name()
  bool converged = false;
  int iterations = 0;
  double relative_residual = 0;          ///< final true ||b - A x|| / ||b|| (b = 0: x = 0 and this 0)
  double initial_relative_residual = 0;  ///< ||b - A x0|| / ||b||
  double relative_tolerance = 0;         ///< the options' tolerances, for messages
  double absolute_tolerance = 0;
  /// Per iteration: the relative residual the method tested (CG and BiCGStab: their recurrence's
  /// residual; GMRES: its estimate), so history.size() == iterations.
  std::vector<double> history;
  std::string breakdown;                 ///< why the method stopped early (empty: it did not)
  double seconds = 0;
};

/// One line: "GMRES(50): converged in 42 iterations, relative residual 3.10e-11 (tolerance 1e-10),
/// 0.012 s", "... not converged after 1000 iterations, ...", "BiCGStab: breakdown after 3
/// iterations (rho = 0: ...), relative residual ...".
std::string describe(const SolveResult& result);

/// Preconditioned conjugate gradients for symmetric positive definite A (and M). x holds the initial
/// guess and receives the solution. Breakdown: p^T A p <= 0 or r^T M^-1 r <= 0 (A or M not positive
/// definite), a non-finite residual. Error: sizes or spaces that do not match, bad options.
template <class Real>
SolveResult cg(Backend backend, const LinearOperator<Real>& A, InputView<Real> b, View<Real> x,
               const Preconditioner<Real>& M, const KrylovOptions& options = {});

/// Restarted GMRES(m), m = options.restart, right preconditioned (the residual it tests is the
/// unpreconditioned one), classical Gram-Schmidt twice (or modified: options.orthogonalization),
/// Givens rotations; the (m+1) x m Hessenberg work on
/// the host in double. Breakdown: a singular Hessenberg matrix (A M^-1 singular on the Krylov space),
/// a non-finite residual.
template <class Real>
SolveResult gmres(Backend backend, const LinearOperator<Real>& A, InputView<Real> b, View<Real> x,
                  const Preconditioner<Real>& M, const KrylovOptions& options = {});

/// BiCGStab (van der Vorst), right preconditioned. Breakdown: rho = (r0^, r) = 0, (r0^, v) = 0,
/// omega = 0, a non-finite residual.
template <class Real>
SolveResult bicgstab(Backend backend, const LinearOperator<Real>& A, InputView<Real> b, View<Real> x,
                     const Preconditioner<Real>& M, const KrylovOptions& options = {});

/// The same on a CsrMatrix (in space_of(backend)).
template <class Real>
SolveResult cg(Backend backend, const CsrMatrix<Real>& A, InputView<Real> b, View<Real> x,
               const Preconditioner<Real>& M, const KrylovOptions& options = {}) {
  return cg(backend, CsrOperator<Real>(A), b, x, M, options);
}
template <class Real>
SolveResult gmres(Backend backend, const CsrMatrix<Real>& A, InputView<Real> b, View<Real> x,
                  const Preconditioner<Real>& M, const KrylovOptions& options = {}) {
  return gmres(backend, CsrOperator<Real>(A), b, x, M, options);
}
template <class Real>
SolveResult bicgstab(Backend backend, const CsrMatrix<Real>& A, InputView<Real> b, View<Real> x,
                     const Preconditioner<Real>& M, const KrylovOptions& options = {}) {
  return bicgstab(backend, CsrOperator<Real>(A), b, x, M, options);
}

}  // namespace flowdg::linalg
