-- w:step_derivatives, the state's tangent space and lucid.sim.step (docs/step_derivatives.md):
-- in smooth regimes the implicit derivatives (IFT on the contact solution, the rest of the step
-- at fixed forces) equal central finite differences of whole steps solved to 1e-13, the step
-- size swept to show the differences converge onto them; a 20-step rollout's lucid.ad Jacobian
-- is the product of its step Jacobians and reverse mode gives forward mode's gradient.
local t = require "testing"
local lucid = require "lucid"

local function at(x, y, z) return lucid.se3.new({1, 0, 0, 0}, {x, y, z}) end

local function maxabs(M)
  local m = 0
  for i = 1, M:rows() do for j = 1, M:cols() do m = math.max(m, math.abs(M:get(i, j))) end end
  return m
end

-- max |P - Q| / max(|Q|, floor) over the entries
local function rel(P, Q, floor)
  return maxabs(P - Q) / math.max(maxabs(Q), floor or 1e-12)
end

-- The implicit derivatives (their own step 1e-6) against finite differences of whole steps at
-- h = 1e-4, 1e-5, 3e-6: the best relative error of A, B and each parameter block (relative to
-- the block's largest entry, or to `floor` (default dt: a velocity per unit force and kg) when
-- the block is smaller, as B is when friction holds a box), the errors per h printed.
-- The largest entry of |A_implicit - A_relaxed| and of |A_implicit| from state x.
local function relaxed_against_implicit(w, x)
  w:set_state(x)
  local Di = w:step_derivatives()
  w:set_state(x)
  local Dr = w:step_derivatives{method = "relaxed"}
  local e, s = 0, 0
  for i = 1, Di.A:rows() do
    for j = 1, Di.A:cols() do
      e = math.max(e, math.abs(Di.A:get(i, j) - Dr.A:get(i, j)))
      s = math.max(s, math.abs(Di.A:get(i, j)))
    end
  end
  return e, s
end

local function check_against_fd(name, w, opts)
  opts = opts or {}
  local x = w:state()
  local u = w:controls()
  local D = w:step_derivatives{params = opts.params, geometry = opts.geometry,
                               collision = opts.collision}
  local blocks = opts.blocks or {"A", "B"}
  local best = {}
  local floor = {A = 1, B = opts.floor or 1e-3}
  for _, h in ipairs(opts.steps or {1e-4, 1e-5, 3e-6}) do
    local R = opts.reference or w -- a world with the same contacts, whose steps are differenced
    R:set_state(x)
    R:set_controls(u)
    local F = R:step_derivatives{method = "finite_differences", step = h, tol = opts.tol or 1e-13,
                                 max_iter = 100000, params = opts.params}
    local errs = {}
    for _, b in ipairs(blocks) do
      local e = rel(D[b], F[b], floor[b])
      errs[#errs + 1] = string.format("%s %.1e", b, e)
      best[b] = math.min(best[b] or math.huge, e)
    end
    for k = 1, #(opts.params or {}) do
      local e = rel(D.params[k], F.params[k], opts.floor or 1e-3)
      errs[#errs + 1] = string.format("p%d %.1e", k, e)
      best[k] = math.min(best[k] or math.huge, e)
    end
    print(string.format("%s: h = %.0e: %s", name, h, table.concat(errs, ", ")))
  end
  for key, e in pairs(best) do
    t.truthy(e <= (opts.bound or 1e-6), name .. ": block " .. tostring(key) .. " relative error " .. e)
  end
  return D
end

local function floor_world(opts)
  local w = lucid.world{dt = 1e-3, correction_speed = (opts or {}).correction_speed,
                        contact = {tol = 1e-12, max_iter = 5000}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = (opts or {}).friction or 0.5}
  return w
end

t.case("state tangent space: integrate and difference invert each other", function()
  local w = floor_world()
  w:add_body{shape = lucid.box(0.1, 0.2, 0.05), pose = lucid.se3.exp{0.1, 0.2, 0.3, 0.4, -0.5, 0.6},
             velocity = {1, 2, 3, -1, 0.5, 2}}
  local x = w:state()
  t.eq(#x, 13)
  local dx = lucid.vec{0.01, -0.02, 0.03, 0.2, -0.1, 0.3, 1, 2, 3, 4, 5, 6}
  local y = w:state_integrate(x, dx)
  t.allnear(w:state_difference(x, y):totable(), dx:totable(), 1e-13)
  local E, L = w:state_jacobians(x)
  t.allnear((L * E):totable(), lucid.eye(12):totable(), 1e-8) -- L E = I on the tangent
  w:set_state(y)
  t.allnear(w:state():totable(), y:totable(), 0) -- bit for bit
end)

t.case("free flight and a tumbling body: A, B equal finite differences", function()
  local w = lucid.world{dt = 1e-3}
  w:add_body{shape = lucid.box(0.1, 0.2, 0.05), pose = lucid.se3.exp{0.1, 0.2, 0.3, 0.4, -0.5, 0.6},
             velocity = {1, 2, 3, -1, 0.5, 2}}
  w:set_controls{1, -2, 3, 0.1, 0.2, -0.3}
  local D = check_against_fd("free flight", w)
  t.near(D.B:get(7, 1) ~= nil and 1 or 0, 1, 0)
  local g = lucid.world{dt = 1e-3, gravity = {0, 0, 0}}
  -- a thin plate spinning about its unstable middle axis: the gyroscopic term at work
  g:add_body{shape = lucid.box(0.3, 0.1, 0.02), pose = at(0, 0, 1), velocity = {0, 0, 0, 0.05, 20, 0.05}}
  check_against_fd("tumbling", g)
end)

t.case("a free-jointed model tumbling in free flight: A, B equal finite differences", function()
  -- a box whose centre of mass is off its joint's origin, linear and angular velocity apart:
  -- the free joint's turn rate dt (w x l) and its transport exp(dt w)^T l (docs/model.md)
  local m = lucid.model.load_string([[
<mujoco><worldbody><body pos="0 0 1" euler="10 20 30"><freejoint/>
  <geom type="box" size="0.15 0.05 0.01" pos="0.05 -0.02 0.03" mass="1"/></body>
</worldbody></mujoco>]])
  local w = lucid.world{dt = 1e-3}
  local id = w:add_model(m)
  w:set_v(id, {1, 2, -3, 0.05, 20, 0.5})
  check_against_fd("free-jointed box", w)
end)

t.case("an MJCF box held at its geom's margin - gap: A and B equal finite differences", function()
  -- include margin 0.006 (tests/data/model/mjcf_margin.xml): its contacts act on separation -
  -- 0.006; the box 7.5e-5 m past it (inside the rest band, where c*_N is flat: the derivatives
  -- must pick that piece from separation - include margin) and 2e-4 m past it (pushed out at
  -- the correction speed), resting and sliding, away from the pieces' edges
  local scene = "tests/data/model/mjcf_margin.xml" -- ctest runs from the repository root
  local m = lucid.model.load(scene)
  for _, case in ipairs{{0, 7.5e-5}, {0, 2e-4}, {1, 2e-4}} do
    local vx, depth = case[1], case[2]
    local w = lucid.world{dt = 1e-3}
    w:add_model(m, {q = {0, 0, 0.0002 - depth, 1, 0, 0, 0}, v = {vx, 0, 0, 0, 0, 0}})
    local x = w:state()
    w:step()
    local cs = w:contacts()
    t.eq(#cs, 4)
    for _, c in ipairs(cs) do
      t.near(c.include_margin, 0.006, 1e-15)
      t.near(c.separation - c.include_margin, -depth, 1e-12)
    end
    w:set_state(x)
    check_against_fd(string.format("margin, %s %.1e deep", vx == 0 and "resting" or "sliding",
                                   depth), w)
  end
end)

t.case("a box resting (sticking) and a box sliding: A, B and parameters", function()
  for _, vx in ipairs{0, 1} do
    local w = floor_world()
    -- 2e-4 m deep: pushed out at the correction speed, away from the pieces' edges
    local b = w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1, pose = at(0, 0, 0.1 - 2e-4),
                         velocity = {vx, 0, 0, 0, 0, 0}}
    w:set_controls{0.3, 0.2, 0, 0, 0, 0.01}
    local params = {{body = b, "mass"}, {body = b, "friction"}}
    local D = check_against_fd(vx == 0 and "resting" or "sliding", w, {params = params})
    t.eq(D.geometry, "carried")
    t.eq(#D.contacts, 4)
    for _, c in ipairs(D.contacts) do t.eq(c.mode, vx == 0 and "sticking" or "sliding") end
  end
end)

-- At rest the step is smooth (docs/step_derivatives.md, "The stabilisation's pieces"): the
-- rest depth -slop/2 lies inside the rest band, slop/10 from its edge, so after settling the
-- implicit derivatives equal central differences (the rest depth once was the band's edge:
-- relative error 1.0). A small box on a larger one takes the carried geometry (the
-- larger face's normal); two equal boxes' coincident faces have no carried rule.
t.case("resting scenes after 300 steps of settling: A, B equal central differences", function()
  local tilt = lucid.se3.new({math.cos(math.pi / 4), math.sin(math.pi / 4), 0, 0}, {0, 0, 0.05})
  local scenes = {
    {"sphere", function(w) w:add_body{shape = lucid.sphere(0.1), mass = 1, pose = at(0, 0, 0.1)} end},
    {"6 cm box", function(w) w:add_body{shape = lucid.box(0.03, 0.03, 0.03), mass = 1,
                                        pose = at(0, 0, 0.03)} end},
    -- 1 mg at density 1000: its contact's slop is 0.02 x 5e-4 m (world.h), a constant of
    -- the pair, so the rest band and its slopes scale with it
    {"1 mm cube", function(w) w:add_body{shape = lucid.box(5e-4, 5e-4, 5e-4),
                                         pose = at(0, 0, 5e-4)} end, {1e-10, 1e-11, 1e-12}},
    {"capsule on its side", function(w) w:add_body{shape = lucid.capsule(0.05, 0.2), mass = 1,
                                                   pose = tilt} end},
    {"box on a box", function(w)
      w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1, pose = at(0, 0, 0.1)}
      w:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1,
                 pose = lucid.se3.new({math.cos(0.05), 0, 0, math.sin(0.05)}, {0.01, 0.02, 0.25})}
    end},
    -- equal faces have no carried rule: the perturbed detections are differenced ("collide"),
    -- each patch point following its nominal one (an aligned pair turned in its plane clips to
    -- an octagon whose edge crossings tie in depth with its corners)
    {"equal boxes stacked", function(w)
      w:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1, pose = at(0, 0, 0.05)}
      w:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1, pose = at(0, 0, 0.15)}
    end, nil, "collide"},
    {"equal boxes stacked, offset and turned", function(w)
      w:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1, pose = at(0, 0, 0.05)}
      w:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1,
                 pose = lucid.se3.new({math.cos(0.05), 0, 0, math.sin(0.05)}, {0.01, 0.02, 0.15})}
    end, nil, "collide"},
  }
  for _, scene in ipairs(scenes) do
    local w = floor_world()
    scene[2](w)
    w:step(300)
    local deepest = 0
    for _, c in ipairs(w:contacts()) do deepest = math.min(deepest, c.separation) end
    t.truthy(deepest >= -1e-4, scene[1] .. ": rests within 1e-4 m: " .. deepest)
    local D = check_against_fd(scene[1] .. " at rest", w, {steps = {1e-5, 1e-6, 1e-7},
                                                         blocks = scene[3] and {"A"}})
    if scene[3] then
      -- B at force steps below its weight (1e-8 N: a step of 1e-7 N lifts it), relative to its
      -- scale dt / m (friction holds it: B = 0, finite differences see the solver's rounding)
      check_against_fd(scene[1] .. " at rest, B", w, {steps = scene[3], blocks = {"B"},
                                                      floor = 1e-3 / 1e-6})
    end
    t.eq(D.geometry, scene[4] or "carried")
  end
end)

-- Regression: a sphere sliding, solved in body space (sparse_threshold = 0). A control's
-- perturbation of 1e-5 turns the friction direction by 1e-8 rad, which the NCP criterion sees
-- only to second order (1e-16): finite differences took the nominal answer, warm started, as
-- the perturbed one on one side and gave half the friction's share of B (omega_x per F_y:
-- -7.65e-5 for -1.531e-4). The accepted answer is now polished to its modes' exact solution
-- (contact_polish.h), and finite differences polish whatever the world's option says.
t.case("a sphere sliding in body space: finite differences at h = 1e-5 see the friction turn", function()
  for _, polish in ipairs{true, false} do
    local w = lucid.world{dt = 1e-3, sparse_threshold = 0,
                          contact = {tol = 1e-12, max_iter = 5000, polish = polish}}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
    w:add_body{shape = lucid.sphere(0.1), mass = 1, inertia = {0.01, 0.012, 0.014},
               pose = at(0, 0, 0.1 - 2e-4), velocity = {1, 0, 0, 0, 0.3, 0}}
    w:set_controls{0.3, 0.2, 0, 0, 0, 0.01}
    local x, u = w:state(), w:controls()
    local D = w:step_derivatives{}
    w:set_state(x) -- step_derivatives leaves the world stepped
    w:set_controls(u)
    local F = w:step_derivatives{method = "finite_differences", step = 1e-5, tol = 1e-13,
                                 max_iter = 100000}
    local implicit, fd = D.B:get(10, 2), F.B:get(10, 2) -- omega_x per F_y
    print(string.format("body space, polish %s: d omega_x / d F_y implicit %.6e, FD %.6e",
                        tostring(polish), implicit, fd))
    t.truthy(implicit < -1e-4, "the friction's share is there: " .. implicit)
    t.truthy(rel(F.B, D.B, 1e-3) <= 1e-6, "B relative error " .. rel(F.B, D.B, 1e-3))
  end
end)

t.case("a shape's size: its column equals steps of worlds built at the shifted size", function()
  -- a box sliding 2e-4 m deep and a sphere rolling: each size column against central
  -- differences of whole steps of worlds rebuilt with the shape at size +- h (independent of
  -- the parameter machinery), and against the finite-difference method
  local cases = {
    {function(s) return lucid.box(s[1], s[2], s[3]) end, {0.1, 0.08, 0.1}, {1, 3}},
    {function(s) return lucid.sphere(s[1]) end, {0.1}, {1}},
  }
  for _, case in ipairs(cases) do
    local make, sizes, indices = case[1], case[2], case[3]
    local function world_with(sz)
      local w = floor_world()
      local b = w:add_body{shape = make(sz), mass = 1, inertia = {0.01, 0.012, 0.014},
                           pose = at(0, 0, sizes[#sizes] - 2e-4), velocity = {1, 0, 0, 0, 0.3, 0}}
      w:set_controls{0.3, 0.2, 0, 0, 0, 0.01}
      return w, b
    end
    local w, b = world_with(sizes)
    local params = {}
    for _, i in ipairs(indices) do params[#params + 1] = {body = b, "size", index = i} end
    local x0 = w:state()
    local D = check_against_fd("size", w, {params = params})
    for k, i in ipairs(indices) do
      local h = 1e-6
      local function stepped(delta)
        local sz = {table.unpack(sizes)}
        sz[i] = sz[i] + delta
        local wk = world_with(sz)
        wk:set_state(x0)
        wk:step()
        return wk:state()
      end
      local xp, xm = stepped(h), stepped(-h)
      local diff = w:state_difference(xm, xp)
      local err, big = 0, 0
      for r = 1, #diff do
        err = math.max(err, math.abs(diff[r] / (2 * h) - D.params[k]:get(r, 1)))
        big = math.max(big, math.abs(D.params[k]:get(r, 1)))
      end
      t.truthy(big > 1e-3, "the size column is zero")
      t.truthy(err <= 1e-6 * big, string.format("size %d: error %.2e of %.2e", i, err, big))
    end
  end
  -- w:param / w:set_param read and write the size; the mass properties stay
  local w = floor_world()
  local b = w:add_body{shape = lucid.capsule(0.05, 0.2), mass = 2, pose = at(0, 0, 1)}
  t.near(w:param{body = b, "size", index = 2}, 0.2, 0)
  w:set_param({body = b, "size", index = 1}, 0.07)
  t.near(w:param{body = b, "size"}, 0.07, 0)
  t.near(w:param{body = b, "mass"}, 2, 0)
end)

t.case("an arm in free motion: A, B equal finite differences", function()
  -- tasks/models/arm3.xml: a 3-joint arm with its floor and a free box resting on it, at the
  -- start (the box touching the floor, d = 0: the speculative piece, smooth)
  local m = lucid.model.load("tasks/models/arm3.xml")
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  local v = {1, -0.5, 0.2, 0, 0, 0, 0, 0, 0}
  w:set_v(id, v)
  w:set_control(id, {0.5, -0.2, 0.1})
  -- the model's parameters too: a link's mass (its inertia scaled), the free box's mass and a
  -- joint's damping
  local params = {{model = id, link = "fore", "mass"}, {model = id, link = "box", "mass"},
                  {model = id, joint = "elbow", "damping"}}
  local D = check_against_fd("arm3", w, {params = params})
  t.eq(D.geometry, "carried") -- the box on the floor: a link's contacts carried by its twist
  t.eq(#D.params, 3)
  for k = 1, 3 do t.truthy(maxabs(D.params[k]) > 0, "parameter " .. k .. " moves the step") end
end)

t.case("MJCF actuators of every kind: A, B equal finite differences", function()
  -- tests/data/model/mjcf_actuators.xml at its keyframe "full": motor, position, velocity,
  -- damper and general actuators with affine gain and bias (velocity-dependent forces in
  -- dv+/dv, the gain's and bias's length terms in dv+/dq, the gain at the state in B), every
  -- control and force inside its range
  local m = lucid.model.load("tests/data/model/mjcf_actuators.xml")
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  local q, v, u = m:keyframe("full")
  w:set_q(id, q)
  w:set_v(id, v)
  w:set_control(id, u)
  check_against_fd("mjcf_actuators", w)
end)

t.case("restitution: a bounce's target -e v_n before is differentiated", function()
  -- an impact: the reference velocity is -e times the normal velocity at the start of the
  -- step, so dv+/dv carries -e along the normal; a free sphere (its columns by differences of
  -- the step map) and the arm's box link, a model body (its columns analytic: dv_free/dv and
  -- the restitution target's slope on the link's rows), both landing at 2 m/s, e = 0.8
  local w = floor_world()
  w:add_body{shape = lucid.sphere(0.1), mass = 1, restitution = 0.8, pose = at(0, 0, 0.1),
             velocity = {0.3, 0.1, -2, 1, 0.5, 0}}
  check_against_fd("bouncing sphere", w)
  -- straight down: the normal velocity after the bounce follows the one before with slope -e
  local s = floor_world()
  s:add_body{shape = lucid.sphere(0.1), mass = 1, restitution = 0.8, pose = at(0, 0, 0.1),
             velocity = {0, 0, -2, 0, 0, 0}}
  t.near(s:step_derivatives{}.A:get(9, 9), -0.8, 1e-9)
  local m = lucid.model.load("tasks/models/arm3.xml")
  local r = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = r:add_model(m, {restitution = 0.8})
  r:set_v(id, {1, -0.5, 0.2, 0.2, 0.1, -2, 0.5, -0.3, 0.2})
  r:set_control(id, {0.5, -0.2, 0.1})
  local E = check_against_fd("arm3 box bouncing", r)
  local bounced = false
  for _, c in ipairs(r:contacts()) do bounced = bounced or c.lambda[3] > 0 end
  t.truthy(bounced, "the box bounced")
  t.truthy(maxabs(E.A) > 0, "A")
end)

t.case("the Allegro hand touching its cube: A, B equal finite differences", function()
  local path = (os.getenv("LUCID_SHARED_DIR") or "../shared") .. "/data/robots/allegro_cube.xml"
  local f = io.open(path)
  if not f then t.skip("no " .. path .. " (../shared absent)") end
  f:close()
  local m = lucid.model.load(path)
  local slop = 1e-4
  local w = lucid.world{dt = 0.002, slop = slop, contact = {tol = 1e-10, max_iter = 5000}}
  local id = w:add_model(m)
  w:set_control(id, {0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 1.3, 1.2, 1.2, 1.2})
  -- The closing hand's first touches: the first step with a contact pressing on the cube whose
  -- contacts are all >= 1e-6 m from the reference velocity's edges (docs/step_derivatives.md),
  -- checked with steps h well below that distance.
  local cube = w:links(id).cube
  local found
  for step = 1, 300 do
    local state = w:state()
    w:step()
    local far, on_cube = #w:contacts() > 0, false
    for _, c in ipairs(w:contacts()) do
      local d = c.separation
      far = far and math.abs(d + 0.4 * slop) >= 1e-6 and math.abs(d + slop) >= 1e-6
      on_cube = on_cube or (c.limit == nil and (c.body1 == cube or c.body2 == cube)
                            and c.lambda[3] > 0) -- pressing, not a speculative contact
    end
    if far and on_cube and step > 1 then
      w:set_state(state)
      found = step
      break
    end
  end
  t.truthy(found, "the hand presses on the cube away from the kinks within 300 steps")
  local D = check_against_fd("allegro (step " .. found .. ")", w,
                             {steps = {3e-7, 1e-7}, tol = 1e-14})
  local modes = {}
  for _, c in ipairs(D.contacts) do modes[#modes + 1] = c.mode end
  print("allegro: contact modes " .. table.concat(modes, ", ") .. "; geometry " .. D.geometry)
  t.eq(D.geometry, "carried") -- capsule tips, box links and the cube carried by their twists
end)

-- The Allegro hand holding its cube. The file's recipe (position servos to 1.2 rad) ends on the
-- cone's edge: an overdamped servo slides its pad until its tangential force falls to mu
-- lambda_N, approaching that point geometrically, so three contacts stick within 1e-6 of the
-- edge and the step has one-sided derivatives there (docs/benchmarks/step_derivatives.md).
-- A firm hold as a user would command it: at the recipe's settled configuration, contact
-- forces that hold the cube with every cube contact at most half its friction (alternating
-- projections between the cube's equilibrium and the cones shrunk to mu/2, from the recipe's
-- normal forces; a contact off the cube keeps its normal force only), and the servo targets
-- u = q + (b(q) - J^T f) / kp that produce them at rest. Settled 300 steps under those
-- targets, A equals central differences.
local function cross(a, b) return {a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1]} end
local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end

t.case("the Allegro hand holding its cube inside its cones: A equals central differences", function()
  local path = (os.getenv("LUCID_SHARED_DIR") or "../shared") .. "/data/robots/allegro_cube.xml"
  if not t.exists(path) then t.skip("no " .. path .. " (../shared absent)") end
  local m = lucid.model.load(path)
  local w = lucid.world{dt = 0.002, contact = {tol = 1e-10, max_iter = 5000}}
  local id = w:add_model(m)
  w:set_control(id, {0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 1.3, 1.2, 1.2, 1.2})
  w:step(1500) -- the recipe's hold: its slides have stopped (slip below 1e-12 m/s)
  local names, cube = {}, w:links(id).cube
  for k, v in pairs(w:links(id)) do names[v] = k end
  local q, nv = w:q(id), #w:v(id)
  -- J^T f of a world force f at world point p on link `name` (none on the static palm)
  local function jt(name, p, f)
    local out = lucid.zeros(nv)
    if name == "static" then return out end
    local J = m:frame_jacobian(q, name, "local_world_aligned")
    local o = m:frame_pose(q, name):translation()
    local tq = cross({p[1] - o[1], p[2] - o[2], p[3] - o[3]}, f)
    for k = 1, nv do
      local s = 0
      for r = 1, 3 do s = s + J:get(r, k) * f[r] + J:get(r + 3, k) * tq[r] end
      out[k] = s
    end
    return out
  end
  local cs, on_cube = w:contacts(), {}
  for i, c in ipairs(cs) do
    if c.lambda[3] > 0 and (c.body1 == cube or c.body2 == cube) then on_cube[#on_cube + 1] = i end
  end
  -- E maps the forces on the cube (3 per contact, world axes) to its 6 rows; b the rows' bias
  local b = lucid.dynamics.nle(m, q, lucid.zeros(nv))
  local E, rhs, n = lucid.zeros(6, 3 * #on_cube), lucid.zeros(6), {}
  for r = 1, 6 do rhs[r] = b[16 + r] end
  for j, i in ipairs(on_cube) do
    local c = cs[i]
    local s = c.body2 == cube and 1 or -1 -- c.normal, c.force: on body 2
    n[j] = {s * c.normal[1], s * c.normal[2], s * c.normal[3]}
    for k = 1, 3 do
      local e = {0, 0, 0}
      e[k] = 1
      local g = jt("cube", c.point, e)
      for r = 1, 6 do E:set(r, 3 * j - 3 + k, g[16 + r]) end
    end
  end
  local EEt = E * E:T()
  local x = lucid.zeros(3 * #on_cube)
  for j, i in ipairs(on_cube) do for k = 1, 3 do x[3 * j - 3 + k] = cs[i].lambda[3] * n[j][k] end end
  local gap = math.huge
  for _ = 1, 5000 do
    local a = x - E:T() * EEt:solve(E * x - rhs) -- onto the cube's equilibrium
    for j, i in ipairs(on_cube) do -- onto the cone of friction mu / 2
      local f = {a[3 * j - 2], a[3 * j - 1], a[3 * j]}
      local fn, mu = dot(f, n[j]), 0.5 * cs[i].friction
      local tv = {f[1] - fn * n[j][1], f[2] - fn * n[j][2], f[3] - fn * n[j][3]}
      local ft = math.sqrt(dot(tv, tv))
      local pn = ft <= mu * fn and fn or math.max(0, (fn + mu * ft) / (1 + mu * mu))
      local sc = ft > 0 and math.min(ft, mu * pn) / ft or 0
      for k = 1, 3 do x[3 * j - 3 + k] = pn * n[j][k] + sc * tv[k] end
    end
    gap = (x - a):norm()
    if gap < 1e-9 then break end
  end
  t.truthy(gap < 1e-9, "forces inside mu/2 that hold the cube: " .. gap)
  x = x - E:T() * EEt:solve(E * x - rhs)
  local tau = lucid.zeros(nv)
  for i, c in ipairs(cs) do
    local f = {c.lambda[3] * c.normal[1], c.lambda[3] * c.normal[2], c.lambda[3] * c.normal[3]}
    for j, k in ipairs(on_cube) do
      if k == i then
        local s = c.body2 == cube and 1 or -1
        f = {s * x[3 * j - 2], s * x[3 * j - 1], s * x[3 * j]}
      end
    end
    tau = tau + jt(names[c.body2], c.point, f) - jt(names[c.body1], c.point, f)
  end
  local u = {}
  for i, a in ipairs(m:actuators()) do
    u[i] = q[a.coord] + (b[a.dof] - tau[a.dof]) / a.kp
    t.truthy(u[i] >= a.ctrl_range[1] and u[i] <= a.ctrl_range[2], a.name .. " within its range")
  end
  local x0 = w:state()
  w:set_control(id, u)
  w:step(300)
  local moved = w:state_difference(x0, w:state()):norm()
  local D = check_against_fd("allegro holding", w, {steps = {1e-5, 1e-6, 1e-7}, blocks = {"A"}})
  local least = math.huge
  for _, c in ipairs(D.contacts) do
    if c.mode == "sticking" then least = math.min(least, c.margin) end
    t.truthy(c.mode ~= "sliding", "every pressing contact sticks")
  end
  print(string.format("allegro holding: state moved %.1e in 300 steps, least sticking margin %.3f",
                      moved, least))
  t.truthy(moved < 1e-9, "the designed hold is at rest: " .. moved)
  t.truthy(least > 0.05, "its contacts stick inside their cones: " .. least)
end)

t.case("w:step_derivatives leaves the world as w:step does", function()
  -- the arm with its box on the floor: same state, contacts and warm-start memory afterwards,
  -- so the next steps are the same bit for bit
  local function make()
    local w = lucid.world{dt = 1e-3}
    local id = w:add_model(lucid.model.load("tasks/models/arm3.xml"))
    w:set_v(id, {1, -0.5, 0.2, 0, 0, 0, 0, 0, 0})
    w:set_control(id, {0.5, -0.2, 0.1})
    for _ = 1, 30 do w:step() end
    return w
  end
  local a, b = make(), make()
  a:step_derivatives{}
  b:step()
  t.allnear(a:state():totable(), b:state():totable(), 0)
  local ca, cb = a:contacts(), b:contacts()
  t.eq(#ca, #cb)
  t.truthy(#ca > 0, "the box touches the floor")
  for k = 1, #ca do t.allnear(ca[k].lambda, cb[k].lambda, 0) end
  for _ = 1, 20 do a:step(); b:step() end
  t.allnear(a:state():totable(), b:state():totable(), 0)
end)

t.case("the world's kept copy follows changes between w:step_derivatives calls", function()
  -- the columns run on a copy of the world that it keeps between calls (lucid_world_clone_into):
  -- after a parameter change (a new model variant, a body's mass, a box's size), a body added
  -- and a state set, the derivatives must be those of a world built that way and asked once,
  -- bit for bit
  local function make()
    local w = lucid.world{dt = 1e-3}
    local id = w:add_model(lucid.model.load("tasks/models/arm3.xml"))
    local box = w:add_body{shape = lucid.box(0.05, 0.04, 0.03), mass = 0.3,
                           pose = lucid.se3.new({1, 0, 0, 0}, {0.6, 0.4, 0.0298})}
    w:set_v(id, {1, -0.5, 0.2, 0, 0, 0, 0, 0, 0})
    w:set_control(id, {0.5, -0.2, 0.1})
    for _ = 1, 30 do w:step() end
    return w, id, box
  end
  -- the changes so far, applied to a and to each fresh world
  local changes = {}
  local a, id, box = make()
  local function change(f)
    changes[#changes + 1] = f
    f(a)
  end
  local function same()
    local x = a:state()
    for _, geometry in ipairs{"auto", "collide"} do -- collide: the copy's shapes detect
      local b = make() -- a fresh world, asked once
      for _, f in ipairs(changes) do f(b) end
      a:set_state(x)
      b:set_state(x)
      local Da, Db = a:step_derivatives{geometry = geometry}, b:step_derivatives{geometry = geometry}
      t.truthy(#a:contacts() > 0, "in contact")
      t.allnear(Da.A:totable(), Db.A:totable(), 0)
      t.allnear(Da.B:totable(), Db.B:totable(), 0)
      t.allnear(a:state():totable(), b:state():totable(), 0)
    end
  end
  same() -- the copy is made here, before the changes
  -- the box's mass and size only: the copy is updated in place
  change(function(w) w:set_param({body = box, "mass"}, 0.45) end)
  change(function(w) w:set_param({body = box, "size", index = 3}, 0.032) end)
  same()
  -- a new model variant (the forearm's mass): the copy is made again
  change(function(w) w:set_param({model = id, link = "fore", "mass"}, 1.7) end)
  same()
  -- a body added: the copy is made again
  change(function(w)
    w:add_body{shape = lucid.sphere(0.04), pose = lucid.se3.new({1, 0, 0, 0}, {0.3, -0.5, 0.039})}
  end)
  same()
end)

t.case("a model's parameters: w:param / w:set_param change the world's copy only", function()
  local m = lucid.model.load("tasks/models/arm3.xml")
  local w, other = lucid.world{dt = 1e-3}, lucid.world{dt = 1e-3}
  local id, id2 = w:add_model(m), other:add_model(m)
  local link, joint = {model = id, link = "fore", "mass"}, {model = id, joint = "elbow", "damping"}
  local mass0, total0 = w:param(link), m:mass()
  t.near(w:param(joint), 0.5, 0)
  w:set_param(link, 2 * mass0)
  w:set_param(joint, 0.25)
  t.near(w:param(link), 2 * mass0, 1e-15)
  t.near(w:param(joint), 0.25, 0)
  t.near(m:mass(), total0, 0) -- the model the caller holds is unchanged
  t.near(other:param{model = id2, link = "fore", "mass"}, mass0, 0)
  -- the heavier forearm and lighter damping change the motion of w only
  for _, ww in ipairs{w, other} do ww:set_control(1, {0, 0.5, 0.5}) end
  for _ = 1, 50 do w:step(); other:step() end
  t.truthy(math.abs(w:q(id)[3] - other:q(id2)[3]) > 1e-4, "the parameters changed the motion")
  t.raises("> 0", function() w:set_param(link, 0) end)
  t.raises(">= 0", function() w:set_param(joint, -1) end)
  t.raises("no link", function() w:param{model = id, link = "nope", "mass"} end)
  t.raises("unknown model", function() w:param{model = 7, link = "fore", "mass"} end)
  t.raises("unknown entry", function() w:param{model = id, joint = "elbow", "mass"} end)
  t.raises("must be", function()
    w:step_derivatives{params = {{model = id, link = "fore", "friction"}}}
  end)
end)

t.case("a 20-step rollout: lucid.ad's Jacobian is the product of the step Jacobians", function()
  local w = floor_world()
  w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1, pose = at(0, 0, 0.1 - 2e-4),
             velocity = {1, 0, 0, 0, 0, 0}}
  local x0, nu, T = w:state(), #w:controls(), 20
  local U0 = {}
  for s = 1, T do for i = 1, nu do U0[#U0 + 1] = (i == 1) and 0.5 * math.sin(s) or 0.01 * i end end
  local function rollout(U)
    local x = x0
    for s = 1, T do x = lucid.sim.step(w, x, U:slice((s - 1) * nu + 1, s * nu)) end
    return x
  end
  local xT, J = lucid.ad.jacobian(rollout, lucid.vec(U0))
  -- each step's Jacobian is recomputed when the sweep needs it; the world is put back after
  t.allnear(w:state():totable(), xT:totable(), 0)
  t.eq(J:rows(), 13)
  t.eq(J:cols(), T * nu)
  -- the same product by hand, from w:step_derivatives and the retraction Jacobians
  local x, Bs, As = x0, {}, {}
  for s = 1, T do
    w:set_state(x)
    local u = {}
    for i = 1, nu do u[i] = U0[(s - 1) * nu + i] end
    w:set_controls(u)
    local D = w:step_derivatives()
    As[s], Bs[s] = D.A, D.B
    x = w:state()
  end
  t.allnear(x:totable(), xT:totable(), 0)
  local E = w:state_jacobians(x)
  local worst = 0
  for s = 1, T do
    local M = Bs[s]
    for r = s + 1, T do M = As[r] * M end
    M = E * M
    for i = 1, 13 do
      for j = 1, nu do
        worst = math.max(worst, math.abs(M:get(i, j) - J:get(i, (s - 1) * nu + j)))
      end
    end
  end
  print(string.format("rollout: max |lucid.ad - product| = %.2e (max entry %.2e)", worst, maxabs(J)))
  t.truthy(worst <= 1e-10 * math.max(1, maxabs(J)), "rollout Jacobian differs by " .. worst)
  -- reverse mode (grad of a scalar) equals forward mode's chain rule
  local _, g = lucid.ad.grad(function(U) local y = rollout(U); return y[1] * y[1] + y[8] end,
                             lucid.vec(U0))
  local gw = 0
  for j = 1, T * nu do
    gw = math.max(gw, math.abs(g[j] - (2 * xT[1] * J:get(1, j) + J:get(8, j))))
  end
  t.truthy(gw <= 1e-12, "reverse-mode gradient differs by " .. gw)
end)

t.case("a contact appearing inside the step is flagged, and its derivative stays finite", function()
  local w = floor_world()
  -- a box whose corner is 1 um above the margin in the first of its perturbed steps
  w:add_body{shape = lucid.box(0.1, 0.1, 0.1), pose = at(0, 0, 0.1 + 5e-3 - 1e-9)}
  local D = w:step_derivatives()
  local flagged = 0
  for _, c in ipairs(D.contacts) do flagged = flagged + (c.switched and 1 or 0) end
  t.truthy(D.fallback_columns > 0 or flagged > 0, "the switch was not reported")
  t.truthy(maxabs(D.A) < math.huge)
end)

t.case("misuse gets named errors", function()
  local w = floor_world()
  local b = w:add_body{shape = lucid.sphere(0.1), pose = at(0, 0, 1)}
  local F = "lucid.world:step_derivatives"
  t.raises(F .. ": unknown option 'metod'", w.step_derivatives, w, {metod = "implicit"})
  t.raises(F .. ": method must be", w.step_derivatives, w, {method = "magic"})
  t.raises(F .. ": params[1][1] must be", w.step_derivatives, w, {params = {{body = b, "colour"}}})
  t.raises(F .. ": params[1]: unknown body id 9", w.step_derivatives, w, {params = {{body = 9, "mass"}}})
  t.raises(F .. ": a mass parameter needs a free body", w.step_derivatives, w, {params = {{body = 1, "mass"}}})
  -- the reader follows lucid_step_derivative_option_table: values outside its ranges and
  -- wrong types are errors with its words
  t.raises(F .. ": step must be in (0, 1) (got 0.0)", w.step_derivatives, w, {step = 0})
  t.raises(F .. ": step must be in (0, 1) (got 1.0)", w.step_derivatives, w, {step = 1})
  t.raises(F .. ": tol must be > 0 (got 0.0)", w.step_derivatives, w, {tol = 0})
  t.raises(F .. ": max_iter must be an integer >= 1 (got 0)", w.step_derivatives, w, {max_iter = 0})
  t.raises(F .. ": threshold must be in (0, 1) (got -1.0)", w.step_derivatives, w, {threshold = -1})
  t.raises(F .. ": threshold must be in (0, 1) (got 1.0)", w.step_derivatives, w, {threshold = 1})
  t.raises(F .. ": kappa must be > 0 (got 0.0)", w.step_derivatives, w, {kappa = 0})
  t.raises(F .. ": step must be a number (got string)", w.step_derivatives, w, {step = "1e-6"})
  t.raises(F .. ': geometry must be "auto", "carried" or "collide" (got number)',
           w.step_derivatives, w, {geometry = 1})
  t.raises(F .. ": opts must be a table (got string)", w.step_derivatives, w, "implicit")
  t.raises(F .. ": the part's shape has no size parameter", w.step_derivatives, w,
           {params = {{body = 1, "size"}}})
  t.raises(F .. ": size index out of range", w.step_derivatives, w, {params = {{body = b, "size", index = 2}}})
  t.raises(F .. ": params[1]: unknown entry", w.step_derivatives, w, {params = {{body = b, "size", axis = 1}}})
  t.raises(F .. ": params[1].index must be an integer", w.step_derivatives, w,
           {params = {{body = b, "size", index = 1.5}}})
  t.raises("lucid.world:set_param: a size must be in (0, 1e40]", w.set_param, w, {body = b, "size"}, 0)
  t.raises("lucid.world:set_param: mass must be > 0", w.set_param, w, {body = b, "mass"}, -1)
  t.raises("lucid.world:state_integrate: dx must have 12 entries", w.state_integrate, w, w:state(), {1})
  t.raises("lucid.sim.step: unknown option 'mthod'", lucid.sim.step, w, w:state(), nil, {mthod = 1})
  t.raises("lucid.sim.step: x must have 13 entries", lucid.sim.step, w, {1, 2}, nil)
  -- sim.step takes every option of w:step_derivatives' table (lucid.options()) and hands it on
  t.raises("lucid.sim.step: opts.geometry must be a string (got number)", lucid.sim.step, w,
           w:state(), nil, {geometry = 1})
  local u0 = w:controls()
  t.raises('lucid.world:step_derivatives: geometry must be "auto", "carried" or "collide" (got '
           .. 'guess)', lucid.ad.jacobian, function(u)
             return lucid.sim.step(w, w:state(), u, {geometry = "guess"}) end, u0)
  t.raises("lucid.world:step_derivatives: kappa must be > 0 (got 0.0)", lucid.ad.jacobian,
           function(u) return lucid.sim.step(w, w:state(), u, {kappa = 0}) end, u0)
  -- a differentiable x of the wrong size is refused by name too, before the step runs
  lucid.ad.jacobian(function(x)
    t.raises("lucid.sim.step: x must have 13 entries (got 6)", lucid.sim.step, w, x, nil)
    return x
  end, {1, 2, 3, 4, 5, 6})
end)

t.case("across stick-slip: implicit jumps, relaxed varies continuously", function()
  -- a 1 kg box 2e-4 m deep, pushed out at the correction speed v_c (normal force m (g + v_c /
  -- dt) = 54.1 N, mu = 0.5): pushed with f along x it sticks below mu N = 27.1 N and slides
  -- above; dv+/df is 0 then dt/m = 1e-3
  local limit = 0.5 * (9.81 + math.sqrt(2 * 9.80665 * 1e-4) / 1e-3)
  local w = floor_world()
  w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1, pose = at(0, 0, 0.1 - 2e-4)}
  local x = w:state()
  local function dvdf(f, opts)
    w:set_state(x)
    w:set_controls{f, 0, 0, 0, 0, 0}
    return w:step_derivatives(opts).B:get(7, 1)
  end
  t.near(dvdf(limit - 5, {}), 0, 1e-10)
  t.near(dvdf(limit + 5, {}), 1e-3, 1e-10)
  t.near(dvdf(limit + 5, {method = "finite_differences", tol = 1e-13}), 1e-3, 1e-8)
  local prev, biggest = nil, 0
  for f = limit - 2, limit + 2, 0.1 do
    local d = dvdf(f, {method = "relaxed", kappa = 1e-2})
    t.truthy(d >= -1e-9 and d <= 1e-3 + 1e-9, "relaxed dv/df in [0, dt/m]: " .. d)
    if prev then biggest = math.max(biggest, math.abs(d - prev)) end
    prev = d
  end
  print(string.format("relaxed (kappa 1e-2): largest change of dv+/df per 0.1 N: %.2e (the jump: 1e-3)", biggest))
  t.truthy(biggest < 2.5e-4, "relaxed derivative jumps by " .. biggest)
  t.raises("kappa must be > 0", w.step_derivatives, w, {method = "relaxed", kappa = 0})
end)

-- docs/step_derivatives.md, "Contact geometry": the position and parameter columns carry the
-- nominal contacts by their geometry derivatives instead of re-running collision detection
local function quat_x(a) return {math.cos(a / 2), math.sin(a / 2), 0, 0} end

t.case("carried contact geometry: a sphere rolling, a capsule resting, against whole steps", function()
  local w = floor_world()
  -- rolling without slipping: v = 1 m/s along x, w = v / r about y, 2e-4 m deep
  w:add_body{shape = lucid.sphere(0.1), mass = 1, pose = at(0, 0, 0.1 - 2e-4),
             velocity = {1, 0, 0, 0, 10, 0}}
  w:set_controls{0.3, 0.2, 0, 0, 0, 0.01}
  local x, u = w:state(), w:controls()
  local D = check_against_fd("sphere rolling (carried)", w, {geometry = "carried"})
  t.eq(D.geometry, "carried")
  t.eq(#D.contacts, 1)
  t.eq(D.contacts[1].estimated, false)
  w:set_state(x)
  w:set_controls(u)
  local C = w:step_derivatives{geometry = "collide"} -- the old path: detection at each column
  t.eq(C.geometry, "collide")
  t.truthy(rel(D.A, C.A, 1) <= 1e-6, "carried and collide A differ by " .. rel(D.A, C.A, 1))
  -- two spheres stacked off-centre, the upper one frictionless (its force along the normal):
  -- the upper contact's normal turns with both bodies (lucid.distance_derivatives' analytic
  -- method, the first body's by invariance)
  local s = floor_world()
  s:add_body{shape = lucid.sphere(0.1), mass = 1, pose = at(0, 0, 0.1 - 2e-4)}
  local a, d = 0.3, 0.18 - 2e-4
  s:add_body{shape = lucid.sphere(0.08), mass = 0.5,
             pose = at(d * math.sin(a) * math.cos(0.2), d * math.sin(a) * math.sin(0.2),
                       0.1 - 2e-4 + d * math.cos(a)),
             velocity = {0, 0.1, 0, 0.5, 0, 0}, friction = 0}
  local S = check_against_fd("two spheres stacked (carried)", s, {geometry = "carried"})
  t.eq(#S.contacts, 2)
  -- a capsule lying on the floor: a two-point patch (both caps), and a tilted one on one cap
  for _, case in ipairs{{"capsule resting (flat)", math.pi / 2, 0.05, 2},
                        {"capsule resting (one cap)", math.pi / 2 - 0.3, 0.05 + 0.15 * math.sin(0.3), 1}} do
    local c = floor_world()
    c:add_body{shape = lucid.capsule(0.05, 0.15), mass = 1,
               pose = lucid.se3.new(quat_x(case[2]), {0, 0, case[3] - 2e-4}),
               velocity = {0.2, 0, 0, 0, 0, 0.5}}
    local E = check_against_fd(case[1], c, {geometry = "carried", params = {{body = 2, "friction"}},
                                            steps = {1e-5, 1e-6, 3e-7}})
    t.eq(E.geometry, "carried")
    t.eq(#E.contacts, case[4])
  end
end)

t.case("carried contact geometry: a box on its face and on its corner, with an estimator", function()
  -- on its face the patch's points are vertices rigid with the face: exact, with or without
  -- opts.collision; balanced on a corner (the body diagonal vertical) the vertex has no
  -- curvature, and first_order_gaussian's smoothed Hessian flags it estimated (its noise, an
  -- angle here, is far from the vertex's ties, so it is close to the whole steps' differences)
  local gaussian = {method = "first_order_gaussian", samples = 40, noise = 1e-3, seed = 3}
  for _, vx in ipairs{0, 1} do
    local w = floor_world()
    w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1, pose = at(0, 0, 0.1 - 2e-4),
               velocity = {vx, 0, 0, 0, 0, 0}}
    w:set_controls{0.3, 0.2, 0, 0, 0, 0.01}
    local D = check_against_fd((vx == 0 and "resting" or "sliding") .. " (gaussian)", w,
                               {collision = gaussian})
    t.eq(D.geometry, "carried")
    for _, c in ipairs(D.contacts) do t.eq(c.estimated, false) end
  end
  local w = floor_world()
  local tilt = math.acos(1 / math.sqrt(3))
  local axis = {1 / math.sqrt(2), -1 / math.sqrt(2), 0}
  local q = {math.cos(tilt / 2), axis[1] * math.sin(tilt / 2), axis[2] * math.sin(tilt / 2), 0}
  w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1,
             pose = lucid.se3.new(q, {0, 0, 0.1 * math.sqrt(3) - 2e-4}),
             velocity = {0.1, 0, 0, 0, 0, 0.3}}
  local D = check_against_fd("box on its corner (gaussian)", w, {collision = gaussian})
  t.eq(D.geometry, "carried")
  t.eq(#D.contacts, 1)
  t.eq(D.contacts[1].estimated, true)
  t.truthy(maxabs(D.A) < math.huge)
end)

t.case("carried contact geometry: a box sliding on a pedestal, against whole steps", function()
  -- a box's face acts as a halfspace: the static pedestal's top face lies inside the box's
  -- bottom face, so the normal turns with the box and the points are the pedestal's corners.
  -- The old path (geometry = "collide") gets this scene wrong: the patch lists its points in
  -- another order once the perturbed configuration changes the reference face's side, and the
  -- nominal forces are applied to the wrong points.
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  w:add_static{shape = lucid.box(0.03, 0.03, 0.03), friction = 0.5}
  w:add_body{shape = lucid.box(0.2, 0.15, 0.05), mass = 2,
             pose = lucid.se3.new({math.cos(0.2), 0, 0, math.sin(0.2)}, {0.01, 0.005, 0.08 - 2e-4}),
             velocity = {0.1, 0, 0, 0, 0, 0.2}}
  local x = w:state()
  local D = check_against_fd("box sliding on a pedestal (carried)", w, {geometry = "carried"})
  t.eq(D.geometry, "carried")
  t.eq(#D.contacts, 4)
  w:set_state(x)
  local C = w:step_derivatives{geometry = "collide"}
  print(string.format("box sliding on a pedestal: collide's A differs from carried by %.1e",
                      rel(C.A, D.A, 1)))
end)

-- Convex meshes, cylinders and cones carried by exact rules (docs/step_derivatives.md, "Contact
-- geometry"); each with the default geometry ("auto"), which must not fall back to detection.
local function hull_box(hx, hy, hz) -- a box as the hull of its 8 corners: a lucid.convex mesh
  local p = {}
  for k = 0, 7 do
    p[#p + 1] = {(k & 1 > 0) and hx or -hx, (k & 2 > 0) and hy or -hy, (k & 4 > 0) and hz or -hz}
  end
  return lucid.convex(p)
end

local function slab() -- an irregular octagonal slab 0.06 m thick, top face at z = 0.03
  local p = {}
  for k = 0, 7 do
    local a, r = 2 * math.pi * k / 8 + 0.1 * math.sin(3 * k), 0.25 + 0.03 * math.cos(2 * k)
    p[#p + 1] = {r * math.cos(a), 0.8 * r * math.sin(a), -0.03}
    p[#p + 1] = {r * math.cos(a), 0.8 * r * math.sin(a), 0.03}
  end
  return lucid.convex(p)
end

local function carried(D, name)
  t.eq(D.geometry, "carried")
  t.eq(D.fallback_columns, 0)
  for _, c in ipairs(D.contacts) do t.eq(c.estimated, false, name) end
end

t.case("carried contact geometry: convex-mesh faces, against whole steps", function()
  -- a box resting on a static convex slab (the slab's face contains the box's: its normal,
  -- the box's corners), and a hexagonal-prism mesh body resting on a small static box (the
  -- prism's bottom face contains the pedestal's top face: the normal turns with the prism),
  -- both sticking under the controls (sliding with four contacts, B differs from the whole
  -- steps by 7e-4 on a box as on the slab: the friction forces of a sliding hyperstatic patch)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  w:add_static{shape = slab(), friction = 0.5}
  w:add_body{shape = lucid.box(0.05, 0.04, 0.02), mass = 1,
             pose = lucid.se3.new({math.cos(0.2), 0, 0, math.sin(0.2)}, {0.03, 0.01, 0.05 - 2e-4}),
             velocity = {1, 0, 0, 0, 0, 0}}
  w:set_controls{0.3, 0.2, 0, 0, 0, 0.01}
  local D = check_against_fd("box sliding on a convex slab", w)
  carried(D, "box on slab")
  t.eq(#D.contacts, 4)
  local prism = {}
  for k = 0, 5 do
    local a = math.pi * k / 3 + 0.05 * k
    prism[#prism + 1] = {0.1 * math.cos(a), 0.1 * math.sin(a), -0.02}
    prism[#prism + 1] = {0.1 * math.cos(a), 0.1 * math.sin(a), 0.02}
  end
  local p = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  p:add_static{shape = lucid.box(0.02, 0.02, 0.02), friction = 0.5}
  p:add_body{shape = lucid.convex(prism), mass = 1, pose = at(0.005, 0.01, 0.04 - 2e-4),
             velocity = {0.1, 0, 0, 0, 0, 0}}
  p:set_controls{0.3, 0.2, 0, 0, 0, 0.01}
  local E = check_against_fd("prism sliding on a pedestal", p)
  carried(E, "prism on pedestal")
  t.eq(#E.contacts, 4)
end)

t.case("carried contact geometry: a convex mesh's edge across a box's edge, against whole steps", function()
  -- a bar (a convex mesh) turned 45 degrees about its long axis x lies with its lower edge
  -- across the upper edge (along y) of a static box turned 45 degrees about y: one contact,
  -- the closest points sliding on both edges (cores at radius 0)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local c, s = math.cos(math.pi / 8), math.sin(math.pi / 8)
  w:add_static{shape = lucid.box(0.1, 0.1, 0.1), pose = lucid.se3.new({c, 0, s, 0}, {0, 0, 0}),
               friction = 0.5}
  local top = 0.1 * math.sqrt(2) + 0.02 * math.sqrt(2) - 2e-4
  w:add_body{shape = hull_box(0.2, 0.02, 0.02), mass = 1,
             pose = lucid.se3.new({c, s, 0, 0}, {0.03, 0.01, top}), velocity = {0.1, 0.05, 0, 0, 0, 0.2}}
  -- (the differences converge as h^2 with a large constant: h = 1e-5 gives 1.4e-4)
  local D = check_against_fd("mesh edge across a box edge", w, {steps = {1e-6, 3e-7, 1e-7}})
  carried(D, "edge-edge")
  t.eq(#D.contacts, 1)
end)

t.case("carried contact geometry: cylinders and a cone, against whole steps", function()
  -- a cylinder rolling on its side (a two-point patch: the side segment's ends slide round
  -- the rims), one sliding on its cap (the cap's inscribed polygon's vertices, rigid) and a
  -- cone sliding on its base. Standing ones are tilted 1e-3 rad so that the patch's deepest
  -- vertex, and with it the 4 kept of the polygon's 16, do not change under the perturbations,
  -- and sunk 2.5e-4 m so that every point is below -slop (away from the reference velocity's
  -- kinks); at rest the contact points would not enter the step (all sticking: v+ = 0
  -- whatever J), hence sliding
  local tilt = {math.cos(5e-4), 0.6 * math.sin(5e-4), 0.8 * math.sin(5e-4), 0}
  local cases = {
    {"cylinder rolling on its side", lucid.cylinder(0.05, 0.1), quat_x(math.pi / 2), 0.05 - 2e-4,
     {0.5, 0, 0, 0, 10, 0.1}, 2},
    {"cylinder sliding on its cap", lucid.cylinder(0.1, 0.05), tilt, 0.05 - 2.5e-4,
     {1, 0, 0, 0, 0, 0}, 4},
    {"cone sliding on its base", lucid.cone(0.08, 0.05), tilt, 0.05 - 2.5e-4, {1, 0, 0, 0, 0, 0}, 4},
  }
  for _, case in ipairs(cases) do
    local w = floor_world()
    w:add_body{shape = case[2], mass = 1, pose = lucid.se3.new(case[3], {0, 0, case[4]}),
               velocity = case[5]}
    w:set_controls{0.3, 0.2, 0, 0, 0, 0.01}
    local D = check_against_fd(case[1], w, {params = {{body = 2, "friction"}}})
    carried(D, case[1])
    t.eq(#D.contacts, case[6])
  end
  -- a sphere resting on a static cylinder's cap (the cap as a halfspace), and a capsule lying
  -- across a static cylinder's side (both closest core points sliding)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  w:add_static{shape = lucid.cylinder(0.1, 0.05), friction = 0.5}
  w:add_body{shape = lucid.sphere(0.03), mass = 0.3, pose = at(0.02, 0.03, 0.08 - 2e-4),
             velocity = {0.1, 0, 0, 0, 0, 0.2}}
  carried(check_against_fd("sphere on a cylinder's cap", w), "sphere on cap")
  -- GJK's normal on a cylinder's side is only ~1e-8 accurate (test_contact_geometry_derivatives),
  -- so whole steps of this world differenced at h <= 1e-4 are noise (A: 4.6e-2 at 1e-4, 0.54 at
  -- 1e-5); the steps differenced are those of the same world with the static cylinder replaced
  -- by the capsule of its axis, radius and half-length, whose side within the rims is the
  -- cylinder's (the nominal steps agree, asserted)
  -- the capsule horizontal (its axis along x turned 0.3 rad about z), across the top of the
  -- static cylinder lying along y
  local c, s, r = math.cos(0.15), math.sin(0.15), math.sqrt(0.5)
  local function across(static)
    local l = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
    l:add_static{shape = static, pose = lucid.se3.new(quat_x(math.pi / 2), {0, 0, 0}), friction = 0.5}
    l:add_body{shape = lucid.capsule(0.02, 0.1), mass = 0.3,
               pose = lucid.se3.new({c * r, -s * r, c * r, s * r}, {0.01, 0.02, 0.12 - 2e-4}),
               velocity = {0.1, 0, 0, 0, 0, 0.2}}
    return l
  end
  local l, proxy = across(lucid.cylinder(0.1, 0.2)), across(lucid.capsule(0.1, 0.2))
  -- (h^2 convergence with a large constant, as an edge across an edge: 1.8e-4 at h = 1e-5)
  local L = check_against_fd("capsule across a cylinder's side", l,
                             {reference = proxy, steps = {1e-6, 3e-7, 1e-7}})
  carried(L, "capsule on side")
  t.eq(#L.contacts, 1)
  local a, b = across(lucid.cylinder(0.1, 0.2)), across(lucid.capsule(0.1, 0.2))
  a:step()
  b:step()
  local ds = maxabs(a:state() - b:state())
  print(string.format("capsule across a cylinder's side: the proxy's step differs by %.1e", ds))
  t.truthy(ds < 1e-7, "the proxy's step differs by " .. ds) -- 1.1e-8: the cylinder's ~1e-8 normal
end)

t.case("estimators inside the step: Gumbel and zeroth-order, flagged, against whole steps", function()
  -- docs/step_derivatives.md, "Contact geometry": with opts.collision given, a contact whose
  -- witness has no exact curvature takes the estimator, flagged estimated. A convex-mesh cube
  -- balanced on a corner (the vertex rule is exact: the reference) and a cone tipped onto its
  -- base rim (no rule: only an estimator covers it), 2e-4 m deep and pushed back at up to 0.5
  -- m/s (so within the step, A's position columns carrying the slope -1/dt), against whole
  -- steps differenced at h small
  -- enough to converge (the cone's differences converge as h^2 with a large constant: 7.5e-3
  -- between h = 1e-4 and 1e-5, 6.8e-7 between 1e-6 and 3e-7)
  local function corner()
    local w = floor_world{correction_speed = 0.5}
    local tilt = math.acos(1 / math.sqrt(3))
    local s = math.sin(tilt / 2) / math.sqrt(2)
    w:add_body{shape = hull_box(0.1, 0.1, 0.1), mass = 1,
               pose = lucid.se3.new({math.cos(tilt / 2), s, -s, 0}, {0, 0, 0.1 * math.sqrt(3) - 2e-4}),
               velocity = {0.1, 0, 0, 0, 0, 0.3}}
    return w
  end
  local function rim()
    local w = floor_world{correction_speed = 0.5}
    w:add_body{shape = lucid.cone(0.1, 0.1), mass = 1,
               pose = lucid.se3.new(quat_x(0.3), {0, 0, 0.1 * math.cos(0.3) + 0.1 * math.sin(0.3) - 2e-4}),
               velocity = {0.1, 0, 0, 0, 0, 0.3}}
    return w
  end
  local function against(w, h, collision)
    local x = w:state()
    local F = w:step_derivatives{method = "finite_differences", step = h, tol = 1e-13, max_iter = 100000}
    w:set_state(x)
    local D = w:step_derivatives{collision = collision}
    w:set_state(x)
    return rel(D.A, F.A, 1), D
  end
  local e, D = against(corner(), 1e-5, nil)
  t.eq(D.geometry, "carried")
  t.eq(D.contacts[1].estimated, false)
  t.truthy(e <= 1e-6, "the vertex rule: " .. e)
  -- Gumbel at temperature 1e-3 m: the corner's neighbours lie 0.115 m lower along the normal,
  -- soft-max weight exp(-115): the smoothed Hessian is the vertex's 0, the step the exact one;
  -- at 3e-2 m the smoothing shows (the test sees the estimator, not the rule)
  for _, case in ipairs{{1e-3, 1e-6, true}, {3e-2, 1e-6, false}} do
    e, D = against(corner(), 1e-5, {method = "first_order_gumbel", noise = case[1], levels = 1})
    print(string.format("mesh cube on a corner, gumbel at %.0e m: A %.1e", case[1], e))
    t.eq(D.geometry, "carried")
    t.eq(D.contacts[1].estimated, true)
    t.eq(e <= case[2], case[3], "gumbel " .. case[1] .. ": " .. e)
  end
  -- zeroth order: a Monte Carlo mean over N Gaussian directions, exact for a linear map up to
  -- its sample covariance (error ~ c / sqrt(N), whatever the noise), so at N = 4000 it must be
  -- within 3 times the worst seen over 4 seeds, and finite; a smaller N is worse. Measured at
  -- N = 1000 / 4000: the rim 1.2e-4 to 2.2e-4 / 4.1e-5 to 7.3e-5 (bound 2e-4); the corner
  -- 7.1e-4 to 2.0e-3 / 2.7e-4 to 4.6e-4 (bound 1.4e-3: its separation's sampling error enters
  -- A through the correction's slope 1/dt, five times the Baumgarte slope 0.2/dt it once had)
  for _, case in ipairs{{"mesh cube on a corner", corner, 1e-5, 1.4e-3},
                        {"cone on its rim", rim, 3e-7, 2e-4}} do
    local errs = {}
    for _, n in ipairs{250, 4000} do
      e, D = against(case[2](), case[3], {method = "zeroth_order", noise = 1e-4, samples = n, seed = 1})
      t.eq(D.geometry, "carried")
      t.eq(D.contacts[1].estimated, true)
      t.truthy(maxabs(D.A) < math.huge)
      errs[n] = e
    end
    print(string.format("%s, zeroth_order: A %.1e (N = 250), %.1e (N = 4000)", case[1], errs[250], errs[4000]))
    t.truthy(errs[4000] <= case[4], case[1] .. ": zeroth_order at N = 4000: " .. errs[4000])
    t.truthy(errs[4000] < errs[250], case[1] .. ": more samples, no better")
  end
  -- Gumbel is for convex meshes: the cone's rim keeps detection ("auto") or is an error
  local w = rim()
  local gumbel = {method = "first_order_gumbel", noise = 1e-3}
  t.eq(w:step_derivatives{collision = gumbel}.geometry, "collide")
  t.raises("lucid.world:step_derivatives: a contact's geometry derivative failed",
           w.step_derivatives, w, {geometry = "carried", collision = gumbel})
end)

t.case("a spinning ellipsoid's predicted witness: detected again at every column", function()
  -- lying on its long axis, spinning about it at 25 rad/s on a frictionless floor: the
  -- linearised step moves a point ahead of its witness deeper than the correction recovers in
  -- a step, so the pair gains the predicted witness (world_collision.c), which presses. Its
  -- points follow the free twist as well as the pose: every column, velocities and forces
  -- included, detects again (with the nominal contacts reused there: A 3.2e-4, B 2.7e-2).
  local function spinning(steps)
    local w = lucid.world{dt = 5e-3, contact = {tol = 1e-12, max_iter = 5000}}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0}
    local lying = lucid.se3.new({math.cos(math.pi / 4), 0, math.sin(math.pi / 4), 0}, {0, 0, 0.05})
    w:add_body{shape = lucid.ellipsoid(0.05, 0.08, 0.15), mass = 1, pose = lying,
               velocity = {0, 0, 0, 25, 0, 0}}
    w:step(steps)
    return w
  end
  local w = spinning(2)
  local x = w:state()
  local pressing = 0
  for _, c in ipairs(w:contacts()) do
    if c.predicted and c.lambda[3] > 0 then pressing = pressing + 1 end
  end
  t.eq(pressing, 1)
  -- at the state whose contacts were counted (step_derivatives steps the world)
  t.raises("pressing predicted witness has no carried rule",
           function() w:step_derivatives{geometry = "carried"} end)
  w:set_state(x)
  local D = check_against_fd("spinning ellipsoid, predicted witness", w, {steps = {1e-5, 1e-6, 1e-7}})
  t.eq(D.geometry, "collide")
  -- once it spins on with a single witness, the geometry is carried again
  w = spinning(12)
  t.eq(#w:contacts(), 1)
  D = check_against_fd("spinning ellipsoid, witness only", w, {steps = {1e-5, 1e-6, 1e-7}})
  t.eq(D.geometry, "carried")
end)

t.case("an ellipsoid's impact: predicted witnesses over the stopping impulse's twists", function()
  -- lying tilted (0.45 and 0.5 rad) and falling at 3 m/s at 1/120 s: the pair's predicted
  -- witness comes from the twists after its witness's stopping impulse (world_collision.c),
  -- which presses. That impulse leaves the friction cone here; taken along the slip velocity
  -- (0 in this fall, its direction noise) it jumped with the inputs (tilt 0.5: B 1.6e-4
  -- against whole steps, best h); along the tangential impulse sticking asks for it is
  -- continuous. 1e-5: an impact of 70 N, whose whole steps differ by the solver's tolerance
  for _, tilt in ipairs{0.45, 0.5} do
    local shape, plane = lucid.ellipsoid(0.05, 0.08, 0.15), lucid.halfspace({0, 0, 1}, 0)
    local w = lucid.world{dt = 1 / 120, contact = {tol = 1e-12, max_iter = 5000}}
    w:add_static{shape = plane}
    local R = lucid.so3.exp({0, math.pi / 2 + tilt, 0}) -- the long axis along x, tilted
    local low = lucid.distance(shape, lucid.se3.new(R, {0, 0, 0}), plane, lucid.se3.identity())
    w:add_body{shape = shape, mass = 1, pose = lucid.se3.new(R, {0, 0, 0.005 - low.distance}),
               velocity = {0, 0, -3, 0, 0, 0}}
    w:step()
    local x = w:state()
    w:step()
    local pressing = 0
    for _, c in ipairs(w:contacts()) do
      if c.predicted and c.lambda[3] > 0 then pressing = pressing + 1 end
    end
    t.eq(pressing, 1)
    w:set_state(x)
    local D = check_against_fd(string.format("ellipsoid impact, tilt %.2f", tilt), w,
                               {steps = {1e-5, 1e-6, 1e-7}, bound = 1e-5})
    t.eq(D.geometry, "collide")
  end
end)

t.case("carried contact geometry: a tilted capsule's ends, a cylinder's and a cone's tripods", function()
  -- the vertex rule's points (solvers/collision/plane_vertices.h), sliding: a capsule 5e-3 rad
  -- off lying (its two ends, 0.5 mm apart in depth, pushed out at the correction speed), a
  -- cylinder and a cone tilted 0.02 rad on their caps (the support point and the rim points
  -- 120 degrees from it, which slide round the rim with the tilt's direction), 1.8e-3 and 3e-4
  -- m deep, pushed back at up to 2 m/s (so all three back to the rest depth within the step):
  -- forces of a few weights, which keep the friction column above the noise of a cone's and a
  -- cylinder's normals (~1e-8) in the differences
  local cases = {
    {"capsule's two ends", lucid.capsule(0.05, 0.05), quat_x(math.pi / 2 - 5e-3),
     0.05 + 0.05 * math.sin(5e-3) - 7e-4, 2},
    {"cylinder's tripod", lucid.cylinder(0.05, 0.03), quat_x(0.02),
     0.03 * math.cos(0.02) + 0.05 * math.sin(0.02) - 1.8e-3, 3, 2},
    {"cone's tripod", lucid.cone(0.05, 0.05), quat_x(0.02),
     0.05 * math.cos(0.02) + 0.05 * math.sin(0.02) - 1.8e-3, 3, 2},
  }
  for _, case in ipairs(cases) do
    local w = lucid.world{dt = 1e-3, correction_speed = case[6],
                          contact = {tol = 1e-12, max_iter = 5000}}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
    w:add_body{shape = case[2], mass = 1, pose = lucid.se3.new(case[3], {0, 0, case[4]}),
               velocity = {1, 0.2, 0, 0, 0, 0.3}}
    w:set_controls{0.3, 0.2, 0, 0, 0, 0.01}
    local D = check_against_fd(case[1], w, {params = {{body = 2, "friction"}},
                                            steps = {1e-4, 1e-5, 3e-6, 1e-6}})
    carried(D, case[1])
    t.eq(#D.contacts, case[5])
  end
end)

t.case("contact geometry without an exact rule: collide by default, an estimator on request", function()
  -- a box's corner on a static ellipsoid: a polytope's vertex against a curved shape has no
  -- exact rule (a cone's rim, the example before, now has one: the base disc's support)
  local function make()
    local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
    w:add_static{shape = lucid.ellipsoid(0.4, 0.3, 0.1), friction = 0.5}
    local tilt = math.acos(1 / math.sqrt(3)) / math.sqrt(2) -- the body diagonal vertical
    w:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1,
               pose = lucid.se3.new(lucid.so3.exp({tilt, -tilt, 0}), {0, 0, 0.1 + 0.05 * math.sqrt(3) - 2e-4})}
    return w
  end
  local w = make()
  local x = w:state()
  local D = w:step_derivatives{}
  t.eq(D.geometry, "collide")
  w:set_state(x)
  t.raises("lucid.world:step_derivatives: a contact's geometry has no exact derivative",
           w.step_derivatives, w, {geometry = "carried"})
  w:set_state(x)
  local E = w:step_derivatives{collision = {method = "first_order_gaussian", samples = 20}}
  t.eq(E.geometry, "carried")
  t.eq(E.contacts[1].estimated, true)
  t.truthy(maxabs(E.A) < math.huge)
  local F = "lucid.world:step_derivatives"
  t.raises(F .. ": unknown option 'collision.sample'", w.step_derivatives, w, {collision = {sample = 3}})
  t.raises(F .. ": collision.samples", w.step_derivatives, w, {collision = {samples = 0}})
  t.raises(F .. ': collision.method must be "finite_differences", "zeroth_order", '
           .. '"first_order_gaussian", "first_order_gumbel" or "analytic" (got magic)',
           w.step_derivatives, w, {collision = {method = "magic"}})
  t.raises(F .. ": collision.noise must be > 0 (got 0.0)", w.step_derivatives, w,
           {collision = {noise = 0}})
  t.raises(F .. ": opts.collision must be a table", w.step_derivatives, w, {collision = "gaussian"})
  t.raises(F .. ": geometry must be", w.step_derivatives, w, {geometry = "guess"})
end)

t.case("a single_level world reports its own geometry", function()
  local w = lucid.world{dt = 0.01, collision = "single_level", single_level = {kappa = 1e-4, tol = 1e-12}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  w:add_body{shape = lucid.box(0.2, 0.15, 0.1), mass = 1, pose = at(0, 0, 0.1)}
  w:step(2)
  local D = w:step_derivatives{method = "relaxed"}
  t.eq(D.geometry, "single_level")
  t.truthy(#D.contacts > 0, "the box touches the floor")
  for _, c in ipairs(D.contacts) do t.eq(c.estimated, false) end
end)

t.case("a contact that may appear in a perturbed configuration: detection at each column", function()
  -- a box 1e-7 m above the margin: no nominal contact, but the perturbed steps of its height
  -- column (h = 1e-6) touch; carried contacts cannot show that, so the default detects
  local w = floor_world()
  w:add_body{shape = lucid.box(0.1, 0.1, 0.1), pose = at(0, 0, 0.1 + 5e-3 + 1e-7)}
  local x = w:state()
  local D = w:step_derivatives()
  t.eq(D.geometry, "collide")
  t.truthy(D.fallback_columns > 0, "the appearing contact was not reported")
  w:set_state(x)
  t.eq(w:step_derivatives{geometry = "carried"}.fallback_columns, 0) -- documented blind spot
end)

-- Torsional friction (MJCF condim 4): each contact's fourth row, the spin a n . (w2 - w1)
-- with a = mu_t / mu, in the IFT's dim-4 problem; a geom's torsional coefficient is a
-- parameter. Smooth regimes only: spinning (the spin on the cone's boundary) and held.

local function column_size(P)
  local m = 0
  for i = 1, P:rows() do m = math.max(m, math.abs(P:get(i, 1))) end
  return m
end

t.case("torsional friction: a sphere spinning and sliding on a condim 4 floor", function()
  -- the floor's torsional coefficient (0.02 m) is the pair's (the larger): its column is smooth
  local m = lucid.model.load_string([[
<mujoco><option timestep="0.001"/><worldbody>
  <geom name="floor" type="plane" size="0 0 1" condim="4" friction="1 0.02"/>
  <body pos="0 0 0.1"><freejoint/>
    <geom name="ball" type="sphere" size="0.1" mass="1" condim="4" friction="1 0.005"/></body>
</worldbody></mujoco>]])
  for _, vx in ipairs{0, 0.3} do -- spinning; spinning and sliding (one cone over both)
    local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
    local id = w:add_model(m)
    w:step(300)
    local v = w:v(id)
    v[1], v[6] = vx, 10
    w:set_v(id, v)
    w:step(5)
    local torsion = {model = id, geom = "floor", "torsion"}
    t.near(w:param(torsion), 0.02, 0)
    local x = w:state()
    local D = check_against_fd("sphere spinning at vx " .. vx, w, {params = {torsion}})
    t.eq(#D.contacts, 1)
    t.eq(D.contacts[1].mode, "sliding")
    t.truthy(column_size(D.params[1]) > 1, "the torsion column moves the spin")
    -- the relaxed method (the interior point's dim-4 cone at kappa 1e-6) differentiates the
    -- smoothed step: here it agrees with the implicit A to 1e-5 (measured 1.8e-6 and 8.7e-6;
    -- a spin row left out moves A by O(1))
    local e, s = relaxed_against_implicit(w, x)
    print(string.format("sphere spinning at vx %g: relaxed A against implicit A: %.2e", vx, e / s))
    t.truthy(e / s < 1e-4, "relaxed A off by " .. e / s)
  end
end)

t.case("torsional friction from an MJCF <pair>: condim 4 between condim 3 geoms", function()
  -- the pair's condim 4 and torsion 0.02 m, not the geoms' condim 3: the step's problem has the
  -- spin row (lucid_world_derivative_dim counts the model's pairs)
  local m = lucid.model.load_string([[
<mujoco><option timestep="0.001"/><worldbody>
  <geom name="floor" type="plane" size="0 0 1"/>
  <body pos="0 0 0.1"><freejoint/><geom name="ball" type="sphere" size="0.1" mass="1"/></body>
</worldbody><contact>
  <pair geom1="floor" geom2="ball" condim="4" friction="1 1 0.02"/>
</contact></mujoco>]])
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  w:step(300)
  local v = w:v(id)
  v[1], v[6] = 0.3, 10
  w:set_v(id, v)
  w:step(5)
  local c = w:contacts()[1]
  t.eq(c.torsion, 0.02)
  local D = check_against_fd("sphere spinning on a <pair>", w)
  t.eq(#D.contacts, 1)
  t.eq(D.contacts[1].mode, "sliding")
end)

t.case("torsional friction: a box twisted below and above its torsional limit", function()
  -- a plain box (friction 1) on a condim 4 floor (0.01, 0.05 m: the pair's), four corner
  -- contacts; a torque of 0.5x the limit is held (sticking), 1.5x spins it (sliding)
  local m = lucid.model.load_string([[
<mujoco><worldbody>
  <geom name="floor" type="plane" size="0 0 1" condim="4" friction="0.01 0.05"/>
</worldbody></mujoco>]])
  local h, mu, mu_t = 0.05, 0.01, 0.05
  local limit = 9.81 * math.sqrt(mu * mu * 2 * h * h + mu_t * mu_t)
  for _, frac in ipairs{0.5, 1.5} do
    local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
    local id = w:add_model(m)
    local box = w:add_body{shape = lucid.box(h, h, h), mass = 1, friction = 1, pose = at(0, 0, h)}
    w:step(200)
    for _ = 1, 20 do
      w:set_controls{0, 0, 0, 0, 0, frac * limit}
      w:step()
    end
    w:set_controls{0, 0, 0, 0, 0, frac * limit}
    local torsion = {model = id, geom = "floor", "torsion"}
    local D = check_against_fd("box at " .. frac .. " x its torsional limit", w,
                               {params = {torsion, {body = box, "mass"}}})
    t.eq(#D.contacts, 4)
    for _, c in ipairs(D.contacts) do t.eq(c.mode, frac < 1 and "sticking" or "sliding") end
    if frac > 1 then t.truthy(column_size(D.params[1]) > 1e-3, "the torsion column moves the spin") end
  end
end)

t.case("torsional friction: w:param / w:set_param", function()
  local m = lucid.model.load("tests/data/model/mjcf_torsion_spin.xml")
  local w = lucid.world{dt = 1e-3}
  local id = w:add_model(m)
  local floor = {model = id, geom = "floor", "torsion"}
  t.near(w:param(floor), 0.01, 0)
  w:set_param(floor, 0.03)
  t.near(w:param(floor), 0.03, 0)
  w:step(100)
  t.near(w:contacts()[1].torsion, 0.03, 0) -- the pair takes the larger
  t.raises("lucid.world:set_param: parameter value out of range", w.set_param, w, floor, -1)
  t.raises("the model has no geom \"wall\"", w.param, w, {model = id, geom = "wall", "torsion"})
  t.raises("params[1]: unknown entry", w.param, w, {model = id, geom = "floor", "torsion", part = 1})
end)

-- Rolling friction (MJCF condim 6): rows 4 and 5 of each contact, the rolling b t_k . (w2 - w1)
-- with b = mu_r / mu, in the IFT's dim-6 problem; a geom's rolling coefficient is a parameter.
-- Smooth regimes only: rolling at the cone's bound (decelerating: "sliding") and held inside it
-- ("sticking").
t.case("rolling friction: a ball rolling on a condim 6 floor, at its rolling bound", function()
  -- the floor's rolling coefficient (0.003 m) is the pair's (the larger): its column is smooth
  local m = lucid.model.load_string([[
<mujoco><option timestep="0.001"/><worldbody>
  <geom name="floor" type="plane" size="0 0 1" condim="6" friction="1 0.005 0.003"/>
  <body pos="0 0 0.1"><freejoint/>
    <geom name="ball" type="sphere" size="0.1" mass="1" condim="6" friction="1 0.002 0.002"/></body>
</worldbody></mujoco>]])
  for _, spin in ipairs{0, 2} do -- rolling; rolling and spinning (one cone over both)
    local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
    local id = w:add_model(m)
    w:step(300)
    w:set_v(id, {0.2, 0, 0, 0, 2, spin})
    w:step(5)
    local rolling = {model = id, geom = "floor", "rolling"}
    t.near(w:param(rolling), 0.003, 0)
    local x = w:state()
    local D = check_against_fd("ball rolling, spin " .. spin, w, {params = {rolling}})
    t.eq(#D.contacts, 1)
    t.eq(D.contacts[1].mode, "sliding")
    t.truthy(column_size(D.params[1]) > 1, "the rolling column moves the roll")
    -- the relaxed method (the interior point's dim-6 cone at kappa 1e-6) differentiates the
    -- smoothed step: close to the implicit A (a rolling row left out moves A by O(1))
    local e, s = relaxed_against_implicit(w, x)
    print(string.format("ball rolling, spin %g: relaxed A against implicit A: %.2e", spin, e / s))
    t.truthy(e / s < 1e-4, "relaxed A off by " .. e / s)
  end
end)

t.case("rolling friction: a ball held by its rolling friction below the limit, rolled above it",
  function()
  -- a plain sphere (friction 1) on a condim 6 floor (mu_r 0.004 m, the pair's): a torque about
  -- y of 0.5 x mu_r m g is held by the rolling torque alone (sticking, inside the cone); 1.5 x
  -- rolls it (the rolling torque at its bound: sliding)
  local m = lucid.model.load_string([[
<mujoco><worldbody>
  <geom name="floor" type="plane" size="0 0 1" condim="6" friction="1 0.005 0.004"/>
</worldbody></mujoco>]])
  local r, limit = 0.1, 0.004 * 9.81
  for _, frac in ipairs{0.5, 1.5} do
    local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
    local id = w:add_model(m)
    local ball = w:add_body{shape = lucid.sphere(r), mass = 1, friction = 1, pose = at(0, 0, r)}
    w:step(200)
    for _ = 1, 20 do
      w:set_controls{0, 0, 0, 0, frac * limit, 0}
      w:step()
    end
    w:set_controls{0, 0, 0, 0, frac * limit, 0}
    local rolling = {model = id, geom = "floor", "rolling"}
    -- the held ball's B: the differences carry a fixed offset (B's error times h is 1e-10 at
    -- every h), above 1e-6 for h <= 1e-4, so h = 1e-3 (2.5% of the limit) joins the steps
    local D = check_against_fd("ball at " .. frac .. " x its rolling limit", w,
                               {params = {rolling, {body = ball, "mass"}},
                                steps = {1e-3, 1e-4, 1e-5, 3e-6}})
    t.eq(#D.contacts, 1)
    t.eq(D.contacts[1].mode, frac < 1 and "sticking" or "sliding")
    if frac > 1 then t.truthy(column_size(D.params[1]) > 1e-3, "the rolling column moves the roll") end
  end
end)

t.case("rolling friction: w:param / w:set_param", function()
  local m = lucid.model.load("tests/data/model/mjcf_rolling.xml")
  local w = lucid.world{dt = 1e-3}
  local id = w:add_model(m)
  local floor = {model = id, geom = "floor", "rolling"}
  t.near(w:param(floor), 0.002, 0)
  w:set_param(floor, 0.003)
  t.near(w:param(floor), 0.003, 0)
  w:step(100)
  t.near(w:contacts()[1].rolling, 0.003, 0) -- the pair takes the larger
  t.raises("lucid.world:set_param: parameter value out of range", w.set_param, w, floor, -1)
  t.raises("params[1]: unknown entry", w.param, w, {model = id, geom = "floor", "rolling", part = 1})
end)

t.case("torsional and rolling friction on a curved support: the position columns turn the frame",
  function()
  -- a ball rolling and spinning over a static sphere (a dome): moving the ball turns the
  -- contact's normal and tangents, so the spin and rolling rows' directions and couples move
  -- with the position columns (analytic, from the carried geometry: step_positions.c)
  for _, condim in ipairs{4, 6} do
    local m = lucid.model.load_string(string.format([[
<mujoco><option timestep="0.001"/><worldbody>
  <geom name="dome" type="sphere" size="1" condim="%d" friction="1 0.01 0.004"/>
  <body pos="0.3 0.1 1.05"><freejoint/>
    <geom name="ball" type="sphere" size="0.1" mass="1" condim="%d" friction="1 0.002 0.002"/></body>
</worldbody></mujoco>]], condim, condim))
    local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
    local id = w:add_model(m)
    w:step(30)
    w:set_v(id, {0.2, -0.1, 0, 1, 2, 3})
    w:step(3)
    local D = check_against_fd("ball over a dome, condim " .. condim, w)
    t.eq(#D.contacts, 1)
    t.eq(D.contacts[1].mode, "sliding")
    t.eq(D.geometry, "carried")
  end
end)

-- The v+ (body-frame twist) of one step of a world built by make(contact options) from state x,
-- and its scaled residual.
local function step_vplus(make, x, solver)
  local w = make{model = "ncp", solver = solver, tol = 1e-13, max_iter = 100000}
  w:set_state(x)
  w:step()
  local s = w:state()
  return {s[8], s[9], s[10], s[11], s[12], s[13]}, w:stats().scaled_residual
end

t.case("a patch sliding and spinning: exact on 2 and 3 contacts, one free direction on 4", function()
  -- sliding at (0.3, 0.2) m/s and spinning at 0.5 rad/s, every contact's slip direction its
  -- own: a lying capsule's two ends and a tetrahedron's face (three corners) determine their
  -- forces, and the implicit A and B equal whole steps'
  local c45 = math.sqrt(0.5)
  local spin = {0.3, 0.2, 0, 0, 0, 0.5}
  for _, case in ipairs{
    {"capsule lying, spinning (2 contacts)", lucid.capsule(0.03, 0.05), {c45, c45, 0, 0}, 0.03, 2},
    {"tetrahedron on a face, spinning (3 contacts)", lucid.convex{{0.05, 0, -0.03},
     {-0.03, 0.04, -0.03}, {-0.04, -0.035, -0.03}, {0, 0, 0.04}}, {1, 0, 0, 0}, 0.03, 3},
  } do
    local w = floor_world()
    w:add_body{shape = case[2], mass = 1, pose = lucid.se3.new(case[3], {0, 0, case[4] - 2e-4}),
               velocity = spin}
    local D = check_against_fd(case[1], w)
    t.eq(#D.contacts, case[5], case[1])
    t.eq(D.rank_deficient, false, case[1])
    t.eq(D.free_velocity, 0, case[1])
    for _, c in ipairs(D.contacts) do
      t.eq(c.mode, "sliding", case[1])
      t.truthy(c.margin > 0.1, case[1] .. ": margin " .. c.margin)
    end
  end
  -- four coplanar corners (the box of test_heightfield.lua's slope, 2e-4 m deep): the normal
  -- rows fix three combinations of the four normal forces, and the fourth (+ - + - over the
  -- corners), which exerts no normal force or moment, weighs the four slip directions' friction
  -- differently: the rigid step's answers form a curve along which v+ turns (the solvers stop at
  -- different points of it), and whole steps differentiate the solver's choice while the
  -- implicit derivatives take the minimum-norm one. Their difference lies along the curve:
  -- (dt dv, dv), dv the difference of two solvers' v+
  local n = {-1 / 12, -1 / 6, 1}
  local len = math.sqrt(n[1] ^ 2 + n[2] ^ 2 + 1)
  n = {n[1] / len, n[2] / len, n[3] / len}
  local axis = {-n[2], n[1], 0} -- z x n: the rotation taking z to n
  local sa = math.sin(math.acos(n[3]) / 2) / math.sqrt(axis[1] ^ 2 + axis[2] ^ 2)
  local tilt = {math.cos(math.acos(n[3]) / 2), axis[1] * sa, axis[2] * sa, 0}
  local function make(contact, velocity) -- the box's centre 0.03 - 2e-4 above the plane along n
    local w = lucid.world{dt = 1e-3, contact = contact or {tol = 1e-12, max_iter = 5000}}
    w:add_static{shape = lucid.halfspace(n, 0), friction = 0.5}
    w:add_body{shape = lucid.box(0.05, 0.04, 0.03), mass = 1,
               pose = lucid.se3.new(tilt, {n[1] * 0.0298, n[2] * 0.0298, n[3] * 0.0298}),
               velocity = velocity or spin}
    return w
  end
  -- not spinning, the internal forces' friction cancels: rank deficient, v+ unique
  local S = make(nil, {0.3, 0.2, 0, 0, 0, 0}):step_derivatives()
  t.truthy(S.rank_deficient and S.free_velocity < 1e-12, "sliding alone: " .. S.free_velocity)
  local w = make()
  local x = w:state()
  local D = w:step_derivatives()
  t.eq(#D.contacts, 4)
  t.truthy(D.rank_deficient, "hyperstatic")
  t.truthy(D.free_velocity > 1e-3, "the free forces move v+: " .. D.free_velocity)
  for _, c in ipairs(D.contacts) do
    t.eq(c.mode, "sliding")
    t.truthy(c.margin > 0.1, "margin " .. c.margin)
  end
  local va, ra = step_vplus(make, x, "admm")
  local vs, rs = step_vplus(make, x, "staggered")
  t.truthy(ra < 1e-8 and rs < 1e-8, "both solve the step: " .. ra .. ", " .. rs)
  -- (the solvers end at points 0.029 rad/s apart in w_z: else there were no curve to remove)
  t.truthy(math.abs(vs[6] - va[6]) > 1e-2, "the spin after the step depends on the solver")
  local e, ee = {}, 0
  for i = 1, 6 do e[i], e[6 + i] = 1e-3 * (vs[i] - va[i]), vs[i] - va[i] end
  for i = 1, 12 do ee = ee + e[i] ^ 2 end
  w:set_state(x)
  local F = w:step_derivatives{method = "finite_differences", step = 1e-5, tol = 1e-13,
                               max_iter = 100000}
  for b, floor in pairs{A = 1, B = 1e-3} do
    local E = F[b] - D[b]
    for j = 1, E:cols() do
      local p = 0
      for i = 1, 12 do p = p + E:get(i, j) * e[i] end
      for i = 1, 12 do E:set(i, j, E:get(i, j) - p / ee * e[i]) end
    end
    local whole, off = rel(D[b], F[b], floor), maxabs(E) / math.max(maxabs(F[b]), floor)
    print(string.format("box sliding and spinning (4 contacts): %s %.1e, %.1e off the curve", b,
                        whole, off))
    t.truthy(off <= 1e-6, b .. ": relative error off the curve " .. off)
  end
end)
