#include "flowdg/cases/euler2d_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "flowdg/backend/bandwidth.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/backend/timer.hpp"
#include "flowdg/cases/run.hpp"
#include "flowdg/dg/tuned_triangle_operator.hpp"
#include "flowdg/core/config.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/io/json.hpp"

namespace flowdg::euler2d {

namespace {

// The supersonic vortex as a case file (kept here so `flowdg bench` needs no files; examples/ has
// the same case for users). The double Mach reflection is the built-in default case.
const char* supersonic_vortex_case = R"(
[case]
name = "bench-supersonic-vortex"
[mesh]
file = "MESH"
[flow]
kind = "supersonic-vortex"
[solver]
flux = "hllc"
[time]
scheme = "lsrk54"
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

/// "250k", "1M", "1.5M", "5000" -> a triangle count, or -1.
double parse_size(const std::string& label) {
  if (label.empty()) return -1;
  double scale = 1;
  std::string digits = label;
  if (label.back() == 'k' || label.back() == 'K') scale = 1e3;
  if (label.back() == 'm' || label.back() == 'M') scale = 1e6;
  if (scale != 1) digits.pop_back();
  if (digits.empty() || digits.find_first_not_of("0123456789.") != std::string::npos) return -1;
  try {
    return std::stod(digits) * scale;
  } catch (...) {
    return -1;
  }
}

std::string mesh_spec(const std::string& problem, const std::string& label) {
  const double size = parse_size(label);
  if (problem == "supersonic-vortex") {
    if (label.size() == 1 && label[0] >= 'A' && label[0] <= 'F') return cat("builtin:annulus?refine=", label[0] - 'A');
    if (label.size() >= 2 && label[0] == 'r' && label.find_first_not_of("0123456789", 1) == std::string::npos)
      return cat("builtin:annulus?refine=", label.substr(1));
    if (size >= 180) {
      const int k = std::max(1, static_cast<int>(std::lround(std::sqrt(size / 180.0))));
      return cat("builtin:annulus?n_radial=", 5 * k, "&n_angular=", 18 * k);
    }
  } else if (problem == "double-mach") {
    if (label == "A") return "builtin:double-mach?ny=90";
    if (label == "B") return "builtin:double-mach?ny=180";
    if (label == "C") return "builtin:double-mach?ny=360";
    if (size >= 288) {
      const int ny = 6 * std::max(1, static_cast<int>(std::lround(std::sqrt(size / 8.0) / 6.0)));
      return cat("builtin:double-mach?ny=", ny);
    }
  } else {
    throw InputError(cat("bench: unknown problem '", problem, "' (known: supersonic-vortex, double-mach)"));
  }
  throw InputError(cat("bench: unknown mesh '", label, "' for ", problem,
                       problem == "supersonic-vortex" ? " (A..F, rN for refine N, or a size such as 1M)"
                                                      : " (A, B, C, or a size such as 1M)"));
}

}  // namespace

std::string bench_case_toml(const std::string& problem, const std::string& mesh_label) {
  const std::string spec = mesh_spec(problem, mesh_label);
  if (problem == "double-mach") {
    Config config = Config::from_string(default_case_toml(Backend::cpu), "builtin:default");
    config.set("mesh.file=" + json::quote(spec));
    return config.to_toml();
  }
  std::string text = supersonic_vortex_case;
  text.replace(text.find("MESH"), 4, spec);
  return text;
}

BenchReport run_bench(const BenchOptions& options) {
  BenchReport report;
  report.device = describe(options.backend);
  report.problem = options.problem;
  report.scheme = !options.scheme.empty() ? options.scheme : (options.problem == "double-mach" ? "ssp-rk2" : "lsrk54");
  const RungeKuttaScheme scheme = runge_kutta_scheme(report.scheme);
  if (!options.reorder.empty()) report.reorder = options.reorder;
  if (uses_chained_launches(options.backend, options.chained_launches)) report.launches = "chained";
  for (const std::string& label : options.meshes) (void)mesh_spec(options.problem, label);  // fail before any work
  const index_t probe = options.copy_doubles > 0 ? options.copy_doubles
                                                 : (options.backend == Backend::cuda ? index_t{1} << 27 : index_t{1} << 24);
  report.copy_bytes_per_second = copy_bandwidth(options.backend, probe);
  const Space space = space_of(options.backend);
  for (const std::string& label : options.meshes) {
    const auto mesh_start = std::chrono::steady_clock::now();
    Config config = Config::from_string(bench_case_toml(options.problem, label), "builtin:bench");
    config.set(cat("solver.order=", options.orders.empty() ? 1 : options.orders.front()));
    if (!options.limiter.empty()) config.set("solver.limiter=" + json::quote(options.limiter));
    if (!options.positivity.empty()) {
      if (options.positivity != "on" && options.positivity != "off")
        throw InputError(cat("bench: positivity must be on or off, not '", options.positivity, "'"));
      config.set(std::string("solver.positivity=") + (options.positivity == "on" ? "true" : "false"));
    }
    if (!options.reorder.empty()) config.set("mesh.reorder=" + json::quote(options.reorder));
    const Case problem = load_case(config, options.backend);
    const double mesh_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - mesh_start).count();
    for (const int order : options.orders) {
      const auto solver_start = std::chrono::steady_clock::now();
      SolverOptions solver_options = dg::tuned_solver_options(problem.options);
      solver_options.order = order;
      solver_options.element_kernel = options.element_kernel;
      solver_options.face_kernel = options.face_kernel;
      solver_options.faces_by_element = options.faces_by_element;
      solver_options.chained_launches = options.chained_launches;
      const std::size_t before = bytes_in_use(space);
      Solver solver(problem.mesh, problem.connectivity, solver_options);
      solver.project(dg::tuned_flow(problem.initial, problem.options.gamma), 0.0);
      const double dt = solver.stable_time_step(problem.time.cfl);
      double t = 0;
      for (int step = 0; step < options.warmup; ++step, t += dt) solver.step(scheme, t, dt);
      BenchRow row;
      row.mesh = label;
      row.order = order;
      row.elements = solver.n_elements();
      row.dof = solver.dof();
      row.memory_bytes = static_cast<double>(bytes_in_use(space) - before);
      row.bytes_per_element = row.memory_bytes / static_cast<double>(row.elements);
      row.device_memory_used = static_cast<double>(device_memory_used());
      row.setup_seconds = mesh_seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - solver_start).count();
      // Auto: about 0.1 s at 2e10 DSU/s on a GPU, 1e8 on a CPU.
      const double work = static_cast<double>(row.dof) * scheme.n_stages();
      const int steps = options.steps > 0 ? options.steps
                                          : static_cast<int>(std::clamp((options.backend == Backend::cuda ? 2e9 : 1e7) / work, 3.0, 2000.0));
      DeviceTimer timer(options.backend);
      const std::size_t start = timer.mark();
      for (int step = 0; step < steps; ++step, t += dt) solver.step(scheme, t, dt);
      row.seconds_per_step = timer.seconds(start, timer.mark()) / steps;
      row.dof_stages_per_second = static_cast<double>(row.dof) * scheme.n_stages() / row.seconds_per_step;
      row.tk_microseconds = 1e6 * row.seconds_per_step / static_cast<double>(row.dof);
      // At least 3 repetitions per kernel: the largest meshes run only 3 timed steps, and one
      // repetition made the 16M rows' kernel times disagree with their step times by up to 23%.
      row.kernels = solver.time_kernels(scheme, dt, std::max(3, steps / 5));
      if (!options.quiet)
        std::fprintf(stderr, "bench: %s p=%d %lld elements: %.3g DSU/s\n", label.c_str(), order,
                     static_cast<long long>(row.elements), row.dof_stages_per_second);
      report.rows.push_back(row);
    }
  }
  return report;
}

const std::vector<std::string>& gpu_element_kernel_names() {
  static const std::vector<std::string> names{"auto", "thread", "block", "tensor"};
  return names;
}

const std::vector<std::string>& gpu_face_kernel_names() {
  static const std::vector<std::string> names{"auto", "point", "block", "warp"};
  return names;
}

namespace {
/// The enum value whose name (by position in `names`) is `name`.
template <class Choice>
Choice parse_choice(const std::vector<std::string>& names, const std::string& name, const char* what) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<Choice>(it - names.begin());
  std::string known;
  for (std::size_t i = 0; i < names.size(); ++i) known += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  throw InputError(cat("unknown ", what, " '", name, "' (", known, ")"));
}
}  // namespace

GpuElementKernel parse_gpu_element_kernel(const std::string& name) {
  return parse_choice<GpuElementKernel>(gpu_element_kernel_names(), name, "element kernel");
}

GpuFaceKernel parse_gpu_face_kernel(const std::string& name) {
  return parse_choice<GpuFaceKernel>(gpu_face_kernel_names(), name, "face kernel");
}

std::string BenchReport::table() const {
  std::string out = cat("device: ", device, "; problem ", problem, "; scheme ", scheme, "; elements ordered: ", reorder,
                        "; copy bandwidth ",
                        format("%.1f", copy_bytes_per_second / 1e9), " GB/s (read + write)\n\n");
  out += "| mesh | elements | p | DOF | us/step | DSU/s | T_k (us) | bytes/element | kernel: us/stage, GB/s, % of copy |\n";
  out += "|---|---|---|---|---|---|---|---|---|\n";
  for (const BenchRow& row : rows) {
    std::string kernels;
    double limiter = 0, rest = 0;
    for (const KernelTiming& kernel : row.kernels) {
      const double rate = kernel.seconds > 0 ? kernel.bytes / kernel.seconds : 0.0;
      kernels += cat(kernels.empty() ? "" : "; ", kernel.name, kernel.variant.empty() ? "" : cat(" (", kernel.variant, ")"), " ",
                     format("%.1f", 1e6 * kernel.seconds), ", ",
                     format("%.0f", rate / 1e9), ", ", format("%.0f%%", 100.0 * rate / copy_bytes_per_second));
      (kernel.name == "limiter" ? limiter : rest) += kernel.seconds;
    }
    if (limiter > 0) kernels += cat("; limiter/unlimited stage ", format("%.0f%%", 100.0 * limiter / rest));
    out += cat("| ", row.mesh, " | ", row.elements, " | ", row.order, " | ", row.dof, " | ", format("%.1f", 1e6 * row.seconds_per_step),
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
      object.add_string("name", kernel.name).add_string("variant", kernel.variant).add_number("seconds_per_stage", kernel.seconds).add_number("bytes_per_stage", kernel.bytes);
      object.add_number("bandwidth_fraction_of_copy", kernel.seconds > 0 ? kernel.bytes / kernel.seconds / copy_bytes_per_second : 0.0);
      kernels.push_back(object.str());
    }
    json::Object entry;
    entry.add_string("mesh", row.mesh).add_integer("order", row.order).add_integer("elements", row.elements)
        .add_integer("dof", row.dof).add_number("seconds_per_step", row.seconds_per_step)
        .add_number("dof_stages_per_second", row.dof_stages_per_second).add_number("tk_microseconds", row.tk_microseconds)
        .add_number("bytes_per_element", row.bytes_per_element).add_number("memory_bytes", row.memory_bytes)
        .add_number("device_memory_used", row.device_memory_used).add_number("setup_seconds", row.setup_seconds)
        .add("kernels", json::array(kernels));
    entries.push_back(entry.str());
  }
  json::Object document;
  document.add_string("device", device).add_string("problem", problem).add_string("scheme", scheme).add_string("reorder", reorder)
      .add_string("launches", launches).add_number("copy_bytes_per_second", copy_bytes_per_second).add("runs", json::array(entries));
  return document.str() + "\n";
}

}  // namespace flowdg::euler2d
