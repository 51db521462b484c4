// Sum factorisation on collocated quadrilaterals (setup.hpp: SumFactorTables; the CUDA kernels in
// dg/factorised_kernels.hpp): the line sums the kernels take, written out here on the host with the
// tables, must equal the dense sums over the group's own basis tables for random data — the values
// and reference derivatives at the points, the traces at the face points (from the values, the
// lifting kernel's way, and from the coefficients, the face kernel's), the volume term's moments,
// and M^-1 r at the points (w_k (V r)_k with det J = 1: the volume, face and given-moment parts),
// and V^T back to the modes. A transposed table, a wrong face line or end, a missing weight or a
// wrong mode order moves them by O(1). Groups without the layout get no tables.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <random>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/factorised.hpp"
#include "flowdg/dg/setup.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/elevate.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/physics/navier_stokes/navier_stokes.hpp"

using namespace flowdg;

namespace {

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double size = 0, difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    size = std::max(size, std::abs(a[i]));
    difference = std::max(difference, std::abs(a[i] - b[i]));
  }
  return size > 0 ? difference / size : difference;
}

}  // namespace

/// The tests' mesh (a perturbed 4 x 3 rectangle of bilinear quadrilaterals: one collocated group)
/// and, at an order, its set-up and sum-factorisation tables.
class SumFactor : public ::testing::Test {
 protected:
  struct AtOrder {
    dg::Setup setup;
    dg::SumFactorTables tables;
    const dg::ElementGroupSetup& group() const { return setup.element_groups.at(0); }
  };
  AtOrder at_order(int order) const {
    AtOrder out{dg::build_setup(mesh, connectivity, order), {}};
    out.tables = dg::sum_factor_tables(out.group(), Shape::quadrilateral, order, out.setup.n_face_points());
    return out;
  }
  const Mesh mesh = rectangle_quadrilaterals(0, 2, 0, 1, 4, 3, 0.2);
  const Connectivity connectivity = build_connectivity(mesh);
};

TEST_F(SumFactor, LineSumsEqualTheDenseSumsOnBilinearQuadrilaterals) {
  std::mt19937 generator(7);
  std::uniform_real_distribution<double> random(-1.0, 1.0);
  for (int order = 1; order <= 6; ++order) {
    const AtOrder tables_at = at_order(order);
    ASSERT_EQ(tables_at.setup.element_groups.size(), 1u);
    const dg::ElementGroupSetup& group = tables_at.group();
    ASSERT_TRUE(group.collocated);
    const dg::SumFactorTables& t = tables_at.tables;
    ASSERT_EQ(t.n, order + 1) << "p = " << order;
    const int n = t.n, Np = n * n;
    const auto L = [&](int a, int i) { return t.L[a * n + i]; };
    const auto dL = [&](int a, int i) { return t.dL[a * n + i]; };
    const auto phi = [&](int k, int j) { return group.volume_phi[static_cast<std::size_t>(k) * Np + j]; };
    const auto dphi = [&](int k, int r, int j) { return group.volume_dphi[(static_cast<std::size_t>(k) * 2 + r) * Np + j]; };
    std::vector<double> c(Np), F0(Np), F1(Np), g(4 * n), rv(Np);
    for (double* x : {c.data(), F0.data(), F1.data(), rv.data()})
      for (int i = 0; i < Np; ++i) x[i] = random(generator);
    for (double& x : g) x = random(generator);

    // Values and reference derivatives at the points (the lifting kernel's B1, B2).
    std::vector<double> U(Np), Ux(Np), Uy(Np), dense_U(Np, 0.0), dense_Ux(Np, 0.0), dense_Uy(Np, 0.0);
    for (int k = 0; k < Np; ++k)
      for (int j = 0; j < Np; ++j) {
        dense_U[k] += phi(k, j) * c[j];
        dense_Ux[k] += dphi(k, 0, j) * c[j];
        dense_Uy[k] += dphi(k, 1, j) * c[j];
      }
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        double u = 0, ux = 0, uy = 0;
        for (int j = 0; j < n; ++j) {
          double T = 0, dT = 0;
          for (int i = 0; i < n; ++i) {
            T += L(a, i) * c[quadrilateral_mode(i, j)];
            dT += dL(a, i) * c[quadrilateral_mode(i, j)];
          }
          u += L(b, j) * T;
          ux += L(b, j) * dT;
          uy += dL(b, j) * T;
        }
        U[a + n * b] = u;
        Ux[a + n * b] = ux;
        Uy[a + n * b] = uy;
      }
    EXPECT_LT(relative_difference(dense_U, U), 1e-13) << "p = " << order;
    EXPECT_LT(relative_difference(dense_Ux, Ux), 1e-13) << "p = " << order;
    EXPECT_LT(relative_difference(dense_Uy, Uy), 1e-13) << "p = " << order;

    // Traces at the face points along each face's line (the lifting kernel's D).
    std::vector<double> trace(4 * n), dense_trace(4 * n, 0.0);
    for (int l = 0; l < 4; ++l)
      for (int q = 0; q < n; ++q) {
        for (int j = 0; j < Np; ++j) dense_trace[l * n + q] += group.face_phi[(static_cast<std::size_t>(l) * n + q) * Np + j] * c[j];
        const int s = l < 2 ? q : n - 1 - q, side = l == 1 || l == 2 ? 1 : 0;
        const int first = l % 2 == 0 ? s : n * s, stride = l % 2 == 0 ? n : 1;
        double sum = 0;
        for (int m = 0; m < n; ++m) sum += t.edge[side * n + m] * U[first + m * stride];
        trace[l * n + q] = sum;
      }
    EXPECT_LT(relative_difference(dense_trace, trace), 1e-13) << "p = " << order;
    // The same traces from the coefficients (the face kernel): across the face with the Legendre
    // ends, then along it.
    std::vector<double> face_trace(4 * n);
    for (int l = 0; l < 4; ++l)
      for (int q = 0; q < n; ++q) {
        const int s = l < 2 ? q : n - 1 - q, end = l == 1 || l == 2 ? 1 : 0;
        double sum = 0;
        for (int a = 0; a < n; ++a) {
          double g_a = 0;
          for (int b = 0; b < n; ++b) g_a += t.ends[end * n + b] * c[l % 2 == 0 ? quadrilateral_mode(a, b) : quadrilateral_mode(b, a)];
          sum += L(s, a) * g_a;
        }
        face_trace[l * n + q] = sum;
      }
    EXPECT_LT(relative_difference(dense_trace, face_trace), 1e-13) << "p = " << order;

    // The volume term's moments sum_k F_r(k) d_r phi_j(k) (the lifting kernel's E1, E2).
    std::vector<double> volume(Np, 0.0), dense_volume(Np, 0.0);
    for (int j = 0; j < Np; ++j)
      for (int k = 0; k < Np; ++k) dense_volume[j] += F0[k] * dphi(k, 0, j) + F1[k] * dphi(k, 1, j);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int b = 0; b < n; ++b) {
          double X = 0, Y = 0;
          for (int a = 0; a < n; ++a) {
            X += dL(a, i) * F0[a + n * b];
            Y += L(a, i) * F1[a + n * b];
          }
          sum += L(b, j) * X + dL(b, j) * Y;
        }
        volume[quadrilateral_mode(i, j)] = sum;
      }
    EXPECT_LT(relative_difference(dense_volume, volume), 1e-13) << "p = " << order;

    // w_k (V r)_k for r = the volume term + the face fluxes g at face_phi's points + given moments rv
    // (the element kernel's P1, P2, P4a, P4b with det J = 1), and V^T of it (P5).
    std::vector<double> r(Np, 0.0);
    for (int j = 0; j < Np; ++j) {
      r[j] = dense_volume[j] + rv[j];
      for (int lq = 0; lq < 4 * n; ++lq) r[j] += g[lq] * group.face_phi[static_cast<std::size_t>(lq) * Np + j];
    }
    std::vector<double> dense_R(Np, 0.0), R(Np, 0.0);
    for (int k = 0; k < Np; ++k) {
      for (int j = 0; j < Np; ++j) dense_R[k] += phi(k, j) * r[j];
      dense_R[k] *= group.volume_rule.weights[k];
    }
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        double sum = t.edge[n + a] * g[1 * n + b] + t.edge[a] * g[3 * n + n - 1 - b];  // P4a: faces 1, 3
        for (int m = 0; m < n; ++m) sum += t.Qw[a * n + m] * F0[m + n * b];
        sum += t.edge[b] * g[0 * n + a] + t.edge[n + b] * g[2 * n + n - 1 - a];  // P4b: faces 0, 2
        for (int m = 0; m < n; ++m) sum += t.Qw[b * n + m] * F1[a + n * m];
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) sum += t.Lw[b * n + j] * t.Lw[a * n + i] * rv[quadrilateral_mode(i, j)];
        R[a + n * b] = sum;
      }
    EXPECT_LT(relative_difference(dense_R, R), 1e-12) << "p = " << order;
    std::vector<double> modes(Np, 0.0), dense_modes(Np, 0.0);
    for (int j = 0; j < Np; ++j)
      for (int k = 0; k < Np; ++k) dense_modes[j] += phi(k, j) * dense_R[k];
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int b = 0; b < n; ++b) {
          double Z = 0;
          for (int a = 0; a < n; ++a) Z += L(a, i) * dense_R[a + n * b];
          sum += L(b, j) * Z;
        }
        modes[quadrilateral_mode(i, j)] = sum;
      }
    EXPECT_LT(relative_difference(dense_modes, modes), 1e-13) << "p = " << order;
    // And the round trip: V^T W V = I, so the modes of w (V r) are r.
    EXPECT_LT(relative_difference(r, dense_modes), 1e-12) << "p = " << order;
  }
}

TEST_F(SumFactor, GroupsWithoutTheLayoutGetNoTables) {
  // 9-node quadrilaterals (more points than modes), the stored inverse asked for, triangles.
  const Mesh bilinear = rectangle_quadrilaterals(0, 2, 0, 1, 4, 3, 0.2);
  const Mesh curved = elevate_order(bilinear, 2);
  const Mesh triangles = rectangle_triangles(0, 1, 0, 1, 4, 4, TriangleLayout::perturbed, 0.2, 3);
  for (int order = 1; order <= 3; ++order) {
    const dg::Setup a = dg::build_setup(curved, build_connectivity(curved), order);
    EXPECT_EQ(dg::sum_factor_tables(a.element_groups[0], Shape::quadrilateral, order, a.n_face_points()).n, 0);
    const dg::Setup b = dg::build_setup(bilinear, build_connectivity(bilinear), order, {}, false);
    EXPECT_EQ(dg::sum_factor_tables(b.element_groups[0], Shape::quadrilateral, order, b.n_face_points()).n, 0);
    const dg::Setup c = dg::build_setup(triangles, build_connectivity(triangles), order);
    EXPECT_EQ(dg::sum_factor_tables(c.element_groups[0], Shape::triangle, order, c.n_face_points()).n, 0);
    // The right group, the wrong order: the checks refuse it.
    const dg::Setup d = dg::build_setup(bilinear, build_connectivity(bilinear), order);
    EXPECT_EQ(dg::sum_factor_tables(d.element_groups[0], Shape::quadrilateral, order + 1, d.n_face_points()).n, 0);
  }
}

TEST_F(SumFactor, BilinearJacobiansReproduceTheStoredMetricAndRefuseOtherMaps) {
  // The six coefficients per element give, at every point, the stored weighted metric w adj J and
  // the point factor w / det J (the factorised kernels read them instead); a metric that is not a
  // bilinear map's (one point moved by 1e-6 of its size) is refused.
  const Mesh finer = rectangle_quadrilaterals(0, 2, 0, 1, 5, 4, 0.25);
  const Connectivity finer_connectivity = build_connectivity(finer);
  for (int order = 1; order <= 5; ++order) {
    dg::Setup setup = dg::build_setup(finer, finer_connectivity, order);
    dg::ElementGroupSetup& group = setup.element_groups[0];
    const dg::SumFactorTables t = dg::sum_factor_tables(group, Shape::quadrilateral, order, setup.n_face_points());
    ASSERT_EQ(t.n, order + 1);
    const index_t K = static_cast<index_t>(group.size.size());
    const std::vector<double> g = dg::bilinear_jacobians(group, t, K);
    ASSERT_EQ(g.size(), static_cast<std::size_t>(6 * K)) << "p = " << order;
    const int n = t.n;
    double largest = 0, error = 0;
    for (index_t e = 0; e < K; ++e)
      for (int b = 0; b < n; ++b)
        for (int a = 0; a < n; ++a) {
          const int k = a + n * b;
          const auto c = [&](int i) { return g[static_cast<std::size_t>(i) * K + e]; };
          const double x_xi = c(0) + c(2) * t.x[b], x_eta = c(1) + c(2) * t.x[a];
          const double y_xi = c(3) + c(5) * t.x[b], y_eta = c(4) + c(5) * t.x[a];
          const double w = t.w[a] * t.w[b], det = x_xi * y_eta - x_eta * y_xi;
          const double m[4] = {w * y_eta, -w * x_eta, -w * y_xi, w * x_xi};
          for (int i = 0; i < 4; ++i) {
            const double stored = group.metric[(static_cast<std::size_t>(k) * 4 + i) * K + e];
            largest = std::max(largest, std::abs(stored));
            error = std::max(error, std::abs(stored - m[i]));
          }
          const double factor = group.inverse_mass[static_cast<std::size_t>(k) * K + e];
          EXPECT_NEAR(w / det, factor, 1e-12 * factor);
        }
    EXPECT_LT(error, 1e-13 * largest) << "p = " << order;
    // The perturbation moves the elements off rectangles: d != 0 somewhere (the test sees the
    // bilinear term).
    double d = 0;
    for (index_t e = 0; e < K; ++e) d = std::max({d, std::abs(g[2 * K + e]), std::abs(g[5 * K + e])});
    EXPECT_GT(d, 1e-3);
    // One point of one element off the bilinear map.
    const int k = order + 1 + 1;  // point (1, 1)
    group.metric[(static_cast<std::size_t>(k) * 4 + 0) * K + 3] *= 1 + 1e-6;
    EXPECT_TRUE(dg::bilinear_jacobians(group, t, K).empty()) << "p = " << order;
  }
}

TEST_F(SumFactor, TheCollocatedLiftingIsTheEdgeTableAlongTheLines) {
  // The factorised lifting kernel takes BR2's C = V Phi_faces^T on a collocated quadrilateral from
  // the tables: C[k][face l, point q] = edge[side][m] / (w_m w_s) for the volume points k on the line
  // through the face point (m its index along the line, s the face point's along the face, side the
  // line's end), zero elsewhere. The group's own C (face_lifting_tables) must be exactly that.
  for (int order = 1; order <= 6; ++order) {
    const AtOrder tables_at = at_order(order);
    const dg::ElementGroupSetup& group = tables_at.group();
    const int Nfq = tables_at.setup.n_face_points();
    const dg::SumFactorTables& t = tables_at.tables;
    ASSERT_EQ(t.n, order + 1);
    const int n = t.n, Np = n * n, NFq = 4 * n;
    const std::vector<double> C = dg::face_lifting_tables(group, Shape::quadrilateral, dg::GeometryKind::curved, Nfq,
                                                          static_cast<index_t>(group.size.size()), group.inverse_mass);
    ASSERT_GE(C.size(), static_cast<std::size_t>(Np) * NFq);
    double largest = 0, error = 0;
    for (int l = 0; l < 4; ++l)
      for (int q = 0; q < n; ++q) {
        // face_line (factorised_kernels.hpp): faces 0, 2 the line x = x_s over b, faces 1, 3 y = y_s over a.
        const int s = l < 2 ? q : n - 1 - q, side = l == 1 || l == 2 ? 1 : 0;
        for (int b = 0; b < n; ++b)
          for (int a = 0; a < n; ++a) {
            const bool on_line = l % 2 == 0 ? a == s : b == s;
            const int m = l % 2 == 0 ? b : a;
            const double expected = on_line ? t.edge[side * n + m] / (t.w[m] * t.w[s]) : 0.0;
            const double value = C[static_cast<std::size_t>(a + n * b) * NFq + l * n + q];
            largest = std::max(largest, std::abs(value));
            error = std::max(error, std::abs(value - expected));
          }
      }
    EXPECT_LT(error, 1e-12 * largest) << "p = " << order;
  }
}

TEST_F(SumFactor, BlocksAreWholeRowsOfSixteenAndTheOverridesRefuseBadValues) {
  // factorised.hpp: blocks of 32 elements up to n = 3 and 16 from n = 4 (a warp over whole shared
  // rows), at most 256 threads in warps, E <= threads; face blocks of 256 / n rounded down to a warp;
  // the environment overrides for sweeps take well-formed values and refuse others with an InputError.
  using NS = physics::NavierStokes<2, double>;
  unsetenv("FLOWDG_FACTORISED_BLOCK");
  unsetenv("FLOWDG_FACTORISED_FACES");
  for (int n = 1; n <= 7; ++n) {
    const dg::FactorisedBlock element = dg::factorised_block<NS>(dg::factorised_element_values<NS>(n), n);
    const dg::FactorisedBlock lifting = dg::factorised_block<NS>(dg::factorised_lifting_values<NS>(n), n);
    const index_t values[2] = {dg::factorised_element_values<NS>(n), dg::factorised_lifting_values<NS>(n)};
    int which = 0;
    for (const dg::FactorisedBlock& b : {element, lifting}) {
      // (fewer where the shared memory holds fewer: p = 6)
      const int fit = static_cast<int>(dg::block_shared_limit / (sizeof(double) * static_cast<std::size_t>(values[which++])));
      EXPECT_EQ(b.E, std::min(n <= 3 ? 32 : 16, fit)) << "n = " << n;
      EXPECT_EQ(b.threads % 32, 0);
      EXPECT_LE(b.threads, 256);
      EXPECT_LE(b.E, b.threads);
      EXPECT_GE(b.threads, std::min(256, b.E * n * n));
    }
    const int face_fit = static_cast<int>(dg::block_shared_limit / dg::factorised_face_bytes<NS>(n));
    EXPECT_EQ(dg::factorised_faces<NS>(n), std::min(std::max(32, 256 / n / 32 * 32), face_fit)) << "n = " << n;
  }
  setenv("FLOWDG_FACTORISED_FACES", "64", 1);
  EXPECT_EQ(dg::factorised_faces<NS>(3), 64);
  for (const char* bad : {"abc", "0", "300", "64x"}) {
    setenv("FLOWDG_FACTORISED_FACES", bad, 1);
    EXPECT_THROW(dg::factorised_faces<NS>(5), InputError) << bad;
  }
  unsetenv("FLOWDG_FACTORISED_FACES");
  dg::FactorisedBlock element, lifting;
  EXPECT_FALSE(dg::factorised_block_override(element, lifting));
  setenv("FLOWDG_FACTORISED_BLOCK", "16,256,10,256", 1);
  ASSERT_TRUE(dg::factorised_block_override(element, lifting));
  EXPECT_EQ(element.E, 16);
  EXPECT_EQ(lifting.E, 10);
  EXPECT_EQ(lifting.threads, 256);
  for (const char* bad : {"16,256,10", "16,250,10,256", "300,256,10,256", "16,512,10,256"}) {
    setenv("FLOWDG_FACTORISED_BLOCK", bad, 1);
    EXPECT_THROW(dg::factorised_block_override(element, lifting), InputError) << bad;
  }
  unsetenv("FLOWDG_FACTORISED_BLOCK");
}

TEST_F(SumFactor, BR2FaceKernelsLineSumsGiveTheGradientsOnEachFacePointsLine) {
  // BR2 at the faces on quadrilaterals (br2_factorised_kernels.hpp): the face kernel's thread for
  // the element's own point a of face l takes its line (the volume points k_m = first + m stride of
  // face_line, normal to the face through the point) from the coefficients: T[t] = sum_i L_i(x_s)
  // c(.), dT with L' (along the face's fixed coordinate x_s), then at the line's points the derivative
  // along the line (dL over T) and across it (L over dT), and the trace (the ends over T). They must be
  // the dense reference derivatives at k_m and the dense trace; a swapped direction, a wrong s or end
  // or a transposed mode moves them by O(1).
  std::mt19937 generator(11);
  std::uniform_real_distribution<double> random(-1.0, 1.0);
  for (int order = 1; order <= 6; ++order) {
    const AtOrder tables_at = at_order(order);
    const dg::ElementGroupSetup& group = tables_at.group();
    const dg::SumFactorTables& t = tables_at.tables;
    ASSERT_EQ(t.n, order + 1);
    const int n = t.n, Np = n * n;
    std::vector<double> c(Np);
    for (double& x : c) x = random(generator);
    std::vector<double> dense(4 * n * n * 2), line(4 * n * n * 2), dense_trace(4 * n), trace(4 * n);
    for (int l = 0; l < 4; ++l)
      for (int a = 0; a < n; ++a) {
        for (int j = 0; j < Np; ++j) dense_trace[l * n + a] += group.face_phi[(static_cast<std::size_t>(l) * n + a) * Np + j] * c[j];
        const int s = l < 2 ? a : n - 1 - a, end = l == 1 || l == 2 ? 1 : 0;
        const bool along_y = l % 2 == 0;
        const int first = along_y ? s : n * s, stride = along_y ? n : 1;
        std::vector<double> T(n, 0.0), dT(n, 0.0);
        for (int u = 0; u < n; ++u)
          for (int i = 0; i < n; ++i) {
            const double value = c[along_y ? quadrilateral_mode(i, u) : quadrilateral_mode(u, i)];
            T[u] += t.L[s * n + i] * value;
            dT[u] += t.dL[s * n + i] * value;
          }
        for (int u = 0; u < n; ++u) trace[l * n + a] += t.ends[end * n + u] * T[u];
        for (int m = 0; m < n; ++m) {
          double along = 0, fixed = 0;
          for (int u = 0; u < n; ++u) {
            along += t.dL[m * n + u] * T[u];
            fixed += t.L[m * n + u] * dT[u];
          }
          const std::size_t at = ((static_cast<std::size_t>(l) * n + a) * n + m) * 2;
          line[at] = along_y ? fixed : along;      // d/dxi
          line[at + 1] = along_y ? along : fixed;  // d/deta
          const int k = first + m * stride;
          for (int j = 0; j < Np; ++j)
            for (int r = 0; r < 2; ++r) dense[at + r] += group.volume_dphi[(static_cast<std::size_t>(k) * 2 + r) * Np + j] * c[j];
        }
      }
    EXPECT_LT(relative_difference(dense, line), 1e-13) << "p = " << order;
    EXPECT_LT(relative_difference(dense_trace, trace), 1e-13) << "p = " << order;

    // The kernel's face gradient sum_m edge[end][m] J^-T(k_m) grad_r U(k_m) on a bilinear map
    // (x_xi = g0 + g2 eta, x_eta = g1 + g2 xi, y_xi = g3 + g5 eta, y_eta = g4 + g5 xi), taken as
    // c_P P + c_0 Q0 + c_1 Q1 with the weights Wf, W0, W1 (J's entries affine along the line), against
    // the sum over the dense gradients; and the diagonal sum_m edge^2 / (w_m w_s det J(k_m)).
    const double g[6] = {1.1 + 0.1 * random(generator), 0.1 * random(generator), 0.1 * random(generator),
                         0.1 * random(generator), 0.9 + 0.1 * random(generator), 0.1 * random(generator)};
    const auto jacobian = [&](double xi, double eta, double (&J)[2][2]) {
      J[0][0] = g[0] + g[2] * eta;  // x_xi
      J[0][1] = g[1] + g[2] * xi;   // x_eta
      J[1][0] = g[3] + g[5] * eta;  // y_xi
      J[1][1] = g[4] + g[5] * xi;   // y_eta
      return J[0][0] * J[1][1] - J[0][1] * J[1][0];
    };
    std::vector<double> dense_gradient(4 * n * 2, 0.0), gradient(4 * n * 2), dense_diagonal(4 * n, 0.0), diagonal(4 * n, 0.0);
    for (int l = 0; l < 4; ++l)
      for (int a = 0; a < n; ++a) {
        const int s = l < 2 ? a : n - 1 - a, end = l == 1 || l == 2 ? 1 : 0;
        const bool along_y = l % 2 == 0;
        const double xs = t.x[s];
        std::vector<double> Wf(n, 0.0), W0(n, 0.0), W1(n, 0.0), T(n, 0.0), dT(n, 0.0);
        for (int m = 0; m < n; ++m) {
          double J[2][2];
          const double xi = along_y ? xs : t.x[m], eta = along_y ? t.x[m] : xs;
          const double det = jacobian(xi, eta, J), e = t.edge[end * n + m];
          // dense: J^-T grad_r U at k_m
          const std::size_t at = ((static_cast<std::size_t>(l) * n + a) * n + m) * 2;
          const double d_xi = dense[at], d_eta = dense[at + 1];
          dense_gradient[(l * n + a) * 2 + 0] += e * (J[1][1] * d_xi - J[1][0] * d_eta) / det;
          dense_gradient[(l * n + a) * 2 + 1] += e * (J[0][0] * d_eta - J[0][1] * d_xi) / det;
          dense_diagonal[l * n + a] += e * e / (t.w[m] * t.w[s] * det);
          const double f = e / det;
          diagonal[l * n + a] += e * f / t.w[m];
          for (int u = 0; u < n; ++u) {
            Wf[u] += f * t.L[m * n + u];
            W0[u] += f * t.dL[m * n + u];
            W1[u] += f * t.x[m] * t.dL[m * n + u];
          }
        }
        diagonal[l * n + a] /= t.w[s];
        for (int u = 0; u < n; ++u)
          for (int i = 0; i < n; ++i) {
            const double value = c[along_y ? quadrilateral_mode(i, u) : quadrilateral_mode(u, i)];
            T[u] += t.L[s * n + i] * value;
            dT[u] += t.dL[s * n + i] * value;
          }
        double P = 0, Q0 = 0, Q1 = 0;
        for (int u = 0; u < n; ++u) {
          P += Wf[u] * dT[u];
          Q0 += W0[u] * T[u];
          Q1 += W1[u] * T[u];
        }
        const double cxP = along_y ? g[4] + g[5] * xs : -(g[3] + g[5] * xs), cx0 = along_y ? -g[3] : g[4], cx1 = along_y ? -g[5] : g[5];
        const double cyP = along_y ? -(g[1] + g[2] * xs) : g[0] + g[2] * xs, cy0 = along_y ? g[0] : -g[1], cy1 = along_y ? g[2] : -g[2];
        gradient[(l * n + a) * 2 + 0] = cxP * P + cx0 * Q0 + cx1 * Q1;
        gradient[(l * n + a) * 2 + 1] = cyP * P + cy0 * Q0 + cy1 * Q1;
      }
    EXPECT_LT(relative_difference(dense_gradient, gradient), 1e-12) << "p = " << order;
    EXPECT_LT(relative_difference(dense_diagonal, diagonal), 1e-13) << "p = " << order;
  }
}

TEST_F(SumFactor, BR2AtTheFacesBlocksFitThreeAnSm) {
  // br2_factorised_kernels.hpp's shared memory (factorised.hpp): the face kernel's block of 128 / n
  // faces (256 / n on a boundary) — both sides' coefficients, traces, gradients and diagonal, the
  // bilinear Jacobians, the 1D tables — and the fused element kernel's values an element, by hand at
  // p = 4; three face blocks an SM at p = 1..4 and three element blocks at p = 4 (E = 16).
  using NS = physics::NavierStokes<2, double>;
  const std::size_t face = (25 * (2 * (100 + 20 + 45 + 6)) + 2 * 25) * sizeof(double);
  EXPECT_EQ(dg::br2_factorised_face_shared_bytes<NS>(5, false), face);
  EXPECT_EQ(dg::br2_factorised_face_shared_bytes<NS>(5, true), (51 * (100 + 20 + 45 + 6) + 2 * 25) * sizeof(double));
  EXPECT_EQ(dg::br2_factorised_element_values<NS>(5), 3 * 4 * 25 + 2 * 4 * 5 * 4 + 4 * 3 + 25 + 6);
  for (int n = 2; n <= 5; ++n) {
    for (bool boundary : {false, true}) EXPECT_LE(dg::br2_factorised_face_shared_bytes<NS>(n, boundary), dg::block_shared_limit) << n;
    EXPECT_LE(3 * (dg::br2_factorised_face_shared_bytes<NS>(n, false) + dg::block_reserved_shared_bytes), dg::sm_shared_bytes) << "n = " << n;
    const dg::FactorisedBlock block = dg::factorised_block<NS>(dg::br2_factorised_element_values<NS>(n), n);
    EXPECT_EQ(block.E, n <= 3 ? 32 : 16) << "n = " << n;
  }
  // The fused element kernel's block (br2_factorised_block): by default factorised_block's; the
  // element part of FLOWDG_FACTORISED_BLOCK replaces it, and one past the block's shared memory is refused.
  unsetenv("FLOWDG_FACTORISED_BLOCK");
  for (int n = 2; n <= 5; ++n) {
    const dg::FactorisedBlock d = dg::br2_factorised_block<NS>(n), f = dg::factorised_block<NS>(dg::br2_factorised_element_values<NS>(n), n);
    EXPECT_EQ(d.E, f.E) << n;
    EXPECT_EQ(d.threads, f.threads) << n;
  }
  setenv("FLOWDG_FACTORISED_BLOCK", "8,128,32,256", 1);
  EXPECT_EQ(dg::br2_factorised_block<NS>(5).E, 8);
  EXPECT_EQ(dg::br2_factorised_block<NS>(5).threads, 128);
  setenv("FLOWDG_FACTORISED_BLOCK", "256,256,32,256", 1);
  EXPECT_THROW(dg::br2_factorised_block<NS>(5), InputError);
  unsetenv("FLOWDG_FACTORISED_BLOCK");
  const std::size_t element = 16 * sizeof(double) * static_cast<std::size_t>(dg::br2_factorised_element_values<NS>(5));
  EXPECT_LE(3 * (element + dg::block_reserved_shared_bytes), dg::sm_shared_bytes);
  // The boundary face kernel's blocks an SM: two at p = 4 (128 registers), three below.
  EXPECT_EQ(dg::br2_factorised_face_blocks(4), 2);
  for (int order = 1; order <= 3; ++order) EXPECT_EQ(dg::br2_factorised_face_blocks(order), 3);
  // Smaller blocks: 128 threads hold 64 / n faces (two sides), half the shared memory of 256.
  EXPECT_EQ(dg::br2_block_faces(5, false, 128), 12);
  EXPECT_EQ(dg::br2_factorised_face_shared_bytes<NS>(5, false, 128), (12 * (2 * (100 + 20 + 45 + 6)) + 2 * 25) * sizeof(double));
  // The interior face kernels' shapes (lifting.hpp: br2_face_shape): the defaults (every default
  // compiled), and FLOWDG_BR2_FACE_THREADS / FLOWDG_BR2_FACE_BLOCKS for A/B runs: a shape compiled at
  // that order is taken, one not compiled or a malformed value is an InputError.
  unsetenv("FLOWDG_BR2_FACE_THREADS");
  unsetenv("FLOWDG_BR2_FACE_BLOCKS");
  for (const Shape shape : {Shape::triangle, Shape::quadrilateral})
    for (int order = 1; order <= 6; ++order) {
      const dg::Br2FaceShape d = dg::br2_face_shape(shape, order);
      EXPECT_TRUE(dg::br2_face_shape_compiled(d, order)) << order;
      EXPECT_EQ(d.threads, dg::br2_face_default_shape(shape, order).threads);
      EXPECT_EQ(d.blocks, dg::br2_face_default_shape(shape, order).blocks);
    }
  // (the quadrilaterals' face kernel spills under 80 registers from p = 4: 128 a thread there)
  for (int order = 4; order <= 6; ++order) {
    const dg::Br2FaceShape d = dg::br2_face_default_shape(Shape::quadrilateral, order);
    EXPECT_LE(d.threads * d.blocks, 512) << order;
  }
  setenv("FLOWDG_BR2_FACE_BLOCKS", "2", 1);
  EXPECT_EQ(dg::br2_face_shape(Shape::quadrilateral, 3).threads, 256);
  EXPECT_EQ(dg::br2_face_shape(Shape::quadrilateral, 3).blocks, 2);
  EXPECT_THROW(dg::br2_face_shape(Shape::quadrilateral, 1), InputError);  // 256 x 2 from p = 2
  setenv("FLOWDG_BR2_FACE_THREADS", "128", 1);
  EXPECT_THROW(dg::br2_face_shape(Shape::triangle, 4), InputError);  // 128 x 2
  setenv("FLOWDG_BR2_FACE_BLOCKS", "5", 1);
  EXPECT_EQ(dg::br2_face_shape(Shape::triangle, 4).threads, 128);
  EXPECT_EQ(dg::br2_face_shape(Shape::triangle, 4).blocks, 5);
  EXPECT_THROW(dg::br2_face_shape(Shape::triangle, 2), InputError);  // 128 threads at p = 3, 4 only
  unsetenv("FLOWDG_BR2_FACE_BLOCKS");
  EXPECT_EQ(dg::br2_face_shape(Shape::quadrilateral, 4).blocks, 5);  // 128 alone: five blocks
  for (const char* bad : {"32", "two", "128x"}) {
    setenv("FLOWDG_BR2_FACE_THREADS", bad, 1);
    EXPECT_THROW(dg::br2_face_shape(Shape::quadrilateral, 4), InputError) << bad;
  }
  unsetenv("FLOWDG_BR2_FACE_THREADS");
  for (const char* bad : {"1", "7", "2x"}) {
    setenv("FLOWDG_BR2_FACE_BLOCKS", bad, 1);
    EXPECT_THROW(dg::br2_face_shape(Shape::quadrilateral, 4), InputError) << bad;
  }
  unsetenv("FLOWDG_BR2_FACE_BLOCKS");
}
