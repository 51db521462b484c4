#pragma once
// BR2 at the faces on collocated bilinear quadrilaterals (br2_face_kernels.hpp's two kernels a stage
// for the sum-factorised groups of factorised_kernels.hpp): the lifting pass's discretisation
// (lifting_factorised_kernel) without its pass, its volume moments and its halves.
//
// On a collocated quadrilateral BR2's face lifting is diagonal at the Gauss points and the volume
// lifting takes each face point to the volume points of its line only (setup.hpp:
// collocated_lifting_lines; lifting_factorised_kernel's phase D), so everything Theta needs at a face
// point is on the line through it, normal to the face:
//   Theta_l(q) = sum_m edge[end][m] grad U(k_m) + eta d_q n (w |N| jump)(q),
//   d_q = sum_m edge[end][m]^2 / (w_m w_s det J(k_m)),
// k_m the line's n volume points (s its index along the face, end the face's end of the line), grad U
// at a volume point the physical gradient of the element's polynomial there (the lifting pass
// interpolates the gradient's point values to the face; on a bilinear map it is not a polynomial),
// and at a volume point k = (a, b) with weight w_k
//   Theta(k) = grad U(k) + (1 / (w_k det J_k)) sum_l edge[.][.] n_l (w |N| jump)_l(its point on k's line).
// So
//   1. br2_factorised_face_kernel, a thread per (face, side, point): its side's trace, and the sum of
//      its line's gradients from the coefficients: two line sums a variable (T = sum_i L_i(x_s) c(i, .),
//      dT with L') and three dot products with weights that hold the line's bilinear Jacobians and
//      edge[end] (see the kernel) -> shared; the minus
//      side's thread the inviscid flux and the jump (w |N| times it -> global for the volume lifting);
//      each side's Theta_l and its half of the centred viscous flux; the face's whole flux -> global
//      (boundary faces: the condition's viscous flux with Theta_m, and Theta_m stored for the walls);
//   2. element_br2_factorised_kernel, per element (element_factorised_kernel's phases): U and its
//      two reference derivatives at the points in two line passes, Theta from them and the faces'
//      jumps, F(U) - Fv(U, Theta) in reference form, the volume and face sums and the update.
// The same discretisation as the lifting pass (sums in another order: rounding-level differences;
// the GPU test compares both with the CPU). CUDA only: included by dg_operator.hpp under __CUDACC__.
#include "flowdg/dg/br2_face_kernels.hpp"
#include "flowdg/dg/factorised_kernels.hpp"

namespace flowdg::dg {

/// The face kernel's data: the inviscid face kernel's (traces, geometry, condition, flux and jump
/// outputs), the boundary faces' gradients out, each side's bilinear Jacobians [c Ks + e].
template <class Physics, int P, bool Boundary>
struct Br2FactorisedFaceKernel {
  using Real = typename Physics::real;
  FaceKernel<Physics, Shape::quadrilateral, Shape::quadrilateral, P, GeometryKind::affine, Boundary> base;
  LiftingFaceOutput<Real> out;
  const Real* geometry_m = nullptr;
  const Real* geometry_p = nullptr;
  Real eta = Real(4);
};

/// The face kernel (see the top of this file): Fb = br2_block_faces(n, Boundary) faces a block,
/// thread (side n + q) Fb + fl: face fl's point q on side `side` (the plus side at its own point
/// through the orientation's permutation):
///   0. the faces' elements, both sides' coefficients and bilinear Jacobians -> shared (cp.async);
///   1. its side's trace, the face gradient sum_m edge[end][m] grad U(k_m) and the diagonal d_q -> shared;
///   2. the minus side's thread: the inviscid flux and the jump (FaceKernel::point_flux), w |N| times the
///      jump -> global;
///   3. each side's Theta_l = gradient + eta d_q n (w |N| jump) and its centred viscous flux (the plus
///      side's -> shared), the minus side's thread the face's whole flux -> global; boundary faces
///      the condition's viscous flux with Theta_m, and Theta_m -> the walls' face gradients.
template <class Physics, int P, bool Boundary, int MinBlocks = 3, int Threads = 256>
__global__ void __launch_bounds__(Threads, MinBlocks) br2_factorised_face_kernel(Br2FactorisedFaceKernel<Physics, P, Boundary> k,
                                                                     FactorTables<typename Physics::real, P + 1> tb, index_t count) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  using Direction = typename Physics::Direction;
  constexpr int n = P + 1, Np = n * n, NV = Physics::n_variables, dim = Physics::dim, sides = Boundary ? 1 : 2;
  static_assert(dim == 2, "quadrilaterals");
  constexpr int Fb = br2_block_faces(n, Boundary, Threads), G = dim * NV + 1;
  static_assert(Np >= 2 * n, "the jump and the flux take the coefficients' place");
  const auto& b = k.base;
  const index_t Fs = b.Fs;
  extern __shared__ unsigned char shared_bytes[];
  Real* s_c = reinterpret_cast<Real*>(shared_bytes);  // [((side NV + v) Np + mode) Fb + fl] (the coefficients' own order)
  Real* s_jump = s_c;                                  // from 2 (the coefficients read): [(v n + q) Fb + fl] w |N| (H_aux - U_m)
  Real* s_flux = s_c + NV * n * Fb;                    // from 2: [(v n + q) Fb + fl] w |N| F*
  Real* s_t = s_c + sides * NV * Np * Fb;              // [((side NV + v) n + q) Fb + fl] traces; 3: the plus side's half
  Real* s_d = s_t + sides * NV * n * Fb;               // [((side n + q) G + g) Fb + fl]: gradient (d NV + v), diagonal (G - 1)
  Real* s_geo = s_d + sides * n * G * Fb;              // [(side 6 + c) Fb + fl]
  Real* s_tab = s_geo + sides * 6 * Fb;                // L [s n + i], dL [n^2 + s n + i]
  __shared__ index_t s_element[2][Fb];
  const index_t f0 = static_cast<index_t>(blockIdx.x) * Fb;
  const int n_local = static_cast<int>(count - f0 < Fb ? count - f0 : Fb);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int s = 0; s < n; ++s)
#pragma unroll
      for (int i = 0; i < n; ++i) {
        s_tab[s * n + i] = tb.L[s][i];
        s_tab[Np + s * n + i] = tb.dL[s][i];
      }
  }
  detail::wait_for_previous_grid();
  load_face_sides<Boundary>(b.index, b.begin + f0, n_local, Fb, &s_element[0][0], static_cast<int*>(nullptr));
  __syncthreads();
  for (int side = 0; side < sides; ++side) {
    const Real* u = side == 0 ? b.u_m.data : b.u_p.data;
    const Real* geometry = side == 0 ? k.geometry_m : k.geometry_p;
    const index_t Ks = side == 0 ? b.Ks_m : b.Ks_p;
    for (int i = threadIdx.x; i < NV * Np * Fb; i += blockDim.x) {
      const int fl = i % Fb, row = i / Fb;
      if (fl < n_local) device::copy_async(s_c + side * NV * Np * Fb + i, u + static_cast<index_t>(row) * Ks + s_element[side][fl]);
    }
    for (int i = threadIdx.x; i < 6 * Fb; i += blockDim.x) {
      const int fl = i % Fb, c = i / Fb;
      if (fl < n_local) device::copy_async(s_geo + side * 6 * Fb + i, geometry + static_cast<index_t>(c) * Ks + s_element[side][fl]);
    }
  }
  device::copy_async_commit();
  device::copy_async_wait();
  __syncthreads();

  // This thread's item (one at most: the barriers below are the whole block's).
  const int fl = threadIdx.x % Fb, q = (threadIdx.x / Fb) % n, side = threadIdx.x / (Fb * n);
  const bool active = fl < n_local && side < sides;
  const index_t local = f0 + fl, f = b.begin + local;
  State u{};
  // 1. The trace and the line's gradients at the side's own point a of its face l.
  if (active) {
    int a = q;
    if constexpr (!Boundary)
      if (side == 1) a = b.permutation[b.index.orientation[f] * n + q];
    const int l = side == 0 ? b.index.local_m[f] : b.index.local_p[f];
    const int s = l < 2 ? a : n - 1 - a;  // the line's index along the face
    const bool along_y = l % 2 == 0;      // faces 0, 2: the line x = x_s over eta; 1, 3: y = x_s over xi
    const int end = l == 1 || l == 2 ? 1 : 0;
    const Real* c = s_c + side * NV * Np * Fb + fl;
    const Real* g = s_geo + side * 6 * Fb + fl;
    const Real xs = table_at(tb.x, s), ws = table_at(tb.w, s);
    // Along the line (lambda = x_m its varying coordinate: eta on faces 0, 2, xi on 1, 3) two of
    // J's entries are constant and two affine in lambda, so with f_m = edge[end][m] / det J(k_m)
    //   sum_m f_m grad U(k_m) = c_P S + c_0 Q0 + c_1 Q1 (each component),
    //   S = sum_m f_m dU/dfixed(m) = sum_t Wf_t dT[t],  Q0 = sum_m f_m dU/dline(m) = sum_t W0_t T[t],
    //   Q1 = sum_m f_m lambda_m dU/dline(m) = sum_t W1_t T[t],
    // the weights W once a thread (Wf_t = sum_m f_m L_t(x_m), W0 with L', W1 with lambda_m L'): per
    // variable two line sums and three dot products instead of the line's n gradients.
    const Real g0 = g[0], g1 = g[Fb], g2 = g[2 * Fb], g3 = g[3 * Fb], g4 = g[4 * Fb], g5 = g[5 * Fb];
    Real Wf[n], W0[n], W1[n], diagonal = 0;
#pragma unroll
    for (int t = 0; t < n; ++t) Wf[t] = W0[t] = W1[t] = 0;
    // The n reciprocals 1 / det J(k_m) from one division through the running products (a double
    // division is a subroutine of dependent steps: n of them measured 0.5-2.8% slower, session 37),
    // and edge / w_m from the tables (lift).
    Real inverse_det[n];
#pragma unroll
    for (int m = 0; m < n; ++m) {
      const Real xi = along_y ? xs : tb.x[m], eta = along_y ? tb.x[m] : xs;
      inverse_det[m] = (g0 + g2 * eta) * (g4 + g5 * xi) - (g1 + g2 * xi) * (g3 + g5 * eta);  // det, for now
    }
    {
      Real running[n];
      running[0] = inverse_det[0];
#pragma unroll
      for (int m = 1; m < n; ++m) running[m] = running[m - 1] * inverse_det[m];
      Real inverse = Real(1) / running[n - 1];
#pragma unroll
      for (int m = n - 1; m > 0; --m) {
        const Real det = inverse_det[m];
        inverse_det[m] = inverse * running[m - 1];
        inverse *= det;
      }
      inverse_det[0] = inverse;
    }
#pragma unroll
    for (int m = 0; m < n; ++m) {
      const Real e = end == 1 ? tb.edge[1][m] : tb.edge[0][m];
      const Real f = e * inverse_det[m], f_lambda = f * tb.x[m];
      diagonal += (end == 1 ? tb.lift[1][m] : tb.lift[0][m]) * f;
#pragma unroll
      for (int t = 0; t < n; ++t) {
        Wf[t] += f * tb.L[m][t];
        W0[t] += f * tb.dL[m][t];
        W1[t] += f_lambda * tb.dL[m][t];
      }
    }
    // grad U = J^-T (dU/dxi, dU/deta): x: (y_eta dU/dxi - y_xi dU/deta) / det, y: (x_xi dU/deta - x_eta dU/dxi) / det.
    const Real cxP = along_y ? g4 + g5 * xs : -(g3 + g5 * xs), cx0 = along_y ? -g3 : g4, cx1 = along_y ? -g5 : g5;
    const Real cyP = along_y ? -(g1 + g2 * xs) : g0 + g2 * xs, cy0 = along_y ? g0 : -g1, cy1 = along_y ? g2 : -g2;
    Real Ls[n], dLs[n];
#pragma unroll
    for (int i = 0; i < n; ++i) {
      Ls[i] = s_tab[s * n + i];
      dLs[i] = s_tab[Np + s * n + i];
    }
    Real* out = s_d + (side * n + q) * G * Fb + fl;
#pragma unroll 1
    for (int v = 0; v < NV; ++v) {  // (not unrolled: one variable's line sums live at a time)
      const Real* cv = c + v * Np * Fb;
      // T[t] = sum_i L_i(x_s) c(.), dT with L': along the face's fixed coordinate x_s, t the line's.
      Real T[n], dT[n];
#pragma unroll
      for (int t = 0; t < n; ++t) {
        Real sum = 0, dsum = 0;
#pragma unroll
        for (int i = 0; i < n; ++i) {
          const Real value = cv[(along_y ? quadrilateral_mode(i, t) : quadrilateral_mode(t, i)) * Fb];
          sum += Ls[i] * value;
          dsum += dLs[i] * value;
        }
        T[t] = sum;
        dT[t] = dsum;
      }
      Real trace = 0, S = 0, Q0 = 0, Q1 = 0;
#pragma unroll
      for (int t = 0; t < n; ++t) {
        trace += (end == 1 ? tb.ends[1][t] : tb.ends[0][t]) * T[t];
        S += Wf[t] * dT[t];
        Q0 += W0[t] * T[t];
        Q1 += W1[t] * T[t];
      }
      out[(0 * NV + v) * Fb] = cxP * S + cx0 * Q0 + cx1 * Q1;
      out[(1 * NV + v) * Fb] = cyP * S + cy0 * Q0 + cy1 * Q1;
      s_t[((side * NV + v) * n + q) * Fb + fl] = trace;
    }
    out[(G - 1) * Fb] = diagonal / ws;
    for (int v = 0; v < NV; ++v) u[v] = s_t[((side * NV + v) * n + q) * Fb + fl];  // (the thread's own values)
  }
  __syncthreads();

  // 2. The minus side's thread: the inviscid flux and the jump at the face point.
  if (active && side == 0) {
    State up{};
    if constexpr (!Boundary)
      for (int v = 0; v < NV; ++v) up[v] = s_t[((NV + v) * n + q) * Fb + fl];
    State jump;
    Real scale;
    const State value = b.point_flux(local, q, u, up, jump, scale);
    for (int v = 0; v < NV; ++v) {
      s_flux[(v * n + q) * Fb + fl] = value[v];
      s_jump[(v * n + q) * Fb + fl] = scale * jump[v];
      b.jump[(static_cast<index_t>(v) * n + q) * Fs + f] = scale * jump[v];
    }
  }
  __syncthreads();

  // 3. Theta_l on this side, its viscous flux (both sides lift w |N| n jump: on the plus side
  // H_aux - U_p and its normal -n both change sign).
  State value{};
  if (active) {
    Direction normal;
    Real measure;
    b.geometry_at(local, q, normal, measure);
    const Real* in = s_d + (side * n + q) * G * Fb + fl;
    const Real lift = k.eta * in[(G - 1) * Fb];
    State theta[dim];
    for (int d = 0; d < dim; ++d)
      for (int v = 0; v < NV; ++v) theta[d][v] = in[(d * NV + v) * Fb] + lift * normal[d] * s_jump[(v * n + q) * Fb + fl];
    value = br2_point_viscous_flux<Boundary, Physics>(b, k.out, local, f, q, n, side, u, theta, normal, measure, s_t + q * Fb + fl, n * Fb);
  }
  if constexpr (!Boundary) __syncthreads();
  if (active && side == 0) br2_store_face_flux<Boundary, Physics>(b, f, q, n, s_flux + q * Fb + fl, s_t + q * Fb + fl, n * Fb, value);
}

/// The fused element kernel (see the top of this file), blocks as element_factorised_kernel's
/// (factorised_block), threadIdx.x the element, threadIdx.y the line or point:
///   A. the bilinear Jacobians, the coefficients (at i + n j), the faces' w |N| jumps, unit normals,
///      fluxes and sides -> shared (the face values by cp.async, the fluxes waited for before P4);
///   P1. a thread per (element, variable, j): T(a, j) = sum_i L[a][i] c(i, j), dT with dL;
///   P2. a thread per (element, variable, a): U(a, b) = sum_j L[b][j] T(a, j), dU/deta with dL over T
///       (in T's place) and dU/dxi with L over dT (in dT's place: the thread's own line);
///   P3. a thread per point: Theta = grad U + the lifting of the four faces' jumps on its lines,
///       F(U) - Fv(U, Theta) in reference form (in the point's own column of the derivatives), 1 / det J;
///   P4, P5: element_factorised_kernel's (no viscous moments: the volume term took Fv).
/// At most 80 registers (three blocks of 256 threads an SM; the shared memory holds three at p = 2, 4,
/// more at p = 1, 3, whose blocks of 16 elements take 45 KB at p = 3 and of 32 elements 128 threads at p = 1).
template <class Physics, int P>
__global__ void __launch_bounds__(256, 3)
    element_br2_factorised_kernel(ElementKernel<Physics, Shape::quadrilateral, P, GeometryKind::curved> k, View<const typename Physics::real> jump,
                                  View<const typename Physics::real> normal_weight, FactorTables<typename Physics::real, P + 1> tb,
                                  const typename Physics::real* __restrict__ geometry, index_t first, index_t end) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  constexpr int n = P + 1, Np = n * n, NV = Physics::n_variables, dim = Physics::dim, NF = 4, Nfq = n;
  static_assert(dim == 2, "quadrilaterals");
  constexpr bool prefetch_update = P >= 4;
  const index_t Ks = k.Ks, Fs = k.Fs;
  const int E = blockDim.x, Y = blockDim.y, el = threadIdx.x, ty = threadIdx.y;
  extern __shared__ unsigned char shared_bytes[];
  Real* s_u = reinterpret_cast<Real*>(shared_bytes);  // c (i + n j); U (P2); P4's sums [(v Np + .) E + el]
  Real* s_t = s_u + NV * Np * E;                       // P1: T [(v Np + a + n j)], dT [(NV Np + ...)]; P2: dU/deta, dU/dxi;
                                                       // P3: the reference fluxes [((v dim + r) Np + kq) E + el]; P5a: Z
  Real* s_j = s_t + 2 * NV * Np * E;                   // [((l Nfq + point) NV + v) E + el]: w |N| jump
  Real* s_g = s_j + NF * Nfq * NV * E;                 // [((l Nfq + point) NV + v) E + el]: the face flux (minus side's normal)
  Real* s_n = s_g + NF * Nfq * NV * E;                 // [(l dim + d) E + el] unit normal, [(NF dim + l) E + el] side (+-1)
  Real* s_m = s_n + NF * (dim + 1) * E;                // P3: 1 / det J_k [kq E + el]
  Real* s_geo = s_m + Np * E;                          // the bilinear Jacobians [c E + el]
  const index_t e0 = first + static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(end - e0 < E ? end - e0 : E);
  const bool active = el < n_local;

  // A.
  copy_bilinear(geometry, Ks, e0, E, n_local, s_geo);
  detail::wait_for_previous_grid();
  for (int row = ty; row < NV * Np; row += Y) {
    const int v = row / Np, c = row % Np;
    if (active) device::copy_async(s_u + row * E + el, k.u.data + static_cast<index_t>(v * Np + quadrilateral_mode(c % n, c / n)) * Ks + e0 + el);
    else s_u[row * E + el] = Real(0);
  }
  if (active)
    for (int lq = ty; lq < NF * Nfq; lq += Y) {
      const int l = lq / Nfq, q = lq % Nfq;
      const index_t code = k.codes[l * Ks + e0 + el];
      const index_t f = code_face(code);
      const int point = code_own_point(code, k.permutation, Nfq, q);
      for (int v = 0; v < NV; ++v)
        device::copy_async(s_j + ((l * Nfq + point) * NV + v) * E + el, jump.data + (static_cast<index_t>(v) * Nfq + q) * Fs + f);
      if (q == 0) {
        Real wn[dim], norm = 0;
        for (int d = 0; d < dim; ++d) {
          wn[d] = normal_weight[(static_cast<index_t>(d) * Nfq) * Fs + f];
          norm += wn[d] * wn[d];
        }
        const Real inverse_norm = Real(1) / sqrt(norm);
        for (int d = 0; d < dim; ++d) s_n[(l * dim + d) * E + el] = wn[d] * inverse_norm;
        s_n[(NF * dim + l) * E + el] = code_plus_side(code) ? Real(1) : Real(-1);  // the flux along the element's outward normal
      }
    }
  device::copy_async_commit();
  if (active)
    for (int lq = ty; lq < NF * Nfq; lq += Y) {
      const int l = lq / Nfq, q = lq % Nfq;
      const index_t code = k.codes[l * Ks + e0 + el];
      const int point = code_own_point(code, k.permutation, Nfq, q);
      for (int v = 0; v < NV; ++v)
        device::copy_async(s_g + ((l * Nfq + point) * NV + v) * E + el, k.flux.data + (static_cast<index_t>(v) * Nfq + q) * Fs + code_face(code));
    }
  device::copy_async_commit();
  device::copy_async_wait_prior();  // the coefficients and jumps (the fluxes may still be in flight)
  __syncthreads();

  // P1.
  if (active)
    for (int line = ty; line < NV * n; line += Y) {
      const int v = line / n, j = line % n;
      Real c[n];
      load_line(s_u + (v * Np + n * j) * E + el, E, c);
      line_pass<false>(tb.L, c, s_t + (v * Np + n * j) * E + el, E);
      line_pass<false>(tb.dL, c, s_t + (NV * Np + v * Np + n * j) * E + el, E);
    }
  __syncthreads();

  // P2 (the thread's line a: it reads T(a, .) and dT(a, .) whole before writing (a, .)).
  if (active)
    for (int line = ty; line < NV * n; line += Y) {
      const int v = line / n, a = line % n;
      Real t[n], dt[n];
      load_line(s_t + (v * Np + a) * E + el, n * E, t);
      load_line(s_t + (NV * Np + v * Np + a) * E + el, n * E, dt);
      line_pass<false>(tb.L, t, s_u + (v * Np + a) * E + el, n * E);
      line_pass<false>(tb.dL, t, s_t + (v * Np + a) * E + el, n * E);               // dU/deta
      line_pass<false>(tb.L, dt, s_t + (NV * Np + v * Np + a) * E + el, n * E);     // dU/dxi
    }
  __syncthreads();

  // P3: Theta_k = (m^T dU + sum_l c_l n_l (w |N| jump)_l) / (w_k det J_k), m = w_k adj J (bilinear_metric);
  // the faces' points on k = (a, b)'s lines: face 0 at a (c = edge[0][b]), 1 at b (edge[1][a]), 2 at
  // n - 1 - a (edge[1][b]), 3 at n - 1 - b (edge[0][a]).
  if (active) {
    for (int kq = ty; kq < Np; kq += Y) {
      const int a = kq % n, bb = kq / n;
      Real m[dim][dim], det;
      bilinear_metric(tb, s_geo + el, E, a, bb, m, det);
      const Real c[NF] = {table_at(tb.edge[0], bb), table_at(tb.edge[1], a), table_at(tb.edge[1], bb), table_at(tb.edge[0], a)};
      const int point[NF] = {a, bb, n - 1 - a, n - 1 - bb};
      const Real to_theta = Real(1) / (table_at(tb.w, a) * table_at(tb.w, bb) * det);
      State uk, theta[dim];
      for (int v = 0; v < NV; ++v) {
        uk[v] = s_u[(v * Np + kq) * E + el];
        const Real d_xi = s_t[(NV * Np + v * Np + kq) * E + el], d_eta = s_t[(v * Np + kq) * E + el];
        Real lifted[dim];
        for (int d = 0; d < dim; ++d) lifted[d] = m[0][d] * d_xi + m[1][d] * d_eta;
#pragma unroll
        for (int l = 0; l < NF; ++l) {
          const Real weighted = c[l] * s_j[((l * Nfq + point[l]) * NV + v) * E + el];
          for (int d = 0; d < dim; ++d) lifted[d] += weighted * s_n[(l * dim + d) * E + el];
        }
        for (int d = 0; d < dim; ++d) theta[d][v] = lifted[d] * to_theta;
      }
      State f[dim], fv[dim];
      k.physics.flux(uk, f);
      k.physics.viscous_flux(uk, theta, fv);
      for (int d = 0; d < dim; ++d)
        for (int v = 0; v < NV; ++v) f[d][v] -= fv[d][v];
      s_m[kq * E + el] = Real(1) / det;
      for (int v = 0; v < NV; ++v)
        for (int r = 0; r < dim; ++r) s_t[((v * dim + r) * Np + kq) * E + el] = reference_flux(m, f, r, v);
    }
  }
  device::copy_async_wait();  // the fluxes
  __syncthreads();

  // P4, P5 (element_factorised_kernel's): the faces' fluxes along the element's outward normal.
  const Real* s_side = s_n + NF * dim * E;
  const auto face = [&](int l, int point, int v) { return s_side[l * E + el] * s_g[((l * Nfq + point) * NV + v) * E + el]; };
  factorised_sums_and_update<Physics, n, prefetch_update>(k, tb, s_t, s_m, s_u, s_t, face, nullptr, e0, el, E, ty, Y, active);
}

template <class Physics, int P, bool Boundary, int MinBlocks, int Threads>
void launch_br2_factorised_face_shape(const Br2FactorisedFaceKernel<Physics, P, Boundary>& kernel, const SumFactorTables& tables, index_t count) {
  constexpr int n = P + 1, Fb = br2_block_faces(n, Boundary, Threads);
  const std::size_t shared = br2_factorised_face_shared_bytes<Physics>(n, Boundary, Threads);
  FLOWDG_ASSERT(shared <= block_shared_limit, "BR2 at the faces: the factorised face kernel's block needs ", shared, " bytes of shared memory");
  constexpr auto function = br2_factorised_face_kernel<Physics, P, Boundary, MinBlocks, Threads>;
  allow_block_shared_limit<function>();
  const auto blocks = static_cast<unsigned>((count + Fb - 1) / Fb);
  detail::launch(false, function, blocks, Threads, shared, kernel, factor_tables<typename Physics::real, n>(tables), count);
}

/// The face kernel in its shape (interior faces `shape`, DgOperator's br2_face_shape; boundary faces
/// 256 threads and br2_factorised_face_blocks).
template <class Physics, int P, bool Boundary>
void launch_br2_factorised_face_kernel(const Br2FactorisedFaceKernel<Physics, P, Boundary>& kernel, const SumFactorTables& tables, index_t count,
                                       Br2FaceShape shape) {
  if (count <= 0) return;
  FLOWDG_ASSERT(kernel.base.Nfq == P + 1 && kernel.geometry_m != nullptr && kernel.geometry_p != nullptr,
                "BR2 at the faces on quadrilaterals: faces of P + 1 points between bilinear groups (setup.hpp: SumFactorTables, bilinear_jacobians)");
  if constexpr (Boundary) {
    if constexpr (br2_factorised_face_blocks(P) == 2) launch_br2_factorised_face_shape<Physics, P, Boundary, 2, 256>(kernel, tables, count);
    else launch_br2_factorised_face_shape<Physics, P, Boundary, 3, 256>(kernel, tables, count);
  } else {
    with_br2_face_shape<P>(shape, [&]<int Threads, int Blocks>() {
      launch_br2_factorised_face_shape<Physics, P, Boundary, Blocks, Threads>(kernel, tables, count);
    });
  }
}

template <class Physics, int P>
void launch_element_br2_factorised_kernel(const ElementKernel<Physics, Shape::quadrilateral, P, GeometryKind::curved>& kernel,
                                          const LiftingFaceOutput<typename Physics::real>& out, const SumFactorTables& tables,
                                          const typename Physics::real* geometry, index_t first, index_t n_elements, FactorisedBlock block) {
  if (n_elements <= 0) return;
  const int E = block.E;
  FLOWDG_ASSERT(kernel.collocated && kernel.Nq == (P + 1) * (P + 1) && kernel.Nfq == P + 1 && geometry != nullptr && out.jump.size() > 0,
                "BR2 at the faces on quadrilaterals: collocated bilinear groups and the face kernel's jumps");
  const std::size_t shared = sizeof(typename Physics::real) * static_cast<std::size_t>(E) * static_cast<std::size_t>(br2_factorised_element_values<Physics>(P + 1));
  constexpr auto function = element_br2_factorised_kernel<Physics, P>;
  allow_block_shared_limit<function>();
  const auto blocks = static_cast<unsigned>((n_elements + E - 1) / E);
  detail::launch(false, function, dim3(blocks), factorised_threads(E, block.threads), shared, kernel, out.jump, out.normal_weight,
                 factor_tables<typename Physics::real, P + 1>(tables), geometry, first, first + n_elements);
}

}  // namespace flowdg::dg
