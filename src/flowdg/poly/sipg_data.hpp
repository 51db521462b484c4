#pragma once
// The SIPG discretisation's arrays in the backend's memory and the assembly kernels' functors
// (poly/sipg.hpp describes the method; sipg.cpp fills these arrays, sipg_kernels.cpp launches the
// functors). Every functor is written once for both backends and templated on the dimension D, the
// degree bound P of its launch group (arrays of basis_size(P, D)) and the matrix's Real.
#include <array>
#include <atomic>
#include <cstdint>

#include "flowdg/backend/memory.hpp"
#include "flowdg/core/hd.hpp"
#include "flowdg/core/point.hpp"
#include "flowdg/poly/basis.hpp"
#include "flowdg/poly/sipg.hpp"

namespace flowdg::poly {

/// A coefficient sampled at points: values[i * stride + component]; stride 0 for a constant.
struct SampledView {
  View<const double> values;
  int stride = 0;
  FLOWDG_HD double operator()(index_t point, int component) const { return values[point * stride + component]; }
};

struct SampledArray {
  Array<double> values;
  int stride = 0;
  SampledView view() const { return {values.view(), stride}; }
};

/// Everything the kernels read, in the backend's memory.
struct DeviceData {
  int dimension = 2;
  index_t owned = 0;  ///< elements whose rows are assembled (a rank's part: its own; else all)
  int nqv = 0, nqf = 0;  ///< points of the volume and face rules
  Array<double> volume_bary, volume_weight;  ///< (d + 1) barycentric coordinates per point; weights summing to 1
  Array<double> face_bary, face_weight;      ///< d barycentric coordinates per point; weights summing to 1

  // elements
  Array<int> degree;
  Array<index_t> dof_start;  ///< n_elements + 1
  Array<BoxMap> box;
  Array<index_t> simplex_start, boundary_start, element_interface_start, element_interfaces, interface_start,
      interface_elements;

  // sub-simplices (grouped by element), interior and boundary sub-faces (as in PolyMesh)
  Array<index_t> simplex_element;
  Array<Point3> simplex_points;  ///< d + 1 per simplex
  Array<double> simplex_measure;
  Array<index_t> interior_interface;  ///< per interior sub-face: its interface
  Array<Point3> interior_points;      ///< d per sub-face
  Array<Point3> interior_normal;
  Array<double> interior_measure, interior_sigma;
  Array<index_t> boundary_element;
  Array<Point3> boundary_points, boundary_normal;
  Array<double> boundary_measure, boundary_sigma;
  Array<std::uint8_t> boundary_neumann;

  // coefficients at the quadrature points (point index = entity * nq + q)
  SampledArray volume_a, volume_b, volume_c, volume_f;
  SampledArray interior_a, interior_b;
  SampledArray boundary_a, boundary_b, boundary_gd, boundary_gn;

  // contribution offsets into the scratch / coordinate arrays: a simplex's block, a boundary
  // sub-face's block, an interior sub-face's four blocks (11, 12, 21, 22) one after the other
  Array<index_t> simplex_offset, boundary_offset, interior_offset;
  index_t contribution_values = 0;

  // space-time slabs (issue 19): the local space, the time rule (tau in [-1, 1], weights summing to
  // 1; one point of weight 1 for steady problems), the slab, and the previous slab's solution at
  // the volume points at t_{n-1} (u_h^- or the initial condition). Coefficients are sampled at
  // every (point, time point): index (entity * nq + q) * nqt + r.
  LocalSpace local_space = LocalSpace::spatial;
  int time_degree = 0;
  int nqt = 1;
  Array<double> time_point, time_weight;
  SlabMap slab = slab_map(1.0);
  SampledArray volume_previous;

  // launch groups by degree bound: ids of the sub-simplices / sub-faces of each group
  std::array<Array<index_t>, max_degree + 1> simplex_group, interior_group, boundary_group, element_group;
};

/// Where the kernels put a block: mode coo writes (row, column, value) at offset + i nc + j;
/// scratch writes the value there; atomic adds it into the CSR values at row_start[row0 + i] +
/// column_offset + j.
template <class Real>
struct BlockSink {
  enum Mode : int { coo = 0, scratch = 1, atomic = 2 };
  int mode = scratch;
  index_t* row = nullptr;
  index_t* column = nullptr;
  Real* value = nullptr;
  const index_t* row_start = nullptr;

  FLOWDG_HD void put(index_t offset, index_t row0, index_t column0, index_t column_offset, int nr, int nc,
                     const Real* block) const {
    if (mode == atomic) {
      for (int i = 0; i < nr; ++i) {
        Real* target = value + row_start[row0 + i] + column_offset;
        for (int j = 0; j < nc; ++j) {
#if defined(__CUDA_ARCH__)
          atomicAdd(target + j, block[i * nc + j]);
#else
          std::atomic_ref<Real>(target[j]).fetch_add(block[i * nc + j], std::memory_order_relaxed);
#endif
        }
      }
      return;
    }
    for (int i = 0; i < nr; ++i)
      for (int j = 0; j < nc; ++j) {
        const index_t at = offset + i * nc + j;
        value[at] = block[i * nc + j];
        if (mode == coo) {
          row[at] = row0 + i;
          column[at] = column0 + j;
        }
      }
  }
};

/// The read-only views the functors capture.
struct KernelView {
  int nqv, nqf;
  View<const double> volume_bary, volume_weight, face_bary, face_weight;
  View<const int> degree;
  View<const index_t> dof_start;
  View<const BoxMap> box;
  View<const index_t> simplex_start, boundary_start, element_interface_start, element_interfaces, interface_start,
      interface_elements;
  View<const index_t> simplex_element;
  View<const Point3> simplex_points;
  View<const double> simplex_measure;
  View<const index_t> interior_interface;
  View<const Point3> interior_points, interior_normal;
  View<const double> interior_measure, interior_sigma;
  View<const index_t> boundary_element;
  View<const Point3> boundary_points, boundary_normal;
  View<const double> boundary_measure, boundary_sigma;
  View<const std::uint8_t> boundary_neumann;
  SampledView volume_a, volume_b, volume_c, volume_f, interior_a, interior_b, boundary_a, boundary_b, boundary_gd,
      boundary_gn;
  View<const index_t> simplex_offset, boundary_offset, interior_offset;
  // space-time (see DeviceData)
  LocalSpace space = LocalSpace::spatial;
  int time_degree = 0;
  int nqt = 1;
  View<const double> time_point, time_weight;
  SlabMap slab;
  SampledView volume_previous;
  FLOWDG_HD int local(int p, int D) const { return local_size(p, D, space, time_degree); }
  index_t owned = 0;  ///< see DeviceData
  // pattern (Approach 2): per element the offset of its diagonal block within its rows, per
  // interface (2 i + s) the offset of the off-diagonal block in the rows of its side s
  View<const index_t> diagonal_offset, interface_offset;
};

/// The point of barycentric coordinates bary (n + 1 of them) in the simplex of n + 1 vertices.
FLOWDG_HD inline Point3 barycentric_point(const double* bary, const Point3* vertex, int vertices) {
  Point3 x{0, 0, 0};
  for (int v = 0; v < vertices; ++v) x = x + bary[v] * vertex[v];
  return x;
}

/// The local functions of an element of degree p at (x, tau): the spatial basis (steady) or the
/// space-time one of the view's space and slab; gradient and time_derivative may be null.
template <int D, int P, bool ST>
FLOWDG_HD inline void local_basis(const KernelView& k, const BoxMap& box, int p, Point3 x, double tau, double* value,
                                  double* gradient, double* time_derivative) {
  if constexpr (!ST) {
    (void)k;
    (void)tau;
    (void)time_derivative;
    evaluate_basis<D>(box, p, x, value, gradient);
  } else {
    double spatial[basis_size(P, D)], spatial_gradient[D * basis_size(P, D)];
    evaluate_space_time<D>(box, p, k.space, k.time_degree, k.slab, x, tau, spatial, spatial_gradient, value, gradient,
                           time_derivative);
  }
}

/// The element block of sub-simplex `group[t]`.
template <int D, int P, class Real, bool ST>
struct ElementBlock {
  KernelView k;
  View<const index_t> group;
  BlockSink<Real> sink;
  FLOWDG_HD void operator()(index_t t) const {
    constexpr int N = max_local_size(P, D, ST);
    const index_t s = group[t], e = k.simplex_element[s];
    const int p = k.degree[e], n = k.local(p, D);
    const BoxMap box = k.box[e];
    const Point3* vertex = k.simplex_points.data + (D + 1) * s;
    const double measure = k.simplex_measure[s];
    Real block[N * N];
    for (int m = 0; m < n * n; ++m) block[m] = 0;
    double phi[N], grad[N * D], flux[N * D], dphi[ST ? N : 1];
    for (int q = 0; q < k.nqv; ++q)
    for (int tq = 0; tq < k.nqt; ++tq) {
      const Point3 x = barycentric_point(k.volume_bary.data + (D + 1) * q, vertex, D + 1);
      const double w = k.volume_weight[q] * measure * k.time_weight[tq] * k.slab.dt;
      local_basis<D, P, ST>(k, box, p, x, k.time_point[tq], phi, grad, dphi);
      const index_t point = (s * k.nqv + q) * k.nqt + tq;
      double a[D * D], b[D];
      for (int r = 0; r < D * D; ++r) a[r] = k.volume_a(point, r);
      for (int r = 0; r < D; ++r) b[r] = k.volume_b(point, r);
      const double c = k.volume_c(point, 0);
      // per trial function j: w a grad phi_j, and w (b . grad phi_j + c phi_j) in flux's place 0 of phi
      double advective[N];
      for (int j = 0; j < n; ++j) {
        double bg = c * phi[j];
        if constexpr (ST) bg += dphi[j];  // the time derivative: (d u / dt) v
        for (int r = 0; r < D; ++r) {
          double sum = 0;
          for (int l = 0; l < D; ++l) sum += a[r * D + l] * grad[D * j + l];
          flux[D * j + r] = w * sum;
          bg += b[r] * grad[D * j + r];
        }
        advective[j] = w * bg;
      }
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          double v = advective[j] * phi[i];
          for (int r = 0; r < D; ++r) v += flux[D * j + r] * grad[D * i + r];
          block[i * n + j] += static_cast<Real>(v);
        }
    }
    if constexpr (ST) {  // the upwind time jump at t_{n-1}: u^+ v^+ (u^- goes to the right-hand side)
      for (int q = 0; q < k.nqv; ++q) {
        const Point3 x = barycentric_point(k.volume_bary.data + (D + 1) * q, vertex, D + 1);
        const double w = k.volume_weight[q] * measure;
        local_basis<D, P, ST>(k, box, p, x, -1.0, phi, nullptr, nullptr);
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) block[i * n + j] += static_cast<Real>(w * phi[i] * phi[j]);
      }
    }
    const index_t dof = k.dof_start[e];
    sink.put(k.simplex_offset.size() ? k.simplex_offset[s] : 0, dof, dof,
             k.diagonal_offset.size() ? k.diagonal_offset[e] : 0, n, n, block);
  }
};

/// The four blocks of interior sub-face `group[t]` (sides 1 and 2: the interface's first and
/// second element; the normal points from 1 into 2).
template <int D, int P, class Real, bool ST>
struct InteriorBlocks {
  KernelView k;
  View<const index_t> group;
  BlockSink<Real> sink;
  FLOWDG_HD void operator()(index_t t) const {
    constexpr int N = max_local_size(P, D, ST);
    const index_t f = group[t], interface = k.interior_interface[f];
    const index_t element[2] = {k.interface_elements[2 * interface], k.interface_elements[2 * interface + 1]};
    int p[2], n[2];
    BoxMap box[2];
    for (int s = 0; s < 2; ++s) {
      p[s] = k.degree[element[s]];
      n[s] = k.local(p[s], D);
      box[s] = k.box[element[s]];
    }
    const Point3* vertex = k.interior_points.data + D * f;
    const Point3 normal = k.interior_normal[f];
    const double nv[3] = {normal.x, normal.y, normal.z};
    const double measure = k.interior_measure[f], sigma = k.interior_sigma[f];
    Real block[N * N];
    double phi_test[N], grad_test[N * D], phi_trial[N], grad_trial[N * D], flux_test[N], flux_trial[N];
    index_t offset = k.interior_offset.size() ? k.interior_offset[f] : 0;
    for (int s = 0; s < 2; ++s)      // the test function's side
      for (int u = 0; u < 2; ++u) {  // the trial function's side
        const int nr = n[s], nc = n[u];
        if (element[s] >= k.owned) {  // a part's ghost side: its rows belong to another rank
          offset += static_cast<index_t>(nr) * nc;
          continue;
        }
        for (int m = 0; m < nr * nc; ++m) block[m] = 0;
        const double sign_test = s == 0 ? 1 : -1, sign_trial = u == 0 ? 1 : -1;
        for (int q = 0; q < k.nqf; ++q)
        for (int tq = 0; tq < k.nqt; ++tq) {
          const Point3 x = barycentric_point(k.face_bary.data + D * q, vertex, D);
          const double w = k.face_weight[q] * measure * k.time_weight[tq] * k.slab.dt;
          local_basis<D, P, ST>(k, box[s], p[s], x, k.time_point[tq], phi_test, grad_test, nullptr);
          local_basis<D, P, ST>(k, box[u], p[u], x, k.time_point[tq], phi_trial, grad_trial, nullptr);
          const index_t point = (f * k.nqf + q) * k.nqt + tq;
          double an[D], bn = 0;  // a n (a symmetric: (a grad phi) . n = grad phi . (a n)), b . n
          for (int r = 0; r < D; ++r) {
            double sum = 0;
            for (int l = 0; l < D; ++l) sum += k.interior_a(point, r * D + l) * nv[l];
            an[r] = sum;
            bn += k.interior_b(point, r) * nv[r];
          }
          for (int i = 0; i < nr; ++i) {
            double sum = 0;
            for (int r = 0; r < D; ++r) sum += grad_test[D * i + r] * an[r];
            flux_test[i] = sum;
          }
          for (int j = 0; j < nc; ++j) {
            double sum = 0;
            for (int r = 0; r < D; ++r) sum += grad_trial[D * j + r] * an[r];
            flux_trial[j] = sum;
          }
          // upwind: where b . n < 0 the flow enters side 1: -(b.n)(u1 - u2) v1; where b . n > 0
          // it enters side 2: (b.n)(u2 - u1) v2
          double upwind = 0;
          if (bn < 0 && s == 0) upwind = u == 0 ? -bn : bn;
          if (bn > 0 && s == 1) upwind = u == 1 ? bn : -bn;
          for (int i = 0; i < nr; ++i)
            for (int j = 0; j < nc; ++j) {
              const double v = sigma * sign_test * sign_trial * phi_test[i] * phi_trial[j] -
                               0.5 * sign_test * flux_trial[j] * phi_test[i] -
                               0.5 * sign_trial * flux_test[i] * phi_trial[j] + upwind * phi_trial[j] * phi_test[i];
              block[i * nc + j] += static_cast<Real>(w * v);
            }
        }
        const index_t row0 = k.dof_start[element[s]], column0 = k.dof_start[element[u]];
        index_t column_offset = 0;
        if (k.diagonal_offset.size())
          column_offset = s == u ? k.diagonal_offset[element[s]] : k.interface_offset[2 * interface + s];
        sink.put(offset, row0, column0, column_offset, nr, nc, block);
        offset += static_cast<index_t>(nr) * nc;
      }
  }
};

/// The block of boundary sub-face `group[t]`: on a Dirichlet tag the penalty, the two diffusive
/// terms and the inflow term; on a Neumann tag nothing (a block of zeros).
template <int D, int P, class Real, bool ST>
struct BoundaryBlock {
  KernelView k;
  View<const index_t> group;
  BlockSink<Real> sink;
  FLOWDG_HD void operator()(index_t t) const {
    constexpr int N = max_local_size(P, D, ST);
    const index_t f = group[t], e = k.boundary_element[f];
    const int p = k.degree[e], n = k.local(p, D);
    const BoxMap box = k.box[e];
    Real block[N * N];
    for (int m = 0; m < n * n; ++m) block[m] = 0;
    if (!k.boundary_neumann[f]) {
      const Point3* vertex = k.boundary_points.data + D * f;
      const Point3 normal = k.boundary_normal[f];
      const double nv[3] = {normal.x, normal.y, normal.z};
      const double measure = k.boundary_measure[f], sigma = k.boundary_sigma[f];
      double phi[N], grad[N * D], flux[N];
      for (int q = 0; q < k.nqf; ++q)
      for (int tq = 0; tq < k.nqt; ++tq) {
        const Point3 x = barycentric_point(k.face_bary.data + D * q, vertex, D);
        const double w = k.face_weight[q] * measure * k.time_weight[tq] * k.slab.dt;
        local_basis<D, P, ST>(k, box, p, x, k.time_point[tq], phi, grad, nullptr);
        const index_t point = (f * k.nqf + q) * k.nqt + tq;
        double an[D], bn = 0;
        for (int r = 0; r < D; ++r) {
          double sum = 0;
          for (int l = 0; l < D; ++l) sum += k.boundary_a(point, r * D + l) * nv[l];
          an[r] = sum;
          bn += k.boundary_b(point, r) * nv[r];
        }
        for (int i = 0; i < n; ++i) {
          double sum = 0;
          for (int r = 0; r < D; ++r) sum += grad[D * i + r] * an[r];
          flux[i] = sum;
        }
        const double inflow = bn < 0 ? -bn : 0;
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < n; ++j) {
            const double v = (sigma + inflow) * phi[i] * phi[j] - flux[j] * phi[i] - flux[i] * phi[j];
            block[i * n + j] += static_cast<Real>(w * v);
          }
      }
    }
    const index_t dof = k.dof_start[e];
    sink.put(k.boundary_offset.size() ? k.boundary_offset[f] : 0, dof, dof,
             k.diagonal_offset.size() ? k.diagonal_offset[e] : 0, n, n, block);
  }
};

/// The right-hand side of element `group[t]`'s rows: its sub-simplices' f v, then its boundary
/// sub-faces' data terms, in that fixed order.
template <int D, int P, class Real, bool ST>
struct RightHandSide {
  KernelView k;
  View<const index_t> group;  ///< elements
  View<Real> rhs;
  FLOWDG_HD void operator()(index_t t) const {
    constexpr int N = max_local_size(P, D, ST);
    const index_t e = group[t];
    const int p = k.degree[e], n = k.local(p, D);
    const BoxMap box = k.box[e];
    double sum[N], phi[N], grad[N * D];
    for (int i = 0; i < n; ++i) sum[i] = 0;
    for (index_t s = k.simplex_start[e]; s < k.simplex_start[e + 1]; ++s) {
      const Point3* vertex = k.simplex_points.data + (D + 1) * s;
      for (int q = 0; q < k.nqv; ++q)
      for (int tq = 0; tq < k.nqt; ++tq) {
        const Point3 x = barycentric_point(k.volume_bary.data + (D + 1) * q, vertex, D + 1);
        const double wf = k.volume_weight[q] * k.simplex_measure[s] * k.time_weight[tq] * k.slab.dt *
                          k.volume_f((s * k.nqv + q) * k.nqt + tq, 0);
        local_basis<D, P, ST>(k, box, p, x, k.time_point[tq], phi, nullptr, nullptr);
        for (int i = 0; i < n; ++i) sum[i] += wf * phi[i];
      }
      if constexpr (ST) {  // the time jump's data: u_h^-(t_{n-1}) v^+
        for (int q = 0; q < k.nqv; ++q) {
          const Point3 x = barycentric_point(k.volume_bary.data + (D + 1) * q, vertex, D + 1);
          const double wu = k.volume_weight[q] * k.simplex_measure[s] * k.volume_previous(s * k.nqv + q, 0);
          local_basis<D, P, ST>(k, box, p, x, -1.0, phi, nullptr, nullptr);
          for (int i = 0; i < n; ++i) sum[i] += wu * phi[i];
        }
      }
    }
    for (index_t f = k.boundary_start[e]; f < k.boundary_start[e + 1]; ++f) {
      const Point3* vertex = k.boundary_points.data + D * f;
      const Point3 normal = k.boundary_normal[f];
      const double nv[3] = {normal.x, normal.y, normal.z};
      const bool neumann = k.boundary_neumann[f];
      for (int q = 0; q < k.nqf; ++q)
      for (int tq = 0; tq < k.nqt; ++tq) {
        const Point3 x = barycentric_point(k.face_bary.data + D * q, vertex, D);
        const double w = k.face_weight[q] * k.boundary_measure[f] * k.time_weight[tq] * k.slab.dt;
        const index_t point = (f * k.nqf + q) * k.nqt + tq;
        if (neumann) {
          local_basis<D, P, ST>(k, box, p, x, k.time_point[tq], phi, nullptr, nullptr);
          const double g = w * k.boundary_gn(point, 0);
          for (int i = 0; i < n; ++i) sum[i] += g * phi[i];
          continue;
        }
        local_basis<D, P, ST>(k, box, p, x, k.time_point[tq], phi, grad, nullptr);
        double an[D], bn = 0;
        for (int c = 0; c < D; ++c) {
          double a = 0;
          for (int l = 0; l < D; ++l) a += k.boundary_a(point, c * D + l) * nv[l];
          an[c] = a;
          bn += k.boundary_b(point, c) * nv[c];
        }
        const double g = w * k.boundary_gd(point, 0), weight = k.boundary_sigma[f] + (bn < 0 ? -bn : 0);
        for (int i = 0; i < n; ++i) {
          double flux = 0;
          for (int c = 0; c < D; ++c) flux += grad[D * i + c] * an[c];
          sum[i] += g * (weight * phi[i] - flux);
        }
      }
    }
    const index_t dof = k.dof_start[e];
    for (int i = 0; i < n; ++i) rhs[dof + i] = static_cast<Real>(sum[i]);
  }
};

/// Approach 2's pattern, step 1 (one thread per element e): its rows' length L_e (its block and
/// its neighbours', by element number), the offset of its diagonal block and of each interface's
/// block within its rows, and its entries n_e L_e.
struct PatternLengths {
  KernelView k;
  int dimension;
  View<index_t> length, entries, diagonal_offset, interface_offset;
  FLOWDG_HD void operator()(index_t e) const {
    const int D = dimension;
    if (e >= k.owned) {  // a part's other elements: empty rows
      length[e] = 0;
      entries[e] = 0;
      diagonal_offset[e] = 0;
      return;
    }
    index_t offset = 0;
    bool diagonal_done = false;
    for (index_t a = k.element_interface_start[e]; a < k.element_interface_start[e + 1]; ++a) {
      const index_t interface = k.element_interfaces[a];
      const index_t first = k.interface_elements[2 * interface];
      const index_t m = first == e ? k.interface_elements[2 * interface + 1] : first;
      if (!diagonal_done && m > e) {
        diagonal_offset[e] = offset;
        offset += k.local(k.degree[e], D);
        diagonal_done = true;
      }
      interface_offset[2 * interface + (first == e ? 0 : 1)] = offset;
      offset += k.local(k.degree[m], D);
    }
    if (!diagonal_done) {
      diagonal_offset[e] = offset;
      offset += k.local(k.degree[e], D);
    }
    length[e] = offset;
    entries[e] = offset * k.local(k.degree[e], D);
  }
};

/// Step 2 (one thread per element, after an exclusive scan of the entries into start): the row
/// offsets of its rows and their columns.
struct PatternFill {
  KernelView k;
  int dimension;
  View<const index_t> length, start;
  View<index_t> row_start, column;
  FLOWDG_HD void operator()(index_t e) const {
    const int n = k.local(k.degree[e], dimension);
    const index_t L = length[e], first_row = k.dof_start[e];
    for (int i = 0; i < n; ++i) row_start[first_row + i] = start[e] + i * L;
    if (e + 1 == length.size()) row_start[first_row + n] = start[e] + n * L;
    if (e >= k.owned) return;  // empty rows
    index_t* out = column.data + start[e];
    const auto put = [&](index_t m) {
      for (index_t c = k.dof_start[m]; c < k.dof_start[m + 1]; ++c) *out++ = c;
    };
    bool diagonal_done = false;
    for (index_t a = k.element_interface_start[e]; a < k.element_interface_start[e + 1]; ++a) {
      const index_t interface = k.element_interfaces[a];
      const index_t first = k.interface_elements[2 * interface];
      const index_t m = first == e ? k.interface_elements[2 * interface + 1] : first;
      if (!diagonal_done && m > e) {
        put(e);
        diagonal_done = true;
      }
      put(m);
    }
    if (!diagonal_done) put(e);
    for (int i = 1; i < n; ++i)
      for (index_t c = 0; c < L; ++c) column[start[e] + i * L + c] = column[start[e] + c];
  }
};

/// Approach 2, deterministic: one thread per block sums the block's contributions from the scratch
/// in a fixed order (diagonal block: the element's sub-simplices, its boundary sub-faces, then its
/// interfaces by neighbour number with their sub-faces in order; off-diagonal block: the interface's
/// sub-faces in order) and writes them at their CSR positions. Blocks: b < n_elements the diagonal
/// block of element b; b = n_elements + 2 i + s the off-diagonal block of interface i in the rows of
/// its side s.
template <class Real>
struct ReduceBlocks {
  KernelView k;
  index_t n_elements;
  View<const index_t> row_start;  ///< the CSR's
  View<const Real> scratch;
  View<Real> value;               ///< the CSR's
  int dimension;
  FLOWDG_HD void add(Real* out, const Real* in, index_t count) const {
    for (index_t j = 0; j < count; ++j) out[j] += in[j];
  }
  FLOWDG_HD void operator()(index_t b) const {
    const int D = dimension;
    if (b < n_elements) {
      const index_t e = b;
      if (e >= k.owned) return;  // a part's other rows are not assembled
      const index_t n = k.local(k.degree[e], D), dof = k.dof_start[e];
      for (index_t i = 0; i < n; ++i) {
        Real* out = value.data + row_start[dof + i] + k.diagonal_offset[e];
        for (index_t j = 0; j < n; ++j) out[j] = 0;
        for (index_t s = k.simplex_start[e]; s < k.simplex_start[e + 1]; ++s)
          add(out, scratch.data + k.simplex_offset[s] + i * n, n);
        for (index_t f = k.boundary_start[e]; f < k.boundary_start[e + 1]; ++f)
          add(out, scratch.data + k.boundary_offset[f] + i * n, n);
        for (index_t a = k.element_interface_start[e]; a < k.element_interface_start[e + 1]; ++a) {
          const index_t interface = k.element_interfaces[a];
          const index_t first = k.interface_elements[2 * interface], second = k.interface_elements[2 * interface + 1];
          const index_t n1 = k.local(k.degree[first], D), n2 = k.local(k.degree[second], D);
          const index_t skip = first == e ? 0 : n1 * n1 + 2 * n1 * n2;
          for (index_t f = k.interface_start[interface]; f < k.interface_start[interface + 1]; ++f)
            add(out, scratch.data + k.interior_offset[f] + skip + i * n, n);
        }
      }
      return;
    }
    const index_t interface = (b - n_elements) / 2;
    const int side = static_cast<int>((b - n_elements) % 2);
    const index_t first = k.interface_elements[2 * interface], second = k.interface_elements[2 * interface + 1];
    const index_t n1 = k.local(k.degree[first], D), n2 = k.local(k.degree[second], D);
    const index_t row_element = side == 0 ? first : second, nr = side == 0 ? n1 : n2, nc = side == 0 ? n2 : n1;
    if (row_element >= k.owned) return;
    const index_t skip = side == 0 ? n1 * n1 : n1 * n1 + n1 * n2;
    for (index_t i = 0; i < nr; ++i) {
      Real* out = value.data + row_start[k.dof_start[row_element] + i] + k.interface_offset[2 * interface + side];
      for (index_t j = 0; j < nc; ++j) out[j] = 0;
      for (index_t f = k.interface_start[interface]; f < k.interface_start[interface + 1]; ++f)
        add(out, scratch.data + k.interior_offset[f] + skip + i * nc, nc);
    }
  }
};

/// The same sums as ReduceBlocks, one thread per entry (i, j) of a block: thread t is entry
/// (r / width, r % width), r = t % width^2, of block t / width^2 (width: the largest local size;
/// threads outside a smaller block return). Each entry's contributions are added in ReduceBlocks'
/// order, so the bits are the same; neighbouring threads read and write neighbouring values.
template <class Real>
struct ReduceBlockEntries {
  KernelView k;
  index_t n_elements;
  View<const index_t> row_start;  ///< the CSR's
  View<const Real> scratch;
  View<Real> value;               ///< the CSR's
  int dimension;
  index_t width;
  FLOWDG_HD void operator()(index_t t) const {
    const int D = dimension;
    const index_t b = t / (width * width), r = t % (width * width), i = r / width, j = r % width;
    if (b < n_elements) {
      const index_t e = b;
      if (e >= k.owned) return;
      const index_t n = k.local(k.degree[e], D);
      if (i >= n || j >= n) return;
      Real sum = 0;
      for (index_t s = k.simplex_start[e]; s < k.simplex_start[e + 1]; ++s) sum += scratch[k.simplex_offset[s] + i * n + j];
      for (index_t f = k.boundary_start[e]; f < k.boundary_start[e + 1]; ++f) sum += scratch[k.boundary_offset[f] + i * n + j];
      for (index_t a = k.element_interface_start[e]; a < k.element_interface_start[e + 1]; ++a) {
        const index_t interface = k.element_interfaces[a];
        const index_t first = k.interface_elements[2 * interface], second = k.interface_elements[2 * interface + 1];
        const index_t n1 = k.local(k.degree[first], D), n2 = k.local(k.degree[second], D);
        const index_t skip = first == e ? 0 : n1 * n1 + 2 * n1 * n2;
        for (index_t f = k.interface_start[interface]; f < k.interface_start[interface + 1]; ++f)
          sum += scratch[k.interior_offset[f] + skip + i * n + j];
      }
      value[row_start[k.dof_start[e] + i] + k.diagonal_offset[e] + j] = sum;
      return;
    }
    const index_t interface = (b - n_elements) / 2;
    const int side = static_cast<int>((b - n_elements) % 2);
    const index_t first = k.interface_elements[2 * interface], second = k.interface_elements[2 * interface + 1];
    const index_t n1 = k.local(k.degree[first], D), n2 = k.local(k.degree[second], D);
    const index_t row_element = side == 0 ? first : second, nr = side == 0 ? n1 : n2, nc = side == 0 ? n2 : n1;
    if (row_element >= k.owned || i >= nr || j >= nc) return;
    const index_t skip = side == 0 ? n1 * n1 : n1 * n1 + n1 * n2;
    Real sum = 0;
    for (index_t f = k.interface_start[interface]; f < k.interface_start[interface + 1]; ++f)
      sum += scratch[k.interior_offset[f] + skip + i * nc + j];
    value[row_start[k.dof_start[row_element] + i] + k.interface_offset[2 * interface + side] + j] = sum;
  }
};

/// The space-time solution of the previous slab (coefficients `solution`, slab map `slab`) at the
/// top of that slab (tau = +1) at the volume points of sub-simplex `group[t]`: the values u_h^-
/// that the next slab's time jump takes (out[s nqv + q]).
struct TopTraceExtra {
  View<const double> solution;
  SlabMap slab;
  View<double> out;
};

template <int D, int P, class Real, bool ST>
struct TopTrace {
  KernelView k;
  View<const index_t> group;
  TopTraceExtra extra;
  FLOWDG_HD void operator()(index_t t) const {
    constexpr int N = max_local_size(P, D, ST);
    const index_t s = group[t], e = k.simplex_element[s];
    const int p = k.degree[e], n = k.local(p, D);
    const BoxMap box = k.box[e];
    const Point3* vertex = k.simplex_points.data + (D + 1) * s;
    KernelView previous = k;
    previous.slab = extra.slab;
    double phi[N];
    const index_t dof = k.dof_start[e];
    for (int q = 0; q < k.nqv; ++q) {
      const Point3 x = barycentric_point(k.volume_bary.data + (D + 1) * q, vertex, D + 1);
      local_basis<D, P, ST>(previous, box, p, x, 1.0, phi, nullptr, nullptr);
      double value = 0;
      for (int j = 0; j < n; ++j) value += extra.solution[dof + j] * phi[j];
      extra.out[s * k.nqv + q] = value;
    }
  }
};

}  // namespace flowdg::poly
