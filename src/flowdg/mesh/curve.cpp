#include "flowdg/mesh/curve.hpp"

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>

#include "flowdg/core/error.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/mesh/cad.hpp"
// GCC 12 at -O3 reports a std::vector<double>'s destructor in curve_mesh as freeing a non-heap
// pointer (-Wfree-nonheap-object, a known false positive of its inlined allocator paths; clang and
// the sanitizer build are silent).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#endif
#include "flowdg/mesh/elevate.hpp"
#include "flowdg/mesh/lagrange.hpp"

namespace flowdg {

namespace {

double norm(Point3 a) { return std::sqrt(dot(a, a)); }
double component(Point3 p, int d) { return d == 0 ? p.x : d == 1 ? p.y : p.z; }
Point3 with_component(Point3 p, int d, double value) {
  (d == 0 ? p.x : d == 1 ? p.y : p.z) = value;
  return p;
}
std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}
std::string where(Point3 p) { return cat("(", short_number(p.x), ", ", short_number(p.y), ", ", short_number(p.z), ")"); }

/// NACA 4-digit half thickness over the chord at x/c in [0, 1] (closed trailing edge).
double naca_half_thickness(double x, double thickness) {
  return 5 * thickness * (0.2969 * std::sqrt(x) - 0.1260 * x - 0.3516 * x * x + 0.2843 * x * x * x - 0.1036 * x * x * x * x);
}

Point3 project_naca(const TrueSurface& s, Point3 p) {
  const double X = (p.x - s.center.x) / s.chord, Y = (p.y - s.center.y) / s.chord;
  const double side = Y < 0 ? -1.0 : 1.0;
  // x/c = t^2 takes the leading edge's square root away; the distance squared is smooth in t.
  const auto distance2 = [&](double t) {
    const double x = t * t, y = side * naca_half_thickness(x, s.thickness);
    return (x - X) * (x - X) + (y - Y) * (y - Y);
  };
  const int samples = 400;
  int best = 0;
  for (int i = 1; i <= samples; ++i)
    if (distance2(static_cast<double>(i) / samples) < distance2(static_cast<double>(best) / samples)) best = i;
  double a = std::max(0, best - 1) / static_cast<double>(samples), b = std::min(samples, best + 1) / static_cast<double>(samples);
  const double golden = (std::sqrt(5.0) - 1) / 2;
  for (int iteration = 0; iteration < 80; ++iteration) {
    const double c = b - golden * (b - a), d = a + golden * (b - a);
    if (distance2(c) < distance2(d))
      b = d;
    else
      a = c;
  }
  const double t = (a + b) / 2, x = t * t;
  return {s.center.x + s.chord * x, s.center.y + s.chord * side * naca_half_thickness(x, s.thickness), p.z};
}

/// det of the top-left dim x dim block, and its inverse.
double invert(const double (&m)[3][3], int dim, double (&inverse)[3][3]) {
  if (dim == 2) {
    const double det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    inverse[0][0] = m[1][1] / det;
    inverse[0][1] = -m[0][1] / det;
    inverse[1][0] = -m[1][0] / det;
    inverse[1][1] = m[0][0] / det;
    return det;
  }
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      inverse[i][j] = (m[i1][j1] * m[i2][j2] - m[i1][j2] * m[i2][j1]) / det;
    }
  return det;
}

/// det of the straight (vertex) element's map at xi.
double straight_det(const Mesh& mesh, index_t e, Point3 xi) {
  const ElementType linear = lagrange_type(mesh.element_shape(e), 1);
  const int nv = n_nodes(linear);
  Point3 gradients[max_element_nodes];
  double values[max_element_nodes];
  shape_functions(linear, xi, values, gradients);
  double m[3][3] = {};
  const index_t* ids = mesh.element_node_ids(e);
  for (int v = 0; v < nv; ++v) {
    const Point3 x = mesh.nodes[static_cast<std::size_t>(ids[v])], g = gradients[v];
    const double xs[3] = {x.x, x.y, x.z}, gs[3] = {g.x, g.y, g.z};
    for (int d = 0; d < 3; ++d)
      for (int r = 0; r < 3; ++r) m[d][r] += xs[d] * gs[r];
  }
  double inverse[3][3];
  return invert(m, mesh.dimension, inverse);
}

/// For every tagged facet of the listed names, the nodes of its element that lie on it.
std::map<int, std::vector<index_t>> facet_nodes_by_tag(const Mesh& mesh, const std::vector<int>& tags,
                                                       const std::vector<std::vector<index_t>>& elements_of_node) {
  std::map<int, std::vector<index_t>> nodes;
  for (const TaggedFacet& facet : mesh.tagged_facets)
    if (std::find(tags.begin(), tags.end(), facet.tag) != tags.end())
      for (const index_t node : facet_nodes(mesh, facet, elements_of_node)) nodes[facet.tag].push_back(node);
  for (auto& [tag, list] : nodes) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return nodes;
}

Point3 centroid(const Mesh& mesh, index_t e) {
  const int corners = n_nodes(lagrange_type(mesh.element_shape(e), 1));
  Point3 sum{};
  for (int v = 0; v < corners; ++v) sum = sum + mesh.nodes[static_cast<std::size_t>(mesh.element_node_ids(e)[v])];
  return (1.0 / corners) * sum;
}

}  // namespace

Point3 TrueSurface::project(Point3 x) const {
  switch (kind) {
    case Kind::sphere: {
      const Point3 d = x - center;
      return center + (radius / norm(d)) * d;
    }
    case Kind::cylinder: {
      const Point3 a = (1.0 / norm(axis)) * axis;
      const Point3 d = x - center;
      const Point3 along = dot(d, a) * a, across = d - along;
      return center + along + (radius / norm(across)) * across;
    }
    case Kind::naca4:
      return project_naca(*this, x);
    case Kind::cad:
      return cad_closest_point(file, surfaces, x);
  }
  return x;
}

TrueSurface parse_true_surface(const std::string& spec) {
  const std::string usage =
      "(NAME=sphere:cx,cy,cz,r, NAME=cylinder:cx,cy,cz,ax,ay,az,r, NAME=circle:cx,cy,r, NAME=naca:0012,cx,cy,chord or "
      "NAME=cad:FILE[,surface tags])";
  const std::size_t equals = spec.find('='), colon = spec.find(':', equals == std::string::npos ? 0 : equals);
  if (equals == std::string::npos || equals == 0 || colon == std::string::npos)
    throw InputError(cat("wall '", spec, "': expected NAME=KIND:numbers ", usage));
  TrueSurface surface;
  surface.tag = spec.substr(0, equals);
  const std::string kind = spec.substr(equals + 1, colon - equals - 1);
  std::vector<std::string> fields;
  for (std::size_t start = colon + 1;;) {
    const std::size_t comma = spec.find(',', start);
    fields.push_back(spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const auto number = [&](std::size_t i) {
    const std::string& text = fields[i];
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value))
      throw InputError(cat("wall '", spec, "': '", text, "' is not a number"));
    return value;
  };
  const auto expect = [&](std::size_t n) {
    if (fields.size() != n) throw InputError(cat("wall '", spec, "': a ", kind, " takes ", n, " numbers, not ", fields.size(), " ", usage));
  };
  if (kind == "sphere") {
    expect(4);
    surface.kind = TrueSurface::Kind::sphere;
    surface.center = {number(0), number(1), number(2)};
    surface.radius = number(3);
  } else if (kind == "cylinder") {
    expect(7);
    surface.kind = TrueSurface::Kind::cylinder;
    surface.center = {number(0), number(1), number(2)};
    surface.axis = {number(3), number(4), number(5)};
    surface.radius = number(6);
    if (!(dot(surface.axis, surface.axis) > 0)) throw InputError(cat("wall '", spec, "': the cylinder's axis is zero"));
  } else if (kind == "circle") {
    expect(3);
    surface.kind = TrueSurface::Kind::cylinder;
    surface.center = {number(0), number(1), 0.0};
    surface.radius = number(2);
  } else if (kind == "cad") {
    surface.kind = TrueSurface::Kind::cad;
    surface.file = fields[0];
    if (surface.file.empty()) throw InputError(cat("wall '", spec, "': the CAD file is missing ", usage));
    for (std::size_t i = 1; i < fields.size(); ++i) {
      const double tag = number(i);
      if (tag != std::floor(tag) || tag < 1) throw InputError(cat("wall '", spec, "': '", fields[i], "' is not a surface tag"));
      surface.surfaces.push_back(static_cast<int>(tag));
    }
    return surface;
  } else if (kind == "naca") {
    expect(4);
    const std::string& digits = fields[0];
    if (digits.size() != 4 || digits.find_first_not_of("0123456789") != std::string::npos || digits[0] != '0' || digits[1] != '0')
      throw InputError(cat("wall '", spec, "': '", digits, "' is not a symmetric NACA 4-digit section (00XX)"));
    surface.kind = TrueSurface::Kind::naca4;
    surface.thickness = std::stoi(digits.substr(2)) / 100.0;
    surface.center = {number(1), number(2), 0.0};
    surface.chord = number(3);
    if (!(surface.chord > 0)) throw InputError(cat("wall '", spec, "': the chord must be positive"));
  } else {
    throw InputError(cat("wall '", spec, "': unknown shape '", kind, "' ", usage));
  }
  if (surface.kind != TrueSurface::Kind::naca4 && !(surface.radius > 0)) throw InputError(cat("wall '", spec, "': the radius must be positive"));
  return surface;
}

double min_scaled_jacobian(const Mesh& mesh, index_t* worst) {
  double lowest = std::numeric_limits<double>::infinity();
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const QuadratureRule rule = quadrature_rule(mesh.element_shape(e), 2 * geometric_order(mesh.element_types[e]));
    for (const Point3& xi : rule.points) {
      // Over |det| of the straight element: an element whose vertices themselves folded reads negative.
      const double ratio = element_jacobian(mesh, e, xi).det / std::abs(straight_det(mesh, e, xi));
      if (ratio < lowest) {
        lowest = ratio;
        if (worst != nullptr) *worst = e;
      }
    }
  }
  return lowest;
}

Mesh curve_mesh(const Mesh& straight, const std::vector<TrueSurface>& walls, const CurvingOptions& options, CurvingReport* report) {
  if (options.order < 2 || options.order > 4)
    throw InputError(cat("mesh curving: order ", options.order, " is out of range (2..4: the curved mesh's geometric order)"));
  if (!(options.poisson >= 0 && options.poisson < 0.5))
    throw InputError(cat("mesh curving: Poisson ratio ", options.poisson, " is out of range [0, 0.5)"));
  if (walls.empty()) throw InputError("mesh curving: no wall to curve (give its tag and true shape)");
  Mesh mesh = elevate_order(straight, options.order);
  const int dim = mesh.dimension;
  const index_t n_nodes_total = mesh.n_nodes();
  const std::vector<std::vector<index_t>> elements_of_node = elements_of_nodes(mesh);

  // The walls' nodes and their displacements (projection onto the true shape).
  std::vector<int> wall_tags, sliding_tags;
  for (const TrueSurface& wall : walls) wall_tags.push_back(mesh.require_tag(wall.tag));
  for (const std::string& name : options.sliding) sliding_tags.push_back(mesh.require_tag(name));
  const auto wall_nodes = facet_nodes_by_tag(mesh, wall_tags, elements_of_node);
  const auto sliding_nodes = facet_nodes_by_tag(mesh, sliding_tags, elements_of_node);
  std::vector<char> fixed(static_cast<std::size_t>(n_nodes_total) * 3, 0);
  std::vector<double> value(static_cast<std::size_t>(n_nodes_total) * 3, 0.0);
  std::vector<char> on_wall(static_cast<std::size_t>(n_nodes_total), 0);
  // Sliding planes: the component along the plane's normal (an axis) is zero; a wall node on one
  // moves within it (below).
  std::vector<int> plane_axes(static_cast<std::size_t>(n_nodes_total), 0);  // bit d: on a plane normal to axis d
  for (const auto& [tag, list] : sliding_nodes) {
    int axis = -1;
    for (int d = 0; d < dim && axis < 0; ++d) {
      bool flat = true;
      for (const index_t node : list)
        flat = flat && std::abs(component(mesh.nodes[static_cast<std::size_t>(node)], d) - component(mesh.nodes[static_cast<std::size_t>(list.front())], d)) < 1e-10;
      if (flat) axis = d;
    }
    if (axis < 0)
      throw InputError(cat("mesh curving: the sliding plane '", mesh.boundary_names[static_cast<std::size_t>(tag)],
                           "' is not a plane normal to x, y or z"));
    for (const index_t node : list) {
      plane_axes[static_cast<std::size_t>(node)] |= 1 << axis;
      fixed[static_cast<std::size_t>(node) * 3 + axis] = 1;
    }
  }
  CurvingReport local;
  for (std::size_t w = 0; w < walls.size(); ++w) {
    const auto found = wall_nodes.find(wall_tags[w]);
    if (found == wall_nodes.end()) throw InputError(cat("mesh curving: the wall '", walls[w].tag, "' has no facets in ", mesh.source));
    for (const index_t node : found->second) {
      const Point3 x = mesh.nodes[static_cast<std::size_t>(node)];
      Point3 target = walls[w].project(x);
      if (const int axes = plane_axes[static_cast<std::size_t>(node)]; axes != 0) {
        // On sliding planes too: onto the wall's trace in them, by alternating projections.
        const auto onto_planes = [&](Point3 p) {
          for (int d = 0; d < 3; ++d)
            if (axes & (1 << d)) p = with_component(p, d, component(x, d));
          return p;
        };
        for (int iteration = 0; iteration < 200; ++iteration) target = walls[w].project(onto_planes(target));
        target = onto_planes(target);
        const Point3 off = walls[w].project(target) - target;
        if (norm(off) > 1e-10 * (1 + norm(x)))
          throw InputError(cat("mesh curving: the wall '", walls[w].tag, "' does not meet its sliding plane at ", where(x)));
      }
      const Point3 g = target - x;
      local.largest_wall_move = std::max(local.largest_wall_move, norm(g));
      const double gs[3] = {g.x, g.y, g.z};
      for (int d = 0; d < 3; ++d) {
        fixed[static_cast<std::size_t>(node) * 3 + d] = 1;
        value[static_cast<std::size_t>(node) * 3 + d] = gs[d];
      }
      on_wall[static_cast<std::size_t>(node)] = 1;
    }
  }
  for (const char flag : on_wall) local.wall_nodes += flag;
  // Every other boundary (far field, inflow, ...) stays where it is, but for its sliding planes.
  std::vector<int> other_tags;
  for (int tag = 0; tag < static_cast<int>(mesh.boundary_names.size()); ++tag)
    if (std::find(wall_tags.begin(), wall_tags.end(), tag) == wall_tags.end() &&
        std::find(sliding_tags.begin(), sliding_tags.end(), tag) == sliding_tags.end())
      other_tags.push_back(tag);
  for (const auto& [tag, list] : facet_nodes_by_tag(mesh, other_tags, elements_of_node))
    for (const index_t node : list)
      if (!on_wall[static_cast<std::size_t>(node)])
        for (int d = 0; d < dim; ++d) fixed[static_cast<std::size_t>(node) * 3 + d] = 1;
  // The sub-mesh.
  std::vector<char> curve(static_cast<std::size_t>(mesh.n_elements()), 1);
  if (options.layers > 0) {
    std::vector<char> layer(static_cast<std::size_t>(mesh.n_elements()), 0), touched = on_wall;
    for (int round = 0; round < options.layers; ++round) {
      std::vector<char> next = touched;
      for (index_t e = 0; e < mesh.n_elements(); ++e) {
        if (layer[static_cast<std::size_t>(e)]) continue;
        bool touches = false;
        for (int n = 0; n < mesh.element_n_nodes(e) && !touches; ++n) touches = touched[static_cast<std::size_t>(mesh.element_node_ids(e)[n])];
        if (!touches) continue;
        layer[static_cast<std::size_t>(e)] = 1;
        for (int n = 0; n < mesh.element_n_nodes(e); ++n) next[static_cast<std::size_t>(mesh.element_node_ids(e)[n])] = 1;
      }
      touched = next;
    }
    curve = layer;
  }
  if (options.box) {
    const auto [low, high] = *options.box;
    for (index_t e = 0; e < mesh.n_elements(); ++e) {
      const Point3 c = centroid(mesh, e);
      const bool inside = c.x >= low.x && c.x <= high.x && c.y >= low.y && c.y <= high.y && (dim == 2 || (c.z >= low.z && c.z <= high.z));
      curve[static_cast<std::size_t>(e)] = curve[static_cast<std::size_t>(e)] && inside;
    }
  }
  std::vector<char> in_submesh(static_cast<std::size_t>(n_nodes_total), 0), outside(static_cast<std::size_t>(n_nodes_total), 0);
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    auto& mark = curve[static_cast<std::size_t>(e)] ? in_submesh : outside;
    for (int n = 0; n < mesh.element_n_nodes(e); ++n) mark[static_cast<std::size_t>(mesh.element_node_ids(e)[n])] = 1;
    local.curved_elements += curve[static_cast<std::size_t>(e)];
  }
  for (index_t node = 0; node < n_nodes_total; ++node) {
    if (on_wall[static_cast<std::size_t>(node)] && !in_submesh[static_cast<std::size_t>(node)])
      throw InputError(cat("mesh curving: a node of the wall at ", where(mesh.nodes[static_cast<std::size_t>(node)]),
                           " lies outside the elements to curve (widen the box)"));
    // The sub-mesh's outer boundary stays where it is.
    if (in_submesh[static_cast<std::size_t>(node)] && outside[static_cast<std::size_t>(node)] && !on_wall[static_cast<std::size_t>(node)])
      for (int d = 0; d < dim; ++d) fixed[static_cast<std::size_t>(node) * 3 + d] = 1, value[static_cast<std::size_t>(node) * 3 + d] = 0;
  }

  // Unknowns: the free components of the sub-mesh's nodes.
  std::vector<index_t> unknown(static_cast<std::size_t>(n_nodes_total) * 3, -1);
  index_t n_unknowns = 0;
  for (index_t node = 0; node < n_nodes_total; ++node)
    if (in_submesh[static_cast<std::size_t>(node)])
      for (int d = 0; d < dim; ++d)
        if (!fixed[static_cast<std::size_t>(node) * 3 + d]) unknown[static_cast<std::size_t>(node) * 3 + d] = n_unknowns++;
  local.unknowns = n_unknowns;

  // Assembly: K_ab,ij = int lambda dN_a/dx_i dN_b/dx_j + mu (dN_a/dx_j dN_b/dx_i + delta_ij grad N_a . grad N_b) (E = 1).
  const double nu = options.poisson, lambda = nu / ((1 + nu) * (1 - 2 * nu)), mu = 1 / (2 * (1 + nu));
  std::vector<Eigen::Triplet<double>> entries;
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n_unknowns);
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    if (!curve[static_cast<std::size_t>(e)]) continue;
    const ElementType type = mesh.element_types[e];
    const int nn = mesh.element_n_nodes(e);
    const index_t* ids = mesh.element_node_ids(e);
    const QuadratureRule rule = quadrature_rule(mesh.element_shape(e), 2 * options.order);
    std::vector<double> k(static_cast<std::size_t>(nn * dim) * static_cast<std::size_t>(nn * dim), 0.0);
    double values[max_element_nodes];
    Point3 gradients[max_element_nodes];
    double g[max_element_nodes][3];
    for (int q = 0; q < rule.size(); ++q) {
      const ElementJacobian jacobian = element_jacobian(mesh, e, rule.points[static_cast<std::size_t>(q)]);
      double inverse[3][3];
      const double det = invert(jacobian.matrix, dim, inverse);
      if (!(det > 0)) throw InputError(cat("mesh curving: ", mesh.element_label(e), " of ", mesh.source, " is inverted before curving"));
      shape_functions(type, rule.points[static_cast<std::size_t>(q)], values, gradients);
      for (int a = 0; a < nn; ++a) {
        const double gr[3] = {gradients[a].x, gradients[a].y, gradients[a].z};
        for (int d = 0; d < dim; ++d) {
          g[a][d] = 0;
          for (int r = 0; r < dim; ++r) g[a][d] += inverse[r][d] * gr[r];
        }
      }
      const double w = rule.weights[static_cast<std::size_t>(q)] * det;
      for (int a = 0; a < nn; ++a)
        for (int b = 0; b < nn; ++b) {
          double dotted = 0;
          for (int d = 0; d < dim; ++d) dotted += g[a][d] * g[b][d];
          for (int i = 0; i < dim; ++i)
            for (int j = 0; j < dim; ++j)
              k[static_cast<std::size_t>(a * dim + i) * static_cast<std::size_t>(nn * dim) + static_cast<std::size_t>(b * dim + j)] +=
                  w * (lambda * g[a][i] * g[b][j] + mu * (g[a][j] * g[b][i] + (i == j ? dotted : 0.0)));
        }
    }
    for (int a = 0; a < nn; ++a)
      for (int i = 0; i < dim; ++i) {
        const index_t row = unknown[static_cast<std::size_t>(ids[a]) * 3 + i];
        if (row < 0) continue;
        for (int b = 0; b < nn; ++b)
          for (int j = 0; j < dim; ++j) {
            const double entry = k[static_cast<std::size_t>(a * dim + i) * static_cast<std::size_t>(nn * dim) + static_cast<std::size_t>(b * dim + j)];
            const index_t column = unknown[static_cast<std::size_t>(ids[b]) * 3 + j];
            if (column >= 0)
              entries.emplace_back(static_cast<int>(row), static_cast<int>(column), entry);
            else
              rhs[row] -= entry * value[static_cast<std::size_t>(ids[b]) * 3 + j];
          }
      }
  }
  Eigen::VectorXd solution = Eigen::VectorXd::Zero(n_unknowns);
  if (n_unknowns > 0) {
    Eigen::SparseMatrix<double> matrix(n_unknowns, n_unknowns);
    matrix.setFromTriplets(entries.begin(), entries.end());
    // Conjugate gradients with the diagonal (Jacobi) preconditioner, to 1e-12 relative residual:
    // on the sphere's order-4 shell (39,498 unknowns, 7.7M nonzeros) 771 iterations, 1.7 s, where
    // the sparse LDL^T factorisation took 45 s (its fill on a 3D P4 stiffness matrix), and the
    // ONERA M6 at order 3 (639,858 unknowns) 234 iterations, 9.7 s, where LDL^T ran out of patience
    // after 17 minutes. The system is symmetric positive definite (Dirichlet rows removed), so CG
    // converges; should it stall, the factorisation takes over.
    Eigen::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper> cg;
    cg.setTolerance(1e-12);
    cg.setMaxIterations(std::max<Eigen::Index>(2000, 20 * static_cast<Eigen::Index>(std::sqrt(static_cast<double>(n_unknowns)))));
    cg.compute(matrix);
    solution = cg.solve(rhs);
    if (cg.info() != Eigen::Success) {
      Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver(matrix);
      if (solver.info() != Eigen::Success)
        throw InputError(cat("mesh curving: the elasticity system of ", mesh.source, " is singular (a sub-mesh part with no fixed node?)"));
      solution = solver.solve(rhs);
    }
  }

  // Move the nodes.
  for (index_t node = 0; node < n_nodes_total; ++node) {
    if (!in_submesh[static_cast<std::size_t>(node)] && !on_wall[static_cast<std::size_t>(node)]) continue;
    double u[3] = {};
    for (int d = 0; d < dim; ++d) {
      const index_t at = unknown[static_cast<std::size_t>(node) * 3 + d];
      u[d] = at >= 0 ? solution[at] : value[static_cast<std::size_t>(node) * 3 + d];
    }
    mesh.nodes[static_cast<std::size_t>(node)] = mesh.nodes[static_cast<std::size_t>(node)] + Point3{u[0], u[1], u[2]};
  }

  index_t worst = -1;
  local.min_scaled_jacobian = min_scaled_jacobian(mesh, &worst);
  local.worst_element = worst;
  if (report != nullptr) *report = local;
  if (!(local.min_scaled_jacobian > 0))
    throw InputError(cat("mesh curving inverts ", mesh.element_label(worst), " of ", mesh.source, " near ", where(centroid(mesh, worst)),
                         " (det J / det J of the straight element down to ", short_number(local.min_scaled_jacobian), "): curve more layers (",
                         options.layers > 0 ? cat("layers = ", options.layers + 2) : std::string("a larger box"),
                         ") or try another Poisson ratio (", short_number(options.poisson), " now)"));
  return mesh;
}

}  // namespace flowdg
