// Persson & Peraire's artificial viscosity (physics/euler/artificial_viscosity.hpp) through the DG
// core's BR2 lifting: the sensor's law, the operator equal to the Euler operator where the sensor
// is off, conservation where it is on, and a 3D shock tube kept bounded and close to the exact
// solution (issue 16 item 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>

#include "flowdg/cases/case.hpp"
#include "flowdg/cases/run.hpp"
#include "flowdg/core/config.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/dg/core_kernels.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/dg/setup.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/element/reference_element.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/periodic.hpp"
#include "flowdg/io/checkpoint.hpp"
#include "flowdg/physics/euler/artificial_viscosity.hpp"
#include "flowdg/time/runge_kutta.hpp"
#include "example_cases.hpp"

using namespace flowdg;

namespace {

using AV = physics::ArtificialViscosity<3, double>;

AV sensor(double epsilon0, double kappa, double s0) {
  AV physics;
  physics.epsilon0 = epsilon0;
  physics.kappa = kappa;
  physics.s0 = s0;
  return physics;
}

AV::State state(double rho, double u, double p) {
  AV::State s;
  s[0] = rho;
  s[1] = rho * u;
  s[2] = 0;
  s[3] = 0;
  s[4] = p / 0.4 + 0.5 * rho * u * u;
  return s;
}

dg::OperatorOptions options_for(const Mesh& mesh, int order, physics::BoundaryKind kind, bool artificial_viscosity) {
  dg::OperatorOptions options;
  options.order = order;
  options.flux = physics::RiemannKind::rusanov;
  dg::BoundarySpec boundary;
  boundary.kind = kind;
  boundary.flow.density = 1;
  boundary.flow.pressure = 1;
  options.boundary.assign(mesh.boundary_names.size(), boundary);
  options.artificial_viscosity.enabled = artificial_viscosity;
  return options;
}

/// A fully periodic box of tetrahedra.
std::pair<Mesh, Connectivity> periodic_box(int n) {
  Mesh mesh = box_tetrahedra(1, 1, 1, n, n, n);
  Connectivity connectivity = build_connectivity(mesh);
  make_periodic(mesh, connectivity, mesh.require_tag("xmin"), mesh.require_tag("xmax"), {1, 0, 0});
  make_periodic(mesh, connectivity, mesh.require_tag("ymin"), mesh.require_tag("ymax"), {0, 1, 0});
  make_periodic(mesh, connectivity, mesh.require_tag("zmin"), mesh.require_tag("zmax"), {0, 0, 1});
  return {std::move(mesh), std::move(connectivity)};
}

/// Coefficients of a piecewise-constant state: each element's mean from its centroid.
template <class F>
std::vector<double> piecewise_constant(const dg::Operator& op, const Mesh& mesh, F&& state_at) {
  std::vector<double> c = op.coefficients();
  std::fill(c.begin(), c.end(), 0.0);
  std::size_t offset = 0;
  const double phi0 = 1 / std::sqrt(reference_measure(Shape::tetrahedron));  // the constant mode's value
  for (const dg::ElementGroup& group : op.groups().element_groups) {
    const index_t K = group.size();
    const int Np = n_basis(Shape::tetrahedron, op.order());
    for (index_t e = 0; e < K; ++e) {
      const index_t element = group.elements[static_cast<std::size_t>(e)];
      const index_t* nodes = mesh.element_node_ids(element);
      Point3 centroid{};
      for (int a = 0; a < 4; ++a) centroid = centroid + 0.25 * mesh.nodes[static_cast<std::size_t>(nodes[a])];
      const AV::State u = state_at(centroid);
      for (int v = 0; v < 5; ++v) c[offset + static_cast<std::size_t>(v * Np) * K + e] = u[v] / phi0;
    }
    offset += static_cast<std::size_t>(5 * Np) * K;
  }
  return c;
}

/// Sod's shock tube at t: rho_L = 1, p_L = 1; rho_R = 0.125, p_R = 0.1; gamma = 1.4; the
/// discontinuity at x0 = 0.5 (the exact solution's standard values: p* = 0.30313, u* = 0.92745).
double sod_density(double x, double t) {
  const double gamma = 1.4, x0 = 0.5, cL = std::sqrt(gamma);
  const double u_star = 0.927452620048, p_star = 0.303130178050;
  const double rho_star_left = std::pow(p_star, 1 / gamma), rho_star_right = 0.265573711705;
  const double shock = 1.752155732518;
  const double c_star = std::sqrt(gamma * p_star / rho_star_left);
  const double xi = (x - x0) / t;
  if (xi < -cL) return 1.0;
  if (xi < u_star - c_star) {  // inside the rarefaction
    const double u = 2 / (gamma + 1) * (cL + xi);
    const double c = cL - (gamma - 1) / 2 * u;
    return std::pow(c / cL, 2 / (gamma - 1));
  }
  if (xi < u_star) return rho_star_left;
  if (xi < shock) return rho_star_right;
  return 0.125;
}

struct TubeResult {
  bool finite = true;
  double min_density = 0, max_density = 0;  ///< over a lattice of points in every element
  double min_mean = 0, max_mean = 0;        ///< of the elements' mean densities
  double l1_error = 0, largest_viscosity = 0;
};

/// Sod's tube along x on [0, 1] x [0, 0.05]^2 (nx x 1 x 1 Kuhn-split cubes, slip walls all round),
/// to t = 0.2 with SSP-RK3 at cfl 0.1; the initial jump at x = 0.5 as elements' means through a tanh
/// one cell wide (a jump exactly at element faces has no high modes for the sensor to see in the
/// first stage); the density's range over a lattice of points per element and over the means, and
/// the means' L1 error against the exact solution.
TubeResult shock_tube(int order, bool artificial_viscosity, int nx = 40,
                      physics::ViscositySmoothing smoothing = physics::ViscositySmoothing::none,
                      const physics::ArtificialViscosityParameters* parameters = nullptr) {
  const Mesh mesh = box_tetrahedra(1, 0.05, 0.05, nx, 1, 1);
  const Connectivity connectivity = build_connectivity(mesh);
  dg::OperatorOptions options = options_for(mesh, order, physics::BoundaryKind::slip_wall, artificial_viscosity);
  if (parameters != nullptr) {
    options.artificial_viscosity.epsilon0 = parameters->epsilon0;
    options.artificial_viscosity.kappa = parameters->kappa;
    options.artificial_viscosity.s0 = parameters->s0;
  }
  options.artificial_viscosity.smoothing = smoothing;
  const auto op = dg::make_operator(mesh, connectivity, options);
  const double width = 1.0 / nx;
  op->set_coefficients(piecewise_constant(*op, mesh, [&](Point3 x) {
    const double w = width > 0 ? 0.5 * (1 - std::tanh((x.x - 0.5) / width)) : (x.x < 0.5 ? 1.0 : 0.0);  // 1 left, 0 right
    return state(0.125 + 0.875 * w, 0, 0.1 + 0.9 * w);
  }));
  const RungeKuttaScheme scheme = runge_kutta_scheme("ssp-rk3");
  double t = 0;
  const double end = 0.2;
  TubeResult result;
  while (t < end - 1e-12) {
    double dt = 0;
    try {
      dt = std::min(op->stable_time_step(0.1), end - t);
    } catch (const NumericalError& error) {
      std::printf("stopped at t = %g: %s\n", t, error.what());
      result.finite = false;
      return result;
    }
    op->step(scheme, t, dt);
    t += dt;
    if (artificial_viscosity) {
      const std::vector<double> eps = op->element_viscosity();
      result.largest_viscosity = std::max(result.largest_viscosity, *std::max_element(eps.begin(), eps.end()));
    }
  }
  std::vector<std::vector<Point3>> lattice(static_cast<std::size_t>(Shape::hexahedron) + 1);
  auto& points = lattice[static_cast<std::size_t>(Shape::tetrahedron)];
  const int n = 4;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; i + j <= n; ++j)
      for (int k = 0; i + j + k <= n; ++k) points.push_back({double(i) / n, double(j) / n, double(k) / n});
  result.min_density = std::numeric_limits<double>::infinity();
  result.max_density = -std::numeric_limits<double>::infinity();
  for (const dg::PointValues& block : op->evaluate(lattice))
    for (std::size_t k = 0; k < block.points.size(); ++k) {
      const double rho = block.values[k * 5];
      if (!std::isfinite(rho)) result.finite = false;
      result.min_density = std::min(result.min_density, rho);
      result.max_density = std::max(result.max_density, rho);
    }
  // L1 error of the means (tetrahedra of equal volume within the tube: each cube's six).
  const std::vector<double> c = op->coefficients();
  const int Np = n_basis(Shape::tetrahedron, order);
  const index_t K = mesh.n_elements();
  double error = 0;
  result.min_mean = std::numeric_limits<double>::infinity();
  result.max_mean = -std::numeric_limits<double>::infinity();
  for (const dg::ElementGroup& group : op->groups().element_groups)
    for (std::size_t e = 0; e < group.elements.size(); ++e) {
      const index_t element = group.elements[e];
      const index_t* nodes = mesh.element_node_ids(element);
      double x = 0;
      for (int a = 0; a < 4; ++a) x += 0.25 * mesh.nodes[static_cast<std::size_t>(nodes[a])].x;
      const double mean = c[static_cast<std::size_t>(0 * Np) * K + e] / std::sqrt(reference_measure(Shape::tetrahedron));
      error += std::abs(mean - sod_density(x, end)) / static_cast<double>(K);
      result.min_mean = std::min(result.min_mean, mean);
      result.max_mean = std::max(result.max_mean, mean);
    }
  result.l1_error = error;
  return result;
}

}  // namespace

// The sensor's law: zero for a state without top-degree modes and below s0 - kappa, the full
// eps_max = epsilon0 lambda h / p above s0 + kappa, half of it at s0, growing in between.
TEST(ArtificialViscosity, TheSensorFollowsPerssonAndPeraire) {
  const AV physics = sensor(0.3, 1.0, -2.0);
  const AV::State mean = state(1.0, 0.5, 1.0 / 1.4);  // c = 1, |v| + c = 1.5
  const double h = 0.2;
  const int order = 2, Np = 10, low = 4;  // tetrahedra at p = 2: modes 4..9 of degree 2
  const double maximum = 0.3 * 1.5 * 0.2 / 2;
  const auto eps_at = [&](double S) {  // density's modes with a share S of the energy in degree 2
    double c[10] = {};
    c[0] = std::sqrt(1 - S);
    c[7] = std::sqrt(S);
    return physics.element_viscosity(c, 1, Np, low, h, order, mean);
  };
  EXPECT_EQ(eps_at(0.0), 0.0);
  EXPECT_EQ(eps_at(1e-3 / 2), 0.0);  // s < s0 - kappa = -3
  EXPECT_NEAR(eps_at(0.5), maximum, 1e-15);  // s = -0.3 > s0 + kappa = -1
  EXPECT_NEAR(eps_at(1e-2), maximum / 2, 1e-15);  // s = s0
  double previous = 0;
  for (double s = -3; s <= -1; s += 0.25) {
    const double value = eps_at(std::pow(10.0, s));
    EXPECT_GE(value, previous);
    previous = value;
  }
  // Lower-degree content alone never triggers it, whatever its size.
  double c[10] = {1, 0.5, -0.7, 0.9, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(physics.element_viscosity(c, 1, Np, low, h, order, mean), 0.0);
  // The default s0 is log10(1 / p^4) - 2; s0_offset moves it from the paper's log10(1 / p^4) at each
  // order, a given s0 holds at every order.
  EXPECT_NEAR(physics::ArtificialViscosityParameters::default_s0(4), std::log10(1.0 / 256) - 2, 1e-15);
  physics::ArtificialViscosityParameters parameters;
  EXPECT_NEAR(parameters.s0_for(4), std::log10(1.0 / 256) - 2, 1e-15);
  parameters.s0_offset = -0.5;
  EXPECT_NEAR(parameters.s0_for(2), std::log10(1.0 / 16) - 0.5, 1e-15);
  EXPECT_NEAR(parameters.s0_for(1), -0.5, 1e-15);
  parameters.s0 = -3;
  EXPECT_EQ(parameters.s0_for(2), -3.0);
  EXPECT_EQ(parameters.s0_for(4), -3.0);
  // The flux: eps grad U, none through a boundary.
  AV on = physics;
  on.epsilon = 0.25;
  AV::State grad[3];
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < 5; ++k) grad[d][k] = 0.1 * (d + 1) - 0.03 * k;
  AV::State fv[3];
  on.viscous_flux(mean, grad, fv);
  for (int d = 0; d < 3; ++d)
    for (int k = 0; k < 5; ++k) EXPECT_DOUBLE_EQ(fv[d][k], 0.25 * grad[d][k]);
  const AV::State wall = on.boundary_viscous_flux(physics::BoundaryKind::slip_wall, mean, grad, {1, 0, 0});
  for (int k = 0; k < 5; ++k) EXPECT_EQ(wall[k], 0.0);
}

// Where the sensor is off (a smooth vortex, s0 = 0 with a narrow ramp), the operator with
// artificial viscosity is the Euler operator: the same residual to rounding.
TEST(ArtificialViscosity, WithTheSensorOffTheResidualIsEulers) {
  Mesh mesh = box_tetrahedra(6, 6, 1.5, 4, 4, 1);
  Connectivity connectivity = build_connectivity(mesh);
  make_periodic(mesh, connectivity, mesh.require_tag("zmin"), mesh.require_tag("zmax"), {0, 0, 1.5});
  physics::FlowSpec vortex;
  vortex.kind = physics::FlowKind::isentropic_vortex;
  vortex.velocity = {1.0, 1.0, 0.5};
  vortex.strength = 5.0;
  vortex.center = {3, 3, 0};
  for (int order : {1, 3}) {
    dg::OperatorOptions euler = options_for(mesh, order, physics::BoundaryKind::prescribed, false);
    for (dg::BoundarySpec& b : euler.boundary) b.flow = vortex;
    dg::OperatorOptions av = euler;
    av.artificial_viscosity.enabled = true;
    av.artificial_viscosity.s0 = 0;
    av.artificial_viscosity.kappa = 0.5;
    const auto plain = dg::make_operator(mesh, connectivity, euler);
    const auto with = dg::make_operator(mesh, connectivity, av);
    plain->project(vortex, 0);
    with->project(vortex, 0);
    const std::vector<double> eps = with->element_viscosity();
    ASSERT_EQ(eps.size(), static_cast<std::size_t>(mesh.n_elements()));
    EXPECT_EQ(*std::max_element(eps.begin(), eps.end()), 0.0);
    const std::vector<double> a = plain->residual(0), b = with->residual(0);
    ASSERT_EQ(a.size(), b.size());
    double largest = 0, scale = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      largest = std::max(largest, std::abs(a[i] - b[i]));
      scale = std::max(scale, std::abs(a[i]));
    }
    EXPECT_LE(largest, 1e-14 * scale) << "p = " << order;
    // With the sensor on everywhere (s0 far below any element's share), the residual changes.
    av.artificial_viscosity.s0 = -20;
    av.artificial_viscosity.kappa = 0.1;
    const auto on = dg::make_operator(mesh, connectivity, av);
    on->project(vortex, 0);
    const std::vector<double> c = on->residual(0);
    double change = 0;
    for (std::size_t i = 0; i < a.size(); ++i) change = std::max(change, std::abs(a[i] - c[i]));
    EXPECT_GT(change, 1e-3 * scale) << "p = " << order;
  }
}

// With the sensor on (a jump in every direction on a periodic box), the artificial viscosity
// moves mass, momentum and energy between elements only: the totals stay to rounding.
TEST(ArtificialViscosity, ConservesOnAPeriodicBox) {
  auto [mesh, connectivity] = periodic_box(3);
  using physics::ViscositySmoothing;
  for (const auto& [order, smoothing] : {std::pair{2, ViscositySmoothing::none}, std::pair{4, ViscositySmoothing::none},
                                        std::pair{2, ViscositySmoothing::vertex_max}, std::pair{3, ViscositySmoothing::vertex_mean}}) {
    SCOPED_TRACE(::testing::Message() << "p = " << order << ", smoothing " << static_cast<int>(smoothing));
    dg::OperatorOptions options = options_for(mesh, order, physics::BoundaryKind::slip_wall, true);
    options.artificial_viscosity.smoothing = smoothing;
    const auto op = dg::make_operator(mesh, connectivity, options);
    op->set_coefficients(piecewise_constant(*op, mesh, [](Point3 x) {
      const bool inside = std::abs(x.x - 0.5) < 0.3 && std::abs(x.y - 0.5) < 0.3 && std::abs(x.z - 0.5) < 0.3;
      return inside ? state(1.0, 0.3, 1.0) : state(0.3, -0.1, 0.4);
    }));
    const RungeKuttaScheme scheme = runge_kutta_scheme("ssp-rk3");
    const std::vector<double> before = op->totals();
    double t = 0, largest_eps = 0;
    for (int step = 0; step < 4; ++step) {
      const double dt = op->stable_time_step(0.1);
      op->step(scheme, t, dt);
      t += dt;
      const std::vector<double> eps = op->element_viscosity();
      largest_eps = std::max(largest_eps, *std::max_element(eps.begin(), eps.end()));
    }
    EXPECT_GT(largest_eps, 0.0) << "the sensor never switched on: the test would not see the term";
    const std::vector<double> after = op->totals();
    for (std::size_t v = 0; v < before.size(); ++v) EXPECT_NEAR(after[v], before[v], 1e-13 * (1 + std::abs(before[v]))) << v;
  }
}

// The vertex functions of every shape in its modal basis (vertex_function_modes): exactly the
// linear (multilinear) functions, 1 at their own vertex and 0 at the others, anywhere in the element.
TEST(ArtificialViscosity, TheVertexFunctionsAreExactInTheBasis) {
  for (Shape shape : {Shape::triangle, Shape::quadrilateral, Shape::tetrahedron, Shape::hexahedron}) {
    SCOPED_TRACE(std::string(shape_name(shape)));
    const int n = n_basis(shape, 1), nv = n_vertices(shape);
    const std::vector<double> table = dg::vertex_function_modes(shape, n);
    std::vector<double> phi(static_cast<std::size_t>(n));
    std::vector<Point3> points;
    for (int i = 0; i < nv; ++i) points.push_back(reference_vertex(shape, i));
    const bool simplex = shape == Shape::triangle || shape == Shape::tetrahedron;
    for (int k = 0; k < 20; ++k) {  // points inside: a pseudo-random lattice, folded into the simplex
      Point3 x{std::fmod(0.37 * k + 0.11, 1.0) * 2 - 1, std::fmod(0.61 * k + 0.23, 1.0) * 2 - 1,
               dimension(shape) == 3 ? std::fmod(0.83 * k + 0.05, 1.0) * 2 - 1 : 0.0};
      if (simplex) {
        const double sum = x.x + x.y + x.z + (dimension(shape) == 3 ? 3 : 2);
        if (sum > 2) x = Point3{-1 + (x.x + 1) * 1.9 / sum, -1 + (x.y + 1) * 1.9 / sum, dimension(shape) == 3 ? -1 + (x.z + 1) * 1.9 / sum : 0.0};
      }
      points.push_back(x);
    }
    for (std::size_t k = 0; k < points.size(); ++k) {
      basis_values(shape, 1, points[k], phi.data());
      double weights[8] = {};
      element_vertex_weights(shape, points[k], weights);
      double total = 0;
      for (int i = 0; i < nv; ++i) {
        double value = 0;
        for (int j = 0; j < n; ++j) value += table[static_cast<std::size_t>(i) * n + j] * phi[static_cast<std::size_t>(j)];
        EXPECT_NEAR(value, weights[i], 1e-13) << "vertex " << i << " at point " << k;
        if (k < static_cast<std::size_t>(nv)) {
          EXPECT_NEAR(value, k == static_cast<std::size_t>(i) ? 1.0 : 0.0, 1e-13);
        }
        total += value;
      }
      EXPECT_NEAR(total, 1.0, 1e-13);
    }
  }
}

// ViscositySmoothingKernel on a box of tetrahedra with eps given per element: at each element's
// vertices the smoothed field equals the largest (the mean) eps of the elements around that mesh
// vertex, so the field (linear in each element) is continuous; an element's cap bounds its own
// vertex values only; the element's value is its largest vertex value.
TEST(ArtificialViscosity, TheSmoothedFieldTakesTheVertexValuesAndIsContinuous) {
  const Mesh mesh = box_tetrahedra(1, 1, 1, 3, 3, 2);
  const index_t K = mesh.n_elements(), Ks = K + 3;  // padded like a group
  const int nv = 4, n_modes = 4;
  std::vector<double> eps(static_cast<std::size_t>(K));
  for (index_t e = 0; e < K; ++e) eps[static_cast<std::size_t>(e)] = (e % 5 == 0) ? 0.0 : std::fmod(0.7 * e + 0.3, 1.0);
  std::vector<std::vector<index_t>> around(static_cast<std::size_t>(mesh.n_nodes()));
  std::vector<index_t> vertices(static_cast<std::size_t>(nv) * Ks, 0);
  for (index_t e = 0; e < K; ++e)
    for (int i = 0; i < nv; ++i) {
      const index_t node = mesh.element_node_ids(e)[i];
      vertices[static_cast<std::size_t>(i) * Ks + e] = node;
      around[static_cast<std::size_t>(node)].push_back(e);
    }
  std::vector<index_t> start{0}, elements;
  for (const auto& list : around) {
    elements.insert(elements.end(), list.begin(), list.end());
    start.push_back(static_cast<index_t>(elements.size()));
  }
  const std::vector<double> table = dg::vertex_function_modes(Shape::tetrahedron, n_modes);
  const index_t capped = 7;
  const double cap = 0.05;
  for (const bool mean : {false, true}) {
    SCOPED_TRACE(mean ? "vertex mean" : "vertex max");
    std::vector<double> element(static_cast<std::size_t>(Ks), dg::ViscositySensorKernel<AV>::no_cap), modes(static_cast<std::size_t>(n_modes) * Ks, -1.0);
    element[capped] = cap;
    const dg::ViscositySmoothingKernel<double> kernel{{eps.data(), K}, {start.data(), static_cast<index_t>(start.size())},
                                                      {elements.data(), static_cast<index_t>(elements.size())},
                                                      {vertices.data(), static_cast<index_t>(vertices.size())},
                                                      {table.data(), static_cast<index_t>(table.size())},
                                                      {element.data(), Ks}, {modes.data(), static_cast<index_t>(modes.size())},
                                                      Ks, nv, n_modes, mean};
    for (index_t e = 0; e < K; ++e) kernel(e);
    double phi[4];
    for (index_t e = 0; e < K; ++e) {
      double largest = 0;
      for (int i = 0; i < nv; ++i) {
        const index_t node = vertices[static_cast<std::size_t>(i) * Ks + e];
        double expected = 0;
        for (index_t other : around[static_cast<std::size_t>(node)])
          expected = mean ? expected + eps[static_cast<std::size_t>(other)] : std::max(expected, eps[static_cast<std::size_t>(other)]);
        if (mean) expected /= static_cast<double>(around[static_cast<std::size_t>(node)].size());
        if (e == capped) expected = std::min(expected, cap);
        basis_values(Shape::tetrahedron, 1, reference_vertex(Shape::tetrahedron, i), phi);
        double value = 0;
        for (int j = 0; j < n_modes; ++j) value += modes[static_cast<std::size_t>(j) * Ks + e] * phi[j];
        EXPECT_NEAR(value, expected, 1e-14) << "element " << e << ", vertex " << i;
        largest = std::max(largest, expected);
      }
      EXPECT_NEAR(element[static_cast<std::size_t>(e)], largest, 1e-15) << "element " << e;
    }
  }
}

// Smoothing changes the artificial term (it is used) but keeps it zero where the sensor is off
// everywhere: on the smooth vortex of WithTheSensorOffTheResidualIsEulers the residual with a
// smoothed field of zeros is Euler's, and with a jump it differs from the element-wise one.
TEST(ArtificialViscosity, TheSmoothedFieldEntersTheResidual) {
  auto [mesh, connectivity] = periodic_box(3);
  const auto jump = [](Point3 x) { return std::abs(x.x - 0.5) < 0.3 ? state(1.0, 0.3, 1.0) : state(0.3, -0.1, 0.4); };
  std::vector<std::vector<double>> residuals;
  for (const auto smoothing : {physics::ViscositySmoothing::none, physics::ViscositySmoothing::vertex_max,
                               physics::ViscositySmoothing::vertex_mean}) {
    dg::OperatorOptions options = options_for(mesh, 2, physics::BoundaryKind::slip_wall, true);
    options.artificial_viscosity.smoothing = smoothing;
    const auto op = dg::make_operator(mesh, connectivity, options);
    op->set_coefficients(piecewise_constant(*op, mesh, jump));
    residuals.push_back(op->residual(0));
  }
  dg::OperatorOptions euler = options_for(mesh, 2, physics::BoundaryKind::slip_wall, false);
  const auto plain = dg::make_operator(mesh, connectivity, euler);
  plain->set_coefficients(piecewise_constant(*plain, mesh, jump));
  const std::vector<double> inviscid = plain->residual(0);
  const auto distance = [](const std::vector<double>& a, const std::vector<double>& b) {
    double largest = 0;
    for (std::size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(a[i] - b[i]));
    return largest;
  };
  // Piecewise-constant data has no top modes: the sensor is off, every variant is Euler's.
  for (const auto& r : residuals) EXPECT_LE(distance(r, inviscid), 1e-14);
  // After a short Euler step the jump has its top modes and the sensor fires; on that same state
  // the three fields give three residuals.
  plain->step(runge_kutta_scheme("ssp-rk3"), 0, 1e-3);
  const std::vector<double> stepped = plain->coefficients();
  residuals.clear();
  std::vector<double> eps;
  for (const auto smoothing : {physics::ViscositySmoothing::none, physics::ViscositySmoothing::vertex_max,
                               physics::ViscositySmoothing::vertex_mean}) {
    dg::OperatorOptions options = options_for(mesh, 2, physics::BoundaryKind::slip_wall, true);
    options.artificial_viscosity.smoothing = smoothing;
    const auto op = dg::make_operator(mesh, connectivity, options);
    op->set_coefficients(stepped);
    if (eps.empty()) eps = op->element_viscosity();
    residuals.push_back(op->residual(0));
  }
  ASSERT_GT(*std::max_element(eps.begin(), eps.end()), 0.0);
  const double scale = std::abs(*std::max_element(residuals[0].begin(), residuals[0].end(),
                                                  [](double a, double b) { return std::abs(a) < std::abs(b); }));
  EXPECT_GT(distance(residuals[0], residuals[1]), 1e-6 * scale);
  EXPECT_GT(distance(residuals[1], residuals[2]), 1e-6 * scale);
}

// Sod's shock tube in 3D with the default parameters: the plain DG run fails (a non-physical state
// within the first steps of the shock); with artificial viscosity it reaches t = 0.2 with the
// elements' mean densities within the exact range up to 2% and close to the exact solution.
// (Pointwise, the polynomials still undershoot just ahead of the shock: printed, not asserted;
// docs/validation.md.)
void check_shock_tube(int order) {
  const TubeResult with = shock_tube(order, true);
  const TubeResult without = shock_tube(order, false);
  std::printf("p = %d: with AV means [%.4f, %.4f], points [%.4f, %.4f], L1 %.4e, eps max %.3e; without AV %s\n", order,
              with.min_mean, with.max_mean, with.min_density, with.max_density, with.l1_error, with.largest_viscosity,
              without.finite ? "finite" : "failed");
  ASSERT_TRUE(with.finite) << "p = " << order;
  EXPECT_GT(with.largest_viscosity, 0.0);
  EXPECT_GE(with.min_mean, 0.125 - 0.02) << "p = " << order;
  EXPECT_LE(with.max_mean, 1.0 + 0.02) << "p = " << order;
  EXPECT_LT(with.l1_error, 0.025) << "p = " << order;
  if (without.finite) {  // then at least visibly worse
    EXPECT_GT(without.l1_error, with.l1_error) << "p = " << order;
  }
}

TEST(ArtificialViscosity, KeepsA3DShockTubeBounded) { check_shock_tube(2); }

// The same at p = 3: about 8 minutes on two cores (the viscous step limit at p = 3 on 40 cells),
// so a long test: run with FLOWDG_LONG_TESTS=1 (docs/validation.md, "Long tests"), skipped otherwise.
TEST(ArtificialViscosity, KeepsA3DShockTubeBoundedAtP3) {
  if (!std::getenv("FLOWDG_LONG_TESTS")) GTEST_SKIP() << "a long test: set FLOWDG_LONG_TESTS=1 to run it";
  check_shock_tube(3);
}

// Why the defaults are not the paper's values (epsilon0 = 0.3, kappa = 4, s0 = log10(1 / p^4)): in
// this scaling (eps_max = epsilon0 lambda h / p) those also keep the tube's means in range, with
// about 8 times less viscosity, but the polynomials then undershoot far below zero inside the shock's
// elements (-0.32 at p = 2 against the defaults' -0.03: docs/validation.md). Also pins that the
// paper's s0 alone, with the default kappa = 1, adds too little viscosity to get past the shock's
// formation (the reason for the default s0 two decades lower).
TEST(ArtificialViscosity, ThePapersParametersKeepTheMeansButUndershootTenTimesMore) {
  const int order = 2;
  physics::ArtificialViscosityParameters paper;
  paper.epsilon0 = 0.3;
  paper.kappa = 4;
  paper.s0 = -4 * std::log10(static_cast<double>(order));
  const TubeResult papers = shock_tube(order, true, 40, physics::ViscositySmoothing::none, &paper);
  const TubeResult defaults = shock_tube(order, true);
  std::printf("p = 2, the paper's parameters: means [%.4f, %.4f], points [%.4f, %.4f], L1 %.4e, eps max %.3e\n", papers.min_mean,
              papers.max_mean, papers.min_density, papers.max_density, papers.l1_error, papers.largest_viscosity);
  ASSERT_TRUE(papers.finite);
  ASSERT_TRUE(defaults.finite);
  EXPECT_GE(papers.min_mean, 0.125 - 0.02);
  EXPECT_LE(papers.max_mean, 1.0 + 0.02);
  EXPECT_LT(papers.l1_error, 0.025);
  EXPECT_LT(papers.largest_viscosity, 0.25 * defaults.largest_viscosity);
  EXPECT_LT(papers.min_density, -0.1);                        // negative density inside elements
  EXPECT_LT(papers.min_density, 5 * defaults.min_density);    // at least five times the defaults' undershoot
  physics::ArtificialViscosityParameters papers_s0;           // the default epsilon0 and kappa
  papers_s0.s0 = paper.s0;
  EXPECT_FALSE(shock_tube(order, true, 40, physics::ViscositySmoothing::none, &papers_s0).finite);
}

// s0_offset reaches the operator at its own order: at p = 2 and 3 the elements' viscosity two steps
// into Sod's tube is the one of the same operator with s0 = log10(1 / p^4) + s0_offset given outright,
// and differs from the default threshold's (two decades lower: more elements viscous).
TEST(ArtificialViscosity, TheThresholdOffsetFollowsTheOrder) {
  const Mesh mesh = box_tetrahedra(1, 0.05, 0.05, 40, 1, 1);
  const Connectivity connectivity = build_connectivity(mesh);
  for (const int order : {2, 3}) {
    const auto viscosity = [&](double s0, double offset) {
      dg::OperatorOptions options = options_for(mesh, order, physics::BoundaryKind::slip_wall, true);
      options.artificial_viscosity.epsilon0 = 0.3;
      options.artificial_viscosity.kappa = 1;
      options.artificial_viscosity.s0 = s0;
      options.artificial_viscosity.s0_offset = offset;
      const auto op = dg::make_operator(mesh, connectivity, options);
      op->set_coefficients(piecewise_constant(*op, mesh, [&](Point3 x) {
        const double w = 0.5 * (1 - std::tanh((x.x - 0.5) / 0.025));
        return state(0.125 + 0.875 * w, 0, 0.1 + 0.9 * w);
      }));
      // (element means alone have no degree-p modes for the sensor: two steps give the jump its own)
      const RungeKuttaScheme scheme = runge_kutta_scheme("ssp-rk3");
      double t = 0;
      for (int step = 0; step < 2; ++step) {
        const double dt = op->stable_time_step(0.1);
        op->step(scheme, t, dt);
        t += dt;
      }
      return op->element_viscosity();
    };
    const double paper = -4 * std::log10(static_cast<double>(order));
    const std::vector<double> offset = viscosity(std::nan(""), -1.5), given = viscosity(paper - 1.5, -2);
    const std::vector<double> defaults = viscosity(std::nan(""), -2);
    ASSERT_EQ(offset.size(), given.size());
    EXPECT_EQ(offset, given) << "p = " << order;
    EXPECT_GT(*std::max_element(offset.begin(), offset.end()), 0.0) << "p = " << order;
    const auto viscous = [](const std::vector<double>& eps) { return std::count_if(eps.begin(), eps.end(), [](double e) { return e > 0; }); };
    EXPECT_GT(viscous(defaults), viscous(offset)) << "p = " << order;
  }
}

// The same tube at p = 2 with the smoothed field (vertex max, as PyFR): bounded the same way.
TEST(ArtificialViscosity, KeepsA3DShockTubeBoundedWithTheSmoothedField) {
  const TubeResult with = shock_tube(2, true, 40, physics::ViscositySmoothing::vertex_max);
  std::printf("p = 2, vertex-max smoothing: means [%.4f, %.4f], points [%.4f, %.4f], L1 %.4e, eps max %.3e\n", with.min_mean,
              with.max_mean, with.min_density, with.max_density, with.l1_error, with.largest_viscosity);
  ASSERT_TRUE(with.finite);
  EXPECT_GT(with.largest_viscosity, 0.0);
  EXPECT_GE(with.min_mean, 0.125 - 0.02);
  EXPECT_LE(with.max_mean, 1.0 + 0.02);
  EXPECT_LT(with.l1_error, 0.025);
}

// The case file's [artificial_viscosity]: parameters read and checked, refused in 2D and with the
// Navier-Stokes equations, unknown keys refused.
TEST(ArtificialViscosity, TheCaseTableIsCheckedWhenLoaded) {
  const std::string base = R"(
[mesh]
file = "builtin:box?lx=1&ly=1&lz=1&nx=2&ny=2&nz=2"
[flow]
kind = "uniform"
[solver]
order = 4
[time]
max_steps = 1
[artificial_viscosity]
epsilon0 = 0.5
kappa = 2
s0 = -3
[boundary.xmin]
type = "slip-wall"
[boundary.xmax]
type = "slip-wall"
[boundary.ymin]
type = "slip-wall"
[boundary.ymax]
type = "slip-wall"
[boundary.zmin]
type = "slip-wall"
[boundary.zmax]
type = "slip-wall"
)";
  const Case problem = load_case(Config::from_string(base, "av case"), Backend::cpu);
  EXPECT_TRUE(problem.options.artificial_viscosity.enabled);
  EXPECT_EQ(problem.options.artificial_viscosity.epsilon0, 0.5);
  EXPECT_EQ(problem.options.artificial_viscosity.kappa, 2.0);
  EXPECT_EQ(problem.options.artificial_viscosity.s0, -3.0);
  EXPECT_EQ(problem.options.artificial_viscosity.smoothing, physics::ViscositySmoothing::none);
  const auto refused = [&](const std::string& from, const std::string& to, const std::string& fragment) {
    std::string changed = base;
    changed.replace(changed.find(from), from.size(), to);
    try {
      (void)load_case(Config::from_string(changed, "av case"), Backend::cpu);
      ADD_FAILURE() << "accepted: " << to;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  refused("epsilon0 = 0.5", "epsilon0 = -1", "epsilon0: must be in (0, 10]");
  refused("kappa = 2", "kappa = 0", "kappa: must be in (0, 20]");
  refused("s0 = -3", "s0 = 1", "s0: must be in [-20, 0]");
  // s0_offset: the threshold log10(1 / p^4) + s0_offset at each order (0: the paper's), not with s0.
  {
    std::string offset = base;
    offset.replace(offset.find("s0 = -3"), 7, "s0_offset = 0");
    const physics::ArtificialViscosityParameters& av =
        load_case(Config::from_string(offset, "av case"), Backend::cpu).options.artificial_viscosity;
    EXPECT_TRUE(std::isnan(av.s0));
    EXPECT_EQ(av.s0_offset, 0.0);
    EXPECT_NEAR(av.s0_for(2), std::log10(1.0 / 16), 1e-15);
    EXPECT_NEAR(av.s0_for(3), std::log10(1.0 / 81), 1e-15);
  }
  refused("s0 = -3", "s0 = -3\ns0_offset = -1", "s0 and s0_offset: give one");
  refused("s0 = -3", "s0_offset = 1", "s0_offset: must be in [-10, 0]");
  refused("s0 = -3", "s0_offset = -11", "s0_offset: must be in [-10, 0]");
  refused("s0 = -3", "s0 = -3\nsmooth = true", "smooth");
  refused("s0 = -3", "s0 = -3\nsmoothing = \"pyfr\"", "smoothing: unknown 'pyfr'");
  {
    std::string smooth = base;
    smooth.replace(smooth.find("s0 = -3"), 7, "s0 = -3\nsmoothing = \"vertex-mean\"");
    EXPECT_EQ(load_case(Config::from_string(smooth, "av case"), Backend::cpu).options.artificial_viscosity.smoothing,
              physics::ViscositySmoothing::vertex_mean);
  }
  refused("order = 4", "order = 5", "order: 5 is out of range (0..4)");
  // enabled = false: the plain Euler equations.
  std::string off = base;
  off.replace(off.find("epsilon0 = 0.5"), 14, "enabled = false");
  EXPECT_FALSE(load_case(Config::from_string(off, "av case"), Backend::cpu).options.artificial_viscosity.enabled);
  // 2D meshes are refused (the triangles' limiter is the 2D way).
  std::string flat = base;
  const std::string box_spec = "builtin:box?lx=1&ly=1&lz=1&nx=2&ny=2&nz=2";
  flat.replace(flat.find(box_spec), box_spec.size(), "builtin:rectangle?nx=2&ny=2");
  for (const char* face : {"[boundary.zmin]\ntype = \"slip-wall\"\n", "[boundary.zmax]\ntype = \"slip-wall\"\n"})
    flat.erase(flat.find(face), std::string(face).size());
  try {
    (void)load_case(Config::from_string(flat, "av case"), Backend::cpu);
    ADD_FAILURE() << "a 2D case with artificial viscosity was accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("runs on 3D meshes"), std::string::npos) << error.what();
  }
}


// A strong stream started impulsively against slip walls (the isentropic vortex at Mach 0.97 in a
// 720-tetrahedron box; walls, far field, a prescribed and an outflow side meet at its corners):
// without shock capturing a corner element's mean turns non-physical at t ~ 0.0016-0.002 at p = 3,
// at CFL 0.1 and at CFL 0.0015 alike (the step the artificial viscosity's own limit takes), and the
// message names the cure; with the artificial viscosity the run reaches t = 0.003 (session 65: and
// t = 0.01, 1,099 steps).
TEST(ArtificialViscosity, KeepsAnImpulsiveStartAgainstWallsAliveAndTheBlowUpNamesIt) {
  const std::string text = R"(
[mesh]
file = "builtin:box?lx=1&ly=1.2&lz=0.8&nx=5&ny=6&nz=4&perturbation=0.1&seed=11"
[flow]
kind = "isentropic-vortex"
u = 1.0
v = 0.5
w = 0.25
strength = 2.0
center = [0.5, 0.6, 0.0]
[solver]
order = 3
[time]
scheme = "rk4"
cfl = 0.1
max_steps = 100000
end_time = 0.003
[output]
vtu = false
[boundary.xmin]
type = "farfield"
[boundary.xmax]
type = "slip-wall"
[boundary.ymin]
type = "prescribed"
[boundary.ymax]
type = "outflow"
[boundary.zmin]
type = "farfield"
[boundary.zmax]
type = "slip-wall"
)";
  const auto directory = std::filesystem::temp_directory_path() / "flowdg-av-impulsive-start";
  std::filesystem::remove_all(directory);
  RunOptions options;
  options.quiet = true;
  for (const char* cfl : {"time.cfl=0.1", "time.cfl=0.0015"}) {
    Config config = Config::from_string(text, "impulsive start");
    config.set(cfl);
    Case problem = load_case(config, Backend::cpu);
    problem.output_directory = (directory / "plain").string();
    try {
      (void)run_case(problem, options);
      FAIL() << "the run without shock capturing did not blow up (" << cfl << ")";
    } catch (const NumericalError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("non-physical state"), std::string::npos) << message;
      EXPECT_NE(message.find("[artificial_viscosity]"), std::string::npos) << message;
      EXPECT_NE(message.find("time.cfl_start"), std::string::npos) << message;
    }
  }
  Case problem = load_case(Config::from_string(text + "[artificial_viscosity]\n", "impulsive start with AV"), Backend::cpu);
  problem.output_directory = (directory / "av").string();
  Checkpoint final_state;
  options.keep_final = &final_state;
  RunResult result;
  ASSERT_NO_THROW(result = run_case(problem, options));  // (a run ends by checking every element mean)
  EXPECT_EQ(result.status, "completed");
  EXPECT_NEAR(result.time, 0.003, 1e-12);
  EXPECT_GT(result.steps, 100);  // (the viscous limit: dt ~ 1e-5)
  ASSERT_FALSE(final_state.coefficients.empty());
  for (double value : final_state.coefficients) ASSERT_TRUE(std::isfinite(value));
  std::filesystem::remove_all(directory);
}

// The paper's cases as shipped (examples/naca0012_3d.toml, examples/onera_m6.toml) load with the
// paper's parameters (epsilon0 = 0.3, kappa = 4, s0 = log10(1 / p^4) at each order: sessions 69-70's
// A/B on the H200, docs/validation.md), so a misspelt key or value in either file fails here. The
// ONERA M6 mesh is made by the user (its case file's header), so its case is loaded on the NACA
// section's mesh with the wall's tag renamed.
TEST(ArtificialViscosity, ThePapersCasesLoadWithThePapersParameters) {
  const std::string mesh = cat("mesh.file=\"", FLOWDG_SOURCE_DIR, "/examples/meshes/naca0012_3d_n1.msh\"");
  const auto expect_papers = [](const Case& problem, physics::ViscositySmoothing smoothing) {
    const dg::ArtificialViscosityOptions& av = problem.options.artificial_viscosity;
    EXPECT_TRUE(av.enabled);
    EXPECT_EQ(av.epsilon0, 0.3);
    EXPECT_EQ(av.kappa, 4.0);
    EXPECT_TRUE(std::isnan(av.s0));
    for (int p = 1; p <= 4; ++p) EXPECT_NEAR(av.s0_for(p), std::log10(1.0 / std::pow(p, 4)), 1e-14) << "p = " << p;
    EXPECT_EQ(av.smoothing, smoothing);
  };
  Config naca = Config::from_string(flowdg::testing::example_case("naca0012_3d.toml"), "naca0012_3d.toml");
  naca.set(mesh);
  naca.set("mesh.curve.order=1");  // the straight mesh: the parameters, not the curving, are checked here
  const Case naca_case = load_case(naca, Backend::cpu);
  EXPECT_EQ(naca_case.mesh.dimension, 3);
  expect_papers(naca_case, physics::ViscositySmoothing::none);

  std::string onera_text = flowdg::testing::example_case("onera_m6.toml");
  const std::string wing = "[boundary.wing]";
  ASSERT_NE(onera_text.find(wing), std::string::npos);
  onera_text.replace(onera_text.find(wing), wing.size(), "[boundary.airfoil]");
  Config onera = Config::from_string(onera_text, "onera_m6.toml");
  onera.set(mesh);
  onera.set("forces.walls=[\"airfoil\"]");
  const Case onera_case = load_case(onera, Backend::cpu);
  EXPECT_EQ(onera_case.lift_axis, 2);
  expect_papers(onera_case, physics::ViscositySmoothing::vertex_max);
}
