// The SIPG assembly's launches (nvcc compiles this file when CUDA is on): the pattern of Approach
// 2, the element / interior / boundary kernels by degree group, the three ways of summing their
// blocks into CSR, and the right-hand side. poly/sipg.hpp describes the method.
#include <algorithm>
#include <chrono>
#include <utility>

#if defined(__CUDACC__)
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#endif

#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/stream.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/linalg/coo.hpp"
#include "flowdg/linalg/ops.hpp"
#include "flowdg/poly/sipg_data.hpp"

namespace flowdg::poly {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

KernelView make_view(const DeviceData& d, View<const index_t> diagonal_offset, View<const index_t> interface_offset) {
  KernelView k{};
  k.nqv = d.nqv;
  k.nqf = d.nqf;
  k.owned = d.owned;
  k.volume_bary = d.volume_bary.view();
  k.volume_weight = d.volume_weight.view();
  k.face_bary = d.face_bary.view();
  k.face_weight = d.face_weight.view();
  k.degree = d.degree.view();
  k.dof_start = d.dof_start.view();
  k.box = d.box.view();
  k.simplex_start = d.simplex_start.view();
  k.boundary_start = d.boundary_start.view();
  k.element_interface_start = d.element_interface_start.view();
  k.element_interfaces = d.element_interfaces.view();
  k.interface_start = d.interface_start.view();
  k.interface_elements = d.interface_elements.view();
  k.simplex_element = d.simplex_element.view();
  k.simplex_points = d.simplex_points.view();
  k.simplex_measure = d.simplex_measure.view();
  k.interior_interface = d.interior_interface.view();
  k.interior_points = d.interior_points.view();
  k.interior_normal = d.interior_normal.view();
  k.interior_measure = d.interior_measure.view();
  k.interior_sigma = d.interior_sigma.view();
  k.boundary_element = d.boundary_element.view();
  k.boundary_points = d.boundary_points.view();
  k.boundary_normal = d.boundary_normal.view();
  k.boundary_measure = d.boundary_measure.view();
  k.boundary_sigma = d.boundary_sigma.view();
  k.boundary_neumann = d.boundary_neumann.view();
  k.volume_a = d.volume_a.view();
  k.volume_b = d.volume_b.view();
  k.volume_c = d.volume_c.view();
  k.volume_f = d.volume_f.view();
  k.interior_a = d.interior_a.view();
  k.interior_b = d.interior_b.view();
  k.boundary_a = d.boundary_a.view();
  k.boundary_b = d.boundary_b.view();
  k.boundary_gd = d.boundary_gd.view();
  k.boundary_gn = d.boundary_gn.view();
  k.simplex_offset = d.simplex_offset.view();
  k.boundary_offset = d.boundary_offset.view();
  k.interior_offset = d.interior_offset.view();
  k.space = d.local_space;
  k.time_degree = d.time_degree;
  k.nqt = d.nqt;
  k.time_point = d.time_point.view();
  k.time_weight = d.time_weight.view();
  k.slab = d.slab;
  k.volume_previous = d.volume_previous.view();
  k.diagonal_offset = diagonal_offset;
  k.interface_offset = interface_offset;
  return k;
}

/// Kernel<D, P, Real, ST>{view, group, extra} over every non-empty group P = 1..max_degree
/// (space-time kernels, ST, only up to max_space_time_degree(D): the constructor refuses more).
template <template <int, int, class, bool> class Kernel, int D, class Real, bool ST, class Extra, int... Ps>
void launch_groups(Backend backend, const std::array<Array<index_t>, max_degree + 1>& groups, const KernelView& k,
                   const Extra& extra, std::integer_sequence<int, Ps...>) {
  const auto one = [&]<int P>() {
    const Array<index_t>& group = groups[P];
    if (group.size() == 0) return;
    if constexpr (!ST || P <= max_space_time_degree(D)) {
      for_each(backend, group.size(), Kernel<D, P, Real, ST>{k, group.view(), extra});
    } else {
      throw Error(cat("SIPG: a space-time group of degree ", P, " (at most ", max_space_time_degree(D), " in ", D, "D)"));
    }
  };
  (one.template operator()<Ps + 1>(), ...);
}

template <template <int, int, class, bool> class Kernel, class Real, class Extra>
void launch(Backend backend, int dimension, bool space_time, const std::array<Array<index_t>, max_degree + 1>& groups,
            const KernelView& k, const Extra& extra) {
  const auto seq = std::make_integer_sequence<int, max_degree>{};
  if constexpr (std::is_same_v<Real, double>) {
    if (space_time) {
      if (dimension == 2) launch_groups<Kernel, 2, Real, true>(backend, groups, k, extra, seq);
      else launch_groups<Kernel, 3, Real, true>(backend, groups, k, extra, seq);
      return;
    }
  } else if (space_time) {
    throw Error("SIPG: space-time systems are assembled in double precision only");
  }
  if (dimension == 2) launch_groups<Kernel, 2, Real, false>(backend, groups, k, extra, seq);
  else launch_groups<Kernel, 3, Real, false>(backend, groups, k, extra, seq);
}

/// out[i] = sum of in[j < i]; returns the sum of all (a device scan on CUDA).
index_t exclusive_scan(Backend backend, View<const index_t> in, View<index_t> out) {
  const index_t n = in.size();
  if (n == 0) return 0;
  if (backend == Backend::cuda) {
#if defined(__CUDACC__)
    const auto policy = thrust::cuda::par.on(static_cast<cudaStream_t>(current_stream()));
    thrust::exclusive_scan(policy, in.data, in.data + n, out.data, index_t(0));
    index_t last_in = 0, last_out = 0;
    copy_bytes(&last_in, Space::host, in.data + n - 1, Space::device, sizeof(index_t));
    copy_bytes(&last_out, Space::host, out.data + n - 1, Space::device, sizeof(index_t));
    return last_in + last_out;
#else
    detail::throw_no_cuda_in_this_unit();
#endif
  }
  index_t sum = 0;
  for (index_t i = 0; i < n; ++i) {
    out[i] = sum;
    sum += in[i];
  }
  return sum;
}

template <int D, int P, class Real, bool ST>
using RightHandSideKernel = RightHandSide<D, P, Real, ST>;

}  // namespace

template <class Real>
AssembledSystem<Real> SipgDiscretisation::assemble(AssemblyMethod method) const {
  const DeviceData& d = *data_;
  const Space space = space_of(backend_);
  const index_t K = mesh_.n_elements(), rows = dofs();
  if (owned_ < K && method == AssemblyMethod::coo)
    throw InputError("SIPG: a rank's part is assembled the deterministic or the atomic way (coo sums entries of rows it does not own)");
  AssembledSystem<Real> system;
  system.method = method;
  AssemblyTimes& times = system.times;
  times.setup = setup_seconds_;
  const auto start = Clock::now();
  auto mark = Clock::now();
  const auto lap = [&](double& slot) {
    synchronize(backend_);
    slot += since(mark);
    mark = Clock::now();
  };

  // the pattern (Approach 2), on the device
  Array<index_t> row_start, column, diagonal_offset, interface_offset;
  if (method != AssemblyMethod::coo) {
    diagonal_offset = Array<index_t>(space, K);
    interface_offset = Array<index_t>(space, 2 * mesh_.n_interfaces());
    Array<index_t> length(space, K), entries(space, K), element_start(space, K);
    const KernelView view = make_view(d, {}, {});
    for_each(backend_, K, PatternLengths{view, mesh_.dimension, length.view(), entries.view(), diagonal_offset.view(),
                                         interface_offset.view()});
    const index_t nonzeros = exclusive_scan(backend_, entries.view(), element_start.view());
    row_start = Array<index_t>(space, rows + 1);
    column = Array<index_t>(space, nonzeros);
    for_each(backend_, K, PatternFill{view, mesh_.dimension, length.view(), element_start.view(), row_start.view(), column.view()});
    lap(times.pattern);
  }
  const KernelView k = make_view(d, diagonal_offset.view(), interface_offset.view());

  // the blocks
  Array<index_t> coo_row, coo_column;
  Array<Real> values;  // coo values, the scratch, or the CSR's values
  BlockSink<Real> sink;
  if (method == AssemblyMethod::coo) {
    coo_row = Array<index_t>(space, d.contribution_values);
    coo_column = Array<index_t>(space, d.contribution_values);
    values = Array<Real>(space, d.contribution_values);
    sink = {BlockSink<Real>::coo, coo_row.data(), coo_column.data(), values.data(), nullptr};
    times.coo_entries = d.contribution_values;
  } else if (method == AssemblyMethod::deterministic) {
    values = Array<Real>(space, d.contribution_values);
    sink = {BlockSink<Real>::scratch, nullptr, nullptr, values.data(), nullptr};
  } else {
    values = Array<Real>(space, column.size());
    linalg::fill<Real>(backend_, 0, values.view());
    sink = {BlockSink<Real>::atomic, nullptr, nullptr, values.data(), row_start.data()};
  }
  lap(times.pattern);
  launch<ElementBlock, Real>(backend_, mesh_.dimension, space_time(), d.simplex_group, k, sink);
  lap(times.element);
  launch<InteriorBlocks, Real>(backend_, mesh_.dimension, space_time(), d.interior_group, k, sink);
  lap(times.interior);
  launch<BoundaryBlock, Real>(backend_, mesh_.dimension, space_time(), d.boundary_group, k, sink);
  lap(times.boundary);

  // into CSR
  if (method == AssemblyMethod::coo) {
    system.matrix = linalg::csr_from_coo<Real>(backend_, rows, rows, coo_row.view(), coo_column.view(), values.view());
  } else if (method == AssemblyMethod::deterministic) {
    linalg::CsrMatrix<Real> matrix;
    matrix.rows = matrix.cols = rows;
    matrix.value = Array<Real>(space, column.size());
    if (options_.reduction == SipgOptions::Reduction::per_block) {
      for_each(backend_, K + 2 * mesh_.n_interfaces(),
               ReduceBlocks<Real>{k, K, row_start.view(), values.view(), matrix.value.view(), mesh_.dimension});
    } else {
      index_t width = 0;
      for (const int p : degrees_) width = std::max<index_t>(width, local_size(p, mesh_.dimension, options_.space, time_degree_));
      for_each(backend_, (K + 2 * mesh_.n_interfaces()) * width * width,
               ReduceBlockEntries<Real>{k, K, row_start.view(), values.view(), matrix.value.view(), mesh_.dimension, width});
    }
    matrix.row_start = std::move(row_start);
    matrix.column = std::move(column);
    system.matrix = std::move(matrix);
  } else {
    linalg::CsrMatrix<Real> matrix;
    matrix.rows = matrix.cols = rows;
    matrix.value = std::move(values);
    matrix.row_start = std::move(row_start);
    matrix.column = std::move(column);
    system.matrix = std::move(matrix);
  }
  lap(times.indices);

  // the right-hand side
  system.rhs = Array<Real>(space, rows);
  launch<RightHandSideKernel, Real>(backend_, mesh_.dimension, space_time(), d.element_group, k, system.rhs.view());
  lap(times.rhs);
  if (owned_ < K) {  // a part: its owned rows, every local column
    const index_t owned_rows = owned_dofs();
    index_t entries = 0;
    copy_bytes(&entries, Space::host, system.matrix.row_start.data() + owned_rows, space, sizeof(index_t));
    linalg::CsrMatrix<Real> part;
    part.rows = owned_rows;
    part.cols = rows;
    part.row_start = Array<index_t>(space, owned_rows + 1);
    part.column = Array<index_t>(space, entries);
    part.value = Array<Real>(space, entries);
    copy_bytes(part.row_start.data(), space, system.matrix.row_start.data(), space, sizeof(index_t) * (owned_rows + 1));
    copy_bytes(part.column.data(), space, system.matrix.column.data(), space, sizeof(index_t) * entries);
    copy_bytes(part.value.data(), space, system.matrix.value.data(), space, sizeof(Real) * entries);
    Array<Real> rhs(space, owned_rows);
    copy_bytes(rhs.data(), space, system.rhs.data(), space, sizeof(Real) * owned_rows);
    system.matrix = std::move(part);
    system.rhs = std::move(rhs);
  }
  times.total = since(start);
  times.nonzeros = system.matrix.nonzeros();
  return system;
}

void SipgDiscretisation::top_trace(const Array<double>& solution, double previous_dt) {
  DeviceData& d = *data_;
  if (!space_time()) throw Error("SIPG: top_trace of a steady discretisation");
  if (solution.size() != dofs() || solution.space() != space_of(backend_))
    throw Error(cat("SIPG: top_trace of ", solution.size(), " values for ", dofs(), " unknowns (or in the wrong space)"));
  const index_t points = mesh_.quadrature.n_simplices() * d.nqv;
  if (d.volume_previous.stride != 1 || d.volume_previous.values.size() != points) {
    d.volume_previous.values = Array<double>(space_of(backend_), points);
    d.volume_previous.stride = 1;
  }
  const KernelView k = make_view(d, {}, {});
  const TopTraceExtra extra{solution.view(), slab_map(previous_dt), d.volume_previous.values.view()};
  if (mesh_.dimension == 2)
    launch_groups<TopTrace, 2, double, true>(backend_, d.simplex_group, k, extra, std::make_integer_sequence<int, max_degree>{});
  else
    launch_groups<TopTrace, 3, double, true>(backend_, d.simplex_group, k, extra, std::make_integer_sequence<int, max_degree>{});
  synchronize(backend_);
}

template <class Real>
Array<Real> SipgDiscretisation::assemble_rhs() const {
  const KernelView k = make_view(*data_, {}, {});
  Array<Real> rhs(space_of(backend_), dofs());
  launch<RightHandSideKernel, Real>(backend_, mesh_.dimension, space_time(), data_->element_group, k, rhs.view());
  synchronize(backend_);
  if (owned_ < mesh_.n_elements()) {
    Array<Real> part(space_of(backend_), owned_dofs());
    copy_bytes(part.data(), space_of(backend_), rhs.data(), space_of(backend_), sizeof(Real) * owned_dofs());
    return part;
  }
  return rhs;
}

template Array<float> SipgDiscretisation::assemble_rhs<float>() const;
template Array<double> SipgDiscretisation::assemble_rhs<double>() const;
template AssembledSystem<float> SipgDiscretisation::assemble<float>(AssemblyMethod) const;
template AssembledSystem<double> SipgDiscretisation::assemble<double>(AssemblyMethod) const;

}  // namespace flowdg::poly
