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

template <class Physics, Shape S, int P, bool Boundary>
__global__ void __launch_bounds__(256) br2_face_block_kernel(Br2FaceKernel<Physics, S, P, Boundary> k, index_t count, int Fb) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  using Direction = typename Physics::Direction;
  constexpr int dim = Physics::dim, NV = Physics::n_variables, Np = n_basis(S, P), NF = n_faces(S), sides = Boundary ? 1 : 2;
  const FaceKernel<Physics, S, S, P, GeometryKind::affine, Boundary>& b = k.base;
  const int Nfq = b.Nfq, NFq = NF * Nfq;
  const index_t Fs = b.Fs;
  extern __shared__ unsigned char shared_bytes[];
  Real* s_phi = reinterpret_cast<Real*>(shared_bytes);  // [lq Np + j]
  Real* s_dphi = s_phi + NFq * Np;                        // [(lq dim + r) Np + j]
  Real* s_lifting = s_dphi + NFq * dim * Np;              // [(l Nfq + a) Nfq + b]
  Real* s_u = s_lifting + NFq * Nfq;                      // [(side NV Np + v Np + j) Fb + fl]
  Real* s_jump = s_u + sides * NV * Np * Fb;              // [(v Nfq + q) Fb + fl]: w_q |N| (H_aux - U_m), the face's point order
  Real* s_flux = s_jump + NV * Nfq * Fb;                  // [(v Nfq + q) Fb + fl]: w_q |N| F*
  __shared__ index_t s_element[2][256];
  const index_t f0 = static_cast<index_t>(blockIdx.x) * Fb;
  const int n_local = static_cast<int>(count - f0 < Fb ? count - f0 : Fb);
  // The tables (set up once, not written by any kernel) before the previous grid ends.
  for (int i = threadIdx.x; i < NFq * Np; i += blockDim.x) device::copy_async(s_phi + i, b.face_phi_m.data + i);
  for (int i = threadIdx.x; i < NFq * dim * Np; i += blockDim.x) device::copy_async(s_dphi + i, k.face_dphi.data + i);
  for (int i = threadIdx.x; i < NFq * Nfq; i += blockDim.x) device::copy_async(s_lifting + i, k.lifting.data + i);
  detail::wait_for_previous_grid();
  load_face_sides<Boundary>(b.index, b.begin + f0, n_local, 256, &s_element[0][0], static_cast<int*>(nullptr));
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

  // 1. A thread per (face, point): both traces, the inviscid flux and the jump H_aux - U_m.
  for (int i = threadIdx.x; i < Nfq * Fb; i += blockDim.x) {
    const int fl = i % Fb, q = i / Fb;
    if (fl >= n_local) continue;
    const index_t local = f0 + fl, f = b.begin + local;
    const State um = shared_trace<Physics, Np>(s_u, Fb, fl, &s_phi[(b.index.local_m[f] * Nfq + q) * Np]);
    State up{};
    if constexpr (!Boundary) {
      const int qp = b.permutation[b.index.orientation[f] * Nfq + q];
      up = shared_trace<Physics, Np>(s_u + NV * Np * Fb, Fb, fl, &s_phi[(b.index.local_p[f] * Nfq + qp) * Np]);
    }
    Direction n;
    Real measure;
    b.geometry_at(local, q, n, measure);
    State jump;
    if constexpr (Boundary) {
      Direction x;
      for (int d = 0; d < dim; ++d) x[d] = b.points[(static_cast<index_t>(q) * dim + d) * b.Gs + local];
      up = b.condition.ghost_state(b.physics, um, n, x, b.t, b.flow);
      const State ub = b.condition.boundary_state(b.physics, um, up);
      for (int v = 0; v < NV; ++v) jump[v] = ub[v] - um[v];
    } else {
      for (int v = 0; v < NV; ++v) jump[v] = Real(0.5) * (up[v] - um[v]);
    }
    const State value = numerical_flux(b.riemann, b.physics, um, up, n);
    const Real scale = b.face_weight[q] * measure;
    for (int v = 0; v < NV; ++v) {
      s_flux[(v * Nfq + q) * Fb + fl] = scale * value[v];
      s_jump[(v * Nfq + q) * Fb + fl] = scale * jump[v];
      b.jump[(static_cast<index_t>(v) * Nfq + q) * Fs + f] = jump[v];
    }
  }
  __syncthreads();

  // 2. A thread per (face, point): each side's Theta = grad U + eta r_l there, the viscous flux, and
  // the face's whole flux. wn = w |N| n from the face's geometry (affine: one normal a face).
  for (int i = threadIdx.x; i < Nfq * Fb; i += blockDim.x) {
    const int fl = i % Fb, q = i / Fb;
    if (fl >= n_local) continue;
    const index_t local = f0 + fl, f = b.begin + local;
    Direction n;
    Real measure;
    b.geometry_at(local, q, n, measure);
    Real total[NV];
    for (int v = 0; v < NV; ++v) total[v] = s_flux[(v * Nfq + q) * Fb + fl];
    const int orientation = Boundary ? 0 : b.index.orientation[f];
#pragma unroll 1
    for (int side = 0; side < sides; ++side) {
      const index_t e = s_element[side][fl];
      const int l = side == 0 ? b.index.local_m[f] : b.index.local_p[f];
      const int* own = side == 0 ? nullptr : &b.permutation[orientation * Nfq];  // face point -> the side's own point
      const int a = side == 0 ? q : own[q];
      const View<const Real>& metric = side == 0 ? k.metric_m : k.metric_p;
      const index_t Ks = side == 0 ? b.Ks_m : b.Ks_p;
      Real m[dim][dim];
      for (int r = 0; r < dim; ++r)
        for (int d = 0; d < dim; ++d) m[r][d] = metric[(r * dim + d) * Ks + e];
      const Real inverse_det = metric[dim * dim * Ks + e];
      const int row = l * Nfq + a;
      State u, du[dim], theta[dim];
      shared_trace_gradient<Physics, Np>(s_u + side * NV * Np * Fb, Fb, fl, s_phi + row * Np, s_dphi + row * dim * Np, u, du);
      affine_gradient<Physics>(m, inverse_det, du, theta);
      // r_l at the point: (eta / det J) sum_b A_l[a][b] w_b |N| n jump_b (both sides lift the same
      // values: on the plus side H_aux - U_p and its normal -n both change sign).
      const Real* lifting = s_lifting + row * Nfq;
      Real lifted[NV] = {};
      for (int bq = 0; bq < Nfq; ++bq) {
        const Real c = lifting[side == 0 ? bq : own[bq]];
        for (int v = 0; v < NV; ++v) lifted[v] += c * s_jump[(v * Nfq + bq) * Fb + fl];
      }
      const Real factor = k.eta * inverse_det;
      for (int d = 0; d < dim; ++d)
        for (int v = 0; v < NV; ++v) theta[d][v] += factor * n[d] * lifted[v];
      if constexpr (Boundary) {
        for (int v = 0; v < NV; ++v)
          for (int d = 0; d < dim; ++d) k.out.face_gradient[((static_cast<index_t>(v) * dim + d) * Nfq + q) * k.out.Bs + f] = theta[d][v];
        Direction nb;
        Real measure_b;
        const State ub = b.boundary_state_at(local, q, u, nb, measure_b);
        const State value = b.physics.boundary_viscous_flux(b.condition.kind, ub, theta, nb);
        const Real scale = b.face_weight[q] * measure_b;
        for (int v = 0; v < NV; ++v) total[v] -= scale * value[v];
      } else {
        Direction wn;
        const Real scale = b.face_weight[q] * measure;
        for (int d = 0; d < dim; ++d) wn[d] = scale * n[d];
        const State value = b.physics.normal_viscous_flux(u, theta, wn);
        for (int v = 0; v < NV; ++v) total[v] -= Real(0.5) * value[v];
      }
    }
    for (int v = 0; v < NV; ++v) b.flux[(static_cast<index_t>(v) * Nfq + q) * Fs + f] = total[v];
  }
}

template <class Physics, Shape S, int P, bool Boundary>
void launch_br2_face_block_kernel(const Br2FaceKernel<Physics, S, P, Boundary>& kernel, index_t n_faces) {
  if (n_faces <= 0) return;
  constexpr auto function = br2_face_block_kernel<Physics, S, P, Boundary>;
  allow_block_shared_limit<function>();
  const int Fb = br2_block_faces(kernel.base.Nfq);
  const std::size_t shared = br2_face_shared_bytes<Physics>(S, n_basis(S, P), kernel.base.Nfq, Boundary);
  FLOWDG_ASSERT(shared <= block_shared_limit, "BR2 at the faces: the face kernel's block needs ", shared, " bytes of shared memory");
  const auto blocks = static_cast<unsigned>((n_faces + Fb - 1) / Fb);
  detail::launch(false, function, blocks, 256, shared, kernel, n_faces, Fb);
}

}  // namespace flowdg::dg
