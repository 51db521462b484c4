#pragma once
// 3D Euler's element kernel on affine tetrahedra with a warp per variable (solver.element_kernel =
// "variable"): a block of five warps takes 32 elements, warp v variable v of all 32, lane l element
// l. Each thread holds one variable's Np coefficients, then its Np residual sums — 2 Np values, where
// the thread kernel holds 2 NV Np (100 doubles at p = 2: 254 registers and spills) — and every row
// it reads or writes (coefficients, Runge-Kutta registers) is 32 consecutive elements: coalesced.
//   1. each thread: its variable at every volume point -> shared;
//   2. each thread, at every volume point: the state from shared, its variable's flux F_d (v), the
//      reference fluxes sum_d (dr_r/dx_d) F_d and the volume sums with w_k dphi_j/dr_r;
//   3. each thread, face by face: its variable's stored face fluxes at the element's own face points
//      (through shared: the plus side's permutation), the surface sums;
//   4. times 1 / det J and the Runge-Kutta update.
// The reference tables (phi, w dphi, the face phi) are the kernel's parameters, compile-time sized
// and fully unrolled, so that every table value is a constant-bank operand of its multiply-add
// (CUDA 12.1's 32 KB parameters: p = 1..3 fit in double precision; p = 4's 73 KB do not).
// Declarations only: the kernel is compiled in euler3d_variable_kernels.cpp alone (its changes
// rebuild that file, not the DG core's translation units).
#include <vector>

#include "flowdg/dg/core_kernels.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/physics/euler/euler.hpp"

namespace flowdg::dg {

/// The orders the kernel is built for (its tables must fit the kernel's 32 KB of parameters).
constexpr bool variable_kernel_order(int order) { return order >= 1 && order <= 3; }
/// The affine defaults' rule sizes on tetrahedra (setup.cpp: volume degree 2p, face degree 2p + 1;
/// quadrature_tables.cpp), the kernels' compile-time Nq and Nfq; 0 past the orders built.
constexpr int variable_volume_points(int order) { return order == 1 ? 4 : order == 2 ? 14 : order == 3 ? 24 : 0; }
constexpr int variable_face_points(int order) { return order == 1 ? 6 : order == 2 ? 7 : order == 3 ? 15 : order == 4 ? 19 : 0; }

/// Face fluxes as nodal moments. On a face, phi_j restricted to it is a polynomial of degree p in the
/// face's coordinates, so with L_i the Lagrange basis of P_p on the face's equispaced nodes y_i
/// ((p + 1)(p + 2) / 2 of them: 3, 6, 10, 15 at p = 1..4, against Nfq = 6, 7, 15, 19 points)
///   sum_q s_q phi_j(x_q) = sum_i phi_j(y_i) m_i,   m_i = sum_q s_q L_i(y_q),
/// s_q the scaled flux w_q |N| F*_q: exact up to rounding. Where every element group runs the
/// warp-per-variable element kernel or (3D Euler, double precision) the tensor-core one, and every
/// face group (boundary ones too) the warp-per-variable face kernel (DgOperator: face_moments_), the
/// face kernels store m_i in the flux array's first Nn rows of each variable ([(v Nfq + i) Fs + f])
/// instead of the Nfq point values, and the element kernels sum phi_j(y_i) m_i: less flux written
/// and read (half at p = 1). (Stored face-major instead, [(f NV + v) Nn + i], through shared memory:
/// slower, session 42 — p = 1 19.04-19.08e9 against 19.50, p = 2 20.42-20.65 against 20.72-20.84.)
constexpr int face_moment_nodes(int order) { return (order + 1) * (order + 2) / 2; }
struct FaceMomentTables {
  int order = 0, Nfq = 0;
  std::vector<double> interpolation;  ///< L_i(y_q) at the face rule's points, [i Nfq + q] (the face kernel's)
  std::vector<double> node_phi;       ///< phi_j at local face l's node i, [(l Nn + i) Np + j] (the element kernel's)
  std::vector<int> node_permutation;  ///< [orientation Nn + i]: the minus side's node i is the plus side's node ...
  bool empty() const { return interpolation.empty(); }
};
/// The tables for one order (1..4: the Lagrange triangles of mesh/lagrange.hpp) and face rule (a
/// tetrahedron's triangular faces).
FaceMomentTables face_moment_tables(int order, const QuadratureRule& face_rule);

/// The kernel's tables for one order, from the group's reference tables (volume_phi [k Np + j],
/// volume_dphi [(k 3 + r) Np + j], weights [k], face_phi [(l Nfq + q) Np + j]): empty where the
/// kernel is not built for (order, Nq, Nfq) — another rule than the affine defaults (volume degree
/// 2p, face degree 2p + 1) — so that the caller takes another kernel.
struct VariableKernelTables {
  int order = 0, Nq = 0, Nfq = 0;
  std::vector<double> values;  ///< phi [Nq][Np], w dphi [Nq][3][Np], face phi [4][Nfq][Np] (moments: [4][Nn][Np])
  /// The face term from nodal moments (with_face_moments): the face rows are FaceMomentTables::node_phi.
  bool moments = false;
  std::vector<int> node_permutation;  ///< moments: FaceMomentTables::node_permutation
  bool empty() const { return values.empty(); }
};
VariableKernelTables variable_kernel_tables(int order, int Nq, int Nfq, const std::vector<double>& volume_phi,
                                            const std::vector<double>& volume_dphi, const std::vector<double>& weights,
                                            const std::vector<double>& face_phi);

/// The tables with the face term from nodal moments (the face rows replaced by moments.node_phi).
VariableKernelTables with_face_moments(const VariableKernelTables& tables, const FaceMomentTables& moments);

/// Elements [first, first + count) of an affine tetrahedron group through the kernel (CUDA;
/// tables from variable_kernel_tables for this order and this group's rules).
template <class Real, int P>
void launch_core_element_variable_kernel(const ElementKernel<physics::Euler<3, Real>, Shape::tetrahedron, P, GeometryKind::affine>& kernel,
                                         index_t first, index_t count, const VariableKernelTables& tables);

/// 3D Euler's interior faces between affine tetrahedra in the same form (solver.face_kernel =
/// "variable"): a block of five warps takes 32 faces, warp v variable v, lane l face l. Each thread
/// loads its variable's Np coefficients of both sides once (the point kernel loads them at every
/// face point) and sums both traces at the Nfq points (the face table in shared memory, the plus
/// side's points through the orientation's permutation) into shared memory; then a thread per
/// (face, point) takes the five-variable traces and runs FaceKernel::finish, the other kernels'
/// flux and store. The same sums in the same order as the point and block kernels: the same bits.
/// Built for p = 1..4 (Nfq = variable_face_points) and a kernel per numerical flux. With `moments`
/// (not null) it stores the nodal moments m_i (FaceMomentTables) instead of the point values: a third
/// phase, thread (v, face) summing its scaled point fluxes from shared memory. Boundary faces
/// (Boundary = true: the condition's ghost state for the plus trace) are built with moments only —
/// the face groups that must write moments where the element kernel reads them.
/// With `traces_m` and `traces_p` (interior faces with moments; FaceTraceBuffer) each side's trace at
/// the face's nodes is read from the sides' trace buffers instead of summed from the coefficients.
constexpr bool variable_face_kernel_order(int order) { return order >= 1 && order <= 4; }
/// With `trace_points` the buffers hold each side's traces at the face rule's Nfq points instead of
/// its Nn nodes (FaceTraceBuffer::points): the face kernel reads them at its points directly (the plus
/// side's through the points' orientation permutation) and interpolates nothing. With
/// `trace_coefficients` they hold the sides' coefficients element-major (FaceTraceBuffer::coefficients,
/// p = 3): the face kernel on the FP64 tensor cores computes the traces from them.
template <class Real, int P>
void launch_core_face_variable_kernel(
    const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, false>& kernel,
    index_t n_faces, const FaceMomentTables* moments, const Real* traces_m = nullptr, const Real* traces_p = nullptr,
    bool trace_points = false, bool trace_coefficients = false);
/// Boundary faces of `count` groups (kernels[g], n_faces[g] faces each; the 3D Euler affine tetrahedra's
/// boundary kernel above, one numerical flux) in as few launches as the kernel's batch holds (eight groups
/// a launch: boundary_batch_groups, a block 32 faces of one group): each group's launch would last about its blocks' latency
/// however few they are; side by side they share it. (launch_core_face_variable_kernel takes interior faces
/// only.)
constexpr int boundary_batch_groups = 8;  ///< boundary groups a launch of launch_core_boundary_variable_kernel
template <class Real, int P>
void launch_core_boundary_variable_kernel(
    const FaceKernel<physics::Euler<3, Real>, Shape::tetrahedron, Shape::tetrahedron, P, GeometryKind::affine, true>* kernels,
    const index_t* n_faces, int count, const FaceMomentTables* moments);

/// Each element's traces at its four faces' nodes, computed once a stage for all of them (PyFR's
/// interpolation to the flux points, done element-wise): a matrix product on the FP64 tensor cores,
/// T = N U with N = node_phi (4 Nn rows of phi_j at the faces' equispaced nodes, Np columns) and U a
/// block of 8 elements' coefficients (Np rows, 5 x 8 columns). The face kernel then reads Nn values a
/// side and variable (traces_m / traces_p above) instead of summing Nn Np products with a table
/// operand from shared memory: the same multiply-adds (each element face's trace once), on the
/// tensor cores instead of the face kernel's L1-bound sums (session 43: L1 87% at p = 4). Chosen at
/// p = 4 (setup.hpp face_trace_mode; session 49: +6-7%), where the tensor-core element kernel writes
/// the buffer as it updates the coefficients.
/// Layout: traces [((e 4 + l) 5 + v) Nn + i] for element e of the group, its face l, variable v,
/// node i (a side's Nn values of a variable contiguous: one 8 Nn-byte run a face thread reads).
/// Points (face_trace_buffer_points): the same with the face rule's Nfq points in place of the Nn
/// nodes — N's rows phi_j at local face l's point q (face_phi [(l Nfq + q) Np + j]), the buffer
/// [((e 4 + l) 5 + v) Nfq + q]: more rows to store and read (p = 4: 19 against 15), no
/// interpolation from the nodes in the face kernel (Nfq Nn multiply-adds a side and variable).
/// Coefficients (face_trace_buffer_coefficients; p = 3, the face tensor kernel's input): no traces but
/// each element's coefficients element-major, [(e 5 + v) Np + j] — a face side's 5 Np values
/// contiguous, read in whole sectors (the coefficients' own layout [(v Np + j) Ks + e] gives one value
/// a 32-byte sector); no tables (the face kernel holds the traces' tables).
struct FaceTraceBuffer {
  int order = 0, Nn = 0, Np = 0, rows = 0, columns = 0;  ///< N padded: rows to 8, columns (k) to 4; Nn: rows a face (nodes or points)
  bool points = false;                                   ///< Nn = the face rule's points (else the nodes)
  bool coefficients = false;                             ///< the coefficients' element-major copy (Nn = 0, no tables)
  std::vector<double> tables;                            ///< N in fragment order (fragment_order.hpp)
};
FaceTraceBuffer face_trace_buffer(const FaceMomentTables& moments);
/// The buffer at the face rule's Nfq points (face_phi [(l Nfq + q) Np + j], the groups' table).
FaceTraceBuffer face_trace_buffer_points(int order, int Nfq, const std::vector<double>& face_phi);
/// The element-major copy of the coefficients at order p (the face tensor kernel's: p = 3).
FaceTraceBuffer face_trace_buffer_coefficients(int order);
/// Values a group's trace buffer holds: Ks elements' four faces' `face_rows` (FaceTraceBuffer::Nn) rows
/// of 5 variables; the coefficients' copy: Ks elements' 5 Np.
inline std::size_t face_trace_values(index_t Ks, int face_rows) { return static_cast<std::size_t>(Ks) * 4 * 5 * face_rows; }
inline std::size_t face_trace_values(index_t Ks, const FaceTraceBuffer& buffer) {
  return buffer.coefficients ? static_cast<std::size_t>(Ks) * 5 * buffer.Np : face_trace_values(Ks, buffer.Nn);
}
/// The traces of elements [first, end) of a group (coefficients u [(v Np + j) Ks + e]) into `traces`;
/// `tables` the device copy of FaceTraceBuffer::tables (CUDA), `points` FaceTraceBuffer::points;
/// `coefficients` (FaceTraceBuffer::coefficients): their element-major copy instead (no tables). (The
/// tensor-core element kernel can write either too, for the coefficients it updates:
/// core_tensor_kernels.hpp phase 4.)
template <class Real>
void launch_face_traces(int order, const Real* u, index_t Ks, index_t first, index_t end, Real* traces, const double* tables,
                        bool points = false, bool coefficients = false);
/// Whether it runs: setup.hpp face_trace_buffer_chosen.

}  // namespace flowdg::dg
