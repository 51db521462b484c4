// flowdg_bench_suite: the 2D Euler benchmark tables of docs/performance.md in one run.
//   paper   supersonic vortex on the 2015 paper's meshes A..F (180 .. 184,320 triangles), p = 1..5
//   sizes   the same problem on about 1M, 4M and 16M triangles, p = 1..5
//   dmr     the double Mach reflection on mesh C (1,036,800 triangles), p = 1, Barth-Jespersen:
//           the limiter's cost over the unlimited stage (kernel times; without limiting the
//           double Mach state is not physical after one step, so it cannot be timed alone)
//   large   about 51M triangles at p = 1 with LSRK(5,4) (memory per element, 100M-class meshes)
//   cpu     meshes D and E at p = 1..4 (for the CPU backend with --threads N)
// Each section writes OUTPUT/<section>.json and .md; a summary goes to standard output.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "flowdg/backend/module_loading.hpp"
#include "flowdg/cases/euler2d_bench.hpp"
#include "flowdg/core/error.hpp"

#if defined(_OPENMP)
#include <omp.h>
#endif

using namespace flowdg;
using namespace flowdg::euler2d;

int main(int argc, char** argv) {
  flowdg::prefer_eager_module_loading();  // before anything initialises CUDA (backend/module_loading.hpp)
  CLI::App app{"flowdg_bench_suite: the 2D Euler benchmark tables (docs/performance.md)"};
  std::string backend = "auto", output = "bench-results", sections = "paper,sizes,dmr";
  int threads = 0;
  std::string kernels = "auto", faces = "auto";
  app.add_option("--backend", backend, "cpu, cuda or auto")->check(CLI::IsMember({"cpu", "cuda", "auto"}));
  app.add_option("--sections", sections, "Comma-separated: paper, sizes, dmr, large, cpu");
  app.add_option("--output", output, "Directory for <section>.json and <section>.md");
  app.add_option("--threads", threads, "OpenMP threads for the CPU backend (default: all)");
  app.add_option("--kernels", kernels, "GPU element kernel: auto, tensor, block or thread (see flowdg bench --help)")
      ->check(CLI::IsMember(gpu_element_kernel_names()));
  app.add_option("--faces", faces, "GPU face kernel: auto, warp, block or point")->check(CLI::IsMember(gpu_face_kernel_names()));
  CLI11_PARSE(app, argc, argv);
  try {
#if defined(_OPENMP)
    if (threads > 0) omp_set_num_threads(threads);
#endif
    std::filesystem::create_directories(output);
    auto run = [&](const std::string& name, BenchOptions options) {
      if (sections.find(name) == std::string::npos) return;
      options.backend = parse_backend(backend);
      options.element_kernel = parse_gpu_element_kernel(kernels);
      options.face_kernel = parse_gpu_face_kernel(faces);
      options.quiet = false;
      options.steps = 0;  // auto
      const BenchReport report = run_bench(options);
      std::ofstream(output + "/" + name + ".json") << report.json();
      std::ofstream(output + "/" + name + ".md") << report.table();
      std::printf("## %s\n\n%s\n", name.c_str(), report.table().c_str());
      std::fflush(stdout);
    };
    BenchOptions paper;
    paper.meshes = {"A", "B", "C", "D", "E", "F"};
    paper.orders = {1, 2, 3, 4, 5};
    run("paper", paper);
    BenchOptions sizes;
    sizes.meshes = {"1M", "4M", "16M"};
    sizes.orders = {1, 2, 3, 4, 5};
    run("sizes", sizes);
    BenchOptions dmr;
    dmr.problem = "double-mach";
    dmr.meshes = {"C"};
    dmr.orders = {1};
    run("dmr", dmr);
    BenchOptions large;
    large.meshes = {"51M"};
    large.orders = {1};
    large.warmup = 2;
    run("large", large);
    BenchOptions cpu;
    cpu.meshes = {"D", "E"};
    cpu.orders = {1, 2, 3, 4};
    cpu.warmup = 1;
    run("cpu", cpu);
  } catch (const InputError& error) {
    std::fprintf(stderr, "flowdg_bench_suite: %s\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "flowdg_bench_suite: %s\n", error.what());
    return 1;
  }
  return 0;
}
