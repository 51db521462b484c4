// Couette flow, structured quadrilaterals (Gao, Chen et al. 2022, Sec. 3.1.1, meshes D-F).
// Domain [0, 2H] x [0, H], H = 2, uniform (8n) x (4n) transfinite quads (Recombine).
// Bottom (y=0) fixed wall, top (y=H) moving wall, left/right periodic (Periodic Curve).
// Parameters: n = refinement level, order = element order (2 default, 3, 4).
//   D: gmsh -2 couette_quad.geo -setnumber n 1 -o couette_D.msh   (8 x 4   =  32 quads)
//   E: gmsh -2 couette_quad.geo -setnumber n 2 -o couette_E.msh   (16 x 8  = 128 quads)
//   F: gmsh -2 couette_quad.geo -setnumber n 4 -o couette_F.msh   (32 x 16 = 512 quads)
// (The paper gives no cell counts for D-F; these sizes are our choice.)
DefineConstant[ n = {1, Name "Parameters/n"}, order = {2, Name "Parameters/order"} ];
H = 2.0;
nx = 8*n;
ny = 4*n;
Point(1) = {0, 0, 0};
Point(2) = {2*H, 0, 0};
Point(3) = {2*H, H, 0};
Point(4) = {0, H, 0};
Line(1) = {1, 2};  // bottom
Line(2) = {2, 3};  // right (upwards)
Line(3) = {4, 3};  // top
Line(4) = {1, 4};  // left (upwards, same direction as right)
Curve Loop(1) = {1, 2, -3, -4};
Plane Surface(1) = {1};
Transfinite Curve {1, 3} = nx + 1;
Transfinite Curve {2, 4} = ny + 1;
Periodic Curve {2} = {4} Translate {2*H, 0, 0};
Transfinite Surface {1} = {1, 2, 3, 4};
Recombine Surface {1};
Physical Curve("bottom") = {1};
Physical Curve("top") = {3};
Physical Curve("left") = {4};
Physical Curve("right") = {2};
Physical Surface("fluid") = {1};
Mesh.ElementOrder = order;
Mesh.SecondOrderIncomplete = 0;   // complete 9-node quads (type 10)
Mesh.HighOrderOptimize = 0;
Mesh.MshFileVersion = 4.1;
