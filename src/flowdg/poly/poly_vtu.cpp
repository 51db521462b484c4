#include "flowdg/poly/poly_vtu.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <utility>

#include "flowdg/core/error.hpp"
#include "flowdg/io/vtu.hpp"

namespace flowdg::poly {

namespace {

std::size_t at(index_t i) { return static_cast<std::size_t>(i); }

/// The signed measure of fine element e (its vertices in PolyMesh::fine_vertices order).
double signed_measure(const PolyMesh& poly, index_t e) {
  const int nv = poly.dimension + 1;
  Point3 p[4];
  for (int v = 0; v < nv; ++v) p[v] = poly.nodes[at(poly.fine_vertices[at(nv * e + v)])];
  if (poly.dimension == 2) return 0.5 * cross(p[1] - p[0], p[2] - p[0]).z;
  return dot(cross(p[1] - p[0], p[2] - p[0]), p[3] - p[0]) / 6.0;
}

/// Writes the outline (sub-faces as lines or triangles) as ASCII VTU XML through PATH.tmp.
void write_outline(const std::string& path, const PolyMesh& poly) {
  const int d = poly.dimension;
  const index_t n_interior = poly.n_interior_subfaces(), n_boundary = poly.n_boundary_subfaces();
  const index_t n_cells = n_interior + n_boundary;
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    if (!out) throw InputError(cat("cannot write the outline VTU file ", path));
    out.precision(17);
    out << "<?xml version=\"1.0\"?>\n"
        << "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
        << "  <UnstructuredGrid>\n"
        << "    <Piece NumberOfPoints=\"" << n_cells * d << "\" NumberOfCells=\"" << n_cells << "\">\n"
        << "      <CellData Scalars=\"element\">\n";
    // Per cell: interior sub-faces interface by interface, then boundary sub-faces element by element.
    const auto cell_array = [&](const char* name, const auto& interior_value, const auto& boundary_value) {
      out << "        <DataArray type=\"Int64\" Name=\"" << name << "\" format=\"ascii\">\n";
      for (index_t i = 0; i < poly.n_interfaces(); ++i)
        for (index_t f = poly.interface_start[at(i)]; f < poly.interface_start[at(i) + 1]; ++f)
          out << interior_value(i) << '\n';
      for (index_t k = 0; k < poly.n_elements(); ++k)
        for (index_t f = poly.boundary_start[at(k)]; f < poly.boundary_start[at(k) + 1]; ++f)
          out << boundary_value(k, f) << '\n';
      out << "        </DataArray>\n";
    };
    cell_array(
        "element", [&](index_t i) { return poly.interface_elements[at(2 * i)]; },
        [](index_t k, index_t) { return k; });
    cell_array(
        "neighbour", [&](index_t i) { return poly.interface_elements[at(2 * i + 1)]; },
        [](index_t, index_t) { return index_t{-1}; });
    cell_array(
        "tag", [](index_t) { return index_t{-1}; },
        [&](index_t, index_t f) { return static_cast<index_t>(poly.boundary_tag[at(f)]); });
    out << "      </CellData>\n"
        << "      <Points>\n"
        << "        <DataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" format=\"ascii\">\n";
    const auto write_points = [&](const std::vector<index_t>& vertices, index_t n_faces) {
      for (index_t q = 0; q < n_faces * d; ++q) {
        const Point3 x = poly.nodes[at(vertices[at(q)])];
        out << x.x << ' ' << x.y << ' ' << x.z << '\n';
      }
    };
    write_points(poly.interior_vertices, n_interior);
    write_points(poly.boundary_vertices, n_boundary);
    out << "        </DataArray>\n"
        << "      </Points>\n"
        << "      <Cells>\n"
        << "        <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n";
    for (index_t c = 0; c < n_cells; ++c) {
      for (int v = 0; v < d; ++v) out << (v ? " " : "") << d * c + v;
      out << '\n';
    }
    out << "        </DataArray>\n"
        << "        <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n";
    for (index_t c = 0; c < n_cells; ++c) out << d * (c + 1) << '\n';
    // VTK_LINE (3) in 2D, VTK_TRIANGLE (5) in 3D.
    out << "        </DataArray>\n"
        << "        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n";
    for (index_t c = 0; c < n_cells; ++c) out << (d == 2 ? 3 : 5) << '\n';
    out << "        </DataArray>\n"
        << "      </Cells>\n"
        << "    </Piece>\n"
        << "  </UnstructuredGrid>\n"
        << "</VTKFile>\n";
    out.flush();
    if (!out) throw InputError(cat("cannot write the outline VTU file ", path));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    throw InputError(cat("cannot write the outline VTU file ", path, " (renaming ", temporary, " failed)"));
}

}  // namespace

std::string outline_path(const std::string& path) {
  const std::string extension = ".vtu";
  if (path.size() > extension.size() && path.compare(path.size() - extension.size(), extension.size(), extension) == 0)
    return path.substr(0, path.size() - extension.size()) + "_outline.vtu";
  return path + "_outline.vtu";
}

std::string write_poly_vtu(const std::string& path, const PolyMesh& poly, const std::vector<PolyVtuField>& fields,
                           double time) {
  const int d = poly.dimension, nv = d + 1;
  const index_t n_fine = poly.n_fine_elements();
  for (const PolyVtuField& field : fields) {
    if (field.components != 1 && field.components != 3)
      throw InputError(cat("VTU field ", field.name, " has ", field.components, " components; 1 or 3 are written"));
    if (static_cast<index_t>(field.values.size()) != n_fine * nv * field.components)
      throw InputError(cat("VTU field ", field.name, " has ", field.values.size(), " values; the ", n_fine,
                           " fine elements' ", nv, " vertices need ", n_fine * nv * field.components));
  }

  // Each fine cell with its own vertices, positively oriented for VTK (the last two vertices, and
  // their values, swapped where the fine mesh has the element the other way round).
  VtuCellBlock block{d == 2 ? Shape::triangle : Shape::tetrahedron, 1, n_fine,
                     std::vector<Point3>(at(n_fine * nv))};
  std::vector<VtuField> point_fields;
  for (const PolyVtuField& field : fields)
    point_fields.push_back({field.name, field.components, std::vector<double>(field.values.size())});
  std::vector<std::int64_t> agglomerate(at(n_fine)), fine_element(at(n_fine));
  for (index_t e = 0; e < n_fine; ++e) {
    const bool swap = signed_measure(poly, e) < 0;
    for (int v = 0; v < nv; ++v) {
      const int source = swap && v >= nv - 2 ? (2 * nv - 3 - v) : v;  // v = nv-2 <-> nv-1
      block.points[at(nv * e + v)] = poly.nodes[at(poly.fine_vertices[at(nv * e + source)])];
      for (std::size_t q = 0; q < fields.size(); ++q) {
        const int c = fields[q].components;
        for (int j = 0; j < c; ++j)
          std::get<std::vector<double>>(point_fields[q].values)[at((nv * e + v) * c + j)] =
              fields[q].values[at((nv * e + source) * c + j)];
      }
    }
    agglomerate[at(e)] = poly.agglomerate_of[at(e)];
    fine_element[at(e)] = e;
  }
  const std::vector<VtuField> cell_fields{{"agglomerate", 1, std::move(agglomerate)},
                                          {"fine_element", 1, std::move(fine_element)}};
  write_vtu(path, {block}, point_fields, cell_fields, time, VtuCells::subdivided);

  const std::string outline = outline_path(path);
  write_outline(outline, poly);
  return outline;
}

}  // namespace flowdg::poly
