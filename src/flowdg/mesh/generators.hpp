#pragma once
// Built-in meshes (no external mesher). Boundary tags are named as documented per generator.
#include <cstdint>

#include "flowdg/mesh/mesh.hpp"

namespace flowdg {

enum class TriangleLayout {
  alternating,  ///< each cell split by a diagonal whose direction alternates cell by cell
  perturbed,    ///< alternating, then interior nodes moved randomly by up to `perturbation` x h
};

/// [x0,x1] x [y0,y1] in nx x ny cells, each split into two triangles. Tags: bottom, right, top, left.
Mesh rectangle_triangles(double x0, double x1, double y0, double y1, int nx, int ny,
                         TriangleLayout layout = TriangleLayout::alternating,
                         double perturbation = 0.0, std::uint64_t seed = 1);
/// The same domain in nx x ny quadrilaterals (optionally perturbed interior nodes).
Mesh rectangle_quadrilaterals(double x0, double x1, double y0, double y1, int nx, int ny,
                              double perturbation = 0.0, std::uint64_t seed = 1);
/// The quarter annulus r in [r_inner, r_outer], theta in [0, pi/2] of the supersonic vortex:
/// n_radial x n_angular cells split into triangles. Tags: inner (r = r_inner arc), outer
/// (r = r_outer arc), inflow (theta = 0, on the x axis), outflow (theta = pi/2, on the y axis).
/// The arcs are recorded in Mesh::boundary_circles. The defaults give mesh A of the 2015 paper
/// (180 triangles, 293 edges).
Mesh quarter_annulus(double r_inner = 1.0, double r_outer = 1.384, int n_radial = 5,
                     int n_angular = 18);
/// [0,lx] x [0,ly] x [0,lz] in nx x ny x nz hexahedral cells, each split into 6 tetrahedra
/// (conforming). Tags: xmin, xmax, ymin, ymax, zmin, zmax. A `perturbation` in [0, 0.28] moves
/// every node off the boundary by a random vector (uniform in a ball, drawn node by node from
/// `seed`) of length at most perturbation x min(lx/nx, ly/ny, lz/nz); boundary nodes stay exactly in
/// place, and every element keeps a positive volume.
Mesh box_tetrahedra(double lx, double ly, double lz, int nx, int ny, int nz, double perturbation = 0.0,
                    std::uint64_t seed = 1);
/// The same box in nx x ny x nz hexahedra (8-node, Gmsh's vertex order), the same tags; the same
/// perturbation and seed move the nodes exactly as box_tetrahedra does (positive corner Jacobians).
Mesh box_hexahedra(double lx, double ly, double lz, int nx, int ny, int nz, double perturbation = 0.0,
                   std::uint64_t seed = 1);
/// The annulus (or any mesh of 3-node triangles around the origin) with triangles of geometric
/// order 2..4 (6, 10, 15 nodes): every node placed by the polar map of the linear interpolation
/// of its triangle's vertices in (r, theta), so edges on a circle r = const lie on that circle.
/// Order 1 returns the mesh unchanged. The straight mesh's nodes keep their numbers and exact
/// coordinates; its angles must lie in (-pi, pi] (atan2), as the quarter annulus's do.
Mesh curved_annulus(const Mesh& straight, int order);
/// curved_annulus(quarter_annulus(r_inner, r_outer, n_radial, n_angular), order): the supersonic
/// vortex's quarter annulus in triangles of geometric order 1..4, the walls' nodes on the circles.
Mesh curved_quarter_annulus(int order, double r_inner = 1.0, double r_outer = 1.384, int n_radial = 5,
                            int n_angular = 18);
/// Uniform refinement: each triangle into 4, each quadrilateral into 4 (2D). New nodes on a
/// boundary facet whose tag has a BoundaryCircle are placed on the circle.
Mesh refine_uniform(const Mesh& mesh);

}  // namespace flowdg
