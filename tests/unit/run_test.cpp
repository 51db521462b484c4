// The solver-agnostic case loader and time loop (cases/case.hpp, cases/run.hpp) on meshes only
// the DG core runs: 3D tetrahedra and hexahedra-free boxes, quadrilaterals; restart, output
// files, refused options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "flowdg/cases/run.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/io/checkpoint.hpp"
#include "core_cases.hpp"

using namespace flowdg;

namespace {

const char* tetrahedron_vortex = R"(
[case]
name = "tet-vortex"
[mesh]
file = "builtin:box?lx=6&ly=6&lz=1.5&nx=4&ny=4&nz=1"
[flow]
kind = "isentropic-vortex"
u = 1.0
v = 1.0
w = 0.5
center = [3.0, 3.0, 0.0]
[solver]
order = 2
[time]
scheme = "rk4"
cfl = 0.2
max_steps = 6
[boundary.xmin]
type = "prescribed"
[boundary.xmax]
type = "prescribed"
[boundary.ymin]
type = "prescribed"
[boundary.ymax]
type = "prescribed"
[boundary.zmin]
type = "periodic"
partner = "zmax"
translation = [0.0, 0.0, 1.5]
)";

const char* const quadrilateral_vortex = flowdg::testing::quadrilateral_vortex_case;

Case make(const char* text, const std::vector<std::string>& overrides = {}) {
  Config config = Config::from_string(text, "test case");
  for (const std::string& assignment : overrides) config.set(assignment);
  return load_case(config, Backend::cpu);
}

std::filesystem::path fresh_directory(const std::string& name) {
  const auto directory = std::filesystem::temp_directory_path() / cat("flowdg_run_test_", name, "_", ::getpid());
  std::filesystem::remove_all(directory);
  return directory;
}

}  // namespace

TEST(RunLoop, ATetrahedralVortexRunsWithOutputAndErrors) {
  Case problem = make(tetrahedron_vortex);
  EXPECT_EQ(problem.physics(), "euler3d");
  EXPECT_DOUBLE_EQ(problem.initial.period.z, 1.5);  // the vortex wraps across the periodic direction
  const auto directory = fresh_directory("tet");
  problem.output_directory = directory.string();
  RunOptions options;
  options.quiet = true;
  const RunResult result = run_case(problem, options);
  EXPECT_EQ(result.steps, 6);
  EXPECT_EQ(result.implementation, "portable core kernels");
  ASSERT_TRUE(result.errors.has_value());
  ASSERT_EQ(result.errors->l2.size(), 5u);
  EXPECT_LT(result.errors->l2[0], 6e-2);  // p = 2, h = 1.5: validation.md has 4.1e-2 (the projection dominates)
  EXPECT_GT(result.errors->l2[0], 1e-6);  // and not trivially zero
  EXPECT_TRUE(std::filesystem::exists(directory / "solution.vtu"));
  const Checkpoint checkpoint = read_checkpoint((directory / "checkpoint.h5").string());
  EXPECT_EQ(checkpoint.physics, "euler3d");
  EXPECT_EQ(checkpoint.n_variables, 5);
  EXPECT_EQ(checkpoint.n_basis_total, 10 * problem.mesh.n_elements());  // tetrahedra at p = 2
  std::ifstream summary(directory / "summary.json");
  const std::string text((std::istreambuf_iterator<char>(summary)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"physics\": \"euler3d\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"status\": \"completed\""), std::string::npos) << text;
  std::filesystem::remove_all(directory);
}

TEST(RunLoop, ARestartedQuadrilateralRunEqualsTheUninterruptedOneBitForBit) {
  const auto directory = fresh_directory("restart");
  RunOptions options;
  options.quiet = true;
  Case whole = make(quadrilateral_vortex);
  whole.output_directory = (directory / "whole").string();
  run_case(whole, options);
  Case first = make(quadrilateral_vortex, {"time.max_steps=5"});
  first.output_directory = (directory / "first").string();
  run_case(first, options);
  Case second = make(quadrilateral_vortex);
  second.output_directory = (directory / "second").string();
  options.restart = (directory / "first" / "checkpoint.h5").string();
  const RunResult result = run_case(second, options);
  EXPECT_EQ(result.steps, 7);
  const Checkpoint a = read_checkpoint((directory / "whole" / "checkpoint.h5").string());
  const Checkpoint b = read_checkpoint((directory / "second" / "checkpoint.h5").string());
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.time, b.time);
  EXPECT_EQ(a.coefficients, b.coefficients);  // bit for bit
  std::filesystem::remove_all(directory);
}

TEST(RunLoop, OptionsTheMeshCannotRunAreRefusedWhenTheCaseIsLoaded) {
  const auto expect_error = [](const char* text, const std::vector<std::string>& overrides, const std::string& fragment) {
    try {
      (void)make(text, overrides);
      ADD_FAILURE() << "no error for " << fragment;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  expect_error(quadrilateral_vortex, {"solver.limiter=\"barth-jespersen\""}, "straight-sided triangles only");
  expect_error(quadrilateral_vortex, {"solver.kernels=\"tuned\""}, "straight-sided");
  expect_error(quadrilateral_vortex, {"solver.kernels=\"fast\""}, "valid: automatic, portable, tuned");
  expect_error(quadrilateral_vortex, {"solver.precision=\"half\""}, "valid: double, single");
  expect_error(quadrilateral_vortex, {"flow.w=0.5"}, "a 2D case has no z-velocity");
  expect_error(quadrilateral_vortex, {"flow.center=[0.0, 0.0, 0.0]"}, "expected [x, y]");
  expect_error(tetrahedron_vortex, {"boundary.zmin.translation=[0.0, 1.5]"}, "[dx, dy, dz]");
  expect_error(tetrahedron_vortex, {"solver.order=9"}, "out of range (0..4)");
  expect_error(tetrahedron_vortex, {"boundary.xmin.type=\"curvature-wall\""}, "curvature");
  expect_error(tetrahedron_vortex, {"time.dt_every=0"}, "dt_every");
}

TEST(RunLoop, SinglePrecisionRunsThroughTheCaseFile) {
  Case problem = make(quadrilateral_vortex, {"solver.precision=\"single\""});
  RunOptions options;
  options.quiet = true;
  options.write_summary = false;
  const RunResult single = run_case(problem, options);
  const RunResult reference = run_case(make(quadrilateral_vortex), options);
  ASSERT_TRUE(single.errors && reference.errors);
  EXPECT_NEAR(single.errors->l2[0], reference.errors->l2[0], 1e-3 * reference.errors->l2[0]);
}

TEST(RunLoop, SupersonicVortexOnTheCurvedAnnulusConvergesWithPlainSlipWalls) {
  // Bassi & Rebay's observation, the reason for curved elements: with a plain slip wall on the
  // straight-sided annulus the error stalls at ~1e-2 whatever p; on triangles of order p + 1 (4 at
  // most) whose wall nodes lie on the circles it converges at p + 1 (docs/validation.md: meshes A-C).
  const std::string example = std::string(FLOWDG_SOURCE_DIR) + "/examples/supersonic_vortex.toml";
  const auto error = [&](int order, int geometry, int refine) {
    Config config = Config::from_file(example);
    config.set(cat("mesh.file=\"builtin:annulus?order=", geometry, "&refine=", refine, "\""));
    config.set(cat("solver.order=", order));
    config.set("boundary.inner.type=\"slip-wall\"");
    config.set("boundary.outer.type=\"slip-wall\"");
    config.set("time.cfl=0.6");
    config.set("time.steady_tolerance=0");
    config.set("time.end_time=1.0");  // past the transient of the projection: ~1 flow-through time
    RunOptions options;
    options.quiet = true;
    options.write_summary = false;
    return run_case(load_case(config, Backend::cpu), options).errors->l2[0];
  };
  for (int order = 1; order <= 4; ++order) {
    const int geometry = std::min(order + 1, 4);
    const double curved[2] = {error(order, geometry, 0), error(order, geometry, 1)};
    const double straight[2] = {error(order, 1, 0), error(order, 1, 1)};
    const double rate = std::log2(curved[0] / curved[1]), straight_rate = std::log2(straight[0] / straight[1]);
    std::printf("supersonic vortex p = %d: order-%d walls %.3e %.3e (rate %.2f); straight %.3e %.3e (rate %.2f)\n", order,
                geometry, curved[0], curved[1], rate, straight[0], straight[1], straight_rate);
    EXPECT_GE(rate, order + 0.5) << "p = " << order;
    EXPECT_LT(straight_rate, 2.0) << "p = " << order;
    EXPECT_GT(straight[1], 1e-3) << "p = " << order << ": the straight wall's error stalls";
  }
}

TEST(RunLoop, TheSteadyStateCheckEveryNStepsStopsAtTheFirstCheckBelowTheTolerance) {
  // time.steady_every spaces the steady-state check (max |c^{n+1} - c^n|, a state copy and a host
  // read-back) out: the run stops at the first step that is a multiple of it and below the
  // tolerance, so no earlier than with a check every step and at most steady_every - 1 steps later,
  // with the change of that step reported.
  const std::string example = std::string(FLOWDG_SOURCE_DIR) + "/examples/supersonic_vortex.toml";
  const auto run = [&](const std::vector<std::string>& overrides) {
    Config config = Config::from_file(example);
    config.set("mesh.file=\"builtin:annulus?order=2&refine=0\"");
    config.set("solver.order=1");
    config.set("time.steady_tolerance=1e-6");
    config.set("time.max_steps=20000");
    for (const std::string& assignment : overrides) config.set(assignment);
    RunOptions options;
    options.quiet = true;
    options.write_summary = false;
    return run_case(load_case(config, Backend::cpu), options);
  };
  const RunResult every = run({});
  ASSERT_TRUE(every.converged);
  EXPECT_LT(every.last_change, 1e-6);
  EXPECT_GT(every.steps, 20) << "converged too soon to tell the checks apart";
  for (const long long spacing : {7LL, 50LL}) {
    const RunResult spaced = run({cat("time.steady_every=", spacing)});
    ASSERT_TRUE(spaced.converged) << spacing;
    EXPECT_EQ(spaced.steps % spacing, 0) << spacing;
    EXPECT_GE(spaced.steps, every.steps) << spacing;
    EXPECT_LT(spaced.steps, every.steps + spacing) << spacing;
    EXPECT_LT(spaced.last_change, 1e-6) << spacing;
    EXPECT_GT(spaced.last_change, 0.0) << spacing;
  }
  for (const char* bad : {"time.steady_every=0", "time.steady_every=-3"})
    EXPECT_THROW(run({bad}), InputError) << bad;
  Config config = Config::from_file(example);
  config.set("time.steady_tolerance=0");
  config.set("time.max_steps=10");
  config.set("time.steady_every=10");
  EXPECT_THROW(load_case(config, Backend::cpu), InputError) << "steady_every without steady_tolerance";
}
