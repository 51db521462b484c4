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
void write_outline(const std::string& path, const PolyMesh& poly, const PolyVtuPart* part) {
  const int d = poly.dimension;
  // a part: the interfaces with an own side and the own elements' boundary sub-faces
  const index_t owned = part != nullptr ? part->owned_elements : poly.n_elements();
  const auto interface_kept = [&](index_t i) {
    return poly.interface_elements[at(2 * i)] < owned || poly.interface_elements[at(2 * i + 1)] < owned;
  };
  const auto number = [&](index_t k) { return part != nullptr && k >= 0 ? part->element_numbers[at(k)] : k; };
  index_t n_interior = 0, n_boundary = 0;
  for (index_t i = 0; i < poly.n_interfaces(); ++i)
    if (interface_kept(i)) n_interior += poly.interface_start[at(i) + 1] - poly.interface_start[at(i)];
  for (index_t k = 0; k < owned; ++k) n_boundary += poly.boundary_start[at(k) + 1] - poly.boundary_start[at(k)];
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
        if (interface_kept(i))
          for (index_t f = poly.interface_start[at(i)]; f < poly.interface_start[at(i) + 1]; ++f)
            out << interior_value(i) << '\n';
      for (index_t k = 0; k < owned; ++k)
        for (index_t f = poly.boundary_start[at(k)]; f < poly.boundary_start[at(k) + 1]; ++f)
          out << boundary_value(k, f) << '\n';
      out << "        </DataArray>\n";
    };
    cell_array(
        "element", [&](index_t i) { return number(poly.interface_elements[at(2 * i)]); },
        [&](index_t k, index_t) { return number(k); });
    cell_array(
        "neighbour", [&](index_t i) { return number(poly.interface_elements[at(2 * i + 1)]); },
        [](index_t, index_t) { return index_t{-1}; });
    cell_array(
        "tag", [](index_t) { return index_t{-1}; },
        [&](index_t, index_t f) { return static_cast<index_t>(poly.boundary_tag[at(f)]); });
    out << "      </CellData>\n"
        << "      <Points>\n"
        << "        <DataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" format=\"ascii\">\n";
    const auto write_face = [&](const std::vector<index_t>& vertices, index_t f) {
      for (int v = 0; v < d; ++v) {
        const Point3 x = poly.nodes[at(vertices[at(d * f + v)])];
        out << x.x << ' ' << x.y << ' ' << x.z << '\n';
      }
    };
    for (index_t i = 0; i < poly.n_interfaces(); ++i)
      if (interface_kept(i))
        for (index_t f = poly.interface_start[at(i)]; f < poly.interface_start[at(i) + 1]; ++f) write_face(poly.interior_vertices, f);
    for (index_t k = 0; k < owned; ++k)
      for (index_t f = poly.boundary_start[at(k)]; f < poly.boundary_start[at(k) + 1]; ++f) write_face(poly.boundary_vertices, f);
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
                           double time, const PolyVtuPart* part) {
  const int d = poly.dimension, nv = d + 1;
  const index_t n_fine = poly.n_fine_elements();
  for (const PolyVtuField& field : fields) {
    if (field.components != 1 && field.components != 3)
      throw InputError(cat("VTU field ", field.name, " has ", field.components, " components; 1 or 3 are written"));
    if (static_cast<index_t>(field.values.size()) != n_fine * nv * field.components)
      throw InputError(cat("VTU field ", field.name, " has ", field.values.size(), " values; the ", n_fine,
                           " fine elements' ", nv, " vertices need ", n_fine * nv * field.components));
  }
  if (part != nullptr && (static_cast<index_t>(part->fine_numbers.size()) != n_fine ||
                          static_cast<index_t>(part->element_numbers.size()) < part->owned_elements))
    throw Error(cat("write_poly_vtu: a part with ", part->fine_numbers.size(), " fine numbers for ", n_fine, " fine elements"));
  // the cells written: every fine element, or a part's own elements' ones
  std::vector<index_t> cells;
  for (index_t e = 0; e < n_fine; ++e)
    if (part == nullptr || poly.agglomerate_of[at(e)] < part->owned_elements) cells.push_back(e);
  const index_t n_cells = static_cast<index_t>(cells.size());

  // Each fine cell with its own vertices, positively oriented for VTK (the last two vertices, and
  // their values, swapped where the fine mesh has the element the other way round).
  VtuCellBlock block{d == 2 ? Shape::triangle : Shape::tetrahedron, 1, n_cells, std::vector<Point3>(at(n_cells * nv))};
  std::vector<VtuField> point_fields;
  for (const PolyVtuField& field : fields)
    point_fields.push_back({field.name, field.components, std::vector<double>(at(n_cells * nv * field.components))});
  std::vector<std::int64_t> agglomerate(at(n_cells)), fine_element(at(n_cells));
  for (index_t c = 0; c < n_cells; ++c) {
    const index_t e = cells[at(c)];
    const bool swap = signed_measure(poly, e) < 0;
    for (int v = 0; v < nv; ++v) {
      const int source = swap && v >= nv - 2 ? (2 * nv - 3 - v) : v;  // v = nv-2 <-> nv-1
      block.points[at(nv * c + v)] = poly.nodes[at(poly.fine_vertices[at(nv * e + source)])];
      for (std::size_t q = 0; q < fields.size(); ++q) {
        const int k = fields[q].components;
        for (int j = 0; j < k; ++j)
          std::get<std::vector<double>>(point_fields[q].values)[at((nv * c + v) * k + j)] =
              fields[q].values[at((nv * e + source) * k + j)];
      }
    }
    const index_t a = poly.agglomerate_of[at(e)];
    agglomerate[at(c)] = part != nullptr ? part->element_numbers[at(a)] : a;
    fine_element[at(c)] = part != nullptr ? part->fine_numbers[at(e)] : e;
  }
  const std::vector<VtuField> cell_fields{{"agglomerate", 1, std::move(agglomerate)},
                                          {"fine_element", 1, std::move(fine_element)}};
  write_vtu(path, {block}, point_fields, cell_fields, time, VtuCells::subdivided);

  const std::string outline = outline_path(path);
  write_outline(outline, poly, part);
  return outline;
}

namespace {
void write_text(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << text;
    if (!out) throw InputError(cat("cannot write ", temporary));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) throw InputError(cat("cannot write ", path, " (renaming ", temporary, " failed)"));
}

/// "solution.pvtu" -> "solution_outline.pvtu".
std::string pvtu_outline_path(const std::string& path) {
  const std::string extension = ".pvtu";
  if (path.size() > extension.size() && path.compare(path.size() - extension.size(), extension.size(), extension) == 0)
    return path.substr(0, path.size() - extension.size()) + "_outline.pvtu";
  return path + "_outline.pvtu";
}
}  // namespace

void write_poly_pvtu(const std::string& path, const std::vector<std::string>& pieces, const std::vector<PolyVtuField>& fields,
                     double time) {
  char number[64];
  std::snprintf(number, sizeof number, "%.17g", time);
  const std::string head = cat("<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" ",
                               "header_type=\"UInt64\">\n  <PUnstructuredGrid GhostLevel=\"0\">\n");
  std::string text = head + cat("    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">",
                                number, "</DataArray>\n    </FieldData>\n    <PPointData>\n");
  for (const PolyVtuField& field : fields)
    text += cat("      <PDataArray type=\"Float64\" Name=\"", field.name, "\"",
                field.components > 1 ? cat(" NumberOfComponents=\"", field.components, "\"") : std::string(), "/>\n");
  text += "    </PPointData>\n    <PCellData>\n      <PDataArray type=\"Int64\" Name=\"agglomerate\"/>\n"
          "      <PDataArray type=\"Int64\" Name=\"fine_element\"/>\n    </PCellData>\n"
          "    <PPoints>\n      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n    </PPoints>\n";
  std::string outline = head + "    <PCellData>\n      <PDataArray type=\"Int64\" Name=\"element\"/>\n"
                               "      <PDataArray type=\"Int64\" Name=\"neighbour\"/>\n      <PDataArray type=\"Int64\" Name=\"tag\"/>\n"
                               "    </PCellData>\n    <PPoints>\n      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n"
                               "    </PPoints>\n";
  for (const std::string& piece : pieces) {
    text += cat("    <Piece Source=\"", piece, "\"/>\n");
    outline += cat("    <Piece Source=\"", outline_path(piece), "\"/>\n");
  }
  text += "  </PUnstructuredGrid>\n</VTKFile>\n";
  outline += "  </PUnstructuredGrid>\n</VTKFile>\n";
  write_text(path, text);
  write_text(pvtu_outline_path(path), outline);
}

}  // namespace flowdg::poly
