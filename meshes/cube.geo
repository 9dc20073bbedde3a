// cube.geo — the unit cube [0,1]^3 as one volume.
//
// Physical groups
//   volume:   domain
//   surfaces: xmin (x = 0), xmax (x = 1), ymin (y = 0), ymax (y = 1), zmin (z = 0), zmax (z = 1)
//
// Default mesh size h = 0.1 (dgmax's `size` overrides it, as does `-setnumber h 0.2` on the
// gmsh command line). Mesh by hand with
//   gmsh -3 cube.geo -o cube.msh
SetFactory("OpenCASCADE");

L = 1;
Box(1) = {0, 0, 0, L, L, L};

// Faces are picked by position rather than by OpenCASCADE's face numbering.
eps = 1e-6;
Physical Volume("domain") = {1};
Physical Surface("xmin") = Surface In BoundingBox{-eps, -eps, -eps, eps, L + eps, L + eps};
Physical Surface("xmax") = Surface In BoundingBox{L - eps, -eps, -eps, L + eps, L + eps, L + eps};
Physical Surface("ymin") = Surface In BoundingBox{-eps, -eps, -eps, L + eps, eps, L + eps};
Physical Surface("ymax") = Surface In BoundingBox{-eps, L - eps, -eps, L + eps, L + eps, L + eps};
Physical Surface("zmin") = Surface In BoundingBox{-eps, -eps, -eps, L + eps, L + eps, eps};
Physical Surface("zmax") = Surface In BoundingBox{-eps, -eps, L - eps, L + eps, L + eps, L + eps};

DefineConstant[ h = {0.1, Name "Parameters/mesh size h"} ];
Mesh.MeshSizeFromPoints = 0;  // uniform size h: coarser or finer meshes just change h
Mesh.MeshSizeMax = h;
