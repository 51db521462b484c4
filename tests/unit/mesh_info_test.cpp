// Mesh specs, the mesh summary, the broken sample files and the `flowdg mesh info` command, with its
// polytopic statistics (--agglomerate).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/mesh_info.hpp"
#include "flowdg/mesh/partition.hpp"
#include "mesh_invariants.hpp"

using namespace flowdg;
using flowdg::testing::contains;

namespace {

std::string input_error_of(const std::string& spec) {
  try {
    load_mesh(spec);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

CommandResult run_cli(const std::string& arguments) {
  // Files of this process only: ctest -j runs the MeshInfo tests side by side, and a shared name
  // let one test read another's output.
  const auto directory = std::filesystem::temp_directory_path();
  const std::string stem = cat("flowdg_mesh_info_test_", getpid());
  const std::string out = (directory / (stem + ".out")).string();
  const std::string err = (directory / (stem + ".err")).string();
  const int status = std::system(cat("'", FLOWDG_CLI, "' ", arguments, " >", out, " 2>", err).c_str());
  const auto read = [](const std::string& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
  };
  CommandResult result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read(out), read(err)};
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return result;
}

std::string data(const std::string& name) { return cat(FLOWDG_TEST_DATA_DIR, "/", name); }

}  // namespace

TEST(MeshInfo, BuiltinSpecsGiveTheDocumentedMeshes) {
  EXPECT_EQ(load_mesh("builtin:annulus").n_elements(), 180);
  EXPECT_EQ(load_mesh("builtin:annulus?refine=2").n_elements(), 2880);
  const Mesh rectangle = load_mesh("builtin:rectangle?nx=10&ny=5");
  EXPECT_EQ(rectangle.n_elements(), 100);
  EXPECT_EQ(rectangle.source, "builtin:rectangle?nx=10&ny=5");
  EXPECT_EQ(load_mesh("builtin:rectangle?cells=quadrilaterals&nx=3&ny=2&refine=1").n_elements(), 24);
  const Mesh box = load_mesh("builtin:box?n=2&lz=3");
  EXPECT_EQ(box.n_elements(), 48);
  EXPECT_EQ(box.nodes.back().z, 3.0);
  EXPECT_EQ(load_mesh("builtin:box?n=2&nx=1").n_elements(), 24);
}

TEST(MeshInfo, BuiltinSpecsTakeCellsAndGeometricOrder) {
  const auto counts = [](const std::string& spec) {
    Mesh mesh = load_mesh(spec);
    const MeshInfo info = mesh_info(mesh);
    EXPECT_TRUE(info.report.ok()) << spec;
    return std::pair{info.element_counts, info.n_nodes};
  };
  using Counts = std::vector<std::pair<std::string, index_t>>;
  // Hexahedra of order 2: (2 n + 1)^3 nodes; tetrahedra of order 3: (3 n + 1)^3 lattice points.
  EXPECT_EQ(counts("builtin:box?n=2&cells=hexahedra"), (std::pair{Counts{{"hexahedron8", 8}}, index_t{27}}));
  EXPECT_EQ(counts("builtin:box?n=2&cells=hexahedra&order=2"), (std::pair{Counts{{"hexahedron27", 8}}, index_t{125}}));
  EXPECT_EQ(counts("builtin:box?n=2&order=3"), (std::pair{Counts{{"tetrahedron20", 48}}, index_t{343}}));
  // Refined first, then elevated: 4 x 2 quadrilaterals of order 4, (4 4 + 1) x (4 2 + 1) nodes.
  EXPECT_EQ(counts("builtin:rectangle?cells=quadrilaterals&nx=2&ny=1&refine=1&order=4"),
            (std::pair{Counts{{"quadrilateral25", 8}}, index_t{17 * 9}}));
  EXPECT_EQ(counts("builtin:rectangle?nx=2&ny=2&order=2").first, (Counts{{"triangle6", 8}}));
  EXPECT_EQ(counts("builtin:annulus?order=3&refine=1").first, (Counts{{"triangle10", 720}}));
}

TEST(MeshInfo, BadSpecsAreOneLineInputErrors) {
  EXPECT_TRUE(contains(input_error_of("builtin:disk"), "unknown built-in mesh 'disk' (known: annulus, rectangle, box, double-mach)"));
  EXPECT_TRUE(contains(input_error_of("builtin:annulus?levels=2"), "'levels=2' is not key=value with a known key"));
  EXPECT_TRUE(contains(input_error_of("builtin:rectangle?nx=ten"), "nx=ten is not an integer"));
  EXPECT_TRUE(contains(input_error_of("builtin:rectangle?x1=1.5e"), "x1=1.5e is not a number"));
  EXPECT_TRUE(contains(input_error_of("builtin:rectangle?cells=hexagons"), "cells must be triangles or quadrilaterals"));
  EXPECT_TRUE(contains(input_error_of("builtin:annulus?refine=-1"), "refine must be >= 0"));
  EXPECT_TRUE(contains(input_error_of("builtin:box?cells=prisms"), "cells must be tetrahedra or hexahedra, not 'prisms'"));
  EXPECT_TRUE(contains(input_error_of("builtin:box?cells=hexahedra&order=3"),
                       "mesh spec 'builtin:box?cells=hexahedra&order=3': elevate_order: builtin:box(1 x 1 x 1, 4 x 4 x 4 "
                       "hexahedra) has hexahedra, whose geometric order can be 1 or 2 (asked for 3)"));
  EXPECT_TRUE(contains(input_error_of("builtin:rectangle?order=5"), "geometric order 5"));
  EXPECT_TRUE(contains(input_error_of("builtin:rectangle?order=two"), "order=two is not an integer"));
  EXPECT_TRUE(contains(input_error_of("builtin:annulus?order=5"), "annulus order 5 is out of range (1..4)"));
  EXPECT_TRUE(contains(input_error_of("builtin:double-mach?order=2"), "'order=2' is not key=value with a known key"));
  EXPECT_NE(input_error_of(data("no_such_file.msh")), "no error");
}

TEST(MeshInfo, SummaryOfAUniformRectangleIsExact) {
  // 0.2 x 0.2 cells cut into right isosceles triangles: every h is 0.2 sqrt 2, every min angle 45.
  Mesh mesh = load_mesh("builtin:rectangle?x1=2&nx=10&ny=5");
  const MeshInfo info = mesh_info(mesh);
  EXPECT_TRUE(info.report.ok());
  EXPECT_EQ(info.dimension, 2);
  EXPECT_EQ(info.n_nodes, 66);
  EXPECT_EQ(info.element_counts, (std::vector<std::pair<std::string, index_t>>{{"triangle3", 100}}));
  ASSERT_TRUE(info.has_faces);
  EXPECT_EQ(info.n_boundary_faces, 30);
  EXPECT_EQ(info.n_interior_faces, 135);
  EXPECT_EQ(info.tag_face_counts,
            (std::vector<std::pair<std::string, index_t>>{{"bottom", 10}, {"right", 5}, {"top", 10}, {"left", 5}}));
  EXPECT_NEAR(info.h_min, 0.2 * std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(info.h_max, 0.2 * std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(info.worst_angle_degrees, 45.0, 1e-12);
  const std::string json = to_json(info);
  EXPECT_TRUE(contains(json, "\"elements\": {\"triangle3\": 100}"));
  EXPECT_TRUE(contains(json, "\"boundary_tags\": {\"bottom\": 10, \"right\": 5, \"top\": 10, \"left\": 5}"));
  EXPECT_TRUE(contains(json, "\"valid\": true"));
}

// Each broken sample file gives its own error (or, for a clockwise straight triangle, its repair).
TEST(MeshInfo, BrokenSampleFilesGiveTheirSpecificError) {
  const std::map<std::string, std::string> expected{
      {"bad_duplicate_element.msh", "error: 1 duplicate elements: elements 0 and 2 have the same vertices"},
      {"bad_edge_three_triangles.msh", "error: 1 faces are shared by more than two elements"},
      {"bad_hanging_node.msh", "error: 1 non-conforming (hanging) faces: node 6 (1, 0.5)"},
      {"bad_inverted_curved_triangle.msh", "error: 1 curved elements are inverted or fold over"},
      {"bad_inverted_triangle.msh", "note: reoriented 1 inverted elements to positive orientation (first: 1)"},
      {"bad_untagged_boundary.msh", "error: 1 boundary faces have no boundary tag: face with nodes 0 (0, 0), 3 (0, 1)"},
      {"bad_zero_area_triangle.msh", "error: 1 elements have zero area"},
  };
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(FLOWDG_TEST_DATA_DIR)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("bad_")) continue;
    SCOPED_TRACE(name);
    const auto found = expected.find(name);
    ASSERT_NE(found, expected.end()) << "a new broken sample: add what it must report";
    Mesh mesh = load_mesh(entry.path().string());
    const MeshInfo info = mesh_info(mesh);
    EXPECT_EQ(info.report.ok(), name == "bad_inverted_triangle.msh");
    EXPECT_TRUE(contains(to_text(info), found->second));
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(expected.size()));
}

TEST(MeshInfo, CommandPrintsTheSummaryOfABuiltinMesh) {
  const CommandResult result = run_cli("mesh info builtin:annulus");
  EXPECT_EQ(result.exit_code, 0) << result.err;
  for (const char* line : {"source: builtin:annulus\n", "nodes: 114\n", "elements: 180 (triangle3: 180)\n",
                           "faces: 293 (boundary 46, interior 247)\n", "  inner: 18 faces\n",
                           "  outer: 18 faces\n", "  inflow: 5 faces\n", "  outflow: 5 faces\n", "valid\n"})
    EXPECT_TRUE(contains(result.out, line));

  const CommandResult json = run_cli("mesh info --json 'builtin:annulus?refine=1'");
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(contains(json.out, "\"boundary_faces\": 92,\n  \"interior_faces\": 1034"));  // 1126 in all
}

TEST(MeshInfo, CommandRefusesAnInvalidMeshWithExitCode2) {
  const CommandResult result = run_cli(cat("mesh info '", data("bad_hanging_node.msh"), "'"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(contains(result.out, "invalid\n"));
  EXPECT_TRUE(contains(result.err, "flowdg: error: mesh "));
  EXPECT_TRUE(contains(result.err, "is invalid: 1 non-conforming (hanging) faces"));

  const CommandResult missing = run_cli("mesh info builtin:annulus?refine=x");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "refine=x is not an integer"));
}

TEST(MeshInfo, CommandAgglomeratesIntoPolytopicElements) {
  const auto directory = std::filesystem::temp_directory_path();
  const std::string vtu = (directory / cat("flowdg_mesh_info_test_", getpid(), "_poly.vtu")).string();
  const std::string outline = (directory / cat("flowdg_mesh_info_test_", getpid(), "_poly_outline.vtu")).string();
  const CommandResult bisection =
      run_cli(cat("mesh info 'builtin:rectangle?nx=20&ny=20&perturbation=0.2' --agglomerate 40 --agglomeration bisection "
                  "--sub-simplices fine --vtu ", vtu));
  EXPECT_EQ(bisection.exit_code, 0) << bisection.err;
  const std::string wrote = cat("wrote ", vtu, " (fine cells coloured by agglomerate) and ", outline);
  for (const char* line : {"elements: 800 (triangle3: 800)\n", "valid\n",
                           "agglomeration: recursive bisection, 40 elements asked for",
                           "polytopic mesh: 40 elements agglomerated from 800 triangles (2D)\n",
                           "  faces per element (interfaces + boundary pieces): min ", "  sub-faces per element: min ",
                           "  quadrature sub-simplices per element (fine): min ", wrote.c_str()})
    EXPECT_TRUE(contains(bisection.out, line)) << line << "\n" << bisection.out;
  EXPECT_TRUE(std::filesystem::file_size(vtu) > 0);
  EXPECT_TRUE(std::filesystem::file_size(outline) > 0);
  std::filesystem::remove(vtu);
  std::filesystem::remove(outline);

  const CommandResult box = run_cli("mesh info 'builtin:box?n=3' --agglomerate 10 --agglomeration bisection");
  EXPECT_EQ(box.exit_code, 0) << box.err;
  EXPECT_TRUE(contains(box.out, "polytopic mesh: 10 elements agglomerated from 162 tetrahedra (3D)\n")) << box.out;
  EXPECT_TRUE(contains(box.out, "quadrature sub-simplices per element (coarse): min ")) << box.out;

  // The committed fine mesh of the agglomeration study, by METIS (the default).
  const CommandResult metis = run_cli(cat("mesh info '", FLOWDG_SOURCE_DIR, "/examples/poly/oscillating_small.msh' --agglomerate 330"));
  if (!metis_available()) {
    EXPECT_EQ(metis.exit_code, 2);
    EXPECT_TRUE(contains(metis.err, "agglomeration by METIS needs METIS")) << metis.err;
    return;
  }
  EXPECT_EQ(metis.exit_code, 0) << metis.err;
  for (const char* line : {"elements: 20110 (triangle3: 20110)\n", "  bottom: ", "  left: ", "valid\n",
                           "agglomeration: METIS k-way, 330 elements asked for",
                           " elements agglomerated from 20110 triangles (2D)\n",
                           "  faces per element (interfaces + boundary pieces): min "})
    EXPECT_TRUE(contains(metis.out, line)) << line << "\n" << metis.out;
}

TEST(MeshInfo, CommandRefusesABadAgglomerationWithExitCode2) {
  for (const char* n : {"0", "33"}) {
    const CommandResult result = run_cli(cat("mesh info 'builtin:rectangle?nx=4&ny=4' --agglomerate ", n));
    EXPECT_EQ(result.exit_code, 2) << n;
    EXPECT_TRUE(contains(result.err, cat("flowdg: error: cannot agglomerate the 32 fine elements of builtin:rectangle?nx=4&ny=4 "
                                         "into ", n, " elements: ask for 1 to 32")))
        << result.err;
  }
  const CommandResult quadrilaterals = run_cli("mesh info 'builtin:rectangle?nx=4&ny=4&cells=quadrilaterals' --agglomerate 3");
  EXPECT_EQ(quadrilaterals.exit_code, 2);
  EXPECT_TRUE(contains(quadrilaterals.err, "--agglomerate needs a mesh of straight 3-node triangles (2D) or 4-node "
                                           "tetrahedra (3D); builtin:rectangle?nx=4&ny=4&cells=quadrilaterals has element 0 "
                                           "of type quadrilateral4"))
      << quadrilaterals.err;
  const CommandResult curved = run_cli("mesh info 'builtin:annulus?order=2' --agglomerate 3");
  EXPECT_EQ(curved.exit_code, 2);
  EXPECT_TRUE(contains(curved.err, "of type triangle6")) << curved.err;
  const CommandResult hexahedra = run_cli("mesh info 'builtin:box?n=2&cells=hexahedra' --agglomerate 3");
  EXPECT_EQ(hexahedra.exit_code, 2);
  EXPECT_TRUE(contains(hexahedra.err, "of type hexahedron8")) << hexahedra.err;

  const CommandResult lone_vtu = run_cli("mesh info builtin:annulus --vtu x.vtu");
  EXPECT_NE(lone_vtu.exit_code, 0);
  EXPECT_TRUE(contains(lone_vtu.err, "--vtu requires --agglomerate")) << lone_vtu.err;
  const CommandResult method = run_cli("mesh info builtin:annulus --agglomerate 3 --agglomeration voronoi");
  EXPECT_NE(method.exit_code, 0);
  EXPECT_TRUE(contains(method.err, "voronoi")) << method.err;
}
