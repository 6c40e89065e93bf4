-- lucid.mesh.decompose: convex decomposition of closed non-convex meshes (a mug, a block with
-- a hole) into composite bodies, checked against the meshes' own volumes, the hull's
-- failure (the peg that the convex hull stops), and its input checks.
local t = require "testing"
local lucid = require "lucid"

local function at(x, y, z) return lucid.se3.new({1, 0, 0, 0}, {x, y, z}) end

-- A mug: an open cup (a 32-gon wall 5 mm thick, 8 mm floor, 100 mm tall, 80 mm across) and
-- a handle (a 8 x 6 mm bar swept on a half circle of radius 25 mm) whose end faces lie on
-- the wall's flat face at +x. Two closed surfaces that touch, so the mesh's volume is the
-- sum of theirs. open_handle: the handle's end faces left out, a tube open at both ends (as
-- real mugs' handles often are), whose capped holes are those faces.
local function mug(open_handle)
  local N, R, r, H, floor = 32, 0.04, 0.035, 0.1, 0.008
  local V, F = {}, {}
  local function ring(radius, z)
    local first = #V
    for i = 0, N - 1 do
      local a = (i + 0.5) * 2 * math.pi / N
      V[#V + 1] = {radius * math.cos(a), radius * math.sin(a), z}
    end
    return first
  end
  local ob, ot, it, ib = ring(R, 0), ring(R, H), ring(r, H), ring(r, floor)
  V[#V + 1] = {0, 0, 0}; local cb = #V
  V[#V + 1] = {0, 0, floor}; local ci = #V
  for i = 0, N - 1 do
    local j = (i + 1) % N
    local o0, o1, t0, t1 = ob + i + 1, ob + j + 1, ot + i + 1, ot + j + 1
    local i0, i1, b0, b1 = it + i + 1, it + j + 1, ib + i + 1, ib + j + 1
    F[#F + 1] = {o0, o1, t1}; F[#F + 1] = {o0, t1, t0}   -- outer wall
    F[#F + 1] = {t0, t1, i1}; F[#F + 1] = {t0, i1, i0}   -- rim
    F[#F + 1] = {i0, i1, b1}; F[#F + 1] = {i0, b1, b0}   -- inner wall, facing the axis
    F[#F + 1] = {b0, b1, ci}                             -- inner floor, facing up
    F[#F + 1] = {o1, o0, cb}                             -- bottom, facing down
  end
  local M, rho, a, b = 12, 0.025, 0.004, 0.003
  local x0, zc, s = R * math.cos(math.pi / N), H / 2, #V
  for k = 0, M do
    local th = -math.pi / 2 + math.pi * k / M
    local cx, cz, dx, dz = x0 + rho * math.cos(th), zc + rho * math.sin(th), math.cos(th), math.sin(th)
    for _, uv in ipairs{{-a, -b}, {a, -b}, {a, b}, {-a, b}} do
      V[#V + 1] = {cx + uv[1] * dx, uv[2], cz + uv[1] * dz}
    end
  end
  for k = 0, M - 1 do
    for q = 0, 3 do
      local p0, p1 = s + 4 * k + q + 1, s + 4 * k + (q + 1) % 4 + 1
      F[#F + 1] = {p0, p1 + 4, p0 + 4}; F[#F + 1] = {p0, p1, p1 + 4}
    end
  end
  local e = s + 4 * M
  if not open_handle then
    F[#F + 1] = {s + 1, s + 3, s + 2}; F[#F + 1] = {s + 1, s + 4, s + 3}
    F[#F + 1] = {e + 1, e + 2, e + 3}; F[#F + 1] = {e + 1, e + 3, e + 4}
  end
  return {vertices = V, triangles = F}
end

-- A 100 x 100 x 50 mm block with a 30 x 30 mm square hole through it, base on z = 0.
local function block_with_hole()
  local L, h, w = 0.1, 0.05, 0.03
  local V = {}
  for _, sq in ipairs{{L / 2, 0}, {L / 2, h}, {w / 2, 0}, {w / 2, h}} do
    local c, z = sq[1], sq[2]
    for _, xy in ipairs{{-c, -c}, {c, -c}, {c, c}, {-c, c}} do V[#V + 1] = {xy[1], xy[2], z} end
  end
  local F = {}
  local ob, ot, ib, it = 0, 4, 8, 12
  for i = 0, 3 do
    local j = (i + 1) % 4
    local function q(a, b, c, d) F[#F + 1] = {a + 1, b + 1, c + 1}; F[#F + 1] = {a + 1, c + 1, d + 1} end
    q(ob + i, ob + j, ot + j, ot + i) -- outside
    q(ot + i, ot + j, it + j, it + i) -- top
    q(it + i, it + j, ib + j, ib + i) -- hole
    q(ib + i, ib + j, ob + j, ob + i) -- bottom
  end
  return {vertices = V, triangles = F}
end

local function cube_mesh()
  local V = {}
  for k = 0, 7 do V[#V + 1] = {k & 1, (k >> 1) & 1, (k >> 2) & 1} end
  local F = {{1, 3, 4}, {1, 4, 2}, {5, 6, 8}, {5, 8, 7}, {1, 2, 6}, {1, 6, 5},
             {3, 7, 8}, {3, 8, 4}, {1, 5, 7}, {1, 7, 3}, {2, 4, 8}, {2, 8, 6}}
  return {vertices = V, triangles = F}
end

local function write_obj(mesh)
  local path = os.tmpname() .. ".obj"
  local f = assert(io.open(path, "w"))
  for _, v in ipairs(mesh.vertices) do f:write(string.format("v %.17g %.17g %.17g\n", v[1], v[2], v[3])) end
  for _, tri in ipairs(mesh.triangles) do f:write(string.format("f %d %d %d\n", tri[1], tri[2], tri[3])) end
  f:close()
  return path
end

local mesh_volume = require "mesh_testing".volume -- the closed mesh's own volume

-- A convex shape's volume from its faces, and whether p is inside it (beyond margin).
local function hull_volume(s)
  local X, v = s:vertices(), 0
  local function col(j) return {X:get(1, j), X:get(2, j), X:get(3, j)} end
  for _, f in ipairs(s:faces()) do
    local c = f.vertices
    for i = 2, #c - 1 do
      v = v + mesh_volume{vertices = {col(c[1]), col(c[i]), col(c[i + 1])}, triangles = {{1, 2, 3}}}
    end
  end
  return v
end

local function strictly_inside(s, p, margin)
  for _, f in ipairs(s:faces()) do
    if f.normal[1] * p[1] + f.normal[2] * p[2] + f.normal[3] * p[3] > f.offset - margin then return false end
  end
  return true
end

-- Whether p is inside the closed mesh: its winding number (solid angles) above one half.
local function inside_mesh(mesh, p)
  local omega = 0
  for _, tri in ipairs(mesh.triangles) do
    local v = {}
    for k = 1, 3 do
      local q = mesh.vertices[tri[k]]
      v[k] = {q[1] - p[1], q[2] - p[2], q[3] - p[3]}
    end
    local a, b, c = v[1], v[2], v[3]
    local function dot(x, y) return x[1] * y[1] + x[2] * y[2] + x[3] * y[3] end
    local la, lb, lc = math.sqrt(dot(a, a)), math.sqrt(dot(b, b)), math.sqrt(dot(c, c))
    local det = a[1] * (b[2] * c[3] - b[3] * c[2]) - a[2] * (b[1] * c[3] - b[3] * c[1])
                + a[3] * (b[1] * c[2] - b[2] * c[1])
    omega = omega + 2 * math.atan(det, la * lb * lc + dot(a, b) * lc + dot(a, c) * lb + dot(b, c) * la)
  end
  return omega > 2 * math.pi
end

t.case("a mug's parts cover it and hold its volume within 5% (issue 34)", function()
  local m = mug()
  local path = write_obj(m)
  local parts, info = lucid.mesh.decompose(path, {max_parts = 256, concavity = 0.05})
  os.remove(path)
  local V = mesh_volume(m)
  t.near(info.mesh_volume, V, 1e-12 * V, "mesh_volume is the mesh's signed volume")
  local sum = 0
  for _, part in ipairs(parts) do
    t.eq(part.shape:kind(), "convex")
    sum = sum + hull_volume(part.shape)
  end
  t.near(sum, info.parts_volume, 1e-9 * V, "parts_volume is the parts' volume")
  t.truthy(sum >= V * (1 - 1e-9), ("parts %.6g below the mesh's %.6g"):format(sum, V))
  t.truthy(sum <= 1.05 * V, ("parts %.6g exceed the mesh's %.6g by %.1f%%"):format(sum, V, 100 * (sum / V - 1)))
  t.truthy(#parts < 256, "stopped by concavity, not by max_parts")
  local hull = lucid.convex(m.vertices)
  t.truthy(hull_volume(hull) > 2 * V, "the hull fills the cup")
  -- every point of the solid is in a part: 3000 points drawn in the mug's box
  local rng, covered, inside = lucid.rng(7), 0, 0
  for _ = 1, 3000 do
    local p = {rng:uniform(-0.04, 0.07), rng:uniform(-0.04, 0.04), rng:uniform(0, 0.1)}
    if inside_mesh(m, p) then
      inside = inside + 1
      for _, part in ipairs(parts) do
        if strictly_inside(part.shape, p, -1e-12) then covered = covered + 1; break end
      end
    end
  end
  t.truthy(inside > 300, "the sample reaches the solid")
  t.eq(covered, inside, "points of the solid outside every part")
  -- no part reaches into the cup's hollow: points on its axis above the floor are outside all
  for z = 0.02, 0.095, 0.015 do
    for _, part in ipairs(parts) do
      t.truthy(not strictly_inside(part.shape, {0, 0, z}, 1e-6), "a part fills the hollow at z = " .. z)
    end
  end
end)

t.case("a ball dropped into the decomposed mug lands on its floor, on the hull on its rim", function()
  local m = mug()
  local parts = lucid.mesh.decompose(m)
  local function drop(shape)
    local w = lucid.world{dt = 1e-3}
    w:add_static{shape = shape}
    local ball = w:add_body{shape = lucid.sphere(0.02), mass = 0.05, pose = at(0, 0, 0.15)}
    w:step(500)
    return w:pose(ball):translation()[3]
  end
  t.near(drop(parts), 0.008 + 0.02, 2e-3, "the ball rests on the mug's floor")
  t.near(drop(lucid.convex(m.vertices)), 0.1 + 0.02, 2e-3, "the ball rests on the hull's top")
end)

t.case("a mesh table, max_parts and concavity are honoured; a convex mesh stays one part", function()
  local m = mug()
  local parts, info = lucid.mesh.decompose(m, {max_parts = 8})
  t.truthy(#parts <= 8)
  t.truthy(info.parts_volume > 1.05 * info.mesh_volume, "8 parts cannot hold a mug within 5%")
  local loose = lucid.mesh.decompose(m, {concavity = 0.5})
  t.truthy(#loose < 64)
  -- off the cutting directions (a block turned about two axes) the parts still cover the
  -- solid, and fall short of the hull
  local block, R = block_with_hole(), lucid.so3.exp({0.3, 0.2, 0.5})
  for i, v in ipairs(block.vertices) do
    local x = R * lucid.vec(v)
    block.vertices[i] = {x[1], x[2], x[3]}
  end
  local turned, tinfo = lucid.mesh.decompose(block, {max_parts = 16})
  local V, sum = mesh_volume(block), 0
  for _, part in ipairs(turned) do sum = sum + hull_volume(part.shape) end
  t.truthy(sum >= V * (1 - 1e-9), ("parts %.6g below the mesh's %.6g"):format(sum, V))
  t.truthy(tinfo.parts_volume < hull_volume(lucid.convex(block.vertices)) - 0.5 * 0.03 ^ 2 * 0.05,
           "the turned block's parts leave more than half of the hole open")
  local one, cinfo = lucid.mesh.decompose(cube_mesh(), {scale = 2})
  t.eq(#one, 1)
  t.near(cinfo.mesh_volume, 8, 1e-12)
  t.near(hull_volume(one[1].shape), 8, 1e-12)
end)

-- The peg (20 x 20 mm) dropped over the block's 30 mm hole: on the decomposed block it falls
-- through to the ground, on the block's convex hull it rests on the top face (z = 50 mm).
local function drop_peg(block_shape)
  local w = lucid.world{dt = 1e-3}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  w:add_static{shape = block_shape}
  local peg = w:add_body{shape = lucid.box(0.01, 0.01, 0.03), mass = 0.1, pose = at(0, 0, 0.09)}
  w:step(600)
  return w:pose(peg):translation()[3]
end

t.case("a peg enters the hole that the convex hull closes", function()
  local block = block_with_hole()
  local parts = lucid.mesh.decompose(block)
  for z = 0.005, 0.05, 0.005 do -- the hole's corners, at every height, are in no part
    for _, xy in ipairs{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} do
      for _, part in ipairs(parts) do
        local p = {0.0149 * xy[1], 0.0149 * xy[2], z}
        t.truthy(not strictly_inside(part.shape, p, 1e-6), "a part reaches into the hole")
      end
    end
  end
  local through = drop_peg(parts)
  t.near(through, 0.03, 2e-3, "the peg stands on the ground inside the hole")
  local on_top = drop_peg(lucid.convex(block.vertices))
  t.near(on_top, 0.08, 2e-3, "the peg rests on the hull's top face")
end)

t.case("STL files (ASCII and binary): each facet on its own vertices, welded", function()
  local cube = cube_mesh()
  local ascii, binary = {"solid cube\n"}, {string.rep("\0", 80), string.pack("<I4", #cube.triangles)}
  for _, tri in ipairs(cube.triangles) do
    ascii[#ascii + 1] = "facet normal 0 0 0\nouter loop\n"
    binary[#binary + 1] = string.pack("<fff", 0, 0, 0)
    for k = 1, 3 do
      local v = cube.vertices[tri[k]]
      ascii[#ascii + 1] = string.format("vertex %g %g %g\n", v[1], v[2], v[3])
      binary[#binary + 1] = string.pack("<fff", v[1], v[2], v[3])
    end
    ascii[#ascii + 1] = "endloop\nendfacet\n"
    binary[#binary + 1] = string.pack("<I2", 0)
  end
  ascii[#ascii + 1] = "endsolid cube\n"
  for _, contents in ipairs{table.concat(ascii), table.concat(binary)} do
    local path = os.tmpname() .. ".stl"
    local f = assert(io.open(path, "wb"))
    f:write(contents)
    f:close()
    local parts, info = lucid.mesh.decompose(path, {scale = 0.5})
    os.remove(path)
    t.eq(#parts, 1)
    t.near(info.mesh_volume, 0.125, 1e-15)
    t.near(hull_volume(parts[1].shape), 0.125, 1e-15)
  end
end)

t.case("OBJ faces: quads fanned, v/t/n and negative references", function()
  -- tests/fuzz/corpus/obj/block_hole.obj: a 10 x 10 x 4 block with a 3 x 3 hole, in quads
  -- written `f -16/1/1 -15//1 -11/1 -12` and the like
  local parts, info = lucid.mesh.decompose("tests/fuzz/corpus/obj/block_hole.obj")
  t.near(info.mesh_volume, 10 * 10 * 4 - 3 * 3 * 4, 1e-12)
  t.near(info.parts_volume, info.mesh_volume, 1e-9)
  t.eq(#parts, 8)
end)

local function closed_mesh_error(mesh, pattern)
  t.raises("lucid.mesh.decompose: " .. pattern, lucid.mesh.decompose, mesh)
end

t.case("bad meshes and options are refused by name", function()
  t.raises("lucid.mesh.decompose: /nonexistent/mug.obj: cannot open file", lucid.mesh.decompose,
           "/nonexistent/mug.obj")
  local open = cube_mesh()
  table.remove(open.triangles)
  t.raises("lucid.mesh.decompose: the mesh is not closed: 3 edges have no opposite edge",
           lucid.mesh.decompose, open, {holes = "refuse"})
  local flipped = cube_mesh()
  local f = flipped.triangles[1]
  f[2], f[3] = f[3], f[2]
  closed_mesh_error(flipped, "3 edges are used twice in the same direction")
  local inward = cube_mesh()
  for _, tri in ipairs(inward.triangles) do tri[2], tri[3] = tri[3], tri[2] end
  closed_mesh_error(inward, "the mesh's volume is -1")
  local bad = cube_mesh()
  bad.triangles[2] = {1, 4, 9}
  closed_mesh_error(bad, "triangle 2 refers to vertex 9")
  bad.triangles[2] = {1, 4, 1e20}
  closed_mesh_error(bad, "mesh.triangles[2] must hold integer vertex indices")
  bad.triangles[2] = {1, 4, 2.5}
  closed_mesh_error(bad, "mesh.triangles[2] must hold integer vertex indices")
  local path = os.tmpname() .. ".obj"
  local file = assert(io.open(path, "w"))
  file:write("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n")
  file:close()
  t.raises(": no faces", lucid.mesh.decompose, path)
  file = assert(io.open(path, "w"))
  file:write("v 0 0 0\nv 1 0 0\nf 1 2 3\n")
  file:close()
  t.raises(":3: face refers to vertex 3, but 2 vertices are defined before it",
           lucid.mesh.decompose, path)
  os.remove(path)
  -- the options follow lucid_decompose_option_table (scale is the binding's own)
  local F = "lucid.mesh.decompose: "
  t.raises(F .. "unknown option 'parts' (expected one of: max_parts, concavity, holes, scale)",
           lucid.mesh.decompose, cube_mesh(), {parts = 3})
  t.raises(F .. "max_parts must be an integer in [1, 1048576] (got 0)", lucid.mesh.decompose,
           cube_mesh(), {max_parts = 0})
  t.raises(F .. "max_parts must be an integer in [1, 1048576] (got 1048577)",
           lucid.mesh.decompose, cube_mesh(), {max_parts = 1048577})
  t.raises(F .. "max_parts must be an integer (got 2.5)", lucid.mesh.decompose, cube_mesh(),
           {max_parts = 2.5})
  t.raises(F .. "concavity must be > 0 (got -1.0)", lucid.mesh.decompose, cube_mesh(),
           {concavity = -1})
  t.raises(F .. "concavity must be a number (got string)", lucid.mesh.decompose, cube_mesh(),
           {concavity = "0.1"})
  t.raises(F .. "scale must be positive (got 0.0)", lucid.mesh.decompose, cube_mesh(), {scale = 0})
  t.raises(F .. 'holes must be "close" or "refuse" (got fill)', lucid.mesh.decompose,
           cube_mesh(), {holes = "fill"})
  t.raises("expected a mesh file path or a {vertices=, triangles=} table", lucid.mesh.decompose, 3)
  t.raises("unknown option 'mesh.faces'", lucid.mesh.decompose, {vertices = {}, faces = {}})
end)

-- Hole closing (holes = "close", the default): each boundary loop is capped by ears of its
-- projection, oriented like its neighbours.
local quiet_decompose = require "mesh_testing".quiet_decompose

t.case("an open box (one face missing) is closed to its volume exactly", function()
  -- tests/data/mesh/open_box.obj: 0.1 x 0.08 x 0.06, its top an 8-edge loop with a vertex at
  -- the middle of each edge
  local parts, info = quiet_decompose("tests/data/mesh/open_box.obj")
  t.eq(info.holes_closed, 1)
  t.eq(info.hole_edges, 8)
  t.near(info.mesh_volume, 0.1 * 0.08 * 0.06, 1e-18)
  t.eq(#parts, 1, "the closed box is convex")
  t.near(hull_volume(parts[1].shape), 0.1 * 0.08 * 0.06, 1e-18)
  t.raises("open_box.obj: the mesh is not closed: 8 edges have no opposite edge",
           lucid.mesh.decompose, "tests/data/mesh/open_box.obj", {holes = "refuse"})
  -- a closed mesh reports no holes; a cube missing one triangle gets it back
  local _, closed = lucid.mesh.decompose(cube_mesh())
  t.eq(closed.holes_closed, 0)
  local open = cube_mesh()
  table.remove(open.triangles)
  local _, capped = quiet_decompose(open)
  t.eq(capped.holes_closed, 1)
  t.eq(capped.hole_edges, 3)
  t.near(capped.mesh_volume, 1, 1e-15)
end)

t.case("a mug whose handle is an open tube is closed to the closed mug's volume", function()
  local closed, open = mug(), mug(true)
  local V = mesh_volume(closed)
  local parts, info = quiet_decompose(open, {max_parts = 16})
  t.eq(info.holes_closed, 2)
  t.eq(info.hole_edges, 8)
  t.near(info.mesh_volume, V, 1e-12 * V, "the caps are the handle's end faces")
  local _, whole = lucid.mesh.decompose(closed, {max_parts = 16})
  t.near(info.parts_volume, whole.parts_volume, 1e-9 * V, "the same parts as the closed mug's")
  t.eq(#parts, 16)
end)

t.case("holes that cannot be closed are refused by name", function()
  -- an open box whose faces point inwards: its cap would close a negative volume
  local path = os.tmpname() .. ".obj"
  local src, dst = assert(io.open("tests/data/mesh/open_box.obj")), assert(io.open(path, "w"))
  for line in src:lines() do
    local f = {}
    for i in line:gmatch("%d+") do f[#f + 1] = i end
    if line:sub(1, 2) == "f " then
      local r = {}
      for k = #f, 1, -1 do r[#r + 1] = f[k] end
      line = "f " .. table.concat(r, " ")
    end
    dst:write(line, "\n")
  end
  src:close(); dst:close()
  t.raises("leaves its piece of the mesh with volume -0.00048: the surface around the hole is "
           .. "flat or faces into it", lucid.mesh.decompose, path)
  os.remove(path)
  -- two holes touching at a vertex (a cube missing two triangles that share vertex 1 only)
  local pinched = cube_mesh()
  table.remove(pinched.triangles, 9) -- {1, 5, 7}
  table.remove(pinched.triangles, 1) -- {1, 3, 4}
  t.raises("vertex 1 is on two holes' boundaries (a non-manifold vertex)", lucid.mesh.decompose,
           pinched)
end)

return t
