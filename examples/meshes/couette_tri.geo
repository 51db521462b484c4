// Couette flow, unstructured triangles (Gao, Chen et al. 2022, Sec. 3.1.1, meshes A-C).
// Domain [0, 2H] x [0, H], H = 2. Bottom (y=0) fixed wall, top (y=H) moving wall,
// left/right (x=0, x=2H) periodic (Periodic Curve: right nodes = left nodes + (2H,0)).
// Parameters: n = refinement level (mesh size h = 0.5/n), order = element order (2 default, 3, 4).
//   A: gmsh -2 couette_tri.geo -setnumber n 1 -o couette_A.msh
//   B: gmsh -2 couette_tri.geo -setnumber n 2 -o couette_B.msh
//   C: gmsh -2 couette_tri.geo -setnumber n 4 -o couette_C.msh
//   (add -setnumber order 3 or 4 for cubic / quartic elements)
// Cell counts obtained (gmsh 4.8.4): A 84, B 318, C 1214 triangles (type 9 at order 2).
// (The paper gives no cell counts for A-C; these sizes are our choice.)
DefineConstant[ n = {1, Name "Parameters/n"}, order = {2, Name "Parameters/order"} ];
H = 2.0;
h = 0.5 / n;
Point(1) = {0, 0, 0, h};
Point(2) = {2*H, 0, 0, h};
Point(3) = {2*H, H, 0, h};
Point(4) = {0, H, 0, h};
Line(1) = {1, 2};  // bottom
Line(2) = {2, 3};  // right (upwards)
Line(3) = {4, 3};  // top
Line(4) = {1, 4};  // left (upwards, same direction as right)
Curve Loop(1) = {1, 2, -3, -4};
Plane Surface(1) = {1};
Periodic Curve {2} = {4} Translate {2*H, 0, 0};
Physical Curve("bottom") = {1};
Physical Curve("top") = {3};
Physical Curve("left") = {4};
Physical Curve("right") = {2};
Physical Surface("fluid") = {1};
Mesh.ElementOrder = order;
Mesh.SecondOrderIncomplete = 0;
Mesh.HighOrderOptimize = 0;   // straight-sided domain: no curving needed
Mesh.MshFileVersion = 4.1;
