// Numerical fluxes and boundary ghost states give the same numbers on the device as on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "../unit/euler_random_states.hpp"
#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/physics/boundary/euler_boundary.hpp"
#include "flowdg/physics/euler.hpp"
#include "flowdg/physics/riemann/hllc.hpp"
#include "flowdg/physics/riemann/roe.hpp"
#include "flowdg/physics/riemann/rusanov.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;
using namespace flowdg::euler2d;

namespace {
constexpr int n_fluxes = 3;
constexpr int n_outputs = n_fluxes + 3;

/// Per sample: the three fluxes, then the slip wall, the curvature wall (tangent of a circle about
/// the origin) and the far-field ghost states. A functor at namespace scope: nvcc accepts no
/// extended lambda inside a test body.
struct PointwiseKernel {
  View<const State> minus, plus;
  View<const double> nx, ny;
  View<State> out;
  Gas gas;
  FLOWDG_HD void operator()(index_t i) const {
    const State Um = minus[i], Up = plus[i];
    const double x = nx[i], y = ny[i];
    State* result = &out[n_outputs * i];
    result[0] = RusanovFlux{}(Um, Up, x, y, gas);
    result[1] = HllcFlux{}(Um, Up, x, y, gas);
    result[2] = RoeFlux{}(Um, Up, x, y, gas);
    result[3] = slip_wall(Um, x, y);
    double tx, ty;
    circle_tangent(0.0, 0.0, 1.7 * x + 0.01 * y, 1.7 * y - 0.01 * x, -y, x, tx, ty);
    result[4] = curvature_wall(Um, tx, ty);
    result[5] = characteristic_farfield(Um, Up, x, y, gas);
  }
};

std::vector<State> evaluate(Backend backend, const std::vector<State>& minus, const std::vector<State>& plus,
                            const std::vector<double>& nx, const std::vector<double>& ny, const Gas& gas) {
  const Space space = space_of(backend);
  const Array<State> minus_array(space, minus), plus_array(space, plus);
  const Array<double> nx_array(space, nx), ny_array(space, ny);
  Array<State> out(space, static_cast<index_t>(n_outputs * minus.size()));
  const PointwiseKernel kernel{minus_array.view(), plus_array.view(), nx_array.view(), ny_array.view(),
                               out.view(), gas};
  for_each(backend, static_cast<index_t>(minus.size()), kernel);
  return out.to_host();
}
}  // namespace

TEST(GpuRiemann, FluxesAndBoundaryStatesAgreeWithTheHost) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const Gas gas{};
  constexpr int n = 100000;
  std::mt19937_64 rng(2024);
  std::vector<State> minus(n), plus(n);
  std::vector<double> nx(n), ny(n);
  for (int i = 0; i < n; ++i) {
    minus[i] = test_support::random_state(rng, gas);
    plus[i] = test_support::random_state(rng, gas);
    test_support::random_normal(rng, nx[i], ny[i]);
  }
  const std::vector<State> host = evaluate(Backend::cpu, minus, plus, nx, ny, gas);
  const std::vector<State> device = evaluate(Backend::cuda, minus, plus, nx, ny, gas);
  double worst[n_outputs] = {};
  int worst_sample[n_outputs] = {};
  for (int i = 0; i < n; ++i) {
    const State flux_scale = test_support::flux_scale(minus[i], plus[i], gas);
    for (int output = 0; output < n_outputs; ++output) {
      const State& expected = host[n_outputs * i + output];
      State scale = flux_scale;
      if (output >= n_fluxes) {  // ghost states: relative to their largest component
        const double size = std::max({std::abs(expected[0]), std::abs(expected[1]), std::abs(expected[2]),
                                      std::abs(expected[3])});
        scale = State{{size, size, size, size}};
      }
      const double difference = test_support::scaled_difference(device[n_outputs * i + output], expected, scale);
      if (!(difference <= worst[output])) {  // NaN is the worst
        worst[output] = difference;
        worst_sample[output] = i;
      }
    }
  }
  for (int output = 0; output < n_outputs; ++output)
    EXPECT_LE(worst[output], 1e-14) << "output " << output << ", sample " << worst_sample[output];
}
