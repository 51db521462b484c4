#pragma once
// BR2 at the faces (solver.lifting_kernel = "faces"; affine groups of a physics without a viscosity
// per element, on CUDA): a stage in two kernels instead of four.
//
// The lifting pass (lifting.hpp) needs each face's gradient Theta_l = grad U + eta r_l on both sides
// before either side's element can take the centred viscous flux, so the operator runs the inviscid
// face kernel (jumps), the lifting kernel per element (Theta at its face points, its half of the
// flux, the volume term), the boundary viscous kernel, and the element kernel (both halves, the
// volume term, the update): four passes, with the halves and the volume term's moments written and
// read back in between. On affine elements everything Theta_l needs at a face is on the face: grad U
// from the element's coefficients (of degree p - 1, in the space: P grad U = grad U) and r_l from the
// face's own jump through the reference lifting matrix A_l / det J. So here
//   1. br2_face_block_kernel, per face: both sides' traces and face gradients from their
//      coefficients, the inviscid flux, the jump H_aux - U_m (kept for the volume lifting), r_l on
//      each side, and the whole flux: w|N| F*(U_m, U_p) - (Fv(U_m, Theta_m) + Fv(U_p, Theta_p)) . wn / 2
//      (boundary faces: the condition's viscous flux with Theta_m, and Theta_m stored for the walls);
//   2. lifting_block_kernel<..., Fused = true> (lifting_block_kernels.hpp), per element: the volume
//      lifting, Theta and F - Fv at the volume points, the volume and face sums and the Runge-Kutta
//      update.
// The same discretisation as the four passes (the sums in another order: rounding-level differences;
// the GPU test compares both with the CPU). CUDA only: included by dg_operator.hpp under __CUDACC__.
#include "flowdg/dg/lifting_block_kernels.hpp"

namespace flowdg::dg {

/// The face kernel of BR2 at the faces: the inviscid face kernel's data (base: traces, geometry,
/// condition, flux and jump outputs) and what the face gradients need.
template <class Physics, Shape S, int P, bool Boundary>
struct Br2FaceKernel {
  using Real = typename Physics::real;
  FaceKernel<Physics, S, S, P, GeometryKind::affine, Boundary> base;
  /// The boundary faces' gradients out (lifting.hpp; wn is taken from the face's geometry here).
  LiftingFaceOutput<Real> out;
  /// Each side's affine metric, [t Ks + e]: det J dr_r/dx_d (t = r dim + d), then 1 / det J.
  View<const Real> metric_m, metric_p;
  /// The reference derivatives at the element's face points, [(lq dim + r) Np + j] (lq = l Nfq + point).
  View<const Real> face_dphi;
  /// The reference face lifting matrices A_l, [(l Nfq + a) Nfq + b] (a, b: the element's own points).
  View<const Real> lifting;
  Real eta = Real(3);
};

/// The end of the BR2 face kernels' step 3 at a face point, from the side's Theta (br2_face_block_kernel,
/// br2_factorised_face_kernel). br2_point_viscous_flux: boundary faces the condition's viscous flux
/// with Theta (stored for the walls); interior faces the side's half of the centred viscous flux, the
/// plus side's -> half[v stride] (its traces there are read). After the block's barrier the minus
/// side's thread sums the face's whole flux, br2_store_face_flux: w|N| F* (flux[v stride]) minus the
/// viscous values -> global.
template <bool Boundary, class Physics, class Base>
__device__ FLOWDG_FORCEINLINE typename Physics::State br2_point_viscous_flux(const Base& b, const LiftingFaceOutput<typename Physics::real>& out,
                                                                             index_t local, index_t f, int q, int Nfq, int side,
                                                                             const typename Physics::State& u,
                                                                             const typename Physics::State (&theta)[Physics::dim],
                                                                             const typename Physics::Direction& normal,
                                                                             typename Physics::real measure, typename Physics::real* half, int stride) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  using Direction = typename Physics::Direction;
  constexpr int dim = Physics::dim, NV = Physics::n_variables;
  State value{};
  if constexpr (Boundary) {
    for (int v = 0; v < NV; ++v)
      for (int d = 0; d < dim; ++d) out.face_gradient[((static_cast<index_t>(v) * dim + d) * Nfq + q) * out.Bs + f] = theta[d][v];
    Direction nb;
    Real measure_b;
    const State ub = b.boundary_state_at(local, q, u, nb, measure_b);
    const State flux = b.physics.boundary_viscous_flux(b.condition.kind, ub, theta, nb);
    const Real scale = b.face_weight[q] * measure_b;
    for (int v = 0; v < NV; ++v) value[v] = scale * flux[v];
  } else {
    (void)out;
    (void)f;
    Direction wn;
    const Real scale = b.face_weight[q] * measure;
    for (int d = 0; d < dim; ++d) wn[d] = scale * normal[d];
    const State flux = b.physics.normal_viscous_flux(u, theta, wn);
    for (int v = 0; v < NV; ++v) value[v] = Real(0.5) * flux[v];
    if (side == 1)
      for (int v = 0; v < NV; ++v) half[v * stride] = value[v];
  }
  return value;
}
template <bool Boundary, class Physics, class Base>
__device__ FLOWDG_FORCEINLINE void br2_store_face_flux(const Base& b, index_t f, int q, int Nfq, const typename Physics::real* flux,
                                                       const typename Physics::real* half, int stride, const typename Physics::State& value) {
  using Real = typename Physics::real;
  for (int v = 0; v < Physics::n_variables; ++v) {
    Real total = flux[v * stride];
    total -= value[v];
    if constexpr (!Boundary) total -= half[v * stride];
    b.flux[(static_cast<index_t>(v) * Nfq + q) * b.Fs + f] = total;
  }
}

/// The face kernel: Fb = br2_block_faces(Nfq, Boundary) faces a block, a thread per (face, point,
/// side) (threadIdx.x = (side Nfq + q) Fb + fl), each thread one item, so that a thread keeps its
/// side's trace in registers across the phases (the gradient as well measured slower: 80 registers
/// and more spills, session 35):
///   1. its side's U at its face point (at the side's own point order: the plus side's through the
///      orientation's permutation) from the shared coefficients -> shared;
///   2. the minus side's threads: the inviscid flux and the jump from both traces
///      (FaceKernel::point_flux) -> shared (w |N| times each), the jump times w |N| -> global (the fused kernel's volume lifting reads it);
///   3. each side's Theta = grad U + eta r_l (grad U from the coefficients again: U alone crosses the
///      barriers in registers; r_l through A_l from the face's jumps) and its centred
///      viscous flux; the plus side's -> shared, and the minus side's thread sums the face's whole
///      flux -> global (boundary faces: the condition's viscous flux with Theta_m, and Theta_m stored).
/// The tables' rows at an odd stride (br2_face_row_stride: the rows a warp reads at once, by local
/// face and orientation, fall in distinct banks). In 2D the face
/// points (br2_face_points: P + 1) and so the block's faces and every shared-memory stride are
/// compile-time constants (the kernel's addresses immediate offsets).
/// Threads a block and MinBlocks an SM: br2_face_kernel_shape.
template <class Physics, Shape S, int P, bool Boundary, int Threads = 256, int MinBlocks = 3>
__global__ void __launch_bounds__(Threads, MinBlocks) br2_face_block_kernel(Br2FaceKernel<Physics, S, P, Boundary> k, index_t count, int faces_per_block) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  using Direction = typename Physics::Direction;
  constexpr int dim = Physics::dim, NV = Physics::n_variables, Np = n_basis(S, P), NF = n_faces(S), sides = Boundary ? 1 : 2;
  constexpr int SP = br2_face_row_stride(Np), SD = br2_face_row_stride(dim * Np);
  const FaceKernel<Physics, S, S, P, GeometryKind::affine, Boundary>& b = k.base;
  constexpr int NfqC = br2_face_points(dim, P);
  const int Nfq = NfqC > 0 ? NfqC : b.Nfq, NFq = NF * Nfq, SL = br2_face_row_stride(Nfq);
  const int Fb = NfqC > 0 ? br2_block_faces(NfqC, Boundary, Threads) : faces_per_block;
  const index_t Fs = b.Fs;
  extern __shared__ unsigned char shared_bytes[];
  Real* s_phi = reinterpret_cast<Real*>(shared_bytes);  // [lq SP + j]
  Real* s_dphi = s_phi + NFq * SP;                        // [lq SD + r Np + j]
  Real* s_lifting = s_dphi + NFq * SD;                    // [(l Nfq + a) SL + b]
  Real* s_u = s_lifting + NFq * SL;                       // [(side NV Np + v Np + j) Fb + fl]
  Real* s_t = s_u + sides * NV * Np * Fb;                 // [((side NV + v) Nfq + q) Fb + fl]: traces at the face's point q;
                                                          // 3: the plus side's viscous flux [(v Nfq + q) Fb + fl]
  Real* s_jump = s_t + sides * NV * Nfq * Fb;             // [(v Nfq + q) Fb + fl]: w_q |N| (H_aux - U_m)
  Real* s_flux = s_jump + NV * Nfq * Fb;                  // [(v Nfq + q) Fb + fl]: w_q |N| F*
  __shared__ index_t s_element[2][Threads];
  const index_t f0 = static_cast<index_t>(blockIdx.x) * Fb;
  const int n_local = static_cast<int>(count - f0 < Fb ? count - f0 : Fb);
  // The tables (set up once, not written by any kernel) before the previous grid ends.
  for (int i = threadIdx.x; i < NFq * Np; i += blockDim.x) device::copy_async(s_phi + (i / Np) * SP + i % Np, b.face_phi_m.data + i);
  for (int i = threadIdx.x; i < NFq * dim * Np; i += blockDim.x)
    device::copy_async(s_dphi + (i / (dim * Np)) * SD + i % (dim * Np), k.face_dphi.data + i);
  for (int i = threadIdx.x; i < NFq * Nfq; i += blockDim.x) device::copy_async(s_lifting + (i / Nfq) * SL + i % Nfq, k.lifting.data + i);
  detail::wait_for_previous_grid();
  load_face_sides<Boundary>(b.index, b.begin + f0, n_local, Threads, &s_element[0][0], static_cast<int*>(nullptr));
  __syncthreads();
  for (int side = 0; side < sides; ++side) {
    const Real* u = side == 0 ? b.u_m.data : b.u_p.data;
    const index_t Ks = side == 0 ? b.Ks_m : b.Ks_p;
    for (int i = threadIdx.x; i < NV * Np * Fb; i += blockDim.x) {
      const int fl = i % Fb, row = i / Fb;
      if (fl < n_local) device::copy_async(s_u + side * NV * Np * Fb + i, u + static_cast<index_t>(row) * Ks + s_element[side][fl]);
    }
  }
  device::copy_async_commit();
  device::copy_async_wait();
  __syncthreads();

  // This thread's item (every thread one at most: the barriers below are the whole block's).
  const int fl = threadIdx.x % Fb, q = (threadIdx.x / Fb) % Nfq, side = threadIdx.x / (Fb * Nfq);
  const bool active = fl < n_local && side < sides;
  const index_t local = f0 + fl, f = b.begin + local;
  int l = 0, a = q;  // the side's local face and its own point there
  const int* own = nullptr;  // plus side: face point -> the side's own point
  State u{};
  // 1. The side's trace at its point.
  if (active) {
    if constexpr (!Boundary) {
      if (side == 1) {
        own = &b.permutation[b.index.orientation[f] * Nfq];
        a = own[q];
      }
    }
    l = side == 0 ? b.index.local_m[f] : b.index.local_p[f];
    u = shared_trace<Physics, Np>(s_u + side * NV * Np * Fb, Fb, fl, s_phi + (l * Nfq + a) * SP);
    for (int v = 0; v < NV; ++v) s_t[((side * NV + v) * Nfq + q) * Fb + fl] = u[v];
  }
  __syncthreads();

  // 2. The minus side's thread: the inviscid flux and the jump at the face point.
  if (active && side == 0) {
    State up{};
    if constexpr (!Boundary)
      for (int v = 0; v < NV; ++v) up[v] = s_t[((NV + v) * Nfq + q) * Fb + fl];
    State jump;
    Real scale;
    const State value = b.point_flux(local, q, u, up, jump, scale);
    for (int v = 0; v < NV; ++v) {
      s_flux[(v * Nfq + q) * Fb + fl] = value[v];
      s_jump[(v * Nfq + q) * Fb + fl] = scale * jump[v];
      b.jump[(static_cast<index_t>(v) * Nfq + q) * Fs + f] = scale * jump[v];
    }
  }
  __syncthreads();

  // 3. Theta = grad U + eta r_l at the point on this side, and its viscous flux. wn = w |N| n from
  // the face's geometry (affine: one normal a face).
  State value{};
  if (active) {
    Direction n;
    Real measure;
    b.geometry_at(local, q, n, measure);
    const index_t e = s_element[side][fl];
    const View<const Real>& metric = side == 0 ? k.metric_m : k.metric_p;
    const index_t Ks = side == 0 ? b.Ks_m : b.Ks_p;
    Real m[dim][dim];
    for (int r = 0; r < dim; ++r)
      for (int d = 0; d < dim; ++d) m[r][d] = metric[(r * dim + d) * Ks + e];
    const Real inverse_det = metric[dim * dim * Ks + e];
    State du[dim], theta[dim];
    State unused;
    shared_trace_gradient<Physics, Np, false>(s_u + side * NV * Np * Fb, Fb, fl, nullptr, s_dphi + (l * Nfq + a) * SD, unused, du);
    affine_gradient<Physics>(m, inverse_det, du, theta);
    // r_l at the point: (eta / det J) sum_b A_l[a][b] w_b |N| n jump_b (both sides lift the same
    // values: on the plus side H_aux - U_p and its normal -n both change sign).
    const Real* lifting = s_lifting + (l * Nfq + a) * SL;
    Real lifted[NV] = {};
    for (int bq = 0; bq < Nfq; ++bq) {
      const Real c = lifting[own == nullptr ? bq : own[bq]];
      for (int v = 0; v < NV; ++v) lifted[v] += c * s_jump[(v * Nfq + bq) * Fb + fl];
    }
    const Real factor = k.eta * inverse_det;
    for (int d = 0; d < dim; ++d)
      for (int v = 0; v < NV; ++v) theta[d][v] += factor * n[d] * lifted[v];
    value = br2_point_viscous_flux<Boundary, Physics>(b, k.out, local, f, q, Nfq, side, u, theta, n, measure, s_t + q * Fb + fl, Nfq * Fb);
  }
  if constexpr (!Boundary) __syncthreads();
  if (active && side == 0) br2_store_face_flux<Boundary, Physics>(b, f, q, Nfq, s_flux + q * Fb + fl, s_t + q * Fb + fl, Nfq * Fb, value);
}

template <class Physics, Shape S, int P, bool Boundary, int Threads, int MinBlocks>
void launch_br2_face_block_shape(const Br2FaceKernel<Physics, S, P, Boundary>& kernel, index_t count) {
  const int Nfq = kernel.base.Nfq;
  const int Fb = br2_block_faces(Nfq, Boundary, Threads);
  const std::size_t shared = br2_face_shared_bytes<Physics>(S, n_basis(S, P), Nfq, Boundary, Threads);
  FLOWDG_ASSERT(shared <= block_shared_limit, "BR2 at the faces: the face kernel's block needs ", shared, " bytes of shared memory");
  const auto blocks = static_cast<unsigned>((count + Fb - 1) / Fb);
  constexpr auto function = br2_face_block_kernel<Physics, S, P, Boundary, Threads, MinBlocks>;
  allow_block_shared_limit<function>();
  detail::launch(false, function, blocks, Threads, shared, kernel, count, Fb);
}

/// The face kernel: 256 threads and three blocks an SM, or on 2D interior faces from p = 2 `shape`
/// (DgOperator's br2_face_shape).
template <class Physics, Shape S, int P, bool Boundary>
void launch_br2_face_block_kernel(const Br2FaceKernel<Physics, S, P, Boundary>& kernel, index_t count, Br2FaceShape shape) {
  if (count <= 0) return;
  constexpr int NfqC = br2_face_points(Physics::dim, P);
  FLOWDG_ASSERT(NfqC == 0 || kernel.base.Nfq == NfqC, "BR2 at the faces: the face kernel is compiled for ", NfqC, " face points, not ", kernel.base.Nfq);
  if constexpr (NfqC > 0 && !Boundary && P >= 2)
    with_br2_face_shape<P>(shape, [&]<int Threads, int Blocks>() { launch_br2_face_block_shape<Physics, S, P, Boundary, Threads, Blocks>(kernel, count); });
  else
    launch_br2_face_block_shape<Physics, S, P, Boundary, 256, 3>(kernel, count);
}

}  // namespace flowdg::dg
