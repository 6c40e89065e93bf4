#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus (tests/fuzz/corpus/{obj,stl,hull}/): small valid files,
degenerate ones, and excerpts of CC0 meshes from ../shared/data/meshes (public domain:
sh3d-blendswap-cc-0/LICENSE.TXT). Run from the repository root; the output is committed."""
import math, os, random, struct, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
shared = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                      "shared", "data", "meshes", "sh3d-blendswap-cc-0")
rng = random.Random(16)

def put(kind, name, data):
    os.makedirs(os.path.join(root, kind), exist_ok=True)
    with open(os.path.join(root, kind, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())

TET = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
CUBE = [(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
def obj(points, extra=""):
    return "".join("v %r %r %r\n" % p for p in points) + extra
def sphere(n, r=1.0):
    out = []
    for _ in range(n):
        v = [rng.gauss(0, 1) for _ in range(3)]
        s = math.sqrt(sum(c * c for c in v))
        out.append(tuple(r * c / s for c in v))
    return out

# OBJ: valid files in the forms the reader accepts, then degenerate and malformed ones.
put("obj", "tet.obj", obj(TET, "f 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n"))
put("obj", "cube_crlf.obj", obj(CUBE).replace("\n", "\r\n"))
put("obj", "weights_colors.obj", "v 0 0 0 1\nv 1 0 0 0.5\nv 0 1 0 1 0 0\nv 0 0 1 0 1 0 1\n")
put("obj", "comments.obj", "# c\no thing\ng grp\nvn 0 0 1\nvt 0 1\n  v 1 2 3 # tail\n"
    "v 4 5 6\nv 7 8 10\nv -1 2 0\nusemtl x\ns off\n")
put("obj", "sphere40.obj", obj(sphere(40)))
put("obj", "aspect1e9.obj", obj([(0, 0, 0), (1e9, 0, 0), (0, 1, 0), (0, 0, 1), (1e9, 1, 1)]))
put("obj", "huge.obj", obj([tuple(c * 1e300 for c in p) for p in TET]))
put("obj", "tiny.obj", obj([tuple(c * 1e-300 for c in p) for p in TET]))
put("obj", "flat.obj", obj([(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]))
put("obj", "line.obj", obj([(i, 2 * i, 3 * i) for i in range(5)]))
put("obj", "same.obj", obj([(1, 2, 3)] * 6))
put("obj", "nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nv 0 0 1\n")
put("obj", "overflow.obj", "v 0 0 0\nv 1e309 0 0\nv 0 1 0\nv 0 0 1\n")
put("obj", "short.obj", "v 1 2\n")
put("obj", "nul.obj", b"v 0 0 0\nv 1 0 0\n\0v 0 1 0\nv 0 0 1\n")
put("obj", "empty.obj", "")
if os.path.isdir(shared):
    for name, lines in (("basketball.obj", 80), ("scissors.obj", 60)):
        path = os.path.join(shared, name)
        if os.path.exists(path):
            with open(path) as f:
                head = [l for l in f][:lines + 4]
            put("obj", "excerpt_" + name, "".join(head))

# STL: ASCII and binary.
def ascii_stl(tris, name="t"):
    out = ["solid %s\n" % name]
    for t in tris:
        out.append(" facet normal 0 0 1\n  outer loop\n")
        out += ["   vertex %r %r %r\n" % v for v in t]
        out.append("  endloop\n endfacet\n")
    return "".join(out) + "endsolid %s\n" % name
def binary_stl(tris, header=b"binary"):
    out = header.ljust(80, b" ")[:80] + struct.pack("<I", len(tris))
    for t in tris:
        out += struct.pack("<3f", 0, 0, 1)
        for v in t:
            out += struct.pack("<3f", *v)
        out += b"\0\0"
    return out
TET_TRIS = [(TET[a], TET[b], TET[c]) for a, b, c in ((0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3))]
put("stl", "tet_ascii.stl", ascii_stl(TET_TRIS))
put("stl", "tet_binary.stl", binary_stl(TET_TRIS))
put("stl", "solid_header_binary.stl", binary_stl(TET_TRIS, b"solid looks like ascii"))
sph = sphere(30)
put("stl", "sphere_binary.stl", binary_stl([(sph[i], sph[i + 1], sph[i + 2]) for i in range(0, 30, 3)]))
put("stl", "flat_ascii.stl", ascii_stl([((0, 0, 0), (1, 0, 0), (0, 1, 0)), ((1, 1, 0), (1, 0, 0), (0, 1, 0))]))
put("stl", "count_mismatch.stl", binary_stl(TET_TRIS)[:-7])
put("stl", "nan_binary.stl", binary_stl([((float("nan"), 0, 0), (1, 0, 0), (0, 1, 0))] + TET_TRIS))
put("stl", "junk_ascii.stl", "solid x\nbanana 1 2 3\n")
put("stl", "short_vertex.stl", "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 1 2\n")
put("stl", "nul_ascii.stl", ascii_stl(TET_TRIS).encode().replace(b"endloop", b"end\0oop", 1))
put("stl", "empty.stl", "")

# Hull: raw native doubles, 24 bytes a point.
def raw(points):
    return b"".join(struct.pack("=3d", *p) for p in points)
put("hull", "tet", raw(TET))
put("hull", "cube_inner", raw(CUBE + [(0.1, 0.2, 0.3), (0, 0, 0)]))
put("hull", "sphere64", raw(sphere(64)))
put("hull", "aspect1e9", raw([(0, 0, 0), (1e9, 0, 0), (0, 1, 0), (0, 0, 1), (1e9, 1, 1)]))
put("hull", "huge", raw([tuple(c * 1e300 for c in p) for p in TET]))
put("hull", "tiny", raw([tuple(c * 1e-300 for c in p) for p in TET]))
put("hull", "subnormal", raw([tuple(c * 5e-324 for c in p) for p in TET]))
put("hull", "coplanar", raw([(math.cos(i), math.sin(i), 0.0) for i in range(8)]))
put("hull", "collinear", raw([(i, i, i) for i in range(6)]))
put("hull", "same", raw([(1.5, 2.5, 3.5)] * 5))
put("hull", "nan", raw(TET + [(float("nan"), 0, 0)]))
put("hull", "near_face", raw(TET + [(0.3, 0.3, 0.4 + 1e-13)]))

# Closed meshes for the decomposition (lucid_mesh_decompose): an oriented tetrahedron, a
# block with a square hole through it written as quads with v/t/n and negative references,
# and a cube with a face missing (not closed).
put("obj", "tet_closed.obj", obj(TET, "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"))
HOLE = [(x * c, y * c, z) for c, z in ((5, 0), (5, 4), (1.5, 0), (1.5, 4))
        for x, y in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
quads = []
for i in range(4):
    j = (i + 1) % 4
    quads += [(i, j, 4 + j, 4 + i), (4 + i, 4 + j, 12 + j, 12 + i),
              (12 + i, 12 + j, 8 + j, 8 + i), (8 + i, 8 + j, j, i)]
put("obj", "block_hole.obj", obj(HOLE, "vt 0 0\nvn 0 0 1\n" + "".join(
    "f %d/1/1 %d//1 %d/1 %d\n" % tuple(q - 16 for q in quad) for quad in quads)))
CUBE_FACES = [(1, 3, 4, 2), (5, 6, 8, 7), (1, 2, 6, 5), (3, 7, 8, 4), (1, 5, 7, 3)]
put("obj", "cube_open.obj", obj(CUBE, "".join("f %d %d %d %d\n" % f for f in CUBE_FACES)))
