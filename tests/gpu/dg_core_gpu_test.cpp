// The DG core's portable kernels on the GPU give the CPU's numbers: for every (shape, geometry
// kind, physics, precision) combination the tests build, the residual and three Runge-Kutta steps
// agree to rounding. Also times the portable path on about a million elements (printed for
// docs/performance.md, not asserted).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/time/runge_kutta.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;

namespace {

physics::FlowSpec vortex(int dim, Point3 center) {
  physics::FlowSpec flow;
  flow.kind = physics::FlowKind::isentropic_vortex;
  flow.velocity = {1.0, 0.5, dim == 3 ? 0.25 : 0.0};
  flow.strength = 2.0;
  flow.center = center;
  return flow;
}

dg::OperatorOptions options_for(const Mesh& mesh, int order, Backend backend, dg::Precision precision,
                                const physics::FlowSpec& flow) {
  dg::OperatorOptions options;
  options.order = order;
  options.backend = backend;
  options.precision = precision;
  dg::BoundarySpec boundary;
  boundary.kind = physics::BoundaryKind::farfield;
  boundary.flow = flow;
  options.boundary.assign(mesh.boundary_names.size(), boundary);
  return options;
}

Mesh deformed(Mesh mesh) {
  for (Point3& x : mesh.nodes) {
    const double bump = 0.04 * std::sin(3.0 * x.x + 1.0) * std::sin(2.0 * x.y + 0.5) * std::cos(1.5 * x.z);
    x = {x.x + bump, x.y - 0.5 * bump, x.z + (mesh.dimension == 3 ? 0.7 * bump : 0.0)};
  }
  return mesh;
}

}  // namespace

TEST(GpuDgCore, CudaAgreesWithTheCpuForEveryShapeGeometryAndPrecision) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  struct Case {
    const char* name;
    Mesh mesh;
    Point3 center;
  };
  std::vector<Case> cases;
  cases.push_back({"affine triangles", rectangle_triangles(0, 1, 0, 1, 6, 5, TriangleLayout::perturbed, 0.2, 3), {0.5, 0.5, 0}});
  cases.push_back({"bilinear quadrilaterals", rectangle_quadrilaterals(0, 1, 0, 1, 6, 5, 0.2, 3), {0.5, 0.5, 0}});
  cases.push_back({"mixed (Gmsh)", read_gmsh(FLOWDG_TEST_DATA_DIR "/mixed_msh41.msh"), {1.0, 0.5, 0}});
  cases.push_back({"curved 6-node triangles", read_gmsh(FLOWDG_TEST_DATA_DIR "/annulus_p2_msh41.msh"), {0, 1.2, 0}});
  cases.push_back({"curved 9-node quadrilaterals", deformed(read_gmsh(FLOWDG_TEST_DATA_DIR "/square_quad9_msh41.msh")), {0.5, 0.5, 0}});
  cases.push_back({"affine tetrahedra", box_tetrahedra(1, 1, 1, 2, 2, 2), {0.5, 0.5, 0}});
  cases.push_back({"curved 10-node tetrahedra", deformed(read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_tet_p2_msh41.msh")), {0.5, 0.5, 0}});
  cases.push_back({"trilinear hexahedra", read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_hex_msh41.msh"), {0.5, 0.5, 0}});
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  for (const Case& c : cases) {
    const Connectivity connectivity = build_connectivity(c.mesh);
    const physics::FlowSpec flow = vortex(c.mesh.dimension, c.center);
    for (const dg::Precision precision : {dg::Precision::double_precision, dg::Precision::single_precision})
      for (int order = 0; order <= 4; ++order) {
        const auto cpu = dg::make_operator(c.mesh, connectivity, options_for(c.mesh, order, Backend::cpu, precision, flow));
        const auto cuda = dg::make_operator(c.mesh, connectivity, options_for(c.mesh, order, Backend::cuda, precision, flow));
        cpu->project(flow, 0.0);
        cuda->set_coefficients(cpu->coefficients());
        const double dt = 0.5 * cpu->stable_time_step(0.2);
        double t = 0;
        for (int step = 0; step < 3; ++step, t += dt) {
          cpu->step(scheme, t, dt);
          cuda->step(scheme, t, dt);
        }
        const std::vector<double> a = cpu->coefficients(), b = cuda->coefficients();
        const std::vector<double> ra = cpu->residual(t), rb = cuda->residual(t);
        double size = 0, difference = 0, residual_size = 0, residual_difference = 0;
        for (std::size_t i = 0; i < a.size(); ++i) {
          size = std::max(size, std::abs(a[i]));
          difference = std::max(difference, std::abs(a[i] - b[i]));
          residual_size = std::max(residual_size, std::abs(ra[i]));
          residual_difference = std::max(residual_difference, std::abs(ra[i] - rb[i]));
        }
        // Rounding differs between the CPU and the GPU (fused multiply-adds): 1e-12 of the state
        // in double, 1e-5 in float.
        const double tolerance = precision == dg::Precision::double_precision ? 1e-12 : 1e-5;
        EXPECT_LT(difference, tolerance * size) << c.name << " p = " << order << " " << cuda->describe();
        EXPECT_LT(residual_difference, tolerance * 100 * residual_size) << c.name << " p = " << order;
        std::printf("cpu - cuda %s p = %d %s: state %.2e, residual %.2e (relative)\n", c.name, order,
                    precision == dg::Precision::double_precision ? "double" : "float", difference / size,
                    residual_difference / residual_size);
      }
  }
}

TEST(GpuDgCore, PortableThroughputOnAMillionElements) {
  // Measurement for docs/performance.md: DOF-stage updates per second of the portable kernels
  // (RK4, HLLC) per shape and geometry kind. Set FLOWDG_CORE_BENCH=0 to skip.
  FLOWDG_REQUIRE_CUDA_DEVICE();
  if (const char* flag = std::getenv("FLOWDG_CORE_BENCH"); flag != nullptr && std::string(flag) == "0") GTEST_SKIP();
  struct Case {
    const char* name;
    Mesh mesh;
    Point3 center;
  };
  std::vector<Case> cases;
  cases.push_back({"affine triangles 1.0M", rectangle_triangles(0, 10, 0, 10, 724, 724, TriangleLayout::alternating), {5, 5, 0}});
  cases.push_back({"bilinear quadrilaterals 1.0M", rectangle_quadrilaterals(0, 10, 0, 10, 1000, 1000, 0.2, 3), {5, 5, 0}});
  cases.push_back({"affine tetrahedra 1.0M", box_tetrahedra(10, 10, 10, 55, 55, 55), {5, 5, 0}});
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  for (const Case& c : cases) {
    const Connectivity connectivity = build_connectivity(c.mesh);
    const physics::FlowSpec flow = vortex(c.mesh.dimension, c.center);
    for (int order = 1; order <= 4; ++order) {
      const auto op = dg::make_operator(c.mesh, connectivity,
                                        options_for(c.mesh, order, Backend::cuda, dg::Precision::double_precision, flow));
      op->project(flow, 0.0);
      const double dt = 0.1 * op->stable_time_step(0.2);
      op->step(scheme, 0.0, dt);  // warm-up
      synchronize(Backend::cuda);
      const int steps = 5;
      const auto start = std::chrono::steady_clock::now();
      for (int step = 0; step < steps; ++step) op->step(scheme, dt * (step + 1), dt);
      synchronize(Backend::cuda);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("portable throughput %s p = %d: %.3e DSU/s (%lld elements, %.3f ms per step)\n", c.name, order,
                  static_cast<double>(op->dof()) * scheme.n_stages() * steps / seconds,
                  static_cast<long long>(op->n_elements()), 1e3 * seconds / steps);
    }
  }
}
