#pragma once
// The wall kernel: what forces, pressure and skin-friction distributions need at every boundary
// face point (Operator::wall_samples), from the same traces, ghost states and BR2 face gradients the
// stage uses, so that the reported forces are the discretisation's own momentum fluxes through
// the wall.
#include "flowdg/dg/lifting.hpp"

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
  View<const Real> face_gradient;  ///< viscous physics: LiftingElementKernel's boundary face gradients
  index_t Bs = 0;
  View<Real> out;
  index_t rows = 0;

  FLOWDG_HD void operator()(index_t i) const {
    const int Nfq = base.Nfq;
    const index_t local = i / Nfq;
    const int q = static_cast<int>(i - local * Nfq);
    const index_t f = base.begin + local;
    Direction n;
    Real measure;
    const State ub = base.boundary_state_at(local, q, base.minus_trace(f, q), n, measure);
    State viscous{};
    if constexpr (Physics::has_viscous_flux) {
      State theta[dim];
      load_face_gradient<Physics>(face_gradient, Nfq, Bs, f, q, theta);
      viscous = base.physics.boundary_viscous_flux(base.condition.kind, ub, theta, n);
    }
    int field = 0;
    for (int d = 0; d < dim; ++d) out[(field++) * rows + i] = base.points[(static_cast<index_t>(q) * dim + d) * base.Gs + local];
    for (int d = 0; d < dim; ++d) out[(field++) * rows + i] = n[d];
    out[(field++) * rows + i] = base.face_weight[q] * measure;
    for (int v = 0; v < NV; ++v) out[(field++) * rows + i] = ub[v];
    for (int v = 0; v < NV; ++v) out[(field++) * rows + i] = viscous[v];
  }
};

}  // namespace flowdg::dg
