// The Navier-Stokes operator (BR2 lifting, dg/lifting.hpp) on the GPU gives the CPU's numbers: for
// every shape and geometry kind, with walls of every viscous kind, the residual and three Runge-Kutta
// steps agree to rounding, through the thread, the block and the tensor-core element kernels, BR2's
// thread, block and tensor-core lifting kernels, BR2 at the faces (affine triangles and tetrahedra;
// bilinear quadrilaterals through the sum-factorised face and element kernels), the sum-factorised
// element and lifting kernels on bilinear quadrilaterals, and the point and block face kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "flowdg/dg/factorised.hpp"
#include "flowdg/dg/lifting.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/time/runge_kutta.hpp"
#include "cpu_cuda_agreement.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;

namespace {

dg::OperatorOptions viscous_options(const Mesh& mesh, int order, Backend backend, const physics::FlowSpec& flow) {
  dg::OperatorOptions options;
  options.order = order;
  options.backend = backend;
  options.flux = physics::RiemannKind::rusanov;
  options.viscous.enabled = true;
  // M = 1 / sqrt(gamma): the vortex's background (rho = p = 1) is then at the free-stream
  // temperature, theta = gamma M^2 p / rho = 1, and the walls' 1.1 is a warm wall, not one nine
  // times hotter than the gas (which Sutherland's law turns into a non-physical state within steps).
  options.viscous.scales.mach = 1.0 / std::sqrt(1.4);
  options.viscous.scales.reynolds = 100.0;
  options.viscous.scales.law = physics::ViscosityLaw::sutherland;
  // Cycle through the conditions with viscous parts, tag by tag.
  const physics::BoundaryKind kinds[] = {physics::BoundaryKind::isothermal_wall, physics::BoundaryKind::no_slip_wall,
                                         physics::BoundaryKind::farfield, physics::BoundaryKind::symmetry,
                                         physics::BoundaryKind::subsonic_outflow, physics::BoundaryKind::subsonic_inflow};
  for (std::size_t tag = 0; tag < mesh.boundary_names.size(); ++tag) {
    dg::BoundarySpec spec;
    spec.kind = kinds[tag % 6];
    spec.flow = flow;
    spec.wall_temperature = 1.1;
    spec.wall_velocity = {0.2, 0.0, 0.0};
    options.boundary.push_back(spec);
  }
  return options;
}

}  // namespace

TEST(GpuNavierStokes, CudaAgreesWithTheCpuForEveryShapeAndGeometry) {
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
  cases.push_back({"curved 9-node quadrilaterals", read_gmsh(FLOWDG_TEST_DATA_DIR "/square_quad9_msh41.msh"), {0.5, 0.5, 0}});
  cases.push_back({"affine tetrahedra", box_tetrahedra(1, 1, 1, 2, 2, 2), {0.5, 0.5, 0}});
  cases.push_back({"trilinear hexahedra", read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_hex_msh41.msh"), {0.5, 0.5, 0}});
  const RungeKuttaScheme scheme = runge_kutta_scheme("ssp-rk3");
  for (const Case& c : cases) {
    const Connectivity connectivity = build_connectivity(c.mesh);
    physics::FlowSpec flow;
    flow.kind = physics::FlowKind::isentropic_vortex;
    flow.velocity = {1.0, 0.5, c.mesh.dimension == 3 ? 0.25 : 0.0};
    flow.strength = 1.0;
    flow.center = c.center;
    const int highest = dg::core_max_order(c.mesh.dimension, dg::Precision::double_precision, true);
    // element kernel / lifting kernel: each element kernel with the lifting it takes by default,
    // and the lifting kernels with another element kernel.
    const std::pair<const char*, const char*> variants[] = {
        {"thread", "automatic"}, {"block", "automatic"}, {"tensor", "automatic"}, {"block", "tensor"}, {"thread", "block"},
        {"factorised", "automatic"}, {"factorised", "block"}, {"block", "factorised"}, {"automatic", "automatic"},
        {"thread", "faces"}, {"tensor", "faces"}, {"factorised", "faces"}};
    for (const auto& [element, lifting] : variants)
      for (int order = 1; order <= highest; ++order) {
        const std::string kernel = std::string(element) + "/" + lifting;
        const auto cpu = dg::make_operator(c.mesh, connectivity, viscous_options(c.mesh, order, Backend::cpu, flow));
        dg::OperatorOptions options = viscous_options(c.mesh, order, Backend::cuda, flow);
        options.element_kernel = element;
        options.lifting_kernel = lifting;
        // The face kernel of the same kind (the sum-factorised and automatic ones with their own).
        const std::string element_name = element;
        options.face_kernel = element_name == "thread"                                  ? "point"
                              : element_name == "factorised" || element_name == "automatic" ? element
                                                                                            : "block";
        const auto cuda = dg::make_operator(c.mesh, connectivity, options);
        // The kernels must run where asked: "tensor", the FP64 tensor-core element kernel with BR2's
        // volume term and halves, and on affine groups the tensor-core lifting (affine triangles'
        // tables fit their shared memory at every order).
        const std::string described = cuda->describe();
        if (std::string(c.name) == "affine triangles") {
          // (automatic takes the tensor-core lifting only after the tensor-core element kernel; another
          // named lifting kernel is that one)
          const bool tensor_lifting = std::string(lifting) == "tensor" || (std::string(element) == "tensor" && std::string(lifting) == "automatic");
          // The block lifting: named (or "factorised", which triangles cannot take), or following a
          // block element kernel (named, or automatic_block's: from p = 2 in 2D, and at every order on
          // a group of fewer elements than the GPU holds threads, as this one).
          const std::string e = element, l = lifting;
          const bool small = c.mesh.n_elements() < device_resident_threads();
          EXPECT_TRUE(small) << "a test mesh of " << c.mesh.n_elements() << " elements";
          const bool block_elements = e == "block" || e == "tensor" || e == "factorised" || (e == "automatic" && (order >= 2 || small));
          // BR2 at the faces (br2_face_kernels.hpp): named (not after the tensor-core element kernel,
          // whose groups it does not run: they take the block lifting), or by "automatic" after the
          // automatic or the block element kernel where automatic_br2_faces says.
          const bool faces = (l == "faces" && e != "tensor") ||
                             (l == "automatic" && (e == "automatic" || e == "block") && dg::automatic_br2_faces(2, order));
          ASSERT_EQ(described.find("BR2 at the faces") != std::string::npos, faces) << kernel << ": " << described;
          ASSERT_EQ(described.find("BR2 face kernel") != std::string::npos, faces) << kernel << ": " << described;
          const char* expected_lifting = faces                                                                     ? "BR2 at the faces"
                                         : tensor_lifting                                                           ? "tensor-core lifting"
                                         : l == "block" || l == "factorised" || l == "faces" || (l == "automatic" && block_elements) ? "block lifting"
                                                                                                                  : "thread lifting";
          ASSERT_NE(described.find(expected_lifting), std::string::npos) << kernel << ": " << described;
          // The block lifting takes the inviscid volume term where the block element kernel follows it.
          const bool fused = std::string(expected_lifting) == "block lifting" && block_elements && e != "tensor";
          if (faces) ASSERT_EQ(described.find("block lifting"), std::string::npos) << kernel << ": " << described;
          ASSERT_EQ(described.find("block lifting with the volume term") != std::string::npos, fused) << kernel << ": " << described;
          if (std::string(element) == "tensor") ASSERT_NE(described.find("tensor-core element kernel"), std::string::npos) << described;
        }
        // Affine tetrahedra take BR2 at the faces where named, and by "automatic" after the automatic
        // or the block element kernel from p = 1 (automatic_br2_faces; their blocks fit the shared
        // memory at every order the viscous 3D solver is built for, p <= 3).
        if (std::string(c.name) == "affine tetrahedra") {
          const std::string e = element, l = lifting;
          const bool has_faces = described.find("BR2 at the faces") != std::string::npos;
          if ((l == "automatic" && (e == "automatic" || e == "block")) || (l == "faces" && e == "thread"))
            ASSERT_EQ(has_faces, l == "faces" || dg::automatic_br2_faces(3, order)) << kernel << ": " << described;
          if (l == "automatic" && e == "thread") ASSERT_FALSE(has_faces) << kernel << ": " << described;
          if (has_faces) ASSERT_EQ(described.find("block lifting"), std::string::npos) << kernel << ": " << described;
          ASSERT_EQ(described.find("BR2 face kernel") != std::string::npos, has_faces) << kernel << ": " << described;
        }
        // Bilinear quadrilaterals invert their mass matrices through the points (setup.hpp:
        // ElementGroupSetup::collocated) in every element and lifting kernel; 9-node ones store them.
        if (std::string(c.name) == "bilinear quadrilaterals") {
          ASSERT_NE(described.find("mass inverted at the points"), std::string::npos) << kernel << ": " << described;
          // The sum-factorised kernels (factorised_kernels.hpp) run them where asked for and by
          // "automatic"; the lifting follows a factorised element kernel unless another is named.
          const std::string e = element, l = lifting;
          const bool factorised_elements = e == "factorised" || e == "automatic";
          // BR2 at the faces (br2_factorised_kernels.hpp) after the sum-factorised element kernel:
          // named, or by "automatic" where automatic_br2_factorised says; then no lifting pass.
          const bool faces = factorised_elements && (l == "faces" || (l == "automatic" && dg::automatic_br2_factorised(order)));
          ASSERT_EQ(described.find("BR2 at the faces") != std::string::npos, faces) << kernel << ": " << described;
          const bool factorised_lifting = !faces && (l == "factorised" || (l == "automatic" && factorised_elements));
          ASSERT_EQ(described.find("sum-factorised element kernel") != std::string::npos, factorised_elements) << kernel << ": " << described;
          ASSERT_EQ(described.find("sum-factorised lifting") != std::string::npos, factorised_lifting) << kernel << ": " << described;
          // (the face kernel: BR2's where BR2 runs at the faces, else the sum-factorised one where
          // named, or by "automatic" from p = 2: factorised.hpp)
          const bool factorised_faces = !faces && (e == "factorised" || (e == "automatic" && dg::automatic_factorised_faces(order)));
          ASSERT_EQ(described.find("sum-factorised face kernel") != std::string::npos, factorised_faces) << kernel << ": " << described;
          ASSERT_EQ(described.find("BR2 face kernel (sum-factorised)") != std::string::npos, faces) << kernel << ": " << described;
        }
        if (std::string(c.name) == "curved 9-node quadrilaterals")
          ASSERT_EQ(described.find("mass inverted at the points"), std::string::npos) << kernel << ": " << described;
        cpu->project(flow, 0.0);
        cuda->set_coefficients(cpu->coefficients());
        const gpu_test::CpuCudaAgreement agreement = gpu_test::step_cpu_and_cuda(*cpu, *cuda, scheme);
        const std::vector<double>& a = agreement.cpu_state;
        const std::vector<double>& b = agreement.cuda_state;
        const std::vector<double>& ra = agreement.cpu_residual;
        const double size = agreement.size, difference = agreement.difference, t = agreement.t;
        const double residual_size = agreement.residual_size, residual_difference = agreement.residual_difference;
        // Every value finite (a NaN would slip through the maxima above).
        bool finite = size > 0;
        for (std::size_t i = 0; i < a.size(); ++i) finite = finite && std::isfinite(a[i]) && std::isfinite(b[i]) && std::isfinite(ra[i]);
        ASSERT_TRUE(finite) << c.name << " p = " << order << " " << kernel << ": a non-finite value";
        EXPECT_LT(difference, 1e-12 * size) << c.name << " p = " << order << " " << kernel;
        EXPECT_LT(residual_difference, 1e-10 * residual_size) << c.name << " p = " << order << " " << kernel;
        // The wall kernel's samples (boundary states and BR2 wall fluxes: forces, Cp, Cf).
        const dg::WallSamples wa = cpu->wall_samples(t), wb = cuda->wall_samples(t);
        ASSERT_EQ(wa.size(), wb.size());
        double wall_size = 0, wall_difference = 0;
        for (std::size_t i = 0; i < wa.state.size(); ++i) {
          wall_size = std::max({wall_size, std::abs(wa.state[i]), std::abs(wa.viscous_flux[i])});
          wall_difference = std::max({wall_difference, std::abs(wa.state[i] - wb.state[i]), std::abs(wa.viscous_flux[i] - wb.viscous_flux[i])});
        }
        for (std::size_t i = 0; i < wa.size(); ++i)
          wall_difference = std::max({wall_difference, std::abs(wa.weight[i] - wb.weight[i]), std::abs(wa.normal[i].x - wb.normal[i].x),
                                      std::abs(wa.x[i].y - wb.x[i].y)});
        EXPECT_LT(wall_difference, 1e-10 * wall_size) << c.name << " p = " << order << " " << kernel << ": wall samples";
        // A step with local time steps (steady states): each element's own dt on both.
        EXPECT_DOUBLE_EQ(cpu->set_local_time_steps(0.2), cuda->set_local_time_steps(0.2));
        cpu->step(scheme, t, 1.0);
        cuda->step(scheme, t, 1.0);
        const std::vector<double> la = cpu->coefficients(), lb = cuda->coefficients();
        double local_difference = 0;
        for (std::size_t i = 0; i < la.size(); ++i) local_difference = std::max(local_difference, std::abs(la[i] - lb[i]));
        EXPECT_LT(local_difference, 1e-12 * size) << c.name << " p = " << order << " " << kernel << ": local time steps";
        std::printf("navier-stokes cpu - cuda %s p = %d %s: state %.2e, residual %.2e, walls %.2e, local steps %.2e (relative)\n", c.name,
                    order, kernel.c_str(), difference / size, residual_difference / residual_size, wall_difference / wall_size,
                    local_difference / size);
        std::fflush(stdout);
      }
  }
}

TEST(GpuNavierStokes, ChainedAndPlainFactorisedLaunchesGiveTheSameBits) {
  // The sum-factorised kernels as programmatic dependent launches (they read the geometry and the
  // face index before the previous grid ends, everything else after; at the orders where the
  // operator chains them) against plain launches: the same kernels in the same order, so the same
  // bits; and both the CPU's numbers to rounding.
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const Mesh mesh = rectangle_quadrilaterals(0, 1, 0, 1, 12, 10, 0.2, 3);
  const Connectivity connectivity = build_connectivity(mesh);
  physics::FlowSpec flow;
  flow.kind = physics::FlowKind::isentropic_vortex;
  flow.velocity = {1.0, 0.5, 0.0};
  flow.strength = 1.0;
  flow.center = {0.5, 0.5, 0};
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  int chained_orders = 0;
  for (int order = 1; order <= 4; ++order) {
    if (!dg::automatic_chained_factorised(order)) continue;
    ++chained_orders;
    const auto cpu = dg::make_operator(mesh, connectivity, viscous_options(mesh, order, Backend::cpu, flow));
    dg::OperatorOptions options = viscous_options(mesh, order, Backend::cuda, flow);
    options.face_kernel = "factorised";
    options.lifting_kernel = "factorised";  // the lifting pass (automatic takes BR2 at the faces here)
    const auto chained = dg::make_operator(mesh, connectivity, options);
    options.chained_launches = false;
    const auto plain = dg::make_operator(mesh, connectivity, options);
    const std::string described = chained->describe();
    ASSERT_NE(described.find("sum-factorised element kernel"), std::string::npos) << described;
    ASSERT_NE(described.find("sum-factorised lifting"), std::string::npos) << described;
    ASSERT_NE(described.find("sum-factorised face kernel"), std::string::npos) << described;
    cpu->project(flow, 0.0);
    chained->set_coefficients(cpu->coefficients());
    plain->set_coefficients(cpu->coefficients());
    const double dt = 0.5 * cpu->stable_time_step(0.2);  // step_cpu_and_cuda's, taken before its steps
    const gpu_test::CpuCudaAgreement with_cpu = gpu_test::step_cpu_and_cuda(*cpu, *chained, scheme, 4);
    // The plain launches stepped alike (the same dt and times).
    double t = 0;
    for (int step = 0; step < 4; ++step, t += dt) plain->step(scheme, t, dt);
    const std::vector<double> a = plain->coefficients(), b = chained->coefficients();
    ASSERT_EQ(a.size(), b.size());
    std::size_t differing = 0;
    for (std::size_t i = 0; i < a.size(); ++i) differing += a[i] != b[i] ? 1 : 0;
    EXPECT_EQ(differing, 0u) << "p = " << order << ": chained and plain launches differ";
    EXPECT_LT(with_cpu.difference, 1e-12 * with_cpu.size) << "p = " << order;
    // The bytes model (summary.json's model_bytes_per_stage): the factorised element and lifting
    // kernels read 6 words of geometry an element where the CPU's read 5 a point.
    const double points = static_cast<double>((order + 1) * (order + 1));
    const double expected = static_cast<double>(mesh.n_elements()) * 2 * (5 * points - 6) * sizeof(double);
    EXPECT_DOUBLE_EQ(cpu->stage_bytes(scheme) - chained->stage_bytes(scheme), expected) << "p = " << order;
  }
  EXPECT_GT(chained_orders, 0);
}
