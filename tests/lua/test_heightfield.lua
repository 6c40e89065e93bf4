-- Height fields (lucid.heightfield, MuJoCo's hfield): collided per grid cell as triangular
-- prisms. A flat field must hold a sphere and a box exactly as a plane does, a sloped field
-- must give the slope's normal, and a sphere rolls down a slope as rolling without slip predicts.
local t = require "testing"
local lucid = require "lucid"

-- n x n samples of f(r, c) (1-based row r along y, column c along x).
local function grid(n, f)
  local e = {}
  for r = 1, n do
    e[r] = {}
    for c = 1, n do e[r][c] = f(r, c) end
  end
  return e
end

local SIZE = {1, 1, 0.5, 0.2} -- x, y half-extents, elevation scale, base depth

-- The world after `steps` steps of `shape` dropped from `pose` onto `ground`.
local function settle(ground, shape, pose, steps)
  local w = lucid.world{dt = 1e-3}
  w:add_static{shape = ground, friction = 1}
  local id = w:add_body{shape = shape, mass = 1, pose = pose, friction = 1}
  w:step(steps)
  return w, id
end

-- The contacts of w that carry force.
local function loaded(w)
  local out = {}
  for _, c in ipairs(w:contacts()) do
    if c.lambda[3] > 0 then out[#out + 1] = c end
  end
  return out
end

t.case("a sphere and a box rest on a flat height field exactly as on a plane", function()
  local field = lucid.heightfield{elevation = grid(11, function() return 3 end), size = SIZE}
  local plane = lucid.halfspace({0, 0, 1}, 0)
  -- off the grid lines, on a cell diagonal, on a vertex where six prisms meet
  for _, xy in ipairs{{0.013, 0.021}, {0.05, 0.05}, {0.2, -0.4}} do
    for _, shape in ipairs{lucid.sphere(0.1), lucid.box(0.1, 0.07, 0.05)} do
      local pose = lucid.se3.new({1, 0, 0, 0}, {xy[1], xy[2], 0.2})
      local wf, f = settle(field, shape, pose, 600)
      local wp, p = settle(plane, shape, pose, 600)
      -- the same up to EPA's depth tolerance, 1e-9 m (the plane's depth is closed-form)
      t.allnear(wf:pose(f):translation(), wp:pose(p):translation(), 1e-9, shape:kind())
      local cf, cp = loaded(wf), loaded(wp)
      t.eq(#cf, #cp, shape:kind() .. " loaded contacts")
      for k = 1, #cf do
        t.allnear(cf[k].normal, {0, 0, 1}, 1e-9, "normal") -- a sphere's: EPA's, ~1e-11 off
        -- within EPA's depth tolerance (1e-9 m): the plane's depth is closed-form
        t.near(cf[k].separation, cp[k].separation, 1e-9, "penetration")
      end
    end
  end
end)

t.case("a box over 400 cells rests on a flat field as on a plane (its 4 corners)", function()
  local field = lucid.heightfield{elevation = grid(41, function() return 0 end), size = SIZE}
  local plane = lucid.halfspace({0, 0, 1}, 0)
  local box = lucid.box(0.5, 0.45, 0.05)
  local pose = lucid.se3.new({1, 0, 0, 0}, {0.013, 0.021, 0.06})
  local wf, f = settle(field, box, pose, 300)
  local wp, p = settle(plane, box, pose, 300)
  t.allnear(wf:pose(f):translation(), wp:pose(p):translation(), 1e-9, "pose")
  local cf, cp = loaded(wf), loaded(wp)
  t.eq(#cf, 4, "corners")
  t.eq(#cp, 4, "corners on the plane")
  for k = 1, 4 do
    local found = false
    for q = 1, 4 do
      local d = cf[k].point - cp[q].point
      found = found or d:norm() < 1e-9
    end
    t.truthy(found, "corner " .. k)
  end
end)

-- A shape sunk into a flat field (started inside it, pushed in) is touched through the field's
-- surface at any depth, as through a plane: the prisms' walls its deepest points have passed
-- are internal, so the top faces' points stand for them (they once left no contact at all
-- beyond the depth where a wall is nearer than the top: a sphere of r 3 cm from 35 mm on 5 cm
-- cells, a box of 3 cm half height from 40 mm, and the box had 3 of its 4 corners at 5 mm).
t.case("a shape sunk into a flat field has the plane's contacts at any depth", function()
  local field = lucid.heightfield{elevation = grid(41, function() return 0 end), size = SIZE}
  local plane = lucid.halfspace({0, 0, 1}, 0)
  local function contacts(ground, shape, z)
    local w = lucid.world{dt = 1e-3}
    w:add_static{shape = ground}
    w:add_body{shape = shape, mass = 1, pose = lucid.se3.new({1, 0, 0, 0}, {-0.335, 0.152, z})}
    w:step()
    local out = w:contacts()
    table.sort(out, function(a, b) return a.point[1] + 3 * a.point[2] < b.point[1] + 3 * b.point[2] end)
    return out
  end
  for _, shape in ipairs{lucid.sphere(0.03), lucid.box(0.05, 0.04, 0.03)} do
    for depth = 0.005, 0.1501, 0.005 do -- the base lies 0.2 m below the surface
      local cf, cp = contacts(field, shape, 0.03 - depth), contacts(plane, shape, 0.03 - depth)
      t.eq(#cf, #cp, string.format("%s %.3f m deep: contacts", shape:kind(), depth))
      for k = 1, math.min(#cf, #cp) do
        t.allnear(cf[k].point, cp[k].point, 1e-9, "point")
        t.allnear(cf[k].normal, {0, 0, 1}, 1e-9, "normal")
        t.near(cf[k].separation, cp[k].separation, 1e-9, "depth")
      end
    end
  end
  -- and is pushed back out: a sphere started 6 cm deep rests on the surface as on the plane
  local ball = lucid.sphere(0.03)
  local pose = lucid.se3.new({1, 0, 0, 0}, {-0.335, 0.152, -0.03})
  local wf, f = settle(field, ball, pose, 3000)
  local wp, p = settle(plane, ball, pose, 3000)
  t.allnear(wf:pose(f):translation(), wp:pose(p):translation(), 1e-9, "the sunk sphere's rest")
  t.truthy(wf:pose(f):translation()[3] > 0.029, "the sunk sphere is back on the surface")
end)

t.case("every convex shape dropped tilted on a flat field lands as on the plane", function()
  local field = lucid.heightfield{elevation = grid(11, function() return 0 end), size = SIZE}
  local plane = lucid.halfspace({0, 0, 1}, 0)
  local pose = lucid.se3.new({1, 0, 0, 0}, {0.013, 0.021, 0.3}) *
               lucid.se3.exp({0, 0, 0, 1.2, 0.3, 0})
  -- the box, the cylinder and the convex mesh land on corners (rim points) over other cells
  -- than the prism they touch first: each prism's top-face plane finds them there
  for _, shape in ipairs{lucid.sphere(0.05), lucid.box(0.05, 0.04, 0.03),
                         lucid.capsule(0.05, 0.1), lucid.cylinder(0.05, 0.1),
                         lucid.cone(0.05, 0.1), lucid.ellipsoid(0.1, 0.07, 0.05),
                         lucid.convex{{0.05, 0, 0}, {-0.05, 0.04, 0}, {-0.03, -0.05, 0.01},
                                      {0, 0, 0.08}, {0.02, 0.03, -0.04}}} do
    local wf, f = settle(field, shape, pose, 1500)
    local wp, p = settle(plane, shape, pose, 1500)
    -- the top faces' contacts are the plane's (the same vertex rules): measured <= 8e-11 m
    -- (EPA's 1e-9 m depth tolerance on the prisms' first touch)
    t.allnear(wf:pose(f):translation(), wp:pose(p):translation(), 1e-9, shape:kind())
  end
end)

t.case("contacts on a sloped field have the slope's normal", function()
  -- height = 0.5 (c - 1 + 2 (r - 1)) / 30 over 0.2 m cells: slopes 1/12 along x, 1/6 along y
  local field = lucid.heightfield{elevation = grid(11, function(r, c) return c + 2 * r end),
                                  size = SIZE}
  local n = {-1 / 12, -1 / 6, 1}
  local len = math.sqrt(n[1] ^ 2 + n[2] ^ 2 + 1)
  n = {n[1] / len, n[2] / len, n[3] / len}
  local function height(x, y) return 0.5 * ((x + 1) / 0.2 + 2 * (y + 1) / 0.2) / 30 end
  for _, xy in ipairs{{0.013, 0.021}, {-0.3, 0.45}, {0.4, -0.2}} do
    for _, shape in ipairs{lucid.sphere(0.05), lucid.box(0.05, 0.04, 0.03),
                           lucid.capsule(0.03, 0.05)} do
      -- resting on the slope, 1 mm deep (the box tilted to the slope)
      local z = height(xy[1], xy[2])
      local axis = {-n[2], n[1], 0} -- z x n
      local angle = math.acos(n[3])
      local s = math.sin(angle / 2) / math.sqrt(axis[1] ^ 2 + axis[2] ^ 2)
      local R = lucid.se3.new({math.cos(angle / 2), axis[1] * s, axis[2] * s, 0}, {0, 0, 0})
      -- the centre's height above the lowest point along n (R maps z to n), less 1 mm
      local lift = shape:support({0, 0, 1})[3] - 1e-3
      local c = {xy[1] + n[1] * lift, xy[2] + n[2] * lift, z + n[3] * lift}
      local pose = lucid.se3.new(R:rotation(), c)
      local w = lucid.world{dt = 1e-3, gravity = {0, 0, 0}}
      w:add_static{shape = field}
      w:add_body{shape = shape, mass = 1, pose = pose}
      w:step()
      local deep = 0
      for _, k in ipairs(w:contacts()) do
        if k.separation < 0 then
          deep = deep + 1
          t.allnear(k.normal, n, 1e-9, shape:kind() .. " normal")
        end
      end
      t.truthy(deep >= 1, shape:kind() .. ": a penetrating contact")
    end
  end
end)

t.case("a sphere rolls down a sloped field as down the same slope's plane, at 5/7 g sin(theta)",
       function()
  -- 5 cm cells: the ball crosses two grid lines, where the prisms' internal edges lie
  local field = lucid.heightfield{elevation = grid(81, function(_, c) return c end),
                                  size = {2, 2, 0.4, 0.2}}
  local theta = math.atan(0.4 / 4) -- 0.4 m over 4 m along x
  local r, x0 = 0.05, 1.02
  local z0 = 0.4 * (x0 + 2) / 4
  local n = {-math.sin(theta), 0, math.cos(theta)}
  local plane = lucid.halfspace(n, n[1] * x0 + n[3] * z0)
  local start = {x0 + r * n[1], 0.1, z0 + r * n[3]}
  local T, dt = 0.5, 1e-3
  local ends = {}
  for k, ground in ipairs{field, plane} do
    local w = lucid.world{dt = dt}
    w:add_static{shape = ground, friction = 1}
    local id = w:add_body{shape = lucid.sphere(r), mass = 1,
                          pose = lucid.se3.new({1, 0, 0, 0}, start), friction = 1}
    w:step(math.floor(T / dt + 0.5))
    ends[k] = w:pose(id):translation()
  end
  local p = ends[1]
  t.allnear(p, ends[2], 1e-9, "field and plane")
  local d = math.sqrt((p[1] - start[1]) ^ 2 + (p[3] - start[3]) ^ 2)
  -- semi-implicit Euler moves a m (m + 1) dt^2 / 2 after m steps (measured: 2.4e-5 m short,
  -- on the plane as on the field)
  local a, m = 5 / 7 * 9.81 * math.sin(theta), T / dt
  t.near(d, a * m * (m + 1) * dt * dt / 2, 1e-4, "distance rolled")
  t.near(p[2], 0.1, 1e-9, "no sideways drift")
end)

t.case("lucid.heightfield validates its input", function()
  local ok = grid(3, function() return 0 end)
  t.raises("lucid.heightfield: size[1] (x half-extent) must be > 0",
           lucid.heightfield, {elevation = ok, size = {0, 1, 1, 1}})
  t.raises("lucid.heightfield: size[4] (base depth) must be > 0",
           lucid.heightfield, {elevation = ok, size = {1, 1, 1, -1}})
  t.raises("lucid.heightfield: size", lucid.heightfield, {elevation = ok, size = {1, 1, 1}})
  t.raises("lucid.heightfield: size is required", lucid.heightfield, {elevation = ok})
  t.raises("lucid.heightfield: elevation is required", lucid.heightfield, {size = SIZE})
  t.raises("lucid.heightfield: elevation must have at least 2 x 2 samples",
           lucid.heightfield, {elevation = {{1, 2, 3}}, size = SIZE})
  t.raises("lucid.heightfield: elevation must have at least 2 x 2 samples",
           lucid.heightfield, {elevation = lucid.zeros(3, 1), size = SIZE})
  t.raises("lucid.heightfield: elevation[2][1] must be finite",
           lucid.heightfield, {elevation = {{1, 2}, {0 / 0, 1}}, size = SIZE})
  t.raises("lucid.heightfield: elevation row 2 must be a list of 2 numbers",
           lucid.heightfield, {elevation = {{1, 2}, {1}}, size = SIZE})
  t.raises("lucid.heightfield: elevation[1][2] must be a number",
           lucid.heightfield, {elevation = {{1, "x"}, {1, 2}}, size = SIZE})
  t.raises("unknown", lucid.heightfield, {elevation = ok, size = SIZE, scale = 2})
  local field = lucid.heightfield{elevation = ok, size = SIZE}
  t.raises("heightfield can only be static", function()
    lucid.world{}:add_body{shape = field, mass = 1}
  end)
  local I = lucid.se3.identity()
  t.raises("lucid.distance: s1 is a height field, not convex", lucid.distance, field, I,
           lucid.sphere(1), I)
  t.raises("lucid.contact_patch: shape 2 is a height field", lucid.contact_patch,
           lucid.sphere(1), I, field, I)
  t.raises("lucid.pscaling: s1 is a height field", lucid.pscaling, field, I, lucid.sphere(1), I)
  local w = lucid.world{collision = "single_level"}
  w:add_static{shape = field}
  w:add_body{shape = lucid.sphere(0.1), mass = 1, pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.05})}
  t.raises("single_level: height fields are not supported", function() w:step() end)
end)

t.case("a lucid.mat elevation is read row by row along y", function()
  local m = lucid.zeros(2, 3):set(2, 3, 1) -- rows along y, columns along x: (+1, +1) raised
  local field = lucid.heightfield{elevation = m, size = {1, 1, 0.5, 0.1}}
  t.allnear(field:support({1, 1, 1}), {1, 1, 0.5}, 0, "raised corner")
  local lo, hi = field:aabb()
  t.allnear(lo, {-1, -1, -0.1}, 0, "box lo")
  t.allnear(hi, {1, 1, 0.5}, 0, "box hi")
end)

t.case("step derivatives through height field contacts: carried, as detection at each column", function()
  local field = lucid.heightfield{elevation = grid(11, function() return 0 end), size = SIZE}
  local D = {}
  for k, ground in ipairs{field, lucid.halfspace({0, 0, 1}, 0)} do
    local w = settle(ground, lucid.box(0.05, 0.04, 0.03),
                     lucid.se3.new({1, 0, 0, 0}, {0.13, 0.07, 0.1}), 300)
    D[k] = w:step_derivatives()
    t.eq(D[k].geometry, "carried", "auto carries the contacts (the prisms' top faces)")
    local C = w:step_derivatives{geometry = "collide"}
    t.allnear(C.A:totable(), D[k].A:totable(), 1e-6, "collide's A")
  end
  -- a flat field and the plane give the same Jacobian (up to EPA's 1e-9 m depths)
  t.allnear(D[1].A:totable(), D[2].A:totable(), 1e-6, "A")
end)

-- max |P - Q| / max(|Q|, floor) over the entries of two lucid.mat
local function rel(P, Q, floor)
  local d, m = 0, 0
  for i = 1, P:rows() do
    for j = 1, P:cols() do
      d = math.max(d, math.abs(P:get(i, j) - Q:get(i, j)))
      m = math.max(m, math.abs(Q:get(i, j)))
    end
  end
  return d / math.max(m, floor)
end

-- The carried geometry's A and B against central differences of whole steps solved to 1e-13
-- (the best of h = 1e-4, 1e-5, 3e-6, as tests/lua/test_step_derivatives.lua) and against
-- detection at each column (geometry = "collide"), each within 1e-6 relative.
local function carried_against_whole_steps(name, w, geometry)
  local x, u = w:state(), w:controls()
  local D = w:step_derivatives{geometry = geometry}
  t.eq(D.geometry, "carried", name)
  t.eq(D.fallback_columns, 0, name)
  local best = {A = math.huge, B = math.huge}
  for _, h in ipairs{1e-4, 1e-5, 3e-6} do
    w:set_state(x)
    w:set_controls(u)
    local F = w:step_derivatives{method = "finite_differences", step = h, tol = 1e-13,
                                 max_iter = 100000}
    best.A = math.min(best.A, rel(D.A, F.A, 1))
    best.B = math.min(best.B, rel(D.B, F.B, 1e-3))
    print(string.format("%s: h = %.0e: A %.1e, B %.1e", name, h, rel(D.A, F.A, 1),
                        rel(D.B, F.B, 1e-3)))
  end
  for b, e in pairs(best) do t.truthy(e <= 1e-6, name .. ": " .. b .. " relative error " .. e) end
  w:set_state(x)
  w:set_controls(u)
  local C = w:step_derivatives{geometry = "collide"}
  t.eq(C.geometry, "collide", name)
  local e = rel(D.A, C.A, 1)
  print(string.format("%s: carried and collide A differ by %.1e", name, e))
  t.truthy(e <= 1e-6, name .. ": carried and collide A differ by " .. e)
  return D
end

t.case("carried contact geometry on height fields (the contact's prism), against whole steps",
       function()
  -- the planar slope of the case above (heights 0.5 (c - 1 + 2 (r - 1)) / 30, 0.2 m cells)
  local slope = lucid.heightfield{elevation = grid(11, function(r, c) return c + 2 * r end),
                                  size = SIZE}
  local n = {-1 / 12, -1 / 6, 1}
  local len = math.sqrt(n[1] ^ 2 + n[2] ^ 2 + 1)
  n = {n[1] / len, n[2] / len, n[3] / len}
  local function height(x, y) return 0.5 * ((x + 1) / 0.2 + 2 * (y + 1) / 0.2) / 30 end
  local axis = {-n[2], n[1], 0} -- z x n: the rotation taking z to n
  local angle = math.acos(n[3])
  local sa = math.sin(angle / 2) / math.sqrt(axis[1] ^ 2 + axis[2] ^ 2)
  local tilt = {math.cos(angle / 2), axis[1] * sa, axis[2] * sa, 0}
  -- a body resting 2e-4 m deep on the slope at (x, y), tilted to it, moving along it
  local function on_slope(shape, x, y, velocity, controls)
    local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
    w:add_static{shape = slope, friction = 0.5}
    local lift = shape:support({0, 0, 1})[3] - 2e-4
    local c = {x + n[1] * lift, y + n[2] * lift, height(x, y) + n[3] * lift}
    w:add_body{shape = shape, mass = 1, pose = lucid.se3.new(tilt, c), velocity = velocity}
    if controls then w:set_controls(controls) end
    return w
  end
  -- a sphere sliding, spinning and pushed (one top-face contact); a box sliding, pushed (a
  -- force and a torque about z), and at rest, over a cell diagonal (its corners on both prisms'
  -- top faces); each with the default geometry too. (A box spinning as it slides is left out:
  -- its four corners' normal forces are not unique and weigh their slip directions' friction,
  -- so the rigid step's answer is free along one direction, on the field as on the halfspace:
  -- docs/step_derivatives.md, "Four coplanar contacts sliding and spinning".)
  local cases = {
    {"sphere on the slope", lucid.sphere(0.05), 0.013, 0.021, {0.4, -0.2, 0, 1, 2, 3}, 1,
     {0.3, 0.2, 0, 0, 0, 0.01}},
    {"box sliding on the slope", lucid.box(0.05, 0.04, 0.03), 0.1, 0.1, {0.3, 0.2, 0, 0, 0, 0}, 4},
    {"box pushed on the slope", lucid.box(0.05, 0.04, 0.03), 0.1, 0.1, {0.3, 0.2, 0, 0, 0, 0}, 4,
     {0.3, 0.2, 0, 0, 0, 0.01}},
    {"box at rest on the slope", lucid.box(0.05, 0.04, 0.03), 0.1, 0.1, {0, 0, 0, 0, 0, 0}, 4},
  }
  for _, case in ipairs(cases) do
    for _, geometry in ipairs{"carried", "auto"} do
      local w = on_slope(case[2], case[3], case[4], case[5], case[7])
      local D = carried_against_whole_steps(case[1] .. " (" .. geometry .. ")", w, geometry)
      t.eq(#D.contacts, case[6], case[1])
    end
  end
  -- a ridge along x (heights 0.1 |r - 6| / 5 below the crest): a sphere on the crest touches
  -- the prisms' shared edge, which is no top face: the prism's edge-against-sphere rule
  local ridge = lucid.heightfield{elevation = grid(11, function(r) return -math.abs(r - 6) end),
                                  size = {1, 1, 0.1, 0.2}}
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  w:add_static{shape = ridge, friction = 0.5}
  w:add_body{shape = lucid.sphere(0.05), mass = 1,
             pose = lucid.se3.new({1, 0, 0, 0}, {0.013, 0.004, 0.1 + 0.05 - 1e-3}),
             velocity = {0.3, 0, -0.05, 0, 0, 1}} -- pressing (a contact without force is a kink)
  local D = carried_against_whole_steps("sphere on a ridge's crest", w, "carried")
  t.eq(#D.contacts, 1, "one edge contact")
  local k = w:contacts()[1]
  t.truthy(k.normal[2] > 0.01 and k.normal[2] < 0.0995 * 0.99, "the edge's normal, no face's")
  -- its piece: a prism of the cells along the crest (rows 5 and 6 meet at y = 0; x = 0.013
  -- lies in column 6), by an edge, not a top face
  t.truthy(k.prism and (k.prism.row == 5 or k.prism.row == 6) and k.prism.col == 6 and
           (k.prism.tri == 1 or k.prism.tri == 2) and k.prism.top == false, "the crest's prism")
  -- the sphere on the slope touches a top face: the cell under (0.013, 0.021), row 6, column 6
  local s = on_slope(lucid.sphere(0.05), 0.013, 0.021, {0, 0, 0, 0, 0, 0})
  s:step()
  local p = s:contacts()[1].prism
  t.truthy(p and p.row == 6 and p.col == 6 and p.top == true, "the slope's top face")
end)

t.case("lucid.model.build takes a height field among its static shapes (a copy)", function()
  local field = lucid.heightfield{elevation = grid(3, function() return 0 end), size = SIZE}
  t.raises("a height field must be static", lucid.model.build,
           {bodies = {{name = "a", mass = 1, inertia = {1, 1, 1},
                       joints = {{name = "j", kind = "free"}}, shapes = {{shape = field}}}}})
  local function resting(ground)
    local m = lucid.model.build{
      shapes = {{shape = ground}},
      bodies = {{name = "ball", mass = 1, inertia = {0.004, 0.004, 0.004},
                 placement = lucid.se3.new({1, 0, 0, 0}, {0.1, 0.2, 0.3}),
                 joints = {{name = "j", kind = "free"}}, shapes = {{shape = lucid.sphere(0.1)}}}}}
    ground = nil -- luacheck: ignore (the model holds its own copy)
    collectgarbage()
    collectgarbage()
    local w = lucid.world{}
    local id = w:add_model(m)
    w:step(1000)
    return w:q(id)[3], m
  end
  local z, m = resting(field)
  field = nil -- luacheck: ignore
  t.near(z, resting(lucid.halfspace({0, 0, 1}, 0)), 1e-9, "as on the plane z = 0")
  t.truthy(z < -0.19, "landed")
  t.eq(m:geoms()[1].shape:kind(), "heightfield")
end)
