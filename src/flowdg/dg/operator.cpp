#include "flowdg/dg/operator.hpp"

#include <algorithm>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/core_instances.hpp"

#ifndef FLOWDG_MAX_ORDER
#define FLOWDG_MAX_ORDER 6
#endif

namespace flowdg::dg {

int core_max_order(int dimension, Precision precision, bool viscous) {
  // dg_operator.hpp's compiled_max_order, without instantiating a physics here.
  if (viscous) return std::min(FLOWDG_MAX_ORDER, dimension == 2 ? 4 : 3);
  if (dimension == 2 && precision == Precision::double_precision) return FLOWDG_MAX_ORDER;
  return FLOWDG_MAX_ORDER < 4 ? FLOWDG_MAX_ORDER : 4;
}

std::unique_ptr<Operator> make_operator(const Mesh& mesh, const Connectivity& connectivity, const OperatorOptions& options) {
  // The operator for the physics (by dimension) and precision; per group it picks the kernels by
  // (shape, geometry kind, order, backend): the tuned triangle kernels for Euler<2, double>'s affine
  // triangles unless the portable ones are asked for (tuned_triangles.hpp), the portable
  // instantiation otherwise (dg_operator.hpp's registry).
  const bool single = options.precision == Precision::single_precision;
  if (options.viscous.enabled) {
    if (single) throw InputError("the Navier-Stokes equations run in double precision only (solver.precision = \"double\")");
    switch (mesh.dimension) {
      case 2: return make_navier_stokes2d_double(mesh, connectivity, options);
      case 3: return make_navier_stokes3d_double(mesh, connectivity, options);
      default: throw InputError(cat("the DG core runs 2D and 3D meshes; ", mesh.source, " is ", mesh.dimension, "D"));
    }
  }
  switch (mesh.dimension) {
    case 2: return single ? make_euler2d_float(mesh, connectivity, options) : make_euler2d_double(mesh, connectivity, options);
    case 3: return single ? make_euler3d_float(mesh, connectivity, options) : make_euler3d_double(mesh, connectivity, options);
    default:
      throw InputError(cat("the DG core runs 2D and 3D meshes; ", mesh.source, " is ", mesh.dimension, "D"));
  }
}

}  // namespace flowdg::dg
