#pragma once
// The DG core's operator: one modal DG discretisation for any shape (triangle, quadrilateral,
// tetrahedron, hexahedron; mixed triangle/quadrilateral meshes), any geometry (affine or curved,
// isoparametric of order 1-4) and any physics that follows the physics/euler interface, in double
// or single precision, on the CPU or the GPU. Everything the run loop and the writers need goes
// through this non-template interface; the kernels behind it are templates on the physics, the
// group's shape and geometry kind and the order (dg/core_kernels.hpp), chosen per group at set-up.
//
// Discretisation (per element, orthonormal modal basis phi_j of P_p or Q_p on the reference element):
//   M du_j/dt = sum_k w_k det J_k F(u(r_k)) . (J_k^-T grad_r phi_j(r_k))
//               - sum_faces sum_q w_q |N_q| F*(u_m, u_p, n_q) phi_j(r_q)
// with M = det J I on affine elements and M_ij = sum_k w_k det J_k phi_i phi_j (inverted once per
// element at set-up, exactly) on curved ones. Quadrature rules, with g the geometric order:
//   volume, affine: exact to degree 2p;
//   volume, curved: 2p + dim (g - 1) on simplices, 2p + dim g - 1 on quadrilaterals/hexahedra (the
//                   mass matrix is then exact: det J has that degree);
//   faces: max(2p + 1, p + (dim - 1)(g_max - 1)), g_max over the curved groups: the face integral of
//          a constant flux is then exact too, so a uniform flow stays uniform to rounding.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "flowdg/backend/backend.hpp"
#include "flowdg/core/point.hpp"
#include "flowdg/dg/groups.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh.hpp"
#include "flowdg/mesh/halo.hpp"
#include "flowdg/physics/euler/artificial_viscosity.hpp"
#include "flowdg/physics/euler/boundary.hpp"
#include "flowdg/physics/euler/flows.hpp"
#include "flowdg/physics/euler/riemann.hpp"
#include "flowdg/physics/navier_stokes/navier_stokes.hpp"
#include "flowdg/time/runge_kutta.hpp"

namespace flowdg {
struct Distribution;  // parallel/communicator.hpp
}

namespace flowdg::dg {

enum class Precision : int { double_precision, single_precision };

/// A flow field in any dimension (initial data, exact solution, prescribed boundary state):
/// the physics' flow description, evaluated in the operator's dimension and precision.
using FlowSpec = physics::FlowSpec;

struct BoundarySpec {
  physics::BoundaryKind kind = physics::BoundaryKind::slip_wall;
  FlowSpec flow{};    ///< inflow, far field, prescribed, subsonic in/outflow: the state outside
  Point3 center{};    ///< curvature wall (2D): the true boundary's circle centre
  Point3 wall_velocity{};         ///< no-slip walls: the wall's velocity
  double wall_temperature = 1.0;  ///< isothermal walls: T_w / T_inf
};

/// The Navier-Stokes equations (BR2, dg/lifting.hpp) instead of Euler: the scales of the physics
/// and BR2's stabilisation factor.
struct ViscousOptions {
  bool enabled = false;
  physics::NavierStokesScales scales{};
  double eta = 0;  ///< 0: the element's number of faces (3 triangles, 4 quadrilaterals and tetrahedra, 6 hexahedra)
};

/// Persson & Peraire's artificial viscosity (physics/euler/artificial_viscosity.hpp) on the Euler
/// equations: shock capturing through BR2 (the eta of ViscousOptions), 3D.
struct ArtificialViscosityOptions : physics::ArtificialViscosityParameters {
  bool enabled = false;
};

/// Which kernels run a group (the registry, dg_operator.hpp): automatic takes the tuned 2D Euler
/// triangle kernels (tuned_triangles.hpp: thread/block/tensor element kernels, point/block/warp face
/// kernels on the GPU) for the affine triangles of a double-precision 2D mesh, and the portable core
/// kernels for every other group; portable forces the portable kernels everywhere, tuned refuses a
/// mesh without a group the tuned kernels can run.
enum class Implementation : int { automatic, portable, tuned };

enum class Limiter : int {
  none,
  barth_jespersen,  ///< p = 1: Barth-Jespersen; p > 1: troubled cells to a limited linear part (triangles only)
};

struct OperatorOptions {
  Implementation implementation = Implementation::automatic;
  /// After every stage; meshes of straight-sided triangles only (the tuned kernels' limiter; others
  /// are refused with a message).
  Limiter limiter = Limiter::none;
  bool characteristic_limiting = false;
  bool positivity = false;
  /// CUDA kernel variants by name. Tuned path: "automatic", or element thread/block/tensor, faces
  /// point/block/warp, chained launches, faces numbered by element (dg/euler2d.hpp). Portable path:
  /// element thread/block, faces point (a thread per face point) or block (a block of faces, each
  /// side's coefficients read once per face); "automatic" takes the block element kernel from p = 2
  /// in 2D and p = 3 in 3D, the block face kernel in 3D
  /// from p = 3 (and for Navier-Stokes in 2D at p = 4): automatic_block, automatic_block_faces.
  /// "variable": 3D Euler on affine tetrahedra, a warp per variable (dg/core_variable_kernels.hpp;
  /// elsewhere the automatic choice), which "automatic" takes there where it measured faster
  /// (automatic_variable_elements, automatic_variable_faces).
  std::string element_kernel = "automatic", face_kernel = "automatic";
  /// BR2's lifting pass (a viscous physics on CUDA): "thread", "block", "tensor" (FP64 tensor cores,
  /// affine groups in double precision where it fits; other groups the block kernel); "automatic"
  /// follows the element kernel (thread or block; tensor where the element kernel is the tensor one;
  /// the block lifting measured faster than the tensor one at every order on affine triangles once it
  /// took grad U from the coefficients: docs/performance.md, session 32).
  std::string lifting_kernel = "automatic";
  /// Curved groups whose rule allows it (quadrilaterals of geometric order 1) apply their inverse
  /// mass matrices through the volume points, exactly (setup.hpp: ElementGroupSetup::collocated);
  /// false: they store them like other curved groups (for comparisons; the same results to rounding).
  bool collocated_mass = true;
  bool chained_launches = true;
  bool faces_by_element = true;
  int order = 1;
  /// The volume rule's degree of exactness against 2p ([solver] volume_quadrature: "2p" = 0, the
  /// default; "2p-1" = -1, exact for the volume term of a linear flux, F of degree p times grad phi
  /// of degree p - 1, with fewer points: tetrahedra 14 instead of 24 at p = 3, 35 instead of 46 at
  /// p = 4; "2p+k" = k over-integrates). Simplices only: tensor-product shapes keep their p + 1
  /// Gauss points a direction (setup.hpp: volume_rule). The tuned 2D Euler triangles integrate to 2p.
  int volume_degree_shift = 0;
  physics::RiemannKind flux = physics::RiemannKind::hllc;
  double gamma = 1.4;
  Precision precision = Precision::double_precision;
  Backend backend = Backend::cpu;
  /// Indexed by mesh boundary tag; every tag with faces must have one.
  std::vector<BoundarySpec> boundary;
  ViscousOptions viscous;
  ArtificialViscosityOptions artificial_viscosity;
  /// A distributed run's rank (parallel/communicator.hpp): the mesh is its part, the halo exchanged
  /// after every stage, reductions global; null: the whole mesh on one rank.
  std::shared_ptr<const Distribution> distribution;
  /// Distributed runs: each stage updates the elements the halo sends first and exchanges them while
  /// it updates the rest ([solver] halo_overlap; off: the exchange follows the whole update, for
  /// A/B measurements). Runs with a limiter or positivity scaling never overlap.
  bool halo_overlap = true;
};

/// The ghost layer a distributed run of these options needs (mesh/partition.hpp: GhostLayers):
/// two vertex rings with the limiter or vertex-smoothed artificial viscosity, else one face ring.
GhostLayers required_ghost_layers(const OperatorOptions& options);

struct Norms {
  std::vector<double> l2;    ///< per variable: sqrt(integral of (u_h - u)^2)
  std::vector<double> linf;  ///< per variable: max over quadrature points of |u_h - u|
};

/// The state at every boundary face quadrature point (forces, wall distributions): one row per
/// point, boundary face groups in order. The viscous flux is that of the run's boundary treatment
/// (BR2's gradient with the lifting, physics.boundary_viscous_flux), 0 for inviscid physics.
struct WallSamples {
  int n_variables = 0;
  std::vector<int> tag;             ///< the boundary tag (Mesh::boundary_names index)
  std::vector<index_t> element;     ///< the mesh element the point's face belongs to
  std::vector<Point3> x;            ///< the point
  std::vector<Point3> normal;       ///< the unit normal out of the fluid (into the wall)
  std::vector<double> weight;       ///< w_q |N_q|: sum weight f integrates f over the faces
  std::vector<double> state;        ///< [i * n_variables + v]: the boundary state U_b (BoundaryCondition::boundary_state)
  std::vector<double> viscous_flux; ///< [i * n_variables + v]: Fv(U_b, grad U) . n (momentum: tau . n)
  std::size_t size() const { return tag.size(); }
};

/// The solution at reference points of each element group, mapped to physical space (output).
struct PointValues {
  Shape shape = Shape::triangle;
  std::vector<index_t> elements;  ///< mesh element ids
  std::vector<Point3> points;     ///< [e * n_points + k]
  std::vector<double> values;     ///< [(e * n_points + k) * n_variables + v], conserved variables
};

class Operator {
 public:
  virtual ~Operator() = default;

  virtual int dimension() const = 0;
  virtual int n_variables() const = 0;
  virtual int order() const = 0;
  virtual Precision precision() const = 0;
  virtual index_t n_elements() const = 0;
  /// elements x basis functions x variables, summed over the groups.
  virtual index_t dof() const = 0;
  /// The whole mesh's elements and DOF: in a distributed run every rank's owned ones (the
  /// operator's own count ghosts too), else n_elements() and dof().
  virtual index_t global_elements() const = 0;
  virtual index_t global_dof() const = 0;
  /// In a distributed run the part's first owned_elements() mesh elements are its own (the rest
  /// ghosts); else every element.
  virtual index_t owned_elements() const = 0;
  /// A distributed run's halo exchanges so far: their count, size and the time of each part on this
  /// rank ("" on one rank).
  virtual std::string halo_report() const { return ""; }
  virtual const Groups& groups() const = 0;
  /// One line per group: shape, geometry, elements, quadrature points (for logs and summaries).
  virtual std::string describe() const = 0;

  /// L2 projection of a flow at time t (a rule two degrees above the volume rule).
  virtual void project(const FlowSpec& flow, double t) = 0;
  /// dt = cfl * min over elements of h / ((2p + 1) (|v| + c)) at the element's mean state, h the
  /// element's size (dim x volume / largest face on simplices, volume / largest face on
  /// quadrilaterals and hexahedra: the smallest altitude, or the edge length of a square).
  /// Throws NumericalError when a mean state is not admissible.
  virtual double stable_time_step(double cfl) const = 0;
  /// Allocates what step() needs for `scheme` (its Runge-Kutta registers; with monitor_change the
  /// previous state), so that the first step does no allocation: run loops call it in their set-up.
  /// step() calls it too (it does nothing when all is in place).
  virtual void prepare(const RungeKuttaScheme& scheme, bool monitor_change = false) = 0;
  /// One Runge-Kutta step from t to t + dt (face kernels, then the fused element + update kernels).
  /// With monitor_change, last_change() then reports max |c_new - c_old| over all coefficients
  /// (one more pass over them: for steady-state runs).
  virtual void step(const RungeKuttaScheme& scheme, double t, double dt, bool monitor_change = false) = 0;
  virtual double last_change() const = 0;
  /// du/dt at time t in the coefficients' layout (tests and diagnostics).
  virtual std::vector<double> residual(double t) = 0;
  /// The L2 norm over the domain of du/dt at time t per conserved variable (the residual monitor,
  /// time.residual_every): errors()' quadrature of the residual against zero, its geometry and basis
  /// values kept from the first call, one copy of the residual to the host, no copy of the state.
  virtual std::vector<double> residual_norms(double t) = 0;

  /// Over the whole domain: in a distributed run the owned elements of every rank (as totals(),
  /// stable_time_step(), last_change() and set_local_time_steps(): collective calls there).
  virtual Norms errors(const FlowSpec& exact, double t) const = 0;
  /// Integral of each conserved variable over the domain.
  virtual std::vector<double> totals() const = 0;
  /// Coefficients group after group, each group [(variable * n_basis + j) * n_elements + e]
  /// (unpadded, in double whatever the precision).
  virtual std::vector<double> coefficients() const = 0;
  virtual void set_coefficients(const std::vector<double>& values) = 0;
  /// The solution at the given reference points of every element of each group (a list of points
  /// per shape, indexed by Shape's value; shapes not present may be left empty).
  virtual std::vector<PointValues> evaluate(const std::vector<std::vector<Point3>>& points_by_shape) const = 0;
  /// The solution (conserved variables) at reference point reference_points[i] of mesh element
  /// elements[i]: [i * n_variables + v] (probes, wake lines; a host copy of the state per call).
  virtual std::vector<double> evaluate_at(const std::vector<index_t>& elements, const std::vector<Point3>& reference_points) const = 0;
  /// The boundary state and viscous flux at every boundary face point at time t (one evaluation of
  /// the right-hand side: the viscous flux needs the BR2 gradient of the current state).
  virtual WallSamples wall_samples(double t) = 0;
  /// Local time stepping, for steady states (not time-accurate): every element advances with its
  /// own step, cfl times its own limit (stable_time_step's formula per element), stored here for
  /// the following steps, which then ignore their dt argument. Returns the smallest (the pseudo-
  /// time's advance). Throws NumericalError like stable_time_step, InputError where the tuned
  /// triangle kernels run (they take one dt).
  virtual double set_local_time_steps(double cfl) = 0;

  /// p-multigrid (FAS, cases/multigrid.hpp): this operator as a coarser level of `fine`, an
  /// operator of the same physics, precision and mesh at a higher order. Its state becomes the fine
  /// state's modes up to this order (the hierarchical bases' restriction, kept for prolongate_to),
  /// and its forcing s = R(u) - (R_fine(u_fine) - s_fine), restricted the same way, which its
  /// steps then subtract from R: a fine state at rest (R_fine = s_fine) is one here too. Throws
  /// InputError for an operator that cannot be this one's finer level.
  virtual void restrict_from(Operator& fine, double t) = 0;
  /// fine's state += this level's change since restrict_from (modes above this order: none).
  virtual void prolongate_to(Operator& fine) const = 0;

  /// Applies the configured limiter and positivity scaling once (what every stage does).
  virtual void apply_limiter() = 0;
  /// Keeps a device copy of the current coefficients (the last state known to be good) ...
  virtual void save_snapshot() = 0;
  /// ... and returns it in coefficients()' layout (empty if none was saved).
  virtual std::vector<double> snapshot() const = 0;
  /// "element 12 near (0.31, 0.12): density -0.02, pressure 3.1" for the first element whose mean
  /// or quadrature-point state is not admissible, or "" if there is none.
  virtual std::string describe_bad_state() const = 0;
  /// What runs: "portable core kernels" or the tuned path with its kernel variants.
  virtual std::string implementation() const = 0;
  /// Bytes a stage of `scheme` must move by the memory model of docs/performance.md (every input
  /// read once, every output written once; tables of a few kilobytes not counted), averaged over
  /// the scheme's stages: bytes / stage time over the copy bandwidth is the bandwidth efficiency.
  virtual double stage_bytes(const RungeKuttaScheme& scheme) const = 0;
  /// Artificial viscosity: each mesh element's eps at the current state (the sensor's, as the next
  /// stage computes it); empty for a physics without it.
  virtual std::vector<double> element_viscosity() const { return {}; }
};

/// The operator for the mesh's dimension (Euler<2> or Euler<3>; NavierStokes<2> or <3> with
/// options.viscous.enabled, double precision) and the requested precision.
/// Throws InputError for what it cannot run (an order out of range, an inverted element, a
/// boundary tag without a condition, faces whose two sides do not meet).
std::unique_ptr<Operator> make_operator(const Mesh& mesh, const Connectivity& connectivity,
                                        const OperatorOptions& options);

/// Coefficients (coefficients()' layout: group after group, [(v Np + j) K + e]) of order `from`
/// as order `to` on the same groups: the bases are hierarchical (element/basis.hpp), so a higher
/// order takes the same modes and zeros above them, a lower one drops the highest modes (the L2
/// projection on affine elements). p-continuation: a run restarted at another order.
std::vector<double> change_order(const Groups& groups, const std::vector<double>& values, int n_variables, int from, int to);

/// Highest order the core's kernels are compiled for, by dimension and precision (viscous: the
/// Navier-Stokes kernels').
int core_max_order(int dimension, Precision precision, bool viscous = false, bool artificial_viscosity = false);

}  // namespace flowdg::dg
