#pragma once
// Quadrature rules on reference elements (see reference_element.hpp for the domains).
// Every rule records its degree of exactness: it integrates every polynomial of total degree
// <= degree exactly (tensor rules on quadrilateral/hexahedron integrate Q_degree too).
#include <string>
#include <vector>

#include "flowdg/core/point.hpp"
#include "flowdg/element/reference_element.hpp"

namespace flowdg {

struct QuadratureRule {
  Shape shape = Shape::line;
  int degree = 0;                ///< degree of exactness (total degree)
  std::vector<Point3> points;    ///< reference coordinates
  std::vector<double> weights;   ///< sum to reference_measure(shape)
  std::string source;            ///< where the rule comes from, e.g. "Gauss-Legendre", a table's name
  int size() const { return static_cast<int>(weights.size()); }
};

/// Gauss-Jacobi nodes and weights on [-1,1] for the weight (1-x)^alpha (1+x)^beta, n >= 1 points
/// (exact to degree 2n-1). Nodes ascending.
void gauss_jacobi(int n, double alpha, double beta, std::vector<double>& nodes,
                  std::vector<double>& weights);
/// n-point Gauss-Legendre rule on the reference line (degree 2n-1).
QuadratureRule gauss_legendre(int n);

/// Rules exact to at least `degree` on each shape. Triangle and tetrahedron use symmetric rules
/// from published tables (interior points, positive weights) where one exists for that degree,
/// else the collapsed-coordinate Gauss-Jacobi product; quadrilateral and hexahedron are tensor
/// Gauss-Legendre. degree < 0 is an error.
QuadratureRule line_rule(int degree);
QuadratureRule triangle_rule(int degree);
QuadratureRule tetrahedron_rule(int degree);
QuadratureRule quadrilateral_rule(int degree);
QuadratureRule hexahedron_rule(int degree);
/// Collapsed-coordinate (Duffy) Gauss-Jacobi products: any degree.
QuadratureRule triangle_collapsed_rule(int degree);
QuadratureRule tetrahedron_collapsed_rule(int degree);
/// Dispatch on the shape.
QuadratureRule quadrature_rule(Shape shape, int degree);

}  // namespace flowdg
