// `flowdg bench`: the 2D Euler throughput table (DOF, DSU/s, T_k, per-kernel time and bandwidth).
#include <cstdio>
#include <fstream>
#include <string>

#include "commands.hpp"
#include "flowdg/cases/euler2d_bench.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/poly/sipg_bench.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace flowdg::cli {

namespace {
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    if (end > start) items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return items;
}
}  // namespace

void add_bench_command(CLI::App& app) {
  static std::string backend = "auto", problem = "supersonic-vortex", meshes, orders = "1,2,3,4", refines, output, scheme,
                     limiter, positivity, reorder, kernels = "auto", faces = "auto", face_order = "element", launches = "chained";
  static int steps = 50, warmup = 5, threads = 0;
  auto* bench = app.add_subcommand("bench", "Time the 2D Euler solver: DSU/s, T_k, per-kernel time and bandwidth (table + JSON)");
  bench->add_option("--backend", backend, "cpu, cuda or auto")->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  bench->add_option("--problem", problem, "supersonic-vortex (no limiter) or double-mach (Barth-Jespersen)")
      ->check(CLI::IsMember({"supersonic-vortex", "double-mach"}));
  bench->add_option("--meshes", meshes,
                    "Meshes, e.g. A,B,C,D,E,F,1M,4M,16M: supersonic vortex A..F = the 2015 paper's meshes, rN = refine N, "
                    "a size = the annulus of about that many triangles; double Mach A,B,C = ny 90,180,360 (default C)");
  bench->add_option("--refine", refines, "Refinement levels of mesh A, e.g. 5,7 (the same as --meshes F,r7)");
  bench->add_option("--orders", orders, "Polynomial orders, e.g. 1,2,3,4");
  bench->add_option("--steps", steps, "Timed steps per run (0: about 0.1 s of work)")->check(CLI::NonNegativeNumber);
  bench->add_option("--warmup", warmup, "Untimed steps first")->check(CLI::NonNegativeNumber);
  bench->add_option("--scheme", scheme, "Runge-Kutta scheme (default lsrk54; ssp-rk2 for double-mach)");
  bench->add_option("--limiter", limiter, "none or barth-jespersen (default: the problem's)");
  bench->add_option("--positivity", positivity, "Zhang-Shu positivity scaling: on or off (default: the problem's)")
      ->check(CLI::IsMember({"on", "off"}));
  bench->add_option("--reorder", reorder, "Element ordering of the meshes: none, rcm or hilbert (mesh.reorder)")
      ->check(CLI::IsMember({"none", "rcm", "hilbert"}));
  bench->add_option("--kernels", kernels,
                    "GPU element kernel: auto, tensor (FP64 tensor cores, p >= 2), block (shared memory, p >= 2) or thread "
                    "(one per element)")
      ->check(CLI::IsMember(euler2d::gpu_element_kernel_names()));
  bench->add_option("--faces", faces,
                    "GPU face kernel: auto, warp (each warp its own faces, traces once per face), block (a block of 32-128 faces, traces once per face) or point (one thread per face point)")
      ->check(CLI::IsMember(euler2d::gpu_face_kernel_names()));
  bench->add_option("--launches", launches,
                    "CUDA stage kernels as programmatic dependent launches (chained, compute capability 9.0+) or one after another (plain)")
      ->check(CLI::IsMember({"chained", "plain"}));
  bench->add_option("--face-order", face_order, "Interior faces by their lower element (element) or as the mesh numbers them (mesh)")
      ->check(CLI::IsMember({"element", "mesh"}));
  bench->add_option("--threads", threads, "OpenMP threads for the CPU backend (default: all)")->check(CLI::NonNegativeNumber);
  bench->add_option("--output", output, "Also write the results as JSON to this file");
  bench->callback([] {
#if defined(_OPENMP)
    if (threads > 0) omp_set_num_threads(threads);
#endif
    euler2d::BenchOptions options;
    options.backend = parse_backend(backend);
    options.problem = problem;
    options.meshes = split_list(meshes);
    if (!refines.empty())
      for (const int level : parse_int_list(refines, "--refine"))
        options.meshes.push_back(level >= 0 && level <= 5 ? std::string(1, static_cast<char>('A' + level)) : cat("r", level));
    if (options.meshes.empty()) options.meshes = {"C"};
    options.orders = parse_int_list(orders, "--orders");
    options.steps = steps;
    options.warmup = warmup;
    options.scheme = scheme;
    options.limiter = limiter;
    options.positivity = positivity;
    options.reorder = reorder;
    options.element_kernel = euler2d::parse_gpu_element_kernel(kernels);
    options.face_kernel = euler2d::parse_gpu_face_kernel(faces);
    options.faces_by_element = face_order == "element";
    options.chained_launches = launches == "chained";
    options.quiet = false;
    const euler2d::BenchReport report = euler2d::run_bench(options);
    std::printf("%s", report.table().c_str());
    if (!output.empty()) {
      std::ofstream out(output);
      if (!out) throw InputError(cat("cannot write ", output));
      out << report.json();
      std::printf("flowdg: wrote %s\n", output.c_str());
    }
  });

  static poly::SipgBenchOptions sipg;
  static std::string sipg_backend = "auto", sipg_degrees = "1..4", sipg_precisions = "double,single",
                     sipg_methods = "deterministic,atomic,coo", sipg_sub_simplices = "coarse", sipg_output;
  auto* bench_sipg = app.add_subcommand(
      "bench-sipg", "Time the polytopic SIPG assembly: per-kernel ms per million unknowns, pattern and index time (table + JSON)");
  bench_sipg->add_option("MESH", sipg.mesh, "Fine mesh of triangles or tetrahedra: a Gmsh file or builtin:NAME?key=value&...")
      ->required();
  bench_sipg->add_option("--agglomerate", sipg.agglomerate, "Agglomerate into N elements (0: every fine simplex is an element)")
      ->check(CLI::NonNegativeNumber);
  bench_sipg->add_option("--agglomeration", sipg.agglomeration, "metis or bisection")->check(CLI::IsMember({"metis", "bisection"}));
  bench_sipg->add_option("--sub-simplices", sipg_sub_simplices, "fine or coarse")->check(CLI::IsMember({"fine", "coarse"}));
  bench_sipg->add_option("--degrees", sipg_degrees, "Polynomial degrees, e.g. 1..4");
  bench_sipg->add_option("--precision", sipg_precisions, "double, single or both: double,single");
  bench_sipg->add_option("--methods", sipg_methods, "Assembly ways: deterministic, atomic, coo (comma-separated)");
  bench_sipg->add_option("--coefficients", sipg.coefficients, "variable (a, b, c sampled at every point) or constant (Poisson)")
      ->check(CLI::IsMember({"variable", "constant"}));
  bench_sipg->add_option("--repeat", sipg.repeat, "Timed assemblies per row (their median; one warm-up first)")
      ->check(CLI::PositiveNumber);
  bench_sipg->add_option("--backend", sipg_backend, "cpu, cuda or auto")->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  bench_sipg->add_option("--parts", sipg.parts,
                         "Also assemble each of N METIS parts of the agglomerates (one rank's rows), one after the other on this device")
      ->check(CLI::PositiveNumber);
  static std::string sipg_reduction = "entry";
  bench_sipg->add_option("--reduction", sipg_reduction, "The deterministic way's block sums: entry (a thread per entry) or block (a thread per block)")
      ->check(CLI::IsMember({"entry", "block"}));
  bench_sipg->add_option("--output", sipg_output, "Also write the results as JSON to this file");
  bench_sipg->callback([] {
    sipg.backend = parse_backend(sipg_backend);
    sipg.degrees = parse_int_list(sipg_degrees, "--degrees");
    sipg.precisions = split_list(sipg_precisions);
    sipg.methods.clear();
    for (const std::string& name : split_list(sipg_methods)) sipg.methods.push_back(poly::parse_assembly_method(name, "--methods"));
    sipg.sub_simplices = sipg_sub_simplices == "fine" ? poly::SubSimplices::fine : poly::SubSimplices::coarse;
    sipg.reduction = sipg_reduction == "block" ? poly::SipgOptions::Reduction::per_block : poly::SipgOptions::Reduction::per_entry;
    const poly::SipgBenchResult result = poly::run_sipg_bench(sipg, stdout);
    std::printf("%s", poly::sipg_bench_table(result).c_str());
    if (!sipg_output.empty()) {
      std::ofstream out(sipg_output);
      if (!out) throw InputError(cat("cannot write ", sipg_output));
      out << poly::sipg_bench_json(result);
      std::printf("flowdg: wrote %s\n", sipg_output.c_str());
    }
  });
}

}  // namespace flowdg::cli
