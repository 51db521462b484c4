// Polytopic SIPG (poly/basis.hpp, poly/sipg.hpp; issue 18 items 2-4): the physical-frame basis is
// orthonormal on the bounding box, hierarchical and differentiates right; the three assemblies give
// the same matrix (to rounding; the deterministic one the same bits twice), with variable degrees
// and variable coefficients; the method reproduces polynomials of its degree exactly (consistency,
// Dirichlet and Neumann, advection and reaction, 2D and 3D); Poisson converges at p + 1 in L2 and p
// in the DG norm; Poisson's matrix is symmetric and CG with block Jacobi solves it; bad options are
// refused with a clear message.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/linalg/direct.hpp"
#include "flowdg/linalg/krylov.hpp"
#include "flowdg/linalg/preconditioner.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/poly/agglomerate.hpp"
#include "flowdg/poly/basis.hpp"
#include "flowdg/poly/poly_mesh.hpp"
#include "flowdg/poly/sipg.hpp"

using namespace flowdg;
using namespace flowdg::poly;

namespace {

using Field = std::function<void(std::span<const Point3>, double*)>;

/// A fine mesh agglomerated by nested bisection into n elements.
struct Agglomerated {
  Mesh mesh;
  Connectivity connectivity;
  PolyMesh poly;
};
Agglomerated agglomerated(Mesh mesh, index_t n, SubSimplices quadrature = SubSimplices::coarse) {
  Agglomerated a{std::move(mesh), {}, {}};
  a.connectivity = build_connectivity(a.mesh);
  const std::vector<Agglomeration> levels = agglomerate_bisection(a.mesh, a.connectivity, n);
  PolyMeshOptions options;
  options.quadrature = quadrature;
  a.poly = build_poly_mesh(a.mesh, a.connectivity, levels.front().agglomerate, options);
  return a;
}

Field pointwise(std::function<double(Point3)> f) {
  return [f](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = f(x[q]);
  };
}

template <class Real>
std::vector<double> solve(const AssembledSystem<Real>& system) {
  const std::vector<Real> rhs = system.rhs.to_host();
  const std::vector<Real> x = linalg::sparse_lu_solve(system.matrix, rhs);
  return std::vector<double>(x.begin(), x.end());
}

// ---- the basis ---------------------------------------------------------------------------------

template <int D>
void check_basis() {
  const Point3 lo{-0.3, 0.2, 1.0}, hi{0.9, 0.7, 1.6};
  const BoxMap box = box_map(lo, hi, D);
  const int p = 4, n = basis_size(p, D);
  const QuadratureRule rule = D == 2 ? quadrilateral_rule(2 * p) : hexahedron_rule(2 * p);
  const double l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
  std::vector<double> gram(n * n, 0.0);
  std::vector<double> phi(n), grad(D * n);
  for (int q = 0; q < rule.size(); ++q) {
    const double r[3] = {rule.points[q].x, rule.points[q].y, rule.points[q].z};
    double c[3] = {0, 0, 0}, jacobian = 1;
    for (int k = 0; k < D; ++k) {
      c[k] = l[k] + 0.5 * (r[k] + 1) * (h[k] - l[k]);
      jacobian *= 0.5 * (h[k] - l[k]);
    }
    evaluate_basis<D>(box, p, {c[0], c[1], c[2]}, phi.data(), nullptr);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) gram[i * n + j] += rule.weights[q] * jacobian * phi[i] * phi[j];
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) EXPECT_NEAR(gram[i * n + j], i == j ? 1.0 : 0.0, 1e-12) << D << "D (" << i << ", " << j << ")";

  // hierarchical: degree 2's functions are degree 4's first ones; gradients by central differences
  const Point3 x{0.1, 0.4, 1.3};
  std::vector<double> low(basis_size(2, D)), plus(n), minus(n);
  evaluate_basis<D>(box, p, x, phi.data(), grad.data());
  evaluate_basis<D>(box, 2, x, low.data(), nullptr);
  for (int i = 0; i < basis_size(2, D); ++i) EXPECT_DOUBLE_EQ(low[i], phi[i]);
  const double step = 1e-6;
  for (int k = 0; k < D; ++k) {
    Point3 xp = x, xm = x;
    (k == 0 ? xp.x : k == 1 ? xp.y : xp.z) += step;
    (k == 0 ? xm.x : k == 1 ? xm.y : xm.z) -= step;
    evaluate_basis<D>(box, p, xp, plus.data(), nullptr);
    evaluate_basis<D>(box, p, xm, minus.data(), nullptr);
    for (int i = 0; i < n; ++i) EXPECT_NEAR(grad[D * i + k], (plus[i] - minus[i]) / (2 * step), 1e-6 * (1 + std::abs(grad[D * i + k])));
  }
  // total degree: the function of multi-index (0, p) (2D) is the last of degree p, a polynomial of y alone
  EXPECT_EQ(basis_size(p, D) - basis_size(p - 1, D), D == 2 ? p + 1 : (p + 1) * (p + 2) / 2);
}

TEST(PolyBasis, OrthonormalOnTheBoxHierarchicalAndDifferentiated) {
  check_basis<2>();
  check_basis<3>();
}

// ---- problems ----------------------------------------------------------------------------------

/// Constant a, b, c and u a polynomial of total degree 2 (2D or 3D): f = -div(a grad u) + b . grad u + c u.
struct QuadraticProblem {
  int D;
  double a[9] = {2.0, 0.5, 0.2, 0.5, 1.0, 0.1, 0.2, 0.1, 1.5};
  double b[3] = {1.0, -2.0, 0.5};
  double c = 0.5;
  bool advection = true;
  // u = 1 + x - 2y + 0.5z + 3xy - x^2 + 0.5y^2 + yz - 0.7z^2
  double u(Point3 p) const {
    double v = 1 + p.x - 2 * p.y + 3 * p.x * p.y - p.x * p.x + 0.5 * p.y * p.y;
    if (D == 3) v += 0.5 * p.z + p.y * p.z - 0.7 * p.z * p.z;
    return v;
  }
  std::array<double, 3> grad(Point3 p) const {
    std::array<double, 3> g{1 + 3 * p.y - 2 * p.x, -2 + 3 * p.x + p.y, 0};
    if (D == 3) {
      g[1] += p.z;
      g[2] = 0.5 + p.y - 1.4 * p.z;
    }
    return g;
  }
  // the constant Hessian
  double hessian(int r, int s) const {
    const double h2[3][3] = {{-2, 3, 0}, {3, 1, 0}, {0, 0, 0}};
    const double h3[3][3] = {{-2, 3, 0}, {3, 1, 1}, {0, 1, -1.4}};
    return D == 2 ? h2[r][s] : h3[r][s];
  }
  double f(Point3 p) const {
    double v = c * u(p);
    for (int r = 0; r < D; ++r)
      for (int s = 0; s < D; ++s) v -= a[3 * r + s] * hessian(r, s);
    const auto g = grad(p);
    if (advection)
      for (int r = 0; r < D; ++r) v += b[r] * g[r];
    return v;
  }
  Coefficients coefficients(const PolyMesh& mesh, const std::vector<std::string>& neumann_tags = {}) const {
    Coefficients co;
    co.dimension = D;
    std::array<double, 9> am{};
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s) am[3 * r + s] = a[3 * r + s];
    co.constant_diffusion = am;
    co.constant_advection = advection ? std::array<double, 3>{b[0], b[1], b[2]} : std::array<double, 3>{0, 0, 0};
    co.constant_reaction = c;
    co.source = pointwise([this](Point3 p) { return f(p); });
    co.dirichlet = pointwise([this](Point3 p) { return u(p); });
    co.neumann = [this](std::span<const Point3> x, std::span<const Point3> n, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q) {
        const auto g = grad(x[q]);
        const double nv[3] = {n[q].x, n[q].y, n[q].z};
        double v = 0;
        for (int r = 0; r < D; ++r)
          for (int s = 0; s < D; ++s) v += nv[r] * a[3 * r + s] * g[s];
        out[q] = v;
      }
    };
    co.neumann_tag.assign(mesh.boundary_names.size(), false);
    for (std::size_t t = 0; t < mesh.boundary_names.size(); ++t)
      for (const auto& name : neumann_tags) co.neumann_tag[t] = co.neumann_tag[t] || mesh.boundary_names[t] == name;
    return co;
  }
  Field exact() const { return pointwise([this](Point3 p) { return u(p); }); }
  Field exact_gradient() const {
    return [this](std::span<const Point3> x, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q) {
        const auto g = grad(x[q]);
        for (int r = 0; r < D; ++r) out[D * q + r] = g[r];
      }
    };
  }
};

TEST(PolySipg, ReproducesPolynomialsOfItsDegree) {
  struct Case {
    int D;
    bool advection;
    std::vector<std::string> neumann;
    SubSimplices quadrature;
  };
  const std::vector<Case> cases = {
      {2, false, {}, SubSimplices::coarse},     {2, true, {}, SubSimplices::coarse},
      {2, true, {"right"}, SubSimplices::fine}, {2, false, {"top", "left"}, SubSimplices::coarse},
      {3, true, {}, SubSimplices::coarse},      {3, false, {"xmax"}, SubSimplices::fine},
  };
  for (const Case& c : cases) {
    const Agglomerated a = c.D == 2 ? agglomerated(rectangle_triangles(0, 2, 0, 1, 12, 6, TriangleLayout::perturbed, 0.2, 5), 20, c.quadrature)
                                    : agglomerated(box_tetrahedra(1, 1, 1, 3, 3, 3, 0.2, 2), 12, c.quadrature);
    QuadraticProblem problem{c.D};
    problem.advection = c.advection;
    for (int p : {2, 3}) {
      SipgOptions options;
      options.degree = p;
      const SipgDiscretisation sipg(a.poly, problem.coefficients(a.poly, c.neumann), options, Backend::cpu);
      const AssembledSystem<double> system = sipg.assemble<double>(AssemblyMethod::deterministic);
      const std::vector<double> x = solve(system);
      const SipgErrors e = sipg.errors(x, problem.exact(), problem.exact_gradient());
      EXPECT_LT(e.l2, 1e-9) << c.D << "D p = " << p << (c.advection ? " with advection" : "") << ", "
                            << c.neumann.size() << " Neumann tags";
      EXPECT_LT(e.dg, 1e-7) << c.D << "D p = " << p;
    }
  }
}

/// A problem with variable coefficients everywhere (for comparing assemblies).
Coefficients variable_coefficients(const PolyMesh& mesh) {
  Coefficients co;
  co.dimension = 2;
  co.diffusion = [](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) {
      out[4 * q + 0] = 1 + x[q].x * x[q].x;
      out[4 * q + 1] = out[4 * q + 2] = 0.2 * x[q].y;
      out[4 * q + 3] = 1.5 + std::sin(x[q].x);
    }
  };
  co.advection = [](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) {
      out[2 * q] = 1 + x[q].y;
      out[2 * q + 1] = -0.5 + x[q].x * x[q].y;
    }
  };
  co.reaction = pointwise([](Point3 p) { return 1 + p.y; });
  co.source = pointwise([](Point3 p) { return std::cos(p.x + 2 * p.y); });
  co.dirichlet = pointwise([](Point3 p) { return p.x * p.y; });
  co.neumann = [](std::span<const Point3> x, std::span<const Point3>, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = x[q].x;
  };
  co.neumann_tag.assign(mesh.boundary_names.size(), false);
  co.neumann_tag[1] = true;
  return co;
}

template <class Real>
void expect_same_matrix(const AssembledSystem<Real>& a, const AssembledSystem<Real>& b, double tolerance, const char* what) {
  ASSERT_EQ(a.matrix.rows, b.matrix.rows) << what;
  ASSERT_EQ(a.matrix.nonzeros(), b.matrix.nonzeros()) << what;
  EXPECT_EQ(a.matrix.row_start.to_host(), b.matrix.row_start.to_host()) << what;
  EXPECT_EQ(a.matrix.column.to_host(), b.matrix.column.to_host()) << what;
  const std::vector<Real> va = a.matrix.value.to_host(), vb = b.matrix.value.to_host();
  double scale = 0, worst = 0;
  for (Real v : va) scale = std::max(scale, std::abs(static_cast<double>(v)));
  for (std::size_t i = 0; i < va.size(); ++i) worst = std::max(worst, std::abs(static_cast<double>(va[i]) - vb[i]));
  EXPECT_LE(worst, tolerance * scale) << what;
  EXPECT_EQ(a.rhs.to_host(), b.rhs.to_host()) << what;
}

template <class Real>
void compare_assemblies(double tolerance) {
  const Agglomerated a = agglomerated(rectangle_triangles(0, 2, 0, 1, 16, 8, TriangleLayout::perturbed, 0.2, 9), 40);
  // variable degrees 1..3
  SipgOptions options;
  std::mt19937 random(4);
  for (index_t e = 0; e < a.poly.n_elements(); ++e) options.degrees.push_back(1 + static_cast<int>(random() % 3));
  const SipgDiscretisation sipg(a.poly, variable_coefficients(a.poly), options, Backend::cpu);
  EXPECT_FALSE(sipg.symmetric());
  const AssembledSystem<Real> deterministic = sipg.template assemble<Real>(AssemblyMethod::deterministic);
  const AssembledSystem<Real> again = sipg.template assemble<Real>(AssemblyMethod::deterministic);
  const AssembledSystem<Real> coo = sipg.template assemble<Real>(AssemblyMethod::coo);
  const AssembledSystem<Real> atomic = sipg.template assemble<Real>(AssemblyMethod::atomic);
  expect_same_matrix(deterministic, again, 0.0, "deterministic twice");
  EXPECT_EQ(deterministic.matrix.value.to_host(), again.matrix.value.to_host());
  expect_same_matrix(deterministic, coo, tolerance, "deterministic against coo");
  expect_same_matrix(deterministic, atomic, tolerance, "deterministic against atomic");
  EXPECT_GT(coo.times.coo_entries, deterministic.matrix.nonzeros());
  // the system has a unique solution, equal whichever way it was assembled
  const std::vector<double> x1 = solve(deterministic), x2 = solve(coo);
  for (std::size_t i = 0; i < x1.size(); ++i) EXPECT_NEAR(x1[i], x2[i], 1e3 * tolerance * (1 + std::abs(x1[i])));
}

TEST(PolySipg, ThreeAssembliesGiveTheSameMatrix) {
  compare_assemblies<double>(1e-13);
  compare_assemblies<float>(1e-5);
}

TEST(PolySipg, PoissonMatrixIsSymmetricAndCgSolvesIt) {
  const Agglomerated a = agglomerated(rectangle_triangles(0, 1, 0, 1, 16, 16, TriangleLayout::perturbed, 0.2, 3), 64);
  QuadraticProblem problem{2};
  problem.advection = false;
  problem.c = 0;
  SipgOptions options;
  options.degree = 2;
  const SipgDiscretisation sipg(a.poly, problem.coefficients(a.poly), options, Backend::cpu);
  EXPECT_TRUE(sipg.symmetric());
  const AssembledSystem<double> system = sipg.assemble<double>(AssemblyMethod::deterministic);
  const std::vector<double> dense = linalg::to_dense(system.matrix);
  const index_t n = system.matrix.rows;
  double scale = 0, asymmetry = 0;
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) {
      scale = std::max(scale, std::abs(dense[i * n + j]));
      asymmetry = std::max(asymmetry, std::abs(dense[i * n + j] - dense[j * n + i]));
    }
  EXPECT_LE(asymmetry, 1e-13 * scale);
  const linalg::BlockJacobi<double> jacobi(system.matrix, sipg.dof_start());
  Array<double> x(Space::host, n);
  linalg::fill<double>(Backend::cpu, 0, x.view());
  linalg::KrylovOptions krylov;
  krylov.relative_tolerance = 1e-12;
  const linalg::SolveResult result = linalg::cg<double>(Backend::cpu, system.matrix, system.rhs.view(), x.view(), jacobi, krylov);
  EXPECT_TRUE(result.converged) << linalg::describe(result);
  const std::vector<double> direct = solve(system), iterative = x.to_host();
  for (index_t i = 0; i < n; ++i) EXPECT_NEAR(iterative[i], direct[i], 1e-8 * (1 + std::abs(direct[i])));
}

TEST(PolySipg, PoissonConvergesAtTheTheoreticalRates) {
  // u = sin(pi x) sin(pi y) on the unit square, 96 x 96 x 2 perturbed triangles agglomerated into 36,
  // 144 and 576 elements (nested bisection: h halves with each step; 32 triangles per element at the finest)
  const double pi = std::acos(-1.0);
  Coefficients co;
  co.dimension = 2;
  co.constant_diffusion = std::array<double, 9>{1, 0, 0, 0, 1, 0, 0, 0, 1};
  co.constant_advection = std::array<double, 3>{0, 0, 0};
  co.constant_reaction = 0.0;
  co.source = pointwise([pi](Point3 p) { return 2 * pi * pi * std::sin(pi * p.x) * std::sin(pi * p.y); });
  co.dirichlet = pointwise([](Point3) { return 0.0; });
  const Field exact = pointwise([pi](Point3 p) { return std::sin(pi * p.x) * std::sin(pi * p.y); });
  const Field gradient = [pi](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) {
      out[2 * q] = pi * std::cos(pi * x[q].x) * std::sin(pi * x[q].y);
      out[2 * q + 1] = pi * std::sin(pi * x[q].x) * std::cos(pi * x[q].y);
    }
  };
  const Mesh fine = rectangle_triangles(0, 1, 0, 1, 96, 96, TriangleLayout::perturbed, 0.2, 11);
  std::vector<Agglomerated> meshes;
  for (index_t n : {36, 144, 576}) meshes.push_back(agglomerated(fine, n));
  for (int p = 1; p <= 3; ++p) {
    std::vector<SipgErrors> errors;
    for (const Agglomerated& a : meshes) {
      co.neumann_tag.assign(a.poly.boundary_names.size(), false);
      SipgOptions options;
      options.degree = p;
      const SipgDiscretisation sipg(a.poly, co, options, Backend::cpu);
      errors.push_back(sipg.errors(solve(sipg.assemble<double>(AssemblyMethod::deterministic)), exact, gradient));
    }
    const double l2_rate = std::log2(errors[1].l2 / errors[2].l2), dg_rate = std::log2(errors[1].dg / errors[2].dg);
    EXPECT_GE(l2_rate, p + 1 - 0.3) << "p = " << p << ": L2 errors " << errors[0].l2 << " " << errors[1].l2 << " " << errors[2].l2;
    EXPECT_GE(dg_rate, p - 0.3) << "p = " << p << ": DG errors " << errors[0].dg << " " << errors[1].dg << " " << errors[2].dg;
  }
}

TEST(PolySipg, BadOptionsAreRefusedWithAClearMessage) {
  const Agglomerated a = agglomerated(rectangle_triangles(0, 1, 0, 1, 4, 4), 4);
  QuadraticProblem problem{2};
  const Coefficients co = problem.coefficients(a.poly);
  const auto message = [&](SipgOptions options, Coefficients c) -> std::string {
    try {
      SipgDiscretisation sipg(a.poly, c, options, Backend::cpu);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  SipgOptions options;
  options.degree = 0;
  EXPECT_NE(message(options, co).find("degree 0"), std::string::npos);
  options.degree = max_degree + 1;
  EXPECT_NE(message(options, co).find("1 to"), std::string::npos);
  options = {};
  options.degrees = {1, 2};
  EXPECT_NE(message(options, co).find("2 degrees for 4 elements"), std::string::npos);
  options = {};
  options.penalty = -1;
  EXPECT_NE(message(options, co).find("penalty"), std::string::npos);
  Coefficients three = co;
  three.dimension = 3;
  EXPECT_NE(message({}, three).find("3D"), std::string::npos);
  Coefficients neumann_without_data = co;
  neumann_without_data.neumann = nullptr;
  neumann_without_data.neumann_tag[0] = true;
  EXPECT_NE(message({}, neumann_without_data).find("Neumann"), std::string::npos);
}

}  // namespace

namespace {

TEST(PolySipg, PureAdvectionConvergesWithUpwinding) {
  // a = 0, b = (1, 0.5), c = 1, u = sin(2x + y) + x on the unit square; Dirichlet data on every tag
  // (taken on the inflow part only: with a = 0 the outflow part carries no term). An upwind sign
  // error leaves polynomials reproduced but destroys convergence.
  Coefficients co;
  co.dimension = 2;
  co.constant_diffusion = std::array<double, 9>{};
  co.constant_advection = std::array<double, 3>{1, 0.5, 0};
  co.constant_reaction = 1.0;
  const auto u = [](Point3 p) { return std::sin(2 * p.x + p.y) + p.x; };
  co.source = pointwise([u](Point3 p) { return 2 * std::cos(2 * p.x + p.y) + 1 + 0.5 * std::cos(2 * p.x + p.y) + u(p); });
  co.dirichlet = pointwise(u);
  const Field gradient = [](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) {
      out[2 * q] = 2 * std::cos(2 * x[q].x + x[q].y) + 1;
      out[2 * q + 1] = std::cos(2 * x[q].x + x[q].y);
    }
  };
  const Mesh fine = rectangle_triangles(0, 1, 0, 1, 64, 64, TriangleLayout::perturbed, 0.2, 13);
  std::vector<Agglomerated> meshes;
  for (index_t n : {64, 256, 1024}) meshes.push_back(agglomerated(fine, n));
  for (int p = 1; p <= 2; ++p) {
    std::vector<double> l2;
    for (const Agglomerated& a : meshes) {
      co.neumann_tag.assign(a.poly.boundary_names.size(), false);
      SipgOptions options;
      options.degree = p;
      const SipgDiscretisation sipg(a.poly, co, options, Backend::cpu);
      EXPECT_FALSE(sipg.symmetric());
      l2.push_back(sipg.errors(solve(sipg.assemble<double>(AssemblyMethod::deterministic)), pointwise(u), gradient).l2);
    }
    const double rate = std::log2(l2[1] / l2[2]);
    EXPECT_GE(rate, p + 0.5 - 0.2) << "p = " << p << ": L2 errors " << l2[0] << " " << l2[1] << " " << l2[2];
  }
}

}  // namespace
