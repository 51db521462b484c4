#pragma once
// Mesh curving by linear elasticity (Siebenborn & Schulz 2012, section 3; issue 16 item 1): a
// straight-sided mesh is raised to geometric order k (elevate_order), the high-order nodes of the
// tagged walls are projected onto the walls' true shapes, and the displacement of every other
// high-order node near the walls comes from div sigma(u) = 0 solved with continuous Lagrange
// elements of order k on the sub-mesh of the elements to curve: u = g on the walls (the
// projection), u = 0 on the sub-mesh's outer boundary and on the mesh's other boundaries, u . n = 0
// with no tangential traction on sliding (symmetry) planes. Isotropic material of Young's modulus 1 and Poisson ratio nu. The
// sparse system (symmetric positive definite once the Dirichlet values are eliminated) is solved
// by Eigen's conjugate gradients (diagonal preconditioner, 1e-12 relative residual), with its sparse
// Cholesky (SimplicialLDLT) should CG not converge.
#include <optional>
#include <string>
#include <vector>

#include "flowdg/core/point.hpp"
#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

/// The true shape of a tagged wall: closest-point projection onto it.
struct TrueSurface {
  enum class Kind {
    sphere,    ///< centre, radius
    cylinder,  ///< an infinite circular cylinder: a point of its axis (centre), axis direction, radius (in 2D: a circle)
    naca4,     ///< a NACA 4-digit symmetric section (closed trailing edge) in the x-y plane, extruded along z:
               ///< leading edge at centre, chord along +x, thickness ratio (0.12 for NACA 0012)
    cad,       ///< the surfaces of a CAD model (STEP, IGES, BREP, .geo) through Gmsh's API (mesh/cad.hpp)
  };
  Kind kind = Kind::sphere;
  std::string tag;       ///< the boundary name of the wall
  Point3 center{};
  double radius = 1.0;
  Point3 axis{0, 0, 1};
  double chord = 1.0;
  double thickness = 0.12;
  std::string file;           ///< cad: the model
  std::vector<int> surfaces;  ///< cad: Gmsh's surface tags to project onto (empty: all)
  /// The point of the surface closest to x.
  Point3 project(Point3 x) const;
};

/// A wall's true shape from text, "NAME=KIND:numbers" (the CLI's --wall):
///   NAME=sphere:cx,cy,cz,r          NAME=cylinder:cx,cy,cz,ax,ay,az,r (a point of the axis, its direction)
///   NAME=circle:cx,cy,r             (2D: the cylinder along z)
///   NAME=naca:digits,cx,cy,chord    (a symmetric NACA 4-digit section, digits "0012"; leading edge at (cx, cy))
///   NAME=cad:FILE[,tag,...]         (a CAD model's surfaces, all or those tags; 3D meshes)
/// InputError naming what is wrong otherwise.
TrueSurface parse_true_surface(const std::string& spec);

struct CurvingOptions {
  int order = 2;          ///< the geometric order k of the result (2..4)
  double poisson = 0.45;  ///< nu in [0, 0.5)
  /// The sub-mesh to curve: 0, every element; n > 0, the elements within n layers of the walls
  /// (layer 1: those touching a wall node; layer i + 1: those sharing a node with layer i).
  int layers = 0;
  /// Or the elements whose centroid lies in this box (lower, upper corner); with layers, both.
  std::optional<std::pair<Point3, Point3>> box;
  /// Boundary names of sliding planes (symmetry): the displacement normal to the plane is zero.
  /// Each must be flat and normal to x, y or z.
  std::vector<std::string> sliding;
};

struct CurvingReport {
  index_t curved_elements = 0;    ///< the sub-mesh's elements
  index_t unknowns = 0;           ///< free displacement components solved for
  index_t wall_nodes = 0;         ///< high-order and vertex nodes projected onto the true walls
  double largest_wall_move = 0;   ///< the largest projection distance
  /// min over every element and every point of its volume rule of degree 2k of det J(xi) / det J
  /// of the straight element (1 for an unchanged one; <= 0: inverted).
  double min_scaled_jacobian = 1.0;
  index_t worst_element = -1;
};

/// The curved mesh (every element of geometric order k; triangles and tetrahedra, also
/// quadrilaterals and hexahedra that elevate_order takes). InputError: an element already curved,
/// an order out of 2..4, nu out of [0, 0.5), a wall or sliding name the mesh lacks, a sliding
/// plane not normal to an axis, a wall with no nodes in the sub-mesh, or an element the curving
/// inverts (named by its file tag and position, with what to change).
Mesh curve_mesh(const Mesh& straight, const std::vector<TrueSurface>& walls, const CurvingOptions& options,
                CurvingReport* report = nullptr);

/// The report's quality measure for any mesh: min over elements and points of the volume rule of
/// degree 2g (g the element's geometric order) of det J(xi) / det J of its straight (vertex) element.
double min_scaled_jacobian(const Mesh& mesh, index_t* worst = nullptr);

}  // namespace flowdg
