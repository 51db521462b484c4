// 2D Euler modal DG: free-stream preservation, conservation, the fused Runge-Kutta update against
// the reference driver, convergence rates against exact solutions and the 2015 paper's Table 3.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "flowdg/cases/run.hpp"
#include "flowdg/dg/tuned_triangle_operator.hpp"
#include "flowdg/core/config.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/time/runge_kutta.hpp"
#include "example_cases.hpp"

using namespace flowdg;
using namespace flowdg::euler2d;

namespace {

Case make_case(const std::string& toml, const std::vector<std::string>& overrides = {}) {
  Config config = Config::from_string(toml, "test-case");
  for (const auto& assignment : overrides) config.set(assignment);
  return load_case(config, Backend::cpu);
}

/// A uniform flow on a randomly perturbed mesh with the free stream prescribed on every boundary.
const char* free_stream_case = R"(
[case]
name = "free-stream"
[mesh]
file = "builtin:rectangle?nx=12&ny=10&x0=0&x1=1.2&y0=0&y1=1&perturbation=0.3"
[flow]
kind = "uniform"
rho = 1.2
u = 0.7
v = -0.4
p = 0.9
[solver]
order = 3
flux = "roe"
[time]
scheme = "ssp-rk3"
cfl = 0.5
max_steps = 100
[boundary.left]
type = "prescribed"
[boundary.right]
type = "farfield"
[boundary.bottom]
type = "inflow"
[boundary.top]
type = "prescribed"
)";

/// Shu's isentropic vortex on a periodic square, half-width 10 (the vortex is 1e-21 at the edges).
const char* periodic_vortex_case = R"(
[case]
name = "periodic-vortex"
[mesh]
file = "builtin:rectangle?nx=8&ny=8&x0=-10&x1=10&y0=-10&y1=10"
[flow]
kind = "isentropic-vortex"
u = 1.0
v = 0.5
strength = 5.0
[solver]
order = 2
flux = "hllc"
[time]
scheme = "lsrk54"
cfl = 0.5
max_steps = 40
[boundary.left]
type = "periodic"
partner = "right"
translation = [20.0, 0.0]
[boundary.right]
type = "periodic"
partner = "left"
translation = [-20.0, 0.0]
[boundary.bottom]
type = "periodic"
partner = "top"
translation = [0.0, 20.0]
[boundary.top]
type = "periodic"
partner = "bottom"
translation = [0.0, -20.0]
)";

/// The isentropic vortex on [-3, 3]^2 with the exact solution prescribed on the boundary.
const char* vortex_case = R"(
[case]
name = "vortex"
[mesh]
file = "builtin:rectangle?nx=8&ny=8&x0=-3&x1=3&y0=-3&y1=3"
[flow]
kind = "isentropic-vortex"
u = 1.0
v = 1.0
strength = 5.0
[solver]
order = 1
flux = "hllc"
[time]
scheme = "rk4"
cfl = 0.2
end_time = 0.2
[boundary.left]
type = "prescribed"
[boundary.right]
type = "prescribed"
[boundary.bottom]
type = "prescribed"
[boundary.top]
type = "prescribed"
)";

// The shipped example, with the CI-sized steady tolerance (1e-10) and CFL 0.6.
const std::string supersonic_vortex_case = flowdg::testing::example_case("supersonic_vortex.toml");
const std::vector<std::string> supersonic_ci = {"time.cfl=0.6", "time.steady_tolerance=1e-10", "time.max_steps=100000"};

double run_error(const std::string& toml, int order, int refine, std::vector<std::string> overrides = {}) {
  overrides.push_back(cat("solver.order=", order));
  overrides.push_back(cat("mesh.refine=", refine));
  Case problem = make_case(toml, overrides);
  RunOptions options;
  options.quiet = true;
  options.write_summary = false;
  const RunResult result = run_case(problem, options);
  EXPECT_TRUE(result.errors.has_value());
  return result.errors->l2[0];
}

}  // namespace

namespace {

/// Advances `steps` CFL-0.5 steps from t = 0; returns the final time.
double advance(Solver& solver, const std::string& scheme_name, int steps) {
  const RungeKuttaScheme scheme = runge_kutta_scheme(scheme_name);
  double t = 0;
  for (int step = 0; step < steps; ++step) {
    const double dt = solver.stable_time_step(0.5);
    solver.step(scheme, t, dt);
    t += dt;
  }
  return t;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) difference = std::max(difference, std::fabs(a[i] - b[i]));
  return difference;
}

}  // namespace

TEST(Euler2d, FreeStreamIsPreservedOnAPerturbedMesh) {
  const Case problem = make_case(free_stream_case);
  Solver solver(problem.mesh, problem.connectivity, dg::tuned_solver_options(problem.options));
  solver.project(dg::tuned_flow(problem.initial, problem.options.gamma), 0.0);
  const std::vector<double> initial = solver.coefficients();
  const double t = advance(solver, "ssp-rk3", 100);
  EXPECT_LE(max_difference(solver.coefficients(), initial), 1e-12);
  // The residual of the free stream vanishes to rounding, element by element.
  for (const double r : solver.residual(t)) ASSERT_LE(std::fabs(r), 1e-11);
}

TEST(Euler2d, FreeStreamIsPreservedAtEveryCompiledOrder) {
  for (int order = 0; order <= max_order(); ++order) {
    const Case problem = make_case(free_stream_case, {cat("solver.order=", order)});
    Solver solver(problem.mesh, problem.connectivity, dg::tuned_solver_options(problem.options));
    solver.project(dg::tuned_flow(problem.initial, problem.options.gamma), 0.0);
    const std::vector<double> initial = solver.coefficients();
    advance(solver, "lsrk54", 10);
    EXPECT_LE(max_difference(solver.coefficients(), initial), 1e-12) << "p = " << order;
  }
}

TEST(Euler2d, MassMomentumAndEnergyAreConservedOnAPeriodicMesh) {
  const Case problem = make_case(periodic_vortex_case);
  EXPECT_EQ(problem.connectivity.n_boundary_faces(), 0);
  Solver solver(problem.mesh, problem.connectivity, dg::tuned_solver_options(problem.options));
  solver.project(dg::tuned_flow(problem.initial, problem.options.gamma), 0.0);
  const auto before = solver.totals();
  advance(solver, "lsrk54", 40);
  const auto after = solver.totals();
  for (int v = 0; v < n_variables; ++v) {
    const double scale = std::max(std::fabs(before[v]), 400.0);  // domain area times a unit state
    EXPECT_LE(std::fabs(after[v] - before[v]) / scale, 1e-13) << "variable " << v;
  }
}

TEST(Euler2d, FusedStageUpdateMatchesTheReferenceRungeKuttaDriver) {
  for (const std::string name : {"ssp-rk2", "ssp-rk3", "rk4", "lsrk54"}) {
    const Case problem = make_case(vortex_case, {"solver.order=3"});
    Solver fused(problem.mesh, problem.connectivity, dg::tuned_solver_options(problem.options));
    Solver reference(problem.mesh, problem.connectivity, dg::tuned_solver_options(problem.options));
    fused.project(dg::tuned_flow(problem.initial, problem.options.gamma), 0.0);
    reference.project(dg::tuned_flow(problem.initial, problem.options.gamma), 0.0);
    const RungeKuttaScheme scheme = runge_kutta_scheme(name);
    const double dt = fused.stable_time_step(0.3);
    double t = 0;
    for (int step = 0; step < 3; ++step) {
      fused.step(scheme, t, dt);
      std::vector<double> u = reference.coefficients();
      runge_kutta_step(scheme, t, dt, u, [&](double time, const std::vector<double>& state, std::vector<double>& k) {
        reference.set_coefficients(state);
        k = reference.residual(time);
      });
      reference.set_coefficients(u);
      t += dt;
    }
    const auto a = fused.coefficients(), b = reference.coefficients();
    double difference = 0, size = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      difference = std::max(difference, std::fabs(a[i] - b[i]));
      size = std::max(size, std::fabs(b[i]));
    }
    EXPECT_LE(difference, 1e-13 * size) << name;
  }
}

// Interior faces numbered by their lower element (the default, for the GPU face kernels' memory
// locality) or as the mesh numbers them: the same numbers, bit for bit, since an element sums its
// faces by local index whatever their numbers.
TEST(Euler2d, FaceNumberingDoesNotChangeTheResult) {
  std::vector<double> results[2];
  for (const bool by_element : {true, false}) {
    Case problem = make_case(flowdg::testing::example_case("supersonic_vortex.toml"), {"mesh.refine=1", "solver.order=2"});
    problem.options.faces_by_element = by_element;
    Solver solver(problem.mesh, problem.connectivity, dg::tuned_solver_options(problem.options));
    solver.project(dg::tuned_flow(problem.initial, problem.options.gamma), 0.0);
    const RungeKuttaScheme scheme = runge_kutta_scheme("lsrk54");
    for (int step = 0; step < 10; ++step) solver.step(scheme, step * 1e-3, 1e-3);
    results[by_element ? 0 : 1] = solver.coefficients();
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  EXPECT_EQ(std::memcmp(results[0].data(), results[1].data(), results[0].size() * sizeof(double)), 0);
}

TEST(Euler2d, IsentropicVortexConvergesAtTheDesignOrder) {
  // p + 1 - 0.2 at the finest pair of 512, 2048 and 8192 triangles (CI-sized; docs/validation.md
  // has the longer runs).
  for (int order = 1; order <= 4; ++order) {
    std::vector<double> errors;
    for (int level = 1; level <= 3; ++level) errors.push_back(run_error(vortex_case, order, level));
    const double rate = std::log2(errors[1] / errors[2]);
    std::printf("isentropic vortex p = %d: L2(rho) %.3e %.3e %.3e, finest rate %.2f\n", order, errors[0], errors[1], errors[2], rate);
    EXPECT_GE(rate, order + 1 - 0.2) << "p = " << order;
  }
}

TEST(Euler2d, SupersonicVortexMatchesThePaperOnMeshesAToC) {
  // Fuhry, Giuliani & Krivodonova (2015), Table 3: L2 density error at steady state. Our errors
  // are never worse than 3x the paper's; at p = 2 they are 2.4-4.5x smaller (our p = 2 rates are
  // 3.2 where the paper's are 2.6-2.9), so only the upper bound is asserted: docs/validation.md.
  const double paper[2][3] = {{4.934e-3, 1.226e-3, 3.267e-4}, {3.708e-4, 6.003e-5, 8.077e-6}};
  for (int order = 1; order <= 2; ++order) {
    std::vector<double> errors;
    for (int level = 0; level < 3; ++level) {
      errors.push_back(run_error(supersonic_vortex_case, order, level, supersonic_ci));
      EXPECT_LE(errors.back(), 3.0 * paper[order - 1][level]) << "p = " << order << " mesh " << char('A' + level);
    }
    const double rate = std::log2(errors[1] / errors[2]);
    std::printf("supersonic vortex p = %d: L2(rho) %.3e %.3e %.3e, finest rate %.2f\n", order, errors[0], errors[1], errors[2], rate);
    EXPECT_GE(rate, order + 1 - 0.3) << "p = " << order;
  }
}

TEST(Euler2dCase, BadCaseFilesAreRejectedBeforeAnyWork) {
  auto expect_error = [](const std::vector<std::string>& overrides, const std::string& fragment) {
    try {
      (void)make_case(supersonic_vortex_case, overrides);
      ADD_FAILURE() << "no error for " << fragment;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  expect_error({"solver.ordr=2"}, "unknown key 'ordr'");
  expect_error({"solver.order=\"two\""}, "expected an integer");
  expect_error({"solver.order=99"}, "out of range");
  expect_error({"solver.flux=\"godunov\""}, "godunov");
  expect_error({"mesh.file=\"/nonexistent/mesh.msh\""}, "nonexistent");
  expect_error({"boundary.nozzle.type=\"outflow\""}, "'nozzle' is not a boundary tag");
  expect_error({"boundary.inner.type=\"sticky\""}, "unknown boundary condition 'sticky'");
  expect_error({"time.scheme=\"euler\""}, "euler");
  expect_error({"flow.kind=\"tornado\""}, "tornado");
  expect_error({"solver.limiter=\"minmod\""}, "unknown limiter 'minmod'");
  expect_error({"solver.limit_variables=\"primitive\""}, "limit_variables");
  expect_error({"solver.volume_quadrature=\"2p-2\""}, "volume_quadrature: '2p-2'");
  expect_error({"solver.volume_quadrature=\"p\""}, "valid: \"2p\"");
  expect_error({"solver.positivity=1"}, "expected true or false");
  expect_error({"output.vtu_cells=\"quadratic\""}, "vtu_cells");
  expect_error({"output.every=3"}, "unknown key 'every'");
  expect_error({"mesh.file=\"builtin:double-mach?ny=7\""}, "multiple of 6");
  // A mesh tag without a condition.
  std::string toml = supersonic_vortex_case;
  toml = toml.substr(0, toml.find("[boundary.outflow]"));
  try {
    (void)load_case(Config::from_string(toml, "test-case"), Backend::cpu);
    ADD_FAILURE() << "no error for a tag without a condition";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("'outflow' of the mesh has no condition"), std::string::npos) << error.what();
  }
}
