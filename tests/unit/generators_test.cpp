// Built-in meshes: exact counts, exact geometry, and every connectivity invariant.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numbers>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/lagrange.hpp"
#include "flowdg/mesh/validate.hpp"
#include "mesh_invariants.hpp"

using namespace flowdg;
using flowdg::testing::expect_valid_connectivity;
using flowdg::testing::n_vertex_nodes;
using flowdg::testing::simplex_measure;

namespace {

std::map<std::string, index_t> faces_per_tag(const Mesh& mesh, const Connectivity& connectivity) {
  std::map<std::string, index_t> counts;
  for (std::size_t t = 0; t < mesh.boundary_names.size(); ++t)
    counts[mesh.boundary_names[t]] = connectivity.tag_offsets[t + 1] - connectivity.tag_offsets[t];
  return counts;
}

double total_area(const Mesh& mesh) {
  double area = 0;
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const auto v = [&](int k) { return flowdg::testing::element_vertex(mesh, e, k); };
    if (mesh.element_shape(e) == Shape::triangle) {
      area += simplex_measure(mesh, e);
    } else {
      const Point3 d1 = v(2) - v(0), d2 = v(3) - v(1);
      area += 0.5 * (d1.x * d2.y - d1.y * d2.x);
    }
  }
  return area;
}

// Euler's formula for a triangulated disk: vertices - edges + faces = 1.
void expect_disk_topology(const Mesh& mesh, const Connectivity& connectivity) {
  EXPECT_EQ(n_vertex_nodes(mesh) - connectivity.n_faces() + mesh.n_elements(), 1);
}

}  // namespace

TEST(Generators, RectangleTrianglesCountsAreaTagsAndAlternatingDiagonals) {
  const int nx = 7, ny = 4;
  const Mesh mesh = rectangle_triangles(-1.0, 2.5, 0.5, 2.0, nx, ny);
  EXPECT_EQ(mesh.n_elements(), 2 * nx * ny);
  EXPECT_EQ(mesh.n_nodes(), (nx + 1) * (ny + 1));
  for (index_t e = 0; e < mesh.n_elements(); ++e) EXPECT_GT(simplex_measure(mesh, e), 0) << e;
  EXPECT_NEAR(total_area(mesh), 3.5 * 1.5, 1e-14 * 3.5 * 1.5);
  const Connectivity connectivity = build_connectivity(mesh);
  expect_valid_connectivity(mesh, connectivity);
  expect_disk_topology(mesh, connectivity);
  EXPECT_EQ(faces_per_tag(mesh, connectivity),
            (std::map<std::string, index_t>{{"bottom", nx}, {"right", ny}, {"top", nx}, {"left", ny}}));
  // Diagonals rising to the right lie in the cells with i + j even: ceil(nx ny / 2) of them.
  int rising = 0, falling = 0;
  for (index_t f = connectivity.n_boundary_faces(); f < connectivity.n_faces(); ++f) {
    const Face& face = connectivity.faces[f];
    const Shape shape = mesh.element_shape(face.element_m);
    const Point3 a = flowdg::testing::element_vertex(mesh, face.element_m, face_vertex(shape, face.local_face_m, 0));
    const Point3 b = flowdg::testing::element_vertex(mesh, face.element_m, face_vertex(shape, face.local_face_m, 1));
    const double slope = (b.x - a.x) * (b.y - a.y);
    rising += slope > 0;
    falling += slope < 0;
  }
  EXPECT_EQ(rising, (nx * ny + 1) / 2);
  EXPECT_EQ(falling, nx * ny / 2);
  EXPECT_EQ(mesh.source, "builtin:rectangle([-1, 2.5] x [0.5, 2], 7 x 4 triangle cells)");
}

TEST(Generators, PerturbedRectangleMovesOnlyInteriorNodesWithinBoundAndStaysValid) {
  const int nx = 12, ny = 9;
  const double perturbation = 0.3, h = std::min(2.0 / nx, 1.0 / ny);
  const Mesh plain = rectangle_triangles(0, 2, 0, 1, nx, ny);
  const Mesh mesh = rectangle_triangles(0, 2, 0, 1, nx, ny, TriangleLayout::perturbed, perturbation, 7);
  ASSERT_EQ(mesh.n_nodes(), plain.n_nodes());
  ASSERT_EQ(mesh.element_nodes, plain.element_nodes);
  int moved = 0;
  for (index_t n = 0; n < mesh.n_nodes(); ++n) {
    const Point3 p = mesh.nodes[n], q = plain.nodes[n];
    const bool boundary = q.x == 0 || q.x == 2 || q.y == 0 || q.y == 1;
    if (boundary) {
      EXPECT_TRUE(p.x == q.x && p.y == q.y) << "boundary node " << n << " moved";
    } else {
      EXPECT_LE(flowdg::testing::length(p - q), perturbation * h * (1 + 1e-15)) << n;
      moved += p.x != q.x || p.y != q.y;
    }
  }
  EXPECT_EQ(moved, (nx - 1) * (ny - 1));
  for (index_t e = 0; e < mesh.n_elements(); ++e) EXPECT_GT(simplex_measure(mesh, e), 0) << e;
  EXPECT_NEAR(total_area(mesh), 2.0, 1e-14 * 2.0);
  expect_valid_connectivity(mesh, build_connectivity(mesh));

  const Mesh again = rectangle_triangles(0, 2, 0, 1, nx, ny, TriangleLayout::perturbed, perturbation, 7);
  const Mesh other_seed = rectangle_triangles(0, 2, 0, 1, nx, ny, TriangleLayout::perturbed, perturbation, 8);
  EXPECT_EQ(again.nodes[nx + 2].x, mesh.nodes[nx + 2].x);
  EXPECT_NE(other_seed.nodes[nx + 2].x, mesh.nodes[nx + 2].x);
  EXPECT_THROW(rectangle_triangles(0, 2, 0, 1, nx, ny, TriangleLayout::perturbed, 0.5), InputError);
}

TEST(Generators, RectangleQuadrilateralsCountsAreaAndInvariants) {
  const int nx = 5, ny = 6;
  const Mesh mesh = rectangle_quadrilaterals(0, 1, 0, 3, nx, ny, 0.25, 3);
  EXPECT_EQ(mesh.n_elements(), nx * ny);
  EXPECT_EQ(mesh.element_types, std::vector<ElementType>(nx * ny, ElementType::quadrilateral4));
  EXPECT_NEAR(total_area(mesh), 3.0, 1e-14 * 3.0);
  const Connectivity connectivity = build_connectivity(mesh);
  expect_valid_connectivity(mesh, connectivity);
  expect_disk_topology(mesh, connectivity);
  EXPECT_EQ(connectivity.n_faces(), nx * (ny + 1) + ny * (nx + 1));
}

TEST(Generators, QuarterAnnulusIsMeshAOfThePaper) {
  const Mesh mesh = quarter_annulus();
  EXPECT_EQ(mesh.n_elements(), 180);
  EXPECT_EQ(mesh.n_nodes(), 114);
  const Connectivity connectivity = build_connectivity(mesh);
  EXPECT_EQ(connectivity.n_faces(), 293);
  expect_valid_connectivity(mesh, connectivity);
  expect_disk_topology(mesh, connectivity);
  EXPECT_EQ(faces_per_tag(mesh, connectivity),
            (std::map<std::string, index_t>{{"inner", 18}, {"outer", 18}, {"inflow", 5}, {"outflow", 5}}));
  ASSERT_EQ(mesh.boundary_circles.size(), 2u);
  for (const BoundaryCircle& circle : mesh.boundary_circles) {
    EXPECT_EQ(circle.center.x, 0.0);
    EXPECT_EQ(circle.center.y, 0.0);
    EXPECT_EQ(circle.radius, mesh.boundary_names[circle.tag] == "inner" ? 1.0 : 1.384);
  }
  for (index_t e = 0; e < mesh.n_elements(); ++e) EXPECT_GT(simplex_measure(mesh, e), 0) << e;
  for (const TaggedFacet& facet : mesh.tagged_facets) {
    const std::string& name = mesh.boundary_names[facet.tag];
    for (int k = 0; k < 2; ++k) {
      const Point3 p = mesh.nodes[facet.vertices[k]];
      if (name == "inflow") {
        EXPECT_EQ(p.y, 0.0);
      } else if (name == "outflow") {
        EXPECT_EQ(p.x, 0.0);
      }
    }
  }
}

// Table 6 of Fuhry, Giuliani & Krivodonova (2015): meshes A..F of the supersonic vortex.
TEST(Generators, RefinedAnnulusMatchesTable6AndKeepsArcNodesOnTheCircles) {
  const index_t triangles[6] = {180, 720, 2880, 11520, 46080, 184320};
  const index_t edges[6] = {293, 1126, 4412, 17464, 69488, 277216};
  Mesh mesh = quarter_annulus();
  for (int level = 0; level < 6; ++level) {
    SCOPED_TRACE(cat("mesh ", static_cast<char>('A' + level)));
    EXPECT_EQ(mesh.n_elements(), triangles[level]);
    const Connectivity connectivity = build_connectivity(mesh);
    EXPECT_EQ(connectivity.n_faces(), edges[level]);
    expect_disk_topology(mesh, connectivity);
    const index_t arc_faces = 18 << level, side_faces = 5 << level;
    EXPECT_EQ(faces_per_tag(mesh, connectivity),
              (std::map<std::string, index_t>{
                  {"inner", arc_faces}, {"outer", arc_faces}, {"inflow", side_faces}, {"outflow", side_faces}}));
    expect_valid_connectivity(mesh, connectivity);
    for (const TaggedFacet& facet : mesh.tagged_facets)
      for (const BoundaryCircle& circle : mesh.boundary_circles)
        if (circle.tag == facet.tag)
          for (int k = 0; k < 2; ++k) {
            const Point3 p = mesh.nodes[facet.vertices[k]];
            ASSERT_NEAR(std::hypot(p.x, p.y), circle.radius, 1e-14 * circle.radius);
          }
    for (index_t e = 0; e < mesh.n_elements(); ++e) ASSERT_GT(simplex_measure(mesh, e), 0) << e;
    if (level < 5) mesh = refine_uniform(mesh);
  }
  EXPECT_EQ(mesh.boundary_circles.size(), 2u);
  EXPECT_EQ(mesh.source, "refine(refine(refine(refine(refine(builtin:annulus(r_inner=1, r_outer=1.384, "
                         "n_radial=5, n_angular=18))))))");
}

TEST(Generators, RefinedQuadrilateralsShareMidpointsAndKeepArea) {
  const Mesh coarse = rectangle_quadrilaterals(0, 3, 0, 2, 3, 2, 0.2, 5);
  const Connectivity coarse_faces = build_connectivity(coarse);
  const Mesh fine = refine_uniform(coarse);
  EXPECT_EQ(fine.n_elements(), 4 * coarse.n_elements());
  // One new node per edge and one per quadrilateral: midpoints are shared, not duplicated.
  EXPECT_EQ(fine.n_nodes(), coarse.n_nodes() + coarse_faces.n_faces() + coarse.n_elements());
  EXPECT_EQ(fine.tagged_facets.size(), 2 * coarse.tagged_facets.size());
  EXPECT_NEAR(total_area(fine), 6.0, 1e-14 * 6.0);
  const Connectivity connectivity = build_connectivity(fine);
  expect_valid_connectivity(fine, connectivity);
  expect_disk_topology(fine, connectivity);
}

TEST(Generators, RefineRejectsThreeDimensionalMeshes) {
  EXPECT_THROW(refine_uniform(box_tetrahedra(1, 1, 1, 1, 1, 1)), InputError);
}

TEST(Generators, BoxTetrahedraIsConformingWithExactVolume) {
  const int nx = 3, ny = 2, nz = 4;
  const double lx = 1.5, ly = 0.5, lz = 2.0;
  const Mesh mesh = box_tetrahedra(lx, ly, lz, nx, ny, nz);
  EXPECT_EQ(mesh.dimension, 3);
  EXPECT_EQ(mesh.n_elements(), 6 * nx * ny * nz);
  double volume = 0;
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const double v = simplex_measure(mesh, e);
    EXPECT_NEAR(v, lx * ly * lz / (6.0 * nx * ny * nz), 1e-14 * v) << "tetrahedron " << e;
    volume += v;
  }
  EXPECT_NEAR(volume, lx * ly * lz, 1e-14 * lx * ly * lz);
  const Connectivity connectivity = build_connectivity(mesh);
  expect_valid_connectivity(mesh, connectivity);
  const index_t boundary = 4 * (nx * ny + ny * nz + nz * nx);
  EXPECT_EQ(connectivity.n_boundary_faces(), boundary);
  // Every tetrahedron face is either on the boundary or shared: 4 K = boundary + 2 interior.
  EXPECT_EQ(4 * mesh.n_elements(), boundary + 2 * connectivity.n_interior_faces());
  EXPECT_EQ(faces_per_tag(mesh, connectivity),
            (std::map<std::string, index_t>{{"xmin", 2 * ny * nz}, {"xmax", 2 * ny * nz},
                                            {"ymin", 2 * nz * nx}, {"ymax", 2 * nz * nx},
                                            {"zmin", 2 * nx * ny}, {"zmax", 2 * nx * ny}}));
}

TEST(Generators, BoxHexahedraIsConformingWithExactVolumeAndTheTetrahedraBoxsTags) {
  const int nx = 3, ny = 2, nz = 4;
  const double lx = 1.5, ly = 0.5, lz = 2.0;
  const Mesh mesh = box_hexahedra(lx, ly, lz, nx, ny, nz);
  EXPECT_EQ(mesh.dimension, 3);
  EXPECT_EQ(mesh.n_elements(), nx * ny * nz);
  EXPECT_EQ(mesh.n_nodes(), (nx + 1) * (ny + 1) * (nz + 1));
  EXPECT_EQ(mesh.boundary_names, box_tetrahedra(lx, ly, lz, nx, ny, nz).boundary_names);
  const Connectivity connectivity = build_connectivity(mesh);
  expect_valid_connectivity(mesh, connectivity);
  EXPECT_EQ(faces_per_tag(mesh, connectivity),
            (std::map<std::string, index_t>{{"xmin", ny * nz}, {"xmax", ny * nz}, {"ymin", nz * nx}, {"ymax", nz * nx},
                                            {"zmin", nx * ny}, {"zmax", nx * ny}}));
  EXPECT_EQ(6 * mesh.n_elements(), connectivity.n_boundary_faces() + 2 * connectivity.n_interior_faces());
  // Each cell is the box [i dx, (i+1) dx] x ...: vertex k at the reference vertex's corner.
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const Point3 low = flowdg::testing::element_vertex(mesh, e, 0);
    for (int k = 0; k < 8; ++k) {
      const Point3 r = reference_vertex(Shape::hexahedron, k), x = flowdg::testing::element_vertex(mesh, e, k);
      EXPECT_NEAR(x.x - low.x, 0.5 * (r.x + 1) * lx / nx, 1e-15);
      EXPECT_NEAR(x.y - low.y, 0.5 * (r.y + 1) * ly / ny, 1e-15);
      EXPECT_NEAR(x.z - low.z, 0.5 * (r.z + 1) * lz / nz, 1e-15);
    }
  }
}

TEST(Generators, CurvedQuarterAnnulusOfOrderOneIsTheStraightOneBitForBit) {
  const Mesh straight = quarter_annulus(), curved = curved_quarter_annulus(1);
  EXPECT_EQ(curved.element_types, straight.element_types);
  EXPECT_EQ(curved.element_nodes, straight.element_nodes);
  ASSERT_EQ(curved.n_nodes(), straight.n_nodes());
  for (index_t n = 0; n < straight.n_nodes(); ++n)
    EXPECT_TRUE(curved.nodes[n].x == straight.nodes[n].x && curved.nodes[n].y == straight.nodes[n].y) << n;
  EXPECT_EQ(curved.source, straight.source);
}

TEST(Generators, CurvedQuarterAnnulusPlacesEveryNodeByThePolarMapWithWallNodesOnTheCircles) {
  constexpr double r_inner = 1.0, r_outer = 1.384;
  const double exact_area = std::numbers::pi / 4 * (r_outer * r_outer - r_inner * r_inner);
  for (int order = 2; order <= 4; ++order) {
    SCOPED_TRACE(order);
    const Mesh straight = quarter_annulus(r_inner, r_outer, 2, 6);
    const Mesh mesh = curved_quarter_annulus(order, r_inner, r_outer, 2, 6);
    ASSERT_EQ(mesh.n_elements(), straight.n_elements());
    EXPECT_EQ(mesh.boundary_names, straight.boundary_names);
    EXPECT_EQ(mesh.boundary_circles.size(), 2u);
    // Node k of element e is the polar image of the linear interpolation of the vertices' (r, theta).
    int on_circles = 0;
    for (index_t e = 0; e < mesh.n_elements(); ++e) {
      ASSERT_EQ(geometric_order(mesh.element_types[e]), order);
      const index_t* ids = mesh.element_node_ids(e);
      const std::vector<Point3> reference = reference_nodes(mesh.element_types[e]);
      double r[3], theta[3];
      for (int v = 0; v < 3; ++v) {
        const Point3 x = mesh.nodes[ids[v]];
        r[v] = std::hypot(x.x, x.y);
        theta[v] = std::atan2(x.y, x.x);
      }
      for (std::size_t k = 0; k < reference.size(); ++k) {
        const double l1 = 0.5 * (1 + reference[k].x), l2 = 0.5 * (1 + reference[k].y), l0 = 1 - l1 - l2;
        const double radius = l0 * r[0] + l1 * r[1] + l2 * r[2], angle = l0 * theta[0] + l1 * theta[1] + l2 * theta[2];
        const Point3 x = mesh.nodes[ids[k]];
        ASSERT_NEAR(x.x, radius * std::cos(angle), 1e-14) << "element " << e << " node " << k;
        ASSERT_NEAR(x.y, radius * std::sin(angle), 1e-14) << "element " << e << " node " << k;
        // On a wall edge (two vertices on one circle, the node between them) the radius is the wall's.
        for (const double wall : {r_inner, r_outer}) {
          int vertices_on_wall = 0;
          const double weights[3] = {l0, l1, l2};
          for (int v = 0; v < 3; ++v) vertices_on_wall += std::abs(r[v] - wall) < 1e-15 || std::abs(weights[v]) < 1e-12 ? 1 : 0;
          if (k >= 3 && vertices_on_wall == 3) {
            EXPECT_NEAR(std::hypot(x.x, x.y), wall, 1e-14);
            ++on_circles;
          }
        }
      }
    }
    EXPECT_EQ(on_circles, 2 * 6 * (order - 1));  // the wall edges' nodes
    // The area: the straight mesh's chords miss 8e-3 of it; the curved elements' error (here
    // 7.0e-6, 1.0e-6, 1.2e-9) is that of interpolating the arcs.
    double area = 0;
    for (index_t e = 0; e < mesh.n_elements(); ++e) {
      const QuadratureRule rule = triangle_rule(2 * (order - 1));
      for (int q = 0; q < rule.size(); ++q) area += rule.weights[q] * element_jacobian(mesh, e, rule.points[q]).det;
    }
    const double largest_error[5] = {0, 0, 2e-5, 3e-6, 4e-9};
    EXPECT_LT(std::abs(area - exact_area), largest_error[order]);
    Mesh checked = mesh;
    EXPECT_TRUE(validate_mesh(checked).ok());
    expect_valid_connectivity(mesh, build_connectivity(mesh));
  }
}

TEST(Generators, BadArgumentsAreInputErrors) {
  EXPECT_THROW(rectangle_triangles(0, 1, 0, 1, 0, 3), InputError);
  EXPECT_THROW(rectangle_quadrilaterals(1, 0, 0, 1, 2, 2), InputError);
  EXPECT_THROW(quarter_annulus(1.0, 0.5), InputError);
  EXPECT_THROW(box_tetrahedra(1, -1, 1, 2, 2, 2), InputError);
  EXPECT_THROW(box_hexahedra(1, 1, 1, 2, 0, 2), InputError);
  EXPECT_THROW(curved_quarter_annulus(5), InputError);
  EXPECT_THROW(curved_quarter_annulus(0), InputError);
  EXPECT_THROW(curved_annulus(rectangle_quadrilaterals(1, 2, 1, 2, 2, 2), 2), InputError);
}
