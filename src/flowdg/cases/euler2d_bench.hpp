#pragma once
// The 2D Euler benchmark. Problems:
//   supersonic-vortex  the annulus of the 2015 paper, no limiter: meshes "A".."F" (refine 0..5, 180 ..
//                      184,320 triangles), "rN" (refine N), or a size "1M", "4M", "16M", "50M", "250k"
//                      (the annulus with 5k x 18k cells, 180 k^2 triangles, k chosen for the size);
//   double-mach        the limited case (Barth-Jespersen + positivity, SSP-RK2 unless --scheme):
//                      meshes "A", "B", "C" (ny = 90, 180, 360) or a size.
// Each mesh is built once and run at every order: warm-up steps, then N timed steps (device
// events on a GPU, the steady clock on the CPU), then per-kernel-group times per stage with the
// bytes each group must move by the model in Solver::time_kernels, against a measured copy
// bandwidth.
#include <string>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/dg/euler2d.hpp"

namespace flowdg::euler2d {

/// The names of the GPU kernel choices, in the order of the enums: "auto", "thread", "block",
/// "tensor" / "auto", "point", "block", "warp" (command-line checks use them too).
const std::vector<std::string>& gpu_element_kernel_names();
const std::vector<std::string>& gpu_face_kernel_names();
/// A name of the lists above as its choice (InputError otherwise).
GpuElementKernel parse_gpu_element_kernel(const std::string& name);
GpuFaceKernel parse_gpu_face_kernel(const std::string& name);

struct BenchOptions {
  Backend backend = Backend::cpu;
  std::string problem = "supersonic-vortex";
  std::vector<std::string> meshes{"C"};
  std::vector<int> orders{1, 2, 3, 4};
  int steps = 50;             ///< timed steps per (mesh, order); 0: enough for about 0.1 s of work (3..2000)
  int warmup = 5;
  std::string scheme;         ///< "" = lsrk54 (supersonic vortex) or ssp-rk2 (double Mach)
  std::string limiter;        ///< "" = the problem's own (none / barth-jespersen)
  std::string positivity;     ///< "" = the problem's own (off / on), else "on" or "off"
  std::string reorder;        ///< "" = the mesh as generated; else mesh.reorder (rcm, hilbert)
  GpuElementKernel element_kernel = GpuElementKernel::automatic;  ///< see SolverOptions
  GpuFaceKernel face_kernel = GpuFaceKernel::automatic;
  bool faces_by_element = true;  ///< see SolverOptions
  bool chained_launches = true;  ///< see SolverOptions
  index_t copy_doubles = 0;   ///< size of the bandwidth probe; 0: 2^27 (1 GiB) on a GPU, 2^24 on a CPU
  bool quiet = true;          ///< false: a line per run on stderr as it finishes
};

struct BenchRow {
  std::string mesh;
  int order = 0;
  index_t elements = 0, dof = 0;
  double seconds_per_step = 0;
  double dof_stages_per_second = 0;   ///< DSU/s
  double tk_microseconds = 0;         ///< 1e6 x seconds per step / DOF (Gao et al. 2022, Eq. 20)
  double bytes_per_element = 0;       ///< memory of the solver's arrays per element
  double memory_bytes = 0;            ///< the solver's arrays (flowdg's allocation counter)
  double device_memory_used = 0;      ///< GPU: the driver's total - free (includes the context); CPU: 0
  double setup_seconds = 0;           ///< mesh + connectivity (once per mesh) and solver construction
  std::vector<KernelTiming> kernels;  ///< per stage
};

struct BenchReport {
  std::string device;
  std::string problem;
  std::string scheme;
  std::string reorder = "none";  ///< element ordering of the meshes
  std::string launches = "plain";  ///< CUDA: "chained" (programmatic dependent launches) or "plain"
  double copy_bytes_per_second = 0;
  std::vector<BenchRow> rows;
  std::string table() const;  ///< a markdown table
  std::string json() const;
};

/// The case text (TOML) and mesh spec a bench mesh label stands for; InputError for an unknown
/// problem or label.
std::string bench_case_toml(const std::string& problem, const std::string& mesh_label);

/// Runs the benchmark; timing only, no assertions.
BenchReport run_bench(const BenchOptions& options);

}  // namespace flowdg::euler2d
