// The SIPG assembly's launches (nvcc compiles this file when CUDA is on): the pattern of Approach
// 2, the element / interior / boundary kernels by degree group, the three ways of summing their
// blocks into CSR, and the right-hand side. poly/sipg.hpp describes the method.
#include <chrono>
#include <utility>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/core/error.hpp"
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
  k.diagonal_offset = diagonal_offset;
  k.interface_offset = interface_offset;
  return k;
}

/// Kernel<D, P, Real>{view, group, extra} over every non-empty group P = 1..max_degree.
template <template <int, int, class> class Kernel, int D, class Real, class Extra, int... Ps>
void launch_groups(Backend backend, const std::array<Array<index_t>, max_degree + 1>& groups, const KernelView& k,
                   const Extra& extra, std::integer_sequence<int, Ps...>) {
  const auto one = [&]<int P>() {
    const Array<index_t>& group = groups[P];
    if (group.size() == 0) return;
    for_each(backend, group.size(), Kernel<D, P, Real>{k, group.view(), extra});
  };
  (one.template operator()<Ps + 1>(), ...);
}

template <template <int, int, class> class Kernel, class Real, class Extra>
void launch(Backend backend, int dimension, const std::array<Array<index_t>, max_degree + 1>& groups,
            const KernelView& k, const Extra& extra) {
  if (dimension == 2)
    launch_groups<Kernel, 2, Real>(backend, groups, k, extra, std::make_integer_sequence<int, max_degree>{});
  else
    launch_groups<Kernel, 3, Real>(backend, groups, k, extra, std::make_integer_sequence<int, max_degree>{});
}

/// Approach 2's pattern from the element adjacency: element e's rows hold the blocks of e and of
/// its neighbours, by element number; every row of e has the same columns.
struct Pattern {
  std::vector<index_t> row_start, column, diagonal_offset, interface_offset, block_row_start;
};

Pattern make_pattern(const PolyMesh& mesh, const std::vector<int>& degrees, const std::vector<index_t>& dof_start,
                     int dimension) {
  const index_t K = mesh.n_elements(), I = mesh.n_interfaces();
  Pattern pattern;
  pattern.diagonal_offset.assign(K, 0);
  pattern.interface_offset.assign(2 * I, 0);
  std::vector<index_t> row_length(K);
  for (index_t e = 0; e < K; ++e) {
    index_t offset = 0;
    bool diagonal_done = false;
    for (index_t a = mesh.element_interface_start[e]; a < mesh.element_interface_start[e + 1]; ++a) {
      const index_t interface = mesh.element_interfaces[a], m = mesh.neighbour(interface, e);
      if (!diagonal_done && m > e) {
        pattern.diagonal_offset[e] = offset;
        offset += basis_size(degrees[e], dimension);
        diagonal_done = true;
      }
      pattern.interface_offset[2 * interface + (mesh.interface_elements[2 * interface] == e ? 0 : 1)] = offset;
      offset += basis_size(degrees[m], dimension);
    }
    if (!diagonal_done) {
      pattern.diagonal_offset[e] = offset;
      offset += basis_size(degrees[e], dimension);
    }
    row_length[e] = offset;
  }
  const index_t rows = dof_start[K];
  pattern.row_start.assign(rows + 1, 0);
  for (index_t e = 0; e < K; ++e)
    for (index_t r = dof_start[e]; r < dof_start[e + 1]; ++r) pattern.row_start[r + 1] = pattern.row_start[r] + row_length[e];
  pattern.column.resize(pattern.row_start[rows]);
  for (index_t e = 0; e < K; ++e) {
    const index_t first_row = dof_start[e];
    index_t* out = pattern.column.data() + pattern.row_start[first_row];
    const auto put = [&](index_t m) {
      for (index_t c = dof_start[m]; c < dof_start[m + 1]; ++c) *out++ = c;
    };
    bool diagonal_done = false;
    for (index_t a = mesh.element_interface_start[e]; a < mesh.element_interface_start[e + 1]; ++a) {
      const index_t m = mesh.neighbour(mesh.element_interfaces[a], e);
      if (!diagonal_done && m > e) {
        put(e);
        diagonal_done = true;
      }
      put(m);
    }
    if (!diagonal_done) put(e);
    for (index_t r = first_row + 1; r < dof_start[e + 1]; ++r)
      std::copy(pattern.column.data() + pattern.row_start[first_row], pattern.column.data() + pattern.row_start[first_row + 1],
                pattern.column.data() + pattern.row_start[r]);
  }
  pattern.block_row_start.assign(K + 2 * I + 1, 0);
  for (index_t e = 0; e < K; ++e) pattern.block_row_start[e + 1] = pattern.block_row_start[e] + basis_size(degrees[e], dimension);
  for (index_t i = 0; i < I; ++i)
    for (int s = 0; s < 2; ++s) {
      const index_t b = K + 2 * i + s;
      pattern.block_row_start[b + 1] =
          pattern.block_row_start[b] + basis_size(degrees[mesh.interface_elements[2 * i + s]], dimension);
    }
  return pattern;
}

/// Approach 1's conversion (interim: on the host, linalg::csr_from_coo).
template <class Real>
linalg::CsrMatrix<Real> coo_to_csr(Backend backend, index_t rows, const Array<index_t>& row, const Array<index_t>& column,
                                   const Array<Real>& value) {
  linalg::CooMatrix<Real> coo(rows, rows);
  coo.row = row.to_host();
  coo.column = column.to_host();
  coo.value = value.to_host();
  return linalg::csr_from_coo(coo, space_of(backend));
}

template <int D, int P, class Real>
using RightHandSideKernel = RightHandSide<D, P, Real>;

}  // namespace

template <class Real>
AssembledSystem<Real> SipgDiscretisation::assemble(AssemblyMethod method) const {
  const DeviceData& d = *data_;
  const Space space = space_of(backend_);
  const index_t K = mesh_.n_elements(), rows = dofs();
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

  // the pattern (Approach 2)
  Array<index_t> row_start, column, diagonal_offset, interface_offset, block_row_start;
  index_t block_rows = 0;
  if (method != AssemblyMethod::coo) {
    Pattern pattern = make_pattern(mesh_, degrees_, dof_start_, mesh_.dimension);
    row_start = Array<index_t>(space, pattern.row_start);
    column = Array<index_t>(space, pattern.column);
    diagonal_offset = Array<index_t>(space, pattern.diagonal_offset);
    interface_offset = Array<index_t>(space, pattern.interface_offset);
    block_row_start = Array<index_t>(space, pattern.block_row_start);
    block_rows = pattern.block_row_start.back();
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
  launch<ElementBlock, Real>(backend_, mesh_.dimension, d.simplex_group, k, sink);
  lap(times.element);
  launch<InteriorBlocks, Real>(backend_, mesh_.dimension, d.interior_group, k, sink);
  lap(times.interior);
  launch<BoundaryBlock, Real>(backend_, mesh_.dimension, d.boundary_group, k, sink);
  lap(times.boundary);

  // into CSR
  if (method == AssemblyMethod::coo) {
    system.matrix = coo_to_csr(backend_, rows, coo_row, coo_column, values);
  } else if (method == AssemblyMethod::deterministic) {
    linalg::CsrMatrix<Real> matrix;
    matrix.rows = matrix.cols = rows;
    matrix.value = Array<Real>(space, column.size());
    for_each(backend_, block_rows,
             ReduceBlockRows<Real>{k, K, block_row_start.view(), row_start.view(), values.view(), matrix.value.view(),
                                   mesh_.dimension});
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
  launch<RightHandSideKernel, Real>(backend_, mesh_.dimension, d.element_group, k, system.rhs.view());
  lap(times.rhs);
  times.total = since(start);
  times.nonzeros = system.matrix.nonzeros();
  return system;
}

template AssembledSystem<float> SipgDiscretisation::assemble<float>(AssemblyMethod) const;
template AssembledSystem<double> SipgDiscretisation::assemble<double>(AssemblyMethod) const;

}  // namespace flowdg::poly
