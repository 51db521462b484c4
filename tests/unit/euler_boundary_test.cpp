// Ghost states for the Euler boundary conditions.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "euler_random_states.hpp"
#include "flowdg/physics/boundary/euler_boundary.hpp"
#include "flowdg/physics/euler.hpp"
#include "flowdg/physics/riemann/hllc.hpp"
#include "flowdg/physics/riemann/roe.hpp"
#include "flowdg/physics/riemann/rusanov.hpp"

using namespace flowdg::euler2d;
using flowdg::euler2d::test_support::flux_scale;
using flowdg::euler2d::test_support::random_normal;
using flowdg::euler2d::test_support::random_state;
using flowdg::euler2d::test_support::scaled_difference;

namespace {
constexpr int n_samples = 5000;
const Gas air{};

double relative_difference(const State& a, const State& b) {
  double largest = 0.0, size = 0.0;
  for (int i = 0; i < n_variables; ++i) {
    largest = std::max(largest, std::abs(a[i] - b[i]));
    size = std::max(size, std::abs(b[i]));
  }
  return largest / size;
}

double riemann_invariant(const State& U, double nx, double ny, double sign) {
  return (U[1] * nx + U[2] * ny) / U[0] + sign * 2.0 / (air.gamma - 1.0) * sound_speed(U, air);
}

double entropy(const State& U) { return pressure(U, air) / std::pow(U[0], air.gamma); }

/// Velocity component along (ax, ay).
double velocity_along(const State& U, double ax, double ay) { return (U[1] * ax + U[2] * ay) / U[0]; }

template <class Flux>
class EulerBoundarySlipWall : public ::testing::Test {};
using AllFluxes = ::testing::Types<RusanovFlux, HllcFlux, RoeFlux>;
TYPED_TEST_SUITE(EulerBoundarySlipWall, AllFluxes);
}  // namespace

TYPED_TEST(EulerBoundarySlipWall, NothingButPressureCrossesTheWall) {
  // Mass, tangential momentum and energy fluxes vanish through the wall for every Riemann solver.
  std::mt19937_64 rng(17);
  for (int sample = 0; sample < n_samples; ++sample) {
    const State Um = random_state(rng, air);
    double nx, ny;
    random_normal(rng, nx, ny);
    const State flux = TypeParam{}(Um, slip_wall(Um, nx, ny), nx, ny, air);
    const double normal_momentum_flux = flux[1] * nx + flux[2] * ny;
    const State wall_only{{0.0, normal_momentum_flux * nx, normal_momentum_flux * ny, 0.0}};
    ASSERT_LE(scaled_difference(flux, wall_only, flux_scale(Um, air)), 1e-14) << "sample " << sample;
  }
}

TEST(EulerBoundaryWall, SlipWallReversesOnlyTheNormalVelocity) {
  std::mt19937_64 rng(19);
  for (int sample = 0; sample < n_samples; ++sample) {
    const State Um = random_state(rng, air);
    double nx, ny;
    random_normal(rng, nx, ny);
    const State ghost = slip_wall(Um, nx, ny);
    const double speed = max_wave_speed(Um, air);
    EXPECT_EQ(ghost[0], Um[0]);
    EXPECT_EQ(ghost[3], Um[3]);
    EXPECT_NEAR(velocity_along(ghost, nx, ny), -velocity_along(Um, nx, ny), 1e-15 * speed);
    EXPECT_NEAR(velocity_along(ghost, -ny, nx), velocity_along(Um, -ny, nx), 1e-15 * speed);
  }
}

TEST(EulerBoundaryWall, CurvatureWallAlongTheEdgeIsTheSlipWall) {
  std::mt19937_64 rng(23);
  for (int sample = 0; sample < n_samples; ++sample) {
    const State Um = random_state(rng, air);
    double nx, ny;
    random_normal(rng, nx, ny);
    ASSERT_LE(relative_difference(curvature_wall(Um, -ny, nx), slip_wall(Um, nx, ny)), 1e-15) << sample;
    ASSERT_LE(relative_difference(curvature_wall(Um, ny, -nx), slip_wall(Um, nx, ny)), 1e-15) << sample;
  }
}

TEST(EulerBoundaryWall, CurvatureWallReflectsAboutTheTrueTangent) {
  std::mt19937_64 rng(29);
  for (int sample = 0; sample < n_samples; ++sample) {
    const State Um = random_state(rng, air);
    double tx, ty;
    random_normal(rng, tx, ty);
    const State ghost = curvature_wall(Um, tx, ty);
    const double speed = max_wave_speed(Um, air);
    EXPECT_EQ(ghost[0], Um[0]);
    EXPECT_EQ(ghost[3], Um[3]);
    EXPECT_NEAR(velocity_along(ghost, tx, ty), velocity_along(Um, tx, ty), 1e-15 * speed);
    EXPECT_NEAR(velocity_along(ghost, ty, -tx), -velocity_along(Um, ty, -tx), 1e-15 * speed);
    EXPECT_NEAR(pressure(ghost, air), pressure(Um, air), 1e-13 * pressure(Um, air));
  }
}

TEST(EulerBoundaryFlow, SupersonicInflowAndOutflow) {
  std::mt19937_64 rng(31);
  const State given = random_state(rng, air), interior = random_state(rng, air);
  EXPECT_EQ(relative_difference(supersonic_inflow(given), given), 0.0);
  EXPECT_EQ(relative_difference(supersonic_outflow(interior), interior), 0.0);
}

TEST(EulerBoundaryFarfield, ReturnsTheFreeStreamWhenTheInteriorIsTheFreeStream) {
  std::mt19937_64 rng(37);
  for (int sample = 0; sample < n_samples; ++sample) {
    const State U_inf = random_state(rng, air);
    double nx, ny;
    random_normal(rng, nx, ny);
    ASSERT_LE(relative_difference(characteristic_farfield(U_inf, U_inf, nx, ny, air), U_inf), 1e-14) << sample;
  }
}

TEST(EulerBoundaryFarfield, SupersonicFlowTakesAllDataFromUpstream) {
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int sample = 0; sample < n_samples; ++sample) {
    double nx, ny;
    random_normal(rng, nx, ny);
    const State U_inf = random_state(rng, air);
    const double rho = 0.1 + 10.0 * unit(rng), p = 0.1 + 10.0 * unit(rng);
    const double c = std::sqrt(air.gamma * p / rho);
    const double normal = (1.01 + 2.0 * unit(rng)) * c, tangential = (2.0 * unit(rng) - 1.0) * c;
    const auto moving = [&](double normal_velocity) {
      return to_conservative({rho, normal_velocity * nx - tangential * ny, normal_velocity * ny + tangential * nx, p},
                             air);
    };
    const State leaving = moving(normal), entering = moving(-normal);
    ASSERT_EQ(relative_difference(characteristic_farfield(leaving, U_inf, nx, ny, air), leaving), 0.0);
    ASSERT_EQ(relative_difference(characteristic_farfield(entering, U_inf, nx, ny, air), U_inf), 0.0);
  }
}

TEST(EulerBoundaryFarfield, SubsonicFlowTakesEachInvariantFromItsUpwindSide) {
  // R+ leaves the domain (from U_m), R- enters (from U_inf); entropy and tangential velocity come
  // from U_m on outflow and from U_inf on inflow.
  std::mt19937_64 rng(43);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int n_outflow = 0, n_inflow = 0;
  for (int sample = 0; sample < n_samples; ++sample) {
    double nx, ny;
    random_normal(rng, nx, ny);
    const auto subsonic = [&] {
      const double rho = 0.5 + unit(rng), p = 0.5 + unit(rng);
      const double c = std::sqrt(air.gamma * p / rho);
      const double normal = (1.6 * unit(rng) - 0.8) * c, tangential = (2.0 * unit(rng) - 1.0) * c;
      return to_conservative({rho, normal * nx - tangential * ny, normal * ny + tangential * nx, p}, air);
    };
    const State Um = subsonic(), U_inf = subsonic();
    const State ghost = characteristic_farfield(Um, U_inf, nx, ny, air);
    const double tolerance = 1e-13 * (max_wave_speed(Um, air) + max_wave_speed(U_inf, air));
    ASSERT_NEAR(riemann_invariant(ghost, nx, ny, 1.0), riemann_invariant(Um, nx, ny, 1.0), tolerance);
    ASSERT_NEAR(riemann_invariant(ghost, nx, ny, -1.0), riemann_invariant(U_inf, nx, ny, -1.0), tolerance);
    const bool outflow = velocity_along(ghost, nx, ny) > 0.0;
    (outflow ? n_outflow : n_inflow) += 1;
    const State& upwind = outflow ? Um : U_inf;
    ASSERT_NEAR(entropy(ghost), entropy(upwind), 1e-13 * entropy(upwind));
    ASSERT_NEAR(velocity_along(ghost, -ny, nx), velocity_along(upwind, -ny, nx), tolerance);
  }
  EXPECT_GT(n_outflow, n_samples / 10);
  EXPECT_GT(n_inflow, n_samples / 10);
}

TEST(EulerBoundaryCircle, TangentIsUnitPerpendicularAndAlongTheEdge) {
  std::mt19937_64 rng(47);
  std::uniform_real_distribution<double> coordinate(-5.0, 5.0);
  for (int sample = 0; sample < n_samples; ++sample) {
    const double cx = coordinate(rng), cy = coordinate(rng);
    double rx, ry, ex, ey;
    random_normal(rng, rx, ry);
    random_normal(rng, ex, ey);
    const double radius = 0.1 + std::abs(coordinate(rng));
    const double x = cx + radius * rx, y = cy + radius * ry;
    double tx, ty;
    circle_tangent(cx, cy, x, y, ex, ey, tx, ty);
    ASSERT_NEAR(std::hypot(tx, ty), 1.0, 1e-15);
    ASSERT_NEAR(tx * (x - cx) + ty * (y - cy), 0.0, 1e-14 * radius);
    ASSERT_GE(tx * ex + ty * ey, 0.0);
  }
  double tx, ty;
  circle_tangent(1.0, 2.0, 3.0, 2.0, -0.1, 1.0, tx, ty);  // on the +x side, edge going up
  EXPECT_NEAR(tx, 0.0, 1e-16);
  EXPECT_NEAR(ty, 1.0, 1e-16);
  circle_tangent(1.0, 2.0, 3.0, 2.0, 0.1, -1.0, tx, ty);
  EXPECT_NEAR(ty, -1.0, 1e-16);
}
