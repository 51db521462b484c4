// The reference tables of BR2's tensor-core lifting (dg/lifting.hpp: lifting_tensor_tables) give the
// lifting kernels' numbers: on an affine element, the gradient and Theta at the volume and face
// points and the volume term from the three table products equal the moment formulation of
// LiftingElementKernel (gradient moments, lifting moments, M^-1 = I / det J), here on the reference
// element (det J = 1) of triangles and tetrahedra at every order. The GPU kernel multiplies the same
// tables in fragment order (the GPU test compares it with the CPU). So do the CUDA block lifting
// kernel's affine tables (affine_lifting_point_tables: C at the volume points, the face derivatives).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "flowdg/dg/lifting.hpp"
#include "flowdg/dg/setup.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/physics/navier_stokes/navier_stokes.hpp"

using namespace flowdg;

namespace {

/// The tables back in row-major order (the kernels read them in fragment order: fragment_order.hpp).
std::vector<double> row_major(const dg::LiftingTensorLayout& t, const std::vector<double>& fragments) {
  std::vector<double> a(fragments.size(), 0.0);
  std::size_t offset = 0;
  for (const auto& [M, K] : {std::pair{t.M1, t.K1}, std::pair{t.M2, t.K2}, std::pair{t.M3, t.K3}}) {
    for (int mt = 0; mt < M / 8; ++mt)
      for (int ks = 0; ks < K / 4; ++ks)
        for (int lane = 0; lane < 32; ++lane)
          a[offset + static_cast<std::size_t>(mt * 8 + lane / 4) * K + ks * 4 + lane % 4] =
              fragments[offset + static_cast<std::size_t>(fragment_index(mt, ks, lane, K))];
    offset += static_cast<std::size_t>(M) * K;
  }
  EXPECT_EQ(offset, fragments.size());
  return a;
}

void check_tables(const Mesh& mesh, Shape shape, int order) {
  const Connectivity connectivity = build_connectivity(mesh);
  const dg::Setup setup = dg::build_setup(mesh, connectivity, order);
  ASSERT_FALSE(setup.element_groups.empty());
  const dg::ElementGroupSetup& group = setup.element_groups[0];
  const int dim = mesh.dimension, Np = group.n_basis, Nq = group.volume_rule.size(), Nfq = setup.n_face_points();
  const int NF = n_faces(shape), NFq = NF * Nfq;
  const dg::LiftingTensorLayout t = dg::lifting_tensor_layout(4, dim, shape, Np, Nq, Nfq);
  const std::vector<double> a = row_major(t, dg::lifting_tensor_tables(t, group.volume_phi, group.volume_dphi, group.face_phi, group.face_dphi));
  const double* a1 = a.data();
  const double* a2 = a1 + static_cast<std::size_t>(t.M1) * t.K1;
  const double* a3 = a2 + static_cast<std::size_t>(t.M2) * t.K2;
  const std::vector<double>& w = group.volume_rule.weights;

  std::mt19937 generator(7 + order);
  std::uniform_real_distribution<double> random(-1.0, 1.0);
  std::vector<double> c(Np);
  for (double& value : c) value = random(generator);
  std::vector<double> S(static_cast<std::size_t>(dim) * NFq);  // [d NFq + lq]: w|N| n_d jump at the element's points
  for (double& value : S) value = random(generator);
  const double eta = 3.5;
  const auto phi_v = [&](int k, int i) { return group.volume_phi[static_cast<std::size_t>(k) * Np + i]; };
  const auto dphi_v = [&](int k, int r, int i) { return group.volume_dphi[(static_cast<std::size_t>(k) * dim + r) * Np + i]; };
  const auto phi_f = [&](int lq, int i) { return group.face_phi[static_cast<std::size_t>(lq) * Np + i]; };

  // The moment formulation (M = I on the reference element).
  std::vector<double> g(static_cast<std::size_t>(dim) * Np, 0.0), lifted(static_cast<std::size_t>(dim) * Np, 0.0);
  std::vector<double> face_lifted(static_cast<std::size_t>(dim) * NF * Np, 0.0);  // [(d NF + l) Np + i]
  for (int d = 0; d < dim; ++d) {
    for (int k = 0; k < Nq; ++k) {
      double du = 0;
      for (int j = 0; j < Np; ++j) du += c[j] * dphi_v(k, d, j);
      for (int i = 0; i < Np; ++i) g[d * Np + i] += w[k] * phi_v(k, i) * du;
    }
    for (int lq = 0; lq < NFq; ++lq)
      for (int i = 0; i < Np; ++i) {
        const double value = phi_f(lq, i) * S[static_cast<std::size_t>(d) * NFq + lq];
        lifted[d * Np + i] += value;
        face_lifted[(static_cast<std::size_t>(d) * NF + lq / Nfq) * Np + i] += value;
      }
  }
  // The table formulation: Y = A1 c, R_d = A2 S_d.
  const auto product = [](const double* A, int K, int row, const std::vector<double>& x, std::size_t offset, int n) {
    double sum = 0;
    for (int j = 0; j < n; ++j) sum += A[static_cast<std::size_t>(row) * K + j] * x[offset + j];
    return sum;
  };
  double largest = 0, difference = 0;
  const auto compare = [&](double expected, double got) {
    largest = std::max(largest, std::abs(expected));
    difference = std::max(difference, std::abs(expected - got));
  };
  const int v_rows = Nq + NFq;
  for (int d = 0; d < dim; ++d) {
    for (int k = 0; k < Nq; ++k) {
      double theta = 0;
      for (int i = 0; i < Np; ++i) theta += (g[d * Np + i] + lifted[d * Np + i]) * phi_v(k, i);
      const double gradient = product(a1, t.K1, v_rows + d * Nq + k, c, 0, Np);
      compare(theta, gradient + product(a2, t.K2, k, S, static_cast<std::size_t>(d) * NFq, NFq));
    }
    for (int lq = 0; lq < NFq; ++lq) {
      double theta = 0;
      for (int i = 0; i < Np; ++i) theta += (g[d * Np + i] + eta * face_lifted[(static_cast<std::size_t>(d) * NF + lq / Nfq) * Np + i]) * phi_f(lq, i);
      const double gradient = product(a1, t.K1, v_rows + dim * Nq + d * NFq + lq, c, 0, Np);
      compare(theta, gradient + eta * product(a2, t.K2, Nq + lq, S, static_cast<std::size_t>(d) * NFq, NFq));
    }
  }
  // The values at the volume and face points.
  for (int k = 0; k < Nq; ++k) {
    double u = 0;
    for (int j = 0; j < Np; ++j) u += c[j] * phi_v(k, j);
    compare(u, product(a1, t.K1, k, c, 0, Np));
  }
  for (int lq = 0; lq < NFq; ++lq) {
    double u = 0;
    for (int j = 0; j < Np; ++j) u += c[j] * phi_f(lq, j);
    compare(u, product(a1, t.K1, Nq + lq, c, 0, Np));
  }
  // The volume term: sum_{r, k} dphi_j/dr_r(k) F_r(k) for random reference fluxes F.
  std::vector<double> F(static_cast<std::size_t>(dim) * Nq);
  for (double& value : F) value = random(generator);
  for (int j = 0; j < Np; ++j) {
    double expected = 0;
    for (int r = 0; r < dim; ++r)
      for (int k = 0; k < Nq; ++k) expected += dphi_v(k, r, j) * F[static_cast<std::size_t>(r) * Nq + k];
    compare(expected, product(a3, t.K3, j, F, 0, dim * Nq));
  }
  EXPECT_LT(difference, 1e-12 * std::max(1.0, largest)) << shape_name(shape) << " p = " << order;
  EXPECT_GT(largest, 0.1) << "nothing compared";

  // The CUDA block kernel's route on affine groups (affine_lifting_point_tables, lifting_block_kernels.hpp):
  // Theta = grad U + C S at the volume points (C stored [lq Nq8 + k], zeros past Nq), and
  // grad U + eta A_l S_l at face l's points, grad U from the stored face derivatives and A_l the
  // reference face lifting matrix (face_lifting_tables).
  const std::vector<double> points = dg::affine_lifting_point_tables(Np, Nq, NFq, dim, group.volume_phi, group.face_phi, group.face_dphi);
  const int Nq8 = dg::affine_lifting_rows(Nq);
  ASSERT_EQ(Nq8 % 8, 0);
  ASSERT_EQ(points.size(), static_cast<std::size_t>(NFq) * Nq8 + static_cast<std::size_t>(NFq) * dim * Np);
  const std::vector<double> A = dg::face_lifting_tables(group, shape, dg::GeometryKind::affine, Nfq, 1, group.inverse_mass);
  double block_largest = 0, block_difference = 0, padding = 0;
  for (int lq = 0; lq < NFq; ++lq)
    for (int k = Nq; k < Nq8; ++k) padding = std::max(padding, std::abs(points[static_cast<std::size_t>(lq) * Nq8 + k]));
  for (int d = 0; d < dim; ++d) {
    for (int k = 0; k < Nq; ++k) {
      double theta = 0, got = 0;
      for (int i = 0; i < Np; ++i) theta += (g[d * Np + i] + lifted[d * Np + i]) * phi_v(k, i);
      for (int j = 0; j < Np; ++j) got += c[j] * dphi_v(k, d, j);
      for (int lq = 0; lq < NFq; ++lq) got += points[static_cast<std::size_t>(lq) * Nq8 + k] * S[static_cast<std::size_t>(d) * NFq + lq];
      block_largest = std::max(block_largest, std::abs(theta));
      block_difference = std::max(block_difference, std::abs(theta - got));
    }
    for (int lq = 0; lq < NFq; ++lq) {
      const int l = lq / Nfq, a_point = lq % Nfq;
      double theta = 0, got = 0;
      for (int i = 0; i < Np; ++i) theta += (g[d * Np + i] + eta * face_lifted[(static_cast<std::size_t>(d) * NF + l) * Np + i]) * phi_f(lq, i);
      const double* face_dphi = &points[static_cast<std::size_t>(NFq) * Nq8 + static_cast<std::size_t>(lq) * dim * Np];
      for (int j = 0; j < Np; ++j) got += c[j] * face_dphi[d * Np + j];
      for (int b = 0; b < Nfq; ++b)
        got += eta * A[(static_cast<std::size_t>(l) * Nfq + a_point) * Nfq + b] * S[static_cast<std::size_t>(d) * NFq + l * Nfq + b];
      block_largest = std::max(block_largest, std::abs(theta));
      block_difference = std::max(block_difference, std::abs(theta - got));
    }
  }
  EXPECT_EQ(padding, 0.0);
  EXPECT_LT(block_difference, 1e-12 * std::max(1.0, block_largest)) << shape_name(shape) << " p = " << order << ": the block kernel's tables";
  EXPECT_GT(block_largest, 0.1) << "nothing compared";
}

}  // namespace

TEST(LiftingTensorTables, GiveTheMomentFormulationsThetaAndVolumeTermOnTriangles) {
  const Mesh mesh = rectangle_triangles(0, 1, 0, 1, 1, 1, TriangleLayout::perturbed, 0.0, 1);
  for (int order = 1; order <= 4; ++order) check_tables(mesh, Shape::triangle, order);
}

TEST(LiftingTensorTables, GiveTheMomentFormulationsThetaAndVolumeTermOnTetrahedra) {
  const Mesh mesh = box_tetrahedra(1, 1, 1, 1, 1, 1);
  for (int order = 1; order <= 3; ++order) check_tables(mesh, Shape::tetrahedron, order);
}

TEST(LiftingTensorTables, TheABKnobsTakeZeroOrOneAndRefuseOtherValues) {
  // The A/B knobs (FLOWDG_BLOCK_VOLUME: the block lifting takes the inviscid volume term;
  // FLOWDG_BR2_FACES: "automatic" takes BR2 at the faces): unset, empty or 1 allow it, 0 does not,
  // anything else is an InputError naming the variable.
  const std::pair<const char*, bool (*)()> knobs[] = {{"FLOWDG_BLOCK_VOLUME", &dg::fused_volume_allowed},
                                                      {"FLOWDG_BR2_FACES", &dg::br2_faces_allowed}};
  for (const auto& [name, allowed] : knobs) {
    unsetenv(name);
    EXPECT_TRUE(allowed()) << name;
    setenv(name, "", 1);
    EXPECT_TRUE(allowed()) << name;
    setenv(name, "1", 1);
    EXPECT_TRUE(allowed()) << name;
    setenv(name, "0", 1);
    EXPECT_FALSE(allowed()) << name;
    for (const char* bad : {"2", "no", "00", "1 "}) {
      setenv(name, bad, 1);
      try {
        allowed();
        ADD_FAILURE() << name << "='" << bad << "' accepted";
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      }
    }
    unsetenv(name);
  }
}

TEST(Br2FaceKernel, SharedMemoryFitsTheBlockBudgetOnSimplicesAndNotOnHexahedraFromP2) {
  // BR2 at the faces applies where its face kernel's blocks fit block_shared_limit
  // (DgOperator: br2_faces_). Triangles at p = 3: 12 face points x (the basis, its two derivatives and
  // the face lifting matrices' rows at odd strides 11, 21 and 5); interior faces 32 a block
  // (128 / 4 points) of 2 x 40 coefficients, 2 x 16 traces and 2 x 16 point values (jump and flux);
  // boundary faces 64 a block of one side.
  using NS2 = physics::NavierStokes<2, double>;
  using NS3 = physics::NavierStokes<3, double>;
  EXPECT_EQ(dg::br2_face_row_stride(10), 11);
  EXPECT_EQ(dg::br2_face_row_stride(15), 15);
  EXPECT_EQ(dg::br2_face_shared_bytes<NS2>(Shape::triangle, 10, 4, false), std::size_t{8 * (12 * (11 + 21 + 5) + 32 * (2 * 40 + 2 * 16 + 2 * 16))});
  EXPECT_EQ(dg::br2_face_shared_bytes<NS2>(Shape::triangle, 10, 4, true), std::size_t{8 * (12 * (11 + 21 + 5) + 64 * (40 + 16 + 2 * 16))});
  const auto fits = [](Shape shape, int order, int dim) {
    const Mesh mesh = dim == 2 ? rectangle_triangles(0, 1, 0, 1, 2, 2, TriangleLayout::perturbed, 0.0, 1)
                               : (shape == Shape::tetrahedron ? box_tetrahedra(1, 1, 1, 1, 1, 1) : box_hexahedra(1, 1, 1, 1, 1, 1));
    const dg::Setup setup = dg::build_setup(mesh, build_connectivity(mesh), order);
    const int Np = setup.element_groups[0].n_basis, Nfq = setup.n_face_points();
    // In 2D the face kernel is compiled for P + 1 face points, the affine meshes' face rule.
    if (dim == 2) {
      EXPECT_EQ(Nfq, dg::br2_face_points(2, order)) << "triangles p = " << order;
    }
    EXPECT_EQ(dg::br2_face_points(3, order), 0);
    bool fit = true;
    for (const bool boundary : {false, true}) {
      const std::size_t bytes = dim == 2 ? dg::br2_face_shared_bytes<NS2>(shape, Np, Nfq, boundary) : dg::br2_face_shared_bytes<NS3>(shape, Np, Nfq, boundary);
      fit = fit && bytes <= dg::block_shared_limit;
    }
    return fit;
  };
  for (int order = 1; order <= 4; ++order) EXPECT_TRUE(fits(Shape::triangle, order, 2)) << "triangles p = " << order;
  for (int order = 1; order <= 3; ++order) EXPECT_TRUE(fits(Shape::tetrahedron, order, 3)) << "tetrahedra p = " << order;
  EXPECT_TRUE(fits(Shape::hexahedron, 1, 3));
  EXPECT_FALSE(fits(Shape::hexahedron, 2, 3));
}

TEST(Br2FaceKernel, FusedKernelHoldsItsTablesAndItsTrianglesAtThreeBlocksAnSm) {
  // BR2 at the faces' fused element kernel (lifting_block_kernels.hpp): per element the coefficients,
  // the volume points' dim NV values, the face points' scaled jumps (NV a point) and each face's
  // normal (dim a face); once a block the reference tables. Triangles at p = 4 (Np 15, Nq 16, Nfq 5):
  // 4 x 15 + 8 x 16 + 3 x 5 x 4 + 3 x 2 = 254 values an element; tables C 15 x 16 (16: Nq rounded up to
  // 8), the basis and its two derivatives at the volume points 3 x 16 x 15, the basis at the face
  // points 15 x 15, the weights 16: 1,201.
  using NS2 = physics::NavierStokes<2, double>;
  using NS3 = physics::NavierStokes<3, double>;
  EXPECT_EQ(dg::lifting_block_values_per_element<NS2>(Shape::triangle, dg::GeometryKind::affine, 15, 16, 5, false, true), 254);
  EXPECT_EQ(dg::fused_lifting_table_values(2, Shape::triangle, 15, 16, 5), 1201);
  // Nq rounded up to 8 for C's rows: 12 -> 16 at p = 3.
  EXPECT_EQ(dg::fused_lifting_table_values(2, Shape::triangle, 10, 12, 4), 12 * 16 + 12 * 10 * 3 + 12 * 10 + 12);
  // 32 elements a block, and up to 64 in steps of 16 where three blocks an SM fit (fused_block_elements):
  // p = 1, 2 (66 and 114 values an element), not p = 3 (190: 48 would take 78 KB a block).
  for (int order = 1; order <= 4; ++order) {
    const int Np = (order + 1) * (order + 2) / 2, Nq = dg::volume_rule(Shape::triangle, dg::GeometryKind::affine, order, 1).size();
    const int Nfq = dg::face_rule(Shape::line, 2, order, 0).size();
    EXPECT_EQ((dg::lifting_block_elements<NS2>(Shape::triangle, dg::GeometryKind::affine, Np, Nq, Nfq, false, true)), 32) << "p = " << order;
    EXPECT_EQ(dg::fused_block_elements<NS2>(Shape::triangle, Np, Nq, Nfq, false), 32) << "p = " << order;
    const int E = dg::fused_block_elements<NS2>(Shape::triangle, Np, Nq, Nfq);
    EXPECT_EQ(E, order <= 2 ? 64 : 32) << "p = " << order;
    // Three blocks an SM (the kernel's launch bound in 2D): 228 KB of shared memory, 1 KB of it
    // reserved a block.
    const std::size_t bytes = 8 * (static_cast<std::size_t>(E) * dg::lifting_block_values_per_element<NS2>(Shape::triangle, dg::GeometryKind::affine, Np, Nq, Nfq, false, true) +
                                   dg::fused_lifting_table_values(2, Shape::triangle, Np, Nq, Nfq));
    EXPECT_LE(bytes, dg::block_shared_limit) << "p = " << order;
    EXPECT_LE(3 * (bytes + 1024), std::size_t{228 * 1024}) << "p = " << order;
  }
  for (int order = 1; order <= 3; ++order) {
    const int Np = (order + 1) * (order + 2) * (order + 3) / 6, Nq = dg::volume_rule(Shape::tetrahedron, dg::GeometryKind::affine, order, 1).size();
    const int Nfq = dg::face_rule(Shape::triangle, 3, order, 0).size();
    EXPECT_GT((dg::lifting_block_elements<NS3>(Shape::tetrahedron, dg::GeometryKind::affine, Np, Nq, Nfq, false, true)), 0) << "tetrahedra p = " << order;
    // (3D: one block an SM by its launch bound; no widening)
    EXPECT_EQ(dg::fused_block_elements<NS3>(Shape::tetrahedron, Np, Nq, Nfq),
              (dg::lifting_block_elements<NS3>(Shape::tetrahedron, dg::GeometryKind::affine, Np, Nq, Nfq, false, true)));
  }
}
