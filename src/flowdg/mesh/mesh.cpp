#include "flowdg/mesh/mesh.hpp"

#include <algorithm>
#include <iterator>

#include "flowdg/core/error.hpp"

namespace flowdg {

namespace {

struct TypeProperties {
  Shape shape;
  int n_nodes;
  int order;
  std::string_view name;
};

// By ElementType value.
constexpr TypeProperties type_properties[] = {
    {Shape::triangle, 3, 1, "triangle3"},           {Shape::triangle, 6, 2, "triangle6"},
    {Shape::quadrilateral, 4, 1, "quadrilateral4"}, {Shape::quadrilateral, 8, 2, "quadrilateral8"},
    {Shape::quadrilateral, 9, 2, "quadrilateral9"}, {Shape::tetrahedron, 4, 1, "tetrahedron4"},
    {Shape::tetrahedron, 10, 2, "tetrahedron10"},   {Shape::hexahedron, 8, 1, "hexahedron8"},
    {Shape::triangle, 10, 3, "triangle10"},         {Shape::triangle, 15, 4, "triangle15"},
    {Shape::quadrilateral, 16, 3, "quadrilateral16"}, {Shape::quadrilateral, 25, 4, "quadrilateral25"},
    {Shape::tetrahedron, 20, 3, "tetrahedron20"},   {Shape::tetrahedron, 35, 4, "tetrahedron35"},
    {Shape::hexahedron, 27, 2, "hexahedron27"},
};
static_assert(std::size(type_properties) == element_type_count, "one row per ElementType");
static_assert(std::ranges::max(type_properties, {}, &TypeProperties::n_nodes).n_nodes == max_element_nodes,
              "max_element_nodes is the largest node count");

constexpr const TypeProperties& properties(ElementType type) { return type_properties[static_cast<int>(type)]; }

}  // namespace

Shape shape_of(ElementType type) { return properties(type).shape; }

int n_nodes(ElementType type) { return properties(type).n_nodes; }

int geometric_order(ElementType type) { return properties(type).order; }

std::string_view type_name(ElementType type) { return properties(type).name; }

ElementType lagrange_type(Shape shape, int order) {
  for (int t = 0; t < element_type_count; ++t) {
    const auto type = static_cast<ElementType>(t);
    if (type != ElementType::quadrilateral8 && shape_of(type) == shape && geometric_order(type) == order) return type;
  }
  throw InputError(cat("there is no ", shape_name(shape), " element of geometric order ", order, " (",
                       shape == Shape::hexahedron ? "hexahedra: 1 or 2" : "1 to 4", ")"));
}

std::string Mesh::element_label(index_t e) const {
  const std::int64_t tag = element_file_tag(e);
  return tag < 0 ? cat("element ", e) : cat("element ", e, " (Gmsh tag ", tag, ")");
}

void Mesh::add_element(ElementType type, const index_t* node_ids) {
  element_types.push_back(type);
  element_nodes.insert(element_nodes.end(), node_ids, node_ids + flowdg::n_nodes(type));
  element_offsets.push_back(static_cast<index_t>(element_nodes.size()));
}

int Mesh::tag_id(const std::string& name) {
  const int found = find_tag(name);
  if (found >= 0) return found;
  boundary_names.push_back(name);
  return static_cast<int>(boundary_names.size()) - 1;
}

int Mesh::find_tag(std::string_view name) const {
  for (std::size_t t = 0; t < boundary_names.size(); ++t)
    if (boundary_names[t] == name) return static_cast<int>(t);
  return -1;
}

int Mesh::require_tag(std::string_view name) const {
  const int found = find_tag(name);
  if (found >= 0) return found;
  std::string known;
  for (const auto& n : boundary_names) known += (known.empty() ? "" : ", ") + n;
  throw InputError(cat("mesh ", source, " has no boundary tag '", name, "' (its tags: ",
                       known.empty() ? "none" : known, ")"));
}

}  // namespace flowdg
