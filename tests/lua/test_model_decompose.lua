-- lucid.model.load's meshes = "decompose": a model's collision mesh becomes its convex parts
-- on the same link, so a link can be non-convex. Checked on an open bin (a box with a square
-- cavity): a ball dropped into it lands on its floor where the hull holds it on the rim; every
-- part reports the file geom's index; the link's mass from geoms is the bin's own solid (exact,
-- analytic), not its hull's or the parts'; a convex mesh stays one geom without parts; bad
-- options and meshes are refused by name.
local t = require "testing"
local lucid = require "lucid"

-- An open bin: outer square 2a x 2a (a = R / sqrt 2), height H, a cavity 2b x 2b (b =
-- r / sqrt 2) from the floor's top at z = f to the rim. Faces outwards.
local R, r, H, f = 0.07, 0.05, 0.06, 0.01
local a, b = R / math.sqrt(2), r / math.sqrt(2)

local function bin_mesh()
  local N = 4
  local V, F = {}, {}
  local function ring(radius, z)
    local first = #V
    for i = 0, N - 1 do
      local angle = (i + 0.5) * 2 * math.pi / N
      V[#V + 1] = {radius * math.cos(angle), radius * math.sin(angle), z}
    end
    return first
  end
  local ob, ot, it, ib = ring(R, 0), ring(R, H), ring(r, H), ring(r, f)
  V[#V + 1] = {0, 0, 0}; local cb = #V
  V[#V + 1] = {0, 0, f}; local ci = #V
  for i = 0, N - 1 do
    local j = (i + 1) % N
    local o0, o1, t0, t1 = ob + i + 1, ob + j + 1, ot + i + 1, ot + j + 1
    local i0, i1, b0, b1 = it + i + 1, it + j + 1, ib + i + 1, ib + j + 1
    F[#F + 1] = {o0, o1, t1}; F[#F + 1] = {o0, t1, t0}   -- outer wall
    F[#F + 1] = {t0, t1, i1}; F[#F + 1] = {t0, i1, i0}   -- rim
    F[#F + 1] = {i0, i1, b1}; F[#F + 1] = {i0, b1, b0}   -- inner wall
    F[#F + 1] = {b0, b1, ci}                             -- cavity floor, facing up
    F[#F + 1] = {o1, o0, cb}                             -- bottom, facing down
  end
  return {vertices = V, triangles = F}
end

local function cube_mesh(s)
  local V = {}
  for k = 0, 7 do V[#V + 1] = {s * (k & 1), s * ((k >> 1) & 1), s * ((k >> 2) & 1)} end
  local F = {{1, 3, 4}, {1, 4, 2}, {5, 6, 8}, {5, 8, 7}, {1, 2, 6}, {1, 6, 5},
             {3, 7, 8}, {3, 8, 4}, {1, 5, 7}, {1, 7, 3}, {2, 4, 8}, {2, 8, 6}}
  return {vertices = V, triangles = F}
end

-- The files of a case live in a fresh folder, removed after it.
local dir = os.tmpname()
os.remove(dir)
t.teardown(function() os.execute("rm -rf '" .. dir .. "'") end)

local function write(name, text)
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  local file = assert(io.open(dir .. "/" .. name, "w"))
  file:write(text)
  file:close()
  return dir .. "/" .. name
end

local function write_obj(name, mesh, drop)
  local lines = {}
  for _, v in ipairs(mesh.vertices) do
    lines[#lines + 1] = string.format("v %.17g %.17g %.17g", v[1], v[2], v[3])
  end
  for i, tri in ipairs(mesh.triangles) do
    if i ~= drop then lines[#lines + 1] = string.format("f %d %d %d", tri[1], tri[2], tri[3]) end
  end
  return write(name, table.concat(lines, "\n") .. "\n")
end

local function write_meshes()
  write_obj("bin.obj", bin_mesh())
  write_obj("open.obj", bin_mesh(), 1) -- one triangle missing: not closed
  write_obj("cube.obj", cube_mesh(0.04))
end

-- The bin on a free body (no <inertial>: mass from the geom at density 1000), a floor plane.
local function bin_xml(mesh, extra)
  write_meshes()
  return write("bin_" .. mesh .. ".xml", string.format([[
<mujoco>
  <compiler meshdir="."/>
  <asset><mesh name="m" file="%s.obj"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="1 1 0.1"/>
    <body name="bin">
      <freejoint/>
      <geom name="bin" type="mesh" mesh="m" friction="0.8" %s/>
    </body>
  </worldbody>
</mujoco>]], mesh, extra or ""))
end

local function geom_named(m, name)
  for i, g in ipairs(m:geoms()) do if g.name == name then return i, g end end
end

-- The ball's resting height and the contacts of its last step with the bin.
local BALL = 0.015
local function drop_ball(m)
  local w = lucid.world{dt = 0.002}
  w:add_model(m)
  local ball = w:add_body{shape = lucid.sphere(BALL), mass = 0.05,
                          pose = lucid.se3.new({1, 0, 0, 0}, {0.004, -0.003, H + 0.03})}
  w:step(600)
  local touching = {}
  for _, c in ipairs(w:contacts()) do
    if c.body1 == ball or c.body2 == ball then touching[#touching + 1] = c end
  end
  return w:pose(ball):translation()[3], touching, w, ball
end

t.case("a ball dropped into a decomposed bin lands on its floor; on the hull, on the rim", function()
  local BIN = bin_xml("bin")
  local hull = lucid.model.load(BIN)
  local m = lucid.model.load(BIN, {meshes = "decompose"})
  local gi, g = geom_named(m, "bin")
  t.truthy(g.parts and #g.parts > 1, "the bin geom has convex parts")
  t.eq(g.shape:kind(), "convex")
  t.eq(#m:geoms(), #hull:geoms(), "one geom per file geom")
  local z_hull = drop_ball(hull)
  local z, touching = drop_ball(m)
  print(string.format("  %d parts; ball centre at rest: %.5f m decomposed (floor top + radius "
    .. "%.5f), %.5f m on the hull (rim + radius %.5f)", #g.parts, z, f + BALL, z_hull, H + BALL))
  t.near(z, f + BALL, 2e-3, "resting on the cavity's floor")
  t.near(z_hull, H + BALL, 2e-3, "the hull holds it on the rim")
  t.truthy(#touching > 0, "the ball touches the bin")
  for _, c in ipairs(touching) do
    local geom = c.geom1 or c.geom2
    t.eq(geom, gi, "a part's contact names the file geom")
  end
end)

t.case("every part keeps the geom's index, pose and contact parameters", function()
  local m = lucid.model.load(bin_xml("bin", 'contype="2" conaffinity="3" margin="0.001"'),
                             {meshes = "decompose"})
  local gi, g = geom_named(m, "bin")
  local w = lucid.world{dt = 0.002}
  w:add_model(m)
  -- the world's link body: its parts are the geom's parts, all reporting geom gi
  local ball = w:add_body{shape = lucid.sphere(BALL), mass = 0.05,
                          pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, f + BALL + 0.0005})}
  w:step(1)
  local seen = {}
  for _, c in ipairs(w:contacts()) do
    if c.body1 == ball or c.body2 == ball then
      local part = c.body1 == ball and c.part2 or c.part1
      seen[part] = true
      t.eq(c.body1 == ball and c.geom2 or c.geom1, gi)
      t.near(c.include_margin, 0.001, 1e-15, "the geom's margin on its parts")
    end
  end
  t.truthy(next(seen) ~= nil, "the ball touches a part")
  t.eq(g.contype, 2)
  t.eq(g.conaffinity, 3)
end)

t.case("mass from geoms is the bin's own solid, not its hull's or its parts'", function()
  local BIN = bin_xml("bin")
  local m = lucid.model.load(BIN, {meshes = "decompose"})
  local hull = lucid.model.load(BIN)
  local rho = 1000
  local Vo, Vc = (2 * a) ^ 2 * H, (2 * b) ^ 2 * (H - f)
  local mass = rho * (Vo - Vc)
  local zc = (Vo * H / 2 - Vc * (f + (H - f) / 2)) / (Vo - Vc)
  local Izz = rho * (Vo * (2 * a) ^ 2 / 6 - Vc * (2 * b) ^ 2 / 6)
  t.near(m:mass(), mass, 1e-12, "mass")
  t.near(hull:mass(), rho * Vo, 1e-12, "the hull's mass (meshes = 'load')")
  local _, g = geom_named(m, "bin")
  local parts_volume = 0
  for _, p in ipairs(g.parts) do
    local lo, hi = p:aabb() -- the parts are boxes here
    parts_volume = parts_volume + (hi[1] - lo[1]) * (hi[2] - lo[2]) * (hi[3] - lo[3])
  end
  t.truthy(parts_volume >= Vo - Vc - 1e-12, "the parts cover the solid")
  local q = m:neutral()
  local com = lucid.dynamics.com(m, q)
  t.allnear(com, {0, 0, zc}, 1e-12, "centre of mass")
  local M = lucid.dynamics.crba(m, q)
  t.near(M:get(6, 6) / Izz, 1, 1e-12, "Izz (about the body origin, on the axis through the com)")
end)

t.case("a convex mesh stays one geom without parts, its mass its own", function()
  local xml = bin_xml("cube")
  local m = lucid.model.load(xml, {meshes = "decompose"})
  local _, g = geom_named(m, "bin")
  t.eq(g.parts, nil, "no parts")
  t.near(m:mass(), 1000 * 0.04 ^ 3, 1e-12)
  t.near(lucid.model.load(xml):mass(), m:mass(), 1e-12)
end)

t.case("decompose options reach the decomposition; bad ones are refused by name", function()
  local BIN = bin_xml("bin")
  local one = lucid.model.load(BIN, {meshes = "decompose", decompose = {max_parts = 1}})
  local _, g1 = geom_named(one, "bin")
  t.eq(g1.parts, nil, "max_parts = 1: the hull")
  local two = lucid.model.load(BIN, {meshes = "decompose", decompose = {max_parts = 2}})
  t.eq(#select(2, geom_named(two, "bin")).parts, 2)
  t.raises("lucid.model.load: unknown option 'decompose.max_part'", lucid.model.load, BIN,
           {meshes = "decompose", decompose = {max_part = 2}})
  -- the same reader as lucid.mesh.decompose's (lucid_decompose_option_table)
  t.raises("lucid.model.load: decompose.max_parts must be an integer in [1, 1048576] (got 0)",
           lucid.model.load, BIN, {meshes = "decompose", decompose = {max_parts = 0}})
  t.raises("lucid.model.load: decompose.concavity must be > 0 (got -1.0)", lucid.model.load, BIN,
           {meshes = "decompose", decompose = {concavity = -1}})
  t.raises("lucid.model.load: decompose.concavity must be a number (got boolean)",
           lucid.model.load, BIN, {meshes = "decompose", decompose = {concavity = true}})
  t.raises("decompose must be a table", lucid.model.load, BIN,
           {meshes = "decompose", decompose = 3})
  t.raises('decompose options need meshes = "decompose"', lucid.model.load, BIN,
           {decompose = {max_parts = 8}})
  t.raises('meshes must be "load", "skip" or "decompose"', lucid.model.load, BIN,
           {meshes = "hull"})
  local open = bin_xml("open")
  t.raises("bin_open.xml:8: cannot decompose mesh: " .. dir .. "/./open.obj: the mesh is not closed",
           lucid.model.load, open, {meshes = "decompose", decompose = {holes = "refuse"}})
  lucid.model.load(open) -- its hull loads as before
  -- by default its hole is closed (a warning on stderr): the cap is the missing triangle, so
  -- the mass, centre of mass and inertia are the closed bin's
  local capped = lucid.model.load(open, {meshes = "decompose"})
  local whole = lucid.model.load(BIN, {meshes = "decompose"})
  t.near(capped:mass(), whole:mass(), 1e-12 * whole:mass())
  t.truthy(#select(2, geom_named(capped, "bin")).parts > 1, "the capped bin is decomposed")
  t.raises('decompose.holes must be "close" or "refuse" (got open)', lucid.model.load, BIN,
           {meshes = "decompose", decompose = {holes = "open"}})
end)

t.case("URDF: a link's mesh collision decomposed", function()
  write_meshes()
  local urdf = write("bin.urdf", [[
<robot name="bin">
  <link name="bin">
    <inertial><mass value="0.5"/><inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><mesh filename="bin.obj"/></geometry></collision>
  </link>
</robot>]])
  local m = lucid.model.load(urdf, {meshes = "decompose", floating_base = true})
  local g = m:geoms()[1]
  t.truthy(g.parts and #g.parts > 1, "parts")
  t.eq(m:mass(), 0.5, "the <inertial> mass")
  local w = lucid.world{dt = 0.002}
  w:add_model(m)
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  local ball = w:add_body{shape = lucid.sphere(BALL), mass = 0.05,
                          pose = lucid.se3.new({1, 0, 0, 0}, {0.004, -0.003, H + 0.03})}
  w:step(600)
  t.near(w:pose(ball):translation()[3], f + BALL, 2e-3, "on the cavity's floor")
end)
