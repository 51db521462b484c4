#include "flowdg/cases/euler2d_bench.hpp"

#include <chrono>
#include <cstdio>

#include "flowdg/backend/bandwidth.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/cases/euler2d_case.hpp"
#include "flowdg/core/config.hpp"
#include "flowdg/io/json.hpp"

namespace flowdg::euler2d {

namespace {

const char* bench_case = R"(
[case]
name = "bench"
[mesh]
file = "builtin:annulus"
[flow]
kind = "supersonic-vortex"
[solver]
flux = "hllc"
[time]
cfl = 0.5
max_steps = 0
[boundary.inner]
type = "curvature-wall"
[boundary.outer]
type = "curvature-wall"
[boundary.inflow]
type = "inflow"
[boundary.outflow]
type = "outflow"
)";

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

}  // namespace

BenchReport run_bench(const BenchOptions& options) {
  BenchReport report;
  report.device = describe(options.backend);
  report.scheme = options.scheme;
  const RungeKuttaScheme scheme = runge_kutta_scheme(options.scheme);
  const index_t probe = options.copy_doubles > 0 ? options.copy_doubles
                                                 : (options.backend == Backend::cuda ? index_t{1} << 27 : index_t{1} << 24);
  report.copy_bytes_per_second = copy_bandwidth(options.backend, probe);
  for (const int refine : options.refines)
    for (const int order : options.orders) {
      Config config = Config::from_string(bench_case, "builtin:bench");
      config.set(cat("solver.order=", order));
      config.set(cat("mesh.refine=", refine));
      config.set("solver.limiter=" + json::quote(options.limiter));
      const Case problem = load_case(config, options.backend);
      const Space space = space_of(options.backend);
      const std::size_t before = bytes_in_use(space);
      Solver solver(problem.mesh, problem.connectivity, problem.options);
      solver.project(problem.initial, 0.0);
      const double dt = solver.stable_time_step(problem.time.cfl);
      double t = 0;
      for (int step = 0; step < options.warmup; ++step, t += dt) solver.step(scheme, t, dt);
      BenchRow row;
      row.order = order;
      row.refine = refine;
      row.elements = solver.n_elements();
      row.dof = solver.dof();
      row.bytes_per_element = static_cast<double>(bytes_in_use(space) - before) / static_cast<double>(row.elements);
      synchronize(options.backend);
      const auto start = std::chrono::steady_clock::now();
      for (int step = 0; step < options.steps; ++step, t += dt) solver.step(scheme, t, dt);
      synchronize(options.backend);
      row.seconds_per_step = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / options.steps;
      row.dof_stages_per_second = static_cast<double>(row.dof) * scheme.n_stages() / row.seconds_per_step;
      row.tk_microseconds = 1e6 * row.seconds_per_step / static_cast<double>(row.dof);
      row.kernels = solver.time_kernels(scheme, dt, std::max(1, options.steps / 5));
      report.rows.push_back(row);
    }
  return report;
}

std::string BenchReport::table() const {
  std::string out = cat("device: ", device, "; scheme ", scheme, "; copy bandwidth ", format("%.1f", copy_bytes_per_second / 1e9),
                        " GB/s (read + write)\n\n");
  out += "| refine | elements | p | DOF | us/step | DSU/s | T_k (us) | bytes/element | kernel: us/stage, GB/s, % of copy |\n";
  out += "|---|---|---|---|---|---|---|---|---|\n";
  for (const BenchRow& row : rows) {
    std::string kernels;
    for (const KernelTiming& kernel : row.kernels) {
      const double rate = kernel.seconds > 0 ? kernel.bytes / kernel.seconds : 0.0;
      kernels += cat(kernels.empty() ? "" : "; ", kernel.name, " ", format("%.1f", 1e6 * kernel.seconds), ", ",
                     format("%.0f", rate / 1e9), ", ", format("%.0f%%", 100.0 * rate / copy_bytes_per_second));
    }
    out += cat("| ", row.refine, " | ", row.elements, " | ", row.order, " | ", row.dof, " | ", format("%.1f", 1e6 * row.seconds_per_step),
               " | ", format("%.3g", row.dof_stages_per_second), " | ", format("%.3g", row.tk_microseconds), " | ",
               format("%.0f", row.bytes_per_element), " | ", kernels, " |\n");
  }
  return out;
}

std::string BenchReport::json() const {
  std::vector<std::string> entries;
  for (const BenchRow& row : rows) {
    std::vector<std::string> kernels;
    for (const KernelTiming& kernel : row.kernels) {
      json::Object object;
      object.add_string("name", kernel.name).add_number("seconds_per_stage", kernel.seconds).add_number("bytes_per_stage", kernel.bytes);
      object.add_number("bandwidth_fraction_of_copy", kernel.seconds > 0 ? kernel.bytes / kernel.seconds / copy_bytes_per_second : 0.0);
      kernels.push_back(object.str());
    }
    json::Object entry;
    entry.add_integer("refine", row.refine).add_integer("order", row.order).add_integer("elements", row.elements)
        .add_integer("dof", row.dof).add_number("seconds_per_step", row.seconds_per_step)
        .add_number("dof_stages_per_second", row.dof_stages_per_second).add_number("tk_microseconds", row.tk_microseconds)
        .add_number("bytes_per_element", row.bytes_per_element).add("kernels", json::array(kernels));
    entries.push_back(entry.str());
  }
  json::Object document;
  document.add_string("device", device).add_string("scheme", scheme).add_number("copy_bytes_per_second", copy_bytes_per_second)
      .add("runs", json::array(entries));
  return document.str() + "\n";
}

}  // namespace flowdg::euler2d
