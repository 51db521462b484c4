#pragma once
// The DG core's operator for one physics (a template; its explicit instantiations live in
// dg/*_core_kernels.cpp, compiled by nvcc when CUDA is on). Holds each group's device data, picks
// each group's kernel instantiation once at set-up (the registry below) and runs the stage graph:
// every face group's kernel, then every element group's fused element + Runge-Kutta kernel.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "flowdg/backend/for_each.hpp"
#include "flowdg/backend/stream.hpp"
#include "flowdg/core/error.hpp"
#include "flowdg/parallel/communicator.hpp"
#include "flowdg/dg/core_kernels.hpp"
#include "flowdg/dg/core_variable_kernels.hpp"
#include "flowdg/dg/factorised.hpp"
#include "flowdg/dg/lifting.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/dg/setup.hpp"
#include "flowdg/dg/tuned_triangles.hpp"
#include "flowdg/dg/wall.hpp"
#if defined(__CUDACC__)
#include "flowdg/dg/core_block_kernels.hpp"
#include "flowdg/dg/core_tensor_kernels.hpp"
#include "flowdg/dg/factorised_kernels.hpp"
#include "flowdg/dg/lifting_block_kernels.hpp"
#include "flowdg/dg/lifting_tensor_kernels.hpp"
#include "flowdg/dg/br2_face_kernels.hpp"
#include "flowdg/dg/br2_factorised_kernels.hpp"
#endif
#include "flowdg/element/basis.hpp"
#include "flowdg/geometry/element_geometry.hpp"

#ifndef FLOWDG_MAX_ORDER
#define FLOWDG_MAX_ORDER 6
#endif

namespace flowdg::dg {

/// Rows of the per-element and per-face arrays are padded to a multiple of 32 entries, so every row
/// starts on a 256-byte boundary (docs/performance.md: misaligned rows cost a quarter of the
/// bandwidth on the H100).
inline index_t padded(index_t n) { return (n + 31) / 32 * 32; }

/// rows x n values (row-major) to rows x stride in precision Real, zeros in the padding.
template <class Real>
std::vector<Real> pad_rows(const std::vector<double>& values, index_t rows, index_t n, index_t stride) {
  std::vector<Real> out(static_cast<std::size_t>(rows * stride), Real(0));
  for (index_t r = 0; r < rows; ++r)
    for (index_t i = 0; i < n; ++i) out[r * stride + i] = static_cast<Real>(values[r * n + i]);
  return out;
}

/// Highest order compiled for a physics: every order of the build in 2D double precision; up to 4
/// in 3D and in single precision (the issue's tests and benchmarks; each order more is a set of
/// kernels more to compile); viscous physics up to 4 in 2D (the Navier-Stokes paper's orders) and 3
/// in 3D (operator.cpp's core_max_order says the same).
template <class Physics>
constexpr int compiled_max_order() {
  // Artificial viscosity: the inviscid physics' orders (the paper's p = 4 in 3D).
  if constexpr (physics::has_element_viscosity<Physics>) return FLOWDG_MAX_ORDER < 4 ? FLOWDG_MAX_ORDER : 4;
  if constexpr (Physics::has_viscous_flux) return FLOWDG_MAX_ORDER < (Physics::dim == 2 ? 4 : 3) ? FLOWDG_MAX_ORDER : (Physics::dim == 2 ? 4 : 3);
  constexpr bool full = Physics::dim == 2 && std::is_same_v<typename Physics::real, double>;
  return full ? FLOWDG_MAX_ORDER : (FLOWDG_MAX_ORDER < 4 ? FLOWDG_MAX_ORDER : 4);
}

/// The portable element kernel's automatic choice on CUDA: the shared-memory block kernel where it
/// measured faster than a thread per element on the H100 on ~1M elements (docs/performance.md,
/// session 8): in 2D from p = 2 (affine triangles, bilinear quadrilaterals, curved triangles: +10 to
/// +54%; at p = 1 the thread kernel is 5-23% faster), in 3D from p = 3 (tetrahedra +18% at p = 3,
/// 2.5x at p = 4; at p = 2 the thread kernel is 11% faster). Hexahedra follow the tetrahedra until
/// measured. Navier-Stokes on quadrilaterals at p = 1 took it in session 28 (+2.4% with stored
/// inverse mass matrices); with the collocated mass (session 29) the thread element and lifting
/// kernels are 40% faster there (9.87 against 7.04e9 DOF-stage updates/s on 640,000 bilinear
/// quadrilaterals, H200, one call), so the rule is the same for every physics again.
/// Session 39 (998,250 tetrahedra, the 3D Euler vortex, RK4, Rusanov, H100): at p = 1 the block
/// kernel 11.98e9 DOF-stage updates/s against the thread kernel's 11.07 in double (+8%, two rounds),
/// 23.28 against 22.64 in float (+2.8%); at p = 2 10.1 against 11.2 (the thread kernel stays). So 3D
/// inviscid physics take it at p = 1 too (viscous ones, not measured there, keep the thread kernel).
/// 3D Euler's affine tetrahedra take the warp-per-variable kernel before it where that measured
/// faster (automatic_variable_elements, setup.cpp: p = 1, 2 in both precisions).
constexpr bool automatic_block(int dim, int order, bool inviscid = false) {
  return dim == 2 ? order >= 2 : order >= 3 || (order == 1 && inviscid);
}
/// Below those orders a group too small to fill the GPU with a thread per element (fewer elements
/// than the device holds threads at once) takes the block kernel too: on the sphere (5,420
/// tetrahedra, 1,350 of them curved with 145 volume points at p = 2), 3,000 SSP-RK3 steps took 0.83
/// against 0.49 s at p = 1 and 2.45 against 1.43 s at p = 2 (thread against block, H100, session 33).
inline bool automatic_block(int dim, int order, index_t elements, long long resident_threads, bool inviscid = false) {
  return automatic_block(dim, order, inviscid) || elements < resident_threads;
}
/// The FP64 tensor-core element kernel's automatic choice (double precision), by the same
/// measurements (docs/performance.md, session 10): tetrahedra from p = 3 (+38% at p = 3, +47% at
/// p = 4 over the block kernel, both with block faces; at p = 2 the thread kernel stays 6% ahead),
/// 2D at p = 4 (bilinear quadrilaterals +18%, curved triangles +13%; portable affine triangles -4%);
/// below p = 4 in 2D the block kernel is faster.
constexpr bool automatic_tensor(int dim, int order) { return dim == 3 ? order >= 3 : order >= 4; }

/// The halo exchange's copies between a group's coefficients (its StateLayout: [row Ks + e] or
/// element-major) and the message buffer (each element's rows at its offset): pack (coefficients to
/// buffer) or unpack; a thread per value.
template <class Real>
struct HaloCopy {
  View<const Real> from;
  View<Real> to;
  View<const index_t> element, offset;
  index_t rows = 0;
  StateLayout layout{};
  bool pack = true;
  FLOWDG_HD void operator()(index_t i) const {
    const index_t slot = i / rows, row = i - slot * rows;
    if (pack)
      to[offset[slot] + row] = from[layout(row, element[slot])];
    else
      to[layout(row, element[slot])] = from[offset[slot] + row];
  }
};

/// A thread-per-item kernel on items [first, first + n) of its range.
template <class Kernel>
struct InRange {
  Kernel kernel;
  index_t first = 0;
  FLOWDG_HD void operator()(index_t i) const { kernel(first + i); }
};

template <class Physics>
class DgOperator final : public Operator {
 public:
  using Real = typename Physics::real;
  using State = typename Physics::State;
  static constexpr int dim = Physics::dim, NV = Physics::n_variables;
  static constexpr int max_order = compiled_max_order<Physics>();
  /// Artificial viscosity (physics/euler/artificial_viscosity.hpp): a viscosity per element from the
  /// smoothness sensor, through the same BR2 lifting as the Navier-Stokes equations.
  static constexpr bool artificial_viscosity = physics::has_element_viscosity<Physics>;
  /// The Navier-Stokes equations: a viscous physics with walls, temperatures and scales.
  static constexpr bool navier_stokes = Physics::has_viscous_flux && !artificial_viscosity;
  /// Whether the registry has a tuned specialisation for this physics (tuned_triangles.hpp: 2D
  /// Euler on affine triangles in double precision).
  static constexpr bool has_tuned_triangles = std::is_same_v<Physics, physics::Euler<2, double>>;
  /// Whether the chunked face kernel is built for this physics (face kernel "chunked",
  /// core_block_kernels.hpp): 3D Euler's interior faces (the 3D issue's measured path).
  static constexpr bool has_chunked_faces = dim == 3 && !Physics::has_viscous_flux;
  using Flow = physics::EulerFlow<dim, Real>;
  using HostFlow = physics::EulerFlow<dim, double>;

  DgOperator(const Mesh& mesh, const Connectivity& connectivity, const OperatorOptions& options);

  int dimension() const override { return dim; }
  int n_variables() const override { return NV; }
  int order() const override { return order_; }
  Precision precision() const override { return options_.precision; }
  index_t n_elements() const override { return mesh_.n_elements(); }
  index_t dof() const override;
  index_t global_elements() const override { return global_elements_; }
  index_t global_dof() const override { return global_dof_; }
  index_t owned_elements() const override { return n_owned_; }
  std::string halo_report() const override {
    if (communicator_ == nullptr || halo_count_ == 0) return "";
    const double n = static_cast<double>(halo_count_);
    char text[320];
    if (halo_overlap()) {
      std::snprintf(text, sizeof text,
                    "%lld stage exchanges of %.3g MB overlapped with the update of the %lld elements not sent (of %lld): the "
                    "host waited %.3g ms for the sent elements' update and packing, %.3g ms for MPI, each (rank %d; %s)",
                    halo_count_, halo_bytes_ / n / 1e6, static_cast<long long>(n_unsent()), static_cast<long long>(mesh_.n_elements()),
                    1e3 * halo_pack_ / n, 1e3 * halo_mpi_ / n, communicator_->rank(),
                    !direct_messages_ ? "staged through page-locked host memory"
                    : options_.backend == Backend::cuda ? "CUDA-aware MPI: messages in device memory"
                                                        : "messages in the operator's buffers");
      return text;
    }
    std::snprintf(text, sizeof text,
                  "%lld stage exchanges of %.3g MB: pack + to host %.3g ms, MPI (with the wait for the neighbours) %.3g ms, to device + unpack %.3g ms each (rank %d)",
                  halo_count_, halo_bytes_ / n / 1e6, 1e3 * halo_pack_ / n, 1e3 * halo_mpi_ / n, 1e3 * halo_unpack_ / n,
                  communicator_->rank());
    return text;
  }
  const Groups& groups() const override { return setup_.groups; }
  std::string describe() const override;

  void project(const FlowSpec& flow, double t) override;
  double stable_time_step(double cfl) const override;
  void prepare(const RungeKuttaScheme& scheme, bool monitor_change = false) override;
  void step(const RungeKuttaScheme& scheme, double t, double dt, bool monitor_change = false) override;
  double last_change() const override { return last_change_; }
  std::vector<double> residual(double t) override;
  std::vector<double> residual_norms(double t) override;
  Norms errors(const FlowSpec& exact, double t) const override;
  std::vector<double> totals() const override;
  std::vector<double> coefficients() const override;
  void set_coefficients(const std::vector<double>& values) override;
  std::vector<PointValues> evaluate(const std::vector<std::vector<Point3>>& points_by_shape) const override;
  std::vector<double> evaluate_at(const std::vector<index_t>& elements, const std::vector<Point3>& reference_points) const override;
  WallSamples wall_samples(double t) override;
  double set_local_time_steps(double cfl) override;
  void apply_limiter() override;
  void restrict_from(Operator& fine, double t) override;
  void prolongate_to(Operator& fine) const override;
  /// p-multigrid's forcing in a stage that the element kernels have just updated: R -> R - s. The
  /// update is linear in R, so this is q -= q_k dt s, u -= (u_q q_k + u_k) dt s after it. (Public
  /// for nvcc: a function with a device lambda cannot be private.)
  void apply_forcing(const RungeKuttaStage& stage, double dt, const StageRegisters& registers);
  /// A device copy of every group's coefficients (the run's thread only launches the copies).
  void save_snapshot() override;
  std::vector<double> snapshot() const override;
  std::string describe_bad_state() const override;
  std::string implementation() const override;
  double stage_bytes(const RungeKuttaScheme& scheme) const override;
  std::vector<double> element_viscosity() const override {
    if constexpr (artificial_viscosity) {
      const StreamScope on_stream(*stream_);
      std::vector<double> out(static_cast<std::size_t>(mesh_.n_elements()), 0.0);
      for (std::size_t g = 0; g < elements_.size(); ++g) {
        const ElementData& d = elements_[g];
        Array<Real> values(space_of(options_.backend), d.Ks);
        for_each(options_.backend, d.K, sensor_kernel(d, values.view()));
        const std::vector<Real> host = values.to_host();
        const std::vector<index_t>& members = setup_.groups.element_groups[g].elements;
        for (std::size_t e = 0; e < members.size(); ++e) out[static_cast<std::size_t>(members[e])] = static_cast<double>(host[e]);
      }
      return out;
    } else {
      return {};
    }
  }

 private:
  struct ElementData;
  struct FaceData;
  /// Which of a group's kernels a launch runs: the stage's (inviscid face fluxes; element kernel with
  /// the Runge-Kutta update) or the viscous pass's (BR2 lifting per element; boundary viscous fluxes),
  /// or (boundary face groups) the wall kernel's samples (wall.hpp).
  enum class Pass : int { stage, viscous, wall };
  /// A stage's element kernel runs on the group's elements [first, first + count) (run_stage's
  /// overlap: the elements the halo sends first); the viscous pass on all of them.
  using ElementLaunch = void (*)(DgOperator&, int group, const StageUpdate<Real>& update, Pass pass, index_t first, index_t count);
  /// A face launch runs `groups` consecutive face groups from `group` (more than one: boundary groups
  /// that boundary_batch puts into one launch; the stage pass only).
  using FaceLaunch = void (*)(DgOperator&, int group, int groups, double t, Pass pass);

  struct ElementData {
    Shape shape{};
    GeometryKind geometry{};
    index_t K = 0, Ks = 0;
    /// Where the state arrays (u, u0, q, residual, forcing, saved, ...) hold row v Np + j of element e:
    /// [row Ks + e], or element-major where the face tensor kernel reads u itself (face_trace_mode 4,
    /// the tensor-core element kernel's groups).
    StateLayout layout{};
    index_t K_owned = 0;  ///< distributed runs: the group's first K_owned elements are owned (the rest ghosts)
    /// Distributed runs: the group's elements that the halo sends are among its first K_front
    /// (extract_part puts them first), which a stage updates before the others.
    index_t K_front = 0;
    int Np = 0, Nq = 0;
    /// Curved groups that invert their mass matrices through the volume points (setup.hpp:
    /// ElementGroupSetup::collocated): inverse_mass holds w_k / det J_k per point, face_lifting the
    /// reference table C.
    bool collocated = false;
    Array<Real> u, u0, q, residual, previous;  ///< previous: the coefficients before a monitored step
    Array<Real> saved;                         ///< save_snapshot()'s copy
    /// p-multigrid's coarser levels (restrict_from): the forcing s that the stages subtract from R,
    /// and the state as restricted (what prolongate_to's correction is measured from).
    Array<Real> forcing, restricted;
    Array<Real> metric, inverse_mass, size;
    Array<Real> viscous_rhs;  ///< viscous physics: the BR2 volume term's moments (lifting.hpp)
    Array<Real> face_lifting; ///< viscous physics: BR2's face lifting matrices (setup.hpp: face_lifting_tables)
    /// Collocated groups where C is sparse (setup.hpp: collocated_lifting_lines): its line and cross
    /// entries follow C in face_lifting, their indices here; lines = NL (0: the dense C only).
    Array<int> lifting_lines;
    int lines = 0;
    /// Affine groups on the CUDA block lifting kernel: its point tables (lifting.hpp: affine_lifting_point_tables).
    Array<Real> lifting_points;
    /// CUDA, affine groups of a viscous physics on the block lifting and block element kernels: the
    /// lifting kernel takes the inviscid volume term too (ElementKernel::volume_in_rhs).
    bool fused_volume = false;
    /// BR2 at the faces (br2_faces_): elements per block of the fused lifting and element kernel;
    /// on collocated bilinear quadrilaterals (br2_factorised_kernels.hpp) the fused element kernel's block.
    int fused_lifting = 0;
    FactorisedBlock br2_factorised{};
    /// BR2 at the faces in 2D: the interior face kernel's shape (br2_face_shape, resolved once here).
    Br2FaceShape br2_face_shape{};
    Array<Real> local_dt;     ///< local time stepping: each element's step (set_local_time_steps)
    Array<Real> viscosity;    ///< artificial viscosity: each element's eps (update_viscosity; smoothed: its largest vertex value)
    /// Smoothed artificial viscosity (ViscositySmoothingKernel): the field's modes [j Ks + e], the
    /// elements' mesh vertices [i Ks + e], the vertex functions' table, the group's first element
    /// in viscosity_all_.
    Array<Real> viscosity_modes, smoothing_table;
    Array<index_t> vertices;
    index_t viscosity_offset = 0;
    int smoothing_modes = 0;
    Array<index_t> codes;
    Array<Real> volume_phi, volume_dphi, volume_weight, face_phi;
    ElementLaunch launch = nullptr;
    /// CUDA: elements per block of the shared-memory element kernel (core_block_kernels.hpp), or 0
    /// for the thread-per-element kernel.
    int block_elements = 0;
    /// CUDA, viscous physics: elements per block of the shared-memory lifting kernel
    /// (lifting_block_kernels.hpp) where the element kernel is the block one, else 0 (a thread per
    /// element).
    int block_lifting = 0;
    /// CUDA, double precision: the FP64 tensor-core element kernel (core_tensor_kernels.hpp) with
    /// its layout and tables (A2, A3), where chosen (portable_tensor()).
    bool tensor = false;
    CoreTensorLayout tensor_layout{};
    Array<double> tensor_tables;
    /// CUDA, 3D Euler on affine tetrahedra: the element kernel with a warp per variable
    /// (core_variable_kernels.hpp) and its tables, where chosen (asked for, or automatic_variable_elements); empty
    /// otherwise.
    VariableKernelTables variable;
    /// The trace buffer (face_traces_): [((e 4 + l) 5 + v) Nn + i], Ks elements (the coefficients' copy,
    /// face_trace_coefficients_: [(e 5 + v) Np + j]); empty otherwise.
    Array<Real> traces;
    /// BR2's lifting on the tensor cores (lifting_tensor_kernels.hpp): affine groups of a viscous
    /// physics without a viscosity per element that run the tensor-core element kernel, where its
    /// shared memory fits; its tables (lifting_tensor_tables).
    bool lifting_tensor = false;
    LiftingTensorLayout lifting_layout{};
    Array<double> lifting_tables;
    /// CUDA, collocated quadrilaterals (setup.hpp: SumFactorTables): the sum-factorised element and
    /// lifting kernels (factorised_kernels.hpp) where chosen, their tables and elements per block.
    SumFactorTables factor_tables;
    FactorisedBlock factorised_elements{}, factorised_lifting{};
    /// Their geometry: each element's bilinear Jacobian, [c Ks + e] (setup.hpp: bilinear_jacobians).
    Array<Real> bilinear;
  };
  struct FaceData {
    index_t Gs = 0;
    Array<Real> geometry, points;
    physics::BoundaryCondition<dim, Real> condition{};
    Flow flow{};
    FaceLaunch launch = nullptr;
    /// CUDA: faces per block of the shared-memory face kernel (core_block_kernels.hpp), or 0 for the
    /// thread-per-face-point kernel; whether it runs the chunked traces (face kernel "chunked").
    int block_faces = 0;
    bool chunked = false;
    /// CUDA, 3D Euler's interior faces between affine tetrahedra: the face kernel with a warp per
    /// variable (core_variable_kernels.hpp), where chosen.
    bool variable = false;
    bool tuned = false;  ///< computed by the tuned triangle kernels (with the face groups next to it)
    /// CUDA: faces per block of the sum-factorised face kernel (factorised_kernels.hpp: faces between
    /// collocated quadrilaterals and their boundary faces), or 0; the minus side's tables.
    int factorised_faces = 0;
    SumFactorTables factor_tables;
    Array<Real> wall;    ///< boundary groups: the wall kernel's output (wall_samples)
  };

  template <Shape S, GeometryKind G, int P>
  static void launch_element(DgOperator& op, int g, const StageUpdate<Real>& update, Pass pass, index_t first, index_t count);
  template <Shape SM, Shape SP, GeometryKind FG, bool Boundary, int P>
  static void launch_face(DgOperator& op, int g, int groups, double t, Pass pass);
  /// The boundary face groups from g on that one launch takes with g (the 3D Euler affine tetrahedra's
  /// variable face kernel: launch_core_boundary_variable_kernel; a run of the groups of one instantiation
  /// on it, FLOWDG_BOUNDARY_BATCH=0 for one launch a group in A/B runs), at least 1.
  int boundary_batch(std::size_t g) const;
  template <Shape S, GeometryKind G, int P>
  ElementKernel<Physics, S, P, G> element_kernel(int g, const StageUpdate<Real>& update);
  template <Shape SM, Shape SP, GeometryKind FG, bool Boundary, int P>
  FaceKernel<Physics, SM, SP, P, FG, Boundary> face_kernel(int g, double t);
  template <Shape S, GeometryKind G, int... P>
  static ElementLaunch pick_element(int order, std::integer_sequence<int, P...>) {
    constexpr ElementLaunch table[] = {&launch_element<S, G, P>...};
    return table[order];
  }
  template <Shape SM, Shape SP, GeometryKind FG, bool Boundary, int... P>
  static FaceLaunch pick_face(int order, std::integer_sequence<int, P...>) {
    constexpr FaceLaunch table[] = {&launch_face<SM, SP, FG, Boundary, P>...};
    return table[order];
  }
  /// The portable element kernel's variant for a group (OperatorOptions::element_kernel: "thread",
  /// "block", or automatic by the H100 measurements of docs/performance.md): elements per block of
  /// the shared-memory kernel, 0 for a thread per element (always on the CPU).
  int portable_block_elements(Shape shape, int Np, int Nq, int Nfq, index_t elements) const;
  /// Whether a group runs the tensor-core element kernel: asked for ("tensor") or automatic by the
  /// H100 measurements, on CUDA in double precision at compute capability 8.0 and up, where its
  /// block fits the shared-memory budget (others take the block kernel).
  bool portable_tensor(const CoreTensorLayout& layout) const;
  /// The registry: the kernel instantiation of a group, by (shape, geometry kind, order); this
  /// physics and precision are the class's, the backend the for_each's.
  ElementLaunch element_launch(Shape shape, GeometryKind geometry) const;
  FaceLaunch face_launch(Shape shape_m, Shape shape_p, GeometryKind geometry, bool boundary) const;

  /// The viscous seam's pass (see run_stage): BR2's lifting per element group, then the boundary
  /// faces' viscous fluxes (dg/lifting.hpp). Runs only for a physics with has_viscous_flux.
  void viscous_pass(double t) {
    for (std::size_t g = 0; g < elements_.size(); ++g)
      elements_[g].launch(*this, static_cast<int>(g), StageUpdate<Real>{}, Pass::viscous, 0, elements_[g].K);
    for (std::size_t g = 0; g < faces_.size(); ++g) faces_[g].launch(*this, static_cast<int>(g), 1, t, Pass::viscous);
  }
  /// Artificial viscosity's sensor: the first mode of degree p of a group (N(p - 1)), and each
  /// element's eps from the current state (ViscositySensorKernel), before every stage's lifting.
  int sensor_low(const ElementData& d) const { return order_ > 0 ? n_basis(d.shape, order_ - 1) : 0; }
  ViscositySensorKernel<Physics> sensor_kernel(const ElementData& d, View<Real> out) const {
    return {physics_, d.u.view(), d.size.view(), out, d.Ks, d.Np, sensor_low(d), order_,
            static_cast<Real>(1.0 / std::sqrt(reference_measure(d.shape))), Real(0), View<const Real>{}, View<Real>{}};
  }
  /// in_step: capped by the stage's step dt (with local steps each element's own); a residual
  /// evaluation is not.
  /// Smoothed: every group's sensor into viscosity_all_ (its cap into each element's `viscosity`),
  /// then every group's ViscositySmoothingKernel.
  void update_viscosity(bool in_step, double dt) {
    if constexpr (artificial_viscosity) {
      for (ElementData& d : elements_) {
        const View<Real> all = viscosity_all_.view();
        ViscositySensorKernel<Physics> sensor =
            sensor_kernel(d, smoothed() ? View<Real>{all.data + d.viscosity_offset, d.K} : d.viscosity.view());
        if (smoothed()) sensor.cap = d.viscosity.view();
        if (in_step) {
          if (local_steps_)
            sensor.local_dt = d.local_dt.view();
          else
            sensor.dt = static_cast<Real>(dt);
        }
        for_each(options_.backend, d.K, sensor);
      }
      if (smoothed())
        for (ElementData& d : elements_) {
          const ViscositySmoothingKernel<Real> kernel{viscosity_all_.view(), vertex_start_.view(), vertex_elements_.view(),
                                                      d.vertices.view(), d.smoothing_table.view(), d.viscosity.view(),
                                                      d.viscosity_modes.view(), d.Ks, n_vertices(d.shape), d.smoothing_modes,
                                                      smoothing_ == physics::ViscositySmoothing::vertex_mean};
          for_each(options_.backend, d.K, kernel);
        }
    }
  }
  /// registers: what the stage reads and stores besides u (stage_registers; the first stage of a
  /// scheme with u0 stores it, StageUpdate::start_u0).
  void run_stage(double t, const RungeKuttaStage& stage, double dt, bool residual_only, const StageRegisters& registers = {});
  /// The p-multigrid level this operator can be a coarser level of (restrict_from, prolongate_to).
  DgOperator& finer_level(Operator& fine, const char* what) const;
  /// The register form that steps run: in single precision the one that rounds each step's result
  /// once (single_rounding_form: the vortex's float floor 2.7 times lower with RK4).
  static RungeKuttaScheme register_form(const RungeKuttaScheme& scheme) {
    if constexpr (std::is_same_v<Real, float>)
      return single_rounding_form(scheme);
    else
      return scheme;
  }
  /// Whether any group holds its state element-major (StateLayout; face_trace_mode 4).
  bool element_major_state() const {
    for (const ElementData& d : elements_)
      if (d.layout.element_major()) return true;
    return false;
  }
  /// The group's coefficients on the host, unpadded (double).
  std::vector<double> group_coefficients(int g) const { return unpadded(elements_[g], elements_[g].u); }
  /// One of a group's arrays in the coefficients' layout (u, residual, saved) on the host, unpadded.
  static std::vector<double> unpadded(const ElementData& d, const Array<Real>& values);
  /// unpadded's inverse: the group's values [row K + e] in its state arrays' layout (padding 0).
  static std::vector<Real> state_values(const ElementData& d, const std::vector<double>& values) {
    const index_t rows = static_cast<index_t>(NV) * d.Np;
    std::vector<Real> out(static_cast<std::size_t>(rows * d.Ks), Real(0));
    for (index_t row = 0; row < rows; ++row)
      for (index_t e = 0; e < d.K; ++e) out[d.layout(row, e)] = static_cast<Real>(values[row * d.K + e]);
    return out;
  }
  /// The same array of every group, group after group (coefficients()' layout).
  std::vector<double> every_group(Array<Real> ElementData::*array) const;
  /// du/dt at time t into each group's `residual` (residual() and residual_norms()).
  void compute_residual(double t);
  /// residual_norms()' quadrature per group, built by its first call: the basis at the rule's points
  /// [k Np + j], the rule's weights, det J per owned element (affine) or per (element, point).
  struct NormQuadrature {
    int Nq = 0;
    bool per_point = false;
    std::vector<double> phi, weights, det;
  };
  std::vector<NormQuadrature> norm_quadrature_;

  Mesh mesh_;
  OperatorOptions options_;
  int order_ = 0;
  Physics physics_{};
  Setup setup_;
  std::vector<ElementData> elements_;
  std::vector<FaceData> faces_;
  index_t Fs_ = 0;
  Array<index_t> face_element_m_, face_element_p_;
  Array<int> face_local_m_, face_local_p_, face_orientation_;
  Array<int> permutation_;
  Array<Real> face_weight_;
  Array<Real> flux_;
  /// CUDA, 3D Euler: the face fluxes stored as nodal moments (core_variable_kernels.hpp:
  /// FaceMomentTables) where every element group runs the warp-per-variable element kernel and every
  /// face group the warp-per-variable face kernel; their tables.
  bool face_moments_ = false;
  FaceMomentTables face_moment_tables_;
  /// CUDA, 3D Euler with face moments: every element's traces at its faces' nodes in a buffer
  /// (ElementData::traces, core_variable_kernels.hpp: FaceTraceBuffer), which the interior faces read,
  /// where setup.hpp face_trace_mode says so; the product's table N in fragment order.
  bool face_traces_ = false;
  Array<double> face_trace_tables_;
  /// The buffer's rows a face: the face nodes, or the face rule's points where setup.hpp
  /// face_trace_points says so (FaceTraceBuffer::points; every element group with the same face table).
  bool face_trace_points_ = false;
  int face_trace_rows_ = 0;
  /// The buffer holds the coefficients element-major instead (FaceTraceBuffer::coefficients, p = 3:
  /// face_trace_mode 3), which the face kernel on the FP64 tensor cores reads; copied at every stage's
  /// start (session 59: written by the element kernel as it updates u, it cost that kernel as much).
  /// Set in face_trace_mode 4 too, where an element-major group's u itself stands for the copy (no copy
  /// pass: run_stage skips those groups, launch_face hands the face kernel u).
  bool face_trace_coefficients_ = false;
  /// The trace buffer fused into the tensor-core element kernel (its phase 4 writes the updated
  /// coefficients' traces: FLOWDG_TRACE_BUFFER=2, every group runs that kernel); whether the buffer
  /// then holds the owned elements' traces of the current coefficients (set by a stage's update, cleared
  /// by set_coefficients and project), so that the next stage's start computes the ghosts' alone.
  bool traces_fused_ = false;
  bool traces_current_ = false;
  Array<int> node_permutation_;  ///< face_moment_tables_.node_permutation on the device (the tensor-core kernel's)
  /// The tensor-core element kernel's precisions: double, and float storage on 3D Euler's affine
  /// tetrahedra (its products in double on converted copies; session 45).
  static constexpr bool tensor_precision(Shape shape, GeometryKind geometry) {
    return std::is_same_v<Real, double> ||
           (std::is_same_v<Physics, physics::Euler<3, float>> && shape == Shape::tetrahedron && geometry == GeometryKind::affine);
  }
  /// The tensor-core element kernel's shared rows on 3D Euler's affine tetrahedra (the one place
  /// that decides; the launcher and describe() read the layout): in float storage in float where
  /// tensor_float_rows says so, double rows compact where tensor_compact says so (setup.cpp).
  void tensor_rows(ElementData& d) const {
    if constexpr (std::is_same_v<Physics, physics::Euler<3, Real>>) {
      if (!d.tensor || d.shape != Shape::tetrahedron || d.geometry != GeometryKind::affine) return;
      CoreTensorLayout& t = d.tensor_layout;
      t.float_rows = std::is_same_v<Real, float> && tensor_float_rows(order_);
      if (t.float_rows) t.stride = core_tensor_float_stride(NV * core_tensor_elements);
      t.compact = !t.float_rows && tensor_compact(order_) && core_tensor_compact_fits(t);
      t.swizzle = tensor_row_swizzle(order_, t.float_rows);
    }
  }
  /// The tensor-core element kernel reads face moments on 3D Euler's affine tetrahedra (either precision).
  static bool tensor_takes_moments(const ElementData& d) {
    return std::is_same_v<Physics, physics::Euler<3, Real>> && d.tensor && d.shape == Shape::tetrahedron &&
           d.geometry == GeometryKind::affine;
  }
  /// Viscous physics (lifting.hpp): BR2's lifting jumps (with BR2 at the faces times w |N|: the face
  /// kernel's) and the faces' scaled normals per face point,
  /// both sides' halves of the centred viscous flux (interior faces), the boundary faces' gradients
  /// (stride Bs_, the first n_boundary_faces_ faces), eta.
  Array<Real> jump_, normal_weight_, viscous_half_, face_gradient_;
  index_t Bs_ = 0, n_boundary_faces_ = 0;
  Real eta_ = 0;
  /// BR2's stabilisation factor on elements of `shape`: viscous.eta, or the number of faces (Gao, Chen et al.).
  Real eta(Shape shape) const { return eta_ > 0 ? eta_ : static_cast<Real>(n_faces(shape)); }
  /// BR2 at the faces (br2_face_kernels.hpp; solver.lifting_kernel "faces", or "automatic" where it
  /// applies): a face kernel takes both sides' face gradients and the whole flux, a fused kernel per
  /// element the volume lifting, the volume and face sums and the update; no lifting pass.
  bool br2_faces_ = false;
  /// BR2 at the faces on collocated bilinear quadrilaterals (br2_factorised_kernels.hpp: the
  /// sum-factorised face and element kernels).
  bool br2_factorised_ = false;
  /// The lifting kernel of group g (its element kernel's data with `update`).
  template <Shape S, GeometryKind G, int P>
  LiftingElementKernel<Physics, S, P, G> lifting_kernel(int g, const StageUpdate<Real>& update);
  /// The offset of the plus side's half fluxes in viscous_half_.
  index_t half_stride() const { return static_cast<index_t>(NV) * setup_.n_face_points() * Fs_; }
  /// The lifting pass's face outputs.
  LiftingFaceOutput<Real> lifting_output() {
    LiftingFaceOutput<Real> out;
    out.jump = jump_.view();
    out.normal_weight = normal_weight_.view();
    out.half = viscous_half_.view();
    out.half_stride = half_stride();
    out.face_gradient = face_gradient_.view();
    out.Bs = Bs_;
    out.n_boundary = n_boundary_faces_;
    return out;
  }
  /// The tuned specialisation for the element group tuned_group_ and the face groups among its
  /// elements (none: -1 and null).
  int tuned_group_ = -1;
  std::unique_ptr<TunedTriangles> tuned_;
  bool snapshot_saved_ = false;
  bool local_steps_ = false;  ///< steps use each element's local_dt (set_local_time_steps)
  bool forced_ = false;       ///< a p-multigrid coarser level: the stages subtract each group's forcing
  /// Smoothed artificial viscosity: every element's sensor eps (groups one after another), the CSR
  /// from mesh vertices to those elements, the kind (ViscositySmoothing).
  Array<Real> viscosity_all_;
  Array<index_t> vertex_start_, vertex_elements_;
  physics::ViscositySmoothing smoothing_ = physics::ViscositySmoothing::none;
  bool smoothed() const { return smoothing_ != physics::ViscositySmoothing::none; }
  void setup_viscosity_smoothing();
  ViscosityField<Real> viscosity_field(const ElementData& d) const {
    return {d.viscosity.view(), d.viscosity_modes.view(), d.Ks, smoothed() ? d.smoothing_modes : 0};
  }
  /// Every launch of the operator goes on this stream (each launching method opens a StreamScope).
  std::unique_ptr<Stream> stream_;
  /// An inviscid physics' boundary face groups on boundary_stream_ beside the interior groups
  /// (boundary_stream_allowed): faces_start_ (the stage's start, on stream_) orders them after the
  /// last stage's element kernels, boundary_done_ the element kernels after them.
  std::unique_ptr<Stream> boundary_stream_;
  std::unique_ptr<Event> faces_start_, boundary_done_;
  /// Whether a stage launches runs of boundary face groups together (boundary_batch; boundary_batch_allowed
  /// when the operator was built).
  bool boundary_batch_ = false;
  double last_change_ = 0;

  // ---- distributed runs (OperatorOptions::distribution) ----
  const Communicator* communicator_ = nullptr;  ///< null: one rank, the whole mesh
  index_t n_owned_ = 0, global_elements_ = 0, global_dof_ = 0;
  /// The halo exchange, per element group: its elements sent (index in the group) with their
  /// values' offset in the send buffer, and its ghosts received likewise; the buffers (one block of
  /// NV Np values per element, neighbour after neighbour in the plan's order) on the device and
  /// their host staging; the messages over the staging.
  struct HaloGroup {
    Array<index_t> send_element, send_offset, receive_element, receive_offset;
    index_t n_send = 0, n_receive = 0;
  };
  std::vector<HaloGroup> halo_;
  Array<Real> send_buffer_, receive_buffer_;
  PinnedBuffer<Real> send_host_, receive_host_;
  /// Seconds in the halo exchange's parts (pack and copy to the host, MPI, copy back and unpack),
  /// its count and bytes sent (halo_report()).
  double halo_pack_ = 0, halo_mpi_ = 0, halo_unpack_ = 0;
  long long halo_count_ = 0;
  double halo_bytes_ = 0;
  std::vector<Communicator::Message> sends_, receives_;
  /// The messages read and write the device buffers themselves (CUDA-aware MPI, or the CPU backend)
  /// rather than their host staging.
  bool direct_messages_ = false;
  /// The staging copies' stream (beside the kernels' stream_) and the markers that order the two:
  /// packed (the pack kernels, on stream_), staged (the copy to the host), received (the copy back).
  std::unique_ptr<Stream> copy_stream_;
  std::unique_ptr<Event> halo_packed_, halo_staged_, halo_received_;
  std::unique_ptr<Communicator::Pending> halo_pending_;
  /// Whether run_stage overlaps the exchange with the elements the halo does not send: a
  /// distributed run with neighbours, [solver] halo_overlap (default on), and no limiter or
  /// positivity scaling after the stage (they read the neighbours' updated values first).
  bool halo_overlap() const {
    if (communicator_ == nullptr || (sends_.empty() && receives_.empty()) || !options_.halo_overlap) return false;
    if constexpr (has_tuned_triangles)
      if (tuned_ != nullptr && tuned_->limits()) return false;
    return true;
  }
  void setup_distribution(const Distribution& distribution);
  /// Overwrites every ghost with its owner's coefficients (after each stage, projection, limiter):
  /// halo_pack (the pack kernels; the copy to the host staging queued on copy_stream_), halo_post
  /// (waits for them; posts the messages), halo_finish (waits for the messages; queues the copy to
  /// the device and the unpack kernels on stream_). timed: a stage's exchange, counted in
  /// halo_report() (the set-up's first ones also open MPI's connections).
  void exchange_halo(bool timed = false);
  void halo_pack();
  void halo_post();
  void halo_finish();
  /// Global reductions (identity on one rank).
  index_t n_unsent() const {
    index_t n = 0;
    for (const ElementData& d : elements_) n += d.K - d.K_front;
    return n;
  }
  double global_min(double value) const { return communicator_ != nullptr ? communicator_->min(value) : value; }
  double global_max(double value) const { return communicator_ != nullptr ? communicator_->max(value) : value; }
};

// ---- set-up -------------------------------------------------------------------------------------

template <class Physics>
DgOperator<Physics>::DgOperator(const Mesh& mesh, const Connectivity& connectivity, const OperatorOptions& options)
    : mesh_(mesh), options_(options), order_(options.order) {
  if (order_ < 0 || order_ > max_order)
    throw InputError(cat("order ", order_, " is out of range for ", Physics::name(), " in ",
                         options.precision == Precision::single_precision ? "single" : "double",
                         " precision: this build supports 0..", max_order));
  if (mesh.dimension != dim)
    throw InputError(cat(Physics::name(), " needs a ", dim, "D mesh; ", mesh.source, " is ", mesh.dimension, "D"));
  physics_.gamma = static_cast<Real>(options.gamma);
  if constexpr (physics::has_element_viscosity<Physics>) {
    const physics::ArtificialViscosityParameters& av = options.artificial_viscosity;
    const double s0 = av.s0_for(order_);
    if (!(av.epsilon0 > 0 && std::isfinite(av.epsilon0)) || !(av.kappa > 0 && std::isfinite(av.kappa)) || !std::isfinite(s0) || s0 > 0)
      throw InputError(cat("artificial viscosity: epsilon0 and kappa must be positive and s0 <= 0 (a log10 of the highest modes' share ",
                           "of the indicator's energy; got epsilon0 ", av.epsilon0, ", kappa ", av.kappa, ", s0 ", s0, ")"));
    if (options.viscous.eta < 0) throw InputError(cat("BR2: eta must be positive (0: the number of faces), not ", options.viscous.eta));
    physics_.epsilon0 = static_cast<Real>(av.epsilon0);
    physics_.kappa = static_cast<Real>(av.kappa);
    physics_.s0 = static_cast<Real>(s0);
    physics_.gamma = static_cast<Real>(options.gamma);
    eta_ = static_cast<Real>(options.viscous.eta);
  } else if constexpr (Physics::has_viscous_flux) {
    physics::NavierStokesScales scales = options.viscous.scales;
    scales.gamma = options.gamma;
    if (!(scales.mach > 0 && scales.reynolds > 0 && scales.prandtl > 0 && scales.reference_length > 0 &&
          scales.free_stream_temperature > 0))
      throw InputError(cat("Navier-Stokes: mach, reynolds, prandtl, reference_length and free_stream_temperature must be positive ",
                           "(mach ", scales.mach, ", reynolds ", scales.reynolds, ", prandtl ", scales.prandtl, ")"));
    if (options.viscous.eta < 0) throw InputError(cat("BR2: eta must be positive (0: the number of faces), not ", options.viscous.eta));
    physics_ = scales.make<dim, Real>();
    eta_ = static_cast<Real>(options.viscous.eta);
  }
  {
    const std::string& name = options.element_kernel;
    if (name != "automatic" && name != "thread" && name != "block" && name != "tensor" && name != "factorised" && name != "variable")
      throw InputError(cat("unknown element kernel '", name, "' (valid: automatic, thread, block, tensor, factorised, variable)"));
    const std::string& faces = options.face_kernel;
    if (faces != "automatic" && faces != "point" && faces != "block" && faces != "warp" && faces != "chunked" && faces != "factorised" &&
        faces != "variable")
      throw InputError(cat("unknown face kernel '", faces, "' (valid: automatic, point, block, warp, chunked, factorised, variable)"));
    const std::string& lifting = options.lifting_kernel;
    if (lifting != "automatic" && lifting != "thread" && lifting != "block" && lifting != "tensor" && lifting != "factorised" &&
        lifting != "faces")
      throw InputError(cat("unknown lifting kernel '", lifting, "' (valid: automatic, thread, block, tensor, factorised, faces)"));
    if (faces == "chunked" && !has_chunked_faces)
      throw InputError(cat("the face kernel 'chunked' runs the interior faces of 3D Euler (inviscid, without artificial viscosity); ",
                           dim == 2 ? "2D faces have too few points to chunk: " : "this physics has ",
                           "'automatic', 'point' or 'block'", dim == 2 ? " ('warp' for the tuned triangles)" : ""));
  }
  stream_ = std::make_unique<Stream>(options.backend);
  // The trace buffer's mode (setup.hpp face_trace_mode: read once here, used below too).
  const int trace_mode = face_trace_mode(order_, std::is_same_v<Real, double>);
  // Faces by family (groups.hpp) or in element order: automatic_faces_by_family's measured rule; by
  // window where the face tensor kernel reads the coefficients' copy (the trace buffer's mode 3).
  bool face_tensor_copy = false;
  if constexpr (std::is_same_v<Physics, physics::Euler<3, Real>>)
    face_tensor_copy = options.backend == Backend::cuda && trace_mode >= 3;  // (4: the state itself element-major)
  setup_ = build_setup(mesh, connectivity, order_,
                       options.distribution != nullptr ? options.distribution->curved_order_by_shape : std::vector<int>{},
                       options.collocated_mass,
                       automatic_face_order(std::is_same_v<Physics, physics::Euler<2, Real>>,
                                            std::is_same_v<Physics, physics::Euler<3, float>>, order_, face_tensor_copy),
                       options.volume_degree_shift);
  // The registry's tuned specialisation: (Euler<2>, triangle, affine, double) groups run the
  // hand-written kernels unless the portable ones are asked for.
  if constexpr (has_tuned_triangles) {
    if (options.implementation != Implementation::portable && options.volume_degree_shift == 0)  // (their rule: 2p)
      for (int g = 0; g < static_cast<int>(setup_.element_groups.size()); ++g)
        if (TunedTriangles::applies(setup_.groups, g, order_, setup_.n_face_points())) tuned_group_ = g;
  }
  if (options.volume_degree_shift != 0 && (options.implementation == Implementation::tuned || options.limiter != Limiter::none || options.positivity))
    throw InputError(cat("the tuned 2D Euler kernels (and with them the limiter and the positivity scaling) integrate to degree 2p: ",
                         "solver.volume_quadrature = \"2p\""));
  if (options.implementation == Implementation::tuned && tuned_group_ < 0)
    throw InputError(cat("the tuned 2D Euler kernels run straight-sided triangles in double precision; ", mesh.source,
                         " has none they can run (solver.kernels = \"portable\" or \"automatic\")"));
  if ((options.limiter != Limiter::none || options.positivity) && (tuned_group_ < 0 || setup_.element_groups.size() != 1))
    throw InputError(cat("the limiter and the positivity scaling run on meshes of straight-sided triangles only (",
                         "the tuned 2D Euler kernels, in double precision); ", mesh.source, " needs the portable kernels"));
  const Space space = space_of(options.backend);
  const int Nfq = setup_.n_face_points();

  elements_.resize(setup_.element_groups.size());
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    const ElementGroup& group = setup_.groups.element_groups[g];
    ElementGroupSetup& host = setup_.element_groups[g];
    ElementData& d = elements_[g];
    d.shape = group.shape;
    d.geometry = group.geometry;
    d.K = group.size();
    d.Ks = padded(d.K);
    d.layout = {d.Ks, 1};
    d.Np = host.n_basis;
    d.Nq = host.volume_rule.size();
    d.u = Array<Real>(space, std::vector<Real>(static_cast<std::size_t>(NV) * d.Np * d.Ks, Real(0)));
    const bool tuned_here = static_cast<int>(g) == tuned_group_;  // the tuned kernels keep their own metric and codes
    const index_t metric_rows = static_cast<index_t>(host.metric.size()) / d.K;
    if (!tuned_here) d.metric = Array<Real>(space, pad_rows<Real>(host.metric, metric_rows, d.K, d.Ks));
    d.collocated = host.collocated;
    if (group.geometry == GeometryKind::curved)
      d.inverse_mass = Array<Real>(space, pad_rows<Real>(host.inverse_mass, d.collocated ? static_cast<index_t>(d.Nq) : static_cast<index_t>(d.Np) * d.Np,
                                                         d.K, d.Ks));
    d.size = Array<Real>(space, pad_rows<Real>(host.size, 1, d.K, d.Ks));
    if constexpr (artificial_viscosity) d.viscosity = Array<Real>(space, std::vector<Real>(static_cast<std::size_t>(d.Ks), Real(0)));
    std::vector<index_t> codes(static_cast<std::size_t>(n_faces(group.shape)) * d.Ks, 0);
    for (int l = 0; l < n_faces(group.shape); ++l)
      std::copy_n(host.codes.begin() + l * d.K, d.K, codes.begin() + l * d.Ks);
    if (!tuned_here) d.codes = Array<index_t>(space, codes);
    const auto real = [](const std::vector<double>& values) { return std::vector<Real>(values.begin(), values.end()); };
    d.volume_phi = Array<Real>(space, real(host.volume_phi));
    d.volume_dphi = Array<Real>(space, real(host.volume_dphi));
    d.volume_weight = Array<Real>(space, real(host.volume_rule.weights));
    d.face_phi = Array<Real>(space, real(host.face_phi));
    d.launch = element_launch(group.shape, group.geometry);
    d.block_elements = portable_block_elements(group.shape, d.Np, d.Nq, Nfq, d.K);
    // The sum-factorised element kernel (factorised_kernels.hpp) on collocated quadrilaterals, on
    // CUDA: asked for ("factorised"; other groups take the block kernel) or by "automatic".
    if (options.backend == Backend::cuda && d.collocated && group.shape == Shape::quadrilateral) {
      d.factor_tables = sum_factor_tables(host, group.shape, order_, Nfq);
      // The kernels read each element's bilinear Jacobian; a group whose maps are not bilinear (none
      // that is collocated: its rule is exact for the mass only on bilinear maps) runs the block kernels.
      const std::vector<double> bilinear = d.factor_tables.n > 0 ? bilinear_jacobians(host, d.factor_tables, d.K) : std::vector<double>{};
      if (bilinear.empty()) d.factor_tables = {};
      else d.bilinear = Array<Real>(space, pad_rows<Real>(bilinear, 6, d.K, d.Ks));
    }
    if (d.factor_tables.n > 0 && (options.element_kernel == "factorised" || options.element_kernel == "automatic"))
      d.factorised_elements = factorised_block<Physics>(factorised_element_values<Physics>(d.factor_tables.n), d.factor_tables.n);
    // BR2's lifting (solver.lifting_kernel): "automatic" takes the element kernel's variant, a thread
    // per element below the orders where the block kernels win (at p = 1 on ~800k triangles and
    // ~640k quadrilaterals the thread lifting was 17% and 18% faster; from p = 2 the block one
    // 1.2-3.5x, docs/performance.md); the tensor-core one below.
    const std::string& lifting_name = options.lifting_kernel;
    const bool block_lifting = lifting_name == "block" || lifting_name == "tensor" || lifting_name == "factorised" || lifting_name == "faces" ||
                               (lifting_name == "automatic" && (d.block_elements > 0 || d.factorised_elements.E > 0));
    if (Physics::has_viscous_flux && options.backend == Backend::cuda && block_lifting)
      d.block_lifting = lifting_block_elements<Physics>(group.shape, group.geometry, d.Np, d.Nq, Nfq, d.collocated);
    // The element kernel with a warp per variable (3D Euler, affine tetrahedra, p = 1..3): asked
    // for ("variable"; other groups and orders the automatic choice) or the registry's measured choice.
    if constexpr (std::is_same_v<Physics, physics::Euler<3, Real>>) {
      const bool asked = options.element_kernel == "variable" ||
                         (options.element_kernel == "automatic" && automatic_variable_elements(order_, std::is_same_v<Real, double>));
      if (options.backend == Backend::cuda && asked && group.shape == Shape::tetrahedron && group.geometry == GeometryKind::affine)
        d.variable = variable_kernel_tables(order_, d.Nq, Nfq, host.volume_phi, host.volume_dphi, host.volume_rule.weights, host.face_phi);
      if (!d.variable.empty()) d.block_elements = 0;
    }
    d.tensor_layout = core_tensor_layout(NV, dim, group.shape, d.Np, d.Nq, Nfq);
    d.tensor = d.variable.empty() && tensor_precision(group.shape, group.geometry) && portable_tensor(d.tensor_layout);
    if (d.tensor) {
      d.tensor_tables = Array<double>(space, core_tensor_tables(d.tensor_layout, host.volume_phi, host.volume_dphi, host.face_phi));
      tensor_rows(d);
    }
    if constexpr (Physics::has_viscous_flux && !physics::has_element_viscosity<Physics> && std::is_same_v<Real, double>) {
      d.lifting_layout = lifting_tensor_layout(NV, dim, group.shape, d.Np, d.Nq, Nfq);
      const bool asked = lifting_name == "tensor" ||
                         (lifting_name == "automatic" && d.tensor);
      d.lifting_tensor = asked && options.backend == Backend::cuda && device_compute_capability() >= 80 &&
                         group.geometry == GeometryKind::affine && lifting_tensor_shared_bytes(d.lifting_layout) <= block_shared_limit;
      if (d.lifting_tensor)
        d.lifting_tables = Array<double>(space, lifting_tensor_tables(d.lifting_layout, host.volume_phi, host.volume_dphi, host.face_phi, host.face_dphi));
    }
    if constexpr (Physics::has_viscous_flux) {
      std::vector<double> lifting = face_lifting_tables(host, group.shape, group.geometry, Nfq, d.K, host.inverse_mass);
      if (d.collocated) {
        std::vector<double> values;
        std::vector<int> indices;
        d.lines = collocated_lifting_lines(lifting, d.Nq, n_faces(group.shape), Nfq, values, indices);
        lifting.insert(lifting.end(), values.begin(), values.end());
        if (d.lines > 0) d.lifting_lines = Array<int>(space, indices);
        else d.block_lifting = 0;  // a dense C: the thread kernel (face_lifting_entry)
      }
      // The sum-factorised lifting (factorised_kernels.hpp): asked for, or by "automatic" wherever the
      // group allows it (collocated quadrilaterals with a sparse C, on CUDA).
      if (d.factor_tables.n > 0 && d.lines > 0 && (lifting_name == "factorised" || (lifting_name == "automatic" && d.factorised_elements.E > 0)))
        d.factorised_lifting = factorised_block<Physics>(factorised_lifting_values<Physics>(d.factor_tables.n), d.factor_tables.n);
      FactorisedBlock element_block, lifting_block;
      if (d.factor_tables.n > 0 && factorised_block_override(element_block, lifting_block)) {
        if (d.factorised_elements.E > 0) d.factorised_elements = element_block;
        if (d.factorised_lifting.E > 0) d.factorised_lifting = lifting_block;
      }
      // (Every affine group on CUDA: BR2 at the faces, decided below, reads them too.)
      if (group.geometry == GeometryKind::affine && options.backend == Backend::cuda)
        d.lifting_points = Array<Real>(space, real(affine_lifting_point_tables(d.Np, d.Nq, n_faces(group.shape) * Nfq, dim, host.volume_phi,
                                                                               host.face_phi, host.face_dphi)));
      // The block lifting kernel takes the inviscid volume term where the block element kernel
      // follows it (FLOWDG_BLOCK_VOLUME=0 turns it off for A/B runs).
      d.fused_volume = group.geometry == GeometryKind::affine && d.block_lifting > 0 && !d.lifting_tensor && d.block_elements > 0 &&
                       !d.tensor && fused_volume_allowed();
      d.face_lifting = Array<Real>(space, group.geometry == GeometryKind::curved && !d.collocated
                                              ? pad_rows<Real>(lifting, static_cast<index_t>(n_faces(group.shape)) * Nfq * Nfq, d.K, d.Ks)
                                              : real(lifting));
    }
    // The big host arrays are on the device now.
    host.metric = {};
    host.inverse_mass = {};
    host.codes = {};
  }
  if constexpr (artificial_viscosity) {
    smoothing_ = options.artificial_viscosity.smoothing;
    if (smoothed()) setup_viscosity_smoothing();
  }
  n_owned_ = mesh.n_elements();
  for (ElementData& d : elements_) d.K_owned = d.K;
  if (options.distribution != nullptr) setup_distribution(*options.distribution);
  global_elements_ = n_owned_;
  global_dof_ = 0;
  for (const ElementData& d : elements_) global_dof_ += static_cast<index_t>(NV) * d.Np * d.K_owned;
  if (communicator_ != nullptr) {
    global_elements_ = static_cast<index_t>(communicator_->sum(static_cast<double>(global_elements_)));
    global_dof_ = static_cast<index_t>(communicator_->sum(static_cast<double>(global_dof_)));
  }

  const index_t F = static_cast<index_t>(setup_.groups.faces.size());
  Fs_ = padded(F);
  {
    std::vector<index_t> element_m(F), element_p(F);
    std::vector<int> local_m(F), local_p(F), orientation(F);
    for (index_t f = 0; f < F; ++f) {
      const GroupFace& face = setup_.groups.faces[f];
      element_m[f] = face.element_m;
      element_p[f] = face.element_p;
      local_m[f] = face.local_m;
      local_p[f] = face.local_p;
      orientation[f] = face.orientation;
    }
    face_element_m_ = Array<index_t>(space, element_m);
    face_element_p_ = Array<index_t>(space, element_p);
    face_local_m_ = Array<int>(space, local_m);
    face_local_p_ = Array<int>(space, local_p);
    face_orientation_ = Array<int>(space, orientation);
  }
  permutation_ = Array<int>(space, setup_.permutation);
  face_weight_ = Array<Real>(space, std::vector<Real>(setup_.face_rule.weights.begin(), setup_.face_rule.weights.end()));
  flux_ = Array<Real>(space, static_cast<index_t>(NV) * Nfq * Fs_);
  if constexpr (Physics::has_viscous_flux) {
    for (const FaceGroup& group : setup_.groups.face_groups)
      if (group.boundary()) n_boundary_faces_ = std::max(n_boundary_faces_, group.end);  // boundary groups come first
    Bs_ = padded(n_boundary_faces_);
    jump_ = Array<Real>(space, static_cast<index_t>(NV) * Nfq * Fs_);
    viscous_half_ = Array<Real>(space, std::vector<Real>(2 * static_cast<std::size_t>(NV) * Nfq * Fs_, Real(0)));
    face_gradient_ = Array<Real>(space, static_cast<index_t>(NV) * dim * Nfq * std::max<index_t>(Bs_, 1));
    for (ElementData& d : elements_) d.viscous_rhs = Array<Real>(space, static_cast<index_t>(NV) * d.Np * d.Ks);
    // wn = w_q |N_q| n at every face point (lifting.hpp), from the face groups' geometry.
    std::vector<Real> wn(static_cast<std::size_t>(dim) * Nfq * Fs_, Real(0));
    for (std::size_t fg = 0; fg < setup_.face_groups.size(); ++fg) {
      const FaceGroup& group = setup_.groups.face_groups[fg];
      const std::vector<double>& geometry = setup_.face_groups[fg].geometry;
      const index_t n = group.size();
      const bool affine = group.geometry == GeometryKind::affine;
      for (index_t i = 0; i < n; ++i)
        for (int q = 0; q < Nfq; ++q) {
          const auto at = [&](int c) { return geometry[static_cast<std::size_t>((affine ? c : q * (dim + 1) + c) * n + i)]; };
          const double scale = setup_.face_rule.weights[q] * at(dim);
          for (int d = 0; d < dim; ++d) wn[(static_cast<std::size_t>(d) * Nfq + q) * Fs_ + group.begin + i] = static_cast<Real>(scale * at(d));
        }
    }
    normal_weight_ = Array<Real>(space, wn);
  }

  faces_.resize(setup_.face_groups.size());
  // Boundary groups the warp-per-variable face kernel could take (with face moments only, below).
  std::vector<bool> variable_boundary(faces_.size(), false);
  for (std::size_t fg = 0; fg < faces_.size(); ++fg) {
    const FaceGroup& group = setup_.groups.face_groups[fg];
    FaceGroupSetup& host = setup_.face_groups[fg];
    FaceData& d = faces_[fg];
    const index_t n = group.size();
    d.Gs = padded(n);
    d.geometry = Array<Real>(space, pad_rows<Real>(host.geometry, static_cast<index_t>(host.geometry.size()) / n, n, d.Gs));
    if (group.boundary()) {
      d.points = Array<Real>(space, pad_rows<Real>(host.points, static_cast<index_t>(Nfq) * dim, n, d.Gs));
      if (group.tag >= static_cast<int>(options.boundary.size()))
        throw InputError(cat("boundary '", mesh.boundary_names[group.tag], "' of ", mesh.source, " has no boundary condition"));
      const BoundarySpec& spec = options.boundary[group.tag];
      physics::check_supported(spec.kind, dim, navier_stokes);
      physics::check_supported(spec.flow, dim, options.gamma);
      d.condition.kind = spec.kind;
      const double wall_velocity[3] = {spec.wall_velocity.x, spec.wall_velocity.y, spec.wall_velocity.z};
      for (int c = 0; c < dim; ++c) d.condition.wall_velocity[c] = static_cast<Real>(wall_velocity[c]);
      if constexpr (navier_stokes) {
        if (!(spec.wall_temperature > 0))
          throw InputError(cat("boundary '", mesh.boundary_names[group.tag], "': the wall temperature must be positive"));
        d.condition.wall_energy = physics_.internal_energy_at(static_cast<Real>(spec.wall_temperature));
      }
      d.condition.center[0] = static_cast<Real>(spec.center.x);
      d.condition.center[1] = static_cast<Real>(spec.center.y);
      if constexpr (dim == 3) d.condition.center[2] = static_cast<Real>(spec.center.z);
      d.flow = physics::to_flow<dim, Real>(spec.flow, options.gamma);
    }
    const Shape shape_m = setup_.groups.element_groups[group.group_m].shape;
    const Shape shape_p = group.boundary() ? shape_m : setup_.groups.element_groups[group.group_p].shape;
    d.launch = face_launch(shape_m, shape_p, group.geometry, group.boundary());
    if (options.backend == Backend::cuda) {
      // "variable" where its kernel does not apply (boundary faces, other shapes and orders) is "automatic"
      const std::string name = options.face_kernel == "variable" ? "automatic" : options.face_kernel;
      constexpr bool double_precision = std::is_same_v<Real, double>;
      // The chunked traces on interior faces (boundary faces, a few per cent of a mesh's, keep the
      // block form): asked for, or the registry's measured choice.
      d.chunked = has_chunked_faces && !group.boundary() &&
                  (name == "chunked" ||
                   (name == "automatic" && automatic_chunked_faces(dim, order_, double_precision,
                                                                   shape_m == Shape::tetrahedron && shape_p == Shape::tetrahedron)));
      if (name == "block" || name == "chunked" ||
          (name == "automatic" && automatic_block_faces(dim, order_, double_precision, Physics::has_viscous_flux)))
        d.block_faces = core_block_faces<Physics>(n_basis(shape_m, order_), group.boundary() ? 0 : n_basis(shape_p, order_), Nfq,
                                                  face_table_values(shape_m, shape_p, group.boundary(), order_, Nfq), d.chunked);
      if (d.block_faces == 0) d.chunked = false;
      // The warp-per-variable face kernel: 3D Euler's interior faces between affine tetrahedra of
      // one face table (the kernel reads the minus side's for both), at the affine default rule;
      // asked for ("variable"; other groups the automatic choice) or by the registry's measurement.
      if constexpr (std::is_same_v<Physics, physics::Euler<3, Real>>) {
        const bool asked = options.face_kernel == "variable" ||
                           (options.face_kernel == "automatic" && automatic_variable_faces(order_, double_precision));
        const bool fits = asked && group.geometry == GeometryKind::affine && shape_m == Shape::tetrahedron &&
                          shape_p == Shape::tetrahedron && variable_face_kernel_order(order_) && Nfq == variable_face_points(order_);
        if (fits && group.boundary()) {
          variable_boundary[fg] = true;
        } else if (fits && setup_.element_groups[group.group_m].face_phi == setup_.element_groups[group.group_p].face_phi) {
          d.variable = true;
          d.block_faces = 0;
          d.chunked = false;
        }
      }
      // The sum-factorised face kernel: faces between collocated quadrilaterals (both sides' groups
      // with sum-factorisation tables) and their boundary faces, asked for or by "automatic"
      // (factorised.hpp: automatic_factorised_faces).
      const SumFactorTables& minus = elements_[group.group_m].factor_tables;
      const bool both = minus.n > 0 && (group.boundary() || elements_[group.group_p].factor_tables.n > 0);
      if (both && (name == "factorised" || (name == "automatic" && automatic_factorised_faces(order_)))) {
        d.factor_tables = minus;
        d.factorised_faces = factorised_faces<Physics>(minus.n);
        d.block_faces = 0;
        d.chunked = false;
      }
    }
    host = {};
  }
  // Face fluxes as nodal moments (core_variable_kernels.hpp: FaceMomentTables): where every element
  // group runs the warp-per-variable element kernel or the tensor-core one (which then takes the
  // nodes' phi as A3's face columns: tensor_takes_moments) and every face group can take the
  // warp-per-variable face kernel — every face the element kernel reads then holds moments; the
  // boundary groups take that face kernel too — at the orders where that measured faster
  // (face_moments_chosen; FLOWDG_FACE_MOMENTS=0|1 replaces the rule for A/B runs).
  if constexpr (std::is_same_v<Physics, physics::Euler<3, Real>>) {
    bool moments = options.backend == Backend::cuda && !elements_.empty() && face_moments_chosen(order_, std::is_same_v<Real, double>);
    for (const ElementData& d : elements_) moments = moments && (!d.variable.empty() || tensor_takes_moments(d));
    for (std::size_t fg = 0; fg < faces_.size(); ++fg) moments = moments && (faces_[fg].variable || variable_boundary[fg]);
    if (moments) {
      face_moments_ = true;
      face_moment_tables_ = face_moment_tables(order_, setup_.face_rule);
      node_permutation_ = Array<int>(space, face_moment_tables_.node_permutation);
      for (std::size_t g = 0; g < elements_.size(); ++g) {
        ElementData& d = elements_[g];
        if (!d.variable.empty()) {
          d.variable = with_face_moments(d.variable, face_moment_tables_);
        } else {  // the tensor-core kernel: A3's face columns phi_j at the faces' nodes, Nn rows a face
          const ElementGroupSetup& host = setup_.element_groups[g];
          d.tensor_layout = core_tensor_layout(NV, dim, d.shape, d.Np, d.Nq, face_moment_nodes(order_));
          d.tensor_tables = Array<double>(space, core_tensor_tables(d.tensor_layout, host.volume_phi, host.volume_dphi, face_moment_tables_.node_phi));
          tensor_rows(d);
        }
      }
      for (std::size_t fg = 0; fg < faces_.size(); ++fg)
        if (variable_boundary[fg]) {
          faces_[fg].variable = true;
          faces_[fg].block_faces = 0;
          faces_[fg].chunked = false;
        }
      // The trace buffer: every interior face group runs the warp-per-variable face kernel here.
      if (const int mode = trace_mode; mode > 0) {
        face_traces_ = true;
        // at the face points: where asked and every group has the same face table (the variable face
        // kernel's rule: variable_face_points)
        // (mode 3: the coefficients' element-major copy instead, for the face tensor kernel)
        bool points = mode < 3 && face_trace_points(order_, std::is_same_v<Real, double>);
        const std::vector<double>& face_phi = setup_.element_groups.front().face_phi;
        for (const ElementGroupSetup& host : setup_.element_groups) points = points && host.face_phi == face_phi;
        const int Np = n_basis(Shape::tetrahedron, order_);
        points = points && face_phi.size() == static_cast<std::size_t>(4 * variable_face_points(order_) * Np);
        const FaceTraceBuffer buffer = mode >= 3 ? face_trace_buffer_coefficients(order_)
                                       : points  ? face_trace_buffer_points(order_, variable_face_points(order_), face_phi)
                                                 : face_trace_buffer(face_moment_tables_);
        face_trace_points_ = buffer.points;
        face_trace_coefficients_ = buffer.coefficients;
        face_trace_rows_ = buffer.Nn;
        face_trace_tables_ = Array<double>(space, buffer.tables);
        traces_fused_ = mode == 2;
        for (ElementData& d : elements_) {
          // (mode 4: the tensor-core element kernel's groups hold their state element-major, which the
          // face tensor kernel reads as the copy: no buffer, no copy pass; other groups are copied)
          if (mode == 4 && d.tensor && d.shape == Shape::tetrahedron && d.geometry == GeometryKind::affine &&
              tensor_element_major_runs(order_, std::is_same_v<Real, double>, d.tensor_layout.float_rows, d.tensor_layout.compact,
                                        d.tensor_layout.Nq, d.tensor_layout.Nfq)) {
            d.layout = {1, static_cast<index_t>(NV) * d.Np};
            d.tensor_layout.element_major = true;  // (u holds zeros yet: no values to move)
          } else {
            d.traces = Array<Real>(space, face_trace_values(d.Ks, buffer));
          }
          traces_fused_ = traces_fused_ && d.tensor;
        }
      }
    }
  }
  // BR2 at the faces: where every element group is affine, of one shape (the face kernel's shared
  // memory within block_shared_limit: not hexahedra from p = 2), on CUDA, for a physics
  // without a viscosity per element (distributed runs too: a face's flux takes the two sides'
  // coefficients only, which the halo's ghosts hold, like the lifting pass's); asked for
  // ("faces") or by "automatic" after the automatic or the block element kernel at the orders where
  // it measured faster (automatic_br2_faces; br2_faces_allowed: FLOWDG_BR2_FACES=0 turns it off for
  // A/B runs).
  if constexpr (Physics::has_viscous_flux && !physics::has_element_viscosity<Physics>) {
    const std::string& lifting_name = options.lifting_kernel;
    bool applies = options.backend == Backend::cuda && !elements_.empty();
    // The fused element kernel's elements a block, one per group (set below where BR2 at the faces runs).
    std::vector<int> fused_elements;
    const bool wide = fused_wide_allowed();
    for (const ElementData& d : elements_) {
      fused_elements.push_back(fused_block_elements<Physics>(d.shape, d.Np, d.Nq, Nfq, wide));
      applies = applies && d.geometry == GeometryKind::affine && d.shape == elements_.front().shape && d.lifting_points.size() > 0 &&
                !d.lifting_tensor && !d.tensor && br2_face_shared_bytes<Physics>(d.shape, d.Np, Nfq, false) <= block_shared_limit &&
                br2_face_shared_bytes<Physics>(d.shape, d.Np, Nfq, true) <= block_shared_limit && fused_elements.back() > 0 &&
                (br2_face_points(dim, order_) == 0 || Nfq == br2_face_points(dim, order_));
    }
    for (const FaceGroup& group : setup_.groups.face_groups) applies = applies && group.geometry == GeometryKind::affine;
    const bool block_elements = options.element_kernel == "automatic" || options.element_kernel == "block";
    br2_faces_ = applies && (lifting_name == "faces" || (lifting_name == "automatic" && block_elements &&
                                                         automatic_br2_faces(dim, order_) && br2_faces_allowed()));
    // Collocated bilinear quadrilaterals on the sum-factorised element kernel (every group; faces
    // of geometric order 1: straight, one normal a face): the factorised BR2 at the faces
    // (br2_factorised_kernels.hpp), asked for or by "automatic" (automatic_br2_factorised).
    bool quadrilaterals = options.backend == Backend::cuda && !elements_.empty() && dim == 2 && order_ >= 1;
    for (const ElementData& d : elements_)
      quadrilaterals = quadrilaterals && d.shape == Shape::quadrilateral && d.factor_tables.n == order_ + 1 && d.factorised_elements.E > 0 &&
                       d.bilinear.size() > 0 && Nfq == d.factor_tables.n &&
                       br2_factorised_block<Physics>(d.factor_tables.n).E > 0;
    for (const FaceGroup& group : setup_.groups.face_groups) quadrilaterals = quadrilaterals && group.geometry == GeometryKind::affine;
    quadrilaterals = quadrilaterals && br2_factorised_face_shared_bytes<Physics>(Nfq, false) <= block_shared_limit &&
                     br2_factorised_face_shared_bytes<Physics>(Nfq, true) <= block_shared_limit;
    if (!applies && quadrilaterals) {
      br2_factorised_ = lifting_name == "faces" || (lifting_name == "automatic" && automatic_br2_factorised(order_) && br2_faces_allowed());
      br2_faces_ = br2_factorised_;
      for (ElementData& d : elements_)
        if (br2_factorised_) d.br2_factorised = br2_factorised_block<Physics>(d.factor_tables.n);
    }
    if (br2_faces_) {
      if (dim == 2)
        for (ElementData& d : elements_) d.br2_face_shape = br2_face_shape(d.shape, order_);
      // Nothing reads the lifting pass's halves and volume moments then (about 0.77 GB on 798,848
      // triangles at p = 4).
      viscous_half_ = Array<Real>();
      for (std::size_t i = 0; i < elements_.size(); ++i) {
        if (!br2_factorised_) elements_[i].fused_lifting = fused_elements[i];
        elements_[i].viscous_rhs = Array<Real>();
      }
    }
  }
  if constexpr (has_tuned_triangles) {
    if (tuned_group_ >= 0) {
      tuned_ = std::make_unique<TunedTriangles>(mesh, setup_.groups, tuned_group_, options, Fs_);
      for (std::size_t fg = 0; fg < faces_.size(); ++fg) faces_[fg].tuned = tuned_->runs(setup_.groups.face_groups[fg]);
    }
  }
  boundary_batch_ = options.backend == Backend::cuda && boundary_batch_allowed();
  // The boundary face groups on a second stream (run_stage): an inviscid physics on the GPU where
  // the registry allows it, with both boundary and interior groups and none of them tuned.
  if (options.backend == Backend::cuda && !Physics::has_viscous_flux && boundary_stream_allowed(dim)) {
    std::size_t n_boundary = 0;
    bool any_tuned = false;
    for (std::size_t g = 0; g < faces_.size(); ++g) {
      if constexpr (has_tuned_triangles) any_tuned = any_tuned || faces_[g].tuned;
      n_boundary += setup_.groups.face_groups[g].boundary() ? 1 : 0;
    }
    if (!any_tuned && n_boundary > 0 && n_boundary < faces_.size()) {
      boundary_stream_ = std::make_unique<Stream>(options.backend);
      faces_start_ = std::make_unique<Event>(options.backend);
      boundary_done_ = std::make_unique<Event>(options.backend);
    }
  }
}

template <class Physics>
typename DgOperator<Physics>::ElementLaunch DgOperator<Physics>::element_launch(Shape shape, GeometryKind geometry) const {
  using Orders = std::make_integer_sequence<int, max_order + 1>;
  constexpr Shape simplex = dim == 2 ? Shape::triangle : Shape::tetrahedron;
  constexpr Shape tensor = dim == 2 ? Shape::quadrilateral : Shape::hexahedron;
  const bool affine = geometry == GeometryKind::affine;
  if (shape == simplex)
    return affine ? pick_element<simplex, GeometryKind::affine>(order_, Orders{})
                  : pick_element<simplex, GeometryKind::curved>(order_, Orders{});
  if (shape == tensor)
    return affine ? pick_element<tensor, GeometryKind::affine>(order_, Orders{})
                  : pick_element<tensor, GeometryKind::curved>(order_, Orders{});
  throw InputError(cat(Physics::name(), " has no kernels for ", shape_name(shape), " elements"));
}

template <class Physics>
typename DgOperator<Physics>::FaceLaunch DgOperator<Physics>::face_launch(Shape shape_m, Shape shape_p, GeometryKind geometry,
                                                                         bool boundary) const {
  using Orders = std::make_integer_sequence<int, max_order + 1>;
  constexpr Shape simplex = dim == 2 ? Shape::triangle : Shape::tetrahedron;
  constexpr Shape tensor = dim == 2 ? Shape::quadrilateral : Shape::hexahedron;
  constexpr GeometryKind affine = GeometryKind::affine, curved = GeometryKind::curved;
  const bool a = geometry == affine;
  if (boundary) {
    if (shape_m == simplex)
      return a ? pick_face<simplex, simplex, affine, true>(order_, Orders{}) : pick_face<simplex, simplex, curved, true>(order_, Orders{});
    return a ? pick_face<tensor, tensor, affine, true>(order_, Orders{}) : pick_face<tensor, tensor, curved, true>(order_, Orders{});
  }
  if (shape_m == simplex && shape_p == simplex)
    return a ? pick_face<simplex, simplex, affine, false>(order_, Orders{}) : pick_face<simplex, simplex, curved, false>(order_, Orders{});
  if (shape_m == tensor && shape_p == tensor)
    return a ? pick_face<tensor, tensor, affine, false>(order_, Orders{}) : pick_face<tensor, tensor, curved, false>(order_, Orders{});
  if constexpr (dim == 2) {  // mixed triangle/quadrilateral faces (groups put the triangle on the minus side)
    if (shape_m == simplex && shape_p == tensor)
      return a ? pick_face<simplex, tensor, affine, false>(order_, Orders{}) : pick_face<simplex, tensor, curved, false>(order_, Orders{});
  }
  throw Error(cat("no face kernel for ", shape_name(shape_m), "-", shape_name(shape_p), " faces"));
}

// ---- the stage graph ----------------------------------------------------------------------------

template <class Physics>
template <Shape S, GeometryKind G, int P>
ElementKernel<Physics, S, P, G> DgOperator<Physics>::element_kernel(int g, const StageUpdate<Real>& update) {
  ElementData& d = elements_[g];
  ElementKernel<Physics, S, P, G> kernel;
  kernel.physics = physics_;
  kernel.u = d.u.view();
  kernel.Ks = d.Ks;
  kernel.metric = d.metric.view();
  kernel.inverse_mass = d.inverse_mass.view();
  kernel.collocated = d.collocated;
  kernel.codes = d.codes.view();
  kernel.volume_phi = d.volume_phi.view();
  kernel.volume_dphi = d.volume_dphi.view();
  kernel.volume_weight = d.volume_weight.view();
  kernel.Nq = d.Nq;
  kernel.face_phi = d.face_phi.view();
  kernel.permutation = permutation_.view();
  kernel.Nfq = setup_.n_face_points();
  kernel.flux = flux_.view();
  kernel.Fs = Fs_;
  kernel.update = update;
  kernel.viscous_rhs = d.viscous_rhs.view();
  kernel.viscous_half = viscous_half_.view();
  kernel.half_stride = half_stride();
  kernel.volume_in_rhs = d.fused_volume;
  return kernel;
}

template <class Physics>
template <Shape S, GeometryKind G, int P>
void DgOperator<Physics>::launch_element(DgOperator& op, int g, const StageUpdate<Real>& update, Pass pass, index_t first,
                                         index_t count) {
  ElementData& d = op.elements_[g];
  if (pass == Pass::viscous) {
    if constexpr (Physics::has_viscous_flux) {
      const LiftingElementKernel<Physics, S, P, G> lifting = op.lifting_kernel<S, G, P>(g, update);
#if defined(__CUDACC__)
      if constexpr (G == GeometryKind::affine && std::is_same_v<Real, double> && !physics::has_element_viscosity<Physics>) {
        if (d.lifting_tensor) {
          launch_lifting_tensor_kernel(lifting, d.K, d.lifting_layout, d.lifting_tables.view().data);
          return;
        }
      }
      if constexpr (S == Shape::quadrilateral && G == GeometryKind::curved) {
        if (d.factorised_lifting.E > 0) {
          launch_lifting_factorised_kernel(lifting, d.factor_tables, d.bilinear.view().data, d.K, d.factorised_lifting,
                                           op.options_.chained_launches && automatic_chained_factorised(op.order_));
          return;
        }
      }
      if (d.block_lifting > 0) {
        launch_lifting_block_kernel(lifting, d.K, d.block_lifting);
        return;
      }
#endif
      for_each(op.options_.backend, d.K, lifting);
    }
    return;
  }
  FLOWDG_ASSERT(first >= 0 && count >= 0 && first + count <= d.K, "element range [", first, ", ", first + count,
                ") outside group ", g, "'s ", d.K, " elements");
  if (count == 0) return;
#if defined(__CUDACC__)
  if constexpr (Physics::has_viscous_flux && !physics::has_element_viscosity<Physics> && G == GeometryKind::affine) {
    if (op.br2_faces_) {
      launch_fused_lifting_block_kernel(op.lifting_kernel<S, G, P>(g, update), first, count, d.fused_lifting);
      return;
    }
  }
#endif
#if defined(__CUDACC__)
  if constexpr (Physics::has_viscous_flux && !physics::has_element_viscosity<Physics> && Physics::dim == 2 && S == Shape::quadrilateral &&
                G == GeometryKind::curved && P >= 1) {
    if (op.br2_factorised_) {
      launch_element_br2_factorised_kernel(op.element_kernel<S, G, P>(g, update), op.lifting_output(), d.factor_tables, d.bilinear.view().data,
                                           first, count, d.br2_factorised);
      return;
    }
  }
#endif
  // (an element-major state: the tensor-core element kernel's groups alone, which its branch below takes)
  FLOWDG_ASSERT(!d.layout.element_major() || d.tensor, "an element-major state runs the tensor-core element kernel only");
  const ElementKernel<Physics, S, P, G> kernel = op.element_kernel<S, G, P>(g, update);
#if defined(__CUDACC__)
  if constexpr (S == Shape::quadrilateral && G == GeometryKind::curved) {
    if (d.factorised_elements.E > 0) {
      launch_element_factorised_kernel(kernel, d.factor_tables, d.bilinear.view().data, first, count, d.factorised_elements,
                                       op.options_.chained_launches && automatic_chained_factorised(op.order_));
      return;
    }
  }
  if constexpr (std::is_same_v<Physics, physics::Euler<3, Real>> && S == Shape::tetrahedron && G == GeometryKind::affine &&
                variable_kernel_order(P)) {
    if (!d.variable.empty()) {
      launch_core_element_variable_kernel<Real, P>(kernel, first, count, d.variable);
      return;
    }
  }
  if constexpr (tensor_precision(S, G)) {
    if (d.tensor) {
      Real* traces = nullptr;  // the fused trace buffer's (not for a residual alone: u stays)
      if constexpr (std::is_same_v<Physics, physics::Euler<3, Real>> && S == Shape::tetrahedron && G == GeometryKind::affine)
        if (op.traces_fused_ && update.residual.data == nullptr) traces = d.traces.view().data;
      launch_core_element_tensor_kernel(kernel, first, count, d.tensor_layout, d.tensor_tables.view().data,
                                        op.face_moments_ ? op.node_permutation_.view().data : op.permutation_.view().data, traces,
                                        traces != nullptr ? op.face_trace_tables_.view().data : nullptr, op.face_trace_rows_);
      return;
    }
  }
  if (d.block_elements > 0) {
    launch_core_element_block_kernel(kernel, first, count, d.block_elements);
    return;
  }
#endif
  for_each(op.options_.backend, count, InRange<ElementKernel<Physics, S, P, G>>{kernel, first});
}

template <class Physics>
template <Shape S, GeometryKind G, int P>
LiftingElementKernel<Physics, S, P, G> DgOperator<Physics>::lifting_kernel(int g, const StageUpdate<Real>& update) {
  ElementData& d = elements_[g];
  LiftingElementKernel<Physics, S, P, G> lifting;
  lifting.base = element_kernel<S, G, P>(g, update);
  if constexpr (Physics::has_viscous_flux) {
    lifting.out = lifting_output();
    lifting.eta = eta(S);
    lifting.viscous_rhs = d.viscous_rhs.view();
    lifting.face_lifting = d.face_lifting.view();
    lifting.lifting_lines = d.lifting_lines.view();
    lifting.lines = d.lines;
    lifting.point_tables = d.lifting_points.view();
    lifting.viscosity = viscosity_field(d);
  }
  return lifting;
}

template <class Physics>
int DgOperator<Physics>::portable_block_elements(Shape shape, int Np, int Nq, int Nfq, index_t elements) const {
  if (options_.backend != Backend::cuda) return 0;
  const std::string& name = options_.element_kernel;
  const bool block = name == "block" || name == "tensor" || name == "factorised" ||
                     (name != "thread" && automatic_block(dim, order_, elements, device_resident_threads(), !Physics::has_viscous_flux));
  return block ? core_block_elements<Physics>(shape, Np, Nq, Nfq) : 0;
}

template <class Physics>
bool DgOperator<Physics>::portable_tensor(const CoreTensorLayout& layout) const {
  // (The precision: tensor_precision, asked by the caller.)
  if (options_.backend != Backend::cuda || device_compute_capability() < 80) return false;
  // A viscous physics runs it only when asked for (solver.element_kernel = "tensor": the element
  // kernel adds BR2's volume term; session 28: slower than the block kernel at p = 1..3 on triangles,
  // docs/performance.md). BR2's lifting has its own choice (lifting_tensor).
  const std::string& name = options_.element_kernel;
  const bool asked = name == "tensor" || ((name == "automatic" || name == "variable") && automatic_tensor(dim, order_) && !Physics::has_viscous_flux);
  return asked && core_tensor_shared_bytes(layout) <= block_shared_limit;
}

template <class Physics>
template <Shape SM, Shape SP, GeometryKind FG, bool Boundary, int P>
FaceKernel<Physics, SM, SP, P, FG, Boundary> DgOperator<Physics>::face_kernel(int g, double t) {
  DgOperator& op = *this;
  const FaceGroup& group = op.setup_.groups.face_groups[g];
  FaceData& d = op.faces_[g];
  const ElementData& minus = op.elements_[group.group_m];
  const ElementData& plus = op.elements_[Boundary ? group.group_m : group.group_p];
  FaceKernel<Physics, SM, SP, P, FG, Boundary> kernel;
  kernel.physics = op.physics_;
  kernel.riemann = op.options_.flux;
  kernel.u_m = minus.u.view();
  kernel.u_p = plus.u.view();
  kernel.Ks_m = minus.layout.row_stride;
  kernel.Ks_p = plus.layout.row_stride;
  kernel.Es_m = minus.layout.element_stride;
  kernel.Es_p = plus.layout.element_stride;
  kernel.face_phi_m = minus.face_phi.view();
  kernel.face_phi_p = plus.face_phi.view();
  kernel.index = {op.face_element_m_.view(), op.face_element_p_.view(), op.face_local_m_.view(), op.face_local_p_.view(),
                  op.face_orientation_.view()};
  kernel.permutation = op.permutation_.view();
  kernel.face_weight = op.face_weight_.view();
  kernel.Nfq = op.setup_.n_face_points();
  kernel.geometry = d.geometry.view();
  kernel.points = d.points.view();
  kernel.Gs = d.Gs;
  kernel.begin = group.begin;
  kernel.condition = d.condition;
  kernel.flow = d.flow;
  kernel.t = static_cast<Real>(t);
  kernel.flux = op.flux_.view();
  kernel.Fs = op.Fs_;
  kernel.jump = op.jump_.view();
  return kernel;
}

template <class Physics>
template <Shape SM, Shape SP, GeometryKind FG, bool Boundary, int P>
void DgOperator<Physics>::launch_face(DgOperator& op, int g, int groups, double t, Pass pass) {
  const FaceGroup& group = op.setup_.groups.face_groups[g];
  [[maybe_unused]] FaceData& d = op.faces_[g];
  FLOWDG_ASSERT(groups == 1 || (Boundary && pass == Pass::stage && op.boundary_batch(static_cast<std::size_t>(g)) >= groups),
                "face groups ", g, " to ", g + groups - 1, " in one launch: boundary groups of the batched kernel only");
  if (pass == Pass::wall) {
    if constexpr (Boundary) {
      WallKernel<Physics, SM, P, FG> wall;
      wall.base = op.face_kernel<SM, SP, FG, Boundary, P>(g, t);
      wall.face_gradient = op.face_gradient_.view();
      wall.Bs = op.Bs_;
      wall.rows = group.size() * wall.base.Nfq;
      wall.out = d.wall.view();
      for_each(op.options_.backend, wall.rows, wall);
    }
    return;
  }
  if (pass == Pass::viscous) {
    if constexpr (Physics::has_viscous_flux && Boundary) {  // interior faces: the lifting kernel's halves
      ViscousBoundaryKernel<Physics, SM, P, FG> viscous;
      viscous.base = op.face_kernel<SM, SP, FG, Boundary, P>(g, t);
      viscous.face_gradient = op.face_gradient_.view();
      viscous.Bs = op.Bs_;
      for_each(op.options_.backend, group.size() * viscous.base.Nfq, viscous);
    }
    return;
  }
  const FaceKernel<Physics, SM, SP, P, FG, Boundary> kernel = op.face_kernel<SM, SP, FG, Boundary, P>(g, t);
#if defined(__CUDACC__)
  if constexpr (Physics::has_viscous_flux && !physics::has_element_viscosity<Physics> && FG == GeometryKind::affine && SM == SP) {
    if (op.br2_faces_) {
      const ElementData& minus = op.elements_[group.group_m];
      const ElementData& plus = op.elements_[Boundary ? group.group_m : group.group_p];
      if constexpr (SM == Shape::quadrilateral && Physics::dim == 2 && P >= 1) {
        FLOWDG_ASSERT(op.br2_factorised_, "BR2 at the faces on quadrilaterals runs the factorised kernels");
        Br2FactorisedFaceKernel<Physics, P, Boundary> br2;
        br2.base = kernel;
        br2.out = op.lifting_output();
        br2.geometry_m = minus.bilinear.view().data;
        br2.geometry_p = plus.bilinear.view().data;
        br2.eta = op.eta(SM);
        launch_br2_factorised_face_kernel(br2, minus.factor_tables, group.size(), minus.br2_face_shape);
        return;
      } else {
      Br2FaceKernel<Physics, SM, P, Boundary> br2;
      br2.base = kernel;
      br2.out = op.lifting_output();
      br2.metric_m = minus.metric.view();
      br2.metric_p = plus.metric.view();
      const View<const Real> points = minus.lifting_points.view();
      const index_t offset = static_cast<index_t>(n_faces(SM)) * kernel.Nfq * affine_lifting_rows(minus.Nq);
      br2.face_dphi = View<const Real>{points.data + offset, points.n - offset};
      br2.lifting = minus.face_lifting.view();
      br2.eta = op.eta(SM);
      launch_br2_face_block_kernel(br2, group.size(), minus.br2_face_shape);
      return;
      }
    }
  }
  FLOWDG_ASSERT(!op.br2_faces_, "BR2 at the faces runs affine faces between elements of one shape");
  if constexpr (SM == Shape::quadrilateral && SP == Shape::quadrilateral) {
    if (d.factorised_faces > 0) {
      launch_face_factorised_kernel(kernel, d.factor_tables, group.size(), d.factorised_faces,
                                    op.options_.chained_launches && automatic_chained_factorised(op.order_));
      return;
    }
  }
  if constexpr (std::is_same_v<Physics, physics::Euler<3, Real>> && SM == Shape::tetrahedron && SP == Shape::tetrahedron &&
                FG == GeometryKind::affine && variable_face_kernel_order(P)) {
    if (d.variable) {
      const Real *traces_m = nullptr, *traces_p = nullptr;  // the trace buffer's (interior faces)
      if constexpr (!Boundary) {
        if (op.face_traces_) {
          // (an element-major group's coefficients are the copy: face_trace_mode 4)
          const ElementData &minus = op.elements_[group.group_m], &plus = op.elements_[group.group_p];
          traces_m = minus.layout.element_major() ? minus.u.view().data : minus.traces.view().data;
          traces_p = plus.layout.element_major() ? plus.u.view().data : plus.traces.view().data;
        }
      }
      if constexpr (Boundary) {  // (and the batch's other groups, boundary_batch)
        std::vector<FaceKernel<Physics, SM, SP, P, FG, Boundary>> kernels{kernel};
        std::vector<index_t> sizes{group.size()};
        for (int b = 1; b < groups; ++b) {
          kernels.push_back(op.face_kernel<SM, SP, FG, Boundary, P>(g + b, t));
          sizes.push_back(op.setup_.groups.face_groups[g + b].size());
        }
        launch_core_boundary_variable_kernel<Real, P>(kernels.data(), sizes.data(), groups,
                                                      op.face_moments_ ? &op.face_moment_tables_ : nullptr);
      } else {
        launch_core_face_variable_kernel<Real, P>(kernel, group.size(), op.face_moments_ ? &op.face_moment_tables_ : nullptr, traces_m,
                                                  traces_p, op.face_trace_points_, op.face_trace_coefficients_);
      }
      return;
    }
  }
  if (d.block_faces > 0) {
    if constexpr (has_chunked_faces && !Boundary) {  // 3D Euler's interior faces: a kernel per solver
      if (d.chunked)
        launch_core_face_block_kernel_per_solver<core_face_chunk(P)>(kernel, group.size(), d.block_faces);
      else
        launch_core_face_block_kernel_per_solver<0>(kernel, group.size(), d.block_faces);
    } else {
      launch_core_face_block_kernel<0>(kernel, group.size(), d.block_faces);
    }
    return;
  }
#endif
  for_each(op.options_.backend, group.size() * kernel.Nfq, kernel);
}

template <class Physics>
int DgOperator<Physics>::boundary_batch(std::size_t g) const {
  const auto batched = [&](std::size_t x) { return setup_.groups.face_groups[x].boundary() && faces_[x].variable; };
  if (!boundary_batch_ || !batched(g)) return 1;
  std::size_t end = g + 1;
  while (end < faces_.size() && batched(end) && faces_[end].launch == faces_[g].launch) ++end;
  return static_cast<int>(end - g);
}

template <class Physics>
void DgOperator<Physics>::run_stage(double t, const RungeKuttaStage& stage, double dt, bool residual_only,
                                    const StageRegisters& registers) {
  // An inviscid physics' boundary face groups on the second stream, beside the interior groups
  // (decided when the operator is built; they write other faces' fluxes), the element kernels after both.
  const bool side = boundary_stream_ != nullptr;
  if (side) {
    faces_start_->record(*stream_);
    faces_start_->make_wait(*boundary_stream_);
    const StreamScope on_side(*boundary_stream_);
    for (std::size_t g = 0; g < faces_.size();) {
      if (!setup_.groups.face_groups[g].boundary()) {
        ++g;
        continue;
      }
      const int groups = boundary_batch(g);
      faces_[g].launch(*this, static_cast<int>(g), groups, t, Pass::stage);
      g += static_cast<std::size_t>(groups);
    }
    boundary_done_->record(*boundary_stream_);
  }
#if defined(__CUDACC__)
  // The trace buffer (3D Euler, face moments): every element's traces at its faces' nodes, ghosts
  // included, before the interior faces read them (the boundary faces beside it sum their own).
  if constexpr (std::is_same_v<Physics, physics::Euler<3, Real>>) {
    // (fused and current: the last stage's element kernels wrote the owned elements'; the ghosts
    // came from the halo exchange after them)
    if (face_traces_)
      for (ElementData& d : elements_)
        if (!d.layout.element_major())  // (element-major: the face kernel reads u itself)
          launch_face_traces<Real>(order_, d.u.view().data, d.Ks, traces_current_ ? d.K_owned : 0, d.K, d.traces.view().data,
                                 face_trace_tables_.view().data, face_trace_points_, face_trace_coefficients_);
  }
#endif
  for (std::size_t g = 0; g < faces_.size();) {
    if (side && setup_.groups.face_groups[g].boundary()) {
      ++g;
      continue;
    }
    if constexpr (has_tuned_triangles) {
      if (faces_[g].tuned) {  // one launch for a run of tuned face groups (boundary ranges, then interior)
        std::size_t last = g;
        while (last + 1 < faces_.size() && faces_[last + 1].tuned) ++last;
        const TunedTriangles::FaceIndex index{face_element_m_.view(), face_element_p_.view(), face_local_m_.view(),
                                              face_local_p_.view()};
        const ElementData& triangles = elements_[tuned_group_];
        tuned_->faces(triangles.u.view(), flux_.view(), index, setup_.groups.face_groups[g].begin,
                      setup_.groups.face_groups[last].end, t);
        g = last + 1;
        continue;
      }
    }
    const int groups = setup_.groups.face_groups[g].boundary() ? boundary_batch(g) : 1;
    faces_[g].launch(*this, static_cast<int>(g), groups, t, Pass::stage);
    g += static_cast<std::size_t>(groups);
  }
  if (side) boundary_done_->make_wait(*stream_);
  // The viscous seam. A physics with has_viscous_flux (Navier-Stokes; artificial viscosity) runs
  // its second-order pass here, between the inviscid face fluxes and the element kernels (DESIGN.md:
  // its own module, dg/lifting, not fused into the inviscid element kernel):
  //   1. (in the face kernels above) per face point, the jump of the traces for BR2's liftings r_e;
  //   2. per element, Theta = grad u + sum_e r_e and the volume term -int grad phi . F_v(u, Theta);
  //      at its face points grad u + eta r_e, and there its side's half of the centred viscous flux
  //      (interior faces) or the face gradient (boundary faces);
  //   3. per boundary face point, the condition's viscous flux, subtracted from flux_;
  // and the element kernel adds the volume term and subtracts both halves from each interior face's
  // flux (ElementKernel::face_flux). Inviscid physics compile none of it.
  if constexpr (artificial_viscosity) update_viscosity(!residual_only, dt);
  if constexpr (Physics::has_viscous_flux)
    if (!br2_faces_) viscous_pass(t);  // BR2 at the faces: the face kernels took it
  // The element kernels with the Runge-Kutta update, then the halo exchange. Overlapped (a
  // distributed run without a limiter after the stage): each group's front (the elements the halo
  // sends) first, then the packing and the messages while the rest are updated, so that the
  // exchange hides behind the bulk of the element work (each coefficient is still written once).
  const auto update_elements = [&](bool front, bool rest) {
    for (std::size_t g = 0; g < elements_.size(); ++g) {
      ElementData& d = elements_[g];
      const index_t first = front ? 0 : d.K_front, count = (rest ? d.K : d.K_front) - first;
      StageUpdate<Real> update;
      update.stage = stage;
      update.dt = static_cast<Real>(dt);
      update.u0 = d.u0.view();
      update.q = d.q.view();
      update.set(registers);
      update.tested = runge_kutta_update_tested();
      if (residual_only) update.residual = d.residual.view();
      if (local_steps_) {
        update.local_dt = d.local_dt.view();
        update.Ks = d.Ks;
      }
      if constexpr (has_tuned_triangles) {
        if (static_cast<int>(g) == tuned_group_) {
          tuned_->element(d.u.view(), flux_.view(), stage, dt, update.u0, update.q, registers, update.residual, first, count);
          continue;
        }
      }
      d.launch(*this, static_cast<int>(g), update, Pass::stage, first, count);
    }
  };
  traces_current_ = false;  // (until the update below has written them)
  if (residual_only || !halo_overlap() || forced_) {
    update_elements(true, true);
    if (residual_only) return;
    // (the forcing changes u after the kernels that wrote the traces: they are computed again)
    if (forced_) apply_forcing(stage, dt, registers);
    traces_current_ = traces_fused_ && !forced_;
    if constexpr (has_tuned_triangles) {
      if (tuned_ != nullptr && tuned_->limits()) tuned_->limit(elements_[tuned_group_].u.view());  // after every stage
    }
    exchange_halo(true);
    return;
  }
  // (a limiter reads the neighbours' updated values: no overlap with one; halo_overlap())
  traces_current_ = traces_fused_;
  update_elements(true, false);
  halo_pack();
  using Clock = std::chrono::steady_clock;
  const bool device = options_.backend == Backend::cuda;
  if (device) update_elements(false, true);  // queued: runs while the host waits below
  const auto posting = Clock::now();
  halo_post();
  const auto posted = Clock::now();
  if (!device) update_elements(false, true);  // the CPU: while the messages are under way
  const auto waiting = Clock::now();
  halo_finish();
  halo_pack_ += std::chrono::duration<double>(posted - posting).count();
  halo_mpi_ += std::chrono::duration<double>(Clock::now() - waiting).count();
  ++halo_count_;
  halo_bytes_ += static_cast<double>(send_buffer_.bytes());
}

template <class Physics>
void DgOperator<Physics>::prepare(const RungeKuttaScheme& scheme, bool monitor_change) {
  const StreamScope on_stream(*stream_);
  const Space space = space_of(options_.backend);
  for (ElementData& d : elements_) {
    if (monitor_change && d.previous.size() != d.u.size()) d.previous = Array<Real>(space, d.u.size());
    if (scheme.uses_q && d.q.size() != d.u.size()) d.q = Array<Real>(space, d.u.size());
    // u0 is stored by the first stage's element kernels (StageUpdate::start_u0), not copied here;
    // its padding is never read (no host fill: at p = 3 on 800k triangles that cost 0.1 s).
    if (scheme.uses_u0 && d.u0.size() != d.u.size()) d.u0 = Array<Real>(space, d.u.size());
    if (!scheme.uses_q) d.q = Array<Real>();
    if (!scheme.uses_u0) d.u0 = Array<Real>();
  }
}

template <class Physics>
void DgOperator<Physics>::step(const RungeKuttaScheme& requested, double t, double dt, bool monitor_change) {
  const RungeKuttaScheme scheme = register_form(requested);
  prepare(scheme, monitor_change);
  const StreamScope on_stream(*stream_);
  if (monitor_change)
    for (ElementData& d : elements_) d.previous.copy_from(d.u);
  for (std::size_t i = 0; i < scheme.stages.size(); ++i)
    run_stage(t + scheme.stages[i].c * dt, scheme.stages[i], dt, false, stage_registers(scheme, i));
  if (!monitor_change) return;
  last_change_ = 0;
  for (const ElementData& d : elements_) {
    const View<const Real> now = d.u.view(), before = d.previous.view();
    // The padding entries are 0 in both (never written), so the whole rows can be compared.
    last_change_ = std::max(last_change_, reduce_max<double>(options_.backend, d.u.size(), [=] FLOWDG_HD(index_t i) {
                              const double change = static_cast<double>(now[i]) - static_cast<double>(before[i]);
                              // A NaN would be lost by the max: report it as an infinite change.
                              return change != change ? std::numeric_limits<double>::infinity() : (change < 0 ? -change : change);
                            }));
  }
  last_change_ = global_max(last_change_);
}

template <class Physics>
void DgOperator<Physics>::apply_forcing(const RungeKuttaStage& stage, double dt, const StageRegisters& registers) {
  // A coefficient of exactly 0 skips its term, as in apply_runge_kutta_stage.
  const Real on_u = static_cast<Real>((stage.u_q != 0 ? stage.u_q * stage.q_k : 0.0) + stage.u_k);
  const Real on_q = static_cast<Real>(stage.q_k);
  const Real step = static_cast<Real>(dt);
  const bool local = local_steps_;
  for (ElementData& d : elements_) {
    const View<Real> u = d.u.view(), q = registers.write_q && on_q != 0 ? d.q.view() : View<Real>{};
    const View<const Real> s = d.forcing.view(), local_dt = d.local_dt.view();
    const index_t K = d.K;
    const StateLayout layout = d.layout;
    for_each(options_.backend, static_cast<index_t>(NV) * d.Np * K, [=] FLOWDG_HD(index_t i) {
      const index_t e = i % K, index = layout(i / K, e);
      const Real ds = (local ? local_dt[e] : step) * s[index];
      if (q.data != nullptr) q[index] -= on_q * ds;
      if (on_u != 0) u[index] -= on_u * ds;
    });
  }
}

template <class Physics>
DgOperator<Physics>& DgOperator<Physics>::finer_level(Operator& fine, const char* what) const {
  auto* other = dynamic_cast<DgOperator*>(&fine);
  bool same = other != nullptr && other != this && other->order_ > order_ && other->elements_.size() == elements_.size() &&
              other->options_.backend == options_.backend;
  for (std::size_t g = 0; same && g < elements_.size(); ++g)
    same = other->elements_[g].K == elements_[g].K && other->elements_[g].shape == elements_[g].shape;
  if (same && (tuned_ != nullptr || other->tuned_ != nullptr))
    throw InputError("p-multigrid runs the portable kernels (the tuned triangle kernels' coefficients are their own): set [solver] "
                     "kernels = \"portable\"");
  if (!same)
    throw InputError(cat("p-multigrid: ", what, " takes an operator of the same physics, precision, backend and mesh at a higher order (p = ",
                         order_, " and p = ", fine.order(), ")"));
  return *other;
}

/// p-multigrid's transfers: item i = row K + e of a level's NV Np K modes (row = v Np + j) -> its index
/// in the level's arrays and in the finer level's (mode j of variable v there: the hierarchical basis
/// puts the lower order's modes first).
struct MultigridModeMap {
  index_t K;
  StateLayout layout, fine_layout;  // (each level's own: StateLayout)
  index_t Np, fine_Np;
  FLOWDG_HD index_t index(index_t i) const { return layout(i / K, i % K); }
  FLOWDG_HD index_t fine(index_t i) const {
    const index_t row = i / K;
    return fine_layout(row / Np * fine_Np + row % Np, i % K);
  }
};
template <class Data>
MultigridModeMap multigrid_mode_map(const Data& level, const Data& fine) {
  return {level.K, level.layout, fine.layout, level.Np, fine.Np};
}

template <class Physics>
void DgOperator<Physics>::restrict_from(Operator& fine_operator, double t) {
  DgOperator& fine = finer_level(fine_operator, "restrict_from");
  fine.compute_residual(t);  // R_fine(u_fine), on the fine level's stream
  fine.stream_->synchronize();
  const StreamScope on_stream(*stream_);
  const Space space = space_of(options_.backend);
  // The modes (v Np + j, e) up to this order, for every element (ghosts as well: their
  // state is the fine level's, which the fine level's exchange made current).
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    ElementData& d = elements_[g];
    const ElementData& f = fine.elements_[g];
    // (the padding of the new arrays stays 0, as in u)
    if (d.forcing.size() != d.u.size()) d.forcing = Array<Real>(space, std::vector<Real>(d.u.size(), Real(0)));
    if (d.restricted.size() != d.u.size()) d.restricted = Array<Real>(space, std::vector<Real>(d.u.size(), Real(0)));
    const View<Real> u = d.u.view(), kept = d.restricted.view();
    const View<const Real> from = f.u.view();
    const MultigridModeMap map = multigrid_mode_map(d, f);
    for_each(options_.backend, static_cast<index_t>(NV) * d.Np * d.K, [=] FLOWDG_HD(index_t i) {
      const index_t index = map.index(i);
      u[index] = kept[index] = from[map.fine(i)];
    });
  }
  compute_residual(t);  // R(u): the residual-only stage ignores the forcing
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    ElementData& d = elements_[g];
    const ElementData& f = fine.elements_[g];
    const View<Real> s = d.forcing.view();
    const View<const Real> r = d.residual.view(), fine_r = f.residual.view(),
                           fine_s = fine.forced_ ? View<const Real>(f.forcing.view()) : View<const Real>{};
    const MultigridModeMap map = multigrid_mode_map(d, f);
    for_each(options_.backend, static_cast<index_t>(NV) * d.Np * d.K, [=] FLOWDG_HD(index_t i) {
      const index_t index = map.index(i), fine_index = map.fine(i);
      s[index] = r[index] - (fine_s.data != nullptr ? fine_r[fine_index] - fine_s[fine_index] : fine_r[fine_index]);
    });
  }
  forced_ = true;
  traces_current_ = false;
}

template <class Physics>
void DgOperator<Physics>::prolongate_to(Operator& fine_operator) const {
  DgOperator& fine = finer_level(fine_operator, "prolongate_to");
  for (const ElementData& d : elements_)
    if (d.restricted.size() != d.u.size()) throw InputError("p-multigrid: prolongate_to before restrict_from");
  fine.stream_->synchronize();
  const StreamScope on_stream(*stream_);
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    const ElementData& d = elements_[g];
    ElementData& f = fine.elements_[g];
    const View<const Real> u = d.u.view(), kept = d.restricted.view();
    const View<Real> to = f.u.view();
    const MultigridModeMap map = multigrid_mode_map(d, f);
    for_each(options_.backend, static_cast<index_t>(NV) * d.Np * d.K, [=] FLOWDG_HD(index_t i) {
      const index_t index = map.index(i);
      to[map.fine(i)] += u[index] - kept[index];
    });
  }
  stream_->synchronize();  // the fine level's next launches (on its own stream) read the corrected state
  fine.traces_current_ = false;
}

template <class Physics>
void DgOperator<Physics>::compute_residual(double t) {
  const StreamScope on_stream(*stream_);
  const Space space = space_of(options_.backend);
  for (ElementData& d : elements_)
    if (d.residual.size() != d.u.size()) d.residual = Array<Real>(space, std::vector<Real>(d.u.size(), Real(0)));
  run_stage(t, RungeKuttaStage{}, 0.0, true);
}

template <class Physics>
std::vector<double> DgOperator<Physics>::residual(double t) {
  compute_residual(t);
  const StreamScope on_stream(*stream_);
  return every_group(&ElementData::residual);
}

template <class Physics>
std::vector<double> DgOperator<Physics>::residual_norms(double t) {
  compute_residual(t);
  if (norm_quadrature_.size() != elements_.size()) {
    // errors()' rule and geometry (the old monitor went through errors(): the same numbers, without
    // mapping every point again per call: 0.8 s a call on the sphere at p = 4, 1,350 of its 5,420
    // tetrahedra curved to order 4).
    norm_quadrature_.assign(elements_.size(), NormQuadrature{});
    for (std::size_t g = 0; g < elements_.size(); ++g) {
      const ElementData& d = elements_[g];
      const ElementGroup& group = setup_.groups.element_groups[g];
      const QuadratureRule rule = volume_rule(d.shape, d.geometry, order_ + 1, group.geometric_order);
      const geometry::ElementMaps maps(mesh_, rule.points);
      NormQuadrature& n = norm_quadrature_[g];
      n.Nq = rule.size();
      n.per_point = d.geometry != GeometryKind::affine;
      n.weights = rule.weights;
      n.phi.resize(static_cast<std::size_t>(n.Nq) * d.Np);
      for (int k = 0; k < n.Nq; ++k) basis_values(d.shape, order_, rule.points[k], &n.phi[static_cast<std::size_t>(k) * d.Np]);
      const int points = n.per_point ? n.Nq : 1;
      n.det.resize(static_cast<std::size_t>(d.K_owned) * points);
      for (index_t e = 0; e < d.K_owned; ++e)
        for (int k = 0; k < points; ++k) n.det[static_cast<std::size_t>(e) * points + k] = maps.at(group.elements[e], k).det;
    }
  }
  std::vector<double> squares(NV, 0.0);
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    const ElementData& d = elements_[g];
    const NormQuadrature& n = norm_quadrature_[g];
    const std::vector<Real> r = d.residual.to_host();  // (the group's StateLayout)
    const int Np = d.Np, Nq = n.Nq, points = n.per_point ? Nq : 1;
    const index_t K = d.K_owned;
    const StateLayout layout = d.layout;
    // Per thread in a static schedule, then in thread order: the same sums for the same threads.
    std::vector<double> partial;
#pragma omp parallel
    {
#if defined(_OPENMP)
      const int threads = omp_get_num_threads(), thread = omp_get_thread_num();
#else
      const int threads = 1, thread = 0;
#endif
#pragma omp single
      partial.assign(static_cast<std::size_t>(threads) * NV, 0.0);
      double local[NV] = {};
#pragma omp for schedule(static)
      for (index_t e = 0; e < K; ++e)
        for (int k = 0; k < Nq; ++k) {
          const double w = n.weights[k] * n.det[static_cast<std::size_t>(e) * points + (points == 1 ? 0 : k)];
          const double* phi = &n.phi[static_cast<std::size_t>(k) * Np];
          for (int v = 0; v < NV; ++v) {
            double value = 0;
            for (int j = 0; j < Np; ++j) value += static_cast<double>(r[layout(static_cast<index_t>(v) * Np + j, e)]) * phi[j];
            local[v] += w * value * value;
          }
        }
      for (int v = 0; v < NV; ++v) partial[static_cast<std::size_t>(thread) * NV + v] = local[v];
    }
    for (std::size_t i = 0; i < partial.size(); ++i) squares[i % NV] += partial[i];
  }
  if (communicator_ != nullptr) communicator_->sum(squares);
  for (double& value : squares) value = std::sqrt(value);
  return squares;
}

template <class Physics>
double DgOperator<Physics>::stable_time_step(double cfl) const {
  const StreamScope on_stream(*stream_);
  double smallest = std::numeric_limits<double>::infinity();
  std::string bad;
  for (const ElementData& d : elements_) {
    TimeStepKernel<Physics> kernel{physics_, d.u.view(), d.size.view(), d.layout.row_stride, d.Np, order_,
                                   static_cast<Real>(1.0 / std::sqrt(reference_measure(d.shape))), sensor_low(d),
                                   smoothed() ? View<const Real>(d.viscosity.view()) : View<const Real>{}, d.layout.element_stride};
    // Owned elements only: a ghost at the layer's rim may hold what no owner has (its viscosity
    // smoothed over fewer elements), and every ghost is some rank's owned element.
    const double value = reduce_min<double>(options_.backend, d.K_owned, kernel);
    if (value < 0) {
      // Find the element on the host (a failure path: the cost does not matter).
      const std::vector<Real> u = d.u.to_host();
      for (index_t e = 0; e < d.K_owned; ++e) {
        State mean;
        for (int v = 0; v < NV; ++v) mean[v] = kernel.mean_factor * u[d.layout(static_cast<index_t>(v) * d.Np, e)];
        if (!physics_.is_admissible(mean) && bad.empty()) {
          const index_t element = setup_.groups.element_groups[&d - elements_.data()].elements[e];
          bad = cat("non-physical state (negative density or pressure, or NaN) in the mean of ", mesh_.element_label(element),
                    communicator_ != nullptr ? cat(" of rank ", communicator_->rank(), "'s part") : std::string(), " (density ",
                    static_cast<double>(mean[0]), ", pressure ", static_cast<double>(physics_.pressure(mean)), ")");
        }
      }
    }
    smallest = std::min(smallest, value);
  }
  // In a distributed run every rank takes part before any throws: a bad state on one rank stops all.
  const double global = global_min(smallest);
  if (!bad.empty()) throw NumericalError(bad);
  if (global < 0)
    throw NumericalError("non-physical state (negative density or pressure, or NaN) on another rank (its message names the element)");
  return cfl * global;
}

template <class Physics>
void DgOperator<Physics>::setup_viscosity_smoothing() {
  const Space space = space_of(options_.backend);
  const index_t n_nodes = mesh_.n_nodes();
  std::vector<index_t> start(static_cast<std::size_t>(n_nodes) + 1, 0);
  index_t offset = 0;
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    ElementData& d = elements_[g];
    d.viscosity_offset = offset;
    offset += d.K;
    const int nv = n_vertices(d.shape);
    const std::vector<index_t>& members = setup_.groups.element_groups[g].elements;
    std::vector<index_t> vertices(static_cast<std::size_t>(nv) * d.Ks, 0);
    for (index_t e = 0; e < d.K; ++e) {
      const index_t* nodes = mesh_.element_node_ids(members[static_cast<std::size_t>(e)]);
      for (int i = 0; i < nv; ++i) {
        vertices[static_cast<std::size_t>(i) * d.Ks + e] = nodes[i];  // Gmsh order: the corners first
        ++start[static_cast<std::size_t>(nodes[i]) + 1];
      }
    }
    d.vertices = Array<index_t>(space, vertices);
    d.smoothing_modes = n_basis(d.shape, std::min(order_, 1));
    const std::vector<double> table = vertex_function_modes(d.shape, d.smoothing_modes);
    d.smoothing_table = Array<Real>(space, std::vector<Real>(table.begin(), table.end()));
    d.viscosity_modes = Array<Real>(space, std::vector<Real>(static_cast<std::size_t>(d.smoothing_modes) * d.Ks, Real(0)));
  }
  for (index_t w = 0; w < n_nodes; ++w) start[static_cast<std::size_t>(w) + 1] += start[static_cast<std::size_t>(w)];
  std::vector<index_t> elements(static_cast<std::size_t>(start.back()));
  std::vector<index_t> next(start.begin(), start.end() - 1);
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    const ElementData& d = elements_[g];
    const std::vector<index_t>& members = setup_.groups.element_groups[g].elements;
    for (index_t e = 0; e < d.K; ++e) {
      const index_t* nodes = mesh_.element_node_ids(members[static_cast<std::size_t>(e)]);
      for (int i = 0; i < n_vertices(d.shape); ++i) elements[static_cast<std::size_t>(next[static_cast<std::size_t>(nodes[i])]++)] = d.viscosity_offset + e;
    }
  }
  vertex_start_ = Array<index_t>(space, start);
  vertex_elements_ = Array<index_t>(space, elements);
  viscosity_all_ = Array<Real>(space, std::vector<Real>(static_cast<std::size_t>(std::max<index_t>(offset, 1)), Real(0)));
}

template <class Physics>
double DgOperator<Physics>::set_local_time_steps(double cfl) {
  if (tuned_ != nullptr)
    throw InputError("local time stepping runs the portable kernels (the tuned triangle kernels take one time step): "
                     "set [solver] kernels = \"portable\"");
  const double smallest = stable_time_step(cfl);  // checks every mean (and names a bad one)
  const StreamScope on_stream(*stream_);
  const Space space = space_of(options_.backend);
  for (ElementData& d : elements_) {
    if (d.local_dt.size() != d.Ks) d.local_dt = Array<Real>(space, std::vector<Real>(static_cast<std::size_t>(d.Ks), Real(0)));
    const TimeStepKernel<Physics> kernel{physics_, d.u.view(), d.size.view(), d.layout.row_stride, d.Np, order_,
                                         static_cast<Real>(1.0 / std::sqrt(reference_measure(d.shape))), sensor_low(d),
                                         smoothed() ? View<const Real>(d.viscosity.view()) : View<const Real>{}, d.layout.element_stride};
    const View<Real> out = d.local_dt.view();
    for_each(options_.backend, d.K, [=] FLOWDG_HD(index_t e) { out[e] = static_cast<Real>(cfl * kernel(e)); });
  }
  local_steps_ = true;
  return smallest;
}

template <class Physics>
WallSamples DgOperator<Physics>::wall_samples(double t) {
  WallSamples samples;
  samples.n_variables = NV;
  bool any = false;
  for (const FaceGroup& group : setup_.groups.face_groups) any |= group.boundary();
  if (!any) return samples;
  // The right-hand side at t: the stored face states and, for viscous physics, the BR2 gradients.
  (void)residual(t);
  const StreamScope on_stream(*stream_);
  const Space space = space_of(options_.backend);
  const int Nfq = setup_.n_face_points();
  constexpr int n_fields = 2 * dim + 1 + 2 * NV;
  for (std::size_t g = 0; g < faces_.size(); ++g) {
    const FaceGroup& group = setup_.groups.face_groups[g];
    if (!group.boundary()) continue;
    FaceData& d = faces_[g];
    const index_t rows = group.size() * Nfq;
    if (d.wall.size() != n_fields * rows) d.wall = Array<Real>(space, n_fields * rows);
    d.launch(*this, static_cast<int>(g), 1, t, Pass::wall);
    const std::vector<Real> values = d.wall.to_host();
    const ElementGroup& elements = setup_.groups.element_groups[group.group_m];
    const index_t owned = elements_[group.group_m].K_owned;
    for (index_t i = 0; i < rows; ++i) {
      const auto field = [&](int k) { return static_cast<double>(values[k * rows + i]); };
      const GroupFace& face = setup_.groups.faces[group.begin + i / Nfq];
      if (face.element_m >= owned) continue;  // a ghost's face: its owner reports it
      samples.tag.push_back(group.tag);
      samples.element.push_back(elements.elements[face.element_m]);
      Point3 x{}, n{};
      double* xs[3] = {&x.x, &x.y, &x.z};
      double* ns[3] = {&n.x, &n.y, &n.z};
      for (int c = 0; c < dim; ++c) {
        *xs[c] = field(c);
        *ns[c] = field(dim + c);
      }
      samples.x.push_back(x);
      samples.normal.push_back(n);
      samples.weight.push_back(field(2 * dim));
      for (int v = 0; v < NV; ++v) samples.state.push_back(field(2 * dim + 1 + v));
      for (int v = 0; v < NV; ++v) samples.viscous_flux.push_back(field(2 * dim + 1 + NV + v));
    }
  }
  return samples;
}

template <class Physics>
std::vector<double> DgOperator<Physics>::evaluate_at(const std::vector<index_t>& elements,
                                                     const std::vector<Point3>& reference_points) const {
  FLOWDG_ASSERT(elements.size() == reference_points.size(), "evaluate_at: ", elements.size(), " elements, ",
                reference_points.size(), " points");
  std::vector<double> out(elements.size() * NV, 0.0);
  std::vector<std::vector<double>> coefficients(elements_.size());
  std::vector<double> phi;
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const index_t element = elements[i];
    FLOWDG_ASSERT(element >= 0 && element < mesh_.n_elements(), "evaluate_at: no element ", element);
    const int g = setup_.groups.group_of[element];
    const index_t e = setup_.groups.index_in_group[element];
    const ElementData& d = elements_[g];
    if (coefficients[g].empty()) coefficients[g] = group_coefficients(g);
    phi.resize(d.Np);
    basis_values(d.shape, order_, reference_points[i], phi.data());
    for (int v = 0; v < NV; ++v) {
      double value = 0;
      for (int j = 0; j < d.Np; ++j) value += coefficients[g][(static_cast<index_t>(v) * d.Np + j) * d.K + e] * phi[j];
      out[i * NV + v] = value;
    }
  }
  return out;
}

// ---- host-side projection, errors, output ----------------------------------------------------

template <class Physics>
double DgOperator<Physics>::stage_bytes(const RungeKuttaScheme& requested) const {
  const RungeKuttaScheme scheme = register_form(requested);
  const double word = sizeof(Real), id = sizeof(index_t), small = sizeof(int);
  const double Nfq = setup_.n_face_points(), registers = register_words_per_stage(scheme);
  double bytes = 0;
  // Faces: every element's coefficients once (a face's points share them through the caches), each
  // face's ids (element and local face of both sides, orientation), geometry, boundary points once,
  // each flux written once.
  for (std::size_t g = 0; g < faces_.size(); ++g) {
    const FaceGroup& group = setup_.groups.face_groups[g];
    const double n = static_cast<double>(group.size());
    const double geometry = (group.geometry == GeometryKind::affine ? 1.0 : Nfq) * (dim + 1);
    bytes += n * (2 * id + 3 * small + (geometry + NV * Nfq + (group.boundary() ? Nfq * dim : 0.0)) * word);
  }
  // Elements: the coefficients read and written, the Runge-Kutta registers, the metric (and the
  // inverse mass matrix on curved groups), the face codes and each face's fluxes.
  for (const ElementData& d : elements_) {
    const double K = static_cast<double>(d.K), state = static_cast<double>(NV) * d.Np;
    const double faces = n_faces(d.shape);
    // Curved groups: the metric at every point and the inverse mass matrix (collocated: a factor
    // per point instead).
    const double metric = d.geometry == GeometryKind::affine ? dim * dim + 1.0
                          : d.collocated                     ? static_cast<double>(d.Nq) * (dim * dim + 1)
                                                             : static_cast<double>(d.Nq) * dim * dim + static_cast<double>(d.Np) * d.Np;
    // The sum-factorised kernels read each element's bilinear Jacobian instead (6 words).
    const double bilinear = 6.0;
    const double element_metric = d.factorised_elements.E > 0 ? bilinear : metric;
    bytes += K * (state * word) /* faces' trace reads */ +
             K * ((2 + registers) * state * word + element_metric * word + faces * id + faces * NV * Nfq * word);
    if constexpr (Physics::has_viscous_flux) {
      if (br2_faces_) {
        // BR2 at the faces: the fused kernel reads its faces' scaled jumps and each face's normal
        // besides the element kernel's data (the face kernel's part is below).
        bytes += K * faces * (Nfq * NV + dim) * word;
        continue;
      }
      // BR2 (lifting.hpp): the lifting kernel reads the coefficients, metric, codes and each face's
      // jumps and scaled normals, writes each face's half flux (or a boundary face's gradient) and
      // the volume term, which the element kernel reads with both halves of each face.
      // Curved groups also read their faces' lifting matrices (collocated ones a reference table).
      const double lifting = d.geometry == GeometryKind::curved && !d.collocated ? faces * Nfq * Nfq : 0.0;
      const double lifting_metric = d.factorised_lifting.E > 0 ? bilinear : metric;
      bytes += K * ((2 * state + lifting_metric + lifting) * word + faces * id + faces * Nfq * (NV + dim + NV) * word) +
               K * (state + faces * 2 * NV * Nfq) * word;
    }
  }
  if constexpr (Physics::has_viscous_flux) {
    if (br2_faces_) {
      // BR2 at the faces: the face kernel also writes the jumps, reads the scaled normals and both
      // sides' metric, and writes the boundary faces' gradients.
      // (bilinear quadrilaterals: both sides' six Jacobian coefficients)
      const double side_geometry = br2_factorised_ ? 6.0 : dim * dim + 1.0;
      bytes += static_cast<double>(setup_.groups.faces.size()) * (NV * Nfq + dim * Nfq + 2 * side_geometry) * word;
      bytes += static_cast<double>(n_boundary_faces_) * Nfq * NV * dim * word;
      return bytes;
    }
    // The inviscid face kernel writes the jumps; the boundary viscous kernel reads the boundary
    // faces' gradients and updates their fluxes.
    bytes += static_cast<double>(setup_.groups.faces.size()) * NV * Nfq * word;
    bytes += static_cast<double>(n_boundary_faces_) * Nfq * (NV * dim + 2 * NV) * word;
  }
  return bytes;
}

template <class Physics>
index_t DgOperator<Physics>::dof() const {
  index_t total = 0;
  for (const ElementData& d : elements_) total += static_cast<index_t>(NV) * d.Np * d.K;
  return total;
}

template <class Physics>
std::string DgOperator<Physics>::describe() const {
  std::string out;
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    const ElementData& d = elements_[g];
    const char* kernel = static_cast<int>(g) == tuned_group_ ? ", tuned kernels"
                         : d.factorised_elements.E > 0       ? ", sum-factorised element kernel"
                         : !d.variable.empty()               ? ", element kernel with a warp per variable"
                         : d.tensor                          ? ", tensor-core element kernel"
                         : d.block_elements > 0              ? ", block element kernel"
                                                             : "";
    const char* lifting = !Physics::has_viscous_flux || options_.backend != Backend::cuda ? ""
                          : br2_factorised_                                                ? ", BR2 at the faces (sum-factorised face and element kernels)"
                          : br2_faces_                                                     ? ", BR2 at the faces (fused lifting and element kernel)"
                          : d.factorised_lifting.E > 0                                     ? ", sum-factorised lifting"
                          : d.lifting_tensor                                               ? ", tensor-core lifting"
                          : d.fused_volume                                                 ? ", block lifting with the volume term"
                          : d.block_lifting > 0                                            ? ", block lifting"
                                                                                           : ", thread lifting";
    // (the layout the launch reads: tensor_rows)
    const char* rows = !d.tensor                  ? ""
                       : d.tensor_layout.float_rows ? " (its shared rows in float)"
                       : d.tensor_layout.compact    ? " (its coefficients inside the flux rows)"
                                                    : "";
    out += cat(g == 0 ? "" : "; ", d.K, " ", geometry_name(d.geometry), " ", shape_name(d.shape), "s (", d.Nq, " volume points",
               options_.volume_degree_shift == 0 ? "" : cat(" exact to degree ", setup_.element_groups[g].volume_rule.degree),
               d.collocated ? ", mass inverted at the points" : "", kernel, rows, lifting, ")");
  }
  // (boundary groups a stage launches together: boundary_batch, up to boundary_batch_groups a launch)
  int boundary_groups = 0, boundary_launches = 0;
  for (std::size_t g = 0; g < faces_.size();) {
    const int run = setup_.groups.face_groups[g].boundary() ? boundary_batch(g) : 0;
    boundary_groups += run;
    boundary_launches += (run + boundary_batch_groups - 1) / boundary_batch_groups;
    g += static_cast<std::size_t>(std::max(run, 1));
  }
  const std::string batched_boundaries = boundary_launches < boundary_groups
                                             ? cat(", its ", boundary_groups, " boundary groups in ", boundary_launches,
                                                   boundary_launches == 1 ? " launch" : " launches")
                                             : std::string();
  int block_groups = 0, chunked_groups = 0, factorised_groups = 0, variable_groups = 0;
  for (const FaceData& d : faces_) {
    variable_groups += d.variable ? 1 : 0;
    block_groups += d.block_faces > 0 ? 1 : 0;
    chunked_groups += d.chunked ? 1 : 0;
    factorised_groups += d.factorised_faces > 0 ? 1 : 0;
  }
  // (BR2 at the faces: its face kernel takes every face group's place)
  const std::string face_kernels = br2_factorised_ ? ", BR2 face kernel (sum-factorised)"
                                   : br2_faces_    ? ", BR2 face kernel"
                                   : factorised_groups > 0 ? cat(", sum-factorised face kernel on ", factorised_groups, " groups")
                                   : variable_groups > 0 ? cat(", face kernel with a warp per variable on ", variable_groups,
                                                               face_moments_ ? " groups, fluxes as nodal moments" : " interior groups",
                                                               face_traces_ ? cat(element_major_state()
                                                                                      ? ", interior faces on the FP64 tensor cores from the element-major state itself"
                                                                                  : face_trace_coefficients_
                                                                                      ? ", interior faces on the FP64 tensor cores from the coefficients' element-major copy"
                                                                                      : ", traces from the trace buffer",
                                                                                  face_trace_points_ ? " at the face points" : "",
                                                                                  traces_fused_ ? " (written by the element kernel)" : "")
                                                                            : std::string(),
                                                               batched_boundaries, block_groups > 0 ? ", block face kernel on the others" : "")
                                   : chunked_groups > 0  ? cat(", chunked face kernel on ", chunked_groups, " interior groups")
                                   : block_groups > 0 ? ", block face kernel"
                                                      : "";
  return cat(out, "; ", setup_.groups.faces.size(), " faces in ", faces_.size(), " groups (", setup_.n_face_points(),
             " points each", face_kernels, ")");
}

template <class Physics>
std::vector<double> DgOperator<Physics>::unpadded(const ElementData& d, const Array<Real>& array) {
  const std::vector<Real> values = array.to_host();
  std::vector<double> out(static_cast<std::size_t>(NV) * d.Np * d.K);
  for (index_t row = 0; row < static_cast<index_t>(NV) * d.Np; ++row)
    for (index_t e = 0; e < d.K; ++e) out[row * d.K + e] = static_cast<double>(values[d.layout(row, e)]);
  return out;
}

template <class Physics>
std::vector<double> DgOperator<Physics>::every_group(Array<Real> ElementData::*array) const {
  std::vector<double> out;
  for (const ElementData& d : elements_) {
    const std::vector<double> values = unpadded(d, d.*array);
    out.insert(out.end(), values.begin(), values.end());
  }
  return out;
}

template <class Physics>
std::vector<double> DgOperator<Physics>::coefficients() const {
  return every_group(&ElementData::u);
}

template <class Physics>
void DgOperator<Physics>::set_coefficients(const std::vector<double>& values) {
  if (static_cast<index_t>(values.size()) != dof())
    throw InputError(cat("coefficient array has ", values.size(), " values, the operator expects ", dof()));
  std::size_t offset = 0;
  for (ElementData& d : elements_) {
    const index_t rows = static_cast<index_t>(NV) * d.Np;
    const std::vector<double> block(values.begin() + offset, values.begin() + offset + rows * d.K);
    d.u.assign(state_values(d, block));
    offset += static_cast<std::size_t>(rows * d.K);
  }
  traces_current_ = false;
}

template <class Physics>
void DgOperator<Physics>::project(const FlowSpec& spec, double t) {
  const HostFlow flow = physics::to_flow<dim, double>(spec, options_.gamma);
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    ElementData& d = elements_[g];
    const ElementGroup& group = setup_.groups.element_groups[g];
    const QuadratureRule rule = volume_rule(d.shape, d.geometry, order_ + 1, group.geometric_order);  // two degrees more
    const geometry::ElementMaps maps(mesh_, rule.points);
    const int Np = d.Np, Nq = rule.size();
    std::vector<double> phi(static_cast<std::size_t>(Nq) * Np);
    for (int k = 0; k < Nq; ++k) basis_values(d.shape, order_, rule.points[k], &phi[k * Np]);
    std::vector<double> values(static_cast<std::size_t>(NV) * Np * d.K);
    index_t bad = d.K;
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (index_t e = 0; e < d.K; ++e) {
      std::vector<double> rhs(static_cast<std::size_t>(NV) * Np, 0.0), mass(static_cast<std::size_t>(Np) * Np, 0.0);
      for (int k = 0; k < Nq; ++k) {
        const geometry::Jacobian jacobian = maps.at(group.elements[e], k);
        const double w = rule.weights[k] * jacobian.det;
        typename HostFlow::Direction x;
        const double xs[3] = {jacobian.x.x, jacobian.x.y, jacobian.x.z};
        for (int c = 0; c < dim; ++c) x[c] = xs[c];
        const auto state = flow(x, t);
        for (int v = 0; v < NV; ++v)
          for (int j = 0; j < Np; ++j) rhs[v * Np + j] += w * state[v] * phi[k * Np + j];
        for (int a = 0; a < Np; ++a)
          for (int b = 0; b < Np; ++b) mass[a * Np + b] += w * phi[k * Np + a] * phi[k * Np + b];
      }
      if (!invert_spd(mass, Np)) {
        bad = std::min(bad, e);
        continue;
      }
      for (int v = 0; v < NV; ++v)
        for (int a = 0; a < Np; ++a) {
          double sum = 0;
          for (int b = 0; b < Np; ++b) sum += mass[a * Np + b] * rhs[v * Np + b];
          values[(static_cast<index_t>(v) * Np + a) * d.K + e] = sum;
        }
    }
    FLOWDG_ASSERT(bad == d.K, "projection: the mass matrix of element ", group.elements[bad], " is singular");
    d.u.assign(state_values(d, values));
  }
  traces_current_ = false;
  apply_limiter();  // when configured, as every stage ends
}

template <class Physics>
void DgOperator<Physics>::apply_limiter() {
  if constexpr (has_tuned_triangles) {
    if (tuned_ != nullptr && tuned_->limits()) {
      const StreamScope on_stream(*stream_);
      tuned_->limit(elements_[tuned_group_].u.view());
    }
  }
  exchange_halo();
}

template <class Physics>
void DgOperator<Physics>::save_snapshot() {
  const Space space = space_of(options_.backend);
  for (ElementData& d : elements_) {
    if (d.saved.size() != d.u.size()) d.saved = Array<Real>(space, d.u.size());
    d.saved.copy_from(d.u);
  }
  snapshot_saved_ = true;
}

template <class Physics>
std::vector<double> DgOperator<Physics>::snapshot() const {
  return snapshot_saved_ ? every_group(&ElementData::saved) : std::vector<double>{};
}

template <class Physics>
std::string DgOperator<Physics>::implementation() const {
  if (tuned_ == nullptr) return "portable core kernels";
  return cat("tuned 2D Euler triangle kernels (", tuned_->describe(), ")",
             elements_.size() > 1 ? " and portable core kernels for the other groups" : "");
}

template <class Physics>
Norms DgOperator<Physics>::errors(const FlowSpec& spec, double t) const {
  const HostFlow flow = physics::to_flow<dim, double>(spec, options_.gamma);
  Norms norms;
  norms.l2.assign(NV, 0.0);
  norms.linf.assign(NV, 0.0);
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    const ElementData& d = elements_[g];
    const ElementGroup& group = setup_.groups.element_groups[g];
    const QuadratureRule rule = volume_rule(d.shape, d.geometry, order_ + 1, group.geometric_order);
    const geometry::ElementMaps maps(mesh_, rule.points);
    const int Np = d.Np, Nq = rule.size();
    std::vector<double> phi(static_cast<std::size_t>(Nq) * Np);
    for (int k = 0; k < Nq; ++k) basis_values(d.shape, order_, rule.points[k], &phi[k * Np]);
    const std::vector<double> u = group_coefficients(static_cast<int>(g));
    std::vector<double> squares(NV, 0.0), largest(NV, 0.0);
    for (index_t e = 0; e < d.K_owned; ++e)
      for (int k = 0; k < Nq; ++k) {
        const geometry::Jacobian jacobian = maps.at(group.elements[e], k);
        typename HostFlow::Direction x;
        const double xs[3] = {jacobian.x.x, jacobian.x.y, jacobian.x.z};
        for (int c = 0; c < dim; ++c) x[c] = xs[c];
        const auto exact = flow(x, t);
        for (int v = 0; v < NV; ++v) {
          double value = 0;
          for (int j = 0; j < Np; ++j) value += u[(static_cast<index_t>(v) * Np + j) * d.K + e] * phi[k * Np + j];
          const double error = value - exact[v];
          squares[v] += rule.weights[k] * jacobian.det * error * error;
          largest[v] = std::max(largest[v], std::abs(error));
        }
      }
    for (int v = 0; v < NV; ++v) {
      norms.l2[v] += squares[v];
      norms.linf[v] = std::max(norms.linf[v], largest[v]);
    }
  }
  if (communicator_ != nullptr) {
    communicator_->sum(norms.l2);
    for (double& value : norms.linf) value = communicator_->max(value);
  }
  for (double& value : norms.l2) value = std::sqrt(value);
  return norms;
}

template <class Physics>
std::vector<double> DgOperator<Physics>::totals() const {
  std::vector<double> total(NV, 0.0);
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    const ElementData& d = elements_[g];
    const ElementGroup& group = setup_.groups.element_groups[g];
    const QuadratureRule rule = volume_rule(d.shape, d.geometry, order_, group.geometric_order);
    const geometry::ElementMaps maps(mesh_, rule.points);
    const int Np = d.Np, Nq = rule.size();
    std::vector<double> phi(static_cast<std::size_t>(Nq) * Np);
    for (int k = 0; k < Nq; ++k) basis_values(d.shape, order_, rule.points[k], &phi[k * Np]);
    const std::vector<double> u = group_coefficients(static_cast<int>(g));
    for (index_t e = 0; e < d.K_owned; ++e)
      for (int k = 0; k < Nq; ++k) {
        const double w = rule.weights[k] * maps.at(group.elements[e], k).det;
        for (int v = 0; v < NV; ++v) {
          double value = 0;
          for (int j = 0; j < Np; ++j) value += u[(static_cast<index_t>(v) * Np + j) * d.K + e] * phi[k * Np + j];
          total[v] += w * value;
        }
      }
  }
  if (communicator_ != nullptr) communicator_->sum(total);
  return total;
}

template <class Physics>
std::string DgOperator<Physics>::describe_bad_state() const {
  // Host scan at each group's volume points (a failure path).
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    const ElementData& d = elements_[g];
    const ElementGroupSetup& host = setup_.element_groups[g];
    const std::vector<double> u = group_coefficients(static_cast<int>(g));
    for (index_t e = 0; e < d.K_owned; ++e)
      for (int k = 0; k < d.Nq; ++k) {
        typename physics::Euler<dim, double>::State state;
        for (int v = 0; v < NV; ++v) {
          double value = 0;
          for (int j = 0; j < d.Np; ++j) value += u[(static_cast<index_t>(v) * d.Np + j) * d.K + e] * host.volume_phi[k * d.Np + j];
          state[v] = value;
        }
        const physics::Euler<dim, double> host_physics{options_.gamma};
        if (host_physics.is_admissible(state)) continue;
        const index_t element = setup_.groups.element_groups[g].elements[e];
        const Point3 x = mesh_.nodes[mesh_.element_node_ids(element)[0]];
        return cat(mesh_.element_label(element), " near (", x.x, ", ", x.y, dim == 3 ? cat(", ", x.z) : std::string(),
                   "): density ", state[0], ", pressure ", host_physics.pressure(state));
      }
  }
  return "";
}

template <class Physics>
std::vector<PointValues> DgOperator<Physics>::evaluate(const std::vector<std::vector<Point3>>& points_by_shape) const {
  std::vector<PointValues> out;
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    const ElementData& d = elements_[g];
    const ElementGroup& group = setup_.groups.element_groups[g];
    const auto shape_index = static_cast<std::size_t>(d.shape);
    FLOWDG_ASSERT(shape_index < points_by_shape.size() && !points_by_shape[shape_index].empty(),
                  "no output points for ", shape_name(d.shape), " elements");
    const std::vector<Point3>& points = points_by_shape[shape_index];
    const geometry::ElementMaps maps(mesh_, points);
    const int Np = d.Np, n_points = static_cast<int>(points.size());
    std::vector<double> phi(static_cast<std::size_t>(n_points) * Np);
    for (int k = 0; k < n_points; ++k) basis_values(d.shape, order_, points[k], &phi[k * Np]);
    const std::vector<double> u = group_coefficients(static_cast<int>(g));
    PointValues block;
    block.shape = d.shape;
    block.elements.assign(group.elements.begin(), group.elements.begin() + d.K_owned);  // a ghost is its owner's to show
    block.points.resize(static_cast<std::size_t>(d.K_owned) * n_points);
    block.values.resize(static_cast<std::size_t>(d.K_owned) * n_points * NV);
#pragma omp parallel for schedule(static)
    for (index_t e = 0; e < d.K_owned; ++e)
      for (int k = 0; k < n_points; ++k) {
        block.points[e * n_points + k] = maps.at(group.elements[e], k).x;
        for (int v = 0; v < NV; ++v) {
          double value = 0;
          for (int j = 0; j < Np; ++j) value += u[(static_cast<index_t>(v) * Np + j) * d.K + e] * phi[k * Np + j];
          block.values[(e * n_points + k) * NV + v] = value;
        }
      }
    out.push_back(std::move(block));
  }
  return out;
}

// ---- distributed runs ---------------------------------------------------------------------------

template <class Physics>
void DgOperator<Physics>::setup_distribution(const Distribution& distribution) {
  FLOWDG_ASSERT(distribution.communicator != nullptr, "a distribution without a communicator");
  communicator_ = distribution.communicator.get();
  n_owned_ = distribution.n_owned;
  if (n_owned_ < 1 || n_owned_ > mesh_.n_elements())
    throw InputError(cat("rank ", communicator_->rank(), ": ", n_owned_, " owned elements of a part of ", mesh_.n_elements()));
  // Each group keeps the part's order, owned elements first: its owned ones are a prefix.
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    ElementData& d = elements_[g];
    const std::vector<index_t>& members = setup_.groups.element_groups[g].elements;
    d.K_owned = static_cast<index_t>(std::partition_point(members.begin(), members.end(), [&](index_t e) { return e < n_owned_; }) -
                                     members.begin());
    for (index_t e = d.K_owned; e < d.K; ++e)
      FLOWDG_ASSERT(members[static_cast<std::size_t>(e)] >= n_owned_, "group ", g, " mixes owned and ghost elements out of order");
  }
  const Space space = space_of(options_.backend);
  std::vector<std::vector<index_t>> send_element(elements_.size()), send_offset(elements_.size()), receive_element(elements_.size()),
      receive_offset(elements_.size());
  std::size_t send_total = 0, receive_total = 0;
  std::vector<std::pair<std::size_t, std::size_t>> send_range, receive_range;  // per neighbour: first value, values
  const auto width = [&](index_t element) {
    return static_cast<std::size_t>(NV) * static_cast<std::size_t>(elements_[setup_.groups.group_of[element]].Np);
  };
  for (const HaloPlan::Neighbour& neighbour : distribution.halo.neighbours) {
    const std::size_t send_first = send_total, receive_first = receive_total;
    for (const index_t e : neighbour.send) {
      FLOWDG_ASSERT(e >= 0 && e < n_owned_, "halo: element ", e, " sent is not owned");
      const int g = setup_.groups.group_of[e];
      send_element[g].push_back(setup_.groups.index_in_group[e]);
      send_offset[g].push_back(static_cast<index_t>(send_total));
      send_total += width(e);
    }
    for (const index_t e : neighbour.receive) {
      FLOWDG_ASSERT(e >= n_owned_ && e < mesh_.n_elements(), "halo: element ", e, " received is not a ghost");
      const int g = setup_.groups.group_of[e];
      receive_element[g].push_back(setup_.groups.index_in_group[e]);
      receive_offset[g].push_back(static_cast<index_t>(receive_total));
      receive_total += width(e);
    }
    send_range.emplace_back(send_first, send_total - send_first);
    receive_range.emplace_back(receive_first, receive_total - receive_first);
  }
  halo_.resize(elements_.size());
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    HaloGroup& h = halo_[g];
    h.n_send = static_cast<index_t>(send_element[g].size());
    h.n_receive = static_cast<index_t>(receive_element[g].size());
    h.send_element = Array<index_t>(space, send_element[g]);
    h.send_offset = Array<index_t>(space, send_offset[g]);
    h.receive_element = Array<index_t>(space, receive_element[g]);
    h.receive_offset = Array<index_t>(space, receive_offset[g]);
  }
  // Each group's front: up to its last element sent (extract_part numbers a part's sent elements
  // first, so the front is the sent elements alone; a part read from older files still works).
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    ElementData& d = elements_[g];
    d.K_front = 0;
    for (const index_t e : send_element[g]) d.K_front = std::max(d.K_front, e + 1);
    // The rest then starts on a row boundary of the padded layout (a multiple of 32 elements): the
    // vectorised kernels assume their first element is aligned (an odd start gave
    // cudaErrorMisalignedAddress on the H100, curved triangles, 2 ranks). Updating a few more
    // elements early changes no result.
    if (d.K_front > 0) d.K_front = std::min(d.K, padded(d.K_front));
  }
  send_buffer_ = Array<Real>(space, static_cast<index_t>(send_total));
  receive_buffer_ = Array<Real>(space, static_cast<index_t>(receive_total));
  // The messages: from the buffers themselves where MPI can read them (the CPU backend; CUDA-aware
  // MPI on the device), else through page-locked host copies on their own stream.
  direct_messages_ = options_.backend != Backend::cuda || communicator_->cuda_aware();
  Real* send_at = send_buffer_.data();
  Real* receive_at = receive_buffer_.data();
  if (!direct_messages_) {
    send_host_ = PinnedBuffer<Real>(send_total);
    receive_host_ = PinnedBuffer<Real>(receive_total);
    send_at = send_host_.data();
    receive_at = receive_host_.data();
    copy_stream_ = std::make_unique<Stream>(options_.backend);
  }
  halo_packed_ = std::make_unique<Event>(options_.backend);
  halo_staged_ = std::make_unique<Event>(options_.backend);
  halo_received_ = std::make_unique<Event>(options_.backend);
  for (std::size_t i = 0; i < distribution.halo.neighbours.size(); ++i) {
    const int rank = distribution.halo.neighbours[i].part;
    sends_.push_back({rank, send_at + send_range[i].first, send_range[i].second * sizeof(Real)});
    receives_.push_back({rank, receive_at + receive_range[i].first, receive_range[i].second * sizeof(Real)});
  }
}

template <class Physics>
void DgOperator<Physics>::halo_pack() {
  const StreamScope on_stream(*stream_);
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    const HaloGroup& h = halo_[g];
    if (h.n_send == 0) continue;
    const ElementData& d = elements_[g];
    const index_t rows = static_cast<index_t>(NV) * d.Np;
    for_each(options_.backend, h.n_send * rows,
             HaloCopy<Real>{d.u.view(), send_buffer_.view(), h.send_element.view(), h.send_offset.view(), rows, d.layout, true});
  }
  halo_packed_->record(*stream_);
  if (direct_messages_ || send_buffer_.size() == 0) return;
  halo_packed_->make_wait(*copy_stream_);
  copy_bytes_async(send_host_.data(), Space::host, send_buffer_.data(), send_buffer_.space(), send_buffer_.bytes(), *copy_stream_);
  halo_staged_->record(*copy_stream_);
}

template <class Physics>
void DgOperator<Physics>::halo_post() {
  (direct_messages_ ? halo_packed_ : halo_staged_)->synchronize();  // MPI reads the buffers from here on
  halo_pending_ = communicator_->start(sends_, receives_);
}

template <class Physics>
void DgOperator<Physics>::halo_finish() {
  const StreamScope on_stream(*stream_);
  halo_pending_->wait();
  halo_pending_.reset();
  if (!direct_messages_ && receive_buffer_.size() > 0) {
    copy_bytes_async(receive_buffer_.data(), receive_buffer_.space(), receive_host_.data(), Space::host, receive_buffer_.bytes(),
                     *copy_stream_);
    halo_received_->record(*copy_stream_);
    halo_received_->make_wait(*stream_);
  }
  for (std::size_t g = 0; g < elements_.size(); ++g) {
    const HaloGroup& h = halo_[g];
    if (h.n_receive == 0) continue;
    ElementData& d = elements_[g];
    const index_t rows = static_cast<index_t>(NV) * d.Np;
    for_each(options_.backend, h.n_receive * rows,
             HaloCopy<Real>{receive_buffer_.view(), d.u.view(), h.receive_element.view(), h.receive_offset.view(), rows, d.layout, false});
  }
}

template <class Physics>
void DgOperator<Physics>::exchange_halo(bool timed) {
  if (communicator_ == nullptr || (sends_.empty() && receives_.empty())) return;
  using Clock = std::chrono::steady_clock;
  // The stage's kernels first: the parts timed below are the exchange's own.
  if (timed) stream_->synchronize();
  const auto start = Clock::now();
  halo_pack();
  halo_post();
  const auto packed = Clock::now();
  halo_pending_->wait();  // (halo_finish's wait returns at once after this)
  const auto exchanged = Clock::now();
  halo_finish();
  stream_->synchronize();
  if (!timed) return;
  halo_pack_ += std::chrono::duration<double>(packed - start).count();
  halo_mpi_ += std::chrono::duration<double>(exchanged - packed).count();
  halo_unpack_ += std::chrono::duration<double>(Clock::now() - exchanged).count();
  ++halo_count_;
  halo_bytes_ += static_cast<double>(send_buffer_.bytes());
}

}  // namespace flowdg::dg
