#include "flowdg/dg/operator.hpp"

#include <algorithm>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/core_instances.hpp"
#include "flowdg/element/basis.hpp"

#ifndef FLOWDG_MAX_ORDER
#define FLOWDG_MAX_ORDER 6
#endif

namespace flowdg::dg {

std::vector<double> change_order(const Groups& groups, const std::vector<double>& values, int n_variables, int from, int to) {
  std::vector<double> out;
  std::size_t offset = 0;
  for (const ElementGroup& group : groups.element_groups) {
    const index_t K = group.size();
    const int Np_from = n_basis(group.shape, from), Np_to = n_basis(group.shape, to);
    FLOWDG_ASSERT(offset + static_cast<std::size_t>(n_variables) * Np_from * K <= values.size(), "change_order: ", values.size(),
                  " values do not hold the groups at order ", from);
    const std::size_t start = out.size();
    out.resize(start + static_cast<std::size_t>(n_variables) * Np_to * K, 0.0);
    for (int v = 0; v < n_variables; ++v)
      for (int j = 0; j < std::min(Np_from, Np_to); ++j)
        std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(offset + (static_cast<std::size_t>(v) * Np_from + j) * K), K,
                    out.begin() + static_cast<std::ptrdiff_t>(start + (static_cast<std::size_t>(v) * Np_to + j) * K));
    offset += static_cast<std::size_t>(n_variables) * Np_from * K;
  }
  FLOWDG_ASSERT(offset == values.size(), "change_order: ", values.size(), " values, the groups at order ", from, " hold ", offset);
  return out;
}

int core_max_order(int dimension, Precision precision, bool viscous, bool artificial_viscosity) {
  // dg_operator.hpp's compiled_max_order, without instantiating a physics here.
  if (artificial_viscosity) return std::min(FLOWDG_MAX_ORDER, 4);
  if (viscous) return std::min(FLOWDG_MAX_ORDER, dimension == 2 ? 4 : 3);
  if (dimension == 2 && precision == Precision::double_precision) return FLOWDG_MAX_ORDER;
  return FLOWDG_MAX_ORDER < 4 ? FLOWDG_MAX_ORDER : 4;
}

GhostLayers required_ghost_layers(const OperatorOptions& options) {
  const bool smoothed = options.artificial_viscosity.enabled && options.artificial_viscosity.smoothing != physics::ViscositySmoothing::none;
  if (options.limiter != Limiter::none || options.positivity || smoothed) return {2, true};
  return {1, false};
}

std::unique_ptr<Operator> make_operator(const Mesh& mesh, const Connectivity& connectivity, const OperatorOptions& options) {
  // The operator for the physics (by dimension) and precision; per group it picks the kernels by
  // (shape, geometry kind, order, backend): the tuned triangle kernels for Euler<2, double>'s affine
  // triangles unless the portable ones are asked for (tuned_triangles.hpp), the portable
  // instantiation otherwise (dg_operator.hpp's registry).
  const bool single = options.precision == Precision::single_precision;
  if (options.artificial_viscosity.enabled) {
    if (options.viscous.enabled)
      throw InputError("artificial viscosity is for the Euler equations; the Navier-Stokes equations have their own viscosity");
    if (mesh.dimension != 3)
      throw InputError(cat("artificial viscosity runs on 3D meshes (", mesh.source, " is ", mesh.dimension,
                           "D; 2D meshes of triangles have the limiter: [solver] limiter = \"barth-jespersen\")"));
    return single ? make_euler_av3d_float(mesh, connectivity, options) : make_euler_av3d_double(mesh, connectivity, options);
  }
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
