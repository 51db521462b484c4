// The dimension-generic Euler physics (physics/euler/): in 2D it reproduces the hand-written 2D
// physics, fluxes, boundary conditions and flows (physics/euler.hpp, riemann/, boundary/,
// cases/euler2d_cases.hpp) on random states, which proves the generalisation; in 3D the numerical
// fluxes are consistent, conservative and rotationally invariant, reduce to the 2D ones for planar
// flow, walls let nothing but pressure through, and the extruded vortices are exact solutions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "euler_generic_random.hpp"
#include "euler_random_states.hpp"
#include "flowdg/cases/euler2d_cases.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/physics/boundary/euler_boundary.hpp"
#include "flowdg/physics/euler.hpp"
#include "flowdg/physics/euler/boundary.hpp"
#include "flowdg/physics/euler/euler.hpp"
#include "flowdg/physics/euler/flows.hpp"
#include "flowdg/physics/euler/riemann.hpp"
#include "flowdg/physics/riemann/hllc.hpp"
#include "flowdg/physics/riemann/roe.hpp"
#include "flowdg/physics/riemann/rusanov.hpp"

namespace physics = flowdg::physics;
namespace euler2d = flowdg::euler2d;
using physics::test_support::flux_scale;
using physics::test_support::random_state;
using physics::test_support::random_unit;
using physics::test_support::relative_difference;
using physics::test_support::Rotation;
using physics::test_support::scaled_difference;

namespace {
constexpr int n_samples = 5000;

using Euler2 = physics::Euler<2>;
using Euler3 = physics::Euler<3>;
using State2 = Euler2::State;
using State3 = Euler3::State;
using Direction2 = Euler2::Direction;
using Direction3 = Euler3::Direction;

State2 generic(const euler2d::State& u) { return {{u[0], u[1], u[2], u[3]}}; }
euler2d::State legacy(const State2& u) { return {{u[0], u[1], u[2], u[3]}}; }

/// A 3D state with the planar state's (rho, m_x, m_y) and z-momentum rho w (energy adjusted so the
/// pressure is the planar state's).
State3 extrude(const euler2d::State& u, double w) {
  return {{u[0], u[1], u[2], u[0] * w, u[3] + 0.5 * u[0] * w * w}};
}

/// The 2D solver matching a generic one.
template <class Generic>
struct Legacy;
template <>
struct Legacy<physics::Rusanov> {
  using type = euler2d::RusanovFlux;
};
template <>
struct Legacy<physics::Hllc> {
  using type = euler2d::HllcFlux;
};
template <>
struct Legacy<physics::Roe> {
  using type = euler2d::RoeFlux;
};

template <class Solver>
class EulerGenericFlux : public ::testing::Test {};
using AllSolvers = ::testing::Types<physics::Rusanov, physics::Hllc, physics::Roe>;
TYPED_TEST_SUITE(EulerGenericFlux, AllSolvers);

template <class Solver>
class EulerGenericContactFlux : public ::testing::Test {};
using ContactSolvers = ::testing::Types<physics::Hllc, physics::Roe>;
TYPED_TEST_SUITE(EulerGenericContactFlux, ContactSolvers);
}  // namespace

// ---- Dim = 2 against the 2D code -------------------------------------------------------------

TEST(EulerGeneric, TwoDimensionalPhysicsMatchesTheTwoDimensionalCode) {
  for (const double gamma : {1.4, 1.3, 5.0 / 3.0}) {
    const euler2d::Gas gas{gamma};
    const Euler2 equations{gamma};
    std::mt19937_64 rng(1);
    for (int sample = 0; sample < n_samples; ++sample) {
      const euler2d::State legacy_u = euler2d::test_support::random_state(rng, gas);
      const State2 u = generic(legacy_u);
      double nx, ny;
      euler2d::test_support::random_normal(rng, nx, ny);
      const Direction2 n{{nx, ny}};
      const State2 scale = generic(euler2d::test_support::flux_scale(legacy_u, gas));

      EXPECT_NEAR(equations.pressure(u), euler2d::pressure(legacy_u, gas), 1e-14 * euler2d::pressure(legacy_u, gas));
      EXPECT_NEAR(equations.sound_speed(u), euler2d::sound_speed(legacy_u, gas),
                  1e-14 * euler2d::sound_speed(legacy_u, gas));
      const double bound = euler2d::max_wave_speed(legacy_u, gas);
      EXPECT_NEAR(equations.max_wave_speed(u), bound, 1e-14 * bound);
      EXPECT_NEAR(equations.max_wave_speed(u, n), euler2d::max_wave_speed(legacy_u, nx, ny, gas), 1e-14 * bound);

      State2 f[2];
      equations.flux(u, f);
      euler2d::State fx, fy;
      euler2d::flux(legacy_u, gas, fx, fy);
      EXPECT_LE(scaled_difference(f[0], generic(fx), scale), 1e-14) << "sample " << sample;
      EXPECT_LE(scaled_difference(f[1], generic(fy), scale), 1e-14) << "sample " << sample;
      EXPECT_LE(scaled_difference(equations.normal_flux(u, n), generic(euler2d::normal_flux(legacy_u, nx, ny, gas)), scale),
                1e-14)
          << "sample " << sample;

      const euler2d::Primitive w = euler2d::to_primitive(legacy_u, gas);
      const State2 primitive{{w.rho, w.u, w.v, w.p}};
      EXPECT_LE(relative_difference(equations.to_primitive(u), primitive), 1e-14) << "sample " << sample;
      EXPECT_LE(relative_difference(equations.to_conservative(primitive), generic(euler2d::to_conservative(w, gas))), 1e-14)
          << "sample " << sample;
      EXPECT_TRUE(equations.is_admissible(u));
    }
  }
}

TEST(EulerGeneric, AdmissibilityAgreesWithTheTwoDimensionalCode) {
  const euler2d::Gas gas{};
  const Euler2 equations{};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double infinity = std::numeric_limits<double>::infinity();
  const State2 reference{{2.0, 1.0, -3.0, 10.0}};
  std::vector<State2> states = {reference,
                                {{0.0, 0.0, 0.0, 1.0}},
                                {{-1.0, 0.0, 0.0, 1.0}},
                                {{2.0, 1.0, -3.0, 2.5}},  // kinetic energy 2.5: p = 0
                                {{2.0, 1.0, -3.0, 2.0}},  // p < 0
                                {{2.0, 1.0, -3.0, 2.5 + 1e-12}},
                                {{1e-300, 1e200, 0.0, 1.0}}};  // the kinetic energy overflows
  for (int i = 0; i < 4; ++i)
    for (const double broken : {nan, infinity, -infinity}) {
      State2 u = reference;
      u[i] = broken;
      states.push_back(u);
    }
  int admissible = 0;
  for (const State2& u : states) {
    EXPECT_EQ(equations.is_admissible(u), euler2d::is_admissible(legacy(u), gas)) << u[0] << " " << u[3];
    admissible += equations.is_admissible(u) ? 1 : 0;
  }
  EXPECT_EQ(admissible, 2);  // the reference and the barely positive pressure
}

TYPED_TEST(EulerGenericFlux, TwoDimensionalFluxMatchesTheTwoDimensionalSolver) {
  // Random pairs, and pairs close to each other (the near-sonic and near-contact branches).
  for (const double gamma : {1.4, 1.3}) {
    const euler2d::Gas gas{gamma};
    const Euler2 equations{gamma};
    std::mt19937_64 rng(2);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    for (int sample = 0; sample < n_samples; ++sample) {
      const euler2d::State um = euler2d::test_support::random_state(rng, gas);
      euler2d::State up = euler2d::test_support::random_state(rng, gas);
      if (sample % 2 == 1)
        for (int i = 0; i < 4; ++i) up[i] = um[i] * (1.0 + 1e-3 * unit(rng));
      double nx, ny;
      euler2d::test_support::random_normal(rng, nx, ny);
      const State2 expected = generic(typename Legacy<TypeParam>::type{}(um, up, nx, ny, gas));
      const State2 actual = TypeParam{}(equations, generic(um), generic(up), Direction2{{nx, ny}});
      ASSERT_LE(scaled_difference(actual, expected, generic(euler2d::test_support::flux_scale(um, up, gas))), 1e-14)
          << "sample " << sample;
    }
  }
}

TEST(EulerGeneric, RoeEntropyFixMatchesTheTwoDimensionalSolver) {
  const euler2d::Gas gas{};
  const Euler2 equations{};
  std::mt19937_64 rng(3);
  for (const double fix : {0.0, 0.05, 0.3}) {
    for (int sample = 0; sample < 1000; ++sample) {
      const euler2d::State um = euler2d::test_support::random_state(rng, gas);
      const euler2d::State up = euler2d::test_support::random_state(rng, gas);
      double nx, ny;
      euler2d::test_support::random_normal(rng, nx, ny);
      const State2 expected = generic(euler2d::RoeFlux{fix}(um, up, nx, ny, gas));
      const State2 actual = physics::Roe{fix}(equations, generic(um), generic(up), Direction2{{nx, ny}});
      ASSERT_LE(scaled_difference(actual, expected, generic(euler2d::test_support::flux_scale(um, up, gas))), 1e-14)
          << "entropy fix " << fix << ", sample " << sample;
    }
  }
}

TEST(EulerGeneric, TwoDimensionalBoundaryConditionsMatchTheTwoDimensionalCode) {
  const euler2d::Gas gas{};
  const Euler2 equations{};
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> coordinate(-3.0, 3.0);
  for (int sample = 0; sample < n_samples; ++sample) {
    const euler2d::State um = euler2d::test_support::random_state(rng, gas);
    const euler2d::State outside = euler2d::test_support::random_state(rng, gas);
    double nx, ny;
    euler2d::test_support::random_normal(rng, nx, ny);
    const Direction2 n{{nx, ny}}, x{{coordinate(rng), coordinate(rng)}}, center{{coordinate(rng), coordinate(rng)}};
    const double t = 0.25;
    // flow_at must get the face point and the time, and is called only by the kinds that need it.
    int calls = 0;
    const auto flow_at = [&](const Direction2& at, double time) {
      EXPECT_EQ(at[0], x[0]);
      EXPECT_EQ(at[1], x[1]);
      EXPECT_EQ(time, t);
      ++calls;
      return generic(outside);
    };
    const auto ghost = [&](physics::BoundaryKind kind) {
      physics::BoundaryCondition<2> condition{kind, center};
      return condition.ghost_state(equations, generic(um), n, x, t, flow_at);
    };
    double tx, ty;
    euler2d::circle_tangent(center[0], center[1], x[0], x[1], -ny, nx, tx, ty);
    using Kind = physics::BoundaryKind;
    EXPECT_LE(relative_difference(ghost(Kind::slip_wall), generic(euler2d::slip_wall(um, nx, ny))), 1e-14);
    EXPECT_LE(relative_difference(ghost(Kind::symmetry), generic(euler2d::slip_wall(um, nx, ny))), 1e-14);
    EXPECT_LE(relative_difference(ghost(Kind::curvature_wall), generic(euler2d::curvature_wall(um, tx, ty))), 1e-14);
    EXPECT_LE(relative_difference(ghost(Kind::outflow), generic(euler2d::supersonic_outflow(um))), 0.0);
    EXPECT_EQ(calls, 0);
    EXPECT_LE(relative_difference(ghost(Kind::inflow), generic(euler2d::supersonic_inflow(outside))), 0.0);
    EXPECT_LE(relative_difference(ghost(Kind::prescribed), generic(outside)), 0.0);
    EXPECT_LE(relative_difference(ghost(Kind::farfield),
                                  generic(euler2d::characteristic_farfield(um, outside, nx, ny, gas))),
              1e-14)
        << "sample " << sample;
    EXPECT_EQ(calls, 3);
  }
}

TEST(EulerGeneric, TwoDimensionalFlowsMatchTheTwoDimensionalCases) {
  const double gamma = 1.4;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> coordinate(-6.0, 6.0), time(0.0, 3.0);
  physics::FlowSpec spec;
  spec.velocity = {0.7, -0.4, 0.0};
  spec.density = 1.3;
  spec.pressure = 0.9;
  spec.strength = 4.0;
  spec.center = {0.5, -1.0, 0.0};
  spec.mach_inner = 2.0;
  spec.r_inner = 0.8;
  spec.shock_x0 = 0.2;
  euler2d::Flow legacy_flow;
  legacy_flow.gas = euler2d::Gas{gamma};
  legacy_flow.state = {spec.density, spec.velocity.x, spec.velocity.y, spec.pressure};
  legacy_flow.strength = spec.strength;
  legacy_flow.center_x = spec.center.x;
  legacy_flow.center_y = spec.center.y;
  legacy_flow.mach_inner = spec.mach_inner;
  legacy_flow.r_inner = spec.r_inner;
  legacy_flow.shock_x0 = spec.shock_x0;
  const std::pair<physics::FlowKind, euler2d::FlowKind> kinds[] = {
      {physics::FlowKind::uniform, euler2d::FlowKind::uniform},
      {physics::FlowKind::isentropic_vortex, euler2d::FlowKind::isentropic_vortex},
      {physics::FlowKind::supersonic_vortex, euler2d::FlowKind::supersonic_vortex},
      {physics::FlowKind::double_mach, euler2d::FlowKind::double_mach}};
  for (const double period : {0.0, 8.0}) {
    spec.period = {period, period, 0.0};
    legacy_flow.period_x = legacy_flow.period_y = period;
    for (const auto& [kind, legacy_kind] : kinds) {
      spec.kind = kind;
      legacy_flow.kind = legacy_kind;
      physics::check_supported(spec, 2, gamma);
      const physics::EulerFlow<2> flow = physics::to_flow<2, double>(spec, gamma);
      for (int sample = 0; sample < 1000; ++sample) {
        const Direction2 x{{coordinate(rng), coordinate(rng)}};
        const double t = time(rng);
        if (kind == physics::FlowKind::supersonic_vortex && std::hypot(x[0], x[1]) < 0.9 * spec.r_inner) continue;
        EXPECT_LE(relative_difference(flow(x, t), generic(legacy_flow(x[0], x[1], t))), 1e-14)
            << physics::flow_kind_name(kind) << " at (" << x[0] << ", " << x[1] << "), t = " << t;
      }
    }
  }
}

// ---- Dim = 3 -----------------------------------------------------------------------------------

TYPED_TEST(EulerGenericFlux, ThreeDimensionalFluxIsConsistent) {
  const Euler3 equations{};
  std::mt19937_64 rng(101);
  for (int sample = 0; sample < n_samples; ++sample) {
    const State3 u = random_state<3>(rng, equations);
    const Direction3 n = random_unit<3>(rng);
    ASSERT_LE(scaled_difference(TypeParam{}(equations, u, u, n), equations.normal_flux(u, n), flux_scale(equations, u, u)),
              1e-14)
        << "sample " << sample;
  }
}

TYPED_TEST(EulerGenericFlux, ThreeDimensionalFluxIsConservative) {
  const Euler3 equations{};
  std::mt19937_64 rng(202);
  for (int sample = 0; sample < n_samples; ++sample) {
    const State3 um = random_state<3>(rng, equations);
    const State3 up = random_state<3>(rng, equations);
    const Direction3 n = random_unit<3>(rng);
    const State3 forward = TypeParam{}(equations, um, up, n);
    const State3 backward = TypeParam{}(equations, up, um, -n);
    ASSERT_LE(scaled_difference(forward, -backward, flux_scale(equations, um, up)), 1e-13) << "sample " << sample;
  }
}

TYPED_TEST(EulerGenericFlux, ThreeDimensionalFluxIsRotationallyInvariant) {
  // F*(R u_m, R u_p, R n) = R F*(u_m, u_p, n) for a rotation R of the velocity: no direction and no
  // tangent basis is special.
  const Euler3 equations{};
  std::mt19937_64 rng(303);
  for (int sample = 0; sample < n_samples; ++sample) {
    const State3 um = random_state<3>(rng, equations);
    const State3 up = random_state<3>(rng, equations);
    const Direction3 n = random_unit<3>(rng);
    const Rotation rotation = Rotation::random(rng);
    const State3 rotated = TypeParam{}(equations, rotation(um), rotation(up), rotation(n));
    ASSERT_LE(scaled_difference(rotated, rotation(TypeParam{}(equations, um, up, n)), flux_scale(equations, um, up)),
              1e-13)
        << "sample " << sample;
  }
}

TYPED_TEST(EulerGenericFlux, ThreeDimensionalFluxOfPlanarFlowIsTheTwoDimensionalFlux) {
  // No z-velocity and a normal in the x-y plane: the 2D flux in (mass, x, y) and energy, and no
  // z-momentum flux.
  const euler2d::Gas gas{};
  const Euler3 equations{};
  std::mt19937_64 rng(404);
  for (int sample = 0; sample < n_samples; ++sample) {
    const euler2d::State um = euler2d::test_support::random_state(rng, gas);
    const euler2d::State up = euler2d::test_support::random_state(rng, gas);
    double nx, ny;
    euler2d::test_support::random_normal(rng, nx, ny);
    const euler2d::State planar = typename Legacy<TypeParam>::type{}(um, up, nx, ny, gas);
    const State3 flux = TypeParam{}(equations, extrude(um, 0.0), extrude(up, 0.0), Direction3{{nx, ny, 0.0}});
    const euler2d::State scale = euler2d::test_support::flux_scale(um, up, gas);
    const State3 expected{{planar[0], planar[1], planar[2], 0.0, planar[3]}};
    EXPECT_EQ(flux[3], 0.0) << "sample " << sample;
    ASSERT_LE(scaled_difference(flux, expected, State3{{scale[0], scale[1], scale[2], scale[1], scale[3]}}), 1e-14)
        << "sample " << sample;
  }
}

TYPED_TEST(EulerGenericContactFlux, ThreeDimensionalFluxCarriesTheTangentialVelocityUpwind) {
  // Equal pressure and normal velocity on both sides, different density and tangential velocity
  // (two components in 3D): a contact and shear wave moving with v.n > 0, which HLLC and Roe resolve
  // exactly: the flux is the upwind (minus) side's f(u_m).n, tangential momentum included.
  const Euler3 equations{};
  std::mt19937_64 rng(505);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int sample = 0; sample < 1000; ++sample) {
    const Direction3 n = random_unit<3>(rng);
    const double normal_velocity = 0.2 + unit(rng), p = 0.5 + unit(rng);
    const auto state = [&](double rho) {
      // A random tangential velocity: a random vector minus its normal part.
      Direction3 tangential = random_unit<3>(rng);
      tangential = tangential - dot(tangential, n) * n;
      const Direction3 velocity = normal_velocity * n + tangential;
      return equations.to_conservative(State3{{rho, velocity[0], velocity[1], velocity[2], p}});
    };
    const State3 um = state(0.5 + unit(rng)), up = state(0.5 + unit(rng));
    const State3 flux = TypeParam{}(equations, um, up, n);
    ASSERT_LE(scaled_difference(flux, equations.normal_flux(um, n), flux_scale(equations, um, up)), 1e-14)
        << "sample " << sample;
  }
}

TYPED_TEST(EulerGenericFlux, SlipWallLetsNothingButPressureThrough) {
  // Through a slip wall (and a symmetry plane) the mass and energy fluxes vanish and the momentum
  // flux is normal to the wall, for every solver, in 2D and 3D.
  std::mt19937_64 rng(606);
  const auto check = [&](const auto& equations, physics::BoundaryKind kind) {
    using Physics = std::decay_t<decltype(equations)>;
    constexpr int dim = Physics::dim;
    const physics::BoundaryCondition<dim> condition{kind, {}};
    const auto no_flow = [](const typename Physics::Direction&, double) -> typename Physics::State {
      ADD_FAILURE() << "a wall does not evaluate the prescribed flow";
      return {};
    };
    for (int sample = 0; sample < n_samples; ++sample) {
      const typename Physics::State um = random_state<dim>(rng, equations);
      const typename Physics::Direction n = random_unit<dim>(rng), x{};
      const typename Physics::State up = condition.ghost_state(equations, um, n, x, 0.0, no_flow);
      const typename Physics::State flux = TypeParam{}(equations, um, up, n);
      typename Physics::State wall_only{};
      double normal_momentum_flux = 0.0;
      for (int d = 0; d < dim; ++d) normal_momentum_flux += flux[1 + d] * n[d];
      for (int d = 0; d < dim; ++d) wall_only[1 + d] = normal_momentum_flux * n[d];
      ASSERT_LE(scaled_difference(flux, wall_only, flux_scale(equations, um, um)), 1e-14)
          << dim << "D, sample " << sample;
      // The tangential velocity is the interior's, the normal velocity reversed.
      const typename Physics::Direction difference = equations.velocity(up) - equations.velocity(um);
      const double normal_difference = dot(difference, n);
      ASSERT_NEAR(normal_difference, -2.0 * dot(equations.velocity(um), n), 1e-14 * equations.max_wave_speed(um));
      ASSERT_LE(std::sqrt(dot(difference - normal_difference * n, difference - normal_difference * n)),
                1e-14 * equations.max_wave_speed(um));
    }
  };
  for (const physics::BoundaryKind kind : {physics::BoundaryKind::slip_wall, physics::BoundaryKind::symmetry}) {
    check(Euler2{}, kind);
    check(Euler3{}, kind);
  }
}

TEST(EulerGeneric, ThreeDimensionalFarFieldIsRotationallyInvariantAndReducesToTwoDimensions) {
  const euler2d::Gas gas{};
  const Euler3 equations{};
  const physics::BoundaryCondition<3> farfield{physics::BoundaryKind::farfield, {}};
  std::mt19937_64 rng(707);
  int subsonic = 0;
  for (int sample = 0; sample < n_samples; ++sample) {
    // Rotation: the ghost state of rotated states and normal is the rotated ghost state.
    const State3 um = random_state<3>(rng, equations), outside = random_state<3>(rng, equations);
    const Direction3 n = random_unit<3>(rng), x{};
    const Rotation rotation = Rotation::random(rng);
    const State3 ghost = farfield.ghost_state(equations, um, n, x, 0.0, [&](const Direction3&, double) { return outside; });
    const State3 rotated_outside = rotation(outside);
    const State3 rotated_ghost = farfield.ghost_state(equations, rotation(um), rotation(n), x, 0.0,
                                                      [&](const Direction3&, double) { return rotated_outside; });
    ASSERT_LE(relative_difference(rotated_ghost, rotation(ghost)), 1e-13) << "sample " << sample;
    const double normal_mach = dot(equations.velocity(um), n) / equations.sound_speed(um);
    subsonic += std::abs(normal_mach) < 1.0 ? 1 : 0;

    // Planar flow with a z-velocity w: the 2D ghost state, with w from the upwind side.
    const euler2d::State planar_m = euler2d::test_support::random_state(rng, gas);
    const euler2d::State planar_outside = euler2d::test_support::random_state(rng, gas);
    double nx, ny;
    euler2d::test_support::random_normal(rng, nx, ny);
    const double w_m = 0.3, w_outside = -0.2;
    const State3 planar_ghost =
        farfield.ghost_state(equations, extrude(planar_m, w_m), Direction3{{nx, ny, 0.0}}, x, 0.0,
                             [&](const Direction3&, double) { return extrude(planar_outside, w_outside); });
    const euler2d::State expected = euler2d::characteristic_farfield(planar_m, planar_outside, nx, ny, gas);
    const double expected_normal_velocity = (expected[1] * nx + expected[2] * ny) / expected[0];
    const double normal_velocity_m = (planar_m[1] * nx + planar_m[2] * ny) / planar_m[0];
    const double c_m = euler2d::sound_speed(planar_m, gas);
    const bool from_inside = normal_velocity_m >= c_m || (normal_velocity_m > -c_m && expected_normal_velocity > 0.0);
    const double w = from_inside ? w_m : w_outside;
    ASSERT_LE(relative_difference(planar_ghost, extrude(expected, w)), 1e-14) << "sample " << sample;
  }
  EXPECT_GT(subsonic, n_samples / 4);  // the subsonic branch, where the invariants mix, was exercised
}

// ---- flows -------------------------------------------------------------------------------------

namespace {
/// dU/dt + sum_d dF_d(U)/dx_d of a flow at (x, t) by fourth-order central differences,
///   f'(a) = (f(a - 2h) - 8 f(a - h) + 8 f(a + h) - f(a + 2h)) / (12 h) + O(h^4),
/// divided component-wise by the flux scale of U (per unit length).
template <int Dim>
double scaled_residual(const physics::EulerFlow<Dim>& flow, const physics::Euler<Dim>& equations,
                       const typename physics::Euler<Dim>::Direction& x, double t, double h) {
  using State = typename physics::Euler<Dim>::State;
  const double weights[4] = {1.0, -8.0, 8.0, -1.0}, offsets[4] = {-2.0, -1.0, 1.0, 2.0};
  State residual{};
  for (int k = 0; k < 4; ++k) {
    residual = residual + (weights[k] / (12.0 * h)) * flow(x, t + offsets[k] * h);
    for (int d = 0; d < Dim; ++d) {
      typename physics::Euler<Dim>::Direction shifted = x;
      shifted[d] += offsets[k] * h;
      State f[Dim];
      equations.flux(flow(shifted, t), f);
      residual = residual + (weights[k] / (12.0 * h)) * f[d];
    }
  }
  const State u = flow(x, t);
  return scaled_difference(residual, State{}, flux_scale(equations, u, u));
}
}  // namespace

TEST(EulerGeneric, ThreeDimensionalIsentropicVortexSolvesTheEulerEquations) {
  const double gamma = 1.4;
  const Euler3 equations{gamma};
  std::mt19937_64 rng(808);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  double worst = 0.0, largest_wrong = 0.0;
  for (int sample = 0; sample < 200; ++sample) {
    physics::FlowSpec spec;
    spec.kind = physics::FlowKind::isentropic_vortex;
    spec.velocity = {unit(rng), unit(rng), unit(rng)};  // any background velocity vector
    spec.center = {unit(rng), unit(rng), unit(rng)};
    spec.period = sample % 2 == 0 ? flowdg::Point3{20.0, 20.0, 20.0} : flowdg::Point3{};
    physics::check_supported(spec, 3, gamma);
    const physics::EulerFlow<3> flow = physics::to_flow<3, double>(spec, gamma);
    // A point within three core radii of the vortex centre at time t (in any periodic image).
    const double t = 5.0 * (unit(rng) + 1.0);
    const Direction3 offset = (1.5 * (unit(rng) + 1.0)) * random_unit<3>(rng);
    Direction3 x{{spec.center.x + spec.velocity.x * t + offset[0], spec.center.y + spec.velocity.y * t + offset[1],
                  spec.center.z + spec.velocity.z * t + offset[2]}};
    if (sample % 2 == 0)
      for (int d = 0; d < 3; ++d) x[d] += 20.0 * std::round(3.0 * unit(rng));
    worst = std::max(worst, scaled_residual(flow, equations, x, t, 1e-3));
    // The check can fail: the same flow is no solution for another gamma's fluxes.
    largest_wrong = std::max(largest_wrong, scaled_residual(flow, Euler3{1.3}, x, t, 1e-3));
  }
  EXPECT_LE(worst, 1e-9);  // observed 3e-12: the differencing error, h^4 and rounding / h
  EXPECT_GT(largest_wrong, 1e-3);  // observed 0.09
}

TEST(EulerGeneric, ThreeDimensionalSupersonicVortexIsSteady) {
  const Euler3 equations{};
  physics::FlowSpec spec;
  spec.kind = physics::FlowKind::supersonic_vortex;
  const physics::EulerFlow<3> flow = physics::to_flow<3, double>(spec, equations.gamma);
  std::mt19937_64 rng(909);
  std::uniform_real_distribution<double> radius(1.0, 1.384), angle(0.0, 2.0 * std::numbers::pi), z(-5.0, 5.0);
  double worst = 0.0;
  for (int sample = 0; sample < 200; ++sample) {
    const double r = radius(rng), theta = angle(rng);
    worst = std::max(worst, scaled_residual(flow, equations, Direction3{{r * std::cos(theta), r * std::sin(theta), z(rng)}},
                                            0.0, 1e-3));
  }
  EXPECT_LE(worst, 1e-9);  // observed 6e-11
}

TEST(EulerGeneric, ThreeDimensionalVorticesAreTheTwoDimensionalOnesExtruded) {
  const double gamma = 1.4;
  std::mt19937_64 rng(1001);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (const physics::FlowKind kind : {physics::FlowKind::isentropic_vortex, physics::FlowKind::supersonic_vortex}) {
    for (int sample = 0; sample < 1000; ++sample) {
      physics::FlowSpec spec;
      spec.kind = kind;
      spec.velocity = {unit(rng), unit(rng), unit(rng)};
      spec.center = {unit(rng), unit(rng), unit(rng)};
      spec.period = {12.0, 12.0, 12.0};
      euler2d::Flow planar;
      planar.kind = kind == physics::FlowKind::isentropic_vortex ? euler2d::FlowKind::isentropic_vortex
                                                                  : euler2d::FlowKind::supersonic_vortex;
      planar.gas = euler2d::Gas{gamma};
      planar.state = {1.0, spec.velocity.x, spec.velocity.y, 1.0};
      planar.center_x = spec.center.x;
      planar.center_y = spec.center.y;
      planar.period_x = planar.period_y = 12.0;
      const Direction3 x{{6.0 * unit(rng), 6.0 * unit(rng), 6.0 * unit(rng)}};
      if (kind == physics::FlowKind::supersonic_vortex && std::hypot(x[0], x[1]) < 1.0) continue;
      const double t = 2.0 * (unit(rng) + 1.0);
      const State3 u = physics::to_flow<3, double>(spec, gamma)(x, t);
      // The supersonic vortex has no z-velocity; the isentropic vortex carries the background's.
      const double w = kind == physics::FlowKind::isentropic_vortex ? spec.velocity.z : 0.0;
      ASSERT_LE(relative_difference(u, extrude(planar(x[0], x[1], t), w)), 1e-14)
          << physics::flow_kind_name(kind) << ", sample " << sample;
    }
  }
}

// ---- names and set-up checks -------------------------------------------------------------------

TEST(EulerGeneric, NamesAndVariableNames) {
  EXPECT_STREQ(Euler2::name(), "euler2d");
  EXPECT_STREQ(Euler3::name(), "euler3d");
  static_assert(Euler2::n_variables == 4 && Euler3::n_variables == 5);
  static_assert(!Euler2::has_viscous_flux && !Euler3::has_viscous_flux);
  const char* expected3[] = {"density", "momentum_x", "momentum_y", "momentum_z", "energy"};
  for (int i = 0; i < 5; ++i) EXPECT_STREQ(Euler3::variable_name(i), expected3[i]);
  const char* expected2[] = {"density", "momentum_x", "momentum_y", "energy"};
  for (int i = 0; i < 4; ++i) EXPECT_STREQ(Euler2::variable_name(i), expected2[i]);
  EXPECT_EQ(Euler2::variable_name(4), nullptr);
  EXPECT_EQ(Euler3::variable_name(-1), nullptr);
}

TEST(EulerGeneric, ParsesTheCaseFileNames) {
  EXPECT_EQ(physics::parse_riemann_kind("rusanov"), physics::RiemannKind::rusanov);
  EXPECT_EQ(physics::parse_riemann_kind("llf"), physics::RiemannKind::rusanov);
  EXPECT_EQ(physics::parse_riemann_kind("lax-friedrichs"), physics::RiemannKind::rusanov);
  EXPECT_EQ(physics::parse_riemann_kind("hllc"), physics::RiemannKind::hllc);
  EXPECT_EQ(physics::parse_riemann_kind("roe"), physics::RiemannKind::roe);
  EXPECT_THROW(physics::parse_riemann_kind("HLLC"), flowdg::InputError);
  for (const auto kind : {physics::RiemannKind::rusanov, physics::RiemannKind::hllc, physics::RiemannKind::roe})
    EXPECT_EQ(physics::parse_riemann_kind(physics::riemann_kind_name(kind)), kind);
  for (const auto kind : {physics::BoundaryKind::slip_wall, physics::BoundaryKind::curvature_wall,
                          physics::BoundaryKind::symmetry, physics::BoundaryKind::inflow, physics::BoundaryKind::outflow,
                          physics::BoundaryKind::farfield, physics::BoundaryKind::prescribed})
    EXPECT_EQ(physics::parse_boundary_kind(physics::boundary_kind_name(kind)), kind);
  EXPECT_EQ(physics::parse_boundary_kind("slip-wall"), physics::BoundaryKind::slip_wall);
  EXPECT_THROW(physics::parse_boundary_kind("slip_wall"), flowdg::InputError);
  for (const auto kind : {physics::FlowKind::uniform, physics::FlowKind::isentropic_vortex,
                          physics::FlowKind::supersonic_vortex, physics::FlowKind::double_mach})
    EXPECT_EQ(physics::parse_flow_kind(physics::flow_kind_name(kind)), kind);
  EXPECT_EQ(physics::parse_flow_kind("isentropic-vortex"), physics::FlowKind::isentropic_vortex);
  EXPECT_THROW(physics::parse_flow_kind("vortex"), flowdg::InputError);
}

TEST(EulerGeneric, RefusesTwoDimensionalOnlyFeaturesInThreeDimensions) {
  const auto message = [](const auto& call) {
    try {
      call();
    } catch (const flowdg::InputError& error) {
      return std::string(error.what());
    }
    return std::string("no InputError");
  };
  EXPECT_NO_THROW(physics::check_supported(physics::BoundaryKind::curvature_wall, 2));
  EXPECT_NO_THROW(physics::check_supported(physics::BoundaryCondition<2>{physics::BoundaryKind::curvature_wall, {}}));
  EXPECT_NE(message([] { physics::check_supported(physics::BoundaryKind::curvature_wall, 3); }).find("curvature-wall"),
            std::string::npos);
  EXPECT_THROW(physics::check_supported(physics::BoundaryCondition<3>{physics::BoundaryKind::curvature_wall, {}}),
               flowdg::InputError);
  for (const auto kind : {physics::BoundaryKind::slip_wall, physics::BoundaryKind::symmetry, physics::BoundaryKind::inflow,
                          physics::BoundaryKind::outflow, physics::BoundaryKind::farfield,
                          physics::BoundaryKind::prescribed})
    EXPECT_NO_THROW(physics::check_supported(kind, 3));

  physics::FlowSpec spec;
  spec.kind = physics::FlowKind::double_mach;
  EXPECT_NO_THROW(physics::check_supported(spec, 2));
  EXPECT_NE(message([&] { physics::check_supported(spec, 3); }).find("double-mach"), std::string::npos);
  spec.kind = physics::FlowKind::uniform;
  EXPECT_NO_THROW(physics::check_supported(spec, 3));
  spec.pressure = 0.0;
  EXPECT_THROW(physics::check_supported(spec, 3), flowdg::InputError);
  spec.pressure = 1.0;
  EXPECT_THROW(physics::check_supported(spec, 3, 1.0), flowdg::InputError);  // gamma must exceed 1
  spec.kind = physics::FlowKind::isentropic_vortex;
  spec.strength = 5.0;
  EXPECT_NO_THROW(physics::check_supported(spec, 3));
  spec.strength = 20.0;  // core temperature 1 - 0.4 * 400 / (11.2 pi^2) e < 0
  EXPECT_NE(message([&] { physics::check_supported(spec, 3); }).find("strength"), std::string::npos);
}

// The 3D inflow and outflow conditions (issue 16 item 5), at any normal: supersonic inflow takes
// the given state, supersonic outflow the interior's; subsonic inflow takes density and velocity
// from the given state and pressure from the interior; subsonic outflow the given pressure and
// the interior's density and velocity. Each is rotationally invariant.
TEST(EulerGeneric, ThreeDimensionalInflowAndOutflowTakeTheirDataFromTheRightSide) {
  const Euler3 equations{};
  std::mt19937_64 rng(909);
  const Direction3 x{};
  for (int sample = 0; sample < n_samples; ++sample) {
    const State3 um = random_state<3>(rng, equations), given = random_state<3>(rng, equations);
    const Direction3 n = random_unit<3>(rng);
    const auto ghost = [&](physics::BoundaryKind kind, const State3& inside, const State3& outside, const Direction3& normal) {
      const physics::BoundaryCondition<3> condition{kind, {}};
      return condition.ghost_state(equations, inside, normal, x, 0.0, [&](const Direction3&, double) { return outside; });
    };
    ASSERT_LE(relative_difference(ghost(physics::BoundaryKind::inflow, um, given, n), given), 1e-15) << sample;
    ASSERT_LE(relative_difference(ghost(physics::BoundaryKind::outflow, um, given, n), um), 1e-15) << sample;
    const State3 in = ghost(physics::BoundaryKind::subsonic_inflow, um, given, n);
    ASSERT_NEAR(in[0], given[0], 1e-14 * given[0]) << sample;
    for (int d = 0; d < 3; ++d)
      ASSERT_NEAR(Euler3::velocity(in)[d], Euler3::velocity(given)[d], 1e-13 * (1 + std::abs(Euler3::velocity(given)[d]))) << sample;
    ASSERT_NEAR(equations.pressure(in), equations.pressure(um), 1e-13 * equations.pressure(um)) << sample;
    const State3 out = ghost(physics::BoundaryKind::subsonic_outflow, um, given, n);
    ASSERT_NEAR(out[0], um[0], 1e-14 * um[0]) << sample;
    for (int d = 0; d < 3; ++d)
      ASSERT_NEAR(Euler3::velocity(out)[d], Euler3::velocity(um)[d], 1e-13 * (1 + std::abs(Euler3::velocity(um)[d]))) << sample;
    ASSERT_NEAR(equations.pressure(out), equations.pressure(given), 1e-13 * equations.pressure(given)) << sample;
    // Rotational invariance.
    const Rotation rotation = Rotation::random(rng);
    for (const physics::BoundaryKind kind : {physics::BoundaryKind::subsonic_inflow, physics::BoundaryKind::subsonic_outflow}) {
      const State3 rotated = ghost(kind, rotation(um), rotation(given), rotation(n));
      ASSERT_LE(relative_difference(rotated, rotation(ghost(kind, um, given, n))), 1e-13) << sample;
    }
  }
}
