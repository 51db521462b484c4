#pragma once
// BR2 lifting (Bassi & Rebay's second scheme, as Gao, Chen et al. 2022, Eq. (13)-(18)): the second-
// order term of any physics with a viscous flux Fv(U, grad U), for every shape, geometry kind and
// dimension of the core. The kernels are templates on the physics, the shape(s), the order and the
// geometry kind like the core's (core_kernels.hpp); the operator runs them between the inviscid face
// kernels and the element kernels (DgOperator::viscous_pass):
//
//  1. (in the inviscid face kernel, FaceKernel::finish) per face point, the lifting jump
//       jump[(v Nfq + q) Fs + f] = (H_aux - U_m)_v,
//     H_aux = (U_m + U_p) / 2 on interior faces (Eq. 13), the condition's boundary state U_b on a
//     boundary (BoundaryCondition::boundary_state). Both sides of a face lift the same values: for
//     the plus side H_aux - U_p and its normal -n both change sign. The face's scaled normal
//     wn[(d Nfq + q) Fs + f] = w_q |N_q| n_d is set up once (geometry only).
//  2. LiftingElementKernel, per element (M its mass matrix, phi_i its basis):
//       gradient moments  g_i = int phi_i grad U,               local liftings (Eq. 16)  M r_l = l_l,
//       lifting moments   l_l,i = sum_q phi_i(x_q) jump_q wn_q,  Theta = M^-1 (g + sum_l l_l) = P grad U + R;
//     Theta is Eq. (15)'s auxiliary variable, in the solution's space (on affine elements P grad U =
//     grad U exactly, grad U being of degree p - 1; on curved ones its L2 projection). With the face
//     gradient Theta_l = P grad U + eta r_l at the points of each face l (Eq. 17), r_l taken there
//     through the face's lifting matrix A_l = Phi_l M^-1 Phi_l^T (Nfq x Nfq: r_l(x_a) = sum_b
//     A_l[a][b] wn_b jump_b; a reference table on affine groups, per element on curved ones, so that
//     only Theta and P grad U go through M^-1, not a column set per face), it stores
//       - interior faces: its side's half of the centred viscous flux (Eq. 14),
//           half[side][(v Nfq + q) Fs + f] = Fv(U_side, Theta_l) . wn / 2  (the minus side's normal),
//         which the element kernels of both sides subtract from the inviscid flux (so the centred
//         flux needs no face pass of its own, and no face gradient is stored);
//       - boundary faces: Theta_l itself, face_gradient[((v dim + d) Nfq + q) Bs + f] (f < the
//         number of boundary faces, which come first), for the boundary's viscous flux and the walls;
//       - the volume term -int grad phi_i . Fv(U, Theta) (Eq. 18's last integral), as moments the
//         element kernel adds to its right-hand side before the inverse mass matrix.
//  3. ViscousBoundaryKernel, per boundary face point: the condition's viscous flux
//       Hv = physics.boundary_viscous_flux(kind, U_b, Theta_m, n),
//     subtracted from the stored face flux (w_q |N_q| (H_i - Hv)), which the element kernel gathers.
//
// eta: BR2's stabilisation factor, the element's number of faces by default (3 triangles, 4
// quadrilaterals, 4 tetrahedra, 6 hexahedra).
#include <cstdlib>
#include <string>
#include <vector>

#include "flowdg/core/error.hpp"
#include "flowdg/dg/core_kernels.hpp"

namespace flowdg::dg {

/// Values one element holds in the CUDA block lifting kernel's shared memory
/// (lifting_block_kernels.hpp): coefficients, the weighted gradient (then Theta, then the reference
/// viscous flux) at the volume points, the lifting integrand (then the face gradient) at the face
/// points, and on curved elements 2 dim NV moment columns (Theta's and P grad U's) for the inverse
/// mass matrix.
/// fused (BR2 at the faces, br2_face_kernels.hpp; affine groups): the face points' values are the
/// jumps times w |N| (NV a point) and each face's unit normal (dim a face) instead of the dim NV
/// components of the integrand; the faces' whole fluxes (NV a point) and sides take their place after
/// the volume lifting; the block's reference tables besides (fused_lifting_table_values).
template <class Physics>
constexpr index_t lifting_block_values_per_element(Shape shape, GeometryKind geometry, int Np, int Nq, int Nfq, bool collocated = false,
                                                   bool fused = false) {
  constexpr index_t NV = Physics::n_variables, dim = Physics::dim;
  const index_t NF = n_faces(shape);
  // Collocated curved groups: the point factors w_k / det J_k instead of the moment columns.
  const index_t moments = geometry != GeometryKind::curved ? 0 : collocated ? Nq : 2 * dim * NV * Np;
  if (fused) return NV * Np + dim * NV * Nq + NF * Nfq * NV + NF * dim;
  return NV * Np + dim * NV * Nq + NF * Nfq * dim * NV + moments;
}

/// The fused kernel's reference tables, once a block
/// (lifting_block_kernels.hpp): C's rows (the element's face points by the volume points rounded up
/// to 8: affine_lifting_rows), the basis and its dim derivatives at the volume points, the basis at
/// the face points, the volume weights.
constexpr index_t fused_lifting_table_values(int dim, Shape shape, int Np, int Nq, int Nfq) {
  const index_t NFq = static_cast<index_t>(n_faces(shape)) * Nfq, Nq8 = (Nq + 7) / 8 * 8;
  return NFq * Nq8 + static_cast<index_t>(Nq) * Np * (1 + dim) + NFq * Np + Nq;
}

/// Elements per block of the lifting kernel within the block budget (the fused kernel: within what
/// its tables leave; at most 32; 0: not even one,
/// or a curved group of more than 256 basis functions, whose inverse mass matrix the kernel applies
/// a row per thread of one block).
template <class Physics>
constexpr int lifting_block_elements(Shape shape, GeometryKind geometry, int Np, int Nq, int Nfq, bool collocated = false, bool fused = false) {
  if (geometry == GeometryKind::curved && !collocated && Np > 256) return 0;
  const std::size_t per_element = sizeof(typename Physics::real) *
                                  static_cast<std::size_t>(lifting_block_values_per_element<Physics>(shape, geometry, Np, Nq, Nfq, collocated, fused));
  const std::size_t tables =
      fused ? sizeof(typename Physics::real) * static_cast<std::size_t>(fused_lifting_table_values(Physics::dim, shape, Np, Nq, Nfq)) : 0;
  if (tables >= block_shared_limit) return 0;
  const std::size_t elements = (block_shared_limit - tables) / per_element;
  return static_cast<int>(elements < 32 ? elements : 32);
}

/// Shared memory of one SM on the H100 and H200 (228 KB; 1 KB of it reserved a block).
constexpr std::size_t sm_shared_bytes = 228 * 1024, block_reserved_shared_bytes = 1024;

/// Bytes of shared memory of one block of BR2 at the faces' fused kernel: E elements' values
/// (lifting_block_values_per_element with fused) and the block's reference tables
/// (fused_lifting_table_values).
template <class Physics>
constexpr std::size_t fused_block_shared_bytes(Shape shape, int Np, int Nq, int Nfq, int E) {
  return sizeof(typename Physics::real) *
         (static_cast<std::size_t>(E) * static_cast<std::size_t>(lifting_block_values_per_element<Physics>(shape, GeometryKind::affine, Np, Nq, Nfq, false, true)) +
          static_cast<std::size_t>(fused_lifting_table_values(Physics::dim, shape, Np, Nq, Nfq)));
}

/// BR2 at the faces' fused kernel's elements a block: lifting_block_elements', and in 2D (wide) up
/// to 64 where three blocks an SM (the kernel's launch bound there) still fit the SM's shared
/// memory, in steps of 16 (the elements of a half-warp then in distinct banks): triangles at p = 1, 2,
/// whose few volume points (3, 6) left many of 32 elements' 256 threads idle in each phase.
template <class Physics>
constexpr int fused_block_elements(Shape shape, int Np, int Nq, int Nfq, bool wide = true) {
  const int base = lifting_block_elements<Physics>(shape, GeometryKind::affine, Np, Nq, Nfq, false, true);
  if (!wide || Physics::dim != 2 || base < 32) return base;
  int E = 64;
  const auto block = [&](int elements) { return fused_block_shared_bytes<Physics>(shape, Np, Nq, Nfq, elements); };
  while (E > 32 && (block(E) > block_shared_limit || 3 * (block(E) + block_reserved_shared_bytes) > sm_shared_bytes)) E -= 16;
  return E;
}

/// BR2's lifting on affine elements as three products with reference tables, for the FP64 tensor
/// cores (lifting_tensor_kernels.hpp). With an orthonormal basis M = det J I, so P grad U = grad U
/// (of degree p - 1, in the space) and the liftings are reference sums over det J:
///   A1 (M1 x K1, times the coefficients): the values and the reference derivatives at the volume
///      and the face points: rows [phi(k)] Nq, [phi(x_lq)] NF Nfq, [dphi/dr_r(k)] dim Nq,
///      [dphi/dr_r(x_lq)] dim NF Nfq (lq = l Nfq + the element's own point on face l);
///   A2 (M2 x K2, times S_dv(lq) = wn_d jump_v at the element's face points): rows [C(k, lq)] Nq with
///      C = Phi_vol Phi_faces^T (the lifting moments' sum taken to the volume points), then
///      [A_l(a, b)] NF Nfq, block diagonal, A_l = Phi_l Phi_l^T (face l's own lifting at its points);
///   A3 (M3 x K3, times the reference viscous fluxes w_k det J sum_d dr_r/dx_d Fv_d at rows r Nq + k):
///      dphi_j/dr_r(k), the volume term's moments (negated by the kernel).
/// Theta = grad U + C S / det J at the volume points, grad U + eta A_l S / det J at face l's points.
struct LiftingTensorLayout {
  int dim = 0, NV = 0, Np = 0, Nq = 0, Nfq = 0, NFq = 0;  ///< NFq: the element's face points, n_faces Nfq
  int M1 = 0, K1 = 0, M2 = 0, K2 = 0, M3 = 0, K3 = 0;
  int stride_n = 0, stride_t = 0;  ///< shared row strides for NV E and dim NV E columns (+ 4: no bank conflicts)
};
/// Elements per block of the tensor lifting kernel (a column tile of 8 = one variable of the block).
constexpr int lifting_tensor_elements = 8;
constexpr LiftingTensorLayout lifting_tensor_layout(int n_variables, int dim, Shape shape, int Np, int Nq, int Nfq) {
  LiftingTensorLayout t;
  t.dim = dim;
  t.NV = n_variables;
  t.Np = Np;
  t.Nq = Nq;
  t.Nfq = Nfq;
  t.NFq = n_faces(shape) * Nfq;
  t.M1 = round_up_to((1 + dim) * (Nq + t.NFq), 8);
  t.K1 = round_up_to(Np, 4);
  t.M2 = round_up_to(Nq + t.NFq, 8);
  t.K2 = round_up_to(t.NFq, 4);
  t.M3 = round_up_to(Np, 8);
  t.K3 = round_up_to(dim * Nq, 4);
  t.stride_n = n_variables * lifting_tensor_elements + 4;
  t.stride_t = dim * n_variables * lifting_tensor_elements + 4;
  return t;
}
/// Shared memory of one block: the coefficients (K1 rows), A1's product (M1), S (K2) and A2's product
/// (M2), the reference viscous fluxes (K3), and the affine metric.
constexpr std::size_t lifting_tensor_shared_bytes(const LiftingTensorLayout& t) {
  return sizeof(double) * (static_cast<std::size_t>(t.K1 + t.M1 + t.K3) * t.stride_n + static_cast<std::size_t>(t.K2 + t.M2) * t.stride_t +
                           static_cast<std::size_t>(t.dim * t.dim + 1) * lifting_tensor_elements);
}
/// sum_i x_i y_i over a basis of Np functions (two points' basis values: a lifting table's entry).
inline double basis_dot(const double* x, const double* y, int Np) {
  double sum = 0;
  for (int i = 0; i < Np; ++i) sum += x[i] * y[i];
  return sum;
}
/// A1, A2, A3 (each row-major, then in fragment order) from the group's basis tables.
inline std::vector<double> lifting_tensor_tables(const LiftingTensorLayout& t, const std::vector<double>& volume_phi,
                                                 const std::vector<double>& volume_dphi, const std::vector<double>& face_phi,
                                                 const std::vector<double>& face_dphi) {
  const int Np = t.Np, Nq = t.Nq, NFq = t.NFq, dim = t.dim, Nfq = t.Nfq;
  const std::size_t o2 = static_cast<std::size_t>(t.M1) * t.K1, o3 = o2 + static_cast<std::size_t>(t.M2) * t.K2;
  std::vector<double> a(o3 + static_cast<std::size_t>(t.M3) * t.K3, 0.0);
  const auto at = [&](std::size_t offset, int K, int row, int column) -> double& {
    return a[offset + static_cast<std::size_t>(row) * K + column];
  };
  for (int j = 0; j < Np; ++j) {
    for (int k = 0; k < Nq; ++k) {
      at(0, t.K1, k, j) = volume_phi[static_cast<std::size_t>(k) * Np + j];
      for (int r = 0; r < dim; ++r) at(0, t.K1, Nq + NFq + r * Nq + k, j) = volume_dphi[(static_cast<std::size_t>(k) * dim + r) * Np + j];
    }
    for (int lq = 0; lq < NFq; ++lq) {
      at(0, t.K1, Nq + lq, j) = face_phi[static_cast<std::size_t>(lq) * Np + j];
      for (int r = 0; r < dim; ++r)
        at(0, t.K1, Nq + NFq + dim * Nq + r * NFq + lq, j) = face_dphi[(static_cast<std::size_t>(lq) * dim + r) * Np + j];
    }
  }
  const auto dot = [&](const double* x, const double* y) { return basis_dot(x, y, Np); };
  for (int lq = 0; lq < NFq; ++lq) {
    const double* phi_face = &face_phi[static_cast<std::size_t>(lq) * Np];
    for (int k = 0; k < Nq; ++k) at(o2, t.K2, k, lq) = dot(&volume_phi[static_cast<std::size_t>(k) * Np], phi_face);
    const int l = lq / Nfq;
    for (int b = 0; b < Nfq; ++b) at(o2, t.K2, Nq + lq, l * Nfq + b) = dot(phi_face, &face_phi[static_cast<std::size_t>(l * Nfq + b) * Np]);
  }
  for (int j = 0; j < Np; ++j)
    for (int r = 0; r < dim; ++r)
      for (int k = 0; k < Nq; ++k) at(o3, t.K3, j, r * Nq + k) = volume_dphi[(static_cast<std::size_t>(k) * dim + r) * Np + j];
  to_fragment_order(a, 0, t.M1, t.K1);
  to_fragment_order(a, o2, t.M2, t.K2);
  to_fragment_order(a, o3, t.M3, t.K3);
  return a;
}

/// The CUDA block lifting kernel's tables on affine groups (lifting_block_kernels.hpp), where the
/// basis is orthonormal (M = det J I, so P grad U = grad U and the liftings are reference sums over
/// det J): the lifting moments' sum taken to the volume points, C[k][lq] = sum_i phi_i(k) phi_i(x_lq)
/// (as the tensor kernel's A2), stored [lq Nq8 + k] with Nq8 = Nq rounded up to 8 (zeros past Nq:
/// the kernel sums eight points at a time); then the reference derivatives at the element's face
/// points, [(lq dim + r) Np + j] (ElementGroupSetup::face_dphi).
constexpr FLOWDG_HD int affine_lifting_rows(int Nq) { return (Nq + 7) / 8 * 8; }
inline std::vector<double> affine_lifting_point_tables(int Np, int Nq, int NFq, int dim, const std::vector<double>& volume_phi,
                                                       const std::vector<double>& face_phi, const std::vector<double>& face_dphi) {
  const int Nq8 = affine_lifting_rows(Nq);
  std::vector<double> a(static_cast<std::size_t>(NFq) * Nq8, 0.0);
  for (int lq = 0; lq < NFq; ++lq)
    for (int k = 0; k < Nq; ++k)
      a[static_cast<std::size_t>(lq) * Nq8 + k] = basis_dot(&volume_phi[static_cast<std::size_t>(k) * Np], &face_phi[static_cast<std::size_t>(lq) * Np], Np);
  a.insert(a.end(), face_dphi.begin(), face_dphi.begin() + static_cast<std::ptrdiff_t>(NFq) * dim * Np);
  return a;
}

/// An A/B switch from the environment: unset or empty -> true; "0" -> false, "1" -> true; anything
/// else is an InputError naming the variable and what 0 and 1 mean.
inline bool environment_switch(const char* name, const char* off, const char* on) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == 0) return true;
  const std::string text(value);
  if (text == "0") return false;
  if (text == "1") return true;
  throw InputError(cat(name, "='", text, "': expected 0 (", off, ") or 1 (", on, ")"));
}

/// Whether the block lifting kernel may take the inviscid volume term (DgOperator: fused_volume):
/// yes unless FLOWDG_BLOCK_VOLUME=0 (for A/B runs).
inline bool fused_volume_allowed() {
  return environment_switch("FLOWDG_BLOCK_VOLUME", "volume term in the element kernel", "in the block lifting");
}

/// Whether "automatic" takes BR2 at the faces (DgOperator: br2_faces_) where it applies: yes unless
/// FLOWDG_BR2_FACES=0 (for A/B runs).
inline bool br2_faces_allowed() {
  return environment_switch("FLOWDG_BR2_FACES", "the lifting pass", "BR2 at the faces where it applies");
}

/// Whether the fused kernel of BR2 at the faces takes up to 64 elements a block in 2D
/// (fused_block_elements): yes unless FLOWDG_FUSED_WIDE=0 (32 at most, for A/B runs).
inline bool fused_wide_allowed() {
  return environment_switch("FLOWDG_FUSED_WIDE", "32 elements a block", "up to 64 where three blocks an SM fit");
}

/// The 2D interior BR2 face kernels' block shape (br2_face_kernels.hpp on affine triangles,
/// br2_factorised_kernels.hpp on bilinear quadrilaterals): threads a block and blocks an SM, their
/// launch bound (at most 65536 / (threads blocks) registers a thread: 256 x 3 -> 80, 256 x 2 -> 128,
/// 128 x 4 -> 128, 128 x 5 -> 96, 128 x 6 -> 80, 64 x 8 -> 128, 64 x 10 -> 96, 64 x 12 -> 80). Smaller
/// blocks give the register budgets between, and the SM more blocks in other phases of this kernel
/// of barriers (load, traces, flux, Theta).
struct Br2FaceShape {
  int threads = 256;
  int blocks = 3;
};
/// The shapes the interior face kernels are compiled with: 256 x 3 at every order, 256 x 2 from p = 2,
/// 128 x 4, 5, 6 and 64 x 8, 10, 12 at p = 3, 4.
constexpr bool br2_face_shape_compiled(Br2FaceShape shape, int order) {
  if (shape.threads == 256) return shape.blocks == 3 || (shape.blocks == 2 && order >= 2);
  const bool small = order == 3 || order == 4;
  if (shape.threads == 128) return small && shape.blocks >= 4 && shape.blocks <= 6;
  return shape.threads == 64 && small && (shape.blocks == 8 || shape.blocks == 10 || shape.blocks == 12);
}
/// f.template operator()<Threads, Blocks>() in the compiled shape `shape` at order P
/// (br2_face_shape_compiled; anything else 256 x 3): the one place that turns a run-time shape
/// into the kernels' template arguments.
template <int P, class F>
decltype(auto) with_br2_face_shape(Br2FaceShape shape, F&& f) {
  if constexpr (P == 3 || P == 4) {
    if (shape.threads == 128) {
      if (shape.blocks == 4) return f.template operator()<128, 4>();
      if (shape.blocks == 5) return f.template operator()<128, 5>();
      return f.template operator()<128, 6>();
    }
    if (shape.threads == 64) {
      if (shape.blocks == 8) return f.template operator()<64, 8>();
      if (shape.blocks == 10) return f.template operator()<64, 10>();
      return f.template operator()<64, 12>();
    }
  }
  if constexpr (P >= 2)
    if (shape.blocks == 2) return f.template operator()<256, 2>();
  return f.template operator()<256, 3>();
}
/// The shape by default (setup.cpp, from the measurements noted there).
Br2FaceShape br2_face_default_shape(Shape shape, int order);
/// The shape a launch takes: the default, or FLOWDG_BR2_FACE_THREADS=64|128|256 and
/// FLOWDG_BR2_FACE_BLOCKS=2..12 for A/B runs (one of them alone: the other 256 threads, or 3 blocks of
/// 256, 5 of 128, 10 of 64); a shape not compiled at that order is an InputError (setup.cpp).
/// The operator resolves it once, when it is built (ElementData::br2_face_shape).
Br2FaceShape br2_face_shape(Shape shape, int order);
/// The boundary face kernels' blocks an SM (256 threads): the factorised kernel two at p >= 4, where
/// under 80 registers it spilled 352 bytes a thread (ptxas) and with 128 ran the 640,000-quadrilateral
/// vortex 17% faster (session 37); three below and on triangles.
constexpr int br2_factorised_face_blocks(int order) { return order >= 4 ? 2 : 3; }

/// Where "automatic" takes BR2 at the faces (br2_face_kernels.hpp; solver.lifting_kernel): at every
/// order, from one call each on the H100 (Navier-Stokes vortex, docs/performance.md): 798,848
/// triangles at p = 1 13.4e9 DSU/s against the thread kernels' 10.9 (session 36, with up to 64
/// elements a fused block), p = 2 / 3 / 4 9.0 / 22.0 / 17.2% faster than the lifting pass (session
/// 35, before session 36's fused kernel gains); 998,250 tetrahedra at p = 1, 2 and 384,000 at p = 3
/// 45 / 200 / 1% faster (session 35).
constexpr bool automatic_br2_faces(int dim, int order) { return dim >= 2 && order >= 1; }

/// BR2 at the faces' face kernel (br2_face_kernels.hpp): faces per block (a thread per (face, point,
/// side) fills the block's 256 threads in one round: 128 / Nfq faces, 256 / Nfq on a boundary);
/// its tables in shared memory (the basis and its reference derivatives at the element's face
/// points, rows lq of br2_face_row_stride(Np) and br2_face_row_stride(dim Np) values, and the face
/// lifting matrices A_l, rows of br2_face_row_stride(Nfq)); per face both sides' coefficients and
/// traces, w |N| times the jump and the inviscid flux at the points; the dynamic shared memory of a
/// block (BR2 at the faces applies where it fits block_shared_limit: not on hexahedra from p = 2).
/// threads: the block's threads (256; 128 or 64 for the interior face kernels' smaller blocks:
/// br2_face_shape).
constexpr int br2_block_faces(int Nfq, bool boundary, int threads = 256) { return (boundary ? threads : threads / 2) / Nfq; }
/// The face points the face kernel is compiled for: in 2D P + 1 (setup.cpp's face_rule on affine
/// meshes; BR2 at the faces applies only there), in 3D any (0: the kernel takes Nfq at run time).
constexpr int br2_face_points(int dim, int P) { return dim == 2 ? P + 1 : 0; }
/// A table row's stride in shared memory: odd, so that up to 16 rows read at once by a warp's
/// threads (the faces' local faces and orientations differ) fall in distinct banks (doubles: two
/// 4-byte banks each, rows r and r' collide only where (r - r') stride is a multiple of 16).
constexpr int br2_face_row_stride(int n) { return n % 2 == 1 ? n : n + 1; }
template <class Physics>
constexpr std::size_t br2_face_table_values(Shape shape, int Np, int Nfq) {
  const std::size_t NFq = static_cast<std::size_t>(n_faces(shape)) * Nfq;
  return NFq * static_cast<std::size_t>(br2_face_row_stride(Np) + br2_face_row_stride(Physics::dim * Np) + br2_face_row_stride(Nfq));
}
template <class Physics>
constexpr std::size_t br2_face_shared_bytes(Shape shape, int Np, int Nfq, bool boundary, int threads = 256) {
  const std::size_t sides = boundary ? 1 : 2, NV = Physics::n_variables, Fb = br2_block_faces(Nfq, boundary, threads);
  // Per face each side's coefficients and traces, and the jump and the flux at the points.
  const std::size_t per_block = Fb * (sides * NV * static_cast<std::size_t>(Np + Nfq) + 2 * NV * static_cast<std::size_t>(Nfq));
  return sizeof(typename Physics::real) * (br2_face_table_values<Physics>(shape, Np, Nfq) + per_block);
}

/// Where the lifting pass writes its face results (see the top of this file).
template <class Real>
struct LiftingFaceOutput {
  View<const Real> jump;           ///< [(v Nfq + q) Fs + f]
  View<const Real> normal_weight;  ///< wn [(d Nfq + q) Fs + f]
  View<Real> half;                 ///< [side][(v Nfq + q) Fs + f], side 0: minus, 1: plus (stride half_stride)
  index_t half_stride = 0;         ///< NV Nfq Fs
  View<Real> face_gradient;        ///< boundary faces: [((v dim + d) Nfq + q) Bs + f]
  index_t Bs = 0;                  ///< the padded number of boundary faces
  index_t n_boundary = 0;          ///< faces [0, n_boundary) are boundary faces

  /// BR2's face integrand at point q of face f, S_t = wn_d jump_v (t = d NV + v), to own[t stride]
  /// (the block kernels' shared rows at the element's own point).
  template <int NV, int dim>
  FLOWDG_HD FLOWDG_FORCEINLINE void face_integrand(int Nfq, index_t Fs, index_t f, int q, Real* own, int stride) const {
    Real values[NV];
    for (int v = 0; v < NV; ++v) values[v] = jump[(static_cast<index_t>(v) * Nfq + q) * Fs + f];
    for (int d = 0; d < dim; ++d) {
      const Real wn = normal_weight[(static_cast<index_t>(d) * Nfq + q) * Fs + f];
      for (int v = 0; v < NV; ++v) own[(d * NV + v) * stride] = wn * values[v];
    }
  }
};

/// One element's face point: the face gradient theta (Eq. 17) and the element's trace u there go to
/// the face's output: the boundary face gradient, or the side's half of the centred viscous flux.
/// q: the face's point order; f, plus: the face and the element's side.
template <class Physics>
FLOWDG_HD FLOWDG_FORCEINLINE void store_lifting_face_point(const Physics& physics, const LiftingFaceOutput<typename Physics::real>& out,
                                                           int Nfq, index_t Fs, index_t f, bool plus, int q,
                                                           const typename Physics::State& u,
                                                           const typename Physics::State (&theta)[Physics::dim]) {
  using Real = typename Physics::real;
  constexpr int dim = Physics::dim, NV = Physics::n_variables;
  if (f < out.n_boundary) {
    for (int v = 0; v < NV; ++v)
      for (int d = 0; d < dim; ++d) out.face_gradient[((static_cast<index_t>(v) * dim + d) * Nfq + q) * out.Bs + f] = theta[d][v];
    return;
  }
  typename Physics::Direction wn;
  for (int d = 0; d < dim; ++d) wn[d] = out.normal_weight[(static_cast<index_t>(d) * Nfq + q) * Fs + f];
  const typename Physics::State value = physics.normal_viscous_flux(u, theta, wn);
  const index_t side = plus ? out.half_stride : 0;
  for (int v = 0; v < NV; ++v) out.half[side + (static_cast<index_t>(v) * Nfq + q) * Fs + f] = Real(0.5) * value[v];
}

/// Per element, a thread per element: the BR2 gradient (Theta at volume points, P grad U + eta r_l
/// at face points, taken to the faces by store_lifting_face_point) and the viscous volume term.
/// `base` carries the element group's data as the element kernel reads it (coefficients, metric,
/// inverse mass, codes, tables). The CUDA block version (lifting_block.hpp) splits the same work
/// into phases through shared memory.
template <class Physics, Shape S, int P, GeometryKind G>
struct LiftingElementKernel {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  static constexpr int dim = Physics::dim, NV = Physics::n_variables;
  static constexpr int Np = n_basis(S, P), n_element_faces = n_faces(S);

  ElementKernel<Physics, S, P, G> base;
  LiftingFaceOutput<Real> out;
  Real eta = Real(3);
  View<Real> viscous_rhs;           ///< [(v Np + j) Ks + e]
  /// The faces' lifting matrices (face_lifting_entry): affine [(l Nfq + a) Nfq + b] (reference),
  /// curved [((l Nfq + a) Nfq + b) Ks + e]; collocated curved groups the reference table
  /// C = V Phi_faces^T, [k NF Nfq + l Nfq + a] (setup.hpp: face_lifting_tables).
  View<const Real> face_lifting;
  /// Collocated groups with a sparse C (setup.hpp: collocated_lifting_lines; the block kernel's
  /// path): NL, and the line and cross indices (their values follow C in face_lifting).
  View<const int> lifting_lines;
  int lines = 0;
  /// Affine groups on the CUDA block kernel (lifting_block_kernels.hpp; affine_lifting_point_tables):
  /// C = Phi_vol Phi_faces^T as [lq Nq8 + k], then the reference derivatives at the face points.
  View<const Real> point_tables;
  /// Physics with a viscosity per element (has_element_viscosity): eps per element, smoothed or not.
  ViscosityField<Real> viscosity;

  /// The solution u and the gradient theta at a point with basis values phi, from the coefficients
  /// c and the gradient's moments (rows d NV + v).
  FLOWDG_HD FLOWDG_FORCEINLINE static void point_values(const Real (&c)[NV][Np], const Real (&moments)[dim * NV][Np], const Real* phi,
                                                        State& u, State (&theta)[dim]) {
    for (int v = 0; v < NV; ++v) {
      Real sum = 0;
      for (int j = 0; j < Np; ++j) sum += c[v][j] * phi[j];
      u[v] = sum;
      for (int d = 0; d < dim; ++d) {
        Real value = 0;
        for (int j = 0; j < Np; ++j) value += moments[d * NV + v][j] * phi[j];
        theta[d][v] = value;
      }
    }
  }

  /// Entry (a, b) of face l's lifting matrix A_l = Phi_l M^-1 Phi_l^T (a, b: the element's own
  /// points on face l): r_l at point a is sum_b A_l[a][b] wn_b jump_b. Affine groups read the
  /// reference table (the basis is orthonormal, so M^-1 = I / det J) times 1 / det J; curved groups
  /// their own matrices (face_lifting_tables, setup.hpp); collocated ones sum over the volume points,
  /// A_l[a][b] = sum_k C[k][l Nfq + a] (w_k / det J_k) C[k][l Nfq + b] (Phi_l V^T diag V Phi_l^T).
  FLOWDG_HD FLOWDG_FORCEINLINE Real face_lifting_entry(int l, int a, int b, index_t e, Real inverse_det) const {
    const index_t row = (static_cast<index_t>(l) * base.Nfq + a) * base.Nfq + b;
    if constexpr (G == GeometryKind::affine) {
      return inverse_det * face_lifting[row];
    } else {
      if (base.collocated) {
        const int NFq = n_element_faces * base.Nfq, la = l * base.Nfq + a, lb = l * base.Nfq + b;
        Real sum = 0;
        for (int k = 0; k < Np; ++k) sum += face_lifting[k * NFq + la] * base.point_mass_factor(k, e) * face_lifting[k * NFq + lb];
        return sum;
      }
      return face_lifting[row * base.Ks + e];
    }
  }

  FLOWDG_HD void operator()(index_t e) const {
    const index_t Ks = base.Ks, Fs = base.Fs;
    const int Nq = base.Nq, Nfq = base.Nfq;
    const Physics physics = element_physics(base.physics, viscosity, e);
    if constexpr (physics::has_element_viscosity<Physics>) {
      // An element without artificial viscosity (the smooth flow: most of them) contributes nothing:
      // zero halves on its interior faces and a zero volume term (its boundary faces' flux is zero
      // for this physics whatever the gradient).
      if (physics.epsilon == Real(0)) {
        for (int l = 0; l < n_element_faces; ++l) {
          const index_t code = base.codes[l * Ks + e];
          const index_t f = code_face(code);
          if (f < out.n_boundary) continue;
          const index_t side = code_plus_side(code) ? out.half_stride : 0;
          for (int v = 0; v < NV; ++v)
            for (int q = 0; q < Nfq; ++q) out.half[side + (static_cast<index_t>(v) * Nfq + q) * Fs + f] = Real(0);
        }
        for (int v = 0; v < NV; ++v)
          for (int j = 0; j < Np; ++j) viscous_rhs[(static_cast<index_t>(v) * Np + j) * Ks + e] = Real(0);
        return;
      }
    }
    Real c[NV][Np];
    for (int v = 0; v < NV; ++v)
      for (int j = 0; j < Np; ++j) c[v][j] = base.u[(static_cast<index_t>(v) * Np + j) * Ks + e];
    Real affine[dim * dim] = {};
    Real inverse_det = 0;
    if constexpr (G == GeometryKind::affine) {
      for (int t = 0; t < dim * dim; ++t) affine[t] = base.metric[t * Ks + e];
      inverse_det = base.metric[dim * dim * Ks + e];
    }

    // Gradient moments g[d NV + v][i] = sum_k phi_i(k) w_k det J_k dU_v/dx_d(k).
    Real g[dim * NV][Np];
    for (int t = 0; t < dim * NV; ++t)
      for (int i = 0; i < Np; ++i) g[t][i] = 0;
    for (int k = 0; k < Nq; ++k) {
      Real m[dim][dim];
      base.weighted_metric(k, e, affine, 1, m);
      const Real* phi = &base.volume_phi[k * Np];
      for (int v = 0; v < NV; ++v) {
        Real du[dim];
        for (int r = 0; r < dim; ++r) {
          Real sum = 0;
          for (int j = 0; j < Np; ++j) sum += c[v][j] * base.volume_dphi[(k * dim + r) * Np + j];
          du[r] = sum;
        }
        for (int d = 0; d < dim; ++d) {
          Real value = 0;
          for (int r = 0; r < dim; ++r) value += m[r][d] * du[r];
          for (int i = 0; i < Np; ++i) g[d * NV + v][i] += phi[i] * value;
        }
      }
    }

    // The lifting moments summed over the faces, s = sum_l l_l; then Theta = M^-1 (g + s) in s and
    // P grad U = M^-1 g in g.
    Real s[dim * NV][Np];
    for (int t = 0; t < dim * NV; ++t)
      for (int i = 0; i < Np; ++i) s[t][i] = g[t][i];
    for (int l = 0; l < n_element_faces; ++l) {
      const index_t code = base.codes[l * Ks + e];
      const index_t f = code_face(code);
      for (int q = 0; q < Nfq; ++q) {
        const int point = code_own_point(code, base.permutation, Nfq, q);
        const Real* phi = &base.face_phi[(static_cast<index_t>(l) * Nfq + point) * Np];
        for (int d = 0; d < dim; ++d) {
          const Real wn = out.normal_weight[(static_cast<index_t>(d) * Nfq + q) * Fs + f];
          for (int v = 0; v < NV; ++v) {
            const Real value = wn * out.jump[(static_cast<index_t>(v) * Nfq + q) * Fs + f];
            for (int i = 0; i < Np; ++i) s[d * NV + v][i] += value * phi[i];
          }
        }
      }
    }
    base.inverse_mass_columns(e, s);
    base.inverse_mass_columns(e, g);

    // Per face point: Theta_l = P grad U + eta r_l (Eq. 17), r_l through the face's lifting matrix.
    for (int l = 0; l < n_element_faces; ++l) {
      const index_t code = base.codes[l * Ks + e];
      const index_t f = code_face(code);
      const bool plus = code_plus_side(code);
      for (int q = 0; q < Nfq; ++q) {
        const int point = code_own_point(code, base.permutation, Nfq, q);
        const Real* phi = &base.face_phi[(static_cast<index_t>(l) * Nfq + point) * Np];
        State u;
        State theta[dim];
        point_values(c, g, phi, u, theta);
        for (int b = 0; b < Nfq; ++b) {
          const int other = code_own_point(code, base.permutation, Nfq, b);
          const Real a = eta * face_lifting_entry(l, point, other, e, inverse_det);
          for (int d = 0; d < dim; ++d) {
            const Real wn = a * out.normal_weight[(static_cast<index_t>(d) * Nfq + b) * Fs + f];
            for (int v = 0; v < NV; ++v) theta[d][v] += wn * out.jump[(static_cast<index_t>(v) * Nfq + b) * Fs + f];
          }
        }
        store_lifting_face_point(point_physics(physics, viscosity, e, phi), out, Nfq, Fs, f, plus, q, u, theta);
      }
    }

    // Volume term: -sum_k sum_r (w_k det J_k sum_d dr_r/dx_d Fv_d(U_k, Theta_k)) dphi_j/dr_r(k), in g[0..NV).
    Real (&rhs)[dim * NV][Np] = g;
    for (int v = 0; v < NV; ++v)
      for (int j = 0; j < Np; ++j) rhs[v][j] = 0;
    for (int k = 0; k < Nq; ++k) {
      const Real* phi = &base.volume_phi[k * Np];
      State uk;
      State theta[dim];
      point_values(c, s, phi, uk, theta);
      State fv[dim];
      point_physics(physics, viscosity, e, phi).viscous_flux(uk, theta, fv);
      Real m[dim][dim];
      base.weighted_metric(k, e, affine, 1, m);
      for (int v = 0; v < NV; ++v) {
        Real reference[dim];
        for (int r = 0; r < dim; ++r) reference[r] = reference_flux(m, fv, r, v);
        for (int j = 0; j < Np; ++j) {
          Real sum = 0;
          for (int r = 0; r < dim; ++r) sum += reference[r] * base.volume_dphi[(k * dim + r) * Np + j];
          rhs[v][j] -= sum;
        }
      }
    }
    for (int v = 0; v < NV; ++v)
      for (int j = 0; j < Np; ++j) viscous_rhs[(static_cast<index_t>(v) * Np + j) * Ks + e] = rhs[v][j];
  }
};

/// The BR2 face gradient at point q of boundary face f (LiftingElementKernel's, the minus side's).
template <class Physics>
FLOWDG_HD FLOWDG_FORCEINLINE void load_face_gradient(View<const typename Physics::real> face_gradient, int Nfq, index_t Bs,
                                                     index_t f, int q, typename Physics::State (&theta)[Physics::dim]) {
  for (int v = 0; v < Physics::n_variables; ++v)
    for (int d = 0; d < Physics::dim; ++d)
      theta[d][v] = face_gradient[((static_cast<index_t>(v) * Physics::dim + d) * Nfq + q) * Bs + f];
}

/// Per boundary face point, a thread each: the condition's BR2 viscous flux, subtracted from the
/// stored face flux. `base` carries the face group's data as the inviscid face kernel reads it.
/// (Interior faces need no viscous face pass: the lifting kernel leaves each side's half of the
/// centred flux for the element kernels.)
template <class Physics, Shape S, int P, GeometryKind FG>
struct ViscousBoundaryKernel {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  using Direction = typename Physics::Direction;
  static constexpr int dim = Physics::dim, NV = Physics::n_variables;
  using Base = FaceKernel<Physics, S, S, P, FG, true>;

  Base base;
  View<const Real> face_gradient;  ///< LiftingElementKernel's boundary face gradients
  index_t Bs = 0;

  FLOWDG_HD void operator()(index_t i) const {
    const int Nfq = base.Nfq;
    const index_t local = i / Nfq;
    const int q = static_cast<int>(i - local * Nfq);
    const index_t f = base.begin + local;
    const State um = base.minus_trace(f, q);
    Direction n;
    Real measure;
    State theta_m[dim];
    load_face_gradient<Physics>(face_gradient, Nfq, Bs, f, q, theta_m);
    const State ub = base.boundary_state_at(local, q, um, n, measure);
    const State value = base.physics.boundary_viscous_flux(base.condition.kind, ub, theta_m, n);
    const Real scale = base.face_weight[q] * measure;
    for (int v = 0; v < NV; ++v) base.flux[(static_cast<index_t>(v) * Nfq + q) * base.Fs + f] -= scale * value[v];
  }
};

}  // namespace flowdg::dg
