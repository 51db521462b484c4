#include "flowdg/mesh/generators.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <unordered_map>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/elevate.hpp"

namespace flowdg {
namespace {

// Displacements up to 1/(2 sqrt 2) of the smallest cell side keep every triangle (and every corner
// triangle of a quadrilateral) positive: each altitude of the cell's right triangles is at least
// min(dx, dy)/sqrt(2), and moving three vertices by at most d each shortens it by at most 2d.
constexpr double max_perturbation = 0.3;
// In 3D the same argument is too weak: four vertices that each move by at most d can only make a
// tetrahedron flat if it fits between two parallel planes 2d apart, i.e. if 2d reaches its width
// (its smallest extent over all directions). The box's tetrahedra (Kuhn's, and the corner
// tetrahedra whose volumes are a hexahedron's corner Jacobians) are at least min(dx, dy, dz)/sqrt(3)
// wide, e.g. a Kuhn tetrahedron of a cube between its edges from (0,0,0) to (1,1,0) and from
// (1,0,0) to (1,1,1); so displacements below min(dx, dy, dz)/(2 sqrt 3) = 0.2887 min(dx, dy, dz)
// keep every one positive, and 0.3 of a cube's side can flatten one.
constexpr double max_perturbation_3d = 0.28;

// Portable across standard libraries, unlike std::uniform_real_distribution.
double unit_uniform(std::mt19937_64& random) {
  return static_cast<double>(random() >> 11) * 0x1.0p-53;
}

// Shortest text that reads back to the same double: 1.384, not 1.3839999999999999.
std::string number(double value) {
  char text[32];
  return {text, std::to_chars(text, text + sizeof text, value).ptr};
}

void require_cells(int n, const char* name) {
  if (n < 1) throw InputError(cat("generator: ", name, " must be at least 1 (got ", n, ")"));
}

enum class CellSplit { triangles, quadrilaterals };

// The four sides of a structured (i, j) grid: j = 0, i = n_i, j = n_j, i = 0. Listing the sides in
// this order walks the boundary counter-clockwise, so each facet keeps the elements' edge direction.
struct GridSides {
  int j_low, i_high, j_high, i_low;
};

// An (n_i + 1) x (n_j + 1) grid of nodes; `position(i, j)` must map (i, j) with positive orientation.
// A `parallel_positions` position function is called from several threads in any order (no
// random numbers); the elements are always filled in parallel, each cell at its own place.
Mesh structured_grid(Mesh mesh, int n_i, int n_j, CellSplit split, GridSides sides,
                     const std::function<Point3(int, int)>& position, bool parallel_positions) {
  const auto node = [n_i](int i, int j) { return static_cast<index_t>(j) * (n_i + 1) + i; };
  mesh.dimension = 2;
  const index_t n_grid_nodes = static_cast<index_t>(n_i + 1) * (n_j + 1);
  if (parallel_positions) {
    mesh.nodes.resize(n_grid_nodes);
#pragma omp parallel for schedule(static)
    for (int j = 0; j <= n_j; ++j)
      for (int i = 0; i <= n_i; ++i) mesh.nodes[node(i, j)] = position(i, j);
  } else {
    mesh.nodes.reserve(n_grid_nodes);
    for (int j = 0; j <= n_j; ++j)
      for (int i = 0; i <= n_i; ++i) mesh.nodes.push_back(position(i, j));
  }
  // Cell (i, j) holds elements [per_cell * (j n_i + i), per_cell * (j n_i + i + 1)), as adding
  // them cell by cell in that order would.
  const bool quadrilaterals = split == CellSplit::quadrilaterals;
  const int per_cell = quadrilaterals ? 1 : 2;
  const int per_element = quadrilaterals ? 4 : 3;
  const index_t first = mesh.n_elements(), first_node = static_cast<index_t>(mesh.element_nodes.size());
  const index_t n_new = static_cast<index_t>(per_cell) * n_i * n_j;
  mesh.element_types.resize(first + n_new, quadrilaterals ? ElementType::quadrilateral4 : ElementType::triangle3);
  mesh.element_offsets.resize(first + n_new + 1);
  mesh.element_nodes.resize(first_node + per_element * n_new);
#pragma omp parallel for schedule(static)
  for (int j = 0; j < n_j; ++j) {
    for (int i = 0; i < n_i; ++i) {
      const index_t a = node(i, j), b = node(i + 1, j), c = node(i + 1, j + 1), d = node(i, j + 1);
      const index_t element = first + per_cell * (static_cast<index_t>(j) * n_i + i);
      index_t* out = mesh.element_nodes.data() + first_node + per_element * (element - first);
      if (quadrilaterals) {
        const index_t quad[4] = {a, b, c, d};
        std::copy(quad, quad + 4, out);
      } else if ((i + j) % 2 == 0) {
        const index_t pair[6] = {a, b, c, a, c, d};
        std::copy(pair, pair + 6, out);
      } else {
        const index_t pair[6] = {a, b, d, b, c, d};
        std::copy(pair, pair + 6, out);
      }
      for (int k = 1; k <= per_cell; ++k) mesh.element_offsets[element + k] = first_node + per_element * (element - first + k);
    }
  }
  const auto facet = [&](index_t from, index_t to, int tag) {
    TaggedFacet f;
    f.vertices = {from, to, -1, -1};
    f.n_vertices = 2;
    f.tag = tag;
    mesh.tagged_facets.push_back(f);
  };
  for (int i = 0; i < n_i; ++i) facet(node(i, 0), node(i + 1, 0), sides.j_low);
  for (int j = 0; j < n_j; ++j) facet(node(n_i, j), node(n_i, j + 1), sides.i_high);
  for (int i = n_i; i > 0; --i) facet(node(i, n_j), node(i - 1, n_j), sides.j_high);
  for (int j = n_j; j > 0; --j) facet(node(0, j), node(0, j - 1), sides.i_low);
  return mesh;
}

Mesh rectangle(double x0, double x1, double y0, double y1, int nx, int ny, CellSplit split,
               double perturbation, std::uint64_t seed) {
  require_cells(nx, "nx");
  require_cells(ny, "ny");
  if (!(x1 > x0) || !(y1 > y0))
    throw InputError(cat("generator: rectangle needs x0 < x1 and y0 < y1 (got [", x0, ", ", x1,
                         "] x [", y0, ", ", y1, "])"));
  if (!(perturbation >= 0.0 && perturbation <= max_perturbation))
    throw InputError(cat("generator: perturbation must be in [0, ", max_perturbation,
                         "] of the cell size (got ", perturbation, ")"));
  const double dx = (x1 - x0) / nx, dy = (y1 - y0) / ny;
  const double amplitude = perturbation * std::min(dx, dy);
  std::mt19937_64 random(seed);
  Mesh mesh;
  const GridSides sides{mesh.tag_id("bottom"), mesh.tag_id("right"), mesh.tag_id("top"),
                        mesh.tag_id("left")};
  // The perturbation draws random numbers node by node: that order must stay serial.
  mesh = structured_grid(std::move(mesh), nx, ny, split, sides, [&](int i, int j) {
    Point3 p{i == nx ? x1 : x0 + i * dx, j == ny ? y1 : y0 + j * dy, 0};
    if (amplitude > 0 && i > 0 && i < nx && j > 0 && j < ny) {
      // Uniform in a disk of radius `amplitude`, the bound the validity argument needs.
      const double radius = amplitude * std::sqrt(unit_uniform(random));
      const double angle = 2 * std::numbers::pi * unit_uniform(random);
      p.x += radius * std::cos(angle);
      p.y += radius * std::sin(angle);
    }
    return p;
  }, !(amplitude > 0));
  mesh.source = cat("builtin:rectangle([", number(x0), ", ", number(x1), "] x [", number(y0), ", ",
                    number(y1), "], ", nx, " x ", ny,
                    split == CellSplit::triangles ? " triangle cells" : " quadrilaterals",
                    perturbation > 0 ? cat(", perturbation ", number(perturbation), ", seed ", seed) : "",
                    ")");
  return mesh;
}

}  // namespace

Mesh rectangle_triangles(double x0, double x1, double y0, double y1, int nx, int ny,
                         TriangleLayout layout, double perturbation, std::uint64_t seed) {
  return rectangle(x0, x1, y0, y1, nx, ny, CellSplit::triangles,
                   layout == TriangleLayout::perturbed ? perturbation : 0.0, seed);
}

Mesh rectangle_quadrilaterals(double x0, double x1, double y0, double y1, int nx, int ny,
                              double perturbation, std::uint64_t seed) {
  return rectangle(x0, x1, y0, y1, nx, ny, CellSplit::quadrilaterals, perturbation, seed);
}

Mesh quarter_annulus(double r_inner, double r_outer, int n_radial, int n_angular) {
  require_cells(n_radial, "n_radial");
  require_cells(n_angular, "n_angular");
  if (!(r_inner > 0 && r_outer > r_inner))
    throw InputError(cat("generator: quarter annulus needs 0 < r_inner < r_outer (got ", r_inner,
                         ", ", r_outer, ")"));
  Mesh mesh;
  const int inner = mesh.tag_id("inner"), outer = mesh.tag_id("outer");
  const int inflow = mesh.tag_id("inflow"), outflow = mesh.tag_id("outflow");
  mesh.boundary_circles = {{inner, {0, 0, 0}, r_inner}, {outer, {0, 0, 0}, r_outer}};
  // i runs outward and j counter-clockwise, so (i, j) -> (x, y) has positive orientation.
  mesh = structured_grid(std::move(mesh), n_radial, n_angular, CellSplit::triangles,
                         {inflow, outer, outflow, inner}, [&](int i, int j) {
                           const double r = i == n_radial
                                                ? r_outer
                                                : r_inner + (r_outer - r_inner) * i / n_radial;
                           // Exact zeros on the axes: cos(pi/2) is not 0 in floating point.
                           if (j == 0) return Point3{r, 0, 0};
                           if (j == n_angular) return Point3{0, r, 0};
                           const double theta = 0.5 * std::numbers::pi * j / n_angular;
                           return Point3{r * std::cos(theta), r * std::sin(theta), 0};
                         }, true);
  mesh.source = cat("builtin:annulus(r_inner=", number(r_inner), ", r_outer=", number(r_outer),
                    ", n_radial=", n_radial, ", n_angular=", n_angular, ")");
  return mesh;
}

namespace {

/// [0,lx] x [0,ly] x [0,lz] in nx x ny x nz cells of 6 tetrahedra or of one hexahedron each, with
/// the boundary tags xmin, xmax, ymin, ymax, zmin, zmax.
Mesh box(double lx, double ly, double lz, int nx, int ny, int nz, bool hexahedra, double perturbation,
         std::uint64_t seed) {
  require_cells(nx, "nx");
  require_cells(ny, "ny");
  require_cells(nz, "nz");
  if (!(lx > 0 && ly > 0 && lz > 0))
    throw InputError(cat("generator: box sides must be positive (got ", lx, ", ", ly, ", ", lz, ")"));
  if (!(perturbation >= 0.0 && perturbation <= max_perturbation_3d))
    throw InputError(cat("generator: box perturbation must be in [0, ", number(max_perturbation_3d),
                         "] of the cell size (got ", number(perturbation), ")"));
  const double amplitude = perturbation * std::min({lx / nx, ly / ny, lz / nz});
  std::mt19937_64 random(seed);
  Mesh mesh;
  mesh.dimension = 3;
  const int n[3] = {nx, ny, nz};
  const double length[3] = {lx, ly, lz};
  const auto node = [&](std::array<int, 3> ijk) {
    return (static_cast<index_t>(ijk[2]) * (ny + 1) + ijk[1]) * (nx + 1) + ijk[0];
  };
  mesh.nodes.reserve(static_cast<std::size_t>(nx + 1) * (ny + 1) * (nz + 1));
  // The perturbation draws random numbers node by node, in node order: this loop must stay serial.
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        const int ijk[3] = {i, j, k};
        double xyz[3];
        for (int d = 0; d < 3; ++d) xyz[d] = ijk[d] == n[d] ? length[d] : length[d] * ijk[d] / n[d];
        Point3 p{xyz[0], xyz[1], xyz[2]};
        if (amplitude > 0 && i > 0 && i < nx && j > 0 && j < ny && k > 0 && k < nz) {
          // Uniform in a ball of radius `amplitude`, the bound the validity argument needs.
          const double radius = amplitude * std::cbrt(unit_uniform(random));
          const double cos_polar = 2 * unit_uniform(random) - 1;
          const double azimuth = 2 * std::numbers::pi * unit_uniform(random);
          const double sin_polar = std::sqrt(std::max(0.0, 1 - cos_polar * cos_polar));
          p.x += radius * sin_polar * std::cos(azimuth);
          p.y += radius * sin_polar * std::sin(azimuth);
          p.z += radius * cos_polar;
        }
        mesh.nodes.push_back(p);
      }
  // Kuhn (Freudenthal) split: one tetrahedron per monotone path from the cell's lowest corner to
  // its highest, one axis step at a time. Every cell face is then cut along the diagonal from its
  // lowest to its highest corner, the same from both neighbouring cells, so the mesh conforms.
  constexpr int axis_orders[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        if (hexahedra) {  // Gmsh's vertex order: the bottom face counter-clockwise, then the top
          constexpr int corners[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
          index_t hex[8];
          for (int c = 0; c < 8; ++c) hex[c] = node({i + corners[c][0], j + corners[c][1], k + corners[c][2]});
          mesh.add_element(ElementType::hexahedron8, hex);
          continue;
        }
        for (int p = 0; p < 6; ++p) {
          std::array<int, 3> corner{i, j, k};
          index_t tet[4];
          tet[0] = node(corner);
          for (int step = 0; step < 3; ++step) {
            ++corner[axis_orders[p][step]];
            tet[step + 1] = node(corner);
          }
          // The path's signed volume is the sign of its axis permutation; odd ones are mirrored.
          if (p >= 3) std::swap(tet[1], tet[2]);
          mesh.add_element(ElementType::tetrahedron4, tet);
        }
      }
  const char* names[3][2] = {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}};
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    for (int side = 0; side < 2; ++side) {
      const int tag = mesh.tag_id(names[axis][side]);
      for (int b = 0; b < n[v]; ++b)
        for (int a = 0; a < n[u]; ++a) {
          const auto corner = [&](int da, int db) {
            std::array<int, 3> ijk{};
            ijk[axis] = side * n[axis];
            ijk[u] = a + da;
            ijk[v] = b + db;
            return node(ijk);
          };
          const index_t low = corner(0, 0), high = corner(1, 1);
          if (hexahedra) {
            TaggedFacet facet;
            facet.vertices = {low, corner(1, 0), high, corner(0, 1)};
            facet.n_vertices = 4;
            facet.tag = tag;
            mesh.tagged_facets.push_back(facet);
            continue;
          }
          for (const index_t middle : {corner(1, 0), corner(0, 1)}) {
            TaggedFacet facet;
            facet.vertices = {low, middle, high, -1};
            facet.n_vertices = 3;
            facet.tag = tag;
            mesh.tagged_facets.push_back(facet);
          }
        }
    }
  }
  mesh.source = cat("builtin:box(", number(lx), " x ", number(ly), " x ", number(lz), ", ", nx, " x ", ny, " x ", nz,
                    hexahedra ? " hexahedra" : " cells of 6 tetrahedra",
                    perturbation > 0 ? cat(", perturbation ", number(perturbation), ", seed ", seed) : "", ")");
  return mesh;
}

}  // namespace

Mesh box_tetrahedra(double lx, double ly, double lz, int nx, int ny, int nz, double perturbation, std::uint64_t seed) {
  return box(lx, ly, lz, nx, ny, nz, false, perturbation, seed);
}

Mesh box_hexahedra(double lx, double ly, double lz, int nx, int ny, int nz, double perturbation, std::uint64_t seed) {
  return box(lx, ly, lz, nx, ny, nz, true, perturbation, seed);
}

Mesh curved_annulus(const Mesh& straight, int order) {
  if (order < 1 || order > 4) throw InputError(cat("generator: annulus order ", order, " is out of range (1..4)"));
  if (order == 1) return straight;
  for (index_t e = 0; e < straight.n_elements(); ++e)
    if (straight.element_types[e] != ElementType::triangle3)
      throw InputError(cat("generator: curving needs a mesh of 3-node triangles; ", straight.element_label(e), " is a ",
                           type_name(straight.element_types[e])));
  // Elevated in (r, theta), where the arcs are straight: nothing to project onto circles there.
  Mesh polar = straight;
  polar.boundary_circles.clear();
  map_nodes(polar, [](Point3 x) { return Point3{std::hypot(x.x, x.y), std::atan2(x.y, x.x), 0}; });
  Mesh mesh = elevate_order(polar, order);
  // The straight mesh's nodes keep their exact coordinates (zeros on the axes); the new ones,
  // which follow them, go through the polar map.
  std::copy(straight.nodes.begin(), straight.nodes.end(), mesh.nodes.begin());
  std::transform(mesh.nodes.begin() + straight.n_nodes(), mesh.nodes.end(), mesh.nodes.begin() + straight.n_nodes(),
                 [](Point3 polar_point) {
                   return Point3{polar_point.x * std::cos(polar_point.y), polar_point.x * std::sin(polar_point.y), 0};
                 });
  mesh.boundary_circles = straight.boundary_circles;
  mesh.element_file_tags.clear();
  mesh.source = cat(straight.source, " with its triangles of order ", order, " through the polar map");
  return mesh;
}

Mesh curved_quarter_annulus(int order, double r_inner, double r_outer, int n_radial, int n_angular) {
  return curved_annulus(quarter_annulus(r_inner, r_outer, n_radial, n_angular), order);
}

Mesh refine_uniform(const Mesh& mesh) {
  if (mesh.dimension != 2)
    throw InputError(cat("refine_uniform: mesh ", mesh.source, " is ", mesh.dimension,
                         "D; only 2D meshes can be refined"));
  for (index_t e = 0; e < mesh.n_elements(); ++e)
    if (geometric_order(mesh.element_types[e]) > 1)
      throw InputError(cat("refine_uniform: ", mesh.source, " has curved elements (", mesh.element_label(e), " is a ",
                           type_name(mesh.element_types[e]), "); refine the straight mesh before curving it",
                           " (builtin:annulus?order=3&refine=2)"));
  Mesh fine;
  fine.dimension = 2;
  fine.nodes = mesh.nodes;
  fine.boundary_names = mesh.boundary_names;
  fine.boundary_circles = mesh.boundary_circles;
  fine.source = cat("refine(", mesh.source, ")");

  // Keyed by the sorted end points, so both neighbours of an edge get the same midpoint.
  std::unordered_map<index_t, index_t> midpoints;
  midpoints.reserve(static_cast<std::size_t>(2 * mesh.n_elements() + mesh.tagged_facets.size()));
  const index_t n_coarse = mesh.n_nodes();
  const auto edge_key = [n_coarse](index_t a, index_t b) {
    return std::min(a, b) * n_coarse + std::max(a, b);
  };
  const auto midpoint = [&](index_t a, index_t b) {
    const auto [it, inserted] = midpoints.try_emplace(edge_key(a, b), fine.n_nodes());
    if (inserted) fine.nodes.push_back(0.5 * (mesh.nodes[a] + mesh.nodes[b]));
    return it->second;
  };

  fine.element_types.reserve(4 * mesh.element_types.size());
  fine.element_nodes.reserve(4 * mesh.element_nodes.size() + 4);
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const index_t* v = mesh.element_node_ids(e);
    const ElementType type = mesh.element_types[e];
    if (type == ElementType::triangle3) {
      const index_t m01 = midpoint(v[0], v[1]), m12 = midpoint(v[1], v[2]), m20 = midpoint(v[2], v[0]);
      const index_t children[4][3] = {
          {v[0], m01, m20}, {m01, v[1], m12}, {m20, m12, v[2]}, {m01, m12, m20}};
      for (const auto& child : children) fine.add_element(type, child);
    } else if (type == ElementType::quadrilateral4) {
      index_t m[4];
      for (int k = 0; k < 4; ++k) m[k] = midpoint(v[k], v[(k + 1) % 4]);
      const index_t center = fine.n_nodes();
      fine.nodes.push_back(0.25 * (mesh.nodes[v[0]] + mesh.nodes[v[1]] + mesh.nodes[v[2]] +
                                   mesh.nodes[v[3]]));
      const index_t children[4][4] = {{v[0], m[0], center, m[3]},
                                      {m[0], v[1], m[1], center},
                                      {center, m[1], v[2], m[2]},
                                      {m[3], center, m[2], v[3]}};
      for (const auto& child : children) fine.add_element(type, child);
    } else {
      throw InputError(cat("refine_uniform: element ", e, " of mesh ", mesh.source, " is a ",
                           type_name(type), "; only triangle3 and quadrilateral4 can be refined"));
    }
  }

  fine.tagged_facets.reserve(2 * mesh.tagged_facets.size());
  for (const TaggedFacet& facet : mesh.tagged_facets) {
    const index_t a = facet.vertices[0], b = facet.vertices[1];
    const auto found = midpoints.find(edge_key(a, b));
    if (facet.n_vertices != 2 || found == midpoints.end())
      throw InputError(cat("refine_uniform: tagged facet (", a, ", ", b, ") of mesh ", mesh.source,
                           " is not an element edge"));
    const index_t m = found->second;
    for (const BoundaryCircle& circle : mesh.boundary_circles) {
      if (circle.tag != facet.tag) continue;
      const Point3 offset = fine.nodes[m] - circle.center;
      fine.nodes[m] = circle.center + (circle.radius / std::sqrt(dot(offset, offset))) * offset;
    }
    for (const auto& [from, to] : {std::pair{a, m}, std::pair{m, b}}) {
      TaggedFacet half = facet;
      half.vertices = {from, to, -1, -1};
      fine.tagged_facets.push_back(half);
    }
  }
  return fine;
}

}  // namespace flowdg
