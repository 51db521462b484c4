// `flowdg bench`: the 2D Euler throughput table (DOF, DSU/s, T_k, per-kernel time and bandwidth).
#include <cstdio>
#include <fstream>
#include <string>

#include "commands.hpp"
#include "flowdg/cases/euler2d_bench.hpp"
#include "flowdg/core/error.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace flowdg::cli {

void add_bench_command(CLI::App& app) {
  static std::string backend = "auto", orders = "1,2,3,4", refines = "3", output, scheme = "lsrk54", limiter = "none";
  static int steps = 50, threads = 0;
  auto* bench = app.add_subcommand("bench", "Time the 2D Euler solver on the supersonic-vortex meshes (refine 0..5 = meshes A..F)");
  bench->add_option("--backend", backend, "cpu, cuda or auto")->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  bench->add_option("--orders", orders, "Polynomial orders, e.g. 1,2,3,4");
  bench->add_option("--refine", refines, "Refinement levels of mesh A, e.g. 5,7 (each x4 elements)");
  bench->add_option("--steps", steps, "Timed steps per run")->check(CLI::PositiveNumber);
  bench->add_option("--scheme", scheme, "Runge-Kutta scheme");
  bench->add_option("--limiter", limiter, "none or barth-jespersen");
  bench->add_option("--threads", threads, "OpenMP threads for the CPU backend (default: all)")->check(CLI::NonNegativeNumber);
  bench->add_option("--output", output, "Also write the results as JSON to this file");
  bench->callback([] {
#if defined(_OPENMP)
    if (threads > 0) omp_set_num_threads(threads);
#endif
    euler2d::BenchOptions options;
    options.backend = parse_backend(backend);
    options.orders = parse_int_list(orders, "--orders");
    options.refines = parse_int_list(refines, "--refine");
    options.steps = steps;
    options.scheme = scheme;
    options.limiter = limiter;
    const euler2d::BenchReport report = euler2d::run_bench(options);
    std::printf("%s", report.table().c_str());
    if (!output.empty()) {
      std::ofstream out(output);
      if (!out) throw InputError(cat("cannot write ", output));
      out << report.json();
      std::printf("flowdg: wrote %s\n", output.c_str());
    }
  });
}

}  // namespace flowdg::cli
