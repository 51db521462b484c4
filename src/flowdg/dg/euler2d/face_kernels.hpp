#pragma once
// 2D Euler solver, internal: the face kernels (one thread per face point on the CPU and CUDA; on
// CUDA also a block and a warp of faces through shared memory) and their launchers. Device code:
// included only by *_kernels.cpp files (compiled by nvcc when CUDA is on).
#include "flowdg/backend/for_each.hpp"
#include "flowdg/dg/euler2d/common.hpp"
#include "flowdg/physics/boundary/euler_boundary.hpp"

namespace flowdg::euler2d::impl {

// ---- face kernels ----------------------------------------------------------------------------

/// Stores w_q |e|/2 F_n at face point q, in the minus side's orientation and point order.
template <int P>
FLOWDG_HD FLOWDG_FORCEINLINE void store_face_flux(View<double> face_flux, index_t f, index_t F, int q, double weight,
                                                  const State& flux) {
  for (int v = 0; v < NV; ++v) face_flux[(static_cast<index_t>(v) * (P + 1) + q) * F + f] = weight * flux[v];
}

FLOWDG_HD inline State ghost_state(const BoundaryCondition& bc, const State& um, double nx, double ny,
                                   double x, double y, double t, const Gas& gas) {
  switch (bc.kind) {
    case BoundaryKind::slip_wall: return slip_wall(um, nx, ny);
    case BoundaryKind::curvature_wall: {
      double tx = 0, ty = 0;
      circle_tangent(bc.center_x, bc.center_y, x, y, -ny, nx, tx, ty);
      return curvature_wall(um, tx, ty);
    }
    case BoundaryKind::inflow: return supersonic_inflow(bc.flow(x, y, t));
    case BoundaryKind::outflow: return supersonic_outflow(um);
    case BoundaryKind::farfield: return characteristic_farfield(um, bc.flow(x, y, t), nx, ny, gas);
    case BoundaryKind::prescribed: return bc.flow(x, y, t);
  }
  return um;
}

/// The trace of the P-th order solution of element e on local face l at edge point `point`
/// (summed over j in order, as the pre-optimisation per-face kernel did).
template <int P>
FLOWDG_HD FLOWDG_FORCEINLINE State face_trace_at(View<const double> u, index_t K, index_t e, int l, const Tables& tables,
                                                 int point) {
  constexpr int Np = basis_count(P), Nfq = P + 1;
  const double* phi = &tables.face_phi[(l * Nfq + point) * Np];
  State trace;
  for (int v = 0; v < NV; ++v) {
    double value = 0.0;
FLOWDG_UNROLL
    for (int j = 0; j < Np; ++j) value += u[(static_cast<index_t>(v) * Np + j) * K + e] * phi[j];
    trace[v] = value;
  }
  return trace;
}

/// Boundary conditions of up to max_ranges consecutive ranges of boundary faces, for one launch.
struct BoundaryRanges {
  static constexpr int max_ranges = 6;
  index_t end[max_ranges] = {};
  BoundaryCondition condition[max_ranges] = {};
  int n = 0;
};

/// All faces of a stage in one launch, one thread per (face, edge point): faces [first, last),
/// boundary faces (f < B) taking the condition of their range, interior faces the right element's
/// trace. A thread per point instead of per face keeps registers low (two states, not 2 (p + 1)),
/// so occupancy stays high at every order; the p + 1 threads of a face are neighbours in the warp
/// and share the elements' coefficients through L1.
template <int P, class Flux>
struct FacePointKernel {
  View<const double> u;
  View<double> face_flux;
  FaceData faces;
  Tables tables;
  index_t K;
  Gas gas;
  BoundaryRanges boundary;
  index_t first_face;
  double t;

  struct Geometry {
    double nx, ny, half_length;
  };

  /// What face point i reads that no kernel writes (element ids, local faces, geometry): loaded
  /// before a chained launch waits for the previous kernel (for_each_prefetching).
  struct Prefetched {
    index_t element_m = 0, element_p = 0;
    int local_m = 0, local_p = 0;
    Geometry geometry{};
  };
  FLOWDG_HD FLOWDG_FORCEINLINE Prefetched prefetch(index_t i) const {
    const index_t f = first_face + i / (P + 1);
    Prefetched r;
    r.element_m = faces.element_m[f];
    r.local_m = faces.local_face_m[f];
    if (f >= faces.n_boundary) {
      r.element_p = faces.element_p[f];
      r.local_p = faces.local_face_p[f];
    }
    r.geometry = face_geometry(f);
    return r;
  }

  FLOWDG_HD void operator()(index_t i, const Prefetched& r) const {
    constexpr int Nfq = P + 1;
    const index_t f = first_face + i / Nfq;
    const int q = static_cast<int>(i % Nfq);
    const State um = face_trace_at<P>(u, K, r.element_m, r.local_m, tables, q);
    // Eq. (16): the right element traverses the shared edge in the opposite direction.
    point_flux(f, q, r.geometry, um, [&] { return face_trace_at<P>(u, K, r.element_p, r.local_p, tables, Nfq - 1 - q); });
  }
  FLOWDG_HD void operator()(index_t i) const { (*this)(i, prefetch(i)); }
  FLOWDG_HD FLOWDG_FORCEINLINE Geometry face_geometry(index_t f) const {
    const index_t F = faces.n_faces;
    return {faces.geometry[f], faces.geometry[F + f], faces.geometry[2 * F + f]};
  }

  /// The flux at point q of face f from the left trace um; plus_trace() gives the right element's
  /// trace at the same point (called for interior faces only).
  template <class PlusTrace>
  FLOWDG_HD FLOWDG_FORCEINLINE void point_flux(index_t f, int q, const Geometry& g, const State& um, PlusTrace&& plus_trace) const {
    constexpr int Nfq = P + 1;
    const index_t F = faces.n_faces, B = faces.n_boundary;
    const double nx = g.nx, ny = g.ny;
    const double weight = g.half_length * tables.face_weight[q];
    if (f >= B) {
      store_face_flux<P>(face_flux, f, F, q, weight, Flux{}(um, plus_trace(), nx, ny, gas));
      return;
    }
    int range = 0;
    while (range + 1 < boundary.n && f >= boundary.end[range]) ++range;
    const double x = faces.boundary_points[static_cast<index_t>(q) * B + f];
    const double y = faces.boundary_points[static_cast<index_t>(Nfq + q) * B + f];
    const State up = ghost_state(boundary.condition[range], um, nx, ny, x, y, t, gas);
    store_face_flux<P>(face_flux, f, F, q, weight, Flux{}(um, up, nx, ny, gas));
  }
};

#if defined(__CUDACC__)
/// All faces of a stage like FacePointKernel, but each trace is evaluated once per face instead of
/// once per face point: a thread per (face, side, variable) sums the Np coefficients into the
/// Nfq point values (shared memory), then a thread per (face, point) computes the flux. Each point
/// thread of FacePointKernel loads 2 x 4 Np coefficients; here a face loads them once (p + 1 times
/// fewer scattered loads). The sums run in the same order as face_trace_at's: the same numbers.
template <int P, class Flux>
__global__ void __launch_bounds__(face_block_threads, FLOWDG_FACE_BLOCK_MIN_BLOCKS) face_block_kernel(FacePointKernel<P, Flux> k, index_t n_faces) {
  constexpr int Np = basis_count(P), Nfq = P + 1, FB = face_block_faces(P);
  constexpr int items = 2 * NV * FB, rounds = (items + face_block_threads - 1) / face_block_threads;
  static_assert(Nfq * FB <= face_block_threads, "one pass of point threads");
  __shared__ double s_trace[2 * NV * Nfq * FB];  // [((side * NV + v) * Nfq + q) * FB + fl]
  __shared__ double s_phi[3 * Nfq * Np];
  // The face geometry waits for the point phase in registers up to p = 4 and in shared memory from
  // p = 5, where registers held through the trace sums cost spills (log 32: p = 3 400 -> 425 us
  // in shared memory, p = 5 755 -> 700 us).
  constexpr bool geometry_in_shared = P >= 5;
  __shared__ typename FacePointKernel<P, Flux>::Geometry s_geometry[geometry_in_shared ? FB : 1];
  const index_t first = static_cast<index_t>(blockIdx.x) * FB;
  const int n_local = static_cast<int>(n_faces - first < FB ? n_faces - first : FB);
  const index_t f0 = k.first_face + first, B = k.faces.n_boundary;
  // What no kernel writes is loaded before waiting for the previous kernel (a chained launch):
  // the basis at the edge points, the elements and local faces of this thread's traces, and the
  // face geometry of the point phase (used after the barrier, so its load is not on the way).
  for (int i = threadIdx.x; i < 3 * Nfq * Np; i += blockDim.x) s_phi[i] = k.tables.face_phi[i];
  index_t element[rounds];
  int local_face[rounds];
#pragma unroll
  for (int r = 0; r < rounds; ++r) {
    const int i = static_cast<int>(threadIdx.x) + r * face_block_threads, fl = i % FB, side = i / (NV * FB);
    const index_t f = f0 + fl;
    element[r] = -1;
    local_face[r] = 0;
    if (i >= items || fl >= n_local || (side == 1 && f < B)) continue;
    element[r] = side == 0 ? k.faces.element_m[f] : k.faces.element_p[f];
    local_face[r] = side == 0 ? k.faces.local_face_m[f] : k.faces.local_face_p[f];
  }
  const int point_fl = static_cast<int>(threadIdx.x) % FB, point_q = static_cast<int>(threadIdx.x) / FB;
  const bool point_thread = point_q < Nfq && point_fl < n_local;
  typename FacePointKernel<P, Flux>::Geometry geometry{};
  if constexpr (geometry_in_shared) {
    if (threadIdx.x < FB && static_cast<int>(threadIdx.x) < n_local) s_geometry[threadIdx.x] = k.face_geometry(f0 + threadIdx.x);
  } else if (point_thread) {
    geometry = k.face_geometry(f0 + point_fl);
  }
  detail::wait_for_previous_grid();
  __syncthreads();
#pragma unroll
  for (int r = 0; r < rounds; ++r) {
    const int i = static_cast<int>(threadIdx.x) + r * face_block_threads, fl = i % FB, side = i / (NV * FB), v = (i / FB) % NV;
    if (element[r] < 0) continue;
    const index_t e = element[r];
    const int l = local_face[r];
    const double* phi = s_phi + l * Nfq * Np;
    double trace[Nfq];
#pragma unroll
    for (int q = 0; q < Nfq; ++q) trace[q] = 0.0;
#pragma unroll
    for (int j = 0; j < Np; ++j) {
      const double c = __ldg(k.u.data + static_cast<index_t>(v * Np + j) * k.K + e);
#pragma unroll
      for (int q = 0; q < Nfq; ++q) trace[q] += c * phi[q * Np + j];
    }
#pragma unroll
    for (int q = 0; q < Nfq; ++q) s_trace[((side * NV + v) * Nfq + q) * FB + fl] = trace[q];
  }
  __syncthreads();
  if (!point_thread) return;
  State um;
  for (int v = 0; v < NV; ++v) um[v] = s_trace[(v * Nfq + point_q) * FB + point_fl];
  k.point_flux(f0 + point_fl, point_q, geometry_in_shared ? s_geometry[point_fl] : geometry, um, [&] {
    State up;
    for (int v = 0; v < NV; ++v) up[v] = s_trace[((NV + v) * Nfq + Nfq - 1 - point_q) * FB + point_fl];
    return up;
  });
}

/// Faces per warp of face_warp_kernel: as many as the warp's 32 lanes hold with a lane per point.
constexpr FLOWDG_HD int face_warp_faces(int p) { return 32 / (p + 1); }
constexpr int face_warp_threads = 256;

/// All faces of a stage like face_block_kernel, but each warp owns its own G = 32 / (p + 1) faces
/// and synchronises only itself: no block barrier stalls a warp on another's loads, and the flux
/// phase uses 32 - 32 mod (p + 1) lanes of the warp. A lane per (face, side, variable) sums the
/// trace into the warp's shared rows; then a lane per (face, point) takes both traces (and its
/// face's geometry, loaded at the start) and computes the flux. The sums run in face_trace_at's
/// order: the same numbers as the other face kernels. Not chosen automatically: the block kernel
/// with 64 registers and wider blocks is faster at every order from 3 (docs/performance.md, log
/// 19, 27-28); kept for comparison (--faces warp). Its id and trace loops repeat the block
/// kernel's on purpose: shared helpers for them made the block kernel 2% slower at p = 3, 4 (H100,
/// session 6).
template <int P, class Flux>
__global__ void __launch_bounds__(face_warp_threads, 4) face_warp_kernel(FacePointKernel<P, Flux> k, index_t n_faces) {
  constexpr int Np = basis_count(P), Nfq = P + 1, G = face_warp_faces(P), warps = face_warp_threads / 32;
  constexpr int items = 2 * NV * G, rounds = (items + 31) / 32;
  __shared__ double s_phi[3 * Nfq * Np];
  __shared__ double s_trace[warps][2 * NV * Nfq * G];  // [((side * NV + v) * Nfq + q) * G + fl]
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const index_t first = (static_cast<index_t>(blockIdx.x) * warps + warp) * G;
  const int n_local = first < n_faces ? static_cast<int>(n_faces - first < G ? n_faces - first : G) : 0;
  const index_t f0 = k.first_face + first, B = k.faces.n_boundary;
  // This lane's work in both phases: what no kernel writes is loaded before waiting for the
  // previous kernel (a chained launch) and before the block's one barrier.
  const int point_fl = lane % G, point_q = lane / G;
  const bool point_lane = point_q < Nfq && point_fl < n_local;
  typename FacePointKernel<P, Flux>::Geometry geometry{};
  if (point_lane) geometry = k.face_geometry(f0 + point_fl);
  index_t element[rounds];
  int local_face[rounds];
#pragma unroll
  for (int r = 0; r < rounds; ++r) {
    const int i = r * 32 + lane, fl = i % G, side = i / (NV * G);
    const index_t f = f0 + fl;
    element[r] = -1;
    local_face[r] = 0;
    if (i < items && fl < n_local && (side == 0 || f >= B)) {
      element[r] = side == 0 ? k.faces.element_m[f] : k.faces.element_p[f];
      local_face[r] = side == 0 ? k.faces.local_face_m[f] : k.faces.local_face_p[f];
    }
  }
  for (int i = threadIdx.x; i < 3 * Nfq * Np; i += blockDim.x) s_phi[i] = k.tables.face_phi[i];
  detail::wait_for_previous_grid();  // the coefficients are the previous kernel's output
  __syncthreads();
  double* trace_rows = s_trace[warp];
#pragma unroll
  for (int r = 0; r < rounds; ++r) {
    if (element[r] < 0) continue;
    const int i = r * 32 + lane, fl = i % G, side = i / (NV * G), v = (i / G) % NV;
    const double* phi = s_phi + local_face[r] * Nfq * Np;
    double trace[Nfq];
#pragma unroll
    for (int q = 0; q < Nfq; ++q) trace[q] = 0.0;
#pragma unroll
    for (int j = 0; j < Np; ++j) {
      const double c = __ldg(k.u.data + static_cast<index_t>(v * Np + j) * k.K + element[r]);
#pragma unroll
      for (int q = 0; q < Nfq; ++q) trace[q] += c * phi[q * Np + j];
    }
#pragma unroll
    for (int q = 0; q < Nfq; ++q) trace_rows[((side * NV + v) * Nfq + q) * G + fl] = trace[q];
  }
  __syncwarp();
  if (!point_lane) return;
  State um;
  for (int v = 0; v < NV; ++v) um[v] = trace_rows[(v * Nfq + point_q) * G + point_fl];
  k.point_flux(f0 + point_fl, point_q, geometry, um, [&] {
    State up;
    for (int v = 0; v < NV; ++v) up[v] = trace_rows[((NV + v) * Nfq + Nfq - 1 - point_q) * G + point_fl];
    return up;
  });
}

template <int P, class Flux>
void launch_face_warp_kernel(const FacePointKernel<P, Flux>& kernel, index_t n_faces, bool chained) {
  if (n_faces <= 0) return;
  constexpr index_t per_block = face_warp_faces(P) * (face_warp_threads / 32);
  const auto blocks = static_cast<unsigned>((n_faces + per_block - 1) / per_block);
  detail::launch(chained, face_warp_kernel<P, Flux>, blocks, face_warp_threads, 0, kernel, n_faces);
}

template <int P, class Flux>
void launch_face_block_kernel(const FacePointKernel<P, Flux>& kernel, index_t n_faces, bool chained) {
  if (n_faces <= 0) return;
  constexpr int FB = face_block_faces(P);
  const auto blocks = static_cast<unsigned>((n_faces + FB - 1) / FB);
  detail::launch(chained, face_block_kernel<P, Flux>, blocks, face_block_threads, 0, kernel, n_faces);
}
#endif

}  // namespace flowdg::euler2d::impl
