#pragma once
// Symmetric interior-penalty DG on polytopic meshes (issue 18 items 3-4; Dong, Georgoulis & Kappas
// 2021, Eq. 1-5; Cangiani, Georgoulis & Houston 2014) for
//   -div(a grad u) + b . grad u + c u = f,  u = g_D on the Dirichlet and inflow boundary,
//   (a grad u) . n = g_N on the Neumann boundary,
// with physical-frame bases (poly/basis.hpp) of degree p_k per element. The bilinear form:
//   B(u, v) = sum_k int_k (a grad u . grad v + (b . grad u) v + c u v)
//           - sum_k int_{inflow part of dk, interior} (b . n_k) (u_k - u_neighbour) v_k
//           - sum_k int_{inflow part of dk on a Dirichlet tag} (b . n_k) u v
//           + sum_{F interior or Dirichlet} int_F (sigma [u] . [v] - {a grad u} . [v] - {a grad v} . [u]),
//   l(v) = sum_k int_k f v - sum_k int_{inflow part of dk on a Dirichlet tag} (b . n_k) g_D v
//        + sum_{F Dirichlet} int_F g_D (sigma v - (a grad v) . n) + sum_{F Neumann} int_F g_N v,
// with [w] = w_1 n_1 + w_2 n_2 and {q} = (q_1 + q_2) / 2 (on the boundary [w] = w n, {q} = q). A
// boundary tag is Dirichlet or Neumann; where a = 0 a Dirichlet tag is the hyperbolic boundary (its
// inflow part takes g_D, its outflow part nothing: sigma and the diffusive terms vanish with a).
//
// Penalty (Appendix A): on a sub-face F of elements kappa (one or two),
//   sigma = C_sigma max_kappa C_INV(p_kappa, kappa, F) abar_kappa p_kappa^2 |F| / |kappa|,
// abar_kappa the largest eigenvalue of a on kappa (at its quadrature points), C_sigma =
// SipgOptions::penalty, and C_INV = |kappa| / cover with the mesh's cover measure of F on kappa
// (the cone from the kernel point of a star-shaped element, else its fine simplex at F), so that
//   sigma = C_sigma abar p^2 |F| / cover = C_sigma abar p^2 d / (the cone's height).
// Appendix A caps C_INV at p^(2(d-1)) (SipgOptions::penalty_cap, poly::inverse_estimate_factor).
// That cap is off by default: with it, a sub-face's penalty scales with its own measure |F| / |kappa|,
// and coercivity then needs C_sigma above the number of sub-faces of an element (the bound of
// {a grad v} . [v] sums sigma^-1 |F| / |kappa| over them), which agglomerates of tens of fine
// simplices exceed: measured, p = 1 on agglomerates of 60 triangles gave indefinite matrices
// and erratic errors for C_sigma from 10 to 100. Without it, sum_F sigma^-1 |F| = sum of cone
// volumes / (C_sigma d) = |kappa| / (C_sigma d) whatever the number of sub-faces: for p = 1 (grad v
// constant) SIPG is then coercive for C_sigma above about 1, and the sharp trace inverse inequality
// on the cones keeps that for higher p. The default C_sigma = 3 leaves a margin; larger values
// over-penalise low degrees on agglomerates (p = 1, 1,024 agglomerates of 32 triangles: L2 error
// 4.8e-3 at C_sigma = 3, 1.7e-2 at 10, 6.0e-2 at 40; docs/validation.md has the table).
//
// Quadrature: every element integral is a sum over its sub-simplices (PolyMesh::quadrature), every
// face integral over its sub-faces, with one simplex rule of degree 2 p_max + quadrature_extra for
// the volume and one of that degree for the faces (exact for the matrix of constant coefficients).
//
// Assembly (item 4): kernels by kind (element: one thread per sub-simplex; interior: one per
// interior sub-face, writing its four blocks; boundary: one per boundary sub-face), launched once per
// degree group (sub-simplices by their element's degree, interior sub-faces by the larger degree of
// their two sides), on either backend from one source (sipg_kernels.cpp), three ways:
//   coo            Approach 1: each thread writes its blocks' (row, column, value) entries,
//                  duplicates included; linalg::csr_from_coo sorts and sums them into CSR;
//   deterministic  Approach 2 (default): the CSR pattern from the element adjacency (a block per
//                  element and per interface, however many sub-faces), each thread writes its blocks
//                  to scratch, and one thread per block row sums the contributions of that block in
//                  a fixed order (sub-simplices, boundary sub-faces, then interfaces by neighbour
//                  number and their sub-faces in order) at their final positions: the same bits every run;
//   atomic         Approach 2 as the paper: each thread adds its values at their final positions
//                  with atomics (the order of the sums, and so the last bits, vary run to run).
// The right-hand side is assembled by one thread per element in the same fixed order.
//
// Space-time slabs (issue 19; the paper's section 2.3, after Cangiani, Dong & Georgoulis 2017) for
// the parabolic problem u_t - div(a grad u) + b . grad u + c u = f: on the slab I_n = (t_{n-1},
// t_n) every element is the prism kappa x I_n with a space-time basis (poly/basis.hpp: the reduced
// space P_p(kappa x I_n) or the full P_q(I_n) x P_p(kappa)), and the slab's system is
//   int_{I_n} [ (u_t, v) + B(u, v; t) ] dt + (u^+, v^+)_{t_{n-1}} = int_{I_n} l(v; t) dt + (u_h^-, v^+)_{t_{n-1}},
// B and l the spatial forms above on the lateral faces (every term integrated in time as well),
// the upwind time jump at the slab's bottom (u^+ from this slab, u_h^- the previous slab's solution
// at its top, or the initial condition), nothing at its top. The same kernels assemble it (templated
// on space-time: a Gauss-Legendre rule in time inside each quadrature loop, the time derivative in
// the element block, the jump's mass terms per sub-simplex), so the three assembly ways, the
// pattern and the reduction are those of the steady problem with larger blocks. Coefficients and
// data are sampled per slab at every (point, time point) (set_slab), so coefficients that depend on
// time are reassembled slab by slab. Double precision only; degrees up to max_space_time_degree.
#include <array>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/core/point.hpp"
#include "flowdg/linalg/csr.hpp"
#include "flowdg/poly/basis.hpp"
#include "flowdg/poly/poly_mesh.hpp"

namespace flowdg::poly {

/// The coefficients and data of the problem as the assembly samples them (host functions, bulk:
/// `out` holds the values at every point, point after point). poly/problem.hpp makes one from a
/// case file; tests make them from lambdas.
struct Coefficients {
  int dimension = 2;
  /// a: d x d per point, row-major, symmetric positive semi-definite.
  std::function<void(std::span<const Point3>, double*)> diffusion;
  std::function<void(std::span<const Point3>, double*)> advection;  ///< b: d per point
  std::function<void(std::span<const Point3>, double*)> reaction;   ///< c
  std::function<void(std::span<const Point3>, double*)> source;     ///< f
  std::function<void(std::span<const Point3>, double*)> dirichlet;  ///< g_D
  /// g_N at points with their outward unit normals.
  std::function<void(std::span<const Point3>, std::span<const Point3>, double*)> neumann;
  /// Set when the coefficient is the same everywhere: no per-point arrays then (the functions above
  /// are not called for it).
  std::optional<std::array<double, 9>> constant_diffusion;  ///< row-major 3 x 3 (its 2 x 2 block in 2D)
  std::optional<std::array<double, 3>> constant_advection;
  std::optional<double> constant_reaction;
  /// Per boundary tag of the mesh (PolyMesh::boundary_names): true for a Neumann tag.
  std::vector<bool> neumann_tag;
  /// The functions may be called from several threads at once (on disjoint points): the sampling
  /// then runs on every host thread. The built-in problems' are; muparser formulas are not.
  bool thread_safe = false;
};

/// How the matrix is assembled (see the top).
enum class AssemblyMethod { coo, deterministic, atomic };
const char* assembly_method_name(AssemblyMethod method);
/// "coo", "deterministic", "atomic"; InputError otherwise (naming `where`).
AssemblyMethod parse_assembly_method(const std::string& name, const std::string& where);

struct SipgOptions {
  int degree = 1;                  ///< p of every element unless `degrees` is given
  std::vector<int> degrees;        ///< per element (optional): variable degree, each 1..max_degree
  double penalty = 3;              ///< C_sigma
  /// Appendix A's cap of C_INV at p^(2(d-1)) (the paper's rule); off by default: see the top.
  bool penalty_cap = false;
  int quadrature_extra = 1;        ///< rule degree 2 p_max + quadrature_extra
  /// spatial (steady), or a space-time space for slabs (see the top)
  LocalSpace space = LocalSpace::spatial;
  int time_degree = -1;            ///< q of the full space (-1: the degree p)
  /// A rank's part (poly/poly_partition.hpp): only the rows of elements [0, owned_elements) are
  /// assembled (their blocks, boundary sub-faces and interfaces; -1: all), and assemble() returns
  /// those rows with every local column (owned elements' unknowns first, then the others'). The
  /// deterministic and atomic ways only.
  index_t owned_elements = -1;
  /// The deterministic assembly's last step, the sum of each block's contributions: one thread per
  /// matrix entry of a block (the default: reads and writes coalesced, many threads) or one thread
  /// per block (the first version, kept for A/B: flowdg bench-sipg --reduction block). The same
  /// bits either way (each entry's contributions are added in the same order).
  enum class Reduction { per_entry, per_block };
  Reduction reduction = Reduction::per_entry;
};

/// "full" or "reduced" (InputError otherwise, naming `where`).
LocalSpace parse_space_time_space(const std::string& name, const std::string& where);
const char* local_space_name(LocalSpace space);

/// The coefficients of a time-dependent problem at time t.
using CoefficientsAt = std::function<Coefficients(double t)>;

/// One slab's contributions to the space-time errors (squares: the driver sums them over slabs).
struct SlabErrors {
  double l2l2_squared = 0;   ///< int_{I_n} ||u - u_h||^2 dt
  double dg_squared = 0;     ///< int_{I_n} ||u - u_h||_DG^2 dt (the spatial DG norm of SipgErrors)
  double jump_squared = 0;   ///< ||u_h^+ - u_h^-||^2 at t_{n-1} (u_h^- the previous slab's, or u_0)
  double top_l2 = 0;         ///< ||u(t_n) - u_h(t_n^-)|| (the error at the slab's top)
};

/// Seconds spent (device synchronised at each boundary) and sizes.
struct AssemblyTimes {
  double setup = 0;     ///< mesh and coefficient data to the device (SipgDiscretisation's constructor)
  double pattern = 0;   ///< CSR pattern and contribution offsets (Approach 2), or nothing (Approach 1)
  double element = 0;   ///< element kernels
  double interior = 0;  ///< interior-face kernels
  double boundary = 0;  ///< boundary-face kernels
  double indices = 0;   ///< Approach 1: COO to CSR (sort, sum); deterministic: the block-row reduction
  double rhs = 0;       ///< the right-hand side
  double total = 0;     ///< pattern to the finished matrix and right-hand side
  index_t coo_entries = 0;  ///< Approach 1: the entries written, duplicates included (else 0)
  index_t nonzeros = 0;
};

template <class Real>
struct AssembledSystem {
  linalg::CsrMatrix<Real> matrix;  ///< in the backend's space
  Array<Real> rhs;                 ///< in the backend's space
  AssemblyTimes times;
  AssemblyMethod method = AssemblyMethod::deterministic;
};

/// Errors of a solution against an exact one.
struct SipgErrors {
  double l2 = 0;       ///< ||u - u_h||_{L2}
  /// The DG norm of e = u - u_h: (||sqrt(a) grad_h e||^2 + sum_F ||sqrt(sigma) [e]||^2
  /// + 1/2 sum_F |||b . n|^(1/2) [e]||^2 + ||sqrt(c) e||^2)^(1/2), boundary faces included ([e] = e n).
  double dg = 0;
  double h1 = 0;       ///< the broken H1 seminorm ||grad_h e||
  double jumps = 0;    ///< (sum_F ||sqrt(sigma) [e]||^2)^(1/2), boundary faces of Dirichlet tags included (e = u_h - g_D there)
};

/// The squares of SipgErrors' norms over a rank's part (SipgDiscretisation::error_squares): summed
/// over the ranks they give the whole mesh's.
struct SipgErrorSquares {
  double l2 = 0, h1 = 0, dg = 0, jumps = 0;
};
/// The errors of summed squares.
SipgErrors errors_from_squares(const SipgErrorSquares& squares);

struct DeviceData;  // the arrays of the kernels (sipg_kernels.cpp)

/// The discretisation of one problem on one polytopic mesh: degrees, degrees of freedom (element
/// after element, basis_size(p_k, d) each), quadrature, penalty, the coefficients sampled at every
/// quadrature point, all in the backend's memory. Assembles the system any of the three ways.
class SipgDiscretisation {
 public:
  /// InputError: a degree outside 1..max_degree, `degrees` of the wrong size, coefficients of the
  /// wrong dimension, a boundary tag count that does not match the mesh, a negative penalty.
  SipgDiscretisation(const PolyMesh& mesh, const Coefficients& coefficients, const SipgOptions& options, Backend backend);
  ~SipgDiscretisation();
  SipgDiscretisation(const SipgDiscretisation&) = delete;
  SipgDiscretisation& operator=(const SipgDiscretisation&) = delete;

  template <class Real>
  AssembledSystem<Real> assemble(AssemblyMethod method) const;
  /// The right-hand side alone (a slab whose matrix is that of the slab before: the data and the
  /// time jump's u_h^- change, the operator does not).
  template <class Real>
  Array<Real> assemble_rhs() const;

  index_t dofs() const { return dof_start_.back(); }
  /// The unknowns of the owned elements (all of them without owned_elements).
  index_t owned_dofs() const { return dof_start_[static_cast<std::size_t>(owned_)]; }
  index_t owned_elements() const { return owned_; }
  Backend backend() const { return backend_; }
  const std::vector<int>& degrees() const { return degrees_; }
  const std::vector<index_t>& dof_start() const { return dof_start_; }
  int max_degree_used() const { return p_max_; }
  bool space_time() const { return options_.space != LocalSpace::spatial; }
  LocalSpace local_space() const { return options_.space; }
  int time_degree() const { return time_degree_; }
  int time_points() const;

  /// Space-time: samples the coefficients and data of `at` on the slab (t0, t0 + dt) (at every
  /// quadrature point and time point) and recomputes the penalty; the next assemble() is that
  /// slab's system. The slab's length is dt exactly (not (t0 + dt) - t0, which rounding moves), so
  /// slabs of one length with the same coefficients give the same matrix bits. InputError: dt <= 0,
  /// non-finite values.
  void set_slab(double t0, double dt, const CoefficientsAt& at);
  /// Space-time: the time jump's data u_h^- at t_{n-1} for the next slab: the initial condition...
  void set_initial_trace(const std::function<void(std::span<const Point3>, double*)>& u0);
  /// ...or the previous slab's solution (in the backend's space) at its top; previous_dt its length.
  void top_trace(const Array<double>& solution, double previous_dt);
  double slab_start() const { return slab_t0_; }
  double slab_end() const { return slab_t1_; }
  double slab_length() const { return slab_dt_; }
  /// Space-time: this slab's error contributions against u(x, t) and grad u(x, t) (`exact_at(t)`).
  SlabErrors slab_errors(const std::vector<double>& solution,
                         const std::function<std::function<void(std::span<const Point3>, double*)>(double)>& exact_at,
                         const std::function<std::function<void(std::span<const Point3>, double*)>(double)>& gradient_at) const;
  int volume_rule_degree() const;
  double setup_seconds() const { return setup_seconds_; }
  /// Per interior sub-face and per boundary sub-face: sigma.
  const std::vector<double>& interior_penalty() const { return interior_sigma_; }
  const std::vector<double>& boundary_penalty() const { return boundary_sigma_; }
  /// Whether the bilinear form is symmetric (b = 0): CG applies.
  bool symmetric() const { return symmetric_; }

  /// The solution (host coefficients, dofs() entries) at points of element k.
  /// Space-time: at tau in [-1, 1] of the current slab (+1 its top).
  void evaluate(const std::vector<double>& solution, index_t element, std::span<const Point3> points, double* out,
                double tau = 1) const;
  /// The errors against u and grad u (host functions, bulk as Coefficients'), on the host with the
  /// volume and face rules.
  SipgErrors errors(const std::vector<double>& solution, const std::function<void(std::span<const Point3>, double*)>& exact,
                    const std::function<void(std::span<const Point3>, double*)>& exact_gradient) const;
  /// The squares over the owned elements (a part: their volumes and boundary sub-faces, and half of
  /// every interface with one owned side; `solution` holds the owned and the ghosts' unknowns), to be
  /// summed over the ranks; on a whole mesh errors() is errors_from_squares of this.
  SipgErrorSquares error_squares(const std::vector<double>& solution,
                                 const std::function<void(std::span<const Point3>, double*)>& exact,
                                 const std::function<void(std::span<const Point3>, double*)>& exact_gradient) const;
  /// The solution at the fine mesh's nodes, one value per (fine element, vertex) (for VTU output,
  /// discontinuous across elements): fine element e's vertex v at [(d + 1) e + v].
  /// Space-time: at the slab's top.
  std::vector<double> sample_at_fine_vertices(const std::vector<double>& solution) const;

 private:
  const PolyMesh& mesh_;
  Backend backend_;
  SipgOptions options_;
  std::vector<int> degrees_;
  std::vector<index_t> dof_start_;
  int p_max_ = 1;
  bool symmetric_ = true;
  std::vector<double> interior_sigma_, boundary_sigma_;
  std::vector<double> abar_;  // per element
  Coefficients coefficients_;  // for the errors (host)
  CoefficientsAt coefficients_at_;  // space-time: the slab's
  double setup_seconds_ = 0;
  int time_degree_ = 0;
  index_t owned_ = 0;
  double slab_t0_ = 0, slab_t1_ = 1, slab_dt_ = 1;
  // quadrature points (host), kept for sampling per slab
  std::vector<Point3> volume_points_, interior_points_, boundary_points_, boundary_normals_;
  /// Samples coefficients (one set per time point) and computes abar and the penalty.
  void sample_coefficients(const std::vector<Coefficients>& at_times);
  struct Integrals {
    double l2 = 0, h1 = 0, energy = 0, jumps = 0, advective = 0, reactive = 0;
  };
  Integrals error_integrals(const std::vector<double>& solution, const std::function<void(std::span<const Point3>, double*)>& exact,
                            const std::function<void(std::span<const Point3>, double*)>& exact_gradient,
                            const Coefficients& coefficients, double tau) const;
  DeviceData* data_ = nullptr;
};

}  // namespace flowdg::poly
