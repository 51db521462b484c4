// The polytopic SIPG assembly on the device (poly/sipg.hpp): for every degree 1..max_degree (2D)
// and 1..4 (3D), with variable degrees and variable coefficients, the device's matrix and right-hand
// side equal the host's (the same pattern, values to rounding: the device contracts to FMAs); the
// deterministic assembly gives the same bits twice on the device; Approach 1 (coordinate list) and
// the atomic Approach 2 equal it to rounding, in double and in single precision; GMRES with block
// Jacobi on the device reaches the host's direct solution; space-time slab systems (issue 19) equal the host's.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <vector>

#include "flowdg/linalg/direct.hpp"
#include "flowdg/linalg/krylov.hpp"
#include "flowdg/linalg/preconditioner.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/poly/agglomerate.hpp"
#include "flowdg/poly/poly_mesh.hpp"
#include "flowdg/poly/sipg.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;
using namespace flowdg::poly;

namespace {

struct Agglomerated {
  Mesh mesh;
  Connectivity connectivity;
  PolyMesh poly;
};

Agglomerated agglomerated(Mesh mesh, index_t n) {
  Agglomerated a{std::move(mesh), {}, {}};
  a.connectivity = build_connectivity(a.mesh);
  a.poly = build_poly_mesh(a.mesh, a.connectivity, agglomerate_bisection(a.mesh, a.connectivity, n).front().agglomerate);
  return a;
}

Coefficients variable_coefficients(const PolyMesh& mesh) {
  const int d = mesh.dimension;
  Coefficients co;
  co.dimension = d;
  co.diffusion = [d](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) {
      double* a = out + d * d * q;
      for (int r = 0; r < d * d; ++r) a[r] = 0;
      for (int r = 0; r < d; ++r) a[r * d + r] = 1 + 0.5 * std::sin(x[q].x + r);
      a[1] = a[d] = 0.1 * x[q].y;
    }
  };
  co.advection = [d](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q)
      for (int r = 0; r < d; ++r) out[d * q + r] = (r == 0 ? 1.0 : -0.5) + 0.3 * x[q].y * x[q].x;
  };
  const auto pointwise = [](auto f) {
    return [f](std::span<const Point3> x, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q) out[q] = f(x[q]);
    };
  };
  co.reaction = pointwise([](Point3 p) { return 1 + p.y * p.y; });
  co.source = pointwise([](Point3 p) { return std::cos(p.x + 2 * p.y) + p.z; });
  co.dirichlet = pointwise([](Point3 p) { return p.x * p.y - p.z; });
  co.neumann = [](std::span<const Point3> x, std::span<const Point3> n, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = x[q].x * n[q].x;
  };
  co.neumann_tag.assign(mesh.boundary_names.size(), false);
  co.neumann_tag[1] = true;
  return co;
}

template <class Real>
double largest(const std::vector<Real>& v) {
  double m = 0;
  for (Real x : v) m = std::max(m, std::abs(static_cast<double>(x)));
  return m;
}

template <class Real>
void expect_close(const AssembledSystem<Real>& a, const AssembledSystem<Real>& b, double tolerance, const std::string& what) {
  ASSERT_EQ(a.matrix.nonzeros(), b.matrix.nonzeros()) << what;
  EXPECT_EQ(a.matrix.row_start.to_host(), b.matrix.row_start.to_host()) << what;
  EXPECT_EQ(a.matrix.column.to_host(), b.matrix.column.to_host()) << what;
  const std::vector<Real> va = a.matrix.value.to_host(), vb = b.matrix.value.to_host();
  const double scale = largest(va);
  double worst = 0;
  for (std::size_t i = 0; i < va.size(); ++i) worst = std::max(worst, std::abs(static_cast<double>(va[i]) - vb[i]));
  EXPECT_LE(worst, tolerance * scale) << what << ": largest difference " << worst << " of " << scale;
  const std::vector<Real> ra = a.rhs.to_host(), rb = b.rhs.to_host();
  const double rscale = largest(ra);
  double rworst = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) rworst = std::max(rworst, std::abs(static_cast<double>(ra[i]) - rb[i]));
  EXPECT_LE(rworst, tolerance * rscale) << what << " (right-hand side)";
}

template <class Real>
void check(const PolyMesh& poly, const SipgOptions& options, double tolerance, const std::string& what) {
  const Coefficients co = variable_coefficients(poly);
  const SipgDiscretisation host(poly, co, options, Backend::cpu), device(poly, co, options, Backend::cuda);
  const AssembledSystem<Real> reference = host.assemble<Real>(AssemblyMethod::deterministic);
  const AssembledSystem<Real> deterministic = device.assemble<Real>(AssemblyMethod::deterministic);
  const AssembledSystem<Real> again = device.assemble<Real>(AssemblyMethod::deterministic);
  EXPECT_EQ(deterministic.matrix.value.to_host(), again.matrix.value.to_host()) << what << ": deterministic twice";
  EXPECT_EQ(deterministic.rhs.to_host(), again.rhs.to_host()) << what;
  expect_close(reference, deterministic, tolerance, what + ", device against host");
  SipgOptions by_block = options;  // the block reduction one thread per block: the same bits
  by_block.reduction = SipgOptions::Reduction::per_block;
  const SipgDiscretisation device_by_block(poly, co, by_block, Backend::cuda);
  EXPECT_EQ(device_by_block.assemble<Real>(AssemblyMethod::deterministic).matrix.value.to_host(), deterministic.matrix.value.to_host())
      << what << ": per-entry and per-block reductions";
  expect_close(deterministic, device.assemble<Real>(AssemblyMethod::coo), tolerance, what + ", coo against deterministic");
  expect_close(deterministic, device.assemble<Real>(AssemblyMethod::atomic), tolerance, what + ", atomic against deterministic");
}

TEST(SipgGpu, DeviceAssemblyEqualsTheHostsEveryDegreeAndWay) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const Agglomerated two = agglomerated(rectangle_triangles(0, 2, 0, 1, 24, 12, TriangleLayout::perturbed, 0.2, 3), 60);
  const Agglomerated three = agglomerated(box_tetrahedra(1, 1, 1, 4, 4, 4, 0.2, 5), 24);
  for (int p = 1; p <= max_degree; ++p) {
    SipgOptions options;
    options.degree = p;
    check<double>(two.poly, options, 1e-12, "2D p = " + std::to_string(p));
    if (p <= 4) check<double>(three.poly, options, 1e-12, "3D p = " + std::to_string(p));
  }
  SipgOptions variable;
  std::mt19937 random(7);
  for (index_t e = 0; e < two.poly.n_elements(); ++e) variable.degrees.push_back(1 + static_cast<int>(random() % 4));
  check<double>(two.poly, variable, 1e-12, "2D variable degrees");
  check<float>(two.poly, variable, 2e-5, "2D variable degrees, single precision");
}

TEST(SipgGpu, GmresWithBlockJacobiOnTheDeviceReachesTheDirectSolution) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const Agglomerated a = agglomerated(rectangle_triangles(0, 2, 0, 1, 32, 16, TriangleLayout::perturbed, 0.2, 9), 128);
  SipgOptions options;
  options.degree = 3;
  const Coefficients co = variable_coefficients(a.poly);
  const SipgDiscretisation host(a.poly, co, options, Backend::cpu), device(a.poly, co, options, Backend::cuda);
  const AssembledSystem<double> h = host.assemble<double>(AssemblyMethod::deterministic);
  const std::vector<double> direct = linalg::sparse_lu_solve(h.matrix, h.rhs.to_host());
  const AssembledSystem<double> d = device.assemble<double>(AssemblyMethod::deterministic);
  const linalg::BlockJacobi<double> jacobi(d.matrix, device.dof_start(), Space::device);
  // both orthogonalisations: classical Gram-Schmidt twice (fused device reductions; the default on
  // the device) and modified
  int iterations[2] = {0, 0};
  for (const auto way : {linalg::KrylovOptions::Orthogonalization::classical_twice, linalg::KrylovOptions::Orthogonalization::modified}) {
    Array<double> x(Space::device, d.matrix.rows);
    linalg::fill<double>(Backend::cuda, 0, x.view());
    linalg::KrylovOptions krylov;
    krylov.relative_tolerance = 1e-12;
    krylov.restart = 100;  // non-symmetric, variable coefficients, p = 3: GMRES(50) needs about 1,500 iterations
    krylov.max_iterations = 5000;
    krylov.orthogonalization = way;
    const linalg::SolveResult result = linalg::gmres<double>(Backend::cuda, d.matrix, d.rhs.view(), x.view(), jacobi, krylov);
    ASSERT_TRUE(result.converged) << linalg::describe(result);
    std::printf("%s (%s Gram-Schmidt)\n", linalg::describe(result).c_str(),
                way == linalg::KrylovOptions::Orthogonalization::modified ? "modified" : "classical twice");
    iterations[way == linalg::KrylovOptions::Orthogonalization::modified ? 1 : 0] = result.iterations;
    const std::vector<double> solution = x.to_host();
    const double scale = largest(direct);
    for (std::size_t i = 0; i < direct.size(); ++i) EXPECT_NEAR(solution[i], direct[i], 1e-8 * scale);
  }
  EXPECT_LE(std::abs(iterations[0] - iterations[1]), 2 + iterations[1] / 20);
  // the fused reductions against the host's: 37 vectors of the matrix's rows
  const index_t n = d.matrix.rows;
  const int count = 37;
  std::vector<double> basis(static_cast<std::size_t>(n * count)), w(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < basis.size(); ++i) basis[i] = std::sin(0.37 * static_cast<double>(i)) + 1e-3 * static_cast<double>(i % 11);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::cos(0.11 * static_cast<double>(i));
  const Array<double> basis_device(Space::device, basis), w_device(Space::device, w);
  std::vector<double> on_device(count), on_host(count);
  linalg::multi_dot<double>(Backend::cuda, basis_device.data(), n, count, w_device.view(), on_device.data());
  linalg::multi_dot<double>(Backend::cpu, basis.data(), n, count, View<const double>{w.data(), n}, on_host.data());
  std::vector<double> again(count);
  linalg::multi_dot<double>(Backend::cuda, basis_device.data(), n, count, w_device.view(), again.data());
  EXPECT_EQ(on_device, again) << "multi_dot twice";
  for (int k = 0; k < count; ++k) EXPECT_NEAR(on_device[static_cast<std::size_t>(k)], on_host[static_cast<std::size_t>(k)], 1e-12 * n) << k;
  const Array<double> h_device(Space::device, on_host);
  Array<double> w_after(Space::device, w);
  linalg::multi_axpy<double>(Backend::cuda, basis_device.data(), n, count, h_device.view(), w_after.view());
  std::vector<double> w_host = w;
  linalg::multi_axpy<double>(Backend::cpu, basis.data(), n, count, View<const double>{on_host.data(), count}, View<double>{w_host.data(), n});
  const std::vector<double> w_back = w_after.to_host();
  for (std::size_t i = 0; i < w_host.size(); ++i) EXPECT_NEAR(w_back[i], w_host[i], 1e-12 * (1 + std::abs(w_host[i]))) << i;
}


// Space-time slabs (issue 19) on the device: for 2D p = 1..4 and 3D p = 1..3, both spaces, with
// coefficients that vary in space and time, the slab system (time derivative, time jump, lateral
// faces) and the right-hand side with the previous slab's trace equal the host's; the top trace
// kernel gives the host's values (the next slab's right-hand side agrees); the deterministic
// assembly gives the same bits twice, and the right-hand side alone equals the full assembly's.
TEST(SipgGpu, SpaceTimeSlabsOnTheDeviceEqualTheHosts) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const Agglomerated two = agglomerated(rectangle_triangles(0, 2, 0, 1, 16, 8, TriangleLayout::perturbed, 0.2, 3), 30);
  const Agglomerated three = agglomerated(box_tetrahedra(1, 1, 1, 3, 3, 3, 0.2, 5), 12);
  for (const Agglomerated* a : {&two, &three}) {
    const int d = a->poly.dimension;
    const Coefficients base = variable_coefficients(a->poly);
    const CoefficientsAt at = [base, d](double t) {
      Coefficients co = base;
      const auto diffusion = base.diffusion;
      co.diffusion = [diffusion, t, d](std::span<const Point3> x, double* out) {
        diffusion(x, out);
        for (std::size_t i = 0; i < x.size() * static_cast<std::size_t>(d * d); ++i) out[i] *= 1 + 0.3 * std::sin(3 * t);
      };
      const auto source = base.source;
      co.source = [source, t](std::span<const Point3> x, double* out) {
        source(x, out);
        for (std::size_t i = 0; i < x.size(); ++i) out[i] *= std::cos(t);
      };
      return co;
    };
    const auto initial = [](std::span<const Point3> x, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q) out[q] = std::sin(x[q].x) * std::cos(x[q].y) + x[q].z;
    };
    for (int p = 1; p <= max_space_time_degree(d); ++p)
      for (const LocalSpace space : {LocalSpace::reduced, LocalSpace::full}) {
        const std::string what = std::to_string(d) + "D p = " + std::to_string(p) + " " + local_space_name(space);
        SipgOptions options;
        options.degree = p;
        options.space = space;
        SipgDiscretisation host(a->poly, at(0), options, Backend::cpu), device(a->poly, at(0), options, Backend::cuda);
        for (SipgDiscretisation* st : {&host, &device}) {
          st->set_initial_trace(initial);
          st->set_slab(0.2, 0.05, at);
        }
        const AssembledSystem<double> h = host.assemble<double>(AssemblyMethod::deterministic);
        const AssembledSystem<double> g = device.assemble<double>(AssemblyMethod::deterministic);
        const AssembledSystem<double> again = device.assemble<double>(AssemblyMethod::deterministic);
        EXPECT_EQ(g.matrix.value.to_host(), again.matrix.value.to_host()) << what << ": deterministic twice";
        expect_close(h, g, 1e-12, what + ", device against host");
        expect_close(g, device.assemble<double>(AssemblyMethod::atomic), 1e-12, what + ", atomic against deterministic");
        EXPECT_EQ(device.assemble_rhs<double>().to_host(), g.rhs.to_host()) << what << ": the right-hand side alone";
        // the next slab from this one's solution: the top trace on each side, then the next system
        const std::vector<double> x = linalg::sparse_lu_solve(h.matrix, h.rhs.to_host());
        host.top_trace(Array<double>(Space::host, x), 0.05);
        device.top_trace(Array<double>(Space::device, x), 0.05);
        for (SipgDiscretisation* st : {&host, &device}) st->set_slab(0.25, 0.05, at);
        expect_close(host.assemble<double>(AssemblyMethod::deterministic), device.assemble<double>(AssemblyMethod::deterministic),
                     1e-12, what + ", the next slab");
      }
  }
}

}  // namespace
