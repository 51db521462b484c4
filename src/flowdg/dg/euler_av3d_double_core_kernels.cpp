// The DG core for physics::ArtificialViscosity<3, double>: 3D Euler with Persson & Peraire's
// artificial viscosity through the BR2 lifting (compiled by nvcc when the CUDA backend is on).
#include "flowdg/dg/core_instances.hpp"
#include "flowdg/dg/dg_operator.hpp"

namespace flowdg::dg {

std::unique_ptr<Operator> make_euler_av3d_double(const Mesh& mesh, const Connectivity& connectivity, const OperatorOptions& options) {
  return std::make_unique<DgOperator<physics::ArtificialViscosity<3, double>>>(mesh, connectivity, options);
}

}  // namespace flowdg::dg
