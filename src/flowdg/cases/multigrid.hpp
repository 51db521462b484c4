#pragma once
// p-multigrid for steady states: the full approximation scheme (FAS) over the orders of the
// hierarchical modal basis, with the run's Runge-Kutta steps (local or global) as the smoother on
// every level. A cycle is the list of orders visited and the steps taken at each visit, as PyFR's
// [solver-dual-time-integrator-multip] cycle: e.g. orders [4, 3, 2, 1, 0, 1, 2, 3, 4] with steps
// [1, 1, 1, 1, 4, 1, 1, 1, 2]. Moving to a lower order restricts (dg::Operator::restrict_from: the
// state's modes up to that order, and the forcing that makes the finer level's state at rest there
// too); moving back up adds the lower level's change to the level it came from
// (dg::Operator::prolongate_to). The lower orders take steps of their own size (cfl / (2p + 1)):
// the errors the finest level's steps clear slowly, the smooth ones carried by the low modes, leave
// there in fewer, cheaper steps. A converged finest state is a fixed point of the whole cycle.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "flowdg/dg/operator.hpp"
#include "flowdg/time/runge_kutta.hpp"

namespace flowdg {

struct MultigridCycle {
  std::vector<int> orders;        ///< the orders visited, the finest first and last
  std::vector<long long> steps;   ///< the steps at each visit
  /// The CFL number of each lower order [p] (p = 0 first); empty, or an order beyond it: the run's.
  std::vector<double> cfl;
  bool empty() const { return orders.empty(); }
  /// "4(1) 3(1) 2(1) 1(1) 0(4) 1(1) 2(1) 3(1) 4(2)"
  std::string describe() const;
};

/// Why `cycle` is not a cycle for a run at `order` ("" if it is one): its first and last orders
/// are `order`, every order in [0, order], each move to another order, and each move up returns to
/// the order the level was entered from (so every correction goes to the state it was measured
/// against); one step count per visit, >= 0, and >= 1 at the last (the steady-state check's step);
/// CFL numbers positive, at most one per order below `order`.
std::string check_multigrid_cycle(const MultigridCycle& cycle, int order);

/// The cycle a run at `order` takes from the case's cycle (whose finest order may be higher: the
/// stages of a p-continuation): the visits at or below `order` from the first to the last visit of
/// `order`, consecutive visits of one order merged (their steps added); empty (plain steps) when
/// `order` is not visited or nothing below it is.
MultigridCycle multigrid_cycle_at(const MultigridCycle& cycle, int order);

/// The lower levels of one run and the cycle over them.
class PMultigrid {
 public:
  /// Builds an operator per order below the finest one that the cycle visits (same mesh and options).
  /// dt_every: cycles between evaluations of the lower levels' steps (as [time] dt_every for the
  /// run's: each reads the element means back to the host; in between the last ones are kept).
  PMultigrid(const Mesh& mesh, const Connectivity& connectivity, const dg::OperatorOptions& options, MultigridCycle cycle,
             long long dt_every = 1);
  /// One cycle from pseudo-time t on `fine` (the run's operator): its steps take dt (the run's
  /// local or global step, already set), the lower levels' their own at their CFL number (`cfl`,
  /// the run's, unless the cycle gives theirs; local ones with local_time_step). monitor_change:
  /// the last step of the finest level reports its change (dg::Operator::last_change). Returns the
  /// pseudo-time the finest level advanced.
  double cycle(dg::Operator& fine, const RungeKuttaScheme& scheme, double t, double dt, double cfl, bool local_time_step,
               bool monitor_change);
  const MultigridCycle& visits() const { return cycle_; }
  /// Steps taken so far per order (the finest one's included), for the run's report.
  const std::map<int, long long>& steps_taken() const { return taken_; }

 private:
  MultigridCycle cycle_;
  std::map<int, std::unique_ptr<dg::Operator>> levels_;
  std::map<int, long long> taken_;
  std::map<int, double> dt_;  ///< each lower level's last step (its smallest, with local steps)
  std::vector<bool> first_visit_;  ///< per visit: its order's first in the cycle (where the step is evaluated)
  long long dt_every_ = 1, cycles_ = 0;
};

}  // namespace flowdg
