#include "flowdg/cases/multigrid.hpp"

#include <algorithm>

#include "flowdg/core/error.hpp"

namespace flowdg {

std::string MultigridCycle::describe() const {
  std::string text;
  for (std::size_t i = 0; i < orders.size(); ++i)
    text += cat(i == 0 ? "" : " ", orders[i], "(", i < steps.size() ? steps[i] : 1, ")");
  return text;
}

std::string check_multigrid_cycle(const MultigridCycle& cycle, int order) {
  const std::vector<int>& orders = cycle.orders;
  if (orders.size() < 3) return cat("a cycle visits at least three orders (from p = ", order, " down and back), not ", orders.size());
  if (cycle.steps.size() != orders.size())
    return cat("one step count per visit: ", orders.size(), " orders and ", cycle.steps.size(), " step counts");
  if (orders.front() != order || orders.back() != order)
    return cat("a cycle starts and ends at the run's order p = ", order, " (it has ", orders.front(), " ... ", orders.back(), ")");
  std::vector<int> entered_from;  // the orders the walk came down from, innermost last
  for (std::size_t i = 0; i < orders.size(); ++i) {
    if (orders[i] < 0 || orders[i] > order) return cat("order ", orders[i], " is not in [0, ", order, "]");
    if (cycle.steps[i] < 0) return cat("steps: ", cycle.steps[i], " at visit ", i + 1, " (must be >= 0)");
    if (i == 0) continue;
    if (orders[i] == orders[i - 1]) return cat("visit ", i + 1, " stays at p = ", orders[i], " (give the previous visit more steps)");
    if (orders[i] < orders[i - 1]) {
      entered_from.push_back(orders[i - 1]);
    } else {
      if (entered_from.empty() || entered_from.back() != orders[i])
        return cat("visit ", i + 1, " goes up from p = ", orders[i - 1], " to p = ", orders[i], "; it must return to p = ",
                   entered_from.empty() ? order : entered_from.back(), ", the order it came down from");
      entered_from.pop_back();
    }
  }
  if (cycle.steps.back() < 1) return "the last visit (the finest order) takes at least one step";
  if (cycle.cfl.size() > static_cast<std::size_t>(order))
    return cat(cycle.cfl.size(), " CFL numbers for the ", order, " orders below p = ", order, " (p = 0 first)");
  for (const double cfl : cycle.cfl)
    if (!(cfl > 0)) return cat("CFL number ", cfl, " (must be positive)");
  return "";
}

MultigridCycle multigrid_cycle_at(const MultigridCycle& cycle, int order) {
  MultigridCycle kept;
  for (std::size_t i = 0; i < cycle.orders.size(); ++i) {
    if (cycle.orders[i] > order) continue;
    const long long steps = i < cycle.steps.size() ? cycle.steps[i] : 1;
    if (!kept.orders.empty() && kept.orders.back() == cycle.orders[i]) {
      kept.steps.back() += steps;
    } else {
      kept.orders.push_back(cycle.orders[i]);
      kept.steps.push_back(steps);
    }
  }
  // From the first visit of `order` to its last.
  std::size_t first = 0, last = kept.orders.size();
  while (first < kept.orders.size() && kept.orders[first] != order) ++first;
  while (last > first && kept.orders[last - 1] != order) --last;
  MultigridCycle out;
  out.cfl.assign(cycle.cfl.begin(), cycle.cfl.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(cycle.cfl.size(), std::max(order, 0))));
  out.orders.assign(kept.orders.begin() + static_cast<std::ptrdiff_t>(first), kept.orders.begin() + static_cast<std::ptrdiff_t>(last));
  out.steps.assign(kept.steps.begin() + static_cast<std::ptrdiff_t>(first), kept.steps.begin() + static_cast<std::ptrdiff_t>(last));
  if (!check_multigrid_cycle(out, order).empty()) return {};
  return out;
}

PMultigrid::PMultigrid(const Mesh& mesh, const Connectivity& connectivity, const dg::OperatorOptions& options, MultigridCycle cycle,
                       long long dt_every)
    : cycle_(std::move(cycle)), dt_every_(std::max<long long>(1, dt_every)) {
  const int finest = cycle_.orders.empty() ? 0 : cycle_.orders.front();
  if (const std::string why = check_multigrid_cycle(cycle_, finest); !why.empty()) throw InputError(cat("p-multigrid: ", why));
  for (std::size_t i = 0; i < cycle_.orders.size(); ++i)
    first_visit_.push_back(std::find(cycle_.orders.begin(), cycle_.orders.begin() + static_cast<std::ptrdiff_t>(i), cycle_.orders[i]) ==
                           cycle_.orders.begin() + static_cast<std::ptrdiff_t>(i));
  for (const int order : cycle_.orders) {
    if (order == finest || levels_.count(order) != 0) continue;
    dg::OperatorOptions level = options;
    level.order = order;
    levels_[order] = dg::make_operator(mesh, connectivity, level);
  }
}

double PMultigrid::cycle(dg::Operator& fine, const RungeKuttaScheme& scheme, double t, double dt, double cfl, bool local_time_step,
                         bool monitor_change) {
  const int finest = cycle_.orders.front();
  if (fine.order() != finest) throw InputError(cat("p-multigrid: the cycle starts at p = ", finest, ", the run is at p = ", fine.order()));
  const auto level = [&](int order) -> dg::Operator& { return order == finest ? fine : *levels_.at(order); };
  double advanced = 0;
  for (std::size_t i = 0; i < cycle_.orders.size(); ++i) {
    const int order = cycle_.orders[i];
    dg::Operator& op = level(order);
    if (i > 0) {
      if (order < cycle_.orders[i - 1])
        op.restrict_from(level(cycle_.orders[i - 1]), t);
      else
        level(cycle_.orders[i - 1]).prolongate_to(op);
    }
    const long long steps = cycle_.steps[i];
    if (steps == 0) continue;
    const bool is_finest = order == finest;
    // The lower levels' steps of their own size, from their state after the restriction (which
    // set_local_time_steps / stable_time_step check: a bad state there is named like one above),
    // every dt_every cycles (at a level's first visit of such a cycle).
    if (!is_finest && (dt_.count(order) == 0 || (first_visit_[i] && cycles_ % dt_every_ == 0))) {
      const double level_cfl = static_cast<std::size_t>(order) < cycle_.cfl.size() ? cycle_.cfl[static_cast<std::size_t>(order)] : cfl;
      dt_[order] = local_time_step ? op.set_local_time_steps(level_cfl) : op.stable_time_step(level_cfl);
    }
    const double step = is_finest ? dt : dt_.at(order);
    const bool last_visit = i + 1 == cycle_.orders.size();
    for (long long n = 0; n < steps; ++n) {
      op.step(scheme, t, step, monitor_change && last_visit && n + 1 == steps);
      if (is_finest) advanced += step;
    }
    taken_[order] += steps;
  }
  ++cycles_;
  return advanced;
}

}  // namespace flowdg
