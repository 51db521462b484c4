#pragma once
// The registry's tuned specialisation: (Euler<2>, straight triangles, affine, double) on the
// hand-written 2D Euler kernels (dg/euler2d.hpp) behind the Operator interface.
#include <memory>

#include "flowdg/dg/euler2d.hpp"
#include "flowdg/dg/operator.hpp"

namespace flowdg::dg {

/// The tuned solver's options and flows from the core's (every field they share).
euler2d::SolverOptions tuned_solver_options(const OperatorOptions& options);
euler2d::Flow tuned_flow(const FlowSpec& spec, double gamma);

/// Whether the tuned triangle path can run this mesh with these options: a 2D double-precision
/// mesh of 3-node triangles only.
bool tuned_triangles_apply(const Mesh& mesh, const OperatorOptions& options);
/// InputError when tuned_triangles_apply is false.
std::unique_ptr<Operator> make_tuned_triangle_operator(const Mesh& mesh, const Connectivity& connectivity,
                                                       const OperatorOptions& options);

}  // namespace flowdg::dg
