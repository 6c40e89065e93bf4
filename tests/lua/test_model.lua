-- lucid.model and lucid.dynamics from Lua: a 2-link arm against its closed-form mass matrix,
-- random trees with every joint kind (RNEA inverts ABA, CRBA columns, Jacobians by central
-- differences, integrate/difference), the fields and methods of docs/model.md, and named errors.
local t = require "testing"
local lucid = require "lucid"

local function at(x, y, z) return lucid.se3.new({1, 0, 0, 0}, {x, y, z}) end

local function arm()
  return lucid.model.build{
    name = "arm",
    bodies = {
      {name = "upper", mass = 1, com = {0, 0, -0.25}, inertia = {0.02, 0.02, 0.001},
       joints = {{name = "shoulder", kind = "revolute", axis = {0, 1, 0}, range = {-2, 2},
                  velocity_limit = 3, effort_limit = 40}},
       shapes = {{shape = lucid.capsule(0.05, 0.25), pose = at(0, 0, -0.25), friction = 0.8}}},
      {name = "lower", parent = "upper", placement = at(0, 0, -0.5), mass = 1,
       com = {0, 0, -0.25}, inertia = {0.02, 0.02, 0.001},
       joints = {{name = "elbow", kind = "revolute", axis = {0, 1, 0}, armature = 0.01}}},
    },
    frames = {{name = "tip", body = "lower", placement = at(0, 0, -0.5)}},
    actuators = {{name = "m1", joint = "shoulder"},
                 {name = "m2", joint = "elbow", kind = "position", kp = 10}},
  }
end

-- A random tree of n bodies: a free root, then every joint kind, some bodies welded or with
-- two joints, a site on some bodies.
local kinds = {"revolute", "prismatic", "spherical", "planar", "free"}
local function random_tree(rng, n)
  local function r(a, b) return a + (b - a) * rng:uniform() end
  local function dir() return {r(-1, 1), r(-1, 1), r(-1, 1) + 2} end
  local bodies = {}
  for i = 1, n do
    local b = {name = "b" .. i, mass = r(0.5, 2), com = {r(-.2, .2), r(-.2, .2), r(-.2, .2)},
               inertia = {r(0.01, 0.05), r(0.01, 0.05), r(0.01, 0.05)},
               placement = lucid.se3.new({1, r(-.5, .5), r(-.5, .5), r(-.5, .5)},
                                         {r(-.5, .5), r(-.5, .5), r(-.5, .5)})}
    if i > 1 then b.parent = "b" .. math.floor(r(1, i - 0.001)) end
    local nj = i == 1 and 1 or (i % 7 == 0 and 0 or (i % 5 == 0 and 2 or 1))
    b.joints = {}
    for k = 1, nj do
      local kind = i == 1 and "free" or (nj == 2 and (k == 1 and "revolute" or "prismatic")
                                          or kinds[(i - 2) % 5 + 1])
      b.joints[k] = {name = "j" .. i .. "_" .. k, kind = kind, axis = dir(),
                     anchor = {r(-.1, .1), r(-.1, .1), r(-.1, .1)}, ref = r(-.2, .2),
                     armature = (i % 3 == 0) and 0.05 or 0}
    end
    bodies[i] = b
  end
  local frames = {}
  for i = 1, n, 4 do frames[#frames + 1] = {name = "s" .. i, body = "b" .. i, placement = at(r(-.2, .2), 0, 0.1)} end
  return lucid.model.build{bodies = bodies, frames = frames, gravity = {0.3, 0, -9.81}}
end

local function random_vec(rng, n, s)
  local v = {}
  for i = 1, n do v[i] = s * (2 * rng:uniform() - 1) end
  return lucid.vec(v)
end

local function maxabs(v)
  local m = 0
  for i = 1, #v do m = math.max(m, math.abs(v[i])) end
  return m
end

t.case("fields and methods of a 2-link arm", function()
  local m = arm()
  t.eq(m.nq, 2); t.eq(m.nv, 2); t.eq(m.nu, 2); t.eq(m.nbodies, 2); t.eq(m.njoints, 2)
  t.eq(m.name, "arm")
  t.allnear(m.gravity, {0, 0, -9.81}, 0)
  t.near(m:mass(), 2, 1e-15)
  t.eq(table.concat(m:names("body"), ","), "upper,lower")
  t.eq(table.concat(m:names("joint"), ","), "shoulder,elbow")
  t.eq(table.concat(m:names("frame"), ","), "upper,lower,tip")
  t.eq(table.concat(m:names("actuator"), ","), "m1,m2")
  local lo, hi, vel, eff = m:limits()
  t.eq(lo[1], -2); t.eq(lo[2], -math.huge); t.eq(hi[1], 2); t.eq(hi[2], math.huge)
  t.eq(vel[1], 3); t.eq(vel[2], math.huge); t.eq(eff[1], 40); t.eq(eff[2], math.huge)
  t.allnear(m:neutral(), {0, 0}, 0)
  local js = m:joints()
  t.eq(js[2].parent, "shoulder"); t.eq(js[2].kind, "revolute"); t.eq(js[2].idx_q, 2)
  t.truthy(tostring(m):find("lucid.model 'arm'", 1, true))
end)

t.case("the arm's mass matrix, bias and energy are the textbook ones", function()
  local m = arm()
  local q1, q2, w1, w2 = 0.3, -0.5, 0.7, -1.1
  local I, c, l = 0.02, 0.25, 0.5
  local M = lucid.dynamics.crba(m, {q1, q2})
  local m11 = 2 * I + c * c + l * l + c * c + 2 * l * c * math.cos(q2)
  local m12 = I + c * c + l * c * math.cos(q2)
  local m22 = I + c * c + 0.01 -- armature
  t.allnear(M, {{m11, m12}, {m12, m22}}, 1e-14)
  -- the tip: 0.5 below the elbow, the elbow 0.5 below the shoulder, hinges about +y
  local p = m:frame_pose({q1, q2}, "tip"):translation()
  t.allnear(p, {-l * math.sin(q1) - l * math.sin(q1 + q2), 0, -l * math.cos(q1) - l * math.cos(q1 + q2)}, 1e-15)
  -- bias: Coriolis h = -l c sin(q2) (m2), gravity from V = -g (c cos q1 + l cos q1 + c cos(q1+q2))
  local h = -l * c * math.sin(q2)
  local g = 9.81
  local b = lucid.dynamics.nle(m, {q1, q2}, {w1, w2})
  t.near(b[1], h * (2 * w1 * w2 + w2 * w2) + g * ((c + l) * math.sin(q1) + c * math.sin(q1 + q2)), 1e-12)
  t.near(b[2], -h * w1 * w1 + g * c * math.sin(q1 + q2), 1e-12)
  local T, V = lucid.dynamics.energy(m, {q1, q2}, {w1, w2})
  t.near(T, 0.5 * (m11 * w1 * w1 + 2 * m12 * w1 * w2 + m22 * w2 * w2), 1e-14)
  t.near(V, -g * ((c + l) * math.cos(q1) + c * math.cos(q1 + q2)), 1e-14)
  local com = lucid.dynamics.com(m, {q1, q2})
  t.near(com[3], -((c + l) * math.cos(q1) + c * math.cos(q1 + q2)) / 2, 1e-15)
end)

t.case("random trees: rnea(aba(tau)) = tau and crba columns = rnea differences", function()
  local rng = lucid.rng(11)
  for _ = 1, 3 do
    local m = random_tree(rng, 22)
    t.truthy(m.nbodies >= 18 and m.njoints > m.nbodies)
    for _ = 1, 3 do
      local q = m:random_configuration(rng)
      local v, tau = random_vec(rng, m.nv, 2), random_vec(rng, m.nv, 10)
      local a = lucid.dynamics.aba(m, q, v, tau)
      local tau2 = lucid.dynamics.rnea(m, q, v, a)
      t.truthy(maxabs(tau2 - tau) <= 1e-10 * maxabs(tau), "rnea(aba) " .. maxabs(tau2 - tau))
      local M = lucid.dynamics.crba(m, q)
      local zero = lucid.zeros(m.nv)
      local g = lucid.dynamics.rnea(m, q, zero, zero)
      local e = lucid.zeros(m.nv)
      for i = 1, m.nv, 5 do
        e[i] = 1
        local col = lucid.dynamics.rnea(m, q, zero, e) - g
        e[i] = 0
        for r = 1, m.nv do t.near(col[r], M:get(r, i), 1e-10 * (1 + math.abs(M:get(i, i)))) end
      end
      -- nle = rnea(q, v, 0) and M a + nle = tau
      local b = lucid.dynamics.nle(m, q, v)
      t.truthy(maxabs(M * a + b - tau) <= 1e-9 * maxabs(tau))
    end
  end
end)

t.case("frame Jacobians match central differences of frame_pose along integrate", function()
  local rng = lucid.rng(5)
  local m = random_tree(rng, 12)
  local q = m:random_configuration(rng)
  local h = 1e-6
  for _, name in ipairs({"b12", "s9", "b4"}) do
    local T0 = m:frame_pose(q, name)
    local J = m:frame_jacobian(q, name)
    local Jw = m:frame_jacobian(q, name, "world")
    local Ja = m:frame_jacobian(q, name, "local_world_aligned")
    local R = T0:rotation()
    local e = lucid.zeros(m.nv)
    for k = 1, m.nv do
      e[k] = h
      local Tp = m:frame_pose(m:integrate(q, e), name)
      e[k] = -h
      local Tm = m:frame_pose(m:integrate(q, e), name)
      e[k] = 0
      local fd = ((T0:inverse() * Tp):log() - (T0:inverse() * Tm):log()) * (1 / (2 * h))
      for r = 1, 6 do t.near(J:get(r, k), fd[r], 1e-7, name .. " local") end
      local lin = R * lucid.vec{fd[1], fd[2], fd[3]}
      local ang = R * lucid.vec{fd[4], fd[5], fd[6]}
      for r = 1, 3 do
        t.near(Ja:get(r, k), lin[r], 1e-7, name .. " lwa")
        t.near(Ja:get(r + 3, k), ang[r], 1e-7, name .. " lwa")
        t.near(Jw:get(r + 3, k), ang[r], 1e-7, name .. " world")
      end
      -- world: the velocity of the point at the origin, v_o = v_p - w x p
      local p = T0:translation()
      local vo = {lin[1] - (ang[2] * p[3] - ang[3] * p[2]), lin[2] - (ang[3] * p[1] - ang[1] * p[3]),
                  lin[3] - (ang[1] * p[2] - ang[2] * p[1])}
      for r = 1, 3 do t.near(Jw:get(r, k), vo[r], 1e-7, name .. " world") end
    end
  end
end)

t.case("integrate and difference are inverse, normalize gives unit quaternions", function()
  local rng = lucid.rng(8)
  local m = random_tree(rng, 15)
  for _ = 1, 5 do
    local q0 = m:random_configuration(rng)
    local v = random_vec(rng, m.nv, 0.8)
    t.truthy(maxabs(m:difference(q0, m:integrate(q0, v)) - v) <= 1e-12)
    t.truthy(maxabs(m:difference(m:integrate(q0, v, 0.5), m:integrate(q0, v * 0.5))) <= 1e-13)
    local q1 = m:random_configuration(rng)
    t.truthy(maxabs(m:difference(q1, m:integrate(q0, m:difference(q0, q1)))) <= 1e-11)
  end
  local n = m:normalize(m:neutral() * 3 + random_vec(rng, m.nq, 0.1))
  for _, j in ipairs(m:joints()) do
    local off = ({spherical = 0, free = 3, planar = 2})[j.kind]
    if off then
      local s = 0
      for k = j.idx_q + off, j.idx_q + j.nq - 1 do s = s + n[k] ^ 2 end
      t.near(s, 1, 1e-15, j.kind)
    end
  end
end)

t.case("power balance: d/dt (T + V) = v . tau", function()
  local rng = lucid.rng(21)
  local m = random_tree(rng, 10)
  local q = m:random_configuration(rng)
  local v, tau = random_vec(rng, m.nv, 1), random_vec(rng, m.nv, 5)
  local a = lucid.dynamics.aba(m, q, v, tau)
  local h = 1e-5
  local Tp, Vp = lucid.dynamics.energy(m, m:integrate(q, v, h), v + a * h)
  local Tm, Vm = lucid.dynamics.energy(m, m:integrate(q, v, -h), v - a * h)
  t.near((Tp + Vp - Tm - Vm) / (2 * h), v:dot(tau), 1e-6 * (1 + math.abs(v:dot(tau))))
end)

t.case("rnea and aba derivatives against central differences along integrate", function()
  local rng = lucid.rng(31)
  local m = random_tree(rng, 8)
  local q = m:random_configuration(rng)
  local v, a, tau = random_vec(rng, m.nv, 1), random_vec(rng, m.nv, 2), random_vec(rng, m.nv, 5)
  local dq, dv = lucid.dynamics.rnea_derivatives(m, q, v, a)
  local Aq, Av, At = lucid.dynamics.aba_derivatives(m, q, v, tau)
  local MAt = lucid.dynamics.crba(m, q) * At
  for r = 1, m.nv do
    for c = 1, m.nv do t.near(MAt:get(r, c), r == c and 1 or 0, 1e-10, "M da_dtau = I") end
  end
  local h = 1e-6
  local e = lucid.zeros(m.nv)
  for k = 1, m.nv do
    e[k] = h
    local qp, qm = m:integrate(q, e), m:integrate(q, e * -1)
    local fq = (lucid.dynamics.rnea(m, qp, v, a) - lucid.dynamics.rnea(m, qm, v, a)) * (1 / (2 * h))
    local ga = (lucid.dynamics.aba(m, qp, v, tau) - lucid.dynamics.aba(m, qm, v, tau)) * (1 / (2 * h))
    local fv = (lucid.dynamics.rnea(m, q, v + e, a) - lucid.dynamics.rnea(m, q, v - e, a)) * (1 / (2 * h))
    local gv = (lucid.dynamics.aba(m, q, v + e, tau) - lucid.dynamics.aba(m, q, v - e, tau)) * (1 / (2 * h))
    e[k] = 0
    for r = 1, m.nv do
      t.near(dq:get(r, k), fq[r], 1e-5 * (1 + math.abs(fq[r])), "dtau_dq")
      t.near(dv:get(r, k), fv[r], 1e-5 * (1 + math.abs(fv[r])), "dtau_dv")
      t.near(Aq:get(r, k), ga[r], 1e-5 * (1 + math.abs(ga[r])), "da_dq")
      t.near(Av:get(r, k), gv[r], 1e-5 * (1 + math.abs(gv[r])), "da_dv")
    end
  end
end)

t.case("welded bodies, static shapes and exclusions are accepted", function()
  local m = lucid.model.build{
    bodies = {
      {name = "base", mass = 1, inertia = {0.1, 0.1, 0.1}}, -- welded to the world
      {name = "link", parent = "base", mass = 1, inertia = {0.1, 0.1, 0.1},
       joints = {{kind = "prismatic", axis = {0, 0, 1}}}},
      {name = "tool", parent = "link", mass = 0.5, inertia = {0.01, 0.01, 0.01},
       placement = at(0.1, 0, 0)},
    },
    shapes = {{shape = lucid.halfspace({0, 0, 1}, 0)}},
    exclude = {{"base", "link"}},
  }
  t.eq(m.nbodies, 1); t.eq(m.nq, 1)
  t.near(m:mass(), 1.5, 1e-15)
  t.eq(table.concat(m:names("frame"), ","), "base,link,tool")
  t.eq(m:names("joint")[1], "joint1") -- unnamed joints get their 1-based spec index
  -- gravity along the prismatic axis: a = -9.81 whatever the mass
  t.near(lucid.dynamics.aba(m, {0}, {0}, {0})[1], -9.81, 1e-14)
end)

t.case("errors name the function and the element", function()
  local B = "lucid.model.build: "
  t.raises(B .. "argument 1 must be a table (got no value)", lucid.model.build)
  t.raises(B .. "unknown option 'zz'", lucid.model.build, {zz = 1})
  t.raises(B .. "unknown option 'bodies[1].mas'", lucid.model.build, {bodies = {{name = "a", mas = 1}}})
  t.raises(B .. "bodies[1].name is required", lucid.model.build, {bodies = {{mass = 1}}})
  t.raises(B .. "bodies[2].parent: unknown body 'nope'", lucid.model.build,
    {bodies = {{name = "a"}, {name = "b", parent = "nope"}}})
  t.raises(B .. "bodies[2].name: the name 'a' is already used", lucid.model.build,
    {bodies = {{name = "a"}, {name = "a"}}})
  t.raises(B .. "body 'a': inertia is not positive definite", lucid.model.build,
    {bodies = {{name = "a", mass = 1, inertia = {1, -1, 1}, joints = {{kind = "revolute"}}}}})
  t.raises(B .. "joint 'j': moves no mass", lucid.model.build,
    {bodies = {{name = "a", joints = {{name = "j", kind = "revolute"}}}}})
  t.raises(B .. "bodies[1].joints[1].kind: unknown joint kind 'hinge2'", lucid.model.build,
    {bodies = {{name = "a", mass = 1, inertia = {1, 1, 1}, joints = {{kind = "hinge2"}}}}})
  t.raises(B .. "bodies[1].joints[1].range: lower 1.0 is above upper -1.0", lucid.model.build,
    {bodies = {{name = "a", mass = 1, inertia = {1, 1, 1}, joints = {{kind = "revolute", range = {1, -1}}}}}})
  t.raises(B .. "bodies[1].mass must be", lucid.model.build, {bodies = {{name = "a", mass = "x"}}})
  t.raises(B .. "actuators[1].joint: unknown joint 'x'", lucid.model.build,
    {bodies = {{name = "a", mass = 1, inertia = {1, 1, 1}}}, actuators = {{joint = "x"}}})
  t.raises(B .. "bodies must be a list", lucid.model.build, {bodies = {a = 1}})
  local m = arm()
  t.raises("lucid.model:frame_pose: unknown frame 'nope'", m.frame_pose, m, {0, 0}, "nope")
  t.raises("lucid.model:frame_pose: q must have 2 entries", m.frame_pose, m, {0}, "tip")
  t.raises("lucid.model:frame_jacobian: ref must be", m.frame_jacobian, m, {0, 0}, "tip", "body")
  t.raises("lucid.model:names: kind must be", m.names, m, "link")
  t.raises("lucid.dynamics.rnea: m must be a lucid.model (got nil)", lucid.dynamics.rnea)
  t.raises("lucid.dynamics.aba: tau must be finite", lucid.dynamics.aba, m, {0, 0}, {0, 0}, {0 / 0, 0})
  local free = lucid.model.build{bodies = {{name = "f", mass = 1, inertia = {1, 1, 1}, joints = {{name = "root", kind = "free"}}}}}
  t.raises("lucid.dynamics.crba: q: joint 'root' has a zero quaternion", lucid.dynamics.crba, free,
    {0, 0, 0, 0, 0, 0, 0})
  -- a model finalised by hand answers with an error
  local gc = debug.getmetatable(m).__gc
  gc(m); gc(m)
  t.raises("lucid.model:mass: self is a finalized model", m.mass, m)
  t.raises("lucid.dynamics.crba: m is a finalized model", lucid.dynamics.crba, m, {0, 0})
  t.eq(tostring(m), "lucid.model (finalized)")
  t.eq(getmetatable(m), "lucid.model")
end)
