#pragma once
// The registry's tuned specialisation for (Euler<2>, triangle, affine, double): the hand-written 2D
// Euler kernels of dg/euler2d/ (CUDA element kernels thread / block / tensor, face kernels point /
// block / warp, the Barth-Jespersen limiter and the Zhang-Shu positivity scaling; on the CPU their
// one-thread-per-item bodies) running one affine-triangle group of the core's DgOperator on the
// core's own data: the group's coefficients and Runge-Kutta registers, the operator's global face
// numbering, face index arrays and face-flux array. What the tuned kernels need beyond that (their
// metric layout, 2 f + side face codes, basis tables as they expect them, the tensor cores'
// matrices, face normals and half lengths, boundary points, the limiter's stencils) is built here
// from the mesh with the same formulas as the stand-alone euler2d::Solver, so both give the same
// bits. DgOperator<Euler<2, double>> picks it for its affine triangle group and the face groups
// among those triangles (dg_operator.hpp's registry); every other group runs the portable kernels.
#include <memory>
#include <string>
#include <vector>

#include "flowdg/backend/memory.hpp"
#include "flowdg/dg/groups.hpp"
#include "flowdg/dg/operator.hpp"
#include "flowdg/mesh/mesh.hpp"
#include "flowdg/time/runge_kutta.hpp"

namespace flowdg::dg {

class TunedTriangles {
 public:
  /// The operator's face index arrays (global face numbering, group-local element indices).
  struct FaceIndex {
    View<const index_t> element_m, element_p;
    View<const int> local_m, local_p;
  };

  /// Whether the tuned kernels can run element group g of `groups` with `face_points` points per
  /// face: an affine triangle group, in 2D, with the (p + 1)-point Gauss rule on its faces.
  static bool applies(const Groups& groups, int g, int order, int face_points);

  /// Throws InputError for an unknown kernel variant, an interior face not traversed in opposite
  /// directions, or a limiter on a mesh with other groups (the caller refuses those first).
  TunedTriangles(const Mesh& mesh, const Groups& groups, int group, const OperatorOptions& options, index_t face_stride);
  ~TunedTriangles();
  TunedTriangles(const TunedTriangles&) = delete;
  TunedTriangles& operator=(const TunedTriangles&) = delete;

  /// Whether a face group's fluxes are computed here: a boundary group of this element group, or the
  /// interior faces between two of its elements.
  bool runs(const FaceGroup& group) const;
  /// The fluxes of faces [first, last), a run of consecutive face groups that runs() accepts
  /// (boundary groups first, as the core numbers them), into the operator's flux array.
  void faces(View<const double> u, View<double> flux, const FaceIndex& index, index_t first, index_t last, double t) const;
  /// The element kernel with the fused Runge-Kutta stage update on elements [first, first + count)
  /// of the group; with `residual` non-empty, du/dt is written there instead and u is left as it is.
  void element(View<double> u, View<const double> flux, const RungeKuttaStage& stage, double dt, View<double> u0,
               View<double> q, const StageRegisters& registers, View<double> residual, index_t first, index_t count) const;
  /// Whether a limiter or the positivity scaling is configured, and applies them to u.
  bool limits() const;
  void limit(View<double> u) const;
  /// "element tensor, faces block, chained launches" (CUDA) or "thread per element, point per face".
  std::string describe() const;

 private:
  struct Data;
  std::unique_ptr<Data> data_;
};

}  // namespace flowdg::dg
