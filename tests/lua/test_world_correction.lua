-- The position correction (docs/world_step.md, "Position correction"): an overlap is pushed out at
-- no more than the correction speed v_c, so no body leaves a correction faster than v_c
-- (by default sqrt(2 g_n slop): it rises at most slop), whatever the time step; Baumgarte's
-- -beta (-d - slop) / dt threw a box created 2 cm in the ground 0.79 m up at dt 1e-3 and 22 m
-- at dt 1e-4. Joint limits take the same rule. A contact's slop scales with the smaller moving
-- part it touches (world.h, LUCID_WORLD_SLOP_PER_SIZE), so small bodies rest as deep, relative
-- to their size, as large ones. A contact closing from a touch rests where its last free step
-- enters the rest band: slop/2 when the step would pass it, else that step's end, just past the
-- band's edge at 0.4 slop under a weak load. A joint or tendon limit rests at its bound.
local t = require "testing"
local lucid = require "lucid"

local G = 9.81

-- A box of half extent h (default 0.1, 1 kg; else of the world's density) created `depth`
-- into the ground, stepped for `duration` s: its highest and final heights above the touching
-- height h, and the time it reaches -slop (default 1e-4).
local function overlap_drop(dt, depth, duration, opts, h, slop)
  local o = {dt = dt, gravity = {0, 0, -G}}
  for k, v in pairs(opts or {}) do o[k] = v end
  local w = lucid.world(o)
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  h = h or 0.1
  local b = w:add_body{shape = lucid.box(h, h, h), mass = h == 0.1 and 1 or nil,
                       pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, h - depth})}
  local top, out_at = -math.huge, nil
  slop = slop or o.slop or 1e-4
  for i = 1, math.floor(duration / dt + 0.5) do
    w:step()
    local z = w:pose(b):translation()[3] - h
    top = math.max(top, z)
    if not out_at and z >= -slop then out_at = i * dt end
  end
  return top, w:pose(b):translation()[3] - h, out_at
end

t.case("an overlap is pushed out without launching the body, at dt 1e-3 and 1e-4", function()
  local slop = 1e-4
  local vc = math.sqrt(2 * 9.80665 * slop)
  for _, dt in ipairs{1e-3, 1e-4} do
    for _, depth in ipairs{0.01, 0.02} do
      local top, final, out_at = overlap_drop(dt, depth, 0.6)
      print(string.format("dt %.0e, %.0f cm deep: highest %.2e m, final %.2e m, out at %.3f s",
                          dt, depth * 100, top, final, out_at or -1))
      -- the issue's bound is 1 cm; the correction speed's own bound is slop (its definition)
      t.truthy(top < 0.01, "rises less than 1 cm")
      t.truthy(top <= slop + 1e-6, "rises at most slop: " .. top)
      -- at rest in the rest band [-slop, -0.4 slop]
      t.truthy(final >= -slop and final <= -0.4 * slop, "at rest in the band: " .. final)
      -- pushed out at v_c: (depth - slop) / v_c into the band
      t.truthy(out_at and math.abs(out_at - (depth - slop) / vc) < 0.02 * depth / vc,
               "out at the correction speed: " .. tostring(out_at))
    end
  end
end)

t.case("correction_speed: the option sets the speed and is validated", function()
  local top, _, out_at = overlap_drop(1e-3, 0.02, 0.3, {correction_speed = 0.5})
  print(string.format("correction_speed 0.5: highest %.3e m (bound %.3e), out at %.3f s", top,
                      0.5 ^ 2 / (2 * G), out_at))
  t.truthy(top <= 0.5 ^ 2 / (2 * G) + 1e-4, "a body pushed out at 0.5 m/s rises v^2 / 2g at most")
  t.truthy(math.abs(out_at - (0.02 - 1e-4) / 0.5) < 3e-3, "out in depth / speed")
  t.raises("correction_speed", function() lucid.world{correction_speed = -0.5} end)
  t.raises("correction_speed", function() lucid.world{correction_speed = "fast"} end)
  t.raises("baumgarte", function() lucid.world{baumgarte = 0.2} end)
end)

t.case("MuJoCo's humanoid with every limited joint past its limit: no kick, and it recovers", function()
  local path = "/usr/share/mujoco/model/humanoid/humanoid.xml"
  local f = io.open(path)
  if not f then t.skip("no " .. path .. " (libmujoco-samples)") end
  f:close()
  local m = lucid.model.load(path)
  local lo, hi = m:limits()
  local function limited(k) return lo[k] > -math.huge and hi[k] < math.huge and hi[k] ~= 1 end
  for _, past in ipairs{0.1, 3} do
    local w = lucid.world{dt = 0.005}
    local id = w:add_model(m)
    local q = w:q(id)
    for k = 1, #q do if limited(k) then q[k] = hi[k] + past end end
    w:set_q(id, q)
    local worst0 = past
    local kick = 0
    for s = 1, 200 do
      w:step()
      if s <= 5 then kick = math.max(kick, w:energy().kinetic) end
    end
    local worst = 0
    local qq = w:q(id)
    for k = 1, #qq do if limited(k) then worst = math.max(worst, qq[k] - hi[k]) end end
    print(string.format("%.1f rad past: kinetic energy over 5 steps <= %.2f J, worst violation " ..
                        "after 1 s %.3g rad", past, kick, worst))
    -- 0.1 rad: the issue's bound (Baumgarte gave 97 J in one step); 3 rad: the body's own fall
    -- onto its overlapping geoms (13 J), no launch
    t.truthy(kick < (past < 1 and 5 or 20), "kinetic energy over the first 5 steps " .. kick)
    -- each limit is corrected at no more than the correction speed (rad/s)
    t.truthy(worst < worst0, "the violation shrinks: " .. worst)
    if past < 1 then t.truthy(worst <= 1e-4, "back within its limits: " .. worst) end
  end
end)


-- The slop of a contact is min(slop, 0.02 L), L the smallest half extent of the smaller moving
-- part it touches: a 1 mm cube (1 mg at density 1000) rests 0.5% of its size deep, where
-- slop = 1e-4 m for every size put it 5% deep, and a ball of 1 mm rolls with omega r / v =
-- 1 / (1 - slop / 4r) = 1.005 (its contact point lies midway between the witness points, slop/4
-- inside it), where it was 1.053. A 6 cm box keeps the default slop.
t.case("small bodies rest at a depth proportional to their size; a 6 cm box within 1e-4 m", function()
  local function settle(shape, r, vx)
    local w = lucid.world{dt = 1e-3}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
    local b = w:add_body{shape = shape, pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, r}),
                         velocity = {vx or 0, 0, 0, 0, 0, 0}}
    w:step(1000)
    local deepest = 0
    for _, c in ipairs(w:contacts()) do deepest = math.min(deepest, c.separation) end
    return w, b, -deepest
  end
  for _, h in ipairs{5e-4, 1e-3, 0.03} do
    local _, _, depth = settle(lucid.box(h, h, h), h)
    local slop = math.min(1e-4, 0.02 * h)
    print(string.format("%.0f mm cube: rests %.3e m deep, %.2f%% of its size (slop %.1e)", 2e3 * h,
                        depth, 100 * depth / (2 * h), slop))
    -- in its own rest band [0.4 slop, slop]
    t.truthy(depth >= 0.4 * slop and depth <= slop, "in the rest band of its slop: " .. depth)
    if h == 5e-4 then t.truthy(depth <= 0.02 * 2 * h, "the 1 mm cube: <= 2% of its size") end
    if h == 0.03 then t.truthy(depth <= 1e-4, "the 6 cm box: <= 1e-4 m") end
  end
  -- a 1 mm ball launched sliding at 5 cm/s: rolling after 1 s
  local r = 5e-4
  local w, b = settle(lucid.sphere(r), r, 0.05)
  local v = w:velocity(b)
  local ratio = v[5] * r / v[1]
  print(string.format("1 mm ball rolling at %.4f m/s: omega r / v = %.5f", v[1], ratio))
  t.truthy(math.abs(ratio - 1) <= 0.01, "rolls with omega r / v within 1% of 1: " .. ratio)
end)

-- The correction speed is derived from the contact's slop: a 1 mm cube created 0.2 mm in the
-- ground is pushed out at sqrt(2 g_n 1e-5) = 0.014 m/s and rises at most its slop 1e-5 m; a
-- static part's size does not count (a 6 cm box on a 1 mm static plate keeps slop 1e-4).
t.case("a small body's correction speed follows its slop; static parts do not count", function()
  local slop = 0.02 * 5e-4
  local vc = math.sqrt(2 * 9.80665 * slop)
  local top, final, out_at = overlap_drop(1e-3, 2e-4, 0.1, nil, 5e-4, slop)
  print(string.format("1 mm cube 0.2 mm deep: highest %.2e m, final %.2e m, out at %.4f s", top,
                      final, out_at or -1))
  t.truthy(top <= slop + 1e-7, "rises at most its slop: " .. top)
  t.truthy(final >= -slop and final <= -0.4 * slop, "at rest in its band: " .. final)
  t.truthy(out_at and math.abs(out_at - (2e-4 - slop) / vc) <= 1e-3, -- one step
           "out at its correction speed: " .. tostring(out_at))
  local w = lucid.world{dt = 1e-3}
  w:add_static{shape = lucid.box(0.1, 0.1, 5e-4), pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, -5e-4})}
  local b = w:add_body{shape = lucid.box(0.03, 0.03, 0.03), mass = 1,
                       pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.03})}
  w:step(500)
  local depth = 0.03 - w:pose(b):translation()[3]
  print(string.format("6 cm box on a 1 mm static plate: rests %.3e m deep", depth))
  t.truthy(depth >= 0.4e-4 and depth <= 1e-4, "in the default slop's band: " .. depth)
end)

-- ---- the rest depth of an approach from a touch (docs/world_step.md, "Position correction") -------
local SLOP = 1e-4
local TIGHT = {tol = 1e-12, max_iter = 5000} -- solves whose residual moves no contact at rest

-- A unit inertia on a hinge limited above at 0.5 rad, pushed by a motor; two such hinges whose
-- fixed tendon j1 + j2 is limited above at 0.5, a motor on j1 (the tendon accelerates at the
-- torque). No gravity.
local INERTIA = '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
local HINGE = [[<mujoco><compiler angle="radian"/><option gravity="0 0 0"/><worldbody><body>
  <joint name="j" axis="0 1 0" limited="true" range="-1 0.5"/>]] .. INERTIA .. [[</body>
  </worldbody><actuator><motor joint="j"/></actuator></mujoco>]]
local TENDON = [[<mujoco><compiler angle="radian"/><option gravity="0 0 0"/><worldbody>
  <body><joint name="j1" axis="0 1 0"/>]] .. INERTIA .. [[</body>
  <body pos="1 0 0"><joint name="j2" axis="0 1 0"/>]] .. INERTIA .. [[</body></worldbody>
  <tendon><fixed name="t" limited="true" range="-1 0.5"><joint joint="j1" coef="1"/>
  <joint joint="j2" coef="1"/></fixed></tendon><actuator><motor joint="j1"/></actuator></mujoco>]]

-- The depth (in slop) of the world's one contact after 1 s at dt 1e-3.
local function rest_depth(w)
  w:step(1000)
  local c = w:contacts()
  t.eq(#c, 1)
  return -(c[1].separation - c[1].include_margin) / SLOP, c[1]
end

-- From a touch at rest under acceleration a the free steps (symplectic Euler) reach depths
-- a dt^2 n (n + 1) / 2; the contact acts only once a step would pass slop/2 (the speculative
-- reference lands it there), and the rest band (c* = 0) holds whatever depth a free step
-- ended at inside it: the first free depth past 0.4 slop, or slop/2 if that step passes it.
local function predicted_depth(a)
  local n = 1
  while a * 1e-6 * n * (n + 1) / 2 < 0.4 * SLOP do n = n + 1 end
  return math.min(a * 1e-6 * n * (n + 1) / 2, 0.5 * SLOP) / SLOP
end

-- A limit's separation is exact (a coordinate or a tendon's length, no geometry): it has no rest
-- band and rests at its bound, c* = -d / dt. Solved to 1e-12 its depth is round-off: within 64
-- DBL_EPSILON of the bound 0.5 (in slop), whatever the load (the old band left it at the depths
-- predicted_depth gives, 0.4 to 0.5 slop deep).
local ROUND_OFF = 64 * 2.220446049250313e-16 * 0.5 / SLOP

t.case("contacts rest where their last free step enters the band; joint and tendon limits at their bound", function()
  for _, a in ipairs{10, 1, 0.1, 0.01} do
    local expect = predicted_depth(a)
    local w = lucid.world{dt = 1e-3, gravity = {0, 0, -a}, contact = TIGHT}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
    w:add_body{shape = lucid.sphere(0.1), mass = 1, pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.1})}
    local sphere = rest_depth(w)
    w = lucid.world{dt = 1e-3, contact = TIGHT}
    w:set_control(w:add_model(lucid.model.load_string(HINGE), {q = {0.5}}), {a})
    local hinge, hc = rest_depth(w)
    t.eq(hc.limit, "upper")
    t.truthy(hc.lambda[3] > 0, "the hinge's limit holds the motor")
    w = lucid.world{dt = 1e-3, contact = TIGHT}
    w:set_control(w:add_model(lucid.model.load_string(TENDON), {q = {0.25, 0.25}}), {a})
    local tendon, tc = rest_depth(w)
    t.truthy(tc.tendon == 1 and tc.limit == "upper", "the tendon's limit")
    t.truthy(tc.lambda[3] > 0, "the tendon's limit holds the motor")
    io.stderr:write(string.format("  load %g: rest depth (slop) sphere %.9f (predicted %.9f), hinge "
      .. "limit %.3g, tendon limit %.3g\n", a, sphere, expect, hinge, tendon))
    t.near(sphere, expect, 1e-6)
    for _, d in ipairs{hinge, tendon} do t.truthy(math.abs(d) <= ROUND_OFF, "at the bound: " .. d) end
  end
end)
