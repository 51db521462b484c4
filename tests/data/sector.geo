// Quarter annulus 1 <= r <= 2 in the first quadrant, 2 x 3 structured (transfinite) cells of two
// triangles each, or quadrilaterals with -setnumber quadrilaterals 1. Curved walls "inner" and
// "outer", straight ends "inflow" (on the x axis) and "outflow" (on the y axis). High-order
// nodes of the arcs lie on the circles.
DefineConstant[ quadrilaterals = 0 ];
Point(1) = {0, 0, 0};
Point(2) = {1, 0, 0};
Point(3) = {2, 0, 0};
Point(4) = {0, 2, 0};
Point(5) = {0, 1, 0};
Line(1) = {2, 3};
Circle(2) = {3, 1, 4};
Line(3) = {4, 5};
Circle(4) = {5, 1, 2};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve{1, 3} = 3;
Transfinite Curve{2, 4} = 4;
Transfinite Surface{1};
If (quadrilaterals)
  Recombine Surface{1};
EndIf
Physical Curve("inflow") = {1};
Physical Curve("outer") = {2};
Physical Curve("outflow") = {3};
Physical Curve("inner") = {4};
Physical Surface("domain") = {1};
Mesh.HighOrderOptimize = 0;
