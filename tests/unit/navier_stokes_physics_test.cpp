// Navier-Stokes physics (physics/navier_stokes): the viscous flux against the stress tensor and
// heat flux computed from primitive derivatives by another path (primitive -> conserved gradients
// here, conserved -> primitive in the code), exact Couette values, rotation invariance in 3D,
// Sutherland's law against its dimensional form, the non-dimensional scales.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "flowdg/physics/navier_stokes/navier_stokes.hpp"

using namespace flowdg::physics;

namespace {

// A point of a smooth flow given by its primitive values and their derivatives.
template <int Dim>
struct PrimitivePoint {
  double rho, p;
  double v[Dim];
  double drho[Dim], dp[Dim];
  double dv[Dim][Dim];  // dv[d][i] = d v_i / dx_d
};

template <int Dim>
PrimitivePoint<Dim> random_point(std::mt19937& random) {
  std::uniform_real_distribution<double> positive(0.5, 2.0), any(-1.0, 1.0);
  PrimitivePoint<Dim> a;
  a.rho = positive(random);
  a.p = positive(random);
  for (int i = 0; i < Dim; ++i) a.v[i] = any(random);
  for (int d = 0; d < Dim; ++d) {
    a.drho[d] = any(random);
    a.dp[d] = any(random);
    for (int i = 0; i < Dim; ++i) a.dv[d][i] = any(random);
  }
  return a;
}

// U and dU/dx_d by the chain rule from the primitive derivatives.
template <int Dim>
void conserved(const NavierStokes<Dim>& physics, const PrimitivePoint<Dim>& a, typename NavierStokes<Dim>::State& u,
               typename NavierStokes<Dim>::State (&grad)[Dim]) {
  const double g = physics.gamma;
  double v2 = 0;
  for (int i = 0; i < Dim; ++i) v2 += a.v[i] * a.v[i];
  u[0] = a.rho;
  for (int i = 0; i < Dim; ++i) u[1 + i] = a.rho * a.v[i];
  u[Dim + 1] = a.p / (g - 1) + 0.5 * a.rho * v2;
  for (int d = 0; d < Dim; ++d) {
    double v_dv = 0;
    for (int i = 0; i < Dim; ++i) v_dv += a.v[i] * a.dv[d][i];
    grad[d][0] = a.drho[d];
    for (int i = 0; i < Dim; ++i) grad[d][1 + i] = a.drho[d] * a.v[i] + a.rho * a.dv[d][i];
    grad[d][Dim + 1] = a.dp[d] / (g - 1) + 0.5 * a.drho[d] * v2 + a.rho * v_dv;
  }
}

// Fv_d from the primitive derivatives: tau and the heat flux -kappa dT with T = p / (R rho).
template <int Dim>
void expected_flux(const NavierStokes<Dim>& physics, const PrimitivePoint<Dim>& a, double mu, double (&fv)[Dim][Dim + 2]) {
  const double g = physics.gamma, pr = physics.prandtl;
  double divergence = 0;
  for (int i = 0; i < Dim; ++i) divergence += a.dv[i][i];
  for (int d = 0; d < Dim; ++d) {
    fv[d][0] = 0;
    double work = 0;
    for (int i = 0; i < Dim; ++i) {
      const double tau = mu * (a.dv[d][i] + a.dv[i][d] - (i == d ? 2.0 / 3.0 * divergence : 0.0));
      fv[d][1 + i] = tau;
      work += a.v[i] * tau;
    }
    // kappa dT = mu cp / Pr dT, cp T = gamma / (gamma - 1) p / rho
    const double dT_cp = g / (g - 1) * (a.dp[d] * a.rho - a.p * a.drho[d]) / (a.rho * a.rho);
    fv[d][Dim + 1] = work + mu / pr * dT_cp;
  }
}

template <int Dim>
void check_against_primitive_path(ViscosityLaw law) {
  std::mt19937 random(7 + Dim);
  NavierStokesScales scales;
  scales.mach = 0.5;
  scales.reynolds = 250;
  scales.law = law;
  scales.free_stream_temperature = 300;
  const NavierStokes<Dim> physics = scales.make<Dim>();
  for (int sample = 0; sample < 50; ++sample) {
    const PrimitivePoint<Dim> a = random_point<Dim>(random);
    typename NavierStokes<Dim>::State u, grad[Dim], fv[Dim];
    conserved(physics, a, u, grad);
    physics.viscous_flux(u, grad, fv);
    const double theta = a.p / a.rho * scales.mach * scales.mach * scales.gamma;
    const double mu = law == ViscosityLaw::constant
                          ? 1.0 / scales.reynolds
                          : SutherlandConstants::viscosity(theta * 300) / SutherlandConstants::viscosity(300) / scales.reynolds;
    EXPECT_NEAR(physics.viscosity(u), mu, 1e-14 * mu);
    double expected[Dim][Dim + 2];
    expected_flux(physics, a, mu, expected);
    for (int d = 0; d < Dim; ++d)
      for (int k = 0; k < Dim + 2; ++k) EXPECT_NEAR(fv[d][k], expected[d][k], 1e-13) << "d = " << d << ", k = " << k;
  }
}

}  // namespace

TEST(NavierStokesPhysics, ViscousFluxMatchesTheStressAndHeatFluxOfPrimitiveDerivatives) {
  check_against_primitive_path<2>(ViscosityLaw::constant);
  check_against_primitive_path<2>(ViscosityLaw::sutherland);
  check_against_primitive_path<3>(ViscosityLaw::constant);
  check_against_primitive_path<3>(ViscosityLaw::sutherland);
}

TEST(NavierStokesPhysics, CouetteShearHasTheExactStress) {
  // u = (y, 0), rho = 1, p constant: tau_xy = mu, nothing else; at height y the energy flux along
  // y is u tau_xy = y mu (the work of the shear), and no heat flux (T constant).
  NavierStokes<2> physics;
  physics.mu_inf = 0.125;
  const double y = 0.75, p = 2.0;
  NavierStokes<2>::State u{{1.0, y, 0.0, p / 0.4 + 0.5 * y * y}}, grad[2], fv[2];
  grad[0] = NavierStokes<2>::State{{0, 0, 0, 0}};
  grad[1] = NavierStokes<2>::State{{0, 1.0, 0, y}};  // d(rho u)/dy = 1, dE/dy = u du/dy = y
  physics.viscous_flux(u, grad, fv);
  const double expected_x[4] = {0, 0, 0.125, 0}, expected_y[4] = {0, 0.125, 0, 0.75 * 0.125};
  for (int k = 0; k < 4; ++k) {
    EXPECT_DOUBLE_EQ(fv[0][k], expected_x[k]) << k;
    EXPECT_DOUBLE_EQ(fv[1][k], expected_y[k]) << k;
  }
  const NavierStokes<2>::State along = physics.normal_viscous_flux(u, grad, {{0.6, 0.8}});
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(along[k], 0.6 * expected_x[k] + 0.8 * expected_y[k], 1e-16) << k;
}

TEST(NavierStokesPhysics, ViscousFluxRotatesWithTheFlow) {
  // Rotating the velocity, the gradient directions and the momentum components by R rotates the
  // flux tensor: Fv'_d[1+i] = R_dj R_ik Fv_j[1+k], Fv'_d[E] = R_dj Fv_j[E]; mass and scalars stay.
  std::mt19937 random(11);
  const NavierStokes<3> physics = NavierStokesScales{}.make<3>();
  const double a = 0.7, b = -0.4, c = 1.1;  // R = Rz(a) Ry(b) Rx(c)
  const double Rz[3][3] = {{std::cos(a), -std::sin(a), 0}, {std::sin(a), std::cos(a), 0}, {0, 0, 1}};
  const double Ry[3][3] = {{std::cos(b), 0, std::sin(b)}, {0, 1, 0}, {-std::sin(b), 0, std::cos(b)}};
  const double Rx[3][3] = {{1, 0, 0}, {0, std::cos(c), -std::sin(c)}, {0, std::sin(c), std::cos(c)}};
  double Ryx[3][3] = {}, R[3][3] = {};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) Ryx[i][j] += Ry[i][k] * Rx[k][j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) R[i][j] += Rz[i][k] * Ryx[k][j];
  for (int sample = 0; sample < 20; ++sample) {
    const PrimitivePoint<3> p = random_point<3>(random);
    PrimitivePoint<3> q = p;  // the rotated field: v' = R v, d'_d = R_dj d_j, dv'[d][i] = R_dj R_ik dv[j][k]
    for (int i = 0; i < 3; ++i) {
      q.v[i] = q.drho[i] = q.dp[i] = 0;
      for (int j = 0; j < 3; ++j) {
        q.v[i] += R[i][j] * p.v[j];
        q.drho[i] += R[i][j] * p.drho[j];
        q.dp[i] += R[i][j] * p.dp[j];
      }
    }
    for (int d = 0; d < 3; ++d)
      for (int i = 0; i < 3; ++i) {
        q.dv[d][i] = 0;
        for (int j = 0; j < 3; ++j)
          for (int k = 0; k < 3; ++k) q.dv[d][i] += R[d][j] * R[i][k] * p.dv[j][k];
      }
    NavierStokes<3>::State u, grad[3], fv[3], u_r, grad_r[3], fv_r[3];
    conserved(physics, p, u, grad);
    conserved(physics, q, u_r, grad_r);
    physics.viscous_flux(u, grad, fv);
    physics.viscous_flux(u_r, grad_r, fv_r);
    for (int d = 0; d < 3; ++d) {
      EXPECT_NEAR(fv_r[d][0], 0.0, 1e-16);
      double energy = 0;
      for (int j = 0; j < 3; ++j) energy += R[d][j] * fv[j][4];
      EXPECT_NEAR(fv_r[d][4], energy, 1e-14) << d;
      for (int i = 0; i < 3; ++i) {
        double tau = 0;
        for (int j = 0; j < 3; ++j)
          for (int k = 0; k < 3; ++k) tau += R[d][j] * R[i][k] * fv[j][1 + k];
        EXPECT_NEAR(fv_r[d][1 + i], tau, 1e-14) << d << " " << i;
      }
    }
  }
}

TEST(NavierStokesPhysics, SutherlandLawAndFreeStreamScales) {
  // The free stream of the scales: rho = 1, |v| = 1, p = 1 / (gamma M^2): sound speed 1 / M,
  // theta = 1, mu = 1 / Re; Sutherland's ratio at other temperatures as the SI law's.
  NavierStokesScales scales;
  scales.mach = 0.5;
  scales.reynolds = 5000;
  scales.free_stream_temperature = 288.15;
  const NavierStokes<2> physics = scales.make<2>();
  const NavierStokes<2>::State free_stream = physics.to_conservative({{1.0, 1.0, 0.0, scales.free_stream_pressure()}});
  EXPECT_NEAR(physics.sound_speed(free_stream), 2.0, 1e-14);
  EXPECT_NEAR(physics.temperature(free_stream), 1.0, 1e-15);
  EXPECT_NEAR(physics.viscosity(free_stream), 1.0 / 5000, 1e-19);
  for (const double theta : {0.5, 0.9, 1.0, 1.3, 2.0, 4.0}) {
    const double ratio = SutherlandConstants::viscosity(theta * 288.15) / SutherlandConstants::viscosity(288.15);
    EXPECT_NEAR(physics.viscosity_at(theta) * 5000, ratio, 1e-14 * ratio) << theta;
  }
  // At T0 the SI law gives mu0 (the constants as Eq. 4 states them).
  EXPECT_DOUBLE_EQ(SutherlandConstants::viscosity(288.15), 1.716e-5);
  // Constant viscosity: mu_inf at any temperature; the diffusivity bound max(4/3, gamma / Pr) mu / rho.
  NavierStokesScales constant = scales;
  constant.law = ViscosityLaw::constant;
  const NavierStokes<2> fixed = constant.make<2>();
  EXPECT_DOUBLE_EQ(fixed.viscosity_at(3.0), 1.0 / 5000);
  const NavierStokes<2>::State dense = fixed.to_conservative({{2.0, 0.3, 0.1, 1.5}});
  EXPECT_NEAR(fixed.max_diffusivity(dense), 1.4 / 0.72 * (1.0 / 5000) / 2.0, 1e-18);
}

TEST(NavierStokesPhysics, FloatAgreesWithDouble) {
  std::mt19937 random(3);
  NavierStokesScales scales;
  const NavierStokes<2, double> physics = scales.make<2, double>();
  const NavierStokes<2, float> single = scales.make<2, float>();
  for (int sample = 0; sample < 20; ++sample) {
    const PrimitivePoint<2> a = random_point<2>(random);
    NavierStokes<2>::State u, grad[2], fv[2];
    conserved(physics, a, u, grad);
    physics.viscous_flux(u, grad, fv);
    NavierStokes<2, float>::State uf, gradf[2], fvf[2];
    for (int k = 0; k < 4; ++k) {
      uf[k] = static_cast<float>(u[k]);
      for (int d = 0; d < 2; ++d) gradf[d][k] = static_cast<float>(grad[d][k]);
    }
    single.viscous_flux(uf, gradf, fvf);
    double size = 0;
    for (int d = 0; d < 2; ++d)
      for (int k = 0; k < 4; ++k) size = std::max(size, std::abs(fv[d][k]));
    for (int d = 0; d < 2; ++d)
      for (int k = 0; k < 4; ++k) EXPECT_NEAR(fvf[d][k], fv[d][k], 2e-5 * size) << d << " " << k;
  }
}
