#pragma once
// Modal DG for the 2D Euler equations on affine triangles (Fuhry, Giuliani & Krivodonova 2015,
// Eq. 12): orthonormal Dubiner basis (identity mass matrix on the reference triangle), volume
// integrals with a triangle rule exact to degree 2p, edge integrals with (p+1)-point
// Gauss-Legendre, the right element's edge points traversed in reverse (Eq. 16).
//
// Layout (DESIGN.md): coefficients u[(variable * Np + j) * K + e], element index fastest. A face
// kernel evaluates each numerical flux once per face quadrature point and stores it (scaled by
// the quadrature weight and the edge half-length); the element kernel gathers its three faces,
// adds the volume integral and applies the Runge-Kutta stage update in the same pass, writing each
// coefficient once. No atomics; two runs give the same bits.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "flowdg/backend/memory.hpp"
#include "flowdg/cases/euler2d_cases.hpp"
#include "flowdg/mesh/connectivity.hpp"
#include "flowdg/mesh/mesh.hpp"
#include "flowdg/physics/euler.hpp"
#include "flowdg/physics/riemann/riemann_solver.hpp"
#include "flowdg/time/runge_kutta.hpp"

namespace flowdg::euler2d {

enum class BoundaryKind : int {
  slip_wall,           ///< reflect the normal velocity about the straight edge
  curvature_wall,      ///< Krivodonova-Berger: reflect about the tangent of the true circle
  inflow,              ///< supersonic inflow: the prescribed flow's state
  outflow,             ///< supersonic outflow: extrapolate the interior state
  farfield,            ///< characteristic (Riemann invariant) far field towards the prescribed flow
  prescribed,          ///< the prescribed flow's state as the outer state of the numerical flux
};

/// Boundary condition of one boundary tag.
struct BoundaryCondition {
  BoundaryKind kind = BoundaryKind::slip_wall;
  Flow flow{};                  ///< inflow / farfield / prescribed: U(x, y, t)
  double center_x = 0, center_y = 0;  ///< curvature_wall: the circle's centre
};

enum class Limiter : int {
  none,
  barth_jespersen,  ///< p = 1: Barth-Jespersen; p > 1: troubled cells to a limited linear part
};

/// CUDA element kernels: thread = one thread per element (the CPU's loop body); block = a block
/// of elements through shared memory, a thread per (element, point) then per (element, mode);
/// tensor = the same block's two small matrix products on the FP64 tensor cores (p >= 1).
enum class GpuElementKernel : int { automatic, thread, block, tensor };
/// CUDA face kernels: point = one thread per face point, each evaluating both traces; block = a
/// block of 256 / (p + 1) faces rounded down to a multiple of 32, a thread per (face, side,
/// variable) evaluating its trace once into shared memory, then a thread per (face, point) for the
/// flux; warp = the same work with each warp owning 32 / (p + 1) faces and no barrier between warps.
enum class GpuFaceKernel : int { automatic, point, block, warp };

struct SolverOptions {
  int order = 1;
  RiemannSolver flux = RiemannSolver::hllc;
  Limiter limiter = Limiter::none;  ///< applied after every Runge-Kutta stage
  bool characteristic_limiting = false;  ///< limit characteristic variables (along the mean velocity)
  bool positivity = false;          ///< Zhang-Shu scaling after every stage (after the limiter)
  /// CUDA only (the CPU runs one element per loop iteration): which element and face kernels a
  /// stage uses; automatic picks the fastest measured for the order (docs/performance.md).
  GpuElementKernel element_kernel = GpuElementKernel::automatic;
  GpuFaceKernel face_kernel = GpuFaceKernel::automatic;
  /// Interior faces numbered in the order of their lower element (false: the mesh's face order);
  /// results do not depend on it, only the face kernels' memory locality does.
  bool faces_by_element = true;
  /// CUDA, compute capability >= 9.0: each stage kernel is launched as a programmatic dependent of
  /// the one before, so its blocks are placed while that one's last blocks finish (it waits for
  /// them before reading anything). Results do not depend on it.
  bool chained_launches = true;  // see uses_chained_launches
  Gas gas{};
  Backend backend = Backend::cpu;
  /// Indexed by mesh boundary tag; every tag with faces must have one.
  std::vector<BoundaryCondition> boundary;
};

/// Whether a solver launches its stage kernels chained: asked for (SolverOptions::chained_launches),
/// on the CUDA backend, on a device of compute capability 9.0 or higher.
bool uses_chained_launches(Backend backend, bool requested);

struct ErrorNorms {
  std::array<double, n_variables> l2{};    ///< sqrt(integral of (U_h - U)^2) per variable
  std::array<double, n_variables> linf{};  ///< max over quadrature points of |U_h - U|
};

/// Time per Runge-Kutta stage of one group of kernel launches, and the bytes it must move.
struct KernelTiming {
  std::string name;      ///< "faces", "element", "limiter"
  std::string variant;   ///< the CUDA kernel that ran: faces point/block, element thread/block/tensor; "" on the CPU
  double seconds = 0;    ///< mean per stage
  double bytes = 0;      ///< per stage, by the model in time_kernels
};

/// Highest order compiled into the kernels.
int max_order();

class Solver {
 public:
  /// The mesh must be made of 3-node triangles; the connectivity built from it (faces may have been
  /// made periodic).
  Solver(const Mesh& mesh, const Connectivity& connectivity, SolverOptions options);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  /// L2 projection of a flow at time t onto the basis (a quadrature rule of degree 2p + 2), then
  /// the limiter and positivity scaling when they are configured.
  void project(const Flow& flow, double t);
  /// dt = cfl * min over elements of h_e / ((2p + 1) * (|v| + c) at the element mean), h_e the
  /// element's smallest altitude. Throws NumericalError if the state is not admissible.
  double stable_time_step(double cfl) const;
  /// One Runge-Kutta step from t to t + dt. With monitor_change, last_change() reports
  /// max |c_new - c_old| afterwards (costs one extra pass over the coefficients).
  void step(const RungeKuttaScheme& scheme, double t, double dt, bool monitor_change = false);
  /// Runs `repeats` steps' worth of stages with a synchronisation after each group of launches and
  /// returns each group's mean time per stage with the bytes it must move (the benchmark's model).
  /// Changes the solution like `repeats` steps of size dt would.
  std::vector<KernelTiming> time_kernels(const RungeKuttaScheme& scheme, double dt, int repeats);
  /// Applies the configured limiter and positivity scaling once (what every stage does).
  void apply_limiter();
  /// The right-hand side dc/dt of Eq. (12) at time t (for tests and diagnostics).
  std::vector<double> residual(double t);
  /// max |c_new - c_old| over all coefficients for the last monitored step.
  double last_change() const { return last_change_; }

  ErrorNorms errors(const Flow& exact, double t) const;
  /// Integral of each conserved variable over the domain.
  std::array<double, n_variables> totals() const;
  /// Global element id and centroid of the first element holding a non-admissible mean or
  /// quadrature-point state, or -1.
  index_t first_bad_element() const;

  std::vector<double> coefficients() const;
  void set_coefficients(const std::vector<double>& values);
  /// Keeps a copy of the current coefficients on the device (the last state known to be good).
  void save_snapshot();
  /// The coefficients last saved by save_snapshot() (empty if none).
  std::vector<double> snapshot() const;
  /// "element 12 near (0.31, 0.12): density -0.02, pressure 3.1" for the first element whose mean
  /// or quadrature-point state is not admissible, or "" if there is none.
  std::string describe_bad_state() const;
  /// Element vertices, [3 * e + k] (host copy, for output).
  const std::vector<Point3>& vertices() const;

  int order() const { return options_.order; }
  int n_basis() const;
  index_t n_elements() const { return n_elements_; }
  index_t dof() const;
  const SolverOptions& options() const { return options_; }

  struct Data;  // device arrays (defined in the kernels' translation unit)

 private:
  SolverOptions options_;
  index_t n_elements_ = 0;
  double last_change_ = 0;
  std::unique_ptr<Data> data_;
};

}  // namespace flowdg::euler2d
