#pragma once
// The CPU-against-CUDA comparison the operator tests share: both operators stepped alike from the
// states they hold, then their states and residuals side by side.
#include <algorithm>
#include <cmath>
#include <vector>

#include "flowdg/dg/operator.hpp"
#include "flowdg/time/runge_kutta.hpp"

namespace flowdg::gpu_test {

/// The portable core's options (also on triangles) with the far field of `flow` on every boundary.
inline dg::OperatorOptions options_for(const Mesh& mesh, int order, Backend backend, dg::Precision precision,
                                       const physics::FlowSpec& flow) {
  dg::OperatorOptions options;
  options.implementation = dg::Implementation::portable;  // the core's kernels, also on triangles
  options.order = order;
  options.backend = backend;
  options.precision = precision;
  dg::BoundarySpec boundary;
  boundary.kind = physics::BoundaryKind::farfield;
  boundary.flow = flow;
  options.boundary.assign(mesh.boundary_names.size(), boundary);
  return options;
}

struct CpuCudaAgreement {
  std::vector<double> cpu_state, cuda_state, cpu_residual, cuda_residual;
  double size = 0, difference = 0;                    ///< largest |state| (CPU) and |CPU - CUDA|
  double residual_size = 0, residual_difference = 0;  ///< the same for the residuals at t
  double t = 0;                                       ///< the time both reached
};

/// `steps` steps of `scheme` on both operators with half the CPU's stable step at cfl 0.2, then the
/// states and the residuals at the time reached.
inline CpuCudaAgreement step_cpu_and_cuda(dg::Operator& cpu, dg::Operator& cuda, const RungeKuttaScheme& scheme, int steps = 3) {
  CpuCudaAgreement r;
  const double dt = 0.5 * cpu.stable_time_step(0.2);
  for (int step = 0; step < steps; ++step, r.t += dt) {
    cpu.step(scheme, r.t, dt);
    cuda.step(scheme, r.t, dt);
  }
  r.cpu_state = cpu.coefficients();
  r.cuda_state = cuda.coefficients();
  r.cpu_residual = cpu.residual(r.t);
  r.cuda_residual = cuda.residual(r.t);
  for (std::size_t i = 0; i < r.cpu_state.size(); ++i) {
    r.size = std::max(r.size, std::abs(r.cpu_state[i]));
    r.difference = std::max(r.difference, std::abs(r.cpu_state[i] - r.cuda_state[i]));
    r.residual_size = std::max(r.residual_size, std::abs(r.cpu_residual[i]));
    r.residual_difference = std::max(r.residual_difference, std::abs(r.cpu_residual[i] - r.cuda_residual[i]));
  }
  return r;
}

}  // namespace flowdg::gpu_test
