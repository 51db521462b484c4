// Laminar flow past a NACA0012 airfoil (Gao, Chen et al. 2022, Sec. 3.1.3; Ma 0.5, Re_c 5000, AoA 0).
// Structured C-type quadrilateral mesh, (170n) x (30n) cells:
//   around the C: 21n (lower wake) + 64n (lower surface) + 64n (upper surface) + 21n (upper wake) = 170n,
//   normal to the wall: 30n, geometric growth (first cell ~0.0065 chord at n = 1).
// Chord 1, LE at (0,0), TE at (1,0); closed-TE 4-digit thickness formula
//   y = 0.6 (0.2969 sqrt(x) - 0.1260 x - 0.3516 x^2 + 0.2843 x^3 - 0.1036 x^4).
// Far field: half circle of radius 21 centred at the TE (>= 20 chords from the LE) plus
// straight lines to the outflow at x = 21 (20 chords behind the TE).
// The surface is a Catmull-Rom spline (gmsh "Spline") through NP+1 cosine-spaced points per side;
// mesh nodes (high-order ones too) lie on the spline; its distance to the analytic surface is
// reported by tools/check_msh.py --naca wall: max 4e-9 at n = 1, 2, 4 with NP = 800 (at NP = 200 it
// reached 8e-6 near the LE for n = 4). This is only checked AT mesh nodes; between nodes the
// polynomial edge differs from the curve by the usual O(h^(p+1)) interpolation error.
// Cell counts obtained (gmsh 4.8.4): n=1 5100, n=2 20400, n=4 81600 quads (all type 10 at order 2).
// Parameters: n = refinement level (1, 2, 4), order = element order (2 default, 3, 4), half = 1: the
// upper half only (surfaces above y = 0), with the stagnation line ahead of the LE and the wake cut
// tagged "symmetry" (alpha = 0 is symmetric; examples/naca0012_half.toml), 2550 n^2 quadrilaterals.
//   170x30: gmsh -2 naca0012.geo -setnumber n 1 -o naca0012_n1.msh
//   340x60: gmsh -2 naca0012.geo -setnumber n 2 -o naca0012_n2.msh
//   680x120: gmsh -2 naca0012.geo -setnumber n 4 -o naca0012_n4.msh
//   half:    gmsh -2 naca0012.geo -setnumber n 1 -setnumber half 1 -o naca0012_half_n1.msh
DefineConstant[ n = {1, Name "Parameters/n"}, order = {2, Name "Parameters/order"},
                NP = {800, Name "Parameters/NP"}, half = {0, Name "Parameters/half"} ];
Rf = 21;                 // far-field radius around the TE
Na = 64*n;  Nw = 21*n;  Nr = 30*n;
q  = 1.25^(1.0/n);       // wall-normal growth
qw = 1.32^(1.0/n);       // wake growth from the TE (first wake cell ~0.02)
bump = 0.25;             // clustering at LE and TE on the airfoil

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
Spline(2) = {1, 5001:5000+NP-1, 2};   // lower surface LE -> TE

Point(3) = {1 - Rf, 0, 0};   // A: front
Point(4) = {1, Rf, 0};       // B: top
Point(5) = {1, -Rf, 0};      // D: bottom
Point(6) = {1 + 20, 0, 0};   // E: wake end
Point(7) = {1 + 20, Rf, 0};  // F
Point(8) = {1 + 20, -Rf, 0}; // G
Circle(3) = {3, 2, 4};       // A -> B
Circle(4) = {3, 2, 5};       // A -> D
Line(5) = {1, 3};            // LE -> A
Line(6) = {2, 4};            // TE -> B
Line(7) = {2, 5};            // TE -> D
Line(8) = {2, 6};            // TE -> E (wake cut, interior)
Line(9) = {6, 7};            // E -> F (outflow)
Line(10) = {4, 7};           // B -> F
Line(11) = {6, 8};           // E -> G (outflow)
Line(12) = {5, 8};           // D -> G

Curve Loop(1) = {1, 6, -3, -5};    Plane Surface(1) = {1};  // above airfoil
Curve Loop(3) = {8, 9, -10, -6};   Plane Surface(3) = {3};  // upper wake
If (half == 0)
  Curve Loop(2) = {4, -7, -2, 5};    Plane Surface(2) = {2};  // below airfoil
  Curve Loop(4) = {7, 12, -11, -8};  Plane Surface(4) = {4};  // lower wake
EndIf

Transfinite Curve {1, 2} = Na + 1 Using Bump bump;
Transfinite Curve {3, 4} = Na + 1 Using Bump 0.6;
Transfinite Curve {5, 6, 7, 9, 11} = Nr + 1 Using Progression q;
Transfinite Curve {8, 10, 12} = Nw + 1 Using Progression qw;
Transfinite Surface {1} = {1, 2, 4, 3};
Transfinite Surface {3} = {2, 6, 7, 4};
If (half == 0)
  Transfinite Surface {2} = {3, 5, 2, 1};
  Transfinite Surface {4} = {2, 5, 8, 6};
  Recombine Surface {1:4};
  Physical Curve("wall") = {1, 2};
  Physical Curve("farfield") = {3, 4, 9, 10, 11, 12};
  Physical Surface("fluid") = {1:4};
Else
  Recombine Surface {1, 3};
  Physical Curve("wall") = {1};
  Physical Curve("farfield") = {3, 9, 10};
  Physical Curve("symmetry") = {5, 8};
  Physical Surface("fluid") = {1, 3};
EndIf

Mesh.ElementOrder = order;
Mesh.SecondOrderIncomplete = 0;   // complete 9-node quads (type 10)
Mesh.HighOrderOptimize = 2;
Mesh.MshFileVersion = 4.1;
