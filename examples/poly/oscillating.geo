// The domain with an oscillating boundary of the agglomeration study (issue 18 item 7; Dong,
// Georgoulis & Kappas 2021, section 4.1, after Cangiani, Dong & Georgoulis, arXiv:1906.01715):
// a fine unstructured triangle mesh (the paper's has 503,596 triangles) to be agglomerated into
// ~8,300 and ~126,000 polygons, or used as it is.
//
// The paper's text we have lost the formulas: it says only "a domain with oscillating boundary,
// which is approximating [a simple domain]". Our choice: the unit square (0,1)^2 whose four sides
// oscillate about the square's sides with amplitude A and k half-waves per side: each side moves
// by A sin(k pi s) along its outward normal, s in [0, 1] running counter-clockwise,
//   bottom  (s, -A sin(k pi s))          right  (1 + A sin(k pi s), s)
//   top     (1 - s, 1 + A sin(k pi s))   left   (-A sin(k pi s), 1 - s)
// so the corners stay at the square's, the domain approaches the square as A -> 0, and for even k
// its area is exactly 1 and its corners stay right angles (the two sides' slopes A k pi at a corner
// turn by the same angle; odd k, or one side's sign flipped, would make cusps there). Defaults A = 0.02, k = 16 (8 full waves per side, wavelength
// 0.125): an agglomerate of the ~8,300-element mesh (size ~0.011) is smaller than a wave, one of a
// few hundred elements spans several. Each side is a spline through m points per half-wave.
//
// Parameters (gmsh -setnumber NAME VALUE): h the characteristic length (uniform), A, k, m.
// Sizes obtained (gmsh 4.8.4, default Frontal-Delaunay, A = 0.02, k = 16):
//   gmsh -2 -setnumber h 0.0108 oscillating.geo -o oscillating_small.msh   ->  20,110 triangles
//   gmsh -2 -setnumber h 0.00215 oscillating.geo -o oscillating_large.msh  -> 500,660 triangles
// (about 2.35 / h^2; make_meshes.sh makes both; smallest angle 35 degrees in both).
// Tags: boundary curves bottom, right, top, left; the surface domain.
DefineConstant[
  h = {0.0108, Name "Parameters/h (characteristic length)"},
  A = {0.02, Name "Parameters/A (amplitude)"},
  k = {16, Name "Parameters/k (half-waves per side, even)"},
  m = {12, Name "Parameters/m (spline points per half-wave)"}
];

n = k * m;  // spline intervals per side

Point(1) = {0, 0, 0, h};
Point(2) = {1, 0, 0, h};
Point(3) = {1, 1, 0, h};
Point(4) = {0, 1, 0, h};

// bottom: (0,0) -> (1,0)
pts[] = {1};
For i In {1 : n - 1}
  t = i / n;
  p = newp; Point(p) = {t, -A * Sin(k * Pi * t), 0, h};
  pts[] += {p};
EndFor
pts[] += {2};
Spline(1) = pts[];

// right: (1,0) -> (1,1)
pts[] = {2};
For i In {1 : n - 1}
  t = i / n;
  p = newp; Point(p) = {1 + A * Sin(k * Pi * t), t, 0, h};
  pts[] += {p};
EndFor
pts[] += {3};
Spline(2) = pts[];

// top: (1,1) -> (0,1)
pts[] = {3};
For i In {1 : n - 1}
  t = i / n;
  p = newp; Point(p) = {1 - t, 1 + A * Sin(k * Pi * t), 0, h};
  pts[] += {p};
EndFor
pts[] += {4};
Spline(3) = pts[];

// left: (0,1) -> (0,0)
pts[] = {4};
For i In {1 : n - 1}
  t = i / n;
  p = newp; Point(p) = {-A * Sin(k * Pi * t), 1 - t, 0, h};
  pts[] += {p};
EndFor
pts[] += {1};
Spline(4) = pts[];

Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};

Physical Curve("bottom") = {1};
Physical Curve("right") = {2};
Physical Curve("top") = {3};
Physical Curve("left") = {4};
Physical Surface("domain") = {1};

Mesh.MeshSizeMin = h;
Mesh.MeshSizeMax = h;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.ElementOrder = 1;
Mesh.MshFileVersion = 4.1;
