#include "flowdg/mesh/mesh_info.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>

#include "flowdg/core/error.hpp"
#include "flowdg/io/json.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/elevate.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"

namespace flowdg {

const char* const mesh_spec_help =
    "A mesh is a Gmsh file (.msh, format 2.2 or 4.1) or a built-in generator\n"
    "'builtin:NAME?key=value&key=value':\n"
    "  builtin:annulus    quarter annulus of the supersonic vortex; default = mesh A of Fuhry et\n"
    "                     al. 2015 (180 triangles). Keys: r_inner=1, r_outer=1.384, n_radial=5,\n"
    "                     n_angular=18, refine=0 (refine=1..5 give meshes B..F), order=1 (2..4:\n"
    "                     triangles of that geometric order, the walls' nodes on the circles)\n"
    "  builtin:rectangle  [x0,x1] x [y0,y1]. Keys: x0=0, x1=1, y0=0, y1=1, nx=10, ny=10,\n"
    "                     cells=triangles|quadrilaterals, perturbation=0 (of the cell size, <= 0.3),\n"
    "                     seed=1, refine=0, order=1 (2..4: elements of that geometric order, their\n"
    "                     new nodes at the straight positions, e.g. to deform the mesh later)\n"
    "  builtin:box        [0,lx] x [0,ly] x [0,lz], tags xmin, xmax, ymin, ymax, zmin, zmax. Keys:\n"
    "                     lx=1, ly=1, lz=1, n=4 (or nx, ny, nz), cells=tetrahedra (6 per cube cell)\n"
    "                     or hexahedra, perturbation=0 (random moves of the nodes off the boundary,\n"
    "                     of the smallest cell side, <= 0.28), seed=1, order=1 (2..4 for\n"
    "                     tetrahedra, 2 for hexahedra)\n"
    "  builtin:double-mach [0,4] x [0,1] in 8 ny^2 triangles (perturbed), tags left, right, top,\n"
    "                     bottom-inflow (x < 1/6), wall. Keys: ny=30 (a multiple of 6),\n"
    "                     perturbation=0.25, seed=1. ny = 90, 180, 360 give about the 2015 paper's\n"
    "                     double Mach meshes A, B, C (64,800, 259,200, 1,036,800 triangles)\n"
    "Examples: builtin:annulus?refine=2&order=3, builtin:rectangle?nx=10&ny=5,\n"
    "          builtin:box?n=4&cells=hexahedra&order=2, builtin:box?n=6&perturbation=0.2&seed=7";

namespace {

constexpr std::string_view builtin_prefix = "builtin:";

// The "key=value" pairs of a built-in spec; every key must be one the generator knows.
class Parameters {
 public:
  Parameters(const std::string& spec, std::string_view query, std::set<std::string> known)
      : spec_(spec) {
    while (!query.empty()) {
      const std::string_view pair = query.substr(0, query.find('&'));
      query.remove_prefix(std::min(query.size(), pair.size() + 1));
      const auto equals = pair.find('=');
      const std::string key(pair.substr(0, equals));
      if (equals == std::string_view::npos || !known.contains(key)) {
        std::string names;
        for (const auto& name : known) names += (names.empty() ? "" : ", ") + name;
        throw InputError(cat("mesh spec '", spec, "': '", pair, "' is not key=value with a known key (",
                             names, ")"));
      }
      values_[key] = std::string(pair.substr(equals + 1));
    }
  }

  template <class T>
  T get(const std::string& key, T fallback) const {
    const auto found = values_.find(key);
    if (found == values_.end()) return fallback;
    const std::string& text = found->second;
    T value{};
    const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (status != std::errc() || end != text.data() + text.size())
      throw InputError(cat("mesh spec '", spec_, "': ", key, "=", text, " is not ",
                           std::is_integral_v<T> ? "an integer" : "a number"));
    return value;
  }

  std::string text(const std::string& key, const std::string& fallback) const {
    const auto found = values_.find(key);
    return found == values_.end() ? fallback : found->second;
  }

 private:
  std::string spec_;
  std::map<std::string, std::string> values_;
};

Mesh refined(Mesh mesh, const std::string& spec, int times) {
  if (times < 0) throw InputError(cat("mesh spec '", spec, "': refine must be >= 0"));
  for (int level = 0; level < times; ++level) mesh = refine_uniform(mesh);
  return mesh;
}

Mesh elevated(const Mesh& mesh, const std::string& spec, int order) {
  try {
    return elevate_order(mesh, order);
  } catch (const InputError& error) {
    throw InputError(cat("mesh spec '", spec, "': ", error.what()));
  }
}

Mesh builtin_mesh(const std::string& spec) {
  const std::string_view rest = std::string_view(spec).substr(builtin_prefix.size());
  const std::string name(rest.substr(0, rest.find('?')));
  const std::string_view query = name.size() < rest.size() ? rest.substr(name.size() + 1) : "";
  if (name == "annulus") {
    const Parameters p(spec, query, {"r_inner", "r_outer", "n_radial", "n_angular", "refine", "order"});
    return curved_annulus(refined(quarter_annulus(p.get("r_inner", 1.0), p.get("r_outer", 1.384),
                                                  p.get("n_radial", 5), p.get("n_angular", 18)),
                                  spec, p.get("refine", 0)),
                          p.get("order", 1));
  }
  if (name == "rectangle") {
    const Parameters p(spec, query,
                       {"x0", "x1", "y0", "y1", "nx", "ny", "cells", "perturbation", "seed", "refine", "order"});
    const double x0 = p.get("x0", 0.0), x1 = p.get("x1", 1.0), y0 = p.get("y0", 0.0), y1 = p.get("y1", 1.0);
    const int nx = p.get("nx", 10), ny = p.get("ny", 10);
    const double perturbation = p.get("perturbation", 0.0);
    const auto seed = p.get<std::uint64_t>("seed", 1);
    const std::string cells = p.text("cells", "triangles");
    Mesh mesh;
    if (cells == "triangles")
      mesh = rectangle_triangles(x0, x1, y0, y1, nx, ny, TriangleLayout::perturbed, perturbation, seed);
    else if (cells == "quadrilaterals")
      mesh = rectangle_quadrilaterals(x0, x1, y0, y1, nx, ny, perturbation, seed);
    else
      throw InputError(cat("mesh spec '", spec, "': cells must be triangles or quadrilaterals, not '",
                           cells, "'"));
    return elevated(refined(std::move(mesh), spec, p.get("refine", 0)), spec, p.get("order", 1));
  }
  if (name == "box") {
    const Parameters p(spec, query,
                       {"lx", "ly", "lz", "n", "nx", "ny", "nz", "cells", "perturbation", "seed", "order"});
    const int n = p.get("n", 4);
    const std::string cells = p.text("cells", "tetrahedra");
    if (cells != "tetrahedra" && cells != "hexahedra")
      throw InputError(cat("mesh spec '", spec, "': cells must be tetrahedra or hexahedra, not '", cells, "'"));
    // The vertices are perturbed before elevation, so the new nodes of order >= 2 follow them.
    return elevated((cells == "hexahedra" ? box_hexahedra : box_tetrahedra)(
                        p.get("lx", 1.0), p.get("ly", 1.0), p.get("lz", 1.0), p.get("nx", n), p.get("ny", n),
                        p.get("nz", n), p.get("perturbation", 0.0), p.get<std::uint64_t>("seed", 1)),
                    spec, p.get("order", 1));
  }
  if (name == "double-mach") {
    // [0,4] x [0,1] with x = 1/6 on a node, so the bottom splits exactly into the post-shock
    // inflow part (x < 1/6) and the reflecting wall.
    const Parameters p(spec, query, {"ny", "perturbation", "seed"});
    const int ny = p.get("ny", 30);
    if (ny < 6 || ny % 6 != 0) throw InputError(cat("mesh spec '", spec, "': ny must be a positive multiple of 6"));
    Mesh mesh = rectangle_triangles(0.0, 4.0, 0.0, 1.0, 4 * ny, ny, TriangleLayout::perturbed,
                                    p.get("perturbation", 0.25), p.get<std::uint64_t>("seed", 1));
    const int bottom = mesh.require_tag("bottom");
    mesh.boundary_names[bottom] = "wall";
    const int inflow = mesh.tag_id("bottom-inflow");
    for (TaggedFacet& facet : mesh.tagged_facets)
      if (facet.tag == bottom && mesh.nodes[facet.vertices[0]].x + mesh.nodes[facet.vertices[1]].x < 2.0 / 6.0)
        facet.tag = inflow;
    return mesh;
  }
  throw InputError(cat("mesh spec '", spec, "': unknown built-in mesh '", name,
                       "' (known: annulus, rectangle, box, double-mach)"));
}


std::string json_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t k = 0; k < items.size(); ++k) out += (k == 0 ? "" : ", ") + json::quote(items[k]);
  return out + "]";
}

std::string json_counts(const std::vector<std::pair<std::string, index_t>>& counts) {
  std::string out = "{";
  for (std::size_t k = 0; k < counts.size(); ++k)
    out += cat(k == 0 ? "" : ", ", json::quote(counts[k].first), ": ", counts[k].second);
  return out + "}";
}

}  // namespace

Mesh load_mesh(const std::string& spec) {
  Mesh mesh = spec.starts_with(builtin_prefix) ? builtin_mesh(spec) : read_gmsh(spec);
  mesh.source = spec;
  return mesh;
}

MeshInfo mesh_info(Mesh& mesh) {
  MeshInfo info;
  Connectivity connectivity;
  info.report = validate_mesh(mesh, &connectivity);
  info.source = mesh.source;
  info.dimension = mesh.dimension;
  info.n_nodes = mesh.n_nodes();
  std::map<ElementType, index_t> by_type;
  for (const ElementType type : mesh.element_types) ++by_type[type];
  for (const auto& [type, count] : by_type) info.element_counts.emplace_back(type_name(type), count);

  if (info.report.ok()) {
    info.has_faces = true;
    info.n_boundary_faces = connectivity.n_boundary_faces();
    info.n_interior_faces = connectivity.n_interior_faces();
    for (std::size_t t = 0; t < mesh.boundary_names.size(); ++t)
      info.tag_face_counts.emplace_back(
          mesh.boundary_names[t], connectivity.tag_offsets[t + 1] - connectivity.tag_offsets[t]);
  }
  if (mesh.n_elements() == 0) return info;
  info.h_min = info.h_max = element_diameter(mesh, 0);
  info.worst_angle_degrees = min_angle_degrees(mesh, 0);
  info.worst_element = 0;
  for (index_t e = 1; e < mesh.n_elements(); ++e) {
    const double h = element_diameter(mesh, e);
    info.h_min = std::min(info.h_min, h);
    info.h_max = std::max(info.h_max, h);
    const double angle = min_angle_degrees(mesh, e);
    if (angle < info.worst_angle_degrees) {
      info.worst_angle_degrees = angle;
      info.worst_element = e;
    }
  }
  return info;
}

std::string to_text(const MeshInfo& info) {
  index_t n_elements = 0;
  std::string types;
  for (const auto& [name, count] : info.element_counts) {
    n_elements += count;
    types += cat(types.empty() ? "" : ", ", name, ": ", count);
  }
  std::string text = cat("source: ", info.source, "\ndimension: ", info.dimension,
                         "\nnodes: ", info.n_nodes, "\nelements: ", n_elements, " (", types, ")\n");
  if (info.has_faces) {
    text += cat("faces: ", info.n_boundary_faces + info.n_interior_faces, " (boundary ",
                info.n_boundary_faces, ", interior ", info.n_interior_faces, ")\nboundary tags:\n");
    for (const auto& [name, count] : info.tag_face_counts) text += cat("  ", name, ": ", count, " faces\n");
  }
  char sizes[160];
  std::snprintf(sizes, sizeof sizes,
                "element size h (diameter): min %.6g, max %.6g\nworst min angle: %.4g degrees "
                "(element %lld)\n",
                info.h_min, info.h_max, info.worst_angle_degrees,
                static_cast<long long>(info.worst_element));
  text += sizes;
  for (const auto& note : info.report.notes) text += "note: " + note + "\n";
  for (const auto& warning : info.report.warnings) text += "warning: " + warning + "\n";
  for (const auto& error : info.report.errors) text += "error: " + error + "\n";
  return text + (info.report.ok() ? "valid\n" : "invalid\n");
}

std::string to_json(const MeshInfo& info) {
  std::string json = cat("{\n  \"source\": ", json::quote(info.source), ",\n  \"dimension\": ",
                         info.dimension, ",\n  \"nodes\": ", info.n_nodes,
                         ",\n  \"elements\": ", json_counts(info.element_counts), ",\n");
  if (info.has_faces)
    json += cat("  \"boundary_faces\": ", info.n_boundary_faces, ",\n  \"interior_faces\": ",
                info.n_interior_faces, ",\n  \"boundary_tags\": ", json_counts(info.tag_face_counts), ",\n");
  json += cat("  \"h_min\": ", info.h_min, ",\n  \"h_max\": ", info.h_max,
              ",\n  \"worst_angle_degrees\": ", info.worst_angle_degrees,
              ",\n  \"worst_element\": ", info.worst_element,
              ",\n  \"valid\": ", info.report.ok() ? "true" : "false",
              ",\n  \"notes\": ", json_list(info.report.notes),
              ",\n  \"warnings\": ", json_list(info.report.warnings),
              ",\n  \"errors\": ", json_list(info.report.errors), "\n}\n");
  return json;
}

}  // namespace flowdg
