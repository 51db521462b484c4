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
/// A distributed rank's piece (poly/poly_partition.hpp): only its own elements' fine cells and the
/// sub-faces with an own side, numbered as in the whole mesh.
struct PolyVtuPart {
  index_t owned_elements = 0;            ///< elements [0, owned_elements) are the rank's
  std::vector<index_t> element_numbers;  ///< per owned or ghost element: its number in the whole mesh
  std::vector<index_t> fine_numbers;     ///< per fine element: its number in the whole fine mesh
};

std::string write_poly_vtu(const std::string& path, const PolyMesh& poly, const std::vector<PolyVtuField>& fields = {},
                           double time = 0, const PolyVtuPart* part = nullptr);

/// A distributed run's parallel files: `path` (.pvtu) lists the pieces (paths relative to its
/// directory, each written by write_poly_vtu with its part) with the fields' names and components,
/// and its "_outline.pvtu" (solution.pvtu: solution_outline.pvtu) lists their outlines.
void write_poly_pvtu(const std::string& path, const std::vector<std::string>& pieces, const std::vector<PolyVtuField>& fields,
                     double time = 0);

}  // namespace flowdg::poly
