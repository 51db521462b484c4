#pragma once
// Stored reference states: the coefficients after a few steps of small cases, written by the 2D
// Euler kernels as they were before the GPU performance work (commit 0efa0f8), so that every later
// kernel change is checked against them to 1e-12 relative on both backends (the CPU suite and the
// gpu-labelled suite load the same files).
//
// To write them anew (only when a change of results is intended and explained):
//   FLOWDG_WRITE_REFERENCE_STATES=1 build/bin/flowdg_unit_tests --gtest_filter='ReferenceStates.*'
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "flowdg/cases/run.hpp"
#include "flowdg/dg/tuned_triangle_operator.hpp"
#include "flowdg/core/config.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/time/runge_kutta.hpp"

namespace flowdg::testing {

struct ReferenceCase {
  const char* name;
  const char* example;   ///< examples/*.toml the case starts from
  std::vector<std::string> overrides;
  const char* scheme;
  double dt;
  int steps;
};

/// Every order the kernels have been tuned for, every flux, every boundary kind, periodic faces,
/// both limiter variants and positivity; meshes of 36..180 triangles so the CPU suite stays fast.
inline std::vector<ReferenceCase> reference_cases() {
  std::vector<ReferenceCase> cases;
  const char* sv_names[] = {"sv_p1_hllc", "sv_p2_hllc", "sv_p3_hllc", "sv_p4_hllc", "sv_p5_hllc", "sv_p6_hllc"};
  for (int p = 1; p <= 6; ++p)
    cases.push_back({sv_names[p - 1], "supersonic_vortex.toml",
                     {"mesh.refine=0", "solver.order=" + std::to_string(p), "solver.flux=\"hllc\""}, "lsrk54", 1e-4, 20});
  cases.push_back({"sv_p3_rusanov", "supersonic_vortex.toml", {"mesh.refine=0", "solver.order=3", "solver.flux=\"rusanov\""},
                   "ssp-rk3", 2e-4, 20});
  cases.push_back({"sv_p2_roe", "supersonic_vortex.toml", {"mesh.refine=0", "solver.order=2", "solver.flux=\"roe\""},
                   "rk4", 2e-4, 20});
  cases.push_back({"iv_p4_periodic", "isentropic_vortex.toml",
                   {"mesh.file=\"builtin:rectangle?nx=6&ny=6&x0=-10&x1=10&y0=-10&y1=10\"", "solver.order=4"}, "lsrk54", 0.05,
                   20});
  cases.push_back({"dmr_p1_bj", "double_mach.toml", {"mesh.file=\"builtin:double-mach?ny=6\"", "solver.order=1"}, "ssp-rk2",
                   2e-4, 40});
  cases.push_back({"dmr_p2_bj_characteristic", "double_mach.toml",
                   {"mesh.file=\"builtin:double-mach?ny=6\"", "solver.order=2", "solver.limit_variables=\"characteristic\""},
                   "ssp-rk3", 1e-4, 40});
  // FLOWDG_REFERENCE_CASES=name,name keeps only those (compute-sanitizer runs, which are slow).
  if (const char* only = std::getenv("FLOWDG_REFERENCE_CASES")) {
    const std::string list = std::string(",") + only + ",";
    std::erase_if(cases, [&](const ReferenceCase& c) { return list.find(std::string(",") + c.name + ",") == std::string::npos; });
  }
  return cases;
}

inline std::string source_dir() {
  if (const char* dir = std::getenv("FLOWDG_SOURCE_DIR")) return dir;
  if (std::filesystem::exists(FLOWDG_SOURCE_DIR "/examples")) return FLOWDG_SOURCE_DIR;
  return ".";  // the GPU machine runs the tests from a copy of the repository root
}

inline std::string reference_path(const ReferenceCase& c) {
  return source_dir() + "/tests/data/reference_states/" + c.name + ".bin";
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Runs the case with a fixed dt on the given backend (and CUDA kernels) and returns the coefficients.
inline std::vector<double> run_reference_case(const ReferenceCase& c, Backend backend,
                                              euler2d::GpuElementKernel element_kernel = euler2d::GpuElementKernel::automatic,
                                              euler2d::GpuFaceKernel face_kernel = euler2d::GpuFaceKernel::automatic,
                                              bool chained_launches = true) {
  Config config = Config::from_string(read_text(source_dir() + "/examples/" + c.example), c.example);
  for (const std::string& assignment : c.overrides) config.set(assignment);
  const Case problem = load_case(config, backend);
  euler2d::SolverOptions options = dg::tuned_solver_options(problem.options);
  options.element_kernel = element_kernel;
  options.face_kernel = face_kernel;
  options.chained_launches = chained_launches;
  euler2d::Solver solver(problem.mesh, problem.connectivity, options);
  solver.project(dg::tuned_flow(problem.initial, problem.options.gamma), 0.0);
  const RungeKuttaScheme scheme = runge_kutta_scheme(c.scheme);
  double t = 0;
  for (int step = 0; step < c.steps; ++step) {
    solver.step(scheme, t, c.dt);
    t += c.dt;
  }
  return solver.coefficients();
}

/// The same through the core's operator (dg::make_operator: DgOperator with the tuned triangle
/// kernels as its triangle group's specialisation), kernel variants by name.
inline std::vector<double> run_reference_case_through_core(const ReferenceCase& c, Backend backend,
                                                           const std::string& element_kernel = "automatic",
                                                           const std::string& face_kernel = "automatic",
                                                           bool chained_launches = true,
                                                           const std::vector<double>* initial = nullptr) {
  Config config = Config::from_string(read_text(source_dir() + "/examples/" + c.example), c.example);
  for (const std::string& assignment : c.overrides) config.set(assignment);
  const Case problem = load_case(config, backend);
  dg::OperatorOptions options = problem.options;
  options.implementation = dg::Implementation::tuned;
  options.element_kernel = element_kernel;
  options.face_kernel = face_kernel;
  options.chained_launches = chained_launches;
  const std::unique_ptr<dg::Operator> op = dg::make_operator(problem.mesh, problem.connectivity, options);
  if (initial != nullptr) {
    op->set_coefficients(*initial);  // another engine's projection (the projections' rules differ)
  } else {
    op->project(problem.initial, 0.0);
  }
  const RungeKuttaScheme scheme = runge_kutta_scheme(c.scheme);
  double t = 0;
  for (int step = 0; step < c.steps; ++step) {
    op->step(scheme, t, c.dt);
    t += c.dt;
  }
  return op->coefficients();
}

// File: the 8-byte magic "FDGREF01", a uint64 count, then the doubles (little-endian, as written).
inline void write_reference(const std::string& path, const std::vector<double>& values) {
  std::ofstream out(path, std::ios::binary);
  const std::uint64_t n = values.size();
  out.write("FDGREF01", 8);
  out.write(reinterpret_cast<const char*>(&n), sizeof n);
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(n * sizeof(double)));
  if (!out) throw Error("cannot write " + path);
}

inline std::vector<double> read_reference(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8];
  std::uint64_t n = 0;
  if (!in.read(magic, 8) || std::memcmp(magic, "FDGREF01", 8) != 0 || !in.read(reinterpret_cast<char*>(&n), sizeof n) ||
      n > (1u << 26))
    throw Error(path + ": not a reference state file");
  std::vector<double> values(n);
  if (!in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(n * sizeof(double))))
    throw Error(path + ": truncated");
  return values;
}

/// max |a - b| / max |b|, or infinity when the sizes differ or a value is not finite.
inline double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || b.empty()) return INFINITY;
  double difference = 0, size = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i])) return INFINITY;
    difference = std::max(difference, std::fabs(a[i] - b[i]));
    size = std::max(size, std::fabs(b[i]));
  }
  return difference / size;
}

}  // namespace flowdg::testing
