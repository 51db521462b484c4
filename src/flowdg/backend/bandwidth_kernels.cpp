#include <algorithm>
#include <chrono>
#include <vector>

#include "flowdg/backend/bandwidth.hpp"
#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/memory.hpp"

namespace flowdg {

namespace {
struct Copy {
  View<const double> from;
  View<double> to;
  FLOWDG_HD void operator()(index_t i) const { to[i] = from[i]; }
};
struct Fill {
  View<double> to;
  FLOWDG_HD void operator()(index_t i) const { to[i] = 1.0 + 1e-9 * static_cast<double>(i % 1000); }
};
}  // namespace

double copy_bandwidth(Backend backend, index_t n, int repeats) {
  Array<double> from(space_of(backend), n), to(space_of(backend), n);
  for_each(backend, n, Fill{from.view()});  // never time untouched (or zero) pages
  for_each(backend, n, Copy{from.view(), to.view()});
  synchronize(backend);
  std::vector<double> seconds;
  for (int repeat = 0; repeat < repeats; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    for_each(backend, n, Copy{from.view(), to.view()});
    synchronize(backend);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(seconds.begin(), seconds.begin() + repeats / 2, seconds.end());
  return 2.0 * sizeof(double) * static_cast<double>(n) / seconds[repeats / 2];
}

}  // namespace flowdg
