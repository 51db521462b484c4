#pragma once
// Published symmetric quadrature rules on the reference triangle and tetrahedron (see
// quadrature_tables.cpp for their origin). quadrature.cpp picks from these; use triangle_rule and
// tetrahedron_rule rather than reading the tables directly.
#include <span>

namespace flowdg::detail {

struct TabulatedRule {
  int degree;  ///< degree of exactness
  int n_points;
  const double* data;  ///< per point: the reference coordinates, then the weight
  const char* source;
};

/// Ascending in degree; degrees without a rule of their own are served by the next one up.
std::span<const TabulatedRule> triangle_tables();
std::span<const TabulatedRule> tetrahedron_tables();

}  // namespace flowdg::detail
