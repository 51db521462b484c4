#pragma once
// The tuned 2D Euler kernels' configuration from the core's options (the core's tuned triangle
// groups, tuned_triangles.hpp, and the stand-alone euler2d::Solver of the benchmark and the tests).
#include <memory>

#include "flowdg/dg/euler2d.hpp"
#include "flowdg/dg/operator.hpp"

namespace flowdg::dg {

/// The tuned solver's options and flows from the core's (every field they share).
euler2d::SolverOptions tuned_solver_options(const OperatorOptions& options);
euler2d::Flow tuned_flow(const FlowSpec& spec, double gamma);

/// Whether the tuned kernels have a boundary condition (the 2015 paper's set; the subsonic inflow and
/// outflow run on the portable face kernel beside them).
bool tuned_boundary_supported(physics::BoundaryKind kind);

/// Whether a mesh could run the tuned triangle kernels throughout (what the limiter needs): a 2D
/// mesh of triangles only, in double precision (the operator refuses curved ones when it is built).
bool tuned_triangles_apply(const Mesh& mesh, const OperatorOptions& options);

}  // namespace flowdg::dg
