// The 2D Euler solver gives the same numbers on the CUDA backend as on the CPU backend.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "flowdg/cases/run.hpp"
#include "flowdg/dg/tuned_triangle_operator.hpp"
#include "flowdg/core/config.hpp"
#include "../unit/example_cases.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;
using namespace flowdg::euler2d;

namespace {
/// The shipped supersonic vortex example on mesh C at p = 3.
Config supersonic_vortex_case() {
  Config config = Config::from_string(flowdg::testing::example_case("supersonic_vortex.toml"), "gpu-test");
  for (const char* assignment : {"mesh.refine=2", "solver.order=3", "time.steady_tolerance=0", "time.max_steps=100"})
    config.set(assignment);
  return config;
}

std::vector<double> run_steps(Backend backend, const std::string& flux, const std::string& scheme_name) {
  Config config = supersonic_vortex_case();
  config.set("solver.flux=\"" + flux + "\"");
  const Case problem = load_case(config, backend);
  Solver solver(problem.mesh, problem.connectivity, dg::tuned_solver_options(problem.options));
  solver.project(dg::tuned_flow(problem.initial, problem.options.gamma), 0.0);
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
    const Case problem = load_case(supersonic_vortex_case(), backend);
    Solver solver(problem.mesh, problem.connectivity, dg::tuned_solver_options(problem.options));
    solver.project(dg::tuned_flow(problem.initial, problem.options.gamma), 0.0);
    dts[i++] = solver.stable_time_step(0.5);
  }
  EXPECT_EQ(dts[0], dts[1]);
}

TEST(GpuEuler2d, LimitedDoubleMachAgreesWithCpuAfter50Steps) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  for (const std::string variables : {"conserved", "characteristic"}) {
    std::vector<double> results[2];
    int i = 0;
    for (Backend backend : {Backend::cpu, Backend::cuda}) {
      Config config = Config::from_string(flowdg::testing::example_case("double_mach.toml"), "gpu-test");
      config.set("mesh.file=\"builtin:double-mach?ny=12\"");
      config.set("solver.limit_variables=\"" + variables + "\"");
      const Case problem = load_case(config, backend);
      Solver solver(problem.mesh, problem.connectivity, dg::tuned_solver_options(problem.options));
      solver.project(dg::tuned_flow(problem.initial, problem.options.gamma), 0.0);
      const RungeKuttaScheme scheme = runge_kutta_scheme("ssp-rk2");
      double t = 0;
      for (int step = 0; step < 50; ++step) {
        solver.step(scheme, t, 1e-4);
        t += 1e-4;
      }
      results[i++] = solver.coefficients();
    }
    double difference = 0, size = 0;
    for (std::size_t k = 0; k < results[0].size(); ++k) {
      difference = std::max(difference, std::fabs(results[0][k] - results[1][k]));
      size = std::max(size, std::fabs(results[0][k]));
    }
    std::printf("limited double Mach (%s): max |cpu - cuda| / max |cpu| = %.3e\n", variables.c_str(), difference / size);
    EXPECT_LE(difference, 1e-12 * size) << variables;
  }
}

#include "../unit/reference_states.hpp"

// The optimised CUDA kernels reproduce the states the pre-optimisation kernels wrote
// (tests/data/reference_states, commit 0efa0f8) to 1e-12 relative: every order 1..6, every flux,
// the boundary kinds, periodic faces, both limiters and positivity.
TEST(GpuEuler2d, CudaReproducesThePreOptimisationReferenceStatesTo1e12) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  using namespace flowdg::testing;
  for (const ReferenceCase& c : reference_cases()) {
    const std::vector<double> reference = read_reference(reference_path(c));
    const double difference = relative_difference(run_reference_case(c, Backend::cuda), reference);
    EXPECT_LE(difference, 1e-12) << c.name;
    std::printf("%-26s max |cuda - reference| / max |reference| = %.2e\n", c.name, difference);
  }
}

// Every CUDA element and face kernel, not only the ones the automatic choice takes, against the
// same stored states: the tensor-core kernel sums in another order (rounding-level differences);
// the face block kernel sums each trace in the point kernel's order (the same numbers).
TEST(GpuEuler2d, EveryCudaKernelVariantReproducesTheReferenceStates) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  using namespace flowdg::testing;
  const std::pair<GpuElementKernel, const char*> elements[] = {
      {GpuElementKernel::thread, "thread"}, {GpuElementKernel::block, "block"}, {GpuElementKernel::tensor, "tensor"}};
  const std::pair<GpuFaceKernel, const char*> faces[] = {{GpuFaceKernel::point, "point"}, {GpuFaceKernel::block, "block"}, {GpuFaceKernel::warp, "warp"}};
  for (const ReferenceCase& c : reference_cases()) {
    const std::vector<double> reference = read_reference(reference_path(c));
    for (const auto& [element, element_name] : elements)
      for (const auto& [face, face_name] : faces) {
        const double difference = relative_difference(run_reference_case(c, Backend::cuda, element, face), reference);
        EXPECT_LE(difference, 1e-12) << c.name << " element " << element_name << ", faces " << face_name;
        std::printf("%-26s element %-6s faces %-5s: %.2e\n", c.name, element_name, face_name, difference);
      }
  }
}

// The same through the core's operator (its triangle group on the tuned kernels), every variant;
// and from the same initial state (the two engines' projections use different rules) the
// stand-alone solver and the core's group give the same bits with the same kernels.
TEST(GpuEuler2d, EveryCudaKernelVariantThroughTheCoreReproducesTheReferenceStates) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  using namespace flowdg::testing;
  const char* elements[] = {"thread", "block", "tensor"};
  const char* faces[] = {"point", "block", "warp"};
  for (const ReferenceCase& c : reference_cases()) {
    const std::vector<double> reference = read_reference(reference_path(c));
    for (const char* element : elements)
      for (const char* face : faces) {
        const double difference = relative_difference(run_reference_case_through_core(c, Backend::cuda, element, face), reference);
        EXPECT_LE(difference, 1e-12) << c.name << " element " << element << ", faces " << face;
        std::printf("%-26s core: element %-6s faces %-5s: %.2e\n", c.name, element, face, difference);
      }
    ReferenceCase projection_only = c;
    projection_only.steps = 0;
    const std::vector<double> initial = run_reference_case(projection_only, Backend::cuda);
    const std::vector<double> core = run_reference_case_through_core(c, Backend::cuda, "automatic", "automatic", true, &initial);
    const std::vector<double> solver = run_reference_case(c, Backend::cuda);
    ASSERT_EQ(core.size(), solver.size()) << c.name;
    std::size_t differing = 0;
    for (std::size_t i = 0; i < core.size(); ++i) differing += core[i] != solver[i] ? 1 : 0;
    EXPECT_EQ(differing, 0u) << c.name << ": the core's tuned group and the stand-alone solver differ";
  }
}

// Chained (programmatic dependent) and plain launches run the same kernels: bit for bit the same.
TEST(GpuEuler2d, ChainedAndPlainLaunchesGiveTheSameBits) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  using namespace flowdg::testing;
  for (const ReferenceCase& c : reference_cases()) {
    const std::vector<double> chained = run_reference_case(c, Backend::cuda, GpuElementKernel::automatic, GpuFaceKernel::automatic, true);
    const std::vector<double> plain = run_reference_case(c, Backend::cuda, GpuElementKernel::automatic, GpuFaceKernel::automatic, false);
    ASSERT_EQ(chained.size(), plain.size()) << c.name;
    std::size_t differing = 0;
    for (std::size_t i = 0; i < plain.size(); ++i) differing += chained[i] != plain[i] ? 1 : 0;
    EXPECT_EQ(differing, 0u) << c.name;
  }
}
