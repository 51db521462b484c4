// The benchmark harness runs (a smoke test: sizes and the bytes model are checked, never timings).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "flowdg/cases/euler2d_bench.hpp"

using namespace flowdg;
using namespace flowdg::euler2d;

namespace {
/// A few steps on a small mesh, with a small bandwidth probe: fast enough for CI.
BenchOptions tiny_options(std::vector<std::string> meshes, std::vector<int> orders, int steps = 2, int warmup = 1) {
  BenchOptions options;
  options.meshes = std::move(meshes);
  options.orders = std::move(orders);
  options.steps = steps;
  options.warmup = warmup;
  options.copy_doubles = 1 << 16;
  return options;
}
}  // namespace

TEST(Bench, TinyCpuRunReportsSizesKernelsAndTheBytesModel) {
  BenchOptions options = tiny_options({"A"}, {1, 2});
  const BenchReport report = run_bench(options);
  ASSERT_EQ(report.rows.size(), 2u);
  EXPECT_GT(report.copy_bytes_per_second, 0.0);
  for (const BenchRow& row : report.rows) {
    const int basis = (row.order + 1) * (row.order + 2) / 2;
    EXPECT_EQ(row.mesh, "A");
    EXPECT_EQ(row.elements, 180);
    EXPECT_EQ(row.dof, 180 * basis * 4);
    EXPECT_GT(row.dof_stages_per_second, 0.0);
    // The solver's arrays per element: at least the coefficients and the two LSRK registers.
    EXPECT_GE(row.bytes_per_element, 2.0 * 4 * basis * sizeof(double));
    ASSERT_EQ(row.kernels.size(), 2u);  // faces, element (no limiter)
    EXPECT_EQ(row.kernels[0].name, "faces");
    EXPECT_EQ(row.kernels[1].name, "element");
    // Mesh A has 46 boundary and 247 interior edges (293 in all).
    const double state = 4.0 * basis * 8, flux = 4.0 * (row.order + 1) * 8, geometry = 3 * 8 + 2 * 8 + 2 * 4;
    EXPECT_DOUBLE_EQ(row.kernels[0].bytes, 180 * state + 293 * (geometry + flux) + 46 * 2 * (row.order + 1) * 8);
    // Element: coefficients read and written, the LSRK register q as the stages move it (read and
    // written by the three middle stages, only written by the first and only read by the last: 8
    // words in 5 stages), the geometry (5 doubles), three face codes and three faces' fluxes.
    EXPECT_DOUBLE_EQ(row.kernels[1].bytes, 180 * (2 * state + 8.0 / 5.0 * state + 5 * 8 + 3 * 8 + 3 * flux));
  }
  const std::string json = report.json();
  for (const char* key : {"\"copy_bytes_per_second\"", "\"dof_stages_per_second\"", "\"tk_microseconds\"", "\"bytes_per_element\"",
                          "\"bandwidth_fraction_of_copy\""})
    EXPECT_NE(json.find(key), std::string::npos) << key;
  EXPECT_NE(report.table().find("| A | 180 | 2 | 4320 |"), std::string::npos) << report.table();
}

TEST(Bench, CommandLineWritesTheTableAndJson) {
  const auto path = std::filesystem::temp_directory_path() / "flowdg-bench.json";
  std::filesystem::remove(path);
  const std::string command = std::string(FLOWDG_CLI) + " bench --backend cpu --orders 1 --refine 0 --steps 2 --output " +
                              path.string() + " > /dev/null 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_NE(std::system((std::string(FLOWDG_CLI) + " bench --orders x > /dev/null 2>&1").c_str()), 0);
  std::filesystem::remove(path);
}

TEST(Bench, MeshLabelsNameThePapersMeshesAndSizes) {
  EXPECT_NE(bench_case_toml("supersonic-vortex", "D").find("builtin:annulus?refine=3"), std::string::npos);
  EXPECT_NE(bench_case_toml("supersonic-vortex", "r7").find("builtin:annulus?refine=7"), std::string::npos);
  // 180 k^2 triangles: 1M -> k = 75 (1,012,500), 16M -> k = 298 (15,984,720).
  EXPECT_NE(bench_case_toml("supersonic-vortex", "1M").find("n_radial=375&n_angular=1350"), std::string::npos);
  EXPECT_NE(bench_case_toml("supersonic-vortex", "16M").find("n_radial=1490&n_angular=5364"), std::string::npos);
  EXPECT_NE(bench_case_toml("double-mach", "C").find("builtin:double-mach?ny=360"), std::string::npos);
  EXPECT_THROW(bench_case_toml("supersonic-vortex", "G"), InputError);
  EXPECT_THROW(bench_case_toml("supersonic-vortex", "12x"), InputError);
  EXPECT_THROW(bench_case_toml("navier-stokes", "A"), InputError);
}

TEST(Bench, DoubleMachReportsTheLimiterGroupAndItsModel) {
  BenchOptions options = tiny_options({"2k"}, {1});  // ny = 18: 2,592 triangles
  options.problem = "double-mach";
  const BenchReport report = run_bench(options);
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_EQ(report.scheme, "ssp-rk2");
  EXPECT_EQ(report.rows[0].elements, 8 * 18 * 18);
  ASSERT_EQ(report.rows[0].kernels.size(), 3u);
  EXPECT_EQ(report.rows[0].kernels[2].name, "limiter");
  EXPECT_GT(report.rows[0].kernels[2].bytes, 0.0);
  EXPECT_NE(report.table().find("limiter/unlimited stage"), std::string::npos);

  // Without limiting (the suite's dmr_unlimited): no limiter group, the same problem and size.
  options.limiter = "none";
  options.positivity = "off";
  const BenchReport unlimited = run_bench(options);
  ASSERT_EQ(unlimited.rows.size(), 1u);
  EXPECT_EQ(unlimited.rows[0].dof, report.rows[0].dof);
  ASSERT_EQ(unlimited.rows[0].kernels.size(), 2u);
  EXPECT_EQ(unlimited.rows[0].kernels[1].name, "element");
  // Positivity alone keeps the group; a value other than on/off is refused.
  options.positivity = "on";
  EXPECT_EQ(run_bench(options).rows[0].kernels.size(), 3u);
  options.positivity = "yes";
  EXPECT_THROW(run_bench(options), InputError);
}

TEST(Bench, ReorderedMeshesRunTheSameProblemAndUnknownOrderingsAreRefused) {
  BenchOptions options = tiny_options({"C"}, {1});
  const BenchReport plain = run_bench(options);
  options.reorder = "hilbert";
  const BenchReport hilbert = run_bench(options);
  ASSERT_EQ(hilbert.rows.size(), 1u);
  EXPECT_EQ(hilbert.rows[0].elements, plain.rows[0].elements);
  EXPECT_DOUBLE_EQ(hilbert.rows[0].kernels[1].bytes, plain.rows[0].kernels[1].bytes);
  EXPECT_NE(hilbert.json().find("\"reorder\": \"hilbert\""), std::string::npos) << hilbert.json();
  EXPECT_NE(plain.json().find("\"reorder\": \"none\""), std::string::npos);
  // The memory target: at most 600 bytes of solver arrays per element at p = 1 with LSRK.
  EXPECT_LE(plain.rows[0].bytes_per_element, 600.0);
  options.reorder = "zigzag";
  EXPECT_THROW(run_bench(options), InputError);
  EXPECT_NE(std::system((std::string(FLOWDG_CLI) + " bench --reorder zigzag > /dev/null 2>&1").c_str()), 0);
}

TEST(Bench, KernelChoicesAreParsedAndUnknownOnesAreRefused) {
  EXPECT_EQ(parse_gpu_element_kernel("auto"), GpuElementKernel::automatic);
  EXPECT_EQ(parse_gpu_element_kernel("tensor"), GpuElementKernel::tensor);
  EXPECT_EQ(parse_gpu_element_kernel("block"), GpuElementKernel::block);
  EXPECT_EQ(parse_gpu_element_kernel("thread"), GpuElementKernel::thread);
  EXPECT_EQ(parse_gpu_face_kernel("block"), GpuFaceKernel::block);
  EXPECT_EQ(parse_gpu_face_kernel("point"), GpuFaceKernel::point);
  EXPECT_EQ(parse_gpu_face_kernel("warp"), GpuFaceKernel::warp);
  EXPECT_THROW(parse_gpu_element_kernel("warp"), InputError);
  EXPECT_THROW(parse_gpu_face_kernel("tensor"), InputError);
  EXPECT_NE(std::system((std::string(FLOWDG_CLI) + " bench --kernels warp > /dev/null 2>&1").c_str()), 0);
  EXPECT_NE(std::system((std::string(FLOWDG_CLI) + " bench --face-order random > /dev/null 2>&1").c_str()), 0);
  // On the CPU no CUDA kernel runs: the timings name no variant.
  BenchOptions options = tiny_options({"A"}, {2}, 1, 0);
  const BenchReport report = run_bench(options);
  for (const KernelTiming& kernel : report.rows.at(0).kernels) EXPECT_EQ(kernel.variant, "") << kernel.name;
}
