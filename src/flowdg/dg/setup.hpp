#pragma once
// Set-up of the DG core (host, double precision, once per run): element and face groups, the
// quadrature rules and basis tables of each group, the geometry of every element and face
// (dg/operator.hpp states the rules, dg/core_kernels.hpp the layouts). The operator converts these
// to its precision, pads the rows and copies them to the device.
#include <string>
#include <vector>

#include "flowdg/dg/groups.hpp"
#include "flowdg/element/quadrature.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg::dg {

struct ElementGroupSetup {
  int n_basis = 0;
  QuadratureRule volume_rule;
  std::vector<double> volume_phi;     ///< [k * Np + j]
  std::vector<double> volume_dphi;    ///< [(k * dim + r) * Np + j]
  std::vector<double> face_phi;       ///< [(l * Nfq + q) * Np + j]
  std::vector<double> face_dphi;      ///< [((l * Nfq + q) * dim + r) * Np + j]: the reference derivatives there
  std::vector<double> metric;         ///< unpadded rows: affine [c * K + e]; curved [(k dim^2 + c) * K + e]
  /// curved: [(i * Np + j) * K + e]; collocated: the point factors D_k = w_k / det J_k, [k * K + e]
  std::vector<double> inverse_mass;
  /// A curved group whose volume rule has as many points as the basis has functions and is exact for
  /// the basis' products (quadrilaterals of geometric order 1 at any p: (p + 1)^2 Gauss points, the
  /// mass integrand phi_i phi_j det J of degree 2p + 1 per direction). Its Vandermonde V (Nq = Np
  /// rows volume_phi) is then square with V^-1 = V^T W, so M = V^T diag(w det J) V inverts exactly
  /// as M^-1 = V^T diag(w / det J) V: the kernels apply it through the points (no stored matrix).
  bool collocated = false;
  std::vector<double> size;           ///< h per element (operator.hpp: stable_time_step)
  std::vector<index_t> codes;         ///< [l * K + e], core_kernels.hpp's face codes
};

struct FaceGroupSetup {
  std::vector<double> geometry;  ///< unpadded rows (core_kernels.hpp's face geometry layout)
  std::vector<double> points;    ///< boundary groups: [(q * dim + d) * n + i]
};

struct Setup {
  int dimension = 2;
  int order = 1;
  Groups groups;
  QuadratureRule face_rule;         ///< on the face's own reference element
  std::vector<int> permutation;     ///< [orientation * Nfq + q] (groups.hpp: face_point_permutations)
  std::vector<ElementGroupSetup> element_groups;
  std::vector<FaceGroupSetup> face_groups;
  int n_face_points() const { return face_rule.size(); }
};

/// The volume rule of a group (operator.hpp's rule) and the face rule of a mesh. The volume rule is
/// exact to degree 2p + shift (OperatorOptions::volume_degree_shift; never below 0, and on
/// tensor-product shapes never below 2p: their p + 1 Gauss points a direction), plus the curved
/// geometry's share.
QuadratureRule volume_rule(Shape shape, GeometryKind geometry, int order, int geometric_order, int shift = 0);
/// [solver] volume_quadrature: "2p" -> 0, "2p-1" -> -1, "2p+k" -> k (k = 1..4); anything else an
/// InputError (below 2p - 1 the volume term of a linear flux is no longer exact).
int parse_volume_quadrature(const std::string& text);
QuadratureRule face_rule(Shape face, int dimension, int order, int curved_geometric_order);

/// Classifies every element (affine or curved, operator.hpp), groups them, and computes the tables
/// and geometry. InputError: an element whose Jacobian determinant is not positive at some volume
/// point (inverted or degenerate), an interior face whose two sides' points do not coincide (a
/// mesh whose elements do not match along a face), a mesh of the wrong dimension.
/// Each element's geometry kind: affine when its Jacobian is constant (a 6-node triangle with
/// straight edges too), else curved.
std::vector<GeometryKind> classify_geometry(const Mesh& mesh);
/// Per shape (Shape's value) the largest geometric order of the curved elements among the mesh's
/// first n_elements (0: none): a distributed run's floors (build_setup's curved_order_floor).
std::vector<int> curved_orders_by_shape(const Mesh& mesh, index_t n_elements);

/// curved_order_floor (by Shape's value, may be short or empty): the geometric order each shape's
/// curved group takes at least (a distributed run's part: the whole mesh's, so that its rules are
/// the whole mesh's); the face rule takes the largest of them too.
/// collocated_mass: let curved groups that allow it invert their mass matrices through their points
/// (ElementGroupSetup::collocated; false: every curved group stores its inverse, for comparisons).
/// face_order: the groups' faces' order (groups.hpp; FLOWDG_FACE_ORDER overrides it).
/// volume_degree_shift: the volume rules' degree of exactness relative to 2p (volume_rule).
Setup build_setup(const Mesh& mesh, const Connectivity& connectivity, int order, const std::vector<int>& curved_order_floor = {},
                  bool collocated_mass = true, FaceOrder face_order = FaceOrder::element, int volume_degree_shift = 0);
/// The DG operator's default face order (build_setup's faces_by_family): by family for every
/// physics but 2D Euler (its tuned triangles lose with it) and 3D Euler in single precision at
/// p >= 4 (measurements in setup.cpp).
bool automatic_faces_by_family(bool euler_2d, bool euler_3d_single, int order);
/// The DG operator's face order: by window where the interior faces' kernel on the FP64 tensor cores
/// reads the coefficients' element-major copy (face_tensor_copy: 3D Euler on CUDA, face_trace_mode 3),
/// else by family where automatic_faces_by_family says so, else by element.
FaceOrder automatic_face_order(bool euler_2d, bool euler_3d_single, int order, bool face_tensor_copy);

/// BR2's face lifting matrices A_l = Phi_l M^-1 Phi_l^T of a group (dg/lifting.hpp), a and b the
/// element's own points on face l: affine groups the reference table [(l Nfq + a) Nfq + b] (the
/// basis is orthonormal: M = det J I, the kernel scales by 1 / det J); curved groups each element's
/// from `inverse_mass` ([(i Np + j) K + e]), unpadded rows [((l Nfq + a) Nfq + b) K + e];
/// collocated groups the reference table C = V Phi_faces^T, [k (NF Nfq) + l Nfq + a]
/// (A_l[a][b] = sum_k C[k][l Nfq + a] D_k C[k][l Nfq + b], D_k = w_k / det J_k).
std::vector<double> face_lifting_tables(const ElementGroupSetup& group, Shape shape, GeometryKind geometry, int Nfq, index_t K,
                                        const std::vector<double>& inverse_mass);

/// Collocated groups: the sparsity of C = V Phi_faces^T (face_lifting_tables), where every face
/// point's column has at most NL entries (its "line" of volume points) and every volume point's row
/// at most one per face — quadrilaterals at their (p + 1)^2 Gauss points, whose C[(i, j)][face
/// xi = 1, point q] = (sum_a P_a(xi_i) P_a(1)) delta_jq / w_q. Then BR2's face lifting is diagonal,
/// r_l(x_a) = S_a sum_m C[k_m][l a]^2 w_k_m / det J_k_m, and the volume lifting takes one value per
/// face (lifting_block_kernels.hpp). Returns NL (0: C is not sparse that way), and
///   values  = [line entries C[k_m][lq], lq NL + m; cross entries C[k][l b_l(k)], NFq NL + k NF + l],
///   indices = [line points k_m, lq NL + m; cross face points b_l(k) or -1, NFq NL + k NF + l]
/// (entries below 1e-12 of C's largest are zeros; missing line entries pad with k = 0, value 0).
int collocated_lifting_lines(const std::vector<double>& C, int Nq, int n_faces, int Nfq, std::vector<double>& values,
                             std::vector<int>& indices);

/// Sum factorisation on collocated quadrilaterals (factorised_kernels.hpp). There the basis is
/// L_i(x) L_j(y) (normalised Legendre, index quadrilateral_mode(i, j)) and the volume points the
/// (p + 1)^2 Gauss points x_a + n x_b (x fastest, n = p + 1), so every sum over the modes or the
/// points of an element is two sums of n terms along lines: U(a, b) = sum_j L[b][j] sum_i L[a][i]
/// c(i, j), and M^-1 = V^T diag(w / det J) V maps the moments r to the values
/// w_a w_b / det J (V r)(a, b), which, as V1 V1^T = diag(1 / w) for the n-point Gauss rule, are
/// (1 / det J) times: sum_a' Qw[a][a'] F_x(a', b) + sum_b' Qw[b][b'] F_y(a, b') for the volume term
/// (reference fluxes F_r, its moments sum_k F_r(k) d_r phi), g_l(s) edge[side][m] for a face flux
/// g (face 0: y = -1 at x_s, s = its point q, m = b; face 1: x = 1, s = q, m = a; face 2: y = 1,
/// s = n - 1 - q, m = b; face 3: x = -1, s = n - 1 - q, m = a; side 0 at -1, 1 at +1), and
/// sum_j Lw[b][j] sum_i Lw[a][i] r(i, j) for given moments. edge[side][m] = l_m(-+1), the Gauss
/// points' Lagrange functions at the ends, also gives the traces: u(x_s, -1) = sum_b edge[0][b] U(s, b).
/// Tables [a n + i] (or [a n + a'], [side n + m]):
///   L[a][i] = L_i(x_a), dL[a][i] = L_i'(x_a), Lw[a][i] = w_a L_i(x_a),
///   Qw[a][a'] = w_a sum_i L_i(x_a) L_i'(x_a'), edge[side][m] = w_m sum_i L_i(x_m) L_i(-+1),
///   ends[side][i] = L_i(-+1) (the face kernel's traces: u(x_s, -1) = sum_i L[s][i] sum_j ends[0][j] c(i, j)),
///   x[a], w[a]: the Gauss rule's nodes and weights (the bilinear Jacobians at the points).
struct SumFactorTables {
  int n = 0;  ///< points per direction, p + 1; 0: the group does not have this layout
  std::vector<double> L, dL, Lw, Qw, edge, ends, x, w;
};
/// The tables of a group, after checking everything the kernels assume — a collocated
/// quadrilateral group; its volume rule the Gauss tensor rule in that order; its basis tables the
/// products of L and dL by quadrilateral_mode; its face points (face_phi's rows) the lines'
/// ends in the order above; V1 V1^T = diag(1 / w) — to 1e-12; otherwise n = 0.
SumFactorTables sum_factor_tables(const ElementGroupSetup& group, Shape shape, int order, int Nfq);

/// Bilinear quadrilaterals (the factorised kernels' geometry): the map x(xi, eta) = x0 + b xi + c eta +
/// d xi eta has the Jacobian x_xi = b + d eta, x_eta = c + d xi, so each element's metric at all its
/// points is six numbers, [c * K + e] for c = b_x, c_x, d_x, b_y, c_y, d_y (read instead of the
/// 5 (p + 1)^2 stored terms). Fitted to the collocated group's stored metric (w_k adj J at each point,
/// ElementGroupSetup::metric, with the tables' rule) and checked at every point to 1e-10 of the
/// element's largest Jacobian entry; empty if any element fails (not bilinear) or the group has no tables.
std::vector<double> bilinear_jacobians(const ElementGroupSetup& group, const SumFactorTables& tables, index_t n_elements);

/// The element's vertex functions (element_vertex_weights: linear on simplices, multilinear on
/// quadrilaterals and hexahedra) in its modal basis: [i * n_modes + j], the coefficient of mode j
/// (j < n_modes) in vertex i's function, by L2 projection on the reference element. With n_modes =
/// n_basis(shape, 1) the functions are exactly in the span (the basis is hierarchical), so
/// sum_j table[i][j] phi_j(x) is vertex i's function itself; with n_modes = 1 (p = 0) its mean.
/// For artificial viscosity's smoothed field (core_kernels.hpp: ViscositySmoothingKernel).
std::vector<double> vertex_function_modes(Shape shape, int n_modes);

/// In-place Cholesky inverse of a symmetric positive definite n x n matrix (row-major); false if
/// it is not positive definite.
bool invert_spd(std::vector<double>& matrix, int n);

/// Whether an inviscid physics' boundary face groups run on a second stream beside the interior
/// ones (DgOperator::run_stage; their small grids otherwise leave most of the GPU idle for their
/// length): by default in 3D (session 39, docs/performance.md; kept here, in a host file, so that
/// the measured default changes without rebuilding the kernels); FLOWDG_BOUNDARY_STREAM=0|1
/// replaces it for A/B runs (anything else an InputError).
bool boundary_stream_allowed(int dim);
/// Whether the stage launches a run of boundary face groups of one kernel instantiation together
/// (DgOperator::boundary_batch: 3D Euler's affine tetrahedra on the variable face kernel, up to eight
/// groups a launch): by default (session 64, docs/performance.md); FLOWDG_BOUNDARY_BATCH=0|1 replaces it
/// for A/B runs (anything else an InputError).
bool boundary_batch_allowed();

/// Whether "automatic" takes the element kernel with a warp per variable (core_variable_kernels.hpp:
/// 3D Euler on affine tetrahedra, p = 1..3) at this order and precision, by measurement (p = 1, 2 in
/// both: the tensor-core kernel from p = 3; in a host file, so that the default changes without
/// rebuilding the kernels).
bool automatic_variable_elements(int order, bool double_precision);
/// The same for the face kernel with a warp per variable (3D Euler's interior faces between affine
/// tetrahedra, p = 1..4).
bool automatic_variable_faces(int order, bool double_precision);
/// Whether 3D Euler's face fluxes are stored as nodal moments where both warp-per-variable kernels
/// run everywhere (DgOperator: face_moments_): by measurement at every order they apply to (p = 1..3,
/// session 41); FLOWDG_FACE_MOMENTS=0|1 (never, or wherever they apply) replaces the rule for A/B
/// runs (anything else an InputError).
bool face_moments_chosen(int order, bool double_precision);
/// Whether 3D Euler's interior faces with nodal moments read each side's traces at the face nodes
/// from a trace buffer (core_variable_kernels.hpp: FaceTraceBuffer) instead of the face kernel
/// summing them from the coefficients, and who fills it: 0 no buffer; 1 a trace kernel at the start
/// of every stage; 2 the tensor-core element kernel as it updates the coefficients (phase 4; where
/// every group runs it, else as 1; the trace kernel then computes the ghosts' alone); 3 (p = 3) no
/// traces but the coefficients' element-major copy, filled as 2, which the interior faces' kernel on
/// the FP64 tensor cores reads (core_variable_kernels.hpp FaceTraceBuffer::coefficients); 4 (p = 3)
/// as 3 without the copy: the tensor-core element kernel's groups hold their state element-major
/// (core_kernels.hpp StateLayout), which that face kernel reads as it is. By measurement
/// (face_trace_mode_for's rule); FLOWDG_TRACE_BUFFER=0|1|2|3|4 replaces the rule for A/B runs (read at
/// every operator build; anything else, or 3 or 4 at another order, an InputError).
int face_trace_mode(int order, bool double_precision);
/// The rule with `asked` for FLOWDG_TRACE_BUFFER's value (-1 unset, 0, 1, 2, 3, 4).
int face_trace_mode_for(int asked, int order, bool double_precision);
/// Whether the trace buffer holds each side's traces at the face rule's points rather than its nodes
/// (FaceTraceBuffer::points: more values to write and read, no interpolation from the nodes in the
/// face kernel), by measurement (face_trace_points_for's rule); FLOWDG_TRACE_POINTS=0|1 replaces the
/// rule for A/B runs (read at every operator build; anything else an InputError).
bool face_trace_points(int order, bool double_precision);
/// The rule with `asked` for FLOWDG_TRACE_POINTS's value (-1 unset, 0, 1).
bool face_trace_points_for(int asked, int order, bool double_precision);
/// The blocks an SM the tensor-core element kernel's registers are bounded for on 3D Euler's affine
/// tetrahedra at p = 3, 4, by measurement: double rows 3 at p = 3, 2 at p = 4 (the plain layout's
/// shared memory fits two there, the compact one's three: tensor_compact), float rows (float
/// storage: tensor_float_rows) 4; FLOWDG_TENSOR_BLOCKS=2|3|4 for A/B runs (4 with float rows only, 3
/// at p = 4 with float rows or the compact layout; anything else an InputError).
int tensor_blocks(int order, bool float_rows = false, bool compact = false);
/// tensor_blocks with `asked` for FLOWDG_TENSOR_BLOCKS's value (0: unset): the rule, or asked where
/// the layout allows it, else an InputError (what tensor_blocks reads once a process, testable).
int tensor_blocks_for(int asked, int order, bool float_rows, bool compact);
/// Whether the tensor-core element kernel on 3D Euler's affine tetrahedra at p = 3, 4 loads phase
/// 3's A fragments k steps ahead of their products (core_tensor_kernels.hpp APrefetch, in the
/// measured default shapes: m8n8k4, double rows p = 3 three blocks and late loads, p = 4 two blocks
/// and early loads, float rows four blocks and late loads); by measurement double rows at p = 4;
/// FLOWDG_TENSOR_PREFETCH=0|1 (nowhere, or in all those shapes) for A/B runs (the same products in
/// the same order: the same bits; anything else an InputError).
bool tensor_prefetch(int order, bool float_rows);
/// Double rows on 3D Euler's affine tetrahedra at p = 3, 4: the tensor-core element kernel's
/// coefficients inside the reference fluxes' rows (CoreTensorLayout::compact: 40 instead of 46 KB a
/// block at p = 3, 71 instead of 83 at p = 4); by measurement yes at both; FLOWDG_TENSOR_COMPACT=0|1
/// for A/B runs (anything else an InputError).
bool tensor_compact(int order);
/// Float storage on 3D Euler's affine tetrahedra at p = 3, 4: the tensor-core element kernel's
/// shared rows in float (half the shared memory; core_tensor_kernels.hpp FloatRows) or in double;
/// by measurement float at p = 3 and 4; FLOWDG_TENSOR_ROWS=double|float for A/B runs (anything else an
/// InputError).
bool tensor_float_rows(int order);
/// When the tensor-core element kernel on 3D Euler's affine tetrahedra at p = 3, 4 loads its
/// Runge-Kutta registers: false in phase 0 (their latency behind the products), true after the
/// products (fewer live registers); by measurement late where its registers are bounded for three
/// blocks or more (tensor_blocks); FLOWDG_TENSOR_RK=early|late for A/B runs (anything else an
/// InputError).
bool tensor_late_rk(int order, bool float_rows, bool compact);
/// The tensor-core element kernel's product shape on 3D Euler's affine tetrahedra at p = 3, 4: true
/// m16n8k4 in the residual's product, false m8n8k4; by measurement m16n8k4 at p = 3 and 4 (double
/// rows; float rows' four blocks an SM keep m8n8k4); FLOWDG_TENSOR_WIDE=0|1 for A/B runs (anything
/// else an InputError).
bool tensor_wide(int order);
/// Whether the tensor-core element kernel on 3D Euler's affine tetrahedra at p = 3, 4 (in the
/// default shapes) takes the layout's sizes at compile time where the layout is the default volume
/// rule's with face moments (core_tensor_kernels.hpp FixedNq: loop bounds, k splits and index
/// arithmetic folded; the same products in the same order); by measurement at p = 3 and 4 (double p = 4
/// since session 55); FLOWDG_TENSOR_FIXED=0|1 (nowhere, or in every default shape) for A/B runs (anything
/// else an InputError).
bool tensor_fixed_layout(int order, bool float_rows);
/// tensor_fixed_layout with `asked` for FLOWDG_TENSOR_FIXED's value (-1: unset), testable.
bool tensor_fixed_layout_for(int asked, int order, bool float_rows);
/// The volume points the compiled-in sizes assume at p = 3, 4 (tensor_fixed_layout): the default
/// volume rule's on affine tetrahedra (volume_rule(tetrahedron, affine, p): degree 2p, 24 and 46
/// points; unit-tested against it), 0 elsewhere.
constexpr int tensor_fixed_volume_points(int order) { return order == 3 ? 24 : order == 4 ? 46 : 0; }
/// Where the tensor-core element kernel's default shapes with late Runge-Kutta loads (tensor_late_rk)
/// and the sizes compiled in (tensor_fixed_layout) load those registers: true as soon as the
/// products' partial sums are stored (their latency behind the splits' sums), false just before the
/// update; by measurement at p = 3; FLOWDG_TENSOR_RK_SUMS=0|1 for A/B runs (anything else an InputError).
bool tensor_rk_after_sums(int order);
/// Whether double p = 4's fused-traces shape (the compact layout, its Runge-Kutta registers loaded
/// after the partial sums) also loads the coefficients u that the compact layout's update reads from global memory
/// again (core_tensor_kernels.hpp LateRk = 3: their latency behind the splits' sums too, instead of
/// exposed in the update); by measurement at p = 4; FLOWDG_TENSOR_RK_U=0|1 for A/B runs (anything
/// else an InputError).
bool tensor_rk_u(int order);
/// The tensor-core element kernel's Variant (core_tensor_kernels.hpp: its bits) in its default shapes
/// at p = 3, 4 with the sizes compiled in (at p = 4 the fused-traces shapes), by measurement: at p = 4
/// 151 in double rows and 2 in float rows, at p = 3 66 in double rows (2 in float storage's double
/// rows) and 10 in float rows; 0 below p = 3. FLOWDG_TENSOR_VARIANT=0, 1, 2, 3, 7, 10, 23, 66 or 151
/// for A/B runs where the shape is built for it (double rows at p = 4: 0, 3, 7, 23, 151; at p = 3: 2,
/// 66; float rows at p = 4: 0, 2; at p = 3: 2, 10; any other value runs variant 0 at p = 3 and is an
/// InputError at p = 4).
int tensor_variant(int order, bool float_rows);
/// tensor_variant with `asked` for FLOWDG_TENSOR_VARIANT's value (-1: unset), testable.
int tensor_variant_for(int asked, int order, bool float_rows);
/// Whether the tensor-core element kernel can run a group of 3D Euler's affine tetrahedra with its
/// state element-major (core_kernels.hpp StateLayout; face_trace_mode 4; core_tensor_kernels.hpp
/// Variant bit 256): built for the default shapes at p = 3 alone, with the sizes compiled in (Nq the
/// default volume rule's points, Nfq the face moments' nodes, tensor_fixed_layout) — double rows in
/// double storage at tensor_variant 66 (ten warps, three blocks an SM, the Runge-Kutta loads late,
/// m16n8k4), float rows at 10 (narrow blocks). The operator holds a group element-major only where
/// this says so (else the coefficients' copy), and the launcher runs it by the same test.
bool tensor_element_major_runs(int order, bool double_storage, bool float_rows, bool compact, int Nq, int Nfq);
/// Whether the tensor-core element kernel stages an element-major group's coefficients element-major in
/// shared memory too (Variant bit 512: one contiguous copy of the block's values, 16 bytes at a time,
/// instead of 8-byte copies into the rows [j ST + v E + el]), by measurement;
/// FLOWDG_TENSOR_STAGING=0|1 replaces the rule for A/B runs (anything else an InputError).
bool tensor_staged_element_major();
/// The tensor-core element kernel's rows in the order (0, 2, 1, 3) within each four in phases 0 and 2
/// and the update (CoreTensorLayout::swizzle: fewer shared-memory bank conflicts, the same values), by
/// measurement (tensor_row_swizzle_for's rule); FLOWDG_TENSOR_SWIZZLE=0|1 replaces it for A/B runs
/// (anything else an InputError).
bool tensor_row_swizzle(int order, bool float_rows);
/// tensor_row_swizzle with `asked` for FLOWDG_TENSOR_SWIZZLE's value (-1 unset), testable.
bool tensor_row_swizzle_for(int asked, int order, bool float_rows);
/// The tensor-core element kernel's warps a column tile (core_tensor_kernels.hpp Groups) at p = 3, 4:
/// 2 (ten warps a block of 3D Euler) or 1 (narrow blocks of five warps, more blocks an SM; built for
/// the default shapes of double p = 3 in the compact layout, float rows p = 3, 4 and double p = 4:
/// other shapes run ten warps whatever this says); by measurement 1 for float rows at p = 3, else 2;
/// FLOWDG_TENSOR_ROW_GROUPS=1|2 for A/B runs (anything else an InputError); 2 below p = 3.
int tensor_row_groups(int order, bool float_rows);
/// tensor_row_groups with `asked` for FLOWDG_TENSOR_ROW_GROUPS's value (0: unset), testable.
int tensor_row_groups_for(int asked, int order, bool float_rows);
/// The device kernels' Runge-Kutta update (StageUpdate::tested): apply_runge_kutta_stage's
/// coefficient tests (true) or apply_runge_kutta_stage_finite's plain products (false; the same
/// values); FLOWDG_RK_UPDATE=tested|plain for A/B runs (anything else an InputError).
bool runge_kutta_update_tested();

}  // namespace flowdg::dg
