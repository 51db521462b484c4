// The DG core's portable kernels on the GPU give the CPU's numbers: for every (shape, geometry
// kind, physics, precision) combination the tests build, the residual and three Runge-Kutta steps
// agree to rounding. Also times the portable path on about a million elements (printed for
// docs/performance.md, not asserted).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "flowdg/backend/bandwidth.hpp"
#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/cuda_check.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/dg/factorised.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/dg/setup.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/elevate.hpp"
#include "flowdg/mesh/generators.hpp"
#include "flowdg/mesh/gmsh_reader.hpp"
#include "flowdg/time/runge_kutta.hpp"
#include "cpu_cuda_agreement.hpp"
#include "gpu_test_util.hpp"

using namespace flowdg;
using gpu_test::options_for;

namespace {

physics::FlowSpec vortex(int dim, Point3 center) {
  physics::FlowSpec flow;
  flow.kind = physics::FlowKind::isentropic_vortex;
  flow.velocity = {1.0, 0.5, dim == 3 ? 0.25 : 0.0};
  flow.strength = 2.0;
  flow.center = center;
  return flow;
}

/// A weak vortex in a slow stream (Mach about 0.4): the slip walls of a box take it without a shock
/// (the vortex of `vortex` at Mach 1 into a slip wall blows up at p = 3 within four RK4 steps, on the
/// CPU as on the GPU).
physics::FlowSpec slow_vortex() {
  physics::FlowSpec flow = vortex(3, {0.5, 0.6, 0});
  flow.velocity = {0.3, 0.2, 0.1};
  flow.strength = 0.5;
  return flow;
}

/// The boundary tests' box of 720 tetrahedra: its six sides, each a boundary face group of its own size,
/// under four conditions in turn (far field, slip wall, prescribed state, supersonic outflow), the slow
/// vortex; the automatic kernels (p = 1..4 on the variable face kernel; p = 3 the element-major state).
struct FourConditionBox {
  Mesh mesh = box_tetrahedra(1, 1.2, 0.8, 5, 6, 4, 0.1, 11);
  Connectivity connectivity = build_connectivity(mesh);
  physics::FlowSpec flow = slow_vortex();
  dg::OperatorOptions options(int order, dg::Precision precision) const {
    const physics::BoundaryKind kinds[] = {physics::BoundaryKind::farfield, physics::BoundaryKind::slip_wall,
                                           physics::BoundaryKind::prescribed, physics::BoundaryKind::outflow};
    dg::OperatorOptions options = options_for(mesh, order, Backend::cuda, precision, flow);
    options.implementation = dg::Implementation::automatic;
    for (std::size_t tag = 0; tag < options.boundary.size(); ++tag) options.boundary[tag].kind = kinds[tag % 4];
    return options;
  }
};

/// Values of x and y whose bits differ (NaN differs from everything).
std::size_t count_differing(const std::vector<double>& x, const std::vector<double>& y) {
  std::size_t n = x.size() == y.size() ? 0 : std::max(x.size(), y.size());
  for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) n += !(x[i] == y[i]) ? 1 : 0;
  return n;
}

std::size_t count_non_finite(const std::vector<double>& x) {
  return static_cast<std::size_t>(std::count_if(x.begin(), x.end(), [](double v) { return !std::isfinite(v); }));
}

struct Fill {
  View<double> x;
  double value;
  FLOWDG_HD void operator()(index_t i) const { x[i] = value; }
};

/// Fills `bytes` of fresh device memory with `value` and frees it: the next allocations (cudaMalloc
/// hands freed memory out again) start from that content instead of the zeros of memory never used.
void poison_device_memory(std::size_t bytes, double value) {
  Array<double> scratch(Space::device, bytes / sizeof(double));
  for_each(Backend::cuda, static_cast<index_t>(scratch.size()), Fill{scratch.view(), value});
  synchronize(Backend::cuda);
}

struct SetToOne {
  View<double> x;
  FLOWDG_HD void operator()(index_t i) const { x[i] = 1.0; }
};

Mesh deformed(Mesh mesh) {
  for (Point3& x : mesh.nodes) {
    const double bump = 0.04 * std::sin(3.0 * x.x + 1.0) * std::sin(2.0 * x.y + 0.5) * std::cos(1.5 * x.z);
    x = {x.x + bump, x.y - 0.5 * bump, x.z + (mesh.dimension == 3 ? 0.7 * bump : 0.0)};
  }
  return mesh;
}

/// The CPU-agreement tests' meshes: every shape and geometry kind, the vortex's centre in each.
struct CoreCase {
  const char* name;
  Mesh mesh;
  Point3 center;
};
std::vector<CoreCase> core_cases() {
  std::vector<CoreCase> cases;
  cases.push_back({"affine triangles", rectangle_triangles(0, 1, 0, 1, 6, 5, TriangleLayout::perturbed, 0.2, 3), {0.5, 0.5, 0}});
  cases.push_back({"bilinear quadrilaterals", rectangle_quadrilaterals(0, 1, 0, 1, 6, 5, 0.2, 3), {0.5, 0.5, 0}});
  cases.push_back({"mixed (Gmsh)", read_gmsh(FLOWDG_TEST_DATA_DIR "/mixed_msh41.msh"), {1.0, 0.5, 0}});
  cases.push_back({"curved 6-node triangles", read_gmsh(FLOWDG_TEST_DATA_DIR "/annulus_p2_msh41.msh"), {0, 1.2, 0}});
  cases.push_back({"curved 9-node quadrilaterals", deformed(read_gmsh(FLOWDG_TEST_DATA_DIR "/square_quad9_msh41.msh")), {0.5, 0.5, 0}});
  cases.push_back({"affine tetrahedra", box_tetrahedra(1, 1, 1, 2, 2, 2), {0.5, 0.5, 0}});
  cases.push_back({"curved 10-node tetrahedra", deformed(read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_tet_p2_msh41.msh")), {0.5, 0.5, 0}});
  cases.push_back({"trilinear hexahedra", read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_hex_msh41.msh"), {0.5, 0.5, 0}});
  return cases;
}

/// The face kernel of the same kind as an element kernel: a thread per point with the thread element
/// kernel, the block face kernel with the block and tensor ones, else the same name.
std::string face_kernel_for(const std::string& element_kernel) {
  return element_kernel == "thread" ? "point" : element_kernel == "tensor" ? "block" : element_kernel;
}

}  // namespace

TEST(GpuDgCore, CudaAgreesWithTheCpuForEveryShapeGeometryAndPrecision) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  // FLOWDG_CORE_CASES keeps the cases whose name contains it (a racecheck of a few within its limit).
  const char* only = std::getenv("FLOWDG_CORE_CASES");
  for (const CoreCase& c : core_cases()) {
    if (only != nullptr && std::string(c.name).find(only) == std::string::npos) continue;
    const Connectivity connectivity = build_connectivity(c.mesh);
    const physics::FlowSpec flow = vortex(c.mesh.dimension, c.center);
    // The portable element kernels (thread, block, tensor: the FP64 tensor cores in double precision,
    // the block kernel in float), "chunked": the tensor element kernel with the chunked face kernel
    // (3D only), "factorised" (sum factorisation on collocated quadrilaterals, element and face
    // kernels; the block kernels elsewhere), then the registry's automatic choice (the tuned kernels for affine triangles in
    // double precision, the mixed mesh's triangles among them).
    // "variable": both warp-per-variable kernels, the face fluxes as nodal moments where every group
    // takes them (the affine tetrahedra at p = 1..3, boundary faces too); "variable points": the same
    // with FLOWDG_FACE_MOMENTS=0 (the point values).
    for (const char* element_kernel : {"thread", "block", "tensor", "chunked", "factorised", "variable", "variable points", "automatic"})
    // FLOWDG_CORE_KERNELS keeps the element kernels whose name it contains (a sanitizer run of a few).
    if (const char* kernels = std::getenv("FLOWDG_CORE_KERNELS"); kernels == nullptr || std::string(kernels).find(element_kernel) != std::string::npos)
    for (const dg::Precision precision : {dg::Precision::double_precision, dg::Precision::single_precision})
      for (int order = 0; order <= 4; ++order) {
        const bool chunked = std::string(element_kernel) == "chunked";
        if (chunked && c.mesh.dimension == 2) continue;
        dg::OperatorOptions cpu_options = options_for(c.mesh, order, Backend::cpu, precision, flow);
        if (std::string(element_kernel) == "automatic") cpu_options.implementation = dg::Implementation::automatic;
        const auto cpu = dg::make_operator(c.mesh, connectivity, cpu_options);
        dg::OperatorOptions options = options_for(c.mesh, order, Backend::cuda, precision, flow);
        const bool points = std::string(element_kernel) == "variable points";
        const std::string name = points ? "variable" : element_kernel;
        options.element_kernel = chunked ? "tensor" : name;
        options.face_kernel = face_kernel_for(name);
        if (std::string(element_kernel) == "automatic") options.implementation = dg::Implementation::automatic;
        if (points) setenv("FLOWDG_FACE_MOMENTS", "0", 1);
        const auto cuda = dg::make_operator(c.mesh, connectivity, options);
        if (points) unsetenv("FLOWDG_FACE_MOMENTS");
        // The tensor-core kernel runs where it is asked for in double precision, unless its block
        // outgrows the shared memory (curved tetrahedra at p = 4: 145 volume points; hexahedra
        // from p = 2): every 2D case and the affine tetrahedra must run it; in float the affine
        // tetrahedra (3D Euler: the products in double on converted copies, session 45).
        if (name == "tensor" && (std::string(c.name) == "affine tetrahedra" ||
                                 (precision == dg::Precision::double_precision && c.mesh.dimension == 2)))
          EXPECT_NE(cuda->describe().find("tensor-core"), std::string::npos) << c.name << " p = " << order << ": " << cuda->describe();
        // In float its shared rows in float where the rule says so (p = 4, unless FLOWDG_TENSOR_ROWS
        // asks otherwise: a run of this test with FLOWDG_TENSOR_ROWS=double|float checks either).
        if (name == "tensor" && std::string(c.name) == "affine tetrahedra")
          EXPECT_EQ(cuda->describe().find("shared rows in float") != std::string::npos,
                    precision == dg::Precision::single_precision && dg::tensor_float_rows(order))
              << c.name << " p = " << order << ": " << cuda->describe();
        // Double rows compact where the rule says so (p = 4; FLOWDG_TENSOR_COMPACT=0|1 checks either).
        if (name == "tensor" && std::string(c.name) == "affine tetrahedra")
          EXPECT_EQ(cuda->describe().find("coefficients inside the flux rows") != std::string::npos,
                    !(precision == dg::Precision::single_precision && dg::tensor_float_rows(order)) && dg::tensor_compact(order))
              << c.name << " p = " << order << ": " << cuda->describe();
        // The element kernel with a warp per variable runs the affine tetrahedra where asked for, at
        // p = 1..3 in both precisions (3D Euler: the other physics have their own tests' kernels).
        if (name == "variable" && std::string(c.name) == "affine tetrahedra") {
          EXPECT_EQ(cuda->describe().find("element kernel with a warp per variable") != std::string::npos, order >= 1 && order <= 3)
              << c.name << " p = " << order << ": " << cuda->describe();
          // and its face kernel on the interior faces at p = 1..4
          EXPECT_EQ(cuda->describe().find("face kernel with a warp per variable on ") != std::string::npos, order >= 1)
              << c.name << " p = " << order << ": " << cuda->describe();
          // the face fluxes as nodal moments where both run (p = 1..3), and at p = 4 (both precisions)
          // where the element kernel is the tensor-core one (it reads moments too), at the orders the
          // rule takes, unless turned off
          const bool double_precision = precision == dg::Precision::double_precision;
          EXPECT_EQ(cuda->describe().find("fluxes as nodal moments") != std::string::npos,
                    !points && order >= 1 && order <= 4 &&
                        dg::face_moments_chosen(order, double_precision))
              << c.name << " p = " << order << ": " << cuda->describe();
        }
        // The sum-factorised element kernel runs the bilinear quadrilaterals (collocated: their Gauss
        // points) where asked for and by "automatic", in both precisions, from p = 1.
        if ((name == "factorised" || name == "automatic") && std::string(c.name) == "bilinear quadrilaterals" && order >= 1) {
          EXPECT_NE(cuda->describe().find("sum-factorised element kernel"), std::string::npos) << c.name << " p = " << order << ": " << cuda->describe();
          const bool faces = name == "factorised" || dg::automatic_factorised_faces(order);  // (factorised.hpp)
          EXPECT_EQ(cuda->describe().find("sum-factorised face kernel") != std::string::npos, faces) << c.name << " p = " << order << ": " << cuda->describe();
        }
        // The chunked face kernel runs the interior faces where its block fits in shared memory: at
        // every order on the affine tetrahedra (elsewhere the point kernel may take over: hexahedra).
        if (chunked && std::string(c.name) == "affine tetrahedra") EXPECT_NE(cuda->describe().find("chunked face kernel"), std::string::npos) << c.name << " p = " << order << ": " << cuda->describe();
        cpu->project(flow, 0.0);
        cuda->set_coefficients(cpu->coefficients());
        const gpu_test::CpuCudaAgreement agreement = gpu_test::step_cpu_and_cuda(*cpu, *cuda, scheme);
        const double size = agreement.size, difference = agreement.difference;
        const double residual_size = agreement.residual_size, residual_difference = agreement.residual_difference;
        // Rounding differs between the CPU and the GPU (fused multiply-adds): 1e-12 of the state
        // in double, 1e-5 in float.
        const double tolerance = precision == dg::Precision::double_precision ? 1e-12 : 1e-5;
        EXPECT_LT(difference, tolerance * size) << c.name << " p = " << order << " " << element_kernel << " " << cuda->describe();
        EXPECT_LT(residual_difference, tolerance * 100 * residual_size) << c.name << " p = " << order << " " << element_kernel;
        std::printf("cpu - cuda %s p = %d %s, element %s: state %.2e, residual %.2e (relative)\n", c.name, order,
                    precision == dg::Precision::double_precision ? "double" : "float", element_kernel, difference / size,
                    residual_difference / residual_size);
        std::fflush(stdout);  // a sanitizer run cut off by its time limit still shows how far it got
      }
  }
}

// solver.volume_quadrature = "2p-1" (fewer volume points: tetrahedra 14 instead of 24 at p = 3, 35
// instead of 46 at p = 4): every kernel that takes a group's rule as it comes runs it and gives the
// CPU's numbers; the warp-per-variable element kernel, built for the 2p rules, steps aside (the
// tensor-core or block kernel takes its groups), which the description says.
TEST(GpuDgCore, CudaAgreesWithTheCpuUnderTheVolumeRuleOfDegreeTwoPMinusOne) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  for (const CoreCase& c : core_cases()) {
    const std::string case_name = c.name;
    if (case_name != "affine tetrahedra" && case_name != "curved 10-node tetrahedra" && case_name != "affine triangles") continue;
    const bool curved = case_name.starts_with("curved");
    const Connectivity connectivity = build_connectivity(c.mesh);
    const physics::FlowSpec flow = vortex(c.mesh.dimension, c.center);
    for (const char* element_kernel : {"thread", "block", "tensor", "variable", "automatic"})
      for (const dg::Precision precision : {dg::Precision::double_precision, dg::Precision::single_precision})
        for (int order = 1; order <= 4; ++order) {
          dg::OperatorOptions cpu_options = options_for(c.mesh, order, Backend::cpu, precision, flow);
          cpu_options.volume_degree_shift = -1;
          const auto cpu = dg::make_operator(c.mesh, connectivity, cpu_options);
          dg::OperatorOptions options = options_for(c.mesh, order, Backend::cuda, precision, flow);
          options.volume_degree_shift = -1;
          options.element_kernel = element_kernel;
          options.face_kernel = face_kernel_for(element_kernel);
          if (std::string(element_kernel) == "automatic") options.implementation = dg::Implementation::automatic;
          const auto cuda = dg::make_operator(c.mesh, connectivity, options);
          const std::string described = cuda->describe();
          const int degree = dg::volume_rule(c.mesh.dimension == 3 ? Shape::tetrahedron : Shape::triangle,
                                             curved ? dg::GeometryKind::curved : dg::GeometryKind::affine, order, curved ? 2 : 1, -1)
                                 .degree;
          EXPECT_NE(described.find(cat("exact to degree ", degree)), std::string::npos) << c.name << " p = " << order << ": " << described;
          EXPECT_EQ(described.find("element kernel with a warp per variable"), std::string::npos) << c.name << " p = " << order << ": " << described;
          if (std::string(element_kernel) == "tensor" && std::string(c.name) == "affine tetrahedra")
            EXPECT_NE(described.find("tensor-core element kernel"), std::string::npos) << c.name << " p = " << order << ": " << described;
          cpu->project(flow, 0.0);
          cuda->set_coefficients(cpu->coefficients());
          const gpu_test::CpuCudaAgreement agreement = gpu_test::step_cpu_and_cuda(*cpu, *cuda, scheme);
          const double tolerance = precision == dg::Precision::double_precision ? 1e-12 : 1e-5;
          EXPECT_LT(agreement.difference, tolerance * agreement.size) << c.name << " p = " << order << " " << element_kernel << " " << described;
          EXPECT_LT(agreement.residual_difference, tolerance * 100 * agreement.residual_size) << c.name << " p = " << order << " " << element_kernel;
          std::printf("volume rule 2p - 1, cpu - cuda %s p = %d %s, element %s: state %.2e, residual %.2e (relative)\n", c.name, order,
                      precision == dg::Precision::double_precision ? "double" : "float", element_kernel, agreement.difference / agreement.size,
                      agreement.residual_difference / agreement.residual_size);
          std::fflush(stdout);
        }
  }
}

// 3D Euler's interior block and chunked face kernels are built once per numerical flux (the kind a
// launch argument elsewhere): each of Rusanov, HLLC and Roe gives the CPU's residual and steps on
// affine and curved tetrahedra at every order, through its own kernel. The projected vortex gets
// 2% pseudo-random noise on every coefficient, so that the traces jump at every face and the three
// solvers' residuals differ far above rounding: a wrong dispatch (another solver's kernel) fails.
TEST(GpuDgCore, EachRiemannSolverHasItsOwnThreeDimensionalFaceKernel) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  struct Case {
    const char* name;
    Mesh mesh;
  };
  std::vector<Case> cases;
  cases.push_back({"affine tetrahedra", box_tetrahedra(1, 1, 1, 2, 2, 2)});
  cases.push_back({"curved 10-node tetrahedra", deformed(read_gmsh(FLOWDG_TEST_DATA_DIR "/cube_tet_p2_msh41.msh"))});
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  double smallest_gap = 1e300;  // between two solvers' residuals: what a wrong dispatch would show
  for (const Case& c : cases) {
    const Connectivity connectivity = build_connectivity(c.mesh);
    const physics::FlowSpec flow = vortex(3, {0.5, 0.5, 0});
    for (const dg::Precision precision : {dg::Precision::double_precision, dg::Precision::single_precision})
      // "moments": both warp-per-variable kernels, the face fluxes as nodal moments (p = 1..3, forced
      // by FLOWDG_FACE_MOMENTS=1; the boundary faces' kernel with moments, a kernel per solver too);
      // "tensor moments": the tensor-core element kernel reading the moments (p = 1..4; in float
      // since session 45, its products in double) from the same face kernels; "... buffer": the same
      // with the interior faces' traces from the trace buffer (FLOWDG_TRACE_BUFFER=1: the traces at
      // the face nodes computed element-wise at the stage's start, read through the orientations'
      // permutations of the nodes); "tensor moments fused buffer" (FLOWDG_TRACE_BUFFER=2): the
      // tensor-core element kernel writes them as it updates the coefficients (the first stage's by
      // the trace kernel: set_coefficients leaves the buffer stale); "... point buffer"
      // (FLOWDG_TRACE_POINTS=1): the buffer holds the traces at the face points (the face kernel's
      // own point kernel, read through the points' permutations); "tensor moments copy"
      // (FLOWDG_TRACE_BUFFER=3, p = 3, the default there in double): the trace buffer holds the
      // coefficients' element-major copy (a copy kernel at each stage's start), which the interior
      // faces' kernel on the FP64 tensor cores reads, the faces by window; "tensor moments element-major"
      // (FLOWDG_TRACE_BUFFER=4, p = 3): that face kernel reads the element kernel's element-major state itself.
      // "moments node traces" (FLOWDG_FACE_TRACES=2 while it steps, p = 1..3): the interior faces' kernel
      // evaluates each side's trace at the face's nodes, then at the points through the nodes' Lagrange
      // basis — the default in double at p = 1, 2 and in float at p = 1, an A/B variant elsewhere;
      // "moments pair traces" (FLOWDG_FACE_TRACES=1): the point table two basis functions at a time, the
      // default at p = 3 and float p = 2 (so float p = 1's and double p = 1, 2's are checked here).
      // "moments shared primitives" / "moments own primitives" (FLOWDG_VARIABLE_PRIMITIVES=1 / 0 while it
      // steps, p = 1, 2): the warp-per-variable element kernel's velocity and pressure computed once an
      // element and point and shared (the default at p = 1), or by each variable's warp (p = 2's);
      // "moments chained sums" / "moments summed products" (FLOWDG_VARIABLE_SUMS=1 / 0, p = 1, 2): that
      // kernel's volume sums, each direction's product added in turn or their sum added.
      for (const char* faces : {"block", "chunked", "variable", "moments", "moments node traces", "moments pair traces",
                                "moments shared primitives", "moments own primitives", "moments chained sums", "moments summed products",
                                "tensor moments", "moments buffer", "tensor moments buffer",
                                "tensor moments fused buffer", "moments point buffer", "tensor moments fused point buffer",
                                "tensor moments copy", "tensor moments element-major"})
        for (int order = 1; order <= 4; ++order) {
          const bool copy = std::string(faces).find("copy") != std::string::npos;
          const bool major = std::string(faces).find("element-major") != std::string::npos;
          if ((copy || major) && order != 3) continue;  // (the face tensor kernel's order)
          const bool buffer = std::string(faces).find("buffer") != std::string::npos;
          const bool fused = std::string(faces).find("fused") != std::string::npos;
          const bool points = std::string(faces).find("point buffer") != std::string::npos;
          const bool tensor_moments = std::string(faces).find("tensor moments") == 0;
          const bool moments = std::string(faces).find("moments") != std::string::npos;
          if (moments && !tensor_moments && order > 3) continue;
          // The A/B switch set while the case steps (read at each launch), and the orders it is built for.
          struct SteppingSwitch {
            const char* words;
            const char* variable;
            const char* value;
            int highest_order;
          };
          static constexpr SteppingSwitch stepping_switches[] = {
              {"node traces", "FLOWDG_FACE_TRACES", "2", 3},          {"pair traces", "FLOWDG_FACE_TRACES", "1", 3},
              {"shared primitives", "FLOWDG_VARIABLE_PRIMITIVES", "1", 2}, {"own primitives", "FLOWDG_VARIABLE_PRIMITIVES", "0", 2},
              {"chained sums", "FLOWDG_VARIABLE_SUMS", "1", 2},       {"summed products", "FLOWDG_VARIABLE_SUMS", "0", 2}};
          const SteppingSwitch* stepping_switch = nullptr;
          for (const SteppingSwitch& candidate : stepping_switches)
            if (std::string(faces).find(candidate.words) != std::string::npos) stepping_switch = &candidate;
          if (stepping_switch != nullptr && order > stepping_switch->highest_order) continue;
          std::vector<std::vector<double>> residuals;
          for (const physics::RiemannKind riemann :
               {physics::RiemannKind::rusanov, physics::RiemannKind::hllc, physics::RiemannKind::roe}) {
            dg::OperatorOptions cpu_options = options_for(c.mesh, order, Backend::cpu, precision, flow);
            cpu_options.flux = riemann;
            const auto cpu = dg::make_operator(c.mesh, connectivity, cpu_options);
            dg::OperatorOptions options = options_for(c.mesh, order, Backend::cuda, precision, flow);
            options.flux = riemann;
            options.element_kernel = tensor_moments ? "tensor" : moments ? "variable" : "thread";
            options.face_kernel = moments ? "variable" : faces;
            if (moments) setenv("FLOWDG_FACE_MOMENTS", "1", 1);  // at p = 2 too, where the rule does not take them
            setenv("FLOWDG_TRACE_BUFFER", major ? "4" : copy ? "3" : fused ? "2" : buffer ? "1" : "0", 1);
            setenv("FLOWDG_TRACE_POINTS", points ? "1" : "0", 1);
            const auto cuda = dg::make_operator(c.mesh, connectivity, options);
            if (moments) unsetenv("FLOWDG_FACE_MOMENTS");
            unsetenv("FLOWDG_TRACE_BUFFER");
            unsetenv("FLOWDG_TRACE_POINTS");
            if (std::string(c.name) == "affine tetrahedra" && tensor_moments)
              EXPECT_NE(cuda->describe().find("tensor-core"), std::string::npos) << cuda->describe();
            // the trace buffer exactly where asked for and the face moments run (every face group
            // the warp-per-variable face kernel: the affine tetrahedra)
            EXPECT_EQ(cuda->describe().find("traces from the trace buffer") != std::string::npos, buffer && std::string(c.name) == "affine tetrahedra")
                << c.name << " p = " << order << " " << faces << ": " << cuda->describe();
            EXPECT_EQ(cuda->describe().find("written by the element kernel") != std::string::npos, fused && std::string(c.name) == "affine tetrahedra")
                << c.name << " p = " << order << " " << faces << ": " << cuda->describe();
            EXPECT_EQ(cuda->describe().find("trace buffer at the face points") != std::string::npos, points && std::string(c.name) == "affine tetrahedra")
                << c.name << " p = " << order << " " << faces << ": " << cuda->describe();
            EXPECT_EQ(cuda->describe().find("coefficients' element-major copy") != std::string::npos, copy && std::string(c.name) == "affine tetrahedra")
                << c.name << " p = " << order << " " << faces << ": " << cuda->describe();
            EXPECT_EQ(cuda->describe().find("element-major state itself") != std::string::npos, major && std::string(c.name) == "affine tetrahedra")
                << c.name << " p = " << order << " " << faces << ": " << cuda->describe();
            if (std::string(c.name) == "affine tetrahedra")
              EXPECT_NE(cuda->describe().find(moments                             ? std::string("fluxes as nodal moments")
                                              : std::string(faces) == "variable" ? std::string("face kernel with a warp per variable")
                                                                                 : std::string(faces) + " face kernel"),
                        std::string::npos)
                  << cuda->describe();
            cpu->project(flow, 0.0);
            std::vector<double> rough = cpu->coefficients();
            std::uint32_t seed = 12345;
            for (double& x : rough) {
              seed = seed * 1664525u + 1013904223u;
              x *= 1.0 + 0.02 * (static_cast<double>(seed >> 8) / 8388608.0 - 1.0);
            }
            cpu->set_coefficients(rough);
            cuda->set_coefficients(rough);
            if (stepping_switch != nullptr) setenv(stepping_switch->variable, stepping_switch->value, 1);
            const gpu_test::CpuCudaAgreement agreement = gpu_test::step_cpu_and_cuda(*cpu, *cuda, scheme);
            if (stepping_switch != nullptr) unsetenv(stepping_switch->variable);
            const double size = agreement.size, difference = agreement.difference;
            const double residual_size = agreement.residual_size, residual_difference = agreement.residual_difference;
            const double tolerance = precision == dg::Precision::double_precision ? 1e-12 : 1e-5;
            EXPECT_LT(difference, tolerance * size) << c.name << " p = " << order << " " << faces << " " << physics::riemann_kind_name(riemann);
            EXPECT_LT(residual_difference, tolerance * 100 * residual_size)
                << c.name << " p = " << order << " " << faces << " " << physics::riemann_kind_name(riemann);
            std::printf("cpu - cuda %s p = %d %s, %s faces, %s: state %.2e, residual %.2e (relative)\n", c.name, order,
                        precision == dg::Precision::double_precision ? "double" : "float", faces,
                        physics::riemann_kind_name(riemann), difference / size, residual_difference / residual_size);
            residuals.push_back(agreement.cpu_residual);
          }
          for (std::size_t x = 0; x < residuals.size(); ++x)
            for (std::size_t y = x + 1; y < residuals.size(); ++y) {
              double gap = 0, size = 0;
              for (std::size_t i = 0; i < residuals[x].size(); ++i) {
                gap = std::max(gap, std::abs(residuals[x][i] - residuals[y][i]));
                size = std::max(size, std::abs(residuals[x][i]));
              }
              smallest_gap = std::min(smallest_gap, gap / size);
            }
        }
  }
  // The solvers must differ well above the tolerance, or the test could not see a wrong dispatch.
  EXPECT_GT(smallest_gap, 1e-3);
  std::printf("smallest relative gap between two solvers' residuals: %.2e\n", smallest_gap);
}

// The element-major state (FLOWDG_TRACE_BUFFER=4, p = 3: the tensor-core element kernel's groups hold
// u, u0, q and the residual as [(e 5 + v) Np + j], which the interior faces' kernel on the FP64 tensor
// cores reads as they are) against the copy (3: the same layout copied from [(v Np + j) Ks + e] at each
// stage's start): the same arithmetic on the same values, so the same bits through everything that
// reads or writes the state — the coefficients set and read back, RK4 steps, the stable step, the
// residual and its norms, local time steps, p-multigrid's transfers to and from a p = 2 level (the
// layouts differ between the levels), the snapshot, the errors and the totals — in double rows and in
// float storage (float rows, narrow blocks), on a box with far-field boundaries (the boundary faces'
// kernel reads the element-major coefficients too).
TEST(GpuDgCore, TheElementMajorStateGivesTheCopysBits) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const Mesh mesh = box_tetrahedra(1, 1, 1, 3, 3, 3, 0.2, 5);
  const Connectivity connectivity = build_connectivity(mesh);
  const physics::FlowSpec flow = vortex(3, {0.5, 0.5, 0});
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  const auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return std::size_t(1) << 40;
    std::size_t differing = 0;
    for (std::size_t i = 0; i < a.size(); ++i) differing += a[i] != b[i] ? 1 : 0;
    return differing;
  };
  for (const dg::Precision precision : {dg::Precision::double_precision, dg::Precision::single_precision}) {
    const char* name = precision == dg::Precision::double_precision ? "double" : "float";
    dg::OperatorOptions options = options_for(mesh, 3, Backend::cuda, precision, flow);
    options.flux = physics::RiemannKind::rusanov;
    options.element_kernel = "tensor";
    options.face_kernel = "variable";
    std::unique_ptr<dg::Operator> ops[2], coarse[2];
    for (int m = 0; m < 2; ++m) {
      setenv("FLOWDG_TRACE_BUFFER", m == 0 ? "3" : "4", 1);
      ops[m] = dg::make_operator(mesh, connectivity, options);
      unsetenv("FLOWDG_TRACE_BUFFER");
      dg::OperatorOptions lower = options;
      lower.order = 2;
      coarse[m] = dg::make_operator(mesh, connectivity, lower);
    }
    const std::string copy = ops[0]->describe(), major = ops[1]->describe();
    EXPECT_NE(copy.find("coefficients' element-major copy"), std::string::npos) << name << ": " << copy;
    EXPECT_NE(major.find("element-major state itself"), std::string::npos) << name << ": " << major;
    EXPECT_EQ(major.find("coefficients' element-major copy"), std::string::npos) << name << ": " << major;
    ops[0]->project(flow, 0.0);
    std::vector<double> start = ops[0]->coefficients();
    std::uint32_t seed = 777;  // (noise: the traces jump at every face)
    for (double& x : start) {
      seed = seed * 1664525u + 1013904223u;
      x *= 1.0 + 0.02 * (static_cast<double>(seed >> 8) / 8388608.0 - 1.0);
    }
    for (auto& op : ops) op->set_coefficients(start);
    EXPECT_EQ(same(ops[0]->coefficients(), ops[1]->coefficients()), 0u) << name << ": set and read back";
    if (precision == dg::Precision::double_precision) EXPECT_EQ(same(ops[1]->coefficients(), start), 0u) << name << ": set and read back";
    EXPECT_EQ(ops[0]->stable_time_step(0.3), ops[1]->stable_time_step(0.3)) << name;
    const double dt = 0.5 * ops[0]->stable_time_step(0.2);
    for (int step = 0; step < 3; ++step)
      for (auto& op : ops) op->step(scheme, step * dt, dt);
    const std::vector<double> stepped = ops[0]->coefficients();
    EXPECT_EQ(same(stepped, ops[1]->coefficients()), 0u) << name << ": RK4 steps";
    EXPECT_GT(same(stepped, start), stepped.size() / 2) << name << ": the steps changed the state";
    EXPECT_EQ(same(ops[0]->residual(3 * dt), ops[1]->residual(3 * dt)), 0u) << name << ": the residual";
    EXPECT_EQ(same(ops[0]->residual_norms(3 * dt), ops[1]->residual_norms(3 * dt)), 0u) << name << ": the residual's norms";
    for (auto& op : ops) op->save_snapshot();
    EXPECT_EQ(same(ops[0]->snapshot(), ops[1]->snapshot()), 0u) << name << ": the snapshot";
    EXPECT_EQ(same(ops[0]->snapshot(), stepped), 0u) << name << ": the snapshot";
    const double local0 = ops[0]->set_local_time_steps(0.3), local1 = ops[1]->set_local_time_steps(0.3);
    EXPECT_EQ(local0, local1) << name;
    for (auto& op : ops) op->step(scheme, 3 * dt, local0);
    EXPECT_EQ(same(ops[0]->coefficients(), ops[1]->coefficients()), 0u) << name << ": a step with local time steps";
    // p-multigrid: restrict to p = 2, a forced step there with its local steps, prolongate back
    for (int m = 0; m < 2; ++m) {
      coarse[m]->restrict_from(*ops[m], 0.0);
      coarse[m]->step(scheme, 0.0, coarse[m]->set_local_time_steps(0.3));
      coarse[m]->prolongate_to(*ops[m]);
    }
    EXPECT_EQ(same(coarse[0]->coefficients(), coarse[1]->coefficients()), 0u) << name << ": the coarse level";
    EXPECT_EQ(same(ops[0]->coefficients(), ops[1]->coefficients()), 0u) << name << ": prolongated";
    for (auto& op : ops) op->step(scheme, 3 * dt, local0);
    EXPECT_EQ(same(ops[0]->coefficients(), ops[1]->coefficients()), 0u) << name << ": a forced step after the transfers";
    const dg::Norms e0 = ops[0]->errors(flow, 0.0), e1 = ops[1]->errors(flow, 0.0);
    EXPECT_EQ(same(e0.l2, e1.l2), 0u) << name << ": the errors";
    EXPECT_EQ(same(ops[0]->totals(), ops[1]->totals()), 0u) << name << ": the totals";
  }
}

// Every launch of a step goes on the operator's own stream: while another (blocking) stream captures
// in global mode, anything on the legacy default stream is an error (checked first, so this test
// can fail), and a step of the portable operator and of the tuned triangle operator makes none.
TEST(GpuDgCore, TheBoundaryStreamGivesTheSameBitsOnTetrahedra) {
  // 3D Euler on tetrahedra with far-field boundaries: the boundary face groups on a second stream
  // (boundary_stream_allowed: the 3D default) against one stream: the same kernels on the same data,
  // so the same bits, at every order and kernel family (thread or block elements; point, block and
  // chunked faces; tensor-core elements at p = 3, 4 in double). An element kernel that read a face's
  // flux before its boundary group wrote it, or a boundary group that read the coefficients before
  // the last stage's element kernel wrote them, would differ.
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const Mesh mesh = box_tetrahedra(1, 1, 1, 5, 5, 5, 0.1, 7);
  const Connectivity connectivity = build_connectivity(mesh);
  const physics::FlowSpec flow = vortex(3, {0.5, 0.5, 0});
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  for (const char* element_kernel : {"automatic", "thread"})  // (a mesh this small takes the block kernel by automatic)
  for (const dg::Precision precision : {dg::Precision::double_precision, dg::Precision::single_precision})
    for (int order = 0; order <= 4; ++order) {
      dg::OperatorOptions options = options_for(mesh, order, Backend::cuda, precision, flow);
      options.implementation = dg::Implementation::automatic;
      options.element_kernel = element_kernel;
      const auto overlapped = dg::make_operator(mesh, connectivity, options);
      setenv("FLOWDG_BOUNDARY_STREAM", "0", 1);
      const auto plain = dg::make_operator(mesh, connectivity, options);
      unsetenv("FLOWDG_BOUNDARY_STREAM");
      plain->project(flow, 0.0);
      overlapped->set_coefficients(plain->coefficients());
      const std::vector<double> start = plain->coefficients();
      const double dt = 0.5 * plain->stable_time_step(0.2);
      double t = 0;
      for (int step = 0; step < 3; ++step, t += dt) {
        plain->step(scheme, t, dt);
        overlapped->step(scheme, t, dt);
      }
      const std::vector<double> a = plain->coefficients(), b = overlapped->coefficients();
      ASSERT_EQ(a.size(), b.size());
      std::size_t differing = 0;
      double change = 0;
      for (std::size_t i = 0; i < a.size(); ++i) {
        differing += a[i] != b[i] ? 1 : 0;
        change = std::max(change, std::abs(a[i] - start[i]));
      }
      EXPECT_EQ(differing, 0u) << element_kernel << " p = " << order << (precision == dg::Precision::double_precision ? " double" : " float") << ": "
                               << overlapped->describe();
      EXPECT_GT(change, 0) << "p = " << order << ": the steps changed nothing";
    }
}

TEST(GpuDgCore, BatchedBoundaryFaceGroupsGiveTheSameBitsOnTetrahedra) {
  // 3D Euler on tetrahedra: the six sides of a box, each a boundary face group of its own size, under
  // four conditions (far field, slip wall, prescribed state, supersonic outflow), on the variable face
  // kernel (the automatic kernels at p = 1..4): the runs of boundary groups in one launch
  // (boundary_batch, the default) against one launch a group (FLOWDG_BOUNDARY_BATCH=0). Each block
  // takes one group's faces with that group's condition and flux rows: the same bits. A block that
  // took another group's kernel, faces or rows would differ.
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const FourConditionBox box;
  ASSERT_EQ(box.mesh.boundary_names.size(), 6u);
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  for (const dg::Precision precision : {dg::Precision::double_precision, dg::Precision::single_precision})
    for (int order = 1; order <= 4; ++order) {
      const dg::OperatorOptions options = box.options(order, precision);
      const auto batched = dg::make_operator(box.mesh, box.connectivity, options);
      setenv("FLOWDG_BOUNDARY_BATCH", "0", 1);
      const auto plain = dg::make_operator(box.mesh, box.connectivity, options);
      unsetenv("FLOWDG_BOUNDARY_BATCH");
      EXPECT_NE(batched->describe().find("its 6 boundary groups in 1 launch"), std::string::npos) << batched->describe();
      EXPECT_EQ(plain->describe().find("boundary groups in"), std::string::npos) << plain->describe();
      plain->project(box.flow, 0.0);
      batched->set_coefficients(plain->coefficients());
      const std::vector<double> start = plain->coefficients();
      const double dt = 0.5 * plain->stable_time_step(0.2);
      double t = 0;
      for (int step = 0; step < 3; ++step, t += dt) {
        plain->step(scheme, t, dt);
        batched->step(scheme, t, dt);
      }
      const std::vector<double> a = plain->coefficients(), b = batched->coefficients();
      double change = 0;
      for (std::size_t i = 0; i < a.size(); ++i) change = std::max(change, std::abs(a[i] - start[i]));
      EXPECT_EQ(count_differing(a, b), 0u) << "p = " << order << (precision == dg::Precision::double_precision ? " double" : " float") << ": "
                                           << batched->describe();
      EXPECT_EQ(count_non_finite(a), 0u) << "p = " << order;
      EXPECT_GT(change, 0) << "p = " << order << ": the steps changed nothing";
    }
}

TEST(GpuDgCore, AnOperatorsStepsReadNoMemoryItDidNotWrite) {
  // 3D Euler on tetrahedra at p = 1..4, both precisions, the automatic kernels (p = 3: the element-major
  // state), boundary groups under four conditions: two operators built on device memory poisoned with
  // different values (a huge number, then NaN) take the same residual and the same RK4 steps bit for
  // bit. A kernel that read an array's unwritten part (padding, a register before its first store)
  // would differ, or give NaN.
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const FourConditionBox box;
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  for (const char* trace_mode : {"", "3"})
  for (const dg::Precision precision : {dg::Precision::double_precision, dg::Precision::single_precision})
    for (int order = 1; order <= 4; ++order) {
      if (*trace_mode != 0 && order != 3) continue;
      const dg::OperatorOptions options = box.options(order, precision);
      if (*trace_mode != 0) setenv("FLOWDG_TRACE_BUFFER", trace_mode, 1);
      poison_device_memory(std::size_t{256} << 20, 1e300);
      const auto a = dg::make_operator(box.mesh, box.connectivity, options);
      a->project(box.flow, 0.0);
      poison_device_memory(std::size_t{256} << 20, std::nan(""));
      const auto b = dg::make_operator(box.mesh, box.connectivity, options);
      b->project(box.flow, 0.0);
      unsetenv("FLOWDG_TRACE_BUFFER");
      const std::string what = cat("p = ", order, precision == dg::Precision::double_precision ? " double" : " float",
                                   *trace_mode != 0 ? cat(" FLOWDG_TRACE_BUFFER=", trace_mode) : std::string(), ": ", b->describe());
      EXPECT_EQ(count_differing(a->coefficients(), b->coefficients()), 0u) << "projected: " << what;
      EXPECT_EQ(count_differing(a->residual(0.0), b->residual(0.0)), 0u) << "residual: " << what;
      const double dt = 0.5 * a->stable_time_step(0.2);
      double t = 0;
      for (int step = 0; step < 3; ++step, t += dt) {
        a->step(scheme, t, dt);
        b->step(scheme, t, dt);
        const std::vector<double> x = a->coefficients(), y = b->coefficients();
        EXPECT_EQ(count_differing(x, y), 0u) << "step " << step << ": " << what;
        EXPECT_EQ(count_non_finite(x), 0u) << "step " << step << ": " << what;
      }
    }
}

TEST(GpuDgCore, StepsLaunchOnTheOperatorsStreamOnly) {
  FLOWDG_REQUIRE_CUDA_DEVICE();
  const RungeKuttaScheme scheme = runge_kutta_scheme("lsrk54");  // no state copies, only kernels
  struct Case {
    const char* name;
    Mesh mesh;
    dg::Implementation implementation;
  };
  std::vector<Case> cases;
  cases.push_back({"portable, mixed", read_gmsh(FLOWDG_TEST_DATA_DIR "/mixed_msh41.msh"), dg::Implementation::portable});
  cases.push_back({"tuned, triangles", rectangle_triangles(0, 1, 0, 1, 6, 5, TriangleLayout::perturbed, 0.2, 3),
                   dg::Implementation::tuned});
  cudaStream_t capturing = nullptr;
  FLOWDG_CUDA_CHECK(cudaStreamCreate(&capturing));
  const auto capture_around = [&](auto&& work) {
    FLOWDG_CUDA_CHECK(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeGlobal));
    bool threw = false;
    try {
      work();
    } catch (const std::exception&) {
      threw = true;
    }
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(capturing, &graph);
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();
    return !threw && end == cudaSuccess;
  };
  Array<double> scratch(Space::device, 1024);
  const View<double> x = scratch.view();
  EXPECT_FALSE(capture_around([&] {
    for_each(Backend::cuda, 1024, SetToOne{x});
    synchronize(Backend::cuda);
  })) << "a launch on the legacy default stream went unnoticed: this test cannot see one";
  for (const Case& c : cases) {
    const Connectivity connectivity = build_connectivity(c.mesh);
    const physics::FlowSpec flow = vortex(2, {0.5, 0.5, 0});
    dg::OperatorOptions options = options_for(c.mesh, 2, Backend::cuda, dg::Precision::double_precision, flow);
    options.implementation = c.implementation;
    const auto op = dg::make_operator(c.mesh, connectivity, options);
    op->project(flow, 0.0);
    const double dt = op->stable_time_step(0.2);
    op->step(scheme, 0.0, dt);  // allocates the registers
    synchronize(Backend::cuda);
    EXPECT_TRUE(capture_around([&] { op->step(scheme, dt, dt); })) << c.name << ": " << op->implementation();
    synchronize(Backend::cuda);
  }
  FLOWDG_CUDA_CHECK(cudaStreamDestroy(capturing));
}

TEST(GpuDgCore, PortableThroughputOnAMillionElements) {
  // Measurement for docs/performance.md: DOF-stage updates per second of the portable kernels
  // (RK4, HLLC) per shape and geometry kind: minutes, so it runs only when asked for
  // (scripts/gpu-session.sh CORE_BENCH=1).
  FLOWDG_REQUIRE_CUDA_DEVICE();
  // FLOWDG_CORE_BENCH=1 runs it; another value (not 0) keeps only the meshes whose name contains it;
  // unset or 0 skips it.
  const char* flag = std::getenv("FLOWDG_CORE_BENCH");
  if (flag == nullptr || std::string(flag).empty() || std::string(flag) == "0")
    GTEST_SKIP() << "a measurement, not a check: FLOWDG_CORE_BENCH=1 runs it";
  const std::string only = std::string(flag) != "1" ? flag : "";
  struct Case {
    const char* name;
    Mesh mesh;
    Point3 center;
  };
  std::vector<Case> cases;
  cases.push_back({"affine triangles 1.0M", rectangle_triangles(0, 10, 0, 10, 724, 724, TriangleLayout::alternating), {5, 5, 0}});
  cases.push_back({"bilinear quadrilaterals 1.0M", rectangle_quadrilaterals(0, 10, 0, 10, 1000, 1000, 0.2, 3), {5, 5, 0}});
  cases.push_back({"curved 6-node triangles 1.0M",
                   deformed(elevate_order(rectangle_triangles(0, 10, 0, 10, 724, 724, TriangleLayout::alternating), 2)), {5, 5, 0}});
  cases.push_back({"affine tetrahedra 1.0M", box_tetrahedra(10, 10, 10, 55, 55, 55), {5, 5, 0}});
  const RungeKuttaScheme scheme = runge_kutta_scheme("rk4");
  const double copy = copy_bandwidth(Backend::cuda, 1 << 27);  // 1 GiB of doubles read and written
  std::printf("copy bandwidth %.0f GB/s\n", 1e-9 * copy);
  for (const Case& c : cases) {
    if (!only.empty() && std::string(c.name).find(only) == std::string::npos) continue;
    const Connectivity connectivity = build_connectivity(c.mesh);
    const physics::FlowSpec flow = vortex(c.mesh.dimension, c.center);
    for (int order = 1; order <= 4; ++order)
    for (const auto& [element_kernel, face_kernel] : {std::pair<const char*, const char*>{"thread", "point"}, {"block", "point"}, {"block", "block"},
                                                      {"tensor", "point"}, {"tensor", "block"}}) {
      // FLOWDG_CORE_VARIANTS="tensor/block,block/block" keeps those (element/face) pairs only.
      const char* variants = std::getenv("FLOWDG_CORE_VARIANTS");
      if (variants != nullptr && std::string(variants).find(std::string(element_kernel) + "/" + face_kernel) == std::string::npos) continue;
      dg::OperatorOptions options = options_for(c.mesh, order, Backend::cuda, dg::Precision::double_precision, flow);
      options.element_kernel = element_kernel;
      options.face_kernel = face_kernel;
      const auto op = dg::make_operator(c.mesh, connectivity, options);
      op->project(flow, 0.0);
      const double dt = 0.1 * op->stable_time_step(0.2);
      op->step(scheme, 0.0, dt);  // warm-up
      synchronize(Backend::cuda);
      const int steps = 5;
      const auto start = std::chrono::steady_clock::now();
      for (int step = 0; step < steps; ++step) op->step(scheme, dt * (step + 1), dt);
      synchronize(Backend::cuda);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double moved = op->stage_bytes(scheme) * scheme.n_stages() * steps / seconds;
      std::printf("portable throughput %s p = %d element %s faces %s: %.3e DSU/s (%lld elements, %.3f ms per step), model %.0f GB/s = %.0f%% of copy\n",
                  c.name, order, element_kernel, face_kernel, static_cast<double>(op->dof()) * scheme.n_stages() * steps / seconds,
                  static_cast<long long>(op->n_elements()), 1e3 * seconds / steps, 1e-9 * moved, 100 * moved / copy);
    }
  }
}
