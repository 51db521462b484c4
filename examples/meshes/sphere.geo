// Flow past a sphere (Bassi & Rebay's M = 0.38 case; Siebenborn & Schulz 2012, section 6.1):
// the sphere r = 0.5 at the origin inside a far-field sphere r = Rf, in straight-sided
// tetrahedra (order 1): `flowdg mesh curve` (or a case's [mesh.curve]) puts the wall's high-order
// nodes on the sphere. Boundaries "sphere" and "farfield"; volume "fluid".
// Parameters: n = refinement level (the wall's element size 0.3 / n), Rf = far-field radius.
//   gmsh -3 sphere.geo -setnumber n 1 -setnumber Rf 3 -o sphere_coarse.msh   (the tests' mesh)
//   gmsh -3 sphere.geo -setnumber n 2 -o sphere_n2.msh
SetFactory("OpenCASCADE");
DefineConstant[ n = {1, Name "Parameters/n"}, Rf = {10, Name "Parameters/Rf"} ];
Sphere(1) = {0, 0, 0, 0.5};
Sphere(2) = {0, 0, 0, Rf};
BooleanDifference(3) = { Volume{2}; Delete; }{ Volume{1}; Delete; };
walls() = Boundary{ Volume{3}; };
// The sphere's surface is the one of smaller bounding box.
inner = walls(0); outer = walls(1);
bb() = BoundingBox Surface{inner};
If (bb(3) - bb(0) > 1.5)
  inner = walls(1); outer = walls(0);
EndIf
Physical Surface("sphere") = {inner};
Physical Surface("farfield") = {outer};
Physical Volume("fluid") = {3};
h = 0.3 / n;
Field[1] = Distance;
Field[1].SurfacesList = {inner};
Field[2] = MathEval;
Field[2].F = Sprintf("%g + 0.25 * F1", h);
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.ElementOrder = 1;
Mesh.MshFileVersion = 4.1;
