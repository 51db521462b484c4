#pragma once
// The 2D Euler benchmark: the supersonic vortex on the annulus meshes (refine 0..5 = the 2015
// paper's meshes A..F, 7 = 2.9M triangles, ...) at chosen orders, timed per step and per kernel
// group, with the bytes each group must move and the copy bandwidth they are measured against.
#include <string>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/dg/euler2d.hpp"

namespace flowdg::euler2d {

struct BenchOptions {
  Backend backend = Backend::cpu;
  std::vector<int> orders{1, 2, 3, 4};
  std::vector<int> refines{3};
  int steps = 50;             ///< timed steps per (mesh, order)
  int warmup = 5;
  std::string scheme = "lsrk54";
  std::string limiter = "none";
  index_t copy_doubles = 0;   ///< size of the bandwidth probe; 0: 2^27 (1 GiB) on a GPU, 2^24 on a CPU
};

struct BenchRow {
  int order = 0, refine = 0;
  index_t elements = 0, dof = 0;
  double seconds_per_step = 0;
  double dof_stages_per_second = 0;   ///< DSU/s
  double tk_microseconds = 0;         ///< 1e6 x seconds per step / DOF (Gao et al. 2022, Eq. 20)
  double bytes_per_element = 0;       ///< memory of the solver's arrays per element
  std::vector<KernelTiming> kernels;  ///< per stage
};

struct BenchReport {
  std::string device;
  std::string scheme;
  double copy_bytes_per_second = 0;
  std::vector<BenchRow> rows;
  std::string table() const;  ///< a markdown table
  std::string json() const;
};

/// Runs the benchmark; timing only, no assertions. With CUDA, times are wall clock around
/// synchronised launches (steps use a fixed dt, so no per-step reduction is included).
BenchReport run_bench(const BenchOptions& options);

}  // namespace flowdg::euler2d
