#pragma once
// 2D Euler solver, internal: the element kernels (volume and surface integrals with the fused
// Runge-Kutta stage update): one thread per element on the CPU and CUDA; on CUDA also a block of
// elements through shared memory and the tensor-core kernel; their launchers. Device code:
// included only by *_kernels.cpp files (compiled by nvcc when CUDA is on).
#include <algorithm>
#include <cstddef>

#include "flowdg/backend/for_each.hpp"
#if defined(__CUDACC__)
#include "flowdg/backend/tensor_core.hpp"
#endif
#include "flowdg/core/error.hpp"
#include "flowdg/dg/euler2d/common.hpp"

namespace flowdg::euler2d::impl {

// ---- element kernel --------------------------------------------------------------------------

/// Volume integral, gathered surface integral and the Runge-Kutta stage update of one element.
template <int P>
struct ElementKernel {
  View<double> u;
  View<const double> face_flux;
  View<const double> geometry;           ///< [c * K + e]
  View<const index_t> element_face_code; ///< [l * K + e] = 2 * face + side (0: minus, 1: plus)
  Tables tables;
  index_t K, F;  ///< row strides of the per-element and per-face arrays (padded, see Solver::Data)
  Gas gas;
  StageUpdate update;
  index_t n_elements = 0;  ///< the element count (the block kernel's grid; for_each gets it directly)
  index_t first = 0;       ///< the first element (elements [first, first + n_elements): a stage's range)

  /// w_k F(U) . grad r and w_k F(U) . grad s at volume point kq of element e (the block kernels).
  FLOWDG_HD FLOWDG_FORCEINLINE void reference_fluxes(index_t e, int kq, const State& uk, State& fr, State& fs) const {
    reference_fluxes_from(geometry.data + e, K, kq, uk, fr, fs);
  }
  /// The same with the element's metric terms at metric[c * stride] (c: GeometryComponent), read
  /// after the flux is computed.
  FLOWDG_HD FLOWDG_FORCEINLINE void reference_fluxes_from(const double* metric, index_t stride, int kq, const State& uk,
                                                          State& fr, State& fs) const {
    State fx, fy;
    flux(uk, gas, fx, fy);
    const double drdx = metric[rx * stride], drdy = metric[ry * stride];
    const double dsdx = metric[sx * stride], dsdy = metric[sy * stride];
    const double w = tables.volume_weight[kq];
    for (int v = 0; v < NV; ++v) {
      fr[v] = w * (fx[v] * drdx + fy[v] * drdy);
      fs[v] = w * (fx[v] * dsdx + fy[v] * dsdy);
    }
  }

  /// Face flux q (the minus side's point order) of variable v on the face with code `code`, with
  /// the element's sign and 1/det J applied (the block kernel).
  FLOWDG_HD FLOWDG_FORCEINLINE double signed_face_flux(double inverse_jacobian, index_t code, int v, int q) const {
    const double value = face_flux[(static_cast<index_t>(v) * (P + 1) + q) * F + (code >> 1)];
    return ((code & 1) != 0 ? inverse_jacobian : -inverse_jacobian) * value;
  }

  /// What element e reads that the face kernel before it does not write: geometry and face codes
  /// (no kernel writes them) and the coefficients and Runge-Kutta registers (the element kernel of
  /// the previous stage wrote them; the face kernel only reads them). Loaded before a chained
  /// launch waits for the face kernel (for_each_prefetching); only the face fluxes come after.
  struct Prefetched {
    double drdx = 0, drdy = 0, dsdx = 0, dsdy = 0, inverse_jacobian = 0;
    index_t code[3] = {};
    double u[NV * basis_count(P)] = {}, q[NV * basis_count(P)] = {}, u0[NV * basis_count(P)] = {};
  };
  FLOWDG_HD FLOWDG_FORCEINLINE Prefetched prefetch(index_t e) const {
    Prefetched r;
    r.drdx = geometry[rx * K + e];
    r.drdy = geometry[ry * K + e];
    r.dsdx = geometry[sx * K + e];
    r.dsdy = geometry[sy * K + e];
    r.inverse_jacobian = geometry[inverse_det * K + e];
    for (int l = 0; l < 3; ++l) r.code[l] = element_face_code[l * K + e];
    constexpr int Np = basis_count(P);
FLOWDG_UNROLL
    for (int i = 0; i < NV * Np; ++i) {
      const index_t index = static_cast<index_t>(i) * K + e;
      r.u[i] = load_settled(&u.data[index]);
      if (update.q_to_read() != nullptr) r.q[i] = load_settled(&update.q.data[index]);
      if (update.u0_to_read() != nullptr) r.u0[i] = load_settled(&update.u0.data[index]);
    }
    return r;
  }

  FLOWDG_HD void operator()(index_t e) const { (*this)(e, prefetch(e)); }
  FLOWDG_HD void operator()(index_t e, const Prefetched& pre) const {
    constexpr int Np = basis_count(P), Nfq = P + 1;
    double rhs[NV][Np];
    for (int v = 0; v < NV; ++v)
FLOWDG_UNROLL
      for (int j = 0; j < Np; ++j) rhs[v][j] = 0.0;

    const double drdx = pre.drdx, drdy = pre.drdy, dsdx = pre.dsdx, dsdy = pre.dsdy;
    const double inverse_jacobian = pre.inverse_jacobian;

    // Volume: sum_k w_k F(U(r_k)) . (J^-1 grad_r phi_j(r_k)); det J cancels with the mass matrix.
    for (int k = 0; k < tables.n_volume_points; ++k) {
      State uk;
      for (int v = 0; v < NV; ++v) {
        double value = 0.0;
FLOWDG_UNROLL
        for (int j = 0; j < Np; ++j) value += pre.u[v * Np + j] * tables.volume_phi[k * Np + j];
        uk[v] = value;
      }
      State fx, fy;
      flux(uk, gas, fx, fy);
      const double w = tables.volume_weight[k];
      for (int v = 0; v < NV; ++v) {
        const double gr = w * (fx[v] * drdx + fy[v] * drdy);
        const double gs = w * (fx[v] * dsdx + fy[v] * dsdy);
FLOWDG_UNROLL
        for (int j = 0; j < Np; ++j)
          rhs[v][j] += gr * tables.volume_dphi_dr[k * Np + j] + gs * tables.volume_dphi_ds[k * Np + j];
      }
    }

    // Surface: the stored fluxes are oriented along the minus side's normal and point order.
    for (int l = 0; l < 3; ++l) {
      const index_t code = pre.code[l];
      const index_t f = code >> 1;
      const bool plus_side = (code & 1) != 0;
      const double sign = plus_side ? inverse_jacobian : -inverse_jacobian;
FLOWDG_UNROLL
      for (int q = 0; q < Nfq; ++q) {
        const int point = plus_side ? Nfq - 1 - q : q;
        for (int v = 0; v < NV; ++v) {
          const double value = sign * face_flux[(static_cast<index_t>(v) * Nfq + q) * F + f];
FLOWDG_UNROLL
          for (int j = 0; j < Np; ++j) rhs[v][j] += value * tables.face_phi[(l * Nfq + point) * Np + j];
        }
      }
    }

    for (int v = 0; v < NV; ++v) {
      FLOWDG_UNROLL
      for (int j = 0; j < Np; ++j) {
        update.apply_loaded(u, (static_cast<index_t>(v) * Np + j) * K + e, rhs[v][j], pre.u[v * Np + j], pre.q[v * Np + j],
                            pre.u0[v * Np + j]);
      }
    }
  }
};

#if defined(__CUDACC__)
/// Elements per block of the shared-memory element kernel: a warp's 32 lanes take 32 consecutive
/// elements, so every global load and store of a coefficient is one coalesced 256-byte access.
/// Fewer at p >= 5 so that a block's shared memory stays under about 64 KB.
template <int P>
constexpr int block_elements() { return P >= 5 ? 16 : 32; }
constexpr int element_block_threads = 256;

/// The element kernel for p >= 1 on the GPU: a block of E elements works through shared memory,
/// in three phases separated by barriers, so no thread holds an element's Np x 4 right-hand side
/// in registers (ElementKernel<4> used 255 registers and spilled; this one stays under 64):
///   1. the block's coefficients -> shared (coalesced);
///   2. one thread per (element, volume point): U at the point, F(U), and the reference-space
///      flux components w_k F . (dr/dx, dr/dy) and w_k F . (ds/dx, ds/dy) -> shared; then the
///      element's face fluxes (sign applied) -> shared over the coefficients' space;
///   3. one thread per (element, mode): the volume sum over points, the surface sum, and the
///      Runge-Kutta stage update of the mode's four coefficients (coalesced stores).
/// Every sum runs in the same order as ElementKernel's, so both give the same numbers.
template <int P>
__global__ void __launch_bounds__(element_block_threads) element_block_kernel(ElementKernel<P> k) {
  constexpr int Np = basis_count(P), Nfq = P + 1, E = block_elements<P>();
  constexpr int coefficient_items = NV * Np * E, face_items = 3 * NV * Nfq * E;
  constexpr int first_region = coefficient_items > face_items ? coefficient_items : face_items;
  extern __shared__ double shared[];
  double* s_u = shared;                      // phase 1-2: [(v * Np + j) * E + el]
  double* s_g = shared;                      // phase 2-3: [((l * NV + v) * Nfq + q) * E + el]
  double* s_f = shared + first_region;       // [((v * 2 + d) * Nq + kq) * E + el]
  __shared__ index_t s_code[3 * E];          // [l * E + el]
  __shared__ double s_inverse_jacobian[E];
  const int Nq = k.tables.n_volume_points;
  const index_t K = k.K;
  const index_t e0 = k.first + static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(k.first + k.n_elements - e0 < E ? k.first + k.n_elements - e0 : E);
  // What no kernel writes, before waiting for the face kernel (a chained launch).
  for (int i = threadIdx.x; i < 4 * E; i += blockDim.x) {
    const int el = i % E, l = i / E;
    if (el >= n_local) continue;
    if (l < 3)
      s_code[i] = k.element_face_code[l * K + e0 + el];
    else
      s_inverse_jacobian[el] = k.geometry[inverse_det * K + e0 + el];
  }
  detail::wait_for_previous_grid();

  for (int i = threadIdx.x; i < coefficient_items; i += blockDim.x) {
    const int el = i % E, item = i / E;
    s_u[i] = el < n_local ? k.u[static_cast<index_t>(item) * K + e0 + el] : 0.0;
  }
  __syncthreads();

  for (int i = threadIdx.x; i < Nq * E; i += blockDim.x) {
    const int el = i % E, kq = i / E;
    if (el >= n_local) continue;
    const index_t e = e0 + el;
    State uk;
    for (int v = 0; v < NV; ++v) {
      double value = 0.0;
FLOWDG_UNROLL
      for (int j = 0; j < Np; ++j) value += s_u[(v * Np + j) * E + el] * k.tables.volume_phi[kq * Np + j];
      uk[v] = value;
    }
    State fr, fs;
    k.reference_fluxes(e, kq, uk, fr, fs);
    for (int v = 0; v < NV; ++v) {
      s_f[((v * 2 + 0) * Nq + kq) * E + el] = fr[v];
      s_f[((v * 2 + 1) * Nq + kq) * E + el] = fs[v];
    }
  }
  __syncthreads();  // s_u is free from here on: the face fluxes take its place

  for (int i = threadIdx.x; i < face_items; i += blockDim.x) {
    const int el = i % E, item = i / E;  // item = (l * NV + v) * Nfq + q
    if (el >= n_local) continue;
    const int l = item / (NV * Nfq), v = (item / Nfq) % NV, q = item % Nfq;
    s_g[i] = k.signed_face_flux(s_inverse_jacobian[el], s_code[l * E + el], v, q);
  }
  __syncthreads();

  // One thread per (element, mode): the four variables share each basis-table load.
  for (int i = threadIdx.x; i < Np * E; i += blockDim.x) {
    const int el = i % E, j = i / E;
    if (el >= n_local) continue;
    double rhs[NV] = {0.0, 0.0, 0.0, 0.0};
    for (int kq = 0; kq < Nq; ++kq) {
      const double dr = k.tables.volume_dphi_dr[kq * Np + j], ds = k.tables.volume_dphi_ds[kq * Np + j];
FLOWDG_UNROLL
      for (int v = 0; v < NV; ++v)
        rhs[v] += s_f[((v * 2 + 0) * Nq + kq) * E + el] * dr + s_f[((v * 2 + 1) * Nq + kq) * E + el] * ds;
    }
    for (int l = 0; l < 3; ++l) {
      const bool plus_side = (s_code[l * E + el] & 1) != 0;
FLOWDG_UNROLL
      for (int q = 0; q < Nfq; ++q) {
        const double phi = k.tables.face_phi[(l * Nfq + (plus_side ? Nfq - 1 - q : q)) * Np + j];
FLOWDG_UNROLL
        for (int v = 0; v < NV; ++v) rhs[v] += s_g[((l * NV + v) * Nfq + q) * E + el] * phi;
      }
    }
    const StageUpdate& update = k.update;
FLOWDG_UNROLL
    for (int v = 0; v < NV; ++v) {
      update.apply(k.u, static_cast<index_t>(v * Np + j) * K + e0 + el, rhs[v]);
    }
  }
}

/// Shared memory of one block of element_block_kernel<P>.
template <int P>
std::size_t element_block_shared_bytes(int n_volume_points) {
  constexpr int Np = basis_count(P), Nfq = P + 1, E = block_elements<P>();
  const int first_region = std::max(NV * Np * E, 3 * NV * Nfq * E);
  return sizeof(double) * static_cast<std::size_t>(first_region + 2 * NV * n_volume_points * E);
}

template <int P>
void launch_element_block_kernel(const ElementKernel<P>& kernel, bool chained) {
  const std::size_t shared = element_block_shared_bytes<P>(kernel.tables.n_volume_points);
  static const bool configured = [&] {
    FLOWDG_CUDA_CHECK(cudaFuncSetAttribute(element_block_kernel<P>, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
    return true;
  }();
  (void)configured;
  if (shared > 96 * 1024) throw Error(cat("element kernel at p = ", P, " needs ", shared, " bytes of shared memory per block"));
  constexpr int E = block_elements<P>();
  const auto blocks = static_cast<unsigned>((kernel.n_elements + E - 1) / E);
  detail::launch(chained, element_block_kernel<P>, blocks, element_block_threads, shared, kernel);
}
#endif

#if defined(__CUDACC__)
using device::dmma_8x8x4;

#ifndef FLOWDG_TENSOR_THREADS
#define FLOWDG_TENSOR_THREADS 256
#endif
constexpr int tensor_block_threads = FLOWDG_TENSOR_THREADS;

/// Elements per block of the tensor-core element kernel at order P: 32 at p = 2 (two column tiles
/// per warp: the kernel is latency-bound there, and twice the elements per block put twice the
/// loads in flight per SM at the same occupancy: +8% through `flowdg run`, docs/performance.md,
/// session 26), 16 elsewhere (32 not measured there; at p = 4 a block of 32 takes 70 KB of shared
/// memory, three blocks per SM instead of four). FLOWDG_TENSOR_ELEMENTS sets every order in
/// benchmark builds.
template <int P>
constexpr int tensor_elements() {
#if defined(FLOWDG_TENSOR_ELEMENTS)
  return FLOWDG_TENSOR_ELEMENTS;
#else
  return P == 2 ? 32 : 16;
#endif
}

/// Shared memory of one block of element_tensor_kernel<P>: rows of 4 E + 8 doubles (a stride of
/// 8 mod 16 doubles puts the four rows of a B fragment in alternate bank halves: no conflicts).
template <int P>
constexpr int tensor_row_stride() {
  return NV * tensor_elements<P>() + 8;
}
template <int P>
std::size_t element_tensor_shared_bytes() {
  constexpr TensorLayout T = tensor_layout(P);
  constexpr int E = tensor_elements<P>(), S = tensor_row_stride<P>();
  constexpr int rows = T.K3 + T.Np + (n_geometry * E + S - 1) / S;
  return sizeof(double) * static_cast<std::size_t>(rows * S);
}

/// Register budget of the tensor-core element kernel at order P, in blocks of 256 threads per SM:
/// 64 registers up to p = 4 (4 blocks per SM), 80 from p = 5 (3 blocks; at 64, p = 5 spilled and
/// ran 15% slower: docs/performance.md, log 30); FLOWDG_TENSOR_MIN_BLOCKS sets every order in
/// benchmark builds.
template <int P>
constexpr int tensor_min_blocks() {
#if defined(FLOWDG_TENSOR_MIN_BLOCKS)
  return FLOWDG_TENSOR_MIN_BLOCKS;
#else
  return (P >= 5 ? 3 : 4) * 256 / tensor_block_threads;
#endif
}

using device::copy_async_16;
using device::copy_async_8;
using device::copy_async_commit;
using device::copy_async_wait;
using device::copy_async_wait_prior;

/// The element kernel for p >= 1 with its two small matrix products on the FP64 tensor cores
/// (mma.m8n8k4): a block of E elements, 8 warps, each warp owning 4 E / 64 column tiles of 8
/// (column n = v * E + element). Shared memory holds rows of 4 E columns:
///   rows [0, Nq)         the values at the volume points, then in place the weighted r-fluxes;
///   rows [Nq, 2 Nq)      the weighted s-fluxes;
///   rows [2 Nq, K3)      the face fluxes (sign, 1/det J and the element's point order applied),
///                        zeros from 2 Nq + 3 Nfq;
///   rows [K3, K3 + Np)   the coefficients (s_u), read by both products' owners;
///   then n_geometry x E  the elements' metric terms.
/// Two barriers, and every global load is issued before the first:
///   0. before the wait for the face kernel, whatever it does not write: the coefficients of the
///      warp's columns and the block's metric (cp.async to shared), one Runge-Kutta register of
///      the update (registers), the face codes of the thread's element (each thread keeps
///      element threadIdx % E in phases 0 and 2); after the wait, the face fluxes of the
///      thread's rows of [2 Nq, K3) (cp.async to shared);
///   1. values = A2 x coefficients -> rows [0, Nq), B fragments from s_u (a warp owns the same
///      columns in both products, so it waits for its own copies only);
///   -- barrier --
///   2. a thread per (element, point): F(U) and the weighted reference fluxes, in place; each
///      thread's face fluxes scaled by the side's sign and 1/det J in place;
///   -- barrier --
///   3. residual = A3 x rows, then the Runge-Kutta stage update from the accumulator fragments.
/// Against the block kernel, each shared value is read once per 8 rows of a product instead of
/// once per row (Nq or Np times): at p = 4 about 4x less shared-memory traffic (log 8 in
/// docs/performance.md). The sums run in another order than the CPU's, so results agree to
/// rounding (1e-15 relative), not bit for bit.
template <int P>
__global__ void __launch_bounds__(tensor_block_threads, tensor_min_blocks<P>()) element_tensor_kernel(ElementKernel<P> k, const double* __restrict__ a2,
                                                           const double* __restrict__ a3) {
  constexpr TensorLayout T = tensor_layout(P);
  constexpr int Np = T.Np, Nq = T.Nq, Nfq = T.Nfq, E = tensor_elements<P>(), S = tensor_row_stride<P>();
  constexpr int threads = tensor_block_threads, warps = threads / 32, tiles = NV * E / 8, TW = tiles / warps;
  constexpr int surface_rows = T.K3 - 2 * Nq;
  constexpr int point_rounds = (Nq * E + threads - 1) / threads;
  constexpr int surface_rounds = (surface_rows * NV * E + threads - 1) / threads;
  static_assert(tiles % warps == 0, "every warp owns the same number of column tiles");
  static_assert(threads % E == 0, "a thread keeps one element in phases 0 and 2");
  static_assert(n_geometry * E <= threads, "a thread copies at most one metric term");
  extern __shared__ double shared[];  // [row * S + v * E + el]
  double* s_u = shared + T.K3 * S;         // [j * S + v * E + el]
  double* s_geometry = s_u + Np * S;       // [c * E + el]
  const index_t K = k.K, F = k.F;
  const index_t e0 = k.first + static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(k.first + k.n_elements - e0 < E ? k.first + k.n_elements - e0 : E);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int fragment_row = lane / 4, fragment_col = lane % 4;
  const StageUpdate& update = k.update;
  // The update's register held from the start: q if the scheme has it, else u0 (a scheme with
  // both loads u0 at the end; none where this stage starts u0).
  const double* prefetched_register = update.q_to_read() != nullptr ? update.q.data : update.u0_to_read();

  // 0. Loads that do not depend on the face kernel. The coefficients of the warp's columns go to
  //    their own rows, 16 bytes (two elements) at a time.
#pragma unroll
  for (int chunk = lane; chunk < TW * Np * 4; chunk += 32) {
    const int t = chunk / (Np * 4), j = chunk % (Np * 4) / 4, n = (warp * TW + t) * 8 + 2 * (chunk % 4), v = n / E, el = n % E;
    double* destination = s_u + j * S + n;
    const double* source = k.u.data + static_cast<index_t>(v * Np + j) * K + e0 + el;
    if (el + 1 < n_local) {
      copy_async_16(destination, source);
    } else {
      destination[0] = el < n_local ? load_settled(source) : 0.0;
      destination[1] = 0.0;
    }
  }
  double r_k[T.M3 / 8][TW][2];
#pragma unroll
  for (int mt = 0; mt < T.M3 / 8; ++mt)
#pragma unroll
    for (int t = 0; t < TW; ++t)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int j = mt * 8 + fragment_row, n = (warp * TW + t) * 8 + 2 * fragment_col + c, v = n / E, el = n % E;
        r_k[mt][t][c] = j < Np && el < n_local && prefetched_register != nullptr
                            ? load_settled(prefetched_register + static_cast<index_t>(v * Np + j) * K + e0 + el)
                            : 0.0;
      }
  if (threadIdx.x < n_geometry * E) {
    const int c = static_cast<int>(threadIdx.x) / E, el = static_cast<int>(threadIdx.x) % E;
    if (el < n_local) copy_async_8(s_geometry + threadIdx.x, k.geometry.data + c * K + e0 + el);
  }
  const int my_el = static_cast<int>(threadIdx.x) % E;
  const bool mine_valid = my_el < n_local;
  int code[3] = {};  // 2 * face + side fits: resolve_gpu_kernels() checks the face count
  if (mine_valid)
#pragma unroll
    for (int l = 0; l < 3; ++l) code[l] = static_cast<int>(__ldg(k.element_face_code.data + l * K + e0 + my_el));
  const auto code_of = [&](int l) { return l == 0 ? code[0] : l == 1 ? code[1] : code[2]; };  // no local-memory array

  copy_async_commit();

  detail::wait_for_previous_grid();
#pragma unroll
  for (int m = 0; m < surface_rounds; ++m) {
    const int i = static_cast<int>(threadIdx.x) + m * threads, v = (i / E) % NV, r = i / (NV * E);
    if (r >= surface_rows) continue;
    double* destination = shared + (2 * Nq + r) * S + v * E + my_el;
    if (r < 3 * Nfq && mine_valid) {
      const int point = r % Nfq, c = code_of(r / Nfq);
      const int q = (c & 1) != 0 ? Nfq - 1 - point : point;
      copy_async_8(destination, k.face_flux.data + (static_cast<index_t>(v) * Nfq + q) * F + (c >> 1));
    } else {
      *destination = 0.0;
    }
  }
  copy_async_commit();

  // 1. U at the volume points (the warp's columns only: its own copies, so a warp barrier).
  copy_async_wait_prior();
  __syncwarp();
  {
    double acc[T.M2 / 8][TW][2] = {};
#pragma unroll
    for (int ks = 0; ks < T.K2 / 4; ++ks) {
      const int j = ks * 4 + fragment_col;
      double b[TW];
#pragma unroll
      for (int t = 0; t < TW; ++t) b[t] = j < Np ? s_u[j * S + (warp * TW + t) * 8 + fragment_row] : 0.0;
#pragma unroll
      for (int mt = 0; mt < T.M2 / 8; ++mt) {
        const double a = __ldg(a2 + fragment_index(mt, ks, lane, T.K2));  // fragment order (tensor_tables)
#pragma unroll
        for (int t = 0; t < TW; ++t) dmma_8x8x4(acc[mt][t], a, b[t]);
      }
    }
#pragma unroll
    for (int mt = 0; mt < T.M2 / 8; ++mt) {
      const int kq = mt * 8 + fragment_row;
      if (kq >= Nq) continue;
#pragma unroll
      for (int t = 0; t < TW; ++t)
        *reinterpret_cast<double2*>(shared + kq * S + (warp * TW + t) * 8 + 2 * fragment_col) = make_double2(acc[mt][t][0], acc[mt][t][1]);
    }
  }
  copy_async_wait();
  __syncthreads();

  // 2. Weighted reference-space fluxes at the points (in place); the face fluxes' sign and 1/det J.
#pragma unroll
  for (int m = 0; m < point_rounds; ++m) {
    const int i = static_cast<int>(threadIdx.x) + m * threads, kq = i / E;
    if (kq >= Nq) continue;
    State fr{}, fs{};
    if (mine_valid) {
      State uk;
      for (int v = 0; v < NV; ++v) uk[v] = shared[kq * S + v * E + my_el];
      k.reference_fluxes_from(s_geometry + my_el, E, kq, uk, fr, fs);
    }
    for (int v = 0; v < NV; ++v) {
      shared[kq * S + v * E + my_el] = fr[v];
      shared[(Nq + kq) * S + v * E + my_el] = fs[v];
    }
  }
#pragma unroll
  for (int m = 0; m < surface_rounds; ++m) {
    const int i = static_cast<int>(threadIdx.x) + m * threads, v = (i / E) % NV, r = i / (NV * E);
    if (r >= 3 * Nfq || !mine_valid) continue;
    const int c = code_of(r / Nfq);
    const double inverse_jacobian = s_geometry[inverse_det * E + my_el];
    double& value = shared[(2 * Nq + r) * S + v * E + my_el];
    value = ((c & 1) != 0 ? inverse_jacobian : -inverse_jacobian) * value;
  }
  __syncthreads();

  // 3. Residual and stage update.
  double acc[T.M3 / 8][TW][2] = {};
#pragma unroll 4
  for (int ks = 0; ks < T.K3 / 4; ++ks) {
    double bs[TW];
#pragma unroll
    for (int t = 0; t < TW; ++t) bs[t] = shared[(ks * 4 + fragment_col) * S + (warp * TW + t) * 8 + fragment_row];
#pragma unroll
    for (int mt = 0; mt < T.M3 / 8; ++mt) {
      const double a = __ldg(a3 + fragment_index(mt, ks, lane, T.K3));
#pragma unroll
      for (int t = 0; t < TW; ++t) dmma_8x8x4(acc[mt][t], a, bs[t]);
    }
  }
  const bool has_q = update.q_to_read() != nullptr, has_u0 = update.u0_to_read() != nullptr;
#pragma unroll
  for (int mt = 0; mt < T.M3 / 8; ++mt) {
    const int j = mt * 8 + fragment_row;
    if (j >= Np) continue;
#pragma unroll
    for (int t = 0; t < TW; ++t)
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int n = (warp * TW + t) * 8 + 2 * fragment_col + c, v = n / E, el = n % E;
        if (el >= n_local) continue;
        const index_t index = static_cast<index_t>(v * Np + j) * K + e0 + el;
        const double u0_k = !has_u0 ? 0.0 : has_q ? update.u0[index] : r_k[mt][t][c];
        update.apply_loaded(k.u, index, acc[mt][t][c], s_u[j * S + n], has_q ? r_k[mt][t][c] : 0.0, u0_k);
      }
  }
}

template <int P>
void launch_element_tensor_kernel(const ElementKernel<P>& kernel, const double* tables, bool chained) {
  constexpr auto tensor_kernel = element_tensor_kernel<P>;
  const std::size_t shared = element_tensor_shared_bytes<P>();
  static const bool configured = [&] {
    FLOWDG_CUDA_CHECK(cudaFuncSetAttribute(tensor_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 96 * 1024));
    return true;
  }();
  (void)configured;
  if (shared > 96 * 1024) throw Error(cat("tensor element kernel at p = ", P, " needs ", shared, " bytes of shared memory per block"));
  constexpr TensorLayout T = tensor_layout(P);
  constexpr int E = tensor_elements<P>();
  const auto blocks = static_cast<unsigned>((kernel.n_elements + E - 1) / E);
  detail::launch(chained, tensor_kernel, blocks, tensor_block_threads, shared, kernel, tables, tables + T.M2 * T.K2);
}
#endif

}  // namespace flowdg::euler2d::impl
