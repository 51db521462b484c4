#pragma once
// Sum-factorised element, BR2 lifting and face kernels for collocated quadrilaterals (bilinear
// quadrilaterals at their (p + 1)^2 Gauss points, setup.hpp: ElementGroupSetup::collocated and
// SumFactorTables). The block kernels (core_block_kernels.hpp, lifting_block_kernels.hpp) sum over
// all Np modes at every point and over all Nq points for every mode, each term a shared value and a
// table entry that differs from thread to thread (an L1 wavefront per row): at p = 4 the lifting
// kernel ran L1-bound at 12.5% occupancy. Here every such sum is two sums of n = p + 1 terms along
// the lines of the tensor basis, a thread per (element, variable, line): it reads the line's n values
// once and writes n results, and the 1D tables are kernel parameters indexed at compile time (the
// loops unroll), so each multiply-add takes its table entry from the constant bank. Layouts in
// shared memory, [row E + el] for the block's E elements:
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
  Real L[n][n], dL[n][n], Lw[n][n], Qw[n][n], edge[2][n], ends[2][n];
};
template <class Real, int n>
FactorTables<Real, n> factor_tables(const SumFactorTables& t) {
  FLOWDG_ASSERT(t.n == n, "sum-factorisation tables for n = ", t.n, ", the kernel's n = ", n);
  FactorTables<Real, n> out{};
  for (int a = 0; a < n; ++a)
    for (int i = 0; i < n; ++i) {
      out.L[a][i] = static_cast<Real>(t.L[a * n + i]);
      out.dL[a][i] = static_cast<Real>(t.dL[a * n + i]);
      out.Lw[a][i] = static_cast<Real>(t.Lw[a * n + i]);
      out.Qw[a][i] = static_cast<Real>(t.Qw[a * n + i]);
    }
  for (int s = 0; s < 2; ++s)
    for (int m = 0; m < n; ++m) {
      out.edge[s][m] = static_cast<Real>(t.edge[s * n + m]);
      out.ends[s][m] = static_cast<Real>(t.ends[s * n + m]);
    }
  return out;
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
/// lifting_block_kernel's with the dense sums factorised:
///   A. coefficients (canonical order) and point factors w_k / det J_k -> shared;
///   B1. a thread per (element, variable, j): T(a, j) = sum_i L[a][i] c(i, j), dT with dL;
///   B2. a thread per (element, variable, a): U(a, b) = sum_j L[b][j] T(a, j) (over the
///       coefficients), dU/dx = sum_j L[b][j] dT(a, j), dU/dy = sum_j dL[b][j] T(a, j);
///   B3. a thread per point: z_k = w_k grad U_k (the metric, D_k / w_k; the metric kept in shared
///       memory for D); a thread per face point: the lifting's integrand S = wn (H_aux - U);
///   D. a thread per face point: the trace along the face's line (n terms), the face gradient
///      from z and S along the same line (BR2's face lifting is diagonal there), the output; then a
///      thread per point: Theta from z and S (one face point per face), the viscous flux in
///      reference form (no per-thread arrays of Np values: lifting_block_kernel's collocated phase C
///      held one, 122 registers at p = 4);
///   E1. a thread per (element, variable, b): X(i, b) = sum_a dL[a][i] F_x(a, b), Y with L and F_y;
///   E2. a thread per (element, variable, i): -sum_b (L[b][j] X(i, b) + dL[b][j] Y(i, b)), the
///       volume term's moments, -> viscous_rhs.
template <class Physics, int P>
__global__ void __launch_bounds__(256) lifting_factorised_kernel(LiftingElementKernel<Physics, Shape::quadrilateral, P, GeometryKind::curved> k,
                                                                 FactorTables<typename Physics::real, P + 1> tb, index_t n_elements, int E) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  constexpr int n = P + 1, Np = n * n, NV = Physics::n_variables, dim = Physics::dim, NF = 4;
  static_assert(dim == 2, "quadrilaterals");
  constexpr int T = dim * NV, Nfq = n, NFq = NF * n;
  constexpr int line_values = 2 * NV * Np > NFq * T ? 2 * NV * Np : NFq * T;
  const auto& b = k.base;
  const index_t Ks = b.Ks, Fs = b.Fs;
  extern __shared__ unsigned char shared_bytes[];
  Real* s_u = reinterpret_cast<Real*>(shared_bytes);  // A: c [(v Np + i + n j) E + el]; B2 on: U [(v Np + kq) E + el]
  Real* s_m = s_u + NV * Np * E;                       // w_k / det J_k [kq E + el]
  Real* s_x = s_m + Np * E;                            // B: T, dT; B3-D: the face integrand S [((lq) T + t) E + el]; E: X, Y
  Real* s_w = s_x + line_values * E;                   // B2: dU/dr [((r NV + v) Np + kq) E + el]; B3: w det J grad U
                                                       // [((d NV + v) Np + kq)], then z; D: flux [((v dim + r) Np + kq)]
  Real* s_g = s_w + T * Np * E;                        // B3: the weighted metric m[r][d] [((r dim + d) Np + kq) E + el] for D
  const index_t e0 = static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(n_elements - e0 < E ? n_elements - e0 : E);
  detail::wait_for_previous_grid();

  // A.
  for (int i = threadIdx.x; i < NV * Np * E; i += blockDim.x) {
    const int el = i % E, row = i / E, v = row / Np, c = row % Np;
    s_u[i] = el < n_local ? b.u[static_cast<index_t>(v * Np + quadrilateral_mode(c % n, c / n)) * Ks + e0 + el] : Real(0);
  }
  for (int i = threadIdx.x; i < Np * E; i += blockDim.x) {
    const int el = i % E, kq = i / E;
    s_m[i] = el < n_local ? b.point_mass_factor(kq, e0 + el) : Real(0);
  }
  __syncthreads();

  // B1.
  for (int i = threadIdx.x; i < NV * n * E; i += blockDim.x) {
    const int el = i % E, line = i / E, v = line / n, j = line % n;
    if (el >= n_local) continue;
    Real c[n];
#pragma unroll
    for (int m = 0; m < n; ++m) c[m] = s_u[(v * Np + m + n * j) * E + el];
#pragma unroll
    for (int a = 0; a < n; ++a) {
      Real t = 0, dt = 0;
#pragma unroll
      for (int m = 0; m < n; ++m) {
        t += tb.L[a][m] * c[m];
        dt += tb.dL[a][m] * c[m];
      }
      s_x[(v * Np + a + n * j) * E + el] = t;
      s_x[(NV * Np + v * Np + a + n * j) * E + el] = dt;
    }
  }
  __syncthreads();

  // B2.
  for (int i = threadIdx.x; i < NV * n * E; i += blockDim.x) {
    const int el = i % E, line = i / E, v = line / n, a = line % n;
    if (el >= n_local) continue;
    Real t[n], dt[n];
#pragma unroll
    for (int m = 0; m < n; ++m) {
      t[m] = s_x[(v * Np + a + n * m) * E + el];
      dt[m] = s_x[(NV * Np + v * Np + a + n * m) * E + el];
    }
#pragma unroll
    for (int bb = 0; bb < n; ++bb) {
      Real u = 0, ux = 0, uy = 0;
#pragma unroll
      for (int m = 0; m < n; ++m) {
        u += tb.L[bb][m] * t[m];
        ux += tb.L[bb][m] * dt[m];
        uy += tb.dL[bb][m] * t[m];
      }
      const int kq = a + n * bb;
      s_u[(v * Np + kq) * E + el] = u;
      s_w[((0 * NV + v) * Np + kq) * E + el] = ux;
      s_w[((1 * NV + v) * Np + kq) * E + el] = uy;
    }
  }
  __syncthreads();

  // B3.
  for (int i = threadIdx.x; i < Np * E; i += blockDim.x) {
    const int el = i % E, kq = i / E;
    if (el >= n_local) continue;
    Real m[dim][dim];
    b.weighted_metric(kq, e0 + el, b.metric.data + e0 + el, Ks, m);
    for (int r = 0; r < dim; ++r)
      for (int d = 0; d < dim; ++d) s_g[((r * dim + d) * Np + kq) * E + el] = m[r][d];
    const Real to_z = s_m[kq * E + el] / b.volume_weight[kq];  // z_k = w_k grad U_k = (w det J grad U) D_k / w_k
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
  for (int i = threadIdx.x; i < NFq * E; i += blockDim.x) {
    const int el = i % E, lq = i / E, l = lq / Nfq, q = lq % Nfq;
    if (el >= n_local) continue;
    const index_t code = b.codes[l * Ks + e0 + el];
    const index_t f = code_face(code);
    const int point = code_own_point(code, b.permutation, Nfq, q);
    Real jump[NV];
    for (int v = 0; v < NV; ++v) jump[v] = k.out.jump[(static_cast<index_t>(v) * Nfq + q) * Fs + f];
    for (int d = 0; d < dim; ++d) {
      const Real wn = k.out.normal_weight[(static_cast<index_t>(d) * Nfq + q) * Fs + f];
      for (int v = 0; v < NV; ++v) s_x[((l * Nfq + point) * T + d * NV + v) * E + el] = wn * jump[v];
    }
  }
  __syncthreads();

  // D, the faces: the trace along the face's line; the face gradient (BR2's face lifting is
  // diagonal at the Gauss points, setup.hpp: collocated_lifting_lines) sum_m C[k_m][lq] z_k_m +
  // eta S_lq sum_m C[k_m][lq]^2 D_k_m over the line k_m of the element's face point lq; the output.
  const int NL = k.lines;
  const Real* line_c = k.face_lifting.data + Np * NFq;  // [lq NL + m]
  const Real* cross_c = line_c + NFq * NL;              // [kq NF + l]
  const int* line_k = k.lifting_lines.data;             // [lq NL + m]
  const int* cross_b = line_k + NFq * NL;               // [kq NF + l], -1: none
  for (int i = threadIdx.x; i < NFq * E; i += blockDim.x) {
    const int el = i % E, lq = i / E, l = lq / Nfq, q = lq % Nfq;
    if (el >= n_local) continue;
    const index_t code = b.codes[l * Ks + e0 + el];
    const index_t f = code_face(code);
    const bool plus = code_plus_side(code);
    const int point = code_own_point(code, b.permutation, Nfq, q);
    int first, stride, side;
    face_line<n>(l, point, first, stride, side);
    State u;
    for (int v = 0; v < NV; ++v) {
      Real sum = 0;
#pragma unroll
      for (int m = 0; m < n; ++m) sum += (side == 1 ? tb.edge[1][m] : tb.edge[0][m]) * s_u[(v * Np + first + m * stride) * E + el];
      u[v] = sum;
    }
    const int own = l * Nfq + point;
    Real gradient[T] = {}, diagonal = 0;
    for (int m = 0; m < NL; ++m) {
      const int kq = line_k[own * NL + m];
      const Real c = line_c[own * NL + m];
      diagonal += c * c * s_m[kq * E + el];
#pragma unroll
      for (int t = 0; t < T; ++t) gradient[t] += c * s_w[(t * Np + kq) * E + el];
    }
    State theta[dim];
    for (int d = 0; d < dim; ++d)
      for (int v = 0; v < NV; ++v) theta[d][v] = gradient[d * NV + v] + k.eta * diagonal * s_x[(own * T + d * NV + v) * E + el];
    const Real* phi = &b.face_phi[(static_cast<index_t>(l) * Nfq + point) * Np];
    store_lifting_face_point(point_physics(element_physics(b.physics, k.viscosity, e0 + el), k.viscosity, e0 + el, phi), k.out, Nfq, Fs, f,
                             plus, q, u, theta);
  }
  __syncthreads();

  // D, the points: Theta_k = (z_k + D_k sum_l C[k][l b_l(k)] S_l b_l(k)) / w_k (one face point per
  // face), U, the viscous flux in reference form over z (the column kq this thread alone reads).
  for (int i = threadIdx.x; i < Np * E; i += blockDim.x) {
    const int el = i % E, kq = i / E;
    if (el >= n_local) continue;
    const index_t e = e0 + el;
    State uk;
    for (int v = 0; v < NV; ++v) uk[v] = s_u[(v * Np + kq) * E + el];
    Real lifted[T] = {};
    for (int l = 0; l < NF; ++l) {
      const int point = cross_b[kq * NF + l];
      if (point < 0) continue;
      const Real c = cross_c[kq * NF + l];
#pragma unroll
      for (int t = 0; t < T; ++t) lifted[t] += c * s_x[((l * Nfq + point) * T + t) * E + el];
    }
    const Real factor = s_m[kq * E + el], inverse_weight = Real(1) / b.volume_weight[kq];
    State theta[dim];
    for (int d = 0; d < dim; ++d)
      for (int v = 0; v < NV; ++v)
        theta[d][v] = (s_w[((d * NV + v) * Np + kq) * E + el] + factor * lifted[d * NV + v]) * inverse_weight;
    State fv[dim];
    point_physics(element_physics(b.physics, k.viscosity, e), k.viscosity, e, &b.volume_phi[kq * Np]).viscous_flux(uk, theta, fv);
    Real m[dim][dim];
    for (int r = 0; r < dim; ++r)
      for (int d = 0; d < dim; ++d) m[r][d] = s_g[((r * dim + d) * Np + kq) * E + el];
    for (int v = 0; v < NV; ++v)
      for (int r = 0; r < dim; ++r) s_w[((v * dim + r) * Np + kq) * E + el] = reference_flux(m, fv, r, v);
  }
  __syncthreads();

  // E1.
  for (int i = threadIdx.x; i < NV * n * E; i += blockDim.x) {
    const int el = i % E, line = i / E, v = line / n, bb = line % n;
    if (el >= n_local) continue;
    Real fx[n], fy[n];
#pragma unroll
    for (int a = 0; a < n; ++a) {
      fx[a] = s_w[((v * dim + 0) * Np + a + n * bb) * E + el];
      fy[a] = s_w[((v * dim + 1) * Np + a + n * bb) * E + el];
    }
#pragma unroll
    for (int mode = 0; mode < n; ++mode) {
      Real x = 0, y = 0;
#pragma unroll
      for (int a = 0; a < n; ++a) {
        x += tb.dL[a][mode] * fx[a];
        y += tb.L[a][mode] * fy[a];
      }
      s_x[(v * Np + mode + n * bb) * E + el] = x;
      s_x[(NV * Np + v * Np + mode + n * bb) * E + el] = y;
    }
  }
  __syncthreads();

  // E2.
  for (int i = threadIdx.x; i < NV * n * E; i += blockDim.x) {
    const int el = i % E, line = i / E, v = line / n, mode = line % n;
    if (el >= n_local) continue;
    Real x[n], y[n];
#pragma unroll
    for (int bb = 0; bb < n; ++bb) {
      x[bb] = s_x[(v * Np + mode + n * bb) * E + el];
      y[bb] = s_x[(NV * Np + v * Np + mode + n * bb) * E + el];
    }
#pragma unroll
    for (int j = 0; j < n; ++j) {
      Real sum = 0;
#pragma unroll
      for (int bb = 0; bb < n; ++bb) sum += tb.L[bb][j] * x[bb] + tb.dL[bb][j] * y[bb];
      k.viscous_rhs[static_cast<index_t>(v * Np + quadrilateral_mode(mode, j)) * Ks + e0 + el] = -sum;
    }
  }
}

/// The element kernel (ElementKernel's work with the Runge-Kutta update) on a collocated
/// quadrilateral group, through the points (setup.hpp: SumFactorTables):
///   A. coefficients, the viscous moments (canonical order) and 1 / det J_k -> shared;
///   P1, P2. U at the points (and w_a w_b (V r_v)(a, b) for the viscous moments r_v), two line passes;
///   P3. a thread per point: the reference fluxes; a thread per face point: the face flux;
///   P4a. a thread per (element, variable, b): sum_a' Qw[a][a'] F_x(a', b) + faces 1 and 3 over a;
///   P4b. a thread per (element, variable, a): + sum_b' Qw[b][b'] F_y(a, b') + faces 0 and 2 over
///        b + the viscous values, times 1 / det J: w / det J (V r), M^-1 r at the points;
///   P5. V^T of it (two line passes) and the update.
template <class Physics, int P>
__global__ void __launch_bounds__(256) element_factorised_kernel(ElementKernel<Physics, Shape::quadrilateral, P, GeometryKind::curved> k,
                                                                 FactorTables<typename Physics::real, P + 1> tb, index_t first, index_t end, int E) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  constexpr int n = P + 1, Np = n * n, NV = Physics::n_variables, dim = Physics::dim, NF = 4, Nfq = n;
  static_assert(dim == 2, "quadrilaterals");
  constexpr bool viscous = Physics::has_viscous_flux;
  const index_t Ks = k.Ks;
  extern __shared__ unsigned char shared_bytes[];
  Real* s_u = reinterpret_cast<Real*>(shared_bytes);     // c; U (P2); P4a's sums; M^-1 r at the points (P4b) [(v Np + .) E + el]
  Real* s_r = s_u + NV * Np * E;                          // viscous: r_v, then w_a w_b (V r_v) at the points
  Real* s_t = s_r + (viscous ? NV * Np * E : 0);          // P1: [(v Np + .) E + el], the viscous ones at + NV Np; P5a: Z
  Real* s_f = s_t;                                        // P3, P4: the reference fluxes [((v dim + r) Np + kq) E + el] (dim = 2)
  Real* s_g = s_t + 2 * NV * Np * E;                      // [((l Nfq + point) NV + v) E + el]
  Real* s_m = s_g + NF * Nfq * NV * E;                    // 1 / det J_k [kq E + el]
  const index_t e0 = first + static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(end - e0 < E ? end - e0 : E);
  detail::wait_for_previous_grid();

  // A.
  for (int i = threadIdx.x; i < NV * Np * E; i += blockDim.x) {
    const int el = i % E, row = i / E, v = row / Np, c = row % Np;
    const index_t at = static_cast<index_t>(v * Np + quadrilateral_mode(c % n, c / n)) * Ks + e0 + el;
    s_u[i] = el < n_local ? k.u[at] : Real(0);
    if constexpr (viscous) s_r[i] = el < n_local ? k.viscous_rhs[at] : Real(0);
  }
  for (int i = threadIdx.x; i < Np * E; i += blockDim.x) {
    const int el = i % E, kq = i / E;
    s_m[i] = el < n_local ? k.point_mass_factor(kq, e0 + el) / k.volume_weight[kq] : Real(0);
  }
  __syncthreads();

  // P1: T(a, j) = sum_i L[a][i] c(i, j); viscous: sum_i Lw[a][i] r_v(i, j).
  constexpr int sets = viscous ? 2 : 1;
  for (int i = threadIdx.x; i < sets * NV * n * E; i += blockDim.x) {
    const int el = i % E, line = i / E, set = line / (NV * n), v = (line / n) % NV, j = line % n;
    if (el >= n_local) continue;
    const Real* in = set == 0 ? s_u : s_r;
    Real c[n];
#pragma unroll
    for (int m = 0; m < n; ++m) c[m] = in[(v * Np + m + n * j) * E + el];
#pragma unroll
    for (int a = 0; a < n; ++a) {
      Real sum = 0;
#pragma unroll
      for (int m = 0; m < n; ++m) sum += (set == 0 ? tb.L[a][m] : tb.Lw[a][m]) * c[m];
      s_t[(set * NV * Np + v * Np + a + n * j) * E + el] = sum;
    }
  }
  __syncthreads();

  // P2: U(a, b) = sum_j L[b][j] T(a, j) over c; viscous: Lw, over r_v.
  for (int i = threadIdx.x; i < sets * NV * n * E; i += blockDim.x) {
    const int el = i % E, line = i / E, set = line / (NV * n), v = (line / n) % NV, a = line % n;
    if (el >= n_local) continue;
    Real t[n];
#pragma unroll
    for (int m = 0; m < n; ++m) t[m] = s_t[(set * NV * Np + v * Np + a + n * m) * E + el];
    Real* out = set == 0 ? s_u : s_r;
#pragma unroll
    for (int bb = 0; bb < n; ++bb) {
      Real sum = 0;
#pragma unroll
      for (int m = 0; m < n; ++m) sum += (set == 0 ? tb.L[bb][m] : tb.Lw[bb][m]) * t[m];
      out[(v * Np + a + n * bb) * E + el] = sum;
    }
  }
  __syncthreads();

  // P3.
  for (int i = threadIdx.x; i < Np * E; i += blockDim.x) {
    const int el = i % E, kq = i / E;
    if (el >= n_local) continue;
    const index_t e = e0 + el;
    State uk;
    for (int v = 0; v < NV; ++v) uk[v] = s_u[(v * Np + kq) * E + el];
    State f[dim];
    k.physics.flux(uk, f);
    Real m[dim][dim];
    k.weighted_metric(kq, e, k.metric.data + e, Ks, m);
    for (int v = 0; v < NV; ++v)
      for (int r = 0; r < dim; ++r) s_f[((v * dim + r) * Np + kq) * E + el] = reference_flux(m, f, r, v);
  }
  for (int i = threadIdx.x; i < NF * Nfq * E; i += blockDim.x) {
    const int el = i % E, lq = i / E, l = lq / Nfq, q = lq % Nfq;
    if (el >= n_local) continue;
    const index_t code = k.codes[l * Ks + e0 + el];
    const index_t f = code_face(code);
    const bool plus = code_plus_side(code);
    const int point = code_own_point(code, k.permutation, Nfq, q);
    const Real sign = plus ? Real(1) : Real(-1);
    for (int v = 0; v < NV; ++v) s_g[((l * Nfq + point) * NV + v) * E + el] = sign * k.face_flux(v, q, f);
  }
  __syncthreads();

  // P4a: along a, for each b: the x-volume term and faces 1 (x = 1: its point b) and 3 (x = -1:
  // its point n - 1 - b).
  for (int i = threadIdx.x; i < NV * n * E; i += blockDim.x) {
    const int el = i % E, line = i / E, v = line / n, bb = line % n;
    if (el >= n_local) continue;
    Real fx[n];
#pragma unroll
    for (int a = 0; a < n; ++a) fx[a] = s_f[((v * dim + 0) * Np + a + n * bb) * E + el];
    const Real g1 = s_g[((1 * Nfq + bb) * NV + v) * E + el], g3 = s_g[((3 * Nfq + n - 1 - bb) * NV + v) * E + el];
#pragma unroll
    for (int a = 0; a < n; ++a) {
      Real sum = tb.edge[1][a] * g1 + tb.edge[0][a] * g3;
#pragma unroll
      for (int m = 0; m < n; ++m) sum += tb.Qw[a][m] * fx[m];
      s_u[(v * Np + a + n * bb) * E + el] = sum;  // U is no longer read
    }
  }
  __syncthreads();

  // P4b: along b, for each a: the y-volume term, faces 0 (y = -1: its point a) and 2 (y = 1: its
  // point n - 1 - a), the viscous values; times 1 / det J -> s_u, over the line this thread read.
  for (int i = threadIdx.x; i < NV * n * E; i += blockDim.x) {
    const int el = i % E, line = i / E, v = line / n, a = line % n;
    if (el >= n_local) continue;
    Real fy[n];
#pragma unroll
    for (int bb = 0; bb < n; ++bb) fy[bb] = s_f[((v * dim + 1) * Np + a + n * bb) * E + el];
    const Real g0 = s_g[((0 * Nfq + a) * NV + v) * E + el], g2 = s_g[((2 * Nfq + n - 1 - a) * NV + v) * E + el];
#pragma unroll
    for (int bb = 0; bb < n; ++bb) {
      const int kq = a + n * bb;
      Real sum = s_u[(v * Np + kq) * E + el] + tb.edge[0][bb] * g0 + tb.edge[1][bb] * g2;
      if constexpr (viscous) sum += s_r[(v * Np + kq) * E + el];
#pragma unroll
      for (int m = 0; m < n; ++m) sum += tb.Qw[bb][m] * fy[m];
      s_u[(v * Np + kq) * E + el] = sum * s_m[kq * E + el];
    }
  }
  __syncthreads();

  // P5a: Z(i, b) = sum_a L[a][i] R(a, b).
  for (int i = threadIdx.x; i < NV * n * E; i += blockDim.x) {
    const int el = i % E, line = i / E, v = line / n, bb = line % n;
    if (el >= n_local) continue;
    Real y[n];
#pragma unroll
    for (int a = 0; a < n; ++a) y[a] = s_u[(v * Np + a + n * bb) * E + el];
#pragma unroll
    for (int mode = 0; mode < n; ++mode) {
      Real sum = 0;
#pragma unroll
      for (int a = 0; a < n; ++a) sum += tb.L[a][mode] * y[a];
      s_t[(v * Np + mode + n * bb) * E + el] = sum;
    }
  }
  __syncthreads();

  // P5b: the modes (i, j) = sum_b L[b][j] Z(i, b), and the update.
  for (int i = threadIdx.x; i < NV * n * E; i += blockDim.x) {
    const int el = i % E, line = i / E, v = line / n, mode = line % n;
    if (el >= n_local) continue;
    Real z[n];
#pragma unroll
    for (int bb = 0; bb < n; ++bb) z[bb] = s_t[(v * Np + mode + n * bb) * E + el];
#pragma unroll
    for (int j = 0; j < n; ++j) {
      Real sum = 0;
#pragma unroll
      for (int bb = 0; bb < n; ++bb) sum += tb.L[bb][j] * z[bb];
      k.update.apply(k.u, static_cast<index_t>(v * Np + quadrilateral_mode(mode, j)) * Ks + e0 + el, sum);
    }
  }
}

/// The face kernel (FaceKernel's work) on faces between collocated quadrilaterals and on their
/// boundary faces, a block of Fb faces (factorised_faces): the faces' elements -> shared; both sides'
/// coefficients -> shared (asynchronous copies); a thread per (face, side, variable): the traces at
/// the face's n points in two line sums, g(a) = sum_b L_b(-+1) c(a, b) across the face (b the index
/// of the direction normal to it) and sum_a L[s][a] g(a) along it, where the block face kernel sums
/// Np terms at every point -> shared, in the side's own point order; a thread per (face, point):
/// the plus side's trace through the orientation's permutation, FaceKernel::finish.
/// Three blocks per SM (at most 85 registers, as core_face_block_kernel: the numerical flux's
/// registers otherwise took 92, two blocks).
template <class Physics, int P, GeometryKind FG, bool Boundary>
__global__ void __launch_bounds__(256, 3)
    face_factorised_kernel(FaceKernel<Physics, Shape::quadrilateral, Shape::quadrilateral, P, FG, Boundary> k,
                           FactorTables<typename Physics::real, P + 1> tb, index_t count, int Fb) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  constexpr int n = P + 1, Np = n * n, NV = Physics::n_variables, sides = Boundary ? 1 : 2;
  extern __shared__ unsigned char shared_bytes[];
  index_t* s_element = reinterpret_cast<index_t*>(shared_bytes);  // [side Fb + fl]
  int* s_local = reinterpret_cast<int*>(s_element + 2 * Fb);      // [side Fb + fl]
  Real* s_c = reinterpret_cast<Real*>(shared_bytes + face_factorised_index_bytes * static_cast<std::size_t>(Fb));  // [((side NV + v) Np + j) Fb + fl]
  Real* s_t = s_c + 2 * NV * Np * Fb;  // [((side NV + v) n + q) Fb + fl], q the side's own point
  const index_t f0 = static_cast<index_t>(blockIdx.x) * Fb;
  const int n_local = static_cast<int>(count - f0 < Fb ? count - f0 : Fb);
  detail::wait_for_previous_grid();
  for (int fl = threadIdx.x; fl < n_local; fl += blockDim.x) {
    const index_t f = k.begin + f0 + fl;
    s_element[fl] = k.index.element_m[f];
    s_local[fl] = k.index.local_m[f];
    if constexpr (!Boundary) {
      s_element[Fb + fl] = k.index.element_p[f];
      s_local[Fb + fl] = k.index.local_p[f];
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < sides * NV * Np * Fb; i += blockDim.x) {
    const int fl = i % Fb, row = i / Fb, side = row / (NV * Np), r = row % (NV * Np);
    if (fl >= n_local) continue;
    const Real* u = side == 0 ? k.u_m.data : k.u_p.data;
    const index_t Ks = side == 0 ? k.Ks_m : k.Ks_p;
    device::copy_async(s_c + i, u + static_cast<index_t>(r) * Ks + s_element[side * Fb + fl]);
  }
  device::copy_async_commit();
  device::copy_async_wait();
  __syncthreads();

  for (int i = threadIdx.x; i < sides * NV * Fb; i += blockDim.x) {
    const int fl = i % Fb, rest = i / Fb, side = rest / NV, v = rest % NV;
    if (fl >= n_local) continue;
    const int l = s_local[side * Fb + fl];
    const bool across_y = l % 2 == 0;  // faces 0 (y = -1) and 2 (y = 1): c(a, b) with b across
    const int end = l == 1 || l == 2 ? 1 : 0;
    const Real* c = s_c + (side * NV + v) * Np * Fb + fl;
    Real g[n];
#pragma unroll
    for (int a = 0; a < n; ++a) {
      Real sum = 0;
#pragma unroll
      for (int bb = 0; bb < n; ++bb)
        sum += (end == 1 ? tb.ends[1][bb] : tb.ends[0][bb]) * c[(across_y ? quadrilateral_mode(a, bb) : quadrilateral_mode(bb, a)) * Fb];
      g[a] = sum;
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

  for (int i = threadIdx.x; i < n * Fb; i += blockDim.x) {
    const int fl = i % Fb, q = i / Fb;
    if (fl >= n_local) continue;
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

template <class Physics, int P, GeometryKind FG, bool Boundary>
void launch_face_factorised_kernel(const FaceKernel<Physics, Shape::quadrilateral, Shape::quadrilateral, P, FG, Boundary>& kernel,
                                   const SumFactorTables& tables, index_t n_faces, int Fb) {
  if (n_faces <= 0) return;
  FLOWDG_ASSERT(kernel.Nfq == P + 1, "the factorised face kernel takes faces of P + 1 points (setup.hpp: SumFactorTables)");
  const std::size_t shared = static_cast<std::size_t>(Fb) * factorised_face_bytes<Physics>(P + 1);
  constexpr auto function = face_factorised_kernel<Physics, P, FG, Boundary>;
  allow_block_shared_limit<function>();
  const auto blocks = static_cast<unsigned>((n_faces + Fb - 1) / Fb);
  detail::launch(false, function, blocks, 256, shared, kernel, factor_tables<typename Physics::real, P + 1>(tables), n_faces, Fb);
}

template <class Physics, int P>
void launch_lifting_factorised_kernel(const LiftingElementKernel<Physics, Shape::quadrilateral, P, GeometryKind::curved>& kernel,
                                      const SumFactorTables& tables, index_t n_elements, FactorisedBlock block) {
  if (n_elements <= 0) return;
  const int E = block.E;
  FLOWDG_ASSERT(kernel.base.collocated && kernel.lines > 0 && kernel.base.Nq == (P + 1) * (P + 1) && kernel.base.Nfq == P + 1,
                "the factorised lifting kernel takes collocated quadrilaterals with a sparse C (setup.hpp: SumFactorTables)");
  const std::size_t shared = sizeof(typename Physics::real) * static_cast<std::size_t>(E) * static_cast<std::size_t>(factorised_lifting_values<Physics>(P + 1));
  constexpr auto function = lifting_factorised_kernel<Physics, P>;
  allow_block_shared_limit<function>();
  const auto blocks = static_cast<unsigned>((n_elements + E - 1) / E);
  detail::launch(false, function, blocks, static_cast<unsigned>(block.threads), shared, kernel, factor_tables<typename Physics::real, P + 1>(tables), n_elements, E);
}

template <class Physics, int P>
void launch_element_factorised_kernel(const ElementKernel<Physics, Shape::quadrilateral, P, GeometryKind::curved>& kernel,
                                      const SumFactorTables& tables, index_t first, index_t n_elements, FactorisedBlock block) {
  if (n_elements <= 0) return;
  const int E = block.E;
  FLOWDG_ASSERT(kernel.collocated && kernel.Nq == (P + 1) * (P + 1) && kernel.Nfq == P + 1,
                "the factorised element kernel takes collocated quadrilaterals (setup.hpp: SumFactorTables)");
  const std::size_t shared = sizeof(typename Physics::real) * static_cast<std::size_t>(E) * static_cast<std::size_t>(factorised_element_values<Physics>(P + 1));
  constexpr auto function = element_factorised_kernel<Physics, P>;
  allow_block_shared_limit<function>();
  const auto blocks = static_cast<unsigned>((n_elements + E - 1) / E);
  detail::launch(false, function, blocks, static_cast<unsigned>(block.threads), shared, kernel, factor_tables<typename Physics::real, P + 1>(tables), first,
                 first + n_elements, E);
}

}  // namespace flowdg::dg
