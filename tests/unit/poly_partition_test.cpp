// Polytopic meshes on several ranks (poly/poly_partition.hpp, issue 19 item 4): METIS balances the
// agglomerates' fine simplices over the parts; each part holds its agglomerates, their neighbours
// whole and a ring of fillers; the rows a part assembles (steady SIPG and space-time slabs, 2D and
// 3D, variable coefficients, the deterministic and the atomic way) are the whole mesh's rows — the
// same columns, values to rounding, the same right-hand side — so the parts together assemble the
// one-rank matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/linalg/direct.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/poly/agglomerate.hpp"
#include "flowdg/poly/poly_mesh.hpp"
#include "flowdg/poly/poly_partition.hpp"
#include "flowdg/poly/sipg.hpp"

using namespace flowdg;
using namespace flowdg::poly;

namespace {

Coefficients variable(int d, std::size_t tags, double t = 0) {
  Coefficients co;
  co.dimension = d;
  co.diffusion = [d, t](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) {
      double* a = out + d * d * q;
      for (int r = 0; r < d * d; ++r) a[r] = 0;
      for (int r = 0; r < d; ++r) a[r * d + r] = (1 + 0.5 * std::sin(x[q].x + r)) * (1 + 0.3 * std::sin(2 * t));
      a[1] = a[d] = 0.1 * x[q].y;
    }
  };
  co.advection = [d](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q)
      for (int r = 0; r < d; ++r) out[d * q + r] = (r == 0 ? 1.0 : -0.5) + 0.3 * x[q].y * x[q].x;
  };
  co.reaction = [](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = 1 + x[q].y * x[q].y;
  };
  co.source = [t](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = std::cos(x[q].x + 2 * x[q].y + t) + x[q].z;
  };
  co.dirichlet = [t](std::span<const Point3> x, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = x[q].x * x[q].y - x[q].z + t;
  };
  co.neumann = [](std::span<const Point3> x, std::span<const Point3> n, double* out) {
    for (std::size_t q = 0; q < x.size(); ++q) out[q] = x[q].x * n[q].x;
  };
  co.neumann_tag.assign(tags, false);
  co.neumann_tag[1] = true;
  return co;
}

struct Host {
  std::vector<index_t> row_start, column;
  std::vector<double> value, rhs;
};
Host host_of(const AssembledSystem<double>& s) {
  return {s.matrix.row_start.to_host(), s.matrix.column.to_host(), s.matrix.value.to_host(), s.rhs.to_host()};
}

/// Assembles the whole mesh and every part, and checks each part's rows against the whole's.
void check_parts(const Mesh& fine, index_t agglomerates, int parts, SipgOptions options, AssemblyMethod method, bool space_time,
                 const std::string& what) {
  const Connectivity connectivity = build_connectivity(fine);
  const std::vector<index_t> assignment = agglomerate_metis(fine, connectivity, agglomerates).agglomerate;
  const index_t n = *std::max_element(assignment.begin(), assignment.end()) + 1;
  const PolyMesh whole_mesh = build_poly_mesh(fine, connectivity, assignment);
  const int d = fine.dimension;
  const std::size_t tags = whole_mesh.boundary_names.size();
  const auto slab = [&](SipgDiscretisation& st, std::size_t local_tags) {
    if (!space_time) return;
    st.set_initial_trace([](std::span<const Point3> x, double* out) {
      for (std::size_t q = 0; q < x.size(); ++q) out[q] = std::sin(x[q].x) + x[q].y;
    });
    st.set_slab(0.3, 0.1, [d, local_tags](double t) { return variable(d, local_tags, t); });
  };
  SipgDiscretisation whole(whole_mesh, variable(d, tags), options, Backend::cpu);
  slab(whole, tags);
  const Host reference = host_of(whole.assemble<double>(AssemblyMethod::deterministic));
  const std::vector<index_t>& global_start = whole.dof_start();

  const std::vector<int> rank_of = partition_agglomerates(fine, connectivity, assignment, n, parts);
  std::vector<int> owned_count(parts, 0);
  for (const int r : rank_of) ++owned_count[r];
  for (int k = 0; k < parts; ++k) EXPECT_GT(owned_count[k], 0) << what;
  std::vector<int> rows_seen(static_cast<std::size_t>(whole.dofs()), 0);
  for (int k = 0; k < parts; ++k) {
    const PolyPart part = extract_poly_part(fine, connectivity, assignment, n, rank_of, k);
    const Connectivity local_connectivity = build_connectivity(part.fine);
    const PolyMesh local_mesh = build_poly_mesh(part.fine, local_connectivity, part.agglomerate);
    ASSERT_EQ(local_mesh.boundary_names.size(), tags + 1) << what;  // the ring's outside: partition-ghost
    SipgOptions local_options = options;
    local_options.owned_elements = part.n_owned;
    SipgDiscretisation st(local_mesh, variable(d, tags + 1), local_options, Backend::cpu);
    slab(st, tags + 1);
    const Host mine = host_of(st.assemble<double>(method));
    ASSERT_EQ(static_cast<index_t>(mine.row_start.size()), st.owned_dofs() + 1) << what;
    const std::vector<index_t>& local_start = st.dof_start();
    const index_t held = part.n_owned + part.n_ghost;
    const auto global_column = [&](index_t c) {
      const index_t j = static_cast<index_t>(std::upper_bound(local_start.begin(), local_start.end(), c) - local_start.begin()) - 1;
      EXPECT_LT(j, held) << what << ": a column of a filler element";
      return global_start[part.global[j]] + (c - local_start[j]);
    };
    double worst = 0, scale = 0, rhs_worst = 0, rhs_scale = 0;
    for (index_t i = 0; i < part.n_owned; ++i) {
      const index_t g = part.global[i];
      for (index_t r = 0; r < local_start[i + 1] - local_start[i]; ++r) {
        const index_t lr = local_start[i] + r, gr = global_start[g] + r;
        ++rows_seen[gr];
        std::map<index_t, double> expected;
        for (index_t e = reference.row_start[gr]; e < reference.row_start[gr + 1]; ++e) expected[reference.column[e]] = reference.value[e];
        ASSERT_EQ(mine.row_start[lr + 1] - mine.row_start[lr], static_cast<index_t>(expected.size())) << what << ": row " << gr;
        for (index_t e = mine.row_start[lr]; e < mine.row_start[lr + 1]; ++e) {
          const auto found = expected.find(global_column(mine.column[e]));
          ASSERT_NE(found, expected.end()) << what << ": row " << gr;
          worst = std::max(worst, std::abs(mine.value[e] - found->second));
          scale = std::max(scale, std::abs(found->second));
        }
        rhs_worst = std::max(rhs_worst, std::abs(mine.rhs[lr] - reference.rhs[gr]));
        rhs_scale = std::max(rhs_scale, std::abs(reference.rhs[gr]));
      }
    }
    EXPECT_LE(worst, 1e-12 * scale) << what << ", part " << k << ": largest difference " << worst << " of " << scale;
    EXPECT_LE(rhs_worst, 1e-12 * rhs_scale) << what << ", part " << k << " (right-hand side)";
  }
  for (index_t r = 0; r < whole.dofs(); ++r) EXPECT_EQ(rows_seen[r], 1) << what << ": row " << r << " assembled by one part";
}

}  // namespace

TEST(PolyPartition, TheAgglomeratesGraphAndItsPartitionAreBalanced) {
  const Mesh fine = rectangle_triangles(0, 1, 0, 1, 32, 32, TriangleLayout::perturbed, 0.2, 3);
  const Connectivity connectivity = build_connectivity(fine);
  const std::vector<index_t> assignment = agglomerate_metis(fine, connectivity, 64).agglomerate;
  const index_t n = *std::max_element(assignment.begin(), assignment.end()) + 1;
  std::vector<index_t> start, neighbours;
  agglomerate_graph(fine, connectivity, assignment, n, start, neighbours);
  for (index_t a = 0; a < n; ++a)
    for (index_t j = start[a]; j < start[a + 1]; ++j) {
      const index_t b = neighbours[j];
      EXPECT_NE(a, b);
      EXPECT_TRUE(std::binary_search(neighbours.begin() + start[b], neighbours.begin() + start[b + 1], a)) << "symmetric";
    }
  const std::vector<int> rank_of = partition_agglomerates(fine, connectivity, assignment, n, 4);
  std::vector<double> load(4, 0);
  for (const index_t a : assignment) load[rank_of[a]] += 1;
  const double mean = static_cast<double>(fine.n_elements()) / 4;
  for (double l : load) EXPECT_LT(l, 1.2 * mean) << "fine triangles per part (the quadrature cost)";
  EXPECT_THROW((void)extract_poly_part(fine, connectivity, assignment, n, rank_of, 4), InputError);
}

TEST(PolyPartition, PartsAssembleTheWholeMatrixRowByRow) {
  const Mesh two = rectangle_triangles(0, 2, 0, 1, 24, 12, TriangleLayout::perturbed, 0.2, 3);
  const Mesh three = box_tetrahedra(1, 1, 1, 4, 4, 4, 0.2, 5);
  for (int p : {1, 3}) {
    SipgOptions options;
    options.degree = p;
    check_parts(two, 40, 3, options, AssemblyMethod::deterministic, false, "2D p = " + std::to_string(p));
    check_parts(two, 40, 2, options, AssemblyMethod::atomic, false, "2D atomic p = " + std::to_string(p));
  }
  SipgOptions options;
  options.degree = 2;
  check_parts(three, 24, 3, options, AssemblyMethod::deterministic, false, "3D p = 2");
  options.space = LocalSpace::reduced;
  check_parts(two, 40, 3, options, AssemblyMethod::deterministic, true, "2D space-time p = 2");
  options.space = LocalSpace::full;
  check_parts(three, 24, 2, options, AssemblyMethod::deterministic, true, "3D space-time full p = 2");
  // Approach 1 on a part is refused (its coordinate list would hold other ranks' rows)
  const Connectivity connectivity = build_connectivity(two);
  const std::vector<index_t> assignment = agglomerate_metis(two, connectivity, 40).agglomerate;
  const index_t n = *std::max_element(assignment.begin(), assignment.end()) + 1;
  const PolyPart part = extract_poly_part(two, connectivity, assignment, n, partition_agglomerates(two, connectivity, assignment, n, 2), 0);
  const Connectivity local = build_connectivity(part.fine);
  const PolyMesh mesh = build_poly_mesh(part.fine, local, part.agglomerate);
  SipgOptions steady;
  steady.owned_elements = part.n_owned;
  const SipgDiscretisation st(mesh, variable(2, mesh.boundary_names.size()), steady, Backend::cpu);
  EXPECT_THROW((void)st.assemble<double>(AssemblyMethod::coo), InputError);
}

TEST(PolyPartition, PartsErrorSquaresSumToTheWholeMeshsErrors) {
  // the whole mesh's solution, handed to each part in its local numbering (owned and ghosts; the
  // fillers' zeros are never read): the parts' squares (interfaces with one owned side counted half
  // on each side) sum to the whole's, in every norm
  for (const Mesh& fine : {rectangle_triangles(0, 2, 0, 1, 24, 12, TriangleLayout::perturbed, 0.2, 3), box_tetrahedra(1, 1, 1, 4, 4, 4, 0.2, 5)}) {
    const Connectivity connectivity = build_connectivity(fine);
    const std::vector<index_t> assignment = agglomerate_metis(fine, connectivity, 30).agglomerate;
    const index_t n = *std::max_element(assignment.begin(), assignment.end()) + 1;
    const PolyMesh whole_mesh = build_poly_mesh(fine, connectivity, assignment);
    const int d = fine.dimension;
    SipgOptions options;
    options.degree = 2;
    const SipgDiscretisation whole(whole_mesh, variable(d, whole_mesh.boundary_names.size()), options, Backend::cpu);
    const AssembledSystem<double> system = whole.assemble<double>(AssemblyMethod::deterministic);
    const std::vector<double> x = linalg::sparse_lu_solve(system.matrix, system.rhs.to_host());
    const auto exact = [](std::span<const Point3> p, double* out) {
      for (std::size_t q = 0; q < p.size(); ++q) out[q] = std::sin(p[q].x) * std::cos(p[q].y) + p[q].z;
    };
    const auto gradient = [d](std::span<const Point3> p, double* out) {
      for (std::size_t q = 0; q < p.size(); ++q) {
        out[d * q] = std::cos(p[q].x) * std::cos(p[q].y);
        out[d * q + 1] = -std::sin(p[q].x) * std::sin(p[q].y);
        if (d == 3) out[d * q + 2] = 1;
      }
    };
    const SipgErrorSquares reference = whole.error_squares(x, exact, gradient);
    const SipgErrors direct = whole.errors(x, exact, gradient), through = errors_from_squares(reference);
    EXPECT_EQ(direct.l2, through.l2);
    EXPECT_EQ(direct.dg, through.dg);
    const std::vector<int> rank_of = partition_agglomerates(fine, connectivity, assignment, n, 3);
    SipgErrorSquares sum;
    for (int k = 0; k < 3; ++k) {
      const PolyPart part = extract_poly_part(fine, connectivity, assignment, n, rank_of, k);
      const Connectivity local_connectivity = build_connectivity(part.fine);
      const PolyMesh local_mesh = build_poly_mesh(part.fine, local_connectivity, part.agglomerate);
      SipgOptions local_options = options;
      local_options.owned_elements = part.n_owned;
      const SipgDiscretisation st(local_mesh, variable(d, local_mesh.boundary_names.size()), local_options, Backend::cpu);
      std::vector<double> local(static_cast<std::size_t>(st.dofs()), 0.0);
      for (index_t j = 0; j < part.n_owned + part.n_ghost; ++j)
        for (index_t i = 0; i < st.dof_start()[j + 1] - st.dof_start()[j]; ++i)
          local[st.dof_start()[j] + i] = x[whole.dof_start()[part.global[j]] + i];
      const SipgErrorSquares mine = st.error_squares(local, exact, gradient);
      sum.l2 += mine.l2;
      sum.h1 += mine.h1;
      sum.dg += mine.dg;
      sum.jumps += mine.jumps;
    }
    EXPECT_NEAR(sum.l2, reference.l2, 1e-12 * reference.l2) << d << "D";
    EXPECT_NEAR(sum.h1, reference.h1, 1e-12 * reference.h1) << d << "D";
    EXPECT_NEAR(sum.dg, reference.dg, 1e-12 * reference.dg) << d << "D";
    EXPECT_NEAR(sum.jumps, reference.jumps, 1e-12 * reference.jumps) << d << "D";
    EXPECT_GT(reference.jumps, 0);
  }
}

TEST(SipgReduction, PerEntryAndPerBlockGiveTheSameBits) {
  // the deterministic assembly's last step, one thread per entry or per block: each entry's
  // contributions are added in the same order, so the matrices are the same bits (2D and 3D,
  // variable degrees, steady and space-time, a part's owned rows)
  for (const Mesh& fine : {rectangle_triangles(0, 2, 0, 1, 16, 8, TriangleLayout::perturbed, 0.2, 3), box_tetrahedra(1, 1, 1, 3, 3, 3, 0.2, 5)}) {
    const Connectivity connectivity = build_connectivity(fine);
    const std::vector<index_t> assignment = agglomerate_metis(fine, connectivity, 20).agglomerate;
    const PolyMesh mesh = build_poly_mesh(fine, connectivity, assignment);
    const int d = fine.dimension;
    for (int variant = 0; variant < 3; ++variant) {
      SipgOptions options;
      options.degree = 2;
      if (variant == 1)
        for (index_t e = 0; e < mesh.n_elements(); ++e) options.degrees.push_back(1 + static_cast<int>(e % 3));
      if (variant == 2) options.owned_elements = mesh.n_elements() / 2;
      SipgOptions by_block = options;
      by_block.reduction = SipgOptions::Reduction::per_block;
      const SipgDiscretisation a(mesh, variable(d, mesh.boundary_names.size()), options, Backend::cpu);
      const SipgDiscretisation b(mesh, variable(d, mesh.boundary_names.size()), by_block, Backend::cpu);
      const AssembledSystem<double> x = a.assemble<double>(AssemblyMethod::deterministic), y = b.assemble<double>(AssemblyMethod::deterministic);
      EXPECT_EQ(x.matrix.value.to_host(), y.matrix.value.to_host()) << d << "D, variant " << variant;
      EXPECT_EQ(x.matrix.column.to_host(), y.matrix.column.to_host());
      EXPECT_GT(x.matrix.nonzeros(), 0);
    }
    SipgOptions slabs;
    slabs.degree = 2;
    slabs.space = LocalSpace::reduced;
    SipgOptions by_block = slabs;
    by_block.reduction = SipgOptions::Reduction::per_block;
    SipgDiscretisation a(mesh, variable(d, mesh.boundary_names.size()), slabs, Backend::cpu);
    SipgDiscretisation b(mesh, variable(d, mesh.boundary_names.size()), by_block, Backend::cpu);
    const std::size_t tags = mesh.boundary_names.size();
    for (SipgDiscretisation* st : {&a, &b}) {
      st->set_initial_trace([](std::span<const Point3> x, double* out) {
        for (std::size_t q = 0; q < x.size(); ++q) out[q] = std::sin(x[q].x) + x[q].y;
      });
      st->set_slab(0.3, 0.1, [d, tags](double t) { return variable(d, tags, t); });
    }
    EXPECT_EQ(a.assemble<double>(AssemblyMethod::deterministic).matrix.value.to_host(),
              b.assemble<double>(AssemblyMethod::deterministic).matrix.value.to_host()) << d << "D space-time";
  }
}
