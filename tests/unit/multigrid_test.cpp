// p-multigrid (cases/multigrid.hpp, dg::Operator::restrict_from / prolongate_to): the cycle's
// rules; a coarser level's forced step against the reference Runge-Kutta driver with
// R(u) - s, s built on the host from residual() and change_order, and the prolongation's exact
// correction; a steady run with cycles reaches the plain run's steady state in fewer fine steps,
// and restarts bit for bit; the [time] keys' errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "flowdg/cases/multigrid.hpp"
#include "flowdg/cases/run.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/io/checkpoint.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"

using namespace flowdg;

namespace {

MultigridCycle cycle_of(std::vector<int> orders, std::vector<long long> steps, std::vector<double> cfl = {}) {
  return {std::move(orders), std::move(steps), std::move(cfl)};
}

double largest(const std::vector<double>& values) {
  double out = 0;
  for (const double value : values) out = std::max(out, std::abs(value));
  return out;
}

/// The restriction, a forced step of `scheme` on the coarser level and the prolongation, against
/// the host: u_c = I u_f; s = R_c(u_c) - I R_f(u_f); the reference driver's step with R_c - s;
/// u_f + P (u_c' - u_c).
void check_forced_step(const Mesh& mesh, dg::OperatorOptions options, const physics::FlowSpec& flow, int fine_order, int coarse_order,
                       const std::string& scheme_name) {
  SCOPED_TRACE(cat(mesh.source, " p = ", fine_order, " -> ", coarse_order, " ", scheme_name));
  const Connectivity connectivity = build_connectivity(mesh);
  options.implementation = dg::Implementation::portable;
  options.order = fine_order;
  const auto fine = dg::make_operator(mesh, connectivity, options);
  options.order = coarse_order;
  const auto coarse = dg::make_operator(mesh, connectivity, options);
  const int NV = fine->n_variables();
  fine->project(flow, 0.0);
  const std::vector<double> u_fine = fine->coefficients(), r_fine = fine->residual(0.0);
  ASSERT_GT(largest(r_fine), 1e-3) << "a state at rest tells nothing";
  const std::vector<double> u_coarse = dg::change_order(fine->groups(), u_fine, NV, fine_order, coarse_order);
  coarse->set_coefficients(u_coarse);
  const std::vector<double> r_coarse = coarse->residual(0.0), r_restricted = dg::change_order(fine->groups(), r_fine, NV, fine_order, coarse_order);
  std::vector<double> forcing(r_coarse.size());
  for (std::size_t i = 0; i < forcing.size(); ++i) forcing[i] = r_coarse[i] - r_restricted[i];
  ASSERT_GT(largest(forcing), 1e-3) << "the orders' residuals should differ";

  const RungeKuttaScheme scheme = runge_kutta_scheme(scheme_name);
  const double dt = coarse->stable_time_step(0.2);
  std::vector<double> expected = u_coarse, unforced = u_coarse;
  const auto rhs = [&](bool forced) {
    return [&, forced](double t, const std::vector<double>& u, std::vector<double>& k) {
      coarse->set_coefficients(u);
      k = coarse->residual(t);
      if (forced)
        for (std::size_t i = 0; i < k.size(); ++i) k[i] -= forcing[i];
    };
  };
  runge_kutta_step(scheme, 0.0, dt, expected, rhs(true));
  runge_kutta_step(scheme, 0.0, dt, unforced, rhs(false));

  coarse->set_coefficients(std::vector<double>(u_coarse.size(), 0.0));  // restrict_from must set it
  coarse->restrict_from(*fine, 0.0);
  EXPECT_EQ(coarse->coefficients(), u_coarse);
  EXPECT_EQ(fine->coefficients(), u_fine) << "restriction leaves the fine level alone";
  coarse->step(scheme, 0.0, dt);
  const std::vector<double> stepped = coarse->coefficients();
  double error = 0, forcing_effect = 0;
  for (std::size_t i = 0; i < stepped.size(); ++i) {
    error = std::max(error, std::abs(stepped[i] - expected[i]));
    forcing_effect = std::max(forcing_effect, std::abs(unforced[i] - expected[i]));
  }
  const double scale = largest(u_coarse);
  EXPECT_LT(error, 1e-13 * scale) << "the forced step against the reference driver";
  EXPECT_GT(forcing_effect, 1e4 * error) << "the forcing must matter here for the comparison to mean anything";

  coarse->prolongate_to(*fine);
  const std::vector<double> corrected = fine->coefficients();
  std::vector<double> change(stepped.size());
  for (std::size_t i = 0; i < change.size(); ++i) change[i] = stepped[i] - u_coarse[i];
  const std::vector<double> padded = dg::change_order(fine->groups(), change, NV, coarse_order, fine_order);
  for (std::size_t i = 0; i < corrected.size(); ++i) ASSERT_EQ(corrected[i], u_fine[i] + padded[i]) << i;

  // A second level down restricts R - s of the level above (its forcing), not R alone.
  if (coarse_order > 0) {
    options.order = 0;
    const auto coarsest = dg::make_operator(mesh, connectivity, options);
    // (from the corrected fine state: R_c(u_c) - s_c = I R_f(u_f) there, so s_0 = R_0(u_0) - I I R_f(u_f))
    const std::vector<double> u_now = fine->coefficients(), r_now = fine->residual(0.0);
    coarse->restrict_from(*fine, 0.0);
    coarsest->restrict_from(*coarse, 0.0);
    const std::vector<double> u0 = dg::change_order(fine->groups(), u_now, NV, fine_order, 0);
    EXPECT_EQ(coarsest->coefficients(), u0);
    std::vector<double> s0 = coarsest->residual(0.0);
    const std::vector<double> r_twice =
        dg::change_order(fine->groups(), dg::change_order(fine->groups(), r_now, NV, fine_order, coarse_order), NV, coarse_order, 0);
    for (std::size_t i = 0; i < s0.size(); ++i) s0[i] -= r_twice[i];
    std::vector<double> expected0 = u0;
    coarsest->set_coefficients(u0);
    runge_kutta_step(scheme, 0.0, dt, expected0, [&](double t, const std::vector<double>& u, std::vector<double>& k) {
      coarsest->set_coefficients(u);
      k = coarsest->residual(t);
      for (std::size_t i = 0; i < k.size(); ++i) k[i] -= s0[i];
    });
    coarsest->restrict_from(*coarse, 0.0);
    coarsest->step(scheme, 0.0, dt);
    const std::vector<double> got0 = coarsest->coefficients();
    double error0 = 0;
    for (std::size_t i = 0; i < got0.size(); ++i) error0 = std::max(error0, std::abs(got0[i] - expected0[i]));
    EXPECT_LT(error0, 1e-13 * scale) << "the second level's forcing";
  }
}

dg::OperatorOptions prescribed(const Mesh& mesh, const physics::FlowSpec& flow) {
  dg::OperatorOptions options;
  options.flux = physics::RiemannKind::rusanov;
  options.boundary.assign(mesh.boundary_names.size(), dg::BoundarySpec{});
  for (dg::BoundarySpec& spec : options.boundary) {
    spec.kind = physics::BoundaryKind::prescribed;
    spec.flow = flow;
  }
  return options;
}

std::filesystem::path fresh_directory(const std::string& name) {
  const auto directory = std::filesystem::temp_directory_path() / cat("flowdg_multigrid_test_", name, "_", ::getpid());
  std::filesystem::remove_all(directory);
  return directory;
}

}  // namespace

TEST(PMultigrid, CyclesAreWalksDownAndBackThatEndAtTheRunsOrder) {
  EXPECT_EQ(check_multigrid_cycle(cycle_of({3, 2, 1, 0, 1, 2, 3}, {1, 1, 1, 4, 1, 1, 2}), 3), "");
  EXPECT_EQ(check_multigrid_cycle(cycle_of({4, 2, 0, 2, 4}, {1, 0, 3, 0, 1}), 4), "") << "orders skipped, visits without steps";
  EXPECT_EQ(check_multigrid_cycle(cycle_of({2, 1, 0, 1, 0, 1, 2}, {1, 1, 1, 1, 1, 1, 1}), 2), "") << "a W-cycle";
  const auto why = [](std::vector<int> orders, std::vector<long long> steps, int order) {
    return check_multigrid_cycle(cycle_of(std::move(orders), std::move(steps)), order);
  };
  EXPECT_NE(why({3, 2, 3}, {1, 1, 1}, 4).find("starts and ends at the run's order p = 4"), std::string::npos);
  EXPECT_NE(why({3, 2, 3}, {1, 1}, 3).find("one step count per visit"), std::string::npos);
  EXPECT_NE(why({3, 3}, {1, 1}, 3).find("at least three"), std::string::npos);
  EXPECT_NE(why({3, 1, 2, 3}, {1, 1, 1, 1}, 3).find("must return to p = 3"), std::string::npos);
  EXPECT_NE(why({3, 2, 2, 3}, {1, 1, 1, 1}, 3).find("stays at p = 2"), std::string::npos);
  EXPECT_NE(why({3, 4, 3}, {1, 1, 1}, 3).find("not in [0, 3]"), std::string::npos);
  EXPECT_NE(why({3, 2, 3}, {1, -1, 1}, 3).find(">= 0"), std::string::npos);
  EXPECT_NE(why({3, 2, 3}, {1, 1, 0}, 3).find("at least one step"), std::string::npos);
  EXPECT_NE(why({3, 1, 0, 2, 3}, {1, 1, 1, 1, 1}, 3).find("must return to p = 1"), std::string::npos);
  EXPECT_EQ(check_multigrid_cycle(cycle_of({3, 1, 3}, {1, 1, 1}, {0.8, 0.4}), 3), "");
  EXPECT_NE(check_multigrid_cycle(cycle_of({3, 1, 3}, {1, 1, 1}, {0.8, 0.4, 0.3, 0.2}), 3).find("4 CFL numbers for the 3 orders"),
            std::string::npos);
  EXPECT_NE(check_multigrid_cycle(cycle_of({3, 1, 3}, {1, 1, 1}, {0.8, 0.0}), 3).find("must be positive"), std::string::npos);
}

TEST(PMultigrid, AContinuationStageTakesTheVisitsAtOrBelowItsOrder) {
  const MultigridCycle cycle = cycle_of({4, 3, 2, 1, 0, 1, 2, 3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(multigrid_cycle_at(cycle, 4).orders, cycle.orders);
  const MultigridCycle at2 = multigrid_cycle_at(cycle, 2);
  EXPECT_EQ(at2.orders, (std::vector<int>{2, 1, 0, 1, 2}));
  EXPECT_EQ(at2.steps, (std::vector<long long>{3, 4, 5, 6, 7}));
  EXPECT_TRUE(multigrid_cycle_at(cycle, 0).empty()) << "nothing below p = 0";
  const MultigridCycle skipping = cycle_of({4, 2, 0, 2, 4}, {1, 1, 1, 1, 1});
  EXPECT_TRUE(multigrid_cycle_at(skipping, 3).empty()) << "p = 3 is not visited: plain steps";
  const MultigridCycle merged = multigrid_cycle_at(cycle_of({3, 2, 3, 2, 1, 2, 3}, {1, 2, 3, 4, 5, 6, 7}), 2);
  EXPECT_EQ(merged.orders, (std::vector<int>{2, 1, 2}));
  EXPECT_EQ(merged.steps, (std::vector<long long>{6, 5, 6})) << "2(2) 2(4) merged; the last visit of 2 ends it";
  const MultigridCycle with_cfl = multigrid_cycle_at(cycle_of({3, 2, 1, 0, 1, 2, 3}, {1, 1, 1, 1, 1, 1, 1}, {0.9, 0.6, 0.4}), 2);
  EXPECT_EQ(with_cfl.cfl, (std::vector<double>{0.9, 0.6})) << "the CFL numbers of the orders below the stage's";
}

TEST(PMultigrid, AForcedStepIsTheReferenceDriversStepWithRMinusTheForcing) {
  physics::FlowSpec vortex;
  vortex.kind = physics::FlowKind::isentropic_vortex;
  vortex.center = {1.0, 1.0, 0.0};
  vortex.velocity = {0.5, 0.3, 0.2};
  vortex.strength = 3.0;
  {
    const Mesh mesh = box_tetrahedra(2.0, 2.0, 1.0, 2, 2, 1, 0.2);
    check_forced_step(mesh, prescribed(mesh, vortex), vortex, 3, 1, "rk4");
    check_forced_step(mesh, prescribed(mesh, vortex), vortex, 2, 1, "ssp-rk3");
  }
  {
    // Curved triangles (their mass matrices stored), the supersonic vortex between the arcs.
    const Mesh mesh = curved_quarter_annulus(3, 1.0, 1.384, 3, 4);
    physics::FlowSpec flow;
    flow.kind = physics::FlowKind::supersonic_vortex;
    check_forced_step(mesh, prescribed(mesh, flow), flow, 3, 2, "ssp-rk3");
  }
}

TEST(PMultigrid, TheTunedTriangleKernelsAndOtherMeshesAreRefused) {
  const Mesh mesh = rectangle_triangles(0, 2, 0, 1, 4, 2, TriangleLayout::perturbed, 0.2);
  const Connectivity connectivity = build_connectivity(mesh);
  physics::FlowSpec flow;
  dg::OperatorOptions options = prescribed(mesh, flow);
  options.order = 2;
  const auto tuned = dg::make_operator(mesh, connectivity, options);
  options.order = 1;
  options.implementation = dg::Implementation::portable;
  const auto portable = dg::make_operator(mesh, connectivity, options);
  EXPECT_THROW(portable->restrict_from(*tuned, 0.0), InputError);
  options.order = 2;
  const auto fine = dg::make_operator(mesh, connectivity, options);
  EXPECT_THROW(fine->restrict_from(*portable, 0.0), InputError) << "a lower order is no finer level";
  EXPECT_THROW(portable->prolongate_to(*fine), InputError) << "before any restriction";
  const Mesh other = rectangle_triangles(0, 2, 0, 1, 3, 2, TriangleLayout::perturbed, 0.2);
  const auto elsewhere = dg::make_operator(other, build_connectivity(other), options);
  EXPECT_THROW(portable->restrict_from(*elsewhere, 0.0), InputError) << "another mesh";
}

TEST(PMultigrid, ASteadyRunReachesThePlainRunsStateInFewerFineSteps) {
  // The supersonic vortex at p = 2 on the curved annulus, local time steps, to a residual of 1e-9:
  // plain steps against cycles 2(1) 1(1) 0(2) 1(1) 2(1). Both end at the discretisation's steady
  // state (the same L2 error against the exact solution); the cycles take fewer p = 2 steps.
  const std::string example = std::string(FLOWDG_SOURCE_DIR) + "/examples/supersonic_vortex.toml";
  const auto directory = fresh_directory("steady");
  const auto run = [&](const std::string& name, const std::vector<std::string>& overrides, const std::string& restart = "") {
    Config config = Config::from_file(example);
    for (const char* assignment : {"mesh.file=\"builtin:annulus?order=2&refine=0\"", "solver.order=2", "time.steady_tolerance=0",
                                   "time.local_time_step=true", "time.residual_every=10", "time.residual_tolerance=1e-9",
                                   "time.max_steps=40000", "time.cfl=0.4"})
      config.set(assignment);
    for (const std::string& assignment : overrides) config.set(assignment);
    Case problem = load_case(config, Backend::cpu);
    problem.output_directory = (directory / name).string();
    problem.output.vtu = false;
    RunOptions options;
    options.quiet = true;
    options.restart = restart;
    return run_case(problem, options);
  };
  const RunResult plain = run("plain", {});
  ASSERT_TRUE(plain.converged);
  const std::vector<std::string> cycle = {"time.p_multigrid=[2, 1, 0, 1, 2]", "time.p_multigrid_steps=[1, 1, 2, 1, 1]"};
  const RunResult cycles = run("cycles", cycle);
  ASSERT_TRUE(cycles.converged);
  ASSERT_TRUE(plain.errors && cycles.errors);
  for (std::size_t v = 0; v < plain.errors->l2.size(); ++v)
    EXPECT_NEAR(cycles.errors->l2[v], plain.errors->l2[v], 1e-6 * plain.errors->l2[v]) << "variable " << v;
  const long long fine_steps = 2 * cycles.steps;
  EXPECT_LT(fine_steps * 2, plain.steps) << "cycles " << cycles.steps << ", plain steps " << plain.steps;

  // A restart continues the cycles bit for bit (the lower levels start from the restriction).
  const std::vector<std::string> short_run = {cycle[0], cycle[1], "time.residual_tolerance=0", "time.max_steps=30"};
  (void)run("whole", short_run);
  std::vector<std::string> first = short_run;
  first.back() = "time.max_steps=12";
  (void)run("first", first);
  (void)run("second", short_run, (directory / "first" / "checkpoint.h5").string());
  const Checkpoint whole = read_checkpoint((directory / "whole" / "checkpoint.h5").string());
  const Checkpoint second = read_checkpoint((directory / "second" / "checkpoint.h5").string());
  EXPECT_EQ(whole.step, 30);
  EXPECT_EQ(second.step, 30);
  EXPECT_EQ(whole.coefficients, second.coefficients);
  std::filesystem::remove_all(directory);
}

TEST(PMultigrid, TheCaseKeysAreCheckedWhenTheCaseIsLoaded) {
  const std::string example = std::string(FLOWDG_SOURCE_DIR) + "/examples/supersonic_vortex.toml";
  const auto load = [&](const std::vector<std::string>& overrides) {
    Config config = Config::from_file(example);
    for (const std::string& assignment : overrides) config.set(assignment);
    return load_case(config, Backend::cpu);
  };
  const auto expect_error = [&](const std::vector<std::string>& overrides, const std::string& fragment) {
    try {
      (void)load(overrides);
      ADD_FAILURE() << "accepted: " << overrides.front();
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  const Case loaded = load({"time.p_multigrid=[2, 0, 2]"});
  EXPECT_EQ(loaded.time.p_multigrid, (std::vector<int>{2, 0, 2}));
  EXPECT_EQ(loaded.time.p_multigrid_steps, (std::vector<long long>{1, 1, 1})) << "one step a visit by default";
  EXPECT_EQ(loaded.options.implementation, dg::Implementation::portable);
  EXPECT_TRUE(load({"time.p_multigrid=[]"}).time.p_multigrid.empty());
  expect_error({"time.p_multigrid=[2, 1, 3, 1, 2]"}, "is not an order in [0, 2]");
  expect_error({"time.p_multigrid=[2, 1.5, 2]"}, "is not an order");
  expect_error({"time.p_multigrid=[1, 0, 1]"}, "starts and ends at the run's order p = 2");
  expect_error({"time.p_multigrid=[2, 1, 2]", "time.p_multigrid_steps=[1, 1]"}, "one step count per visit");
  expect_error({"time.p_multigrid=[2, 1, 2]", "time.p_multigrid_steps=[1, 0.5, 1]"}, "is not a number of steps");
  expect_error({"time.p_multigrid_steps=[1, 1, 1]"}, "need p_multigrid");
  expect_error({"time.p_multigrid_cfl=[0.5]"}, "need p_multigrid");
  expect_error({"time.p_multigrid=[2, 0, 2]", "time.p_multigrid_cfl=[0.5, 0.4, 0.3]"}, "3 CFL numbers for the 2 orders");
  EXPECT_EQ(load({"time.p_multigrid=[2, 0, 2]", "time.p_multigrid_cfl=[0.9]"}).time.p_multigrid_cfl, (std::vector<double>{0.9}));
  expect_error({"time.p_multigrid=[2, 1, 2]", "time.end_time=1.0"}, "steady-state accelerator");
}
