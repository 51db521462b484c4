#pragma once
// BR2 lifting (Bassi & Rebay's second scheme, as Gao, Chen et al. 2022, Eq. (13)-(18)): the second-
// order term of any physics with a viscous flux Fv(U, grad U), for every shape, geometry kind and
// dimension of the core. The kernels are templates on the physics, the shape(s), the order and the
// geometry kind like the core's (core_kernels.hpp); the operator runs them between the inviscid face
// kernels and the element kernels (DgOperator::viscous_pass):
//
//  1. (in the inviscid face kernel, FaceKernel::finish) per face point, the lifting jump
//       jump[((v dim + d) Nfq + q) Fs + f] = w_q |N_q| (H_aux - U_m)_v n_d,
//     H_aux = (U_m + U_p) / 2 on interior faces (Eq. 13), the condition's boundary state U_b on a
//     boundary (BoundaryCondition::boundary_state). Both sides of a face lift the same values: for
//     the plus side H_aux - U_p and its normal -n both change sign.
//  2. LiftingElementKernel, per element (M its mass matrix, phi_i its basis):
//       gradient moments  g_i = int phi_i grad U,           local liftings (Eq. 16)  M r_l = l_l,
//       lifting moments   l_l,i = sum_q phi_i(x_q) jump_q,   Theta = M^-1 (g + sum_l l_l) = P grad U + R;
//     Theta is Eq. (15)'s auxiliary variable, in the solution's space (on affine elements P grad U =
//     grad U exactly, grad U being of degree p - 1; on curved ones its L2 projection). It stores
//       - at the points of each face l: P grad U + eta r_l (Eq. 17's face gradient), by side;
//       - the volume term -int grad phi_i . Fv(U, Theta) (Eq. 18's last integral), as moments the
//         element kernel adds to its right-hand side before the inverse mass matrix.
//  3. ViscousFaceKernel, per face point: the centred viscous flux (Eq. 14)
//       Hv = (Fv(U_m, Theta_m) + Fv(U_p, Theta_p)) / 2 . n   (interior),
//       Hv = physics.boundary_viscous_flux(kind, U_b, Theta_m, n)   (boundary),
//     subtracted from the stored face flux (w_q |N_q| (H_i - Hv)), which the element kernel gathers.
//
// eta: BR2's stabilisation factor, the element's number of faces by default (3 triangles, 4
// quadrilaterals, 4 tetrahedra, 6 hexahedra).
#include "flowdg/dg/core_kernels.hpp"

namespace flowdg::dg {

/// Per element, a thread per element: the BR2 gradient (Theta at volume points, P grad U + eta r_l
/// at face points) and the viscous volume term. `base` carries the element group's data as the
/// element kernel reads it (coefficients, metric, inverse mass, codes, tables).
template <class Physics, Shape S, int P, GeometryKind G>
struct LiftingElementKernel {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  static constexpr int dim = Physics::dim, NV = Physics::n_variables;
  static constexpr int Np = n_basis(S, P), n_element_faces = n_faces(S);

  ElementKernel<Physics, S, P, G> base;
  View<const Real> jump;            ///< [((v dim + d) Nfq + q) Fs + f]
  View<Real> face_gradient;         ///< [side][((v dim + d) Nfq + q) Fs + f], side 0: minus, 1: plus (minus side's point order)
  index_t side_stride = 0;          ///< NV dim Nfq Fs
  Real eta = Real(3);
  View<Real> viscous_rhs;           ///< [(v Np + j) Ks + e]

  /// x <- M^-1 x for dim x NV vectors of moments (affine: 1 / det J; curved: the stored inverse).
  FLOWDG_HD FLOWDG_FORCEINLINE void inverse_mass(index_t e, Real (&x)[dim * NV][Np]) const {
    if constexpr (G == GeometryKind::affine) {
      const Real inverse_det = base.metric[dim * dim * base.Ks + e];
      for (int c = 0; c < dim * NV; ++c)
        for (int i = 0; i < Np; ++i) x[c][i] *= inverse_det;
    } else {
      for (int c = 0; c < dim * NV; ++c) {
        Real y[Np];
        for (int i = 0; i < Np; ++i) {
          Real sum = 0;
          for (int j = 0; j < Np; ++j) sum += base.inverse_mass[(static_cast<index_t>(i) * Np + j) * base.Ks + e] * x[c][j];
          y[i] = sum;
        }
        for (int i = 0; i < Np; ++i) x[c][i] = y[i];
      }
    }
  }

  FLOWDG_HD void operator()(index_t e) const {
    const index_t Ks = base.Ks, Fs = base.Fs;
    const int Nq = base.Nq, Nfq = base.Nfq;
    Real c[NV][Np];
    for (int v = 0; v < NV; ++v)
      for (int j = 0; j < Np; ++j) c[v][j] = base.u[(static_cast<index_t>(v) * Np + j) * Ks + e];
    Real affine[dim * dim] = {};
    if constexpr (G == GeometryKind::affine)
      for (int t = 0; t < dim * dim; ++t) affine[t] = base.metric[t * Ks + e];

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

    // Per face: its lifting moments l, the sum over faces s, and P grad U + eta r_l at its points.
    Real s[dim * NV][Np];
    for (int t = 0; t < dim * NV; ++t)
      for (int i = 0; i < Np; ++i) s[t][i] = 0;
    for (int l = 0; l < n_element_faces; ++l) {
      const index_t code = base.codes[l * Ks + e];
      const index_t f = code_face(code);
      const bool plus = code_plus_side(code);
      const int orientation = code_orientation(code);
      Real x[dim * NV][Np];
      for (int t = 0; t < dim * NV; ++t)
        for (int i = 0; i < Np; ++i) x[t][i] = 0;
      for (int q = 0; q < Nfq; ++q) {
        const int point = plus ? base.permutation[orientation * Nfq + q] : q;
        const Real* phi = &base.face_phi[(static_cast<index_t>(l) * Nfq + point) * Np];
        for (int v = 0; v < NV; ++v)
          for (int d = 0; d < dim; ++d) {
            const Real value = jump[((static_cast<index_t>(v) * dim + d) * Nfq + q) * Fs + f];
            for (int i = 0; i < Np; ++i) x[d * NV + v][i] += value * phi[i];
          }
      }
      for (int t = 0; t < dim * NV; ++t)
        for (int i = 0; i < Np; ++i) {
          s[t][i] += x[t][i];
          x[t][i] = g[t][i] + eta * x[t][i];
        }
      inverse_mass(e, x);
      const index_t side = plus ? side_stride : 0;
      for (int q = 0; q < Nfq; ++q) {
        const int point = plus ? base.permutation[orientation * Nfq + q] : q;
        const Real* phi = &base.face_phi[(static_cast<index_t>(l) * Nfq + point) * Np];
        for (int v = 0; v < NV; ++v)
          for (int d = 0; d < dim; ++d) {
            Real value = 0;
            for (int i = 0; i < Np; ++i) value += x[d * NV + v][i] * phi[i];
            face_gradient[side + ((static_cast<index_t>(v) * dim + d) * Nfq + q) * Fs + f] = value;
          }
      }
    }

    // Theta = M^-1 (g + s), in g.
    for (int t = 0; t < dim * NV; ++t)
      for (int i = 0; i < Np; ++i) g[t][i] += s[t][i];
    inverse_mass(e, g);

    // Volume term: -sum_k sum_r (w_k det J_k sum_d dr_r/dx_d Fv_d(U_k, Theta_k)) dphi_j/dr_r(k), in s[0..NV).
    Real (&rhs)[dim * NV][Np] = s;
    for (int v = 0; v < NV; ++v)
      for (int j = 0; j < Np; ++j) rhs[v][j] = 0;
    for (int k = 0; k < Nq; ++k) {
      const Real* phi = &base.volume_phi[k * Np];
      State uk;
      State theta[dim];
      for (int v = 0; v < NV; ++v) {
        Real sum = 0;
        for (int j = 0; j < Np; ++j) sum += c[v][j] * phi[j];
        uk[v] = sum;
        for (int d = 0; d < dim; ++d) {
          Real gradient = 0;
          for (int j = 0; j < Np; ++j) gradient += g[d * NV + v][j] * phi[j];
          theta[d][v] = gradient;
        }
      }
      State fv[dim];
      base.physics.viscous_flux(uk, theta, fv);
      Real m[dim][dim];
      base.weighted_metric(k, e, affine, 1, m);
      for (int v = 0; v < NV; ++v) {
        Real reference[dim];
        for (int r = 0; r < dim; ++r) {
          Real sum = 0;
          for (int d = 0; d < dim; ++d) sum += m[r][d] * fv[d][v];
          reference[r] = sum;
        }
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

/// The BR2 face gradient of one side at point q of face f (LiftingElementKernel's layout; offset 0
/// for the minus side, the side stride for the plus side).
template <class Physics>
FLOWDG_HD FLOWDG_FORCEINLINE void load_face_gradient(View<const typename Physics::real> face_gradient, index_t offset, int Nfq,
                                                     index_t Fs, index_t f, int q, typename Physics::State (&theta)[Physics::dim]) {
  for (int v = 0; v < Physics::n_variables; ++v)
    for (int d = 0; d < Physics::dim; ++d)
      theta[d][v] = face_gradient[offset + ((static_cast<index_t>(v) * Physics::dim + d) * Nfq + q) * Fs + f];
}

/// Per face point, a thread each: the BR2 viscous flux (Eq. 14; on a boundary the condition's),
/// subtracted from the stored face flux. `base` carries the face group's data as the inviscid face
/// kernel reads it.
template <class Physics, Shape SM, Shape SP, int P, GeometryKind FG, bool Boundary>
struct ViscousFaceKernel {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  using Direction = typename Physics::Direction;
  static constexpr int dim = Physics::dim, NV = Physics::n_variables;
  using Base = FaceKernel<Physics, SM, SP, P, FG, Boundary>;

  Base base;
  View<const Real> face_gradient;  ///< LiftingElementKernel's
  index_t side_stride = 0;

  FLOWDG_HD void operator()(index_t i) const {
    const int Nfq = base.Nfq;
    const index_t local = i / Nfq;
    const int q = static_cast<int>(i - local * Nfq);
    const index_t f = base.begin + local;
    const State um = base.minus_trace(f, q);
    Direction n;
    Real measure;
    State theta_m[dim];
    load_face_gradient<Physics>(face_gradient, 0, Nfq, base.Fs, f, q, theta_m);
    State value;
    if constexpr (Boundary) {
      const State ub = base.boundary_state_at(local, q, um, n, measure);
      value = base.physics.boundary_viscous_flux(base.condition.kind, ub, theta_m, n);
    } else {
      base.geometry_at(local, q, n, measure);
      const int qp = base.permutation[base.index.orientation[f] * Nfq + q];
      const State up = trace<Physics, Base::Np_p>(base.u_p, base.Ks_p, base.index.element_p[f],
                                                  &base.face_phi_p[(static_cast<index_t>(base.index.local_p[f]) * Nfq + qp) * Base::Np_p]);
      State theta_p[dim];
      load_face_gradient<Physics>(face_gradient, side_stride, Nfq, base.Fs, f, q, theta_p);
      const State fm = base.physics.normal_viscous_flux(um, theta_m, n);
      const State fp = base.physics.normal_viscous_flux(up, theta_p, n);
      for (int v = 0; v < NV; ++v) value[v] = Real(0.5) * (fm[v] + fp[v]);
    }
    const Real scale = base.face_weight[q] * measure;
    for (int v = 0; v < NV; ++v) base.flux[(static_cast<index_t>(v) * Nfq + q) * base.Fs + f] -= scale * value[v];
  }
};

}  // namespace flowdg::dg
