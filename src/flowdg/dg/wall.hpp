#pragma once
// The wall kernel: what forces, pressure and skin-friction distributions need at every boundary
// face point (Operator::wall_samples), from the same traces, ghost states and BR2 face gradients the
// stage uses, so that the reported forces are the discretisation's own momentum fluxes through
// the wall.
#include "flowdg/dg/core_kernels.hpp"

namespace flowdg::dg {

/// Per boundary face point, a thread each. Writes rows [field * rows + i], fields: x (dim), the unit
/// normal out of the fluid (dim), w_q |N_q|, the boundary state U_b (NV), the boundary viscous flux
/// Fv(U_b, P grad U + eta r) . n (NV; viscous physics, after the lifting pass).
template <class Physics, Shape S, int P, GeometryKind FG>
struct WallKernel {
  using Real = typename Physics::real;
  using State = typename Physics::State;
  using Direction = typename Physics::Direction;
  static constexpr int dim = Physics::dim, NV = Physics::n_variables;
  static constexpr int n_fields = 2 * dim + 1 + 2 * NV;
  using Base = FaceKernel<Physics, S, S, P, FG, true>;

  Base base;
  View<const Real> face_gradient;  ///< viscous physics: LiftingElementKernel's (minus side)
  View<Real> out;
  index_t rows = 0;

  FLOWDG_HD void operator()(index_t i) const {
    const int Nfq = base.Nfq;
    const index_t local = i / Nfq;
    const int q = static_cast<int>(i - local * Nfq);
    const index_t f = base.begin + local;
    const State um = trace<Physics, Base::Np_m>(base.u_m, base.Ks_m, base.index.element_m[f],
                                                &base.face_phi_m[(static_cast<index_t>(base.index.local_m[f]) * Nfq + q) * Base::Np_m]);
    Direction n, x;
    Real measure;
    base.geometry_at(local, q, n, measure);
    for (int d = 0; d < dim; ++d) x[d] = base.points[(static_cast<index_t>(q) * dim + d) * base.Gs + local];
    const State ghost = base.condition.ghost_state(base.physics, um, n, x, base.t, base.flow);
    const State ub = base.condition.boundary_state(base.physics, um, ghost);
    State viscous{};
    if constexpr (Physics::has_viscous_flux) {
      State theta[dim];
      for (int v = 0; v < NV; ++v)
        for (int d = 0; d < dim; ++d) theta[d][v] = face_gradient[((static_cast<index_t>(v) * dim + d) * Nfq + q) * base.Fs + f];
      viscous = base.physics.boundary_viscous_flux(base.condition.kind, ub, theta, n);
    }
    int field = 0;
    for (int d = 0; d < dim; ++d) out[(field++) * rows + i] = x[d];
    for (int d = 0; d < dim; ++d) out[(field++) * rows + i] = n[d];
    out[(field++) * rows + i] = base.face_weight[q] * measure;
    for (int v = 0; v < NV; ++v) out[(field++) * rows + i] = ub[v];
    for (int v = 0; v < NV; ++v) out[(field++) * rows + i] = viscous[v];
  }
};

}  // namespace flowdg::dg
