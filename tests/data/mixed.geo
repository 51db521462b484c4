// Square [0,2]x[0,1]: the left half triangles, the right half 4x4 structured quadrilaterals.
// The shared line x = 1 is transfinite, so both halves have the same nodes on it.
h = 0.25;
Point(1) = {0, 0, 0, h};
Point(2) = {1, 0, 0, h};
Point(3) = {2, 0, 0, h};
Point(4) = {2, 1, 0, h};
Point(5) = {1, 1, 0, h};
Point(6) = {0, 1, 0, h};
Line(1) = {1, 2};
Line(2) = {2, 5};
Line(3) = {5, 6};
Line(4) = {6, 1};
Line(5) = {2, 3};
Line(6) = {3, 4};
Line(7) = {4, 5};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Curve Loop(2) = {5, 6, 7, -2};
Plane Surface(2) = {2};
Transfinite Curve{2, 5, 6, 7} = 5;
Transfinite Surface{2};
Recombine Surface{2};
Physical Curve("wall") = {1, 3, 5, 7};
Physical Curve("inflow") = {4};
Physical Curve("outflow") = {6};
Physical Surface("domain") = {1, 2};
