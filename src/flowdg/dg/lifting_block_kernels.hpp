#pragma once
// The BR2 lifting pass (lifting.hpp's LiftingElementKernel) as a CUDA block of E elements through
// shared memory, in phases, so that no thread holds an element's dim x NV x Np moments per face (the
// thread-per-element kernel holds about (NF + 3) dim NV Np values: 4 x 200 doubles for quadrilaterals
// at p = 4, spilled to local memory, on a few thousand threads when the mesh is small):
//   A. the block's coefficients -> shared (rows of E consecutive elements: coalesced);
//   B. a thread per (element, face point): wn_q (H_aux - U)_q, the lifting's integrand S, at the
//      element's own point order -> shared; curved groups also a thread per (element, volume point):
//      w_k det J_k grad U there -> shared;
//   C. affine (an orthonormal basis: M = det J I, so P grad U = grad U and the liftings are reference
//      sums over det J; A and B without a barrier between them): the volume lifting
//      (1 / det J) sum_lq C[k][lq] S_lq at every volume point (C = Phi_vol Phi_faces^T, lifting.hpp:
//      affine_lifting_point_tables), in 2D a thread per (element, four components, four points), in
//      3D a thread per (element, gradient component t = d NV + v) eight points at a time;
//      curved: a thread per (element, mode) stores the moment columns g + sum_l l_l and g, then a
//      thread per (element, row) multiplies both by the inverse mass matrix in place (Theta and
//      P grad U), whose values at the points are taken in D, with eta r_l at face l's points from
//      the face's lifting matrix (lifting.hpp) and the integrand kept from B; collocated curved
//      groups (Nq = Np, M^-1 = V^T diag(w / det J) V, a sparse C: the kernel's Collocated variant)
//      through the points: a thread per (element, component) as below;
//   D. a thread per (element, face point): the element's trace and face gradient there (affine:
//      grad U from the coefficients + eta r_l through the reference face lifting matrix), to the
//      face's output (store_lifting_face_point: the boundary gradient or the side's half of the
//      centred viscous flux); a thread per (element, volume point): U and Theta there (affine: grad U
//      from the coefficients + C's lifting), the viscous flux in reference form -> shared (over the
//      column it read); on 2D affine groups both in one loop (whole rounds of the block's threads);
//   E. a thread per (element, mode), two modes on 2D affine groups: the volume term's moments ->
//      viscous_rhs (on affine groups before the block element kernel with the inviscid volume term
//      too: ElementKernel::volume_in_rhs).
// The 2D affine mappings of C, D and E: +6.3 / +14.1 / +6.9% at p = 2 / 3 / 4 on 798,848 triangles
// (Navier-Stokes, H100, session 33; docs/performance.md).
// The sums are LiftingElementKernel's in another order (rounding-level differences; the GPU test
// compares both with the CPU). CUDA only: included by dg_operator.hpp under __CUDACC__.
#include "flowdg/backend/tensor_core.hpp"
#include "flowdg/dg/core_block_kernels.hpp"
#include "flowdg/dg/lifting.hpp"


namespace flowdg::dg {

/// Affine groups: U and its reference gradient at a point from the block's shared coefficients
/// s[(v Np + j) E + el], phi and dphi ([r Np + j]) the basis values and derivatives there; one shared
/// load per coefficient for the value and every direction. U's sums are shared_trace's. With
/// Value = false the gradient alone (phi and u unused: BR2 at the faces' flux phase).
template <class Physics, int Np, bool Value = true>
__device__ FLOWDG_FORCEINLINE void shared_trace_gradient(const typename Physics::real* s, int E, int el, const typename Physics::real* phi,
                                                         const typename Physics::real* dphi, typename Physics::State& u,
                                                         typename Physics::State (&du)[Physics::dim]) {
  using Real = typename Physics::real;
  constexpr int NV = Physics::n_variables, dim = Physics::dim;
  Real sum[NV] = {}, derivative[dim][NV] = {};
#pragma unroll
  for (int j = 0; j < Np; ++j) {
    Real dvalue[dim];
    for (int r = 0; r < dim; ++r) dvalue[r] = dphi[r * Np + j];
    for (int v = 0; v < NV; ++v) {
      const Real c = s[(v * Np + j) * E + el];
      if constexpr (Value) sum[v] += c * phi[j];
      for (int r = 0; r < dim; ++r) derivative[r][v] += c * dvalue[r];
    }
  }
  for (int v = 0; v < NV; ++v) {
    if constexpr (Value) u[v] = sum[v];
    for (int r = 0; r < dim; ++r) du[r][v] = derivative[r][v];
  }
}

/// Affine groups: element e's metric, a[r][d] = det J dr_r/dx_d, and 1 / det J.
template <class Kernel, class Real, int dim>
__device__ FLOWDG_FORCEINLINE void affine_metric(const Kernel& b, index_t e, Real (&a)[dim][dim], Real& inverse_det) {
  for (int r = 0; r < dim; ++r)
    for (int d = 0; d < dim; ++d) a[r][d] = b.metric[(r * dim + d) * b.Ks + e];
  inverse_det = b.metric[dim * dim * b.Ks + e];
}

/// Affine groups: theta[d][v] = grad U + lift, grad U = (1 / det J) sum_r (det J dr_r/dx_d) dU/dr_r
/// (a: the element's affine metric, a[r][d] = det J dr_r/dx_d).
template <class Physics>
__device__ FLOWDG_FORCEINLINE void affine_gradient(const typename Physics::real (&a)[Physics::dim][Physics::dim],
                                                   typename Physics::real inverse_det, const typename Physics::State (&du)[Physics::dim],
                                                   typename Physics::State (&theta)[Physics::dim]) {
  using Real = typename Physics::real;
  for (int d = 0; d < Physics::dim; ++d)
    for (int v = 0; v < Physics::n_variables; ++v) {
      Real sum = 0;
      for (int r = 0; r < Physics::dim; ++r) sum += a[r][d] * du[r][v];
      theta[d][v] = inverse_det * sum;
    }
}

/// Collocated: the variant for collocated curved groups with a sparse C (quadrilaterals; k.lines > 0),
/// a kernel of its own so that the other groups' registers do not pay for its path. From p = 4 two
/// blocks per SM (at most 128 registers a thread, the shared memory carved out to the largest
/// share): one block of 168 registers held an SM alone, and two made the run 22% faster at p = 4
/// (640,000 quadrilaterals, H200, session 29); at p = 3 it changed nothing (-0.5%) and at p = 2 it
/// lost 16% (the smaller L1 for the tables), so below p = 4 the kernel keeps its own.
/// Blocks an SM the kernel's registers allow (its launch bound). Affine 2D groups: three to p = 3
/// (80 registers without spills; the shared memory of 32 triangles at p = 3 allows three), two
/// from p = 4 (their shared memory allows two).
/// The fused kernel (BR2 at the faces): three in 2D at every order (32 triangles and the tables at
/// p = 4 take 75 KB; 80 registers with a few bytes of spills, 20% faster than two blocks of 126
/// registers with session 35's layout).
template <int dim, int P, GeometryKind G, bool Collocated, bool Fused = false>
constexpr int lifting_block_min_blocks() {
  if constexpr (G == GeometryKind::affine) return dim == 2 ? (P <= 3 || Fused ? 3 : 2) : 1;
  else return (Collocated && P >= 4) ? 2 : 1;
}

/// Fused (BR2 at the faces, br2_face_kernels.hpp; affine groups): the face kernel has left each
/// face's whole flux (inviscid and viscous) and the jump; the kernel takes the volume lifting and the
/// volume term as below, and instead of storing the volume term's moments and the face halves (D's
/// face points) it adds the faces' sums, times 1 / det J, and applies the Runge-Kutta update
/// (the element kernel's last phase). Elements [first, end) of the group.
/// Fused, its shared memory (lifting_block_values_per_element, fused_lifting_table_values; session 36):
///   - the face points hold the face kernel's jumps times w |N| (NV values) and each face its unit
///     normal n (affine faces: one a face), so that C sums C[k][lq] (w |N| jump_v)(lq) face by face
///     and multiplies by n_d once a face (NV products a point and face point instead of dim NV);
///     after C the faces' fluxes take the jumps' place and each face's side (+-1) the normal's;
///   - the reference tables (C, the basis and its derivatives at the volume points, the basis at the
///     face points, the volume weights) once a block in shared memory: a warp's table reads are
///     broadcasts from there, not L1 loads (L1 is small beside three blocks' shared memory);
///   - the coefficients, the jumps, the tables and the fluxes arrive by cp.async (the fluxes while
///     D runs): no thread waits on one load before it issues the next;
///   - the update takes U from shared memory (StageUpdate::apply_from).
/// Against session 35's layout (the integrand dim NV a point, the fluxes beside it, the tables from
/// L1): +6 / +13 / +20% at p = 2 / 3 / 4 on 798,848 triangles (docs/performance.md).
template <class Physics, Shape S, int P, GeometryKind G, bool Collocated = false, bool Fused = false>
__global__ void __launch_bounds__(256, (lifting_block_min_blocks<Physics::dim, P, G, Collocated, Fused>())) lifting_block_kernel(LiftingElementKernel<Physics, S, P, G> k, index_t first, index_t end, int E) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  constexpr int dim = Physics::dim, NV = Physics::n_variables, Np = n_basis(S, P), NF = n_faces(S);
  constexpr int T = dim * NV;  // gradient components, t = d NV + v
  constexpr bool affine = G == GeometryKind::affine;
  // 2D affine groups (measured there, session 33): C four components by four points a thread, D one
  // loop over the face and the volume points, E two modes a thread (below).
  constexpr bool blocked = affine && dim == 2 && T % 4 == 0;
  const ElementKernel<Physics, S, P, G>& b = k.base;
  const int Nq = b.Nq, Nfq = b.Nfq;
  const index_t Ks = b.Ks, Fs = b.Fs;
  extern __shared__ unsigned char shared_bytes[];
  Real* s_u = reinterpret_cast<Real*>(shared_bytes);  // [(v Np + j) E + el]
  Real* s_w = s_u + NV * Np * E;  // B: w det J grad U, C: Theta (affine: the volume lifting) [(t Nq + k) E + el];
                                  // D: [((v dim + r) Nq + k) E + el]
  Real* s_j = s_w + T * Nq * E;   // B: wn jump, C (collocated): the face gradient [((l Nfq + point) T + t) E + el]
  Real* s_m = s_j + NF * Nfq * T * E;  // curved: [(c Np + i) E + el], c = t: Theta; c = T + t: P grad U
                                       // collocated: the point factors w_k / det J_k [k E + el]
  // Fused: s_j [((l Nfq + point) NV + v) E + el] w |N| jump_v, then [(NF Nfq NV + l dim + d) E + el]
  // n_d; after C the faces' fluxes s_g and [(NF Nfq NV + l) E + el] the face's side; the tables after s_j.
  if constexpr (Fused) s_m = s_j + (NF * Nfq * NV + NF * dim) * E;
  Real* s_g = s_j;
  Real* s_side = s_j + NF * Nfq * NV * E;
  static_assert(!Fused || affine, "BR2 at the faces runs affine groups");
  const index_t e0 = first + static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(end - e0 < E ? end - e0 : E);
  // The reference tables: fused, in shared memory (fused_lifting_table_values) after the elements' values.
  const int NFq = NF * Nfq, Nq8 = affine_lifting_rows(Nq);
  const Real* t_c = Fused ? s_m : k.point_tables.data;                      // C [lq Nq8 + k]
  const Real* t_phi = Fused ? t_c + NFq * Nq8 : b.volume_phi.data;           // [k Np + j]
  const Real* t_dphi = Fused ? t_phi + Nq * Np : b.volume_dphi.data;         // [(k dim + r) Np + j]
  const Real* t_face_phi = Fused ? t_dphi + Nq * dim * Np : b.face_phi.data;  // [lq Np + j]
  const Real* t_weight = Fused ? t_face_phi + NFq * Np : b.volume_weight.data;  // [k]
  detail::wait_for_previous_grid();

  // A, and B's face integrand S (it reads the face arrays only: no barrier between them); curved
  // groups also w det J grad U at the volume points, after a barrier.
  if constexpr (Fused) {
    for (int i = threadIdx.x; i < NV * Np * E; i += blockDim.x) {
      const int el = i % E, row = i / E;
      if (el < n_local) device::copy_async(s_u + i, b.u.data + static_cast<index_t>(row) * Ks + e0 + el);
      else s_u[i] = Real(0);
    }
    Real* tables = s_m;
    for (int i = threadIdx.x; i < NFq * Nq8; i += blockDim.x) device::copy_async(tables + i, k.point_tables.data + i);
    tables += NFq * Nq8;
    for (int i = threadIdx.x; i < Nq * Np; i += blockDim.x) device::copy_async(tables + i, b.volume_phi.data + i);
    tables += Nq * Np;
    for (int i = threadIdx.x; i < Nq * dim * Np; i += blockDim.x) device::copy_async(tables + i, b.volume_dphi.data + i);
    tables += Nq * dim * Np;
    for (int i = threadIdx.x; i < NFq * Np; i += blockDim.x) device::copy_async(tables + i, b.face_phi.data + i);
    tables += NFq * Np;
    for (int i = threadIdx.x; i < Nq; i += blockDim.x) device::copy_async(tables + i, b.volume_weight.data + i);
  } else {
    for (int i = threadIdx.x; i < NV * Np * E; i += blockDim.x) {
      const int el = i % E, row = i / E;
      s_u[i] = el < n_local ? b.u[static_cast<index_t>(row) * Ks + e0 + el] : Real(0);
    }
  }
  if constexpr (Collocated)
    for (int i = threadIdx.x; i < Nq * E; i += blockDim.x) {
      const int el = i % E, kq = i / E;
      s_m[i] = el < n_local ? b.point_mass_factor(kq, e0 + el) : Real(0);
    }
  for (int i = threadIdx.x; i < NF * Nfq * E; i += blockDim.x) {
    const int el = i % E, lq = i / E, l = lq / Nfq, q = lq % Nfq;
    if (el >= n_local) continue;
    const index_t code = b.codes[l * Ks + e0 + el];
    const int point = code_own_point(code, b.permutation, Nfq, q);
    if constexpr (Fused) {
      // The face kernel's jumps times w |N|, and the face's unit normal n (the minus side's: both
      // sides lift w |N| n jump, lifting.hpp).
      const index_t f = code_face(code);
      for (int v = 0; v < NV; ++v)
        device::copy_async(s_j + ((l * Nfq + point) * NV + v) * E + el, k.out.jump.data + (static_cast<index_t>(v) * Nfq + q) * Fs + f);
      if (q == 0) {
        Real wn[dim], norm = 0;
        for (int d = 0; d < dim; ++d) {
          wn[d] = k.out.normal_weight[(static_cast<index_t>(d) * Nfq) * Fs + f];
          norm += wn[d] * wn[d];
        }
        const Real inverse_norm = Real(1) / sqrt(norm);
        for (int d = 0; d < dim; ++d) s_j[(NFq * NV + l * dim + d) * E + el] = wn[d] * inverse_norm;
      }
      continue;
    }
    k.out.template face_integrand<NV, dim>(Nfq, Fs, code_face(code), q, s_j + (l * Nfq + point) * T * E + el, E);
  }
  if constexpr (Fused) {
    device::copy_async_commit();
    device::copy_async_wait();
  }
  if constexpr (!affine) {
    __syncthreads();
    for (int i = threadIdx.x; i < Nq * E; i += blockDim.x) {
      const int el = i % E, kq = i / E;
      if (el >= n_local) continue;
      const index_t e = e0 + el;
      Real m[dim][dim];
      b.weighted_metric(kq, e, b.metric.data + e, Ks, m);
      for (int v = 0; v < NV; ++v) {
        Real du[dim];
        for (int r = 0; r < dim; ++r) du[r] = 0;
#pragma unroll
        for (int j = 0; j < Np; ++j) {
          const Real c = s_u[(v * Np + j) * E + el];  // one shared load for every direction
          for (int r = 0; r < dim; ++r) du[r] += c * b.volume_dphi[(kq * dim + r) * Np + j];
        }
        for (int d = 0; d < dim; ++d) {
          Real value = 0;
          for (int r = 0; r < dim; ++r) value += m[r][d] * du[r];
          s_w[((d * NV + v) * Nq + kq) * E + el] = value;
        }
      }
    }
  }
  __syncthreads();

  if constexpr (affine) {
    // C (affine): a thread per (element, component t): the volume lifting at the points,
    // (1 / det J) sum_lq C[k][lq] S_lq, eight points at a time (each S read once per eight).
    if constexpr (Fused) {
      // Four points by J variables a thread: face by face the sums a = sum_q C[k][lq] (w |N| jump)(lq),
      // then Theta's lifting += n_d a (the face's normal is one a face).
      constexpr int K = 4, J = NV % 2 == 0 ? 2 : 1;
      const int nK = (Nq + K - 1) / K;
      for (int i = threadIdx.x; i < nK * (NV / J) * E; i += blockDim.x) {
        const int el = i % E, rest = i / E, k0 = (rest % nK) * K, v0 = (rest / nK) * J;
        if (el >= n_local) continue;
        const Real inverse_det = b.metric[dim * dim * Ks + e0 + el];
        Real lift[dim][J][K] = {};
        for (int l = 0; l < NF; ++l) {
          Real a[J][K] = {};
          for (int q = 0; q < Nfq; ++q) {
            const int lq = l * Nfq + q;
            Real value[J], c[K];
#pragma unroll
            for (int j = 0; j < J; ++j) value[j] = s_j[(lq * NV + v0 + j) * E + el];
#pragma unroll
            for (int m = 0; m < K; ++m) c[m] = t_c[lq * Nq8 + k0 + m];
#pragma unroll
            for (int j = 0; j < J; ++j)
#pragma unroll
              for (int m = 0; m < K; ++m) a[j][m] += c[m] * value[j];
          }
#pragma unroll
          for (int d = 0; d < dim; ++d) {
            const Real n = s_j[(NFq * NV + l * dim + d) * E + el];
#pragma unroll
            for (int j = 0; j < J; ++j)
#pragma unroll
              for (int m = 0; m < K; ++m) lift[d][j][m] += n * a[j][m];
          }
        }
#pragma unroll
        for (int d = 0; d < dim; ++d)
#pragma unroll
          for (int j = 0; j < J; ++j)
#pragma unroll
            for (int m = 0; m < K; ++m)
              if (k0 + m < Nq) s_w[((d * NV + v0 + j) * Nq + k0 + m) * E + el] = inverse_det * lift[d][j][m];
      }
    } else if constexpr (blocked) {
      // Four components by four points a thread: each S and each table entry read once for four
      // products (a thread per component read every table entry once per component).
      constexpr int K = 4, J = 4;
      const int nK = (Nq + K - 1) / K;
      for (int i = threadIdx.x; i < nK * (T / J) * E; i += blockDim.x) {
        const int el = i % E, rest = i / E, k0 = (rest % nK) * K, t0 = (rest / nK) * J;
        if (el >= n_local) continue;
        const Real inverse_det = b.metric[dim * dim * Ks + e0 + el];
        Real sum[J][K] = {};
        for (int lq = 0; lq < NFq; ++lq) {
          Real value[J], c[K];
#pragma unroll
          for (int j = 0; j < J; ++j) value[j] = s_j[(lq * T + t0 + j) * E + el];
#pragma unroll
          for (int m = 0; m < K; ++m) c[m] = k.point_tables.data[lq * Nq8 + k0 + m];
#pragma unroll
          for (int j = 0; j < J; ++j)
#pragma unroll
            for (int m = 0; m < K; ++m) sum[j][m] += c[m] * value[j];
        }
#pragma unroll
        for (int j = 0; j < J; ++j)
#pragma unroll
          for (int m = 0; m < K; ++m)
            if (k0 + m < Nq) s_w[((t0 + j) * Nq + k0 + m) * E + el] = inverse_det * sum[j][m];
      }
    } else
    for (int i = threadIdx.x; i < T * E; i += blockDim.x) {
      const int el = i % E, t = i / E;
      if (el >= n_local) continue;
      const Real inverse_det = b.metric[dim * dim * Ks + e0 + el];
      const Real* face = s_j + t * E + el;  // face[lq T E]
      Real* w = s_w + t * Nq * E + el;      // w[kq E]
      for (int k0 = 0; k0 < Nq; k0 += 8) {
        Real sum[8] = {};
        for (int lq = 0; lq < NFq; ++lq) {
          const Real value = face[lq * T * E];
          const Real* c = k.point_tables.data + lq * Nq8 + k0;
#pragma unroll
          for (int m = 0; m < 8; ++m) sum[m] += c[m] * value;
        }
#pragma unroll
        for (int m = 0; m < 8; ++m)
          if (k0 + m < Nq) w[(k0 + m) * E] = inverse_det * sum[m];
      }
    }
    __syncthreads();
    if constexpr (Fused) {  // the faces' whole fluxes where C's jumps were, while D runs (D does not read them)
      for (int i = threadIdx.x; i < NF * Nfq * E; i += blockDim.x) {
        const int el = i % E, lq = i / E, l = lq / Nfq, q = lq % Nfq;
        if (el >= n_local) continue;
        const index_t code = b.codes[l * Ks + e0 + el];
        const int point = code_own_point(code, b.permutation, Nfq, q);
        for (int v = 0; v < NV; ++v)
          device::copy_async(s_g + ((l * Nfq + point) * NV + v) * E + el, b.flux.data + (static_cast<index_t>(v) * Nfq + q) * Fs + code_face(code));
        if (q == 0) s_side[l * E + el] = code_plus_side(code) ? Real(1) : Real(-1);  // the flux along the element's outward normal
      }
      device::copy_async_commit();
    }
    // D (affine): U and grad U at each point from the coefficients; at face points + eta r_l through
    // the reference face lifting matrix (S as B left it), at volume points + C's lifting.
    const Real* face_dphi = k.point_tables.data + NFq * Nq8;  // [(lq dim + r) Np + j]
    const auto face_point = [&](int el, int lq) {
      const int l = lq / Nfq, q = lq % Nfq;
      const index_t e = e0 + el;
      const index_t code = b.codes[l * Ks + e];
      const index_t f = code_face(code);
      const bool plus = code_plus_side(code);
      const int point = code_own_point(code, b.permutation, Nfq, q);
      const index_t own = static_cast<index_t>(l) * Nfq + point;
      const Real* phi = &b.face_phi[own * Np];
      Real a[dim][dim], inverse_det;
      affine_metric(b, e, a, inverse_det);
      State u, du[dim], theta[dim];
      shared_trace_gradient<Physics, Np>(s_u, E, el, phi, face_dphi + own * dim * Np, u, du);
      affine_gradient<Physics>(a, inverse_det, du, theta);
      for (int other = 0; other < Nfq; ++other) {
        const Real c = k.eta * k.face_lifting_entry(l, point, other, e, inverse_det);
        const Real* integrand = s_j + ((l * Nfq + other) * T) * E + el;
        for (int d = 0; d < dim; ++d)
          for (int v = 0; v < NV; ++v) theta[d][v] += c * integrand[(d * NV + v) * E];
      }
      store_lifting_face_point(point_physics(element_physics(b.physics, k.viscosity, e), k.viscosity, e, phi), k.out, Nfq, Fs, f, plus, q,
                               u, theta);
    };
    const auto volume_point = [&](int el, int kq) {
      const index_t e = e0 + el;
      const Real* phi = t_phi + kq * Np;
      Real a[dim][dim], inverse_det;
      affine_metric(b, e, a, inverse_det);
      State uk, du[dim], theta[dim];
      shared_trace_gradient<Physics, Np>(s_u, E, el, phi, t_dphi + kq * dim * Np, uk, du);
      affine_gradient<Physics>(a, inverse_det, du, theta);
      for (int d = 0; d < dim; ++d)
        for (int v = 0; v < NV; ++v) theta[d][v] += s_w[((d * NV + v) * Nq + kq) * E + el];
      State fv[dim];
      point_physics(element_physics(b.physics, k.viscosity, e), k.viscosity, e, phi).viscous_flux(uk, theta, fv);
      if (Fused || b.volume_in_rhs) {  // the element kernel's inviscid volume term too: E takes F_v - F
        State f[dim];
        b.physics.flux(uk, f);
        for (int d = 0; d < dim; ++d)
          for (int v = 0; v < NV; ++v) fv[d][v] -= f[d][v];
      }
      Real m[dim][dim];  // ElementKernel::weighted_metric's
      for (int r = 0; r < dim; ++r)
        for (int d = 0; d < dim; ++d) m[r][d] = t_weight[kq] * a[r][d];
      for (int v = 0; v < NV; ++v)
        for (int r = 0; r < dim; ++r) s_w[((v * dim + r) * Nq + kq) * E + el] = reference_flux(m, fv, r, v);  // the column kq this thread alone reads
    };
    // Fused: the face kernel took the face points.
    constexpr bool faces_here = !Fused;
    if constexpr (blocked) {  // one loop over the face and the volume points: whole rounds of the block
      const int face_items = faces_here ? NFq : 0;
      for (int i = threadIdx.x; i < (face_items + Nq) * E; i += blockDim.x) {
        const int el = i % E, item = i / E;
        if (el >= n_local) continue;
        if (item < face_items) face_point(el, item);
        else volume_point(el, item - face_items);
      }
    } else {
      if constexpr (faces_here)
        for (int i = threadIdx.x; i < NFq * E; i += blockDim.x)
          if (i % E < n_local) face_point(i % E, i / E);
      for (int i = threadIdx.x; i < Nq * E; i += blockDim.x)
        if (i % E < n_local) volume_point(i % E, i / E);
    }
    if constexpr (Fused) device::copy_async_wait();  // the fluxes
    __syncthreads();
  } else {
    // C.
    if constexpr (Collocated) {
      // C (collocated with a sparse C = V Phi_faces^T: quadrilaterals at their Gauss points, setup.hpp:
      // collocated_lifting_lines), a thread per (element, component t): z_k = w_k grad U_k in place;
      // the volume lifting's w_k R_k = D_k sum_l C[k][l b_l(k)] S_l b_l(k) (one face point per face,
      // registers); the face gradient in place of S (BR2's face lifting is diagonal there):
      // sum_m C[k_m][l a] z_k_m + eta S_la sum_m C[k_m][l a]^2 D_k_m over the line k_m of point l a;
      // then Theta_k = (z_k + w_k R_k) / w_k (C's other entries are zeros; with a dense C, the thread
      // kernel's face_lifting_entry).
      const int NL = k.lines;
      const Real* line_c = k.face_lifting.data + Nq * NFq;  // [lq NL + m]
      const Real* cross_c = line_c + NFq * NL;              // [kq NF + l]
      const int* line_k = k.lifting_lines.data;             // [lq NL + m]
      const int* cross_b = line_k + NFq * NL;               // [kq NF + l], -1: none
      for (int i = threadIdx.x; i < T * E; i += blockDim.x) {
        const int el = i % E, t = i / E;
        if (el >= n_local) continue;
        Real* w = s_w + t * Nq * E + el;    // this thread's row: w[kq E]
        const Real* factor = s_m + el;      // factor[kq E]
        Real* jumps = s_j + t * E + el;     // this thread's face values: jumps[lq T E]
        Real lifted[Np];
  #pragma unroll
        for (int kq = 0; kq < Np; ++kq) {
          w[kq * E] = w[kq * E] * factor[kq * E] / b.volume_weight[kq];
          Real sum = 0;
          for (int l = 0; l < NF; ++l) {
            const int point = cross_b[kq * NF + l];
            if (point >= 0) sum += cross_c[kq * NF + l] * jumps[(l * Nfq + point) * T * E];
          }
          lifted[kq] = factor[kq * E] * sum;
        }
        for (int lq = 0; lq < NFq; ++lq) {
          Real gradient = 0, diagonal = 0;
          for (int m = 0; m < NL; ++m) {
            const int kq = line_k[lq * NL + m];
            const Real c = line_c[lq * NL + m];
            gradient += c * w[kq * E];
            diagonal += c * c * factor[kq * E];
          }
          jumps[lq * T * E] = gradient + k.eta * diagonal * jumps[lq * T * E];
        }
  #pragma unroll
        for (int kq = 0; kq < Np; ++kq) w[kq * E] = (w[kq * E] + lifted[kq]) / b.volume_weight[kq];
      }
      __syncthreads();
    } else {
      for (int i = threadIdx.x; i < Np * E; i += blockDim.x) {
        const int el = i % E, mode = i / E;
        if (el >= n_local) continue;
        Real g[T], sum[T];
        for (int t = 0; t < T; ++t) {
          g[t] = 0;
          sum[t] = 0;
        }
        for (int kq = 0; kq < Nq; ++kq) {
          const Real phi = b.volume_phi[kq * Np + mode];
          for (int t = 0; t < T; ++t) g[t] += phi * s_w[(t * Nq + kq) * E + el];
        }
        for (int lq = 0; lq < NF * Nfq; ++lq) {
          const Real phi = b.face_phi[lq * Np + mode];
          for (int t = 0; t < T; ++t) sum[t] += phi * s_j[(lq * T + t) * E + el];
        }
        for (int t = 0; t < T; ++t) {
          s_m[(t * Np + mode) * E + el] = g[t] + sum[t];
          s_m[((T + t) * Np + mode) * E + el] = g[t];
        }
      }
      __syncthreads();
      // C': the inverse mass matrix on the 2T columns, a row per thread, the rows of whole elements in
      // one round (each matrix entry read once), in place between two barriers.
      const int per_round = static_cast<int>(blockDim.x) / Np;
      const int el_in_round = static_cast<int>(threadIdx.x) % per_round, row = static_cast<int>(threadIdx.x) / per_round;
      for (int first = 0; first < E; first += per_round) {
        const int el = first + el_in_round;
        const bool active = row < Np && el < n_local;
        Real y[2 * T];
        if (active) {
          const index_t e = e0 + el;
  #pragma unroll
          for (int c = 0; c < 2 * T; ++c) y[c] = 0;
          for (int j = 0; j < Np; ++j) {
            const Real m = b.inverse_mass[(static_cast<index_t>(row) * Np + j) * Ks + e];
  #pragma unroll
            for (int c = 0; c < 2 * T; ++c) y[c] += m * s_m[(c * Np + j) * E + el];
          }
        }
        __syncthreads();
        if (active)
  #pragma unroll
          for (int c = 0; c < 2 * T; ++c) s_m[(c * Np + row) * E + el] = y[c];
        __syncthreads();
      }
    }

    // D.
    for (int i = threadIdx.x; i < NF * Nfq * E; i += blockDim.x) {
      const int el = i % E, lq = i / E, l = lq / Nfq, q = lq % Nfq;
      if (el >= n_local) continue;
      const index_t code = b.codes[l * Ks + e0 + el];
      const index_t f = code_face(code);
      const bool plus = code_plus_side(code);
      const int point = code_own_point(code, b.permutation, Nfq, q);
      const Real* phi = &b.face_phi[(static_cast<index_t>(l) * Nfq + point) * Np];
      const State u = shared_trace<Physics, Np>(s_u, E, el, phi);
      State theta[dim];
      for (int d = 0; d < dim; ++d)
        for (int v = 0; v < NV; ++v) {
          if constexpr (Collocated) {
            theta[d][v] = s_j[((l * Nfq + point) * T + d * NV + v) * E + el];
          } else {
            const Real* column = s_m + (T + d * NV + v) * Np * E;  // P grad U
            Real sum = 0;
  #pragma unroll
            for (int j = 0; j < Np; ++j) sum += column[j * E + el] * phi[j];
            theta[d][v] = sum;
          }
        }
      if constexpr (!Collocated) {  // + eta r_l, through the face's lifting matrix
        for (int other = 0; other < Nfq; ++other) {
          const Real a = k.eta * k.face_lifting_entry(l, point, other, e0 + el, Real(0));
          const Real* integrand = s_j + ((l * Nfq + other) * T) * E + el;
          for (int d = 0; d < dim; ++d)
            for (int v = 0; v < NV; ++v) theta[d][v] += a * integrand[(d * NV + v) * E];
        }
      }
      store_lifting_face_point(point_physics(element_physics(b.physics, k.viscosity, e0 + el), k.viscosity, e0 + el, phi), k.out, Nfq, Fs, f,
                               plus, q, u, theta);
    }
    for (int i = threadIdx.x; i < Nq * E; i += blockDim.x) {
      const int el = i % E, kq = i / E;
      if (el >= n_local) continue;
      const index_t e = e0 + el;
      const Real* phi = &b.volume_phi[kq * Np];
      const State uk = shared_trace<Physics, Np>(s_u, E, el, phi);
      State theta[dim];
      for (int d = 0; d < dim; ++d)
        for (int v = 0; v < NV; ++v) {
          if constexpr (Collocated) {
            theta[d][v] = s_w[((d * NV + v) * Nq + kq) * E + el];
          } else {
            const Real* column = s_m + (d * NV + v) * Np * E;
            Real sum = 0;
  #pragma unroll
            for (int j = 0; j < Np; ++j) sum += column[j * E + el] * phi[j];
            theta[d][v] = sum;
          }
        }
      State fv[dim];
      point_physics(element_physics(b.physics, k.viscosity, e), k.viscosity, e, phi).viscous_flux(uk, theta, fv);
      Real m[dim][dim];
      b.weighted_metric(kq, e, b.metric.data + e, Ks, m);
      for (int v = 0; v < NV; ++v)
        for (int r = 0; r < dim; ++r) s_w[((v * dim + r) * Nq + kq) * E + el] = reference_flux(m, fv, r, v);  // the column kq this thread alone reads
    }
    __syncthreads();

  }

  // E.
  if constexpr (blocked) {  // two modes a thread: each flux value read once for both
    constexpr int JM = 2, nJ = (Np + JM - 1) / JM;
    for (int i = threadIdx.x; i < nJ * E; i += blockDim.x) {
      const int el = i % E, j0 = (i / E) * JM;
      if (el >= n_local) continue;
      const int j1 = j0 + 1 < Np ? j0 + 1 : j0;  // an odd Np: the last thread's second mode repeats its first
      Real rhs[JM][NV] = {};
      for (int kq = 0; kq < Nq; ++kq) {
        Real dphi[JM][dim];
        for (int r = 0; r < dim; ++r) {
          dphi[0][r] = t_dphi[(kq * dim + r) * Np + j0];
          dphi[1][r] = t_dphi[(kq * dim + r) * Np + j1];
        }
        for (int v = 0; v < NV; ++v)
          for (int r = 0; r < dim; ++r) {
            const Real flux = s_w[((v * dim + r) * Nq + kq) * E + el];
            for (int m = 0; m < JM; ++m) rhs[m][v] -= flux * dphi[m][r];
          }
      }
      if constexpr (Fused) {
        for (int l = 0; l < NF; ++l) {
          Real face[JM][NV] = {};
          for (int q = 0; q < Nfq; ++q) {
            const int lp = l * Nfq + q;
            const Real phi0 = t_face_phi[lp * Np + j0], phi1 = t_face_phi[lp * Np + j1];
            for (int v = 0; v < NV; ++v) {
              const Real g = s_g[(lp * NV + v) * E + el];
              face[0][v] += g * phi0;
              face[1][v] += g * phi1;
            }
          }
          const Real side = s_side[l * E + el];
          for (int m = 0; m < JM; ++m)
            for (int v = 0; v < NV; ++v) rhs[m][v] += side * face[m][v];
        }
        const index_t e = e0 + el;
        const Real inverse_det = b.metric[dim * dim * Ks + e];
        for (int v = 0; v < NV; ++v)
          b.update.apply_from(b.u, (static_cast<index_t>(v) * Np + j0) * Ks + e, inverse_det * rhs[0][v], s_u[(v * Np + j0) * E + el]);
        if (j1 != j0)
          for (int v = 0; v < NV; ++v)
            b.update.apply_from(b.u, (static_cast<index_t>(v) * Np + j1) * Ks + e, inverse_det * rhs[1][v], s_u[(v * Np + j1) * E + el]);
      } else {
        for (int v = 0; v < NV; ++v) {
          k.viscous_rhs[(static_cast<index_t>(v) * Np + j0) * Ks + e0 + el] = rhs[0][v];
          if (j1 != j0) k.viscous_rhs[(static_cast<index_t>(v) * Np + j1) * Ks + e0 + el] = rhs[1][v];
        }
      }
    }
  } else
  for (int i = threadIdx.x; i < Np * E; i += blockDim.x) {
    const int el = i % E, j = i / E;
    if (el >= n_local) continue;
    Real rhs[NV];
    for (int v = 0; v < NV; ++v) rhs[v] = 0;
    for (int kq = 0; kq < Nq; ++kq)
      for (int v = 0; v < NV; ++v) {
        Real sum = 0;
        for (int r = 0; r < dim; ++r) sum += s_w[((v * dim + r) * Nq + kq) * E + el] * t_dphi[(kq * dim + r) * Np + j];
        rhs[v] -= sum;
      }
    if constexpr (Fused) {
      for (int l = 0; l < NF; ++l) {
        Real face[NV] = {};
        for (int q = 0; q < Nfq; ++q) {
          const int lp = l * Nfq + q;
          const Real phi = t_face_phi[lp * Np + j];
          for (int v = 0; v < NV; ++v) face[v] += s_g[(lp * NV + v) * E + el] * phi;
        }
        const Real side = s_side[l * E + el];
        for (int v = 0; v < NV; ++v) rhs[v] += side * face[v];
      }
      const index_t e = e0 + el;
      const Real inverse_det = b.metric[dim * dim * Ks + e];
      for (int v = 0; v < NV; ++v)
        b.update.apply_from(b.u, (static_cast<index_t>(v) * Np + j) * Ks + e, inverse_det * rhs[v], s_u[(v * Np + j) * E + el]);
    } else {
      for (int v = 0; v < NV; ++v) k.viscous_rhs[(static_cast<index_t>(v) * Np + j) * Ks + e0 + el] = rhs[v];
    }
  }
}

template <class Physics, Shape S, int P, GeometryKind G>
void launch_lifting_block_kernel(const LiftingElementKernel<Physics, S, P, G>& kernel, index_t n_elements, int E) {
  if (n_elements <= 0) return;
  FLOWDG_ASSERT(G != GeometryKind::affine || kernel.point_tables.size() > 0, "the block lifting kernel's affine groups need their point tables (affine_lifting_point_tables)");
  const std::size_t shared = sizeof(typename Physics::real) * static_cast<std::size_t>(E) *
                             static_cast<std::size_t>(lifting_block_values_per_element<Physics>(S, G, n_basis(S, P), kernel.base.Nq, kernel.base.Nfq,
                                                                                                kernel.base.collocated));
  const auto blocks = static_cast<unsigned>((n_elements + E - 1) / E);
  if constexpr (S == Shape::quadrilateral && G == GeometryKind::curved) {
    if (kernel.base.collocated) {
      FLOWDG_ASSERT(kernel.lines > 0, "the block lifting kernel takes collocated groups with a sparse C (setup.hpp: collocated_lifting_lines)");
      constexpr auto function = lifting_block_kernel<Physics, S, P, G, true>;
      allow_block_shared_limit<function>();
      if constexpr (P >= 4) {
        static const bool carved = [] {
          FLOWDG_CUDA_CHECK(cudaFuncSetAttribute(function, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
          return true;
        }();
        (void)carved;
      }
      detail::launch(false, function, blocks, 256, shared, kernel, index_t(0), n_elements, E);
      return;
    }
  }
  FLOWDG_ASSERT(!kernel.base.collocated, "collocated groups are quadrilaterals (setup.cpp)");
  constexpr auto function = lifting_block_kernel<Physics, S, P, G>;
  allow_block_shared_limit<function>();
  detail::launch(false, function, blocks, 256, shared, kernel, index_t(0), n_elements, E);
}

/// BR2 at the faces (br2_face_kernels.hpp): the fused lifting and element kernel on elements
/// [first, first + n_elements) of an affine group, E elements a block (lifting_block_elements with fused).
template <class Physics, Shape S, int P, GeometryKind G>
void launch_fused_lifting_block_kernel(const LiftingElementKernel<Physics, S, P, G>& kernel, index_t first, index_t n_elements, int E) {
  if constexpr (G == GeometryKind::affine) {
    if (n_elements <= 0) return;
    FLOWDG_ASSERT(kernel.point_tables.size() > 0, "the fused lifting kernel needs its point tables (affine_lifting_point_tables)");
    const int Np = n_basis(S, P), Nq = kernel.base.Nq, Nfq = kernel.base.Nfq;
    const std::size_t shared = fused_block_shared_bytes<Physics>(S, Np, Nq, Nfq, E);
    FLOWDG_ASSERT(shared <= block_shared_limit, "BR2 at the faces: the fused kernel's block needs ", shared, " bytes of shared memory");
    const auto blocks = static_cast<unsigned>((n_elements + E - 1) / E);
    constexpr auto function = lifting_block_kernel<Physics, S, P, G, false, true>;
    allow_block_shared_limit<function>();
    detail::launch(false, function, blocks, 256, shared, kernel, first, first + n_elements, E);
  } else {
    FLOWDG_ASSERT(false, "BR2 at the faces runs affine groups");
  }
}

}  // namespace flowdg::dg
