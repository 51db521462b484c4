// NACA 0012 wing section extruded along z (quasi-2D 3D test: an unswept, untapered wing between two
// symmetry planes), in straight-sided linear tetrahedra for flowdg: `flowdg mesh curve` (or a case's
// [mesh.curve]) moves the wall's high-order nodes onto the true surface later.
// Geometry: chord 1, LE at the origin, TE at (1, 0, 0), closed-TE 4-digit thickness formula
//   y = 0.6 (0.2969 sqrt(x) - 0.1260 x - 0.3516 x^2 + 0.2843 x^3 - 0.1036 x^4),
// the same for every z in [0, span]. Far field: the cylinder of radius Rf about the mid-chord axis
// (0.5, 0, z), so the far field is >= Rf - 0.5 chords from the section.
// Boundaries: "airfoil" (the wing), "farfield" (the cylinder), "symmetry" (both planes z = 0 and
// z = span); volume "fluid".
// Construction: the section's surface between the airfoil and the circle is meshed in triangles
// (sizes from a distance field: hw/n on the airfoil, hle/n and hte/n at the leading and trailing
// edges, growing linearly with the distance, at most hfar/n), then extruded along z in nz layers;
// each prism of the extrusion is split into 3 tetrahedra (no Recombine), so the meshes on z = 0 and
// z = span match node for node (and could be made periodic).
// The surface is a Catmull-Rom spline (gmsh "Spline") through NP+1 cosine-spaced points per side;
// mesh nodes lie on the spline: |y| - y(x) <= 7e-10 at the wall nodes (NP = 400, n = 1 and 2).
// Parameters: n = refinement level (sizes / n; nz = 2 n layers unless nz is given), nz = layers
// across the span, span = extent in z, Rf = far-field radius, NP = spline points per side,
// split = 1: tag z = 0 "symmetry" and z = span "symmetry_top" (`flowdg mesh curve --sliding` takes
// one plane per name; without --sliding the curving works on the single "symmetry" tag).
// Counts obtained (gmsh 4.8.4, span 0.25, Rf 20): n = 1: 4628 triangles in the section, 74 edges on
// each side of the airfoil, nz = 2, 27768 tetrahedra (1.4 MB); n = 2: 17556 triangles, 148 edges per
// side, nz = 4, 210672 tetrahedra. The tetrahedra are stretched (in-plane size 0.004-2, spanwise
// span/nz): `flowdg mesh info` reports a worst min angle of 1.4 degrees at n = 1.
// `flowdg mesh curve naca0012_3d_n1.msh --wall airfoil=naca:0012,0,0,1 --order 3 -o c.msh` curved all
// 27768 elements (wall nodes moved up to 1.7e-4; min det J / det J_straight 0.865; 3.5 min on one core).
//   gmsh -3 naca0012_3d.geo -setnumber n 1 -format msh41 -o naca0012_3d_n1.msh
//   gmsh -3 naca0012_3d.geo -setnumber n 2 -format msh41 -o naca0012_3d_n2.msh
//   gmsh -3 naca0012_3d.geo -setnumber n 1 -setnumber nz 1 -setnumber span 0.1 -o one_layer.msh
DefineConstant[ n = {1, Name "Parameters/n"}, span = {0.25, Name "Parameters/span"},
                Rf = {20, Name "Parameters/Rf"}, NP = {400, Name "Parameters/NP"},
                split = {0, Name "Parameters/split"} ];
DefineConstant[ nz = {2*n, Name "Parameters/nz"} ];
// Element sizes at n = 1 (all divided by n):
hw   = 0.015;        // on the airfoil, away from its edges
hle  = 0.004;        // at the leading edge
hte  = 0.004;        // at the trailing edge
hfar = 2.0;          // largest (at the far field)
grow = 0.2;          // size growth per unit distance from the airfoil

Point(1) = {0, 0, 0};    // LE
Point(2) = {1, 0, 0};    // TE
For k In {1:NP-1}
  t = Pi*k/NP;
  x = 0.5*(1 - Cos(t));
  y = 0.6*(0.2969*Sqrt(x) - 0.1260*x - 0.3516*x^2 + 0.2843*x^3 - 0.1036*x^4);
  Point(1000+k) = {x,  y, 0};
  Point(5000+k) = {x, -y, 0};
EndFor
Spline(1) = {1, 1001:1000+NP-1, 2};   // upper surface LE -> TE
Spline(2) = {2, 5000+NP-1:5001:-1, 1};   // lower surface TE -> LE

// Far-field circle about the mid-chord, in four arcs.
Point(3) = {0.5, 0, 0};
Point(4) = {0.5 + Rf, 0, 0};
Point(5) = {0.5, Rf, 0};
Point(6) = {0.5 - Rf, 0, 0};
Point(7) = {0.5, -Rf, 0};
Circle(3) = {4, 3, 5};
Circle(4) = {5, 3, 6};
Circle(5) = {6, 3, 7};
Circle(6) = {7, 3, 4};

Curve Loop(1) = {3, 4, 5, 6};   // far field
Curve Loop(2) = {1, 2};         // airfoil
Plane Surface(1) = {1, 2};

// Sizes.
Field[1] = Distance;
Field[1].CurvesList = {1, 2};
Field[1].NumPointsPerCurve = 2000;
Field[2] = MathEval;
Field[2].F = Sprintf("Min(%g, %g + %g*F1) / %g", hfar, hw, grow, n);
Field[3] = Distance;
Field[3].PointsList = {1};
Field[4] = MathEval;
Field[4].F = Sprintf("(%g + %g*F3) / %g", hle, grow, n);
Field[5] = Distance;
Field[5].PointsList = {2};
Field[6] = MathEval;
Field[6].F = Sprintf("(%g + %g*F5) / %g", hte, grow, n);
Field[7] = Min;
Field[7].FieldsList = {2, 4, 6};
Background Field = 7;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Algorithm = 6;   // Frontal-Delaunay for the section

// Extrude along z in nz layers; without Recombine every prism becomes 3 tetrahedra.
ex[] = Extrude {0, 0, span} { Surface{1}; Layers{nz}; };
// ex[0]: the surface at z = span, ex[1]: the volume, ex[2..]: the lateral surfaces, one per curve
// of Surface 1 in the order of its curve loops (3, 4, 5, 6, then 1, 2).
Physical Surface("airfoil") = {ex[6], ex[7]};
Physical Surface("farfield") = {ex[2], ex[3], ex[4], ex[5]};
If (split == 0)
  Physical Surface("symmetry") = {1, ex[0]};
Else
  Physical Surface("symmetry") = {1};            // z = 0
  Physical Surface("symmetry_top") = {ex[0]};    // z = span
EndIf
Physical Volume("fluid") = {ex[1]};

Mesh.ElementOrder = 1;
Mesh.MshFileVersion = 4.1;
