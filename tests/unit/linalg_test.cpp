// Sparse matrices and Krylov solvers (linalg/, issue 18 item 5), on the CPU backend in float and
// double: COO -> CSR sums duplicates in a fixed order and equals a dense reference; SpMV and the
// vector primitives equal dense arithmetic; CG on the 2D Poisson matrix, GMRES and BiCGStab on a
// non-symmetric convection-diffusion matrix reach the direct solution; block Jacobi cuts CG's
// iterations on a matrix of strong blocks and solves a block-diagonal system in one iteration; the
// same solve twice gives the same bits; a solve that runs out of iterations or breaks down says so
// without throwing; singular matrices are refused by the direct solve and by block Jacobi.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/linalg/csr.hpp"
#include "flowdg/linalg/direct.hpp"
#include "flowdg/linalg/krylov.hpp"
#include "flowdg/linalg/ops.hpp"
#include "flowdg/linalg/preconditioner.hpp"

using namespace flowdg;
using namespace flowdg::linalg;

namespace {

constexpr Backend cpu = Backend::cpu;

std::size_t at(index_t i) { return static_cast<std::size_t>(i); }

/// Uniform in [0, 1) from the generator's bits (the same numbers on every standard library).
double uniform(std::mt19937& random) { return static_cast<double>(random() >> 8) * (1.0 / 16777216.0); }

/// The 5-point Laplacian on an m x m grid of interior points with Dirichlet boundaries (times h^2).
template <class Real>
CooMatrix<Real> poisson2d(index_t m) {
  CooMatrix<Real> coo(m * m, m * m);
  for (index_t j = 0; j < m; ++j)
    for (index_t i = 0; i < m; ++i) {
      const index_t row = j * m + i;
      coo.add(row, row, Real(4));
      if (i > 0) coo.add(row, row - 1, Real(-1));
      if (i < m - 1) coo.add(row, row + 1, Real(-1));
      if (j > 0) coo.add(row, row - m, Real(-1));
      if (j < m - 1) coo.add(row, row + m, Real(-1));
    }
  return coo;
}

/// -Laplace(u) + (beta, beta) . grad(u) on an m x m grid, first-order upwind (times h^2): non-symmetric.
template <class Real>
CooMatrix<Real> convection_diffusion2d(index_t m, double beta) {
  const double hb = beta / static_cast<double>(m + 1);
  CooMatrix<Real> coo(m * m, m * m);
  for (index_t j = 0; j < m; ++j)
    for (index_t i = 0; i < m; ++i) {
      const index_t row = j * m + i;
      coo.add(row, row, static_cast<Real>(4 + 2 * hb));
      if (i > 0) coo.add(row, row - 1, static_cast<Real>(-1 - hb));
      if (i < m - 1) coo.add(row, row + 1, Real(-1));
      if (j > 0) coo.add(row, row - m, static_cast<Real>(-1 - hb));
      if (j < m - 1) coo.add(row, row + m, Real(-1));
    }
  return coo;
}

/// Block offsets of sizes 3, 4, ..., 8, 3, 4, ... (blocks of different sizes, as elements of
/// different degrees give).
std::vector<index_t> varied_blocks(int blocks) {
  std::vector<index_t> offsets{0};
  for (int k = 0; k < blocks; ++k) offsets.push_back(offsets.back() + 3 + k % 6);
  return offsets;
}

/// A positive definite matrix of strong blocks: each diagonal block s_k (R^T R + I + S) with R random,
/// S = 0 or (`skew`) a random antisymmetric matrix (then A is not symmetric), the scales s_k spread
/// over three decades; plus, when `coupled`, a weak graph Laplacian (coupling each block's last row
/// to the next block's first).
template <class Real>
CooMatrix<Real> strong_blocks(const std::vector<index_t>& offsets, bool coupled, bool skew = false,
                              std::uint32_t seed = 7) {
  std::mt19937 random(seed);
  const index_t n = offsets.back();
  CooMatrix<Real> coo(n, n);
  for (std::size_t k = 0; k + 1 < offsets.size(); ++k) {
    const index_t r0 = offsets[k], size = offsets[k + 1] - r0;
    const double s = std::pow(10.0, 3.0 * uniform(random));
    std::vector<double> R(at(size * size));
    std::vector<double> S(at(size * size), 0.0);
    for (double& value : R) value = uniform(random) - 0.5;
    for (index_t i = 0; i < size && skew; ++i)
      for (index_t j = 0; j < i; ++j) {
        S[at(i * size + j)] = uniform(random) - 0.5;
        S[at(j * size + i)] = -S[at(i * size + j)];
      }
    for (index_t i = 0; i < size; ++i)
      for (index_t j = 0; j < size; ++j) {
        double sum = (i == j ? 1.0 : 0.0) + S[at(i * size + j)];
        for (index_t l = 0; l < size; ++l) sum += R[at(l * size + i)] * R[at(l * size + j)];
        coo.add(r0 + i, r0 + j, static_cast<Real>(s * sum));
      }
  }
  if (coupled) {
    for (std::size_t k = 1; k + 1 < offsets.size(); ++k) {
      const index_t a = offsets[k] - 1, b = offsets[k];
      const double c = 0.05;
      coo.add(a, a, static_cast<Real>(c));
      coo.add(b, b, static_cast<Real>(c));
      coo.add(a, b, static_cast<Real>(-c));
      coo.add(b, a, static_cast<Real>(-c));
    }
  }
  return coo;
}

template <class Real>
std::vector<Real> random_vector(index_t n, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<Real> v(at(n));
  for (Real& value : v) value = static_cast<Real>(uniform(random) - 0.5);
  return v;
}

/// ||a - b|| / ||b|| in double.
template <class Real>
double relative_difference(const std::vector<Real>& a, const std::vector<Real>& b) {
  double difference = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference += std::pow(static_cast<double>(a[i]) - static_cast<double>(b[i]), 2);
    norm += std::pow(static_cast<double>(b[i]), 2);
  }
  return std::sqrt(difference / norm);
}

/// Tolerances by precision: what the solvers are asked for, and how close to the direct solution
/// (computed in double) they must then be.
template <class Real>
struct Accuracy;
template <>
struct Accuracy<double> {
  static constexpr double solve = 1e-12;
  static constexpr double match = 1e-8;
  static constexpr double spmv = 1e-14;
};
template <>
struct Accuracy<float> {
  static constexpr double solve = 1e-5;
  static constexpr double match = 1e-3;
  static constexpr double spmv = 1e-6;
};

enum class Method { cg, gmres, bicgstab };

/// Solves A x = b on the CPU from x = 0 with one method; returns the result and x.
template <class Real>
SolveResult run(Method method, const CsrMatrix<Real>& A, const std::vector<Real>& b, const Preconditioner<Real>& M,
                const KrylovOptions& options, std::vector<Real>& x) {
  const Array<Real> rhs(Space::host, b);
  Array<Real> solution(Space::host, std::vector<Real>(b.size(), Real(0)));
  SolveResult result;
  if (method == Method::cg) result = cg(cpu, A, rhs.view(), solution.view(), M, options);
  if (method == Method::gmres) result = gmres(cpu, A, rhs.view(), solution.view(), M, options);
  if (method == Method::bicgstab) result = bicgstab(cpu, A, rhs.view(), solution.view(), M, options);
  x = solution.to_host();
  return result;
}

template <class Real>
class LinalgTyped : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(LinalgTyped, Precisions);

}  // namespace

// ---- matrices -------------------------------------------------------------------------------------

TYPED_TEST(LinalgTyped, CooToCsrSortsSumsDuplicatesAndEqualsDense) {
  using Real = TypeParam;
  std::mt19937 random(3);
  const index_t rows = 9, cols = 7;
  CooMatrix<Real> coo(rows, cols);
  std::vector<Real> dense(at(rows * cols), Real(0));
  std::vector<int> hits(at(rows * cols), 0);
  for (int k = 0; k < 120; ++k) {  // about two entries per position: many duplicates, in random order
    const index_t i = static_cast<index_t>(random() % rows), j = static_cast<index_t>(random() % cols);
    const Real v = static_cast<Real>(uniform(random) - 0.3);
    coo.add(i, j, v);
    dense[at(i * cols + j)] += v;  // the same order as the input: the same bits
    ++hits[at(i * cols + j)];
  }
  const CsrMatrix<Real> A = csr_from_coo(coo);
  EXPECT_EQ(A.rows, rows);
  EXPECT_EQ(A.cols, cols);
  index_t positions = 0;
  for (const int h : hits) positions += h > 0 ? 1 : 0;
  EXPECT_EQ(A.nonzeros(), positions);
  const std::vector<index_t> row_start = A.row_start.to_host(), column = A.column.to_host();
  for (index_t i = 0; i < rows; ++i)
    for (index_t k = row_start[at(i)] + 1; k < row_start[at(i) + 1]; ++k) {
      EXPECT_LT(column[at(k - 1)], column[at(k)]) << "row " << i;
    }
  const std::vector<Real> from_csr = to_dense(A);
  for (std::size_t p = 0; p < dense.size(); ++p) {
    EXPECT_EQ(from_csr[p], dense[p]) << "position " << p;
  }
  // The host copy's copy is the same matrix.
  const CsrMatrix<Real> copy = A.to_space(Space::host);
  EXPECT_EQ(to_dense(copy), from_csr);
  EXPECT_EQ(copy.column.to_host(), column);
}

TEST(Linalg, MalformedMatricesAreRefused) {
  CooMatrix<double> coo(3, 3);
  coo.add(0, 0, 1.0);
  coo.add(3, 1, 1.0);
  EXPECT_THROW(csr_from_coo(coo), Error);
  // Columns not ascending within row 0; offsets not ending at the entries.
  EXPECT_THROW(CsrMatrix<double>(Space::host, 2, 2, {0, 2, 2}, {1, 0}, {1.0, 2.0}), Error);
  EXPECT_THROW(CsrMatrix<double>(Space::host, 2, 2, {0, 1, 3}, {1, 0}, {1.0, 2.0}), Error);
  EXPECT_EQ(uniform_blocks(10, 4), (std::vector<index_t>{0, 4, 8, 10}));
}

TYPED_TEST(LinalgTyped, SpmvAndVectorPrimitivesEqualDenseArithmetic) {
  using Real = TypeParam;
  std::mt19937 random(11);
  const index_t rows = 53, cols = 41;
  CooMatrix<Real> coo(rows, cols);
  for (int k = 0; k < 400; ++k)
    coo.add(static_cast<index_t>(random() % rows), static_cast<index_t>(random() % cols),
            static_cast<Real>(uniform(random) - 0.5));
  coo.add(rows - 1, cols - 1, Real(2));
  const CsrMatrix<Real> A = csr_from_coo(coo);
  const std::vector<Real> dense = to_dense(A), x = random_vector<Real>(cols, 5), b = random_vector<Real>(rows, 6);

  const Array<Real> x_array(Space::host, x), b_array(Space::host, b);
  Array<Real> y(Space::host, rows), r(Space::host, rows);
  spmv(cpu, A, x_array.view(), y.view());
  residual(cpu, A, b_array.view(), x_array.view(), r.view());
  const std::vector<Real> y_host = y.to_host(), r_host = r.to_host();
  for (index_t i = 0; i < rows; ++i) {
    double expected = 0, scale = 0;
    for (index_t j = 0; j < cols; ++j) {
      expected += static_cast<double>(dense[at(i * cols + j)]) * static_cast<double>(x[at(j)]);
      scale += std::abs(static_cast<double>(dense[at(i * cols + j)]) * static_cast<double>(x[at(j)]));
    }
    EXPECT_NEAR(y_host[at(i)], expected, Accuracy<Real>::spmv * (1 + scale)) << "row " << i;
    EXPECT_NEAR(r_host[at(i)], static_cast<double>(b[at(i)]) - expected, Accuracy<Real>::spmv * (2 + scale))
        << "row " << i;
  }

  // dot and norm2 accumulate in double; axpy, xpay, scale, copy and fill are exact entry by entry.
  const std::vector<Real> u = random_vector<Real>(rows, 8);
  Array<Real> w(Space::host, u);
  double dot_expected = 0, norm_expected = 0;
  for (index_t i = 0; i < rows; ++i) {
    dot_expected += static_cast<double>(u[at(i)]) * static_cast<double>(b[at(i)]);
    norm_expected += static_cast<double>(u[at(i)]) * static_cast<double>(u[at(i)]);
  }
  EXPECT_NEAR(dot<Real>(cpu, w.view(), b_array.view()), dot_expected, 1e-14);
  EXPECT_NEAR(norm2<Real>(cpu, w.view()), std::sqrt(norm_expected), 1e-14);
  axpy(cpu, Real(2), b_array.view(), w.view());
  xpay(cpu, b_array.view(), Real(-0.5), w.view());
  scale(cpu, Real(4), w.view());
  const std::vector<Real> w_host = w.to_host();
  for (index_t i = 0; i < rows; ++i) {
    const Real expected = Real(4) * (b[at(i)] + Real(-0.5) * (Real(2) * b[at(i)] + u[at(i)]));
    EXPECT_EQ(w_host[at(i)], expected) << i;
  }
  copy(cpu, b_array.view(), w.view());
  EXPECT_EQ(w.to_host(), b);
  fill(cpu, Real(3), w.view());
  EXPECT_EQ(w.to_host(), std::vector<Real>(at(rows), Real(3)));
}

// ---- solves -----------------------------------------------------------------------------------------

TYPED_TEST(LinalgTyped, CgReachesTheDirectSolutionOfPoisson) {
  using Real = TypeParam;
  const CsrMatrix<Real> A = csr_from_coo(poisson2d<Real>(40));
  const std::vector<Real> b = random_vector<Real>(A.rows, 21);
  const std::vector<Real> direct = sparse_lu_solve(A, b);
  KrylovOptions options;
  options.relative_tolerance = Accuracy<Real>::solve;
  std::vector<Real> x;
  const SolveResult plain = run(Method::cg, A, b, IdentityPreconditioner<Real>(), options, x);
  EXPECT_TRUE(plain.converged) << describe(plain);
  EXPECT_LE(plain.relative_residual, Accuracy<Real>::solve);
  EXPECT_LT(relative_difference(x, direct), Accuracy<Real>::match) << describe(plain);
  EXPECT_EQ(plain.history.size(), static_cast<std::size_t>(plain.iterations));
  EXPECT_GT(plain.iterations, 20);
  EXPECT_EQ(plain.method, "CG");
  // Block Jacobi with the grid lines as blocks (tridiagonal blocks) converges too, in fewer iterations.
  const BlockJacobi<Real> lines(A, uniform_blocks(A.rows, 40));
  const SolveResult blocked = run(Method::cg, A, b, lines, options, x);
  EXPECT_TRUE(blocked.converged) << describe(blocked);
  EXPECT_LT(relative_difference(x, direct), Accuracy<Real>::match) << describe(blocked);
  EXPECT_LT(blocked.iterations, plain.iterations);
}

TYPED_TEST(LinalgTyped, BlockJacobiCutsCgIterationsOnStrongBlocks) {
  using Real = TypeParam;
  const std::vector<index_t> offsets = varied_blocks(120);
  const CsrMatrix<Real> A = csr_from_coo(strong_blocks<Real>(offsets, true));
  const std::vector<Real> b = random_vector<Real>(A.rows, 4);
  const std::vector<Real> direct = sparse_lu_solve(A, b);
  KrylovOptions options;
  options.relative_tolerance = Accuracy<Real>::solve;
  options.max_iterations = 5000;
  std::vector<Real> x;
  const SolveResult plain = run(Method::cg, A, b, IdentityPreconditioner<Real>(), options, x);
  EXPECT_TRUE(plain.converged) << describe(plain);
  const BlockJacobi<Real> jacobi(A, offsets);
  EXPECT_EQ(jacobi.blocks(), 120);
  const SolveResult blocked = run(Method::cg, A, b, jacobi, options, x);
  EXPECT_TRUE(blocked.converged) << describe(blocked);
  EXPECT_LT(relative_difference(x, direct), Accuracy<Real>::match) << describe(blocked);
  EXPECT_LT(3 * blocked.iterations, plain.iterations) << describe(plain) << "\n" << describe(blocked);
}

TYPED_TEST(LinalgTyped, GmresAndBicgstabReachTheDirectSolutionOfConvectionDiffusion) {
  using Real = TypeParam;
  const index_t m = 30;
  const CsrMatrix<Real> A = csr_from_coo(convection_diffusion2d<Real>(m, 40.0));
  const std::vector<Real> b = random_vector<Real>(A.rows, 9);
  const std::vector<Real> direct = sparse_lu_solve(A, b);
  const IdentityPreconditioner<Real> identity;
  const BlockJacobi<Real> lines(A, uniform_blocks(A.rows, m));
  KrylovOptions options;
  options.relative_tolerance = Accuracy<Real>::solve;
  options.restart = 30;
  for (const Method method : {Method::gmres, Method::bicgstab})
    for (const Preconditioner<Real>* M : {static_cast<const Preconditioner<Real>*>(&identity),
                                          static_cast<const Preconditioner<Real>*>(&lines)}) {
      std::vector<Real> x;
      const SolveResult result = run(method, A, b, *M, options, x);
      SCOPED_TRACE(describe(result));
      EXPECT_TRUE(result.converged);
      EXPECT_TRUE(result.breakdown.empty());
      EXPECT_LE(result.relative_residual, Accuracy<Real>::solve);
      EXPECT_LT(relative_difference(x, direct), Accuracy<Real>::match);
      EXPECT_EQ(result.history.size(), static_cast<std::size_t>(result.iterations));
    }
}

TYPED_TEST(LinalgTyped, GmresOrthogonalisationsAgree) {
  // classical Gram-Schmidt twice (fused reductions) and modified Gram-Schmidt build the same Krylov
  // basis up to rounding: the same solution, iteration counts within a few, on a non-normal matrix
  // with a long restart cycle (where classical Gram-Schmidt done once would lose orthogonality)
  using Real = TypeParam;
  const CsrMatrix<Real> A = csr_from_coo(convection_diffusion2d<Real>(30, 60.0));
  const std::vector<Real> b = random_vector<Real>(A.rows, 4);
  const std::vector<Real> direct = sparse_lu_solve(A, b);
  KrylovOptions options;
  options.relative_tolerance = Accuracy<Real>::solve;
  options.restart = 80;
  options.max_iterations = 5000;
  options.orthogonalization = KrylovOptions::Orthogonalization::classical_twice;
  std::vector<Real> x_classical, x_modified;
  const SolveResult classical = run(Method::gmres, A, b, IdentityPreconditioner<Real>(), options, x_classical);
  options.orthogonalization = KrylovOptions::Orthogonalization::modified;
  const SolveResult modified = run(Method::gmres, A, b, IdentityPreconditioner<Real>(), options, x_modified);
  ASSERT_TRUE(classical.converged) << describe(classical);
  ASSERT_TRUE(modified.converged) << describe(modified);
  EXPECT_LT(relative_difference(x_classical, direct), Accuracy<Real>::match);
  EXPECT_LT(relative_difference(x_modified, direct), Accuracy<Real>::match);
  EXPECT_LE(std::abs(classical.iterations - modified.iterations), 2 + modified.iterations / 20)
      << describe(classical) << "\n" << describe(modified);
  // multi_dot and multi_axpy against one dot and axpy at a time
  const index_t n = 1000;
  const int count = 7;
  std::vector<Real> basis(at(n * count));
  std::mt19937 random(5);
  for (Real& v : basis) v = static_cast<Real>(uniform(random) - 0.5);
  const std::vector<Real> w = random_vector<Real>(n, 6);
  std::vector<double> h(count);
  multi_dot<Real>(cpu, basis.data(), n, count, View<const Real>{w.data(), n}, h.data());
  std::vector<Real> by_axpy = w, by_multi = w;
  for (int k = 0; k < count; ++k) {
    const View<const Real> v{basis.data() + k * n, n};
    EXPECT_EQ(h[at(k)], dot<Real>(cpu, v, View<const Real>{w.data(), n})) << k;
    axpy<Real>(cpu, static_cast<Real>(-h[at(k)]), v, View<Real>{by_axpy.data(), n});
  }
  multi_axpy<Real>(cpu, basis.data(), n, count, View<const double>{h.data(), count}, View<Real>{by_multi.data(), n});
  EXPECT_LT(relative_difference(by_multi, by_axpy), (std::is_same_v<Real, float> ? 1e-5 : 1e-13));
}

TYPED_TEST(LinalgTyped, BlockJacobiSolvesABlockDiagonalSystemInOneIteration) {
  using Real = TypeParam;
  const std::vector<index_t> offsets = varied_blocks(30);
  const std::vector<Real> b = random_vector<Real>(offsets.back(), 2);
  KrylovOptions options;
  options.relative_tolerance = std::is_same_v<Real, float> ? 1e-4 : 1e-10;
  // Symmetric blocks for CG, non-symmetric ones (a transposed inverse would fail) for all three.
  for (const bool skew : {false, true}) {
    const CsrMatrix<Real> A = csr_from_coo(strong_blocks<Real>(offsets, false, skew));
    const BlockJacobi<Real> jacobi(A, offsets);
    for (const Method method : {Method::cg, Method::gmres, Method::bicgstab}) {
      if (skew && method == Method::cg) continue;
      std::vector<Real> x;
      const SolveResult result = run(method, A, b, jacobi, options, x);
      EXPECT_TRUE(result.converged) << describe(result);
      EXPECT_EQ(result.iterations, 1) << describe(result);
    }
  }
}

TEST(Linalg, TheSameSolveTwiceGivesTheSameBits) {
  const CsrMatrix<double> A = csr_from_coo(convection_diffusion2d<double>(24, 30.0));
  const std::vector<double> b = random_vector<double>(A.rows, 17);
  const BlockJacobi<double> jacobi(A, uniform_blocks(A.rows, 24));
  KrylovOptions options;
  options.relative_tolerance = 1e-11;
  options.restart = 20;
  for (const Method method : {Method::gmres, Method::bicgstab}) {
    std::vector<double> x1, x2;
    const SolveResult first = run(method, A, b, jacobi, options, x1);
    const SolveResult second = run(method, A, b, jacobi, options, x2);
    ASSERT_EQ(x1.size(), x2.size());
    EXPECT_EQ(std::memcmp(x1.data(), x2.data(), x1.size() * sizeof(double)), 0) << describe(first);
    ASSERT_EQ(first.history.size(), second.history.size());
    EXPECT_EQ(std::memcmp(first.history.data(), second.history.data(), first.history.size() * sizeof(double)), 0);
  }
  const CsrMatrix<double> P = csr_from_coo(poisson2d<double>(30));
  const std::vector<double> c = random_vector<double>(P.rows, 18);
  std::vector<double> y1, y2;
  run(Method::cg, P, c, IdentityPreconditioner<double>(), options, y1);
  run(Method::cg, P, c, IdentityPreconditioner<double>(), options, y2);
  EXPECT_EQ(std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(double)), 0);
}

TEST(Linalg, ASolveThatRunsOutOfIterationsSaysSo) {
  const CsrMatrix<double> A = csr_from_coo(convection_diffusion2d<double>(20, 10.0));
  const std::vector<double> b = random_vector<double>(A.rows, 1);
  KrylovOptions options;
  options.max_iterations = 3;
  std::vector<double> seen;
  options.on_iteration = [&](int iteration, double relative) {
    EXPECT_EQ(iteration, static_cast<int>(seen.size()) + 1);
    seen.push_back(relative);
  };
  for (const Method method : {Method::cg, Method::gmres, Method::bicgstab}) {
    seen.clear();
    std::vector<double> x;
    const SolveResult result = run(method, A, b, IdentityPreconditioner<double>(), options, x);
    EXPECT_FALSE(result.converged);
    EXPECT_EQ(result.iterations, 3);
    ASSERT_EQ(result.history.size(), 3u);
    EXPECT_EQ(seen, result.history);
    EXPECT_GT(result.relative_residual, 1e-3);
    EXPECT_LT(result.relative_residual, 1.0);
    const std::string line = describe(result);
    EXPECT_NE(line.find("not converged after 3 iterations"), std::string::npos) << line;
    EXPECT_NE(line.find("tolerance 1e-10"), std::string::npos) << line;
  }
  std::vector<double> x;
  options.on_iteration = nullptr;
  options.restart = 50;
  EXPECT_EQ(describe(run(Method::gmres, A, b, IdentityPreconditioner<double>(), options, x)).rfind("GMRES(50): ", 0),
            0u);
}

TEST(Linalg, BreakdownsAreReportedNotThrown) {
  // The 2 x 2 exchange matrix: BiCGStab's first direction is orthogonal to the shadow residual; CG
  // meets p^T A p = 0 (it is indefinite); GMRES solves it in two iterations.
  const CsrMatrix<double> swap(Space::host, 2, 2, {0, 1, 2}, {1, 0}, {1.0, 1.0});
  const std::vector<double> b{1.0, 0.0};
  std::vector<double> x;
  const SolveResult bicgstab_result = run(Method::bicgstab, swap, b, IdentityPreconditioner<double>(), {}, x);
  EXPECT_FALSE(bicgstab_result.converged);
  EXPECT_FALSE(bicgstab_result.breakdown.empty());
  EXPECT_NE(describe(bicgstab_result).find("BiCGStab: breakdown after 0 iterations"), std::string::npos)
      << describe(bicgstab_result);
  const SolveResult cg_result = run(Method::cg, swap, b, IdentityPreconditioner<double>(), {}, x);
  EXPECT_FALSE(cg_result.converged);
  EXPECT_NE(cg_result.breakdown.find("not positive definite"), std::string::npos) << describe(cg_result);
  const SolveResult gmres_result = run(Method::gmres, swap, b, IdentityPreconditioner<double>(), {}, x);
  EXPECT_TRUE(gmres_result.converged) << describe(gmres_result);
  EXPECT_EQ(gmres_result.iterations, 2);
  EXPECT_NEAR(x[0], 0.0, 1e-15);
  EXPECT_NEAR(x[1], 1.0, 1e-15);
}

TEST(Linalg, ZeroRightHandSideAndBadOptions) {
  const CsrMatrix<double> A = csr_from_coo(poisson2d<double>(5));
  std::vector<double> x;
  const SolveResult zero = run(Method::gmres, A, std::vector<double>(25, 0.0), IdentityPreconditioner<double>(), {}, x);
  EXPECT_TRUE(zero.converged);
  EXPECT_EQ(zero.iterations, 0);
  EXPECT_EQ(x, std::vector<double>(25, 0.0));
  KrylovOptions bad;
  bad.restart = 0;
  EXPECT_THROW(run(Method::gmres, A, std::vector<double>(25, 1.0), IdentityPreconditioner<double>(), bad, x),
               InputError);
  bad = {};
  bad.relative_tolerance = -1;
  EXPECT_THROW(run(Method::cg, A, std::vector<double>(25, 1.0), IdentityPreconditioner<double>(), bad, x), InputError);
  EXPECT_THROW(run(Method::cg, A, std::vector<double>(24, 1.0), IdentityPreconditioner<double>(), {}, x), Error);
  // with a global sum (a distributed solve, here one rank) a non-finite right-hand side is still
  // refused, not taken for a zero one
  KrylovOptions distributed;
  distributed.global_sum = [](std::vector<double>&) {};
  std::vector<double> b(25, 1.0);
  b[7] = std::nan("");
  for (const Method method : {Method::cg, Method::gmres, Method::bicgstab})
    EXPECT_THROW(run(method, A, b, IdentityPreconditioner<double>(), distributed, x), NumericalError);
  b[7] = 1.0;
  const SolveResult summed = run(Method::gmres, A, b, IdentityPreconditioner<double>(), distributed, x);
  EXPECT_TRUE(summed.converged) << describe(summed);
}

// ---- the direct solve and singular matrices ---------------------------------------------------------

TYPED_TEST(LinalgTyped, SparseLuSolvesAndRefusesSingularMatrices) {
  using Real = TypeParam;
  // [[2, 1, 0], [1, 3, 1], [0, 1, 4]] x = A (1, -2, 3).
  const CsrMatrix<Real> A(Space::host, 3, 3, {0, 2, 5, 7}, {0, 1, 0, 1, 2, 1, 2},
                          {Real(2), Real(1), Real(1), Real(3), Real(1), Real(1), Real(4)});
  const std::vector<Real> x = sparse_lu_solve(A, std::vector<Real>{Real(0), Real(-2), Real(10)});
  EXPECT_NEAR(x[0], 1.0, 100 * Accuracy<Real>::spmv);
  EXPECT_NEAR(x[1], -2.0, 100 * Accuracy<Real>::spmv);
  EXPECT_NEAR(x[2], 3.0, 100 * Accuracy<Real>::spmv);

  const auto expect_singular = [](const CsrMatrix<Real>& matrix, const char* what) {
    try {
      sparse_lu_solve(matrix, std::vector<Real>(static_cast<std::size_t>(matrix.rows), Real(1)));
      ADD_FAILURE() << what << ": no error";
    } catch (const NumericalError& error) {
      EXPECT_NE(std::string(error.what()).find("singular"), std::string::npos) << what << ": " << error.what();
    }
  };
  // An empty row; an empty column; proportional rows (an exact zero pivot); rank 2 of 3 (a pivot
  // that rounding leaves near zero).
  expect_singular(CsrMatrix<Real>(Space::host, 2, 2, {0, 2, 2}, {0, 1}, {Real(1), Real(1)}), "empty row");
  expect_singular(CsrMatrix<Real>(Space::host, 2, 2, {0, 1, 2}, {0, 0}, {Real(1), Real(1)}), "empty column");
  expect_singular(CsrMatrix<Real>(Space::host, 2, 2, {0, 2, 4}, {0, 1, 0, 1}, {Real(1), Real(2), Real(2), Real(4)}),
                  "proportional rows");
  expect_singular(CsrMatrix<Real>(Space::host, 3, 3, {0, 3, 6, 9}, {0, 1, 2, 0, 1, 2, 0, 1, 2},
                                  {Real(1), Real(2), Real(3), Real(4), Real(5), Real(6), Real(7), Real(8), Real(9)}),
                  "rank 2");
  // The pure-Neumann Laplacian of a path (rows summing to zero): singular, rounding or not.
  CooMatrix<Real> neumann(50, 50);
  for (index_t i = 0; i + 1 < 50; ++i) {
    neumann.add(i, i, Real(1));
    neumann.add(i + 1, i + 1, Real(1));
    neumann.add(i, i + 1, Real(-1));
    neumann.add(i + 1, i, Real(-1));
  }
  expect_singular(csr_from_coo(neumann), "pure Neumann");
  // Rank 2 of 4, integer entries (exact in float too).
  const std::vector<Real> r1{3, 1, 2, 7}, r2{1, 4, 1, 5};
  std::vector<Real> dependent;
  for (const auto& [a, b] : {std::pair{1, 0}, std::pair{0, 1}, std::pair{2, 5}, std::pair{3, -7}})
    for (int j = 0; j < 4; ++j)
      dependent.push_back(static_cast<Real>(a) * r1[at(j)] + static_cast<Real>(b) * r2[at(j)]);
  const std::vector<index_t> dense_row_start{0, 4, 8, 12, 16},
      dense_column{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
  expect_singular(CsrMatrix<Real>(Space::host, 4, 4, dense_row_start, dense_column, dependent),
                  "rank 2 of 4");
  // A pivot 1e-20 times the largest, as rounding leaves where exact arithmetic would cancel: refused
  // as numerically singular (below n eps times the largest pivot).
  try {
    sparse_lu_solve(CsrMatrix<Real>(Space::host, 2, 2, {0, 1, 2}, {0, 1}, {Real(1), Real(1e-20)}),
                    std::vector<Real>{Real(1), Real(1)});
    ADD_FAILURE() << "tiny pivot: no error";
  } catch (const NumericalError& error) {
    EXPECT_NE(std::string(error.what()).find("numerically singular: its smallest pivot is"), std::string::npos)
        << error.what();
  }
}

TYPED_TEST(LinalgTyped, BlockJacobiRefusesASingularBlock) {
  using Real = TypeParam;
  // Blocks {0, 1}, {2, 3}, {4}: the second block [[1, 2], [2, 4]] is singular.
  CooMatrix<Real> coo(5, 5);
  coo.add(0, 0, Real(2));
  coo.add(1, 1, Real(2));
  coo.add(0, 1, Real(1));
  coo.add(2, 2, Real(1));
  coo.add(2, 3, Real(2));
  coo.add(3, 2, Real(2));
  coo.add(3, 3, Real(4));
  coo.add(4, 4, Real(5));
  coo.add(3, 4, Real(1));  // outside the block: ignored
  const CsrMatrix<Real> A = csr_from_coo(coo);
  try {
    const BlockJacobi<Real> jacobi(A, {0, 2, 4, 5});
    ADD_FAILURE() << "no error";
  } catch (const NumericalError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("block 1 (rows 2 to 3"), std::string::npos) << message;
    EXPECT_NE(message.find("singular"), std::string::npos) << message;
  }
  EXPECT_THROW(BlockJacobi<Real>(A, {0, 2, 2, 5}), Error);  // an empty block
  EXPECT_THROW(BlockJacobi<Real>(A, {0, 2, 4, 6}), Error);  // past the rows
  EXPECT_THROW(BlockJacobi<Real>(A, {1, 2}), Error);        // not from row 0
}
