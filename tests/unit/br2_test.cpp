// BR2 lifting and the Navier-Stokes operator (dg/lifting.hpp, DgOperator<NavierStokes>): the
// residual of an exactly represented shear flow is its viscous heating and nothing else, on every
// shape and geometry kind; mass and energy are conserved between adiabatic walls at rest on curved
// and mixed meshes; Couette flow converges at p + 1 on triangles and quadrilaterals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "flowdg/dg/operator.hpp"
#include "flowdg/dg/setup.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/element/reference_element.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/elevate.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/mesh/periodic.hpp"
#include "flowdg/time/runge_kutta.hpp"

using namespace flowdg;

namespace {

dg::OperatorOptions viscous_options(const Mesh& mesh, int order, double mach, double reynolds) {
  dg::OperatorOptions options;
  options.order = order;
  options.flux = physics::RiemannKind::rusanov;
  options.viscous.enabled = true;
  options.viscous.scales.mach = mach;
  options.viscous.scales.reynolds = reynolds;
  options.viscous.scales.law = physics::ViscosityLaw::constant;
  options.boundary.assign(mesh.boundary_names.size(), dg::BoundarySpec{});
  return options;
}

dg::BoundarySpec& boundary(dg::OperatorOptions& options, const Mesh& mesh, const std::string& name) {
  return options.boundary[static_cast<std::size_t>(mesh.require_tag(name))];
}

/// rho = 1, v = (a y, 0[, 0]), p = 1 / (gamma M^2): the Couette formula with equal wall temperatures
/// and no heating term (its Prandtl number, the flow's own, set to 0), a = U / H.
physics::FlowSpec shear_flow(double mach, double speed, double height) {
  physics::FlowSpec flow;
  flow.kind = physics::FlowKind::couette;
  flow.velocity = {speed, 0.0, 0.0};
  flow.mach = mach;
  flow.height = height;
  flow.wall_temperature[0] = flow.wall_temperature[1] = 1.0;
  flow.prandtl = 0.0;
  return flow;
}

/// The residual of the shear flow v = (a y, 0) on [0, 2] x [0, 1] (or the box [0, 1]^3): its
/// conserved variables (rho u linear, E quadratic in y) lie in the space for p >= 2 and are
/// continuous, so BR2's jumps vanish and Theta = grad U exactly (P grad U = grad U: affine or not,
/// grad U is linear in x); the inviscid flux has no divergence, the stress tau_xy = mu a is
/// constant, and the energy's viscous flux (0, mu a^2 y) has divergence mu a^2. So du/dt is 0 for
/// every variable but the energy, whose rate is mu a^2 everywhere: the coefficient of the constant
/// mode, sqrt(reference measure) mu a^2, and nothing else. The bottom and top are adiabatic no-slip
/// walls moving with the flow (the top at a), the other sides carry the exact state.
void expect_viscous_heating_only(const Mesh& mesh, int order) {
  const double mach = 0.5, reynolds = 20.0, a = 1.0;
  const int dim = mesh.dimension, NV = dim + 2;
  const Connectivity connectivity = build_connectivity(mesh);
  dg::OperatorOptions options = viscous_options(mesh, order, mach, reynolds);
  const physics::FlowSpec flow = shear_flow(mach, a, 1.0);
  for (dg::BoundarySpec& spec : options.boundary) {
    spec.kind = physics::BoundaryKind::prescribed;
    spec.flow = flow;
  }
  const std::string bottom = dim == 2 ? "bottom" : "ymin", top = dim == 2 ? "top" : "ymax";
  boundary(options, mesh, bottom).kind = physics::BoundaryKind::no_slip_wall;
  boundary(options, mesh, top).kind = physics::BoundaryKind::no_slip_wall;
  boundary(options, mesh, top).wall_velocity = {a, 0.0, 0.0};
  const auto op = dg::make_operator(mesh, connectivity, options);
  op->project(flow, 0.0);
  const std::vector<double> residual = op->residual(0.0);

  const double heating = a * a / reynolds;  // mu a^2, mu = 1 / Re
  double worst = 0, largest_term = 0;
  std::size_t offset = 0;
  for (const dg::ElementGroup& group : op->groups().element_groups) {
    const int Np = n_basis(group.shape, order);
    const index_t K = group.size();
    const double mean = heating * std::sqrt(reference_measure(group.shape));
    for (int v = 0; v < NV; ++v)
      for (int j = 0; j < Np; ++j)
        for (index_t e = 0; e < K; ++e) {
          const double value = residual[offset + (static_cast<std::size_t>(v) * Np + j) * K + e];
          const double expected = v == NV - 1 && j == 0 ? mean : 0.0;
          worst = std::max(worst, std::abs(value - expected));
          largest_term = std::max(largest_term, std::abs(value));
        }
    offset += static_cast<std::size_t>(NV) * Np * K;
  }
  EXPECT_EQ(offset, residual.size());
  EXPECT_LT(worst, 1e-10) << mesh.source << " p = " << order << ": largest deviation from mu a^2 in the energy";
  EXPECT_GT(largest_term, 0.5 * heating);  // the heating is there (the test would pass on a zero residual otherwise)
}

}  // namespace

TEST(Br2, ShearFlowResidualIsItsViscousHeatingOnAffineTriangles) {
  for (int order : {2, 3}) expect_viscous_heating_only(rectangle_triangles(0, 2, 0, 1, 4, 3, TriangleLayout::perturbed, 0.2), order);
}

TEST(Br2, ShearFlowResidualIsItsViscousHeatingOnBilinearQuadrilaterals) {
  // Perturbed interior nodes: bilinear (curved-group) quadrilaterals with the exact inverse mass
  // matrix and the projected gradient.
  for (int order : {2, 3}) expect_viscous_heating_only(rectangle_quadrilaterals(0, 2, 0, 1, 4, 3, 0.2), order);
}

TEST(Br2, ShearFlowResidualIsItsViscousHeatingOnTetrahedraAndHexahedra) {
  expect_viscous_heating_only(box_tetrahedra(1, 1, 1, 2, 2, 2), 2);
  expect_viscous_heating_only(box_hexahedra(1, 1, 1, 2, 2, 2), 2);
}

namespace {

/// d/dt of the integrals of the conserved variables: the residual's totals.
std::vector<double> rates_of_totals(dg::Operator& op) {
  const std::vector<double> state = op.coefficients();
  op.set_coefficients(op.residual(0.0));
  const std::vector<double> rates = op.totals();
  op.set_coefficients(state);
  return rates;
}

/// Mass and energy rates between adiabatic walls at rest: zero to rounding (the viscous face flux
/// is single-valued at interior faces; the walls take no mass, do no work and conduct no heat);
/// momentum is not conserved (the walls' shear), which shows the viscous terms are at work.
void expect_mass_and_energy_conserved(const Mesh& mesh, const physics::FlowSpec& flow, int order) {
  const Connectivity connectivity = build_connectivity(mesh);
  dg::OperatorOptions options = viscous_options(mesh, order, 0.3, 50.0);
  for (dg::BoundarySpec& spec : options.boundary) spec.kind = physics::BoundaryKind::no_slip_wall;
  const auto op = dg::make_operator(mesh, connectivity, options);
  op->project(flow, 0.0);
  const std::vector<double> totals = op->totals();
  const std::vector<double> rates = rates_of_totals(*op);
  const int energy = mesh.dimension + 1;
  EXPECT_LT(std::abs(rates[0]), 1e-12 * std::abs(totals[0])) << mesh.source << ": mass";
  EXPECT_LT(std::abs(rates[energy]), 1e-12 * std::abs(totals[energy])) << mesh.source << ": energy";
  EXPECT_GT(std::abs(rates[1]) + std::abs(rates[2]), 1e-6) << mesh.source << ": the walls' shear changes the momentum";
}

}  // namespace

TEST(Br2, MassAndEnergyAreConservedBetweenAdiabaticWallsOnCurvedAndMixedMeshes) {
  physics::FlowSpec flow;
  flow.kind = physics::FlowKind::isentropic_vortex;
  flow.velocity = {0.2, 0.1, 0.0};
  flow.strength = 1.0;
  flow.center = {0.8, 0.8, 0.0};
  expect_mass_and_energy_conserved(curved_quarter_annulus(3), flow, 3);
  flow.center = {1.0, 0.5, 0.0};
  expect_mass_and_energy_conserved(read_gmsh(FLOWDG_TEST_DATA_DIR "/mixed_msh41.msh"), flow, 2);
}

namespace {

/// Couette flow (Gao, Chen et al. 2022, section 3.1.1) on [0, 4] x [0, 2] (H = 2), periodic in x,
/// isothermal walls at 0.8 (bottom, at rest) and 0.85 (top, moving at U = 1), M = 0.1, constant
/// viscosity, from the exact solution to a steady state; returns the L2 density error. The steady
/// solution does not depend on the Reynolds number; Re = 10 (the paper: 100) makes the transient
/// decay ten times sooner (its slowest mode, the heat diffusion across the channel, decays as
/// exp(-t / 2.5) here).
double couette_error(Mesh mesh, int order, double end_time) {
  Connectivity connectivity = build_connectivity(mesh);
  make_periodic(mesh, connectivity, mesh.require_tag("left"), mesh.require_tag("right"), {4.0, 0.0, 0.0});
  dg::OperatorOptions options = viscous_options(mesh, order, 0.1, 10.0);
  physics::FlowSpec flow;
  flow.kind = physics::FlowKind::couette;
  flow.velocity = {1.0, 0.0, 0.0};
  flow.mach = 0.1;
  flow.height = 2.0;
  flow.wall_temperature[0] = 0.8;
  flow.wall_temperature[1] = 0.85;
  flow.prandtl = 0.72;
  dg::BoundarySpec& bottom = boundary(options, mesh, "bottom");
  bottom.kind = physics::BoundaryKind::isothermal_wall;
  bottom.wall_temperature = 0.8;
  dg::BoundarySpec& top = boundary(options, mesh, "top");
  top.kind = physics::BoundaryKind::isothermal_wall;
  top.wall_temperature = 0.85;
  top.wall_velocity = {1.0, 0.0, 0.0};
  const auto op = dg::make_operator(mesh, connectivity, options);
  op->project(flow, 0.0);
  const RungeKuttaScheme scheme = runge_kutta_scheme("ssp-rk3");
  // The steady state does not depend on the step (an explicit scheme's fixed point is R(u) = 0) and
  // the transient is the physical one: half of cfl 1, which TheViscousTimeStepIsStableAtCflOneAndNotFarAbove
  // finds stable at every order (the limit's own (2p + 1) factors included).
  const double cfl = 0.5;
  double t = 0;
  while (t < end_time - 1e-12) {
    const double dt = std::min(op->stable_time_step(cfl), end_time - t);
    op->step(scheme, t, dt);
    t += dt;
  }
  return op->errors(flow, t).l2[0];
}

void expect_couette_rates(bool quadrilaterals, int order, int levels, double end_time) {
  double previous = 0;
  for (int level = 0; level < levels; ++level) {
    const int n = 2 << level;  // 2n x n cells
    const Mesh mesh = quadrilaterals ? rectangle_quadrilaterals(0, 4, 0, 2, 2 * n, n)
                                     : rectangle_triangles(0, 4, 0, 2, 2 * n, n, TriangleLayout::perturbed, 0.15);
    const double error = couette_error(mesh, order, end_time);
    std::printf("Couette %s p = %d, %d x %d cells: L2 density error %.3e", quadrilaterals ? "quadrilaterals" : "triangles", order,
                2 * n, n, error);
    if (level > 0) {
      const double rate = std::log2(previous / error);
      std::printf(", rate %.2f", rate);
      EXPECT_GT(rate, order + 1 - 0.3) << "p = " << order << ", level " << level;
    }
    std::printf("\n");
    std::fflush(stdout);
    previous = error;
  }
}

}  // namespace

// t = 10: four time constants of the slowest mode; the error has settled to 3 digits (at t = 15 and
// 30 the same to 1e-4 relative on 8 x 4 quadrilaterals at p = 1).
TEST(Br2, CouetteFlowConvergesAtOrderPPlusOneOnQuadrilaterals) {
  expect_couette_rates(true, 1, 3, 10.0);
  expect_couette_rates(true, 2, 3, 10.0);
}

TEST(Br2, CouetteFlowConvergesAtOrderPPlusOneOnTriangles) {
  expect_couette_rates(false, 1, 3, 10.0);
  expect_couette_rates(false, 2, 2, 10.0);
}

namespace {

/// Steps a viscous-dominated case (Re = 0.5 on 12 x 6 quadrilaterals of size 0.17, every wall kind,
/// the vortex at the free-stream temperature) at a fixed dt = cfl x the stable step; true when every
/// coefficient stays finite and bounded.
bool stays_bounded(int order, double cfl, int steps) {
  const Mesh mesh = rectangle_quadrilaterals(0, 2, 0, 1, 12, 6);
  const Connectivity connectivity = build_connectivity(mesh);
  dg::OperatorOptions options = viscous_options(mesh, order, 1.0 / std::sqrt(1.4), 0.5);
  physics::FlowSpec flow;
  flow.kind = physics::FlowKind::isentropic_vortex;
  flow.velocity = {1.0, 0.5, 0.0};
  flow.strength = 1.0;
  flow.center = {1.0, 0.5, 0.0};
  const physics::BoundaryKind kinds[] = {physics::BoundaryKind::isothermal_wall, physics::BoundaryKind::no_slip_wall,
                                         physics::BoundaryKind::farfield, physics::BoundaryKind::symmetry};
  for (std::size_t tag = 0; tag < options.boundary.size(); ++tag) {
    options.boundary[tag].kind = kinds[tag % 4];
    options.boundary[tag].flow = flow;
    options.boundary[tag].wall_temperature = 1.1;
    options.boundary[tag].wall_velocity = {0.2, 0.0, 0.0};
  }
  const auto op = dg::make_operator(mesh, connectivity, options);
  op->project(flow, 0.0);
  const RungeKuttaScheme scheme = runge_kutta_scheme("ssp-rk3");
  const double dt = cfl * op->stable_time_step(1.0);
  double t = 0;
  for (int step = 0; step < steps; ++step, t += dt) op->step(scheme, t, dt);
  for (const double value : op->coefficients())
    if (!(std::abs(value) < 1e3)) return false;
  return true;
}

}  // namespace

// The viscous time-step limit (core_kernels.hpp's TimeStepKernel): where diffusion dominates, cfl = 1
// is stable at every order (measured thresholds 1.2-1.9 with SSP-RK3), and cfl = 4 is not (so the
// diffusive rate is the binding one, and its p^4 / h^2 growth is right).
TEST(Br2, TheViscousTimeStepIsStableAtCflOneAndNotFarAbove) {
  for (int order = 1; order <= 4; ++order) {
    EXPECT_TRUE(stays_bounded(order, 1.0, 300)) << "p = " << order;
    EXPECT_FALSE(stays_bounded(order, 4.0, 300)) << "p = " << order;
  }
}

namespace {

/// Statistics of the BR2 residual of a discontinuous state on a curved mesh, all walls no-slip
/// (the first tag isothermal): per variable the sum of squares of du/dt's coefficients, and one
/// sum weighted by sin(0.7 i + 0.1) over every coefficient (sensitive to each entry's place).
/// The state is the uniform flow with every coefficient moved by 0.01 sin(1.3 i): its jumps are
/// O(0.01) on every face, and at Re = 1 the viscous terms (BR2's liftings among them) are as large
/// as the inviscid ones.
/// The operator of discontinuous_residual_statistics' case with its discontinuous state set
/// (collocated: OperatorOptions::collocated_mass).
std::unique_ptr<dg::Operator> discontinuous_state_operator(const Mesh& mesh, int order, bool collocated = true) {
  const Connectivity connectivity = build_connectivity(mesh);
  dg::OperatorOptions options = viscous_options(mesh, order, 0.3, 1.0);
  for (dg::BoundarySpec& spec : options.boundary) spec.kind = physics::BoundaryKind::no_slip_wall;
  options.boundary[0].kind = physics::BoundaryKind::isothermal_wall;
  options.boundary[0].wall_temperature = 1.05;
  options.collocated_mass = collocated;
  auto op = dg::make_operator(mesh, connectivity, options);
  physics::FlowSpec flow;
  flow.kind = physics::FlowKind::uniform;
  flow.velocity = {0.3, 0.1, 0.05};
  op->project(flow, 0.0);
  std::vector<double> state = op->coefficients();
  for (std::size_t i = 0; i < state.size(); ++i) state[i] += 0.01 * std::sin(1.3 * static_cast<double>(i));
  op->set_coefficients(state);
  return op;
}

std::vector<double> discontinuous_residual_statistics(const Mesh& mesh, int order) {
  const auto op = discontinuous_state_operator(mesh, order);
  const std::vector<double> residual = op->residual(0.0);
  const int NV = mesh.dimension + 2;
  std::vector<double> statistics(static_cast<std::size_t>(NV) + 1, 0.0);
  std::size_t offset = 0;
  for (const dg::ElementGroup& group : op->groups().element_groups) {
    const std::size_t per_variable = static_cast<std::size_t>(n_basis(group.shape, order)) * static_cast<std::size_t>(group.size());
    for (int v = 0; v < NV; ++v)
      for (std::size_t i = 0; i < per_variable; ++i) {
        const double value = residual[offset + static_cast<std::size_t>(v) * per_variable + i];
        statistics[static_cast<std::size_t>(v)] += value * value;
      }
    offset += static_cast<std::size_t>(NV) * per_variable;
  }
  for (std::size_t i = 0; i < residual.size(); ++i) statistics[static_cast<std::size_t>(NV)] += residual[i] * std::sin(0.7 * static_cast<double>(i) + 0.1);
  return statistics;
}

void expect_statistics(const Mesh& mesh, int order, const std::vector<double>& stored) {
  const std::vector<double> statistics = discontinuous_residual_statistics(mesh, order);
  std::string printed;
  for (const double value : statistics) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g, ", value);
    printed += text;
  }
  ASSERT_EQ(statistics.size(), stored.size()) << mesh.source << " p = " << order << ": {" << printed << "}";
  for (std::size_t i = 0; i < stored.size(); ++i)
    EXPECT_NEAR(statistics[i], stored[i], 1e-11 * std::abs(stored[i])) << mesh.source << " p = " << order << ", statistic " << i
                                                                        << ": {" << printed << "}";
}

}  // namespace

// The BR2 residual of a discontinuous state on curved elements (bilinear quadrilaterals, cubic
// triangles, trilinear hexahedra), at the orders that take the thread lifting kernel on the GPU
// (p = 1) and the block one (2, 3), against values stored from the formulation of commit 53cf9b2
// (each face's lifting through M^-1 on its moment columns, then evaluated at the face's points),
// which the face lifting matrices A_l = Phi_l M^-1 Phi_l^T (setup.cpp: face_lifting_tables) must
// reproduce to rounding. A wrong point order on the plus side, a wrong scale of eta r_l or a missing
// face moves the statistics by far more than 1e-11.
TEST(Br2, CurvedLiftingReproducesTheStoredResidualOfADiscontinuousState) {
  const Mesh quadrilaterals = rectangle_quadrilaterals(0, 2, 0, 1, 4, 3, 0.2);
  const Mesh triangles = curved_quarter_annulus(3, 1.0, 1.384, 3, 4);
  const Mesh hexahedra = read_gmsh(FLOWDG_TEST_DATA_DIR "/cylinder_hex27_msh41.msh");
  expect_statistics(quadrilaterals, 1, {46.132390898257704, 301272.65265816619, 55186.090077429137, 1391286448.2182422, 49573.447320917192});
  expect_statistics(quadrilaterals, 2, {102.25808898651665, 2921070.826629458, 576896.65618534072, 15237768003.209274, 44149.393284588587});
  expect_statistics(quadrilaterals, 3, {211.72840271200474, 16321935.276974875, 3554898.0484051793, 84444797254.219543, -103430.58318952372});
  expect_statistics(triangles, 1, {867.14347292497337, 24509582.46308874, 4362668.1320873825, 105164560509.20384, 10458.509772231173});
  expect_statistics(triangles, 3, {3039.4340420962635, 886628287.54511511, 172832446.54314846, 3753768384997.0923, 56764.344668801692});
  expect_statistics(hexahedra, 2, {157.12133380680407, 8481356.4907486252, 1089512.5502558688, 383327.17149601335, 21869667184.968407, -167253.74370610903});
}

namespace {

/// The BR2 residual of discontinuous_residual_statistics' state with the mass matrices of curved
/// groups inverted through the points (collocated) or stored (setup.hpp: ElementGroupSetup).
std::vector<double> discontinuous_residual(const Mesh& mesh, int order, bool collocated, std::string* description) {
  const auto op = discontinuous_state_operator(mesh, order, collocated);
  *description = op->describe();
  return op->residual(0.0);
}

}  // namespace

// Bilinear (non-parallelogram) quadrilaterals at p = 1..4: the (p + 1)^2 Gauss points integrate the
// mass matrix exactly and are as many as the modes, so M^-1 = V^T diag(w / det J) V (the kernels'
// collocated path: no stored inverse, no face lifting matrices) is exact. The BR2 residual of a
// discontinuous state (every lifting, the face gradients, the volume term and both inverse mass
// applications) must then equal the stored-inverse path's to rounding; a wrong factor (det J for
// 1 / det J, a missing weight), a transposed table or a wrong face point order moves it by O(1).
// Quadrilaterals of geometric order 2 have more points than modes and keep the stored inverse.
TEST(Br2, CollocatedMassOnBilinearQuadrilateralsEqualsTheStoredInverse) {
  const Mesh quadrilaterals = rectangle_quadrilaterals(0, 2, 0, 1, 4, 3, 0.2);
  for (int order = 1; order <= 4; ++order) {
    std::string collocated_text, stored_text;
    const std::vector<double> collocated = discontinuous_residual(quadrilaterals, order, true, &collocated_text);
    const std::vector<double> stored = discontinuous_residual(quadrilaterals, order, false, &stored_text);
    EXPECT_NE(collocated_text.find("mass inverted at the points"), std::string::npos) << collocated_text;
    EXPECT_EQ(stored_text.find("mass inverted at the points"), std::string::npos) << stored_text;
    ASSERT_EQ(collocated.size(), stored.size());
    double largest = 0, difference = 0;
    for (std::size_t i = 0; i < stored.size(); ++i) {
      largest = std::max(largest, std::abs(stored[i]));
      difference = std::max(difference, std::abs(collocated[i] - stored[i]));
    }
    EXPECT_GT(largest, 1.0) << "p = " << order;
    EXPECT_LT(difference, 1e-12 * largest) << "p = " << order << ": largest residual " << largest;
  }
  const Mesh curved = elevate_order(rectangle_quadrilaterals(0, 2, 0, 1, 4, 3, 0.2), 2);
  std::string text;
  (void)discontinuous_residual(curved, 2, true, &text);
  EXPECT_EQ(text.find("mass inverted at the points"), std::string::npos) << text;
}

// The block lifting kernel's sparse path on collocated groups (setup.hpp: collocated_lifting_lines):
// on bilinear quadrilaterals C = V Phi_faces^T has p + 1 entries per face point (the line of Gauss
// points through it) and one per volume point and face, so the face lifting is diagonal. The line
// and cross entries must rebuild C (what they drop is rounding), and a dense table is refused.
TEST(Br2, GaussCollocatedQuadrilateralsHaveSparseLiftingLines) {
  const Mesh mesh = rectangle_quadrilaterals(0, 2, 0, 1, 4, 3, 0.2);
  const Connectivity connectivity = build_connectivity(mesh);
  for (int order = 1; order <= 4; ++order) {
    const dg::Setup setup = dg::build_setup(mesh, connectivity, order);
    ASSERT_EQ(setup.element_groups.size(), 1u);
    const dg::ElementGroupSetup& group = setup.element_groups[0];
    ASSERT_TRUE(group.collocated) << "p = " << order;
    const int Nfq = setup.n_face_points(), Nq = group.volume_rule.size(), NFq = 4 * Nfq;
    ASSERT_EQ(Nfq, order + 1);
    ASSERT_EQ(Nq, (order + 1) * (order + 1));
    const std::vector<double> C = dg::face_lifting_tables(group, Shape::quadrilateral, dg::GeometryKind::curved, Nfq,
                                                          setup.groups.element_groups[0].size(), group.inverse_mass);
    ASSERT_EQ(C.size(), static_cast<std::size_t>(Nq) * NFq);
    std::vector<double> values;
    std::vector<int> indices;
    const int lines = dg::collocated_lifting_lines(C, Nq, 4, Nfq, values, indices);
    ASSERT_EQ(lines, order + 1) << "p = " << order;
    double largest = 0;
    for (const double c : C) largest = std::max(largest, std::abs(c));
    std::vector<double> rebuilt(C.size(), 0.0);
    for (int lq = 0; lq < NFq; ++lq)
      for (int m = 0; m < lines; ++m) rebuilt[static_cast<std::size_t>(indices[lq * lines + m]) * NFq + lq] += values[lq * lines + m];
    for (std::size_t i = 0; i < C.size(); ++i) EXPECT_NEAR(rebuilt[i], C[i], 1e-12 * largest) << "p = " << order << ", entry " << i;
    const std::size_t cross = static_cast<std::size_t>(NFq) * lines;
    for (int k = 0; k < Nq; ++k)
      for (int l = 0; l < 4; ++l) {
        const int b = indices[cross + k * 4 + l];
        ASSERT_GE(b, 0) << "every Gauss point's line meets every face";
        EXPECT_EQ(values[cross + k * 4 + l], C[static_cast<std::size_t>(k) * NFq + l * Nfq + b]);
      }
  }
  // A dense table (every entry nonzero) has no lines.
  std::vector<double> values;
  std::vector<int> indices;
  EXPECT_EQ(dg::collocated_lifting_lines(std::vector<double>(4 * 8, 1.0), 4, 4, 2, values, indices), 0);
}
