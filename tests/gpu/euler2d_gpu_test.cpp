// The 2D Euler solver gives the same numbers on the CUDA backend as on the CPU backend.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "flowdg/cases/euler2d_case.hpp"
#include "flowdg/core/config.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;
using namespace flowdg::euler2d;

namespace {
const char* supersonic_vortex_case = R"(
[case]
name = "supersonic-vortex"
[mesh]
file = "builtin:annulus"
refine = 2
[flow]
kind = "supersonic-vortex"
[solver]
order = 3
flux = "hllc"
[time]
scheme = "ssp-rk3"
max_steps = 100
[boundary.inner]
type = "curvature-wall"
[boundary.outer]
type = "curvature-wall"
[boundary.inflow]
type = "inflow"
[boundary.outflow]
type = "outflow"
)";

std::vector<double> run_steps(Backend backend, const std::string& flux, const std::string& scheme_name) {
  Config config = Config::from_string(supersonic_vortex_case, "gpu-test");
  config.set("solver.flux=\"" + flux + "\"");
  const Case problem = load_case(config, backend);
  Solver solver(problem.mesh, problem.connectivity, problem.options);
  solver.project(problem.initial, 0.0);
  const RungeKuttaScheme scheme = runge_kutta_scheme(scheme_name);
  // A fixed dt, so both backends take exactly the same steps.
  const double dt = 2e-4;
  double t = 0;
  for (int step = 0; step < 100; ++step) {
    solver.step(scheme, t, dt);
    t += dt;
  }
  return solver.coefficients();
}
}  // namespace

TEST(GpuEuler2d, CudaAgreesWithCpuAfter100StepsOfTheSupersonicVortexAtP3) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  for (const std::string flux : {"hllc", "rusanov", "roe"}) {
    for (const std::string scheme : {"ssp-rk3", "lsrk54"}) {
      const auto cpu = run_steps(Backend::cpu, flux, scheme);
      const auto gpu = run_steps(Backend::cuda, flux, scheme);
      ASSERT_EQ(cpu.size(), gpu.size());
      double difference = 0, size = 0;
      for (std::size_t i = 0; i < cpu.size(); ++i) {
        ASSERT_TRUE(std::isfinite(gpu[i])) << i;
        difference = std::max(difference, std::fabs(cpu[i] - gpu[i]));
        size = std::max(size, std::fabs(cpu[i]));
      }
      EXPECT_LE(difference, 1e-12 * size) << flux << " " << scheme;
      std::printf("%s/%s: max |cpu - cuda| / max |cpu| = %.3e\n", flux.c_str(), scheme.c_str(), difference / size);
    }
  }
}

TEST(GpuEuler2d, TimeStepReductionAgreesWithCpu) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  double dts[2];
  int i = 0;
  for (Backend backend : {Backend::cpu, Backend::cuda}) {
    const Case problem = load_case(Config::from_string(supersonic_vortex_case, "gpu-test"), backend);
    Solver solver(problem.mesh, problem.connectivity, problem.options);
    solver.project(problem.initial, 0.0);
    dts[i++] = solver.stable_time_step(0.5);
  }
  EXPECT_EQ(dts[0], dts[1]);
}
