#include "flowdg/linalg/krylov.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "flowdg/core/error.hpp"
#include "flowdg/linalg/ops.hpp"

namespace flowdg::linalg {

// ---- operators ----------------------------------------------------------------------------------

template <class Real>
void LinearOperator<Real>::residual(Backend backend, View<const Real> b, View<const Real> x, View<Real> r) const {
  apply(backend, x, r);
  xpay(backend, b, Real(-1), r);
}

template <class Real>
CsrOperator<Real>::CsrOperator(const CsrMatrix<Real>& matrix) : matrix_(matrix) {
  if (matrix.rows != matrix.cols)
    throw Error(cat("linear operator: the matrix is ", matrix.rows, " x ", matrix.cols, ", not square"));
}

template <class Real>
void CsrOperator<Real>::apply(Backend backend, View<const Real> x, View<Real> y) const {
  spmv(backend, matrix_, x, y);
}

template <class Real>
void CsrOperator<Real>::residual(Backend backend, View<const Real> b, View<const Real> x, View<Real> r) const {
  linalg::residual(backend, matrix_, b, x, r);
}

// ---- messages -----------------------------------------------------------------------------------

namespace {
std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}
}  // namespace

std::string describe(const SolveResult& result) {
  std::string line = result.method;
  if (!result.preconditioner.empty() && result.preconditioner != "identity") line += " with " + result.preconditioner;
  const std::string iterations = cat(result.iterations, result.iterations == 1 ? " iteration" : " iterations");
  if (result.converged)
    line += ": converged in " + iterations;
  else if (!result.breakdown.empty())
    line += ": breakdown after " + iterations + " (" + result.breakdown + ")";
  else
    line += ": not converged after " + iterations;
  line += ", relative residual " + format("%.2e", result.relative_residual) + " (tolerance " +
          format("%g", result.relative_tolerance);
  if (result.absolute_tolerance > 0) line += ", absolute " + format("%g", result.absolute_tolerance);
  line += "), " + format("%.3g", result.seconds) + " s";
  return line;
}

// ---- the common part of the solvers ---------------------------------------------------------------

namespace {

using Clock = std::chrono::steady_clock;

/// The bookkeeping every solver shares: checks, the target, the history, the final true residual.
template <class Real>
class Solve {
 public:
  Solve(std::string method, Backend backend, const LinearOperator<Real>& A, View<const Real> b, View<Real> x,
        const Preconditioner<Real>& M, const KrylovOptions& options)
      : backend_(backend), A_(A), b_(b), x_(x), options_(options), start_(Clock::now()) {
    result_.method = std::move(method);
    result_.preconditioner = M.name();
    result_.relative_tolerance = options.relative_tolerance;
    result_.absolute_tolerance = options.absolute_tolerance;
    const std::string& name = result_.method;
    if (!(options.relative_tolerance >= 0) || !(options.absolute_tolerance >= 0))
      throw InputError(cat(name, ": tolerances must be non-negative (relative ", options.relative_tolerance,
                           ", absolute ", options.absolute_tolerance, ")"));
    if (options.max_iterations < 0)
      throw InputError(cat(name, ": max_iterations = ", options.max_iterations, " (must be at least 0)"));
    if (b.size() != A.size() || x.size() != A.size())
      throw Error(cat(name, ": the operator has ", A.size(), " rows but b has ", b.size(), " entries and x ",
                      x.size()));
    b_norm_ = norm(b);
    if (!std::isfinite(b_norm_)) throw NumericalError(cat(name, ": the right-hand side has a non-finite entry"));
    target_ = std::max(options.relative_tolerance * b_norm_, options.absolute_tolerance);
  }

  /// The inner product and the norm over every rank (KrylovOptions::global_sum).
  double dot(View<const Real> x, View<const Real> y) const {
    const double local = linalg::dot<Real>(backend_, x, y);
    if (!options_.global_sum) return local;
    std::vector<double> sum{local};
    options_.global_sum(sum);
    return sum[0];
  }
  double norm(View<const Real> x) const {
    if (!options_.global_sum) return norm2<Real>(backend_, x);
    return std::sqrt(dot(x, x));  // a sum of squares: NaN stays NaN (the breakdown checks see it)
  }
  /// h[0..count) = V_k . w over every rank, V_k = basis + k stride (one reduction and one sum).
  void multi_dot(const Real* basis, index_t stride, int count, View<const Real> w, std::vector<double>& h) const {
    h.resize(static_cast<std::size_t>(count));
    linalg::multi_dot<Real>(backend_, basis, stride, count, w, h.data());
    if (options_.global_sum) options_.global_sum(h);
  }

  /// b = 0: x = 0 is the solution; the caller returns finish() at once.
  bool zero_rhs() {
    if (b_norm_ > 0) return false;
    fill(backend_, Real(0), x_);
    result_.converged = true;
    return true;
  }
  /// Whether a residual norm meets the stopping rule.
  bool met(double residual_norm) const { return residual_norm <= target_; }
  /// Records the residual norm the initial guess leaves.
  void initial(double residual_norm) { result_.initial_relative_residual = residual_norm / b_norm_; }
  /// Records one iteration's residual norm; false (with the breakdown set) when it is not finite.
  bool record(double residual_norm) {
    ++result_.iterations;
    const double relative = residual_norm / b_norm_;
    result_.history.push_back(relative);
    if (options_.on_iteration) options_.on_iteration(result_.iterations, relative);
    if (!std::isfinite(residual_norm)) {
      result_.breakdown = "the residual is not finite";
      return false;
    }
    return true;
  }
  /// Whether another iteration is allowed.
  bool iterations_left() const { return result_.iterations < options_.max_iterations; }
  void breakdown(std::string reason) { result_.breakdown = std::move(reason); }
  bool broke_down() const { return !result_.breakdown.empty(); }
  bool has_converged() const { return result_.converged; }
  /// Marks the solve converged (a breakdown before it no longer matters).
  void mark_converged() {
    result_.converged = true;
    result_.breakdown.clear();
  }

  /// The final true residual and the time (scratch: any vector of the operator's size).
  SolveResult finish(View<Real> scratch) {
    A_.residual(backend_, b_, x_, scratch);
    result_.relative_residual = b_norm_ > 0 ? norm(scratch) / b_norm_ : 0;
    synchronize(backend_);
    result_.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    return std::move(result_);
  }

 private:
  SolveResult result_;
  Backend backend_;
  const LinearOperator<Real>& A_;
  View<const Real> b_;
  View<Real> x_;
  const KrylovOptions& options_;
  Clock::time_point start_;
  double b_norm_ = 0;
  double target_ = 0;
};

template <class Real>
Real as(double value) {
  return static_cast<Real>(value);
}

/// `count` work vectors of n entries in one allocation.
template <class Real>
class Vectors {
 public:
  Vectors(Space space, index_t n, int count) : n_(n), storage_(space, n * count) {}
  View<Real> operator[](int k) { return {storage_.data() + static_cast<index_t>(k) * n_, n_}; }

 private:
  index_t n_;
  Array<Real> storage_;
};

}  // namespace

// ---- CG -----------------------------------------------------------------------------------------

template <class Real>
SolveResult cg(Backend backend, const LinearOperator<Real>& A, InputView<Real> b, View<Real> x,
               const Preconditioner<Real>& M, const KrylovOptions& options) {
  Solve<Real> solve("CG", backend, A, b, x, M, options);
  Vectors<Real> work(space_of(backend), A.size(), 4);
  const View<Real> r = work[0], z = work[1], p = work[2], q = work[3];
  if (solve.zero_rhs()) return solve.finish(r);

  A.residual(backend, b, x, r);
  double r_norm = solve.norm(r);
  solve.initial(r_norm);
  if (solve.met(r_norm)) solve.mark_converged();
  // Each pass starts from the residual in r; it ends when the recurrence's residual meets the rule
  // (then the true residual decides) or the method stops.
  while (!solve.has_converged() && solve.iterations_left() && !solve.broke_down()) {
    M.apply(backend, r, z);
    double rz = solve.dot(r, z);
    if (!(rz > 0)) {
      solve.breakdown(cat("the preconditioner is not positive definite: r^T M^-1 r = ", rz));
      break;
    }
    copy(backend, z, p);
    bool recurrence_met = false;
    while (solve.iterations_left()) {
      A.apply(backend, p, q);
      const double pq = solve.dot(p, q);
      if (!(pq > 0)) {
        solve.breakdown(cat("the matrix is not positive definite: p^T A p = ", pq));
        break;
      }
      const double alpha = rz / pq;
      axpy(backend, as<Real>(alpha), p, x);
      axpy(backend, as<Real>(-alpha), q, r);
      r_norm = solve.norm(r);
      if (!solve.record(r_norm)) break;
      if (solve.met(r_norm)) {
        recurrence_met = true;
        break;
      }
      M.apply(backend, r, z);
      const double rz_next = solve.dot(r, z);
      if (!(rz_next > 0)) {
        solve.breakdown(cat("the preconditioner is not positive definite: r^T M^-1 r = ", rz_next));
        break;
      }
      xpay(backend, z, as<Real>(rz_next / rz), p);
      rz = rz_next;
    }
    if (!recurrence_met) break;
    A.residual(backend, b, x, r);
    if (solve.met(solve.norm(r))) solve.mark_converged();
  }
  return solve.finish(r);
}

// ---- BiCGStab -----------------------------------------------------------------------------------

template <class Real>
SolveResult bicgstab(Backend backend, const LinearOperator<Real>& A, InputView<Real> b, View<Real> x,
                     const Preconditioner<Real>& M, const KrylovOptions& options) {
  Solve<Real> solve("BiCGStab", backend, A, b, x, M, options);
  Vectors<Real> work(space_of(backend), A.size(), 7);
  const View<Real> r = work[0], r_hat = work[1], p = work[2], p_hat = work[3], v = work[4], s_hat = work[5],
                   t = work[6];
  if (solve.zero_rhs()) return solve.finish(r);

  A.residual(backend, b, x, r);
  double r_norm = solve.norm(r);
  solve.initial(r_norm);
  if (solve.met(r_norm)) solve.mark_converged();
  while (!solve.has_converged() && solve.iterations_left() && !solve.broke_down()) {
    copy(backend, r, r_hat);  // the shadow residual: the residual the pass starts from
    double rho = 1, alpha = 1, omega = 1;
    bool first = true, recurrence_met = false;
    while (solve.iterations_left()) {
      const double rho_next = solve.dot(r_hat, r);
      if (rho_next == 0 || !std::isfinite(rho_next)) {
        solve.breakdown(cat("the residual is orthogonal to the shadow residual: rho = (r0^, r) = ", rho_next));
        break;
      }
      if (first) {
        copy(backend, r, p);
        first = false;
      } else {
        const double beta = (rho_next / rho) * (alpha / omega);
        axpy(backend, as<Real>(-omega), v, p);
        xpay(backend, r, as<Real>(beta), p);
      }
      M.apply(backend, p, p_hat);
      A.apply(backend, p_hat, v);
      const double r_hat_v = solve.dot(r_hat, v);
      if (r_hat_v == 0 || !std::isfinite(r_hat_v)) {
        solve.breakdown(
            cat("the direction A M^-1 p is orthogonal to the shadow residual: (r0^, A M^-1 p) = ", r_hat_v));
        break;
      }
      alpha = rho_next / r_hat_v;
      axpy(backend, as<Real>(alpha), p_hat, x);
      axpy(backend, as<Real>(-alpha), v, r);  // r is now s = r - alpha v
      const double s_norm = solve.norm(r);
      if (solve.met(s_norm)) {
        recurrence_met = solve.record(s_norm);
        break;
      }
      M.apply(backend, r, s_hat);
      A.apply(backend, s_hat, t);
      const double tt = solve.dot(t, t);
      if (tt == 0 || !std::isfinite(tt)) {
        solve.record(s_norm);
        solve.breakdown(cat("A M^-1 maps the residual s to zero (singular): ||A M^-1 s||^2 = ", tt));
        break;
      }
      omega = solve.dot(t, r) / tt;
      axpy(backend, as<Real>(omega), s_hat, x);
      axpy(backend, as<Real>(-omega), t, r);
      r_norm = solve.norm(r);
      if (!solve.record(r_norm)) break;
      if (solve.met(r_norm)) {
        recurrence_met = true;
        break;
      }
      if (omega == 0) {
        solve.breakdown("the stabilising step made no progress: omega = 0");
        break;
      }
      rho = rho_next;
    }
    if (!recurrence_met) break;
    A.residual(backend, b, x, r);
    if (solve.met(solve.norm(r))) solve.mark_converged();
  }
  return solve.finish(r);
}

// ---- GMRES(m) -----------------------------------------------------------------------------------

template <class Real>
SolveResult gmres(Backend backend, const LinearOperator<Real>& A, InputView<Real> b, View<Real> x,
                  const Preconditioner<Real>& M, const KrylovOptions& options) {
  if (options.restart < 1) throw InputError(cat("GMRES: restart = ", options.restart, " (must be at least 1)"));
  Solve<Real> solve(cat("GMRES(", options.restart, ")"), backend, A, b, x, M, options);
  const int m = options.restart;
  Vectors<Real> basis(space_of(backend), A.size(), m + 1), work(space_of(backend), A.size(), 2);
  const View<Real> w = work[0], z = work[1];
  const auto V = [&](int k) { return basis[k]; };
  if (solve.zero_rhs()) return solve.finish(w);

  // The Hessenberg matrix (column-major, m + 1 rows), its Givens rotations and the rotated
  // right-hand side beta e_1, all on the host.
  std::vector<double> h(static_cast<std::size_t>((m + 1) * m)), cs(static_cast<std::size_t>(m)),
      sn(static_cast<std::size_t>(m)), g(static_cast<std::size_t>(m + 1)), y(static_cast<std::size_t>(m));
  const auto H = [&](int i, int j) -> double& { return h[static_cast<std::size_t>(i + j * (m + 1))]; };
  // classical Gram-Schmidt's projection, on the host and (coefficients) in the backend's space
  std::vector<double> projection;
  Array<double> coefficients(space_of(backend), m + 1);
  const auto at = [](int i) { return static_cast<std::size_t>(i); };

  using Orthogonalization = KrylovOptions::Orthogonalization;
  const bool classical = options.orthogonalization == Orthogonalization::classical_twice ||
                         (options.orthogonalization == Orthogonalization::automatic && (backend == Backend::cuda || options.global_sum));
  bool first = true;
  while (true) {
    A.residual(backend, b, x, V(0));
    const double beta = solve.norm(V(0));
    if (first) solve.initial(beta);
    first = false;
    if (solve.met(beta)) {
      solve.mark_converged();
      break;
    }
    if (!std::isfinite(beta)) {
      solve.breakdown("the residual is not finite");
      break;
    }
    if (solve.broke_down() || !solve.iterations_left()) break;
    scale(backend, as<Real>(1 / beta), V(0));
    std::fill(g.begin(), g.end(), 0.0);
    g[0] = beta;

    int k = 0;  // columns of the Hessenberg matrix in use
    for (int j = 0; j < m && solve.iterations_left(); ++j) {
      M.apply(backend, V(j), z);
      A.apply(backend, z, w);
      if (!classical) {
        for (int i = 0; i <= j; ++i) {  // modified Gram-Schmidt
          H(i, j) = solve.dot(w, V(i));
          axpy(backend, as<Real>(-H(i, j)), V(i), w);
        }
      } else {  // classical Gram-Schmidt, twice: h = V^T w, w -= V h, then once more on what is left
        for (int pass = 0; pass < 2; ++pass) {
          solve.multi_dot(V(0).data, A.size(), j + 1, w, projection);
          copy_bytes(coefficients.data(), coefficients.space(), projection.data(), Space::host, sizeof(double) * projection.size());
          multi_axpy<Real>(backend, V(0).data, A.size(), j + 1, coefficients.view(), w);
          for (int i = 0; i <= j; ++i) H(i, j) = (pass == 0 ? 0.0 : H(i, j)) + projection[at(i)];
        }
      }
      const double h_next = solve.norm(w);
      H(j + 1, j) = h_next;
      for (int i = 0; i < j; ++i) {
        const double rotated = cs[at(i)] * H(i, j) + sn[at(i)] * H(i + 1, j);
        H(i + 1, j) = -sn[at(i)] * H(i, j) + cs[at(i)] * H(i + 1, j);
        H(i, j) = rotated;
      }
      const double radius = std::hypot(H(j, j), H(j + 1, j));
      if (!(radius > 0)) {
        solve.breakdown(cat("A M^-1 is singular on the Krylov space: a zero Hessenberg column ", j + 1));
        break;
      }
      cs[at(j)] = H(j, j) / radius;
      sn[at(j)] = H(j + 1, j) / radius;
      H(j, j) = radius;
      H(j + 1, j) = 0;
      g[at(j) + 1] = -sn[at(j)] * g[at(j)];
      g[at(j)] = cs[at(j)] * g[at(j)];
      k = j + 1;
      const double estimate = std::abs(g[at(j) + 1]);
      if (!solve.record(estimate)) {
        k = 0;  // a non-finite estimate: leave x as it is
        break;
      }
      if (solve.met(estimate) || h_next == 0) break;  // h_next = 0: the solution lies in the space
      copy(backend, w, V(j + 1));
      scale(backend, as<Real>(1 / h_next), V(j + 1));
    }

    // x += M^-1 V_k y with R_k y = g_k (back substitution).
    for (int i = k - 1; i >= 0; --i) {
      double sum = g[at(i)];
      for (int j = i + 1; j < k; ++j) sum -= H(i, j) * y[at(j)];
      y[at(i)] = sum / H(i, i);
    }
    if (k > 0) {
      fill(backend, Real(0), w);
      for (int i = 0; i < k; ++i) axpy(backend, as<Real>(y[at(i)]), V(i), w);
      M.apply(backend, w, z);
      axpy(backend, Real(1), z, x);
    }
  }
  return solve.finish(w);
}

// ---- instances ----------------------------------------------------------------------------------

#define FLOWDG_KRYLOV_INSTANTIATE(Real)                                                                            \
  template class LinearOperator<Real>;                                                                             \
  template class CsrOperator<Real>;                                                                                \
  template SolveResult cg<Real>(Backend, const LinearOperator<Real>&, View<const Real>, View<Real>,                \
                                const Preconditioner<Real>&, const KrylovOptions&);                                \
  template SolveResult gmres<Real>(Backend, const LinearOperator<Real>&, View<const Real>, View<Real>,             \
                                   const Preconditioner<Real>&, const KrylovOptions&);                             \
  template SolveResult bicgstab<Real>(Backend, const LinearOperator<Real>&, View<const Real>, View<Real>,          \
                                      const Preconditioner<Real>&, const KrylovOptions&);

FLOWDG_KRYLOV_INSTANTIATE(float)
FLOWDG_KRYLOV_INSTANTIATE(double)
#undef FLOWDG_KRYLOV_INSTANTIATE

}  // namespace flowdg::linalg
