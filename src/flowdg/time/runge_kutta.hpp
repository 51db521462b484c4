#pragma once
// Explicit Runge-Kutta schemes in one register form, so the DG operator can fuse any of them into
// its element kernel. Per stage i, with k = R(u_s) evaluated at time t + c_i dt:
//   q   <- q_q q + q_k dt k + q_0 u0 + q_s u_s
//   u_s <- u_q q + u_k dt k + u_0 u0 + u_s u_s        (q here is the value just updated)
// u_s is the stage solution (the solution itself at the start and end of a step), u0 the solution at
// the start of the step and q an auxiliary register. A term whose coefficient is exactly 0 is skipped,
// not multiplied: registers that a stage ignores (q before the first stage of a 2N scheme, u0 in a
// scheme that never allocates it) may hold anything, NaN included, and 0 * NaN = NaN.
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "flowdg/core/hd.hpp"

namespace flowdg {

struct RungeKuttaStage {
  double c, q_q, q_k, q_0, q_s, u_q, u_k, u_0, u_s;
};

struct RungeKuttaScheme {
  std::string name;
  int order;
  std::vector<RungeKuttaStage> stages;
  bool uses_u0;  ///< some coefficient on u0 is nonzero: the solver must keep a copy of u at step start
  bool uses_q;   ///< some coefficient on q is nonzero: the solver must allocate q
  int n_stages() const { return static_cast<int>(stages.size()); }
};

/// What stage i of a step reads and writes besides u_s, so that the fused kernels move only that
/// (and the memory model counts it): a register's old value is read only where a nonzero
/// coefficient uses it, and q is stored only where a later stage reads it back (the next stage of
/// the step, or the next step's first, has q_q != 0); otherwise the new q lives only in registers
/// for the u_s update. The reference driver below poisons every register a stage does not read or
/// store, so a wrong flag shows up as NaN in the tests.
struct StageRegisters {
  bool start_u0 = false;  ///< the first stage of a scheme with u0: u0 <- u_s is stored, not read
  bool read_u0 = false;   ///< u0 is read (a nonzero u0 coefficient, and not started here)
  bool read_q = false;    ///< q's value from the previous stage is read (q_q != 0)
  bool write_q = false;   ///< q is stored for a later stage
};
StageRegisters stage_registers(const RungeKuttaScheme& scheme, std::size_t i);

/// StageRegisters as the fused kernels' stage updates carry them (both StageUpdate structs derive
/// from it). By default every register that exists is read and stored, which is what a residual
/// evaluation through the update (q <- R) needs; steps set() each stage's.
struct StageRegisterFlags {
  /// The step's first stage of a scheme that keeps u0: u0 is this stage's u_s, stored by the
  /// kernel instead of copied before the step (one read and one write of the state less per step).
  bool start_u0 = false;
  bool read_u0 = true, read_q = true, write_q = true;

  void set(const StageRegisters& registers) {
    start_u0 = registers.start_u0;
    read_u0 = registers.read_u0;
    read_q = registers.read_q;
    write_q = registers.write_q;
  }
};
/// The registers' words per coefficient that a stage reads and writes besides u_s, averaged over
/// the scheme's stages (stage_registers: what the fused kernels move; the memory model's term).
double register_words_per_stage(const RungeKuttaScheme& scheme);

/// The same method in a register form that rounds each step's result once where one exists, for
/// single-precision storage: classical RK4 with q accumulating only the increments sum b_i dt k_i
/// and the last stage setting u = u0 + q, instead of q = u0 + ... rounded at |u| by every stage (and
/// u = q). Every rounding of a value of size |u| costs up to eps |u|, and over many small steps
/// those errors add up: on the isentropic vortex (p = 3, 32 x 32 quadrilaterals, RK4 in float) the
/// L2 error falls from 1.43e-5 to 5.4e-6 against double's 3.66e-6 (docs/validation.md). It costs a
/// read of u0 in the last stage, so double precision keeps the usual form. Every other scheme is
/// returned as it is: the 2N-storage form updates u every stage by design, and the SSP schemes'
/// convex combinations are what a limiter between stages needs.
RungeKuttaScheme single_rounding_form(const RungeKuttaScheme& scheme);

/// "ssp-rk2" (Heun), "ssp-rk3" (Shu-Osher), "rk4" (classical), "lsrk54" (Carpenter-Kennedy 2N).
/// Unknown names throw InputError listing the valid ones.
RungeKuttaScheme runge_kutta_scheme(std::string_view name);
std::vector<std::string> runge_kutta_scheme_names();

namespace detail {
/// A stage's two register sums with each coefficient's product formed by term(coefficient, value):
/// apply_runge_kutta_stage's and apply_runge_kutta_stage_finite's one form.
template <class Real, class Term>
FLOWDG_HD FLOWDG_FORCEINLINE void runge_kutta_stage_sums(const RungeKuttaStage& stage, Real dt_k, Real u0, Real& q, Real& u_s, Term term) {
  q = term(stage.q_q, q) + term(stage.q_k, dt_k) + term(stage.q_0, u0) + term(stage.q_s, u_s);
  u_s = term(stage.u_q, q) + term(stage.u_k, dt_k) + term(stage.u_0, u0) + term(stage.u_s, u_s);
}
}  // namespace detail

/// One stage's register update at one degree of freedom, as the fused kernels must perform it.
/// dt_k = dt * R(u_s); u0 and q may be anything where their coefficients are 0.
/// Real: the coefficients' precision (the scheme's own coefficients are rounded to it).
template <class Real>
FLOWDG_HD inline void apply_runge_kutta_stage(const RungeKuttaStage& stage, Real dt_k, Real u0, Real& q, Real& u_s) {
  detail::runge_kutta_stage_sums(stage, dt_k, u0, q, u_s, [](double coefficient, Real value) {
    return coefficient == 0.0 ? Real(0) : static_cast<Real>(coefficient) * value;
  });
}

/// A product rounded on its own (on the device no multiply-add contraction with a following sum: the
/// products of apply_runge_kutta_stage_finite round as apply_runge_kutta_stage's do).
template <class Real>
FLOWDG_HD FLOWDG_FORCEINLINE Real rounded_product(Real a, Real b) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(Real) == sizeof(double)) return __dmul_rn(a, b);
  else return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

/// apply_runge_kutta_stage where u0 and q are finite wherever their coefficients are 0 (the device
/// kernels load zeros for the registers a stage does not read: StageUpdate::q_at, u0_at): every term
/// a product, without the coefficient's test and its selects (a uniform test the kernels repeated for
/// each value: 8 tests and 16 selects a value at p = 3 in the tensor-core element kernel's update,
/// ncu session 60). The same values: a zero coefficient's term is +0 or -0 instead of +0, which adds
/// nothing to a sum (only an all-zero sum may differ in its sign), and the products round before the
/// sums as there.
template <class Real>
FLOWDG_HD FLOWDG_FORCEINLINE void apply_runge_kutta_stage_finite(const RungeKuttaStage& stage, Real dt_k, Real u0, Real& q, Real& u_s) {
  detail::runge_kutta_stage_sums(stage, dt_k, u0, q, u_s,
                                 [](double coefficient, Real value) { return rounded_product(static_cast<Real>(coefficient), value); });
}

/// Reference driver: one step of `scheme` from time t, with rhs(time, u, k) writing k = R(u).
/// The specification that the fused device kernels must match.
template <class F>
void runge_kutta_step(const RungeKuttaScheme& scheme, double t, double dt, std::vector<double>& u, F&& rhs) {
  const std::size_t n = u.size();
  const double unused = std::numeric_limits<double>::quiet_NaN();  // poisons any illegal read
  std::vector<double> u0(n, unused), q(n, unused), k(n);
  for (std::size_t s = 0; s < scheme.stages.size(); ++s) {
    const RungeKuttaStage& stage = scheme.stages[s];
    const StageRegisters registers = stage_registers(scheme, s);
    rhs(t + stage.c * dt, std::as_const(u), k);
    for (std::size_t i = 0; i < n; ++i) {
      if (registers.start_u0) u0[i] = u[i];
      double q_i = registers.read_q ? q[i] : unused;
      apply_runge_kutta_stage(stage, dt * k[i], registers.start_u0 || registers.read_u0 ? u0[i] : unused, q_i, u[i]);
      q[i] = registers.write_q ? q_i : unused;
    }
  }
}

}  // namespace flowdg
