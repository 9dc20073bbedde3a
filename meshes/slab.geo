// slab.geo — the box [0,2] x [0,0.5] x [0,0.5] with a dielectric slab 0.8 < x < 1.2 across
// its whole cross-section (a 1D-like transmission/reflection setup: ports on x = 0 and x = 2).
// The slab and the two air blocks are conforming volumes (OpenCASCADE BooleanFragments).
//
// Physical groups
//   volumes:  air (0 < x < 0.8 and 1.2 < x < 2), slab (0.8 < x < 1.2)
//   surfaces: xmin (x = 0), xmax (x = 2), sides (the faces y = 0, y = 0.5, z = 0, z = 0.5)
//
// Default mesh size h = 0.1 (dgmax's `size` overrides it, as does `-setnumber h 0.2` on the
// gmsh command line). Mesh by hand with
//   gmsh -3 slab.geo -o slab.msh
SetFactory("OpenCASCADE");

Lx = 2; Ly = 0.5; Lz = 0.5;
x0 = 0.8; x1 = 1.2;
Box(1) = {0, 0, 0, Lx, Ly, Lz};
Box(2) = {x0, 0, 0, x1 - x0, Ly, Lz};
v() = BooleanFragments{ Volume{1}; Delete; }{ Volume{2}; Delete; };

eps = 1e-6;
slab() = Volume In BoundingBox{x0 - eps, -eps, -eps, x1 + eps, Ly + eps, Lz + eps};
air() = v();
air() -= slab();

Physical Volume("air") = {air()};
Physical Volume("slab") = {slab()};
Physical Surface("xmin") = Surface In BoundingBox{-eps, -eps, -eps, eps, Ly + eps, Lz + eps};
Physical Surface("xmax") = Surface In BoundingBox{Lx - eps, -eps, -eps, Lx + eps, Ly + eps, Lz + eps};
sides() = Surface In BoundingBox{-eps, -eps, -eps, Lx + eps, eps, Lz + eps};            // y = 0
sides() += Surface In BoundingBox{-eps, Ly - eps, -eps, Lx + eps, Ly + eps, Lz + eps};  // y = Ly
sides() += Surface In BoundingBox{-eps, -eps, -eps, Lx + eps, Ly + eps, eps};           // z = 0
sides() += Surface In BoundingBox{-eps, -eps, Lz - eps, Lx + eps, Ly + eps, Lz + eps};  // z = Lz
Physical Surface("sides") = {sides()};

DefineConstant[ h = {0.1, Name "Parameters/mesh size h"} ];
Mesh.MeshSizeFromPoints = 0;  // uniform size h: coarser or finer meshes just change h
Mesh.MeshSizeMax = h;
