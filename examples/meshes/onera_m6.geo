// ONERA M6 wing (Schmitt & Charpin, AGARD AR-138, 1979, chapter B1) in a half-sphere far field, in
// straight-sided linear tetrahedra for flowdg (unstructured; sizes from distance fields).
// Axes and units as in the experiment: x streamwise, y spanwise (the wing along +y from the
// symmetry plane y = 0), z up; metres, at model scale:
//   root chord c_r = 0.8059 (LE at the origin), semi-span b = 1.1963, leading-edge sweep 30 deg,
//   trailing-edge sweep 15.8 deg, so the tip chord is c_t = c_r - b (tan 30 - tan 15.8) = 0.45375
//   (taper 0.563) with its LE at x = b tan 30 = 0.69068; MAC 0.64607, reference area 0.7532 m^2.
//   No twist, no dihedral.
// Section: every streamwise section y = const is the same profile scaled by the local chord,
//   x = x_LE(y) + c(y) X,  z = +-c(y) Z,  x_LE and c linear in y,
// with (X, Z) the 72 points of "M6 wing streamwise section coordinates (design values)", AGARD
// AR-138 Table B1-1: the symmetric ONERA D profile (defined normal to the 40.18 %-chord line; TMR
// gives it too, profile_ONERA-D.dat) as seen in a streamwise cut, thickness 0.0978 c at X = 0.376,
// blunt trailing edge 0.00141 c thick; as published by NASA's NPARC archive
//   https://www.grc.nasa.gov/WWW/wind/valid/m6wing/airfoil.txt
// and copied from NASA's Turbulence Modeling Resource
//   Onerawingnumerics_val/profile_M6_streamwise_alongy=0.dat (GitHub TMBWG/turbmodels, commit c3966dd).
// sharp = 1 (default) closes the trailing edge as NPARC's foilmod.f90 does
//   (https://www.grc.nasa.gov/WWW/wind/valid/m6wing/foilmod.f90): for X > 0.9,
//   Z <- Z - (X - 0.9)/0.1 * Z_TE, which changes nothing ahead of X = 0.9 and puts Z = 0 at X = 1
//   (the chord stays 0.8059; the sharp-TE CAD of TMR's exercise instead extends it to 0.8105);
// sharp = 0 keeps the blunt trailing edge (a planar base face 1.1 mm high at the root, 0.6 mm at the
//   tip, tagged "wing", meshed in stretched triangles: worst min angle of the tetrahedra 4 degrees).
// Each surface of the wing (upper, lower) is the ruled surface between the root and tip sections
// (exact for this planform), built by OpenCASCADE (Ruled ThruSections) from interpolating splines
// through the 72 points scaled to the root and to the tip chord. Tip: a flat cap in the plane y = b
// (the model's rounded tip, to y = 1.2185 m, is not reproduced).
// Boundaries: "wing" (upper, lower, tip cap; TE base if sharp = 0), "symmetry" (the plane y = 0
// outside the root section), "farfield" (the half-sphere of radius Rf about (xc, 0, 0)); volume "fluid".
// Parameters: n = refinement level (all sizes / n), Rf = far-field radius (default 15 m = 12.5 b),
// sharp (1 or 0).
//   gmsh -3 onera_m6.geo -setnumber n 1 -format msh41 -o onera_m6_n1.msh
//   gmsh -3 onera_m6.geo -setnumber n 2 -format msh41 -o onera_m6_n2.msh
// Counts obtained (gmsh 4.8.4, one core): n = 1: 140545 tetrahedra, wing 13296 triangles (66 edges
// around the root section), symmetry 2242, farfield 566; 4 s, 6.3 MB; worst min angle 11.6 degrees.
// n = 2: 1007417 tetrahedra, wing 50651 triangles; 37 s, 47 MB. sharp = 0, n = 1: 142506 tetrahedra.
SetFactory("OpenCASCADE");
DefineConstant[ n = {1, Name "Parameters/n"}, Rf = {15, Name "Parameters/Rf"},
                sharp = {1, Name "Parameters/sharp"} ];
// Planform.
cr = 0.8059;  b = 1.1963;
xlet = b*Tan(30*Pi/180);  xtet = cr + b*Tan(15.8*Pi/180);  ct = xtet - xlet;
xc = 0.5;     // far-field centre (about the wing's mid-chord at mid-span)
// Element sizes at n = 1 (all divided by n); hw, hle and hte are those at the root and scale
// with the local chord c(y) (times c(y)/c_r, y clipped to [0, b]).
hw   = 0.03;     // on the wing surface, away from its edges
hle  = 0.007;    // along the leading edge
hte  = 0.007;    // along the trailing edge
hfar = 2.5;      // largest (at the far field)
grow = 0.25;     // size growth per unit distance from the wing

// AGARD AR-138 Table B1-1 (NPARC airfoil.txt): X = x/c, Z = z/c of the upper surface.
XC[] = {0.0000000, 0.0000165, 0.0000696, 0.0001675, 0.0003232, 0.0005508, 0.0008657, 0.0012868,
        0.0018364, 0.0025441, 0.0034428, 0.0045704, 0.0059751, 0.0077112, 0.0098413, 0.0124479,
        0.0156171, 0.0194609, 0.0241067, 0.0297008, 0.0364261, 0.0444852, 0.0541248, 0.0656303,
        0.0793366, 0.0956354, 0.1149796, 0.1378963, 0.1649976, 0.1919327, 0.2187096, 0.2453310,
        0.2717978, 0.2981113, 0.3242726, 0.3502830, 0.3761446, 0.4018567, 0.4274223, 0.4528441,
        0.4781197, 0.5032514, 0.5282426, 0.5530937, 0.5778043, 0.6023757, 0.6268104, 0.6511093,
        0.6752726, 0.6993027, 0.7231995, 0.7469658, 0.7705998, 0.7941055, 0.8174828, 0.8407324,
        0.8638564, 0.8868235, 0.9061905, 0.9225336, 0.9363346, 0.9479946, 0.9578511, 0.9661860,
        0.9732361, 0.9792020, 0.9842508, 0.9885252, 0.9921438, 0.9952080, 0.9978030, 1.0000000};
ZC[] = {0.0000000, 0.0006914, 0.0014416, 0.0022554, 0.0031382, 0.0040959, 0.0051343, 0.0062598,
        0.0074784, 0.0087958, 0.0102163, 0.0117419, 0.0133708, 0.0150951, 0.0168984, 0.0187537,
        0.0206220, 0.0224545, 0.0242004, 0.0258245, 0.0273317, 0.0287912, 0.0303278, 0.0320138,
        0.0338372, 0.0357742, 0.0377923, 0.0398522, 0.0419089, 0.0436214, 0.0450507, 0.0462358,
        0.0471987, 0.0479494, 0.0484902, 0.0488183, 0.0489296, 0.0488202, 0.0484833, 0.0479351,
        0.0471661, 0.0461903, 0.0450209, 0.0436741, 0.0421684, 0.0405241, 0.0387613, 0.0368990,
        0.0349542, 0.0329402, 0.0308662, 0.0287365, 0.0265505, 0.0243027, 0.0219842, 0.0195838,
        0.0170915, 0.0145051, 0.0122389, 0.0102727, 0.0085827, 0.0071423, 0.0059224, 0.0048907,
        0.0040180, 0.0032796, 0.0026547, 0.0021257, 0.0016778, 0.0012985, 0.0009773, 0.0007052};
NC = #XC[];
zte = ZC[NC-1];
For i In {0:NC-1}
  If (sharp && XC[i] > 0.9)
    ZC[i] = ZC[i] - (XC[i] - 0.9)/0.1*zte;   // NPARC foilmod.f90
  EndIf
EndFor
If (sharp)
  ZC[NC-1] = 0;
EndIf

// The two sections (s = 0: root at y = 0, s = 1: tip at y = b): points, splines, wires.
For s In {0:1}
  x0 = s*xlet;  c = cr + s*(ct - cr);  y0 = s*b;
  pu[] = {};  pl[] = {};
  For i In {0:NC-1}
    pu[] += newp;  Point(newp) = {x0 + c*XC[i], y0,  c*ZC[i]};
    If (i == 0 || (sharp && i == NC-1))
      pl[] += pu[#pu[]-1];    // LE (and a sharp TE) shared by both sides
    Else
      pl[] += newp;  Point(newp) = {x0 + c*XC[i], y0, -c*ZC[i]};
    EndIf
  EndFor
  cu = newc;  Spline(cu) = {pu[]};            // upper side, LE -> TE
  cl = newc;  Spline(cl) = {pl[]};            // lower side, LE -> TE
  If (sharp)
    wl[] = {cu, -cl};
  Else
    ct_ = newc;  Line(ct_) = {pu[NC-1], pl[NC-1]};   // blunt TE, upper -> lower
    wl[] = {cu, ct_, -cl};
  EndIf
  w[s] = newll;  Wire(w[s]) = {wl[]};
EndFor
Ruled ThruSections(1) = {w[0], w[1]};   // the wing as a solid (root and tip caps planar)

// Half-sphere far field (y >= 0) minus the wing.
Sphere(2) = {xc, 0, 0, Rf};
Box(3) = {xc - 2*Rf, 0, -2*Rf, 4*Rf, 2*Rf, 4*Rf};
BooleanIntersection(4) = { Volume{2}; Delete; }{ Volume{3}; Delete; };
BooleanDifference(5) = { Volume{4}; Delete; }{ Volume{1}; Delete; };

// Boundaries, by position.
bnd() = Boundary{ Volume{5}; };
sym() = {};  far() = {};  wing() = {};
For k In {0:#bnd()-1}
  bb() = BoundingBox Surface{ bnd(k) };
  If (bb(4) < 1e-4)
    sym() += bnd(k);                          // in the plane y = 0
  ElseIf (bb(3) - bb(0) > Rf)
    far() += bnd(k);                          // the sphere
  Else
    wing() += bnd(k);
  EndIf
EndFor
Physical Surface("wing") = {wing()};
Physical Surface("farfield") = {far()};
Physical Surface("symmetry") = {sym()};
Physical Volume("fluid") = {5};

// Sizes: distance to the wing, to its leading edge and to its trailing edge (the straight lines
// y -> (x_LE(y), y, 0) and y -> (x_TE(y), y, 0), 0 <= y <= b).
eps = 1e-6;
le() = Curve In BoundingBox{-eps, -eps, -eps, xlet + eps, b + eps, eps};
te() = Curve In BoundingBox{cr - eps, -eps, -0.001, xtet + eps, b + eps, 0.001};
Field[1] = Distance;
Field[1].SurfacesList = {wing()};
Field[1].NumPointsPerCurve = 200;
Field[2] = MathEval;
tpr = 1 - ct/cr;   // c(y)/c_r = 1 - tpr*Min(Max(y, 0), b)/b
Field[2].F = Sprintf("Min(%g, %g*(1 - %g*Min(Max(y, 0), %g)/%g) + %g*F1) / %g",
                     hfar, hw, tpr, b, b, grow, n);
Field[3] = Distance;
Field[3].CurvesList = {le()};
Field[3].NumPointsPerCurve = 400;
Field[4] = MathEval;
Field[4].F = Sprintf("(%g*(1 - %g*Min(Max(y, 0), %g)/%g) + %g*F3) / %g",
                     hle, tpr, b, b, grow, n);
Field[5] = Distance;
Field[5].CurvesList = {te()};
Field[5].NumPointsPerCurve = 400;
Field[6] = MathEval;
Field[6].F = Sprintf("(%g*(1 - %g*Min(Max(y, 0), %g)/%g) + %g*F5) / %g",
                     hte, tpr, b, b, grow, n);
Field[7] = Min;
Field[7].FieldsList = {2, 4, 6};
Background Field = 7;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.ElementOrder = 1;
Mesh.MshFileVersion = 4.1;
