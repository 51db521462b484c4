// Euler physics: conversions, fluxes against Eq. (20)-(21) by hand, wave speeds, admissibility.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "euler_random_states.hpp"
#include "flowdg/physics/euler.hpp"

using namespace flowdg::euler2d;
using flowdg::euler2d::test_support::random_normal;
using flowdg::euler2d::test_support::random_state;

namespace {
// rho = 2, u = 1/2, v = -3/2, p = 3, gamma = 1.4: E = 3 / 0.4 + 2 (1/4 + 9/4) / 2 = 10, and every
// flux component below is a binary fraction, so the expected values are exact.
const Gas air{};
const State reference{{2.0, 1.0, -3.0, 10.0}};
}  // namespace

TEST(EulerPhysics, FluxesMatchTheFormulaOnAnExactState) {
  EXPECT_DOUBLE_EQ(pressure(reference, air), 3.0);
  State Fx, Fy;
  flux(reference, air, Fx, Fy);
  const State expected_x{{1.0, 3.5, -1.5, 6.5}};    // rho u, rho u^2 + p, rho u v, u (E + p)
  const State expected_y{{-3.0, -1.5, 7.5, -19.5}};  // rho v, rho u v, rho v^2 + p, v (E + p)
  for (int i = 0; i < n_variables; ++i) {
    EXPECT_NEAR(Fx[i], expected_x[i], 1e-15 * std::abs(expected_x[i])) << i;
    EXPECT_NEAR(Fy[i], expected_y[i], 1e-15 * std::abs(expected_y[i])) << i;
  }
  const State along = normal_flux(reference, 0.6, 0.8, air);
  for (int i = 0; i < n_variables; ++i)
    EXPECT_NEAR(along[i], 0.6 * expected_x[i] + 0.8 * expected_y[i], 1e-14) << i;
}

TEST(EulerPhysics, WaveSpeedsAndSoundSpeed) {
  const double c = std::sqrt(1.4 * 3.0 / 2.0);
  EXPECT_NEAR(sound_speed(reference, air), c, 1e-15);
  EXPECT_NEAR(max_wave_speed(reference, air), std::sqrt(2.5) + c, 1e-15);
  EXPECT_NEAR(max_wave_speed(reference, 0.6, 0.8, air), 0.9 + c, 1e-15);  // v.n = 0.3 - 1.2
  EXPECT_NEAR(max_wave_speed(reference, -0.6, -0.8, air), 0.9 + c, 1e-15);

  // |v| + c is the largest of |v.n| + c over directions, reached along v.
  std::mt19937_64 rng(7);
  for (int sample = 0; sample < 1000; ++sample) {
    const State U = random_state(rng, air);
    double nx, ny;
    random_normal(rng, nx, ny);
    const double bound = max_wave_speed(U, air);
    EXPECT_LE(max_wave_speed(U, nx, ny, air), bound * (1.0 + 1e-15));
    const double speed = std::hypot(U[1], U[2]);
    EXPECT_NEAR(max_wave_speed(U, U[1] / speed, U[2] / speed, air), bound, 1e-14 * bound);
  }
}

TEST(EulerPhysics, ConversionsRoundTrip) {
  const Gas gas{1.3};
  std::mt19937_64 rng(11);
  for (int sample = 0; sample < 1000; ++sample) {
    const State U = random_state(rng, gas);
    const Primitive W = to_primitive(U, gas);
    const State back = to_conservative(W, gas);
    for (int i = 0; i < n_variables; ++i) EXPECT_NEAR(back[i], U[i], 1e-14 * std::abs(U[3])) << i;
    const Primitive again = to_primitive(back, gas);
    EXPECT_NEAR(again.rho, W.rho, 1e-15 * W.rho);
    EXPECT_NEAR(again.u, W.u, 1e-14 * (std::abs(W.u) + std::abs(W.v)));
    EXPECT_NEAR(again.v, W.v, 1e-14 * (std::abs(W.u) + std::abs(W.v)));
    EXPECT_NEAR(again.p, W.p, 1e-13 * W.p);
  }
  const Primitive W = to_primitive(reference, air);
  EXPECT_EQ(W.rho, 2.0);
  EXPECT_EQ(W.u, 0.5);
  EXPECT_EQ(W.v, -1.5);
  EXPECT_NEAR(W.p, 3.0, 1e-15);
}

TEST(EulerPhysics, AdmissibilityRejectsNonPhysicalStates) {
  EXPECT_TRUE(is_admissible(reference, air));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double infinity = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n_variables; ++i) {
    State broken = reference;
    broken[i] = nan;
    EXPECT_FALSE(is_admissible(broken, air)) << "NaN in component " << i;
    broken[i] = infinity;
    EXPECT_FALSE(is_admissible(broken, air)) << "infinity in component " << i;
  }
  EXPECT_FALSE(is_admissible(State{{0.0, 0.0, 0.0, 1.0}}, air));
  EXPECT_FALSE(is_admissible(State{{-1.0, 0.0, 0.0, 1.0}}, air));
  EXPECT_FALSE(is_admissible(State{{2.0, 1.0, -3.0, 2.5}}, air));  // kinetic energy 2.5: p = 0
  EXPECT_FALSE(is_admissible(State{{2.0, 1.0, -3.0, 2.0}}, air));  // p < 0
  EXPECT_TRUE(is_admissible(State{{2.0, 1.0, -3.0, 2.5 + 1e-12}}, air));
}
