// Polytopic meshes by agglomeration (poly/poly_mesh.hpp, poly/agglomerate.hpp, poly/poly_vtu.hpp;
// issue 18 item 1): measures partition the domain; every fine element lies in one element; the
// interfaces and boundary sub-faces are exactly the fine faces a brute-force search finds, one
// interface per pair however many pieces; normals point out of the first element and every
// element's boundary is closed; bounding boxes are tight and diameters exact; the coarse
// sub-simplices tile each star-shaped element and a U-shaped one falls back to its fine simplices;
// the penalty's cover measures bound what they should; disconnected agglomerates are split;
// bisection levels nest; METIS agglomerates connect; bad input is refused with a clear message;
// the VTU files carry the right counts. 2D (rectangle of triangles) and 3D (box of tetrahedra).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/partition.hpp"
#include "flowdg/poly/agglomerate.hpp"
#include "flowdg/poly/poly_mesh.hpp"
#include "flowdg/poly/poly_vtu.hpp"

using namespace flowdg;
using namespace flowdg::poly;
namespace fs = std::filesystem;

namespace {

std::size_t at(index_t i) { return static_cast<std::size_t>(i); }

double norm(Point3 a) { return std::sqrt(dot(a, a)); }

/// The fine meshes: a perturbed rectangle [0,2] x [0,1] of triangles, a perturbed unit box of tetrahedra.
Mesh fine_mesh(int dimension) {
  return dimension == 2 ? rectangle_triangles(0, 2, 0, 1, 16, 8, TriangleLayout::perturbed, 0.2, 7)
                        : box_tetrahedra(1, 1, 1, 4, 4, 4, 0.2, 3);
}
double domain_measure(int dimension) { return dimension == 2 ? 2.0 : 1.0; }

Point3 fine_centroid(const Mesh& mesh, index_t e) {
  const int nv = mesh.dimension + 1;
  Point3 sum{};
  for (int v = 0; v < nv; ++v) sum = sum + mesh.nodes[at(mesh.element_node_ids(e)[v])];
  return (1.0 / nv) * sum;
}

double simplex_measure(int dimension, const Point3* p) {
  if (dimension == 2) return 0.5 * cross(p[1] - p[0], p[2] - p[0]).z;
  return dot(cross(p[1] - p[0], p[2] - p[0]), p[3] - p[0]) / 6.0;
}

double fine_measure(const Mesh& mesh, index_t e) {
  Point3 p[4];
  for (int v = 0; v <= mesh.dimension; ++v) p[v] = mesh.nodes[at(mesh.element_node_ids(e)[v])];
  return std::abs(simplex_measure(mesh.dimension, p));
}

/// A fine mesh, its connectivity and a polytopic mesh on it.
struct Case {
  Mesh mesh;
  Connectivity connectivity;
  PolyMesh poly;
};

/// The fine mesh of `dimension` agglomerated by bisection into n elements.
Case bisection_case(int dimension, index_t n, SubSimplices quadrature = SubSimplices::coarse) {
  Case c{fine_mesh(dimension), {}, {}};
  c.connectivity = build_connectivity(c.mesh);
  const std::vector<Agglomeration> levels = agglomerate_bisection(c.mesh, c.connectivity, n);
  PolyMeshOptions options;
  options.quadrature = quadrature;
  c.poly = build_poly_mesh(c.mesh, c.connectivity, levels.front().agglomerate, options);
  return c;
}

/// 3 x 3 unit cells ([0,3]^2 of triangles; in 3D [0,3] x [0,1] x [0,3] of tetrahedra, the cells
/// counted in x and z), cell (i, j) given to element element_of(i, j).
template <class ElementOf>
Case grid_case(int dimension, const ElementOf& element_of) {
  Case c{dimension == 2 ? rectangle_triangles(0, 3, 0, 3, 3, 3) : box_tetrahedra(3, 1, 3, 3, 1, 3), {}, {}};
  c.connectivity = build_connectivity(c.mesh);
  std::vector<index_t> agglomerate(at(c.mesh.n_elements()));
  for (index_t e = 0; e < c.mesh.n_elements(); ++e) {
    const Point3 x = fine_centroid(c.mesh, e);
    agglomerate[at(e)] = element_of(static_cast<int>(x.x), static_cast<int>(dimension == 2 ? x.y : x.z));
  }
  c.poly = build_poly_mesh(c.mesh, c.connectivity, agglomerate);
  return c;
}

/// Element 0 (A) the inverted U of columns 0 and 2 and the top middle cell, element 1 (B) the
/// bottom middle cell, element 2 (C) the centre cell. A and B share two disjoint pieces of
/// interface; A is star-shaped with respect to no point.
Case u_shape_case(int dimension) {
  return grid_case(dimension, [](int i, int j) { return i != 1 || j == 2 ? 0 : (j == 0 ? 1 : 2); });
}

using FaceKey = std::vector<index_t>;  // sorted vertex ids of a fine face

/// Brute force: the fine faces between each pair (a < b) of elements, and each element's boundary faces.
void reference_faces(const Mesh& mesh, const std::vector<index_t>& agglomerate,
                     std::map<std::pair<index_t, index_t>, std::set<FaceKey>>& interfaces,
                     std::map<index_t, std::set<FaceKey>>& boundary) {
  const int nv = mesh.dimension + 1;
  std::map<FaceKey, std::vector<index_t>> owners;
  for (index_t e = 0; e < mesh.n_elements(); ++e)
    for (int skip = 0; skip < nv; ++skip) {
      FaceKey key;
      for (int v = 0; v < nv; ++v)
        if (v != skip) key.push_back(mesh.element_node_ids(e)[v]);
      std::sort(key.begin(), key.end());
      owners[key].push_back(e);
    }
  for (const auto& [key, elements] : owners) {
    ASSERT_LE(elements.size(), 2u);
    if (elements.size() == 1) {
      boundary[agglomerate[at(elements[0])]].insert(key);
    } else {
      const index_t a = agglomerate[at(elements[0])], b = agglomerate[at(elements[1])];
      if (a != b) interfaces[{std::min(a, b), std::max(a, b)}].insert(key);
    }
  }
}

FaceKey subface_key(const PolyMesh& poly, const std::vector<index_t>& vertices, index_t f) {
  FaceKey key(vertices.begin() + poly.dimension * f, vertices.begin() + poly.dimension * (f + 1));
  std::sort(key.begin(), key.end());
  return key;
}

/// The right-hand-rule normal of a sub-face's stored vertex order (unnormalised).
Point3 right_hand_normal(const PolyMesh& poly, const std::vector<index_t>& vertices, index_t f) {
  const int d = poly.dimension;
  Point3 p[3];
  for (int v = 0; v < d; ++v) p[v] = poly.nodes[at(vertices[at(d * f + v)])];
  if (d == 2) return {(p[1] - p[0]).y, -(p[1] - p[0]).x, 0};
  return cross(p[1] - p[0], p[2] - p[0]);
}

Point3 subface_centroid(const PolyMesh& poly, const std::vector<index_t>& vertices, index_t f) {
  Point3 sum{};
  for (int v = 0; v < poly.dimension; ++v) sum = sum + poly.nodes[at(vertices[at(poly.dimension * f + v)])];
  return (1.0 / poly.dimension) * sum;
}

/// A tiny well-formedness check of XML text: every start tag closed in order (no attributes with
/// '>' inside, which the writers never produce). Returns the first problem, or "".
std::string xml_problem(const std::string& text) {
  std::vector<std::string> open;
  for (std::size_t q = text.find('<'); q != std::string::npos; q = text.find('<', q + 1)) {
    if (text.compare(q, 2, "<?") == 0) continue;
    const std::size_t end = text.find('>', q);
    if (end == std::string::npos) return "unterminated tag";
    const bool closing = text[q + 1] == '/', empty = text[end - 1] == '/';
    const std::size_t name_start = q + (closing ? 2 : 1);
    const std::size_t name_end = text.find_first_of(" />", name_start);
    const std::string name = text.substr(name_start, name_end - name_start);
    if (closing) {
      if (open.empty() || open.back() != name) return "unexpected </" + name + ">";
      open.pop_back();
    } else if (!empty) {
      open.push_back(name);
    }
    q = end;
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// Expects `call` to throw InputError whose message contains `part`.
template <class Call>
void expect_input_error(const Call& call, const std::string& part) {
  try {
    call();
    ADD_FAILURE() << "no InputError; expected one saying '" << part << "'";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(part), std::string::npos) << error.what();
  }
}

}  // namespace

TEST(PolyMesh, MeasuresPartitionTheDomainAndEveryFineElementIsInOneElement) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << d << "D");
    const Case c = bisection_case(d, d == 2 ? 13 : 9);
    const PolyMesh& poly = c.poly;
    EXPECT_EQ(poly.dimension, d);
    EXPECT_EQ(poly.n_elements(), d == 2 ? 13 : 9);
    double total = 0;
    std::vector<int> seen(at(c.mesh.n_elements()), 0);
    for (index_t k = 0; k < poly.n_elements(); ++k) {
      double sum = 0;
      for (index_t q = poly.element_start[at(k)]; q < poly.element_start[at(k) + 1]; ++q) {
        const index_t e = poly.fine_elements[at(q)];
        ++seen[at(e)];
        EXPECT_EQ(poly.agglomerate_of[at(e)], k);
        sum += fine_measure(c.mesh, e);
      }
      EXPECT_NEAR(poly.measure[at(k)], sum, 1e-14);
      EXPECT_GT(poly.measure[at(k)], 0);
      total += poly.measure[at(k)];
    }
    EXPECT_NEAR(total, domain_measure(d), 1e-13);
    for (const int count : seen) EXPECT_EQ(count, 1);
    EXPECT_EQ(poly.n_fine_elements(), c.mesh.n_elements());
  }
}

TEST(PolyMesh, SubFacesAreExactlyTheFineFacesBetweenElements) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << d << "D");
    const Case c = bisection_case(d, d == 2 ? 13 : 9);
    const PolyMesh& poly = c.poly;
    std::map<std::pair<index_t, index_t>, std::set<FaceKey>> interfaces, got_interfaces;
    std::map<index_t, std::set<FaceKey>> boundary, got_boundary;
    reference_faces(c.mesh, poly.agglomerate_of, interfaces, boundary);
    for (index_t i = 0; i < poly.n_interfaces(); ++i) {
      const index_t a = poly.interface_elements[at(2 * i)], b = poly.interface_elements[at(2 * i + 1)];
      EXPECT_LT(a, b);
      if (i > 0) {  // ordered by (first, second), each pair once
        const index_t a0 = poly.interface_elements[at(2 * i - 2)], b0 = poly.interface_elements[at(2 * i - 1)];
        EXPECT_TRUE(a0 < a || (a0 == a && b0 < b));
      }
      EXPECT_LT(poly.interface_start[at(i)], poly.interface_start[at(i) + 1]);
      for (index_t f = poly.interface_start[at(i)]; f < poly.interface_start[at(i) + 1]; ++f) {
        EXPECT_TRUE((got_interfaces[{a, b}].insert(subface_key(poly, poly.interior_vertices, f)).second));
        const index_t m = poly.interior_fine_elements[at(2 * f)], p = poly.interior_fine_elements[at(2 * f + 1)];
        EXPECT_EQ(poly.agglomerate_of[at(m)], a);
        EXPECT_EQ(poly.agglomerate_of[at(p)], b);
      }
    }
    EXPECT_EQ(got_interfaces, interfaces);
    for (index_t k = 0; k < poly.n_elements(); ++k)
      for (index_t f = poly.boundary_start[at(k)]; f < poly.boundary_start[at(k) + 1]; ++f) {
        EXPECT_TRUE(got_boundary[k].insert(subface_key(poly, poly.boundary_vertices, f)).second);
        EXPECT_EQ(poly.agglomerate_of[at(poly.boundary_fine_element[at(f)])], k);
        const Face& face = c.connectivity.faces[at(poly.boundary_fine_face[at(f)])];
        EXPECT_EQ(poly.boundary_tag[at(f)], face.tag);
        EXPECT_GE(face.tag, 0);
      }
    EXPECT_EQ(got_boundary, boundary);
    // Element -> interfaces lists each of its interfaces once, by neighbour.
    for (index_t k = 0; k < poly.n_elements(); ++k) {
      index_t previous = -1;
      for (index_t q = poly.element_interface_start[at(k)]; q < poly.element_interface_start[at(k) + 1]; ++q) {
        const index_t i = poly.element_interfaces[at(q)];
        EXPECT_TRUE(poly.interface_elements[at(2 * i)] == k || poly.interface_elements[at(2 * i + 1)] == k);
        EXPECT_GT(poly.neighbour(i, k), previous);
        previous = poly.neighbour(i, k);
      }
    }
  }
}

TEST(PolyMesh, NormalsPointOutOfTheFirstElementAndEveryBoundaryCloses) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << d << "D");
    const Case c = bisection_case(d, d == 2 ? 13 : 9);
    const PolyMesh& poly = c.poly;
    std::vector<Point3> closure(at(poly.n_elements()));
    double largest_measure = 0;
    for (index_t i = 0; i < poly.n_interfaces(); ++i)
      for (index_t f = poly.interface_start[at(i)]; f < poly.interface_start[at(i) + 1]; ++f) {
        const Point3 n = poly.interior_normal[at(f)];
        EXPECT_NEAR(norm(n), 1, 1e-14);
        const Point3 x = subface_centroid(poly, poly.interior_vertices, f);
        EXPECT_GT(dot(n, x - fine_centroid(c.mesh, poly.interior_fine_elements[at(2 * f)])), 0);
        EXPECT_LT(dot(n, x - fine_centroid(c.mesh, poly.interior_fine_elements[at(2 * f + 1)])), 0);
        const Point3 raw = right_hand_normal(poly, poly.interior_vertices, f);
        EXPECT_NEAR(norm(raw) / (d == 2 ? 1 : 2), poly.interior_measure[at(f)], 1e-15);
        EXPECT_NEAR(dot(raw, n), norm(raw), 1e-14);  // the vertex order gives the normal
        const Point3 flux = poly.interior_measure[at(f)] * n;
        closure[at(poly.interface_elements[at(2 * i)])] = closure[at(poly.interface_elements[at(2 * i)])] + flux;
        closure[at(poly.interface_elements[at(2 * i + 1)])] =
            closure[at(poly.interface_elements[at(2 * i + 1)])] - flux;
        largest_measure = std::max(largest_measure, poly.interior_measure[at(f)]);
      }
    for (index_t k = 0; k < poly.n_elements(); ++k)
      for (index_t f = poly.boundary_start[at(k)]; f < poly.boundary_start[at(k) + 1]; ++f) {
        const Point3 n = poly.boundary_normal[at(f)];
        EXPECT_NEAR(norm(n), 1, 1e-14);
        const Point3 x = subface_centroid(poly, poly.boundary_vertices, f);
        EXPECT_GT(dot(n, x - fine_centroid(c.mesh, poly.boundary_fine_element[at(f)])), 0);
        const Point3 raw = right_hand_normal(poly, poly.boundary_vertices, f);
        EXPECT_NEAR(dot(raw, n), norm(raw), 1e-14);
        closure[at(k)] = closure[at(k)] + poly.boundary_measure[at(f)] * n;
      }
    for (index_t k = 0; k < poly.n_elements(); ++k) {
      SCOPED_TRACE(::testing::Message() << "element " << k);
      EXPECT_LT(norm(closure[at(k)]), 1e-13 * largest_measure * 100);
    }
    // The boundary normals integrate to zero over the whole domain's boundary too.
    Point3 outer{};
    for (index_t f = 0; f < poly.n_boundary_subfaces(); ++f)
      outer = outer + poly.boundary_measure[at(f)] * poly.boundary_normal[at(f)];
    EXPECT_LT(norm(outer), 1e-12);
  }
}

TEST(PolyMesh, TwoElementsSharingSeveralPiecesHaveOneInterface) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << d << "D");
    const Case c = u_shape_case(d);
    const PolyMesh& poly = c.poly;
    ASSERT_EQ(poly.n_elements(), 3);
    ASSERT_EQ(poly.n_interfaces(), 3);  // A-B (two disjoint pieces), A-C, B-C
    const int per_cell_face = d == 2 ? 1 : 2;  // a square cell face is two triangles in 3D
    const std::array<std::array<index_t, 3>, 3> expected{{{0, 1, 2}, {0, 2, 3}, {1, 2, 1}}};
    for (index_t i = 0; i < 3; ++i) {
      EXPECT_EQ(poly.interface_elements[at(2 * i)], expected[at(i)][0]);
      EXPECT_EQ(poly.interface_elements[at(2 * i + 1)], expected[at(i)][1]);
      EXPECT_EQ(poly.interface_start[at(i) + 1] - poly.interface_start[at(i)], expected[at(i)][2] * per_cell_face);
    }
    // A-B's two pieces lie on x = 1 and x = 2, normals +x (into B) and -x.
    std::set<double> xs;
    for (index_t f = poly.interface_start[0]; f < poly.interface_start[1]; ++f) {
      const Point3 x = subface_centroid(poly, poly.interior_vertices, f);
      xs.insert(std::round(x.x));
      EXPECT_NEAR(std::abs(poly.interior_normal[at(f)].x), 1, 1e-14);
      EXPECT_NEAR(poly.interior_normal[at(f)].x, x.x < 1.5 ? 1 : -1, 1e-14);
    }
    EXPECT_EQ(xs, (std::set<double>{1, 2}));
    EXPECT_EQ(poly.element_interface_start[1] - poly.element_interface_start[0], 2);
    // Statistics: A has 2 interfaces + 4 boundary pieces, B 2 + 1 (bottom), C 2 + 0 in 2D; in 3D
    // the two y faces add a piece each (ymin, ymax).
    const PolyStatistics s = poly_statistics(poly);
    const index_t extra = d == 2 ? 0 : 2;
    EXPECT_EQ(s.faces.min, 2 + extra);
    EXPECT_EQ(s.faces.max, 6 + extra);
    EXPECT_NEAR(s.faces.mean, (6.0 + 3 + 2 + 3 * static_cast<double>(extra)) / 3, 1e-14);
    EXPECT_EQ(s.fine_simplices.min, (d == 2 ? 2 : 6));
    EXPECT_EQ(s.fine_simplices.max, 7 * (d == 2 ? 2 : 6));
    const std::string text = describe_statistics(poly);
    EXPECT_NE(text.find("3 elements"), std::string::npos) << text;
    EXPECT_NE(text.find("faces per element (interfaces + boundary pieces): min " + std::to_string(2 + extra)),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("on fine simplices: 1 not star-shaped, 2 with no more fine simplices"), std::string::npos)
        << text;
  }
}

TEST(PolyMesh, BoundingBoxesAreTightAndDiametersExact) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << d << "D");
    const Case c = bisection_case(d, d == 2 ? 13 : 9);
    const PolyMesh& poly = c.poly;
    for (index_t k = 0; k < poly.n_elements(); ++k) {
      std::vector<Point3> points;
      for (index_t q = poly.element_start[at(k)]; q < poly.element_start[at(k) + 1]; ++q)
        for (int v = 0; v <= d; ++v)
          points.push_back(c.mesh.nodes[at(c.mesh.element_node_ids(poly.fine_elements[at(q)])[v])]);
      Point3 lo = points[0], hi = points[0];
      double diameter = 0;
      for (const Point3& x : points) {
        EXPECT_TRUE(x.x >= poly.box_min[at(k)].x && x.y >= poly.box_min[at(k)].y && x.z >= poly.box_min[at(k)].z);
        EXPECT_TRUE(x.x <= poly.box_max[at(k)].x && x.y <= poly.box_max[at(k)].y && x.z <= poly.box_max[at(k)].z);
        lo = {std::min(lo.x, x.x), std::min(lo.y, x.y), std::min(lo.z, x.z)};
        hi = {std::max(hi.x, x.x), std::max(hi.y, x.y), std::max(hi.z, x.z)};
        for (const Point3& y : points) diameter = std::max(diameter, norm(x - y));
      }
      EXPECT_EQ(lo.x, poly.box_min[at(k)].x);
      EXPECT_EQ(lo.y, poly.box_min[at(k)].y);
      EXPECT_EQ(lo.z, poly.box_min[at(k)].z);
      EXPECT_EQ(hi.x, poly.box_max[at(k)].x);
      EXPECT_EQ(hi.y, poly.box_max[at(k)].y);
      EXPECT_EQ(hi.z, poly.box_max[at(k)].z);
      EXPECT_NEAR(poly.diameter[at(k)], diameter, 1e-14 * diameter);
      // The centroid lies in the box.
      const Point3 x = poly.centroid[at(k)];
      EXPECT_TRUE(x.x > lo.x && x.x < hi.x && x.y > lo.y && x.y < hi.y);
    }
  }
}

TEST(PolyMesh, SubSimplicesTileEveryElement) {
  for (const int d : {2, 3})
    for (const SubSimplices kind : {SubSimplices::fine, SubSimplices::coarse}) {
      SCOPED_TRACE(::testing::Message() << d << "D, " << sub_simplices_name(kind));
      const Case c = bisection_case(d, d == 2 ? 13 : 9, kind);
      const PolyMesh& poly = c.poly;
      const SubSimplexSet& set = poly.quadrature;
      EXPECT_EQ(set.kind, kind);
      ASSERT_EQ(set.start.size(), at(poly.n_elements() + 1));
      ASSERT_EQ(set.points.size(), at(set.n_simplices() * (d + 1)));
      index_t coarse_elements = 0;
      for (index_t k = 0; k < poly.n_elements(); ++k) {
        double sum = 0;
        Point3 moment{};
        for (index_t s = set.start[at(k)]; s < set.start[at(k) + 1]; ++s) {
          const Point3* p = set.points.data() + (d + 1) * s;
          const double m = simplex_measure(d, p);
          EXPECT_GT(m, 0);  // positively oriented, positive measure
          EXPECT_NEAR(m, set.measure[at(s)], 1e-15);
          Point3 center{};
          for (int v = 0; v <= d; ++v) center = center + p[v];
          sum += m;
          moment = moment + (m / (d + 1)) * center;
        }
        // The measure and the first moments (the integral of x) match: the simplices cover the element.
        EXPECT_NEAR(sum, poly.measure[at(k)], 1e-13 * poly.measure[at(k)]);
        EXPECT_LT(norm((1.0 / sum) * moment - poly.centroid[at(k)]), 1e-12 * poly.diameter[at(k)]);
        const index_t count = set.start[at(k) + 1] - set.start[at(k)];
        const index_t fine = poly.element_start[at(k) + 1] - poly.element_start[at(k)];
        index_t subfaces = poly.boundary_start[at(k) + 1] - poly.boundary_start[at(k)];
        for (index_t q = poly.element_interface_start[at(k)]; q < poly.element_interface_start[at(k) + 1]; ++q) {
          const index_t i = poly.element_interfaces[at(q)];
          subfaces += poly.interface_start[at(i) + 1] - poly.interface_start[at(i)];
        }
        EXPECT_EQ(set.fallback[at(k)], kind == SubSimplices::coarse && !poly.star_shaped[at(k)]);
        if (!set.coarse[at(k)]) {
          EXPECT_EQ(count, fine);
          if (kind == SubSimplices::coarse && poly.star_shaped[at(k)]) {
            EXPECT_LE(fine, subfaces);  // fine simplices kept as no more numerous
          }
        } else {
          ++coarse_elements;
          EXPECT_EQ(kind, SubSimplices::coarse);
          EXPECT_TRUE(poly.star_shaped[at(k)]);
          EXPECT_GT(poly.kernel_distance[at(k)], 0);
          EXPECT_EQ(count, subfaces);  // one cone per sub-face
          EXPECT_LT(count, fine);
        }
      }
      EXPECT_EQ(set.n_coarse, coarse_elements);
      if (kind == SubSimplices::coarse) {
        EXPECT_EQ(set.n_coarse + set.n_fallback + set.n_fine_fewer, poly.n_elements());
        if (d == 2) {  // 20-triangle elements with about 12 sub-faces
          EXPECT_GT(coarse_elements, 0);
          EXPECT_LT(set.n_simplices(), poly.n_fine_elements());
        }
      } else {
        EXPECT_EQ(set.n_fallback + set.n_fine_fewer + set.n_coarse, 0);
        EXPECT_EQ(set.n_simplices(), poly.n_fine_elements());
      }
      // make_sub_simplices builds the other kind on request.
      const SubSimplexSet other =
          make_sub_simplices(poly, kind == SubSimplices::fine ? SubSimplices::coarse : SubSimplices::fine);
      EXPECT_NE(other.kind, kind);
      double total = 0;
      for (const double m : other.measure) total += m;
      EXPECT_NEAR(total, domain_measure(d), 1e-12);
    }
  // 3D cones: the unperturbed box of 384 tetrahedra cut in two at x = 1/2 (tetrahedron centroids
  // never lie on a cell face), each half star-shaped with 64 square cell faces = 128 triangles.
  const Mesh box = box_tetrahedra(1, 1, 1, 4, 4, 4);
  const Connectivity box_connectivity = build_connectivity(box);
  const PolyMesh halves =
      build_poly_mesh(box, box_connectivity, agglomerate_bisection(box, box_connectivity, 2).front().agglomerate);
  ASSERT_EQ(halves.n_elements(), 2);
  for (index_t k = 0; k < 2; ++k) {
    EXPECT_TRUE(halves.quadrature.coarse[at(k)]);
    EXPECT_EQ(halves.quadrature.start[at(k) + 1] - halves.quadrature.start[at(k)], 128);
    double sum = 0;
    for (index_t s = halves.quadrature.start[at(k)]; s < halves.quadrature.start[at(k) + 1]; ++s)
      sum += halves.quadrature.measure[at(s)];
    EXPECT_NEAR(sum, 0.5, 1e-14);
    EXPECT_NEAR(halves.kernel_distance[at(k)], 0.25, 1e-12);  // the half box's centre, 1/4 from x = 0, 1/2
  }
}

TEST(PolyMesh, UShapedElementFallsBackToItsFineSimplices) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << d << "D");
    const Case c = u_shape_case(d);
    const PolyMesh& poly = c.poly;
    const SubSimplexSet& set = poly.quadrature;
    EXPECT_EQ(set.kind, SubSimplices::coarse);
    EXPECT_FALSE(poly.star_shaped[0]);
    EXPECT_LE(poly.kernel_distance[0], 0);
    EXPECT_TRUE(set.fallback[0]);
    EXPECT_EQ(set.n_fallback, 1);
    EXPECT_EQ(set.start[1] - set.start[0], poly.element_start[1] - poly.element_start[0]);
    for (const index_t k : {1, 2}) {
      EXPECT_TRUE(poly.star_shaped[at(k)]);
      EXPECT_FALSE(set.fallback[at(k)]);
      EXPECT_FALSE(set.coarse[at(k)]);  // a cell: 2 triangles (6 tetrahedra), fewer than its 4 (12) sub-faces
      double sum = 0;
      for (index_t s = set.start[at(k)]; s < set.start[at(k) + 1]; ++s) sum += set.measure[at(s)];
      EXPECT_NEAR(sum, poly.measure[at(k)], 1e-14);
      EXPECT_NEAR(poly.measure[at(k)], 1, 1e-14);
    }
    double total = 0;
    for (const double m : set.measure) total += m;
    EXPECT_NEAR(total, 9, 1e-12);
  }
}

TEST(PolyMesh, LShapedElementIsStarShapedAboutItsDeepestPoint) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << d << "D");
    // Element 0: cells (0,0), (1,0), (0,1), whose kernel is the cell [0,1]^2 (x [0,1] in 3D) and
    // whose centroid (5/6, 5/6) lies 1/6 from the planes x = 1, y = 1; element 1 the rest.
    const Case c = grid_case(d, [](int i, int j) { return (i == 0 && j < 2) || (i == 1 && j == 0) ? 0 : 1; });
    const PolyMesh& poly = c.poly;
    ASSERT_EQ(poly.n_elements(), 2);
    EXPECT_TRUE(poly.star_shaped[0]);
    EXPECT_FALSE(poly.quadrature.fallback[0]);
    // The deepest point (the linear program's): the cell's centre, half a cell from every plane.
    const Point3 x = poly.kernel_point[0];
    EXPECT_NEAR(x.x, 0.5, 1e-12);
    EXPECT_NEAR(d == 2 ? x.y : x.z, 0.5, 1e-12);
    if (d == 3) {
      EXPECT_NEAR(x.y, 0.5, 1e-12);
    }
    EXPECT_NEAR(poly.kernel_distance[0], 0.5, 1e-12);
    double sum = 0;
    for (index_t s = poly.quadrature.start[0]; s < poly.quadrature.start[1]; ++s) sum += poly.quadrature.measure[at(s)];
    EXPECT_NEAR(sum, 3, 1e-13);
    EXPECT_NEAR(poly.measure[0], 3, 1e-13);
    EXPECT_NEAR(poly.centroid[0].x, 5.0 / 6, 1e-14);
  }
}

TEST(PolyMesh, CoverMeasuresBoundThePenaltySimplex) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << d << "D");
    for (const bool u_shape : {false, true}) {
      const Case c = u_shape ? u_shape_case(d) : bisection_case(d, d == 2 ? 13 : 9);
      const PolyMesh& poly = c.poly;
      // Per side: at least the fine simplex at the sub-face, at most the element; for a star-shaped
      // element exactly the larger of that and the cone from the kernel point.
      const auto check = [&](index_t k, index_t fine, double cover, Point3 outward, Point3 vertex, double measure) {
        const double simplex = fine_measure(c.mesh, fine);
        EXPECT_GE(cover, simplex);
        EXPECT_LE(cover, poly.measure[at(k)] * (1 + 1e-12));
        if (poly.star_shaped[at(k)]) {
          const double cone = measure * dot(outward, vertex - poly.kernel_point[at(k)]) / d;
          EXPECT_GE(cone, measure * poly.kernel_distance[at(k)] / d * (1 - 1e-12));
          EXPECT_NEAR(cover, std::max(simplex, cone), 1e-14);
        } else {
          EXPECT_EQ(cover, simplex);
        }
      };
      for (index_t i = 0; i < poly.n_interfaces(); ++i)
        for (index_t f = poly.interface_start[at(i)]; f < poly.interface_start[at(i) + 1]; ++f)
          for (int s = 0; s < 2; ++s)
            check(poly.interface_elements[at(2 * i + s)], poly.interior_fine_elements[at(2 * f + s)],
                  poly.interior_cover[at(2 * f + s)], (s == 0 ? 1.0 : -1.0) * poly.interior_normal[at(f)],
                  poly.nodes[at(poly.interior_vertices[at(d * f)])], poly.interior_measure[at(f)]);
      for (index_t k = 0; k < poly.n_elements(); ++k)
        for (index_t f = poly.boundary_start[at(k)]; f < poly.boundary_start[at(k) + 1]; ++f)
          check(k, poly.boundary_fine_element[at(f)], poly.boundary_cover[at(f)], poly.boundary_normal[at(f)],
                poly.nodes[at(poly.boundary_vertices[at(d * f)])], poly.boundary_measure[at(f)]);
    }
  }
  // C_INV / C_inv: min(|kappa| / cover, p^(2(d-1))), or the cap alone when not coverable.
  EXPECT_DOUBLE_EQ(inverse_estimate_factor(2, 2, 1.0, 0.5), 2.0);
  EXPECT_DOUBLE_EQ(inverse_estimate_factor(1, 2, 1.0, 0.01), 1.0);
  EXPECT_DOUBLE_EQ(inverse_estimate_factor(3, 3, 1.0, 0.001), 81.0);
  EXPECT_DOUBLE_EQ(inverse_estimate_factor(3, 3, 1.0, 0.5), 2.0);
  EXPECT_DOUBLE_EQ(inverse_estimate_factor(2, 2, 1.0, 0.5, false), 4.0);
}

TEST(PolyAgglomerate, DisconnectedAgglomeratesAreSplit) {
  const Mesh mesh = rectangle_triangles(0, 4, 0, 1, 4, 1);  // cells 0..3 along x, two triangles each
  const Connectivity connectivity = build_connectivity(mesh);
  std::vector<index_t> assignment(at(mesh.n_elements()));
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const int cell = static_cast<int>(fine_centroid(mesh, e).x);
    assignment[at(e)] = cell % 2 == 0 ? 0 : 3;  // 0: cells 0, 2; 3: cells 1, 3; ids 1, 2 unused
  }
  expect_input_error([&] { build_poly_mesh(mesh, connectivity, assignment); }, "has no fine elements");
  const Agglomeration result = make_connected(mesh, connectivity, assignment);
  EXPECT_EQ(result.n_empty, 2);
  EXPECT_EQ(result.n_split, 2);
  EXPECT_EQ(result.n_agglomerates, 4);
  EXPECT_NE(result.note.find("not connected through fine faces"), std::string::npos) << result.note;
  EXPECT_NE(result.note.find("2 of the 4 agglomerates asked for received no fine element"), std::string::npos)
      << result.note;
  // Compacted (3 -> 1), the pieces with the lowest fine element keep the ids, the others follow.
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const int cell = static_cast<int>(fine_centroid(mesh, e).x);
    EXPECT_EQ(result.agglomerate[at(e)], (std::array<index_t, 4>{0, 1, 2, 3}[at(cell)]));
  }
  const PolyMesh poly = build_poly_mesh(mesh, connectivity, result.agglomerate);
  EXPECT_EQ(poly.n_elements(), 4);
  EXPECT_EQ(poly.n_interfaces(), 3);
  // Compact but disconnected: refused by the builder, naming the agglomerate.
  std::vector<index_t> compact = assignment;
  for (index_t& k : compact) k = k == 3 ? 1 : k;
  expect_input_error([&] { build_poly_mesh(mesh, connectivity, compact); }, "is not connected through fine faces");
  // A connected assignment passes through unchanged, with an empty note.
  const Agglomeration same = make_connected(mesh, connectivity, result.agglomerate);
  EXPECT_EQ(same.agglomerate, result.agglomerate);
  EXPECT_TRUE(same.note.empty()) << same.note;
  EXPECT_EQ(same.n_split, 0);
}

TEST(PolyAgglomerate, BisectionLevelsNest) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << d << "D");
    const Mesh mesh = fine_mesh(d);
    const Connectivity connectivity = build_connectivity(mesh);
    const index_t n = d == 2 ? 37 : 11;
    const std::vector<Agglomeration> levels = agglomerate_bisection(mesh, connectivity, n);
    int depth = 0;
    while ((index_t{1} << depth) < n) ++depth;
    ASSERT_EQ(levels.size(), at(depth + 1));
    EXPECT_EQ(levels.front().n_agglomerates, n + levels.front().n_split);
    EXPECT_EQ(levels.back().n_agglomerates, 1);
    for (std::size_t l = 0; l < levels.size(); ++l) {
      SCOPED_TRACE(::testing::Message() << "level " << l);
      const Agglomeration& level = levels[l];
      EXPECT_EQ(level.n_empty, 0);
      EXPECT_EQ(level.n_split, 0) << level.note;  // the repaired cuts leave every node connected
      // Connected and valid: the builder accepts it; every id in use.
      const PolyMesh poly = build_poly_mesh(mesh, connectivity, level.agglomerate);
      EXPECT_EQ(poly.n_elements(), level.n_agglomerates);
      if (l == 0) continue;
      EXPECT_LE(level.n_agglomerates, levels[l - 1].n_agglomerates);
      // Each finer agglomerate lies in one coarser agglomerate.
      std::map<index_t, index_t> parent;
      for (index_t e = 0; e < mesh.n_elements(); ++e) {
        const auto it = parent.emplace(levels[l - 1].agglomerate[at(e)], level.agglomerate[at(e)]).first;
        EXPECT_EQ(it->second, level.agglomerate[at(e)]);
      }
    }
    // The leaves are balanced on this near-uniform mesh (the repair of the cuts moves a few
    // elements): between a third of the mean size and twice it.
    std::vector<index_t> sizes(at(levels.front().n_agglomerates), 0);
    for (const index_t k : levels.front().agglomerate) ++sizes[at(k)];
    const double mean = static_cast<double>(mesh.n_elements()) / static_cast<double>(sizes.size());
    EXPECT_LE(static_cast<double>(*std::max_element(sizes.begin(), sizes.end())), 2 * mean);
    EXPECT_GE(3.0 * static_cast<double>(*std::min_element(sizes.begin(), sizes.end())), mean);
    // Two levels of a power of two: the coarsest halves are split at the median.
    const std::vector<Agglomeration> halves = agglomerate_bisection(mesh, connectivity, 2);
    ASSERT_EQ(halves.size(), 2u);
    std::vector<index_t> half_sizes(at(halves.front().n_agglomerates), 0);
    for (const index_t k : halves.front().agglomerate) ++half_sizes[at(k)];
    EXPECT_EQ(half_sizes.size(), 2u);
    EXPECT_EQ(half_sizes[0], mesh.n_elements() / 2);
  }
}

TEST(PolyAgglomerate, MetisGivesConnectedAgglomerates) {
  for (const int d : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << d << "D");
    const Mesh mesh = fine_mesh(d);
    const Connectivity connectivity = build_connectivity(mesh);
    if (!metis_available()) {
      expect_input_error([&] { agglomerate_metis(mesh, connectivity, 10); }, "libmetis-dev");
      continue;
    }
    for (const index_t n : {index_t{1}, index_t{10}, index_t{40}}) {
      const Agglomeration result = agglomerate_metis(mesh, connectivity, n);
      EXPECT_GE(result.n_agglomerates, n - result.n_empty);
      const PolyMesh poly = build_poly_mesh(mesh, connectivity, result.agglomerate);
      EXPECT_EQ(poly.n_elements(), result.n_agglomerates);
      double total = 0;
      for (const double m : poly.measure) total += m;
      EXPECT_NEAR(total, domain_measure(d), 1e-12);
    }
    // Very many small agglomerates (800 triangles into 400), where METIS's k-way leaves parts
    // empty: METIS's coarser parts bisected, still exactly the number asked for.
    if (d == 2) {
      const Mesh small = rectangle_triangles(0, 1, 0, 1, 20, 20, TriangleLayout::perturbed, 0.2, 7);
      const Connectivity small_connectivity = build_connectivity(small);
      const Agglomeration many = agglomerate_metis(small, small_connectivity, 400);
      EXPECT_EQ(many.n_agglomerates, 400 + many.n_split - many.n_empty) << many.note;
      EXPECT_EQ(many.n_empty, 0) << many.note;
      const PolyMesh many_poly = build_poly_mesh(small, small_connectivity, many.agglomerate);
      EXPECT_EQ(many_poly.n_elements(), many.n_agglomerates);
      std::cout << "[ note     ] 800 triangles into 400 by METIS: "
                << (many.note.empty() ? std::string("(no note)") : many.note) << "\n";
    }
    // Every fine element its own agglomerate: the polytopic mesh is the fine mesh.
    std::vector<index_t> identity(at(mesh.n_elements()));
    for (index_t e = 0; e < mesh.n_elements(); ++e) identity[at(e)] = e;
    const PolyMesh poly = build_poly_mesh(mesh, connectivity, identity);
    EXPECT_EQ(poly.n_elements(), mesh.n_elements());
    EXPECT_EQ(poly.n_interior_subfaces(), connectivity.n_interior_faces());
    EXPECT_EQ(poly.n_interfaces(), connectivity.n_interior_faces());
    EXPECT_EQ(poly.quadrature.n_fallback, 0);  // a simplex is star-shaped about its centroid
  }
}

TEST(PolyAgglomerate, BadInputIsRefusedWithAClearMessage) {
  const Mesh mesh = rectangle_triangles(0, 1, 0, 1, 3, 3);
  const Connectivity connectivity = build_connectivity(mesh);
  for (const index_t n : {index_t{0}, index_t{-2}, mesh.n_elements() + 1}) {
    expect_input_error([&] { agglomerate_bisection(mesh, connectivity, n); }, "ask for 1 to 18");
    expect_input_error([&] { agglomerate_metis(mesh, connectivity, n); }, "ask for 1 to 18");
  }
  const Mesh quads = rectangle_quadrilaterals(0, 1, 0, 1, 2, 2);
  expect_input_error(
      [&] { build_poly_mesh(quads, build_connectivity(quads), std::vector<index_t>(4, 0)); }, "3-node triangles");
  expect_input_error([&] { build_poly_mesh(mesh, connectivity, std::vector<index_t>(5, 0)); }, "has 5 entries");
  std::vector<index_t> negative(at(mesh.n_elements()), 0);
  negative[3] = -1;
  expect_input_error([&] { build_poly_mesh(mesh, connectivity, negative); }, "into agglomerate -1");
  expect_input_error([&] { make_connected(mesh, connectivity, negative); }, "into agglomerate -1");
  const Mesh other = rectangle_triangles(0, 1, 0, 1, 2, 2);
  expect_input_error([&] { build_poly_mesh(mesh, build_connectivity(other), std::vector<index_t>(18, 0)); },
                     "does not belong");
  // A single agglomerate of the whole mesh is fine.
  const PolyMesh whole = build_poly_mesh(mesh, connectivity, std::vector<index_t>(18, 0));
  EXPECT_EQ(whole.n_elements(), 1);
  EXPECT_EQ(whole.n_interfaces(), 0);
  EXPECT_NEAR(whole.measure[0], 1, 1e-14);
  EXPECT_NEAR(whole.diameter[0], std::sqrt(2.0), 1e-14);
  EXPECT_TRUE(whole.star_shaped[0]);
}

TEST(PolyVtu, WritesFineCellsAndOutlines) {
  const fs::path directory = fs::temp_directory_path() / ("flowdg_poly_vtu_" + std::to_string(::getpid()));
  fs::create_directories(directory);
  for (const int d : {2, 3}) {
    SCOPED_TRACE(::testing::Message() << d << "D");
    const Case c = bisection_case(d, d == 2 ? 13 : 9);
    const PolyMesh& poly = c.poly;
    const int nv = d + 1;
    PolyVtuField x{"x", 1, {}}, velocity{"velocity", 3, {}};
    for (index_t e = 0; e < poly.n_fine_elements(); ++e)
      for (int v = 0; v < nv; ++v) {
        const Point3 p = poly.nodes[at(poly.fine_vertices[at(nv * e + v)])];
        x.values.push_back(p.x + static_cast<double>(poly.agglomerate_of[at(e)]));  // jumps across elements
        velocity.values.insert(velocity.values.end(), {p.y, -p.x, 0.0});
      }
    const fs::path path = directory / ("mesh" + std::to_string(d) + ".vtu");
    const std::string outline = write_poly_vtu(path.string(), poly, {x, velocity}, 0.5);
    EXPECT_EQ(outline, (directory / ("mesh" + std::to_string(d) + "_outline.vtu")).string());
    ASSERT_TRUE(fs::exists(path));
    ASSERT_TRUE(fs::exists(outline));
    EXPECT_FALSE(fs::exists(outline + ".tmp"));

    const std::string cells = read_text(path);
    const std::string header = cells.substr(0, cells.find("<AppendedData"));
    EXPECT_NE(header.find(cat("NumberOfPoints=\"", poly.n_fine_elements() * nv, "\" NumberOfCells=\"",
                              poly.n_fine_elements(), "\"")),
              std::string::npos)
        << header;
    for (const char* name : {"Name=\"agglomerate\"", "Name=\"fine_element\"", "Name=\"x\"", "Name=\"velocity\""})
      EXPECT_NE(header.find(name), std::string::npos) << name;
    EXPECT_EQ(xml_problem(header + "</VTKFile>"), "");
    EXPECT_NE(cells.rfind("</VTKFile>"), std::string::npos);

    const std::string lines = read_text(outline);
    EXPECT_EQ(xml_problem(lines), "");
    const index_t n_cells = poly.n_interior_subfaces() + poly.n_boundary_subfaces();
    EXPECT_NE(lines.find(cat("NumberOfPoints=\"", n_cells * d, "\" NumberOfCells=\"", n_cells, "\"")),
              std::string::npos);
    for (const char* name : {"Name=\"element\"", "Name=\"neighbour\"", "Name=\"tag\"", "Name=\"connectivity\""})
      EXPECT_NE(lines.find(name), std::string::npos) << name;
    // The types array: n_cells entries of VTK_LINE (3) or VTK_TRIANGLE (5).
    const std::size_t types = lines.find("Name=\"types\"");
    ASSERT_NE(types, std::string::npos);
    std::istringstream type_values(lines.substr(lines.find('>', types) + 1));
    index_t count = 0;
    int type = 0;
    while (type_values >> type) {
      EXPECT_EQ(type, d == 2 ? 3 : 5);
      ++count;
    }
    EXPECT_EQ(count, n_cells);

    // A field of the wrong size is refused.
    PolyVtuField short_field{"short", 1, std::vector<double>(3, 0.0)};
    expect_input_error([&] { write_poly_vtu(path.string(), poly, {short_field}); }, "short");
  }
  EXPECT_EQ(outline_path("a/b.vtu"), "a/b_outline.vtu");
  EXPECT_EQ(outline_path("a/b"), "a/b_outline.vtu");
  fs::remove_all(directory);
}
