#pragma once
// BR2's lifting pass on affine elements with its three products on the FP64 tensor cores
// (mma.m8n8k4, double precision, compute capability 8.0): the same outputs as lifting.hpp's
// LiftingElementKernel (each interior face's half of the centred viscous flux, the boundary faces'
// gradient, the volume term's moments in viscous_rhs), from the reference tables of
// lifting_tensor_tables (lifting.hpp). A block of E = 8 elements, 8 warps; columns n = v E + el
// (NV column tiles) for the values, n = (d NV + v) E + el (dim NV tiles) for the liftings. Phases
// (barriers between):
//   0. the coefficients, the affine metric and S = wn_d jump_v at the element's own face points
//      (lq = l Nfq + point) -> shared;
//   1. Y = A1 x coefficients (values and reference derivatives at the volume and face points) and
//      R = A2 x S (the liftings there), an 8 x 8 output tile per warp and job;
//   2. a thread per (element, face point): Theta_l = grad U + eta R / det J and the trace, to the face
//      (store_lifting_face_point); a thread per (element, volume point): Theta = grad U + R / det J,
//      the viscous flux in reference form -> shared;
//   3. viscous_rhs = -A3 x those fluxes, from the accumulators.
// The sums run in another order than the CPU's (rounding-level differences; the GPU test compares).
// CUDA only: included by dg_operator.hpp under __CUDACC__. Selected with the tensor-core element
// kernel (solver.element_kernel = "tensor") on affine groups of a physics without a viscosity per
// element, where its shared memory fits (DgOperator's set-up).
#include <type_traits>

#include "flowdg/backend/cuda_check.hpp"
#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/tensor_core.hpp"
#include "flowdg/dg/core_block_kernels.hpp"
#include "flowdg/dg/lifting.hpp"

namespace flowdg::dg {

constexpr int lifting_tensor_threads = 256;

/// One 8 x 8 tile of D = A B: A (M x K, fragment order) from global memory, B's rows [0, K) from
/// shared memory (row stride `stride`, the tile's 8 columns from `column`).
__device__ FLOWDG_FORCEINLINE void lifting_tensor_tile(double (&acc)[2], const double* __restrict__ a, int mt, int K,
                                                       const double* b, int stride, int column, int lane) {
  acc[0] = acc[1] = 0.0;
  const int fragment_row = lane / 4, fragment_col = lane % 4;
  for (int ks = 0; ks < K / 4; ++ks)
    device::dmma_8x8x4(acc, __ldg(a + fragment_index(mt, ks, lane, K)), b[(ks * 4 + fragment_col) * stride + column + fragment_row]);
}

template <class Physics, Shape S, int P>
__global__ void __launch_bounds__(lifting_tensor_threads)
    lifting_tensor_kernel(LiftingElementKernel<Physics, S, P, GeometryKind::affine> k, index_t n_elements, LiftingTensorLayout t,
                          const double* __restrict__ tables) {
  static_assert(std::is_same_v<typename Physics::real, double>, "the FP64 tensor cores take double precision only");
  static_assert(!physics::has_element_viscosity<Physics>, "a viscosity per element runs the block lifting kernel");
  using State = typename Physics::State;
  constexpr int dim = Physics::dim, NV = Physics::n_variables, Np = n_basis(S, P);
  constexpr int E = lifting_tensor_elements, T = dim * NV, threads = lifting_tensor_threads, warps = threads / 32;
  const ElementKernel<Physics, S, P, GeometryKind::affine>& b = k.base;
  const int Nq = b.Nq, Nfq = b.Nfq, NFq = t.NFq, SN = t.stride_n, ST = t.stride_t;
  const index_t Ks = b.Ks, Fs = b.Fs;
  extern __shared__ double shared[];
  double* s_c = shared;                   // coefficients [j SN + v E + el], K1 rows
  double* s_y = s_c + t.K1 * SN;          // A1's product [row SN + v E + el], M1 rows
  double* s_f = s_y + t.M1 * SN;          // reference viscous fluxes [(r Nq + k) SN + v E + el], K3 rows
  double* s_s = s_f + t.K3 * SN;          // S [lq ST + (d NV + v) E + el], K2 rows
  double* s_r = s_s + t.K2 * ST;          // A2's product [row ST + (d NV + v) E + el], M2 rows
  double* s_metric = s_r + t.M2 * ST;     // [c E + el], c = r dim + d: det J dr_r/dx_d; dim^2: 1 / det J
  const double* a1 = tables;
  const double* a2 = a1 + t.M1 * t.K1;
  const double* a3 = a2 + t.M2 * t.K2;
  const index_t e0 = static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(n_elements - e0 < E ? n_elements - e0 : E);
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  detail::wait_for_previous_grid();

  // 0.
  for (int i = threadIdx.x; i < t.K1 * NV * E; i += threads) {
    const int el = i % E, vj = i / E, v = vj % NV, j = vj / NV;
    s_c[j * SN + v * E + el] = j < Np && el < n_local ? b.u[(static_cast<index_t>(v) * Np + j) * Ks + e0 + el] : 0.0;
  }
  for (int i = threadIdx.x; i < (dim * dim + 1) * E; i += threads) {
    const int el = i % E, c = i / E;
    s_metric[i] = el < n_local ? b.metric[static_cast<index_t>(c) * Ks + e0 + el] : 0.0;
  }
  for (int i = threadIdx.x; i < t.K2 * E; i += threads) {
    const int el = i % E, lq = i / E;
    double* row = s_s + lq * ST + el;
    if (lq >= NFq || el >= n_local) {
      for (int c = 0; c < T; ++c) row[c * E] = 0.0;
      continue;
    }
    const int l = lq / Nfq, q = lq % Nfq;  // q: the face's point order; stored at the element's own point
    const index_t code = b.codes[l * Ks + e0 + el];
    const index_t f = code_face(code);
    const int point = code_own_point(code, b.permutation, Nfq, q);
    k.out.template face_integrand<NV, dim>(Nfq, Fs, f, q, s_s + (l * Nfq + point) * ST + el, E);
  }
  for (int i = threadIdx.x; i < (t.K3 - dim * Nq) * NV * E; i += threads) s_f[(dim * Nq + i / (NV * E)) * SN + i % (NV * E)] = 0.0;
  __syncthreads();

  // 1. Y = A1 x coefficients (M1 / 8 x NV tiles), R = A2 x S (M2 / 8 x T tiles).
  {
    const int jobs1 = (t.M1 / 8) * NV, jobs2 = (t.M2 / 8) * T;
    const int fragment_row = lane / 4, fragment_col = lane % 4;
    for (int job = warp; job < jobs1 + jobs2; job += warps) {
      double acc[2];
      if (job < jobs1) {
        const int mt = job / NV, ct = job % NV;
        lifting_tensor_tile(acc, a1, mt, t.K1, s_c, SN, ct * 8, lane);
        *reinterpret_cast<double2*>(s_y + (mt * 8 + fragment_row) * SN + ct * 8 + 2 * fragment_col) = make_double2(acc[0], acc[1]);
      } else {
        const int mt = (job - jobs1) / T, ct = (job - jobs1) % T;
        lifting_tensor_tile(acc, a2, mt, t.K2, s_s, ST, ct * 8, lane);
        *reinterpret_cast<double2*>(s_r + (mt * 8 + fragment_row) * ST + ct * 8 + 2 * fragment_col) = make_double2(acc[0], acc[1]);
      }
    }
  }
  __syncthreads();

  // 2. Face points: the trace and Theta_l to the face.
  const int v_rows = Nq + NFq;  // Y's value rows; the derivatives of direction r: v_rows + r Nq + k, v_rows + dim Nq + r NFq + lq
  for (int i = threadIdx.x; i < NFq * E; i += threads) {
    const int el = i % E, lq = i / E, l = lq / Nfq, q = lq % Nfq;
    if (el >= n_local) continue;
    const index_t code = b.codes[l * Ks + e0 + el];
    const index_t f = code_face(code);
    const bool plus = code_plus_side(code);
    const int point = code_own_point(code, b.permutation, Nfq, q);
    const int own = l * Nfq + point;
    const double inverse_det = s_metric[dim * dim * E + el];
    State u;
    State theta[dim];
    for (int v = 0; v < NV; ++v) {
      u[v] = s_y[(Nq + own) * SN + v * E + el];
      double du[dim];
      for (int r = 0; r < dim; ++r) du[r] = s_y[(v_rows + dim * Nq + r * NFq + own) * SN + v * E + el];
      for (int d = 0; d < dim; ++d) {
        double gradient = 0;
        for (int r = 0; r < dim; ++r) gradient += s_metric[(r * dim + d) * E + el] * du[r];
        theta[d][v] = inverse_det * (gradient + k.eta * s_r[(Nq + own) * ST + (d * NV + v) * E + el]);
      }
    }
    store_lifting_face_point(b.physics, k.out, Nfq, Fs, f, plus, q, u, theta);
  }
  // Volume points: Theta, the viscous flux, its reference form w_k det J sum_d dr_r/dx_d Fv_d.
  for (int i = threadIdx.x; i < Nq * E; i += threads) {
    const int el = i % E, kq = i / E;
    double fr[dim][NV] = {};
    if (el < n_local) {
      const double inverse_det = s_metric[dim * dim * E + el];
      State uk;
      State theta[dim];
      for (int v = 0; v < NV; ++v) {
        uk[v] = s_y[kq * SN + v * E + el];
        double du[dim];
        for (int r = 0; r < dim; ++r) du[r] = s_y[(v_rows + r * Nq + kq) * SN + v * E + el];
        for (int d = 0; d < dim; ++d) {
          double gradient = 0;
          for (int r = 0; r < dim; ++r) gradient += s_metric[(r * dim + d) * E + el] * du[r];
          theta[d][v] = inverse_det * (gradient + s_r[kq * ST + (d * NV + v) * E + el]);
        }
      }
      State fv[dim];
      b.physics.viscous_flux(uk, theta, fv);
      double m[dim][dim];
      b.weighted_metric(kq, e0 + el, s_metric + el, E, m);
      for (int v = 0; v < NV; ++v)
        for (int r = 0; r < dim; ++r) fr[r][v] = reference_flux(m, fv, r, v);
    }
    for (int r = 0; r < dim; ++r)
      for (int v = 0; v < NV; ++v) s_f[(r * Nq + kq) * SN + v * E + el] = fr[r][v];
  }
  __syncthreads();

  // 3. viscous_rhs = -A3 x the reference fluxes (M3 / 8 x NV tiles), from the accumulators.
  {
    const int fragment_row = lane / 4, fragment_col = lane % 4;
    for (int job = warp; job < (t.M3 / 8) * NV; job += warps) {
      const int mt = job / NV, v = job % NV;
      double acc[2];
      lifting_tensor_tile(acc, a3, mt, t.K3, s_f, SN, v * 8, lane);
      const int j = mt * 8 + fragment_row;
      if (j >= Np) continue;
      for (int c = 0; c < 2; ++c) {
        const int el = 2 * fragment_col + c;
        if (el < n_local) k.viscous_rhs[(static_cast<index_t>(v) * Np + j) * Ks + e0 + el] = -acc[c];
      }
    }
  }
}

template <class Physics, Shape S, int P>
void launch_lifting_tensor_kernel(const LiftingElementKernel<Physics, S, P, GeometryKind::affine>& kernel, index_t n_elements,
                                  const LiftingTensorLayout& layout, const double* tables) {
  if (n_elements <= 0) return;
  constexpr auto function = lifting_tensor_kernel<Physics, S, P>;
  allow_block_shared_limit<function>();
  const std::size_t shared = lifting_tensor_shared_bytes(layout);
  if (shared > block_shared_limit)
    throw Error(cat("tensor-core lifting kernel: ", shared, " bytes of shared memory per block (at most ", block_shared_limit, ")"));
  const auto blocks = static_cast<unsigned>((n_elements + lifting_tensor_elements - 1) / lifting_tensor_elements);
  detail::launch(false, function, blocks, lifting_tensor_threads, shared, kernel, n_elements, layout, tables);
}

}  // namespace flowdg::dg
