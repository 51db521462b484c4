// Quarter annulus 1 <= r <= 1.384 in the first quadrant (the supersonic vortex domain):
// curved walls "inner" and "outer", straight ends "inflow" (on the x axis) and "outflow"
// (on the y axis).
ri = 1;
ro = 1.384;
h = 0.1;
Point(1) = {0, 0, 0, h};
Point(2) = {ri, 0, 0, h};
Point(3) = {ro, 0, 0, h};
Point(4) = {0, ro, 0, h};
Point(5) = {0, ri, 0, h};
Line(1) = {2, 3};
Circle(2) = {3, 1, 4};
Line(3) = {4, 5};
Circle(4) = {5, 1, 2};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("inflow") = {1};
Physical Curve("outer") = {2};
Physical Curve("outflow") = {3};
Physical Curve("inner") = {4};
Physical Surface("domain") = {1};
