#!/usr/bin/env python3
"""Writes the small hand-made .msh files of tests/data (see README.md for what each one is).

Run from anywhere: `python3 tests/data/make_test_meshes.py`. Standard library only. The binary
cube meshes are made with the `gmsh` command when it is on PATH (skipped otherwise).
Every hand-made file carries a $Comments section (which Gmsh skips) saying what it is.
"""

import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# MSH element types used here: type -> (dimension, number of nodes)
TYPES = {1: (1, 2), 2: (2, 3), 4: (3, 4), 5: (3, 8), 6: (3, 6), 11: (3, 10)}


class Msh:
    def __init__(self, comment):
        self.comment = comment.strip()
        self.nodes = {}  # tag -> (x, y, z)
        self.elements = []  # (type, physical tags, entity, [node tags])
        self.names = []  # (dim, physical tag, name)

    def node(self, tag, xyz):
        self.nodes[tag] = tuple(float(c) for c in xyz)

    def add(self, etype, physicals, entity, nodes):
        if isinstance(physicals, int):
            physicals = [physicals] if physicals else []
        assert len(nodes) == TYPES[etype][1], (etype, nodes)
        self.elements.append((etype, list(physicals), entity, list(nodes)))

    def name(self, dim, tag, name):
        self.names.append((dim, tag, name))

    # ---- geometry helpers ----
    def signed_volume(self, tet):
        a, b, c, d = (self.nodes[t] for t in tet[:4])
        u = [b[i] - a[i] for i in range(3)]
        v = [c[i] - a[i] for i in range(3)]
        w = [d[i] - a[i] for i in range(3)]
        det = (u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0])
               + u[2] * (v[0] * w[1] - v[1] * w[0]))
        return det / 6.0

    def outward(self, tri, opposite):
        """`tri` ordered so that its normal points away from node `opposite`."""
        a, b, c = (self.nodes[t] for t in tri)
        o = self.nodes[opposite]
        u = [b[i] - a[i] for i in range(3)]
        v = [c[i] - a[i] for i in range(3)]
        n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
        if sum(n[i] * (a[i] - o[i]) for i in range(3)) < 0:
            return [tri[0], tri[2], tri[1]]
        return list(tri)

    # ---- writers ----
    def _comment_lines(self):
        return ["$Comments"] + self.comment.splitlines() + ["$EndComments"]

    def _names_lines(self):
        if not self.names:
            return []
        out = ["$PhysicalNames", str(len(self.names))]
        out += ['%d %d "%s"' % n for n in self.names]
        return out + ["$EndPhysicalNames"]

    def write_v2(self, path):
        out = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat"] + self._comment_lines()
        out += self._names_lines()
        out += ["$Nodes", str(len(self.nodes))]
        out += ["%d %s" % (t, fmt(x)) for t, x in sorted(self.nodes.items())]
        out += ["$EndNodes", "$Elements", str(len(self.elements))]
        for i, (etype, phys, entity, nodes) in enumerate(self.elements, 1):
            tags = [phys[0] if phys else 0, entity]
            out.append(" ".join(str(v) for v in [i, etype, len(tags)] + tags + nodes))
        out += ["$EndElements"]
        write(path, out)

    def write_v4(self, path):
        # Entities: (dim, tag) -> physical tags; bounding boxes from their elements' nodes.
        ents = {}
        for etype, phys, entity, nodes in self.elements:
            key = (TYPES[etype][0], entity)
            e = ents.setdefault(key, {"phys": [], "nodes": set()})
            e["phys"] += [p for p in phys if p not in e["phys"]]
            e["nodes"].update(nodes)
        out = ["$MeshFormat", "4.1 0 8", "$EndMeshFormat"] + self._comment_lines()
        out += self._names_lines()
        counts = [sum(1 for d, _ in ents if d == dim) for dim in range(4)]
        out += ["$Entities", " ".join(map(str, counts))]
        for (dim, tag), e in sorted(ents.items()):
            assert dim > 0
            xyz = [self.nodes[n] for n in e["nodes"]]
            box = [min(p[i] for p in xyz) for i in range(3)] + [max(p[i] for p in xyz) for i in range(3)]
            out.append(" ".join([str(tag)] + [fmt1(c) for c in box] + [str(len(e["phys"]))]
                                + [str(p) for p in e["phys"]] + ["0"]))
        out += ["$EndEntities"]
        # All nodes in one block, classified on the highest-dimensional entity.
        host = max(ents)
        tags = sorted(self.nodes)
        out += ["$Nodes", "1 %d %d %d" % (len(tags), min(tags), max(tags)),
                "%d %d 0 %d" % (host[0], host[1], len(tags))]
        out += [str(t) for t in tags] + [fmt(self.nodes[t]) for t in tags] + ["$EndNodes"]
        blocks = {}
        for i, (etype, _, entity, nodes) in enumerate(self.elements, 1):
            blocks.setdefault((TYPES[etype][0], entity, etype), []).append((i, nodes))
        n = len(self.elements)
        out += ["$Elements", "%d %d 1 %d" % (len(blocks), n, n)]
        for (dim, entity, etype), elems in sorted(blocks.items()):
            out.append("%d %d %d %d" % (dim, entity, etype, len(elems)))
            out += [" ".join(str(v) for v in [i] + nodes) for i, nodes in elems]
        out += ["$EndElements"]
        write(path, out)


def fmt1(c):
    return repr(float(c)) if c != int(c) else str(int(c))


def fmt(xyz):
    return " ".join(fmt1(c) for c in xyz)


def write(path, lines):
    with open(os.path.join(HERE, path), "w", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", path)


# Shared points: tet A = (1,2,3,4) is the unit corner tet (volume 1/6), tet B = (2,3,4,5) sits on
# its slanted face x+y+z=1 with apex (1,1,1) (volume 1/3).
P = {1: (0, 0, 0), 2: (1, 0, 0), 3: (0, 1, 0), 4: (0, 0, 1), 5: (1, 1, 1)}
TET_A = [1, 2, 3, 4]
TET_B = [2, 3, 4, 5]


def two_tets(comment, walls=1, domain=2):
    m = Msh(comment)
    for t, x in P.items():
        m.node(t, x)
    for tri, opp in [([1, 2, 3], 4), ([1, 2, 4], 3), ([1, 3, 4], 2)]:
        m.add(2, walls, 1, m.outward(tri, opp))
    for tri, opp in [([2, 3, 5], 4), ([2, 4, 5], 3), ([3, 4, 5], 2)]:
        m.add(2, walls, 1, m.outward(tri, opp))
    m.add(4, domain, 1, TET_A)
    m.add(4, domain, 1, TET_B)
    m.name(2, walls, "walls")
    m.name(3, domain, "domain")
    return m


def check_positive(m):
    for etype, _, _, nodes in m.elements:
        if etype == 4:
            assert m.signed_volume(nodes) > 0, nodes


def write_walls_domain(m, walls, tets, path):
    """Triangles `walls` in physical surface 1 "walls", `tets` in volume 2 "domain" (positive)."""
    for tri in walls:
        m.add(2, 1, 1, tri)
    for t in tets:
        m.add(4, 2, 1, t)
    check_positive(m)
    m.name(2, 1, "walls")
    m.name(3, 2, "domain")
    m.write_v2(path)


def two_cubes(cells=2):
    """Two unit cubes, [0,1]^3 and [2,3]^3, that touch nowhere: a mesh of two pieces."""
    m = Msh("""
two_cubes.msh: two unit cubes, [0,1]^3 and [2,3]^3, each of %d x %d x %d cells split into 6
tetrahedra along the cell diagonal (every cell the same way, so the faces match): %d tets in two
pieces that share no face, edge or vertex. All positively oriented. Physical volume "domain": all
tets; physical surface "walls": the 2 x 6 x %d boundary triangles. For runs whose ranks have no
neighbour (a partition into two parts cuts between the pieces): tests/regression/*mpi_ranks_test.cpp.
A PEC cavity mode sin(pi x) sin(pi y) of the unit cube is one of each cube (integer offsets)."""
          % (cells, cells, cells, 2 * 6 * cells ** 3, 2 * cells * cells))
    n = cells + 1
    tag = {}
    for piece, origin in enumerate((0.0, 2.0)):
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    t = len(tag) + 1
                    tag[(piece, i, j, k)] = t
                    m.node(t, (origin + i / cells, origin + j / cells, origin + k / cells))
    tets = []
    perms = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    for piece in (0, 1):
        for i in range(cells):
            for j in range(cells):
                for k in range(cells):
                    for a, b, _ in perms:  # the path (0,0,0) -> e_a -> e_a + e_b -> (1,1,1)
                        p0 = [i, j, k]
                        p1 = list(p0)
                        p1[a] += 1
                        p2 = list(p1)
                        p2[b] += 1
                        p3 = [i + 1, j + 1, k + 1]
                        t = [tag[(piece,) + tuple(p)] for p in (p0, p1, p2, p3)]
                        if m.signed_volume(t) < 0:
                            t = [t[1], t[0]] + t[2:]
                        tets.append(t)
    faces = {}
    for t in tets:
        for f in range(4):
            tri = [t[x] for x in range(4) if x != f]
            faces.setdefault(tuple(sorted(tri)), []).append((tri, t[f]))
    walls = [m.outward(v[0][0], v[0][1]) for v in faces.values() if len(v) == 1]
    assert len(walls) == 2 * 6 * 2 * cells * cells, len(walls)
    write_walls_domain(m, walls, tets, "two_cubes.msh")


def main():
    # ---------------- good meshes ----------------
    m = two_tets("""
two_tets_v2.msh: two positively oriented tetrahedra sharing the face (2,3,4).
Physical volume "domain" (tag 2): both tets. Physical surface "walls" (tag 1): the 6 outer
triangles. 5 nodes, total volume 1/6 + 1/3 = 0.5.""")
    check_positive(m)
    m.write_v2("two_tets_v2.msh")

    m = two_tets("""
two_tets_v4.msh: the mesh of two_tets_v2.msh in MSH 4.1 ASCII.
Physical volume "domain" (tag 1): both tets. Physical surface "walls" (tag 1): the 6 outer
triangles. 5 nodes, total volume 0.5.""", walls=1, domain=1)
    m.write_v4("two_tets_v4.msh")

    m = two_tets("""
missing_group.msh: a valid mesh (same as two_tets_v2.msh) with only the volume group "domain"
and the boundary group "walls", for configurations that name a tag the mesh does not have.""")
    m.write_v2("missing_group.msh")

    # Unnamed physical groups, untagged elements, a tagged interior face.
    m = Msh("""
unnamed_groups.msh: tet A (1,2,3,4) in the unnamed physical volume 7, tet B (2,3,4,5) in no
physical volume; A's three outer faces in the unnamed physical surface 3, B's outer faces in
no physical surface, the shared face (2,3,4) in physical surface 5 "interface".
dgmax names them "physical_volume_7", "untagged" and "physical_surface_3".""")
    for t, x in P.items():
        m.node(t, x)
    for tri, opp in [([1, 2, 3], 4), ([1, 2, 4], 3), ([1, 3, 4], 2)]:
        m.add(2, 3, 1, m.outward(tri, opp))
    for tri, opp in [([2, 3, 5], 4), ([2, 4, 5], 3), ([3, 4, 5], 2)]:
        m.add(2, 0, 2, m.outward(tri, opp))
    m.add(2, 5, 3, [2, 3, 4])
    m.add(4, 7, 1, TET_A)
    m.add(4, 0, 2, TET_B)
    m.name(2, 5, "interface")
    m.write_v2("unnamed_groups.msh")

    # ---------------- meshes the reader rejects ----------------
    m = Msh("""
hexahedra.msh: two unit hexahedra (8-node, MSH type 5) stacked along z, physical volume "domain".
No tetrahedra at all: the reader must reject it naming the hexahedra.""")
    k = 1
    for z in (0, 1, 2):
        for x, y in [(0, 0), (1, 0), (1, 1), (0, 1)]:
            m.node(k, (x, y, z))
            k += 1
    m.add(5, 1, 1, [1, 2, 3, 4, 5, 6, 7, 8])
    m.add(5, 1, 1, [5, 6, 7, 8, 9, 10, 11, 12])
    m.name(3, 1, "domain")
    m.write_v2("hexahedra.msh")

    m = Msh("""
mixed_tet_prism.msh (MSH 4.1): a prism (6-node, MSH type 6) on the triangle (0,0)-(1,0)-(0,1),
0 <= z <= 1, with a tetrahedron on its top face (apex (0,0,2)). Physical volume "domain" holds
both. The reader must reject it naming the prism.""")
    pts = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (0, 0, 2)]
    for i, x in enumerate(pts, 1):
        m.node(i, x)
    m.add(6, 1, 1, [1, 2, 3, 4, 5, 6])
    m.add(4, 1, 1, [4, 5, 6, 7])
    m.name(3, 1, "domain")
    check_positive(m)
    m.write_v4("mixed_tet_prism.msh")

    m = Msh("""
second_order_tets.msh: the two tets of two_tets_v2.msh as 10-node (second-order, MSH type 11)
tetrahedra, edge nodes at the midpoints in Gmsh order (edges 01 12 20 30 32 31). Physical volume
"domain". The reader must reject it naming the 10-node tetrahedra.""")
    for t, x in P.items():
        m.node(t, x)
    mids = {}

    def mid(a, b):
        key = tuple(sorted((a, b)))
        if key not in mids:
            tag = 6 + len(mids)
            mids[key] = tag
            m.node(tag, [(P[a][i] + P[b][i]) / 2 for i in range(3)])
        return mids[key]

    for tet in (TET_A, TET_B):
        v = tet
        edges = [(0, 1), (1, 2), (2, 0), (3, 0), (3, 2), (3, 1)]
        m.add(11, 1, 1, v + [mid(v[a], v[b]) for a, b in edges])
    m.name(3, 1, "domain")
    m.write_v2("second_order_tets.msh")

    m = Msh("""
surface_only.msh: the 4 triangles bounding tet (1,2,3,4), physical surface "walls", and no
volume elements. The reader must say it contains no volume elements.""")
    for t in TET_A:
        m.node(t, P[t])
    for tri, opp in [([1, 2, 3], 4), ([1, 2, 4], 3), ([1, 3, 4], 2), ([2, 3, 4], 1)]:
        m.add(2, 1, 1, m.outward(tri, opp))
    m.name(2, 1, "walls")
    m.write_v2("surface_only.msh")

    write("empty.msh", ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$Comments",
                        "empty.msh: a valid MSH 2.2 file with no nodes and no elements.",
                        "$EndComments", "$Nodes", "0", "$EndNodes", "$Elements", "0",
                        "$EndElements"])

    write("garbage.msh", ["This is not a mesh file, whatever its extension says.",
                          "It is a shopping list:", "  - 2 kg of tetrahedra", "  - 1 Yee cell"])

    lines = open(os.path.join(HERE, "two_tets_v2.msh")).read().splitlines()
    cut = lines.index("$Nodes") + 4  # "$Nodes", "5", then only 3 of the 5 nodes
    lines = lines[:cut]
    lines[lines.index("$Comments") + 1:lines.index("$EndComments")] = [
        "truncated.msh: two_tets_v2.msh cut off in the middle of $Nodes (3 of 5 nodes, no end)."]
    write("truncated.msh", lines)

    m = two_tets("""
two_volume_groups.msh (MSH 4.1): two_tets_v4.msh, but its volume entity is in two physical
volumes, "domain" (tag 1) and "all" (tag 2). dgmax gives each tet one volume tag, so the reader
must reject it.""", walls=1, domain=1)
    m.elements = [(t, p + [2] if t == 4 else p, e, n) for t, p, e, n in m.elements]
    m.name(3, 2, "all")
    m.write_v4("two_volume_groups.msh")

    # ---------------- defects for the validation layer (the reader accepts them) ----------------
    m = two_tets("""
inverted_tet.msh: two_tets_v2.msh with tet B written as (3,2,4,5): negative orientation
(signed volume -1/3). Everything else is fine.""")
    m.elements = [(t, p, e, [3, 2, 4, 5] if n == TET_B else n) for t, p, e, n in m.elements]
    assert m.signed_volume([3, 2, 4, 5]) < 0
    m.write_v2("inverted_tet.msh")

    m = Msh("""
degenerate_tet.msh: tet A (1,2,3,4) is fine; tet B (2,3,4,5) has its fourth vertex
5 = (1,1,-1) in the plane x+y+z=1 of the other three: zero volume. Physical volume "domain" holds
both; physical surface "walls" the three outer faces of each tet.""")
    for t in TET_A:
        m.node(t, P[t])
    m.node(5, (1, 1, -1))
    for tri in ([1, 2, 3], [1, 2, 4], [1, 3, 4], [2, 3, 5], [2, 4, 5], [3, 4, 5]):
        m.add(2, 1, 1, tri)
    m.add(4, 2, 1, TET_A)
    m.add(4, 2, 1, TET_B)
    assert abs(m.signed_volume(TET_B)) < 1e-15
    m.name(2, 1, "walls")
    m.name(3, 2, "domain")
    m.write_v2("degenerate_tet.msh")

    m = two_tets("""
three_tets_one_face.msh: two_tets_v2.msh plus a third tet C (2,3,4,6), apex (2,2,2): three tets
share the triangle (2,3,4) (non-manifold; C necessarily overlaps B). All positively oriented.
Physical volume "domain": all three; physical surface "walls": the 6 outer faces of A and B.""")
    m.node(6, (2, 2, 2))
    m.add(4, 2, 1, [2, 3, 4, 6])
    check_positive(m)
    m.write_v2("three_tets_one_face.msh")

    m = Msh("""
hanging_node.msh: non-conforming. Big tet T (1,2,3,4) below z=0 has the face F (1,2,3) on z=0;
above it, four small tets with apex 8 = (1/3,1/3,1/2) stand on the 4 triangles of the midpoint
subdivision of F (midpoints 5, 6, 7). So one big face meets four small faces, and nodes 5, 6, 7
hang on T's edges. All positively oriented. Physical volume "domain": all five tets (total
volume 1/6 + 1/12 = 0.25); physical surface "walls": T's other 3 faces and the 6 outer faces of
the small tets.""")
    a, b, c, d, mab, mbc, mca, e = range(1, 9)
    for t, x in [(a, (0, 0, 0)), (b, (1, 0, 0)), (c, (0, 1, 0)), (d, (0, 0, -1)),
                 (mab, (0.5, 0, 0)), (mbc, (0.5, 0.5, 0)), (mca, (0, 0.5, 0)),
                 (e, (1 / 3, 1 / 3, 0.5))]:
        m.node(t, x)
    tets = [[a, b, c, d], [a, mab, mca, e], [mab, b, mbc, e], [mca, mbc, c, e], [mab, mbc, mca, e]]
    tets = [t if m.signed_volume(t) > 0 else [t[1], t[0]] + t[2:] for t in tets]
    walls = [m.outward(tri, opp) for tri, opp in [([a, b, d], c), ([b, c, d], a), ([c, a, d], b)]]
    walls += [[a, mab, e], [mab, b, e], [b, mbc, e], [mbc, c, e], [c, mca, e], [mca, a, e]]
    write_walls_domain(m, walls, tets, "hanging_node.msh")

    m = Msh("""
duplicate_vertices.msh: tets A (1,2,3,4) and B (6,7,8,5), where nodes 6, 7, 8 repeat the
coordinates of 2, 3, 4. The two tets touch along the triangle x+y+z=1, but as two different
faces (2,3,4) and (6,7,8) that coincide without being shared. Positively oriented. Physical
volume "domain": both; physical surface "walls": the 6 outer faces.""")
    for t, x in P.items():
        m.node(t, x)
    for t, src in [(6, 2), (7, 3), (8, 4)]:
        m.node(t, P[src])
    for tri, opp in [([1, 2, 3], 4), ([1, 2, 4], 3), ([1, 3, 4], 2)]:
        m.add(2, 1, 1, m.outward(tri, opp))
    for tri, opp in [([6, 7, 5], 8), ([6, 8, 5], 7), ([7, 8, 5], 6)]:
        m.add(2, 1, 1, m.outward(tri, opp))
    m.add(4, 2, 1, TET_A)
    m.add(4, 2, 1, [6, 7, 8, 5])
    check_positive(m)
    m.name(2, 1, "walls")
    m.name(3, 2, "domain")
    m.write_v2("duplicate_vertices.msh")

    two_cubes()

    # ---------------- made by Gmsh ----------------
    gmsh = shutil.which("gmsh")
    if gmsh:
        geo = os.path.join(ROOT, "meshes", "cube.geo")
        for name, fmt_ in [("cube_v2_binary.msh", "msh22"), ("cube_v4_binary.msh", "msh41")]:
            subprocess.run([gmsh, "-3", geo, "-setnumber", "h", "0.5", "-format", fmt_, "-bin",
                            "-o", os.path.join(HERE, name)], check=True,
                           stdout=subprocess.DEVNULL)
            print("wrote", name)
    else:
        print("gmsh not found: cube_v2_binary.msh / cube_v4_binary.msh not regenerated")


if __name__ == "__main__":
    main()
