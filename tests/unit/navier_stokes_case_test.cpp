// Navier-Stokes case files (cases/case.cpp): the [physics] table, the viscous boundary conditions
// and flows, the refused inputs (one line each, before any work), and a short run of the shipped
// Couette example through the time loop, restarted bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>

#include "example_cases.hpp"
#include "flowdg/cases/run.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/io/checkpoint.hpp"
#include "flowdg/time/runge_kutta.hpp"

using namespace flowdg;

namespace {

Case make(const std::string& text, const std::vector<std::string>& overrides = {}) {
  Config config = Config::from_string(text, "test case");
  for (const std::string& assignment : overrides) config.set(assignment);
  return load_case(config, Backend::cpu);
}

/// The shipped Couette example, its mesh path made absolute (the text is read without its folder).
std::string couette_case() { return flowdg::testing::couette_example(); }

/// The text without its first line that starts with `start` (a key removed).
std::string without(std::string text, const std::string& start) {
  const std::size_t at = text.find("\n" + start);
  if (at == std::string::npos) throw Error("no line starting with " + start);
  text.erase(at + 1, text.find('\n', at + 1) - at);
  return text;
}

void expect_error(const std::string& text, const std::vector<std::string>& overrides, const std::string& fragment) {
  try {
    (void)make(text, overrides);
    ADD_FAILURE() << "no error for " << fragment;
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

const char* const euler_channel = R"(
[mesh]
file = "builtin:rectangle?nx=4&ny=2&x0=0&x1=2&y0=0&y1=1"
[flow]
kind = "uniform"
u = 0.5
[time]
max_steps = 1
[boundary.bottom]
type = "slip-wall"
[boundary.top]
type = "slip-wall"
[boundary.left]
type = "inflow"
[boundary.right]
type = "outflow"
)";

}  // namespace

TEST(NavierStokesCase, TheCouetteExampleSetsThePhysicsWallsAndFlow) {
  const Case problem = make(couette_case());
  EXPECT_EQ(problem.physics(), "navier_stokes2d");
  const dg::OperatorOptions& options = problem.options;
  EXPECT_TRUE(options.viscous.enabled);
  EXPECT_DOUBLE_EQ(options.viscous.scales.mach, 0.1);
  EXPECT_DOUBLE_EQ(options.viscous.scales.reynolds, 100.0);
  EXPECT_EQ(options.viscous.scales.law, physics::ViscosityLaw::constant);
  const dg::BoundarySpec& top = options.boundary[problem.mesh.require_tag("top")];
  EXPECT_EQ(top.kind, physics::BoundaryKind::isothermal_wall);
  EXPECT_DOUBLE_EQ(top.wall_temperature, 0.85);
  EXPECT_DOUBLE_EQ(top.wall_velocity.x, 1.0);
  EXPECT_EQ(problem.initial.kind, physics::FlowKind::couette);
  EXPECT_DOUBLE_EQ(problem.initial.wall_temperature[1], 0.85);
  EXPECT_DOUBLE_EQ(problem.initial.mach, 0.1);
}

TEST(NavierStokesCase, AFreeStreamFollowsMachAndTheAngleOfAttack) {
  const std::string text = without(std::string(euler_channel), "u = 0.5") + "[physics]\nmach = 0.5\nangle_of_attack = 30.0\n";
  const Case problem = make(text, {"flow.kind=\"free-stream\""});
  EXPECT_EQ(problem.physics(), "euler2d");
  EXPECT_DOUBLE_EQ(problem.initial.density, 1.0);
  EXPECT_NEAR(problem.initial.velocity.x, std::sqrt(3.0) / 2, 1e-15);
  EXPECT_NEAR(problem.initial.velocity.y, 0.5, 1e-15);
  EXPECT_NEAR(problem.initial.pressure, 1.0 / (1.4 * 0.25), 1e-14);
  // The far field and inflow take it as their outer state.
  EXPECT_NEAR(problem.options.boundary[problem.mesh.require_tag("left")].flow.velocity.y, 0.5, 1e-15);
}

TEST(NavierStokesCase, BadViscousInputIsRefusedWithOneLine) {
  const std::string couette = couette_case();
  expect_error(without(couette, "reynolds ="), {}, "reynolds: required");
  expect_error(without(couette, "mach ="), {}, "mach: required");
  expect_error(couette, {"physics.equations=\"stokes\""}, "valid: euler, navier-stokes");
  expect_error(couette, {"physics.viscosity=\"power\""}, "valid: sutherland, constant");
  expect_error(without(couette, "wall_temperature = 0.8\n"), {}, "an isothermal wall needs its temperature");
  expect_error(couette, {"boundary.bottom.wall_temperature=-1.0"}, "must be positive");
  expect_error(couette, {"physics.viscosity=\"sutherland\""}, "exact for constant viscosity");
  expect_error(couette, {"solver.precision=\"single\""}, "double precision only");
  expect_error(couette, {"solver.order=5"}, "out of range (0..4)");
  expect_error(couette, {"solver.br2_eta=-1.0"}, "br2_eta");
  // Euler cases: no viscous walls, no viscous keys, no viscous flows.
  expect_error(euler_channel, {"boundary.bottom.type=\"no-slip-wall\""}, "needs [physics] equations = \"navier-stokes\"");
  expect_error(std::string(euler_channel) + "[physics]\nreynolds = 10.0\n", {}, "a Navier-Stokes setting");
  expect_error(euler_channel, {"flow.kind=\"couette\""}, "'couette' is a viscous flow");
  expect_error(without(euler_channel, "u = 0.5"), {"flow.kind=\"free-stream\""}, "needs [physics] mach");
  expect_error(euler_channel, {"boundary.bottom.wall_velocity=[1.0, 0.0]"}, "only no-slip walls");
}

TEST(NavierStokesCase, TheCouetteExampleRunsAndRestartsBitForBit) {
  const auto directory = std::filesystem::temp_directory_path() / cat("flowdg_ns_case_", ::getpid());
  std::filesystem::remove_all(directory);
  RunOptions options;
  options.quiet = true;
  const std::vector<std::string> short_run = {"time.end_time=1000.0", "solver.order=1", "output.vtu=false"};
  const auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), short_run.begin(), short_run.end());
    return extra;
  };
  Case whole = make(couette_case(), with({"time.max_steps=12"}));
  whole.output_directory = (directory / "whole").string();
  const RunResult result = run_case(whole, options);
  EXPECT_EQ(result.steps, 12);
  ASSERT_TRUE(result.errors.has_value());
  // From the exact solution, 12 steps in: the density error is the p = 1 discretisation's (mesh D:
  // the paper's 1.66e-5 at the steady state), not zero and not grown.
  EXPECT_GT(result.errors->l2[0], 1e-7);
  EXPECT_LT(result.errors->l2[0], 1e-4);
  Case first = make(couette_case(), with({"time.max_steps=5"}));
  first.output_directory = (directory / "first").string();
  run_case(first, options);
  Case second = make(couette_case(), with({"time.max_steps=12"}));
  second.output_directory = (directory / "second").string();
  options.restart = (directory / "first" / "checkpoint.h5").string();
  run_case(second, options);
  const Checkpoint a = read_checkpoint((directory / "whole" / "checkpoint.h5").string());
  const Checkpoint b = read_checkpoint((directory / "second" / "checkpoint.h5").string());
  EXPECT_EQ(a.physics, "navier_stokes2d");
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.coefficients, b.coefficients);  // bit for bit
  std::filesystem::remove_all(directory);
}

TEST(NavierStokesCase, TheKernelVariantKeysReachTheOperatorAndBadNamesAreRefused) {
  RunOptions options;
  options.quiet = true;
  const std::vector<std::string> short_run = {"time.max_steps=2", "solver.order=1", "output.vtu=false"};
  // On the CPU a variant changes nothing: the thread kernels run either way.
  auto overrides = short_run;
  overrides.push_back("solver.element_kernel=\"block\"");
  overrides.push_back("solver.face_kernel=\"point\"");
  overrides.push_back("solver.lifting_kernel=\"tensor\"");
  Case named = make(couette_case(), overrides);
  EXPECT_EQ(named.options.element_kernel, "block");
  EXPECT_EQ(named.options.face_kernel, "point");
  EXPECT_EQ(named.options.lifting_kernel, "tensor");
  for (const char* key : {"element_kernel", "lifting_kernel"}) {
    overrides = short_run;
    overrides.push_back(cat("solver.", key, "=\"fast\""));
    Case bad = make(couette_case(), overrides);
    bad.output_directory = (std::filesystem::temp_directory_path() / cat("flowdg_ns_kernel_", ::getpid())).string();
    const std::string expected = std::string(key) == "element_kernel" ? "unknown element kernel 'fast'" : "unknown lifting kernel 'fast'";
    try {
      (void)run_case(bad, options);
      ADD_FAILURE() << key << " = \"fast\" ran";
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
    }
    std::filesystem::remove_all(bad.output_directory);
  }
}

TEST(NavierStokesCase, TheResidualMonitorWritesItsCsvAndStopsTheRunAtItsTolerance) {
  const auto directory = std::filesystem::temp_directory_path() / cat("flowdg_ns_residuals_", ::getpid());
  std::filesystem::remove_all(directory);
  RunOptions options;
  options.quiet = true;
  const std::vector<std::string> common = {"time.end_time=1000.0", "solver.order=1", "output.vtu=false", "time.residual_every=4"};
  const auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), common.begin(), common.end());
    return extra;
  };
  // Monitoring only: 12 steps, a line every 4 (steps 4, 8, 12), the L2 norms of du/dt positive
  // and finite (the exact Couette solution is not the discrete steady state: its residual is the
  // discretisation's, small but not zero), and the run not marked steady.
  Case monitored = make(couette_case(), with({"time.max_steps=12"}));
  monitored.output_directory = (directory / "monitored").string();
  const RunResult plain = run_case(monitored, options);
  EXPECT_EQ(plain.steps, 12);
  EXPECT_FALSE(plain.converged);
  std::ifstream csv(directory / "monitored" / "residuals.csv");
  std::string header, line;
  std::getline(csv, header);
  EXPECT_EQ(header, "step,time,rho,rho_u,rho_v,energy");
  std::vector<std::string> lines;
  while (std::getline(csv, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].substr(0, 2), "4,");
  EXPECT_EQ(lines[2].substr(0, 3), "12,");
  double rho_rate = -1, energy_rate = -1;
  ASSERT_EQ(std::sscanf(lines[0].c_str(), "%*d,%*f,%lf,%*f,%*f,%lf", &rho_rate, &energy_rate), 2) << lines[0];
  EXPECT_GT(rho_rate, 0.0);
  EXPECT_LT(rho_rate, 1.0);
  EXPECT_GT(energy_rate, 0.0);
  // A tolerance above that residual stops the run at the first monitored step, marked steady; the
  // monitor's detour through the coefficients leaves the state as it was (same as the plain run's
  // after 4 steps, bit for bit).
  Case stopped = make(couette_case(), with({"time.max_steps=12", cat("time.residual_tolerance=", 1e3)}));
  stopped.output_directory = (directory / "stopped").string();
  const RunResult early = run_case(stopped, options);
  EXPECT_EQ(early.steps, 4);
  EXPECT_TRUE(early.converged);
  Case four = make(couette_case(), with({"time.max_steps=4", "time.residual_every=0"}));
  four.output_directory = (directory / "four").string();
  run_case(four, options);
  const Checkpoint a = read_checkpoint((directory / "stopped" / "checkpoint.h5").string());
  const Checkpoint b = read_checkpoint((directory / "four" / "checkpoint.h5").string());
  EXPECT_EQ(a.coefficients, b.coefficients);
  // Bad keys.
  expect_error(couette_case(), {"time.residual_every=-1"}, "residual_every: must be >= 0");
  expect_error(couette_case(), {"time.residual_every=0", "time.residual_tolerance=1e-6"}, "needs the monitor");
  std::filesystem::remove_all(directory);
}

TEST(NavierStokesCase, ABendingWallOnStraightSidedElementsIsWarnedAbout) {
  // The annulus's arcs as polygons (order 1) are warned about; the same arcs on order-2 elements,
  // and a flat wall on straight elements, are not.
  const auto case_on = [](const std::string& mesh) {
    return make(cat(R"(
[mesh]
file = ")", mesh, R"("
[physics]
equations = "navier-stokes"
mach = 0.3
reynolds = 100.0
[flow]
kind = "free-stream"
[time]
max_steps = 1
[boundary.inner]
type = "no-slip-wall"
[boundary.outer]
type = "isothermal-wall"
wall_temperature = 1.0
[boundary.inflow]
type = "farfield"
[boundary.outflow]
type = "farfield"
)"));
  };
  const Case straight = case_on("builtin:annulus");
  ASSERT_EQ(straight.warnings.size(), 2u);
  EXPECT_NE(straight.warnings[0].find("the wall 'inner'"), std::string::npos) << straight.warnings[0];
  EXPECT_NE(straight.warnings[0].find("straight-sided"), std::string::npos);
  EXPECT_TRUE(case_on("builtin:annulus?order=2").warnings.empty());
  const Case flat = make(R"(
[mesh]
file = "builtin:rectangle?nx=4&ny=2"
[physics]
equations = "navier-stokes"
mach = 0.3
reynolds = 100.0
[flow]
kind = "free-stream"
[time]
max_steps = 1
[boundary.bottom]
type = "no-slip-wall"
[boundary.top]
type = "no-slip-wall"
[boundary.left]
type = "farfield"
[boundary.right]
type = "farfield"
)");
  EXPECT_TRUE(flat.warnings.empty());
}

TEST(NavierStokesCase, LowStorageRungeKuttaRunsTheViscousOperatorLikeSspRk3) {
  // LSRK(5,4) (the 2N-storage register form, q read and written across stages) through the
  // viscous pass: the Couette example from its exact solution, 12 steps at p = 1, stays within the
  // p = 1 discretisation error as SSP-RK3 does, and the two differ by far less than that error.
  const auto directory = std::filesystem::temp_directory_path() / cat("flowdg_ns_lsrk_", ::getpid());
  std::filesystem::remove_all(directory);
  RunOptions options;
  options.quiet = true;
  std::vector<double> errors;
  for (const char* scheme : {"ssp-rk3", "lsrk54"}) {
    Case problem = make(couette_case(), {"time.end_time=1000.0", "solver.order=1", "output.vtu=false", "time.max_steps=12",
                                         cat("time.scheme=\"", scheme, "\"")});
    problem.output_directory = (directory / scheme).string();
    const RunResult result = run_case(problem, options);
    ASSERT_TRUE(result.errors.has_value());
    errors.push_back(result.errors->l2[0]);
  }
  EXPECT_GT(errors[1], 1e-7);
  EXPECT_LT(errors[1], 1e-4);
  EXPECT_LT(std::abs(errors[1] - errors[0]), 0.1 * errors[0]);
  std::filesystem::remove_all(directory);
}

namespace {

/// The last row of a run's forces.csv: cd, cl, cd_pressure, cd_viscous.
std::vector<double> last_forces(const std::filesystem::path& directory) {
  std::ifstream csv(directory / "forces.csv");
  std::string line, last;
  while (std::getline(csv, line))
    if (!line.empty()) last = line;
  double cd = 0, cl = 0, cdp = 0, cdv = 0;
  EXPECT_EQ(std::sscanf(last.c_str(), "%*d,%*f,%lf,%lf,%lf,%lf", &cd, &cl, &cdp, &cdv), 4) << last;
  return {cd, cl, cdp, cdv};
}

}  // namespace

// examples/naca0012_half.toml is the whole airfoil's case on the upper half of its C-mesh with a
// symmetry plane and the forces over half the chord: 30 steps from the free stream at p = 1 give
// the whole case's drag and its pressure and viscous parts. Not to rounding: the symmetry
// condition (the mirrored ghost state, no shear or heat flux through the plane) is another
// discretisation of the plane than the whole mesh's interior faces between mirrored cells, 1e-7
// apart here; a wrong reference length (a factor 2) or a missing plane is far outside 1e-5.
TEST(NavierStokesCase, TheHalfNacaCaseGivesTheWholeAirfoilsDrag) {
  const auto directory = std::filesystem::temp_directory_path() / cat("flowdg_naca_half_", ::getpid());
  std::filesystem::remove_all(directory);
  RunOptions options;
  options.quiet = true;
  std::vector<std::vector<double>> forces;
  for (const std::string name : {"naca0012", "naca0012_half"}) {
    Case problem = make(flowdg::testing::example_case(name + ".toml"),
                        {cat("mesh.file=\"", FLOWDG_SOURCE_DIR, "/examples/meshes/", name, "_n1.msh\""), "solver.order=1", "time.p_continuation=[]",
                         "time.max_steps=30", "forces.every=30", "output.vtu=false"});
    problem.output_directory = (directory / name).string();
    run_case(problem, options);
    forces.push_back(last_forces(directory / name));
  }
  const std::vector<double>& whole = forces[0];
  const std::vector<double>& half = forces[1];
  EXPECT_GT(whole[0], 0.5);  // the impulsive start's viscous drag, early on
  EXPECT_LT(std::abs(whole[1]), 1e-10 * whole[0]) << "the whole airfoil at alpha = 0 has no lift";
  for (const int k : {0, 2, 3}) EXPECT_NEAR(half[k], whole[k], 1e-5 * std::abs(whole[k])) << "column " << k;
  std::filesystem::remove_all(directory);
}

// p-continuation within one run ([time] p_continuation): the stages are the runs a user would chain
// by hand with --restart at the next order, to the bit (the state handed over in memory is the
// checkpoint's); a stage ends at its residual tolerance or after its steps; a restart from a
// checkpoint of a later stage's order skips the stages below it; bad keys are refused.
TEST(NavierStokesCase, PContinuationRunsTheStagesAUserWouldChainByHand) {
  const auto directory = std::filesystem::temp_directory_path() / cat("flowdg_p_continuation_", ::getpid());
  std::filesystem::remove_all(directory);
  RunOptions options;
  options.quiet = true;
  const auto run = [&](const std::string& name, std::vector<std::string> overrides, const std::string& restart = "") {
    overrides.insert(overrides.end(), {"time.end_time=1000.0", "output.vtu=false", "time.residual_every=5"});
    Case problem = make(couette_case(), overrides);
    problem.output_directory = (directory / name).string();
    RunOptions with = options;
    with.restart = restart;
    const RunResult result = run_case(problem, with);
    return std::make_pair(result, read_checkpoint((directory / name / "checkpoint.h5").string()));
  };
  // By hand: 15 steps at p = 1, then p = 2 from its checkpoint to step 30, then p = 3 to step 40;
  // in one run: [1, 2] before 3, 15 steps each.
  run("q1", {"solver.order=1", "time.max_steps=15"});
  run("q2", {"solver.order=2", "time.max_steps=30"}, (directory / "q1" / "checkpoint.h5").string());
  const auto q3 = run("q3", {"solver.order=3", "time.max_steps=40"}, (directory / "q2" / "checkpoint.h5").string());
  const auto [result40, chained40] = run("chained40", {"solver.order=3", "time.p_continuation=[1, 2]", "time.p_continuation_steps=15",
                                                       "time.max_steps=40"});
  EXPECT_EQ(result40.steps, 10);  // the last stage's own steps
  EXPECT_EQ(chained40.step, 40);
  EXPECT_EQ(chained40.coefficients, q3.second.coefficients);
  // The residual history runs on through the stages: a line every 5 steps, 8 lines.
  {
    std::ifstream csv(directory / "chained40" / "residuals.csv");
    std::string line;
    std::vector<long long> steps;
    std::getline(csv, line);
    while (std::getline(csv, line)) steps.push_back(std::atoll(line.c_str()));
    EXPECT_EQ(steps, (std::vector<long long>{5, 10, 15, 20, 25, 30, 35, 40}));
  }
  // A tolerance above the residual ends each stage at its first monitored step (5 and 10), the
  // last stage then runs to max_steps.
  const auto [quick, quick_state] = run("tolerance", {"solver.order=3", "time.p_continuation=[1, 2]",
                                                      cat("time.p_continuation_tolerance=", 1e3), "time.max_steps=20"});
  EXPECT_EQ(quick.steps, 10);
  EXPECT_EQ(quick_state.order, 3);
  // A restart from the p = 2 checkpoint of q2 (step 30) skips the p = 1 stage: p = 2 for 15 steps
  // (to 45), then p = 3.
  const auto [restarted, restarted_state] = run("restarted", {"solver.order=3", "time.p_continuation=[1, 2]", "time.p_continuation_steps=15",
                                                               "time.max_steps=50"},
                                                (directory / "q2" / "checkpoint.h5").string());
  EXPECT_EQ(restarted.steps, 5);
  EXPECT_EQ(restarted_state.order, 3);
  EXPECT_EQ(restarted_state.step, 50);
  // max_steps reached within a stage ends the continuation there (the checkpoint at that order).
  const auto [early, early_state] = run("early", {"solver.order=3", "time.p_continuation=[1, 2]", "time.p_continuation_steps=15",
                                                  "time.max_steps=12"});
  EXPECT_EQ(early.steps, 12);
  EXPECT_EQ(early_state.order, 1);
  std::filesystem::remove_all(directory);
  // Bad keys.
  expect_error(couette_case(), {"time.p_continuation=[1, 2]", "time.p_continuation_steps=10"}, "is not an order below [solver] order = 2");
  expect_error(couette_case(), {"solver.order=3", "time.p_continuation=[2, 1]", "time.p_continuation_steps=10"}, "the orders must rise");
  expect_error(couette_case(), {"solver.order=3", "time.p_continuation=[1]"}, "say when to raise the order");
  expect_error(couette_case(), {"solver.order=3", "time.p_continuation=[1]", "time.p_continuation_tolerance=1e-3", "time.residual_every=0"},
               "needs the residual monitor");
  expect_error(couette_case(), {"time.p_continuation_steps=10"}, "need p_continuation");
  // An empty list is none (the switch for a case file that has one).
  EXPECT_TRUE(make(couette_case(), {"time.p_continuation=[]", "time.p_continuation_steps=10"}).time.p_continuation.empty());
  expect_error(couette_case(), {"solver.order=3", "time.p_continuation=[1.5]", "time.p_continuation_steps=10"}, "is not an order below");
  expect_error(couette_case(), {"solver.order=3", "time.p_continuation=[1]", "time.p_continuation_steps=0"}, "must be >= 1");
}

// p-continuation for 3D Euler on tetrahedra (issue 16 item 3): the chained run equals the hand-made
// one (3 steps at p = 1, then p = 2 from its checkpoint) bit for bit.
TEST(NavierStokesCase, PContinuationOfThreeDimensionalEulerEqualsTheHandMadeChain) {
  const auto directory = std::filesystem::temp_directory_path() / cat("flowdg_p_continuation_3d_", ::getpid());
  std::filesystem::remove_all(directory);
  RunOptions options;
  options.quiet = true;
  const std::string text = flowdg::testing::example_case("vortex3d_tetrahedra.toml");
  const auto run = [&](const std::string& name, std::vector<std::string> overrides, const std::string& restart = "") {
    overrides.insert(overrides.end(), {"mesh.file=\"builtin:box?lx=6&ly=6&lz=1.5&nx=3&ny=3&nz=1\"", "output.vtu=false"});
    Case problem = make(text, overrides);
    problem.output_directory = (directory / name).string();
    RunOptions with = options;
    with.restart = restart;
    (void)run_case(problem, with);
    return read_checkpoint((directory / name / "checkpoint.h5").string());
  };
  run("p1", {"solver.order=1", "time.max_steps=3"});
  const Checkpoint by_hand = run("p2", {"solver.order=2", "time.max_steps=6"}, (directory / "p1" / "checkpoint.h5").string());
  const Checkpoint chained = run("chained", {"solver.order=2", "time.p_continuation=[1]", "time.p_continuation_steps=3", "time.max_steps=6"});
  EXPECT_EQ(chained.order, 2);
  EXPECT_EQ(chained.step, 6);
  EXPECT_EQ(chained.n_variables, 5);
  EXPECT_EQ(chained.coefficients, by_hand.coefficients);
  std::filesystem::remove_all(directory);
}

// Issue 16's throughput case as shipped (examples/vortex3d_periodic_tetrahedra.toml): periodic in x, y
// and z — no boundary face at all — on Kuhn-split cubes whose inner nodes are moved, and so mass,
// momentum and energy stay to rounding through RK4 steps at p = 1..3.
TEST(NavierStokesCase, TheThreeDimensionalThroughputCaseIsPeriodicPerturbedAndConservative) {
  const std::string text = flowdg::testing::example_case("vortex3d_periodic_tetrahedra.toml");
  for (int order = 1; order <= 3; ++order) {
    SCOPED_TRACE(cat("p = ", order));
    const Case problem = make(text, {"mesh.file=\"builtin:box?lx=10&ly=10&lz=10&nx=3&ny=3&nz=3&perturbation=0.2\"",
                                     cat("solver.order=", order)});
    ASSERT_EQ(problem.mesh.dimension, 3);
    EXPECT_EQ(problem.connectivity.n_boundary_faces(), 0) << "every face of the box is periodic";
    // perturbed: the 2 x 2 x 2 inner nodes off the lattice of 10/3 spacing
    int off_lattice = 0;
    for (const Point3& x : problem.mesh.nodes) {
      const auto off = [](double c) { return std::abs(c * 0.3 - std::round(c * 0.3)) > 1e-9; };
      off_lattice += off(x.x) || off(x.y) || off(x.z);
    }
    EXPECT_EQ(off_lattice, 8);
    const std::unique_ptr<dg::Operator> op = dg::make_operator(problem.mesh, problem.connectivity, problem.options);
    op->project(problem.initial, 0.0);
    const RungeKuttaScheme scheme = runge_kutta_scheme(problem.time.scheme);
    ASSERT_EQ(problem.time.scheme, "rk4");
    const std::vector<double> before = op->totals(), start = op->coefficients();
    double t = 0;
    for (int step = 0; step < 3; ++step) {
      const double dt = op->stable_time_step(problem.time.cfl);
      op->step(scheme, t, dt);
      t += dt;
    }
    const std::vector<double> after = op->totals(), end = op->coefficients();
    ASSERT_EQ(after.size(), 5u);
    for (std::size_t v = 0; v < before.size(); ++v)
      EXPECT_NEAR(after[v], before[v], 1e-12 * (1 + std::abs(before[v]))) << "variable " << v;
    double moved = 0;  // (the vortex moved: the totals' test sees a changing state)
    for (std::size_t i = 0; i < start.size(); ++i) moved = std::max(moved, std::abs(end[i] - start[i]));
    EXPECT_GT(moved, 1e-3);
  }
}

// [output] entropy_error = true puts the free stream's entropy error into summary.json (absent
// unless asked); a non-uniform [flow] is refused.
TEST(NavierStokesCase, TheEntropyErrorIsReportedWhenAskedAndOnlyForAUniformFlow) {
  const auto directory = std::filesystem::temp_directory_path() / cat("flowdg_entropy_error_", ::getpid());
  std::filesystem::remove_all(directory);
  RunOptions options;
  options.quiet = true;
  const auto summary_of = [&](const std::string& name, std::vector<std::string> overrides) {
    overrides.insert(overrides.end(), {cat("mesh.file=\"", FLOWDG_SOURCE_DIR, "/examples/meshes/naca0012_half_n1.msh\""),
                                       "solver.order=1", "time.p_continuation=[]", "time.max_steps=2", "output.vtu=false"});
    Case problem = make(flowdg::testing::example_case("naca0012_half.toml"), overrides);
    problem.output_directory = (directory / name).string();
    const RunResult result = run_case(problem, options);
    std::ifstream in(directory / name / "summary.json");
    return std::make_pair(result, std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  };
  const auto [plain, plain_summary] = summary_of("plain", {});
  EXPECT_FALSE(plain.entropy_error);
  EXPECT_EQ(plain_summary.find("entropy_error"), std::string::npos);
  const auto [asked, asked_summary] = summary_of("asked", {"output.entropy_error=true"});
  ASSERT_TRUE(asked.entropy_error);
  EXPECT_GT(*asked.entropy_error, 0.0);  // an impulsive start at a no-slip wall
  EXPECT_LT(*asked.entropy_error, 1e-2);
  EXPECT_NE(asked_summary.find("\"entropy_error\""), std::string::npos);
  std::filesystem::remove_all(directory);
  expect_error(couette_case(), {"output.entropy_error=true"}, "entropy_error: measured against a uniform [flow]");
}

// [time] cfl_start / cfl_ramp_steps: the CFL number rises geometrically from cfl_start to cfl over
// the ramp's steps, and the run takes those steps (Couette: its steady state keeps dt proportional
// to the CFL number, so 4 ramped steps from 0.1 to 0.4 advance 1 + 4^(1/4) + 4^(2/4) + 4^(3/4)
// times the first step); bad values refused.
TEST(NavierStokesCase, TheCflRampRisesGeometricallyFromItsStart) {
  TimeControl control;
  control.cfl = 0.4;
  control.cfl_start = 0.1;
  control.cfl_ramp_steps = 4;
  EXPECT_DOUBLE_EQ(control.cfl_after(0), 0.1);
  EXPECT_DOUBLE_EQ(control.cfl_after(2), 0.2);
  EXPECT_DOUBLE_EQ(control.cfl_after(4), 0.4);
  EXPECT_DOUBLE_EQ(control.cfl_after(100), 0.4);
  control.cfl_ramp_steps = 0;
  EXPECT_DOUBLE_EQ(control.cfl_after(0), 0.4);

  const auto directory = std::filesystem::temp_directory_path() / cat("flowdg_cfl_ramp_", ::getpid());
  std::filesystem::remove_all(directory);
  RunOptions options;
  options.quiet = true;
  const auto run = [&](const std::vector<std::string>& extra, const std::string& name) {
    std::vector<std::string> all = {"time.end_time=1000.0", "solver.order=1", "output.vtu=false", "time.max_steps=4"};
    all.insert(all.end(), extra.begin(), extra.end());
    Case problem = make(couette_case(), all);
    problem.output_directory = (directory / name).string();
    return run_case(problem, options);
  };
  const RunResult constant = run({"time.cfl=0.1", "time.max_steps=1"}, "constant");
  const RunResult ramped = run({"time.cfl=0.4", "time.cfl_start=0.1", "time.cfl_ramp_steps=4"}, "ramped");
  const double expected = 1 + std::pow(4.0, 0.25) + std::pow(4.0, 0.5) + std::pow(4.0, 0.75);
  EXPECT_NEAR(ramped.time / constant.time, expected, 1e-3 * expected);
  const RunResult plain = run({"time.cfl=0.4"}, "plain");
  EXPECT_NEAR(plain.time / constant.time, 16.0, 1e-3 * 16);
  expect_error(couette_case(), {"time.cfl=0.4", "time.cfl_start=0.5", "time.cfl_ramp_steps=10"}, "cfl_start: must be in (0, cfl] (got 0.5)");
  expect_error(couette_case(), {"time.cfl_start=0.1"}, "cfl_start: needs cfl_ramp_steps");
  expect_error(couette_case(), {"time.cfl_ramp_steps=-2"}, "cfl_ramp_steps: must be >= 0");
  std::filesystem::remove_all(directory);
}
