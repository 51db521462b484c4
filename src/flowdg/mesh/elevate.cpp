#include "flowdg/mesh/elevate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/mesh/lagrange.hpp"

namespace flowdg {
namespace {

// A node on an edge or face, independent of the element it is seen from: the (vertex id, weight)
// pairs of the vertices its linear interpolation weights (sorted by id, weights scaled to integers
// by order^3, unused slots -1). An edge node has two, a face node three or four.
using NodeKey = std::array<std::pair<index_t, std::int64_t>, 4>;

struct NodeKeyHash {
  std::size_t operator()(const NodeKey& key) const {
    std::uint64_t hash = 14695981039346656037ull;
    for (const auto& [vertex, weight] : key) {
      hash = (hash ^ static_cast<std::uint64_t>(vertex)) * 1099511628211ull;
      hash = (hash ^ static_cast<std::uint64_t>(weight)) * 1099511628211ull;
    }
    return static_cast<std::size_t>(hash);
  }
};

NodeKey make_key(std::vector<std::pair<index_t, std::int64_t>> pairs) {
  std::sort(pairs.begin(), pairs.end());
  NodeKey key;
  key.fill({-1, 0});
  std::copy(pairs.begin(), pairs.end(), key.begin());
  return key;
}

/// One element type's new nodes, as weights of the straight element's vertices.
struct Elevation {
  ElementType type{};
  std::vector<std::vector<double>> weights;  ///< [node][vertex], for the nodes after the vertices
};

Elevation make_elevation(Shape shape, int order) {
  Elevation elevation;
  elevation.type = lagrange_type(shape, order);
  const ElementType linear = lagrange_type(shape, 1);
  const std::vector<Point3> nodes = reference_nodes(elevation.type);
  for (std::size_t n = static_cast<std::size_t>(n_vertices(shape)); n < nodes.size(); ++n) {
    std::vector<double> weights(static_cast<std::size_t>(n_vertices(shape)));
    shape_functions(linear, nodes[n], weights.data(), nullptr);
    elevation.weights.push_back(std::move(weights));
  }
  return elevation;
}

}  // namespace

Mesh elevate_order(const Mesh& mesh, int order) {
  if (order < 1 || order > 4)
    throw InputError(cat("elevate_order: geometric order ", order, " for ", mesh.source, " is out of range (1..4)"));
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const ElementType type = mesh.element_types[e];
    if (geometric_order(type) != 1)
      throw InputError(cat("elevate_order: ", mesh.source, " has curved elements (", mesh.element_label(e), " is a ",
                           type_name(type), "); only straight-sided meshes can be elevated"));
    if (shape_of(type) == Shape::hexahedron && order > 2)
      throw InputError(cat("elevate_order: ", mesh.source, " has hexahedra, whose geometric order can be 1 or 2 (asked for ",
                           order, ")"));
  }
  if (order == 1) return mesh;

  Mesh out = mesh;
  out.element_types.clear();
  out.element_offsets = {0};
  out.element_nodes.clear();
  out.source = cat("elevate(", mesh.source, ", order ", order, ")");
  std::vector<Elevation> elevations(element_type_count);
  const double scale = order * order * order;  // every weight is a multiple of 1 / order^dimension
  std::unordered_map<NodeKey, index_t, NodeKeyHash> shared;
  std::vector<index_t> nodes;
  std::vector<std::pair<index_t, std::int64_t>> pairs;
  for (index_t e = 0; e < mesh.n_elements(); ++e) {
    const Shape shape = mesh.element_shape(e);
    Elevation& elevation = elevations[static_cast<std::size_t>(mesh.element_types[e])];
    if (elevation.weights.empty()) elevation = make_elevation(shape, order);
    const index_t* vertices = mesh.element_node_ids(e);
    nodes.assign(vertices, vertices + n_vertices(shape));
    for (const std::vector<double>& weights : elevation.weights) {
      Point3 position{0, 0, 0};
      pairs.clear();
      for (int v = 0; v < n_vertices(shape); ++v) {
        position = position + weights[v] * mesh.nodes[vertices[v]];
        if (const auto weight = std::lround(weights[v] * scale); weight != 0) pairs.emplace_back(vertices[v], weight);
      }
      // A node that all the element's vertices weigh is inside it: its own. The others lie on an
      // edge or face that neighbours share.
      if (static_cast<int>(pairs.size()) == n_vertices(shape)) {
        out.nodes.push_back(position);
        nodes.push_back(out.n_nodes() - 1);
        continue;
      }
      const auto [found, inserted] = shared.try_emplace(make_key(pairs), out.n_nodes());
      if (inserted) out.nodes.push_back(position);
      nodes.push_back(found->second);
    }
    out.add_element(elevation.type, nodes.data());
  }

  if (mesh.dimension != 2) return out;
  for (const TaggedFacet& facet : mesh.tagged_facets) {
    for (const BoundaryCircle& circle : mesh.boundary_circles) {
      if (circle.tag != facet.tag) continue;
      const index_t a = facet.vertices[0], b = facet.vertices[1];
      for (int k = 1; k < order; ++k) {
        const auto weight = [&](int steps) { return static_cast<std::int64_t>(std::lround(steps * scale / order)); };
        const auto found = shared.find(make_key({{a, weight(order - k)}, {b, weight(k)}}));
        if (facet.n_vertices != 2 || found == shared.end())
          throw InputError(cat("elevate_order: tagged facet (", a, ", ", b, ") of mesh ", mesh.source, " is not an element edge"));
        Point3& x = out.nodes[found->second];
        const Point3 offset = x - circle.center;
        x = circle.center + (circle.radius / std::sqrt(dot(offset, offset))) * offset;
      }
    }
  }
  return out;
}

void map_nodes(Mesh& mesh, const std::function<Point3(Point3)>& deformation) {
  for (Point3& x : mesh.nodes) x = deformation(x);
}

}  // namespace flowdg
