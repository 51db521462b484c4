// Artificial viscosity (physics/euler/artificial_viscosity.hpp) on the GPU gives the CPU's numbers:
// affine and curved tetrahedra, p = 1..4, the thread and the block lifting kernels, double and
// single precision, element-wise and smoothed (vertex max, vertex mean), a state with jumps so that
// the sensor is on in some elements and off in others.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "flowdg/dg/operator.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/time/runge_kutta.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;

namespace {

dg::OperatorOptions av_options(const Mesh& mesh, int order, Backend backend, dg::Precision precision) {
  dg::OperatorOptions options;
  options.order = order;
  options.backend = backend;
  options.precision = precision;
  options.flux = physics::RiemannKind::rusanov;
  options.artificial_viscosity.enabled = true;
  options.artificial_viscosity.kappa = 3.0;
  const physics::BoundaryKind kinds[] = {physics::BoundaryKind::slip_wall, physics::BoundaryKind::farfield};
  for (std::size_t tag = 0; tag < mesh.boundary_names.size(); ++tag) {
    dg::BoundarySpec spec;
    spec.kind = kinds[tag % 2];
    spec.flow.density = 1.0;
    spec.flow.velocity = {0.5, 0.1, 0.0};
    spec.flow.pressure = 1.0;
    options.boundary.push_back(spec);
  }
  return options;
}

}  // namespace

TEST(GpuArtificialViscosity, CudaAgreesWithTheCpu) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  struct Case {
    const char* name;
    Mesh mesh;
  };
  std::vector<Case> cases;
  cases.push_back({"affine tetrahedra", box_tetrahedra(1, 1, 1, 3, 3, 2)});
  cases.push_back({"curved 10-node tetrahedra", read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_tet_p2_msh41.msh")});
  const RungeKuttaScheme scheme = runge_kutta_scheme("ssp-rk3");
  for (const Case& c : cases) {
    const Connectivity connectivity = build_connectivity(c.mesh);
    for (const dg::Precision precision : {dg::Precision::double_precision, dg::Precision::single_precision})
      for (const char* kernel : {"thread", "block"})
        for (const auto smoothing : {physics::ViscositySmoothing::none, physics::ViscositySmoothing::vertex_max,
                                     physics::ViscositySmoothing::vertex_mean})
        for (int order = 1; order <= 4; ++order) {
          const bool single = precision == dg::Precision::single_precision;
          const char* smoothed = smoothing == physics::ViscositySmoothing::none ? "element-wise"
                                 : smoothing == physics::ViscositySmoothing::vertex_max ? "vertex-max" : "vertex-mean";
          dg::OperatorOptions cpu_options = av_options(c.mesh, order, Backend::cpu, precision);
          cpu_options.artificial_viscosity.smoothing = smoothing;
          const auto cpu = dg::make_operator(c.mesh, connectivity, cpu_options);
          dg::OperatorOptions options = av_options(c.mesh, order, Backend::cuda, precision);
          options.artificial_viscosity.smoothing = smoothing;
          options.element_kernel = kernel;
          options.face_kernel = std::string(kernel) == "thread" ? "point" : "block";
          const auto cuda = dg::make_operator(c.mesh, connectivity, options);
          // A smooth flow with a jump of density and pressure across the plane x + y = 1.
          physics::FlowSpec flow;
          flow.density = 1.0;
          flow.velocity = {0.5, 0.1, 0.0};
          flow.pressure = 1.0;
          cpu->project(flow, 0.0);
          std::vector<double> u = cpu->coefficients();
          const index_t K = c.mesh.n_elements();
          const std::size_t Np = u.size() / (5 * static_cast<std::size_t>(K));
          // Perturb the top modes of a third of the elements (one group per mesh here).
          ASSERT_EQ(cpu->groups().element_groups.size(), 1u);
          for (index_t e = 0; e < K; e += 3)
            for (int v = 0; v < 5; ++v) u[(v * Np + Np - 1) * static_cast<std::size_t>(K) + static_cast<std::size_t>(e)] += 0.01 * (1 + v);
          cpu->set_coefficients(u);
          cuda->set_coefficients(u);
          const std::vector<double> ea = cpu->element_viscosity(), eb = cuda->element_viscosity();
          const double largest = *std::max_element(ea.begin(), ea.end());
          ASSERT_GT(largest, 0.0) << c.name << " p = " << order;
          ASSERT_EQ(*std::min_element(ea.begin(), ea.end()), 0.0) << c.name << " p = " << order << ": the sensor is on everywhere";
          double eps_difference = 0;
          for (std::size_t i = 0; i < ea.size(); ++i) eps_difference = std::max(eps_difference, std::abs(ea[i] - eb[i]));
          EXPECT_LT(eps_difference, (single ? 1e-5 : 1e-12) * largest) << c.name << " p = " << order;
          const double dt = 0.5 * cpu->stable_time_step(0.2);
          double t = 0;
          for (int step = 0; step < 3; ++step, t += dt) {
            cpu->step(scheme, t, dt);
            cuda->step(scheme, t, dt);
          }
          const std::vector<double> a = cpu->coefficients(), b = cuda->coefficients();
          double size = 0, difference = 0;
          bool finite = true;
          for (std::size_t i = 0; i < a.size(); ++i) {
            size = std::max(size, std::abs(a[i]));
            difference = std::max(difference, std::abs(a[i] - b[i]));
            finite = finite && std::isfinite(a[i]) && std::isfinite(b[i]);
          }
          ASSERT_TRUE(finite) << c.name << " p = " << order << " " << kernel << " " << smoothed;
          EXPECT_LT(difference, (single ? 2e-5 : 1e-12) * size) << c.name << " p = " << order << " " << kernel << " " << smoothed;
          std::printf("artificial viscosity cpu - cuda %s %s p = %d %s %s: state %.2e (relative), eps max %.3e\n", c.name,
                      single ? "float" : "double", order, kernel, smoothed, difference / size, largest);
          std::fflush(stdout);
        }
  }
}
