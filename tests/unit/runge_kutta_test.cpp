// Runge-Kutta schemes: register bookkeeping, order conditions of the tableau the registers imply,
// observed convergence orders, exact amplification factors, names.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/time/runge_kutta.hpp"

using namespace flowdg;

namespace {

class RungeKuttaEach : public ::testing::TestWithParam<std::string> {};

std::string test_name(const ::testing::TestParamInfo<std::string>& scheme) {
  std::string name = scheme.param;
  for (char& letter : name)
    if (letter == '-') letter = '_';  // gtest names allow letters, digits and '_' only
  return name;
}
INSTANTIATE_TEST_SUITE_P(Schemes, RungeKuttaEach, ::testing::ValuesIn(runge_kutta_scheme_names()), test_name);

/// Butcher tableau (a, b, c) implied by the register form: each register is tracked as its
/// coefficients on (u0, dt k_1, ..., dt k_s), stage i's input u_s gives row i of a, and the final u_s
/// gives b. Unused registers start as NaN, so reading one poisons the tableau.
struct Tableau {
  std::vector<std::vector<double>> a;
  std::vector<double> b, c, u0_weight;
};

Tableau tableau(const RungeKuttaScheme& scheme) {
  const int s = scheme.n_stages();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> u_s(s + 1, 0.0), q(s + 1, nan);
  u_s[0] = 1.0;
  Tableau result;
  for (int i = 0; i < s; ++i) {
    result.a.emplace_back(u_s.begin() + 1, u_s.end());
    result.u0_weight.push_back(u_s[0]);
    result.c.push_back(scheme.stages[i].c);
    for (int j = 0; j <= s; ++j)
      apply_runge_kutta_stage(scheme.stages[i], j == i + 1 ? 1.0 : 0.0, j == 0 ? 1.0 : 0.0, q[j], u_s[j]);
  }
  result.b.assign(u_s.begin() + 1, u_s.end());
  result.u0_weight.push_back(u_s[0]);
  return result;
}

/// y' = A y with A = [[a, -b], [b, a]], i.e. y1 + i y2 times the complex number a + i b.
auto complex_multiplication(std::complex<double> lambda) {
  return [lambda](double, const std::vector<double>& y, std::vector<double>& k) {
    k[0] = lambda.real() * y[0] - lambda.imag() * y[1];
    k[1] = lambda.imag() * y[0] + lambda.real() * y[1];
  };
}

std::complex<double> solve_linear(const RungeKuttaScheme& scheme, std::complex<double> lambda, double end,
                                  int n_steps) {
  std::vector<double> y{1.0, 0.0};
  const double dt = end / n_steps;
  for (int step = 0; step < n_steps; ++step)
    runge_kutta_step(scheme, step * dt, dt, y, complex_multiplication(lambda));
  return {y[0], y[1]};
}

double solve_nonlinear(const RungeKuttaScheme& scheme, int n_steps) {
  // y' = -y^2 + sin t, y(0) = 1, up to t = 2: autonomous terms alone would not test the c_i.
  std::vector<double> y{1.0};
  const double dt = 2.0 / n_steps;
  const auto rhs = [](double t, const std::vector<double>& value, std::vector<double>& k) {
    k[0] = -value[0] * value[0] + std::sin(t);
  };
  for (int step = 0; step < n_steps; ++step) runge_kutta_step(scheme, step * dt, dt, y, rhs);
  return y[0];
}

}  // namespace

TEST_P(RungeKuttaEach, RegisterFlagsMatchTheCoefficients) {
  const RungeKuttaScheme scheme = runge_kutta_scheme(GetParam());
  EXPECT_EQ(scheme.name, GetParam());
  bool reads_u0 = false, reads_q = false;
  for (const RungeKuttaStage& stage : scheme.stages) {
    reads_u0 = reads_u0 || stage.q_0 != 0.0 || stage.u_0 != 0.0;
    reads_q = reads_q || stage.q_q != 0.0 || stage.q_k != 0.0 || stage.q_0 != 0.0 || stage.q_s != 0.0 ||
              stage.u_q != 0.0;
  }
  EXPECT_EQ(scheme.uses_u0, reads_u0);
  EXPECT_EQ(scheme.uses_q, reads_q);
  EXPECT_EQ(scheme.stages.front().q_q, 0.0) << "q is read before it is written";
}

TEST_P(RungeKuttaEach, StageRegistersKeepEveryValueALaterStageReads) {
  // The reference driver moves only what stage_registers() names and poisons the rest; a register
  // that a stage should have read or stored but did not turns the result into NaN or changes it.
  // Against a driver that keeps every register whole (u0 copied before the step, q never reset):
  // the same bits over several steps of a nonlinear problem.
  const RungeKuttaScheme scheme = runge_kutta_scheme(GetParam());
  const auto rhs = [](double t, const std::vector<double>& value, std::vector<double>& k) {
    for (std::size_t i = 0; i < value.size(); ++i) k[i] = -value[i] * value[i] + std::sin(t + static_cast<double>(i));
  };
  std::vector<double> moved{1.0, 0.5, -0.25}, whole = moved, u0(3), q(3, 0.0), k(3);
  const double dt = 0.05;
  for (int step = 0; step < 7; ++step) {
    runge_kutta_step(scheme, step * dt, dt, moved, rhs);
    u0 = whole;
    for (const RungeKuttaStage& stage : scheme.stages) {
      rhs(step * dt + stage.c * dt, whole, k);
      for (std::size_t i = 0; i < whole.size(); ++i) apply_runge_kutta_stage(stage, dt * k[i], u0[i], q[i], whole[i]);
    }
    for (std::size_t i = 0; i < whole.size(); ++i) ASSERT_EQ(moved[i], whole[i]) << "step " << step << ", entry " << i;
  }
}

namespace {

/// Several steps of every register update of `scheme` (and its single-rounding form) at a few values,
/// each stage once through apply_runge_kutta_stage and once through apply_runge_kutta_stage_finite
/// with zeros in the registers that stage_registers says the stage does not read (as the device
/// kernels load them: StageUpdate::q_at, u0_at): the same values, every bit but a zero's sign.
template <class Real>
void expect_the_finite_update_equals_the_tested_one(const RungeKuttaScheme& scheme) {
  const std::vector<Real> start{Real(1.0), Real(-0.375), Real(2.5e-3), Real(0.0), Real(-7.25)};
  std::vector<Real> u_tested = start, u_finite = start, u0(start.size()), q_tested(start.size()), q_finite(start.size());
  const Real dt = Real(0.03);
  for (int step = 0; step < 5; ++step)
    for (std::size_t s = 0; s < scheme.stages.size(); ++s) {
      const RungeKuttaStage& stage = scheme.stages[s];
      const StageRegisters registers = stage_registers(scheme, s);
      for (std::size_t i = 0; i < start.size(); ++i) {
        // a residual of this stage's state: zero for the entry that starts at zero in the first stage
        const Real k = u_tested[i] == Real(0) ? Real(0) : Real(-0.5) * u_tested[i] * u_tested[i] + Real(0.125) * static_cast<Real>(s + 1);
        if (registers.start_u0) u0[i] = u_tested[i];
        const Real u0_k = registers.start_u0 || registers.read_u0 ? u0[i] : Real(0);
        Real q_t = registers.read_q ? q_tested[i] : std::numeric_limits<Real>::quiet_NaN();  // the tested form ignores it
        Real q_f = registers.read_q ? q_finite[i] : Real(0);
        apply_runge_kutta_stage(stage, dt * k, u0_k, q_t, u_tested[i]);
        apply_runge_kutta_stage_finite(stage, dt * k, u0_k, q_f, u_finite[i]);
        if (registers.write_q) {
          q_tested[i] = q_t;
          q_finite[i] = q_f;
        }
        ASSERT_EQ(u_tested[i], u_finite[i]) << scheme.name << " step " << step << " stage " << s << " entry " << i;
        ASSERT_TRUE(std::isfinite(u_finite[i]));
        if (registers.write_q) {
          ASSERT_EQ(q_t, q_f) << scheme.name << " step " << step << " stage " << s << " entry " << i;
        }
      }
    }
}

}  // namespace

TEST_P(RungeKuttaEach, TheFiniteUpdateIsTheTestedOneWhereTheUnreadRegistersAreZero) {
  const RungeKuttaScheme scheme = runge_kutta_scheme(GetParam());
  expect_the_finite_update_equals_the_tested_one<double>(scheme);
  expect_the_finite_update_equals_the_tested_one<float>(scheme);
  expect_the_finite_update_equals_the_tested_one<float>(single_rounding_form(scheme));
  // The tests are what keep a NaN in an unread register out (0 x NaN is NaN): the finite form asks
  // for zeros there.
  const RungeKuttaStage& first = scheme.stages.front();
  double q = std::numeric_limits<double>::quiet_NaN(), u = 1.0;
  apply_runge_kutta_stage(first, 0.1, 1.0, q, u);
  EXPECT_TRUE(std::isfinite(u));
  q = std::numeric_limits<double>::quiet_NaN();
  u = 1.0;
  apply_runge_kutta_stage_finite(first, 0.1, 1.0, q, u);
  EXPECT_TRUE(std::isnan(u));  // 0 x NaN in q's term, and q's NaN in u's
}

TEST(RungeKutta, StageRegistersOfTheClassicalAndTheLowStorageSchemes) {
  // Classical RK4: the first stage stores u0 and q without reading q, the middle ones read both,
  // the last reads q only and stores nothing (u <- q; the next step's first stage does not read q).
  const RungeKuttaScheme rk4 = runge_kutta_scheme("rk4");
  const bool expected[4][4] = {{true, false, false, true}, {false, true, true, true}, {false, true, true, true}, {false, false, true, false}};
  for (std::size_t i = 0; i < 4; ++i) {
    const StageRegisters r = stage_registers(rk4, i);
    EXPECT_EQ(r.start_u0, expected[i][0]) << i;
    EXPECT_EQ(r.read_u0, expected[i][1]) << i;
    EXPECT_EQ(r.read_q, expected[i][2]) << i;
    EXPECT_EQ(r.write_q, expected[i][3]) << i;
  }
  EXPECT_DOUBLE_EQ(register_words_per_stage(rk4), 9.0 / 4.0);
  // 2N storage: the first stage does not read q, the last does not store it.
  const RungeKuttaScheme lsrk = runge_kutta_scheme("lsrk54");
  EXPECT_FALSE(stage_registers(lsrk, 0).read_q);
  EXPECT_TRUE(stage_registers(lsrk, 0).write_q);
  EXPECT_TRUE(stage_registers(lsrk, 4).read_q);
  EXPECT_FALSE(stage_registers(lsrk, 4).write_q);
  EXPECT_DOUBLE_EQ(register_words_per_stage(lsrk), 8.0 / 5.0);
  // SSP: u0 stored by the first stage and read by the others, no q.
  EXPECT_DOUBLE_EQ(register_words_per_stage(runge_kutta_scheme("ssp-rk3")), 1.0);
  EXPECT_DOUBLE_EQ(register_words_per_stage(runge_kutta_scheme("ssp-rk2")), 1.0);
}

TEST_P(RungeKuttaEach, ImpliedTableauMeetsTheOrderConditions) {
  const RungeKuttaScheme scheme = runge_kutta_scheme(GetParam());
  const Tableau t = tableau(scheme);
  const int s = scheme.n_stages();
  for (int i = 0; i < s; ++i) {
    EXPECT_EQ(t.u0_weight[i], 1.0) << "stage " << i;
    double row_sum = 0.0;
    for (int j = 0; j < s; ++j) {
      row_sum += t.a[i][j];
      if (j >= i) {
        EXPECT_EQ(t.a[i][j], 0.0) << "not explicit: a(" << i << "," << j << ")";
      }
    }
    EXPECT_NEAR(row_sum, t.c[i], 1e-15) << "stage " << i;
  }
  EXPECT_EQ(t.u0_weight[s], 1.0);

  // The eight conditions up to order 4 (Butcher's rooted trees).
  double sums[8] = {};
  for (int i = 0; i < s; ++i) {
    const double b = t.b[i], c = t.c[i];
    sums[0] += b;
    sums[1] += b * c;
    sums[2] += b * c * c;
    sums[4] += b * c * c * c;
    for (int j = 0; j < s; ++j) {
      const double a = t.a[i][j], cj = t.c[j];
      sums[3] += b * a * cj;
      sums[5] += b * c * a * cj;
      sums[6] += b * a * cj * cj;
      for (int k = 0; k < s; ++k) sums[7] += b * a * t.a[j][k] * t.c[k];
    }
  }
  const double exact[8] = {1.0, 1.0 / 2, 1.0 / 3, 1.0 / 6, 1.0 / 4, 1.0 / 8, 1.0 / 12, 1.0 / 24};
  const int order_of[8] = {1, 2, 3, 3, 4, 4, 4, 4};
  for (int condition = 0; condition < 8; ++condition)
    if (order_of[condition] <= scheme.order) {
      EXPECT_NEAR(sums[condition], exact[condition], 1e-14) << "condition " << condition;
    }
  // One order higher fails: the nominal order is the true one.
  if (scheme.order < 4) {
    bool all_next_hold = true;
    for (int condition = 0; condition < 8; ++condition)
      if (order_of[condition] == scheme.order + 1)
        all_next_hold = all_next_hold && std::abs(sums[condition] - exact[condition]) < 1e-10;
    EXPECT_FALSE(all_next_hold);
  }
}

TEST_P(RungeKuttaEach, TheSingleRoundingFormIsTheSameMethod) {
  const RungeKuttaScheme scheme = runge_kutta_scheme(GetParam());
  const RungeKuttaScheme form = single_rounding_form(scheme);
  EXPECT_EQ(form.uses_u0, scheme.uses_u0);
  EXPECT_EQ(form.uses_q, scheme.uses_q);
  const Tableau a = tableau(scheme), b = tableau(form);
  for (int i = 0; i < scheme.n_stages(); ++i)
    for (int j = 0; j < scheme.n_stages(); ++j) EXPECT_NEAR(a.a[i][j], b.a[i][j], 1e-15) << i << ", " << j;
  for (int i = 0; i < scheme.n_stages(); ++i) EXPECT_NEAR(a.b[i], b.b[i], 1e-15) << i;
  for (std::size_t i = 0; i < a.u0_weight.size(); ++i) EXPECT_EQ(a.u0_weight[i], b.u0_weight[i]) << i;
}

TEST(RungeKutta, TheSingleRoundingFormOfRk4RoundsTheStepOnceInFloat) {
  // y' = 1 + 0.1 cos t in float from y = 1 with steps whose increment is a few float ulps of y:
  // q = u0 + ... rounds at |y| in every stage (and the errors of identical steps add up), the
  // increment form once per step.
  const RungeKuttaScheme usual = runge_kutta_scheme("rk4"), form = single_rounding_form(usual);
  EXPECT_NE(form.stages.front().q_0, usual.stages.front().q_0);
  EXPECT_TRUE(stage_registers(form, 3).read_u0);  // the price: u0 read by the last stage
  const auto solve = [](const RungeKuttaScheme& scheme) {
    const double dt = 1e-6;
    float u = 1.0f, u0 = 0.0f, q = 0.0f;
    for (int step = 0; step < 20000; ++step)
      for (const RungeKuttaStage& stage : scheme.stages) {
        const double t = (step + stage.c) * dt;
        if (&stage == &scheme.stages.front()) u0 = u;
        apply_runge_kutta_stage(stage, static_cast<float>(dt * (1.0 + 0.1 * std::cos(t))), u0, q, u);
      }
    const double end = 20000 * dt;
    return std::abs(static_cast<double>(u) - (1.0 + end + 0.1 * std::sin(end)));
  };
  const double usual_error = solve(usual), form_error = solve(form);
  std::printf("float RK4, 20000 steps of 1e-6: error %.3e usual form, %.3e single rounding form\n", usual_error, form_error);
  EXPECT_LT(form_error, 0.5 * usual_error);  // measured: 5.4e-4 against 1.8e-3
}

TEST_P(RungeKuttaEach, ObservedOrderOnADampedRotation) {
  const RungeKuttaScheme scheme = runge_kutta_scheme(GetParam());
  const std::complex<double> lambda(-0.5, 2.0);
  const std::complex<double> exact = std::exp(2.0 * lambda);
  const double coarse = std::abs(solve_linear(scheme, lambda, 2.0, 40) - exact);
  const double fine = std::abs(solve_linear(scheme, lambda, 2.0, 80) - exact);
  EXPECT_NEAR(std::log2(coarse / fine), scheme.order, 0.1);
}

TEST_P(RungeKuttaEach, ObservedOrderOnANonlinearNonautonomousEquation) {
  const RungeKuttaScheme scheme = runge_kutta_scheme(GetParam());
  const double y1 = solve_nonlinear(scheme, 40), y2 = solve_nonlinear(scheme, 80), y4 = solve_nonlinear(scheme, 160);
  EXPECT_NEAR(std::log2(std::abs(y1 - y2) / std::abs(y2 - y4)), scheme.order, 0.1);
}

TEST(RungeKuttaAmplification, EqualsTheTaylorPolynomialForSchemesWithAsManyStagesAsOrder) {
  for (const auto& [name, degree] :
       {std::pair{"ssp-rk2", 2}, std::pair{"ssp-rk3", 3}, std::pair{"rk4", 4}}) {
    const RungeKuttaScheme scheme = runge_kutta_scheme(name);
    ASSERT_EQ(scheme.n_stages(), degree);
    for (const std::complex<double> z : {std::complex<double>(-1.0, 0.0), std::complex<double>(0.0, 0.5)}) {
      std::complex<double> taylor = 1.0, term = 1.0;
      for (int power = 1; power <= degree; ++power) taylor += (term *= z / static_cast<double>(power));
      EXPECT_NEAR(std::abs(solve_linear(scheme, z, 1.0, 1) - taylor), 0.0, 1e-15) << name << " z=" << z;
    }
  }
}

TEST(RungeKuttaNames, UnknownSchemeThrowsListingTheValidNames) {
  try {
    runge_kutta_scheme("rk45");
    FAIL() << "no error for an unknown scheme";
  } catch (const InputError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("rk45"), std::string::npos) << message;
    for (const std::string& name : runge_kutta_scheme_names())
      EXPECT_NE(message.find(name), std::string::npos) << message;
  }
}
