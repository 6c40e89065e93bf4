-- lucid.world: scenes from Lua against closed forms, composite bodies, state, misuse.
local t = require "testing"
local lucid = require "lucid"

local function at(x, y, z) return lucid.se3.new({1, 0, 0, 0}, {x, y, z}) end

local function ground_world(opts)
  local w = lucid.world(opts or {dt = 1e-3})
  local g = w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  return w, g
end

t.case("free fall follows the semi-implicit Euler closed form", function()
  local dt, g = 2e-3, -9.81
  local w = lucid.world{gravity = {0, 0, g}, dt = dt}
  local id = w:add_body{shape = lucid.sphere(0.1), pose = at(0, 0, 5),
                        velocity = {1, 0, 2, 0, 0, 0}}
  w:step(100)
  local n = 100
  local p = w:pose(id):translation()
  t.near(p[1], n * dt * 1, 1e-12)
  t.near(p[3], 5 + n * dt * 2 + dt * dt * g * n * (n + 1) / 2, 1e-12)
  t.near(w:velocity(id)[3], 2 + n * dt * g, 1e-12)
end)

t.case("a box dropped flat gets 4 contacts holding its weight and rests", function()
  local w = ground_world()
  local id = w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 2.0, pose = at(0, 0, 0.12)}
  w:step(400)
  local cs = w:contacts()
  t.eq(#cs, 4)
  local total = 0
  for _, c in ipairs(cs) do
    t.eq(c.body1, 1)
    t.eq(c.body2, id)
    t.near(c.normal[3], 1, 1e-12)
    t.truthy(c.separation < 0 and c.separation > -1e-4, "penetration within the slop")
    total = total + c.lambda[3]
  end
  t.near(total, 2.0 * 9.81, 1e-6)
  local s = w:stats()
  t.eq(s.contacts, 4)
  t.eq(s.candidate_pairs, 1)
  t.truthy(s.converged)
  t.truthy(s.residual < 1e-6)
  local v = w:velocity(id)
  for i = 1, 6 do t.truthy(math.abs(v[i]) < 1e-6, "at rest") end
end)

t.case("a sliding box stops after v0^2 / (2 mu g)", function()
  local w = ground_world{dt = 1e-3, contact = {model = "ncp", solver = "pgs"}}
  local id = w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1, friction = 0.4,
                        pose = at(0, 0, 0.1), velocity = {1, 0, 0, 0, 0, 0}}
  w:step(350)
  local x = w:pose(id):translation()
  t.near(x[1], 1 / (2 * 0.4 * 9.81), 1e-3)
  t.truthy(math.abs(x[2]) < 1e-9)
end)

t.case("composite bodies: mass, centre of mass and inertia from the parts", function()
  local w = lucid.world{gravity = {0, 0, 0}, density = 1000}
  local cube = lucid.box(0.5, 0.5, 0.5)
  local id = w:add_body{shape = {{shape = cube, pose = at(-0.5, 0, 0)},
                                 {shape = cube, pose = at(0.5, 0, 0)}},
                        velocity = {0, 0, 0, 0, 0, 2}}
  -- the bar 2 x 1 x 1 spins about z through its centre: energy 1/2 I w^2, I = m (4 + 1) / 12
  local m = 2000
  t.near(w:energy().kinetic, 0.5 * m * 5 / 12 * 4, 1e-12)
  local e0 = w:energy().kinetic
  w:step(10)
  t.near(w:energy().kinetic, e0, 1e-12)
  -- given mass and diagonal inertia
  local b = w:add_body{shape = cube, mass = 3, inertia = {1, 2, 3}, velocity = {0, 0, 0, 1, 0, 0}}
  t.near(w:energy().kinetic - e0, 0.5 * 1 * 1, 1e-9)
  t.truthy(b == id + 1)
end)

t.case("state and set_state reproduce a trajectory bit for bit", function()
  local w = ground_world{dt = 2e-3}
  for k = 0, 2 do
    w:add_body{shape = lucid.box(0.1, 0.15, 0.05), pose = lucid.se3.exp{0.1 * k, 0, 0.1 + 0.3 * k, 0.3, 0.1, 0},
               velocity = {0.2, 0, 0, 1, -2, 0.5}}
  end
  w:step(50)
  local x = w:state()
  t.eq(#x, 4 * 18)
  w:set_state(x)
  w:step(80)
  local a = w:state():totable()
  w:set_state(x)
  w:step(80)
  local b = w:state():totable()
  for i = 1, #a do t.truthy(a[i] == b[i], "entry " .. i .. " differs") end
end)

t.case("apply_force acts for one step only", function()
  local w = lucid.world{gravity = {0, 0, 0}, dt = 0.01}
  local id = w:add_body{shape = lucid.sphere(0.1), mass = 2}
  w:apply_force(id, {4, 0, 0})
  w:step(3)
  t.near(w:velocity(id)[1], 4 / 2 * 0.01, 1e-14)
end)

-- A cube turned 45 degrees on an equal cube touches along an octagon: 8 contacts with
-- patch_points = 16, the 4 area-maximising ones by default; both hold it at rest.
t.case("patch_points: an octagonal face-face patch keeps 4 points by default", function()
  for _, k in ipairs{16, 4} do
    local w = lucid.world{dt = 1e-3, patch_points = k ~= 4 and k or nil}
    w:add_static{shape = lucid.box(0.1, 0.1, 0.1), pose = lucid.se3.exp{0, 0, 0.1, 0, 0, 0}}
    local top = w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1,
                           pose = lucid.se3.exp{0, 0, 0.3 - 5e-5, 0, 0, math.pi / 4}}
    w:step(200)
    local cs = w:contacts()
    t.eq(#cs, k == 16 and 8 or 4, "contacts with patch_points " .. k)
    local total = 0
    for _, c in ipairs(cs) do total = total + c.lambda[3] end
    t.near(total, 9.81, 1e-6, "the weight is carried")
    local p = w:pose(top):translation()
    t.near(p[1], 0, 1e-6, "no drift")
    t.near(p[2], 0, 1e-6, "no drift")
    local v = w:velocity(top)
    for i = 1, 6 do t.truthy(math.abs(v[i]) < 1e-6, "at rest") end
  end
end)

t.case("misuse raises errors naming the function", function()
  t.raises("lucid.world: dt must be > 0", lucid.world, {dt = 0})
  t.raises("lucid.world: dt must be > 0", lucid.world, {dt = -1})
  t.raises("lucid.world: unknown option 'gravty'", lucid.world, {gravty = {0, 0, 0}})
  t.raises("lucid.world: patch_points must be in [1, 16]", lucid.world, {patch_points = 0})
  t.raises("lucid.world: patch_points must be in [1, 16]", lucid.world, {patch_points = 17})
  t.raises("lucid.world: patch_points must be an integer", lucid.world, {patch_points = 2.5})
  t.raises("lucid.world: invalid contact model/solver pair lcp:admm", lucid.world,
           {contact = {model = "lcp", solver = "admm"}})
  t.raises("lucid.world: unknown contact model 'foo'", lucid.world, {contact = {model = "foo"}})
  t.raises("lucid.world: gravity must be finite", lucid.world, {gravity = {0, 0, 0 / 0}})
  local w = lucid.world{}
  local box = lucid.box(0.1, 0.1, 0.1)
  t.raises("lucid.world:add_body: mass must be > 0", w.add_body, w, {shape = box, mass = -1})
  t.raises("lucid.world:add_body: inertia must be symmetric positive definite", w.add_body, w,
           {shape = box, mass = 1, inertia = {1, -2, 1}})
  t.raises("lucid.world:add_body: inertia must be symmetric positive definite", w.add_body, w,
           {shape = box, mass = 1, inertia = lucid.mat{{1, 0.5, 0}, {0, 1, 0}, {0, 0, 1}}})
  t.raises("lucid.world:add_body: a halfspace can only be static", w.add_body, w,
           {shape = lucid.halfspace({0, 0, 1}, 0)})
  t.raises("lucid.world:add_body: shape must be a lucid shape", w.add_body, w, {shape = 3})
  t.raises("lucid.world:add_body: shape[1].shape must be a lucid shape", w.add_body, w,
           {shape = {{pose = at(0, 0, 0)}}})
  t.raises("lucid.world:add_body: velocity must have 6 entries", w.add_body, w,
           {shape = box, velocity = {1, 2, 3}})
  t.raises("lucid.world:add_body: friction must be >= 0", w.add_body, w,
           {shape = box, friction = -0.1})
  t.raises("lucid.world:add_body: unknown option 'mas'", w.add_body, w, {shape = box, mas = 1})
  t.raises("lucid.world:add_body: a body without shapes needs mass and inertia", w.add_body, w, {})
  t.raises("lucid.world:add_static: shape is required", w.add_static, w, {})
  local id = w:add_body{shape = box}
  local ground = w:add_static{shape = lucid.halfspace({0, 0, 1}, -1)}
  t.raises("lucid.world:apply_force: unknown body id 7", w.apply_force, w, 7, {0, 0, 0})
  t.raises("lucid.world:apply_force: force must be finite", w.apply_force, w, id, {0 / 0, 0, 0})
  t.raises("lucid.world:apply_force: body 2 is static", w.apply_force, w, ground, {0, 0, 1})
  t.raises("lucid.world:pose: unknown body id 0", w.pose, w, 0)
  t.raises("lucid.world:velocity: body id must be an integer", w.velocity, w, "a")
  t.raises("lucid.world:step: n = 0 is out of range", w.step, w, 0)
  t.raises("lucid.world:set_state: state must have 36 entries", w.set_state, w, {1, 2})
  local x = w:state():totable()
  x[4] = 3
  t.raises("lucid.world:set_state: state rotation is not a rotation matrix", w.set_state, w, x)
  t.raises("lucid.world:pose: expected a lucid.world as self", w.pose, {}, 1)
end)

t.case("shapes given to the world outlive their Lua variables", function()
  local w = ground_world()
  local pts = {}
  for i = 0, 7 do
    pts[#pts + 1] = {(i & 1 == 0) and -0.1 or 0.1, (i & 2 == 0) and -0.1 or 0.1,
                     (i & 4 == 0) and -0.1 or 0.1}
  end
  local id = w:add_body{shape = lucid.convex(pts), pose = at(0, 0, 0.15)}
  collectgarbage()
  collectgarbage()
  w:step(300)
  t.near(w:pose(id):translation()[3], 0.1, 1e-4)
  t.eq(#w:contacts(), 4)
end)


t.case("170 spheres at one point: the step fails fast with an error naming the island", function()
  -- 14,365 contacts in one island: the int sizing of the contact buffers used to hang here
  local w = ground_world()
  for _ = 1, 170 do w:add_body{shape = lucid.sphere(0.1), pose = at(0, 0, 1)} end
  local before = w:state():totable()
  local t0 = lucid.clock()
  t.raises("lucid.world:step: an island of 14365 contacts exceeds the 2048 contacts", w.step, w)
  t.truthy(lucid.clock() - t0 < 10, "fails within seconds")
  local after = w:state():totable()
  for i = 1, #before do t.eq(after[i], before[i]) end
end)

t.case("friction beyond 100 is refused; at 100 a pushed box sticks for every pair", function()
  -- a world with mu = 1e12 sent a box to x = 1.2e9 m
  local w = lucid.world{}
  t.raises("lucid.world:add_static: friction must be <= 100", w.add_static, w,
           {shape = lucid.halfspace({0, 0, 1}, 0), friction = 1e12})
  t.raises("lucid.world:add_body: friction must be <= 100", w.add_body, w,
           {shape = lucid.box(0.1, 0.1, 0.1), friction = 100.01})
  local pairs_ = {{"lcp", "pgs"}, {"ccp", "pgs"}, {"ccp", "admm"}, {"ccp", "newton"},
                  {"raisim", "bisection"}, {"ncp", "pgs"}, {"ncp", "staggered"}, {"ncp", "admm"}}
  for _, pr in ipairs(pairs_) do
    local name = pr[1] .. ":" .. pr[2]
    w = lucid.world{contact = {model = pr[1], solver = pr[2]}}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 100}
    local id = w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1, friction = 100,
                          pose = at(0, 0, 0.1 - 5e-5)}
    -- 20 m g sideways at the middle of the bottom face (no tipping moment): |f_T| = 0.2 mu f_N
    local fx, fy = 0.9 * 20 * 9.81, 0.3 * 20 * 9.81
    for _ = 1, 300 do
      w:apply_force(id, {fx, fy, 0}, {0.1 * fy, -0.1 * fx, 0})
      w:step()
    end
    local x = w:pose(id):translation()
    t.truthy(math.abs(x[1]) < 1e-6 and math.abs(x[2]) < 1e-6 and math.abs(x[3] - 0.09995) < 1e-6,
             string.format("%s: the box moved to (%g, %g, %g)", name, x[1], x[2], x[3]))
  end
end)

-- Regression (issue 16): an angular velocity of 1e160 turned the pose into an all-zero
-- "rotation" (exp of the huge step overflowed); now it is the exact rotation by the angle
-- reduced modulo 2 pi.
t.case("huge angular velocities still give exact rotations", function()
  local w = lucid.world{dt = 1e-3, gravity = {0, 0, 0}}
  local id = w:add_body{shape = lucid.sphere(0.1), pose = at(0, 0, 0),
                        velocity = {0, 0, 0, 1e160, 0, 0}}
  local step = lucid.so3.exp({1e160 * 1e-3, 0, 0})
  w:step(1)
  t.allnear(w:pose(id):rotation(), step, 1e-12)
  w:step(1)
  local R = w:pose(id):rotation()
  t.allnear(R, step * step, 1e-12)
  t.allnear(R:T() * R, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 1e-12)
end)
