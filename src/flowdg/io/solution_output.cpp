#include "flowdg/io/solution_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "flowdg/core/error.hpp"

#include "flowdg/io/vtk_lagrange.hpp"

namespace flowdg {

void write_solution_vtu(const std::string& path, const dg::Operator& op, double gamma, double time, VtuCells cells,
                        const std::vector<index_t>& element_numbers) {
  const int order = std::max(1, op.order());
  std::vector<std::vector<Point3>> points_by_shape(static_cast<std::size_t>(Shape::hexahedron) + 1);
  for (const dg::ElementGroup& group : op.groups().element_groups) {
    auto& points = points_by_shape[static_cast<std::size_t>(group.shape)];
    if (points.empty()) points = vtk_lagrange_nodes(group.shape, order);
  }
  const std::vector<dg::PointValues> blocks = op.evaluate(points_by_shape);
  const int dim = op.dimension(), n_variables = op.n_variables();
  std::vector<VtuCellBlock> cell_blocks;
  std::vector<double> density, velocity, pressure, mach, energy;
  std::vector<std::int64_t> element;
  for (const dg::PointValues& block : blocks) {
    cell_blocks.push_back({block.shape, order, static_cast<index_t>(block.elements.size()), block.points});
    element.insert(element.end(), block.elements.begin(), block.elements.end());
    const std::size_t n_points = block.points.size();
    for (std::size_t k = 0; k < n_points; ++k) {
      const double* u = &block.values[k * n_variables];
      const double rho = u[0], e = u[dim + 1];
      double kinetic = 0, v[3] = {0, 0, 0};
      for (int d = 0; d < dim; ++d) {
        v[d] = u[1 + d] / rho;
        kinetic += 0.5 * rho * v[d] * v[d];
      }
      const double p = (gamma - 1.0) * (e - kinetic);
      density.push_back(rho);
      velocity.insert(velocity.end(), {v[0], v[1], v[2]});
      pressure.push_back(p);
      mach.push_back(std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / std::sqrt(gamma * p / rho));
      energy.push_back(e);
    }
  }
  std::vector<VtuField> point_fields;
  point_fields.push_back({"density", 1, std::move(density)});
  point_fields.push_back({"velocity", 3, std::move(velocity)});
  point_fields.push_back({"pressure", 1, std::move(pressure)});
  point_fields.push_back({"mach", 1, std::move(mach)});
  point_fields.push_back({"energy", 1, std::move(energy)});
  std::vector<VtuField> cell_fields;
  // Artificial viscosity: each element's eps (the sensor's at this state), cell by cell.
  if (std::vector<double> viscosity = op.element_viscosity(); !viscosity.empty()) {
    std::vector<double> by_cell;
    by_cell.reserve(element.size());
    for (const std::int64_t e : element) by_cell.push_back(viscosity[static_cast<std::size_t>(e)]);  // before any renumbering
    cell_fields.push_back({"artificial_viscosity", 1, std::move(by_cell)});
  }
  if (!element_numbers.empty())
    for (std::int64_t& e : element) e = element_numbers[static_cast<std::size_t>(e)];
  cell_fields.push_back({"element", 1, std::move(element)});
  write_vtu(path, cell_blocks, point_fields, cell_fields, time, cells);
}

void write_solution_pvtu(const std::string& path, const std::vector<std::string>& pieces, bool artificial_viscosity, double time) {
  std::string text = "<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "
                     "header_type=\"UInt64\">\n  <PUnstructuredGrid GhostLevel=\"0\">\n";
  char number[64];
  std::snprintf(number, sizeof number, "%.17g", time);
  text += cat("    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">", number,
              "</DataArray>\n    </FieldData>\n");
  text += "    <PPointData Scalars=\"density\" Vectors=\"velocity\">\n";
  for (const char* name : {"density", "velocity", "pressure", "mach", "energy"})
    text += cat("      <PDataArray type=\"Float64\" Name=\"", name, "\"", std::string(name) == "velocity" ? " NumberOfComponents=\"3\"" : "",
                "/>\n");
  text += "    </PPointData>\n    <PCellData>\n";
  if (artificial_viscosity) text += "      <PDataArray type=\"Float64\" Name=\"artificial_viscosity\"/>\n";
  text += "      <PDataArray type=\"Int64\" Name=\"element\"/>\n    </PCellData>\n";
  text += "    <PPoints>\n      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n    </PPoints>\n";
  for (const std::string& piece : pieces) text += cat("    <Piece Source=\"", piece, "\"/>\n");
  text += "  </PUnstructuredGrid>\n</VTKFile>\n";
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) throw InputError(cat("cannot write ", temporary));
    out << text;
    if (!out) throw InputError(cat("cannot write ", temporary));
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace flowdg
