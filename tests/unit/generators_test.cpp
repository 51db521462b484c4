// Built-in meshes: exact counts, exact geometry, and every connectivity invariant.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/lagrange.hpp"
#include "flowdg/mesh/mesh_info.hpp"
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

bool same_point(Point3 a, Point3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

Mesh box_of(bool hexahedra, double lx, double ly, double lz, int nx, int ny, int nz, double perturbation = 0.0,
            std::uint64_t seed = 1) {
  return hexahedra ? box_hexahedra(lx, ly, lz, nx, ny, nz, perturbation, seed)
                   : box_tetrahedra(lx, ly, lz, nx, ny, nz, perturbation, seed);
}

// 6 x the signed volume of the tetrahedron (a, b, c, d): (b - a) . ((c - a) x (d - a)).
double six_volume(Point3 a, Point3 b, Point3 c, Point3 d) { return dot(b - a, cross(c - a, d - a)); }

// The Jacobian determinants of hexahedron e's trilinear map at its 8 corners, up to the factor 1/8
// of the reference cube [-1, 1]^3: at corner (a, b, c) in {0, 1}^3 the derivatives are the edges
// from x(0, b, c) to x(1, b, c), from x(a, 0, c) to x(a, 1, c) and from x(a, b, 0) to x(a, b, 1).
std::array<double, 8> hexahedron_corner_jacobians(const Mesh& mesh, index_t e) {
  constexpr int corners[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
  const auto x = [&](int a, int b, int c) {
    for (int k = 0; k < 8; ++k)
      if (corners[k][0] == a && corners[k][1] == b && corners[k][2] == c)
        return flowdg::testing::element_vertex(mesh, e, k);
    return Point3{};
  };
  std::array<double, 8> jacobians{};
  for (int k = 0; k < 8; ++k) {
    const int a = corners[k][0], b = corners[k][1], c = corners[k][2];
    jacobians[k] = dot(x(1, b, c) - x(0, b, c), cross(x(a, 1, c) - x(a, 0, c), x(a, b, 1) - x(a, b, 0)));
  }
  return jacobians;
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

TEST(Generators, PerturbedBoxMovesEveryInteriorNodeWithinTheBoundAndNoBoundaryNode) {
  const int nx = 6, ny = 5, nz = 4;
  const double lx = 1.2, ly = 1.0, lz = 0.6, perturbation = 0.2;
  const double bound = perturbation * std::min({lx / nx, ly / ny, lz / nz});  // lz / nz = 0.15
  for (const bool hexahedra : {false, true}) {
    SCOPED_TRACE(hexahedra ? "hexahedra" : "tetrahedra");
    const Mesh plain = box_of(hexahedra, lx, ly, lz, nx, ny, nz);
    const Mesh mesh = box_of(hexahedra, lx, ly, lz, nx, ny, nz, perturbation, 7);
    ASSERT_EQ(mesh.n_nodes(), plain.n_nodes());
    EXPECT_EQ(mesh.element_types, plain.element_types);
    EXPECT_EQ(mesh.element_nodes, plain.element_nodes);
    EXPECT_EQ(mesh.boundary_names, plain.boundary_names);
    ASSERT_EQ(mesh.tagged_facets.size(), plain.tagged_facets.size());
    for (std::size_t f = 0; f < mesh.tagged_facets.size(); ++f) {
      EXPECT_EQ(mesh.tagged_facets[f].vertices, plain.tagged_facets[f].vertices);
      EXPECT_EQ(mesh.tagged_facets[f].tag, plain.tagged_facets[f].tag);
    }
    int boundary = 0, interior = 0, moved = 0;
    double largest = 0;
    for (index_t n = 0; n < mesh.n_nodes(); ++n) {
      const Point3 p = mesh.nodes[n], q = plain.nodes[n];
      if (q.x == 0 || q.x == lx || q.y == 0 || q.y == ly || q.z == 0 || q.z == lz) {
        ++boundary;
        EXPECT_TRUE(same_point(p, q)) << "boundary node " << n << " moved";
      } else {
        ++interior;
        const double distance = flowdg::testing::length(p - q);
        EXPECT_LE(distance, bound * (1 + 1e-15)) << "node " << n;
        moved += !same_point(p, q);
        largest = std::max(largest, distance);
      }
    }
    EXPECT_EQ(interior, (nx - 1) * (ny - 1) * (nz - 1));
    EXPECT_EQ(boundary + interior, (nx + 1) * (ny + 1) * (nz + 1));
    EXPECT_EQ(moved, interior);
    // Uniform in the ball: 60 draws that all stay within 0.8 of the radius would have probability 0.512^60.
    EXPECT_GT(largest, 0.8 * bound);
    // The faces stay flat: every tagged facet's vertices keep the coordinate of their side.
    for (const TaggedFacet& facet : mesh.tagged_facets) {
      const std::string& name = mesh.boundary_names[facet.tag];
      const int axis = name[0] - 'x';
      const double side = name.ends_with("min") ? 0.0 : std::array{lx, ly, lz}[axis];
      for (int k = 0; k < facet.n_vertices; ++k) {
        const Point3 p = mesh.nodes[facet.vertices[k]];
        EXPECT_EQ((std::array{p.x, p.y, p.z}[axis]), side) << name;
      }
    }
    expect_valid_connectivity(mesh, build_connectivity(mesh));
    EXPECT_EQ(mesh.source, hexahedra ? "builtin:box(1.2 x 1 x 0.6, 6 x 5 x 4 hexahedra, perturbation 0.2, seed 7)"
                                     : "builtin:box(1.2 x 1 x 0.6, 6 x 5 x 4 cells of 6 tetrahedra, perturbation 0.2, seed 7)");
  }
  // Both cell kinds share the nodes, and so the perturbation; perturbation 0 is the plain box.
  const Mesh tetrahedra = box_tetrahedra(lx, ly, lz, nx, ny, nz, perturbation, 7);
  const Mesh hexahedra = box_hexahedra(lx, ly, lz, nx, ny, nz, perturbation, 7);
  for (index_t n = 0; n < tetrahedra.n_nodes(); ++n) EXPECT_TRUE(same_point(tetrahedra.nodes[n], hexahedra.nodes[n])) << n;
  const Mesh unperturbed = box_tetrahedra(lx, ly, lz, nx, ny, nz, 0.0, 7), plain = box_tetrahedra(lx, ly, lz, nx, ny, nz);
  for (index_t n = 0; n < plain.n_nodes(); ++n) EXPECT_TRUE(same_point(unperturbed.nodes[n], plain.nodes[n])) << n;
  EXPECT_EQ(unperturbed.source, "builtin:box(1.2 x 1 x 0.6, 6 x 5 x 4 cells of 6 tetrahedra)");
}

TEST(Generators, PerturbedBoxIsReproducibleBySeed) {
  const int nx = 5, ny = 4, nz = 4;
  for (const bool hexahedra : {false, true}) {
    SCOPED_TRACE(hexahedra ? "hexahedra" : "tetrahedra");
    const Mesh plain = box_of(hexahedra, 1, 2, 1, nx, ny, nz);
    const Mesh mesh = box_of(hexahedra, 1, 2, 1, nx, ny, nz, 0.25, 7);
    const Mesh again = box_of(hexahedra, 1, 2, 1, nx, ny, nz, 0.25, 7);
    const Mesh other_seed = box_of(hexahedra, 1, 2, 1, nx, ny, nz, 0.25, 8);
    ASSERT_EQ(again.n_nodes(), mesh.n_nodes());
    ASSERT_EQ(other_seed.n_nodes(), mesh.n_nodes());
    int differing = 0, interior = 0;
    for (index_t n = 0; n < mesh.n_nodes(); ++n) {
      EXPECT_TRUE(same_point(again.nodes[n], mesh.nodes[n])) << "node " << n;
      const bool moved = !same_point(mesh.nodes[n], plain.nodes[n]);
      interior += moved;
      differing += !same_point(other_seed.nodes[n], mesh.nodes[n]);
      if (!moved) {
        EXPECT_TRUE(same_point(other_seed.nodes[n], mesh.nodes[n])) << "node " << n;
      }
    }
    EXPECT_EQ(interior, (nx - 1) * (ny - 1) * (nz - 1));
    EXPECT_EQ(differing, interior);
  }
}

// 0.28 is the largest perturbation allowed; cubic cells (the 6 x 5 x 4 box of sides 6, 5, 4) are the
// tightest case of the validity argument, stretched ones (the unit box) have room to spare.
TEST(Generators, PerturbedBoxKeepsEveryElementPositiveAtTheLargestPerturbation) {
  const int nx = 6, ny = 5, nz = 4;
  const double perturbation = 0.28;
  for (const auto& [lx, ly, lz] : {std::array{6.0, 5.0, 4.0}, std::array{1.0, 1.0, 1.0}}) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      SCOPED_TRACE(cat(lx, " x ", ly, " x ", lz, ", seed ", seed));
      const Mesh tetrahedra = box_tetrahedra(lx, ly, lz, nx, ny, nz, perturbation, seed);
      ASSERT_EQ(tetrahedra.n_elements(), 6 * nx * ny * nz);
      double volume = 0, smallest = INFINITY;
      for (index_t e = 0; e < tetrahedra.n_elements(); ++e) {
        const auto v = [&](int k) { return flowdg::testing::element_vertex(tetrahedra, e, k); };
        const double six = six_volume(v(0), v(1), v(2), v(3));
        EXPECT_GT(six, 0) << "tetrahedron " << e;
        smallest = std::min(smallest, six / 6);
        volume += six / 6;
      }
      // Only the interior moved: the tetrahedra still fill the box exactly.
      EXPECT_NEAR(volume, lx * ly * lz, 1e-13 * lx * ly * lz);
      // ... and they did move: the smallest is well below the unperturbed volume.
      EXPECT_LT(smallest, 0.8 * lx * ly * lz / (6.0 * nx * ny * nz));
      Mesh checked = tetrahedra;
      EXPECT_TRUE(validate_mesh(checked).ok());

      const Mesh hexahedra = box_hexahedra(lx, ly, lz, nx, ny, nz, perturbation, seed);
      ASSERT_EQ(hexahedra.n_elements(), nx * ny * nz);
      for (index_t e = 0; e < hexahedra.n_elements(); ++e) {
        const std::array<double, 8> jacobians = hexahedron_corner_jacobians(hexahedra, e);
        for (int k = 0; k < 8; ++k) {
          EXPECT_GT(jacobians[k], 0) << "hexahedron " << e << " corner " << k;
          // The library's Jacobian at the reference corner agrees (x 8: the reference cube is [-1, 1]^3).
          const double library = element_jacobian(hexahedra, e, reference_vertex(Shape::hexahedron, k)).det;
          EXPECT_NEAR(8 * library, jacobians[k], 1e-12 * std::abs(jacobians[k])) << "hexahedron " << e << " corner " << k;
        }
      }
      checked = hexahedra;
      EXPECT_TRUE(validate_mesh(checked).ok());
    }
  }
}

TEST(Generators, PerturbedBoxOutOfRangeIsAnInputError) {
  for (const bool hexahedra : {false, true}) {
    SCOPED_TRACE(hexahedra ? "hexahedra" : "tetrahedra");
    // 0.3, the rectangle's limit, can flatten a tetrahedron of a cubic cell (see generators.cpp).
    for (const double perturbation : {0.5, -0.1, 0.3, 0.2800001, static_cast<double>(NAN)}) {
      try {
        box_of(hexahedra, 1, 1, 1, 4, 4, 4, perturbation, 1);
        ADD_FAILURE() << "perturbation " << perturbation << " was accepted";
      } catch (const InputError& error) {
        EXPECT_TRUE(flowdg::testing::contains(error.what(), "perturbation must be in [0, 0.28] of the cell size"));
      }
    }
    EXPECT_NO_THROW(box_of(hexahedra, 1, 1, 1, 4, 4, 4, 0.28, 1));
    EXPECT_NO_THROW(box_of(hexahedra, 1, 1, 1, 4, 4, 4, 0.0, 1));
  }
  EXPECT_THROW(load_mesh("builtin:box?perturbation=0.5"), InputError);
  EXPECT_THROW(load_mesh("builtin:box?cells=hexahedra&perturbation=-0.1"), InputError);
  EXPECT_THROW(load_mesh("builtin:box?perturbation=0.2&seed=-1"), InputError);
}

TEST(Generators, BoxSpecPerturbationAndSeedKeysReachTheGeneratorAndOrderTwoFollowsTheVertices) {
  const std::string keys = "builtin:box?lx=1.2&nx=6&ny=5&nz=4&perturbation=0.2&seed=7";
  for (const bool hexahedra : {false, true}) {
    SCOPED_TRACE(hexahedra ? "hexahedra" : "tetrahedra");
    const std::string spec = keys + (hexahedra ? "&cells=hexahedra" : "");
    const Mesh expected = box_of(hexahedra, 1.2, 1, 1, 6, 5, 4, 0.2, 7);
    const Mesh loaded = load_mesh(spec);
    ASSERT_EQ(loaded.n_nodes(), expected.n_nodes());
    for (index_t n = 0; n < expected.n_nodes(); ++n) EXPECT_TRUE(same_point(loaded.nodes[n], expected.nodes[n])) << n;
    EXPECT_EQ(loaded.element_nodes, expected.element_nodes);
    EXPECT_EQ(loaded.source, spec);
    const Mesh default_seed = load_mesh(keys.substr(0, keys.find("&seed")) + (hexahedra ? "&cells=hexahedra" : ""));
    const Mesh seed_one = box_of(hexahedra, 1.2, 1, 1, 6, 5, 4, 0.2, 1);
    for (index_t n = 0; n < seed_one.n_nodes(); ++n) EXPECT_TRUE(same_point(default_seed.nodes[n], seed_one.nodes[n])) << n;

    // Order 2: the perturbed vertices keep their numbers and coordinates, and every node of an
    // element lies where the element's straight (affine or trilinear) map of those vertices puts it.
    const Mesh curved = load_mesh(spec + "&order=2");
    ASSERT_EQ(curved.n_elements(), expected.n_elements());
    ASSERT_GT(curved.n_nodes(), expected.n_nodes());
    for (index_t n = 0; n < expected.n_nodes(); ++n) EXPECT_TRUE(same_point(curved.nodes[n], expected.nodes[n])) << n;
    int checked_nodes = 0;
    for (index_t e = 0; e < curved.n_elements(); ++e) {
      ASSERT_EQ(geometric_order(curved.element_types[e]), 2);
      const std::vector<Point3> reference = reference_nodes(curved.element_types[e]);
      const auto vertex = [&](int k) { return flowdg::testing::element_vertex(expected, e, k); };
      for (std::size_t k = 0; k < reference.size(); ++k) {
        const double r = 0.5 * (1 + reference[k].x), s = 0.5 * (1 + reference[k].y), t = 0.5 * (1 + reference[k].z);
        Point3 x{};
        if (hexahedra) {
          for (int v = 0; v < 8; ++v) {
            const Point3 corner = reference_vertex(Shape::hexahedron, v);
            x = x + ((corner.x > 0 ? r : 1 - r) * (corner.y > 0 ? s : 1 - s) * (corner.z > 0 ? t : 1 - t)) * vertex(v);
          }
        } else {
          x = (1 - r - s - t) * vertex(0) + r * vertex(1) + s * vertex(2) + t * vertex(3);
        }
        const Point3 node = curved.nodes[curved.element_node_ids(e)[k]];
        ASSERT_LT(flowdg::testing::length(node - x), 1e-14) << "element " << e << " node " << k;
        ++checked_nodes;
      }
    }
    EXPECT_EQ(checked_nodes, curved.n_elements() * (hexahedra ? 27 : 10));
    Mesh validated = curved;
    EXPECT_TRUE(validate_mesh(validated).ok());
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
  EXPECT_THROW(box_tetrahedra(1, 1, 1, 2, 2, 2, 0.5), InputError);
  EXPECT_THROW(box_hexahedra(1, 1, 1, 2, 2, 2, -0.1), InputError);
  EXPECT_THROW(curved_quarter_annulus(5), InputError);
  EXPECT_THROW(curved_quarter_annulus(0), InputError);
  EXPECT_THROW(curved_annulus(rectangle_quadrilaterals(1, 2, 1, 2, 2, 2), 2), InputError);
}
