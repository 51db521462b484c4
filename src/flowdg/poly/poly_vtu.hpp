#pragma once
// ParaView output of polytopic meshes (issue 18 item 1): the fine simplices, each with its own
// copy of its vertices so that a field sampled at the fine nodes may jump across elements, with
// cell data `agglomerate` (the element) and `fine_element`; and, in a second file, the elements'
// outlines, i.e. their interior and boundary sub-faces (VTK lines in 2D, triangles in 3D), so that
// the polygons / polyhedra show (ParaView: open both, colour the first by `agglomerate`, draw the
// second as a wireframe or surface with edges). The first file goes through io/vtu.hpp's writer
// (appended binary); the outline is plain ASCII VTU XML.
#include <string>
#include <vector>

#include "flowdg/poly/poly_mesh.hpp"

namespace flowdg::poly {

/// A field sampled at the fine nodes of every fine element.
struct PolyVtuField {
  std::string name;
  int components = 1;  ///< 1 (scalar) or 3 (vector, interleaved)
  /// values[((dimension + 1) * e + k) * components + c]: fine element e (fine mesh order), its k-th
  /// vertex (PolyMesh::fine_vertices order), component c.
  std::vector<double> values;
};

/// The outline file's path for `path`: its ".vtu" (if any) replaced by "_outline.vtu".
std::string outline_path(const std::string& path);

/// Writes `path` (the fine cells, their `agglomerate` and `fine_element` cell data and the fields
/// as point data, at `time`) and outline_path(path) (every interior sub-face once and every
/// boundary sub-face, with cell data `element` (the interface's first element or the boundary
/// sub-face's element), `neighbour` (the second element, -1 on the boundary) and `tag` (the
/// boundary tag, -1 inside)). Returns the outline's path. InputError: a field of the wrong size or
/// component count, an unwritable path.
std::string write_poly_vtu(const std::string& path, const PolyMesh& poly, const std::vector<PolyVtuField>& fields = {},
                           double time = 0);

}  // namespace flowdg::poly
