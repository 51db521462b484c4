#pragma once
// The DG core's element kernel with its two small matrix products on the FP64 tensor cores
// (double precision, or float storage: below; mma.m8n8k4, and for the residual's product m16n8k4 — two row tiles an instruction,
// compute capability 9.0 — where measured faster: tensor_wide), for any shape, affine or curved, any physics of the core: the
// tuned triangle kernel's structure (dg/euler2d/element_kernels.hpp) with the shape, the dimension
// and the geometry kind as template parameters. A block of E = 8
// elements; columns n = v * E + element (a column tile of 8 = one variable of the block's
// elements); in phase 1 warp w owns column tile w % NV and every second row tile from w / NV
// (core_tensor_row_groups = 2: 2 NV warps), in phase 3 a row tile and a share of the k range for
// every column tile (each A fragment loaded once for NV products). Shared memory (CoreTensorLayout, core_kernels.hpp):
//   rows [0, K3)         the right side of the residual product: the values at the volume points
//                        (rows [0, Nq)), then in place the reference fluxes (row r Nq + k), the
//                        face fluxes (row dim Nq + l Nfq + point: in the element's point order,
//                        negated in phase 2 on the element's minus faces; with face moments, 3D
//                        Euler's affine tetrahedra, Nfq = Nn nodes a face:
//                        core_variable_kernels.hpp), zeros to K3;
//   rows [K3, K3 + Np)   the coefficients (CoreTensorLayout::compact: rows [Nq, Nq + Np) instead,
//                        free until phase 2 writes the reference fluxes there; K3 rows in all, and
//                        the update reads u again from global memory);
//   then (dim^2 + 1) x E  the affine metric.
// Phases (barriers between):
//   0. coefficients, affine metric, face fluxes -> shared (cp.async); the Runge-Kutta registers
//      of the thread's (element, mode) pairs of phase 3 -> registers;
//   1. values at the volume points = A2 x coefficients (B fragments from shared; A2 and A3 in
//      fragment order, backend/fragment_order.hpp: a warp's A fragment is 256 contiguous bytes);
//   2. a thread per (element, point): the flux and the reference fluxes sum_d m_rd F_d, in place;
//   3. residual = A3 x rows -> shared (the k range's splits summed in order; a viscous physics adds BR2's volume term, the lifting pass's
//      moments, there; its face rows hold the stored flux less the centred viscous halves), then a
//      thread per (element, mode) in element order: affine: times 1 / det J; curved: the inverse
//      mass matrix row times it; the Runge-Kutta update;
//   4. (3D Euler's affine tetrahedra, Traces: the trace buffer fused, core_variable_kernels.hpp
//      FaceTraceBuffer) the updated coefficients -> shared rows [8 MT3, 8 MT3 + KC) (free once the
//      k splits are summed), then their traces at the faces' nodes (or the face rule's points:
//      FaceTraceBuffer::points) = N x them -> `traces`, for the next stage's interior faces: warp w
//      row tile w of N, each A fragment loaded once for five products.
// The sums run in another order than ElementKernel's: results agree to rounding, not bit for bit.
// Single precision (3D Euler's affine tetrahedra; "automatic" takes it from p = 3 in either precision):
// the float state, metric and face fluxes converted to double on their way into shared memory (plain
// loads), the products in double on the FP64 tensor cores, phase 2's fluxes in float (the float
// path's physics), the update in float.
// CUDA only: included by dg_operator.hpp under __CUDACC__.
#include <type_traits>

#include "flowdg/backend/cuda_check.hpp"
#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/tensor_core.hpp"
#include "flowdg/dg/core_block_kernels.hpp"
#include "flowdg/dg/core_kernels.hpp"
#include "flowdg/dg/core_variable_kernels.hpp"
#include "flowdg/dg/setup.hpp"
#include "flowdg/physics/euler/euler.hpp"

namespace flowdg::dg {

/// Two of a row's values (8 or 4 bytes aligned): one store.
FLOWDG_FORCEINLINE __device__ void store_pair(double* p, double x, double y) { *reinterpret_cast<double2*>(p) = make_double2(x, y); }
FLOWDG_FORCEINLINE __device__ void store_pair(float* p, double x, double y) {
  *reinterpret_cast<float2*>(p) = make_float2(static_cast<float>(x), static_cast<float>(y));
}

template <class Physics, int Groups = core_tensor_row_groups>
constexpr int core_tensor_threads() {
  return 32 * Groups * Physics::n_variables;
}

/// MinBlocks: the blocks an SM its registers are bounded for (1: none). Wide: the residual's product
/// (phase 3) on two row tiles an instruction (m16n8k4, compute capability 9.0; tensor_wide in
/// setup.cpp: by measurement at p = 3, 4 on 3D Euler's affine tetrahedra since session 53); false: a
/// row tile an instruction (m8n8k4). Phase 1 runs m8n8k4 either way (session 53: its pairs left each
/// warp fewer accumulator chains, and at p = 4 it took 20% of the samples instead of 12%). FloatRows
/// (float storage only): the shared rows in float (stride t.stride = core_tensor_float_stride: half
/// the shared memory, the B fragments converted to double as they are read; the products' sums
/// rounded to float where they are stored); false: in double. LateRk: the Runge-Kutta registers loaded
/// after phase 3 (not live through the products: at p = 4 64 registers without spills), not in phase 0
/// (0): 1 just before the update, 2 as soon as the products' partial sums are stored (their latency
/// behind the splits' sums and two barriers; tensor_rk_after_sums), 3 as 2 and with them the
/// coefficients u that the compact layout's update reads again from global memory (tensor_rk_u).
/// APrefetch: phase 3 loads each A fragment (Wide: each pair's two) APrefetch k steps before its
/// products (a ring of APrefetch registers: the table's fragments come from L2 as often as from L1,
/// and a load issued just before its products stalled the warp for it); 0: just before. Traces (3D
/// Euler's affine tetrahedra): phase 4, the fused trace buffer, into `traces` (else unused).
/// FixedNq > 0: the layout's sizes at compile time — FixedNq volume points, FixedNfq face rows a face,
/// the rows' stride NV E + 4 (double rows) or core_tensor_float_stride(NV E) (float rows); the
/// launcher checks them against t — so that the loops' bounds, the k splits and the index arithmetic
/// fold (tensor_fixed_layout); 0: t's sizes.
/// Variant (bits; tensor_variant): 1 phase 4 on m16n8k4 (a row-tile pair and three or two column
/// tiles a warp: half the tensor instructions; m8n8k4 issues at half m16n8k4's flop rate); 2 phase 1,
/// where the sizes are compiled in, with each row group's tiles in one pass whose count is a
/// compile-time constant (no predicated products, each of which waited on a WARPSYNC); 8 (the sizes
/// compiled in, affine inviscid) the k splits' partial sums added by the update itself, no pass and
/// barrier of their own; 16 (the sizes compiled in) phase 0's face codes and plus-side points of all
/// the thread's rounds loaded before its copies. The same sums in the same order either way. (Session
/// 60's bit 32, the partial sums Np rows apart for five k splits at p = 3, lost 1.4%: removed.) 64 (a
/// block of at least twice as many threads as (element, mode) pairs) the update's pairs taken twice, each
/// thread with half the variables; 128 (with 16) phase 0 keeps which of the thread's face
/// rows lie on the plus side (a bit a round) for phase 2's negation pass instead of loading the codes again;
/// 256 the group's state element-major (StateLayout, CoreTensorLayout::element_major: the face tensor
/// kernel reads the coefficients themselves, no copy pass — setup.hpp face_trace_mode 4).
/// Groups: the warps a column tile (core_tensor_row_groups, 2: ten warps a block of 3D Euler; 1: five,
/// narrow blocks — more of them an SM, each phase's work on half the warps; tensor_row_groups). Phase 1
/// runs each row group's tiles, phase 3 spreads its units over the Groups NV warps, phase 4 on pairs
/// takes a pair a warp (Groups 1) or a pair and three or two column tiles (2).
template <class Physics, Shape S, int P, GeometryKind G, int MinBlocks = 1, bool Wide = false, bool FloatRows = false, int LateRk = 0,
          int APrefetch = 0, bool Traces = false, int FixedNq = 0, int FixedNfq = 0, int Variant = 0, int Groups = core_tensor_row_groups>
__global__ void __launch_bounds__(core_tensor_threads<Physics, Groups>(), MinBlocks)
    core_element_tensor_kernel(ElementKernel<Physics, S, P, G> k, index_t first, index_t end, CoreTensorLayout t,
                               const double* __restrict__ a2, const double* __restrict__ a3, const int* __restrict__ face_permutation,
                               typename Physics::real* __restrict__ traces, const double* __restrict__ trace_tables, int trace_rows) {
  using Real = typename Physics::real;
  constexpr bool storage_double = std::is_same_v<Real, double>;
  static_assert(storage_double || (!Physics::has_viscous_flux && G == GeometryKind::affine),
                "float storage: inviscid affine groups (the FP64 products on double copies in shared memory)");
  static_assert(!FloatRows || !storage_double, "rows in float: float storage only");
  using Value = std::conditional_t<FloatRows, float, double>;  // the shared rows' type
  using State = typename Physics::State;
  constexpr int dim = Physics::dim, NV = Physics::n_variables, Np = n_basis(S, P), NF = n_faces(S);
  static_assert(Groups == 1 || Groups == 2, "one or two warps a column tile");
  constexpr int E = core_tensor_elements, R = Groups, threads = core_tensor_threads<Physics, Groups>();
  constexpr int MT3 = (Np + 7) / 8;                                // row tiles of the residual
  constexpr int MT2W = 4;                                         // row tiles of the values per pass
  // Nfq face rows a face: its points, or with face moments its nodes (t.Nfq; the stored flux's rows
  // keep their stride k.Nfq); face_permutation [orientation Nfq + row] maps the plus side's rows.
  constexpr bool fixed = FixedNq > 0;
  constexpr int fixed_stride = FloatRows ? core_tensor_float_stride(NV * core_tensor_elements) : NV * core_tensor_elements + 4;
  const int Nq = fixed ? FixedNq : k.Nq, Nfq = fixed ? FixedNfq : t.Nfq, ST = fixed ? fixed_stride : t.stride;
  const int K3 = fixed ? (dim * FixedNq + NF * FixedNfq + 3) / 4 * 4 : t.K3, K2 = fixed ? (Np + 3) / 4 * 4 : t.K2;
  const int MT2 = fixed ? (FixedNq + 7) / 8 : t.M2 / 8;
  extern __shared__ double shared_doubles[];
  Value* shared = reinterpret_cast<Value*>(shared_doubles);  // [row * ST + v * E + el]
  Value* s_u = shared + (t.compact ? Nq : K3) * ST;           // [j * ST + v * E + el] (compact: until phase 2)
  Value* s_metric = shared + (t.compact ? K3 : K3 + Np) * ST; // [c * E + el], c = r dim + d; dim^2: 1 / det J
  const index_t e0 = first + static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(end - e0 < E ? end - e0 : E);
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int fragment_row = lane / 4, fragment_col = lane % 4;
  const int column_tile = warp % NV, row_group = warp / NV;
  (void)traces;  // (phase 4: 3D Euler's affine tetrahedra only)
  (void)trace_tables;
  (void)trace_rows;
  detail::wait_for_previous_grid();

  // Variant 256: the group's state (u, and the Runge-Kutta registers with it) element-major, [e NV Np + row]
  // (StateLayout; t.element_major), else [row Ks + e]: where row `row` of element e lies.
  constexpr bool element_major = (Variant & 256) != 0;
  static_assert(!element_major || (!Physics::has_viscous_flux && G == GeometryKind::affine), "Variant 256: inviscid affine groups");
  // Variant 512 (with 256): the coefficients staged element-major in shared memory too, [el NV Np + v Np + j]
  // (the block's NV Np E values one contiguous copy, 16 bytes at a time; phase 1's B fragments without bank
  // conflicts: NV Np = 100 puts a half-warp's four elements 4 banks of 8 bytes apart), else [j ST + v E + el].
  constexpr bool staged_element_major = (Variant & 512) != 0;
  static_assert(!staged_element_major || (element_major && std::is_same_v<Value, Real>), "Variant 512: with 256, rows in the storage's type");
  const auto staged = [&](int j, int v, int el) { return staged_element_major ? (el * NV + v) * Np + j : j * ST + v * E + el; };
  const auto state_index = [&](int row, index_t e) -> index_t {
    if constexpr (element_major) return e * (NV * Np) + row;
    else return static_cast<index_t>(row) * k.Ks + e;
  };
  // 0. The block's coefficients and metric, the face fluxes (asynchronous copies, all in flight at
  //    once); zeros in the padding columns and rows.
  if constexpr (staged_element_major) {
    constexpr int C = 16 / sizeof(Real), chunks = NV * Np * E / C;  // values a 16-byte copy, copies a block
    static_assert(NV * Np % C == 0, "whole 16-byte copies an element");
    const Real* source = k.u.data + state_index(0, e0);
    for (int i = threadIdx.x; i < chunks; i += threads) {
      if (i * C / (NV * Np) < n_local) {
        device::copy_async_16(reinterpret_cast<double*>(s_u + i * C), source + i * C);
      } else {
        for (int x = 0; x < C; ++x) s_u[i * C + x] = Value(0);
      }
    }
  } else if constexpr (element_major) {
    // (a warp: four consecutive rows of each of the eight elements, 32 contiguous bytes an element in
    // double; the shared stores eight consecutive columns a row)
    for (int i = threadIdx.x; i < NV * Np * E; i += threads) {
      const int el = i % E, row = i / E, v = row / Np, j = row % Np;
      Value* destination = s_u + j * ST + v * E + el;
      const Real* source = k.u.data + state_index(row, e0 + el);
      if (el >= n_local) *destination = Value(0);
      else if constexpr (storage_double) device::copy_async_8(destination, source);
      else *destination = static_cast<Value>(*source);
    }
  } else {
    for (int i = threadIdx.x; i < NV * Np * E / 2; i += threads) {
      const int el = 2 * (i % (E / 2)), row = i / (E / 2), v = row / Np, j = row % Np;
      Value* destination = s_u + j * ST + v * E + el;
      const Real* source = k.u.data + static_cast<index_t>(row) * k.Ks + e0 + el;
      device::copy_pair(destination, source, el, n_local);
    }
  }
  if constexpr (G == GeometryKind::affine) {
    for (int i = threadIdx.x; i < (dim * dim + 1) * E; i += threads) {
      const int el = i % E, c = i / E;
      if (el >= n_local) {
        s_metric[i] = Value(0);
      } else if constexpr (storage_double) {
        device::copy_async_8(s_metric + i, k.metric.data + static_cast<index_t>(c) * k.Ks + e0 + el);
      } else {
        s_metric[i] = static_cast<Value>(k.metric.data[static_cast<index_t>(c) * k.Ks + e0 + el]);
      }
    }
  }
  const int surface_row = dim * Nq;
  // (t.swizzle) the row a thread's index j takes among n rows: within each complete four (0, 2, 1, 3)
  const auto swizzled = [&](int j, int n) { return t.swizzle && (j | 3) < n ? (j & ~3) | ((j & 1) << 1) | ((j >> 1) & 1) : j; };
  // Face row lq's values of element el (face code `code`) -> shared, at the point the plus side's
  // permutation gives.
  const auto face_fluxes = [&](int el, int lq, index_t code, int point) {
    Value* row = shared + static_cast<std::size_t>(surface_row) * ST + el;
    if (el >= n_local) {
      for (int v = 0; v < NV; ++v) row[lq * ST + v * E] = Value(0);
      return;
    }
    const int l = lq / Nfq, q = lq % Nfq;
    const index_t f = code_face(code);
    for (int v = 0; v < NV; ++v) {
      if constexpr (Physics::has_viscous_flux)  // the stored flux less the centred viscous flux's halves
        row[(l * Nfq + point) * ST + v * E] = k.face_flux(v, q, f);
      else if constexpr (!storage_double)
        row[(l * Nfq + point) * ST + v * E] = static_cast<Value>(k.flux.data[(static_cast<index_t>(v) * k.Nfq + q) * k.Fs + f]);
      else
        device::copy_async_8(row + (l * Nfq + point) * ST + v * E, k.flux.data + (static_cast<index_t>(v) * k.Nfq + q) * k.Fs + f);
    }
  };
  // Variant 128 (with 16): which of the thread's face rows (round r: bit r) lie on the element's plus
  // side, kept from these loads of the face codes for phase 2's negation pass, which takes the same rows
  // (instead of loading each code again there).
  constexpr bool keep_sides = (Variant & 128) != 0;
  static_assert(!keep_sides || ((Variant & 16) != 0 && fixed), "Variant 128: with 16, the sizes compiled in");
  unsigned plus_sides = 0;
  // Variant 16 (the sizes compiled in): every round's face code, then every round's plus-side point,
  // loaded before any copy (their latencies overlap instead of two dependent loads a round in turn).
  if constexpr ((Variant & 16) != 0 && fixed) {
    constexpr int face_items = NF * FixedNfq * E, face_rounds = (face_items + threads - 1) / threads;
    static_assert(!keep_sides || face_rounds <= 32, "Variant 128: a bit a round");
    index_t code_r[face_rounds];
    int point_r[face_rounds];
#pragma unroll
    for (int r = 0; r < face_rounds; ++r) {
      const int i = static_cast<int>(threadIdx.x) + r * threads, el = i % E, lq = swizzled(i / E, face_items / E);
      code_r[r] = i < face_items && el < n_local ? k.codes[lq / FixedNfq * k.Ks + e0 + el] : index_t(0);
    }
#pragma unroll
    for (int r = 0; r < face_rounds; ++r) {
      const int i = static_cast<int>(threadIdx.x) + r * threads, q = swizzled(i / E, face_items / E) % FixedNfq;
      point_r[r] = i < face_items && code_plus_side(code_r[r]) ? face_permutation[code_orientation(code_r[r]) * FixedNfq + q] : q;
    }
#pragma unroll
    for (int r = 0; r < face_rounds; ++r) {
      const int i = static_cast<int>(threadIdx.x) + r * threads;
      if (keep_sides && i < face_items && i % E < n_local && code_plus_side(code_r[r])) plus_sides |= 1u << r;
      if (i < face_items) face_fluxes(i % E, swizzled(i / E, face_items / E), code_r[r], point_r[r]);
    }
  } else {
    for (int i = threadIdx.x; i < NF * Nfq * E; i += threads) {
      const int el = i % E, lq = swizzled(i / E, NF * Nfq);
      const index_t code = el < n_local ? k.codes[lq / Nfq * k.Ks + e0 + el] : index_t(0);
      const int q = lq % Nfq;
      face_fluxes(el, lq, code, el < n_local && code_plus_side(code) ? face_permutation[code_orientation(code) * Nfq + q] : q);
    }
  }
  for (int i = threadIdx.x; i < (K3 - surface_row - NF * Nfq) * NV * E; i += threads)
    shared[(surface_row + NF * Nfq + i / (NV * E)) * ST + i % (NV * E)] = Value(0);
  // The Runge-Kutta registers of the thread's (element, mode) pairs of the last phase, loaded now
  // so that their latency hides behind the products (LateRk: after them).
  constexpr int rounds = (Np * E + threads - 1) / threads;
  // Variant 64 (the block's threads at least twice its (element, mode) pairs): the update's pairs
  // twice over, thread t taking pair t % (Np E) and variables [VT h, VT h + VT) of h = t / (Np E) —
  // every warp in the update, each with half the variables (else five of ten warps at p = 3, each
  // with all five); the same values.
  constexpr bool split_update = (Variant & 64) != 0;
  constexpr int VS = split_update ? 2 : 1, VT = (NV + VS - 1) / VS;  // variable groups, variables a thread
  static_assert(!split_update || (rounds == 1 && threads >= 2 * Np * E), "Variant 64: two threads an (element, mode) pair");
  const int update_group = split_update ? static_cast<int>(threadIdx.x) / (Np * E) : 0;
  const int update_thread = split_update ? static_cast<int>(threadIdx.x) % (Np * E) : static_cast<int>(threadIdx.x);
  Real q_k[rounds][VT], u0_k[rounds][VT];
  Real u_k[LateRk == 3 ? rounds : 1][VT];  // (LateRk 3, compact layouts: u for the update)
  static_assert(LateRk >= 0 && LateRk <= 3, "LateRk: 0, 1, 2 or 3");
  const auto load_rk = [&] {
#pragma unroll
    for (int m = 0; m < rounds; ++m) {
      const int i = update_thread + m * threads, el = i % E, row = swizzled(i / E, Np);
      const bool mine = row < Np && el < n_local && update_group < VS;
#pragma unroll
      for (int c = 0; c < VT; ++c) {
        const int v = update_group * VT + c;
        const index_t index = state_index(v * Np + row, e0 + el);
        const bool in = mine && v < NV;
        q_k[m][c] = in ? k.update.q_at(index) : Real(0);
        u0_k[m][c] = in ? k.update.u0_at(index) : Real(0);
        if constexpr (LateRk == 3) u_k[m][c] = in && t.compact ? k.u.data[index] : Real(0);
      }
    }
  };
  if constexpr (!LateRk) {
    load_rk();
  }
  device::copy_async_commit();
  device::copy_async_wait();
  __syncthreads();

  // 1. The values at the volume points (rows [0, Nq)), up to MT2W row tiles per pass sharing each
  //    B fragment.
  // (Variant 2 with the sizes compiled in: row group g's tiles g, g + R, ... in one pass, their
  // count a compile-time constant in each branch of a uniform branch on the row group — every product
  // unpredicated (a predicated one waits on a WARPSYNC); the same sums)
  constexpr bool exact_values = (Variant & 2) != 0 && fixed;
  const auto values = [&]<int T>(int mt0) {
    double acc[T][2] = {};
    for (int ks = 0; ks < K2 / 4; ++ks) {
      const int j = ks * 4 + fragment_col;
      const double b = j < Np ? static_cast<double>(s_u[staged(j, column_tile, fragment_row)]) : 0.0;
#pragma unroll
      for (int i = 0; i < T; ++i) {
        const int mt = mt0 + i * R;
        if (exact_values || mt < MT2) device::dmma_8x8x4(acc[i], __ldg(a2 + fragment_index(mt, ks, lane, K2)), b);
      }
    }
#pragma unroll
    for (int i = 0; i < T; ++i) {
      const int kq = (mt0 + i * R) * 8 + fragment_row;
      if (kq < Nq) store_pair(shared + kq * ST + column_tile * 8 + 2 * fragment_col, acc[i][0], acc[i][1]);
    }
  };
  if constexpr (exact_values) {
    constexpr int MT2c = (FixedNq + 7) / 8;
    if constexpr (R == 1) {
      values.template operator()<MT2c>(0);
    } else {
      if (row_group == 0) values.template operator()<(MT2c + 1) / 2>(0);
      else if constexpr (MT2c / 2 > 0) values.template operator()<MT2c / 2>(1);
    }
  } else {
    for (int mt0 = row_group; mt0 < MT2; mt0 += MT2W * R) values.template operator()<MT2W>(mt0);
  }
  __syncthreads();

  // 2. The reference fluxes at the volume points, in place (a thread reads its point's values in
  //    row k before it writes row k = 0 Nq + k).
  for (int i = threadIdx.x; i < Nq * E; i += threads) {
    const int el = i % E, kq = swizzled(i / E, Nq);
    double fr[dim][NV] = {};
    if (el < n_local) {
      State uk;
      for (int v = 0; v < NV; ++v) uk[v] = static_cast<Real>(shared[kq * ST + v * E + el]);
      State f[dim];
      k.physics.flux(uk, f);
      Real m[dim][dim];
      k.weighted_metric(kq, e0 + el, s_metric + el, E, m);
      for (int v = 0; v < NV; ++v)
        for (int r = 0; r < dim; ++r) fr[r][v] = reference_flux(m, f, r, v);
    }
    for (int r = 0; r < dim; ++r)
      for (int v = 0; v < NV; ++v) shared[(r * Nq + kq) * ST + v * E + el] = static_cast<Value>(fr[r][v]);
  }
  // The face fluxes are along the minus side's normal: negated on the element's minus faces.
  if constexpr (keep_sides) {
    constexpr int face_items = NF * FixedNfq * E, face_rounds = (face_items + threads - 1) / threads;
#pragma unroll
    for (int r = 0; r < face_rounds; ++r) {
      const int i = static_cast<int>(threadIdx.x) + r * threads, el = i % E, lq = swizzled(i / E, face_items / E);
      if (i >= face_items || el >= n_local || ((plus_sides >> r) & 1u) != 0) continue;
      Value* row = shared + static_cast<std::size_t>(surface_row + lq) * ST + el;
      for (int v = 0; v < NV; ++v) row[v * E] = -row[v * E];
    }
  } else {
    for (int i = threadIdx.x; i < NF * Nfq * E; i += threads) {
      const int el = i % E, lq = swizzled(i / E, NF * Nfq);
      if (el >= n_local || code_plus_side(k.codes[lq / Nfq * k.Ks + e0 + el])) continue;
      Value* row = shared + static_cast<std::size_t>(surface_row + lq) * ST + el;
      for (int v = 0; v < NV; ++v) row[v * E] = -row[v * E];
    }
  }
  __syncthreads();

  // 3. The residual: A3 x rows. Unit (u % MP, split s) sums the k steps [s KS / S, (s + 1) KS / S)
  //    (S = splits) for its TU row tiles (one; Wide: a pair, 2 mp and 2 mp + 1) and all NV column
  //    tiles: each A fragment is loaded once for NV products (a warp per column tile loaded it NV
  //    times: the kernel's L1 traffic, session 41), with Wide each B fragment once for both row tiles
  //    (m16n8k4: twice m8n8k4's rate on the H100, session 44); the S splits of the k range spread the
  //    units over the W warps, warp w taking units w, w + W, ...; each split's partial sums go to rows
  //    s 8 MT3 + j, summed in order of s into rows [0, Np).
  constexpr int W = R * NV, TU = Wide ? 2 : 1, MP = (MT3 + TU - 1) / TU, UW = (MP + W - 1) / W;  // TU row tiles a unit
  const int KS = K3 / 4;
  constexpr int PS = 8 * MT3;  // the partial sums' rows a split
  constexpr auto splits_for = [](int k3) { return MP > W ? 1 : (W / MP < k3 / PS ? W / MP : (k3 / PS > 0 ? k3 / PS : 1)); };
  const int splits = splits_for(K3);
  // Variant 8 (the sizes compiled in, affine inviscid groups): no pass summing the splits' partial sums
  // into rows [0, Np) (and no barrier after it): the update sums them itself, in the same order, rounded
  // to the rows' type as the pass stored them — the same values; the fused traces' rows then lie past
  // the partial sums.
  constexpr bool fused_sums = (Variant & 8) != 0;
  static_assert(!fused_sums || (fixed && G == GeometryKind::affine && !Physics::has_viscous_flux),
                "Variant 8: the sizes compiled in, affine inviscid groups");
  constexpr int splits_fixed = fixed ? splits_for((dim * FixedNq + NF * FixedNfq + 3) / 4 * 4) : 1;
  double acc[UW][TU][NV][2] = {};
#pragma unroll
  for (int i = 0; i < UW; ++i) {
    const int u = warp + i * W;
    if (u >= MP * splits) continue;
    const int mt = TU * (u % MP), split = u / MP, k0 = split * KS / splits, k1 = (split + 1) * KS / splits;
    if constexpr (Wide) {
      if (mt + 1 < MT3) {
        // k step ks's NV products of the pair (m16n8k4) with its A fragments a_top, a_bottom.
        const auto pair_products = [&](int ks, double a_top, double a_bottom) {
          const Value* b = shared + (ks * 4 + fragment_col) * ST + fragment_row;
#pragma unroll
          for (int ct = 0; ct < NV; ++ct)
            device::dmma_16x8x4(acc[i][0][ct], acc[i][TU - 1][ct], a_top, a_bottom, static_cast<double>(b[ct * 8]));
        };
        if constexpr (APrefetch > 0) {
          // The pair's fragments APrefetch k steps ahead (a ring of APrefetch registers each, as below).
          const double* top = a3 + fragment_index(mt, 0, lane, K3);
          const double* bottom = a3 + fragment_index(mt + 1, 0, lane, K3);
          double ring_top[APrefetch], ring_bottom[APrefetch];
#pragma unroll
          for (int d = 0; d < APrefetch; ++d) {
            ring_top[d] = k0 + d < k1 ? __ldg(top + (k0 + d) * 32) : 0.0;
            ring_bottom[d] = k0 + d < k1 ? __ldg(bottom + (k0 + d) * 32) : 0.0;
          }
#pragma unroll 1
          for (int ks0 = k0; ks0 < k1; ks0 += APrefetch) {
#pragma unroll
            for (int d = 0; d < APrefetch; ++d) {
              const int ks = ks0 + d;
              if (ks < k1) {
                const double a_top = ring_top[d], a_bottom = ring_bottom[d];
                ring_top[d] = ks + APrefetch < k1 ? __ldg(top + (ks + APrefetch) * 32) : 0.0;
                ring_bottom[d] = ks + APrefetch < k1 ? __ldg(bottom + (ks + APrefetch) * 32) : 0.0;
                pair_products(ks, a_top, a_bottom);
              }
            }
          }
        } else {
#pragma unroll 2
          for (int ks = k0; ks < k1; ++ks)
            pair_products(ks, __ldg(a3 + fragment_index(mt, ks, lane, K3)), __ldg(a3 + fragment_index(mt + 1, ks, lane, K3)));
        }
        continue;
      }
    }
    // A row tile alone (!Wide, or the last of an odd count): k step ks's NV products with A fragment a.
    const auto products = [&](int ks, double a) {
      const Value* b = shared + (ks * 4 + fragment_col) * ST + fragment_row;
#pragma unroll
      for (int ct = 0; ct < NV; ++ct) device::dmma_8x8x4(acc[i][0][ct], a, static_cast<double>(b[ct * 8]));
    };
    if constexpr (APrefetch > 0) {
      // Row tile mt's fragments are 32 doubles a k step (fragment_index); ring[d] holds step ks + d.
      const double* a_tile = a3 + fragment_index(mt, 0, lane, K3);
      double ring[APrefetch];
#pragma unroll
      for (int d = 0; d < APrefetch; ++d) ring[d] = k0 + d < k1 ? __ldg(a_tile + (k0 + d) * 32) : 0.0;
#pragma unroll 1
      for (int ks0 = k0; ks0 < k1; ks0 += APrefetch) {
#pragma unroll
        for (int d = 0; d < APrefetch; ++d) {
          const int ks = ks0 + d;
          if (ks < k1) {
            const double a = ring[d];
            ring[d] = ks + APrefetch < k1 ? __ldg(a_tile + (ks + APrefetch) * 32) : 0.0;
            products(ks, a);
          }
        }
      }
    } else {
#pragma unroll 2
      for (int ks = k0; ks < k1; ++ks) products(ks, __ldg(a3 + fragment_index(mt, ks, lane, K3)));
    }
  }
  // The partial sums -> shared (rows [0, PS S) within [0, K3)), then a thread per (mode, column)
  // sums them into rows [0, Np); then a thread per (element, mode) in element order (coalesced):
  // affine: times 1 / det J; curved: the inverse mass matrix row times it; the update.
  __syncthreads();  // every warp is past its reads of rows [0, K3)
#pragma unroll
  for (int i = 0; i < UW; ++i) {
    const int u = warp + i * W;
    if (u >= MP * splits) continue;
    const int split = u / MP;
#pragma unroll
    for (int h = 0; h < TU; ++h) {
      const int j = (TU * (u % MP) + h) * 8 + fragment_row;
      if (j < Np)
#pragma unroll
        for (int ct = 0; ct < NV; ++ct)
          store_pair(shared + (split * PS + j) * ST + ct * 8 + 2 * fragment_col, acc[i][h][ct][0], acc[i][h][ct][1]);
    }
  }
  if constexpr (LateRk == 2 || LateRk == 3) {
    load_rk();
  }
  __syncthreads();
  if (!fused_sums && splits > 1) {
    for (int i = threadIdx.x; i < Np * NV * E; i += threads) {
      const int row = i / (NV * E), column = i % (NV * E);
      double sum = shared[row * ST + column];
      for (int split = 1; split < splits; ++split) sum += shared[(split * PS + row) * ST + column];
      shared[row * ST + column] = static_cast<Value>(sum);
    }
    __syncthreads();
  }
  if constexpr (Physics::has_viscous_flux) {
    // BR2's volume term (the lifting pass's moments) joins the residual before the inverse mass.
    for (int i = threadIdx.x; i < Np * E; i += threads) {
      const int el = i % E, row = i / E;
      if (el >= n_local) continue;
      for (int v = 0; v < NV; ++v)
        shared[row * ST + v * E + el] += k.viscous_rhs[(static_cast<index_t>(v) * Np + row) * k.Ks + e0 + el];
    }
    __syncthreads();
  }
  if constexpr (G == GeometryKind::curved) {
    if (k.collocated) {
      // M^-1 = V^T diag(w / det J) V (Nq = Np): the residual at the points times the factors, in the
      // free rows [Np, 2 Np) (K3 >= dim Nq rows), then back to the modes below.
      for (int i = threadIdx.x; i < Np * E; i += threads) {
        const int el = i % E, kq = i / E;
        if (el >= n_local) continue;
        const double factor = k.point_mass_factor(kq, e0 + el);
        for (int v = 0; v < NV; ++v) {
          double sum = 0.0;
#pragma unroll
          for (int j = 0; j < Np; ++j) sum += k.volume_phi[kq * Np + j] * shared[j * ST + v * E + el];
          shared[(Np + kq) * ST + v * E + el] = factor * sum;
        }
      }
      __syncthreads();
    }
  }
  if constexpr (LateRk == 1) {
    load_rk();
  }
  // Phase 4's rows (3D Euler's affine tetrahedra): the updated coefficients, zeros past Np (the
  // table's padding columns are zero; so must the rows be: 0 x NaN is NaN).
  constexpr bool fused_traces = Traces && std::is_same_v<Physics, physics::Euler<3, Real>> && S == Shape::tetrahedron && G == GeometryKind::affine;
  static_assert(!Traces || fused_traces, "the fused traces: 3D Euler's affine tetrahedra");
  constexpr int KC = (Np + 3) / 4 * 4, trace_row = fused_sums ? PS * splits_fixed : 8 * MT3;
  static_assert(!fused_sums || !fused_traces || trace_row + KC <= (dim * FixedNq + NF * FixedNfq + 3) / 4 * 4,
                "Variant 8 with the fused traces: their rows past the partial sums, inside K3");
  if constexpr (fused_traces) {
    for (int i = static_cast<int>(threadIdx.x); i < (KC - Np) * NV * E; i += threads)
      shared[(trace_row + Np + i / (NV * E)) * ST + i % (NV * E)] = Value(0);
  }
#pragma unroll
  for (int m = 0; m < rounds; ++m) {
    const int i = update_thread + m * threads, el = i % E, row = swizzled(i / E, Np);
    if (row >= Np || update_group >= VS) continue;
    // the thread's c-th variable (VS 1: v = c) where it has one (VS 2: the second group has VT - 1),
    // else 0 (its loads stay in bounds, its update is skipped)
    const auto has = [&](int c) { return update_group * VT + c < NV; };
    const auto variable = [&](int c) { return has(c) ? update_group * VT + c : 0; };
    if (el >= n_local) {
      if constexpr (fused_traces) {
        for (int c = 0; c < VT; ++c)
          if (has(c)) shared[(trace_row + row) * ST + variable(c) * E + el] = Value(0);
      }
      continue;
    }
    const index_t e = e0 + el;
    double value[VT];
    if constexpr (G == GeometryKind::affine) {
      const double inverse_det = s_metric[dim * dim * E + el];
      if constexpr (fused_sums) {
#pragma unroll
        for (int c = 0; c < VT; ++c) {
          const int v = variable(c);
          double sum = shared[row * ST + v * E + el];
#pragma unroll
          for (int split = 1; split < splits_fixed; ++split) sum += shared[(split * PS + row) * ST + v * E + el];
          value[c] = inverse_det * static_cast<double>(static_cast<Value>(sum));
        }
      } else {
        for (int c = 0; c < VT; ++c) value[c] = inverse_det * shared[row * ST + variable(c) * E + el];
      }
    } else if (k.collocated) {
      for (int c = 0; c < VT; ++c) value[c] = 0.0;
      for (int kq = 0; kq < Np; ++kq) {
        const double phi = k.volume_phi[kq * Np + row];
        for (int c = 0; c < VT; ++c) value[c] += phi * shared[(Np + kq) * ST + variable(c) * E + el];
      }
    } else {
      for (int c = 0; c < VT; ++c) value[c] = 0.0;
      for (int j = 0; j < Np; ++j) {
        const double m = k.inverse_mass[(static_cast<index_t>(row) * Np + j) * k.Ks + e];
        for (int c = 0; c < VT; ++c) value[c] += m * shared[j * ST + variable(c) * E + el];
      }
    }
    // u: the coefficients phase 0 loaded (compact: phase 2 wrote over them; the same values again from global memory)
    Real u_s[VT];
#pragma unroll
    for (int c = 0; c < VT; ++c) {
      const int v = variable(c);
      const Real* u_again = k.u.data + state_index(v * Np + row, e);
      if constexpr (LateRk == 3) u_s[c] = !t.compact ? static_cast<Real>(s_u[staged(row, v, el)]) : u_k[m][c];
      else u_s[c] = !t.compact ? static_cast<Real>(s_u[staged(row, v, el)]) : *u_again;
    }
#pragma unroll
    for (int c = 0; c < VT; ++c) {
      if (VS > 1 && !has(c)) continue;
      const int v = variable(c);
      const Real updated = k.update.apply_loaded_at(k.u, state_index(v * Np + row, e), e, static_cast<Real>(value[c]), u_s[c],
                                                 q_k[m][c], u0_k[m][c]);
      if constexpr (fused_traces) {
        shared[(trace_row + row) * ST + v * E + el] = static_cast<Value>(updated);
      }
    }
  }
  // 4. The updated coefficients' traces at the faces' nodes or points (FaceTraceBuffer's product and
  // layout: trace_rows rows a face, the launcher checks that a warp takes each row tile).
  // Row r of the product (face r / Nn, node or point r % Nn), variables [first, first + C): the
  // fragment's two elements' values value(t, c) -> `traces`.
  const auto store_traces = [&]<int C>(int r, int first, int Nn, const auto& value) {
    if (r >= 4 * Nn) return;
    const int l = r / Nn, node = r % Nn;
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const int el = 2 * fragment_col + c;
      if (el >= n_local) continue;
#pragma unroll
      for (int t = 0; t < C; ++t) traces[(((e0 + el) * 4 + l) * NV + first + t) * Nn + node] = static_cast<Real>(value(t, c));
    }
  };
  if constexpr (fused_traces && (Variant & 1) != 0) {
    // On m16n8k4: warp w takes row-tile pair w % 5 ((2 (w % 5), 2 (w % 5) + 1); past MT4 zeros, not
    // stored) and column tiles [0, 3) (w < 5) or [3, 5): each pair's A fragments loaded by two warps,
    // half the tensor instructions of a row tile a warp (Groups 1: pair w, all five column tiles).
    // The same sums in the same order.
    static_assert(NV == 5, "phase 4 on pairs: five pairs");
    const int Nn = trace_rows, MT4 = (4 * Nn + 7) / 8, pair = warp % 5, half = warp / 5;
    __syncthreads();
    if (2 * pair >= MT4) return;
    const bool bottom_tile = 2 * pair + 1 < MT4;
    // C column tiles from tile `first` (a uniform branch below: no predicated products)
    const auto pair_traces = [&]<int C>(int first) {
      double at[C][2][2] = {};
#pragma unroll
      for (int ks = 0; ks < KC / 4; ++ks) {
        const double a_top = __ldg(trace_tables + fragment_index(2 * pair, ks, lane, KC));
        const double a_bottom = bottom_tile ? __ldg(trace_tables + fragment_index(2 * pair + 1, ks, lane, KC)) : 0.0;
        const Value* b = shared + (trace_row + ks * 4 + fragment_col) * ST + fragment_row + first * E;
#pragma unroll
        for (int c = 0; c < C; ++c) device::dmma_16x8x4(at[c][0], at[c][1], a_top, a_bottom, static_cast<double>(b[c * E]));
      }
#pragma unroll
      for (int h = 0; h < 2; ++h)
        store_traces.template operator()<C>((2 * pair + h) * 8 + fragment_row, first, Nn, [&](int t, int c) { return at[t][h][c]; });
    };
    if constexpr (R == 1) pair_traces.template operator()<5>(0);
    else if (half == 0) pair_traces.template operator()<3>(0);
    else pair_traces.template operator()<2>(3);
  } else if constexpr (fused_traces) {
    const int Nn = trace_rows, MT4 = (4 * Nn + 7) / 8;
    __syncthreads();
    // row tile mt (a warp each: ten warps; Groups 1: warp w tiles w, w + 5, ...)
    const auto tile_traces = [&](int mt) {
      double at[NV][2] = {};
#pragma unroll
      for (int ks = 0; ks < KC / 4; ++ks) {
        const double a = __ldg(trace_tables + fragment_index(mt, ks, lane, KC));
        const Value* b = shared + (trace_row + ks * 4 + fragment_col) * ST + fragment_row;
#pragma unroll
        for (int v = 0; v < NV; ++v) device::dmma_8x8x4(at[v], a, static_cast<double>(b[v * E]));
      }
      store_traces.template operator()<NV>(mt * 8 + fragment_row, 0, Nn, [&](int v, int c) { return at[v][c]; });
    };
    if constexpr (R == 2) {
      if (warp < MT4) tile_traces(warp);
    } else {
#pragma unroll 1
      for (int mt = warp; mt < MT4; mt += threads / 32) tile_traces(mt);
    }
  }
}

template <class Physics, Shape S, int P, GeometryKind G>
/// Elements [first, first + n_elements) of the group; the layout's float_rows and compact as set-up
/// chose them (DgOperator::tensor_rows).
/// traces, trace_tables (3D Euler's affine tetrahedra; else null): phase 4 writes the updated
/// coefficients' traces at the faces' nodes or points (FaceTraceBuffer, trace_rows = its Nn rows a
/// face) for elements [first, first + n_elements).
void launch_core_element_tensor_kernel(const ElementKernel<Physics, S, P, G>& kernel, index_t first, index_t n_elements,
                                       const CoreTensorLayout& layout, const double* tables, const int* face_permutation,
                                       typename Physics::real* traces = nullptr, const double* trace_tables = nullptr, int trace_rows = 0) {
  if (n_elements <= 0) return;
  const std::size_t shared = core_tensor_shared_bytes(layout);
  if (shared > block_shared_limit)
    throw Error(cat("tensor-core element kernel: ", shared, " bytes of shared memory per block (at most ", block_shared_limit, ")"));
  FLOWDG_ASSERT(traces == nullptr || 8 * ((layout.Np + 7) / 8) + (layout.Np + 3) / 4 * 4 <= layout.K3,
                "the fused traces' rows [8 MT3, 8 MT3 + KC) lie past K3 = ", layout.K3);
  FLOWDG_ASSERT(traces == nullptr || (trace_rows > 0 && (4 * trace_rows + 7) / 8 <= core_tensor_row_groups * Physics::n_variables),
                "the fused traces: ", trace_rows, " rows a face, more row tiles than the block's warps");
  if (layout.compact && !core_tensor_compact_fits(layout))
    throw Error(cat("tensor-core element kernel: the coefficients (", layout.Np, " rows) do not fit inside the reference fluxes' rows"));
  const auto blocks = static_cast<unsigned>((n_elements + core_tensor_elements - 1) / core_tensor_elements);
  const auto run = [&]<int MinBlocks, bool Wide = false, bool FloatRows = false, int LateRk = 0, int APrefetch = 0, bool Traces = false,
                       int FixedNq = 0, int FixedNfq = 0, int Variant = 0, int Groups = core_tensor_row_groups>() {
    constexpr auto function =
        core_element_tensor_kernel<Physics, S, P, G, MinBlocks, Wide, FloatRows, LateRk, APrefetch, Traces, FixedNq, FixedNfq, Variant, Groups>;
    if constexpr (FixedNq > 0) {
      constexpr int columns = Physics::n_variables * core_tensor_elements;
      FLOWDG_ASSERT(layout.Nq == FixedNq && layout.Nfq == FixedNfq && layout.stride == (FloatRows ? core_tensor_float_stride(columns) : columns + 4) &&
                        layout.K3 == (Physics::dim * FixedNq + n_faces(S) * FixedNfq + 3) / 4 * 4 && layout.K2 == (layout.Np + 3) / 4 * 4 &&
                        layout.M2 == (FixedNq + 7) / 8 * 8,
                    "tensor-core element kernel: the layout is not the one its compile-time sizes assume");
    }
    allow_block_shared_limit<function>();
    detail::launch(false, function, blocks, core_tensor_threads<Physics, Groups>(), shared, kernel, first, first + n_elements, layout, tables,
                   tables + layout.M2 * layout.K2, face_permutation, traces, trace_tables, trace_rows);
  };
  // 3D Euler's affine tetrahedra at p = 3, 4: registers bounded for tensor_blocks blocks an SM
  // (setup.cpp, by measurement; unbounded they took 106-108, one block an SM): double rows three (64
  // registers) at p = 3, two (96) at p = 4 (three only in the compact layout, whose shared memory
  // fits them there); float rows (float storage: half the shared memory) four (48); the Runge-Kutta
  // registers loaded after the products from three blocks on (tensor_late_rk).
  if constexpr ((std::is_same_v<Physics, physics::Euler<3, double>> || std::is_same_v<Physics, physics::Euler<3, float>>) &&
                S == Shape::tetrahedron && G == GeometryKind::affine && (P == 3 || P == 4)) {
    // The default shapes with the layout's sizes at compile time where it is the default volume
    // rule's (degree 2p: 24 points at p = 3, 46 at p = 4) with face moments (Nn face rows), as
    // tensor_fixed_layout says; else (another volume rule, point fluxes) the same shape with t's sizes.
    constexpr int fixed_nq = tensor_fixed_volume_points(P), fixed_nfq = face_moment_nodes(P);
    const bool fixed = layout.Nq == fixed_nq && layout.Nfq == fixed_nfq && tensor_fixed_layout(P, layout.float_rows);
    // (with late Runge-Kutta loads and the sizes compiled in: loaded right after the products'
    // partial sums where tensor_rk_after_sums says so)
    const auto run_fixed = [&]<int MinBlocks, bool Wide, bool FloatRows, int LateRk, int APrefetch, bool Traces, int Variant = 0>() {
      if constexpr (LateRk == 1) {
        if (fixed && tensor_rk_after_sums(P)) {
          run.template operator()<MinBlocks, Wide, FloatRows, 2, APrefetch, Traces, fixed_nq, fixed_nfq, Variant>();
          return;
        }
      }
      if (fixed) run.template operator()<MinBlocks, Wide, FloatRows, LateRk, APrefetch, Traces, fixed_nq, fixed_nfq, Variant>();
      else run.template operator()<MinBlocks, Wide, FloatRows, LateRk, APrefetch, Traces>();
    };
    // The state element-major (CoreTensorLayout::element_major, face_trace_mode 4: Variant bit 256): the
    // default shapes at p = 3 alone — double rows 66's (ten warps, three blocks an SM, the loads after
    // the sums), float rows 10's narrow blocks (eight an SM).
    if (layout.element_major) {
      // (the operator holds a group element-major only where tensor_element_major_runs says so: setup.cpp)
      constexpr bool storage_double = std::is_same_v<Physics, physics::Euler<3, double>>;
      FLOWDG_ASSERT(traces == nullptr && fixed &&
                        tensor_element_major_runs(P, storage_double, layout.float_rows, layout.compact, layout.Nq, layout.Nfq),
                    "the element-major state runs the tensor-core element kernel's default shapes at p = 3 (tensor_element_major_runs)");
      if constexpr (P == 3) {
        // (tensor_staged_element_major: the coefficients element-major in shared memory too, Variant 512)
        const bool staged = tensor_staged_element_major();
        if constexpr (storage_double) {
          if (staged) run_fixed.template operator()<3, true, false, true, 0, false, 66 | 256 | 512>();
          else run_fixed.template operator()<3, true, false, true, 0, false, 66 | 256>();
        } else {
          if (staged) run.template operator()<8, false, true, 2, 0, false, fixed_nq, fixed_nfq, 10 | 256 | 512, 1>();
          else run.template operator()<8, false, true, 2, 0, false, fixed_nq, fixed_nfq, 10 | 256, 1>();
        }
      }
      return;
    }
    // Narrow blocks (tensor_row_groups 1: a warp a column tile, five warps a block; A/B): the default
    // shapes' template arguments with the sizes compiled in, the blocks an SM that their shared memory
    // holds — double p = 3 compact (40 KB a block: five blocks, 80 registers), float rows p = 3 (21 KB:
    // eight blocks, 48 registers), double p = 4 compact with the fused traces on pairs (70 KB: three
    // blocks, 136 registers), float rows p = 4 with the fused traces (38 KB: five blocks, 80 registers);
    // the default (tensor_row_groups) for float rows at p = 3 without the fused traces.
    if (tensor_row_groups(P, layout.float_rows) == 1) {
      const int variant = tensor_variant(P, layout.float_rows);
      bool ran = false;
      if constexpr (P == 3) {
        if (traces == nullptr && fixed && layout.float_rows && variant == 10) {
          if constexpr (std::is_same_v<Physics, physics::Euler<3, float>>) {
            run.template operator()<8, false, true, 2, 0, false, fixed_nq, fixed_nfq, 10, 1>();
            ran = true;
          }
        } else if (traces == nullptr && fixed && !layout.float_rows && layout.compact && (variant == 2 || variant == 66)) {
          // (66's narrow shape: 2's — five warps, as many threads as (element, mode) pairs)
          if constexpr (std::is_same_v<Physics, physics::Euler<3, double>>) {
            run.template operator()<5, true, false, 3, 0, false, fixed_nq, fixed_nfq, 2, 1>();
            ran = true;
          }
        }
      } else if constexpr (std::is_same_v<Physics, physics::Euler<3, float>>) {
        if (traces != nullptr && fixed && layout.float_rows && variant == 2) {
          run.template operator()<5, false, true, 1, 0, true, fixed_nq, fixed_nfq, 2, 1>();
          ran = true;
        }
      } else if constexpr (std::is_same_v<Physics, physics::Euler<3, double>>) {
        // (variant 151's narrow shape: 23's, the plus sides not kept)
        if (traces != nullptr && fixed && !layout.float_rows && layout.compact && tensor_rk_u(P) && (variant == 23 || variant == 151) &&
            tensor_wide(P) && tensor_prefetch(P, false)) {
          run.template operator()<3, true, false, 3, 6, true, fixed_nq, fixed_nfq, 19, 1>();
          ran = true;
        }
      }
      if (ran) return;
      // (any other shape — the fused traces at p = 3, another volume rule, another variant — runs its
      // ten-warp blocks below)
    }
    if (traces != nullptr) {
      // The fused trace buffer (phase 4): the default shapes alone (tensor_blocks, tensor_late_rk,
      // tensor_prefetch's rules; the A/B switches' other shapes are not built with it). (ptxas: p = 4
      // double two blocks 96 registers, float rows four blocks 48 at p = 3 and 4, no spills; p = 3
      // double three blocks 64, 8 bytes spilled.) Double at p = 4 on m16n8k4 (tensor_wide) takes the
      // loads after the partial sums (96 registers, none spilled; early loads spilled 32 bytes and
      // ran 15% slower: session 53).
      if constexpr (std::is_same_v<Physics, physics::Euler<3, float>>) {
        if (layout.float_rows) {
          if constexpr (P == 4) {
            // (FLOWDG_TENSOR_VARIANT's A/B shapes: tensor_variant; phase 4 on m16n8k4 does not fit
            // four blocks' 48 registers: ptxas refuses the mma)
            const int variant = tensor_variant(P, true);
            if (variant == 0 || !fixed) run_fixed.template operator()<4, false, true, true, 0, true>();
            else if (variant == 2) run.template operator()<4, false, true, true, 0, true, fixed_nq, fixed_nfq, 2>();
            // (session 57: + 8 (10), + 16 (18) and both (26) within 0.4% of 2; not built since)
            else throw InputError(cat("FLOWDG_TENSOR_VARIANT=", variant, ": float rows at p = 4 are built for 0 and 2"));
          } else {
            run.template operator()<4, false, true, true, 0, true>();
          }
          return;
        }
      }
      if constexpr (P == 4) {
        if (!tensor_wide(P)) run_fixed.template operator()<2, false, false, false, 4, true>();
        else if (tensor_prefetch(P, false)) {
          // (the sizes compiled in and u with the late loads: A/B switches, tensor_fixed_layout, tensor_rk_u)
          // (double storage only: the float storage's double rows keep the one shape)
          bool other = false;
          if constexpr (std::is_same_v<Physics, physics::Euler<3, double>>) {
            const bool rk_u = layout.compact && tensor_rk_u(P);
            other = fixed || rk_u;
            // (Variant: tensor_variant, by default 3: phase 1 unpredicated, phase 4 on m16n8k4; 7 the
            // same with phase 3's A fragments six k steps ahead, 0 neither, for A/B runs)
            const int variant = tensor_variant(P, false);
            if (fixed && rk_u && variant == 3) run.template operator()<2, true, false, 3, 4, true, fixed_nq, fixed_nfq, 3>();
            else if (fixed && rk_u && variant == 7) run.template operator()<2, true, false, 3, 6, true, fixed_nq, fixed_nfq, 3>();
            // (23: 7 + phase 0's face codes loaded first; session 57 measured 7 + the splits' sums in the
            // update (15) and both (31) too, -0.6% and +1.6%: not built since; 151, the default: 23 + the plus
            // sides kept for the negation pass, Variant bit 128, session 62)
            else if (fixed && rk_u && variant == 23) run.template operator()<2, true, false, 3, 6, true, fixed_nq, fixed_nfq, 19>();
            else if (fixed && rk_u && variant == 151) run.template operator()<2, true, false, 3, 6, true, fixed_nq, fixed_nfq, 147>();
            else if (fixed && rk_u && variant != 0)
              throw InputError(cat("FLOWDG_TENSOR_VARIANT=", variant, ": double rows at p = 4 are built for 0, 3, 7, 23 and 151"));
            else if (fixed && rk_u) run.template operator()<2, true, false, 3, 4, true, fixed_nq, fixed_nfq>();
            else if (fixed) run.template operator()<2, true, false, 2, 4, true, fixed_nq, fixed_nfq>();
            else if (rk_u) run.template operator()<2, true, false, 3, 4, true>();
          }
          if (!other) run.template operator()<2, true, false, 2, 4, true>();
        }
        else run.template operator()<2, true, false, 2, 0, true>();
      } else if (tensor_wide(P)) {
        // (p = 3: the default shape's, m16n8k4 with the sizes compiled in and the loads after the sums)
        run_fixed.template operator()<3, true, false, true, 0, true>();
      } else {
        run.template operator()<3, false, false, true, 0, true>();
      }
      return;
    }
    const int min_blocks = tensor_blocks(P, layout.float_rows, layout.compact);
    const bool late = tensor_late_rk(P, layout.float_rows, layout.compact);
    if constexpr (std::is_same_v<Physics, physics::Euler<3, float>>) {
      if (layout.float_rows) {
        // (ptxas, float rows, m8n8k4: p = 4 78 registers unbounded, 64 at three blocks without
        // spills, 48 at four with 48 bytes spilled; p = 3 72 / 64 / 48 with 36 bytes; m16n8k4
        // spills at three blocks and does not fit four's 48 registers: four blocks run m8n8k4)
        // (A prefetched two k steps ahead (tensor_prefetch): 48 registers at four blocks without
        // spills at p = 3 and 4; four ahead spilled 4 bytes at p = 4)
        if (min_blocks == 4 && late && tensor_prefetch(P, true)) run.template operator()<4, false, true, true, 2>();
        else if (min_blocks == 4 && late) {
          if constexpr (P == 3) {
            if (tensor_variant(P, true) == 2) run_fixed.template operator()<4, false, true, true, 0, false, 2>();
            else if (tensor_variant(P, true) == 10) run_fixed.template operator()<4, false, true, true, 0, false, 10>();
            else run_fixed.template operator()<4, false, true, true, 0, false>();
          }
          else run.template operator()<4, false, true, true>();
        } else if (min_blocks == 4) run.template operator()<4, false, true>();
        else if (min_blocks == 3) tensor_wide(P) ? run.template operator()<3, true, true>() : run.template operator()<3, false, true>();
        else tensor_wide(P) ? run.template operator()<2, true, true>() : run.template operator()<2, false, true>();
        return;
      }
    }
    // (ptxas, double: p = 4, m8n8k4, two blocks 96 registers without spills (82 with late loads),
    // three 64 with 132 bytes spilled (4 with late loads); p = 3 at three blocks, late loads, m8n8k4
    // 64 without spills, m16n8k4 8 bytes spilled with the layout's sizes read at run time and none
    // with them compiled in (session 53: tensor_wide's default at p = 3 runs that one); early loads
    // at three blocks run m8n8k4, whatever tensor_wide says: m16n8k4 spills there)
    // (A prefetched where tensor_prefetch says so — by default p = 4 — in the m8n8k4 shapes: p = 3
    // three blocks, late loads, two k steps ahead (64 registers without spills; four ahead spilled 4
    // bytes); p = 4 two blocks, early loads, four ahead (96, none); on m16n8k4, p = 4's default,
    // each pair's two fragments four ahead with the loads after the partial sums (96, none))
    const bool wide = tensor_wide(P), prefetch = tensor_prefetch(P, false);
    if (min_blocks == 3) {
      if (!late) run.template operator()<3>();
      else if (wide) {
        if constexpr (P == 3) {
          // (session 57: 10, the splits' sums in the update, +0.4%, within the rounds' spread: not built since)
          // (tensor_variant, double storage: 66 = 2 + the update two threads a pair; 2 for A/B runs. Session 62
          // measured 66 + the plus sides kept (194) equal to 66 and 66 + the splits' sums in the update (74) 3%
          // slower: not built since)
          const int variant = tensor_variant(P, false);
          if constexpr (std::is_same_v<Physics, physics::Euler<3, double>>) {
            if (variant == 66) {
              run_fixed.template operator()<3, true, false, true, 0, false, 66>();
              return;
            }
          }
          if (variant == 2 || variant == 66) run_fixed.template operator()<3, true, false, true, 0, false, 2>();
          else run_fixed.template operator()<3, true, false, true, 0, false>();
        }
        else run.template operator()<3, true, false, true>();
      }
      else if (prefetch) run.template operator()<3, false, false, true, 2>();
      else if constexpr (P == 3) run_fixed.template operator()<3, false, false, true, 0, false>();
      else run.template operator()<3, false, false, true>();
    } else if (wide) {
      if constexpr (P == 4) {
        // (as with the fused traces: the loads after the partial sums, the pairs' A fragments four ahead)
        prefetch ? run.template operator()<2, true, false, 2, 4>() : run.template operator()<2, true, false, 2>();
      } else {
        late ? run.template operator()<2, true, false, true>() : run.template operator()<2, true>();
      }
    } else if (late) {
      run.template operator()<2, false, false, true>();
    } else {
      prefetch ? run.template operator()<2, false, false, false, 4>() : run.template operator()<2>();
    }
    return;
  }
  if constexpr ((std::is_same_v<Physics, physics::Euler<3, double>> || std::is_same_v<Physics, physics::Euler<3, float>>) &&
                S == Shape::tetrahedron && G == GeometryKind::affine) {
    if (traces != nullptr) {
      run.template operator()<1, false, false, false, 0, true>();
      return;
    }
  }
  FLOWDG_ASSERT(traces == nullptr, "the fused trace buffer: 3D Euler's affine tetrahedra only");
  FLOWDG_ASSERT(!layout.element_major, "the element-major state: 3D Euler's affine tetrahedra at p = 3");
  run.template operator()<1>();
}

}  // namespace flowdg::dg
