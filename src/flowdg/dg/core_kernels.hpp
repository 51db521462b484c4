#pragma once
// The DG core's portable kernels: one source for the CPU (OpenMP loop) and the GPU (a thread per
// index), templated on the physics, the group's shape and geometry kind and the order, so that
// every loop over basis functions and variables has a constant bound and no kernel branches on a
// shape or on curvature. Hand-tuned kernels for one combination (today: 2D Euler on affine
// triangles, dg/euler2d_stage_kernels.cpp and dg/euler2d/) are specialisations that must reproduce these.
//
// Layouts (element index fastest, rows padded to a multiple of 32 elements or faces):
//   coefficients      u[(v * Np + j) * Ks + e]                      per element group; element-major
//                     [(e * NV + v) * Np + j] where the face tensor kernel reads them (StateLayout)
//   affine metric     [c * Ks + e], c = r * dim + d: det J dr_r/dx_d; c = dim^2: 1 / det J
//   curved metric     [(k * dim^2 + r * dim + d) * Ks + e] = w_k det J_k dr_r/dx_d at volume point k
//   inverse mass      [(i * Np + j) * Ks + e]                       curved groups
//   face codes        [l * Ks + e] = (face << 4) | (orientation << 1) | plus_side
//   face fluxes       [(v * Nfq + q) * Fs + f] = w_q |N_q| F*(u_m, u_p, n_q), minus side's point order
//   face geometry     affine: [c * Gs + i], c < dim: unit normal, c = dim: |N| (the surface Jacobian)
//                     curved: [(q * (dim + 1) + c) * Gs + i], the same per face point
//   boundary points   [(q * dim + d) * Gs + i]
// (Gs: the face group's padded size, i = f - begin.)
#include <cmath>
#include <cstddef>
#include <vector>

#include "flowdg/backend/fragment_order.hpp"
#include "flowdg/backend/memory.hpp"
#include "flowdg/core/hd.hpp"
#include "flowdg/dg/groups.hpp"
#include "flowdg/element/basis.hpp"
#include "flowdg/element/reference_element.hpp"
#include "flowdg/physics/euler/artificial_viscosity.hpp"
#include "flowdg/physics/euler/boundary.hpp"
#include "flowdg/physics/euler/euler.hpp"
#include "flowdg/physics/euler/flows.hpp"
#include "flowdg/physics/euler/riemann.hpp"
#include "flowdg/time/runge_kutta.hpp"

namespace flowdg::dg {

/// Where row r = v Np + j of element e lies in a group's state arrays (u, u0, q, the residual, the
/// forcing: one layout for all, so that an update keeps one index): [r Ks + e] (row_stride Ks,
/// element_stride 1), or element-major [e NV Np + r] (row_stride 1, element_stride NV Np: a face
/// side's NV Np values contiguous, which the face kernel on the FP64 tensor cores reads as they are —
/// setup.hpp face_trace_mode 4).
struct StateLayout {
  index_t row_stride = 0, element_stride = 1;
  FLOWDG_HD FLOWDG_FORCEINLINE index_t operator()(index_t row, index_t e) const { return row * row_stride + e * element_stride; }
  bool element_major() const { return element_stride != 1; }
};

/// Direction r of variable v of a flux in reference form: sum_d m[r][d] F_d[v], with m the weighted
/// metric at a volume point (w det J dr_r/dx_d: ElementKernel::weighted_metric); every volume term's
/// contraction (the inviscid and the viscous one, in each kernel variant).
template <int dim, class Real, class State>
FLOWDG_HD FLOWDG_FORCEINLINE Real reference_flux(const Real (&m)[dim][dim], const State (&f)[dim], int r, int v) {
  Real sum = 0;
  for (int d = 0; d < dim; ++d) sum += m[r][d] * f[d][v];
  return sum;
}

/// One stage's register update (runge_kutta.hpp's form; which registers: StageRegisterFlags) or, with `residual` set, the residual
/// itself written out (for tests and diagnostics; no register changes).
template <class Real>
struct StageUpdate : StageRegisterFlags {
  RungeKuttaStage stage{};
  Real dt = 0;
  View<Real> u0, q;       ///< empty when the scheme does not use them
  View<Real> residual;    ///< non-empty: store du/dt here instead of updating
  /// Local time stepping (steady states): each element's own step [e] (index % Ks; a kernel that
  /// knows the element passes it: apply_loaded_at, any StateLayout), dt unused.
  View<const Real> local_dt;
  index_t Ks = 0;
  /// apply_runge_kutta_stage's coefficient tests (true) or apply_runge_kutta_stage_finite's plain
  /// products (false: q_at and u0_at give zeros for the registers not read, so the tests only cost
  /// instructions); runge_kutta_update_tested (setup.cpp) for A/B runs.
  bool tested = true;

  FLOWDG_HD FLOWDG_FORCEINLINE void apply(View<Real> u, index_t index, Real value) const {
    if (residual.data != nullptr) {
      residual[index] = value;
      return;
    }
    apply_from(u, index, value, u[index]);
  }
  /// The same with u[index] at hand (a kernel that holds the coefficients in shared memory).
  FLOWDG_HD FLOWDG_FORCEINLINE void apply_from(View<Real> u, index_t index, Real value, Real u_s) const {
    if (residual.data != nullptr) {
      residual[index] = value;
      return;
    }
    apply_loaded(u, index, value, u_s, q_at(index), u0_at(index));
  }
  /// The registers this stage reads at `index`, 0 where it reads none (a kernel loads them early).
  FLOWDG_HD FLOWDG_FORCEINLINE Real q_at(index_t index) const { return q.data != nullptr && read_q ? q[index] : Real(0); }
  FLOWDG_HD FLOWDG_FORCEINLINE Real u0_at(index_t index) const {
    return !start_u0 && u0.data != nullptr && read_u0 ? u0[index] : Real(0);
  }
  /// The same with u[index], q_at(index) and u0_at(index) at hand; returns the new u[index] (with
  /// `residual` set: u_s, unchanged).
  FLOWDG_HD FLOWDG_FORCEINLINE Real apply_loaded(View<Real> u, index_t index, Real value, Real u_s, Real q_k, Real u0_k) const {
    return apply_loaded_at(u, index, local_dt.data != nullptr ? index % Ks : 0, value, u_s, q_k, u0_k);
  }
  /// The same for element e's value at `index` (the state's layout, StateLayout, is the caller's).
  FLOWDG_HD FLOWDG_FORCEINLINE Real apply_loaded_at(View<Real> u, index_t index, index_t e, Real value, Real u_s, Real q_k, Real u0_k) const {
    if (residual.data != nullptr) {
      residual[index] = value;
      return u_s;
    }
    if (start_u0) {
      u0[index] = u_s;
      u0_k = u_s;
    }
    const Real step = local_dt.data != nullptr ? local_dt[e] : dt;
    if (tested) apply_runge_kutta_stage(stage, step * value, u0_k, q_k, u_s);
    else apply_runge_kutta_stage_finite(stage, step * value, u0_k, q_k, u_s);
    if (q.data != nullptr && write_q) q[index] = q_k;
    u[index] = u_s;
    return u_s;
  }
};

/// The numerical flux of the configured kind (one launch takes one branch: the kind is a kernel
/// argument, the same for every thread).
template <class Physics>
FLOWDG_HD FLOWDG_FORCEINLINE typename Physics::State numerical_flux(physics::RiemannKind kind, const Physics& physics,
                                                                   const typename Physics::State& um,
                                                                   const typename Physics::State& up,
                                                                   const typename Physics::Direction& n) {
  switch (kind) {
    case physics::RiemannKind::rusanov: return physics::Rusanov{}(physics, um, up, n);
    case physics::RiemannKind::roe: return physics::Roe{}(physics, um, up, n);
    default: return physics::Hllc{}(physics, um, up, n);
  }
}

/// The trace of an element's solution at one face point: sum_j u_j phi_j (phi: the face table row);
/// e: the element's offset in u (its index times the layout's element stride).
template <class Physics, int Np>
FLOWDG_HD FLOWDG_FORCEINLINE typename Physics::State trace(View<const typename Physics::real> u, index_t stride,
                                                          index_t e, const typename Physics::real* phi) {
  using Real = typename Physics::real;
  typename Physics::State value;
  for (int v = 0; v < Physics::n_variables; ++v) {
    Real sum = 0;
    FLOWDG_UNROLL
    for (int j = 0; j < Np; ++j) sum += u[(static_cast<index_t>(v) * Np + j) * stride + e] * phi[j];
    value[v] = sum;
  }
  return value;
}

/// Per-face data shared by every face kernel (global face numbering).
struct FaceIndex {
  View<const index_t> element_m, element_p;  ///< group-local element indices
  View<const int> local_m, local_p, orientation;
};

/// One face group's fluxes, a thread per (face, face point). SM, SP: the shapes of the minus and
/// plus sides (SP unused on a boundary); FG: the face geometry kind; Boundary: a ghost state from
/// the group's condition instead of the plus trace.
template <class Physics, Shape SM, Shape SP, int P, GeometryKind FG, bool Boundary>
struct FaceKernel {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  using Direction = typename Physics::Direction;
  static constexpr int dim = Physics::dim, NV = Physics::n_variables;
  static constexpr int Np_m = n_basis(SM, P), Np_p = n_basis(SP, P);

  Physics physics;
  physics::RiemannKind riemann = physics::RiemannKind::hllc;
  View<const Real> u_m, u_p;
  /// The sides' state layouts (StateLayout): row strides, element strides (1, or NV Np element-major).
  index_t Ks_m = 0, Ks_p = 0, Es_m = 1, Es_p = 1;
  View<const Real> face_phi_m, face_phi_p;  ///< [(l * Nfq + q) * Np + j]
  FaceIndex index;
  View<const int> permutation;              ///< [orientation * Nfq + q]
  View<const Real> face_weight;             ///< [q]
  int Nfq = 0;
  View<const Real> geometry;                ///< this group's, see the layout above
  View<const Real> points;                  ///< boundary groups: face point coordinates
  index_t Gs = 0, begin = 0;
  physics::BoundaryCondition<dim, Real> condition{};
  physics::EulerFlow<dim, Real> flow{};
  Real t = 0;
  View<Real> flux;
  index_t Fs = 0;
  /// Viscous physics: the BR2 lifting jump H_aux - u_m at every point, [(v Nfq + q) Fs + f] (lifting.hpp).
  View<Real> jump;

  FLOWDG_HD void operator()(index_t i) const {
    const index_t local = i / Nfq;
    const int q = static_cast<int>(i - local * Nfq);
    const index_t f = begin + local;
    const State um = trace<Physics, Np_m>(u_m, Ks_m, index.element_m[f] * Es_m,
                                          &face_phi_m[(static_cast<index_t>(index.local_m[f]) * Nfq + q) * Np_m]);
    State up{};
    if constexpr (!Boundary) {
      const int qp = permutation[index.orientation[f] * Nfq + q];
      up = trace<Physics, Np_p>(u_p, Ks_p, index.element_p[f] * Es_p,
                                &face_phi_p[(static_cast<index_t>(index.local_p[f]) * Nfq + qp) * Np_p]);
    }
    finish(local, q, um, up);
  }

  /// The flux at face point q of the group's face `local` from the two traces (up unused on a
  /// boundary: the condition's ghost state), scaled and stored (the block kernel's second phase too).
  /// Riemann >= 0: that physics::RiemannKind, fixed at compile time (a kernel per solver: the
  /// others' code and registers are not in it); -1: the kernel argument `riemann`.
  template <int Riemann = -1>
  FLOWDG_HD FLOWDG_FORCEINLINE void finish(index_t local, int q, const State& um, State up) const {
    const index_t f = begin + local;
    State point_jump;
    Real scale;
    const State value = point_flux<Riemann>(local, q, um, up, point_jump, scale);
    for (int v = 0; v < NV; ++v) flux[(static_cast<index_t>(v) * Nfq + q) * Fs + f] = value[v];
    if constexpr (Physics::has_viscous_flux)
      for (int v = 0; v < NV; ++v) jump[(static_cast<index_t>(v) * Nfq + q) * Fs + f] = point_jump[v];
  }

  /// finish's values, returned instead of stored (BR2 at the faces keeps them in shared memory): the
  /// scaled flux w_q |N| F*(um, up) at face point q of the group's face `local`, and for a viscous
  /// physics BR2's jump H_aux - u_m there, (u_p - u_m) / 2 inside, u_b - u_m on a boundary (lifting.hpp);
  /// scale_out: the point's w_q |N| (BR2 at the faces scales the jump by it).
  template <int Riemann = -1>
  FLOWDG_HD FLOWDG_FORCEINLINE State point_flux(index_t local, int q, const State& um, State up, State& jump_out, Real& scale_out) const {
    Direction n;
    Real measure;
    geometry_at(local, q, n, measure);
    if constexpr (Boundary) {
      Direction x;
      for (int d = 0; d < dim; ++d) x[d] = points[(static_cast<index_t>(q) * dim + d) * Gs + local];
      up = condition.ghost_state(physics, um, n, x, t, flow);
    }
    const State value = numerical_flux(Riemann >= 0 ? static_cast<physics::RiemannKind>(Riemann) : riemann, physics, um, up, n);
    if constexpr (Physics::has_viscous_flux) {
      if constexpr (Boundary) {
        const State ub = condition.boundary_state(physics, um, up);
        for (int v = 0; v < NV; ++v) jump_out[v] = ub[v] - um[v];
      } else {
        for (int v = 0; v < NV; ++v) jump_out[v] = Real(0.5) * (up[v] - um[v]);
      }
    } else {
      (void)jump_out;
    }
    const Real scale = face_weight[q] * measure;
    scale_out = scale;
    State scaled;
    for (int v = 0; v < NV; ++v) scaled[v] = scale * value[v];
    return scaled;
  }

  /// The minus side's trace at point q of global face f.
  FLOWDG_HD FLOWDG_FORCEINLINE State minus_trace(index_t f, int q) const {
    return trace<Physics, Np_m>(u_m, Ks_m, index.element_m[f] * Es_m, &face_phi_m[(static_cast<index_t>(index.local_m[f]) * Nfq + q) * Np_m]);
  }

  /// Boundary groups: the condition's boundary state U_b (BoundaryCondition::boundary_state) at
  /// point q of the group's face `local` from the interior trace um, with the point's unit normal and
  /// |N| (BR2's viscous boundary flux and the wall samples take it there).
  FLOWDG_HD FLOWDG_FORCEINLINE State boundary_state_at(index_t local, int q, const State& um, Direction& n, Real& measure) const {
    geometry_at(local, q, n, measure);
    Direction x;
    for (int d = 0; d < dim; ++d) x[d] = points[(static_cast<index_t>(q) * dim + d) * Gs + local];
    const State ghost = condition.ghost_state(physics, um, n, x, t, flow);
    return condition.boundary_state(physics, um, ghost);
  }

  /// The unit normal (minus side outward) and the surface Jacobian |N| at point q of the group's
  /// face `local`.
  FLOWDG_HD FLOWDG_FORCEINLINE void geometry_at(index_t local, int q, Direction& n, Real& measure) const {
    if constexpr (FG == GeometryKind::affine) {
      (void)q;
      for (int d = 0; d < dim; ++d) n[d] = geometry[d * Gs + local];
      measure = geometry[dim * Gs + local];
    } else {
      for (int d = 0; d < dim; ++d) n[d] = geometry[(static_cast<index_t>(q) * (dim + 1) + d) * Gs + local];
      measure = geometry[(static_cast<index_t>(q) * (dim + 1) + dim) * Gs + local];
    }
  }
};

/// Volume integral, gathered face integrals, mass matrix and Runge-Kutta update of one element, a
/// thread per element.
template <class Physics, Shape S, int P, GeometryKind G>
struct ElementKernel {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  static constexpr int dim = Physics::dim, NV = Physics::n_variables;
  static constexpr int Np = n_basis(S, P), n_element_faces = n_faces(S);

  Physics physics;
  View<Real> u;
  index_t Ks = 0;
  View<const Real> metric;        ///< see the layout above
  /// Curved groups: [(i Np + j) Ks + e]; collocated ones the point factors w_k / det J_k, [k Ks + e]
  View<const Real> inverse_mass;
  /// Curved groups whose mass matrix inverts through the volume points (setup.hpp:
  /// ElementGroupSetup::collocated; then Nq = Np): M^-1 = V^T diag(w / det J) V, V = volume_phi.
  bool collocated = false;
  View<const index_t> codes;      ///< [l * Ks + e]
  View<const Real> volume_phi;    ///< [k * Np + j]
  View<const Real> volume_dphi;   ///< [(k * dim + r) * Np + j]
  View<const Real> volume_weight; ///< [k] (affine groups; curved ones carry it in the metric)
  int Nq = 0;
  View<const Real> face_phi;      ///< [(l * Nfq + q) * Np + j]
  View<const int> permutation;    ///< [orientation * Nfq + q]
  int Nfq = 0;
  View<const Real> flux;
  index_t Fs = 0;
  StageUpdate<Real> update;
  /// Viscous physics: the BR2 volume term's moments [(v Np + j) Ks + e] (lifting.hpp), added to the
  /// right-hand side before the inverse mass matrix; empty for inviscid physics.
  View<const Real> viscous_rhs;
  /// Viscous physics: each side's half of the centred viscous flux at interior face points,
  /// [side half_stride + (v Nfq + q) Fs + f] (zero on boundary faces; lifting.hpp).
  View<const Real> viscous_half;
  index_t half_stride = 0;
  /// CUDA, affine groups on the block lifting and block element kernels (DgOperator: fused_volume):
  /// the lifting kernel puts the inviscid volume term into viscous_rhs with the viscous one (it has
  /// U at the volume points already), and the block element kernel takes only the faces' terms.
  bool volume_in_rhs = false;

  /// The face flux of variable v at point q of face f along the minus side's normal: the stored
  /// (inviscid, and on a boundary viscous) flux, less the centred viscous flux's two halves.
  FLOWDG_HD FLOWDG_FORCEINLINE Real face_flux(int v, int q, index_t f) const {
    const index_t at = (static_cast<index_t>(v) * Nfq + q) * Fs + f;
    if constexpr (Physics::has_viscous_flux)
      return flux[at] - (viscous_half[at] + viscous_half[half_stride + at]);
    else
      return flux[at];
  }

  /// Point q of element face l of element e: the face flux along the element's outward normal
  /// (sign * face_flux) to out[((l Nfq + point) NV + v) stride] at the element's own point order (the
  /// block kernels' shared rows, out at the element's column).
  FLOWDG_HD FLOWDG_FORCEINLINE void gather_face_flux(int l, int q, index_t e, Real* out, int stride) const {
    const index_t code = codes[l * Ks + e];
    const index_t f = code_face(code);
    const int point = code_own_point(code, permutation, Nfq, q);
    const Real sign = code_plus_side(code) ? Real(1) : Real(-1);
    for (int v = 0; v < NV; ++v) out[((l * Nfq + point) * NV + v) * stride] = sign * face_flux(v, q, f);
  }

  /// Collocated groups: the factor w_k / det J_k of volume point k of element e.
  FLOWDG_HD FLOWDG_FORCEINLINE Real point_mass_factor(int k, index_t e) const { return inverse_mass[static_cast<index_t>(k) * Ks + e]; }

  /// x[c] <- M^-1 x[c] for C vectors of moments (affine: 1 / det J; curved: the stored inverse, or
  /// collocated V^T diag(w / det J) V).
  template <int C>
  FLOWDG_HD FLOWDG_FORCEINLINE void inverse_mass_columns(index_t e, Real (&x)[C][Np]) const {
    if constexpr (G == GeometryKind::affine) {
      const Real inverse_det = metric[dim * dim * Ks + e];
      for (int c = 0; c < C; ++c)
        for (int i = 0; i < Np; ++i) x[c][i] = inverse_det * x[c][i];
    } else if (collocated) {
      for (int c = 0; c < C; ++c) {
        Real y[Np];  // the values at the points (Nq = Np), times the factors
        for (int k = 0; k < Np; ++k) {
          Real sum = 0;
          for (int j = 0; j < Np; ++j) sum += volume_phi[k * Np + j] * x[c][j];
          y[k] = point_mass_factor(k, e) * sum;
        }
        for (int i = 0; i < Np; ++i) {
          Real sum = 0;
          for (int k = 0; k < Np; ++k) sum += volume_phi[k * Np + i] * y[k];
          x[c][i] = sum;
        }
      }
    } else {
      for (int c = 0; c < C; ++c) {
        Real y[Np];
        for (int i = 0; i < Np; ++i) {
          Real sum = 0;
          for (int j = 0; j < Np; ++j) sum += inverse_mass[(static_cast<index_t>(i) * Np + j) * Ks + e] * x[c][j];
          y[i] = sum;
        }
        for (int i = 0; i < Np; ++i) x[c][i] = y[i];
      }
    }
  }

  /// The weighted metric at volume point k of element e, m_rd = w_k det J dr_r/dx_d: on affine
  /// groups w_k times the element's constant terms, read at affine[(r dim + d) affine_stride] (from
  /// global memory, a block's shared copy or registers; A: Real, or double where a float group's
  /// copy is kept in double, the tensor-core kernel's); on curved groups the point's stored terms
  /// (weight included).
  template <class A = Real>
  FLOWDG_HD FLOWDG_FORCEINLINE void weighted_metric(int k, index_t e, const A* affine, index_t affine_stride,
                                                   Real (&m)[dim][dim]) const {
    if constexpr (G == GeometryKind::affine) {
      const Real w = volume_weight[k];
      for (int r = 0; r < dim; ++r)
        for (int d = 0; d < dim; ++d) m[r][d] = w * static_cast<Real>(affine[(r * dim + d) * affine_stride]);
    } else {
      (void)affine;
      (void)affine_stride;
      for (int r = 0; r < dim; ++r)
        for (int d = 0; d < dim; ++d) m[r][d] = metric[(static_cast<index_t>(k) * dim * dim + r * dim + d) * Ks + e];
    }
  }

  FLOWDG_HD void operator()(index_t e) const {
    Real coefficients[NV][Np];
    Real rhs[NV][Np];
    for (int v = 0; v < NV; ++v)
      FLOWDG_UNROLL
      for (int j = 0; j < Np; ++j) {
        coefficients[v][j] = u[(static_cast<index_t>(v) * Np + j) * Ks + e];
        rhs[v][j] = 0;
      }
    if constexpr (Physics::has_viscous_flux)
      for (int v = 0; v < NV; ++v)
        for (int j = 0; j < Np; ++j) rhs[v][j] = viscous_rhs[(static_cast<index_t>(v) * Np + j) * Ks + e];

    Real inverse_metric[dim][dim] = {};
    if constexpr (G == GeometryKind::affine)
      for (int r = 0; r < dim; ++r)
        for (int d = 0; d < dim; ++d) inverse_metric[r][d] = metric[(r * dim + d) * Ks + e];

    // Volume: sum_k sum_r Fhat_r(u_k) dphi_j/dr_r with Fhat_r = w_k det J sum_d dr_r/dx_d F_d (on
    // affine elements the metric is constant and the weight is applied here).
    for (int k = 0; k < Nq; ++k) {
      State uk;
      for (int v = 0; v < NV; ++v) {
        Real sum = 0;
        FLOWDG_UNROLL
        for (int j = 0; j < Np; ++j) sum += coefficients[v][j] * volume_phi[k * Np + j];
        uk[v] = sum;
      }
      State f[dim];
      physics.flux(uk, f);
      Real m[dim][dim];
      weighted_metric(k, e, &inverse_metric[0][0], 1, m);
      for (int v = 0; v < NV; ++v) {
        Real reference[dim];
        for (int r = 0; r < dim; ++r) reference[r] = reference_flux(m, f, r, v);
        FLOWDG_UNROLL
        for (int j = 0; j < Np; ++j) {
          Real sum = 0;
          for (int r = 0; r < dim; ++r) sum += reference[r] * volume_dphi[(k * dim + r) * Np + j];
          rhs[v][j] += sum;
        }
      }
    }

    // Faces: the stored flux is along the minus side's normal, in its point order.
    for (int l = 0; l < n_element_faces; ++l) {
      const index_t code = codes[l * Ks + e];
      const index_t f = code_face(code);
      const Real sign = code_plus_side(code) ? Real(1) : Real(-1);
      for (int q = 0; q < Nfq; ++q) {
        const int point = code_own_point(code, permutation, Nfq, q);
        const Real* phi = &face_phi[(static_cast<index_t>(l) * Nfq + point) * Np];
        for (int v = 0; v < NV; ++v) {
          const Real value = sign * face_flux(v, q, f);
          FLOWDG_UNROLL
          for (int j = 0; j < Np; ++j) rhs[v][j] += value * phi[j];
        }
      }
    }

    // Mass matrix and update.
    inverse_mass_columns(e, rhs);
    for (int v = 0; v < NV; ++v)
      FLOWDG_UNROLL
      for (int j = 0; j < Np; ++j) update.apply(u, (static_cast<index_t>(v) * Np + j) * Ks + e, rhs[v][j]);
  }
};

/// Shared memory of the CUDA block element kernel (core_block_kernels.hpp): its budget per block
/// (two blocks fit an SM of 228 KB), the values one element needs (coefficients, reference fluxes
/// at the volume points, face fluxes at the face points), and the elements per block that fit it
/// (at most 32).
constexpr std::size_t block_shared_limit = 96 * 1024;
template <class Physics>
constexpr index_t block_values_per_element(Shape shape, int Np, int Nq, int Nfq) {
  return static_cast<index_t>(Physics::n_variables) * (Np + Physics::dim * Nq + n_faces(shape) * Nfq);
}
/// The block face kernel (core_block_kernels.hpp): faces per round of 256 threads, a thread per
/// (face, point) in one round, the two sides' coefficients in shared memory beside the face tables
/// (`table_values`: both sides' phi at every face point, once per block); each block takes
/// core_face_rounds rounds, so that the tables' copy is shared by that many rounds.
constexpr int core_face_rounds = 4;
/// Values of the face tables a block face kernel holds: the minus side's, and the plus side's
/// where it has another shape.
constexpr int face_table_values(Shape shape_m, Shape shape_p, bool boundary, int order, int Nfq) {
  const int minus = n_faces(shape_m) * Nfq * n_basis(shape_m, order);
  return boundary || shape_m == shape_p ? minus : minus + n_faces(shape_p) * Nfq * n_basis(shape_p, order);
}
/// The chunked variant of the block face kernel (face kernel "chunked": the traces by a thread per
/// (face, side, chunk of points), core_block_kernels.hpp): its points per chunk by order (4 at p = 3,
/// where it was measured faster; 2 elsewhere, so that more of the block's threads have trace work:
/// at p = 4, 19 points a face and 12 faces a round, chunks of 4 give 120 of 256 threads work, chunks
/// of 2 give 240), its shared-memory budget per block (three blocks fit an SM: 3 x (74 + 1) KB <=
/// 228 KB; its launch bounds give each thread registers for three; at p = 4 a 96 KB budget gave two
/// blocks and lost 3%, session 24) and its shared bytes per face besides the values (both sides'
/// element and local face number).
constexpr int core_face_chunk(int order) { return order == 3 ? 4 : 2; }
constexpr std::size_t face_chunked_shared_limit = 74 * 1024;
constexpr std::size_t face_chunked_index_bytes = 2 * (sizeof(index_t) + sizeof(int));
/// The block face kernel's shared bytes per face of a round (Np_p = 0: a boundary face, one side):
/// both sides' coefficients; chunked, also their traces at the face points and their indices. A
/// block takes the face tables' bytes plus Fb times these (core_block_faces, the launch).
template <class Physics>
constexpr std::size_t face_block_bytes_per_face(int Np_m, int Np_p, int Nfq, bool chunked) {
  const int traces = chunked ? (Np_p > 0 ? 2 : 1) * Nfq : 0;
  return sizeof(typename Physics::real) * static_cast<std::size_t>(Physics::n_variables) * (Np_m + Np_p + traces) +
         (chunked ? face_chunked_index_bytes : 0);
}
/// Faces per round of the block face kernel (chunked: of its chunked variant), or 0 where none fits.
template <class Physics>
constexpr int core_block_faces(int Np_m, int Np_p, int Nfq, int table_values, bool chunked = false) {
  const int by_threads = 256 / (Nfq > 0 ? Nfq : 1);
  const std::size_t per_face = face_block_bytes_per_face<Physics>(Np_m, Np_p, Nfq, chunked);
  const std::size_t table = sizeof(typename Physics::real) * static_cast<std::size_t>(table_values);
  const std::size_t limit = chunked ? face_chunked_shared_limit : block_shared_limit;
  const int by_memory = table < limit ? static_cast<int>((limit - table) / per_face) : 0;
  const int faces = by_threads < by_memory ? by_threads : by_memory;
  return faces > 0 ? faces : 0;
}
/// The automatic face kernel of the portable path on CUDA: a block per group of faces (coefficients
/// read once per face, not once per face point) in 3D from p = 3 (on 1M tetrahedra +19% at p = 3,
/// +40% at p = 4 in session 9), and at p = 2 in double precision (-13% in session 9, but +2.4%
/// beside the thread element kernel in session 17 and +4-6% in session 25, after the block
/// kernel's tables moved to shared memory; in single precision -11% in session 25); in 2D the
/// thread per face point is faster at every order measured but quadrilaterals at p = 4
/// (docs/performance.md), and a viscous physics takes the block faces in 2D at p = 4 (session 28:
/// +2.6% for the whole run on 798,848 triangles beside the tensor lifting, +6.7% on 640,000
/// quadrilaterals; -1.4 to -1.7% at p = 1, 2). 3D Euler's interior faces between affine tetrahedra
/// take the warp-per-variable face kernel before these (automatic_variable_faces, setup.cpp: faster
/// at every order, session 40).
constexpr bool automatic_block_faces(int dim, int order, bool double_precision, bool viscous = false) {
  return (dim == 3 && (order >= 3 || (order == 2 && double_precision))) || (viscous && dim == 2 && order >= 4);
}
/// The chunked variant's automatic choice: interior faces between tetrahedra in double precision at
/// p = 3, where it measured faster than the block face kernel on the H100 (384,000 tetrahedra,
/// `flowdg run`: +10.8%; at p = 4 -3.4% in chunks of 4, -11% in chunks of 2; in float -2.5% at p = 3
/// and -1.6% at p = 4; docs/performance.md, sessions 24 and 25).
constexpr bool automatic_chunked_faces(int dim, int order, bool double_precision, bool tetrahedra) {
  return dim == 3 && order == 3 && double_precision && tetrahedra;
}

template <class Physics>
constexpr int core_block_elements(Shape shape, int Np, int Nq, int Nfq) {
  const std::size_t per_element = sizeof(typename Physics::real) * static_cast<std::size_t>(block_values_per_element<Physics>(shape, Np, Nq, Nfq));
  return static_cast<int>(block_shared_limit / per_element < 32 ? block_shared_limit / per_element : 32);
}

/// The FP64 tensor-core element kernel (core_tensor_kernels.hpp, double precision, compute
/// capability 8.0): a block of 8 elements, columns n = v * 8 + element, two small products padded
/// to the 8 x 8 x 4 instruction:
///   values at the volume points (M2 x K2 = Nq x Np, A2 = phi)  x  coefficients (Np x columns);
///   residual (M3 x K3 = Np x (dim Nq + faces Nfq), A3)  x  [reference fluxes r = 0..dim-1 (row
///   r Nq + k); face fluxes (row dim Nq + l Nfq + point)] (rows x columns),
/// A3 = [dphi/dr_0 | ... | dphi/dr_dim-1 | phi at every face point]^T: the volume and the surface
/// sums in one product. Padding rows and columns are zero.
constexpr int core_tensor_elements = 8;
/// Warps per column tile of 8 (each takes every second row tile of a product).
constexpr int core_tensor_row_groups = 2;
constexpr FLOWDG_HD int round_up_to(int n, int m) { return (n + m - 1) / m * m; }
struct CoreTensorLayout {
  int Np = 0, Nq = 0, Nfq = 0, dim = 0, n_faces = 0;
  int M2 = 0, K2 = 0, M3 = 0, K3 = 0;
  int stride = 0;  ///< shared row stride in values: columns + 4 (doubles; 4 mod 8: the four rows of a B
                   ///< fragment's half-warp 8 banks apart, no conflicts), core_tensor_float_stride (float rows)
  /// Float storage only: the rows in float (core_tensor_kernels.hpp FloatRows; stride core_tensor_float_stride).
  bool float_rows = false;
  /// The coefficients in rows [Nq, Nq + Np), inside the reference fluxes' rows (free from phase 1's end
  /// until phase 2 writes them: needs Np <= (dim - 1) Nq), instead of rows [K3, K3 + Np): K3 rows in
  /// all; the update then reads u from global memory (the same values).
  bool compact = false;
  /// Phases 0 and 2 and the update take the rows of each four in the order (0, 2, 1, 3) (a warp: eight
  /// elements' columns of four rows; with the stride's 12 bank pairs mod 16 a half-warp's rows r, r + 1
  /// share four bank pairs, r and r + 2 none): the same values, fewer shared-memory replays
  /// (setup.hpp tensor_row_swizzle).
  bool swizzle = false;
  /// The group's state element-major (StateLayout; setup.hpp face_trace_mode 4): the kernel's Variant
  /// bit 256 reads and updates it there.
  bool element_major = false;
};
constexpr CoreTensorLayout core_tensor_layout(int n_variables, int dim, Shape shape, int Np, int Nq, int Nfq) {
  CoreTensorLayout t;
  t.Np = Np;
  t.Nq = Nq;
  t.Nfq = Nfq;
  t.dim = dim;
  t.n_faces = n_faces(shape);
  t.M2 = round_up_to(Nq, 8);
  t.K2 = round_up_to(Np, 4);
  t.M3 = round_up_to(Np, 8);
  t.K3 = round_up_to(dim * Nq + t.n_faces * Nfq, 4);
  t.stride = n_variables * core_tensor_elements + 4;
  return t;
}
/// Shared memory of one block: K3 + Np rows (the product's right side, then the coefficients; compact:
/// K3 rows) and the affine metric ((dim^2 + 1) x 8), in doubles or (float rows) floats.
constexpr std::size_t core_tensor_shared_bytes(const CoreTensorLayout& t) {
  const std::size_t value_bytes = t.float_rows ? sizeof(float) : sizeof(double);
  return value_bytes * (static_cast<std::size_t>(t.K3 + (t.compact ? 0 : t.Np)) * t.stride +
                        static_cast<std::size_t>(t.dim * t.dim + 1) * core_tensor_elements);
}
/// Whether a layout may keep its coefficients inside the reference fluxes' rows (CoreTensorLayout::compact).
constexpr bool core_tensor_compact_fits(const CoreTensorLayout& t) { return t.Np <= (t.dim - 1) * t.Nq; }
/// The rows' stride in floats (the kernel's rows in float): the columns rounded up to 8 or 24 mod 32,
/// so that a B fragment's four rows (8 columns each) fall on four disjoint sets of 8 banks.
constexpr int core_tensor_float_stride(int columns) {
  int stride = columns;
  while (stride % 32 != 8 && stride % 32 != 24) ++stride;
  return stride;
}
/// A2 (M2 x K2) then A3 (M3 x K3), each in fragment order (backend/fragment_order.hpp), from the
/// element group's tables (volume_phi [k Np + j], volume_dphi [(k dim + r) Np + j], face_phi
/// [(l Nfq + q) Np + j]).
inline std::vector<double> core_tensor_tables(const CoreTensorLayout& t, const std::vector<double>& volume_phi,
                                              const std::vector<double>& volume_dphi, const std::vector<double>& face_phi) {
  std::vector<double> a(static_cast<std::size_t>(t.M2 * t.K2 + t.M3 * t.K3), 0.0);
  for (int k = 0; k < t.Nq; ++k)
    for (int j = 0; j < t.Np; ++j) a[k * t.K2 + j] = volume_phi[k * t.Np + j];
  double* a3 = a.data() + t.M2 * t.K2;
  for (int j = 0; j < t.Np; ++j) {
    for (int k = 0; k < t.Nq; ++k)
      for (int r = 0; r < t.dim; ++r) a3[j * t.K3 + r * t.Nq + k] = volume_dphi[(k * t.dim + r) * t.Np + j];
    for (int point = 0; point < t.n_faces * t.Nfq; ++point) a3[j * t.K3 + t.dim * t.Nq + point] = face_phi[point * t.Np + j];
  }
  to_fragment_order(a, 0, t.M2, t.K2);
  to_fragment_order(a, static_cast<std::size_t>(t.M2 * t.K2), t.M3, t.K3);
  return a;
}

/// Artificial viscosity's field as the kernels read it (physics/euler/artificial_viscosity.hpp):
/// eps per element [e], and, smoothed (n_modes > 0), the continuous field's modes [j Ks + e],
/// j < n_modes, in the element's basis (ViscositySmoothingKernel; eps per element is then the
/// largest of the element's vertex values: the zero test and the time step use it).
template <class Real>
struct ViscosityField {
  View<const Real> element;
  View<const Real> modes;
  index_t Ks = 0;
  int n_modes = 0;
};

/// The physics as element e evaluates it: with a viscosity per element (artificial viscosity) the
/// element's eps set, else the physics itself.
template <class Physics>
FLOWDG_HD FLOWDG_FORCEINLINE Physics element_physics(const Physics& physics, const ViscosityField<typename Physics::real>& field, index_t e) {
  Physics local = physics;
  if constexpr (physics::has_element_viscosity<Physics>) local.epsilon = field.element[e];
  (void)field;
  (void)e;
  return local;
}

/// The physics at a point of element e whose basis values are phi: the element's (element_physics),
/// with a smoothed viscosity its field's value there.
template <class Physics>
FLOWDG_HD FLOWDG_FORCEINLINE Physics point_physics(const Physics& element, const ViscosityField<typename Physics::real>& field, index_t e,
                                                   const typename Physics::real* phi) {
  using Real = typename Physics::real;
  Physics local = element;
  if constexpr (physics::has_element_viscosity<Physics>) {
    if (field.n_modes > 0) {
      Real eps = 0;
      for (int j = 0; j < field.n_modes; ++j) eps += field.modes[static_cast<index_t>(j) * field.Ks + e] * phi[j];
      local.epsilon = eps > Real(0) ? eps : Real(0);
    }
  }
  (void)field;
  (void)e;
  (void)phi;
  return local;
}

/// The viscous time-step limit's constant (TimeStepKernel): see there, and docs/user-guide.md.
constexpr double viscous_step_factor = 2.5;

/// Per element: the largest stable time step at the element's mean state, or -1 where that state is
/// not admissible,
///   inviscid:  h / ((2p + 1) (|v| + c)),
///   viscous:   h / ((2p + 1) (|v| + c) + viscous_step_factor (2p + 1)^2 (p + 1)^2 D / h),
/// D = max(4/3, gamma / Pr) mu / rho (NavierStokes::max_diffusivity): the convective and the
/// diffusive rates added, so the step respects both limits (each alone is the other's limit when
/// it dominates). The diffusive rate grows as p^4 / h^2 (DG's inverse inequality); the constant is
/// measured: with SSP-RK3 on a viscous-dominated case (Re = 0.5 on 12 x 6 quadrilaterals of size
/// 0.17, every wall kind) the largest stable cfl was 0.52, 0.34, 0.18, 0.084 at p = 1..4 with the
/// rate 4 (2p + 1)^2 D / h, i.e. (2p + 1)^2 (p + 1)^2 D / h times 1.9, 1.3, 1.4, 1.9: 2.5 keeps
/// cfl = 1 stable at every order (docs/user-guide.md).
template <class Physics>
struct TimeStepKernel {
  using Real = typename Physics::real;
  Physics physics;
  View<const Real> u;
  View<const Real> size;  ///< h per element
  index_t Ks = 0;
  int Np = 0, order = 0;
  Real mean_factor = 0;   ///< phi_0 = 1 / sqrt(reference measure)
  int low = 0;            ///< artificial viscosity: the first mode of degree p (the sensor's)
  /// Smoothed artificial viscosity: each element's largest vertex value from the last stage
  /// (ViscositySmoothingKernel), taken where it exceeds the element's own sensor.
  View<const Real> smoothed;
  /// The state's element stride (StateLayout: Ks is its row stride; element-major NV Np — inviscid
  /// groups without artificial viscosity only: the sensor reads [row Ks + e]).
  index_t Es = 1;
  FLOWDG_HD double operator()(index_t e) const {
    typename Physics::State mean;
    for (int v = 0; v < Physics::n_variables; ++v) mean[v] = mean_factor * u[(static_cast<index_t>(v) * Np) * Ks + e * Es];
    if (!physics.is_admissible(mean)) return -1.0;
    Physics local = physics;  // with artificial viscosity, the element's eps (the sensor's, as the stage computes it)
    if constexpr (physics::has_element_viscosity<Physics>) {
      local.epsilon = physics.element_viscosity(u.data + e, Ks, Np, low, size[e], order, mean);
      if (smoothed.size() > 0 && smoothed[e] > local.epsilon) local.epsilon = smoothed[e];
    }
    const double h = static_cast<double>(size[e]), n = 2 * order + 1;
    double rate = n * static_cast<double>(local.max_wave_speed(mean));
    if constexpr (Physics::has_viscous_flux)
      rate += viscous_step_factor * n * n * (order + 1) * (order + 1) * static_cast<double>(local.max_diffusivity(mean)) / h;
    return h / rate;
  }
};

/// Artificial viscosity's sensor per element (physics/euler/artificial_viscosity.hpp): eps of each
/// element from its density's modes, 0 where the mean is not admissible (the time step names it).
/// In a step (dt > 0, or the elements' local steps), eps is capped at what the step allows: the
/// time step was taken from an earlier state (at the step's start, or dt_every steps before), and a
/// shock that has just appeared would otherwise get a viscosity the explicit step cannot carry (a
/// jump at element faces has no high modes at first: eps = 0 sets a convective step, and the first
/// stage's eps_max is then 10-20 times beyond its diffusive limit). The cap inverts TimeStepKernel's
/// rate at cfl 1, h / dt = (2p + 1) lambda + viscous_step_factor (2p + 1)^2 (p + 1)^2 eps / h.
template <class Physics>
struct ViscositySensorKernel {
  using Real = typename Physics::real;
  Physics physics;
  View<const Real> u;
  View<const Real> size;
  View<Real> viscosity;
  index_t Ks = 0;
  int Np = 0, low = 0, order = 0;
  Real mean_factor = 0;
  Real dt = 0;                 ///< the step's dt (0: no cap, e.g. a residual or the output's eps)
  View<const Real> local_dt;   ///< local time stepping: each element's dt (then dt is ignored)
  /// Smoothing: eps goes uncapped to `viscosity` and the cap (or no_cap) to cap[e], which
  /// ViscositySmoothingKernel applies to the element's vertex values.
  View<Real> cap;
  static constexpr Real no_cap = Real(1e30);
  FLOWDG_HD void operator()(index_t e) const {
    typename Physics::State mean;
    for (int v = 0; v < Physics::n_variables; ++v) mean[v] = mean_factor * u[(static_cast<index_t>(v) * Np) * Ks + e];
    if (!physics.is_admissible(mean)) {
      viscosity[e] = Real(0);
      if (cap.size() > 0) cap[e] = Real(0);
      return;
    }
    Real eps = physics.element_viscosity(u.data + e, Ks, Np, low, size[e], order, mean);
    Real limit = no_cap;
    const Real step = local_dt.size() > 0 ? local_dt[e] : dt;
    if (step > Real(0)) {
      const Real h = size[e], n = Real(2 * order + 1), m = Real(order + 1);
      const Real allowed = (h / step - n * physics.max_wave_speed(mean)) * h / (Real(viscous_step_factor) * n * n * m * m);
      limit = allowed > Real(0) ? allowed : Real(0);
    }
    if (cap.size() > 0) {
      cap[e] = limit;
    } else if (eps > limit) {
      eps = limit;
    }
    viscosity[e] = eps;
  }
};

/// Smoothed artificial viscosity (ViscositySmoothing vertex_max / vertex_mean), per element of a
/// group after every group's sensor: each of the element's vertices takes the largest (or the mean)
/// eps of the elements around it (a CSR from mesh vertices to elements numbered across groups: group
/// g's element e is offset_g + e in `eps`), capped at the element's own step limit (the sensor's
/// cap: only there does the field lose its continuity); the linear (multilinear) interpolant of
/// those values in the element's basis goes to modes [j Ks + e] (`table` [i n_modes + j]: vertex i's
/// function, setup.hpp's vertex_function_modes), and the largest vertex value to element[e] (which
/// held the cap). Each element reads its neighbours' eps and writes only its own rows.
template <class Real>
struct ViscositySmoothingKernel {
  View<const Real> eps;
  View<const index_t> vertex_start, vertex_elements;
  View<const index_t> vertices;  ///< [i Ks + e]: the mesh vertex of the element's vertex i
  View<const Real> table;
  View<Real> element;
  View<Real> modes;
  index_t Ks = 0;
  int n_vertices = 0, n_modes = 0;
  bool mean = false;
  FLOWDG_HD void operator()(index_t e) const {
    Real value[8];
    Real largest = 0;
    const Real limit = element[e];
    for (int i = 0; i < n_vertices; ++i) {
      const index_t w = vertices[static_cast<index_t>(i) * Ks + e];
      const index_t begin = vertex_start[w], end = vertex_start[w + 1];
      Real r = 0;
      for (index_t k = begin; k < end; ++k) {
        const Real x = eps[vertex_elements[k]];
        r = mean ? r + x : (x > r ? x : r);
      }
      if (mean && end > begin) r /= static_cast<Real>(end - begin);
      r = r < limit ? r : limit;
      value[i] = r;
      largest = r > largest ? r : largest;
    }
    for (int j = 0; j < n_modes; ++j) {
      Real sum = 0;
      for (int i = 0; i < n_vertices; ++i) sum += value[i] * table[static_cast<index_t>(i) * n_modes + j];
      modes[static_cast<index_t>(j) * Ks + e] = sum;
    }
    element[e] = largest;
  }
};

}  // namespace flowdg::dg
