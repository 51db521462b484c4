#include "flowdg/mesh/gmsh_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/mesh/lagrange.hpp"

namespace flowdg {

namespace {

/// A facet element of the mesh's facets: its Gmsh type and its node ids in Gmsh's order.
struct FacetElement {
  int type = 0;
  std::vector<index_t> nodes;
};

/// The facet as an element of the order of the element it bounds: the reference points of the
/// facet element (Gmsh's order) mapped onto the element's face and matched with its nodes.
FacetElement facet_element(const Mesh& mesh, const TaggedFacet& facet, const std::vector<std::vector<index_t>>& elements_of_node) {
  for (const index_t e : elements_of_node[static_cast<std::size_t>(facet.vertices[0])]) {
    const ElementType type = mesh.element_types[e];
    const Shape shape = shape_of(type);
    const int corners = n_nodes(lagrange_type(shape, 1));
    const index_t* ids = mesh.element_node_ids(e);
    int face[4] = {-1, -1, -1, -1};
    bool all = true;
    for (int k = 0; k < facet.n_vertices && all; ++k) {
      const index_t* at = std::find(ids, ids + corners, static_cast<index_t>(facet.vertices[static_cast<std::size_t>(k)]));
      all = at != ids + corners;
      face[k] = static_cast<int>(at - ids);
    }
    if (!all) continue;
    const int order = geometric_order(type);
    // The facet element's reference points and each one's weights on the facet's vertices.
    std::vector<std::vector<double>> weights;
    FacetElement out;
    if (mesh.dimension == 2) {
      static constexpr int line_types[] = {0, 1, 8, 26, 27};
      out.type = line_types[std::min(order, 4)];
      std::vector<double> ts = {0.0, 1.0};
      for (int j = 1; j < order; ++j) ts.push_back(static_cast<double>(j) / order);
      for (const double t : ts) weights.push_back({1 - t, t});
    } else {
      const Shape facet_shape = facet.n_vertices == 3 ? Shape::triangle : Shape::quadrilateral;
      const ElementType facet_type = lagrange_type(facet_shape, order);
      out.type = gmsh_type_number(facet_type);
      const ElementType linear = lagrange_type(facet_shape, 1);
      for (const Point3& xi : reference_nodes(facet_type)) {
        std::vector<double> w(static_cast<std::size_t>(facet.n_vertices));
        shape_functions(linear, xi, w.data(), nullptr);
        weights.push_back(w);
      }
    }
    const std::vector<Point3> reference = reference_nodes(type);
    for (const std::vector<double>& w : weights) {
      Point3 point{};
      for (int k = 0; k < facet.n_vertices; ++k) point = point + w[static_cast<std::size_t>(k)] * reference[static_cast<std::size_t>(face[k])];
      index_t found = -1;
      for (std::size_t n = 0; n < reference.size() && found < 0; ++n) {
        const Point3 d = reference[n] - point;
        if (std::sqrt(dot(d, d)) < 1e-10) found = ids[n];
      }
      if (found < 0)
        throw Error(cat("write_gmsh: the facet of ", mesh.element_label(e), " has no node at a reference point of its ", type_name(type),
                        " face (quadrilateral8?)"));
      out.nodes.push_back(found);
    }
    return out;
  }
  throw InputError(cat("write_gmsh: a facet tagged '", mesh.boundary_names[static_cast<std::size_t>(facet.tag)],
                       "' has no element with all its vertices in ", mesh.source));
}

}  // namespace

void write_gmsh(const Mesh& mesh, const std::string& path) {
  std::vector<std::vector<index_t>> elements_of_node(static_cast<std::size_t>(mesh.n_nodes()));
  for (index_t e = 0; e < mesh.n_elements(); ++e)
    for (int n = 0; n < mesh.element_n_nodes(e); ++n) elements_of_node[static_cast<std::size_t>(mesh.element_node_ids(e)[n])].push_back(e);
  std::vector<FacetElement> facets;
  for (const TaggedFacet& facet : mesh.tagged_facets) facets.push_back(facet_element(mesh, facet, elements_of_node));

  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) throw InputError(cat("cannot write ", path));
    const int n_boundaries = static_cast<int>(mesh.boundary_names.size()), domain = n_boundaries + 1;
    out << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n" << n_boundaries + 1 << "\n";
    for (int tag = 0; tag < n_boundaries; ++tag)
      out << mesh.dimension - 1 << ' ' << tag + 1 << " \"" << mesh.boundary_names[static_cast<std::size_t>(tag)] << "\"\n";
    out << mesh.dimension << ' ' << domain << " \"domain\"\n$EndPhysicalNames\n$Nodes\n" << mesh.n_nodes() << "\n";
    char line[96];
    for (index_t n = 0; n < mesh.n_nodes(); ++n) {
      const Point3 p = mesh.nodes[static_cast<std::size_t>(n)];
      std::snprintf(line, sizeof line, "%lld %.17g %.17g %.17g\n", static_cast<long long>(n + 1), p.x, p.y, p.z);
      out << line;
    }
    out << "$EndNodes\n$Elements\n" << facets.size() + static_cast<std::size_t>(mesh.n_elements()) << "\n";
    long long id = 0;
    for (std::size_t f = 0; f < facets.size(); ++f) {
      const int tag = mesh.tagged_facets[f].tag + 1;
      out << ++id << ' ' << facets[f].type << " 2 " << tag << ' ' << tag;
      for (const index_t node : facets[f].nodes) out << ' ' << node + 1;
      out << '\n';
    }
    for (index_t e = 0; e < mesh.n_elements(); ++e) {
      out << ++id << ' ' << gmsh_type_number(mesh.element_types[e]) << " 2 " << domain << ' ' << domain;
      for (int n = 0; n < mesh.element_n_nodes(e); ++n) out << ' ' << mesh.element_node_ids(e)[n] + 1;
      out << '\n';
    }
    out << "$EndElements\n";
    if (!out) throw InputError(cat("cannot write ", path));
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace flowdg
