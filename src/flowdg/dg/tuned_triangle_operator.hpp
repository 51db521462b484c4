#pragma once
// The registry's tuned specialisation: (Euler<2>, straight triangles, affine, double) on the
// hand-written 2D Euler kernels (dg/euler2d.hpp) behind the Operator interface.
#include <memory>

#include "flowdg/dg/operator.hpp"

namespace flowdg::dg {

/// Whether the tuned triangle path can run this mesh with these options: a 2D double-precision
/// mesh of 3-node triangles only.
bool tuned_triangles_apply(const Mesh& mesh, const OperatorOptions& options);
/// InputError when tuned_triangles_apply is false.
std::unique_ptr<Operator> make_tuned_triangle_operator(const Mesh& mesh, const Connectivity& connectivity,
                                                       const OperatorOptions& options);

}  // namespace flowdg::dg
