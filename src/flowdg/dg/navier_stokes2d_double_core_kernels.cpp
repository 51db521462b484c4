// The DG core for physics::NavierStokes<2, double> with the BR2 lifting (compiled by nvcc when the
// CUDA backend is on).
#include "flowdg/dg/core_instances.hpp"
#include "flowdg/dg/dg_operator.hpp"

namespace flowdg::dg {

std::unique_ptr<Operator> make_navier_stokes2d_double(const Mesh& mesh, const Connectivity& connectivity,
                                                    const OperatorOptions& options) {
  return std::make_unique<DgOperator<physics::NavierStokes<2, double>>>(mesh, connectivity, options);
}

}  // namespace flowdg::dg
