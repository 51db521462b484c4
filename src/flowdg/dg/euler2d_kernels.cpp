// 2D Euler modal DG: set-up of geometry and basis tables, and the face and element kernels,
// written once and run by the CPU (OpenMP) and CUDA backends. Compiled by nvcc when CUDA is on.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>

#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/timer.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/dg/euler2d.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/physics/boundary/euler_boundary.hpp"
#include "flowdg/physics/riemann/hllc.hpp"
#include "flowdg/physics/riemann/roe.hpp"
#include "flowdg/physics/riemann/rusanov.hpp"

#ifndef FLOWDG_MAX_ORDER
#define FLOWDG_MAX_ORDER 6
#endif
// Register budget of the limiter (blocks of 256 threads per SM; 0: the compiler's choice), a macro
// so that a benchmark build can try others (3 and 0 measured slower than 4, docs/performance.md).
#ifndef FLOWDG_LIMITER_MIN_BLOCKS
#define FLOWDG_LIMITER_MIN_BLOCKS 4
#endif

namespace flowdg::euler2d {

namespace {

constexpr int NV = n_variables;

FLOWDG_HD constexpr int basis_count(int p) { return (p + 1) * (p + 2) / 2; }

/// Points of the degree-2p triangle rule (quadrature.cpp's tables), for kernels that need the
/// count at compile time; the solver checks it against the rule it builds.
FLOWDG_HD constexpr int volume_points(int p) {
  constexpr int points[] = {1, 3, 6, 12, 16, 25, 33, 42, 60};
  return p >= 0 && p <= 8 ? points[p] : -1;
}

/// The basis at the 3 (p + 1) edge points and the volume points, by value: carried inside a
/// kernel object, so that on the GPU it lives in the kernel-parameter constant bank and every
/// table entry in an unrolled loop is an immediate operand (no loads, no address arithmetic).
template <int P>
struct PointTables {
  static constexpr int Np = basis_count(P), Nq = volume_points(P), n_edge_points = 3 * (P + 1), n_points = n_edge_points + Nq;
  double phi[n_points * Np];  ///< [point * Np + j]: edge points (l * Nfq + q), then volume points (3 Nfq + k)
};

// ---- device-side descriptions ----------------------------------------------------------------

/// CUDA register budget of the thread-per-element kernel in 256-thread blocks per SM (0: none;
/// macros for benchmark builds).
#ifndef FLOWDG_ELEMENT_THREAD_MIN_BLOCKS
#define FLOWDG_ELEMENT_THREAD_MIN_BLOCKS 0
#endif

/// Threads per block of the thread-per-element kernel.
#ifndef FLOWDG_ELEMENT_THREAD_BLOCK
#define FLOWDG_ELEMENT_THREAD_BLOCK 128
#endif

/// Blocks per SM the face block kernel's register budget asks for (72 registers unbounded: 3).
#ifndef FLOWDG_FACE_BLOCK_MIN_BLOCKS
#define FLOWDG_FACE_BLOCK_MIN_BLOCKS 4
#endif

/// The same for the thread-per-face-point kernel (72 registers unbounded, 64 with 4).
#ifndef FLOWDG_FACE_POINT_MIN_BLOCKS
#define FLOWDG_FACE_POINT_MIN_BLOCKS 4
#endif

/// Per-element affine geometry, structure of arrays: [c * K + e] for c in
/// {dr/dx, dr/dy, ds/dx, ds/dy, 1/det J}.
enum GeometryComponent { rx = 0, ry, sx, sy, inverse_det, n_geometry };

struct Tables {
  View<const double> volume_phi;      ///< [k * Np + j]
  View<const double> volume_dphi_dr;  ///< [k * Np + j]
  View<const double> volume_dphi_ds;
  View<const double> volume_weight;   ///< [k]
  View<const double> face_phi;        ///< [(local_face * Nfq + q) * Np + j]
  View<const double> face_weight;     ///< [q]
  int n_volume_points = 0;
};

struct FaceData {
  View<const index_t> element_m, element_p;
  View<const int> local_face_m, local_face_p;
  View<const double> geometry;         ///< [c * n_faces + f], c in {nx, ny, half length}
  View<const double> boundary_points;  ///< [(c * Nfq + q) * n_boundary + f], c in {x, y}
  index_t n_faces = 0;     ///< the row stride of the per-face arrays (geometry, fluxes): >= the face count
  index_t n_boundary = 0;  ///< boundary faces, the first n_boundary faces
};

/// One stage's register update (runge_kutta.hpp's form, applied by apply_runge_kutta_stage).
struct StageUpdate {
  RungeKuttaStage stage{};
  double dt = 0;
  View<double> u0, q;  // empty when the scheme does not use them

  /// The stage update of coefficient u[index] from its residual.
  FLOWDG_HD FLOWDG_FORCEINLINE void apply(View<double> u, index_t index, double residual) const {
    apply_loaded(u, index, residual, u[index], q.data != nullptr ? q[index] : 0.0, u0.data != nullptr ? u0[index] : 0.0);
  }
  /// The same with u[index], q[index] and u0[index] already loaded (0 for a register not used).
  FLOWDG_HD FLOWDG_FORCEINLINE void apply_loaded(View<double> u, index_t index, double residual, double u_s, double q_k,
                                                 double u0_k) const {
    apply_runge_kutta_stage(stage, dt * residual, u0_k, q_k, u_s);
    if (q.data != nullptr) q[index] = q_k;
    u[index] = u_s;
  }
};

/// A load from memory that no thread writes during the kernel (the read-only data path on CUDA).
FLOWDG_HD FLOWDG_FORCEINLINE double load_unchanging(const double* address) {
#if defined(__CUDA_ARCH__)
  return __ldg(address);
#else
  return *address;
#endif
}

/// A load through L2 only (the device's point of coherence), for data that a kernel before the
/// previous one wrote: safe before wait_for_previous_grid() because the previous kernel itself
/// waited for that one, and no stale L1 line can answer it. Plain on the host.
FLOWDG_HD FLOWDG_FORCEINLINE double load_settled(const double* address) {
#if defined(__CUDA_ARCH__)
  return __ldcg(address);
#else
  return *address;
#endif
}

// ---- face kernels ----------------------------------------------------------------------------

/// Stores w_q |e|/2 F_n at face point q, in the minus side's orientation and point order.
template <int P>
FLOWDG_HD FLOWDG_FORCEINLINE void store_face_flux(View<double> face_flux, index_t f, index_t F, int q, double weight,
                                                  const State& flux) {
  for (int v = 0; v < NV; ++v) face_flux[(static_cast<index_t>(v) * (P + 1) + q) * F + f] = weight * flux[v];
}

FLOWDG_HD inline State ghost_state(const BoundaryCondition& bc, const State& um, double nx, double ny,
                                   double x, double y, double t, const Gas& gas) {
  switch (bc.kind) {
    case BoundaryKind::slip_wall: return slip_wall(um, nx, ny);
    case BoundaryKind::curvature_wall: {
      double tx = 0, ty = 0;
      circle_tangent(bc.center_x, bc.center_y, x, y, -ny, nx, tx, ty);
      return curvature_wall(um, tx, ty);
    }
    case BoundaryKind::inflow: return supersonic_inflow(bc.flow(x, y, t));
    case BoundaryKind::outflow: return supersonic_outflow(um);
    case BoundaryKind::farfield: return characteristic_farfield(um, bc.flow(x, y, t), nx, ny, gas);
    case BoundaryKind::prescribed: return bc.flow(x, y, t);
  }
  return um;
}

/// The trace of the P-th order solution of element e on local face l at edge point `point`
/// (summed over j in order, as the pre-optimisation per-face kernel did).
template <int P>
FLOWDG_HD FLOWDG_FORCEINLINE State face_trace_at(View<const double> u, index_t K, index_t e, int l, const Tables& tables,
                                                 int point) {
  constexpr int Np = basis_count(P), Nfq = P + 1;
  const double* phi = &tables.face_phi[(l * Nfq + point) * Np];
  State trace;
  for (int v = 0; v < NV; ++v) {
    double value = 0.0;
FLOWDG_UNROLL
    for (int j = 0; j < Np; ++j) value += u[(static_cast<index_t>(v) * Np + j) * K + e] * phi[j];
    trace[v] = value;
  }
  return trace;
}

/// Boundary conditions of up to max_ranges consecutive ranges of boundary faces, for one launch.
struct BoundaryRanges {
  static constexpr int max_ranges = 6;
  index_t end[max_ranges] = {};
  BoundaryCondition condition[max_ranges] = {};
  int n = 0;
};

/// All faces of a stage in one launch, one thread per (face, edge point): faces [first, last),
/// boundary faces (f < B) taking the condition of their range, interior faces the right element's
/// trace. A thread per point instead of per face keeps registers low (two states, not 2 (p + 1)),
/// so occupancy stays high at every order; the p + 1 threads of a face are neighbours in the warp
/// and share the elements' coefficients through L1.
template <int P, class Flux>
struct FacePointKernel {
  View<const double> u;
  View<double> face_flux;
  FaceData faces;
  Tables tables;
  index_t K;
  Gas gas;
  BoundaryRanges boundary;
  index_t first_face;
  double t;

  struct Geometry {
    double nx, ny, half_length;
  };

  /// What face point i reads that no kernel writes (element ids, local faces, geometry): loaded
  /// before a chained launch waits for the previous kernel (for_each_prefetching).
  struct Prefetched {
    index_t element_m = 0, element_p = 0;
    int local_m = 0, local_p = 0;
    Geometry geometry{};
  };
  FLOWDG_HD FLOWDG_FORCEINLINE Prefetched prefetch(index_t i) const {
    const index_t f = first_face + i / (P + 1);
    Prefetched r;
    r.element_m = faces.element_m[f];
    r.local_m = faces.local_face_m[f];
    if (f >= faces.n_boundary) {
      r.element_p = faces.element_p[f];
      r.local_p = faces.local_face_p[f];
    }
    r.geometry = face_geometry(f);
    return r;
  }

  FLOWDG_HD void operator()(index_t i, const Prefetched& r) const {
    constexpr int Nfq = P + 1;
    const index_t f = first_face + i / Nfq;
    const int q = static_cast<int>(i % Nfq);
    const State um = face_trace_at<P>(u, K, r.element_m, r.local_m, tables, q);
    // Eq. (16): the right element traverses the shared edge in the opposite direction.
    point_flux(f, q, r.geometry, um, [&] { return face_trace_at<P>(u, K, r.element_p, r.local_p, tables, Nfq - 1 - q); });
  }
  FLOWDG_HD void operator()(index_t i) const { (*this)(i, prefetch(i)); }
  FLOWDG_HD FLOWDG_FORCEINLINE Geometry face_geometry(index_t f) const {
    const index_t F = faces.n_faces;
    return {faces.geometry[f], faces.geometry[F + f], faces.geometry[2 * F + f]};
  }

  /// The flux at point q of face f from the left trace um; plus_trace() gives the right element's
  /// trace at the same point (called for interior faces only).
  template <class PlusTrace>
  FLOWDG_HD FLOWDG_FORCEINLINE void point_flux(index_t f, int q, const Geometry& g, const State& um, PlusTrace&& plus_trace) const {
    constexpr int Nfq = P + 1;
    const index_t F = faces.n_faces, B = faces.n_boundary;
    const double nx = g.nx, ny = g.ny;
    const double weight = g.half_length * tables.face_weight[q];
    if (f >= B) {
      store_face_flux<P>(face_flux, f, F, q, weight, Flux{}(um, plus_trace(), nx, ny, gas));
      return;
    }
    int range = 0;
    while (range + 1 < boundary.n && f >= boundary.end[range]) ++range;
    const double x = faces.boundary_points[static_cast<index_t>(q) * B + f];
    const double y = faces.boundary_points[static_cast<index_t>(Nfq + q) * B + f];
    const State up = ghost_state(boundary.condition[range], um, nx, ny, x, y, t, gas);
    store_face_flux<P>(face_flux, f, F, q, weight, Flux{}(um, up, nx, ny, gas));
  }
};

/// Faces per block of the CUDA face block kernel, and its threads (a pass of (p + 1) x 32 point threads).
/// Faces per block: as many as keep a point thread per (face, point) within the block, in steps of
/// 32 (p = 1: 128, p = 2, 3: 64, p = 4..7: 32); 0 where not even 32 faces fit (p >= 8).
#ifndef FLOWDG_FACE_BLOCK_FACES_MAX
#define FLOWDG_FACE_BLOCK_FACES_MAX 256
#endif
constexpr int face_block_threads = 256;

constexpr FLOWDG_HD int face_block_faces(int p) {
  const int fit = face_block_threads / (p + 1) / 32 * 32;
  return fit < FLOWDG_FACE_BLOCK_FACES_MAX ? fit : FLOWDG_FACE_BLOCK_FACES_MAX;
}

// ---- the tensor-core element kernel's matrices -------------------------------------------------

constexpr FLOWDG_HD int round_up(int n, int m) { return (n + m - 1) / m * m; }

/// The element kernel as two small matrix products per block of elements, padded to the 8 x 8 x 4
/// shape of the FP64 tensor-core instruction (columns: NV x elements):
///   values at the volume points   (M2 x K2 = Nq x Np)  x  coefficients (Np x columns);
///   residual (M3 x K3 = Np x (2 Nq + 3 Nfq))  x  [w F.grad r; w F.grad s; face fluxes] (rows x columns),
/// the second matrix being [dphi/dr | dphi/ds | phi at the 3 Nfq edge points]^T: the volume and the
/// surface sums in one product. Padding rows and columns are zero.
struct TensorLayout {
  int Np, Nq, Nfq, M2, K2, M3, K3;
};
constexpr FLOWDG_HD TensorLayout tensor_layout(int p) {
  const int Np = basis_count(p), Nq = volume_points(p), Nfq = p + 1;
  const int K3 = round_up(2 * Nq + 3 * Nfq, 4);
  return {Np, Nq, Nfq, round_up(Nq, 8), round_up(Np, 4), round_up(Np, 8), K3};
}

/// A2 (M2 x K2) then A3 (M3 x K3), row-major, from the basis tables ([point * Np + j]).
std::vector<double> tensor_tables(int p, const std::vector<double>& phi, const std::vector<double>& dphi_dr,
                                  const std::vector<double>& dphi_ds, const std::vector<double>& edge_phi) {
  const TensorLayout t = tensor_layout(p);
  std::vector<double> a(static_cast<std::size_t>(t.M2 * t.K2 + t.M3 * t.K3), 0.0);
  for (int k = 0; k < t.Nq; ++k)
    for (int j = 0; j < t.Np; ++j) a[k * t.K2 + j] = phi[k * t.Np + j];
  double* a3 = a.data() + t.M2 * t.K2;
  for (int j = 0; j < t.Np; ++j) {
    for (int k = 0; k < t.Nq; ++k) {
      a3[j * t.K3 + k] = dphi_dr[k * t.Np + j];
      a3[j * t.K3 + t.Nq + k] = dphi_ds[k * t.Np + j];
    }
    for (int point = 0; point < 3 * t.Nfq; ++point) a3[j * t.K3 + 2 * t.Nq + point] = edge_phi[point * t.Np + j];
  }
  return a;
}

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
      if (update.q.data != nullptr) r.q[i] = load_settled(&update.q.data[index]);
      if (update.u0.data != nullptr) r.u0[i] = load_settled(&update.u0.data[index]);
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
  const index_t e0 = static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(k.n_elements - e0 < E ? k.n_elements - e0 : E);
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
/// D += A B on the FP64 tensor cores for an 8 x 4 A, a 4 x 8 B and an 8 x 8 D, a warp together:
/// lane l holds A[l / 4][l % 4], B[l % 4][l / 4] and D[l / 4][2 (l % 4) + c], c = 0, 1.
__device__ FLOWDG_FORCEINLINE void dmma_8x8x4(double (&d)[2], double a, double b) {
#if __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
      : "+d"(d[0]), "+d"(d[1])
      : "d"(a), "d"(b));
#else
  __trap();  // the host never selects this kernel below compute capability 8.0
#endif
}

/// Elements per block of the tensor-core element kernel (a macro for benchmark builds).
#ifndef FLOWDG_TENSOR_ELEMENTS
#define FLOWDG_TENSOR_ELEMENTS 16
#endif
#ifndef FLOWDG_TENSOR_THREADS
#define FLOWDG_TENSOR_THREADS 256
#endif
constexpr int tensor_block_threads = FLOWDG_TENSOR_THREADS;

/// Shared memory of one block of element_tensor_kernel<P>: rows of 4 E + 8 doubles (a stride of
/// 8 mod 16 doubles puts the four rows of a B fragment in alternate bank halves: no conflicts).
constexpr int tensor_row_stride = NV * FLOWDG_TENSOR_ELEMENTS + 8;
template <int P>
std::size_t element_tensor_shared_bytes() {
  constexpr TensorLayout T = tensor_layout(P);
  constexpr int rows = T.K3 + T.Np + (n_geometry * FLOWDG_TENSOR_ELEMENTS + tensor_row_stride - 1) / tensor_row_stride;
  return sizeof(double) * static_cast<std::size_t>(rows * tensor_row_stride);
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

/// Global -> shared copies that bypass the registers (cp.async, compute capability 8.0): issued,
/// then committed as a group, then waited for by the issuing thread (a barrier makes them visible
/// to the others). 8 bytes through L1 (.ca: 8-byte copies cannot skip it).
__device__ FLOWDG_FORCEINLINE void copy_async_8(double* shared_destination, const void* global_source) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(shared_destination))),
               "l"(global_source)
               : "memory");
#else
  *shared_destination = *static_cast<const double*>(global_source);
#endif
}
/// The same for 16 bytes through L2 only (.cg), like load_settled: safe for data that a kernel
/// before the previous one wrote.
__device__ FLOWDG_FORCEINLINE void copy_async_16(double* shared_destination, const void* global_source) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(shared_destination))),
               "l"(global_source)
               : "memory");
#else
  shared_destination[0] = static_cast<const double*>(global_source)[0];
  shared_destination[1] = static_cast<const double*>(global_source)[1];
#endif
}
/// Waits for every committed group but the last.
__device__ FLOWDG_FORCEINLINE void copy_async_wait_prior() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 1;\n" ::: "memory");
#endif
}
__device__ FLOWDG_FORCEINLINE void copy_async_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
__device__ FLOWDG_FORCEINLINE void copy_async_wait() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

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
  constexpr int Np = T.Np, Nq = T.Nq, Nfq = T.Nfq, E = FLOWDG_TENSOR_ELEMENTS, S = tensor_row_stride;
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
  const index_t e0 = static_cast<index_t>(blockIdx.x) * E;
  const int n_local = static_cast<int>(k.n_elements - e0 < E ? k.n_elements - e0 : E);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int fragment_row = lane / 4, fragment_col = lane % 4;
  const StageUpdate& update = k.update;
  // The update's register held from the start: q if the scheme has it, else u0 (a scheme with
  // both loads u0 at the end).
  const double* prefetched_register = update.q.data != nullptr ? update.q.data : update.u0.data;

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
        const double a = __ldg(a2 + (mt * 8 + fragment_row) * T.K2 + ks * 4 + fragment_col);
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
      const double a = __ldg(a3 + (mt * 8 + fragment_row) * T.K3 + ks * 4 + fragment_col);
#pragma unroll
      for (int t = 0; t < TW; ++t) dmma_8x8x4(acc[mt][t], a, bs[t]);
    }
  }
  const bool has_q = update.q.data != nullptr, has_u0 = update.u0.data != nullptr;
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
  constexpr int E = FLOWDG_TENSOR_ELEMENTS;
  const auto blocks = static_cast<unsigned>((kernel.n_elements + E - 1) / E);
  detail::launch(chained, tensor_kernel, blocks, tensor_block_threads, shared, kernel, tables, tables + T.M2 * T.K2);
}

/// All faces of a stage like FacePointKernel, but each trace is evaluated once per face instead of
/// once per face point: a thread per (face, side, variable) sums the Np coefficients into the
/// Nfq point values (shared memory), then a thread per (face, point) computes the flux. Each point
/// thread of FacePointKernel loads 2 x 4 Np coefficients; here a face loads them once (p + 1 times
/// fewer scattered loads). The sums run in the same order as face_trace_at's: the same numbers.
template <int P, class Flux>
__global__ void __launch_bounds__(face_block_threads, FLOWDG_FACE_BLOCK_MIN_BLOCKS) face_block_kernel(FacePointKernel<P, Flux> k, index_t n_faces) {
  constexpr int Np = basis_count(P), Nfq = P + 1, FB = face_block_faces(P);
  constexpr int items = 2 * NV * FB, rounds = (items + face_block_threads - 1) / face_block_threads;
  static_assert(Nfq * FB <= face_block_threads, "one pass of point threads");
  __shared__ double s_trace[2 * NV * Nfq * FB];  // [((side * NV + v) * Nfq + q) * FB + fl]
  __shared__ double s_phi[3 * Nfq * Np];
  // The face geometry waits for the point phase in registers up to p = 4 and in shared memory from
  // p = 5, where registers held through the trace sums cost spills (log 32: p = 3 400 -> 425 us
  // in shared memory, p = 5 755 -> 700 us).
  constexpr bool geometry_in_shared = P >= 5;
  __shared__ typename FacePointKernel<P, Flux>::Geometry s_geometry[geometry_in_shared ? FB : 1];
  const index_t first = static_cast<index_t>(blockIdx.x) * FB;
  const int n_local = static_cast<int>(n_faces - first < FB ? n_faces - first : FB);
  const index_t f0 = k.first_face + first, B = k.faces.n_boundary;
  // What no kernel writes is loaded before waiting for the previous kernel (a chained launch):
  // the basis at the edge points, the elements and local faces of this thread's traces, and the
  // face geometry of the point phase (used after the barrier, so its load is not on the way).
  for (int i = threadIdx.x; i < 3 * Nfq * Np; i += blockDim.x) s_phi[i] = k.tables.face_phi[i];
  index_t element[rounds];
  int local_face[rounds];
#pragma unroll
  for (int r = 0; r < rounds; ++r) {
    const int i = static_cast<int>(threadIdx.x) + r * face_block_threads, fl = i % FB, side = i / (NV * FB);
    const index_t f = f0 + fl;
    element[r] = -1;
    local_face[r] = 0;
    if (i >= items || fl >= n_local || (side == 1 && f < B)) continue;
    element[r] = side == 0 ? k.faces.element_m[f] : k.faces.element_p[f];
    local_face[r] = side == 0 ? k.faces.local_face_m[f] : k.faces.local_face_p[f];
  }
  const int point_fl = static_cast<int>(threadIdx.x) % FB, point_q = static_cast<int>(threadIdx.x) / FB;
  const bool point_thread = point_q < Nfq && point_fl < n_local;
  typename FacePointKernel<P, Flux>::Geometry geometry{};
  if constexpr (geometry_in_shared) {
    if (threadIdx.x < FB && static_cast<int>(threadIdx.x) < n_local) s_geometry[threadIdx.x] = k.face_geometry(f0 + threadIdx.x);
  } else if (point_thread) {
    geometry = k.face_geometry(f0 + point_fl);
  }
  detail::wait_for_previous_grid();
  __syncthreads();
#pragma unroll
  for (int r = 0; r < rounds; ++r) {
    const int i = static_cast<int>(threadIdx.x) + r * face_block_threads, fl = i % FB, side = i / (NV * FB), v = (i / FB) % NV;
    if (element[r] < 0) continue;
    const index_t e = element[r];
    const int l = local_face[r];
    const double* phi = s_phi + l * Nfq * Np;
    double trace[Nfq];
#pragma unroll
    for (int q = 0; q < Nfq; ++q) trace[q] = 0.0;
#pragma unroll
    for (int j = 0; j < Np; ++j) {
      const double c = __ldg(k.u.data + static_cast<index_t>(v * Np + j) * k.K + e);
#pragma unroll
      for (int q = 0; q < Nfq; ++q) trace[q] += c * phi[q * Np + j];
    }
#pragma unroll
    for (int q = 0; q < Nfq; ++q) s_trace[((side * NV + v) * Nfq + q) * FB + fl] = trace[q];
  }
  __syncthreads();
  if (!point_thread) return;
  State um;
  for (int v = 0; v < NV; ++v) um[v] = s_trace[(v * Nfq + point_q) * FB + point_fl];
  k.point_flux(f0 + point_fl, point_q, geometry_in_shared ? s_geometry[point_fl] : geometry, um, [&] {
    State up;
    for (int v = 0; v < NV; ++v) up[v] = s_trace[((NV + v) * Nfq + Nfq - 1 - point_q) * FB + point_fl];
    return up;
  });
}

/// Faces per warp of face_warp_kernel: as many as the warp's 32 lanes hold with a lane per point.
constexpr FLOWDG_HD int face_warp_faces(int p) { return 32 / (p + 1); }
constexpr int face_warp_threads = 256;

/// All faces of a stage like face_block_kernel, but each warp owns its own G = 32 / (p + 1) faces
/// and synchronises only itself: no block barrier stalls a warp on another's loads, and the flux
/// phase uses 32 - 32 mod (p + 1) lanes of the warp. A lane per (face, side, variable) sums the
/// trace into the warp's shared rows; then a lane per (face, point) takes both traces (and its
/// face's geometry, loaded at the start) and computes the flux. The sums run in face_trace_at's
/// order: the same numbers as the other face kernels. Not chosen automatically: the block kernel
/// with 64 registers and wider blocks is faster at every order from 3 (docs/performance.md, log
/// 19, 27-28); kept for comparison (--faces warp). Its id and trace loops repeat the block
/// kernel's on purpose: shared helpers for them made the block kernel 2% slower at p = 3, 4 (H100,
/// session 6).
template <int P, class Flux>
__global__ void __launch_bounds__(face_warp_threads, 4) face_warp_kernel(FacePointKernel<P, Flux> k, index_t n_faces) {
  constexpr int Np = basis_count(P), Nfq = P + 1, G = face_warp_faces(P), warps = face_warp_threads / 32;
  constexpr int items = 2 * NV * G, rounds = (items + 31) / 32;
  __shared__ double s_phi[3 * Nfq * Np];
  __shared__ double s_trace[warps][2 * NV * Nfq * G];  // [((side * NV + v) * Nfq + q) * G + fl]
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  const index_t first = (static_cast<index_t>(blockIdx.x) * warps + warp) * G;
  const int n_local = first < n_faces ? static_cast<int>(n_faces - first < G ? n_faces - first : G) : 0;
  const index_t f0 = k.first_face + first, B = k.faces.n_boundary;
  // This lane's work in both phases: what no kernel writes is loaded before waiting for the
  // previous kernel (a chained launch) and before the block's one barrier.
  const int point_fl = lane % G, point_q = lane / G;
  const bool point_lane = point_q < Nfq && point_fl < n_local;
  typename FacePointKernel<P, Flux>::Geometry geometry{};
  if (point_lane) geometry = k.face_geometry(f0 + point_fl);
  index_t element[rounds];
  int local_face[rounds];
#pragma unroll
  for (int r = 0; r < rounds; ++r) {
    const int i = r * 32 + lane, fl = i % G, side = i / (NV * G);
    const index_t f = f0 + fl;
    element[r] = -1;
    local_face[r] = 0;
    if (i < items && fl < n_local && (side == 0 || f >= B)) {
      element[r] = side == 0 ? k.faces.element_m[f] : k.faces.element_p[f];
      local_face[r] = side == 0 ? k.faces.local_face_m[f] : k.faces.local_face_p[f];
    }
  }
  for (int i = threadIdx.x; i < 3 * Nfq * Np; i += blockDim.x) s_phi[i] = k.tables.face_phi[i];
  detail::wait_for_previous_grid();  // the coefficients are the previous kernel's output
  __syncthreads();
  double* trace_rows = s_trace[warp];
#pragma unroll
  for (int r = 0; r < rounds; ++r) {
    if (element[r] < 0) continue;
    const int i = r * 32 + lane, fl = i % G, side = i / (NV * G), v = (i / G) % NV;
    const double* phi = s_phi + local_face[r] * Nfq * Np;
    double trace[Nfq];
#pragma unroll
    for (int q = 0; q < Nfq; ++q) trace[q] = 0.0;
#pragma unroll
    for (int j = 0; j < Np; ++j) {
      const double c = __ldg(k.u.data + static_cast<index_t>(v * Np + j) * k.K + element[r]);
#pragma unroll
      for (int q = 0; q < Nfq; ++q) trace[q] += c * phi[q * Np + j];
    }
#pragma unroll
    for (int q = 0; q < Nfq; ++q) trace_rows[((side * NV + v) * Nfq + q) * G + fl] = trace[q];
  }
  __syncwarp();
  if (!point_lane) return;
  State um;
  for (int v = 0; v < NV; ++v) um[v] = trace_rows[(v * Nfq + point_q) * G + point_fl];
  k.point_flux(f0 + point_fl, point_q, geometry, um, [&] {
    State up;
    for (int v = 0; v < NV; ++v) up[v] = trace_rows[((NV + v) * Nfq + Nfq - 1 - point_q) * G + point_fl];
    return up;
  });
}

template <int P, class Flux>
void launch_face_warp_kernel(const FacePointKernel<P, Flux>& kernel, index_t n_faces, bool chained) {
  if (n_faces <= 0) return;
  constexpr index_t per_block = face_warp_faces(P) * (face_warp_threads / 32);
  const auto blocks = static_cast<unsigned>((n_faces + per_block - 1) / per_block);
  detail::launch(chained, face_warp_kernel<P, Flux>, blocks, face_warp_threads, 0, kernel, n_faces);
}

template <int P, class Flux>
void launch_face_block_kernel(const FacePointKernel<P, Flux>& kernel, index_t n_faces, bool chained) {
  if (n_faces <= 0) return;
  constexpr int FB = face_block_faces(P);
  const auto blocks = static_cast<unsigned>((n_faces + FB - 1) / FB);
  detail::launch(chained, face_block_kernel<P, Flux>, blocks, face_block_threads, 0, kernel, n_faces);
}
#endif

/// Slope limiting and positivity of one element, after a stage (2015 paper, section 4.3.5).
/// Barth-Jespersen: per variable, alpha = the largest factor on the element's slope such that no
/// value at an edge quadrature point leaves [min, max] of the centroid values of the element and
/// its edge neighbours; the linear coefficients are multiplied by alpha. For p > 1 the element is
/// left untouched while its full polynomial stays, at the edge points, inside the bounds of the
/// means of every element sharing a vertex with it (the wider stencil keeps smooth data from being
/// flagged, so smooth regions keep high order); otherwise its higher modes are dropped and the
/// linear part is limited as for p = 1.
/// Zhang-Shu positivity then scales the element's deviation from its mean so that density and
/// pressure are at least epsilon at every volume and edge quadrature point.
/// Only an element's own non-constant coefficients change, so the means it reads are never
/// written during the kernel: all loads go through the read-only path, a thread loads its
/// element's coefficients once into registers (all loads in flight together), works there, and
/// writes back only the variables that changed (most elements of a shock problem: none).
template <int P, bool Slopes, bool Characteristic, bool Positivity>
struct LimiterKernel {
  View<double> u;
  View<const index_t> element_neighbours;  ///< [l * K + e]: the element across face l (e itself on a boundary)
  View<const index_t> vertex_neighbour_offsets, vertex_neighbours;  ///< CSR, elements sharing a vertex
  PointTables<P> tables;
  index_t K;
  Gas gas;
  // Slopes: Barth-Jespersen; Characteristic: limit characteristic instead of conserved variables;
  // Positivity: Zhang-Shu scaling afterwards.

  static constexpr int Np = basis_count(P);
  static constexpr double phi0 = 0.70710678118654752440;  // phi_0 on the reference triangle

  /// One element's coefficients and which variables have changed.
  struct Element {
    double c[NV][Np];
    bool changed[NV];
  };

  /// The mean of variable v on element n.
  FLOWDG_HD double mean_of(int v, index_t n) const { return load_unchanging(&u.data[static_cast<index_t>(v) * Np * K + n]) * phi0; }

  /// The largest alpha <= 1 keeping mean + alpha (s1 phi_1 + s2 phi_2) inside [low, high] at every
  /// edge point; 1 where no edge deviation exceeds `noise` (rounding noise of a uniform state, which
  /// would otherwise be scaled by an arbitrary factor, and the element rewritten, everywhere).
  FLOWDG_HD double barth_jespersen_factor(double mean, double low, double high, double s1, double s2, double noise = 0.0) const {
    // min over the points of bound / deviation: the bound is the same for every positive (every
    // negative) deviation and a correctly rounded quotient is monotone in its divisor, so the
    // smallest quotient is the one by the largest positive (most negative) deviation: two
    // divisions instead of one per point, the same value.
    double largest = 0.0, most_negative = 0.0;
FLOWDG_UNROLL
    for (int point = 0; point < PointTables<P>::n_edge_points; ++point) {
      const double deviation = s1 * tables.phi[point * Np + 1] + s2 * tables.phi[point * Np + 2];
      largest = deviation > largest ? deviation : largest;
      most_negative = deviation < most_negative ? deviation : most_negative;
    }
    if (largest <= noise && most_negative >= -noise) return 1.0;
    double alpha = 1.0;
    if (largest > 0 && (high - mean) / largest < alpha) alpha = (high - mean) / largest;
    if (most_negative < 0 && (low - mean) / most_negative < alpha) alpha = (low - mean) / most_negative;
    return alpha < 0 ? 0 : alpha;
  }

  /// For p > 1: whether variable v's polynomial leaves, at an edge point, the range of the means of
  /// the element and every element sharing a vertex with it.
  FLOWDG_HD bool troubled(const Element& x, int v, index_t e) const {
    const double mean = x.c[v][0] * phi0;
    double low = mean, high = mean;
    for (index_t k = vertex_neighbour_offsets[e]; k < vertex_neighbour_offsets[e + 1]; ++k) {
      const double other = mean_of(v, vertex_neighbours[k]);
      low = other < low ? other : low;
      high = other > high ? other : high;
    }
    bool outside = false;
FLOWDG_UNROLL
    for (int point = 0; point < PointTables<P>::n_edge_points; ++point) {
      double value = 0;
FLOWDG_UNROLL
      for (int j = 0; j < Np; ++j) value += x.c[v][j] * tables.phi[point * Np + j];
      outside = outside || value < low || value > high;
    }
    return outside;
  }

  /// The element's face neighbours (no kernel writes them): loaded before a chained launch waits
  /// for the element kernel (for_each_prefetching).
  struct Prefetched {
    index_t neighbours[3] = {};
  };
  FLOWDG_HD FLOWDG_FORCEINLINE Prefetched prefetch(index_t e) const {
    Prefetched r;
    for (int l = 0; l < 3; ++l) r.neighbours[l] = element_neighbours[l * K + e];
    return r;
  }

  FLOWDG_HD void limit(Element& x, index_t e, const index_t (&neighbours)[3]) const {
    bool limit_variable[NV] = {true, true, true, true};
    if constexpr (P > 1) {
      bool any = false;
      for (int v = 0; v < NV; ++v) any = (limit_variable[v] = troubled(x, v, e)) || any;
      if (!any) return;
      if constexpr (Characteristic)  // the characteristic fields mix all variables: reduce them all
        for (int v = 0; v < NV; ++v) limit_variable[v] = true;
      for (int v = 0; v < NV; ++v)
        if (limit_variable[v]) {
          for (int j = 3; j < Np; ++j) x.c[v][j] = 0.0;
          x.changed[v] = true;
        }
    }
    // The neighbours' means, all loads issued before any is used.
    double others[3][NV];
FLOWDG_UNROLL
    for (int l = 0; l < 3; ++l)
FLOWDG_UNROLL
      for (int v = 0; v < NV; ++v) others[l][v] = mean_of(v, neighbours[l]);
    if constexpr (!Characteristic) {
      // Deviations below 1e-13 of the element's state size are rounding noise (Barth-Jespersen is
      // undefined for a zero deviation; codes take alpha = 1 there).
      double size = 0;
      for (int v = 0; v < NV; ++v) size += fabs(x.c[v][0]);
      const double noise = 1e-13 * phi0 * size;
      for (int v = 0; v < NV; ++v) {
        if (!limit_variable[v]) continue;
        const double mean = x.c[v][0] * phi0;
        double low = mean, high = mean;
        for (int l = 0; l < 3; ++l) {
          const double other = others[l][v];
          low = other < low ? other : low;
          high = other > high ? other : high;
        }
        const double alpha = barth_jespersen_factor(mean, low, high, x.c[v][1], x.c[v][2], noise);
        if (alpha < 1.0) {
          for (int j = 1; j < 3; ++j) x.c[v][j] *= alpha;
          x.changed[v] = true;
        }
      }
    } else {
      // Characteristic variables of the flux Jacobian at the element mean, along the mean velocity.
      State mean;
      for (int v = 0; v < NV; ++v) mean[v] = x.c[v][0] * phi0;
      if (!is_admissible(mean, gas)) return;
      double nx = mean[1], ny = mean[2];
      const double length = sqrt(nx * nx + ny * ny);
      if (length > 1e-12 * mean[0]) {
        nx /= length;
        ny /= length;
      } else {
        nx = 1.0;
        ny = 0.0;
      }
      double right[4][4], left[4][4];
      characteristic_matrices(mean, nx, ny, gas, right, left);
      double alpha[4], slopes[4][2];
      bool limited = false;
      for (int k = 0; k < NV; ++k) {
        double w_mean = 0, low = 0, high = 0;
        for (int v = 0; v < NV; ++v) w_mean += left[k][v] * mean[v];
        low = high = w_mean;
        for (int l = 0; l < 3; ++l) {
          double other = 0;
          for (int v = 0; v < NV; ++v) other += left[k][v] * others[l][v];
          low = other < low ? other : low;
          high = other > high ? other : high;
        }
        for (int j = 0; j < 2; ++j) {
          slopes[k][j] = 0;
          for (int v = 0; v < NV; ++v) slopes[k][j] += left[k][v] * x.c[v][j + 1];
        }
        alpha[k] = barth_jespersen_factor(w_mean, low, high, slopes[k][0], slopes[k][1]);
        limited = limited || alpha[k] < 1.0;
      }
      if (!limited) return;  // leave the coefficients exactly as they are
      for (int v = 0; v < NV; ++v) {
        for (int j = 0; j < 2; ++j) {
          double value = 0;
          for (int k = 0; k < NV; ++k) value += right[v][k] * alpha[k] * slopes[k][j];
          x.c[v][j + 1] = value;
        }
        x.changed[v] = true;
      }
    }
  }

  /// State at point `point` of the 3 (p + 1) edge points followed by the volume points.
  FLOWDG_HD FLOWDG_FORCEINLINE State point_state(const Element& x, int point) const {
    const double* phi = &tables.phi[point * Np];
    State state;
FLOWDG_UNROLL
    for (int v = 0; v < NV; ++v) {
      double value = 0;
FLOWDG_UNROLL
      for (int j = 0; j < Np; ++j) value += x.c[v][j] * phi[j];
      state[v] = value;
    }
    return state;
  }

  /// pressure(U) >= epsilon && U[0] >= epsilon for epsilon > 0, without pressure()'s division where
  /// the answer is clear: (gamma - 1)(E rho - |m|^2 / 2) >= epsilon rho with a margin of 1e-12 of the
  /// terms' size (far above the rounding of either form); otherwise pressure() itself decides.
  FLOWDG_HD bool at_least(const State& U, double epsilon) const {
    if (!(U[0] >= epsilon)) return false;
    const double g = gas.gamma - 1.0, kinetic = 0.5 * (U[1] * U[1] + U[2] * U[2]);
    const double scaled = g * (U[3] * U[0] - kinetic), margin = 1e-12 * g * (fabs(U[3]) * U[0] + kinetic);
    if (scaled - margin >= epsilon * U[0] * (1.0 + 1e-12)) return true;
    return pressure(U, gas) >= epsilon;
  }

  FLOWDG_HD void enforce_positivity(Element& x) const {
    State mean;
    for (int v = 0; v < NV; ++v) mean[v] = x.c[v][0] * phi0;
    if (!is_admissible(mean, gas)) return;  // nothing to scale towards; the time-step check reports it
    const double epsilon = fmin(1e-13, fmin(mean[0], pressure(mean, gas)));
    constexpr int n_points = PointTables<P>::n_points;
    // Density: one factor for the density's own deviation.
    double lowest = mean[0];
FLOWDG_UNROLL
    for (int point = 0; point < n_points; ++point) {
      const double rho = point_state(x, point)[0];
      lowest = rho < lowest ? rho : lowest;
    }
    if (lowest < epsilon) {
      const double theta = (mean[0] - epsilon) / (mean[0] - lowest);
      for (int j = 1; j < Np; ++j) x.c[0][j] *= theta;
      x.changed[0] = true;
    }
    // Pressure: p is concave in U, so p(mean + t (U - mean)) >= epsilon on [0, t*] with t* found by
    // bisection per point; all variables' deviations are scaled by the smallest t*.
    double theta = 1.0;
FLOWDG_UNROLL
    for (int point = 0; point < n_points; ++point) {
      const State state = point_state(x, point);
      if (at_least(state, epsilon)) continue;
      double good = 0.0, bad = 1.0;
      for (int iteration = 0; iteration < 50; ++iteration) {
        const double middle = 0.5 * (good + bad);
        const State trial = mean + middle * (state - mean);
        if (trial[0] >= epsilon && pressure(trial, gas) >= epsilon) {
          good = middle;
        } else {
          bad = middle;
        }
      }
      theta = good < theta ? good : theta;
    }
    if (theta < 1.0)
      for (int v = 0; v < NV; ++v) {
        for (int j = 1; j < Np; ++j) x.c[v][j] *= theta;
        x.changed[v] = true;
      }
  }

  FLOWDG_HD void operator()(index_t e) const { (*this)(e, prefetch(e)); }
  FLOWDG_HD void operator()(index_t e, const Prefetched& pre) const {
    Element x;
FLOWDG_UNROLL
    for (int v = 0; v < NV; ++v) {
FLOWDG_UNROLL
      for (int j = 0; j < Np; ++j) x.c[v][j] = load_unchanging(&u.data[(static_cast<index_t>(v) * Np + j) * K + e]);
      x.changed[v] = false;
    }
    if constexpr (Slopes) limit(x, e, pre.neighbours);
    if constexpr (Positivity) enforce_positivity(x);
FLOWDG_UNROLL
    for (int v = 0; v < NV; ++v)
      if (x.changed[v])
FLOWDG_UNROLL
        for (int j = 1; j < Np; ++j) u[(static_cast<index_t>(v) * Np + j) * K + e] = x.c[v][j];
  }
};

/// h_e / (|v| + c) at the element mean; h_e is the smallest altitude (2 area / longest edge).
struct TimeStepKernel {
  View<const double> u;
  View<const double> h;
  index_t K;  ///< the row stride of u
  int Np;
  Gas gas;
  FLOWDG_HD double operator()(index_t e) const {
    // phi_0 = 1/sqrt(2) on the reference triangle, so the mean is c_0 / sqrt(2).
    const double to_mean = 0.70710678118654752440;
    State mean;
    for (int v = 0; v < NV; ++v) mean[v] = u[static_cast<index_t>(v) * Np * K + e] * to_mean;
    if (!is_admissible(mean, gas)) return -1.0;  // flagged; the host reports it
    return h[e] / max_wave_speed(mean, gas);
  }
};

struct ChangeKernel {
  View<const double> a, b;
  FLOWDG_HD double operator()(index_t i) const { return std::fabs(a[i] - b[i]); }
};

// ---- compile-time dispatch -------------------------------------------------------------------

template <int P = 0, class F>
void with_order(int order, F&& function) {
  if constexpr (P > FLOWDG_MAX_ORDER) {
    throw InputError(cat("order ", order, " is not compiled in (0..", FLOWDG_MAX_ORDER,
                         "; rebuild with -DFLOWDG_MAX_ORDER=N for more)"));
  } else {
    if (order == P) {
      function(std::integral_constant<int, P>{});
    } else {
      with_order<P + 1>(order, std::forward<F>(function));
    }
  }
}

template <class F>
void with_flux(RiemannSolver solver, F&& function) {
  switch (solver) {
    case RiemannSolver::rusanov: function(RusanovFlux{}); return;
    case RiemannSolver::hllc: function(HllcFlux{}); return;
    case RiemannSolver::roe: function(RoeFlux{}); return;
  }
}

}  // namespace

int max_order() { return FLOWDG_MAX_ORDER; }

// ---- set-up ----------------------------------------------------------------------------------

struct Solver::Data {
  Backend backend{};
  int order = 0, Np = 0, Nfq = 0, Nq = 0;
  index_t K = 0, F = 0, B = 0;
  /// Row strides of the structure-of-arrays data: per-element arrays are [row * Ks + e], per-face
  /// arrays [row * Fs + f], with Ks, Fs the counts rounded up to 32 so that every row starts on a
  /// 256-byte boundary (with K = 4 mod 16 the rows were misaligned and the p = 1 element kernel ran
  /// at 74-76% of copy bandwidth instead of 94-97%). Host-side vectors stay unpadded.
  index_t Ks = 0, Fs = 0;
  static index_t padded(index_t n) { return (n + 31) / 32 * 32; }
  Array<double> u, u0, q, flux, saved;
  Array<double> geometry, h;
  Array<index_t> element_face_code;
  Array<index_t> element_neighbours;  ///< [l * K + e]: across face l; e itself on a boundary
  Array<index_t> face_element_m, face_element_p;
  Array<index_t> vertex_neighbour_offsets, vertex_neighbours;
  Array<int> face_local_m, face_local_p;
  Array<double> face_geometry, boundary_points;
  Array<double> volume_phi, volume_dphi_dr, volume_dphi_ds, volume_weight, face_phi, face_weight;
  std::vector<double> point_phi;  ///< face_phi then volume_phi on the host, for kernels that carry them by value
  Array<double> tensor_tables;    ///< CUDA, p >= 1: the tensor-core element kernel's A2 and A3 (tensor_tables())
  GpuElementKernel element_kernel = GpuElementKernel::thread;  ///< resolved from the options (CUDA)
  GpuFaceKernel face_kernel = GpuFaceKernel::point;
  bool chained = false;  ///< CUDA, compute capability >= 9.0: stage kernels as programmatic dependent launches
  struct Range {
    index_t begin, end;
    BoundaryCondition condition;
  };
  std::vector<Range> boundary_ranges;
  // Host copies for projection and error integrals.
  std::vector<Point3> vertices;  ///< [3 * e + k]
  std::vector<double> det_jacobian;

  Tables tables() const {
    return {volume_phi.view(), volume_dphi_dr.view(), volume_dphi_ds.view(), volume_weight.view(),
            face_phi.view(),   face_weight.view(),    Nq};
  }
  FaceData faces() const {
    return {face_element_m.view(), face_element_p.view(), face_local_m.view(), face_local_p.view(),
            face_geometry.view(),  boundary_points.view(), Fs, B};
  }
};

namespace {
/// rows x n values, row-major, to rows x stride (zeros in the padding), and back.
template <class T>
std::vector<T> pad_rows(const std::vector<T>& values, index_t rows, index_t n, index_t stride) {
  if (stride == n) return values;
  std::vector<T> padded(static_cast<std::size_t>(rows * stride), T{});
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < rows; ++r) std::copy_n(values.begin() + r * n, n, padded.begin() + r * stride);
  return padded;
}
template <class T>
std::vector<T> unpad_rows(const std::vector<T>& padded, index_t rows, index_t n, index_t stride) {
  if (stride == n) return padded;
  std::vector<T> values(static_cast<std::size_t>(rows * n));
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < rows; ++r) std::copy_n(padded.begin() + r * stride, n, values.begin() + r * n);
  return values;
}

/// Which CUDA kernels a stage runs. Automatic, by the H100 measurements of docs/performance.md
/// (log 16-33): element kernel thread at p <= 1 (92-118% of copy bandwidth), tensor from p = 2
/// (since log 31 faster than the block kernel there too); face kernel point at p <= 1, block from
/// p = 2 (since log 33 faster than the point kernel there from mesh F up). The tensor cores' FP64
/// instruction needs compute capability 8.0: below it the block element kernel runs instead.
void resolve_gpu_kernels(Solver::Data& d, const SolverOptions& options) {
  d.element_kernel = GpuElementKernel::thread;
  d.face_kernel = GpuFaceKernel::point;
  d.chained = false;
  if (d.backend != Backend::cuda) return;
  GpuElementKernel element = options.element_kernel;
  if (element == GpuElementKernel::automatic)
    element = d.order >= 2 ? GpuElementKernel::tensor : GpuElementKernel::thread;
  if (d.order < 1) element = GpuElementKernel::thread;  // the block kernels are built from p = 1
  if (element == GpuElementKernel::tensor && device_compute_capability() < 80) element = GpuElementKernel::block;
  // The tensor kernel keeps face codes (2 * face + side) in 32-bit registers.
  if (element == GpuElementKernel::tensor && 2 * d.F + 1 > std::numeric_limits<int>::max()) element = GpuElementKernel::block;
  d.element_kernel = element;
  GpuFaceKernel face = options.face_kernel;
  if (face == GpuFaceKernel::automatic)
    face = d.order >= 2 ? GpuFaceKernel::block : GpuFaceKernel::point;
  if (face == GpuFaceKernel::block && face_block_faces(d.order) == 0) face = GpuFaceKernel::point;  // not built there
  d.face_kernel = face;
  d.chained = uses_chained_launches(d.backend, options.chained_launches);
}

Point3 map_to_physical(const Point3* v, Point3 reference) {
  const double a = 0.5 * (1.0 + reference.x), b = 0.5 * (1.0 + reference.y);
  return v[0] + a * (v[1] - v[0]) + b * (v[2] - v[0]);
}
}  // namespace

Solver::Solver(const Mesh& mesh, const Connectivity& connectivity, SolverOptions options)
    : options_(std::move(options)), data_(std::make_unique<Data>()) {
  const int p = options_.order;
  if (p < 0 || p > FLOWDG_MAX_ORDER)
    throw InputError(cat("order ", p, " is out of range: this build supports 0..", FLOWDG_MAX_ORDER));
  if (mesh.dimension != 2) throw InputError(cat("2D Euler needs a 2D mesh; ", mesh.source, " is ", mesh.dimension, "D"));
  for (index_t e = 0; e < mesh.n_elements(); ++e)
    if (mesh.element_types[e] != ElementType::triangle3)
      throw InputError(cat("2D Euler runs on straight-sided triangles; element ", e, " of ", mesh.source,
                           " is a ", type_name(mesh.element_types[e])));

  Data& d = *data_;
  d.backend = options_.backend;
  d.order = p;
  d.Np = basis_count(p);
  d.Nfq = p + 1;
  d.K = n_elements_ = mesh.n_elements();
  d.Ks = Data::padded(d.K);
  d.F = connectivity.n_faces();
  d.B = connectivity.n_boundary_faces();
  d.Fs = Data::padded(d.F);
  const Space space = space_of(d.backend);
  const index_t K = d.K, F = d.F, B = d.B;
  const int Np = d.Np, Nfq = d.Nfq;

  // Basis tables.
  const QuadratureRule volume_rule = triangle_rule(2 * p);
  const QuadratureRule edge_rule = gauss_legendre(Nfq);
  d.Nq = volume_rule.size();
  std::vector<double> phi(d.Nq * Np), dphi_dr(d.Nq * Np), dphi_ds(d.Nq * Np);
  std::vector<double> values(Np);
  std::vector<Point3> gradients(Np);
  for (int k = 0; k < d.Nq; ++k) {
    basis_gradients(Shape::triangle, p, volume_rule.points[k], values.data(), gradients.data());
    for (int j = 0; j < Np; ++j) {
      phi[k * Np + j] = values[j];
      dphi_dr[k * Np + j] = gradients[j].x;
      dphi_ds[k * Np + j] = gradients[j].y;
    }
  }
  std::vector<double> edge_phi(3 * Nfq * Np);
  for (int l = 0; l < 3; ++l)
    for (int q = 0; q < Nfq; ++q) {
      basis_values(Shape::triangle, p, face_to_element(Shape::triangle, l, edge_rule.points[q]), values.data());
      for (int j = 0; j < Np; ++j) edge_phi[(l * Nfq + q) * Np + j] = values[j];
    }
  d.volume_phi = Array<double>(space, phi);
  d.volume_dphi_dr = Array<double>(space, dphi_dr);
  d.volume_dphi_ds = Array<double>(space, dphi_ds);
  d.volume_weight = Array<double>(space, volume_rule.weights);
  d.face_phi = Array<double>(space, edge_phi);
  d.point_phi = edge_phi;
  d.point_phi.insert(d.point_phi.end(), phi.begin(), phi.end());
  d.face_weight = Array<double>(space, edge_rule.weights);
  resolve_gpu_kernels(d, options_);
  if (d.element_kernel == GpuElementKernel::tensor) {
    if (d.Nq != volume_points(p))
      throw Error(cat("tensor element kernel at p = ", p, ": the volume rule has ", d.Nq, " points, the kernel expects ", volume_points(p)));
    d.tensor_tables = Array<double>(space, tensor_tables(p, phi, dphi_dr, dphi_ds, edge_phi));
  }

  // Element geometry.
  d.vertices.resize(3 * K);
  d.det_jacobian.resize(K);
  std::vector<double> geometry(n_geometry * K), h(K);
  // Element and face loops run on all host threads (a 50M-triangle mesh): errors are recorded as
  // the lowest offending index and thrown after the loop, the same message as a serial loop's.
  index_t bad_element = K;
#pragma omp parallel for reduction(min : bad_element)
  for (index_t e = 0; e < K; ++e) {
    const index_t* nodes = mesh.element_node_ids(e);
    Point3* v = &d.vertices[3 * e];
    for (int k = 0; k < 3; ++k) v[k] = mesh.nodes[nodes[k]];
    const double xr = 0.5 * (v[1].x - v[0].x), xs = 0.5 * (v[2].x - v[0].x);
    const double yr = 0.5 * (v[1].y - v[0].y), ys = 0.5 * (v[2].y - v[0].y);
    const double det = xr * ys - xs * yr;
    d.det_jacobian[e] = det;
    if (!(det > 0)) {
      bad_element = std::min(bad_element, e);
      continue;
    }
    geometry[rx * K + e] = ys / det;
    geometry[ry * K + e] = -xs / det;
    geometry[sx * K + e] = -yr / det;
    geometry[sy * K + e] = xr / det;
    geometry[inverse_det * K + e] = 1.0 / det;
    double longest = 0;
    for (int k = 0; k < 3; ++k) {
      const Point3 edge = v[(k + 1) % 3] - v[k];
      longest = std::max(longest, std::sqrt(dot(edge, edge)));
    }
    h[e] = 2.0 * (2.0 * det) / longest;  // area = 2 det J
  }
  if (bad_element < K)
    throw InputError(cat(mesh.element_label(bad_element), " of ", mesh.source, " is inverted or degenerate (det J = ",
                         d.det_jacobian[bad_element], "); run `flowdg mesh info` on the mesh"));
  d.geometry = Array<double>(space, pad_rows(geometry, n_geometry, K, d.Ks));
  d.h = Array<double>(space, h);

  // Faces.
  std::vector<index_t> element_m(F), element_p(F), face_code(3 * K, -1);
  std::vector<int> local_m(F), local_p(F);
  std::vector<double> face_geometry(3 * F), boundary_points(2 * Nfq * B);
  // Solver face f is the mesh's face face_order[f]: boundary faces keep their places (first B, in
  // tag ranges); interior faces are put in the order of their lower element (a counting sort), so
  // that the face kernels' consecutive threads read neighbouring elements' coefficients. No result
  // depends on the face order (an element sums its faces by local index).
  std::vector<index_t> face_order(F);
  for (index_t f = 0; f < F; ++f) face_order[f] = f;
  if (options_.faces_by_element && F > B) {
    auto key = [&](index_t f) {
      const Face& face = connectivity.faces[f];
      return face.element_p >= 0 ? std::min(face.element_m, face.element_p) : face.element_m;
    };
    std::vector<index_t> start(K + 1, 0);
    for (index_t f = B; f < F; ++f) ++start[key(f) + 1];
    for (index_t e = 0; e < K; ++e) start[e + 1] += start[e];
    for (index_t f = B; f < F; ++f) face_order[B + start[key(f)]++] = f;
  }
  index_t misplaced_face = F, misoriented_face = F;
#pragma omp parallel for reduction(min : misplaced_face, misoriented_face)
  for (index_t f = 0; f < F; ++f) {
    const Face& face = connectivity.faces[face_order[f]];
    const bool interior = face.element_p >= 0;
    if (interior != (f >= B)) misplaced_face = std::min(misplaced_face, f);
    if (interior && face.orientation != 1) misoriented_face = std::min(misoriented_face, f);
    element_m[f] = face.element_m;
    element_p[f] = interior ? face.element_p : face.element_m;
    local_m[f] = face.local_face_m;
    local_p[f] = interior ? face.local_face_p : face.local_face_m;
    face_code[face.local_face_m * K + face.element_m] = 2 * f;
    if (interior) face_code[face.local_face_p * K + face.element_p] = 2 * f + 1;
    const Point3* v = &d.vertices[3 * face.element_m];
    const Point3 a = v[face_vertex(Shape::triangle, face.local_face_m, 0)];
    const Point3 b = v[face_vertex(Shape::triangle, face.local_face_m, 1)];
    const Point3 edge = b - a;
    const double length = std::sqrt(dot(edge, edge));
    face_geometry[f] = edge.y / length;  // outward normal of a counter-clockwise element
    face_geometry[F + f] = -edge.x / length;
    face_geometry[2 * F + f] = 0.5 * length;
    if (!interior && f < B)
      for (int q = 0; q < Nfq; ++q) {
        const double t = 0.5 * (1.0 + edge_rule.points[q].x);
        boundary_points[static_cast<index_t>(q) * B + f] = a.x + t * edge.x;
        boundary_points[static_cast<index_t>(Nfq + q) * B + f] = a.y + t * edge.y;
      }
  }
  FLOWDG_ASSERT(misplaced_face == F, "boundary faces must come first (face ", face_order[misplaced_face], ")");
  if (misoriented_face < F) {
    const Face& face = connectivity.faces[face_order[misoriented_face]];
    throw InputError(cat("face ", face_order[misoriented_face], " between elements ", face.element_m, " and ", face.element_p,
                         " is not traversed in opposite directions by its two elements; the mesh is not"
                         " consistently oriented"));
  }
  for (index_t i = 0; i < 3 * K; ++i)
    FLOWDG_ASSERT(face_code[i] >= 0, "element ", i % K, " local face ", i / K, " has no face");
  d.face_element_m = Array<index_t>(space, element_m);
  d.face_element_p = Array<index_t>(space, element_p);
  d.face_local_m = Array<int>(space, local_m);
  d.face_local_p = Array<int>(space, local_p);
  d.face_geometry = Array<double>(space, pad_rows(face_geometry, 3, F, d.Fs));
  d.boundary_points = Array<double>(space, boundary_points);
  d.element_face_code = Array<index_t>(space, pad_rows(face_code, 3, K, d.Ks));
  if (options_.limiter != Limiter::none) {  // the limiter's face neighbours, one load each
    std::vector<index_t> neighbours(static_cast<std::size_t>(3 * K));
    for (index_t i = 0; i < 3 * K; ++i) {
      const index_t f = face_code[i] >> 1;
      neighbours[i] = (face_code[i] & 1) != 0 ? element_m[f] : element_p[f];  // a boundary face's element_p is e
    }
    d.element_neighbours = Array<index_t>(space, pad_rows(neighbours, 3, K, d.Ks));
  }

  // Elements sharing a vertex (the p > 1 limiter's detection stencil): only where it is used.
  if (options_.limiter != Limiter::none && p > 1) {
    std::vector<index_t> node_offsets(mesh.n_nodes() + 1, 0), node_elements(3 * K);
    for (index_t e = 0; e < K; ++e)
      for (int k = 0; k < 3; ++k) ++node_offsets[mesh.element_node_ids(e)[k] + 1];
    for (index_t n = 0; n < mesh.n_nodes(); ++n) node_offsets[n + 1] += node_offsets[n];
    std::vector<index_t> fill(node_offsets.begin(), node_offsets.end() - 1);
    for (index_t e = 0; e < K; ++e)
      for (int k = 0; k < 3; ++k) node_elements[fill[mesh.element_node_ids(e)[k]]++] = e;
    std::vector<index_t> offsets(K + 1, 0), neighbours;
    std::vector<index_t> list;
    for (index_t e = 0; e < K; ++e) {
      list.clear();
      for (int k = 0; k < 3; ++k) {
        const index_t n = mesh.element_node_ids(e)[k];
        for (index_t i = node_offsets[n]; i < node_offsets[n + 1]; ++i)
          if (node_elements[i] != e) list.push_back(node_elements[i]);
      }
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      neighbours.insert(neighbours.end(), list.begin(), list.end());
      offsets[e + 1] = static_cast<index_t>(neighbours.size());
    }
    d.vertex_neighbour_offsets = Array<index_t>(space, offsets);
    d.vertex_neighbours = Array<index_t>(space, neighbours);
  }

  // Boundary conditions by tag.
  for (std::size_t tag = 0; tag + 1 < connectivity.tag_offsets.size(); ++tag) {
    const index_t begin = connectivity.tag_offsets[tag], end = connectivity.tag_offsets[tag + 1];
    if (begin == end) continue;
    if (tag >= options_.boundary.size())
      throw InputError(cat("boundary '", mesh.boundary_names[tag], "' of ", mesh.source,
                           " has no boundary condition"));
    d.boundary_ranges.push_back({begin, end, options_.boundary[tag]});
  }

  d.u = Array<double>(space, std::vector<double>(static_cast<std::size_t>(NV) * Np * d.Ks, 0.0));  // padding stays 0
  d.flux = Array<double>(space, static_cast<index_t>(NV) * Nfq * d.Fs);
}

Solver::~Solver() = default;

int Solver::n_basis() const { return data_->Np; }
index_t Solver::dof() const { return static_cast<index_t>(NV) * data_->Np * data_->K; }

std::vector<double> Solver::coefficients() const {
  const Data& d = *data_;
  return unpad_rows(d.u.to_host(), NV * d.Np, d.K, d.Ks);
}
void Solver::set_coefficients(const std::vector<double>& values) {
  const Data& d = *data_;
  if (static_cast<index_t>(values.size()) != dof())
    throw InputError(cat("coefficient array has ", values.size(), " values, the solver expects ", dof()));
  data_->u.assign(pad_rows(values, NV * d.Np, d.K, d.Ks));
}

void Solver::save_snapshot() {
  if (data_->saved.size() != data_->u.size()) data_->saved = Array<double>(space_of(data_->backend), data_->u.size());
  data_->saved.copy_from(data_->u);
}
std::vector<double> Solver::snapshot() const {
  const Data& d = *data_;
  return unpad_rows(d.saved.to_host(), NV * d.Np, d.K, d.Ks);
}
const std::vector<Point3>& Solver::vertices() const { return data_->vertices; }

// ---- projection, errors, totals (host, OpenMP) -----------------------------------------------

void Solver::project(const Flow& flow, double t) {
  const Data& d = *data_;
  const int Np = d.Np;
  const index_t K = d.K;
  const QuadratureRule rule = triangle_rule(2 * d.order + 2);
  std::vector<double> phi(rule.size() * Np);
  for (int k = 0; k < rule.size(); ++k) basis_values(Shape::triangle, d.order, rule.points[k], &phi[k * Np]);
  std::vector<double> coefficients(static_cast<std::size_t>(NV) * Np * K, 0.0);
  const Point3* vertices = d.vertices.data();
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < K; ++e) {
    for (int k = 0; k < rule.size(); ++k) {
      const Point3 x = map_to_physical(&vertices[3 * e], rule.points[k]);
      const State value = flow(x.x, x.y, t);
      for (int v = 0; v < NV; ++v)
        for (int j = 0; j < Np; ++j)
          coefficients[(static_cast<std::size_t>(v) * Np + j) * K + e] += rule.weights[k] * value[v] * phi[k * Np + j];
    }
  }
  data_->u.assign(pad_rows(coefficients, NV * Np, K, d.Ks));
  // A projected discontinuity over- and undershoots like any stage result does.
  if (options_.limiter != Limiter::none || options_.positivity) apply_limiter();
}

ErrorNorms Solver::errors(const Flow& exact, double t) const {
  const Data& d = *data_;
  const int Np = d.Np;
  const index_t K = d.K;
  const QuadratureRule rule = triangle_rule(std::min(2 * d.order + 6, 20));
  std::vector<double> phi(rule.size() * Np);
  for (int k = 0; k < rule.size(); ++k) basis_values(Shape::triangle, d.order, rule.points[k], &phi[k * Np]);
  const std::vector<double> c = coefficients();
  std::vector<std::array<double, 2 * NV>> per_element(K);
#pragma omp parallel for schedule(static)
  for (index_t e = 0; e < K; ++e) {
    std::array<double, 2 * NV> acc{};
    for (int k = 0; k < rule.size(); ++k) {
      const Point3 x = map_to_physical(&d.vertices[3 * e], rule.points[k]);
      const State reference = exact(x.x, x.y, t);
      for (int v = 0; v < NV; ++v) {
        double value = 0;
        for (int j = 0; j < Np; ++j) value += c[(static_cast<std::size_t>(v) * Np + j) * K + e] * phi[k * Np + j];
        const double difference = value - reference[v];
        acc[v] += rule.weights[k] * d.det_jacobian[e] * difference * difference;
        acc[NV + v] = std::max(acc[NV + v], std::fabs(difference));
      }
    }
    per_element[e] = acc;
  }
  ErrorNorms norms;
  for (int v = 0; v < NV; ++v) {
    double sum = 0;
    for (index_t e = 0; e < K; ++e) {
      sum += per_element[e][v];
      norms.linf[v] = std::max(norms.linf[v], per_element[e][NV + v]);
    }
    norms.l2[v] = std::sqrt(sum);
  }
  return norms;
}

std::array<double, n_variables> Solver::totals() const {
  const Data& d = *data_;
  const std::vector<double> c = coefficients();
  // integral of phi_0 over the reference triangle is sqrt(2); Kahan sums keep the total to rounding.
  std::array<double, NV> totals{};
  for (int v = 0; v < NV; ++v) {
    double sum = 0, compensation = 0;
    for (index_t e = 0; e < d.K; ++e) {
      const double term = d.det_jacobian[e] * std::sqrt(2.0) * c[static_cast<std::size_t>(v) * d.Np * d.K + e] - compensation;
      const double next = sum + term;
      compensation = (next - sum) - term;
      sum = next;
    }
    totals[v] = sum;
  }
  return totals;
}

index_t Solver::first_bad_element() const {
  const Data& d = *data_;
  const std::vector<double> c = coefficients();
  std::vector<double> values(d.Np);
  // Element means first: they are what the time-step check sees.
  for (index_t e = 0; e < d.K; ++e) {
    State mean;
    for (int v = 0; v < NV; ++v) mean[v] = c[static_cast<std::size_t>(v) * d.Np * d.K + e] * 0.70710678118654752440;
    if (!is_admissible(mean, options_.gas)) return e;
  }
  const QuadratureRule rule = triangle_rule(2 * d.order);
  for (index_t e = 0; e < d.K; ++e)
    for (int k = 0; k < rule.size(); ++k) {
      basis_values(Shape::triangle, d.order, rule.points[k], values.data());
      State state;
      for (int v = 0; v < NV; ++v) {
        state[v] = 0;
        for (int j = 0; j < d.Np; ++j) state[v] += c[(static_cast<std::size_t>(v) * d.Np + j) * d.K + e] * values[j];
      }
      if (!is_admissible(state, options_.gas)) return e;
    }
  return -1;
}

std::string Solver::describe_bad_state() const {
  const index_t bad = first_bad_element();
  if (bad < 0) return "";
  const Data& d = *data_;
  const std::vector<double> c = coefficients();
  State mean;
  for (int v = 0; v < NV; ++v) mean[v] = c[static_cast<std::size_t>(v) * d.Np * d.K + bad] * 0.70710678118654752440;
  const Point3* v = &d.vertices[3 * bad];
  const char* names[] = {"density", "x-momentum", "y-momentum", "energy"};
  std::string what;
  for (int k = 0; k < NV; ++k)
    if (!std::isfinite(mean[k])) what += cat(what.empty() ? "" : ", ", names[k], " is ", mean[k]);
  if (what.empty()) {
    what = cat("mean density ", mean[0], ", mean pressure ", pressure(mean, options_.gas));
    if (is_admissible(mean, options_.gas)) what += " (the mean is admissible; a quadrature-point state is not)";
  }
  return cat("element ", bad, " near (", (v[0].x + v[1].x + v[2].x) / 3, ", ", (v[0].y + v[1].y + v[2].y) / 3, "): ", what);
}

// ---- stepping --------------------------------------------------------------------------------

double Solver::stable_time_step(double cfl) const {
  const Data& d = *data_;
  const double smallest = reduce_min<double>(d.backend, d.K, TimeStepKernel{d.u.view(), d.h.view(), d.Ks, d.Np, options_.gas});
  if (!(smallest > 0)) {
    const std::string where = describe_bad_state();
    throw NumericalError(cat("non-physical state (negative density or pressure, or NaN) at ",
                             where.empty() ? "an element mean" : where));
  }
  return cfl * smallest / (2 * d.order + 1);
}

namespace {
template <int P>
void launch_limiter(Solver::Data& d, const SolverOptions& options) {
  if constexpr (P >= 1) {  // a constant per element has nothing to limit
    // One instantiation per combination of options, so each keeps only the registers it needs;
    // 4 blocks of 256 threads per SM (<= 64 registers): at 82 registers (2 blocks, 25% occupancy)
    // ncu showed the p = 1 limiter latency-bound at 20% of DRAM bandwidth.
    PointTables<P> tables;
    if (d.Nq != PointTables<P>::Nq)
      throw Error(cat("limiter at p = ", P, ": the volume rule has ", d.Nq, " points, the kernel was compiled for ",
                      PointTables<P>::Nq));
    std::copy(d.point_phi.begin(), d.point_phi.end(), tables.phi);
    auto launch = [&](auto slopes, auto characteristic, auto positivity) {
      for_each_prefetching<FLOWDG_LIMITER_MIN_BLOCKS>(
          d.backend, d.K,
          LimiterKernel<P, decltype(slopes)::value, decltype(characteristic)::value, decltype(positivity)::value>{
              d.u.view(), d.element_neighbours.view(), d.vertex_neighbour_offsets.view(), d.vertex_neighbours.view(), tables,
              d.Ks, options.gas},
          d.chained);
    };
    using yes = std::true_type;
    using no = std::false_type;
    const bool slopes = options.limiter == Limiter::barth_jespersen;
    if (slopes && options.characteristic_limiting) {
      options.positivity ? launch(yes{}, yes{}, yes{}) : launch(yes{}, yes{}, no{});
    } else if (slopes) {
      options.positivity ? launch(yes{}, no{}, yes{}) : launch(yes{}, no{}, no{});
    } else if (options.positivity) {
      launch(no{}, no{}, yes{});
    }
  }
}

/// Times each group of launches of a stage with device events between the groups (no host
/// synchronisation in the stage), for the benchmark.
struct StageTimer {
  DeviceTimer timer;
  struct Interval {
    std::string name;
    std::size_t begin, end;
  };
  std::vector<Interval> intervals;
  std::size_t last = 0;
  void start() { last = timer.mark(); }
  void mark(const char* name) {
    const std::size_t now = timer.mark();
    intervals.push_back({name, last, now});
    last = now;
  }
  /// Seconds per group name, summed over the stages, in launch order.
  std::vector<std::pair<std::string, double>> seconds() {
    std::vector<std::pair<std::string, double>> sums;
    for (const Interval& interval : intervals) {
      auto it = std::find_if(sums.begin(), sums.end(), [&](const auto& entry) { return entry.first == interval.name; });
      if (it == sums.end()) it = sums.insert(sums.end(), {interval.name, 0.0});
      it->second += timer.seconds(interval.begin, interval.end);
    }
    return sums;
  }
};

void run_stage(Solver::Data& d, const SolverOptions& options, double t_stage, const StageUpdate& update,
               StageTimer* timer = nullptr) {
  const Tables tables = d.tables();
  const FaceData faces = d.faces();
  if (timer != nullptr) timer->start();
  with_order(d.order, [&](auto order) {
    constexpr int P = decltype(order)::value;
    with_flux(options.flux, [&](auto flux) {
      using Flux = decltype(flux);
      // Boundary ranges in groups of BoundaryRanges::max_ranges; the last launch also covers every
      // interior face (one launch per stage for up to max_ranges boundary tags).
      const index_t Nfq = P + 1;
      std::size_t next = 0;
      do {
        BoundaryRanges group;
        const index_t first = next < d.boundary_ranges.size() ? d.boundary_ranges[next].begin : d.B;
        while (next < d.boundary_ranges.size() && group.n < BoundaryRanges::max_ranges) {
          group.end[group.n] = d.boundary_ranges[next].end;
          group.condition[group.n++] = d.boundary_ranges[next++].condition;
        }
        const index_t last = next < d.boundary_ranges.size() ? d.boundary_ranges[next].begin : d.F;
        const FacePointKernel<P, Flux> face_kernel{d.u.view(), d.flux.view(), faces, tables, d.Ks, options.gas, group, first, t_stage};
#if defined(__CUDACC__)
        if constexpr (face_block_faces(P) > 0) {
          if (d.face_kernel == GpuFaceKernel::block) {
            launch_face_block_kernel(face_kernel, last - first, d.chained);
            continue;
          }
        }
        if (d.face_kernel == GpuFaceKernel::warp) {
          launch_face_warp_kernel(face_kernel, last - first, d.chained);
          continue;
        }
#endif
        // 72 registers at p = 1 allowed 3 blocks per SM (37.5% occupancy, ncu); ask for 4.
        for_each_prefetching<FLOWDG_FACE_POINT_MIN_BLOCKS>(d.backend, (last - first) * Nfq, face_kernel, d.chained);
      } while (next < d.boundary_ranges.size());
      if (timer != nullptr) timer->mark("faces");
    });
    const ElementKernel<P> element{d.u.view(), d.flux.view(), d.geometry.view(), d.element_face_code.view(), tables,
                                   d.Ks, d.Fs, options.gas, update, d.K};
#if defined(__CUDACC__)
    // (capping p = 1 at 85 registers for 3 blocks per SM measured slower: 68% vs 74% of copy)
    if constexpr (P >= 1) {
      if (d.element_kernel == GpuElementKernel::tensor) {
        launch_element_tensor_kernel<P>(element, d.tensor_tables.view().data, d.chained);
      } else if (d.element_kernel == GpuElementKernel::block) {
        launch_element_block_kernel<P>(element, d.chained);
      } else {
        // 168 registers at p = 1 with the coefficients prefetched: 128-thread blocks fit 3 per SM
        // (384 threads) where 256-thread blocks fit 1.
        for_each_prefetching<FLOWDG_ELEMENT_THREAD_MIN_BLOCKS, FLOWDG_ELEMENT_THREAD_BLOCK>(d.backend, d.K, element, d.chained);
      }
    } else {
      for_each(d.backend, d.K, element);
    }
#else
    for_each(d.backend, d.K, element);
#endif
    if (timer != nullptr) timer->mark("element");
    if (options.limiter != Limiter::none || options.positivity) {
      launch_limiter<P>(d, options);
      if (timer != nullptr) timer->mark("limiter");
    }
  });
}
}  // namespace

bool uses_chained_launches(Backend backend, bool requested) {
  return requested && backend == Backend::cuda && device_compute_capability() >= 90;
}

void Solver::step(const RungeKuttaScheme& scheme, double t, double dt, bool monitor_change) {
  Data& d = *data_;
  const Space space = space_of(d.backend);
  const bool keep_u0 = scheme.uses_u0 || monitor_change;
  if (keep_u0 && d.u0.size() != d.u.size()) d.u0 = Array<double>(space, d.u.size());
  if (scheme.uses_q && d.q.size() != d.u.size()) d.q = Array<double>(space, d.u.size());
  if (keep_u0) d.u0.copy_from(d.u);
  StageUpdate update;
  update.dt = dt;
  if (scheme.uses_u0) update.u0 = d.u0.view();
  if (scheme.uses_q) update.q = d.q.view();
  for (const RungeKuttaStage& stage : scheme.stages) {
    update.stage = stage;
    run_stage(d, options_, t + stage.c * dt, update);
  }
  if (monitor_change)
    last_change_ = reduce_max<double>(d.backend, d.u.size(), ChangeKernel{d.u.view(), d.u0.view()});
}

void Solver::apply_limiter() {
  with_order(data_->order, [&](auto order) { launch_limiter<decltype(order)::value>(*data_, options_); });
}

std::vector<KernelTiming> Solver::time_kernels(const RungeKuttaScheme& scheme, double dt, int repeats) {
  Data& d = *data_;
  const Space space = space_of(d.backend);
  if (scheme.uses_u0 && d.u0.size() != d.u.size()) d.u0 = Array<double>(space, d.u.size());
  if (scheme.uses_q && d.q.size() != d.u.size()) d.q = Array<double>(space, d.u.size());
  StageUpdate update;
  update.dt = dt;
  if (scheme.uses_u0) update.u0 = d.u0.view();
  if (scheme.uses_q) update.q = d.q.view();
  StageTimer timer{DeviceTimer(d.backend), {}, 0};
  if (scheme.uses_u0) d.u0.copy_from(d.u);
  for (int repeat = 0; repeat < repeats; ++repeat)
    for (const RungeKuttaStage& stage : scheme.stages) {
      update.stage = stage;
      run_stage(d, options_, stage.c * dt, update, &timer);
    }
  // Bytes each group must move per stage (each input read once, each output written once; the
  // basis tables are a few kilobytes and stay in cache, so they are not counted).
  const double word = sizeof(double), element_state = NV * d.Np * word, face_flux = NV * d.Nfq * word;
  const double interior = static_cast<double>(d.F - d.B), boundary = static_cast<double>(d.B), K = static_cast<double>(d.K);
  const double registers = (scheme.uses_u0 ? element_state : 0.0) + (scheme.uses_q ? 2 * element_state : 0.0);
  const double faces_geometry = 3 * word + 2 * sizeof(index_t) + 2 * sizeof(int);
  std::vector<KernelTiming> timings;
  const double stages = static_cast<double>(repeats) * scheme.n_stages();
  for (const auto& [name, seconds] : timer.seconds()) {
    double bytes = 0;
    // faces: every element's coefficients once (its three faces share them through the caches),
    // each face's geometry and element ids once, each flux written once, boundary points read once.
    if (name == "faces") bytes = K * element_state + (interior + boundary) * (faces_geometry + face_flux) + boundary * 2 * d.Nfq * word;
    if (name == "element") bytes = K * (2 * element_state + static_cast<double>(n_geometry) * word + 3 * sizeof(index_t) + 3 * face_flux) + K * registers;
    // limiter: the element's coefficients read (written only where limited), three neighbour ids,
    // three neighbours' means (p > 1 also reads the vertex neighbours' means for detection: not counted).
    if (name == "limiter") bytes = K * (element_state + 3 * sizeof(index_t) + 3 * NV * word);
    std::string variant;
    if (d.backend == Backend::cuda && name == "faces") variant = d.face_kernel == GpuFaceKernel::block ? "block" : d.face_kernel == GpuFaceKernel::warp ? "warp" : "point";
    if (d.backend == Backend::cuda && name == "element")
      variant = d.element_kernel == GpuElementKernel::tensor ? "tensor" : d.element_kernel == GpuElementKernel::block ? "block" : "thread";
    timings.push_back({name, variant, seconds / stages, bytes});
  }
  return timings;
}

std::vector<double> Solver::residual(double t) {
  Data& d = *data_;
  if (d.q.size() != d.u.size()) d.q = Array<double>(space_of(d.backend), d.u.size());
  StageUpdate update;
  update.dt = 1.0;
  update.q = d.q.view();
  update.stage = RungeKuttaStage{};
  update.stage.q_k = 1.0;  // q = R(u)
  update.stage.u_s = 1.0;  // u unchanged
  run_stage(d, options_, t, update);
  return unpad_rows(d.q.to_host(), NV * d.Np, d.K, d.Ks);
}

}  // namespace flowdg::euler2d
