#pragma once
// Sum-factorised element, BR2 lifting and face kernels for collocated quadrilaterals (bilinear
// quadrilaterals at their (p + 1)^2 Gauss points, setup.hpp: ElementGroupSetup::collocated and
// SumFactorTables). The block kernels (core_block_kernels.hpp, lifting_block_kernels.hpp) sum over
// all Np modes at every point and over all Nq points for every mode, each term a shared value and a
// table entry that differs from thread to thread (an L1 wavefront per row): at p = 4 the lifting
// kernel ran L1-bound at 12.5% occupancy. Here every such sum is two sums of n = p + 1 terms along
// the lines of the tensor basis (line_pass), a thread per (element, variable, line): it reads the
// line's n values once and writes n results, and the 1D tables are kernel parameters indexed at
// compile time (the loops unroll), so each multiply-add takes its table entry from the constant bank.
// Blocks are two-dimensional, (E, Y): threadIdx.x the element of the block, threadIdx.y the line or
// point (no division by the runtime E). The geometry is each element's bilinear Jacobian, six
// numbers (setup.hpp: bilinear_jacobians; bilinear_metric), not the stored terms at every point.
// Layouts in shared memory, [row E + el] for the block's E elements:
//   coefficients c(i, j) at i + n j (A: read through quadrilateral_mode), values at the points
//   a + n b (the volume rule's own order, so that the point-wise phases are the block kernels').
// The sums are the block kernels' in another order (rounding-level differences; the GPU tests
// compare both with the CPU). CUDA only: included by dg_operator.hpp under __CUDACC__.
#include "flowdg/dg/core_block_kernels.hpp"
#include "flowdg/dg/lifting.hpp"
#include "flowdg/dg/factorised.hpp"
#include "flowdg/dg/setup.hpp"

namespace flowdg::dg {

/// SumFactorTables in the kernels' precision, as a kernel parameter (constant bank).
template <class Real, int n>
struct FactorTables {
  Real L[n][n], dL[n][n], Lw[n][n], Qw[n][n], edge[2][n], ends[2][n], x[n], w[n];
  Real lift[2][n];  ///< edge[side][m] / w_m: the collocated lifting's C on a line (lifting_factorised_kernel)
};
template <class Real, int n>
FactorTables<Real, n> factor_tables(const SumFactorTables& t) {
  FLOWDG_ASSERT(t.n == n, "sum-factorisation tables for n = ", t.n, ", the kernel's n = ", n);
  FactorTables<Real, n> out{};
  for (int a = 0; a < n; ++a) {
    for (int i = 0; i < n; ++i) {
      out.L[a][i] = static_cast<Real>(t.L[a * n + i]);
      out.dL[a][i] = static_cast<Real>(t.dL[a * n + i]);
      out.Lw[a][i] = static_cast<Real>(t.Lw[a * n + i]);
      out.Qw[a][i] = static_cast<Real>(t.Qw[a * n + i]);
    }
    out.x[a] = static_cast<Real>(t.x[a]);
    out.w[a] = static_cast<Real>(t.w[a]);
  }
  for (int s = 0; s < 2; ++s)
    for (int m = 0; m < n; ++m) {
      out.edge[s][m] = static_cast<Real>(t.edge[s * n + m]);
      out.ends[s][m] = static_cast<Real>(t.ends[s * n + m]);
      out.lift[s][m] = static_cast<Real>(t.edge[s * n + m] / t.w[m]);
    }
  return out;
}

/// The n values of a line of a block's shared rows: in[m] = line[m * stride].
template <int n, class Real>
__device__ FLOWDG_FORCEINLINE void load_line(const Real* line, int stride, Real (&in)[n]) {
#pragma unroll
  for (int m = 0; m < n; ++m) in[m] = line[m * stride];
}
/// One result of a line pass, init + sum_m A[o][m] in[m] (Transposed: A[m][o]); o a compile-time
/// index where the caller's loop unrolls, so that A's entries are constant-bank operands.
template <bool Transposed, int n, class Real>
__device__ FLOWDG_FORCEINLINE Real line_sum(const Real (&A)[n][n], int o, const Real (&in)[n], Real init = Real(0)) {
  Real sum = init;
#pragma unroll
  for (int m = 0; m < n; ++m) sum += (Transposed ? A[m][o] : A[o][m]) * in[m];
  return sum;
}
/// A line pass: out[o * stride] = line_sum(A, o, in) for o < n.
template <bool Transposed, int n, class Real>
__device__ FLOWDG_FORCEINLINE void line_pass(const Real (&A)[n][n], const Real (&in)[n], Real* out, int stride) {
#pragma unroll
  for (int o = 0; o < n; ++o) out[o * stride] = line_sum<Transposed>(A, o, in);
}
/// sum_m A[side][m] in[m] for a [2][n] table (edge, ends) and a runtime side (0 or 1): each term
/// picks between two constant-bank entries (indexing the parameter by a register would not).
template <int n, class Real>
__device__ FLOWDG_FORCEINLINE Real end_sum(const Real (&A)[2][n], int side, const Real (&in)[n]) {
  Real sum = 0;
#pragma unroll
  for (int m = 0; m < n; ++m) sum += (side == 1 ? A[1][m] : A[0][m]) * in[m];
  return sum;
}
/// t[i] for a runtime i < n, as selects among constant-bank entries.
template <int n, class Real>
__device__ FLOWDG_FORCEINLINE Real table_at(const Real (&t)[n], int i) {
  Real value = t[0];
#pragma unroll
  for (int m = 1; m < n; ++m)
    if (i == m) value = t[m];
  return value;
}

/// A bilinear quadrilateral's geometry at its Gauss point (a, b), from its six Jacobian coefficients
/// (setup.hpp: bilinear_jacobians; x_xi = g0 + g2 eta, x_eta = g1 + g2 xi, y_xi = g3 + g5 eta,
/// y_eta = g4 + g5 xi), read from a block's shared rows g[c E]: the weighted metric
/// m[r][d] = w_a w_b det J dr_r/dx_d = w_a w_b adj(J)[r][d] (ElementKernel::weighted_metric's terms)
/// and det J.
template <class Real, int n>
__device__ FLOWDG_FORCEINLINE void bilinear_metric(const FactorTables<Real, n>& tb, const Real* g, int E, int a, int b, Real (&m)[2][2], Real& det) {
  const Real xi = table_at(tb.x, a), eta = table_at(tb.x, b), w = table_at(tb.w, a) * table_at(tb.w, b);
  const Real x_xi = g[0] + g[2 * E] * eta, x_eta = g[E] + g[2 * E] * xi, y_xi = g[3 * E] + g[5 * E] * eta, y_eta = g[4 * E] + g[5 * E] * xi;
  det = x_xi * y_eta - x_eta * y_xi;
  m[0][0] = w * y_eta;
  m[0][1] = -w * x_eta;
  m[1][0] = -w * y_xi;
  m[1][1] = w * x_xi;
}
/// Phase A's copy of the bilinear Jacobians: element el of the block (zeros past the last element), [c Ks + e] -> [c E + el].
template <class Real>
__device__ FLOWDG_FORCEINLINE void copy_bilinear(const Real* geometry, index_t Ks, index_t e0, int E, int n_local, Real* s_geometry) {
  const int el = threadIdx.x;
  for (int c = threadIdx.y; c < 6; c += blockDim.y) s_geometry[c * E + el] = el < n_local ? geometry[c * Ks + e0 + el] : Real(0);
}

/// The line of face l through its own point q, as (first point, stride) in the points' order a + n b,
/// and the end it lies at (0: -1, 1: +1); setup.hpp: SumFactorTables.
template <int n>
__device__ FLOWDG_FORCEINLINE void face_line(int l, int q, int& first, int& stride, int& side) {
  const int s = l < 2 ? q : n - 1 - q;
  const bool along_y = l % 2 == 0;  // faces 0, 2: the line x = x_s, over b
  first = along_y ? s : n * s;
  stride = along_y ? n : 1;
  side = l == 1 || l == 2 ? 1 : 0;
}

/// BR2's lifting pass (LiftingElementKernel's work) on a collocated quadrilateral group, phases as
/// lifting_block_kernel's with the dense sums factorised; a block of E elements, threadIdx.x the
/// element, threadIdx.y the line or point of each phase:
///   A. coefficients (canonical order) and the elements' bilinear Jacobians -> shared;
///   B1. a thread per (element, variable, j): T(a, j) = sum_i L[a][i] c(i, j), dT with dL; a thread
///       per point: the point factor D_k = w_k / det J_k;
///   B2. a thread per (element, variable, a): U(a, b) = sum_j L[b][j] T(a, j) (over the
///       coefficients), dU/dx = sum_j L[b][j] dT(a, j), dU/dy = sum_j dL[b][j] T(a, j);
///   B3. a thread per point: z_k = w_k grad U_k (the metric, D_k / w_k); a thread per face point:
///       the lifting's integrand S = wn (H_aux - U);
///   D. a thread per face point: the trace along the face's line (n terms), the face gradient
///      from z and S along the same line (BR2's face lifting is diagonal there), the output; then a
///      thread per point: Theta from z and S (one face point per face), the viscous flux in
///      reference form (no per-thread arrays of Np values: lifting_block_kernel's collocated phase C
///      held one, 122 registers at p = 4);
///   E1. a thread per (element, variable, b): X(i, b) = sum_a dL[a][i] F_x(a, b), Y with L and F_y;
///   E2. a thread per (element, variable, i): -sum_b (L[b][j] X(i, b) + dL[b][j] Y(i, b)), the
///       volume term's moments, -> viscous_rhs.
/// geometry: the bilinear Jacobians [c Ks + e] (setup.hpp: bilinear_jacobians). Chained launches:
/// the geometry is read before the previous grid's end.
template <class Physics, int P>
__global__ void __launch_bounds__(256, 3) lifting_factorised_kernel(LiftingElementKernel<Physics, Shape::quadrilateral, P, GeometryKind::curved> k,
                                                                 FactorTables<typename Physics::real, P + 1> tb,
                                                                 const typename Physics::real* __restrict__ geometry, index_t n_elements) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  constexpr int n = P + 1, Np = n * n, NV = Physics::n_variables, dim = Physics::dim, NF = 4;
  static_assert(dim == 2, "quadrilaterals");
  constexpr int T = dim * NV, Nfq = n, NFq = NF * n;
  constexpr int line_values = 2 * NV * Np > NFq * T ? 2 * NV * Np : NFq * T;
  const auto& b = k.base;
  const index_t Ks = b.Ks, Fs = b.Fs;
  const int E = blockDim.x, Y = blockDim.y, el = threadIdx.x, ty = threadIdx.y;
  extern __shared__ unsigned char shared_bytes[];
  Real* s_u = reinterpret_cast<Real*>(shared_bytes);  // A: c [(v Np + i + n j) E + el]; B2 on: U [(v Np + kq) E + el]
  Real* s_m = s_u + NV * Np * E;                       // w_k / det J_k [kq E + el]
  Real* s_x = s_m + Np * E;                            // B: T, dT; B3-D: the face integrand S [((lq) T + t) E + el]; E: X, Y
  Real* s_w = s_x + line_values * E;                   // B2: dU/dr [((r NV + v) Np + kq) E + el]; B3: w det J grad U
                                                       // [((d NV + v) Np + kq)], then z; D: flux [((v dim + r) Np + kq)]
  Real* s_g = s_w + T * Np * E;                        // the bilinear Jacobians [c E + el]
  const index_t e0 = static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(n_elements - e0 < E ? n_elements - e0 : E);
  const bool active = el < n_local;

  // A.
  copy_bilinear(geometry, Ks, e0, E, n_local, s_g);
  detail::wait_for_previous_grid();
  for (int row = ty; row < NV * Np; row += Y) {
    const int v = row / Np, c = row % Np;
    s_u[row * E + el] = active ? b.u[static_cast<index_t>(v * Np + quadrilateral_mode(c % n, c / n)) * Ks + e0 + el] : Real(0);
  }
  __syncthreads();

  // B1.
  if (active) {
    for (int line = ty; line < NV * n; line += Y) {
      const int v = line / n, j = line % n;
      Real c[n];
      load_line(s_u + (v * Np + n * j) * E + el, E, c);
      line_pass<false>(tb.L, c, s_x + (v * Np + n * j) * E + el, E);
      line_pass<false>(tb.dL, c, s_x + (NV * Np + v * Np + n * j) * E + el, E);
    }
    for (int kq = ty; kq < Np; kq += Y) {
      Real m[dim][dim], det;
      bilinear_metric(tb, s_g + el, E, kq % n, kq / n, m, det);
      s_m[kq * E + el] = table_at(tb.w, kq % n) * table_at(tb.w, kq / n) / det;
    }
  }
  __syncthreads();

  // B2.
  if (active)
    for (int line = ty; line < NV * n; line += Y) {
      const int v = line / n, a = line % n;
      Real t[n], dt[n];
      load_line(s_x + (v * Np + a) * E + el, n * E, t);
      load_line(s_x + (NV * Np + v * Np + a) * E + el, n * E, dt);
      line_pass<false>(tb.L, t, s_u + (v * Np + a) * E + el, n * E);
      line_pass<false>(tb.L, dt, s_w + ((0 * NV + v) * Np + a) * E + el, n * E);
      line_pass<false>(tb.dL, t, s_w + ((1 * NV + v) * Np + a) * E + el, n * E);
    }
  __syncthreads();

  // B3.
  if (active) {
    for (int kq = ty; kq < Np; kq += Y) {
      Real m[dim][dim], det;
      bilinear_metric(tb, s_g + el, E, kq % n, kq / n, m, det);
      const Real to_z = Real(1) / det;  // z_k = w_k grad U_k = (w det J grad U) D_k / w_k
      for (int v = 0; v < NV; ++v) {
        Real du[dim];
        for (int r = 0; r < dim; ++r) du[r] = s_w[((r * NV + v) * Np + kq) * E + el];
        for (int d = 0; d < dim; ++d) {
          Real value = 0;
          for (int r = 0; r < dim; ++r) value += m[r][d] * du[r];
          s_w[((d * NV + v) * Np + kq) * E + el] = value * to_z;
        }
      }
    }
    for (int lq = ty; lq < NFq; lq += Y) {
      const int l = lq / Nfq, q = lq % Nfq;
      const index_t code = b.codes[l * Ks + e0 + el];
      const int point = code_own_point(code, b.permutation, Nfq, q);
      k.out.template face_integrand<NV, dim>(Nfq, Fs, code_face(code), q, s_x + (l * Nfq + point) * T * E + el, E);
    }
  }
  __syncthreads();

  // D, the faces: the trace along the face's line; the face gradient sum_m C[k_m][lq] z_k_m +
  // eta S_lq sum_m C[k_m][lq]^2 D_k_m over the line k_m of the element's face point lq (BR2's face
  // lifting is diagonal at the Gauss points, setup.hpp: collocated_lifting_lines): there
  // C = V Phi_faces^T is (1 / w_s) lift[side][m] (the face point at x_s of the line's end `side`,
  // V1 V1^T = diag(1 / w)), so no table of C is read.
  if (active)
    for (int lq = ty; lq < NFq; lq += Y) {
      const int l = lq / Nfq, q = lq % Nfq;
      const index_t code = b.codes[l * Ks + e0 + el];
      const index_t f = code_face(code);
      const bool plus = code_plus_side(code);
      const int point = code_own_point(code, b.permutation, Nfq, q);
      int first, stride, side;
      face_line<n>(l, point, first, stride, side);
      State u;
      for (int v = 0; v < NV; ++v) {
        Real line[n];
        load_line(s_u + (v * Np + first) * E + el, stride * E, line);
        u[v] = end_sum(tb.edge, side, line);
      }
      const int own = l * Nfq + point;
      Real gradient[T] = {}, diagonal = 0;
#pragma unroll
      for (int m = 0; m < n; ++m) {
        const int kq = first + m * stride;
        const Real c = side == 1 ? tb.lift[1][m] : tb.lift[0][m];
        diagonal += c * c * s_m[kq * E + el];
#pragma unroll
        for (int t = 0; t < T; ++t) gradient[t] += c * s_w[(t * Np + kq) * E + el];
      }
      const Real to_c = Real(1) / table_at(tb.w, l < 2 ? point : n - 1 - point);
      for (int t = 0; t < T; ++t) gradient[t] *= to_c;
      diagonal *= to_c * to_c;
      State theta[dim];
      for (int d = 0; d < dim; ++d)
        for (int v = 0; v < NV; ++v) theta[d][v] = gradient[d * NV + v] + k.eta * diagonal * s_x[(own * T + d * NV + v) * E + el];
      const Real* phi = &b.face_phi[(static_cast<index_t>(l) * Nfq + point) * Np];
      store_lifting_face_point(point_physics(element_physics(b.physics, k.viscosity, e0 + el), k.viscosity, e0 + el, phi), k.out, Nfq, Fs, f,
                               plus, q, u, theta);
    }
  __syncthreads();

  // D, the points: Theta_k = (z_k + D_k sum_l C[k][l b_l(k)] S_l b_l(k)) / w_k (one face point per
  // face: for k = (a, b) faces 0 and 2 at x_a, faces 1 and 3 at y_b; C[k][.] = edge[side][m] / w_k,
  // m = b on faces 0, 2 and a on 1, 3), U, the viscous flux in reference form over z (the column kq
  // this thread alone reads).
  if (active) {
    const index_t e = e0 + el;
    for (int kq = ty; kq < Np; kq += Y) {
      const int a = kq % n, bb = kq / n;
      State uk;
      for (int v = 0; v < NV; ++v) uk[v] = s_u[(v * Np + kq) * E + el];
      const Real c0 = table_at(tb.edge[0], bb), c1 = table_at(tb.edge[1], a), c2 = table_at(tb.edge[1], bb), c3 = table_at(tb.edge[0], a);
      const Real* S = s_x + el;
      Real lifted[T];
#pragma unroll
      for (int t = 0; t < T; ++t)
        lifted[t] = c0 * S[((0 * Nfq + a) * T + t) * E] + c1 * S[((1 * Nfq + bb) * T + t) * E] + c2 * S[((2 * Nfq + n - 1 - a) * T + t) * E] +
                    c3 * S[((3 * Nfq + n - 1 - bb) * T + t) * E];
      const Real factor = s_m[kq * E + el], inverse_weight = Real(1) / (table_at(tb.w, a) * table_at(tb.w, bb));
      State theta[dim];
      for (int d = 0; d < dim; ++d)
        for (int v = 0; v < NV; ++v)
          theta[d][v] = (s_w[((d * NV + v) * Np + kq) * E + el] + factor * inverse_weight * lifted[d * NV + v]) * inverse_weight;
      State fv[dim];
      point_physics(element_physics(b.physics, k.viscosity, e), k.viscosity, e, &b.volume_phi[kq * Np]).viscous_flux(uk, theta, fv);
      Real m[dim][dim], det;
      bilinear_metric(tb, s_g + el, E, kq % n, kq / n, m, det);
      for (int v = 0; v < NV; ++v)
        for (int r = 0; r < dim; ++r) s_w[((v * dim + r) * Np + kq) * E + el] = reference_flux(m, fv, r, v);
    }
  }
  __syncthreads();

  // E1.
  if (active)
    for (int line = ty; line < NV * n; line += Y) {
      const int v = line / n, bb = line % n;
      Real fx[n], fy[n];
      load_line(s_w + ((v * dim + 0) * Np + n * bb) * E + el, E, fx);
      load_line(s_w + ((v * dim + 1) * Np + n * bb) * E + el, E, fy);
      line_pass<true>(tb.dL, fx, s_x + (v * Np + n * bb) * E + el, E);
      line_pass<true>(tb.L, fy, s_x + (NV * Np + v * Np + n * bb) * E + el, E);
    }
  __syncthreads();

  // E2.
  if (active)
    for (int line = ty; line < NV * n; line += Y) {
      const int v = line / n, mode = line % n;
      Real x[n], y[n];
      load_line(s_x + (v * Np + mode) * E + el, n * E, x);
      load_line(s_x + (NV * Np + v * Np + mode) * E + el, n * E, y);
#pragma unroll
      for (int j = 0; j < n; ++j) {
        Real sum = 0;
#pragma unroll
        for (int bb = 0; bb < n; ++bb) sum += tb.L[bb][j] * x[bb] + tb.dL[bb][j] * y[bb];
        k.viscous_rhs[static_cast<index_t>(v * Np + quadrilateral_mode(mode, j)) * Ks + e0 + el] = -sum;
      }
    }
}

/// Phases P4 and P5 of the sum-factorised element kernels (element_factorised_kernel and
/// element_br2_factorised_kernel), after a barrier: over the reference fluxes s_f [((v dim + r) Np + kq)
/// E + el] (dim = 2) and the faces' fluxes face(l, point, v) (along the element's outward normal),
///   P4a. a thread per (element, variable, b): sum_a' Qw[a][a'] F_x(a', b) + faces 1 (x = 1: its point
///        b) and 3 (x = -1: its point n - 1 - b) -> s_u;
///   P4b. a thread per (element, variable, a): + sum_b' Qw[b][b'] F_y(a, b') + faces 0 (y = -1: its
///        point a) and 2 (y = 1: its point n - 1 - a), + extra(v, kq) (the viscous values; none where
///        Extra is std::nullptr_t), times 1 / det J (s_m) -> s_u over the line the thread read;
///   P5a. Z(i, b) = sum_a L[a][i] R(a, b) -> s_t (s_f may be s_t: P4 read it);
///   P5b. the modes (i, j) = sum_b L[b][j] Z(i, b) and the update (Prefetch: each thread's update
///        registers loaded at once, ahead of its sums).
template <class Physics, int n, bool Prefetch, class Kernel, class Face, class Extra>
__device__ FLOWDG_FORCEINLINE void factorised_sums_and_update(const Kernel& k, const FactorTables<typename Physics::real, n>& tb,
                                                              const typename Physics::real* s_f, const typename Physics::real* s_m,
                                                              typename Physics::real* s_u, typename Physics::real* s_t, const Face& face,
                                                              const Extra& extra, index_t e0, int el, int E, int ty, int Y, bool active) {
  using Real = typename Physics::real;
  constexpr int Np = n * n, NV = Physics::n_variables, dim = Physics::dim;
  static_assert(dim == 2, "quadrilaterals");
  const index_t Ks = k.Ks;

  // P4a.
  if (active)
    for (int line = ty; line < NV * n; line += Y) {
      const int v = line / n, bb = line % n;
      Real fx[n];
      load_line(s_f + ((v * dim + 0) * Np + n * bb) * E + el, E, fx);
      const Real g1 = face(1, bb, v), g3 = face(3, n - 1 - bb, v);
#pragma unroll
      for (int a = 0; a < n; ++a)  // U is no longer read
        s_u[(v * Np + a + n * bb) * E + el] = line_sum<false>(tb.Qw, a, fx, tb.edge[1][a] * g1 + tb.edge[0][a] * g3);
    }
  __syncthreads();

  // P4b.
  if (active)
    for (int line = ty; line < NV * n; line += Y) {
      const int v = line / n, a = line % n;
      Real fy[n];
      load_line(s_f + ((v * dim + 1) * Np + a) * E + el, n * E, fy);
      const Real g0 = face(0, a, v), g2 = face(2, n - 1 - a, v);
#pragma unroll
      for (int bb = 0; bb < n; ++bb) {
        const int kq = a + n * bb;
        Real init = s_u[(v * Np + kq) * E + el] + tb.edge[0][bb] * g0 + tb.edge[1][bb] * g2;
        if constexpr (!std::is_same_v<Extra, std::nullptr_t>) init += extra(v, kq);
        s_u[(v * Np + kq) * E + el] = line_sum<false>(tb.Qw, bb, fy, init) * s_m[kq * E + el];
      }
    }
  __syncthreads();

  // P5a.
  if (active)
    for (int line = ty; line < NV * n; line += Y) {
      const int v = line / n, bb = line % n;
      Real y[n];
      load_line(s_u + (v * Np + n * bb) * E + el, E, y);
      line_pass<true>(tb.L, y, s_t + (v * Np + n * bb) * E + el, E);
    }
  __syncthreads();

  // P5b.
  if (active)
    for (int line = ty; line < NV * n; line += Y) {
      const int v = line / n, mode = line % n;
      Real z[n];
      if constexpr (Prefetch) {
        // The registers this line's update reads, all in flight at once (apply's loads would wait
        // one after another: its stores may alias the next loads).
        Real u_s[n], q_k[n], u0_k[n];
#pragma unroll
        for (int j = 0; j < n; ++j) {
          const index_t at = static_cast<index_t>(v * Np + quadrilateral_mode(mode, j)) * Ks + e0 + el;
          u_s[j] = k.u[at];
          q_k[j] = k.update.q_at(at);
          u0_k[j] = k.update.u0_at(at);
        }
        load_line(s_t + (v * Np + mode) * E + el, n * E, z);
#pragma unroll
        for (int j = 0; j < n; ++j)
          k.update.apply_loaded(k.u, static_cast<index_t>(v * Np + quadrilateral_mode(mode, j)) * Ks + e0 + el, line_sum<true>(tb.L, j, z),
                                u_s[j], q_k[j], u0_k[j]);
      } else {
        load_line(s_t + (v * Np + mode) * E + el, n * E, z);
#pragma unroll
        for (int j = 0; j < n; ++j) k.update.apply(k.u, static_cast<index_t>(v * Np + quadrilateral_mode(mode, j)) * Ks + e0 + el, line_sum<true>(tb.L, j, z));
      }
    }
}

/// The element kernel (ElementKernel's work with the Runge-Kutta update) on a collocated
/// quadrilateral group, through the points (setup.hpp: SumFactorTables), blocks as the lifting's:
///   A. coefficients, the viscous moments (canonical order) and the bilinear Jacobians -> shared;
///   P1, P2. U at the points (and w_a w_b (V r_v)(a, b) for the viscous moments r_v), two line passes;
///   P3. a thread per point: the reference fluxes and 1 / det J; a thread per face point: the face flux;
///   P4a. a thread per (element, variable, b): sum_a' Qw[a][a'] F_x(a', b) + faces 1 and 3 over a;
///   P4b. a thread per (element, variable, a): + sum_b' Qw[b][b'] F_y(a, b') + faces 0 and 2 over
///        b, + the viscous values: w / det J (V r), M^-1 r at the points;
///   P5. V^T of it (two line passes) and the update (from p = 4 each thread's registers loaded at
///       once, ahead of its sums).
/// At most 64 registers below p = 4 (four blocks an SM), 80 from p = 4 (three: all its shared memory allows).
template <class Physics, int P>
__global__ void __launch_bounds__(256, P >= 4 ? 3 : 4) element_factorised_kernel(ElementKernel<Physics, Shape::quadrilateral, P, GeometryKind::curved> k,
                                                                 FactorTables<typename Physics::real, P + 1> tb,
                                                                 const typename Physics::real* __restrict__ geometry, index_t first, index_t end) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  constexpr int n = P + 1, Np = n * n, NV = Physics::n_variables, dim = Physics::dim, NF = 4, Nfq = n;
  static_assert(dim == 2, "quadrilaterals");
  constexpr bool viscous = Physics::has_viscous_flux;
  // From p = 4 the shared memory holds three blocks an SM, room for 80 registers a thread: the update's
  // loads are then issued together (below p = 4 their registers would cost a block an SM).
  constexpr bool prefetch_update = P >= 4;
  const index_t Ks = k.Ks;
  const int E = blockDim.x, Y = blockDim.y, el = threadIdx.x, ty = threadIdx.y;
  extern __shared__ unsigned char shared_bytes[];
  Real* s_u = reinterpret_cast<Real*>(shared_bytes);     // c; U (P2); P4a's sums; M^-1 r at the points (P4b) [(v Np + .) E + el]
  Real* s_r = s_u + NV * Np * E;                          // viscous: r_v, then w_a w_b (V r_v) at the points
  Real* s_t = s_r + (viscous ? NV * Np * E : 0);          // P1: [(v Np + .) E + el], the viscous ones at + NV Np; P5a: Z
  Real* s_f = s_t;                                        // P3, P4: the reference fluxes [((v dim + r) Np + kq) E + el] (dim = 2)
  Real* s_g = s_t + 2 * NV * Np * E;                      // [((l Nfq + point) NV + v) E + el]
  Real* s_m = s_g + NF * Nfq * NV * E;                    // P3: 1 / det J_k [kq E + el]
  Real* s_j = s_m + Np * E;                               // the bilinear Jacobians [c E + el]
  const index_t e0 = first + static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(end - e0 < E ? end - e0 : E);
  const bool active = el < n_local;

  // A.
  copy_bilinear(geometry, Ks, e0, E, n_local, s_j);
  detail::wait_for_previous_grid();
  for (int row = ty; row < NV * Np; row += Y) {
    const int v = row / Np, c = row % Np;
    const index_t at = static_cast<index_t>(v * Np + quadrilateral_mode(c % n, c / n)) * Ks + e0 + el;
    s_u[row * E + el] = active ? k.u[at] : Real(0);
    if constexpr (viscous) s_r[row * E + el] = active ? k.viscous_rhs[at] : Real(0);
  }
  __syncthreads();

  // P1: T(a, j) = sum_i L[a][i] c(i, j); viscous: sum_i Lw[a][i] r_v(i, j).
  constexpr int sets = viscous ? 2 : 1;
  if (active)
    for (int line = ty; line < sets * NV * n; line += Y) {
      const int set = line / (NV * n), v = (line / n) % NV, j = line % n;
      Real c[n];
      load_line((set == 0 ? s_u : s_r) + (v * Np + n * j) * E + el, E, c);
      Real* out = s_t + (set * NV * Np + v * Np + n * j) * E + el;
      if (set == 0) line_pass<false>(tb.L, c, out, E);
      else line_pass<false>(tb.Lw, c, out, E);
    }
  __syncthreads();

  // P2: U(a, b) = sum_j L[b][j] T(a, j) over c; viscous: Lw, over r_v.
  if (active)
    for (int line = ty; line < sets * NV * n; line += Y) {
      const int set = line / (NV * n), v = (line / n) % NV, a = line % n;
      Real t[n];
      load_line(s_t + (set * NV * Np + v * Np + a) * E + el, n * E, t);
      if (set == 0) line_pass<false>(tb.L, t, s_u + (v * Np + a) * E + el, n * E);
      else line_pass<false>(tb.Lw, t, s_r + (v * Np + a) * E + el, n * E);
    }
  __syncthreads();

  // P3.
  if (active) {
    for (int kq = ty; kq < Np; kq += Y) {
      State uk;
      for (int v = 0; v < NV; ++v) uk[v] = s_u[(v * Np + kq) * E + el];
      State f[dim];
      k.physics.flux(uk, f);
      Real m[dim][dim], det;
      bilinear_metric(tb, s_j + el, E, kq % n, kq / n, m, det);
      s_m[kq * E + el] = Real(1) / det;
      for (int v = 0; v < NV; ++v)
        for (int r = 0; r < dim; ++r) s_f[((v * dim + r) * Np + kq) * E + el] = reference_flux(m, f, r, v);
    }
    for (int lq = ty; lq < NF * Nfq; lq += Y) k.gather_face_flux(lq / Nfq, lq % Nfq, e0 + el, s_g + el, E);
  }
  __syncthreads();

  // P4, P5.
  const auto face = [&](int l, int point, int v) { return s_g[((l * Nfq + point) * NV + v) * E + el]; };
  if constexpr (viscous)
    factorised_sums_and_update<Physics, n, prefetch_update>(k, tb, s_f, s_m, s_u, s_t, face, [&](int v, int kq) { return s_r[(v * Np + kq) * E + el]; },
                                                            e0, el, E, ty, Y, active);
  else
    factorised_sums_and_update<Physics, n, prefetch_update>(k, tb, s_f, s_m, s_u, s_t, face, nullptr, e0, el, E, ty, Y, active);
}

/// The face kernel (FaceKernel's work) on faces between collocated quadrilaterals and on their
/// boundary faces, a block of (Fb, Y) threads for Fb faces (factorised_faces; threadIdx.x the face):
/// the faces' elements -> shared (before the previous grid's end: the index never changes); both
/// sides' coefficients -> shared (asynchronous copies); a thread per (face, side, variable): the
/// traces at the face's n points in two line sums, g(a) = sum_b L_b(-+1) c(a, b) across the face (b
/// the index of the direction normal to it) and sum_a L[s][a] g(a) along it, where the block face
/// kernel sums Np terms at every point -> shared, in the side's own point order; a thread per
/// (face, point): the plus side's trace through the orientation's permutation, FaceKernel::finish.
/// Three blocks per SM (at most 85 registers, as core_face_block_kernel: the numerical flux's
/// registers otherwise took 92, two blocks).
template <class Physics, int P, GeometryKind FG, bool Boundary>
__global__ void __launch_bounds__(256, 3)
    face_factorised_kernel(FaceKernel<Physics, Shape::quadrilateral, Shape::quadrilateral, P, FG, Boundary> k,
                           FactorTables<typename Physics::real, P + 1> tb, index_t count) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  constexpr int n = P + 1, Np = n * n, NV = Physics::n_variables, sides = Boundary ? 1 : 2;
  const int Fb = blockDim.x, Y = blockDim.y, fl = threadIdx.x, ty = threadIdx.y;
  extern __shared__ unsigned char shared_bytes[];
  index_t* s_element = reinterpret_cast<index_t*>(shared_bytes);  // [side Fb + fl]
  int* s_local = reinterpret_cast<int*>(s_element + 2 * Fb);      // [side Fb + fl]
  Real* s_c = reinterpret_cast<Real*>(shared_bytes + face_factorised_index_bytes * static_cast<std::size_t>(Fb));  // [((side NV + v) Np + j) Fb + fl]
  Real* s_t = s_c + 2 * NV * Np * Fb;  // [((side NV + v) n + q) Fb + fl], q the side's own point
  const index_t f0 = static_cast<index_t>(blockIdx.x) * Fb;
  const int n_local = static_cast<int>(count - f0 < Fb ? count - f0 : Fb);
  const bool active = fl < n_local;
  load_face_sides<Boundary>(k.index, k.begin + f0, n_local, Fb, s_element, s_local);
  detail::wait_for_previous_grid();
  __syncthreads();
  if (active)
    for (int row = ty; row < sides * NV * Np; row += Y) {
      const int side = row / (NV * Np), r = row % (NV * Np);
      const Real* u = side == 0 ? k.u_m.data : k.u_p.data;
      const index_t Ks = side == 0 ? k.Ks_m : k.Ks_p;
      device::copy_async(s_c + row * Fb + fl, u + static_cast<index_t>(r) * Ks + s_element[side * Fb + fl]);
    }
  device::copy_async_commit();
  device::copy_async_wait();
  __syncthreads();

  if (active)
    for (int rest = ty; rest < sides * NV; rest += Y) {
      const int side = rest / NV, v = rest % NV;
      const int l = s_local[side * Fb + fl];
      const bool across_y = l % 2 == 0;  // faces 0 (y = -1) and 2 (y = 1): c(a, b) with b across
      const int end = l == 1 || l == 2 ? 1 : 0;
      const Real* c = s_c + (side * NV + v) * Np * Fb + fl;
      Real g[n];
#pragma unroll
      for (int a = 0; a < n; ++a) {
        Real across[n];
#pragma unroll
        for (int bb = 0; bb < n; ++bb) across[bb] = c[(across_y ? quadrilateral_mode(a, bb) : quadrilateral_mode(bb, a)) * Fb];
        g[a] = end_sum(tb.ends, end, across);
      }
#pragma unroll
      for (int q = 0; q < n; ++q) {
        Real sum = 0;
#pragma unroll
        for (int a = 0; a < n; ++a) sum += (l < 2 ? tb.L[q][a] : tb.L[n - 1 - q][a]) * g[a];
        s_t[((side * NV + v) * n + q) * Fb + fl] = sum;
      }
    }
  __syncthreads();

  if (active)
    for (int q = ty; q < n; q += Y) {
      const index_t local = f0 + fl, f = k.begin + local;
      State um, up{};
      for (int v = 0; v < NV; ++v) um[v] = s_t[(v * n + q) * Fb + fl];
      if constexpr (!Boundary) {
        const int qp = k.permutation[k.index.orientation[f] * n + q];
        for (int v = 0; v < NV; ++v) up[v] = s_t[((NV + v) * n + qp) * Fb + fl];
      }
      k.finish(local, q, um, up);
    }
}

/// A factorised kernel's launch: (E, threads / E) threads for blocks of E elements (or faces).
inline dim3 factorised_threads(int E, int threads) { return dim3(static_cast<unsigned>(E), static_cast<unsigned>(std::max(1, threads / E))); }

template <class Physics, int P, GeometryKind FG, bool Boundary>
void launch_face_factorised_kernel(const FaceKernel<Physics, Shape::quadrilateral, Shape::quadrilateral, P, FG, Boundary>& kernel,
                                   const SumFactorTables& tables, index_t n_faces, int Fb, bool chained) {
  if (n_faces <= 0) return;
  FLOWDG_ASSERT(kernel.Nfq == P + 1, "the factorised face kernel takes faces of P + 1 points (setup.hpp: SumFactorTables)");
  const std::size_t shared = static_cast<std::size_t>(Fb) * factorised_face_bytes<Physics>(P + 1);
  constexpr auto function = face_factorised_kernel<Physics, P, FG, Boundary>;
  allow_block_shared_limit<function>();
  const auto blocks = static_cast<unsigned>((n_faces + Fb - 1) / Fb);
  detail::launch(chained, function, dim3(blocks), factorised_threads(Fb, 256), shared, kernel, factor_tables<typename Physics::real, P + 1>(tables),
                 n_faces);
}

template <class Physics, int P>
void launch_lifting_factorised_kernel(const LiftingElementKernel<Physics, Shape::quadrilateral, P, GeometryKind::curved>& kernel,
                                      const SumFactorTables& tables, const typename Physics::real* geometry, index_t n_elements,
                                      FactorisedBlock block, bool chained) {
  if (n_elements <= 0) return;
  const int E = block.E;
  FLOWDG_ASSERT(kernel.base.collocated && kernel.lines > 0 && kernel.base.Nq == (P + 1) * (P + 1) && kernel.base.Nfq == P + 1 && geometry != nullptr,
                "the factorised lifting kernel takes collocated bilinear quadrilaterals with a sparse C (setup.hpp: SumFactorTables, "
                "bilinear_jacobians)");
  const std::size_t shared = sizeof(typename Physics::real) * static_cast<std::size_t>(E) * static_cast<std::size_t>(factorised_lifting_values<Physics>(P + 1));
  constexpr auto function = lifting_factorised_kernel<Physics, P>;
  allow_block_shared_limit<function>();
  const auto blocks = static_cast<unsigned>((n_elements + E - 1) / E);
  detail::launch(chained, function, dim3(blocks), factorised_threads(E, block.threads), shared, kernel,
                 factor_tables<typename Physics::real, P + 1>(tables), geometry, n_elements);
}

template <class Physics, int P>
void launch_element_factorised_kernel(const ElementKernel<Physics, Shape::quadrilateral, P, GeometryKind::curved>& kernel,
                                      const SumFactorTables& tables, const typename Physics::real* geometry, index_t first, index_t n_elements,
                                      FactorisedBlock block, bool chained) {
  if (n_elements <= 0) return;
  const int E = block.E;
  FLOWDG_ASSERT(kernel.collocated && kernel.Nq == (P + 1) * (P + 1) && kernel.Nfq == P + 1 && geometry != nullptr,
                "the factorised element kernel takes collocated bilinear quadrilaterals (setup.hpp: SumFactorTables, bilinear_jacobians)");
  const std::size_t shared = sizeof(typename Physics::real) * static_cast<std::size_t>(E) * static_cast<std::size_t>(factorised_element_values<Physics>(P + 1));
  constexpr auto function = element_factorised_kernel<Physics, P>;
  allow_block_shared_limit<function>();
  const auto blocks = static_cast<unsigned>((n_elements + E - 1) / E);
  detail::launch(chained, function, dim3(blocks), factorised_threads(E, block.threads), shared, kernel,
                 factor_tables<typename Physics::real, P + 1>(tables), geometry, first, first + n_elements);
}

}  // namespace flowdg::dg
