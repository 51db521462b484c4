// Laminar flow past a circular cylinder (Gao, Chen et al. 2022, Sec. 3.1.2; Ma 0.2, Re 40).
// Cylinder d = 1 centred at (0,0), domain [-15, 30] x [-15, 15].
// O-ring of (64n) x (10n) structured quadrilaterals between r = 0.5 and r = Ro = 1,
// geometric radial growth; unstructured triangles outside (paper: 64x10 + 4254,
// 128x20 + 17230, 256x40 + 70972, ...).
// Parameters: n = refinement level (1, 2, 4, ...), order = element order (2 default, 3, 4).
//   coarse: gmsh -2 cylinder.geo -setnumber n 1 -o cylinder_n1.msh
//   finer:  gmsh -2 cylinder.geo -setnumber n 2 -o cylinder_n2.msh
//   (n = 4, 8 give the paper's 256x40 / 512x80 levels approximately)
// Cell counts obtained (gmsh 4.8.4): n=1 640 quads + 4322 triangles (paper 4254);
//   n=2 2560 quads + 15784 triangles (paper 17230). hfar (far-field size, 1.7/n) tunes the triangle count.
// Boundaries: "wall" (cylinder, circle arcs: nodes incl. high-order ones lie exactly on r = 0.5),
// "farfield" (whole outer rectangle; the paper does not split it). Surface "fluid".
DefineConstant[ n = {1, Name "Parameters/n"}, order = {2, Name "Parameters/order"} ];
// far = the outer rectangle's scale: [-15 far, 30 far] x [-15 far, 15 far] (1: the paper's domain;
// 2, 4: the far-field study of docs/validation.md; the sizes stay those of far = 1).
DefineConstant[ far = {1, Name "Parameters/far"} ];
R  = 0.5;          // cylinder radius
Ro = 1.0;          // outer radius of the quadrilateral O-ring
nt = 16*n;         // cells per quarter circle (64n around)
nr = 10*n;         // radial cells in the O-ring
q  = 1.15^(1.0/n); // radial growth ratio (first cell ~0.019 at n = 1)
hring = 2*Pi*Ro/(4*nt);   // triangle size at the ring
DefineConstant[ hfar = {1.7, Name "Parameters/hfar"} ];
hf = hfar/n;
hw = 0.30/n;       // size at the wake refinement point

Point(1) = {0, 0, 0};
For i In {0:3}
  Point(10+i) = {R*Cos(i*Pi/2), R*Sin(i*Pi/2), 0};
  Point(20+i) = {Ro*Cos(i*Pi/2), Ro*Sin(i*Pi/2), 0, hring};
EndFor
For i In {0:3}
  Circle(10+i) = {10+i, 1, 10+(i+1)%4};   // wall arcs
  Circle(20+i) = {20+i, 1, 20+(i+1)%4};   // ring outer arcs
  Line(30+i) = {10+i, 20+i};              // radial lines
EndFor
For i In {0:3}
  Curve Loop(10+i) = {30+i, 20+i, -(30+(i+1)%4), -(10+i)};
  Plane Surface(10+i) = {10+i};
  Transfinite Surface {10+i};
  Recombine Surface {10+i};
EndFor
Transfinite Curve {10:13, 20:23} = nt + 1;
Transfinite Curve {30:33} = nr + 1 Using Progression q;

// outer rectangle
Point(41) = {-15*far, -15*far, 0, hf};
Point(42) = { 30*far, -15*far, 0, hf};
Point(43) = { 30*far,  15*far, 0, hf};
Point(44) = {-15*far,  15*far, 0, hf};
Line(41) = {41, 42}; Line(42) = {42, 43}; Line(43) = {43, 44}; Line(44) = {44, 41};
Curve Loop(40) = {41, 42, 43, 44};
Curve Loop(41) = {20, 21, 22, 23};
Plane Surface(40) = {40, 41};
// mild wake refinement: a point in the wake embedded in the triangle region
Point(50) = {8, 0, 0, hw};
Point{50} In Surface{40};

Physical Curve("wall") = {10:13};
Physical Curve("farfield") = {41:44};
Physical Surface("fluid") = {10:13, 40};

Mesh.ElementOrder = order;
Mesh.SecondOrderIncomplete = 0;   // complete 9-node quads (type 10)
Mesh.HighOrderOptimize = 2;       // elastic + optimisation, keeps boundary nodes on the geometry
Mesh.MshFileVersion = 4.1;
