// The DG core (dg/operator.hpp) on every shape and geometry kind: groups and face permutations,
// free-stream preservation, conservation, agreement with the tuned 2D Euler triangle solver, and
// convergence of the isentropic vortex on quadrilaterals, tetrahedra and hexahedra.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <tuple>

#include "flowdg/backend/fragment_order.hpp"
#include "flowdg/dg/core_kernels.hpp"
#include "flowdg/dg/core_variable_kernels.hpp"
#include "flowdg/dg/euler2d.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/dg/setup.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/mesh/periodic.hpp"
#include "flowdg/time/runge_kutta.hpp"

using namespace flowdg;

namespace {

physics::FlowSpec uniform_flow(int dim) {
  physics::FlowSpec flow;
  flow.density = 1.2;
  flow.velocity = {0.3, -0.2, dim == 3 ? 0.25 : 0.0};
  flow.pressure = 0.9;
  return flow;
}

physics::FlowSpec vortex(int dim, Point3 center = {}) {
  physics::FlowSpec flow;
  flow.kind = physics::FlowKind::isentropic_vortex;
  flow.velocity = {1.0, 1.0, dim == 3 ? 0.5 : 0.0};
  flow.strength = 5.0;
  flow.center = center;
  return flow;
}

dg::OperatorOptions options_for(const Mesh& mesh, int order, const physics::FlowSpec& outside,
                                physics::BoundaryKind kind = physics::BoundaryKind::prescribed) {
  dg::OperatorOptions options;
  options.implementation = dg::Implementation::portable;  // the core's kernels, also on triangles
  options.order = order;
  dg::BoundarySpec boundary;
  boundary.kind = kind;
  boundary.flow = outside;
  options.boundary.assign(mesh.boundary_names.size(), boundary);
  return options;
}

double largest(const std::vector<double>& values) {
  double m = 0;
  for (double v : values) m = std::max(m, std::abs(v));
  return m;
}

double smallest_edge(const Mesh& mesh) {
  double h = std::numeric_limits<double>::infinity();
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const int n = n_vertices(mesh.element_shape(e));
    const index_t* nodes = mesh.element_node_ids(e);
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b) {
        const Point3 edge = mesh.nodes[nodes[a]] - mesh.nodes[nodes[b]];
        h = std::min(h, std::sqrt(dot(edge, edge)));
      }
  }
  return h;
}

/// Runs to `end_time` with classical RK4 at the given CFL number; returns the L2 density error.
double vortex_error(const Mesh& mesh, const Connectivity& connectivity, int order, double end_time, double cfl,
                    dg::Precision precision = dg::Precision::double_precision) {
  const physics::FlowSpec flow = vortex(mesh.dimension);
  dg::OperatorOptions options = options_for(mesh, order, flow);
  options.precision = precision;
  const auto op = dg::make_operator(mesh, connectivity, options);
  op->project(flow, 0.0);
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  double t = 0;
  while (t < end_time - 1e-12) {
    const double dt = std::min(op->stable_time_step(cfl), end_time - t);
    op->step(scheme, t, dt);
    t += dt;
  }
  return op->errors(flow, t).l2[0];
}

}  // namespace

TEST(DgCoreGroups, FacePointPermutationsMapEveryPointOntoItsImage) {
  // Under each orientation the permuted point must be where the vertex permutation puts it.
  const std::vector<std::pair<Shape, QuadratureRule>> rules = {
      {Shape::line, gauss_legendre(4)}, {Shape::triangle, triangle_rule(7)}, {Shape::quadrilateral, quadrilateral_rule(5)}};
  for (const auto& [face, rule] : rules) {
    const std::vector<int> permutation = dg::face_point_permutations(face, rule.points);
    const int n = rule.size();
    for (int orientation = 0; orientation < dg::orientation_count(face); ++orientation) {
      // inverse_orientation composes to the identity.
      const int inverse = dg::inverse_orientation(face, orientation);
      for (int k = 0; k < n_vertices(face); ++k)
        EXPECT_EQ(face_vertex_permutation(face, inverse, face_vertex_permutation(face, orientation, k)), k);
      std::vector<int> seen(n, 0);
      for (int q = 0; q < n; ++q) {
        const int image = permutation[orientation * n + q];
        ASSERT_GE(image, 0);
        ++seen[image];
        double weights[4], image_weights[4];
        face_vertex_weights(face, rule.points[q], weights);
        face_vertex_weights(face, rule.points[image], image_weights);
        for (int k = 0; k < n_vertices(face); ++k)
          EXPECT_NEAR(image_weights[face_vertex_permutation(face, orientation, k)], weights[k], 1e-13);
        EXPECT_DOUBLE_EQ(rule.weights[image], rule.weights[q]);
      }
      for (int count : seen) EXPECT_EQ(count, 1);  // a permutation
    }
  }
  // A rule without the face's symmetry is refused.
  EXPECT_THROW(dg::face_point_permutations(Shape::triangle, triangle_collapsed_rule(3).points), InputError);
}

TEST(DgCoreGroups, MixedMeshFromGmshHasOneGroupPerShapeAndConsistentFaces) {
  const Mesh mesh = read_gmsh(FLOWDG_TEST_DATA_DIR "/mixed_msh41.msh");
  const Connectivity connectivity = build_connectivity(mesh);
  const dg::Setup setup = dg::build_setup(mesh, connectivity, 2);
  const dg::Groups& groups = setup.groups;
  std::vector<int> shapes;
  for (const dg::ElementGroup& group : groups.element_groups) shapes.push_back(static_cast<int>(group.shape));
  EXPECT_NE(std::find(shapes.begin(), shapes.end(), static_cast<int>(Shape::triangle)), shapes.end());
  EXPECT_NE(std::find(shapes.begin(), shapes.end(), static_cast<int>(Shape::quadrilateral)), shapes.end());
  // Every mesh element in exactly one group; groups' elements in mesh order.
  index_t total = 0;
  for (std::size_t g = 0; g < groups.element_groups.size(); ++g) {
    const auto& elements = groups.element_groups[g].elements;
    total += static_cast<index_t>(elements.size());
    EXPECT_TRUE(std::is_sorted(elements.begin(), elements.end()));
    for (std::size_t i = 0; i < elements.size(); ++i) {
      EXPECT_EQ(groups.group_of[elements[i]], static_cast<int>(g));
      EXPECT_EQ(groups.index_in_group[elements[i]], static_cast<index_t>(i));
    }
  }
  EXPECT_EQ(total, mesh.n_elements());
  // Face groups partition the faces, boundary groups first, the minus side in the lower group.
  index_t next = 0;
  bool interior_seen = false, mixed_seen = false;
  for (const dg::FaceGroup& group : groups.face_groups) {
    EXPECT_EQ(group.begin, next);
    next = group.end;
    if (!group.boundary()) {
      interior_seen = true;
      EXPECT_LE(group.group_m, group.group_p);
      mixed_seen |= groups.element_groups[group.group_m].shape != groups.element_groups[group.group_p].shape;
    } else {
      EXPECT_FALSE(interior_seen) << "boundary groups come first";
    }
  }
  EXPECT_EQ(next, static_cast<index_t>(groups.faces.size()));
  EXPECT_EQ(next, connectivity.n_faces());
  EXPECT_TRUE(mixed_seen);
}

TEST(DgCoreGroups, FacesByFamilyAreTheSameFacesInAnotherOrderAndGiveTheSameResidual) {
  // Faces by family (groups.hpp): within each face group the faces sorted by the lower element's
  // local face, then by lower element. The same faces in the same groups; on a regular numbering the
  // faces of consecutive elements' local face l become consecutive (the element kernels' gathers);
  // the residual is the same bit for bit (each element sums its faces in local order). The operator
  // takes it for every physics but 2D Euler (measured: setup via dg_operator.hpp);
  // FLOWDG_FACE_ORDER=element|family overrides the choice.
  struct Named {
    const char* name;
    Mesh mesh;
    Connectivity connectivity;
  };
  std::vector<Named> cases;
  {
    Mesh quads = rectangle_quadrilaterals(-3, 3, -3, 3, 12, 10, 0.15, 7);
    Connectivity connectivity = build_connectivity(quads);
    make_periodic(quads, connectivity, quads.require_tag("left"), quads.require_tag("right"), {6, 0, 0});
    cases.push_back({"periodic quadrilaterals", std::move(quads), std::move(connectivity)});
    Mesh tets = box_tetrahedra(6, 6, 2, 4, 4, 3, 0.1, 3);
    Connectivity tet_connectivity = build_connectivity(tets);
    cases.push_back({"tetrahedra", std::move(tets), std::move(tet_connectivity)});
  }
  for (const Named& c : cases) {
    unsetenv("FLOWDG_FACE_ORDER");
    EXPECT_EQ(dg::face_order(dg::FaceOrder::element), dg::FaceOrder::element);
    EXPECT_EQ(dg::face_order(dg::FaceOrder::family), dg::FaceOrder::family);
    const dg::Setup by_element = dg::build_setup(c.mesh, c.connectivity, 2);
    const dg::Setup by_family = dg::build_setup(c.mesh, c.connectivity, 2, {}, true, dg::FaceOrder::family);
    const dg::Groups &a = by_element.groups, &b = by_family.groups;
    const auto same_order = [](const dg::Groups& x, const dg::Groups& y) {
      if (x.faces.size() != y.faces.size()) return false;
      for (std::size_t f = 0; f < x.faces.size(); ++f)
        if (x.faces[f].mesh_face != y.faces[f].mesh_face) return false;
      return true;
    };
    EXPECT_FALSE(same_order(a, b)) << c.name;
    // The environment overrides the default either way.
    setenv("FLOWDG_FACE_ORDER", "family", 1);
    EXPECT_EQ(dg::face_order(dg::FaceOrder::element), dg::FaceOrder::family);
    EXPECT_TRUE(same_order(dg::build_setup(c.mesh, c.connectivity, 2).groups, b)) << c.name;
    setenv("FLOWDG_FACE_ORDER", "element", 1);
    EXPECT_TRUE(same_order(dg::build_setup(c.mesh, c.connectivity, 2, {}, true, dg::FaceOrder::family).groups, a)) << c.name;
    unsetenv("FLOWDG_FACE_ORDER");
    // The operator's choice: by family for 3D Euler, by element for 2D Euler.
    {
      const physics::FlowSpec flow = c.mesh.dimension == 3 ? vortex(3, {3.0, 3.0, 0.0}) : vortex(2);
      const auto op = dg::make_operator(c.mesh, c.connectivity, options_for(c.mesh, 2, flow));
      EXPECT_TRUE(same_order(op->groups(), c.mesh.dimension == 3 ? b : a)) << c.name;
    }
    // The rule's other exceptions: 2D Euler at every order, 3D Euler in float from p = 4.
    EXPECT_FALSE(dg::automatic_faces_by_family(true, false, 1));
    EXPECT_FALSE(dg::automatic_faces_by_family(true, false, 4));
    EXPECT_TRUE(dg::automatic_faces_by_family(false, true, 3));
    EXPECT_FALSE(dg::automatic_faces_by_family(false, true, 4));
    EXPECT_TRUE(dg::automatic_faces_by_family(false, false, 4));
    // By window where the face tensor kernel reads the coefficients' copy (face_trace_mode 3).
    EXPECT_EQ(dg::automatic_face_order(false, false, 3, true), dg::FaceOrder::window);
    EXPECT_EQ(dg::automatic_face_order(false, true, 3, true), dg::FaceOrder::window);
    EXPECT_EQ(dg::automatic_face_order(false, false, 3, false), dg::FaceOrder::family);
    EXPECT_EQ(dg::automatic_face_order(false, true, 4, false), dg::FaceOrder::element);
    EXPECT_EQ(dg::automatic_face_order(true, false, 2, false), dg::FaceOrder::element);
    ASSERT_EQ(a.face_groups.size(), b.face_groups.size()) << c.name;
    using Key = std::tuple<index_t, int, index_t, int, int, index_t>;
    const auto key = [](const dg::GroupFace& f) { return Key{f.element_m, f.local_m, f.element_p, f.local_p, f.orientation, f.mesh_face}; };
    for (std::size_t g = 0; g < a.face_groups.size(); ++g) {
      const dg::FaceGroup &ga = a.face_groups[g], &gb = b.face_groups[g];
      ASSERT_EQ(ga.begin, gb.begin) << c.name;
      ASSERT_EQ(ga.end, gb.end) << c.name;
      ASSERT_EQ(ga.tag, gb.tag) << c.name;
      std::vector<Key> ka, kb;
      for (index_t f = ga.begin; f < ga.end; ++f) {
        ka.push_back(key(a.faces[f]));
        kb.push_back(key(b.faces[f]));
      }
      // Family order: (the lower element's local face, lower element) nondecreasing.
      const auto family_and_lower = [&](const dg::GroupFace& f) {
        if (gb.boundary() || f.element_m < f.element_p) return std::pair<int, index_t>{f.local_m, f.element_m};
        return std::pair<int, index_t>{f.local_p, f.element_p};
      };
      for (index_t f = gb.begin + 1; f < gb.end; ++f)
        EXPECT_LE(family_and_lower(b.faces[f - 1]), family_and_lower(b.faces[f])) << c.name << " face " << f;
      std::sort(ka.begin(), ka.end());
      std::sort(kb.begin(), kb.end());
      EXPECT_EQ(ka, kb) << c.name << ": group " << g;
    }
    // Consecutive elements' local face l: how often their faces are consecutive too.
    const auto consecutive = [](const dg::Groups& groups) {
      const auto& faces = groups.element_faces.at(0);
      const index_t K = groups.element_groups.at(0).size();
      const int NF = static_cast<int>(static_cast<index_t>(faces.size()) / K);
      index_t hits = 0;
      for (int l = 0; l < NF; ++l)
        for (index_t e = 0; e + 1 < K; ++e) hits += faces[l * K + e + 1] == faces[l * K + e] + 1;
      return static_cast<double>(hits) / static_cast<double>(NF * (K - 1));
    };
    const double share_element = consecutive(a), share_family = consecutive(b);
    std::printf("%s: consecutive faces of consecutive elements: element order %.2f, family order %.2f\n", c.name, share_element,
                share_family);
    // (measured: quadrilaterals 0.12 -> 0.92; the Kuhn cubes' six tetrahedra number their faces
    // differently, so that consecutive elements share a family less often: 0.13 -> 0.33)
    EXPECT_GT(share_family, share_element + (c.mesh.dimension == 2 ? 0.6 : 0.15)) << c.name;
    // The residual, bit for bit.
    std::vector<double> residuals[2];
    for (const int family : {0, 1}) {
      setenv("FLOWDG_FACE_ORDER", family ? "family" : "element", 1);
      const physics::FlowSpec flow = c.mesh.dimension == 3 ? vortex(3, {3.0, 3.0, 0.0}) : vortex(2);
      const auto op = dg::make_operator(c.mesh, c.connectivity, options_for(c.mesh, 2, flow));
      op->project(flow, 0.0);
      residuals[family] = op->residual(0.0);
    }
    unsetenv("FLOWDG_FACE_ORDER");
    EXPECT_EQ(residuals[0], residuals[1]) << c.name;
    EXPECT_GT(largest(residuals[0]), 0.0) << c.name;
  }
  setenv("FLOWDG_FACE_ORDER", "lower", 1);
  EXPECT_THROW(dg::face_order(dg::FaceOrder::element), InputError);
  unsetenv("FLOWDG_FACE_ORDER");
}

TEST(DgCoreGroups, FacesInWindowsAreOrderedByWindowThenClassAndGiveTheSameResidual) {
  // FLOWDG_FACE_ORDER=window (groups.cpp; A/B runs of the face tensor kernel): a group's interior faces
  // by windows of 64 lower elements, then by class (local_m, local_p, orientation), then by lower
  // element — the same faces in the same groups, the residual the same bit for bit.
  Mesh tets = box_tetrahedra(6, 6, 2, 8, 8, 3, 0.1, 3);  // 1,152 elements: 18 windows
  const Connectivity connectivity = build_connectivity(tets);
  unsetenv("FLOWDG_FACE_ORDER");
  const dg::Setup by_element = dg::build_setup(tets, connectivity, 2);
  setenv("FLOWDG_FACE_ORDER", "window", 1);
  EXPECT_EQ(dg::face_order(dg::FaceOrder::element), dg::FaceOrder::window);
  const dg::Setup by_window = dg::build_setup(tets, connectivity, 2);
  unsetenv("FLOWDG_FACE_ORDER");
  // The same order asked for by the caller (the operator's choice where the face tensor kernel reads
  // the coefficients' copy: setup.cpp automatic_face_order).
  const dg::Setup by_window_default = dg::build_setup(tets, connectivity, 2, {}, true, dg::FaceOrder::window);
  ASSERT_EQ(by_window_default.groups.faces.size(), by_window.groups.faces.size());
  for (std::size_t f = 0; f < by_window.groups.faces.size(); ++f)
    EXPECT_EQ(by_window_default.groups.faces[f].mesh_face, by_window.groups.faces[f].mesh_face) << f;
  const dg::Groups &a = by_element.groups, &b = by_window.groups;
  ASSERT_EQ(a.face_groups.size(), b.face_groups.size());
  int interior_groups = 0;
  for (std::size_t g = 0; g < a.face_groups.size(); ++g) {
    const dg::FaceGroup &ga = a.face_groups[g], &gb = b.face_groups[g];
    ASSERT_EQ(ga.begin, gb.begin);
    ASSERT_EQ(ga.end, gb.end);
    std::vector<index_t> fa, fb;
    for (index_t f = ga.begin; f < ga.end; ++f) {
      fa.push_back(a.faces[f].mesh_face);
      fb.push_back(b.faces[f].mesh_face);
    }
    std::sort(fa.begin(), fa.end());
    std::sort(fb.begin(), fb.end());
    EXPECT_EQ(fa, fb) << "group " << g;
    if (gb.boundary()) continue;
    ++interior_groups;
    // (window, class, lower element) nondecreasing; classes change inside windows (not one class a
    // group), and windows advance
    using Key = std::tuple<index_t, int, int, int, index_t>;
    const auto key = [](const dg::GroupFace& f) {
      const index_t lower = std::min(f.element_m, f.element_p);
      return Key{lower / 64, f.local_m, f.local_p, f.orientation, lower};
    };
    const auto same_class = [](const Key& x, const Key& y) {
      return std::get<1>(x) == std::get<1>(y) && std::get<2>(x) == std::get<2>(y) && std::get<3>(x) == std::get<3>(y);
    };
    int class_changes = 0;
    for (index_t f = gb.begin + 1; f < gb.end; ++f) {
      EXPECT_LE(key(b.faces[f - 1]), key(b.faces[f])) << "face " << f;
      class_changes += std::get<0>(key(b.faces[f - 1])) == std::get<0>(key(b.faces[f])) && !same_class(key(b.faces[f - 1]), key(b.faces[f]));
    }
    EXPECT_GT(class_changes, 0);
    EXPECT_GT(std::get<0>(key(b.faces[gb.end - 1])), std::get<0>(key(b.faces[gb.begin])));
  }
  EXPECT_EQ(interior_groups, 1);
  // The residual, bit for bit.
  std::vector<double> residuals[2];
  for (const int window : {0, 1}) {
    setenv("FLOWDG_FACE_ORDER", window ? "window" : "element", 1);
    const physics::FlowSpec flow = vortex(3, {3.0, 3.0, 0.0});
    const auto op = dg::make_operator(tets, connectivity, options_for(tets, 2, flow));
    op->project(flow, 0.0);
    residuals[window] = op->residual(0.0);
  }
  unsetenv("FLOWDG_FACE_ORDER");
  EXPECT_EQ(residuals[0], residuals[1]);
  EXPECT_GT(largest(residuals[0]), 0.0);
}

TEST(DgCore, FreeStreamIsPreservedOnEveryShape) {
  // A uniform state with the same state outside: the residual vanishes to rounding (of the size
  // of the fluxes over the element size, ~1 here), at every order, on affine and curved groups.
  struct Case {
    std::string name;
    Mesh mesh;
  };
  std::vector<Case> cases;
  cases.push_back({"perturbed triangles", rectangle_triangles(0, 1, 0, 1, 6, 5, TriangleLayout::perturbed, 0.2, 3)});
  cases.push_back({"curved (non-parallelogram) bilinear quadrilaterals", rectangle_quadrilaterals(0, 1, 0, 1, 6, 5, 0.2, 3)});
  cases.push_back({"mixed triangles and quadrilaterals (Gmsh)", read_gmsh(FLOWDG_TEST_DATA_DIR "/mixed_msh41.msh")});
  cases.push_back({"tetrahedra", box_tetrahedra(1, 1, 1, 2, 2, 2)});
  // Curved: 6-node triangles on the annulus's arcs (Gmsh), and 9-node quadrilaterals and 10-node
  // tetrahedra with every node moved by a smooth deformation (shared nodes move together, so the
  // mesh stays conforming while every element's map becomes quadratic).
  cases.push_back({"curved 6-node triangles (Gmsh annulus)", read_gmsh(FLOWDG_TEST_DATA_DIR "/annulus_p2_msh41.msh")});
  const auto deform = [](Mesh mesh) {
    for (Point3& x : mesh.nodes) {
      const double bump = 0.04 * std::sin(3.0 * x.x + 1.0) * std::sin(2.0 * x.y + 0.5) * std::cos(1.5 * x.z);
      x = {x.x + bump, x.y - 0.5 * bump, x.z + (mesh.dimension == 3 ? 0.7 * bump : 0.0)};
    }
    return mesh;
  };
  cases.push_back({"curved 9-node quadrilaterals", deform(read_gmsh(FLOWDG_TEST_DATA_DIR "/square_quad9_msh41.msh"))});
  cases.push_back({"curved 10-node tetrahedra", deform(read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_tet_p2_msh41.msh"))});
  // Curved elements of order 3 and 4 as gmsh writes them (an annulus sector, an annular cylinder).
  cases.push_back({"curved 15-node triangles (Gmsh sector)", read_gmsh(FLOWDG_TEST_DATA_DIR "/sector_tri15_msh41.msh")});
  cases.push_back({"curved 16-node quadrilaterals (Gmsh sector)", read_gmsh(FLOWDG_TEST_DATA_DIR "/sector_quad16_msh41.msh")});
  cases.push_back({"curved 35-node tetrahedra (Gmsh cylinder)", read_gmsh(FLOWDG_TEST_DATA_DIR "/cylinder_tet35_msh41.msh")});
  cases.push_back({"curved 27-node hexahedra (Gmsh cylinder)", read_gmsh(FLOWDG_TEST_DATA_DIR "/cylinder_hex27_msh41.msh")});
  for (const Case& c : cases) {
    const Connectivity connectivity = build_connectivity(c.mesh);
    for (int order = 0; order <= 4; ++order) {
      const physics::FlowSpec flow = uniform_flow(c.mesh.dimension);
      const auto op = dg::make_operator(c.mesh, connectivity, options_for(c.mesh, order, flow));
      op->project(flow, 0.0);
      // du/dt ~ flux / h: scaled by the smallest edge, rounding is ~1e-15 of the fluxes (~1).
      EXPECT_LT(largest(op->residual(0.0)) * smallest_edge(c.mesh), 1e-12) << c.name << ", p = " << order << ": " << op->describe();
      bool curved = false;
      for (const dg::ElementGroup& group : op->groups().element_groups) curved |= group.geometry == dg::GeometryKind::curved;
      EXPECT_EQ(curved, c.name.starts_with("curved")) << c.name << ": " << op->describe();
    }
  }
}

TEST(DgCore, AffineTrianglesReproduceTheTunedTriangleSolver) {
  // The generic kernels on one affine triangle group and the hand-written 2D Euler solver compute
  // the same residual (the same rules, basis and face order along the edges).
  Mesh mesh = rectangle_triangles(-3, 3, -3, 3, 6, 6, TriangleLayout::perturbed, 0.2, 5);
  const Connectivity connectivity = build_connectivity(mesh);
  const physics::FlowSpec flow = vortex(2, {0.3, -0.2, 0});
  for (const physics::RiemannKind flux : {physics::RiemannKind::rusanov, physics::RiemannKind::hllc, physics::RiemannKind::roe})
    for (int order = 1; order <= 4; ++order) {
      dg::OperatorOptions options = options_for(mesh, order, flow);
      options.flux = flux;
      const auto op = dg::make_operator(mesh, connectivity, options);
      op->project(flow, 0.0);

      euler2d::SolverOptions tuned;
      tuned.order = order;
      tuned.flux = flux == physics::RiemannKind::rusanov ? euler2d::RiemannSolver::rusanov
                   : flux == physics::RiemannKind::roe   ? euler2d::RiemannSolver::roe
                                                          : euler2d::RiemannSolver::hllc;
      euler2d::Flow tuned_flow;
      tuned_flow.kind = euler2d::FlowKind::isentropic_vortex;
      tuned_flow.state = {1.0, 1.0, 1.0, 1.0};
      tuned_flow.center_x = 0.3;
      tuned_flow.center_y = -0.2;
      euler2d::BoundaryCondition condition;
      condition.kind = euler2d::BoundaryKind::prescribed;
      condition.flow = tuned_flow;
      tuned.boundary.assign(mesh.boundary_names.size(), condition);
      euler2d::Solver solver(mesh, connectivity, tuned);
      solver.set_coefficients(op->coefficients());
      const std::vector<double> expected = solver.residual(0.0), actual = op->residual(0.0);
      ASSERT_EQ(expected.size(), actual.size());
      double difference = 0;
      for (std::size_t i = 0; i < actual.size(); ++i) difference = std::max(difference, std::abs(actual[i] - expected[i]));
      EXPECT_LT(difference, 1e-11 * largest(expected)) << "p = " << order << " flux " << physics::riemann_kind_name(flux);
    }
}

TEST(DgCore, StepsFollowTheReferenceRungeKuttaDriver) {
  // Every scheme's fused stage updates (u0 stored by the first stage's element kernels, q where the
  // scheme has it) against runge_kutta_step over the operator's residual, for three steps, so that a
  // stale u0 from the step before would show; on the mixed mesh, both element groups.
  const Mesh mesh = read_gmsh(FLOWDG_TEST_DATA_DIR "/mixed_msh41.msh");
  const Connectivity connectivity = build_connectivity(mesh);
  const physics::FlowSpec flow = vortex(2, {1.0, 0.5, 0});
  for (const std::string& name : runge_kutta_scheme_names()) {
    const RungeKuttaScheme scheme = runge_kutta_scheme(name);
    const auto fused = dg::make_operator(mesh, connectivity, options_for(mesh, 2, flow));
    const auto reference = dg::make_operator(mesh, connectivity, options_for(mesh, 2, flow));
    fused->project(flow, 0.0);
    reference->project(flow, 0.0);
    const double dt = fused->stable_time_step(0.3);
    double t = 0;
    for (int step = 0; step < 3; ++step) {
      fused->step(scheme, t, dt);
      std::vector<double> u = reference->coefficients();
      runge_kutta_step(scheme, t, dt, u, [&](double time, const std::vector<double>& state, std::vector<double>& k) {
        reference->set_coefficients(state);
        k = reference->residual(time);
      });
      reference->set_coefficients(u);
      t += dt;
    }
    const std::vector<double> a = fused->coefficients(), b = reference->coefficients();
    double difference = 0;
    for (std::size_t i = 0; i < a.size(); ++i) difference = std::max(difference, std::abs(a[i] - b[i]));
    EXPECT_LE(difference, 1e-13 * largest(b)) << name;
  }
}

TEST(DgCore, TunedTrianglesOnAMixedMeshGiveThePortableNumbers) {
  // The mixed mesh's triangles on the tuned kernels (their faces among themselves and on the walls
  // too), its quadrilaterals and the triangle-quadrilateral faces on the portable ones: the same
  // residual and the same steps as the portable kernels everywhere, so the two kinds of kernel agree
  // on the face fluxes they share (scaling, sign, point order).
  const Mesh mesh = read_gmsh(FLOWDG_TEST_DATA_DIR "/mixed_msh41.msh");
  const Connectivity connectivity = build_connectivity(mesh);
  const physics::FlowSpec flow = vortex(2, {1.0, 0.5, 0});
  for (const physics::BoundaryKind wall : {physics::BoundaryKind::prescribed, physics::BoundaryKind::slip_wall})
    for (int order = 1; order <= 4; ++order) {
      dg::OperatorOptions options = options_for(mesh, order, flow, wall);
      const auto portable = dg::make_operator(mesh, connectivity, options);
      options.implementation = dg::Implementation::tuned;
      const auto tuned = dg::make_operator(mesh, connectivity, options);
      ASSERT_NE(tuned->implementation().find("tuned"), std::string::npos) << tuned->implementation();
      portable->project(flow, 0.0);
      tuned->project(flow, 0.0);
      const std::vector<double> expected = portable->residual(0.0), actual = tuned->residual(0.0);
      ASSERT_EQ(expected.size(), actual.size());
      double difference = 0;
      for (std::size_t i = 0; i < actual.size(); ++i) difference = std::max(difference, std::abs(actual[i] - expected[i]));
      EXPECT_LT(difference, 1e-11 * largest(expected)) << "p = " << order;
      const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
      const double dt = portable->stable_time_step(0.3);
      for (int step = 0; step < 3; ++step) {
        portable->step(scheme, step * dt, dt);
        tuned->step(scheme, step * dt, dt);
      }
      const std::vector<double> a = portable->coefficients(), b = tuned->coefficients();
      difference = 0;
      for (std::size_t i = 0; i < a.size(); ++i) difference = std::max(difference, std::abs(a[i] - b[i]));
      EXPECT_LT(difference, 1e-12 * largest(a)) << "p = " << order << " after 3 steps";
    }
}

TEST(DgCore, MassAndEnergyAreConservedOnAMixedMeshWithWalls) {
  const Mesh mesh = read_gmsh(FLOWDG_TEST_DATA_DIR "/mixed_msh41.msh");
  const Connectivity connectivity = build_connectivity(mesh);
  // A weak vortex at rest in the middle of [0, 2] x [0, 1], across the triangle/quadrilateral line.
  physics::FlowSpec flow = vortex(2, {1.0, 0.5, 0});
  flow.velocity = {0.0, 0.0, 0.0};
  flow.strength = 0.5;
  const auto op = dg::make_operator(mesh, connectivity, options_for(mesh, 3, flow, physics::BoundaryKind::slip_wall));
  op->project(flow, 0.0);
  const std::vector<double> before = op->totals();
  const RungeKuttaScheme scheme = runge_kutta_scheme("ssp-rk3");
  double t = 0;
  for (int step = 0; step < 10; ++step) {
    const double dt = op->stable_time_step(0.3);
    op->step(scheme, t, dt);
    t += dt;
  }
  const std::vector<double> after = op->totals();
  EXPECT_NEAR(after[0], before[0], 1e-13 * std::abs(before[0])) << "mass";
  EXPECT_NEAR(after[3], before[3], 1e-13 * std::abs(before[3])) << "energy";
  // The state did change (the test would pass trivially otherwise).
  EXPECT_GT(largest(op->residual(t)), 1e-3);
}

TEST(DgCore, IsentropicVortexConvergesOnPerturbedQuadrilaterals) {
  for (int order = 1; order <= 4; ++order) {
    std::vector<double> errors;
    for (int n : {8, 16, 32}) {
      const Mesh mesh = rectangle_quadrilaterals(-3, 3, -3, 3, n, n, 0.15, 7);
      errors.push_back(vortex_error(mesh, build_connectivity(mesh), order, 0.2, 0.2));
    }
    const double rate = std::log2(errors[1] / errors[2]);
    std::printf("quadrilaterals p = %d: L2(rho) %.3e %.3e %.3e, rate %.2f\n", order, errors[0], errors[1], errors[2], rate);
    EXPECT_GE(rate, order + 1 - 0.3) << "p = " << order;
  }
}

namespace {

/// The 3D vortex box [0, 6] x [0, 6] x [0, lz], periodic in z (the vortex is a line along z with a
/// constant z-velocity: every state is independent of z, so the periodic joint is exact),
/// the exact state prescribed on the x and y faces.
std::pair<Mesh, Connectivity> vortex_box(Mesh mesh, double lz) {
  Connectivity connectivity = build_connectivity(mesh);
  make_periodic(mesh, connectivity, mesh.require_tag("zmin"), mesh.require_tag("zmax"), {0, 0, lz});
  return {std::move(mesh), std::move(connectivity)};
}

double vortex_error_3d(Mesh mesh, double lz, int order, int volume_degree_shift = 0) {
  auto [box, connectivity] = vortex_box(std::move(mesh), lz);
  physics::FlowSpec flow = vortex(3, {3.0, 3.0, 0.0});
  dg::OperatorOptions options = options_for(box, order, flow);
  options.volume_degree_shift = volume_degree_shift;
  const auto op = dg::make_operator(box, connectivity, options);
  op->project(flow, 0.0);
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  double t = 0;
  const double end_time = 0.1;
  while (t < end_time - 1e-12) {
    const double dt = std::min(op->stable_time_step(0.2), end_time - t);
    op->step(scheme, t, dt);
    t += dt;
  }
  return op->errors(flow, t).l2[0];
}

}  // namespace

namespace {

/// The box's cells moved by a smooth map that keeps every box face in its plane (the displacement
/// along an axis vanishes on the two faces normal to it), so the periodic and prescribed faces stay
/// where they are while trilinear hexahedra become non-parallelepipeds (curved geometry).
Mesh deformed_box(Mesh mesh, double lx, double ly, double lz, double amplitude) {
  const double pi = 3.14159265358979323846;
  for (Point3& x : mesh.nodes) {
    const double sx = std::sin(pi * x.x / lx), sy = std::sin(pi * x.y / ly);
    (void)lz;  // one periodic layer along z: z stays, so the two z faces remain translates
    x = {x.x + amplitude * lx * sx * std::sin(2 * pi * x.y / ly), x.y + amplitude * ly * sy * std::sin(2 * pi * x.x / lx), x.z};
  }
  return mesh;
}

void expect_3d_vortex_rates(const std::string& name, const std::function<Mesh(int n)>& make_mesh, int highest_order) {
  {  // the meshes are of the kind the name says
    const Mesh mesh = make_mesh(4);
    const dg::Setup setup = dg::build_setup(mesh, build_connectivity(mesh), 1);
    for (const dg::ElementGroup& group : setup.groups.element_groups)
      EXPECT_EQ(group.geometry, name.starts_with("curved") ? dg::GeometryKind::curved : dg::GeometryKind::affine) << name;
  }
  for (int order = 1; order <= highest_order; ++order) {
    std::vector<double> errors;
    for (int n : {4, 8, 16}) errors.push_back(vortex_error_3d(make_mesh(n), 6.0 / n, order));
    const double rate = std::log2(errors[1] / errors[2]);
    std::printf("%s p = %d: L2(rho) %.3e %.3e %.3e, rate %.2f\n", name.c_str(), order, errors[0], errors[1], errors[2], rate);
    EXPECT_GE(rate, order + 1 - 0.3) << name << " p = " << order;
  }
}

}  // namespace

/// 10-node tetrahedra from 4-node ones: a node at each edge's midpoint, shared between the
/// elements of the edge (Gmsh's order: edges 0-1, 1-2, 2-0, 3-0, 3-2, 3-1).
Mesh quadratic_tetrahedra(const Mesh& mesh) {
  Mesh out = mesh;
  out.element_types.clear();
  out.element_offsets = {0};
  out.element_nodes.clear();
  std::map<std::pair<index_t, index_t>, index_t> midpoints;
  constexpr int edges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}};
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    index_t nodes[10];
    std::copy_n(mesh.element_node_ids(e), 4, nodes);
    for (int k = 0; k < 6; ++k) {
      const index_t a = nodes[edges[k][0]], b = nodes[edges[k][1]];
      const auto key = std::minmax(a, b);
      auto [it, inserted] = midpoints.try_emplace({key.first, key.second}, out.n_nodes());
      if (inserted) out.nodes.push_back(0.5 * (mesh.nodes[a] + mesh.nodes[b]));
      nodes[4 + k] = it->second;
    }
    out.add_element(ElementType::tetrahedron10, nodes);
  }
  return out;
}

TEST(DgCore, IsentropicVortexConvergesOnHexahedra) {
  expect_3d_vortex_rates("hexahedra", [](int n) { return box_hexahedra(6, 6, 6.0 / n, n, n, 1); }, 4);
}

TEST(DgCore, IsentropicVortexConvergesOnCurvedHexahedra) {
  // Trilinear maps of deformed cubes: curved geometry (a metric per point, a full mass matrix).
  expect_3d_vortex_rates("curved hexahedra", [](int n) { return deformed_box(box_hexahedra(6, 6, 6.0 / n, n, n, 1), 6, 6, 6.0 / n, 0.03); }, 4);
}

TEST(DgCore, IsentropicVortexConvergesOnTetrahedra) {
  for (int order = 1; order <= 4; ++order) {
    std::vector<double> errors;
    // One layer of cubic cells along z: the solution does not depend on z.
    for (int n : {4, 8, 16}) errors.push_back(vortex_error_3d(box_tetrahedra(6, 6, 6.0 / n, n, n, 1), 6.0 / n, order));
    const double rate = std::log2(errors[1] / errors[2]);
    std::printf("tetrahedra p = %d: L2(rho) %.3e %.3e %.3e, rate %.2f\n", order, errors[0], errors[1], errors[2], rate);
    EXPECT_GE(rate, order + 1 - 0.3) << "p = " << order;
  }
}

TEST(DgCore, TheVolumeRuleOfDegreeTwoPMinusOneKeepsTheOrderOnTetrahedra) {
  // solver.volume_quadrature = "2p-1": exact for the volume term of a linear flux (F of degree p
  // times grad phi of degree p - 1), so the design order p + 1 stays; the nonlinear flux's aliasing
  // costs accuracy: on the finest mesh the error measured 1.03, 1.04, 1.41 and 1.16 times the 2p
  // rule's at p = 1..4 (p = 3: 14 points for 20 modes), so it must stay within 1.5 times.
  for (int order = 1; order <= 4; ++order) {
    std::vector<double> errors;
    for (int n : {4, 8, 16}) errors.push_back(vortex_error_3d(box_tetrahedra(6, 6, 6.0 / n, n, n, 1), 6.0 / n, order, -1));
    const double reference = vortex_error_3d(box_tetrahedra(6, 6, 6.0 / 16, 16, 16, 1), 6.0 / 16, order);
    const double rate = std::log2(errors[1] / errors[2]);
    std::printf("tetrahedra, volume rule 2p - 1, p = %d: L2(rho) %.3e %.3e %.3e, rate %.2f; 2p on 16^2: %.3e\n", order, errors[0], errors[1],
                errors[2], rate, reference);
    EXPECT_GE(rate, order + 1 - 0.3) << "p = " << order;
    EXPECT_LT(errors[2], 1.5 * reference) << "p = " << order;
  }
}

TEST(DgCore, VolumeQuadratureNamesItsDegreeAndTensorShapesKeepTheirGaussPoints) {
  EXPECT_EQ(dg::parse_volume_quadrature("2p"), 0);
  EXPECT_EQ(dg::parse_volume_quadrature("2p-1"), -1);
  EXPECT_EQ(dg::parse_volume_quadrature("2p+2"), 2);
  for (const char* bad : {"2p-2", "2p+5", "p", "2q", "", "2p+", "2p+10"}) EXPECT_THROW(dg::parse_volume_quadrature(bad), InputError) << bad;
  using dg::GeometryKind;
  // tetrahedra: degree 8 -> 7 at p = 4 (46 -> 35 points), 6 -> 5 at p = 3 (24 -> 14)
  EXPECT_EQ(dg::volume_rule(Shape::tetrahedron, GeometryKind::affine, 4, 1).size(), 46);
  EXPECT_EQ(dg::volume_rule(Shape::tetrahedron, GeometryKind::affine, 4, 1, -1).size(), 35);
  EXPECT_EQ(dg::volume_rule(Shape::tetrahedron, GeometryKind::affine, 3, 1, -1).size(), 14);
  EXPECT_GE(dg::volume_rule(Shape::tetrahedron, GeometryKind::affine, 3, 1, -1).degree, 5);
  EXPECT_EQ(dg::volume_rule(Shape::triangle, GeometryKind::affine, 3, 1, -1).degree, 5);
  EXPECT_EQ(dg::volume_rule(Shape::triangle, GeometryKind::affine, 0, 1, -1).size(), 1);
  // curved: the geometry's share on top (a quadratic tetrahedron: 3 more)
  EXPECT_EQ(dg::volume_rule(Shape::tetrahedron, GeometryKind::curved, 2, 2, -1).degree, 6);
  // tensor-product shapes keep p + 1 Gauss points a direction (collocation needs them) ...
  EXPECT_EQ(dg::volume_rule(Shape::quadrilateral, GeometryKind::curved, 3, 1, -1).size(), 16);
  EXPECT_EQ(dg::volume_rule(Shape::hexahedron, GeometryKind::affine, 2, 1, -1).size(), 27);
  // ... and over-integrate when asked
  EXPECT_EQ(dg::volume_rule(Shape::quadrilateral, GeometryKind::affine, 3, 1, 2).size(), 25);
  // The operator builds its groups with the rule asked for; the tuned triangles (their own 2p rule)
  // step aside under "automatic" and are refused when asked for.
  const Mesh mesh = rectangle_triangles(0, 1, 0, 1, 4, 4, TriangleLayout::perturbed, 0.2, 3);
  const Connectivity connectivity = build_connectivity(mesh);
  const dg::Setup setup = dg::build_setup(mesh, connectivity, 3, {}, true, dg::FaceOrder::element, -1);
  EXPECT_EQ(setup.element_groups[0].volume_rule.degree, 5);
  physics::FlowSpec flow = vortex(2, {0.5, 0.5, 0.0});
  dg::OperatorOptions options = options_for(mesh, 3, flow);
  options.implementation = dg::Implementation::automatic;
  options.volume_degree_shift = -1;
  EXPECT_NE(dg::make_operator(mesh, connectivity, options)->describe().find("exact to degree 5"), std::string::npos);
  options.implementation = dg::Implementation::tuned;
  EXPECT_THROW(dg::make_operator(mesh, connectivity, options), InputError);
}

TEST(DgCore, SinglePrecisionVortexAgreesWithDoubleAboveItsRoundingFloor) {
  // float follows double down to its rounding floor. Measured (p = 3, RK4, L2 over the 6 x 6
  // square): 7.5564e-4 / 7.5563e-4, 5.8174e-5 / 5.8137e-5, 5.365e-6 / 3.656e-6 float / double on
  // 8^2, 16^2, 32^2: on 32^2 float is 1.7e-6 above double (2.9e-7 as an RMS, L2 / 6). RK4 runs in
  // single precision in the form that rounds each step once (single_rounding_form); in its usual
  // form, q = u0 + ... rounded at |u| by every stage, the floor was 1.43e-5.
  const int sizes[3] = {8, 16, 32};
  for (int level = 0; level < 3; ++level) {
    const int n = sizes[level];
    const Mesh mesh = rectangle_quadrilaterals(-3, 3, -3, 3, n, n, 0.15, 7);
    const Connectivity connectivity = build_connectivity(mesh);
    const double single = vortex_error(mesh, connectivity, 3, 0.2, 0.2, dg::Precision::single_precision);
    const double reference = vortex_error(mesh, connectivity, 3, 0.2, 0.2);
    std::printf("p = 3, %d x %d quadrilaterals: L2(rho) float %.4e double %.4e\n", n, n, single, reference);
    if (level < 2)
      EXPECT_NEAR(single, reference, 0.002 * reference);
    else
      EXPECT_NEAR(single, reference, 2e-6);
  }
}

TEST(DgCore, TheRegistryPicksTheTunedKernelsForStraightTrianglesOnly) {
  const physics::FlowSpec flow = uniform_flow(2);
  const Mesh triangles = rectangle_triangles(0, 1, 0, 1, 3, 3);
  const Mesh quadrilaterals = rectangle_quadrilaterals(0, 1, 0, 1, 3, 3);
  dg::OperatorOptions options = options_for(triangles, 2, flow);
  options.implementation = dg::Implementation::automatic;
  EXPECT_TRUE(dg::make_operator(triangles, build_connectivity(triangles), options)->implementation().starts_with(
      "tuned 2D Euler triangle kernels"));
  EXPECT_EQ(dg::make_operator(quadrilaterals, build_connectivity(quadrilaterals), options)->implementation(),
            "portable core kernels");
  // A mixed mesh: its triangles on the tuned kernels, its quadrilaterals on the portable ones.
  const Mesh mixed = read_gmsh(FLOWDG_TEST_DATA_DIR "/mixed_msh41.msh");
  const auto mixed_operator = dg::make_operator(mixed, build_connectivity(mixed), options_for(mixed, 2, flow));
  EXPECT_EQ(mixed_operator->implementation(), "portable core kernels");  // options_for asks for the portable ones
  dg::OperatorOptions mixed_options = options_for(mixed, 2, flow);
  mixed_options.implementation = dg::Implementation::automatic;
  EXPECT_EQ(dg::make_operator(mixed, build_connectivity(mixed), mixed_options)->implementation(),
            "tuned 2D Euler triangle kernels (thread per element, thread per face point) and portable core kernels for the"
            " other groups");
  options.precision = dg::Precision::single_precision;  // the tuned kernels are double only
  EXPECT_EQ(dg::make_operator(triangles, build_connectivity(triangles), options)->implementation(),
            "portable core kernels");
  options.precision = dg::Precision::double_precision;
  options.implementation = dg::Implementation::tuned;
  EXPECT_THROW(dg::make_operator(quadrilaterals, build_connectivity(quadrilaterals), options), InputError);
  // The limiter is the tuned path's: on quadrilaterals it is refused with a message, not ignored.
  options.implementation = dg::Implementation::automatic;
  options.limiter = dg::Limiter::barth_jespersen;
  try {
    (void)dg::make_operator(quadrilaterals, build_connectivity(quadrilaterals), options);
    ADD_FAILURE() << "a limiter on quadrilaterals was accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("straight-sided triangles only"), std::string::npos) << error.what();
  }
}

// The chunked face kernel (3D Euler's interior faces) is a registry entry like the others: asked for
// on a 2D mesh or with another physics it is refused by name, not silently replaced.
TEST(DgCore, TheChunkedFaceKernelIsRefusedWhereItIsNotBuilt) {
  const Mesh triangles = rectangle_triangles(0, 1, 0, 1, 3, 3);
  dg::OperatorOptions options = options_for(triangles, 2, uniform_flow(2));
  options.face_kernel = "chunked";
  try {
    (void)dg::make_operator(triangles, build_connectivity(triangles), options);
    ADD_FAILURE() << "the chunked face kernel was accepted in 2D";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("'chunked' runs the interior faces of 3D Euler"), std::string::npos) << error.what();
  }
  options.face_kernel = "chunk";
  try {
    (void)dg::make_operator(triangles, build_connectivity(triangles), options);
    ADD_FAILURE() << "an unknown face kernel was accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("unknown face kernel 'chunk' (valid: automatic, point, block, warp, chunked, factorised, variable)"),
              std::string::npos)
        << error.what();
  }
  // 3D Euler takes it (on the CPU backend the face kernels are one: the run is the same).
  const Mesh tetrahedra = box_tetrahedra(1, 1, 1, 2, 2, 2);
  dg::OperatorOptions options3 = options_for(tetrahedra, 2, uniform_flow(3));
  options3.face_kernel = "chunked";
  EXPECT_NO_THROW((void)dg::make_operator(tetrahedra, build_connectivity(tetrahedra), options3));
}

TEST(DgCore, IsentropicVortexConvergesOnCurvedTetrahedra) {
  // 10-node tetrahedra with their edge nodes moved off the chords by the same smooth map.
  expect_3d_vortex_rates(
      "curved tetrahedra",
      [](int n) { return deformed_box(quadratic_tetrahedra(box_tetrahedra(6, 6, 6.0 / n, n, n, 1)), 6, 6, 6.0 / n, 0.03); }, 4);
}

// The tensor-core kernels read A in fragment order: each (row tile, column tile) fragment's 32 values
// contiguous, lane l holding A[l / 4][l % 4] of the tile; every value moved exactly once.
TEST(DgCore, FragmentOrderHoldsEachTensorCoreTileContiguously) {
  const int M = 16, K = 12;
  std::vector<double> a(5 + M * K);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<double>(i) * 1.25 - 3;
  const std::vector<double> row_major = a;
  to_fragment_order(a, 5, M, K);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(a[i], row_major[i]);  // before the offset: untouched
  for (int mt = 0; mt < M / 8; ++mt)
    for (int ks = 0; ks < K / 4; ++ks)
      for (int lane = 0; lane < 32; ++lane)
        EXPECT_EQ(a[5 + fragment_index(mt, ks, lane, K)], row_major[5 + (mt * 8 + lane / 4) * K + ks * 4 + lane % 4]);
  std::vector<double> sorted_a(a.begin() + 5, a.end()), sorted_b(row_major.begin() + 5, row_major.end());
  std::sort(sorted_a.begin(), sorted_a.end());
  std::sort(sorted_b.begin(), sorted_b.end());
  EXPECT_EQ(sorted_a, sorted_b);
  EXPECT_EQ(fragment_index(1, 2, 3, K), (1 * 3 + 2) * 32 + 3);
}

// The registry's face kernel choices on CUDA are the H100 measurements of docs/performance.md
// (sessions 9, 24, 25): block faces in 3D from p = 3, and at p = 2 in double precision only (float
// lost 11% there); the chunked traces between tetrahedra at p = 3 in double only; none in 2D. The
// chunked kernel's shared memory per face counts its traces and indices on top of the block form's.
TEST(DgCore, TheRegistryTakesTheMeasuredFaceKernels) {
  EXPECT_FALSE(dg::automatic_block_faces(2, 4, true));
  EXPECT_FALSE(dg::automatic_block_faces(3, 1, true));
  EXPECT_TRUE(dg::automatic_block_faces(3, 2, true));
  EXPECT_FALSE(dg::automatic_block_faces(3, 2, false));
  EXPECT_TRUE(dg::automatic_block_faces(3, 3, false));
  EXPECT_TRUE(dg::automatic_chunked_faces(3, 3, true, true));
  EXPECT_FALSE(dg::automatic_chunked_faces(3, 4, true, true));
  EXPECT_FALSE(dg::automatic_chunked_faces(3, 3, false, true));
  EXPECT_FALSE(dg::automatic_chunked_faces(3, 3, true, false));
  using Euler3 = physics::Euler<3, double>;
  // Tetrahedra at p = 3: 20 modes a side, 15 face points.
  EXPECT_EQ(dg::face_block_bytes_per_face<Euler3>(20, 20, 15, false), 8u * 5 * 40);
  EXPECT_EQ(dg::face_block_bytes_per_face<Euler3>(20, 20, 15, true), 8u * 5 * 70 + dg::face_chunked_index_bytes);
  EXPECT_EQ(dg::face_block_bytes_per_face<Euler3>(20, 0, 15, true), 8u * 5 * 35 + dg::face_chunked_index_bytes);
  // Faces per round: by threads (256 / 15 = 17) unless the 74 KB chunked budget allows fewer.
  EXPECT_EQ(dg::core_block_faces<Euler3>(20, 20, 15, 4 * 15 * 20, true), 17);
  EXPECT_EQ(dg::core_block_faces<Euler3>(35, 35, 19, 4 * 19 * 35, true), 12);
}

TEST(DgCore, TheRegistryRunsThreeDimensionalBoundaryFacesOnASecondStream) {
  // 3D: the boundary face groups on a second stream beside the interior ones (setup.cpp, from
  // session 39's measurements); 2D on the kernels' stream; FLOWDG_BOUNDARY_STREAM for A/B runs.
  unsetenv("FLOWDG_BOUNDARY_STREAM");
  EXPECT_TRUE(dg::boundary_stream_allowed(3));
  EXPECT_FALSE(dg::boundary_stream_allowed(2));
  setenv("FLOWDG_BOUNDARY_STREAM", "0", 1);
  EXPECT_FALSE(dg::boundary_stream_allowed(3));
  setenv("FLOWDG_BOUNDARY_STREAM", "1", 1);
  EXPECT_TRUE(dg::boundary_stream_allowed(2));
  for (const char* bad : {"yes", "2", "on"}) {
    setenv("FLOWDG_BOUNDARY_STREAM", bad, 1);
    EXPECT_THROW(dg::boundary_stream_allowed(3), InputError) << bad;
  }
  unsetenv("FLOWDG_BOUNDARY_STREAM");
}

TEST(DgCore, TheRegistryBatchesBoundaryFaceGroupsUnlessAskedNotTo) {
  // A run of boundary face groups of one kernel in one launch (DgOperator::boundary_batch; session 64's
  // measurements): on by default, FLOWDG_BOUNDARY_BATCH=0 for A/B runs, anything else refused.
  unsetenv("FLOWDG_BOUNDARY_BATCH");
  EXPECT_TRUE(dg::boundary_batch_allowed());
  setenv("FLOWDG_BOUNDARY_BATCH", "0", 1);
  EXPECT_FALSE(dg::boundary_batch_allowed());
  setenv("FLOWDG_BOUNDARY_BATCH", "1", 1);
  EXPECT_TRUE(dg::boundary_batch_allowed());
  for (const char* bad : {"yes", "2", "off"}) {
    setenv("FLOWDG_BOUNDARY_BATCH", bad, 1);
    EXPECT_THROW(dg::boundary_batch_allowed(), InputError) << bad;
  }
  unsetenv("FLOWDG_BOUNDARY_BATCH");
}

TEST(DgCore, TheVariableElementKernelsTablesFoldTheWeightsIntoTheDerivatives) {
  // The tables of 3D Euler's element kernel with a warp per variable (core_variable_kernels.hpp):
  // built for the affine tetrahedra's default rules at p = 1..3 — phi, then w_k dphi_j/dr_r, then the
  // face phi, in the kernel's compile-time layout — and empty elsewhere, so that another kernel runs.
  const Mesh mesh = box_tetrahedra(1, 1, 1, 1, 1, 1);
  const Connectivity connectivity = build_connectivity(mesh);
  const int expected_nq[4] = {0, 4, 14, 24}, expected_nfq[4] = {0, 6, 7, 15};
  for (int order = 0; order <= 4; ++order) {
    const dg::Setup setup = dg::build_setup(mesh, connectivity, order);
    const dg::ElementGroupSetup& group = setup.element_groups.at(0);
    const int Np = group.n_basis, Nq = group.volume_rule.size(), Nfq = setup.n_face_points();
    const dg::VariableKernelTables tables =
        dg::variable_kernel_tables(order, Nq, Nfq, group.volume_phi, group.volume_dphi, group.volume_rule.weights, group.face_phi);
    EXPECT_EQ(dg::variable_kernel_order(order), order >= 1 && order <= 3) << order;
    if (!dg::variable_kernel_order(order)) {
      EXPECT_TRUE(tables.empty()) << order;
      continue;
    }
    EXPECT_EQ(Nq, expected_nq[order]);
    EXPECT_EQ(Nfq, expected_nfq[order]);
    ASSERT_EQ(tables.values.size(), static_cast<std::size_t>(Nq * Np + 3 * Nq * Np + 4 * Nfq * Np)) << order;
    EXPECT_EQ(tables.order, order);
    for (int k = 0; k < Nq; ++k)
      for (int j = 0; j < Np; ++j) {
        EXPECT_EQ(tables.values[k * Np + j], group.volume_phi[k * Np + j]);
        for (int r = 0; r < 3; ++r)
          EXPECT_EQ(tables.values[Nq * Np + (k * 3 + r) * Np + j], group.volume_rule.weights[k] * group.volume_dphi[(k * 3 + r) * Np + j]);
      }
    for (int i = 0; i < 4 * Nfq * Np; ++i) EXPECT_EQ(tables.values[4 * Nq * Np + i], group.face_phi[i]);
    // Another rule (a curved group's, or a refined one) has no compiled kernel.
    EXPECT_TRUE(dg::variable_kernel_tables(order, Nq + 1, Nfq, std::vector<double>((Nq + 1) * Np), std::vector<double>((Nq + 1) * 3 * Np),
                                           std::vector<double>(Nq + 1), group.face_phi)
                    .empty());
  }
  // "automatic" takes it where it measured faster (setup.cpp): p = 1, 2 in both precisions (the
  // tensor-core kernel from p = 3).
  for (int order = 0; order <= 4; ++order) {
    EXPECT_EQ(dg::automatic_variable_elements(order, true), order == 1 || order == 2) << order;
    EXPECT_EQ(dg::automatic_variable_elements(order, false), order == 1 || order == 2) << order;
  }
  // The option is valid, on the CPU too (where the thread kernel runs).
  dg::OperatorOptions options;
  options.order = 2;
  options.element_kernel = "variable";
  dg::BoundarySpec boundary;
  boundary.kind = physics::BoundaryKind::farfield;
  options.boundary.assign(mesh.boundary_names.size(), boundary);
  EXPECT_NO_THROW((void)dg::make_operator(mesh, connectivity, options));
  options.face_kernel = "variable";  // its face kernel too
  EXPECT_NO_THROW((void)dg::make_operator(mesh, connectivity, options));
  // "automatic" takes the face kernel at p = 1..4 in both precisions (setup.cpp: faster everywhere, the same bits).
  for (int order = 0; order <= 4; ++order)
    for (const bool double_precision : {true, false})
      EXPECT_EQ(dg::automatic_variable_faces(order, double_precision), order >= 1) << order;
  EXPECT_TRUE(dg::variable_face_kernel_order(4));
  EXPECT_EQ(dg::variable_face_points(4), 19);
}

TEST(DgCore, TheTraceBufferProductGivesEveryFaceNodesTrace) {
  // FaceTraceBuffer's table is node_phi (4 Nn rows of phi_j at the faces' nodes) padded to whole
  // tiles and in fragment order: the product the trace kernel runs on it (emulated here tile by tile,
  // lane by lane, as dmma_8x8x4 takes its operands) gives each element's trace at each face node,
  // sum_j c_j phi_j(y_i), for pseudo-random coefficients — p = 1..4 — and the padding is zero. The
  // buffer at the face points (face_trace_buffer_points) likewise gives the trace at each of the face
  // rule's points, sum_j c_j phi_j(x_q) (the group's face_phi rows).
  const Mesh mesh = box_tetrahedra(1, 1, 1, 1, 1, 1);
  const Connectivity connectivity = build_connectivity(mesh);
  for (const bool points : {false, true})
  for (int order = 1; order <= 4; ++order) {
    const dg::Setup setup = dg::build_setup(mesh, connectivity, order);
    const dg::FaceMomentTables moments = dg::face_moment_tables(order, setup.face_rule);
    const int Nfq = setup.n_face_points();
    ASSERT_EQ(Nfq, dg::variable_face_points(order));
    const std::vector<double>& face_phi = setup.element_groups.at(0).face_phi;
    const dg::FaceTraceBuffer buffer = points ? dg::face_trace_buffer_points(order, Nfq, face_phi) : dg::face_trace_buffer(moments);
    const std::vector<double>& rows = points ? face_phi : moments.node_phi;
    const int Np = n_basis(Shape::tetrahedron, order), Nn = points ? Nfq : dg::face_moment_nodes(order);
    EXPECT_EQ(buffer.points, points);
    ASSERT_EQ(buffer.Nn, Nn);
    ASSERT_EQ(buffer.Np, Np);
    EXPECT_EQ(buffer.rows % 8, 0);
    EXPECT_EQ(buffer.columns % 4, 0);
    EXPECT_GE(buffer.rows, 4 * Nn);
    EXPECT_LT(buffer.rows, 4 * Nn + 8);
    EXPECT_GE(buffer.columns, Np);
    EXPECT_LT(buffer.columns, Np + 4);
    ASSERT_EQ(buffer.tables.size(), static_cast<std::size_t>(buffer.rows) * buffer.columns);
    EXPECT_EQ(dg::face_trace_values(10, buffer.Nn), static_cast<std::size_t>(10 * 4 * 5 * Nn));
    std::vector<double> c(buffer.columns, 0.0);  // one element's variable, zero past Np
    std::uint32_t seed = 77u + static_cast<std::uint32_t>(order);
    for (int j = 0; j < Np; ++j) {
      seed = seed * 1664525u + 1013904223u;
      c[j] = static_cast<double>(seed >> 8) / 8388608.0 - 1.0;
    }
    double largest_error = 0, largest_value = 0, padding = 0;
    for (int mt = 0; mt < buffer.rows / 8; ++mt)
      for (int row = 0; row < 8; ++row) {
        const int r = mt * 8 + row;
        double product = 0;  // row r of the product: lane 4 row + k holds A[row][k] of k step ks
        for (int ks = 0; ks < buffer.columns / 4; ++ks)
          for (int k = 0; k < 4; ++k) {
            const double a = buffer.tables[static_cast<std::size_t>(fragment_index(mt, ks, 4 * row + k, buffer.columns))];
            if (r >= 4 * Nn || ks * 4 + k >= Np) padding = std::max(padding, std::abs(a));
            product += a * c[ks * 4 + k];
          }
        if (r >= 4 * Nn) continue;
        double expected = 0;
        for (int j = 0; j < Np; ++j) expected += rows[static_cast<std::size_t>(r) * Np + j] * c[j];
        largest_error = std::max(largest_error, std::abs(product - expected));
        largest_value = std::max(largest_value, std::abs(expected));
      }
    EXPECT_GT(largest_value, 0.1) << order;
    EXPECT_LT(largest_error, 1e-14 * largest_value * Np) << "p = " << order << (points ? " points" : " nodes");
    EXPECT_EQ(padding, 0.0) << order;
  }
  EXPECT_THROW(dg::face_trace_buffer_points(4, 15, std::vector<double>(4 * 15 * 35)), Error);  // not the variable face kernel's rule
}

TEST(DgCore, FaceFluxesAsNodalMomentsGiveTheFaceTermExactly) {
  // The face term sum_q s_q phi_j(x_q) of every basis function on every local face of a tetrahedron,
  // from the minus side's point order and through every orientation's permutation on the plus side,
  // equals sum_i phi_j(y_i) m_i with the moments m_i = sum_q L_i(y_q) s_q (core_variable_kernels.hpp:
  // FaceMomentTables) — p = 1..4, the default face rules, pseudo-random point fluxes s_q.
  const Mesh mesh = box_tetrahedra(1, 1, 1, 1, 1, 1);
  const Connectivity connectivity = build_connectivity(mesh);
  const int expected_nodes[5] = {1, 3, 6, 10, 15};
  for (int order = 1; order <= 4; ++order) {
    const dg::Setup setup = dg::build_setup(mesh, connectivity, order);
    const dg::ElementGroupSetup& group = setup.element_groups.at(0);
    const int Np = group.n_basis, Nfq = setup.n_face_points(), Nn = dg::face_moment_nodes(order);
    EXPECT_EQ(Nn, expected_nodes[order]);
    EXPECT_LT(Nn, Nfq) << order;  // fewer values a face: the point of it
    const dg::FaceMomentTables tables = dg::face_moment_tables(order, setup.face_rule);
    ASSERT_EQ(tables.interpolation.size(), static_cast<std::size_t>(Nn * Nfq));
    ASSERT_EQ(tables.node_phi.size(), static_cast<std::size_t>(4 * Nn * Np));
    const int orientations = dg::orientation_count(Shape::triangle);
    ASSERT_EQ(tables.node_permutation.size(), static_cast<std::size_t>(orientations * Nn));
    ASSERT_EQ(setup.permutation.size(), static_cast<std::size_t>(orientations * Nfq));
    std::vector<double> s(Nfq);
    std::uint32_t seed = 2024u + static_cast<std::uint32_t>(order);
    for (double& x : s) {
      seed = seed * 1664525u + 1013904223u;
      x = static_cast<double>(seed >> 8) / 8388608.0 - 1.0;
    }
    std::vector<double> m(Nn, 0.0);
    for (int i = 0; i < Nn; ++i)
      for (int q = 0; q < Nfq; ++q) m[i] += tables.interpolation[i * Nfq + q] * s[q];
    double largest_error = 0, largest_value = 0;
    for (int l = 0; l < 4; ++l)
      for (int j = 0; j < Np; ++j) {
        // The minus side (identity), then the plus side under each orientation.
        for (int o = -1; o < orientations; ++o) {
          double expected = 0, moments = 0;
          for (int q = 0; q < Nfq; ++q)
            expected += s[q] * group.face_phi[(l * Nfq + (o < 0 ? q : setup.permutation[o * Nfq + q])) * Np + j];
          for (int i = 0; i < Nn; ++i)
            moments += m[i] * tables.node_phi[(l * Nn + (o < 0 ? i : tables.node_permutation[o * Nn + i])) * Np + j];
          largest_error = std::max(largest_error, std::abs(moments - expected));
          largest_value = std::max(largest_value, std::abs(expected));
        }
      }
    EXPECT_GT(largest_value, 0.1) << order;
    EXPECT_LT(largest_error, 1e-12 * largest_value) << "p = " << order;
    // The element kernel's tables with moments: phi and w dphi kept, the face rows phi_j(y_i).
    if (dg::variable_kernel_order(order)) {
      const dg::VariableKernelTables points = dg::variable_kernel_tables(order, group.volume_rule.size(), Nfq, group.volume_phi,
                                                                          group.volume_dphi, group.volume_rule.weights, group.face_phi);
      const dg::VariableKernelTables with = dg::with_face_moments(points, tables);
      EXPECT_TRUE(with.moments);
      const std::size_t volume = static_cast<std::size_t>(4 * group.volume_rule.size() * Np);
      ASSERT_EQ(with.values.size(), volume + tables.node_phi.size());
      EXPECT_TRUE(std::equal(points.values.begin(), points.values.begin() + volume, with.values.begin()));
      EXPECT_TRUE(std::equal(tables.node_phi.begin(), tables.node_phi.end(), with.values.begin() + volume));
      EXPECT_EQ(with.node_permutation, tables.node_permutation);
    }
  }
  // Chosen where they measured faster (setup.cpp: p = 1..4, both precisions);
  // FLOWDG_FACE_MOMENTS=0|1 replaces the rule for A/B runs; anything else is refused.
  unsetenv("FLOWDG_FACE_MOMENTS");
  for (const bool double_precision : {true, false})
    for (int order = 1; order <= 4; ++order) EXPECT_TRUE(dg::face_moments_chosen(order, double_precision)) << order;
  setenv("FLOWDG_FACE_MOMENTS", "0", 1);
  for (int order = 1; order <= 4; ++order) EXPECT_FALSE(dg::face_moments_chosen(order, true)) << order;
  setenv("FLOWDG_FACE_MOMENTS", "1", 1);
  EXPECT_TRUE(dg::face_moments_chosen(2, false));
  setenv("FLOWDG_FACE_MOMENTS", "on", 1);
  EXPECT_THROW(dg::face_moments_chosen(1, true), InputError);
  unsetenv("FLOWDG_FACE_MOMENTS");
  // The trace buffer (core_variable_kernels.hpp: FaceTraceBuffer): filled by the tensor-core element
  // kernel at p = 4 in both precisions, the element-major state for the face tensor kernel at p = 3 in
  // both (session 63; before it the coefficients' element-major copy in double), none otherwise (setup.cpp: by measurement); FLOWDG_TRACE_BUFFER=0|1|2 replaces
  // the rule, 3 and 4 (the element-major state) at p = 3 only; anything else is refused.
  for (int order = 1; order <= 4; ++order)
    for (const bool double_precision : {true, false}) {
      EXPECT_EQ(dg::face_trace_mode_for(-1, order, double_precision), order == 4 ? 2 : order == 3 ? 4 : 0) << order;
      for (int asked = 0; asked <= 2; ++asked) EXPECT_EQ(dg::face_trace_mode_for(asked, order, double_precision), asked) << order;
      for (int asked = 3; asked <= 4; ++asked)
        if (order == 3) EXPECT_EQ(dg::face_trace_mode_for(asked, order, double_precision), asked);
        else EXPECT_THROW(dg::face_trace_mode_for(asked, order, double_precision), InputError) << order;
    }
  setenv("FLOWDG_TRACE_BUFFER", "2", 1);
  EXPECT_EQ(dg::face_trace_mode(3, true), 2);
  setenv("FLOWDG_TRACE_BUFFER", "3", 1);
  EXPECT_EQ(dg::face_trace_mode(3, true), 3);
  EXPECT_THROW(dg::face_trace_mode(4, true), InputError);
  setenv("FLOWDG_TRACE_BUFFER", "yes", 1);
  EXPECT_THROW(dg::face_trace_mode(3, true), InputError);
  setenv("FLOWDG_TRACE_BUFFER", "4", 1);
  EXPECT_EQ(dg::face_trace_mode(3, false), 4);
  EXPECT_THROW(dg::face_trace_mode(2, true), InputError);
  setenv("FLOWDG_TRACE_BUFFER", "5", 1);
  EXPECT_THROW(dg::face_trace_mode(3, true), InputError);
  unsetenv("FLOWDG_TRACE_BUFFER");
  // The buffer's rows: the face points at p = 4 (where the buffer runs) in both precisions (float since
  // session 66), else the nodes (setup.cpp face_trace_points_for: by measurement); FLOWDG_TRACE_POINTS=0|1 replaces the
  // rule; anything else is refused.
  for (int order = 1; order <= 4; ++order)
    for (const bool double_precision : {true, false}) {
      EXPECT_EQ(dg::face_trace_points_for(-1, order, double_precision), order == 4) << order;
      EXPECT_FALSE(dg::face_trace_points_for(0, order, double_precision)) << order;
      EXPECT_TRUE(dg::face_trace_points_for(1, order, double_precision)) << order;
    }
  setenv("FLOWDG_TRACE_POINTS", "1", 1);
  EXPECT_TRUE(dg::face_trace_points(4, true));
  setenv("FLOWDG_TRACE_POINTS", "points", 1);
  EXPECT_THROW(dg::face_trace_points(4, true), InputError);
  setenv("FLOWDG_TRACE_POINTS", "2", 1);
  EXPECT_THROW(dg::face_trace_points(4, true), InputError);
  unsetenv("FLOWDG_TRACE_POINTS");
  // The tensor-core element kernel (which reads the moments at p = 3, 4 in double precision) has its
  // registers bounded for three blocks an SM at p = 3 and two at p = 4 unless FLOWDG_TENSOR_BLOCKS
  // asks otherwise (read once a process: checked where it is unset).
  if (std::getenv("FLOWDG_TENSOR_BLOCKS") == nullptr) {
    EXPECT_EQ(dg::tensor_blocks(3), 3);
    EXPECT_EQ(dg::tensor_blocks(4), 2);
    EXPECT_EQ(dg::tensor_blocks(2), 2);
  }
  // FLOWDG_TENSOR_BLOCKS's values (tensor_blocks reads the variable once a process; tensor_blocks_for
  // takes the value): the rule when unset; three at p = 4 only where the shared memory holds them
  // (float rows or the compact layout), four with float rows only; other orders two.
  EXPECT_EQ(dg::tensor_blocks_for(0, 4, false, false), 2);
  EXPECT_EQ(dg::tensor_blocks_for(0, 3, false, false), 3);
  EXPECT_EQ(dg::tensor_blocks_for(0, 4, true, false), 4);
  EXPECT_EQ(dg::tensor_blocks_for(3, 4, false, true), 3);
  EXPECT_EQ(dg::tensor_blocks_for(3, 4, true, false), 3);
  EXPECT_THROW(dg::tensor_blocks_for(3, 4, false, false), InputError);
  EXPECT_THROW(dg::tensor_blocks_for(4, 3, false, false), InputError);
  EXPECT_EQ(dg::tensor_blocks_for(4, 3, true, false), 4);
  EXPECT_EQ(dg::tensor_blocks_for(2, 3, false, false), 2);
  EXPECT_EQ(dg::tensor_blocks_for(3, 2, false, false), 2);
  // The layout's sizes at compile time (FixedNq, where the layout is the default rule's): at p = 3
  // and 4 by measurement, never below p = 3; FLOWDG_TENSOR_FIXED=0|1 (the value here) for A/B runs,
  // everywhere or nowhere at p = 3, 4.
  EXPECT_TRUE(dg::tensor_fixed_layout_for(-1, 3, false));
  EXPECT_TRUE(dg::tensor_fixed_layout_for(-1, 3, true));
  EXPECT_TRUE(dg::tensor_fixed_layout_for(-1, 4, false));
  EXPECT_TRUE(dg::tensor_fixed_layout_for(-1, 4, true));
  EXPECT_FALSE(dg::tensor_fixed_layout_for(-1, 2, true));
  EXPECT_TRUE(dg::tensor_fixed_layout_for(1, 4, false));
  EXPECT_FALSE(dg::tensor_fixed_layout_for(0, 4, false));
  EXPECT_FALSE(dg::tensor_fixed_layout_for(0, 3, true));
  EXPECT_FALSE(dg::tensor_fixed_layout_for(1, 2, false));
  // The compiled-in volume points are the default volume rule's on affine tetrahedra.
  for (const int p : {3, 4})
    EXPECT_EQ(dg::tensor_fixed_volume_points(p), dg::volume_rule(Shape::tetrahedron, dg::GeometryKind::affine, p, 1).size()) << "p = " << p;
  EXPECT_EQ(dg::tensor_fixed_volume_points(2), 0);
  if (std::getenv("FLOWDG_TENSOR_FIXED") == nullptr) {
    EXPECT_TRUE(dg::tensor_fixed_layout(3, false));
    EXPECT_TRUE(dg::tensor_fixed_layout(4, false));
    EXPECT_FALSE(dg::tensor_fixed_layout(2, false));
  }
  // The element kernel's variant at p = 3, 4 (phase 1 unpredicated; at p = 4 in double rows phase 4
  // on m16n8k4, A six ahead and phase 0's face codes first; at p = 3 in float rows the splits' sums in
  // the update): by measurement, nowhere below p = 3; FLOWDG_TENSOR_VARIANT (the value here) for A/B runs.
  EXPECT_EQ(dg::tensor_variant_for(-1, 4, false), 151);  // session 62: 23 + the plus sides kept
  EXPECT_EQ(dg::tensor_variant_for(-1, 4, true), 2);
  EXPECT_EQ(dg::tensor_variant_for(2, 3, true), 2);
  EXPECT_EQ(dg::tensor_variant_for(-1, 3, false), 66);  // session 62: 2 + the update two threads a pair
  EXPECT_EQ(dg::tensor_variant_for(-1, 3, true), 10);
  EXPECT_EQ(dg::tensor_variant_for(-1, 2, false), 0);
  EXPECT_EQ(dg::tensor_variant_for(0, 4, false), 0);
  EXPECT_EQ(dg::tensor_variant_for(7, 4, false), 7);
  EXPECT_EQ(dg::tensor_variant_for(3, 2, false), 0);
  // (read once a process, on the first call that does not throw: checked where unset)
  if (std::getenv("FLOWDG_TENSOR_VARIANT") == nullptr) {
    setenv("FLOWDG_TENSOR_VARIANT", "4", 1);
    EXPECT_THROW(dg::tensor_variant(4, false), InputError);
    unsetenv("FLOWDG_TENSOR_VARIANT");
    EXPECT_EQ(dg::tensor_variant(4, false), 151);
  }
  // The element-major state (face_trace_mode 4) runs the default shapes at p = 3 alone: double rows in
  // double storage, float rows in float storage, the sizes compiled in (24 volume points, 10 face nodes).
  if (std::getenv("FLOWDG_TENSOR_VARIANT") == nullptr && std::getenv("FLOWDG_TENSOR_FIXED") == nullptr &&
      std::getenv("FLOWDG_TENSOR_BLOCKS") == nullptr && std::getenv("FLOWDG_TENSOR_RK") == nullptr &&
      std::getenv("FLOWDG_TENSOR_ROW_GROUPS") == nullptr && std::getenv("FLOWDG_TENSOR_WIDE") == nullptr) {
    EXPECT_TRUE(dg::tensor_element_major_runs(3, true, false, dg::tensor_compact(3), 24, 10));
    EXPECT_TRUE(dg::tensor_element_major_runs(3, false, true, false, 24, 10));
    EXPECT_FALSE(dg::tensor_element_major_runs(3, false, false, dg::tensor_compact(3), 24, 10));  // float storage, double rows
    EXPECT_FALSE(dg::tensor_element_major_runs(3, true, false, dg::tensor_compact(3), 14, 10));   // the 2p - 1 rule
    EXPECT_FALSE(dg::tensor_element_major_runs(3, true, false, dg::tensor_compact(3), 24, 15));   // point fluxes
    EXPECT_FALSE(dg::tensor_element_major_runs(4, true, false, dg::tensor_compact(4), 46, 15));
    EXPECT_FALSE(dg::tensor_element_major_runs(4, false, true, false, 46, 15));
  }
  // ... its coefficients staged element-major in shared memory too (session 63: by measurement;
  // FLOWDG_TENSOR_STAGING=0|1 for A/B runs)
  if (std::getenv("FLOWDG_TENSOR_STAGING") == nullptr) {
    EXPECT_TRUE(dg::tensor_staged_element_major());
  }
  // The coefficients loaded with the late Runge-Kutta registers (the compact layout: p = 4) by
  // measurement at p = 4 (FLOWDG_TENSOR_RK_U for A/B runs).
  if (std::getenv("FLOWDG_TENSOR_RK_U") == nullptr) {
    EXPECT_TRUE(dg::tensor_rk_u(4));
    EXPECT_FALSE(dg::tensor_rk_u(3));
    EXPECT_FALSE(dg::tensor_rk_u(2));
  }
  // With late Runge-Kutta loads and the sizes compiled in: loaded right after the products' partial
  // sums at p = 3 by measurement, never below p = 3 (FLOWDG_TENSOR_RK_SUMS for A/B runs).
  if (std::getenv("FLOWDG_TENSOR_RK_SUMS") == nullptr) {
    EXPECT_TRUE(dg::tensor_rk_after_sums(3));
    EXPECT_FALSE(dg::tensor_rk_after_sums(4));
    EXPECT_FALSE(dg::tensor_rk_after_sums(2));
  }
  // Phase 3's A fragments loaded ahead: double rows at p = 4 by measurement (FLOWDG_TENSOR_PREFETCH
  // for A/B runs).
  if (std::getenv("FLOWDG_TENSOR_PREFETCH") == nullptr) {
    EXPECT_FALSE(dg::tensor_prefetch(2, false));
    EXPECT_FALSE(dg::tensor_prefetch(3, false));
    EXPECT_TRUE(dg::tensor_prefetch(4, false));
    EXPECT_FALSE(dg::tensor_prefetch(3, true));
    EXPECT_FALSE(dg::tensor_prefetch(4, true));
  }
  // Its shared rows in float (float storage): at p = 3, 4 by measurement, four blocks an SM
  // (FLOWDG_TENSOR_ROWS, FLOWDG_TENSOR_BLOCKS for A/B runs).
  if (std::getenv("FLOWDG_TENSOR_ROWS") == nullptr) {
    EXPECT_FALSE(dg::tensor_float_rows(2));
    EXPECT_TRUE(dg::tensor_float_rows(3));
    EXPECT_TRUE(dg::tensor_float_rows(4));
  }
  if (std::getenv("FLOWDG_TENSOR_BLOCKS") == nullptr) {
    EXPECT_EQ(dg::tensor_blocks(4, true), 4);
    EXPECT_EQ(dg::tensor_blocks(3, true), 4);
    // double rows in the compact layout at p = 4: still two (three measured no faster)
    EXPECT_EQ(dg::tensor_blocks(4, false, true), 2);
  }
  // The compact layout at p = 4 (double rows), m16n8k4 in the residual's product at p = 3, 4
  // (FLOWDG_TENSOR_COMPACT, FLOWDG_TENSOR_WIDE for A/B runs).
  if (std::getenv("FLOWDG_TENSOR_COMPACT") == nullptr) {
    EXPECT_TRUE(dg::tensor_compact(4));
    EXPECT_TRUE(dg::tensor_compact(3));  // (session 60: +0.5-1.0% in double rows at p = 3)
    EXPECT_FALSE(dg::tensor_compact(2));
  }
  // The warps a column tile (FLOWDG_TENSOR_ROW_GROUPS=1|2 for A/B runs): five-warp blocks for float
  // rows at p = 3 (session 60: +6.6%), ten elsewhere; what was asked for at p = 3, 4 only.
  EXPECT_EQ(dg::tensor_row_groups_for(0, 3, true), 1);
  EXPECT_EQ(dg::tensor_row_groups_for(0, 3, false), 2);
  EXPECT_EQ(dg::tensor_row_groups_for(0, 4, true), 2);
  EXPECT_EQ(dg::tensor_row_groups_for(0, 4, false), 2);
  EXPECT_EQ(dg::tensor_row_groups_for(2, 3, true), 2);
  EXPECT_EQ(dg::tensor_row_groups_for(1, 3, false), 1);
  EXPECT_EQ(dg::tensor_row_groups_for(1, 4, true), 1);
  EXPECT_EQ(dg::tensor_row_groups_for(1, 2, false), 2);
  // p = 3's compact layout in double rows: 112 rows of 44 doubles and the metric, 40,064 bytes —
  // five blocks in an SM's 228 KB (with 1 KB a block), where the plain layout's 47,104 fit four.
  {
    dg::CoreTensorLayout t3 = dg::core_tensor_layout(5, 3, Shape::tetrahedron, 20, 24, 10);
    EXPECT_EQ(dg::core_tensor_shared_bytes(t3), 47104u);
    t3.compact = true;
    EXPECT_TRUE(dg::core_tensor_compact_fits(t3));
    EXPECT_EQ(dg::core_tensor_shared_bytes(t3), 40064u);
  }
  if (std::getenv("FLOWDG_TENSOR_WIDE") == nullptr) {
    EXPECT_TRUE(dg::tensor_wide(3));
    EXPECT_TRUE(dg::tensor_wide(4));
  }
  // The compact layout: the coefficients inside the reference fluxes' rows, K3 rows instead of
  // K3 + Np; at p = 4 with face moments (46 volume points, 15 nodes a face) 200 rows of 44 doubles
  // and the metric: 70,400 + 640 bytes — three blocks in an SM's 228 KB (with 1 KB a block), where
  // the plain layout's 82,720 + 640 fit two.
  dg::CoreTensorLayout t = dg::core_tensor_layout(5, 3, Shape::tetrahedron, 35, 46, 15);
  EXPECT_EQ(t.K3, 200);
  EXPECT_EQ(dg::core_tensor_shared_bytes(t), 83360u);
  EXPECT_TRUE(dg::core_tensor_compact_fits(t));
  t.compact = true;
  EXPECT_EQ(dg::core_tensor_shared_bytes(t), 71040u);
  EXPECT_LE(3 * (dg::core_tensor_shared_bytes(t) + 1024), 228u * 1024u);
  EXPECT_GT(3 * (83360u + 1024), 228u * 1024u);
  t.compact = false;
  t.float_rows = true;
  t.stride = dg::core_tensor_float_stride(40);
  EXPECT_EQ(t.stride, 40);
  EXPECT_EQ(dg::core_tensor_shared_bytes(t), 4u * (235u * 40u + 80u));
  // A layout whose coefficients outgrow the free rows (Np > (dim - 1) Nq) cannot be compact.
  EXPECT_FALSE(dg::core_tensor_compact_fits(dg::core_tensor_layout(4, 2, Shape::triangle, 10, 4, 3)));
  // The Runge-Kutta registers' loads: after the products where the registers are bounded for three
  // blocks or more (FLOWDG_TENSOR_RK for A/B runs).
  if (std::getenv("FLOWDG_TENSOR_RK") == nullptr && std::getenv("FLOWDG_TENSOR_BLOCKS") == nullptr) {
    EXPECT_FALSE(dg::tensor_late_rk(2, false, false));
    EXPECT_TRUE(dg::tensor_late_rk(3, false, false));
    EXPECT_FALSE(dg::tensor_late_rk(4, false, true));
    EXPECT_FALSE(dg::tensor_late_rk(4, false, false));
    EXPECT_TRUE(dg::tensor_late_rk(4, true, false));
    EXPECT_TRUE(dg::tensor_late_rk(3, true, false));
  }
}

TEST(DgCore, TheTensorKernelsRowsTakeTheSwizzledOrderInDoubleRowsAtOrdersThreeAndFour) {
  // setup.cpp tensor_row_swizzle_for: by measurement (session 61) double rows at p = 3, 4 take the rows
  // of each four in the order (0, 2, 1, 3); float rows and the other orders keep them in order;
  // FLOWDG_TENSOR_SWIZZLE=0|1 replaces the rule.
  for (int order = 0; order <= 5; ++order)
    for (const bool float_rows : {false, true}) {
      EXPECT_EQ(dg::tensor_row_swizzle_for(-1, order, float_rows), !float_rows && (order == 3 || order == 4)) << order;
      EXPECT_FALSE(dg::tensor_row_swizzle_for(0, order, float_rows)) << order;
      EXPECT_TRUE(dg::tensor_row_swizzle_for(1, order, float_rows)) << order;
    }
}

TEST(DgCore, ResidualNormsAreTheL2NormsOfTheResidualThroughErrors) {
  // residual_norms() (the residual monitor's) keeps errors()' quadrature from its first call: it
  // must give errors()' L2 norms of du/dt against zero on affine, bilinear and curved groups, at a
  // second call too, without touching the state.
  const std::vector<Mesh> meshes = {rectangle_triangles(0, 1, 0, 1, 6, 5, TriangleLayout::perturbed, 0.2, 3),
                                    read_gmsh(FLOWDG_TEST_DATA_DIR "/mixed_msh41.msh"), box_tetrahedra(1, 1, 1, 2, 2, 2),
                                    read_gmsh(FLOWDG_TEST_DATA_DIR "/annulus_p2_msh41.msh"),
                                    read_gmsh(FLOWDG_TEST_DATA_DIR "/cylinder_tet35_msh41.msh")};
  for (const Mesh& mesh : meshes) {
    const Connectivity connectivity = build_connectivity(mesh);
    for (const int order : {1, 3}) {
      const physics::FlowSpec flow = vortex(mesh.dimension, {0.5, 0.5, 0.0});
      const auto op = dg::make_operator(mesh, connectivity, options_for(mesh, order, uniform_flow(mesh.dimension)));
      op->project(flow, 0.0);
      const std::vector<double> state = op->coefficients();
      physics::FlowSpec zero;
      zero.density = 0.0;
      zero.pressure = 0.0;
      std::vector<double> moved = state;  // the second call: another state through the kept quadrature
      for (double& value : moved) value *= 1.001;
      for (const std::vector<double>* current : std::initializer_list<const std::vector<double>*>{&state, &moved}) {
        op->set_coefficients(*current);
        const std::vector<double> residual = op->residual(0.0);
        op->set_coefficients(residual);
        const std::vector<double> expected = op->errors(zero, 0.0).l2;
        op->set_coefficients(*current);
        const std::vector<double> norms = op->residual_norms(0.0);
        ASSERT_EQ(norms.size(), expected.size());
        for (std::size_t v = 0; v < norms.size(); ++v) {
          EXPECT_GT(expected[v], 1e-6) << "a residual to measure";
          EXPECT_NEAR(norms[v], expected[v], 1e-12 * expected[v]) << op->describe() << " p = " << order << " variable " << v;
        }
        EXPECT_EQ(op->coefficients(), *current) << "the state is left as it was";
      }
    }
  }
}
