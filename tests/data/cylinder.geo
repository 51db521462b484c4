// A quarter of the hollow cylinder 1 <= r <= 2, 0 <= z <= 0.5 (sector.geo's annulus extruded):
// unstructured tetrahedra, or one layer of 2 x 3 hexahedra with -setnumber hexahedra 1.
// Faces "inner" and "outer" (the cylinders), "inflow" (y = 0), "outflow" (x = 0), "zmin", "zmax".
DefineConstant[ hexahedra = 0 ];
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
If (hexahedra)
  Transfinite Curve{1, 3} = 3;
  Transfinite Curve{2, 4} = 4;
  Transfinite Surface{1};
  Recombine Surface{1};
  out[] = Extrude {0, 0, 0.5} { Surface{1}; Layers{1}; Recombine; };
Else
  out[] = Extrude {0, 0, 0.5} { Surface{1}; };
  MeshSize{:} = 2;
EndIf
// out[]: the top surface, the volume, then the sides extruded from curves 1, 2, 3, 4.
Physical Surface("zmin") = {1};
Physical Surface("zmax") = {out[0]};
Physical Surface("inflow") = {out[2]};
Physical Surface("outer") = {out[3]};
Physical Surface("outflow") = {out[4]};
Physical Surface("inner") = {out[5]};
Physical Volume("domain") = {out[1]};
Mesh.HighOrderOptimize = 0;
