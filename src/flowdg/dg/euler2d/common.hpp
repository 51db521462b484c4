#pragma once
// 2D Euler solver (euler2d.hpp), internal: what its translation units share. The device-side
// descriptions of the data (basis tables, faces, the Runge-Kutta stage update), the block shapes
// that the set-up needs too, the compile-time dispatch on order and flux, and Solver::Data.
// Included only by src/flowdg/dg/euler2d*.cpp and the euler2d/*_kernels.hpp headers.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "flowdg/backend/fragment_order.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/backend/stream.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/core/hd.hpp"
#include "flowdg/time/runge_kutta.hpp"
#include "flowdg/dg/euler2d.hpp"
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

/// Internal to the solver's translation units (what was their one file's anonymous namespace).
namespace impl {

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
struct StageUpdate : StageRegisterFlags {
  RungeKuttaStage stage{};
  double dt = 0;
  View<double> u0, q;  // empty when the scheme does not use them

  /// u0's array where the kernel must read it: nullptr when the scheme has none, the stage starts
  /// it or no coefficient of the stage uses it.
  FLOWDG_HD FLOWDG_FORCEINLINE const double* u0_to_read() const { return start_u0 || !read_u0 ? nullptr : u0.data; }
  /// q's array where the kernel must read it: nullptr when the scheme has none or the stage does
  /// not use its old value.
  FLOWDG_HD FLOWDG_FORCEINLINE const double* q_to_read() const { return read_q ? q.data : nullptr; }

  /// The stage update of coefficient u[index] from its residual.
  FLOWDG_HD FLOWDG_FORCEINLINE void apply(View<double> u, index_t index, double residual) const {
    apply_loaded(u, index, residual, u[index], q_to_read() != nullptr ? q[index] : 0.0,
                 u0_to_read() != nullptr ? u0[index] : 0.0);
  }
  /// The same with u[index], q[index] and u0[index] already loaded (0 for a register not used or
  /// started by this stage).
  FLOWDG_HD FLOWDG_FORCEINLINE void apply_loaded(View<double> u, index_t index, double residual, double u_s, double q_k,
                                                 double u0_k) const {
    if (start_u0) {
      u0[index] = u_s;
      u0_k = u_s;
    }
    apply_runge_kutta_stage(stage, dt * residual, u0_k, q_k, u_s);
    if (q.data != nullptr && write_q) q[index] = q_k;
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

// ---- block shapes of the CUDA kernels that the set-up needs too ----------------------------

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

/// A2 (M2 x K2) then A3 (M3 x K3), each in fragment order (backend/fragment_order.hpp: a warp's A
/// fragment is 256 contiguous bytes), from the basis tables ([point * Np + j]).
inline std::vector<double> tensor_tables(int p, const std::vector<double>& phi, const std::vector<double>& dphi_dr,
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
  to_fragment_order(a, 0, t.M2, t.K2);
  to_fragment_order(a, static_cast<std::size_t>(t.M2 * t.K2), t.M3, t.K3);
  return a;
}

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

/// Boundary faces [begin, end) of one condition.
struct BoundaryRange {
  index_t begin, end;
  BoundaryCondition condition;
};

// ---- set-up shared by the Solver and the core's triangle groups (euler2d_setup.cpp) ---------

/// The basis tables of order p on the reference triangle: the degree-2p volume rule's values and
/// gradients, the 3 (p + 1) edge points' values (edge l's Gauss points, face_to_element order).
struct HostTables {
  int Nq = 0;
  std::vector<double> phi, dphi_dr, dphi_ds, weights;  ///< [k * Np + j], [k]
  std::vector<double> edge_phi, edge_weights;          ///< [(l * Nfq + q) * Np + j], [q]
  std::vector<double> edge_points;                     ///< the Gauss points on [-1, 1]
  /// face values then volume values (PointTables' order)
  std::vector<double> point_phi() const;
};
HostTables triangle_tables(int p);

/// The same tables on the device (what Tables views), with the point values kept on the host for
/// kernels that carry them by value (the limiter's PointTables).
struct DeviceTables {
  int Nq = 0;
  Array<double> volume_phi, volume_dphi_dr, volume_dphi_ds, volume_weight, face_phi, face_weight;
  std::vector<double> point_phi;  ///< face values then volume values
  DeviceTables() = default;
  DeviceTables(Space space, const HostTables& tables);
  Tables view() const {
    return {volume_phi.view(), volume_dphi_dr.view(), volume_dphi_ds.view(), volume_weight.view(),
            face_phi.view(),   face_weight.view(),    Nq};
  }
};

/// Face f's outward unit normal (of a counter-clockwise element) and half length at
/// face_geometry[c * stride + f] (c: nx, ny, half length), from its minus element's vertices v and
/// local face; on a boundary also its Gauss points at boundary_points[(c * Nfq + q) * B + f].
void store_edge(const Point3* v, int local_face, index_t f, index_t stride, index_t B, const std::vector<double>& edge_points,
                bool boundary, std::vector<double>& face_geometry, std::vector<double>& boundary_points);

/// Per-element geometry of the triangles elements[i] of `mesh` (3-node or straight-sided): rows
/// GeometryComponent x n (unpadded), h (2 area / longest edge), det J and the vertices [3 i + k].
/// Throws InputError naming the first inverted or degenerate element.
struct HostGeometry {
  std::vector<Point3> vertices;
  std::vector<double> det_jacobian, geometry, h;
};
HostGeometry triangle_geometry(const Mesh& mesh, const std::vector<index_t>& elements);

/// Elements sharing a vertex with each element, as offsets and a list (the p > 1 limiter's
/// detection stencil), in the numbering of `elements` (element i is the mesh's elements[i]).
void vertex_neighbours(const Mesh& mesh, const std::vector<index_t>& elements, std::vector<index_t>& offsets,
                       std::vector<index_t>& neighbours);

/// The CUDA kernels a stage runs for the requested variants (automatic: by the H100 measurements).
struct KernelChoice {
  GpuElementKernel element = GpuElementKernel::thread;
  GpuFaceKernel face = GpuFaceKernel::point;
  bool chained = false;
};
KernelChoice resolve_kernels(Backend backend, int order, index_t n_faces, const SolverOptions& options);

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

}  // namespace impl

using namespace impl;  // unqualified in the solver's files, as the anonymous namespace's names were

// ---- the solver's data -----------------------------------------------------------------------

struct Solver::Data {
  Backend backend{};
  /// Every launch of the solver goes on this stream (each launching method opens a StreamScope).
  std::unique_ptr<Stream> stream;
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
  DeviceTables basis;
  Array<double> tensor_tables;    ///< CUDA, p >= 1: the tensor-core element kernel's A2 and A3 (tensor_tables())
  GpuElementKernel element_kernel = GpuElementKernel::thread;  ///< resolved from the options (CUDA)
  GpuFaceKernel face_kernel = GpuFaceKernel::point;
  bool chained = false;  ///< CUDA, compute capability >= 9.0: stage kernels as programmatic dependent launches
  std::vector<BoundaryRange> boundary_ranges;
  // Host copies for projection and error integrals.
  std::vector<Point3> vertices;  ///< [3 * e + k]
  std::vector<double> det_jacobian;

  Tables tables() const { return basis.view(); }
  FaceData faces() const {
    return {face_element_m.view(), face_element_p.view(), face_local_m.view(), face_local_p.view(),
            face_geometry.view(),  boundary_points.view(), Fs, B};
  }
};

}  // namespace flowdg::euler2d
