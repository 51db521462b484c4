#include "flowdg/time/runge_kutta.hpp"

#include "flowdg/core/error.hpp"

namespace flowdg {
namespace {

RungeKuttaScheme ssp_rk2() {
  // Heun: u1 = u0 + dt R(u0);  u = (u0 + u1 + dt R(u1)) / 2.
  return {"ssp-rk2", 2,
          {{0.0, 0, 0, 0, 0, 0, 1.0, 0, 1.0},
           {1.0, 0, 0, 0, 0, 0, 0.5, 0.5, 0.5}},
          true, false};
}

RungeKuttaScheme ssp_rk3() {
  // Shu & Osher (1988): u1 = u0 + dt R(u0);  u2 = 3/4 u0 + 1/4 (u1 + dt R(u1));
  // u = 1/3 u0 + 2/3 (u2 + dt R(u2)).
  return {"ssp-rk3", 3,
          {{0.0, 0, 0, 0, 0, 0, 1.0, 0, 1.0},
           {1.0, 0, 0, 0, 0, 0, 0.25, 0.75, 0.25},
           {0.5, 0, 0, 0, 0, 0, 2.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0}},
          true, false};
}

RungeKuttaScheme classical_rk4() {
  // q accumulates u0 + sum_i b_i dt k_i; u_s carries the next stage's input u0 + a_{i+1,i} dt k_i
  // and takes q after the last stage.
  return {"rk4", 4,
          {{0.0, 0, 1.0 / 6.0, 1.0, 0, 0, 0.5, 1.0, 0},
           {0.5, 1.0, 1.0 / 3.0, 0, 0, 0, 0.5, 1.0, 0},
           {0.5, 1.0, 1.0 / 3.0, 0, 0, 0, 1.0, 1.0, 0},
           {1.0, 1.0, 1.0 / 6.0, 0, 0, 1.0, 0, 0, 0}},
          true, true};
}

RungeKuttaScheme carpenter_kennedy_lsrk54() {
  // Carpenter & Kennedy (NASA TM-109112, 1994), five-stage fourth-order 2N-storage, in
  // Williamson's form q <- A_i q + dt k, u <- u + B_i q. The rational values are theirs; they meet
  // the order conditions to about 1e-25, far below double rounding.
  constexpr double a[5] = {0.0, -567301805773.0 / 1357537059087.0, -2404267990393.0 / 2016746695238.0,
                           -3550918686646.0 / 2091501179385.0, -1275806237668.0 / 842570457699.0};
  constexpr double b[5] = {1432997174477.0 / 9575080441755.0, 5161836677717.0 / 13612068292357.0,
                           1720146321549.0 / 2090206949498.0, 3134564353537.0 / 4481467310338.0,
                           2277821191437.0 / 14882151754819.0};
  constexpr double c[5] = {0.0, 1432997174477.0 / 9575080441755.0, 2526269341429.0 / 6820363962896.0,
                           2006345519317.0 / 3224310063776.0, 2802321613138.0 / 2924317926251.0};
  RungeKuttaScheme scheme{"lsrk54", 4, {}, false, true};
  for (int i = 0; i < 5; ++i) scheme.stages.push_back({c[i], a[i], 1.0, 0, 0, b[i], 0, 0, 1.0});
  return scheme;
}

}  // namespace

StageRegisters stage_registers(const RungeKuttaScheme& scheme, std::size_t i) {
  const RungeKuttaStage& stage = scheme.stages.at(i);
  StageRegisters registers;
  registers.start_u0 = scheme.uses_u0 && i == 0;
  registers.read_u0 = scheme.uses_u0 && !registers.start_u0 && (stage.q_0 != 0.0 || stage.u_0 != 0.0);
  registers.read_q = scheme.uses_q && stage.q_q != 0.0;
  // The next stage to run after this one: the step's next, or the next step's first.
  const RungeKuttaStage& next = scheme.stages[(i + 1) % scheme.stages.size()];
  registers.write_q = scheme.uses_q && next.q_q != 0.0;
  return registers;
}

double register_words_per_stage(const RungeKuttaScheme& scheme) {
  // Exactly what the fused kernels move (stage_registers): u0 stored by the first stage or read,
  // q read where its old value is used and stored where a later stage reads it.
  double words = 0;
  for (std::size_t i = 0; i < scheme.stages.size(); ++i) {
    const StageRegisters registers = stage_registers(scheme, i);
    words += (registers.start_u0 ? 1 : 0) + (registers.read_u0 ? 1 : 0) + (registers.read_q ? 1 : 0) + (registers.write_q ? 1 : 0);
  }
  return scheme.stages.empty() ? 0.0 : words / static_cast<double>(scheme.stages.size());
}

RungeKuttaScheme single_rounding_form(const RungeKuttaScheme& scheme) {
  if (scheme.name != "rk4") return scheme;
  RungeKuttaScheme form = scheme;
  form.stages.front().q_0 = 0.0;  // q = dt k_1 / 6, the increment alone
  form.stages.back().u_0 = 1.0;   // u = u0 + q (q_q = 1, q_k = 1/6: q has taken dt k_4 / 6 first)
  return form;
}

std::vector<std::string> runge_kutta_scheme_names() { return {"ssp-rk2", "ssp-rk3", "rk4", "lsrk54"}; }

RungeKuttaScheme runge_kutta_scheme(std::string_view name) {
  if (name == "ssp-rk2") return ssp_rk2();
  if (name == "ssp-rk3") return ssp_rk3();
  if (name == "rk4") return classical_rk4();
  if (name == "lsrk54") return carpenter_kennedy_lsrk54();
  std::string valid;
  for (const std::string& known : runge_kutta_scheme_names()) valid += (valid.empty() ? "" : ", ") + known;
  throw InputError(cat("unknown Runge-Kutta scheme '", name, "'; valid names are ", valid));
}

}  // namespace flowdg
