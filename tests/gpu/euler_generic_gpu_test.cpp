// The dimension-generic Euler physics (physics/euler/) gives the same numbers on the device as on
// the host: the three Riemann solvers, the wall and far-field ghost states and the isentropic
// vortex, for Euler<2> and Euler<3> in double precision (to 1e-14) and in single precision (to
// float rounding: the device may contract a * b + c into one fused multiply-add where the host
// rounds twice).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "../unit/euler_generic_random.hpp"
#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/physics/euler/boundary.hpp"
#include "flowdg/physics/euler/euler.hpp"
#include "flowdg/physics/euler/flows.hpp"
#include "flowdg/physics/euler/riemann.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;
namespace test_support = flowdg::physics::test_support;

namespace {
constexpr int n_fluxes = 3;
constexpr int n_outputs = n_fluxes + 3;

/// Per sample: Rusanov, HLLC and Roe fluxes, then the wall (curvature wall in 2D, slip wall in
/// 3D) and far-field ghost states (the plus state as the far field) and the isentropic vortex at the minus state's (scaled) momentum
/// as a point. A functor at namespace scope: nvcc accepts no extended lambda inside a test body.
template <class Physics>
struct GenericPointwiseKernel {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  using Direction = typename Physics::Direction;
  static constexpr int dim = Physics::dim;

  View<const State> minus, plus;
  View<const Direction> normals;
  View<State> out;
  Physics physics;
  physics::EulerFlow<dim, Real> vortex;

  FLOWDG_HD void operator()(index_t i) const {
    const State um = minus[i], up = plus[i];
    const Direction n = normals[i];
    State* result = &out[n_outputs * i];
    result[0] = physics::Rusanov{}(physics, um, up, n);
    result[1] = physics::Hllc{}(physics, um, up, n);
    result[2] = physics::Roe{}(physics, um, up, n);
    Direction x;
    for (int d = 0; d < dim; ++d) x[d] = um[1 + d] / (Real(1) + std::abs(um[1 + d]));
    const auto far_field = [&](const Direction&, Real) { return up; };
    // The curvature wall (circle about (0.1, -0.2)) in 2D, the slip wall in 3D.
    Direction center{};
    center[0] = Real(0.1);
    center[1] = Real(-0.2);
    const physics::BoundaryCondition<dim, Real> wall{
        dim == 2 ? physics::BoundaryKind::curvature_wall : physics::BoundaryKind::slip_wall, center};
    const physics::BoundaryCondition<dim, Real> farfield{physics::BoundaryKind::farfield, {}};
    result[3] = wall.ghost_state(physics, um, n, x, Real(0), far_field);
    result[4] = farfield.ghost_state(physics, um, n, x, Real(0), far_field);
    result[5] = vortex(x, Real(0.25));
  }
};

template <class Physics>
std::vector<typename Physics::State> evaluate(Backend backend, const Physics& equations,
                                              const std::vector<typename Physics::State>& minus,
                                              const std::vector<typename Physics::State>& plus,
                                              const std::vector<typename Physics::Direction>& normals) {
  using State = typename Physics::State;
  const Space space = space_of(backend);
  const Array<State> minus_array(space, minus), plus_array(space, plus);
  const Array<typename Physics::Direction> normal_array(space, normals);
  Array<State> out(space, static_cast<index_t>(n_outputs * minus.size()));
  physics::FlowSpec spec;
  spec.kind = physics::FlowKind::isentropic_vortex;
  spec.velocity = {0.5, -0.25, 0.125};
  const GenericPointwiseKernel<Physics> kernel{minus_array.view(), plus_array.view(), normal_array.view(), out.view(),
                                               equations,
                                               physics::to_flow<Physics::dim, typename Physics::real>(spec, 1.4)};
  for_each(backend, static_cast<index_t>(minus.size()), kernel);
  return out.to_host();
}

/// Host and device on the same random samples; the worst flux-scaled (fluxes) or relative (ghost
/// states, flow) difference per output must stay below the tolerance.
template <int Dim, class Real>
void expect_device_matches_host(double tolerance) {
  using Physics = physics::Euler<Dim, Real>;
  using Reference = physics::Euler<Dim, double>;
  const Physics equations{};
  const Reference reference{static_cast<double>(equations.gamma)};
  constexpr int n = 50000;
  std::mt19937_64 rng(2024 + Dim);
  std::vector<typename Physics::State> minus(n), plus(n);
  std::vector<typename Physics::Direction> normals(n);
  std::vector<typename Reference::State> scales(n);
  for (int i = 0; i < n; ++i) {
    const typename Reference::State um = test_support::random_state<Dim>(rng, reference);
    const typename Reference::State up = test_support::random_state<Dim>(rng, reference);
    scales[i] = test_support::flux_scale(reference, um, up);
    for (int v = 0; v < Physics::n_variables; ++v) {
      minus[i][v] = static_cast<Real>(um[v]);
      plus[i][v] = static_cast<Real>(up[v]);
    }
    normals[i] = test_support::random_unit<Dim, Real>(rng);
  }
  const auto host = evaluate(Backend::cpu, equations, minus, plus, normals);
  const auto device = evaluate(Backend::cuda, equations, minus, plus, normals);
  double worst[n_outputs] = {};
  int worst_sample[n_outputs] = {};
  for (int i = 0; i < n; ++i)
    for (int output = 0; output < n_outputs; ++output) {
      const auto& expected = host[n_outputs * i + output];
      const auto& actual = device[n_outputs * i + output];
      const double difference = output < n_fluxes ? test_support::scaled_difference(actual, expected, scales[i])
                                                  : test_support::relative_difference(actual, expected);
      if (!(difference <= worst[output])) {  // NaN is the worst
        worst[output] = difference;
        worst_sample[output] = i;
      }
    }
  for (int output = 0; output < n_outputs; ++output)
    EXPECT_LE(worst[output], tolerance) << Dim << "D output " << output << ", sample " << worst_sample[output];
}
}  // namespace

TEST(GpuEulerGeneric, TwoDimensionalDoubleAgreesWithTheHost) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  expect_device_matches_host<2, double>(1e-14);
}

TEST(GpuEulerGeneric, ThreeDimensionalDoubleAgreesWithTheHost) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  expect_device_matches_host<3, double>(1e-14);
}

TEST(GpuEulerGeneric, SinglePrecisionAgreesWithTheHost) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  // Float rounding amplified as in the single-precision unit test (far field: 5e-6 there).
  expect_device_matches_host<2, float>(1e-5);
  expect_device_matches_host<3, float>(1e-5);
}
