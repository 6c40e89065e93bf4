-- Robots in the world (w:add_model and friends, runtime/world/world_model.c): the Allegro hand
-- grasps the cube of allegro_cube.xml under position control and holds it, also with gravity
-- reversed; MuJoCo's humanoid falls onto its floor and comes to rest; a model built in Lua
-- swings on its joint; the state and controls carry the models; misuse gets named errors.
local t = require "testing"
local lucid = require "lucid"

local SHARED = os.getenv("LUCID_SHARED_DIR") or "../shared"
local ROBOTS = SHARED .. "/data/robots/"
local HUMANOID = "/usr/share/mujoco/model/humanoid/humanoid.xml"

local exists = t.exists

-- A 0.5 m pendulum: a 1 kg bob on a hinge about y, 1 m above the origin.
local function pendulum(opts)
  opts = opts or {}
  return lucid.model.build{
    bodies = {{name = "bob", placement = lucid.se3.new({1, 0, 0, 0}, {0, 0, 1}), mass = 1,
               com = {0.5, 0, 0}, inertia = {1e-4, 1e-4, 1e-4},
               joints = {{name = "hinge", kind = "revolute", axis = {0, 1, 0},
                          range = opts.range}},
               shapes = {{shape = lucid.sphere(0.05), pose = lucid.se3.new({1, 0, 0, 0}, {0.5, 0, 0})}}}},
    actuators = opts.servo and {{name = "servo", joint = "hinge", kind = "position", kp = opts.servo}} or nil,
  }
end

t.case("a model built in Lua swings like its dynamics say", function()
  local m = pendulum()
  local w = lucid.world{dt = 1e-3}
  local id = w:add_model(m, {q = {0.3}})
  t.eq(id, 1)
  local q0, v0 = w:q(id)[1], w:v(id)[1]
  local a = lucid.dynamics.aba(m, {q0}, {v0}, {0})[1]
  w:step()
  t.near(w:v(id)[1], v0 + 1e-3 * a, 1e-12)
  t.near(w:q(id)[1], q0 + 1e-3 * w:v(id)[1], 1e-14)
  -- the bob's frame follows forward kinematics
  local T = w:frame_pose(id, "bob")
  t.allnear(T:translation():totable(), m:frame_pose(w:q(id), "bob"):translation():totable(), 1e-12)
  -- a link is a world body whose pose is the link's
  local links = w:links(id)
  t.allnear(w:pose(links.bob):translation():totable(), T:translation():totable(), 1e-12)
end)

t.case("state and controls carry the models", function()
  local m = pendulum{servo = 50}
  local w = lucid.world{dt = 1e-3}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  local id = w:add_model(m, {q = {0.2}, v = {0.1}})
  t.eq(#w:state(), 1 + 1) -- the pendulum's q and v (static bodies are not in the state)
  t.eq(#w:controls(), 1)
  w:set_controls{0.4}
  t.eq(w:control(id)[1], 0.4)
  w:step(10)
  local x = w:state()
  w:step(20)
  local a = w:state()
  w:set_state(x)
  w:step(20)
  local b = w:state()
  for i = 1, #a do t.eq(b[i], a[i]) end
end)

t.case("joint limits stop a pendulum", function()
  local m = pendulum{range = {-1, 0.5}}
  local w = lucid.world{dt = 1e-3}
  local id = w:add_model(m, {q = {0.2}})
  w:step(1500)
  t.truthy(w:q(id)[1] <= 0.5 + 1e-3 and w:q(id)[1] > 0.49, w:q(id)[1])
  local limits = 0
  for _, c in ipairs(w:contacts()) do
    if c.limit then
      limits = limits + 1
      t.eq(c.limit, "upper")
      t.eq(c.model, id)
      t.near(c.lambda[3], 9.81 * 0.5 * math.cos(w:q(id)[1]), 1e-5)
    end
  end
  t.eq(limits, 1)
end)

t.case("misuse of the model methods names the function", function()
  local w = lucid.world{}
  local m = pendulum()
  t.raises("lucid.world:add_model: model must be a lucid.model", w.add_model, w, 3)
  t.raises("lucid.world:add_model: unknown option 'qq'", w.add_model, w, m, {qq = 1})
  t.raises("lucid.world:add_model: q", w.add_model, w, m, {q = {1, 2}})
  t.raises("lucid.world:add_model: friction must be in [0, 100]", w.add_model, w, m, {friction = -1})
  local id = w:add_model(m)
  t.raises("lucid.world:q: unknown model id 2", w.q, w, 2)
  t.raises("lucid.world:set_v: v must be finite", w.set_v, w, id, {0 / 0})
  t.raises("lucid.world:frame_pose: the model has no frame named 'nope'", w.frame_pose, w, id, "nope")
  local links = w:links(id)
  t.raises("lucid.world:apply_force: body " .. links.bob .. " is a link of model 1",
    w.apply_force, w, links.bob, {1, 0, 0})
end)

t.case("__gc by hand on a model a world uses: the world keeps stepping", function()
  local m = pendulum()
  local w = lucid.world{dt = 1e-3}
  local id = w:add_model(m, {q = {0.3}})
  local gc = debug.getmetatable(m).__gc
  gc(m)
  gc(m) -- twice
  w:step(10)
  t.truthy(w:q(id)[1] > 0.3)
  t.raises("lucid.world:add_model: model is a finalized model", w.add_model, w, m)
end)

t.case("the Allegro hand grasps the cube and holds it, also upside down", function()
  local path = ROBOTS .. "allegro_cube.xml"
  if not exists(path) then t.skip("needs " .. path .. " (LUCID_SHARED_DIR)") end
  local m = lucid.model.load(path)
  local w = lucid.world{dt = 0.002}
  local id = w:add_model(m)
  local cube = w:links(id).cube
  w:step(250) -- the cube settles on the palm (the file says at z = 0.0359)
  t.near(w:pose(cube):translation()[3], 0.0359, 5e-4)
  -- joints 1-3 of every finger and the thumb to 1.2 rad, the thumb base to 1.3 (the file's recipe)
  local u = {}
  for i, n in ipairs(m:names("actuator")) do
    u[i] = n == "tha0" and 1.3 or (n:match("a0$") and 0 or 1.2)
  end
  w:set_control(id, u)
  w:step(500)
  local touching = 0
  for _, c in ipairs(w:contacts()) do
    if (c.body1 == cube or c.body2 == cube) and not c.limit then
      t.truthy(c.lambda[3] == c.lambda[3] and math.abs(c.lambda[3]) < 1e3, "finite force")
      touching = touching + 1
    end
  end
  t.truthy(touching >= 4, "fingers and palm on the cube: " .. touching)
  local held = w:pose(cube):translation()
  -- ncp:admm stops at 200 iterations on many of these steps (fingers squeezing the cube at
  -- 10-30 N): its NCP residual stays a few 1e-5 (largest measured 4.8e-5), not tol's 1e-6
  local worst = 0
  for _ = 1, 1000 do
    w:step()
    worst = math.max(worst, w:stats().residual)
  end
  print(string.format("allegro: worst NCP residual while holding %.2e", worst))
  t.truthy(worst < 1e-4, worst)
  t.truthy((w:pose(cube):translation() - held):norm() < 5e-3, "cube moved in 2 s")
  -- the same grasp with gravity reversed (the hand upside down): it holds the cube for 2 s
  local x = w:state()
  local w2 = lucid.world{dt = 0.002, gravity = {0, 0, 9.81}}
  local id2 = w2:add_model(m)
  w2:set_state(x)
  w2:set_control(id2, u)
  local before = w2:pose(cube):translation()
  w2:step(1000)
  local moved = (w2:pose(cube):translation() - before):norm()
  print(string.format("allegro: cube moved %.2e m in 2 s upside down", moved))
  t.truthy(moved < 5e-3, moved)
end)

t.case("MuJoCo's humanoid falls on its floor and comes to rest", function()
  if not exists(HUMANOID) then t.skip("needs " .. HUMANOID .. " (Debian libmujoco-samples)") end
  local m = lucid.model.load(HUMANOID)
  local w = lucid.world{dt = 0.005}
  local id = w:add_model(m)
  local ke = {}
  for k = 1, 40 do -- 20 s in 100-step pieces
    w:step(100)
    local st = w:stats()
    t.truthy(st.residual < 1e-5, "NCP residual " .. st.residual)
    for _, c in ipairs(w:contacts()) do
      t.truthy(c.lambda[3] == c.lambda[3] and math.abs(c.lambda[3]) < 1e5, "finite contact force")
    end
    ke[k] = w:energy().kinetic
  end
  print(string.format("humanoid: kinetic energy %.3g J at 4 s, %.3g J at 8 s, %.3g J at 20 s; %d contacts",
    ke[8], ke[16], ke[40], #w:contacts()))
  -- at rest on the floor: the torso does not move, its kinetic energy is below 1e-6 J from 8 s
  -- to 20 s (issue 33; 2.5e-3 J while it slid on a frictionless floor)
  local z = w:q(id)[3]
  w:step(200)
  t.near(w:q(id)[3], z, 1e-5)
  for k = 16, 40 do t.truthy(ke[k] < 1e-6, "kinetic energy " .. ke[k] .. " J at " .. k / 2 .. " s") end
end)

-- MuJoCo's contact semantics (docs/model_files.md, "Contact parameters"; the pair rule itself is
-- checked against MuJoCo's contacts in tests/c/runtime/model/test_mjcf_contact.c): the humanoid's capsules
-- (condim 1, friction 0.7) on its floor (condim 3, friction 1) take friction 1, so lying on the
-- floor it stops, where it slid at 4.4 mm/s with the pair's friction 0.
t.case("MuJoCo's humanoid lying on its floor stops sliding", function()
  if not exists(HUMANOID) then t.skip("needs " .. HUMANOID .. " (Debian libmujoco-samples)") end
  local m = lucid.model.load(HUMANOID)
  local w = lucid.world{dt = 0.005}
  local id = w:add_model(m)
  local function horizontal()
    local v = w:v(id)
    return math.sqrt(v[1] ^ 2 + v[2] ^ 2)
  end
  w:step(600) -- 3 s: fallen, lying
  for _, c in ipairs(w:contacts()) do
    if not c.limit then t.near(c.friction, 1, 0) end
  end
  local at = {}
  for k = 1, 3 do
    w:step(200)
    at[k] = horizontal()
  end
  print(string.format("humanoid lying: horizontal root speed %.2e, %.2e, %.2e m/s at 4, 5, 6 s",
    at[1], at[2], at[3]))
  for k = 1, 3 do t.truthy(at[k] < 1e-4, "root speed " .. at[k]) end
end)

t.case("MJCF contact parameters in the dynamics: margin and gap, bitmasks, plain bodies", function()
  local scene = "tests/data/model/mjcf_contact.xml" -- ctest runs from the repository root
  if not exists(scene) then t.skip("needs " .. scene .. " (run from the repository root)") end
  local m = lucid.model.load(scene)
  local w = lucid.world{dt = 0.002}
  local id = w:add_model(m)
  local links, slop = w:links(id), 1e-4
  -- plain boxes: friction 0.3 on the floor (the smaller, 0.3), 0.1 on the box of priority 1
  -- (its friction 0.2 wins)
  local floor_box = w:add_body{shape = lucid.box(0.05, 0.05, 0.05), friction = 0.3,
                               pose = lucid.se3.new({1, 0, 0, 0}, {0, 1, 0.0499})}
  local top_box = w:add_body{shape = lucid.box(0.03, 0.03, 0.03), friction = 0.1,
                             pose = lucid.se3.new({1, 0, 0, 0}, {0.3, 0, 0.1299})}
  w:step(500)
  local function z(name) return w:pose(links[name]):translation()[3] end
  -- the sphere of radius 0.05 rests at margin - gap above the floor, less the rest depth
  t.truthy(math.abs(z("padded") - (0.05 + 0.01 - 0.004)) <= slop, "padded at " .. z("padded"))
  t.truthy(math.abs(z("gapped") - (0.05 + 0.01 - 0.008)) <= slop, "gapped at " .. z("gapped"))
  t.truthy(math.abs(z("slip") - 0.05) <= slop, "slip at " .. z("slip"))
  t.truthy(z("masked") < -0.5, "the masked sphere falls through the floor: " .. z("masked"))
  local names, seen = {}, {}
  for i, g in ipairs(m:geoms()) do names[i] = g.name end
  for _, c in ipairs(w:contacts()) do
    local key
    if c.body1 == floor_box or c.body2 == floor_box then key = "plain on floor"
    elseif c.body1 == top_box or c.body2 == top_box then key = "plain on prio"
    else
      local a, b = names[c.geom1], names[c.geom2]
      key = a < b and a .. "-" .. b or b .. "-" .. a
    end
    seen[key] = c.friction
  end
  local want = {["plain on floor"] = 0.3, ["plain on prio"] = 0.2, ["floor-slip"] = 0.8,
                ["floor-prio"] = 0.2, ["floor-slick"] = 0, ["floor-meek"] = 0.8,
                ["affine-floor"] = 1, ["lower-upper"] = 0.7}
  for key, mu in pairs(want) do t.eq(seen[key], mu, key) end
end)

t.case("set_state(state()) is exact for MuJoCo's humanoid, as for free bodies", function()
  if not exists(HUMANOID) then t.skip("needs " .. HUMANOID .. " (Debian libmujoco-samples)") end
  local w = lucid.world{dt = 0.005}
  w:add_model(lucid.model.load(HUMANOID))
  local changed = 0
  for _ = 1, 40 do -- a falling humanoid: the root quaternion is unit to rounding, not exactly
    w:step(1)
    local x = w:state()
    w:set_state(x)
    local y = w:state()
    for i = 1, #x do if x[i] ~= y[i] then changed = changed + 1 end end
  end
  t.eq(changed, 0, "entries changed by the round trip")
end)

-- Robot islands in body space (runtime/world/world_sparse.c): the links of each subtree of a
-- model (a fixed-base arm, a body on a free joint) share one slot of the subtree's dofs. The pieces w:contact_problem returns rebuild the dense path's G, and
-- the robot scenes follow the dense path's trajectories (sparse_threshold 0 against one no
-- island reaches).
local ARM7 = "tasks/models/arm7.xml" -- ctest runs from the repository root

t.case("a robot island in body space: its pieces rebuild the dense path's G", function()
  if not exists(ARM7) then t.skip("needs " .. ARM7 .. " (run from the repository root)") end
  local m = lucid.model.load(ARM7)
  local function arm(threshold)
    local w = lucid.world{dt = m.timestep, sparse_threshold = threshold}
    local id = w:add_model(m)
    w:set_control(id, {0, 1.7, 0, -0.5, 0, 0.9, 0}) -- presses the box (bench_robot_step)
    return w
  end
  local dense, sparse = arm(1000000000), arm(0)
  dense:step(50) -- the arm presses the box: the arm's and the box's slots in one island
  sparse:set_state(dense:state())
  dense:set_state(dense:state())
  dense:step()
  sparse:step()
  local pd, ps = dense:contact_problem(), sparse:contact_problem()
  local n = #ps.mu
  t.truthy(n >= 2 and pd.sparse == nil and ps.sparse ~= nil, "body space: " .. n .. " contacts")
  local widest = 0
  for _, width in ipairs(ps.sparse.width) do widest = math.max(widest, width) end
  t.eq(widest, m.nv - 6, "the arm's slot (the box on its free joint has its own)")
  t.eq(ps.sparse.J:cols(), 3 * widest)
  -- G = sum over the sides s of contact i and t of contact j on one slot of J_s W_t^T
  local S = ps.sparse
  local big, gap = 0, 0
  for i = 1, n do
    for j = 1, n do
      for a = 1, 3 do
        for b = 1, 3 do
          local v = 0
          for s = 2 * i - 1, 2 * i do
            for u = 2 * j - 1, 2 * j do
              local slot = S.slot[s]
              if slot > 0 and slot == S.slot[u] then
                local w = S.width[slot]
                for k = 1, w do v = v + S.J:get(s, (a - 1) * w + k) * S.W:get(u, (b - 1) * w + k) end
              end
            end
          end
          if ps.R then v = v + ((i == j and a == b) and ps.R[3 * (i - 1) + a] or 0) end
          local d = pd.G:get(3 * (i - 1) + a, 3 * (j - 1) + b)
          big, gap = math.max(big, math.abs(d)), math.max(gap, math.abs(d - v))
        end
      end
    end
  end
  t.truthy(gap <= 1e-12 * big, "G from the pieces: " .. gap .. " of " .. big)
end)

t.case("robot scenes follow the dense path's trajectories in body space", function()
  local function compare(path, dt, controls, steps, tol, max_iter)
    local m = lucid.model.load(path)
    local worlds = {}
    for k, threshold in ipairs{1000000000, 0} do
      local w = lucid.world{dt = dt, sparse_threshold = threshold,
                            contact = {model = "ncp", solver = "admm", max_iter = max_iter}}
      local id = w:add_model(m)
      if controls then w:set_control(id, controls(m)) end
      worlds[k] = {w = w, id = id}
    end
    local worst = 0
    for _ = 1, steps do
      worlds[1].w:step()
      worlds[2].w:step()
      local qd, qs = worlds[1].w:q(worlds[1].id), worlds[2].w:q(worlds[2].id)
      for i = 1, #qd do worst = math.max(worst, math.abs(qd[i] - qs[i])) end
    end
    print(string.format("%s: %d steps, largest |q_dense - q_body| %.2e", path:match("[^/]+$"),
                        steps, worst))
    t.truthy(worst <= tol, worst)
  end
  if exists(HUMANOID) then
    -- falls and lands (ncp:admm meets tol on its steps): measured 1e-8 per step
    compare(HUMANOID, 0.005, nil, 300, 1e-5)
  end
  local allegro = ROBOTS .. "allegro_cube.xml"
  if exists(allegro) then
    -- the grasp: with the default 200 iterations ncp:admm stops short of tol on a few steps
    -- (the paths then differ by their residuals: ~2e-4 in q, with the BLAS kernels deciding
    -- how much); with 1000 both meet tol on every step and agree to 2.6e-7
    compare(allegro, 0.002, function(m)
      local u = {}
      for i, n in ipairs(m:names("actuator")) do
        u[i] = n == "tha0" and 1.3 or (n:match("a0$") and 0 or 1.2)
      end
      return u
    end, 600, 1e-5, 1000)
  end
end)

t.case("a four-bar (MJCF <equality><connect>) stays closed, from a set state and in batches", function()
  local m = lucid.model.load("tests/data/model/mjcf_fourbar.xml")
  local w = lucid.world{dt = 0.002, gravity = {0, 0, -9.81}}
  local id = w:add_model(m)
  local function pin() return w:frame_pose(id, "rocker"):act(lucid.vec{0, 0, -0.25}) end
  local p0, worst = pin(), 0
  for _ = 1, 200 do w:step() end
  local c = lucid.world{dt = 0.002, gravity = {0, 0, -9.81}}
  c:add_model(m)
  c:set_state(w:state())
  for _ = 1, 300 do
    w:step(); c:step()
    worst = math.max(worst, (pin() - p0):norm())
  end
  t.truthy(worst < 1e-12, worst)
  t.truthy((w:q(id) - c:q(id)):norm() == 0)
  -- batch rollouts (clones of w, over threads) equal the serial loop
  local x0 = w:state()
  local X = lucid.batch.rollout(w, {x0, x0}, nil, {steps = 100, threads = 2})
  c:set_state(x0)
  for _ = 1, 100 do c:step() end
  local xs = c:state()
  t.eq(#xs, 6)
  for i = 1, #xs do t.truthy(X:get(i, 1) == xs[i] and X:get(i, 2) == xs[i]) end
end)

t.case("a weld's explicit relpose (MuJoCo's: body2 in body1's frame) equals the qpos0 default", function()
  local f = io.open("tests/data/model/mjcf_weld.xml"):read("a")
  -- the box's pose in the arm's frame at qpos0: (0.45, 0, 0), turned 20 degrees about z
  local explicit = f:gsub('<weld name="carry" body1="arm" body2="box"/>',
    '<weld name="carry" body1="arm" body2="box" relpose="0.45 0 0 0.984807753012208 0 0 0.17364817766693"/>')
  t.truthy(explicit ~= f)
  local function run(m)
    local w = lucid.world{dt = 0.002, gravity = {0, 0, -9.81}}
    local id = w:add_model(m)
    for _ = 1, 300 do w:step() end
    return w:q(id)
  end
  local a = run(lucid.model.load("tests/data/model/mjcf_weld.xml"))
  local b = run(lucid.model.load_string(explicit))
  t.truthy((a - b):norm() < 1e-9, (a - b):norm())
  t.truthy(math.abs(a[1]) > 0.1) -- the arm swung
end)
