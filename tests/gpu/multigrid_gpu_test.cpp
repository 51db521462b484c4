// p-multigrid's transfers and forced steps on the GPU (dg::Operator::restrict_from, prolongate_to;
// the stages' forcing, run_stage): a cycle of three levels with local time steps gives the CPU's
// numbers, on the kernels "automatic" takes (the tensor element kernel with the traces it writes
// for the next stage at p = 3, 4 on affine tetrahedra; curved tetrahedra; float), and the finest
// level's steps after it too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "flowdg/dg/operator.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/time/runge_kutta.hpp"
#include "cpu_cuda_agreement.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;

namespace {

struct Levels {
  std::unique_ptr<dg::Operator> fine, middle, coarse;
};

Levels levels(const Mesh& mesh, const Connectivity& connectivity, Backend backend, dg::Precision precision, int order,
              const physics::FlowSpec& flow) {
  dg::OperatorOptions options = gpu_test::options_for(mesh, order, backend, precision, flow);
  options.flux = physics::RiemannKind::rusanov;
  Levels out;
  out.fine = dg::make_operator(mesh, connectivity, options);
  options.order = order - 1;
  out.middle = dg::make_operator(mesh, connectivity, options);
  options.order = 0;
  out.coarse = dg::make_operator(mesh, connectivity, options);
  out.fine->project(flow, 0.0);
  return out;
}

/// Two cycles order(1) order-1(1) 0(2) order-1(1) order(1), local time steps at cfl 0.3.
std::vector<double> cycles(Levels& l, const RungeKuttaScheme& scheme) {
  for (int cycle = 0; cycle < 2; ++cycle) {
    l.fine->step(scheme, 0.0, l.fine->set_local_time_steps(0.3));
    l.middle->restrict_from(*l.fine, 0.0);
    l.middle->step(scheme, 0.0, l.middle->set_local_time_steps(0.3));
    l.coarse->restrict_from(*l.middle, 0.0);
    const double dt = l.coarse->set_local_time_steps(0.3);
    l.coarse->step(scheme, 0.0, dt);
    l.coarse->step(scheme, 0.0, dt);
    l.coarse->prolongate_to(*l.middle);
    l.middle->step(scheme, 0.0, l.middle->set_local_time_steps(0.3));
    l.middle->prolongate_to(*l.fine);
    l.fine->step(scheme, 0.0, l.fine->set_local_time_steps(0.3));
  }
  return l.fine->coefficients();
}

}  // namespace

TEST(GpuMultigrid, CyclesOnCudaGiveTheCpusNumbers) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  struct Run {
    const char* name;
    Mesh mesh;
    int order;
    dg::Precision precision;
    double tolerance;  ///< relative to the state's size
  };
  std::vector<Run> runs;
  runs.push_back({"affine tetrahedra p = 4", box_tetrahedra(1, 1, 1, 3, 3, 3, 0.2), 4, dg::Precision::double_precision, 1e-11});
  runs.push_back({"affine tetrahedra p = 3", box_tetrahedra(1, 1, 1, 3, 3, 3, 0.2), 3, dg::Precision::double_precision, 1e-11});
  runs.push_back({"affine tetrahedra p = 4, float", box_tetrahedra(1, 1, 1, 3, 3, 3, 0.2), 4, dg::Precision::single_precision, 1e-5});
  runs.push_back({"curved 10-node tetrahedra p = 2", read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_tet_p2_msh41.msh"), 2,
                  dg::Precision::double_precision, 1e-11});
  runs.push_back({"affine triangles p = 3", rectangle_triangles(0, 1, 0, 1, 6, 5, TriangleLayout::perturbed, 0.2, 3), 3,
                  dg::Precision::double_precision, 1e-11});
  const RungeKuttaScheme scheme = runge_kutta_scheme("ssp-rk3");
  for (Run& run : runs) {
    SCOPED_TRACE(run.name);
    physics::FlowSpec flow;
    flow.kind = physics::FlowKind::isentropic_vortex;
    flow.velocity = {0.5, 0.3, run.mesh.dimension == 3 ? 0.2 : 0.0};
    flow.strength = 2.0;
    flow.center = {0.5, 0.5, 0.0};
    const Connectivity connectivity = build_connectivity(run.mesh);
    Levels cpu = levels(run.mesh, connectivity, Backend::cpu, run.precision, run.order, flow);
    Levels cuda = levels(run.mesh, connectivity, Backend::cuda, run.precision, run.order, flow);
    const std::vector<double> start = cpu.fine->coefficients();
    const std::vector<double> on_cpu = cycles(cpu, scheme), on_cuda = cycles(cuda, scheme);
    double size = 0, difference = 0, moved = 0;
    for (std::size_t i = 0; i < on_cpu.size(); ++i) {
      size = std::max(size, std::abs(on_cpu[i]));
      difference = std::max(difference, std::abs(on_cpu[i] - on_cuda[i]));
      moved = std::max(moved, std::abs(on_cpu[i] - start[i]));
    }
    std::printf("p-multigrid cpu - cuda %s: %.3g (relative), the cycles moved the state by %.3g\n", run.name, difference / size, moved / size);
    EXPECT_LT(difference, run.tolerance * size) << "cpu - cuda " << difference;
    // (a comparison that means something: the cycles change the state by far more than the tolerance)
    EXPECT_GT(moved, std::max(1e-3, 50 * run.tolerance) * size) << "the cycles should change the state";
  }
}
