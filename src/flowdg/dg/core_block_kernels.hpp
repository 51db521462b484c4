#pragma once
// The DG core's element kernel as a CUDA block of E elements through shared memory: the same work
// as ElementKernel (core_kernels.hpp), split into phases so that no thread holds an element's
// NV x Np coefficients and right-hand side (ElementKernel keeps 2 NV Np values per thread: 350
// doubles for tetrahedra at p = 4, which spill to local memory):
//   A. the block's coefficients -> shared (rows of E consecutive elements: coalesced);
//   B. a thread per (element, volume point): the solution there, its flux and the reference-space
//      fluxes sum_d m_rd F_d -> shared;
//   C. a thread per (element, face point): the stored face flux with the element's sign, at the
//      element's own face point -> shared;
//   D. a thread per (element, mode): the volume and surface sums; affine: times 1 / det J and the
//      Runge-Kutta update; curved: the right-hand side -> shared (over the coefficients), then
//   E. a thread per (element, mode): the inverse mass matrix row times it, and the update (collocated
//      curved groups: a thread per (element, point) takes it to the points times w / det J, then a
//      thread per (element, mode) back to the modes: M^-1 = V^T diag(w / det J) V).
// Sums run over the same terms in the same order as ElementKernel's volume sum; the surface sum
// runs by the element's face point instead of the face's point order (rounding-level differences).
// CUDA only: included by dg_operator.hpp under __CUDACC__.
#include "flowdg/backend/cuda_check.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/tensor_core.hpp"
#include "flowdg/dg/core_kernels.hpp"

namespace flowdg::dg {

/// Lets a kernel take block_shared_limit bytes of dynamic shared memory (once per kernel).
template <auto Function>
void allow_block_shared_limit() {
  static const bool configured = [] {
    FLOWDG_CUDA_CHECK(cudaFuncSetAttribute(Function, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(block_shared_limit)));
    return true;
  }();
  (void)configured;
}

/// One side's trace at a face point from a block's shared coefficients: sum_j s[(v Np + j) Fb + fl]
/// phi[j] for every variable (the loop over modes outside: one phi load per mode).
template <class Physics, int Np>
__device__ FLOWDG_FORCEINLINE typename Physics::State shared_trace(const typename Physics::real* s, int Fb, int fl,
                                                                  const typename Physics::real* phi) {
  typename Physics::real sum[Physics::n_variables] = {};
#pragma unroll
  for (int j = 0; j < Np; ++j) {
    const typename Physics::real value = phi[j];
    for (int v = 0; v < Physics::n_variables; ++v) sum[v] += s[(v * Np + j) * Fb + fl] * value;
  }
  typename Physics::State trace;
  for (int v = 0; v < Physics::n_variables; ++v) trace[v] = sum[v];
  return trace;
}

/// Collocated: the variant for collocated curved groups (ElementKernel::collocated; quadrilaterals),
/// a kernel of its own so that the other groups' registers do not pay for its path.
template <class Physics, Shape S, int P, GeometryKind G, bool Collocated = false>
__global__ void __launch_bounds__(256) core_element_block_kernel(ElementKernel<Physics, S, P, G> k, index_t first, index_t end, int E) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  constexpr int dim = Physics::dim, NV = Physics::n_variables, Np = n_basis(S, P), NF = n_faces(S);
  const int Nq = k.Nq, Nfq = k.Nfq;
  extern __shared__ unsigned char shared_bytes[];
  Real* s_u = reinterpret_cast<Real*>(shared_bytes);  // [(v Np + j) E + el]; D/E (curved): the rhs
  Real* s_f = s_u + NV * Np * E;                       // [((v dim + r) Nq + k) E + el]
  Real* s_g = s_f + NV * dim * Nq * E;                 // [((l Nfq + point) NV + v) E + el]
  const index_t e0 = first + static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(end - e0 < E ? end - e0 : E);
  detail::wait_for_previous_grid();

  for (int i = threadIdx.x; i < NV * Np * E; i += blockDim.x) {
    const int el = i % E, row = i / E;
    s_u[i] = el < n_local ? k.u[static_cast<index_t>(row) * k.Ks + e0 + el] : Real(0);
  }
  __syncthreads();

  // The volume points (none where the lifting kernel took the volume term: volume_in_rhs).
  const int Nv = G == GeometryKind::affine && k.volume_in_rhs ? 0 : Nq;
  for (int i = threadIdx.x; i < Nv * E; i += blockDim.x) {
    const int el = i % E, kq = i / E;
    if (el >= n_local) continue;
    const index_t e = e0 + el;
    State uk;
    for (int v = 0; v < NV; ++v) {
      Real sum = 0;
#pragma unroll
      for (int j = 0; j < Np; ++j) sum += s_u[(v * Np + j) * E + el] * k.volume_phi[kq * Np + j];
      uk[v] = sum;
    }
    State f[dim];
    k.physics.flux(uk, f);
    Real m[dim][dim];
    k.weighted_metric(kq, e, k.metric.data + e, k.Ks, m);
    for (int v = 0; v < NV; ++v)
      for (int r = 0; r < dim; ++r) s_f[((v * dim + r) * Nq + kq) * E + el] = reference_flux(m, f, r, v);
  }
  for (int i = threadIdx.x; i < NF * Nfq * E; i += blockDim.x) {
    const int el = i % E, lq = i / E;
    if (el < n_local) k.gather_face_flux(lq / Nfq, lq % Nfq, e0 + el, s_g + el, E);
  }
  __syncthreads();

  for (int i = threadIdx.x; i < Np * E; i += blockDim.x) {
    const int el = i % E, j = i / E;
    if (el >= n_local) continue;
    Real rhs[NV];
    for (int v = 0; v < NV; ++v) rhs[v] = 0;
    if constexpr (Physics::has_viscous_flux)
      for (int v = 0; v < NV; ++v) rhs[v] = k.viscous_rhs[(static_cast<index_t>(v) * Np + j) * k.Ks + e0 + el];
    for (int kq = 0; kq < Nv; ++kq)
      for (int v = 0; v < NV; ++v) {
        Real sum = 0;
        for (int r = 0; r < dim; ++r) sum += s_f[((v * dim + r) * Nq + kq) * E + el] * k.volume_dphi[(kq * dim + r) * Np + j];
        rhs[v] += sum;
      }
    for (int lp = 0; lp < NF * Nfq; ++lp) {
      const Real phi = k.face_phi[static_cast<index_t>(lp) * Np + j];
      for (int v = 0; v < NV; ++v) rhs[v] += s_g[(lp * NV + v) * E + el] * phi;
    }
    const index_t e = e0 + el;
    if constexpr (G == GeometryKind::affine) {
      const Real inverse_det = k.metric[dim * dim * k.Ks + e];
      for (int v = 0; v < NV; ++v) k.update.apply(k.u, (static_cast<index_t>(v) * Np + j) * k.Ks + e, inverse_det * rhs[v]);
    } else {
      for (int v = 0; v < NV; ++v) s_u[(v * Np + j) * E + el] = rhs[v];  // every thread is past phase B
    }
  }
  if constexpr (G == GeometryKind::curved) {
    __syncthreads();
    if constexpr (Collocated) {
      // M^-1 = V^T diag(w / det J) V (Nq = Np): the right-hand side at the points, times the
      // factors (-> s_f, free since D), then back to the modes, and the update; a thread per
      // (element, two points or modes), which share each shared value they read.
      constexpr int half = (Np + 1) / 2;
      for (int i = threadIdx.x; i < half * E; i += blockDim.x) {
        const int el = i % E, k0 = i / E, k1 = k0 + half;
        if (el >= n_local) continue;
        const Real* phi0 = &k.volume_phi[k0 * Np];
        const Real* phi1 = &k.volume_phi[(k1 < Np ? k1 : k0) * Np];
        Real sum0[NV] = {}, sum1[NV] = {};
#pragma unroll
        for (int j = 0; j < Np; ++j) {
          const Real a0 = phi0[j], a1 = phi1[j];
          for (int v = 0; v < NV; ++v) {
            const Real c = s_u[(v * Np + j) * E + el];
            sum0[v] += a0 * c;
            sum1[v] += a1 * c;
          }
        }
        const Real factor0 = k.point_mass_factor(k0, e0 + el);
        for (int v = 0; v < NV; ++v) s_f[(v * Np + k0) * E + el] = factor0 * sum0[v];
        if (k1 < Np) {
          const Real factor1 = k.point_mass_factor(k1, e0 + el);
          for (int v = 0; v < NV; ++v) s_f[(v * Np + k1) * E + el] = factor1 * sum1[v];
        }
      }
      __syncthreads();
      for (int i = threadIdx.x; i < half * E; i += blockDim.x) {
        const int el = i % E, row0 = i / E, row1 = row0 + half;
        if (el >= n_local) continue;
        const int other = row1 < Np ? row1 : row0;
        Real value0[NV] = {}, value1[NV] = {};
#pragma unroll
        for (int kq = 0; kq < Np; ++kq) {
          const Real a0 = k.volume_phi[kq * Np + row0], a1 = k.volume_phi[kq * Np + other];
          for (int v = 0; v < NV; ++v) {
            const Real y = s_f[(v * Np + kq) * E + el];
            value0[v] += a0 * y;
            value1[v] += a1 * y;
          }
        }
        for (int v = 0; v < NV; ++v) k.update.apply(k.u, (static_cast<index_t>(v) * Np + row0) * k.Ks + e0 + el, value0[v]);
        if (row1 < Np)
          for (int v = 0; v < NV; ++v) k.update.apply(k.u, (static_cast<index_t>(v) * Np + row1) * k.Ks + e0 + el, value1[v]);
      }
    } else {
      for (int i = threadIdx.x; i < Np * E; i += blockDim.x) {
        const int el = i % E, row = i / E;
        if (el >= n_local) continue;
        const index_t e = e0 + el;
        Real value[NV] = {};
        for (int j = 0; j < Np; ++j) {
          const Real m = k.inverse_mass[(static_cast<index_t>(row) * Np + j) * k.Ks + e];
          for (int v = 0; v < NV; ++v) value[v] += m * s_u[(v * Np + j) * E + el];
        }
        for (int v = 0; v < NV; ++v) k.update.apply(k.u, (static_cast<index_t>(v) * Np + row) * k.Ks + e, value[v]);
      }
    }
  }
}

/// One side's traces at up to Chunk face points [q0, q0 + Chunk) of one face, every variable, from a
/// block's shared coefficients s[(v Np + j) Fb + fl] and the side's face table phi (rows l Nfq + q of
/// Np): t[(v Nfq + q) Fb + fl] = sum_j s[(v Np + j) Fb + fl] phi[(l Nfq + q) Np + j], the points in
/// the side's own order. Each coefficient load serves the chunk's points, each table load every
/// variable: NV + Chunk shared loads per NV x Chunk multiply-adds, where a point at a time
/// (shared_trace) takes NV + 1 per NV. The same sums in the same order as shared_trace: the same bits.
template <class Real, int NV, int Np, int Chunk>
__device__ FLOWDG_FORCEINLINE void shared_face_traces(const Real* s, const Real* phi, Real* t, int Fb, int fl, int l, int q0, int Nfq) {
  const int n = Nfq - q0 < Chunk ? Nfq - q0 : Chunk;
  // Rows past the face's points (the last chunk) read the chunk's first row instead, and their
  // sums are not stored.
  const Real* rows[Chunk];
#pragma unroll
  for (int c = 0; c < Chunk; ++c) rows[c] = phi + ((l * Nfq) + q0 + (c < n ? c : 0)) * Np;
  Real sum[NV][Chunk] = {};
#pragma unroll
  for (int j = 0; j < Np; ++j) {
    Real value[Chunk];
#pragma unroll
    for (int c = 0; c < Chunk; ++c) value[c] = rows[c][j];
#pragma unroll
    for (int v = 0; v < NV; ++v) {
      const Real coefficient = s[(v * Np + j) * Fb + fl];
#pragma unroll
      for (int c = 0; c < Chunk; ++c) sum[v][c] += coefficient * value[c];
    }
  }
#pragma unroll
  for (int v = 0; v < NV; ++v)
#pragma unroll
    for (int c = 0; c < Chunk; ++c)
      if (c < n) t[(v * Nfq + q0 + c) * Fb + fl] = sum[v][c];
}

/// A block face kernel's faces [first, first + n_local) (the face group's numbers): both sides'
/// elements to element[side stride + fl] and, where `local` is given, their local faces to
/// local[side stride + fl]; the block's threads in any shape.
template <bool Boundary, class Index>
__device__ FLOWDG_FORCEINLINE void load_face_sides(const Index& index, index_t first, int n_local, int stride, index_t* element, int* local) {
  const int threads = blockDim.x * blockDim.y, t = threadIdx.x + blockDim.x * threadIdx.y;
  for (int fl = t; fl < n_local; fl += threads) {
    const index_t f = first + fl;
    element[fl] = index.element_m[f];
    if (local != nullptr) local[fl] = index.local_m[f];
    if constexpr (!Boundary) {
      element[stride + fl] = index.element_p[f];
      if (local != nullptr) local[stride + fl] = index.local_p[f];
    }
  }
}

/// The face kernel as CUDA blocks of core_face_rounds rounds of Fb faces: the face tables of both
/// sides -> shared once per block; per round
///   1. each side's coefficients -> shared once per face (FaceKernel, a thread per face point,
///      reads them once per point: Nfq times; all copies asynchronous, in flight at once);
///   2. Chunk = 0 (face kernel "block"): a thread per (face, point) evaluates both traces from
///      shared memory (the table rows differ from thread to thread: from L1 they cost a wavefront
///      per row) and finishes as FaceKernel does;
///      Chunk > 0 (face kernel "chunked"): a thread per (face, side, chunk of Chunk points) sums
///      every variable there -> shared (shared_face_traces: a coefficient load serves the chunk's
///      points, a table load every variable; the shared-memory pipe bounded the block form at p = 3,
///      session 17's profile), the plus side in its own point order; then a thread per (face, point)
///      reads both traces (the plus side's through the orientation's permutation) and finishes.
/// Both forms sum the same terms in the same order as FaceKernel: the same bits. Riemann: the
/// numerical flux fixed at compile time (FaceKernel::finish), or -1 for the kernel argument's.
template <class Physics, Shape SM, Shape SP, int P, GeometryKind FG, bool Boundary, int Chunk, int Riemann = -1>
__global__ void __launch_bounds__(256, 3) core_face_block_kernel(FaceKernel<Physics, SM, SP, P, FG, Boundary> k, index_t count, int Fb) {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  constexpr int NV = Physics::n_variables, Np_m = n_basis(SM, P), Np_p = Boundary ? 0 : n_basis(SP, P);
  constexpr bool one_table = Boundary || SM == SP;
  constexpr bool chunked = Chunk > 0;
  const int Nfq = k.Nfq;
  const int table_m = n_faces(SM) * Nfq * Np_m, table_p = one_table ? 0 : n_faces(SP) * Nfq * Np_p;
  extern __shared__ unsigned char shared_bytes[];
  // Chunked: both sides' element and local face number [side Fb + fl] ahead of the values (Fb of
  // them, not 256: three blocks must fit an SM); the block form keeps the elements in static arrays.
  const std::size_t index_bytes = chunked ? face_chunked_index_bytes * static_cast<std::size_t>(Fb) : 0;
  index_t* c_element = reinterpret_cast<index_t*>(shared_bytes);
  int* c_local = reinterpret_cast<int*>(c_element + 2 * Fb);
  Real* s_phi_m = reinterpret_cast<Real*>(shared_bytes + index_bytes);  // [(l Nfq + q) Np_m + j]
  Real* s_phi_p = one_table ? s_phi_m : s_phi_m + table_m;
  Real* s_m = s_phi_m + table_m + table_p;  // [(v Np_m + j) Fb + fl]
  Real* s_p = s_m + NV * Np_m * Fb;         // [(v Np_p + j) Fb + fl]
  Real* s_tm = s_p + NV * Np_p * Fb;        // chunked: [(v Nfq + q) Fb + fl], the minus side's traces
  Real* s_tp = s_tm + NV * Nfq * Fb;        // the plus side's, at its own points
  __shared__ index_t s_element_block[chunked ? 1 : 2][chunked ? 1 : 256];  // the block form's elements (Fb <= 256)
  const auto element_of = [&](int side, int fl) -> index_t& {
    if constexpr (chunked) return c_element[side * Fb + fl];
    else return s_element_block[side][fl];
  };
  detail::wait_for_previous_grid();
  for (int i = threadIdx.x; i < table_m; i += blockDim.x) device::copy_async(s_phi_m + i, k.face_phi_m.data + i);
  for (int i = threadIdx.x; i < table_p; i += blockDim.x) device::copy_async(s_phi_p + i, k.face_phi_p.data + i);

  for (int round = 0; round < core_face_rounds; ++round) {
    const index_t f0 = (static_cast<index_t>(blockIdx.x) * core_face_rounds + round) * Fb;
    if (f0 >= count) break;
    const int n_local = static_cast<int>(count - f0 < Fb ? count - f0 : Fb);
    if (round > 0) __syncthreads();  // every thread is done with the last round's shared values
    if constexpr (chunked) load_face_sides<Boundary>(k.index, k.begin + f0, n_local, Fb, c_element, c_local);
    else load_face_sides<Boundary>(k.index, k.begin + f0, n_local, 256, &s_element_block[0][0], static_cast<int*>(nullptr));
    __syncthreads();
    for (int i = threadIdx.x; i < NV * Np_m * Fb; i += blockDim.x) {
      const int fl = i % Fb, row = i / Fb;
      if (fl < n_local) device::copy_async(s_m + i, k.u_m.data + static_cast<index_t>(row) * k.Ks_m + element_of(0, fl) * k.Es_m);
    }
    if constexpr (!Boundary) {
      for (int i = threadIdx.x; i < NV * Np_p * Fb; i += blockDim.x) {
        const int fl = i % Fb, row = i / Fb;
        if (fl < n_local) device::copy_async(s_p + i, k.u_p.data + static_cast<index_t>(row) * k.Ks_p + element_of(1, fl) * k.Es_p);
      }
    }
    device::copy_async_commit();
    device::copy_async_wait();
    __syncthreads();

    if constexpr (chunked) {
      constexpr int sides = Boundary ? 1 : 2;
      const int chunks = (Nfq + Chunk - 1) / Chunk;
      for (int i = threadIdx.x; i < sides * chunks * Fb; i += blockDim.x) {
        const int fl = i % Fb, rest = i / Fb, side = rest / chunks, q0 = (rest % chunks) * Chunk;
        if (fl >= n_local) continue;
        if (side == 0)
          shared_face_traces<Real, NV, Np_m, Chunk>(s_m, s_phi_m, s_tm, Fb, fl, c_local[fl], q0, Nfq);
        else if constexpr (!Boundary)
          shared_face_traces<Real, NV, Np_p, Chunk>(s_p, s_phi_p, s_tp, Fb, fl, c_local[Fb + fl], q0, Nfq);
      }
      __syncthreads();
    }

    for (int i = threadIdx.x; i < Nfq * Fb; i += blockDim.x) {
      const int fl = i % Fb, q = i / Fb;
      if (fl >= n_local) continue;
      const index_t local = f0 + fl, f = k.begin + local;
      State um, up{};
      if constexpr (chunked) {
        for (int v = 0; v < NV; ++v) um[v] = s_tm[(v * Nfq + q) * Fb + fl];
        if constexpr (!Boundary) {
          const int qp = k.permutation[k.index.orientation[f] * Nfq + q];
          for (int v = 0; v < NV; ++v) up[v] = s_tp[(v * Nfq + qp) * Fb + fl];
        }
      } else {
        um = shared_trace<Physics, Np_m>(s_m, Fb, fl, s_phi_m + (k.index.local_m[f] * Nfq + q) * Np_m);
        if constexpr (!Boundary) {
          const int qp = k.permutation[k.index.orientation[f] * Nfq + q];
          up = shared_trace<Physics, Np_p>(s_p, Fb, fl, s_phi_p + (k.index.local_p[f] * Nfq + qp) * Np_p);
        }
      }
      k.template finish<Riemann>(local, q, um, up);
    }
  }
}

/// Launches the block face kernel over a face group, chunked (Chunk > 0) or not; Fb from
/// core_block_faces with the same choice; Riemann >= 0 fixes the numerical flux at compile time
/// (it must be kernel.riemann's: launch_core_face_block_kernel_per_solver).
template <int Chunk, int Riemann = -1, class Physics, Shape SM, Shape SP, int P, GeometryKind FG, bool Boundary>
void launch_core_face_block_kernel(const FaceKernel<Physics, SM, SP, P, FG, Boundary>& kernel, index_t n_faces, int Fb) {
  if (n_faces <= 0) return;
  constexpr auto function = core_face_block_kernel<Physics, SM, SP, P, FG, Boundary, Chunk, Riemann>;
  allow_block_shared_limit<function>();
  const int table = face_table_values(SM, SP, Boundary, P, kernel.Nfq);
  const std::size_t shared =
      sizeof(typename Physics::real) * static_cast<std::size_t>(table) +
      static_cast<std::size_t>(Fb) * face_block_bytes_per_face<Physics>(n_basis(SM, P), Boundary ? 0 : n_basis(SP, P), kernel.Nfq, Chunk > 0);
  const index_t per_block = static_cast<index_t>(Fb) * core_face_rounds;
  const auto blocks = static_cast<unsigned>((n_faces + per_block - 1) / per_block);
  detail::launch(false, function, blocks, 256, shared, kernel, n_faces, Fb);
}

/// The block face kernel built once per numerical flux, the one of kernel.riemann launched: no
/// switch over the three solvers inside the kernel (at p = 4 the switch's registers made the 3D
/// kernel spill under its 80-register cap). Three kernels instead of one: built for 3D Euler's
/// interior faces only (DgOperator::launch_face).
template <int Chunk, class Physics, Shape SM, Shape SP, int P, GeometryKind FG, bool Boundary>
void launch_core_face_block_kernel_per_solver(const FaceKernel<Physics, SM, SP, P, FG, Boundary>& kernel, index_t n_faces, int Fb) {
  switch (kernel.riemann) {
    case physics::RiemannKind::rusanov:
      launch_core_face_block_kernel<Chunk, static_cast<int>(physics::RiemannKind::rusanov)>(kernel, n_faces, Fb);
      return;
    case physics::RiemannKind::roe:
      launch_core_face_block_kernel<Chunk, static_cast<int>(physics::RiemannKind::roe)>(kernel, n_faces, Fb);
      return;
    case physics::RiemannKind::hllc:
    default:  // numerical_flux's own default
      launch_core_face_block_kernel<Chunk, static_cast<int>(physics::RiemannKind::hllc)>(kernel, n_faces, Fb);
      return;
  }
}

template <class Physics, Shape S, int P, GeometryKind G>
/// Elements [first, first + n_elements) of the group (a stage's range: run_stage's overlap).
void launch_core_element_block_kernel(const ElementKernel<Physics, S, P, G>& kernel, index_t first, index_t n_elements, int E) {
  if (n_elements <= 0) return;
  const std::size_t shared = sizeof(typename Physics::real) * static_cast<std::size_t>(E) *
                             static_cast<std::size_t>(block_values_per_element<Physics>(S, n_basis(S, P), kernel.Nq, kernel.Nfq));
  const auto blocks = static_cast<unsigned>((n_elements + E - 1) / E);
  if constexpr (S == Shape::quadrilateral && G == GeometryKind::curved) {
    if (kernel.collocated) {
      constexpr auto function = core_element_block_kernel<Physics, S, P, G, true>;
      allow_block_shared_limit<function>();
      detail::launch(false, function, blocks, 256, shared, kernel, first, first + n_elements, E);
      return;
    }
  }
  FLOWDG_ASSERT(!kernel.collocated, "collocated groups are quadrilaterals (setup.cpp)");
  constexpr auto function = core_element_block_kernel<Physics, S, P, G>;
  allow_block_shared_limit<function>();
  detail::launch(false, function, blocks, 256, shared, kernel, first, first + n_elements, E);
}

}  // namespace flowdg::dg
