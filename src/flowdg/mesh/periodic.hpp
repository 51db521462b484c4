#pragma once
#include "flowdg/core/point.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

/// Joins the boundary faces tagged `tag_a` to those tagged `tag_b`, where each face of tag_b is a
/// face of tag_a moved by `translation`, into interior faces (element_m on the tag_a side).
/// Rebuilds the face order (boundary faces first, grouped by tag) and element_faces. Every face
/// of either tag must find its partner; otherwise an InputError names the unmatched face.
void make_periodic(const Mesh& mesh, Connectivity& connectivity, int tag_a, int tag_b, Point3 translation);

}  // namespace flowdg
