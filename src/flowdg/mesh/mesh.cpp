#include "flowdg/mesh/mesh.hpp"

#include "flowdg/core/error.hpp"

namespace flowdg {

Shape shape_of(ElementType type) {
  switch (type) {
    case ElementType::triangle3:
    case ElementType::triangle6:
    case ElementType::triangle10:
    case ElementType::triangle15: return Shape::triangle;
    case ElementType::quadrilateral4:
    case ElementType::quadrilateral8:
    case ElementType::quadrilateral9: return Shape::quadrilateral;
    case ElementType::tetrahedron4:
    case ElementType::tetrahedron10: return Shape::tetrahedron;
    case ElementType::hexahedron8: return Shape::hexahedron;
  }
  return Shape::point;
}

int n_nodes(ElementType type) {
  constexpr int counts[] = {3, 6, 4, 8, 9, 4, 10, 8, 10, 15};
  return counts[static_cast<int>(type)];
}

int geometric_order(ElementType type) {
  switch (type) {
    case ElementType::triangle6:
    case ElementType::quadrilateral8:
    case ElementType::quadrilateral9:
    case ElementType::tetrahedron10: return 2;
    case ElementType::triangle10: return 3;
    case ElementType::triangle15: return 4;
    default: return 1;
  }
}

std::string_view type_name(ElementType type) {
  constexpr std::string_view names[] = {"triangle3",      "triangle6",    "quadrilateral4",
                                        "quadrilateral8", "quadrilateral9", "tetrahedron4",
                                        "tetrahedron10",  "hexahedron8",    "triangle10",
                                        "triangle15"};
  return names[static_cast<int>(type)];
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
