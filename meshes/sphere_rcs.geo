// sphere_rcs.geo — a sphere of radius a = 0.25 at the origin inside nested axis-aligned boxes, for
// radar cross-section runs (configs/sphere_rcs.yaml, configs/sphere_rcs_pec.yaml):
//   |x|,|y|,|z| <= 0.4   the total-field/scattered-field box (tfsf.box)
//   |x|,|y|,|z| <= 0.5   the closed DFT monitor box (in the scattered-field region)
//   |x|,|y|,|z| <= 0.6   the inner box of the PML
//   |x|,|y|,|z| <= 0.9   the outer box (PEC behind the layer)
// All volumes are fragments of one another (OpenCASCADE BooleanFragments), so every box face is
// made of mesh faces and the sphere's surface is conforming.
//
// Physical groups
//   volumes:  sphere (pec = 0 only), air (between the sphere and the PML's inner box), pml (the shell)
//   surfaces: outer (the six faces of the outer box), sphere_surface (the sphere's surface)
//
// Parameters (DefineConstant: `-setnumber NAME VALUE` on the gmsh command line, or set before an
// Include, as sphere_rcs_pec.geo does):
//   h      mesh size inside the PML's inner box (default 0.2, the CI size)
//   h_pml  mesh size in the PML (default 0.3; 0: h)
//   nc     elements around the sphere's circumference (Mesh.MeshSizeFromCurvature, default 20):
//          the flat-faced sphere's volume falls short by about 22/nc² (0.0632 of 0.0654 at nc = 20)
//   pec    1: the sphere is a hole (not meshed), its surface tagged sphere_surface (a pec boundary)
//   B_out  half-width of the outer box (default 0.9): the layer is B_out - 0.6 thick; 0.3 is too
//          thin for RCS errors near 1 % (bench/NOTES.md, "The sphere RCS on blended curved
//          elements: first runs on the GPU": 0.6 took the PEC sphere's ka = 2 error from 5.3 % to 1.2 %)
//   structured_layer  1 (default): the layer's 26 boxes meshed as cubes of about h_pml split into
//          six tetrahedra each (transfinite), so that its coefficients jump only across faces
//          normal to their axis (codegen/emit/pml_profile.hpp, pml_point); 0: unstructured, as
//          before 2026-12-06 (its oblique jumps reflect: the CI meshes' PEC sphere at N = 2 had
//          0.027 / 0.119 / 0.298 at ka = 1 / 2 / 3 with it, 0.027 / 0.040 / 0.068 with cubes;
//          bench/NOTES.md, "The layer's coefficients at the middle of each element's extent")
// dgmax's mesh.size would cap h_pml as well (it sets Mesh.MeshSizeMax): leave it out and use these.
// Mesh by hand with
//   gmsh -3 sphere_rcs.geo -o sphere_rcs.msh                                 # CI size, 4,909 tets
//   gmsh -3 sphere_rcs.geo -setnumber h 0.07 -setnumber h_pml 0.12 -setnumber nc 48 -o fine.msh
SetFactory("OpenCASCADE");

DefineConstant[ h = {0.2, Name "Parameters/mesh size h"} ];
DefineConstant[ h_pml = {0.3, Name "Parameters/mesh size in the PML (0: h)"} ];
DefineConstant[ nc = {20, Name "Parameters/elements around the sphere (Mesh.MeshSizeFromCurvature)"} ];
DefineConstant[ pec = {0, Choices {0, 1}, Name "Parameters/PEC sphere (hole)"} ];
DefineConstant[ structured_layer = {1, Choices {0, 1}, Name "Parameters/structured layer"} ];

R = 0.25;      // sphere radius
B_tfsf = 0.4;  // half-widths of the boxes
B_mon = 0.5;
B_pml = 0.6;
DefineConstant[ B_out = {0.9, Name "Parameters/half-width of the outer box"} ];

// The layer as 26 boxes (the 3x3x3 grid of [-B_out, -B_pml, B_pml, B_out] in each direction without
// its centre): every layer element then lies in one slab, edge or corner piece, as dgmax's PML
// needs (a shell meshed as one volume has tets across its inner edges).
c[] = {-B_out, -B_pml, B_pml, B_out};
n = 100;
shell() = {};
For i In {0 : 2}
  For j In {0 : 2}
    For k In {0 : 2}
      If (i != 1 || j != 1 || k != 1)
        Box(n) = {c[i], c[j], c[k], c[i + 1] - c[i], c[j + 1] - c[j], c[k + 1] - c[k]};
        shell() += {n};
        n += 1;
      EndIf
    EndFor
  EndFor
EndFor
Box(2) = {-B_pml, -B_pml, -B_pml, 2 * B_pml, 2 * B_pml, 2 * B_pml};
Box(3) = {-B_mon, -B_mon, -B_mon, 2 * B_mon, 2 * B_mon, 2 * B_mon};
Box(4) = {-B_tfsf, -B_tfsf, -B_tfsf, 2 * B_tfsf, 2 * B_tfsf, 2 * B_tfsf};
Sphere(5) = {0, 0, 0, R};
v() = BooleanFragments{ Volume{shell()}; Delete; }{ Volume{2, 3, 4, 5}; Delete; };

e = 1e-6;
sphere() = Volume In BoundingBox{-R - e, -R - e, -R - e, R + e, R + e, R + e};
inner() = Volume In BoundingBox{-B_pml - e, -B_pml - e, -B_pml - e, B_pml + e, B_pml + e, B_pml + e};
pml() = v();
pml() -= inner();
air() = inner();
air() -= sphere();
outer() = CombinedBoundary{ Volume{v()}; };
sphere_surface() = Boundary{ Volume{sphere()}; };

If (pec)
  Delete { Volume{sphere()}; }
EndIf

Physical Volume("air") = {air()};
Physical Volume("pml") = {pml()};
If (!pec)
  Physical Volume("sphere") = {sphere()};
EndIf
Physical Surface("outer") = {outer()};
Physical Surface("sphere_surface") = {sphere_surface()};

Mesh.MeshSizeFromPoints = 0;      // size h (h_pml in the layer)
Mesh.MeshSizeFromCurvature = nc;  // at least ~nc elements around the sphere at any h
Mesh.MeshSizeMax = h;
If (h_pml > 0)  // inside the PML's inner box h, outside h_pml (still capped by MeshSizeMax)
  Field[1] = Box;
  Field[1].VIn = h;
  Field[1].VOut = h_pml;
  Field[1].XMin = -B_pml; Field[1].XMax = B_pml;
  Field[1].YMin = -B_pml; Field[1].YMax = B_pml;
  Field[1].ZMin = -B_pml; Field[1].ZMax = B_pml;
  Background Field = 1;
  Mesh.MeshSizeMax = (h_pml > h) ? h_pml : h;
EndIf

// The structured layer: each curve of the layer divided into cells of about h_pml (h where h_pml
// is 0), each box transfinite: hexahedral cells split into six tetrahedra, no vertex added.
If (structured_layer)
  lp = (h_pml > 0) ? h_pml : h;
  lsurf() = Unique(Abs(Boundary{ Volume{pml()}; }));
  lcurv() = Unique(Abs(Boundary{ Surface{lsurf()}; }));
  For i In {0 : #lcurv() - 1}
    bb() = BoundingBox Curve{ lcurv(i) };
    len = Sqrt((bb(3) - bb(0))^2 + (bb(4) - bb(1))^2 + (bb(5) - bb(2))^2);
    Transfinite Curve{ lcurv(i) } = Max(1, Round(len / lp)) + 1;
  EndFor
  Transfinite Surface{ lsurf() };
  Transfinite Volume{ pml() };
EndIf
