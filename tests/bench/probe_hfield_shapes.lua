-- Every convex shape dropped tilted onto a flat height field and onto the plane z = 0 (the same
-- pose, 1.5 s at 1 ms): the distance between the two final positions. On a flat field the
-- prisms' top faces are the plane, so the two should agree (docs/collision.md, "Height
-- fields"; tests/lua/test_heightfield.lua asserts 1e-9 for all seven shapes).
-- Usage: ./build/lucid tests/bench/probe_hfield_shapes.lua
local function grid(n, f)
  local e = {}
  for r = 1, n do
    e[r] = {}
    for c = 1, n do e[r][c] = f(r, c) end
  end
  return e
end

local function settle(ground, shape, pose, steps)
  local w = lucid.world{dt = 1e-3}
  w:add_static{shape = ground, friction = 1}
  local id = w:add_body{shape = shape, mass = 1, pose = pose, friction = 1}
  w:step(steps)
  return w, id
end

local field = lucid.heightfield{elevation = grid(11, function() return 0 end), size = {1, 1, 0.5, 0.2}}
local plane = lucid.halfspace({0, 0, 1}, 0)
local pose = lucid.se3.new({1, 0, 0, 0}, {0.013, 0.021, 0.3}) * lucid.se3.exp({0, 0, 0, 1.2, 0.3, 0})
local shapes = {
  {"sphere", lucid.sphere(0.05)}, {"box", lucid.box(0.05, 0.04, 0.03)},
  {"capsule", lucid.capsule(0.05, 0.1)}, {"cylinder", lucid.cylinder(0.05, 0.1)},
  {"cone", lucid.cone(0.05, 0.1)}, {"ellipsoid", lucid.ellipsoid(0.1, 0.07, 0.05)},
  {"convex mesh", lucid.convex{{0.05, 0, 0}, {-0.05, 0.04, 0}, {-0.03, -0.05, 0.01}, {0, 0, 0.08},
                               {0.02, 0.03, -0.04}}},
}
for _, s in ipairs(shapes) do
  local wf, f = settle(field, s[2], pose, 1500)
  local wp, p = settle(plane, s[2], pose, 1500)
  local d = (wf:pose(f):translation() - wp:pose(p):translation()):norm()
  print(string.format("%-12s |x_field - x_plane| = %.2e m (z %.6f m)", s[1], d,
                      wf:pose(f):translation()[3]))
end
