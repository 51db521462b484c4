#pragma once
// An unstructured mesh as read from a file or made by a generator: nodes, elements (with Gmsh's
// node ordering: vertices first, then edge/face/volume nodes), named boundary tags and the tagged
// boundary facets (lines in 2D, triangles/quadrilaterals in 3D) that carry them.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "flowdg/core/hd.hpp"
#include "flowdg/core/point.hpp"
#include "flowdg/element/reference_element.hpp"

namespace flowdg {

enum class ElementType : int {
  triangle3 = 0,
  triangle6,
  quadrilateral4,
  quadrilateral8,
  quadrilateral9,
  tetrahedron4,
  tetrahedron10,
  hexahedron8,
  triangle10,        ///< cubic (Gmsh type 21)
  triangle15,        ///< quartic (Gmsh type 23)
  quadrilateral16,   ///< bicubic (Gmsh type 36)
  quadrilateral25,   ///< biquartic (Gmsh type 37)
  tetrahedron20,     ///< cubic (Gmsh type 29)
  tetrahedron35,     ///< quartic (Gmsh type 30)
  hexahedron27,      ///< triquadratic (Gmsh type 12)
};

/// Number of ElementType values (they run from 0 to element_type_count - 1).
inline constexpr int element_type_count = static_cast<int>(ElementType::hexahedron27) + 1;
/// The most nodes an element type has (tetrahedron35): the size of per-element node buffers.
inline constexpr int max_element_nodes = 35;

Shape shape_of(ElementType type);
int n_nodes(ElementType type);
/// The degree g of the element's Lagrange map: 1 for straight-sided (affine/bilinear/trilinear)
/// elements, 2 for the quadratic ones (quadrilateral8: serendipity), 3 and 4 for cubic and quartic.
int geometric_order(ElementType type);
/// The type of a shape's Lagrange element of geometric order g (g = 1..4; hexahedra 1..2), the
/// quadratic quadrilateral being the 9-node one; InputError for an order the shape lacks.
ElementType lagrange_type(Shape shape, int order);
std::string_view type_name(ElementType type);

/// A circle arc (2D) that a boundary tag lies on: refinement puts new nodes onto it and the
/// curvature wall condition reflects velocities about its tangent.
struct BoundaryCircle {
  int tag = -1;
  Point3 center;
  double radius = 0;
};

struct TaggedFacet {
  std::array<std::int64_t, 4> vertices{-1, -1, -1, -1};  ///< node ids of the facet's vertices
  int n_vertices = 0;
  int tag = -1;  ///< index into Mesh::boundary_names
};

struct Mesh {
  int dimension = 2;
  std::vector<Point3> nodes;
  std::vector<ElementType> element_types;
  std::vector<index_t> element_offsets{0};  ///< CSR: element e's nodes are [offsets[e], offsets[e+1])
  std::vector<index_t> element_nodes;
  std::vector<std::string> boundary_names;   ///< tag id -> physical name
  std::vector<TaggedFacet> tagged_facets;
  std::vector<BoundaryCircle> boundary_circles;
  std::string source;  ///< file name or generator description, for messages
  /// The element tags of the file the mesh was read from (Gmsh), element by element, so that
  /// messages can name an element as the file does; empty for generated and refined meshes.
  std::vector<std::int64_t> element_file_tags;

  index_t n_elements() const { return static_cast<index_t>(element_types.size()); }
  index_t n_nodes() const { return static_cast<index_t>(nodes.size()); }
  int element_n_nodes(index_t e) const {
    return static_cast<int>(element_offsets[e + 1] - element_offsets[e]);
  }
  const index_t* element_node_ids(index_t e) const { return element_nodes.data() + element_offsets[e]; }
  Shape element_shape(index_t e) const { return shape_of(element_types[e]); }
  /// "element e", followed by " (Gmsh tag t)" when the mesh was read from a file: for messages.
  std::string element_label(index_t e) const;
  /// The file's tag of element e, or -1 when the mesh has none.
  std::int64_t element_file_tag(index_t e) const {
    return static_cast<index_t>(element_file_tags.size()) == n_elements() ? element_file_tags[e] : -1;
  }
  /// Adds an element; its node ids must already exist.
  void add_element(ElementType type, const index_t* node_ids);
  /// Tag id of a boundary name, adding it if new.
  int tag_id(const std::string& name);
  /// Tag id of a name, or -1.
  int find_tag(std::string_view name) const;
  /// Tag id of a name, throws InputError listing the names that exist if absent.
  int require_tag(std::string_view name) const;
};

}  // namespace flowdg
