// Gmsh reader: the sample meshes in tests/data (made by tests/data/make_meshes.sh) load with the
// counts gmsh reports and the geometry implies; every format variant of a geometry gives the same
// mesh; curved elements have their mid-edge nodes on the arcs; broken input is an InputError
// that says where, and never anything worse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/mesh/validate.hpp"

using namespace flowdg;

namespace {

std::string data_path(const std::string& name) { return std::string(FLOWDG_TEST_DATA_DIR) + "/" + name; }

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> sample_files() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(FLOWDG_TEST_DATA_DIR))
    if (entry.path().extension() == ".msh") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Message of the InputError that reading `bytes` throws, or "" when it loads.
std::string error_of(const std::string& bytes, const std::string& name = "broken.msh") {
  try {
    read_gmsh_from_memory(bytes, name);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

std::map<std::string, int> facet_counts(const Mesh& mesh) {
  std::map<std::string, int> counts;
  for (const auto& facet : mesh.tagged_facets) ++counts[mesh.boundary_names.at(facet.tag)];
  return counts;
}

std::map<ElementType, int> type_counts(const Mesh& mesh) {
  std::map<ElementType, int> counts;
  for (const auto type : mesh.element_types) ++counts[type];
  return counts;
}

Point3 node(const Mesh& mesh, index_t e, int k) { return mesh.nodes[mesh.element_node_ids(e)[k]]; }

double tetrahedron_volume(Point3 a, Point3 b, Point3 c, Point3 d) { return dot(cross(b - a, c - a), d - a) / 6; }

/// Signed area (2D, vertex polygon) or volume (3D) of a straight-sided element.
double measure(const Mesh& mesh, index_t e) {
  const auto v = [&](int k) { return node(mesh, e, k); };
  switch (mesh.element_shape(e)) {
    case Shape::triangle:
    case Shape::quadrilateral: {
      const int n = n_vertices(mesh.element_shape(e));
      double twice_area = 0;
      for (int k = 0; k < n; ++k) twice_area += v(k).x * v((k + 1) % n).y - v((k + 1) % n).x * v(k).y;
      return twice_area / 2;
    }
    case Shape::tetrahedron: return tetrahedron_volume(v(0), v(1), v(2), v(3));
    case Shape::hexahedron: {
      // Six tetrahedra around the diagonal 0-6: exact for the parallelepipeds of these samples.
      constexpr int ring[] = {1, 2, 3, 7, 4, 5, 1};
      double volume = 0;
      for (int k = 0; k < 6; ++k) volume += tetrahedron_volume(v(0), v(ring[k]), v(ring[k + 1]), v(6));
      return volume;
    }
    default: return 0;
  }
}

struct Sample {
  std::string geometry;
  std::vector<std::string> variants;  ///< file name suffixes
  int dimension;
  index_t n_nodes;
  std::map<ElementType, int> elements;
  std::map<std::string, int> facets;  ///< boundary name -> tagged facets
  double measure;                     ///< area or volume; 0: curved domain, not checked
};

// Element and node counts are what gmsh reports for these scripts; facet counts follow from the
// geometry (side length / mesh size, transfinite counts); measures are the exact domain sizes.
const std::vector<Sample>& samples() {
  using enum ElementType;
  const std::vector<std::string> ascii = {"msh41", "msh22"};
  static const std::vector<Sample> list = {
      {"square_tri", {"msh41", "msh22", "msh41_bin", "msh22_bin", "meshio22_bin", "meshio41"}, 2, 30,
       {{triangle3, 42}}, {{"bottom", 4}, {"right", 4}, {"top", 4}, {"left", 4}}, 1.0},
      {"square_quad", ascii, 2, 7 * 5, {{quadrilateral4, 24}}, {{"bottom", 6}, {"right", 4}, {"top", 6}, {"left", 4}}, 2.0},
      {"square_quad9", ascii, 2, 13 * 9, {{quadrilateral9, 24}}, {{"bottom", 6}, {"right", 4}, {"top", 6}, {"left", 4}}, 2.0},
      {"square_quad8", ascii, 2, 13 * 9 - 24, {{quadrilateral8, 24}}, {{"bottom", 6}, {"right", 4}, {"top", 6}, {"left", 4}}, 2.0},
      {"mixed", ascii, 2, 50, {{triangle3, 42}, {quadrilateral4, 16}}, {{"wall", 16}, {"inflow", 4}, {"outflow", 4}}, 2.0},
      {"annulus", ascii, 2, 118, {{triangle3, 188}}, {{"inflow", 4}, {"outer", 22}, {"outflow", 4}, {"inner", 16}}, 0},
      {"annulus_p2", {"msh41", "msh22", "meshio22_bin"}, 2, 118 + 305, {{triangle6, 188}},
       {{"inflow", 4}, {"outer", 22}, {"outflow", 4}, {"inner", 16}}, 0},
      {"cube_tet", {"msh41", "msh22", "msh41_bin", "msh22_bin", "meshio41"}, 3, 81, {{tetrahedron4, 184}},
       {{"xmin", 26}, {"xmax", 26}, {"ymin", 26}, {"ymax", 26}, {"zmin", 26}, {"zmax", 26}}, 1.0},
      {"cube_tet_p2", ascii, 3, 423, {{tetrahedron10, 184}},
       {{"xmin", 26}, {"xmax", 26}, {"ymin", 26}, {"ymax", 26}, {"zmin", 26}, {"zmax", 26}}, 1.0},
      {"cube_hex", ascii, 3, 4 * 4 * 4, {{hexahedron8, 27}},
       {{"xmin", 9}, {"xmax", 9}, {"ymin", 9}, {"ymax", 9}, {"zmin", 9}, {"zmax", 9}}, 1.0},
      // Higher orders: the node counts are the lattice's, (g n + 1)^dim on the structured meshes.
      {"square_tri_p2", ascii, 2, 101, {{triangle6, 42}}, {{"bottom", 4}, {"right", 4}, {"top", 4}, {"left", 4}}, 1.0},
      {"square_quad16", ascii, 2, 10 * 7, {{quadrilateral16, 6}}, {{"bottom", 3}, {"right", 2}, {"top", 3}, {"left", 2}}, 2.0},
      {"square_quad25", ascii, 2, 13 * 9, {{quadrilateral25, 6}}, {{"bottom", 3}, {"right", 2}, {"top", 3}, {"left", 2}}, 2.0},
      {"cube_tet20", ascii, 3, 172, {{tetrahedron20, 24}},
       {{"xmin", 4}, {"xmax", 4}, {"ymin", 4}, {"ymax", 4}, {"zmin", 4}, {"zmax", 4}}, 1.0},
      {"cube_tet35", {"msh41", "msh22", "msh41_bin", "msh22_bin"}, 3, 365, {{tetrahedron35, 24}},
       {{"xmin", 4}, {"xmax", 4}, {"ymin", 4}, {"ymax", 4}, {"zmin", 4}, {"zmax", 4}}, 1.0},
      {"cube_hex27", ascii, 3, 5 * 5 * 5, {{hexahedron27, 8}},
       {{"xmin", 4}, {"xmax", 4}, {"ymin", 4}, {"ymax", 4}, {"zmin", 4}, {"zmax", 4}}, 1.0},
      {"sector_tri15", ascii, 2, 9 * 13, {{triangle15, 12}}, {{"inflow", 2}, {"outer", 3}, {"outflow", 2}, {"inner", 3}}, 0},
      {"sector_quad16", ascii, 2, 7 * 10, {{quadrilateral16, 6}}, {{"inflow", 2}, {"outer", 3}, {"outflow", 2}, {"inner", 3}}, 0},
      {"cylinder_hex27", ascii, 3, 5 * 7 * 3, {{hexahedron27, 6}},
       {{"zmin", 6}, {"inflow", 2}, {"outer", 3}, {"outflow", 2}, {"inner", 3}, {"zmax", 6}}, 0},
      {"cylinder_tet35", {"msh41"}, 3, 395, {{tetrahedron35, 25}},
       {{"zmin", 4}, {"inflow", 4}, {"outer", 4}, {"outflow", 4}, {"inner", 8}, {"zmax", 4}}, 0},
  };
  return list;
}

std::string file_name(const Sample& sample, const std::string& variant) {
  return sample.geometry + "_" + variant + ".msh";
}

/// Facets sorted by their sorted vertices, so that files listing them in another order compare.
std::vector<std::pair<std::vector<index_t>, std::string>> sorted_facets(const Mesh& mesh) {
  std::vector<std::pair<std::vector<index_t>, std::string>> facets;
  for (const auto& facet : mesh.tagged_facets) {
    std::vector<index_t> vertices(facet.vertices.begin(), facet.vertices.begin() + facet.n_vertices);
    std::sort(vertices.begin(), vertices.end());
    facets.emplace_back(vertices, mesh.boundary_names[facet.tag]);
  }
  std::sort(facets.begin(), facets.end());
  return facets;
}

}  // namespace

TEST(GmshReaderSamples, LoadWithExpectedCountsAndMeasures) {
  for (const auto& sample : samples()) {
    for (const auto& variant : sample.variants) {
      const std::string name = file_name(sample, variant);
      SCOPED_TRACE(name);
      const Mesh mesh = read_gmsh(data_path(name));
      EXPECT_EQ(mesh.source, data_path(name));
      EXPECT_EQ(mesh.dimension, sample.dimension);
      EXPECT_EQ(mesh.n_nodes(), sample.n_nodes);
      EXPECT_EQ(type_counts(mesh), sample.elements);
      EXPECT_EQ(facet_counts(mesh), sample.facets);
      EXPECT_EQ(mesh.boundary_names.size(), sample.facets.size());
      ASSERT_EQ(mesh.element_offsets.size(), mesh.element_types.size() + 1);
      for (index_t e = 0; e < mesh.n_elements(); ++e) {
        ASSERT_EQ(mesh.element_n_nodes(e), n_nodes(mesh.element_types[e]));
        for (int k = 0; k < mesh.element_n_nodes(e); ++k) {
          ASSERT_GE(mesh.element_node_ids(e)[k], 0);
          ASSERT_LT(mesh.element_node_ids(e)[k], mesh.n_nodes());
        }
      }
      if (sample.measure == 0) continue;
      // Gmsh orients every element positively and tiles the domain: the measures add up exactly.
      double total = 0;
      for (index_t e = 0; e < mesh.n_elements(); ++e) {
        const double m = measure(mesh, e);
        EXPECT_GT(m, 0) << "element " << e;
        total += m;
      }
      EXPECT_NEAR(total, sample.measure, 1e-13);
    }
  }
}

TEST(GmshReaderSamples, TaggedFacetsLieOnTheirNamedSides) {
  // Side name -> (coordinate index, value) for the unit square and the unit cube.
  const std::map<std::string, std::pair<int, double>> sides = {
      {"left", {0, 0.0}}, {"right", {0, 1.0}}, {"bottom", {1, 0.0}}, {"top", {1, 1.0}},
      {"xmin", {0, 0.0}}, {"xmax", {0, 1.0}}, {"ymin", {1, 0.0}}, {"ymax", {1, 1.0}},
      {"zmin", {2, 0.0}}, {"zmax", {2, 1.0}}};
  for (const auto& sample : samples()) {
    if (sample.geometry != "square_tri" && sample.geometry != "cube_tet") continue;
    for (const auto& variant : sample.variants) {
      SCOPED_TRACE(file_name(sample, variant));
      const Mesh mesh = read_gmsh(data_path(file_name(sample, variant)));
      for (const auto& facet : mesh.tagged_facets) {
        ASSERT_EQ(facet.n_vertices, mesh.dimension);
        const auto [axis, value] = sides.at(mesh.boundary_names[facet.tag]);
        for (int k = 0; k < facet.n_vertices; ++k) {
          const Point3 p = mesh.nodes[facet.vertices[k]];
          EXPECT_EQ((axis == 0 ? p.x : axis == 1 ? p.y : p.z), value) << mesh.boundary_names[facet.tag];
        }
      }
    }
  }
}

TEST(GmshReaderVariants, EveryFormatOfAGeometryGivesTheSameMesh) {
  for (const auto& sample : samples()) {
    const Mesh reference = read_gmsh(data_path(file_name(sample, sample.variants[0])));
    for (std::size_t v = 1; v < sample.variants.size(); ++v) {
      SCOPED_TRACE(file_name(sample, sample.variants[v]));
      const Mesh mesh = read_gmsh(data_path(file_name(sample, sample.variants[v])));
      ASSERT_EQ(mesh.n_nodes(), reference.n_nodes());
      // ASCII files carry 16 significant digits, binary ones all 17.
      for (index_t i = 0; i < mesh.n_nodes(); ++i) {
        ASSERT_NEAR(mesh.nodes[i].x, reference.nodes[i].x, 1e-15) << "node " << i;
        ASSERT_NEAR(mesh.nodes[i].y, reference.nodes[i].y, 1e-15) << "node " << i;
        ASSERT_NEAR(mesh.nodes[i].z, reference.nodes[i].z, 1e-15) << "node " << i;
      }
      EXPECT_EQ(mesh.element_types, reference.element_types);
      EXPECT_EQ(mesh.element_offsets, reference.element_offsets);
      EXPECT_EQ(mesh.element_nodes, reference.element_nodes);
      EXPECT_EQ(mesh.boundary_names, reference.boundary_names);
      EXPECT_EQ(sorted_facets(mesh), sorted_facets(reference));
    }
  }
}

TEST(GmshReaderCurved, AnnulusMidEdgeNodesLieOnTheArcsAndAxes) {
  for (const std::string variant : {"msh41", "msh22", "meshio22_bin"}) {
    SCOPED_TRACE(variant);
    const Mesh mesh = read_gmsh(data_path("annulus_p2_" + variant + ".msh"));
    // Mid-edge node of each triangle6 edge (Gmsh: nodes 3, 4, 5 on edges 0-1, 1-2, 2-0).
    std::map<std::pair<index_t, index_t>, index_t> middle;
    for (index_t e = 0; e < mesh.n_elements(); ++e) {
      const index_t* ids = mesh.element_node_ids(e);
      for (int k = 0; k < 3; ++k)
        middle[std::minmax(ids[k], ids[(k + 1) % 3])] = ids[3 + k];
    }
    std::map<std::string, int> checked;
    for (const auto& facet : mesh.tagged_facets) {
      const std::string& name = mesh.boundary_names[facet.tag];
      const Point3 a = mesh.nodes[facet.vertices[0]], b = mesh.nodes[facet.vertices[1]];
      const Point3 m = mesh.nodes[middle.at(std::minmax(facet.vertices[0], facet.vertices[1]))];
      const double radius = std::hypot(m.x, m.y);
      if (name == "inner" || name == "outer") {
        EXPECT_NEAR(radius, name == "inner" ? 1.0 : 1.384, 1e-12);
      } else {
        EXPECT_EQ(name == "inflow" ? m.y : m.x, 0.0);
        EXPECT_NEAR(std::hypot(m.x - (a.x + b.x) / 2, m.y - (a.y + b.y) / 2), 0, 1e-12);
      }
      ++checked[name];
    }
    EXPECT_EQ(checked, (std::map<std::string, int>{{"inflow", 4}, {"outer", 22}, {"outflow", 4}, {"inner", 16}}));
  }
}

TEST(GmshReaderCurved, StraightQuadraticElementsHaveTheirMidNodesAtEdgeMidpoints) {
  // Gmsh's edge order: quadrilaterals (0,1) (1,2) (2,3) (3,0) then the centre (9-node);
  // tetrahedra (0,1) (1,2) (2,0) (3,0) (3,2) (3,1). Gmsh places every node through its curve and
  // surface parametrisations, good to ~1e-13 (x = 1/6 comes out as 0.16666666666632), so the
  // midpoints agree to 1e-12; a node in the wrong slot would be off by a tenth.
  const std::vector<std::pair<int, int>> quad_edges = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  const std::vector<std::pair<int, int>> tet_edges = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
  for (const std::string name : {"square_quad9_msh41.msh", "square_quad8_msh22.msh", "cube_tet_p2_msh41.msh"}) {
    SCOPED_TRACE(name);
    const Mesh mesh = read_gmsh(data_path(name));
    const auto& edges = mesh.dimension == 3 ? tet_edges : quad_edges;
    const int n_vertex = 4;  // quadrilaterals and tetrahedra alike
    for (index_t e = 0; e < mesh.n_elements(); ++e) {
      for (std::size_t k = 0; k < edges.size(); ++k) {
        const Point3 expected = 0.5 * (node(mesh, e, edges[k].first) + node(mesh, e, edges[k].second));
        const Point3 m = node(mesh, e, n_vertex + static_cast<int>(k));
        ASSERT_NEAR(m.x, expected.x, 1e-12) << "element " << e << " edge " << k;
        ASSERT_NEAR(m.y, expected.y, 1e-12) << "element " << e << " edge " << k;
        ASSERT_NEAR(m.z, expected.z, 1e-12) << "element " << e << " edge " << k;
      }
      if (mesh.element_types[e] == ElementType::quadrilateral9) {
        const Point3 centre = 0.25 * (node(mesh, e, 0) + node(mesh, e, 1) + node(mesh, e, 2) + node(mesh, e, 3));
        EXPECT_NEAR(node(mesh, e, 8).x, centre.x, 1e-12);
        EXPECT_NEAR(node(mesh, e, 8).y, centre.y, 1e-12);
      }
    }
  }
}

namespace {

// MSH 4.1 as the spec allows but gmsh rarely writes: node tags 10..40 out of order, a curve block
// with one parametric coordinate per node, and the physical group reached through $Entities.
const std::string sparse_msh41 = R"($MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
1
1 3 "bottom"
$EndPhysicalNames
$Entities
0 1 1 0
7 0 0 0 1 0 0 1 3 0
1 0 0 0 1 1 0 0 0
$EndEntities
$Nodes
2 4 10 40
1 7 1 2
20
10
1 0 0 1
0 0 0 0
2 1 0 2
40
30
0 1 0
1 1 0
$EndNodes
$Elements
2 3 1 9
1 7 1 1
5 10 20
2 1 2 2
8 10 20 30
9 10 30 40
$EndElements
)";

}  // namespace

TEST(GmshReaderFormats, SparseNodeTagsParametricNodesAndEntities) {
  const Mesh mesh = read_gmsh_from_memory(sparse_msh41, "sparse.msh");
  ASSERT_EQ(mesh.n_nodes(), 4);
  EXPECT_EQ(mesh.nodes[0].x, 1.0);  // tag 20 comes first in the file
  EXPECT_EQ(mesh.nodes[3].x, 1.0);  // tag 30
  EXPECT_EQ(mesh.nodes[3].y, 1.0);
  EXPECT_EQ(mesh.element_nodes, (std::vector<index_t>{1, 0, 3, 1, 3, 2}));
  ASSERT_EQ(mesh.tagged_facets.size(), 1u);
  EXPECT_EQ(mesh.boundary_names, std::vector<std::string>{"bottom"});
  EXPECT_EQ(mesh.tagged_facets[0].vertices[0], 1);
  EXPECT_EQ(mesh.tagged_facets[0].vertices[1], 0);
}

namespace {

// Two triangles on the unit square, MSH 2.2; the boundary is in physical groups 5 (named "wall")
// and 6 (unnamed), one edge is in none. Line numbers are referred to by the error tests.
const std::string two_triangles = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
1
1 5 "wall"
$EndPhysicalNames
$Nodes
4
1 0 0 0
2 1 0 0
3 1 1 0
7 0 1 0
$EndNodes
$Periodic
1
1 2 3
$EndPeriodic
$Elements
6
1 15 2 9 1 1
2 1 2 5 1 1 2
3 1 2 6 2 2 3
4 1 2 0 3 3 7
5 2 2 1 1 1 2 3
6 2 2 1 1 1 3 7
$EndElements
$NodeData
1
"pressure"
$EndNodeData
)";

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST(GmshReaderFormats, Msh22PhysicalTagsUnknownSectionsAndUnnamedGroups) {
  const Mesh mesh = read_gmsh_from_memory(two_triangles, "two.msh");
  EXPECT_EQ(mesh.dimension, 2);
  EXPECT_EQ(mesh.n_elements(), 2);
  EXPECT_EQ(mesh.element_file_tags, (std::vector<std::int64_t>{5, 6}));
  EXPECT_EQ(mesh.element_label(1), "element 1 (Gmsh tag 6)");
  EXPECT_EQ(mesh.element_nodes, (std::vector<index_t>{0, 1, 2, 0, 2, 3}));
  EXPECT_EQ(mesh.boundary_names, (std::vector<std::string>{"wall", "tag6"}));
  EXPECT_EQ(facet_counts(mesh), (std::map<std::string, int>{{"wall", 1}, {"tag6", 1}}));
}

TEST(GmshReaderErrors, MessagesNameTheFileAndTheLine) {
  struct Case {
    std::string bytes;
    std::vector<std::string> expected;  ///< substrings of the message
  };
  const std::vector<Case> cases = {
      {"", {"broken.msh", "empty"}},
      {"hello world\n", {"broken.msh, line 1:", "not a Gmsh MSH file"}},
      {"$MeshFormat\n3.0 0 8\n$EndMeshFormat\n", {"broken.msh, line 2:", "unsupported MSH version '3.0'"}},
      {"$MeshFormat\n2.2 0 4\n$EndMeshFormat\n", {"line 2:", "data size"}},
      {two_triangles.substr(0, two_triangles.find("5 2 2 1 1 1 2 3") + 9), {"line 25:", "unexpected end of file"}},
      {replace(two_triangles, "2 1 0 0", "2 1 0x 0"), {"line 11:", "expected a node coordinate", "'0x'"}},
      {replace(two_triangles, "3 1 1 0", "3 1 nan 0"), {"line 12:", "not a finite number"}},
      {replace(two_triangles, "3 1 1 0", "3 1 1e999 0"), {"line 12:", "expected a node coordinate"}},
      {replace(two_triangles, "3 1 1 0", "3 1 1 0.5"), {"line 12:", "z = 0.5", "two-dimensional"}},
      {replace(two_triangles, "3 1 1 0", "2 1 1 0"), {"line 12:", "node tag 2 is defined twice"}},
      {replace(two_triangles, "3 1 1 0", "-3 1 1 0"), {"line 12:", "node tag must be positive"}},
      {replace(two_triangles, "$Nodes\n4", "$Nodes\n3"), {"line 13:", "expected $EndNodes", "'7'"}},
      {replace(two_triangles, "$Nodes\n4", "$Nodes\n5"), {"line 14:", "expected a node tag", "'$EndNodes'"}},
      {replace(two_triangles, "$Nodes\n4", "$Nodes\n-4"), {"line 9:", "negative"}},
      {replace(two_triangles, "$Nodes\n4", "$Nodes\n999999999999"), {"line 9:", "more than the remaining"}},
      {replace(two_triangles, "$Nodes\n4", "$Nodes\n99999999999999999999"), {"line 9:", "expected the number of nodes"}},
      {replace(two_triangles, "1 1 1 3 7", "1 1 1 3 8"), {"line 26:", "element 6 uses node 8"}},
      {replace(two_triangles, "6 2 2 1 1 1 3 7", "6 20 2 1 1 1 3 7 1 1 1 1 1 1"),
       {"line 26:", "element type 20 (9-node triangle) is not supported"}},
      {replace(two_triangles, "\n6 2 2", "\n6 99 2"), {"line 26:", "unknown element type 99"}},
      {replace(two_triangles, "$EndPeriodic", "$EndPeriodik"), {"line 15:", "section $Periodic has no $EndPeriodic"}},
      {replace(two_triangles, "$EndElements", "$EndElement"), {"line 27:", "expected $EndElements"}},
      {replace(two_triangles, "1 5 \"wall\"", "1 5 wall"), {"line 6:", "double quotes"}},
      {replace(two_triangles, "5 2 2 1 1 1 2 3\n6 2 2 1 1 1 3 7", "5 1 2 1 1 1 2\n6 1 2 1 1 1 3"),
       {"line 19:", "no 2D or 3D elements"}},
      {replace(replace(two_triangles, "$Elements", "$Elementz"), "$EndElements", "$EndElementz"), {"no $Elements section"}},
      {replace(sparse_msh41, "2 4 10 40", "2 5 10 40"), {"line 14:", "the node blocks hold 4 nodes but the header declared 5"}},
      {replace(sparse_msh41, "2 4 10 40", "2 3 10 40"), {"line 20:", "node block holds 2 nodes but only 1 of the declared 3 remain"}},
      {replace(sparse_msh41, "1 7 1 2", "1 7 2 2"), {"line 15:", "parametric flag must be 0 or 1"}},
      {replace(sparse_msh41, "2 3 1 9", "2 4 1 9"), {"line 27:", "the element blocks hold 3 elements but the header declared 4"}},
      {replace(sparse_msh41, "2 1 2 2", "1 1 2 2"), {"line 30:", "element type 2 is 2D but its block is 1D"}},
      {replace(sparse_msh41, "9 10 30 40", "9 10 30 50"), {"line 32:", "element 9 uses node 50"}},
  };
  for (const auto& c : cases) {
    const std::string message = error_of(c.bytes);
    SCOPED_TRACE(message);
    ASSERT_FALSE(message.empty()) << c.expected.back();
    for (const auto& part : c.expected) EXPECT_NE(message.find(part), std::string::npos) << part;
  }
}

TEST(GmshReaderErrors, MissingFileAndDirectoryAreInputErrors) {
  const std::string missing = data_path("no_such_mesh.msh");
  try {
    read_gmsh(missing);
    FAIL() << "a missing file loaded";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(missing), std::string::npos);
  }
  EXPECT_THROW(read_gmsh(FLOWDG_TEST_DATA_DIR), InputError);
}

TEST(GmshReaderErrors, BinaryMessagesGiveTheByteOffset) {
  // "$MeshFormat\n4.1 1 8\n" is 20 bytes: the endianness marker follows.
  const std::string big_endian = std::string("$MeshFormat\n4.1 1 8\n") + std::string("\0\0\0\1", 4) + "\n$EndMeshFormat\n";
  EXPECT_NE(error_of(big_endian).find("broken.msh, byte 20: big-endian"), std::string::npos) << error_of(big_endian);
  const std::string two = std::string("$MeshFormat\n4.1 1 8\n") + std::string("\2\0\0\0", 4) + "\n$EndMeshFormat\n";
  EXPECT_NE(error_of(two).find("byte 20: bad endianness marker 2"), std::string::npos) << error_of(two);

  // A binary file cut inside its last element fails at an offset within the record it was reading.
  const std::string bytes = file_bytes(data_path("square_tri_msh41_bin.msh"));
  const std::size_t cut = bytes.rfind("$EndElements") - 5;
  const std::string message = error_of(bytes.substr(0, cut));
  const auto at = message.find("broken.msh, byte ");
  ASSERT_NE(at, std::string::npos) << message;
  const std::size_t offset = std::stoul(message.substr(at + 17));
  EXPECT_LE(offset, cut);
  EXPECT_GT(offset + 8, cut);
  EXPECT_NE(message.find("the file ends inside"), std::string::npos) << message;
}

TEST(GmshReaderRobustness, CorruptedSamplesLoadOrThrowInputError) {
  // Seeded random damage to every sample: truncation, overwritten bytes, deleted or doubled
  // lines, numbers swapped for hostile ones. Each outcome must be a mesh or an InputError.
  const std::vector<std::string> hostile = {"-1", "0", "2147483648", "99999999999999999999", "nan", "1e400", "$", "\"", "-0"};
  std::mt19937_64 random(20240611);
  int loaded = 0, rejected = 0;
  for (const auto& name : sample_files()) {
    const std::string original = file_bytes(data_path(name));
    ASSERT_FALSE(original.empty()) << name;
    // Gmsh and meshio end every sample with $Elements, so a cut before its end must be refused.
    const std::size_t complete = original.rfind("$EndElements") + std::string("$EndElements").size();
    for (int trial = 0; trial < 200; ++trial) {
      std::string bytes = original;
      const auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random); };
      const int kind = static_cast<int>(pick(5));
      std::size_t cut = bytes.size();
      if (kind == 0) {
        cut = pick(bytes.size());
        bytes.resize(cut);
      } else if (kind == 1) {
        for (std::size_t k = 0, n = 1 + pick(4); k < n; ++k) bytes[pick(bytes.size())] = static_cast<char>(pick(256));
      } else if (kind == 2 || kind == 3) {
        const std::size_t start = bytes.rfind('\n', pick(bytes.size())) + 1;
        const std::size_t end = std::min(bytes.find('\n', start), bytes.size() - 1) + 1;
        const std::string line = bytes.substr(start, end - start);
        if (kind == 2) bytes.erase(start, end - start);
        else bytes.insert(start, line);
      } else {
        const std::size_t start = pick(bytes.size());
        const std::size_t end = std::min(bytes.find_first_of(" \n", start), bytes.size());
        bytes.replace(start, end - start, hostile[pick(hostile.size())]);
      }
      try {
        read_gmsh_from_memory(bytes, name);
        ++loaded;
        EXPECT_GE(cut, complete) << name << " truncated to " << cut << " bytes loaded";
      } catch (const InputError& error) {
        ++rejected;
        EXPECT_NE(std::string(error.what()).find(name), std::string::npos) << error.what();
      } catch (const std::exception& error) {
        ADD_FAILURE() << name << ", trial " << trial << ": " << error.what();
      }
    }
  }
  // Both outcomes occur: damage to a coordinate's digits still loads, damage to structure fails.
  EXPECT_GT(loaded, 0);
  EXPECT_GT(rejected, 0);
}

// Messages about a mesh read from a file name its elements by the file's tags too, and element
// renumbering carries the tags along.
TEST(GmshReaderErrors, ValidationMessagesNameTheFilesElementTags) {
  Mesh flat = read_gmsh_from_memory(replace(two_triangles, "7 0 1 0", "7 2 2 0"), "flat.msh");  // 1, 3, 7 collinear
  const MeshReport report = validate_mesh(flat);
  std::string errors;
  for (const std::string& error : report.errors) errors += error + "\n";
  EXPECT_NE(errors.find("zero area: element 1 (Gmsh tag 6; triangle3, vertices"), std::string::npos) << errors;

  Mesh mesh = read_gmsh_from_memory(two_triangles, "two.msh");
  const std::vector<std::int64_t> tags = mesh.element_file_tags;
  for (const ElementOrdering ordering : {ElementOrdering::reverse_cuthill_mckee, ElementOrdering::hilbert}) {
    const std::vector<index_t> new_to_old = reorder_elements(mesh, ordering);
    std::vector<std::int64_t> expected(new_to_old.size());
    for (std::size_t e = 0; e < new_to_old.size(); ++e) expected[e] = tags[static_cast<std::size_t>(new_to_old[e])];
    EXPECT_EQ(mesh.element_file_tags, expected);
    mesh = read_gmsh_from_memory(two_triangles, "two.msh");
  }
  EXPECT_TRUE(refine_uniform(mesh).element_file_tags.empty());
  EXPECT_EQ(refine_uniform(mesh).element_label(0), "element 0");
}
