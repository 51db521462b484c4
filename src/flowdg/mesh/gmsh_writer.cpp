#include "flowdg/mesh/gmsh_writer.hpp"

#include <algorithm>
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

/// The facet as an element of the order of the element it bounds (lagrange.hpp: facet_nodes).
FacetElement facet_element(const Mesh& mesh, const TaggedFacet& facet, const std::vector<std::vector<index_t>>& elements_of_node) {
  index_t e = -1;
  FacetElement out;
  out.nodes = facet_nodes(mesh, facet, elements_of_node, &e);
  if (out.nodes.empty())
    throw InputError(cat("write_gmsh: a facet tagged '", mesh.boundary_names[static_cast<std::size_t>(facet.tag)],
                         "' has no element with all its vertices in ", mesh.source));
  const int order = geometric_order(mesh.element_types[e]);
  static constexpr int line_types[] = {0, 1, 8, 26, 27};  // Gmsh's lines of 2 to 5 nodes
  out.type = mesh.dimension == 2 ? line_types[std::min(order, 4)]
                                 : gmsh_type_number(lagrange_type(facet.n_vertices == 3 ? Shape::triangle : Shape::quadrilateral, order));
  return out;
}

}  // namespace

void write_gmsh(const Mesh& mesh, const std::string& path) {
  const std::vector<std::vector<index_t>> elements_of_node = elements_of_nodes(mesh);
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
