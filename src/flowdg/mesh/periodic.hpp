#pragma once
#include <initializer_list>
#include <vector>

#include "flowdg/core/point.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

/// Joins the boundary faces tagged `tag_a` to those tagged `tag_b`, where each face of tag_b is a
/// face of tag_a moved by `translation`, into interior faces (element_m on the tag_a side).
/// Rebuilds the face order (boundary faces first, grouped by tag) and element_faces. Every face
/// of either tag must find its partner; otherwise an InputError names the unmatched face.
void make_periodic(const Mesh& mesh, Connectivity& connectivity, int tag_a, int tag_b, Point3 translation);

/// The boundary faces of `tags` replaced by the interior faces `joins` (appended after the existing
/// interior faces): the face order rebuilt (boundary faces first, grouped by tag, the given tags'
/// ranges empty) and element_faces with it. make_periodic's last step; a distributed run's parts
/// rejoin their periodic faces with it (mesh/partition.hpp: join_periodic).
void replace_boundary_faces(Connectivity& connectivity, std::initializer_list<int> tags, const std::vector<Face>& joins);

}  // namespace flowdg
