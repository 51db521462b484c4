// Aerodynamic outputs (cases/forces.hpp, Operator::wall_samples) and what they stand on: the
// pressure force of a fluid at rest is p times the wall's rotated chord exactly (curved walls
// included) and sums to zero over a closed boundary; the viscous force and skin friction of an
// exactly represented shear flow are its exact wall shear; the recirculation length of a wake
// line; point location in curved meshes; local time stepping scales each element's update by its
// own step; the [forces] table's keys and its CSV files through a run.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>

#include "example_cases.hpp"
#include "flowdg/cases/forces.hpp"
#include "flowdg/cases/run.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/io/checkpoint.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/lagrange.hpp"
#include "flowdg/mesh/locate.hpp"

using namespace flowdg;

namespace {

dg::OperatorOptions options_for(const Mesh& mesh, int order, bool viscous, physics::BoundaryKind kind) {
  dg::OperatorOptions options;
  options.order = order;
  options.flux = physics::RiemannKind::rusanov;
  options.viscous.enabled = viscous;
  options.viscous.scales.mach = 0.5;
  options.viscous.scales.reynolds = 20.0;
  options.viscous.scales.law = physics::ViscosityLaw::constant;
  options.boundary.assign(mesh.boundary_names.size(), dg::BoundarySpec{});
  for (dg::BoundarySpec& spec : options.boundary) spec.kind = kind;
  return options;
}

ForcesControl control_for(const Mesh& mesh, const std::vector<std::string>& walls, double pressure) {
  ForcesControl control;
  control.enabled = true;
  for (const std::string& name : walls) control.tags.push_back(mesh.require_tag(name));
  control.pressure = pressure;
  return control;
}

}  // namespace

TEST(Forces, PressureOfAFluidAtRestActsOnTheRotatedChordOfCurvedWalls) {
  // sum_q w |N| p n over a wall from A to B is p times the chord B - A turned (exactly, for any
  // polynomial curve): on the quarter annulus's inner arc from (1, 0) to (0, 1), n pointing into
  // the wall (towards the origin), p (-1, -1); over the whole closed boundary, zero. The curved
  // annulus through the portable kernels (Euler and Navier-Stokes), the straight one (a polygon
  // with the same ends) through the tuned triangle kernels.
  const Mesh curved = curved_quarter_annulus(3), straight = quarter_annulus();
  const Connectivity curved_connectivity = build_connectivity(curved), straight_connectivity = build_connectivity(straight);
  const double p = 2.5;
  physics::FlowSpec rest;
  rest.density = 1.3;
  rest.pressure = p;
  for (const int variant : {0, 1, 2}) {  // Euler through the tuned triangle kernels, Euler portable, Navier-Stokes
    const bool viscous = variant == 2;
    const Mesh& mesh = variant == 0 ? straight : curved;
    const Connectivity& connectivity = variant == 0 ? straight_connectivity : curved_connectivity;
    const physics::BoundaryKind kind = viscous ? physics::BoundaryKind::no_slip_wall : physics::BoundaryKind::slip_wall;
    dg::OperatorOptions options = options_for(mesh, 3, viscous, kind);
    options.implementation = variant == 0 ? dg::Implementation::automatic : dg::Implementation::portable;
    const auto op = dg::make_operator(mesh, connectivity, options);
    op->project(rest, 0.0);
    const dg::WallSamples samples = op->wall_samples(0.0);
    ASSERT_GT(samples.size(), 0u);
    const ForceCoefficients inner = integrate_forces(samples, control_for(mesh, {"inner"}, 0.0), 2, 1.4);
    if (variant == 0) {
      EXPECT_NE(op->implementation().find("tuned"), std::string::npos) << op->implementation();
    }
    EXPECT_NEAR(inner.force_pressure.x, -p, 1e-12) << "variant " << variant;
    EXPECT_NEAR(inner.force_pressure.y, -p, 1e-12);
    EXPECT_NEAR(inner.force_viscous.x, 0.0, 1e-12);
    EXPECT_NEAR(inner.force_viscous.y, 0.0, 1e-12);
    // C = F . e / (q L): q = 1/2 (rho_ref = |v_ref| = 1), drag along x.
    EXPECT_NEAR(inner.drag, -2 * p, 1e-11);
    EXPECT_NEAR(inner.lift, -2 * p, 1e-11);
    const ForceCoefficients closed =
        integrate_forces(samples, control_for(mesh, {"inner", "outer", "inflow", "outflow"}, 0.0), 2, 1.4);
    EXPECT_NEAR(closed.force.x, 0.0, 1e-12);
    EXPECT_NEAR(closed.force.y, 0.0, 1e-12);
  }
}

namespace {

/// The shear flow v = (a y, 0), rho = 1, p = 1 / (gamma M^2) on [0, 2] x [0, 1] (br2_test.cpp): at
/// p = 2 the state is exact and continuous, so BR2's wall gradient is the exact one and the wall
/// shear stress tau_xy = mu a: the fluid drags the bottom wall forwards with mu a per unit length
/// and holds the moving top wall back with the same.
void expect_exact_shear(const Mesh& mesh) {
  const double a = 1.0, mach = 0.5, mu = 1 / 20.0;
  const Connectivity connectivity = build_connectivity(mesh);
  dg::OperatorOptions options = options_for(mesh, 2, true, physics::BoundaryKind::prescribed);
  physics::FlowSpec flow;
  flow.kind = physics::FlowKind::couette;
  flow.velocity = {a, 0.0, 0.0};
  flow.mach = mach;
  flow.height = 1.0;
  flow.wall_temperature[0] = flow.wall_temperature[1] = 1.0;
  flow.prandtl = 0.0;
  for (dg::BoundarySpec& spec : options.boundary) spec.flow = flow;
  options.boundary[mesh.require_tag("bottom")].kind = physics::BoundaryKind::no_slip_wall;
  options.boundary[mesh.require_tag("top")].kind = physics::BoundaryKind::no_slip_wall;
  options.boundary[mesh.require_tag("top")].wall_velocity = {a, 0.0, 0.0};
  const auto op = dg::make_operator(mesh, connectivity, options);
  op->project(flow, 0.0);
  const dg::WallSamples samples = op->wall_samples(0.0);
  const double p_inf = 1 / (1.4 * mach * mach);
  const ForcesControl bottom = control_for(mesh, {"bottom"}, p_inf), top = control_for(mesh, {"top"}, p_inf);
  const ForceCoefficients on_bottom = integrate_forces(samples, bottom, 2, 1.4);
  const ForceCoefficients on_top = integrate_forces(samples, top, 2, 1.4);
  // F_x = mu a * 2 (the wall's length), C = F / (1/2 * 1).
  EXPECT_NEAR(on_bottom.drag_viscous, 4 * mu * a, 1e-10) << mesh.source;
  EXPECT_NEAR(on_top.drag_viscous, -4 * mu * a, 1e-10) << mesh.source;
  for (const ForceCoefficients& c : {on_bottom, on_top}) {
    EXPECT_NEAR(c.drag_pressure, 0.0, 1e-10) << mesh.source;
    EXPECT_NEAR(c.lift_pressure, 0.0, 1e-10) << mesh.source;
    EXPECT_NEAR(c.lift_viscous, 0.0, 1e-10) << mesh.source;
  }
  // walls.csv: cf = tau / q along the downstream tangent (+2 mu a below, -2 mu a above), cp = 0, no
  // heat through the adiabatic walls.
  ForcesControl both = control_for(mesh, {"bottom", "top"}, p_inf);
  const std::string path = cat(::testing::TempDir(), "walls_", getpid(), ".csv");
  write_wall_distribution(path, samples, both, mesh, 2, 1.4);
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "boundary,x,y,x_over_c,angle,side,cp,cf,tau_x,tau_y,heat_flux");
  int rows = 0;
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string name, value;
    std::getline(fields, name, ',');
    std::vector<double> v;
    while (std::getline(fields, value, ',')) v.push_back(std::stod(value));
    ASSERT_EQ(v.size(), 10u) << line;
    const double sign = name == "bottom" ? 1 : -1;
    EXPECT_NEAR(v[5], 0.0, 1e-10) << line;                 // cp
    EXPECT_NEAR(v[6], sign * 2 * mu * a, 1e-10) << line;   // cf
    EXPECT_NEAR(v[7], sign * mu * a, 1e-10) << line;       // tau_x
    EXPECT_NEAR(v[9], 0.0, 1e-10) << line;                 // heat flux
    EXPECT_GE(v[2], -1e-12);                               // x/c in [0, 1]
    EXPECT_LE(v[2], 1 + 1e-12);
    ++rows;
  }
  EXPECT_EQ(rows, static_cast<int>(samples.size()) - 0 - [&] {
    int others = 0;
    for (const int tag : samples.tag) others += tag != mesh.require_tag("bottom") && tag != mesh.require_tag("top");
    return others;
  }());
  std::filesystem::remove(path);
}

}  // namespace

TEST(Forces, ViscousForceAndSkinFrictionOfAShearFlowAreItsExactWallStress) {
  expect_exact_shear(rectangle_triangles(0, 2, 0, 1, 4, 3, TriangleLayout::perturbed, 0.2));
  expect_exact_shear(rectangle_quadrilaterals(0, 2, 0, 1, 4, 3, 0.2));
}

TEST(Forces, RecirculationLengthIsTheFirstTurnFromBackwardToForwardFlow) {
  EXPECT_DOUBLE_EQ(recirculation_length({1e-12, -1, -2, -1, 1, 2}, 0.5), 0.5 * 3.5);
  EXPECT_DOUBLE_EQ(recirculation_length({0.0, -3, 1, -1, 1}, 1.0), 1.75);
  EXPECT_DOUBLE_EQ(recirculation_length({0.0, 1, 2}, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(recirculation_length({-1, -1, -1}, 2.0), 4.0);
}

TEST(Forces, PointLocatorFindsPointsInCurvedElementsAndNotOutside) {
  const Mesh mesh = curved_quarter_annulus(3);
  const PointLocator locator(mesh);
  for (int i = 0; i < 200; ++i) {
    const double r = 1.0 + 0.384 * (0.5 + 0.499 * std::sin(1.7 * i)), theta = 0.5 * M_PI * (0.5 + 0.499 * std::cos(2.3 * i));
    const Point3 x{r * std::cos(theta), r * std::sin(theta), 0};
    const Location location = locator.find(x);
    ASSERT_GE(location.element, 0) << "r " << r << " theta " << theta;
    const Point3 back = map_to_physical(mesh, location.element, location.xi);
    EXPECT_NEAR(back.x, x.x, 1e-12);
    EXPECT_NEAR(back.y, x.y, 1e-12);
  }
  // Between the inner arc's nodes, just inside the circle: inside the straight chord's triangle,
  // outside the curved mesh (the chord's midpoint is at r = cos(pi / 72) = 0.99905).
  const double theta = 0.5 * M_PI / 18 * 4.5;
  EXPECT_LT(locator.find({0.9995 * std::cos(theta), 0.9995 * std::sin(theta), 0}).element, 0);
  EXPECT_GE(locator.find({1.0005 * std::cos(theta), 1.0005 * std::sin(theta), 0}).element, 0);
  EXPECT_LT(locator.find({2.0, 2.0, 0}).element, 0);
}

TEST(Forces, LocalTimeStepsScaleEachElementsUpdateByItsOwnStep) {
  // Forward Euler: u1 = u + dt_e R(u) with dt_e each element's own step; their smallest is what
  // set_local_time_steps returns, and on a graded mesh they differ.
  Mesh mesh = rectangle_triangles(0, 2, 0, 1, 6, 4, TriangleLayout::perturbed, 0.3);
  const Connectivity connectivity = build_connectivity(mesh);
  physics::FlowSpec vortex;
  vortex.kind = physics::FlowKind::isentropic_vortex;
  vortex.center = {1.0, 0.5, 0.0};
  vortex.velocity = {0.3, 0.0, 0.0};
  vortex.strength = 2.0;
  dg::OperatorOptions options = options_for(mesh, 2, false, physics::BoundaryKind::prescribed);
  for (dg::BoundarySpec& spec : options.boundary) spec.flow = vortex;
  {
    const auto tuned = dg::make_operator(mesh, connectivity, options);
    tuned->project(vortex, 0.0);
    EXPECT_THROW((void)tuned->set_local_time_steps(0.3), InputError) << "the tuned kernels take one dt";
  }
  options.implementation = dg::Implementation::portable;
  const auto op = dg::make_operator(mesh, connectivity, options);
  op->project(vortex, 0.0);
  const std::vector<double> u0 = op->coefficients(), rate = op->residual(0.0);
  const double smallest = op->set_local_time_steps(0.3);
  EXPECT_DOUBLE_EQ(smallest, op->stable_time_step(0.3));
  const RungeKuttaScheme euler{"forward-euler", 1, {{0.0, 0, 0, 0, 0, 0, 1.0, 0, 1.0}}, false, false};
  op->step(euler, 0.0, 1e9 /* ignored */, false);
  const std::vector<double> u1 = op->coefficients();
  const index_t K = op->n_elements();
  const int rows = static_cast<int>(u0.size() / K);
  double low = 1e300, high = 0;
  for (index_t e = 0; e < K; ++e) {
    double step = 0, weight = 0;
    for (int r = 0; r < rows; ++r) {  // the least-squares ratio, then every coefficient against it
      step += (u1[r * K + e] - u0[r * K + e]) * rate[r * K + e];
      weight += rate[r * K + e] * rate[r * K + e];
    }
    step /= weight;
    for (int r = 0; r < rows; ++r) EXPECT_NEAR(u1[r * K + e], u0[r * K + e] + step * rate[r * K + e], 1e-13);
    low = std::min(low, step);
    high = std::max(high, step);
  }
  EXPECT_NEAR(low, smallest, 1e-12 * smallest);
  EXPECT_GT(high, 1.2 * low);
}

namespace {

Case make(const std::string& text, const std::vector<std::string>& overrides = {}) {
  Config config = Config::from_string(text, "test case");
  for (const std::string& assignment : overrides) config.set(assignment);
  return load_case(config, Backend::cpu);
}

/// The shipped Couette example with forces on its bottom plate every 2 steps.
std::string couette_case() { return flowdg::testing::couette_example() + "\n[forces]\nwalls = [\"bottom\"]\nevery = 2\n"; }

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> row;
    std::stringstream fields(line);
    std::string value;
    while (std::getline(fields, value, ',')) row.push_back(value);
    rows.push_back(row);
  }
  return rows;
}

void expect_error(const std::string& text, const std::vector<std::string>& overrides, const std::string& fragment) {
  try {
    (void)make(text, overrides);
    ADD_FAILURE() << "no error for " << fragment;
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

}  // namespace

TEST(Forces, CouetteRunWritesTheWallShearAsItsDragHistory) {
  // Couette flow (the shipped example, mesh D, p = 2, constant viscosity): u = U y / H, so the
  // bottom plate feels tau = mu U / H over its length 2H: C_D = tau 2H / (1/2 * 1) = 4 mu U = 0.04
  // (mu = 1 / Re = 0.01, U = 1), all viscous; the state starts exact and stays close.
  const std::string directory = cat(::testing::TempDir(), "forces_couette_", getpid());
  Case problem = make(couette_case(), {"time.end_time=0.05", cat("output.directory=\"", directory, "\""), "output.vtu=false"});
  RunOptions options;
  options.quiet = true;
  const RunResult result = run_case(problem, options);
  const auto rows = read_csv(directory + "/forces.csv");
  ASSERT_GE(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"step", "time", "cd", "cl", "cd_pressure", "cd_viscous", "cl_pressure", "cl_viscous"}));
  EXPECT_EQ(rows[1][0], "0");
  EXPECT_EQ(rows[2][0], "2");
  EXPECT_EQ(std::stoll(rows.back()[0]), result.steps);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_NEAR(std::stod(rows[i][2]), 0.04, 2e-4) << "step " << rows[i][0];
    EXPECT_NEAR(std::stod(rows[i][4]), 0.0, 1e-10) << "the plate's pressure pushes across the flow, not along it";
  }
  const auto walls = read_csv(directory + "/walls.csv");
  ASSERT_GT(walls.size(), 10u);
  // cf = tau / q = (mu U / H) / (1/2) = 0.01 all along the plate.
  for (std::size_t i = 1; i < walls.size(); ++i) EXPECT_NEAR(std::stod(walls[i][7]), 0.01, 1e-4) << "cf";
  std::filesystem::remove_all(directory);
}

TEST(Forces, RecirculationLengthOfAVortexOnTheWakeLineThroughARun) {
  // The cylinder mesh with a vortex below the wake axis y = 0 in a slow stream: u < 0 on the axis
  // from the cylinder's rear until the vortex's pull, 1/2 beta/(2 pi) exp((1 - r^2)/2), falls to the
  // stream's 0.1: at r^2 = 1 - 2 ln(0.2 * 2 pi / 5), x = 2 + sqrt(r^2 - 1/4); the length from
  // x = 0.5 to there. max_steps = 0: the projected state only.
  const std::string directory = cat(::testing::TempDir(), "forces_wake_", getpid());
  const std::string text = cat(R"(
[mesh]
file = ")", FLOWDG_SOURCE_DIR, R"(/examples/meshes/cylinder_n1.msh"
[flow]
kind = "isentropic-vortex"
u = 0.1
center = [2.0, -0.5]
strength = 5.0
[solver]
order = 3
kernels = "portable"
[time]
max_steps = 0
[boundary.wall]
type = "slip-wall"
[boundary.farfield]
type = "prescribed"
[forces]
walls = "wall"
wake_start = [0.5, 0.0]
wake_end = [8.0, 0.0]
wake_points = 3001
[output]
vtu = false
directory = ")", directory, "\"\n");
  Case problem = make(text);
  RunOptions options;
  options.quiet = true;
  (void)run_case(problem, options);
  const auto rows = read_csv(directory + "/forces.csv");
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_EQ(rows[0].back(), "recirculation_length");
  const double r2 = 1 - 2 * std::log(0.2 * 2 * M_PI / 5);
  const double expected = 2 + std::sqrt(r2 - 0.25) - 0.5;
  EXPECT_NEAR(std::stod(rows[1].back()), expected, 2e-3);
  std::filesystem::remove_all(directory);
}

TEST(Forces, BadForcesTablesAreRefusedWithTheirReason) {
  const std::string text = couette_case();
  expect_error(text, {"forces.walls=\"floor\""}, "has no boundary 'floor'");
  expect_error(text, {"forces.walls=[]"}, "name the wall boundaries");
  expect_error(text, {"forces.every=0"}, "every: must be >= 1");
  expect_error(text, {"forces.colour=1"}, "colour");
  expect_error(text, {"forces.wake_start=[0.5, 0.0]"}, "needs both wake_start and wake_end");
  expect_error(text, {"forces.reference_velocity=[0.0, 0.0]"}, "must move");
  expect_error(text, {"time.local_time_step=true"}, "not end_time");
}

TEST(Forces, ARestartedHistoryDropsTheRowsBeyondItsCheckpoint) {
  // A run interrupted at step 300 after its last checkpoint at 200, restarted from that checkpoint:
  // its history continues from 200, without the rows 200 < step <= 300 twice.
  const std::string path = cat(::testing::TempDir(), "history_", getpid(), ".csv");
  {
    std::ofstream out(path);
    out << "step,time,cd\n0,0,1\n100,1,2\n200,2,3\n300,3,4\n";
  }
  EXPECT_FALSE(continue_history(path, 0)) << "a fresh run starts the file";
  EXPECT_TRUE(continue_history(path, 200));
  const auto rows = read_csv(path);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0][0], "step");
  EXPECT_EQ(rows.back()[0], "200");
  EXPECT_FALSE(continue_history(path + ".absent", 200));
  std::filesystem::remove(path);
}

TEST(Forces, ARestartAtAnotherOrderStartsFromTheSameFieldThenSteps) {
  // p-continuation: the Couette example at p = 1 for 3 steps, then restarted at p = 2 from that
  // checkpoint (the hierarchical modes padded with zeros): it runs on from step 3, its history
  // continued. Back down to p = 1 from the p = 2 state keeps exactly its lower modes.
  const std::string directory = cat(::testing::TempDir(), "forces_orders_", getpid());
  RunOptions options;
  options.quiet = true;
  const std::vector<std::string> common = {"time.end_time=1000.0", "output.vtu=false", "forces.every=1"};
  const auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), common.begin(), common.end());
    return extra;
  };
  Case low = make(couette_case(), with({"solver.order=1", "time.max_steps=3", cat("output.directory=\"", directory, "/low\"")}));
  (void)run_case(low, options);
  Case high = make(couette_case(), with({"solver.order=2", "time.max_steps=5", cat("output.directory=\"", directory, "/high\"")}));
  options.restart = directory + "/low/checkpoint.h5";
  const RunResult result = run_case(high, options);
  EXPECT_EQ(result.steps, 2);  // steps 4 and 5: the step count carries on
  const auto high_rows = read_csv(directory + "/high/forces.csv");
  ASSERT_EQ(high_rows.size(), 3u) << "steps 4 and 5 in a fresh output directory";
  EXPECT_EQ(high_rows[1][0], "4");
  const Checkpoint high_state = read_checkpoint(directory + "/high/checkpoint.h5");
  EXPECT_EQ(high_state.order, 2);
  EXPECT_EQ(high_state.step, 5);
  // Down again: p = 1 from the p = 2 checkpoint, zero steps: its state is the p = 2 state's lower modes.
  Case back = make(couette_case(), with({"solver.order=1", "time.max_steps=5", cat("output.directory=\"", directory, "/back\"")}));
  options.restart = directory + "/high/checkpoint.h5";
  (void)run_case(back, options);
  const Checkpoint back_state = read_checkpoint(directory + "/back/checkpoint.h5");
  // Coefficients group after group ([(v Np + j) K_g + e] each), quadrilaterals: Q1 has 4 modes, Q2 9.
  const auto op = dg::make_operator(back.mesh, back.connectivity, back.options);
  ASSERT_EQ(back_state.coefficients.size(), static_cast<std::size_t>(4 * 4 * back_state.n_elements));
  std::size_t low_offset = 0, high_offset = 0;
  for (const dg::ElementGroup& group : op->groups().element_groups) {
    const index_t K = group.size();
    for (int v = 0; v < 4; ++v)
      for (int j = 0; j < 4; ++j)
        for (index_t e = 0; e < K; ++e)
          ASSERT_EQ(back_state.coefficients[low_offset + (v * 4 + j) * K + e], high_state.coefficients[high_offset + (v * 9 + j) * K + e]);
    low_offset += 16 * K;
    high_offset += 36 * K;
  }
  std::filesystem::remove_all(directory);
}

// [physics] lift_axis = "z" (a 3D wing with z up, as the ONERA M6's coordinates): the free stream
// turns into the x-z plane by the angle of attack, the lift is the drag direction turned +90 degrees
// in that plane (so C_L > 0 for a force along +z), the side force along e_D x e_L = -y; "y" (the
// default) as before; refused in 2D and for another axis.
TEST(Forces, TheLiftAxisTurnsTheFreeStreamAndTheLiftIntoTheXzPlane) {
  const double alpha = 3.06 * M_PI / 180;
  Point3 drag, lift;
  force_directions({std::cos(alpha), 0, std::sin(alpha)}, drag, lift, 2);
  EXPECT_NEAR(lift.x, -std::sin(alpha), 1e-15);
  EXPECT_EQ(lift.y, 0.0);
  EXPECT_NEAR(lift.z, std::cos(alpha), 1e-15);
  EXPECT_NEAR(dot(drag, lift), 0.0, 1e-15);
  force_directions({std::cos(alpha), std::sin(alpha), 0}, drag, lift);
  EXPECT_NEAR(lift.x, -std::sin(alpha), 1e-15);
  EXPECT_NEAR(lift.y, std::cos(alpha), 1e-15);

  const std::string wing = R"(
[mesh]
file = "builtin:box?lx=1&ly=1&lz=1&nx=1&ny=1&nz=1"
[physics]
mach = 0.8395
angle_of_attack = 3.06
lift_axis = "z"
[flow]
kind = "free-stream"
[time]
max_steps = 1
[forces]
walls = ["zmin"]
[boundary.zmin]
type = "slip-wall"
[boundary.zmax]
type = "farfield"
[boundary.xmin]
type = "farfield"
[boundary.xmax]
type = "farfield"
[boundary.ymin]
type = "symmetry"
[boundary.ymax]
type = "farfield"
)";
  const Case problem = load_case(Config::from_string(wing, "wing"), Backend::cpu);
  EXPECT_EQ(problem.lift_axis, 2);
  EXPECT_EQ(problem.forces.lift_axis, 2);
  EXPECT_NEAR(problem.initial.velocity.x, std::cos(alpha), 1e-15);
  EXPECT_EQ(problem.initial.velocity.y, 0.0);
  EXPECT_NEAR(problem.initial.velocity.z, std::sin(alpha), 1e-15);
  // One wall point whose normal into the wall is +z and whose pressure exceeds the reference by 1:
  // a unit force along +z, so C_L = cos(alpha) / (q A) and C_D = sin(alpha) / (q A).
  dg::WallSamples samples;
  samples.n_variables = 5;
  samples.tag = {problem.mesh.require_tag("zmin")};
  samples.element = {0};
  samples.x = {{0.5, 0.5, 0}};
  samples.normal = {{0, 0, 1}};
  samples.weight = {1.0};
  const double p_ref = problem.forces.pressure, p = p_ref + 1.0;
  samples.state = {1.0, 0.0, 0.0, 0.0, p / 0.4};
  samples.viscous_flux = {0, 0, 0, 0, 0};
  const ForceCoefficients c = integrate_forces(samples, problem.forces, 3, 1.4);
  const double q = 0.5 * problem.forces.density * dot(problem.forces.velocity, problem.forces.velocity) * problem.forces.reference_area;
  EXPECT_NEAR(c.lift * q, std::cos(alpha), 1e-12);
  EXPECT_NEAR(c.drag * q, std::sin(alpha), 1e-12);
  EXPECT_NEAR(c.side, 0.0, 1e-12);
  expect_error(couette_case(), {"physics.lift_axis=\"z\""}, "is for 3D meshes");
  std::string other = wing;
  other.replace(other.find("lift_axis = \"z\""), 15, "lift_axis = \"x\"");
  try {
    (void)load_case(Config::from_string(other, "wing"), Backend::cpu);
    ADD_FAILURE() << "lift_axis x accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("lift_axis: 'x' (valid: y, z)"), std::string::npos) << error.what();
  }
}
