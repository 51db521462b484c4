// 2D Euler modal DG: the stage graph (face launches, element launch with the Runge-Kutta
// update, limiter launch), steps, kernel timings, the residual and the stable time step, written
// once and run by the CPU (OpenMP) and CUDA backends. Compiled by nvcc when CUDA is on.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/stream.hpp"
#include "flowdg/backend/timer.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/dg/euler2d.hpp"
#include "flowdg/dg/euler2d/common.hpp"
#include "flowdg/dg/euler2d/limiter_kernels.hpp"
#include "flowdg/dg/euler2d/stage_launch.hpp"

namespace flowdg::euler2d {

namespace {
/// h_e / (|v| + c) at the element mean; h_e is the smallest altitude (2 area / longest edge).
struct TimeStepKernel {
  View<const double> u;
  View<const double> h;
  index_t K;  ///< the row stride of u
  int Np;
  Gas gas;
  FLOWDG_HD double operator()(index_t e) const {
    // phi_0 = 1/sqrt(2) on the reference triangle, so the mean is c_0 / sqrt(2).
    const double to_mean = 0.70710678118654752440;
    State mean;
    for (int v = 0; v < NV; ++v) mean[v] = u[static_cast<index_t>(v) * Np * K + e] * to_mean;
    if (!is_admissible(mean, gas)) return -1.0;  // flagged; the host reports it
    return h[e] / max_wave_speed(mean, gas);
  }
};

struct Fill {
  View<double> values;
  double value;
  FLOWDG_HD void operator()(index_t i) const { values[i] = value; }
};

struct ChangeKernel {
  View<const double> a, b;
  FLOWDG_HD double operator()(index_t i) const { return std::fabs(a[i] - b[i]); }
};
}  // namespace

// ---- stepping --------------------------------------------------------------------------------

double Solver::stable_time_step(double cfl) const {
  const Data& d = *data_;
  const StreamScope on_stream(*d.stream);
  const double smallest = reduce_min<double>(d.backend, d.K, TimeStepKernel{d.u.view(), d.h.view(), d.Ks, d.Np, options_.gas});
  if (!(smallest > 0)) {
    const std::string where = describe_bad_state();
    throw NumericalError(cat("non-physical state (negative density or pressure, or NaN) at ",
                             where.empty() ? "an element mean" : where));
  }
  return cfl * smallest / (2 * d.order + 1);
}
namespace {
/// Times each group of launches of a stage with device events between the groups (no host
/// synchronisation in the stage), for the benchmark.
struct StageTimer {
  DeviceTimer timer;
  struct Interval {
    std::string name;
    std::size_t begin, end;
  };
  std::vector<Interval> intervals;
  std::size_t last = 0;
  void start() { last = timer.mark(); }
  void mark(const char* name) {
    const std::size_t now = timer.mark();
    intervals.push_back({name, last, now});
    last = now;
  }
  /// Seconds per group name, summed over the stages, in launch order.
  std::vector<std::pair<std::string, double>> seconds() {
    std::vector<std::pair<std::string, double>> sums;
    for (const Interval& interval : intervals) {
      auto it = std::find_if(sums.begin(), sums.end(), [&](const auto& entry) { return entry.first == interval.name; });
      if (it == sums.end()) it = sums.insert(sums.end(), {interval.name, 0.0});
      it->second += timer.seconds(interval.begin, interval.end);
    }
    return sums;
  }
};

void run_stage(Solver::Data& d, const SolverOptions& options, double t_stage, const StageUpdate& update,
               StageTimer* timer = nullptr) {
  const Tables tables = d.tables();
  const FaceData faces = d.faces();
  if (timer != nullptr) timer->start();
  with_order(d.order, [&](auto order) {
    constexpr int P = decltype(order)::value;
    const KernelChoice choice{d.element_kernel, d.face_kernel, d.chained};
    with_flux(options.flux, [&](auto flux) {
      launch_faces<P, decltype(flux)>(d.backend, choice, d.u.view(), d.flux.view(), faces, tables, d.Ks, options.gas,
                                      d.boundary_ranges, 0, d.F, t_stage);
      if (timer != nullptr) timer->mark("faces");
    });
    const ElementKernel<P> element{d.u.view(), d.flux.view(), d.geometry.view(), d.element_face_code.view(), tables,
                                   d.Ks, d.Fs, options.gas, update, d.K, 0};
    launch_element<P>(d.backend, choice, element, d.tensor_tables.view().data);
    if (timer != nullptr) timer->mark("element");
    if (options.limiter != Limiter::none || options.positivity) {
      launch_limiter<P>(d, options);
      if (timer != nullptr) timer->mark("limiter");
    }
  });
}
}  // namespace

bool uses_chained_launches(Backend backend, bool requested) {
  return requested && backend == Backend::cuda && device_compute_capability() >= 90;
}

void Solver::step(const RungeKuttaScheme& scheme, double t, double dt, bool monitor_change) {
  Data& d = *data_;
  const StreamScope on_stream(*d.stream);
  const Space space = space_of(d.backend);
  const bool keep_u0 = scheme.uses_u0 || monitor_change;
  // Zeros in the padding, which the kernels never write and the change monitor reads (a device
  // fill: a host one costs a host-to-device copy of the whole state).
  if (keep_u0 && d.u0.size() != d.u.size()) {
    d.u0 = Array<double>(space, d.u.size());
    for_each(d.backend, d.u0.size(), Fill{d.u0.view(), 0.0});
  }
  if (scheme.uses_q && d.q.size() != d.u.size()) d.q = Array<double>(space, d.u.size());
  // A scheme with u0 has its first stage's element kernel store it (StageUpdate::start_u0); only a
  // monitored step of a scheme without one copies the state first.
  if (keep_u0 && !scheme.uses_u0) d.u0.copy_from(d.u);
  StageUpdate update;
  update.dt = dt;
  if (scheme.uses_u0) update.u0 = d.u0.view();
  if (scheme.uses_q) update.q = d.q.view();
  for (std::size_t i = 0; i < scheme.stages.size(); ++i) {
    update.stage = scheme.stages[i];
    update.set(stage_registers(scheme, i));
    run_stage(d, options_, t + update.stage.c * dt, update);
  }
  if (monitor_change)
    last_change_ = reduce_max<double>(d.backend, d.u.size(), ChangeKernel{d.u.view(), d.u0.view()});
}

void Solver::apply_limiter() {
  const StreamScope on_stream(*data_->stream);
  with_order(data_->order, [&](auto order) { launch_limiter<decltype(order)::value>(*data_, options_); });
}

std::vector<KernelTiming> Solver::time_kernels(const RungeKuttaScheme& scheme, double dt, int repeats) {
  Data& d = *data_;
  const StreamScope on_stream(*d.stream);
  const Space space = space_of(d.backend);
  if (scheme.uses_u0 && d.u0.size() != d.u.size()) d.u0 = Array<double>(space, d.u.size());
  if (scheme.uses_q && d.q.size() != d.u.size()) d.q = Array<double>(space, d.u.size());
  StageUpdate update;
  update.dt = dt;
  if (scheme.uses_u0) update.u0 = d.u0.view();
  if (scheme.uses_q) update.q = d.q.view();
  StageTimer timer{DeviceTimer(d.backend), {}, 0};
  if (scheme.uses_u0) d.u0.copy_from(d.u);
  for (int repeat = 0; repeat < repeats; ++repeat)
    for (std::size_t i = 0; i < scheme.stages.size(); ++i) {
      update.stage = scheme.stages[i];
      update.set(stage_registers(scheme, i));
      run_stage(d, options_, update.stage.c * dt, update, &timer);
    }
  // Bytes each group must move per stage (each input read once, each output written once; the
  // basis tables are a few kilobytes and stay in cache, so they are not counted).
  const double word = sizeof(double), element_state = NV * d.Np * word, face_flux = NV * d.Nfq * word;
  const double interior = static_cast<double>(d.F - d.B), boundary = static_cast<double>(d.B), K = static_cast<double>(d.K);
  const double registers = register_words_per_stage(scheme) * element_state;
  const double faces_geometry = 3 * word + 2 * sizeof(index_t) + 2 * sizeof(int);
  std::vector<KernelTiming> timings;
  const double stages = static_cast<double>(repeats) * scheme.n_stages();
  for (const auto& [name, seconds] : timer.seconds()) {
    double bytes = 0;
    // faces: every element's coefficients once (its three faces share them through the caches),
    // each face's geometry and element ids once, each flux written once, boundary points read once.
    if (name == "faces") bytes = K * element_state + (interior + boundary) * (faces_geometry + face_flux) + boundary * 2 * d.Nfq * word;
    if (name == "element") bytes = K * (2 * element_state + static_cast<double>(n_geometry) * word + 3 * sizeof(index_t) + 3 * face_flux) + K * registers;
    // limiter: the element's coefficients read (written only where limited), three neighbour ids,
    // three neighbours' means (p > 1 also reads the vertex neighbours' means for detection: not counted).
    if (name == "limiter") bytes = K * (element_state + 3 * sizeof(index_t) + 3 * NV * word);
    std::string variant;
    if (d.backend == Backend::cuda && name == "faces") variant = d.face_kernel == GpuFaceKernel::block ? "block" : d.face_kernel == GpuFaceKernel::warp ? "warp" : "point";
    if (d.backend == Backend::cuda && name == "element")
      variant = d.element_kernel == GpuElementKernel::tensor ? "tensor" : d.element_kernel == GpuElementKernel::block ? "block" : "thread";
    timings.push_back({name, variant, seconds / stages, bytes});
  }
  return timings;
}

std::vector<double> Solver::residual(double t) {
  Data& d = *data_;
  const StreamScope on_stream(*d.stream);
  if (d.q.size() != d.u.size()) d.q = Array<double>(space_of(d.backend), d.u.size());
  StageUpdate update;
  update.dt = 1.0;
  update.q = d.q.view();
  update.stage = RungeKuttaStage{};
  update.stage.q_k = 1.0;  // q = R(u)
  update.stage.u_s = 1.0;  // u unchanged
  run_stage(d, options_, t, update);
  return unpad_rows(d.q.to_host(), NV * d.Np, d.K, d.Ks);
}

}  // namespace flowdg::euler2d
