// The DG core for physics::NavierStokes<3, double> with the BR2 lifting (compiled by nvcc when the
// CUDA backend is on).
#include "flowdg/dg/core_instances.hpp"
#include "flowdg/dg/dg_operator.hpp"

namespace flowdg::dg {

std::unique_ptr<Operator> make_navier_stokes3d_double(const Mesh& mesh, const Connectivity& connectivity,
                                                    const OperatorOptions& options) {
  return std::make_unique<DgOperator<physics::NavierStokes<3, double>>>(mesh, connectivity, options);
}

}  // namespace flowdg::dg
