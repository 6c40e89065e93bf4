-- MJCF fixed tendons (docs/model_files.md, docs/world.md): m:tendons() and m:actuators() read
-- the files' tendons (defaults and classes included), a tendon's limit is a world contact naming
-- the tendon, and w:step_derivatives equals central differences of whole steps with tendon
-- springs, dampers and actuators in free motion and with limited tendons held at their bounds.
-- A tendon's frictionloss is a dry-friction row on its moment: two pendulums coupled by it stick
-- inside its band, slide with the tendon's force exactly f at the analytic acceleration, stop
-- where the energy balance puts them; its derivatives equal central differences. Spatial
-- tendons' too: in free motion through sphere and cylinder wraps, held at a limit, and on a
-- sliding and a stuck friction row (their moment's change with q included). A tendon's damping
-- and stiffness are parameters too: their columns equal central differences.
-- The comparisons with MuJoCo 2.2.2 are tests/c/runtime/model/test_mjcf_tendons.c.
local t = require "testing"
local lucid = require "lucid"
local rows = require "friction_rows"

local SPRING = "tests/data/model/mjcf_tendon_spring.xml"
local LIMIT = "tests/data/model/mjcf_tendon_limit.xml"
local FRICTION = "tests/data/model/mjcf_tendon_friction.xml"

-- list equality, entry by entry
local function same(a, b, what)
  t.eq(#a, #b)
  for i = 1, #b do t.truthy(a[i] == b[i], what .. "[" .. i .. "]: " .. tostring(a[i])) end
end

local function maxabs(M)
  local m = 0
  for i = 1, M:rows() do for j = 1, M:cols() do m = math.max(m, math.abs(M:get(i, j))) end end
  return m
end

-- The implicit derivatives (opts: w:step_derivatives' options) against central differences of
-- whole steps solved to 1e-13 at steps h (default 1e-4, 1e-5, 3e-6): the best relative error of A and B (relative to the block's largest
-- entry, or dt for B), as tests/lua/test_step_derivatives.lua does.
local function check_against_fd(name, w, steps, opts)
  local x, u = w:state(), w:controls()
  local D = w:step_derivatives(opts)
  local best = {}
  for _, h in ipairs(steps or {1e-4, 1e-5, 3e-6}) do
    w:set_state(x)
    w:set_controls(u)
    local F = w:step_derivatives{method = "finite_differences", step = h, tol = 1e-13,
                                 max_iter = 100000}
    local errs = {}
    for _, b in ipairs{"A", "B"} do
      local e = maxabs(D[b] - F[b]) / math.max(maxabs(F[b]), b == "A" and 1 or 1e-3)
      errs[#errs + 1] = string.format("%s %.1e", b, e)
      best[b] = math.min(best[b] or math.huge, e)
    end
    print(string.format("%s: h = %.0e: %s", name, h, table.concat(errs, ", ")))
  end
  for b, e in pairs(best) do t.truthy(e <= 1e-6, name .. ": " .. b .. " relative error " .. e) end
  return D
end

t.case("m:tendons() lists each fixed tendon as the file defines it", function()
  local m = lucid.model.load(SPRING)
  local ts = m:tendons()
  t.eq(#ts, 3)
  t.eq(ts[1].name, "couple")
  same(ts[1].joints, {"j1", "j3"}, "joints")
  same(ts[1].coefs, {1, -1.5}, "coefs")
  t.eq(ts[1].range, nil)
  t.eq(ts[1].stiffness, 20)      -- the <tendon> default
  t.eq(ts[1].damping, 0.4)       -- class "soft"
  t.near(ts[1].springlength, 0.2 * 1 + (-0.1) * (-1.5), 1e-15) -- the length at springref
  same(ts[2].joints, {"j1", "j2", "s4"}, "joints")
  same(ts[2].coefs, {0.5, 1, 2}, "coefs")
  t.eq(ts[2].stiffness, 5)
  t.eq(ts[2].springlength, 0.3)  -- given
  t.eq(ts[3].stiffness, 0)       -- its own 0 over the default's 20
  t.eq(ts[3].frictionloss, 0)
  same(m:names("tendon"), {"couple", "chain", "cross"}, "names")
  local acts = m:actuators()
  t.eq(acts[1].tendon, "chain")
  t.eq(acts[1].tendon_index, 2)
  t.eq(acts[1].joint, nil)
  t.eq(acts[5].joint, "j2")
  local l = lucid.model.load(LIMIT):tendons()
  same(l[1].range, {-0.3, 0.6}, "range")
  same(l[2].range, {-0.2, 0.2}, "range")
end)

-- round-off on a length or angle of size x: 64 DBL_EPSILON x
local function round_off(x) return 64 * 2.220446049250313e-16 * x end

t.case("a tendon limit is a contact naming its tendon, and holds the range", function()
  -- on the dense path and in body space (sparse_threshold 0: the merged tree is one slot);
  -- solved to 1e-12, the lengths (|L| <= 2) never pass the range by more than round-off (a
  -- limit rests at its bound; it once rested slop/2 = 5e-5 past it). At margin 0 too: a limit
  -- within the slop of its bound stays in the problem ("pair", pushed across by "bend"'s limit
  -- through j1 rather than by its own free motion, passed it by 8e-5 when it dropped out)
  for _, case in ipairs{{1000000000, 5e-3}, {0, 5e-3}, {1000000000, 0}} do
    local threshold, margin = case[1], case[2]
    local m = lucid.model.load(LIMIT)
    local w = lucid.world{dt = m.timestep, sparse_threshold = threshold, margin = margin,
                          contact = {tol = 1e-12, max_iter = 5000}}
    local id = w:add_model(m)
    w:set_control(id, {1})
    local seen, worst = {}, 0
    for _ = 1, 1000 do
      w:step()
      local q = w:q(id)
      worst = math.max(worst, q[1] + 0.5 * q[2] - 0.6, -0.2 - (q[1] - q[3]), q[1] - q[3] - 0.2)
      for _, c in ipairs(w:contacts()) do
        t.truthy(c.tendon and c.dof == nil and c.model == id, "a tendon limit")
        seen[c.tendon .. c.limit] = true
      end
    end
    t.truthy(seen["1upper"] and seen["2lower"] and seen["2upper"], "both tendons' limits act")
    print(string.format("tendon limits (sparse_threshold %d, margin %g): largest excess over the "
                        .. "range %.3g", threshold, margin, worst))
    t.truthy(worst <= round_off(2), "the largest excess " .. worst .. " is round-off")
  end
end)

t.case("tendon springs, dampers and actuators in free motion: A, B equal finite differences", function()
  local m = lucid.model.load(SPRING)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  w:set_q(id, {0.4, -0.6, 0.3, 0.05})
  w:set_v(id, {1, -2, 0.5, 0.2})
  -- inside the control and force ranges: the clamps' kinks are not differentiated
  w:set_control(id, {0.3, 0.5, -0.2, 0.1, -0.1})
  check_against_fd("tendon_spring", w)
end)

t.case("limited tendons held at their bounds: A, B equal finite differences", function()
  -- the double pendulum hangs on "bend" at its upper bound and on "pair" at its lower one
  -- (both limit rows at their bounds, c* = -d / dt: the smooth regime), pushed by the tendon motor, its
  -- swing damped by joint damping from near its rest
  local m = lucid.model.load(LIMIT)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  for _, j in ipairs{"j1", "j2", "j3"} do w:set_param({model = id, joint = j, "damping"}, 0.05) end
  w:set_q(id, {1.3, -1.4, 1.5})
  w:set_control(id, {0.5})
  for _ = 1, 1500 do w:step() end
  local limits = 0
  for _, c in ipairs(w:contacts()) do
    if c.tendon and c.lambda[3] > 0 then limits = limits + 1 end
  end
  t.eq(limits, 2)
  local v = w:v(id)
  print(string.format("tendon_limit: held, |v| = %.1e", math.max(math.abs(v[1]), math.abs(v[2]), math.abs(v[3]))))
  check_against_fd("tendon_limit", w)
end)

t.case("a limit approached faster than margin / dt is caught before it crosses", function()
  -- a hinge 8e-3 rad (beyond the world's margin, 5e-3) from its bound, closing at 5 rad/s: its
  -- free motion would cross the bound by 2e-3 within the step; the limit joins the step first
  -- and stops it at the bound (to round-off, solved to 1e-12)
  local m = lucid.model.load_string([[<mujoco><compiler angle="radian"/><option gravity="0 0 0"/><worldbody><body>
    <joint name="j" axis="0 0 1" limited="true" range="-0.5 0.5"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/></body></worldbody></mujoco>]])
  local w = lucid.world{dt = 2e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  w:set_q(id, {0.5 - 8e-3})
  w:set_v(id, {5})
  w:step()
  t.near(w:q(id)[1], 0.5, round_off(0.5))
  t.eq(#w:contacts(), 1)
end)

t.case("MuJoCo's arm26.xml loads: its muscles' missing lengthranges are computed", function()
  -- the extremes over the joints' box (test_mjcf_spatial_tendons.c compares them and the forces
  -- with MuJoCo's: its simulated ranges are wider by its soft joint limits' overshoot)
  local arm = "/usr/share/mujoco/model/tendon_arm/arm26.xml"
  local h = io.open(arm)
  if not h then return t.skip("libmujoco-samples' arm26.xml not installed") end
  h:close()
  local a = lucid.model.load(arm):actuators()
  t.eq(#a, 6)
  for _, m in ipairs(a) do
    t.eq(m.kind, "muscle")
    t.truthy(m.lengthrange[1] > 0 and m.lengthrange[1] < m.lengthrange[2], m.name)
  end
end)

-- A one-muscle model: body/joint/site XML around a muscle line.
local function muscle_model(compiler, worldbody, tendon, muscle)
  return lucid.model.load_string("<mujoco>" .. compiler .. "<worldbody>" .. worldbody ..
                                 "</worldbody><tendon>" .. tendon .. "</tendon><actuator>" ..
                                 muscle .. "</actuator></mujoco>")
end

local arm = [[<body><joint name="j" axis="0 0 1" limited="true" range="-60 90"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/><site name="s" pos="0.2 0 0"/>
  <body pos="0.3 0 0"><joint name="k" axis="0 0 1" range="0 1" limited="true"/>
  <geom type="sphere" size="0.05"/></body></body><site name="w" pos="0.43301270189221935 0.25 0"/>]]

t.case("a muscle's computed lengthrange: the extremes of its length over the joints' ranges", function()
  local range = function(m) return m:actuators()[1].lengthrange end
  -- a joint: gear times the joint's range
  local r = range(muscle_model("", arm, "", [[<muscle joint="j" gear="2"/>]]))
  t.allnear(r, {-2 * math.pi / 3, math.pi}, 1e-15)
  -- a fixed tendon L = q_j - 0.5 q_k: its least and greatest values at the box's corners
  r = range(muscle_model("", arm, [[<fixed name="t"><joint joint="j" coef="1"/>
    <joint joint="k" coef="-0.5"/></fixed>]], [[<muscle tendon="t"/>]]))
  t.allnear(r, {-math.pi / 3 - 0.5 * (math.pi / 180), math.pi / 2}, 1e-15)
  -- a spatial tendon from the world site at 0.5 from the axis, 30 deg round it, to the arm's
  -- site at 0.2: L = sqrt(0.29 - 0.2 cos(q - 30 deg)), least 0.3 inside the range (q = 30 deg),
  -- greatest at its end q = -60 deg
  r = range(muscle_model("", arm, [[<spatial name="t"><site site="w"/><site site="s"/></spatial>]],
                         [[<muscle tendon="t"/>]]))
  t.allnear(r, {0.3, math.sqrt(0.29)}, 1e-12)
  -- useexisting="false": a given range is computed anyway; by default it is kept
  local given = [[<muscle joint="j" lengthrange="0 1"/>]]
  t.allnear(range(muscle_model("", arm, "", given)), {0, 1}, 0)
  t.allnear(range(muscle_model([[<compiler><lengthrange useexisting="false"/></compiler>]], arm,
                               "", given)), {-math.pi / 3, math.pi / 2}, 1e-15)
  t.allnear(range(muscle_model([[<compiler><lengthrange mode="none"/></compiler>]], arm, "",
                               given)), {0, 1}, 0)
  -- uselimit: a limited joint's or tendon's own range, as MuJoCo copies it (without the gear);
  -- elsewhere the range is computed
  local uselimit = [[<compiler><lengthrange uselimit="true"/></compiler>]]
  t.allnear(range(muscle_model(uselimit, arm, "", [[<muscle joint="j" gear="2"/>]])),
            {-math.pi / 3, math.pi / 2}, 1e-15)
  t.allnear(range(muscle_model(uselimit, arm, [[<fixed name="t" limited="true" range="-0.2 0.3">
    <joint joint="j" coef="1"/></fixed>]], [[<muscle tendon="t" gear="3"/>]])), {-0.2, 0.3}, 0)
  t.allnear(range(muscle_model(uselimit, arm, [[<fixed name="t"><joint joint="j" coef="1"/>
    </fixed>]], [[<muscle tendon="t"/>]])), {-math.pi / 3, math.pi / 2}, 1e-15)
end)

t.case("a muscle's lengthrange lucid cannot compute, and <compiler><lengthrange> options, are refused by name", function()
  local free = [[<body><joint name="u" axis="0 0 1"/><geom type="sphere" size="0.1"/></body>]]
  t.raises("actuator 'm': a muscle needs 'lengthrange' when joint 'u' moving it is not a limited hinge or slide",
           muscle_model, "", free, "", [[<muscle name="m" joint="u"/>]])
  t.raises("a muscle needs 'lengthrange' (lower < upper) under <compiler><lengthrange mode=\"none\">",
           muscle_model, [[<compiler><lengthrange mode="none"/></compiler>]], arm, "",
           [[<muscle joint="j"/>]])
  for _, c in ipairs{{[[mode="all"]], "<lengthrange> mode='all' is not supported"},
                     {[[timestep="0.01"]], "<lengthrange> timestep is not supported"},
                     {[[tolrange="0.1"]], "<lengthrange> tolrange is not supported"},
                     {[[bogus="1"]], "bogus"}} do
    t.raises(c[2], muscle_model, "<compiler><lengthrange " .. c[1] .. "/></compiler>", arm, "",
             [[<muscle joint="j"/>]])
  end
  t.raises("<compiler>: unknown element <foo>", muscle_model, "<compiler><foo/></compiler>", arm,
           "", [[<muscle joint="j"/>]])
  -- constraints that cut the joints' box, and a tendon no joint moves
  t.raises("actuator 'm': a muscle needs 'lengthrange' in a model with limited tendons",
           muscle_model, "", arm, [[<fixed name="t" limited="true" range="-1 1">
           <joint joint="j" coef="1"/></fixed>]], [[<muscle name="m" joint="j"/>]])
  t.raises("actuator 'm': a muscle needs 'lengthrange' in a model with equality constraints",
           muscle_model, "", arm .. [[</worldbody><equality><joint joint1="j" joint2="k"/>
           </equality><worldbody>]], "", [[<muscle name="m" joint="j"/>]])
  -- a <general> takes a <muscle> default's gains and dynamics, so it needs a range too
  t.raises("mjcf_general_muscle_default.xml:13: actuator 'actuator2': a muscle needs 'lengthrange' " ..
           "when joint 'j' moving it is not a limited hinge or slide", lucid.model.load,
           "tests/data/model/mjcf_general_muscle_default.xml")
  t.raises("actuator 'm': the computed length range is empty",
           muscle_model, "", arm .. [[<site name="w2" pos="0 1 0"/>]],
           [[<spatial name="t"><site site="w"/><site site="w2"/></spatial>]],
           [[<muscle name="m" tendon="t"/>]])
end)

t.case("a tendon's margin makes its limit act that far inside the range", function()
  -- a pendulum falling onto "swing" = 2 q's upper bound 0.6 with margin 0.1: it comes to rest
  -- at L = 0.5 (a limit rests at its bound: solved to 1e-12, within 64 DBL_EPSILON of it;
  -- MuJoCo 2.2.2 rests at 0.5018: its soft limit acts at range - margin too)
  local m = lucid.model.load_string([[<mujoco><compiler angle="radian"/><worldbody><body>
    <joint name="j" axis="0 1 0" damping="0.2"/>
    <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03" contype="0" conaffinity="0"/>
    </body></worldbody><tendon><fixed name="swing" limited="true" range="-1 0.6" margin="0.1">
    <joint joint="j" coef="2"/></fixed></tendon></mujoco>]])
  t.eq(m:tendons()[1].margin, 0.1)
  local w = lucid.world{dt = 2e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  for _ = 1, 1500 do w:step() end
  local L = 2 * w:q(id)[1]
  t.near(L, 0.5, round_off(0.5))
  local c = w:contacts()[1]
  t.eq(c.include_margin, 0.1)
  t.truthy(c.lambda[3] > 0, "the limit holds the pendulum")
end)

-- ---- a tendon's dry friction (FRICTION: "couple" = j1 - j2, frictionloss 1 N m, two equal
-- pendulums of 1 kg balls, radius 0.05, 0.5 m below their hinges) ----------------------------
local G, ARM, MASS, F = 9.81, 0.5, 1.0, 1.0
local INERTIA = MASS * (ARM * ARM + 0.4 * 0.05 * 0.05) -- each pendulum's, about its hinge

-- The angle q1 < 0 where a symmetric release from q0 > 0 (q2 = -q1) first stops: each pendulum's
-- m g l (cos q1 - cos q0) equals f |q0 - q1| (the tendon's friction works f |dL| = 2 f |dq|).
local function stop_angle(q0)
  local function h(q1) return MASS * G * ARM * (math.cos(q1) - math.cos(q0)) - F * (q0 - q1) end
  local lo, hi = -q0, 0.0
  for _ = 1, 200 do
    local mid = 0.5 * (lo + hi)
    if h(mid) < 0 then lo = mid else hi = mid end
  end
  return 0.5 * (lo + hi)
end

t.case("a tendon's frictionloss is simulated, with no load warning", function()
  local m = lucid.model.load(FRICTION)
  t.eq(m:tendons()[1].frictionloss, F)
  local script = os.tmpname() .. ".lua"
  local f = assert(io.open(script, "w"))
  f:write(string.format("lucid.model.load(%q)\n", FRICTION))
  f:close()
  local pipe = assert(io.popen(arg[-1] .. " " .. script .. " 2>&1"))
  local out = pipe:read("a")
  pipe:close()
  os.remove(script)
  t.eq(out, "", "no warning")
end)

t.case("a tendon with frictionloss inside its band never moves", function()
  -- symmetric releases: the tendon must hold m g l sin q0 (0.73, 0.97 N m < f) on each joint
  for _, q0 in ipairs{0.15, -0.2} do
    local w = lucid.world{dt = 1e-3}
    local id = w:add_model(lucid.model.load(FRICTION), {q = {q0, -q0}})
    local drift, Ld0 = 0, 0
    for _ = 1, 2000 do
      local q = w:q(id)
      w:step()
      local c, v = rows.row(w, true), w:v(id)
      t.eq(#w:contacts(), 1)
      t.truthy(c.model == id and c.tendon == 1 and c.dof == nil and c.frictionloss == F, "the row")
      t.near(c.lambda[3], F, 1e-6 * F, "the prescribed normal force")
      local bound = rows.stuck_bound(w, c, 1e-3)
      drift = drift + 1e-3 * bound
      t.truthy(math.abs(v[1]) <= bound and math.abs(v[2]) <= bound, v[1])
      -- it holds gravity's force along the moment (1, -1), m g l (sin q1 - sin q2) / 2 (M = I Id),
      -- up to what changed the (bounded) tendon velocity
      local Ld = v[1] - v[2]
      t.near(c.lambda[1], MASS * G * ARM * (math.sin(q[1]) - math.sin(q[2])) / 2,
             INERTIA * math.abs(Ld - Ld0) / 2e-3 + 1e-12, "holds gravity's force")
      Ld0 = Ld
    end
    local q = w:q(id)
    t.truthy(math.abs(q[1] - q0) <= drift and math.abs(q[2] + q0) <= drift, q[1] - q0)
  end
end)

t.case("a tendon released beyond its band slides at |lambda_t| = f and stops by energy", function()
  local q0 = 0.6 -- m g l sin q0 = 2.77 N m > f
  local w = lucid.world{dt = 1e-3}
  local id = w:add_model(lucid.model.load(FRICTION), {q = {q0, -q0}})
  local stop, worst_slide, slid = nil, 0, 0
  for i = 1, 3000 do
    w:step()
    local c, v = rows.row(w, true), w:v(id)
    local Ld = v[1] - v[2]
    if math.abs(Ld) > 2 * rows.stuck_bound(w, c, 1e-3) then -- sliding: the tendon's force is f against Ld
      t.truthy(not stop, "stuck for good at step " .. tostring(stop) .. ", moving at " .. i)
      worst_slide = math.max(worst_slide, math.abs(c.lambda[1] + F * (Ld > 0 and 1 or -1)))
      slid = slid + 1
    else
      stop = stop or i
    end
  end
  local q, q1 = w:q(id), stop_angle(q0)
  io.stderr:write(string.format("  tendon friction: slid %d steps, stuck at step %s: q1 %.9f "
    .. "(energy balance %.9f, gap %.1e), q1 + q2 %.1e; sliding ||lambda_t| - f| <= %.1e\n", slid,
    tostring(stop), q[1], q1, q[1] - q1, q[1] + q[2], worst_slide))
  t.truthy(slid > 100 and stop, "it slid, then stuck")
  t.truthy(worst_slide <= 1e-6 * F, worst_slide) -- tol 1e-6 on the scaled criterion
  t.near(q[1], q1, 1e-5, "the energy balance's stop angle") -- the symplectic step's O(dt)
  t.near(q[2], -q[1], 1e-12, "the symmetric release stays symmetric")
  t.truthy(math.abs(MASS * G * ARM * math.sin(q[1])) < F, "inside the band")
end)

t.case("a sliding tendon: the acceleration along and across it is the analytic one", function()
  -- released asymmetric: gravity's torques differ, the common mode q1 + q2 is free and the
  -- tendon slides: v+_i = v_i + dt (-m g l sin q_i + c_i lambda) / I, lambda = -f sign(Ld+),
  -- c = (1, -1) (the step's symplectic Euler at the start's q; M = I Id: two trees)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(lucid.model.load(FRICTION), {q = {0.7, 0.1}})
  local c_coef, worst, steps = {1, -1}, 0, 0
  for _ = 1, 300 do
    local q, v = w:q(id), w:v(id)
    w:step()
    local vp, c = w:v(id), rows.row(w, true)
    local Ld = vp[1] - vp[2]
    if math.abs(Ld) > 1e-6 then
      steps = steps + 1
      local lambda = -F * (Ld > 0 and 1 or -1)
      t.near(c.lambda[1], lambda, 1e-9 * F, "|lambda_t| = f")
      for i = 1, 2 do
        local a = (-MASS * G * ARM * math.sin(q[i]) + c_coef[i] * lambda) / INERTIA
        local gap = math.abs((vp[i] - v[i]) / 1e-3 - a)
        worst = math.max(worst, gap / math.abs(a))
      end
    end
  end
  io.stderr:write(string.format("  sliding tendon: %d steps, acceleration within %.1e relative "
    .. "of the analytic one\n", steps, worst))
  t.truthy(steps >= 250, steps)
  t.truthy(worst <= 1e-9, worst)
end)

t.case("a tendon's friction row: A equals finite differences, sliding and stuck", function()
  for _, case in ipairs{{q = {0.7, 0.1}, mode = "sliding"}, {q = {0.15, -0.15}, mode = "sticking"}} do
    local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
    local id = w:add_model(lucid.model.load(FRICTION), {q = case.q})
    w:step(50)
    local D = check_against_fd("tendon_friction " .. case.mode, w)
    t.eq(D.contacts[1].mode, case.mode)
    t.eq(D.fallback_columns, 0)
    t.truthy(math.abs(w:v(id)[1] - w:v(id)[2]) > (case.mode == "sliding" and 0.1 or -1), "Ld")
  end
end)

-- Whether params column P matches Q (central differences of whole steps) to 1e-6 of Q's largest
-- entry plus 1e-12 (what a difference of step 1e-4 resolves), and the gap.
local function column_close(P, Q)
  local worst, top = 0, 0
  for i = 1, Q:rows() do
    worst = math.max(worst, math.abs(P:get(i, 1) - Q:get(i, 1)))
    top = math.max(top, math.abs(Q:get(i, 1)))
  end
  return worst <= 1e-6 * top + 1e-12, string.format("%.1e of %.1e", worst, top)
end

t.case("a tendon's frictionloss as a parameter: w:param, w:set_param, the world's own model", function()
  local m = lucid.model.load(FRICTION)
  local w = lucid.world{dt = 1e-3}
  local id = w:add_model(m, {q = {0.15, -0.15}}) -- held by f = 1 (0.73 N m), slides at f = 0.5
  local spec = {model = id, tendon = "couple", "frictionloss"}
  t.eq(w:param(spec), F)
  w:set_param(spec, 0.5)
  t.eq(w:param(spec), 0.5)
  t.eq(m:tendons()[1].frictionloss, F, "the caller's model keeps its own")
  w:step()
  local c = rows.row(w, true)
  t.eq(c.frictionloss, 0.5)
  t.near(math.abs(c.lambda[1]), 0.5, 1e-6 * 0.5, "it slides at |lambda| = f")
  w:set_param(spec, 0) -- no row, then one again
  w:step()
  t.eq(rows.row(w, true), nil)
  w:set_param(spec, 2)
  w:step()
  t.eq(rows.row(w, true).frictionloss, 2)
  t.raises("lucid.world:set_param: a tendon's frictionloss must be >= 0 and finite", w.set_param,
           w, spec, -1)
  t.raises("lucid.world:param: params[1]: the model has no tendon \"nope\"", w.param, w,
           {model = id, tendon = "nope", "frictionloss"})
  t.raises("params[1]: unknown entry", w.param, w, {model = id, tendon = "couple", "armature"})
  -- added without frictionloss, the tendon's two pendulums are two trees: its row would join
  -- them, so frictionloss > 0 is refused by name there (0 is accepted)
  local h = assert(io.open(FRICTION))
  local text = h:read("a")
  h:close()
  local free = lucid.model.load_string((text:gsub('frictionloss="1"', 'frictionloss="0"')))
  local v = lucid.world{dt = 1e-3}
  local fid = v:add_model(free)
  local fspec = {model = fid, tendon = "couple", "frictionloss"}
  v:set_param(fspec, 0)
  t.raises("lucid.world:set_param: the tendon's joints are in different trees of this world",
           v.set_param, v, fspec, 1)
  t.eq(v:param(fspec), 0)
end)

t.case("a tendon's frictionloss as a step-derivative parameter: analytic and central differences", function()
  -- sliding: v+_i = v_i + dt (-m g l sin q_i + c_i lambda) / I with lambda = -f sign(Ld+),
  -- c = (1, -1), so dv+_i/df = -dt c_i sign(Ld+) / I and dq+_i/df = dt dv+_i/df; stuck: the row
  -- fixes Ld+ = 0 whatever f, and the common mode does not feel it: zero
  for _, case in ipairs{{q = {0.7, 0.1}, mode = "sliding"}, {q = {0.15, -0.15}, mode = "sticking"}} do
    local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
    local id = w:add_model(lucid.model.load(FRICTION), {q = case.q})
    w:step(50)
    local x, v = w:state(), w:v(id)
    local P = {{model = id, tendon = "couple", "frictionloss"}}
    local D = w:step_derivatives{method = "implicit", params = P}
    t.eq(D.contacts[1].mode, case.mode)
    t.eq(D.fallback_columns, 0)
    local sliding = case.mode == "sliding"
    w:set_state(x)
    w:step()
    local Ld = w:v(id)[1] - w:v(id)[2]
    t.truthy(not sliding or math.abs(Ld) > 0.1, "Ld+ " .. Ld)
    for i, c in ipairs{1, -1} do
      local dv = sliding and -1e-3 * c * (Ld > 0 and 1 or -1) / INERTIA or 0
      t.near(D.params[1]:get(2 + i, 1), dv, 1e-12, "dv+/df")
      t.near(D.params[1]:get(i, 1), 1e-3 * dv, 1e-15, "dq+/df")
    end
    w:set_state(x)
    local E = w:step_derivatives{method = "finite_differences", step = 1e-4, tol = 1e-13,
                                 max_iter = 100000, params = P}
    local ok, gap = column_close(D.params[1], E.params[1])
    io.stderr:write(string.format("  tendon frictionloss column, %s: from central differences %s\n",
                                  case.mode, gap))
    t.truthy(ok, gap)
  end
end)

-- A tendon's passive force -stiffness (L - springlength) - damping Ld is explicit in the step
-- (docs/world.md): dv+/dk = -dt M~^-1 c (L - springlength) and dv+/db = -dt M~^-1 c Ld, through
-- the shifted model. Each column against central differences of whole steps (1e-6 of its
-- largest entry); each must move the step.
t.case("a tendon's damping and stiffness as parameters: w:param, w:set_param, central differences", function()
  local m = lucid.model.load(SPRING)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  w:set_q(id, {0.4, -0.6, 0.3, 0.05})
  w:set_v(id, {1, -2, 0.5, 0.2})
  local P = {}
  for _, T in ipairs(m:tendons()) do
    for _, kind in ipairs{"damping", "stiffness"} do
      P[#P + 1] = {model = id, tendon = T.name, kind}
      t.eq(w:param(P[#P]), T[kind], T.name .. " " .. kind)
    end
  end
  local x = w:state()
  local D = w:step_derivatives{method = "implicit", params = P}
  w:set_state(x)
  local E = w:step_derivatives{method = "finite_differences", step = 1e-4, tol = 1e-13,
                               max_iter = 100000, params = P}
  for k, p in ipairs(P) do
    local ok, gap = column_close(D.params[k], E.params[k])
    io.stderr:write(string.format("  tendon %s %s column: from central differences %s\n", p.tendon,
                                  p[1], gap))
    t.truthy(ok, p.tendon .. " " .. p[1] .. ": " .. gap)
    local top = 0
    for r = 1, E.params[k]:rows() do top = math.max(top, math.abs(E.params[k]:get(r, 1))) end
    t.truthy(top > 1e-6, p.tendon .. " " .. p[1] .. " moves the step")
  end
  -- set_param changes the world's model only; the step follows it
  w:set_state(x)
  local spec = {model = id, tendon = "chain", "damping"}
  w:set_param(spec, 3)
  t.eq(w:param(spec), 3)
  t.eq(m:tendons()[2].damping, 0.1, "the caller's model keeps its own")
  w:step()
  local fast = w:v(id)
  w:set_state(x)
  w:set_param(spec, 0.1)
  w:step()
  t.truthy((fast - w:v(id)):norm() > 1e-6, "the damping changes the step")
  t.raises("lucid.world:set_param: a tendon's stiffness must be >= 0 and finite", w.set_param, w,
           {model = id, tendon = "chain", "stiffness"}, -1)
  t.raises("lucid.world:set_param: a tendon's damping must be >= 0 and finite", w.set_param, w,
           spec, -0.5)
  t.raises("\"stiffness\" (with tendon =)", w.param, w, {model = id, joint = "j1", "stiffness"})
end)

t.case("a tendon's friction row: warm started from its key, refused by ccp", function()
  local iterations = {}
  for _, warm in ipairs{true, false} do
    local w = lucid.world{dt = 1e-3, contact = {warm_start = warm}}
    w:add_model(lucid.model.load(FRICTION), {q = {0.15, -0.15}})
    iterations[warm] = 0
    for _ = 1, 2000 do
      w:step()
      iterations[warm] = iterations[warm] + w:stats().iterations
    end
  end
  io.stderr:write(string.format("  tendon friction stuck 2000 steps: %d iterations warm, %d cold\n",
                                iterations[true], iterations[false]))
  t.truthy(iterations[true] * 10 < iterations[false], iterations[true])
  local w = lucid.world{dt = 1e-3, contact = {model = "ccp"}}
  w:add_model(lucid.model.load(FRICTION))
  t.raises("lucid.world:step: dry friction (frictionloss, model 1 tendon 1) needs contact model "
           .. "ncp, lcp or raisim: ccp's cone raises its bound", w.step, w)
end)

t.case("a tendon with a limit and frictionloss: both rows, held, A equals finite differences", function()
  -- LIMIT's "bend" with frictionloss 0.05: held at its upper bound (and "pair" at its lower),
  -- its friction row stuck; the rows (limit and friction, keyed apart) on one tendon. Central
  -- differences of 1e-4 and 1e-5 let "pair" go (its force 0.02 falls to 0 at +1e-5: a switch),
  -- 3e-6 does not
  local text = assert(io.open(LIMIT)):read("a")
  local m = lucid.model.load_string((text:gsub('range="%-0.3 0.6">', 'range="-0.3 0.6" frictionloss="0.05">')))
  t.eq(m:tendons()[1].frictionloss, 0.05)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  for _, j in ipairs{"j1", "j2", "j3"} do w:set_param({model = id, joint = j, "damping"}, 0.05) end
  w:set_q(id, {1.3, -1.4, 1.5})
  w:set_control(id, {0.5})
  for _ = 1, 1500 do w:step() end
  local rows = {}
  for _, c in ipairs(w:contacts()) do
    rows[#rows + 1] = c.tendon .. (c.limit or "friction")
    if c.frictionloss then t.truthy(math.abs(c.lambda[1]) < 0.05, "stuck inside its band") end
  end
  t.eq(table.concat(rows, " "), "1upper 2lower 1friction")
  check_against_fd("tendon_limit_friction", w)
end)

-- ---- spatial tendons (SPATIAL: tests/data/model/mjcf_tendon_spatial.xml; against MuJoCo 2.2.2
-- in tests/c/runtime/model/test_mjcf_spatial_tendons.c) -----------------------------------------------------
local SPATIAL = "tests/data/model/mjcf_tendon_spatial.xml"
local SPATIAL_FRICTION = "tests/data/model/mjcf_tendon_spatial_friction.xml"

t.case("m:tendons() lists each spatial tendon's path", function()
  local ts = lucid.model.load(SPATIAL):tendons()
  t.eq(#ts, 6)
  t.eq(ts[1].kind, "spatial")
  same(ts[1].joints, {"j1", "j2", "j3"}, "joints")
  t.eq(ts[1].coefs, nil)
  same(ts[1].range, {0.4, 1.4}, "range")
  local p = ts[5].path
  t.eq(#p, 3)
  t.eq(p[1].site, "a5")
  t.eq(p[2].geom, "elbow")
  t.eq(p[2].sidesite, "side")
  t.eq(p[3].site, "c3")
  t.eq(ts[6].path[3].pulley, 2)
  same(ts[6].joints, {"j1", "j4"}, "joints")
  t.eq(ts[6].stiffness, 5)
end)

-- whole steps differenced at h = 1e-5, 1e-6, 1e-7 (the moments' wraps are smooth there)
local SPATIAL_STEPS = {1e-5, 1e-6, 1e-7}

t.case("spatial tendons in free motion (sphere, cylinder wraps, springs, dampers, actuators): A, B equal finite differences", function()
  -- SPATIAL's six tendons wrapping its sphere and cylinder (side sites included) and the pulley,
  -- springs and dampers on them and five tendon actuators, controls inside their ranges, moving
  -- clear of "straight"'s limit
  local m = lucid.model.load(SPATIAL)
  local w = lucid.world{dt = m.timestep, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  w:set_control(id, {0.5, 0.3, 0.2, 0.4, -0.3})
  w:step(20)
  t.eq(#w:contacts(), 0)
  local v = w:v(id)
  t.truthy(math.abs(v[1]) > 0.1, "it moves")
  check_against_fd("spatial_free", w, SPATIAL_STEPS)
  -- (at the next state: each check steps the world)
  check_against_fd("spatial_free relaxed", w, SPATIAL_STEPS, {method = "relaxed"})
end)

t.case("a limited spatial tendon held at its bound: A, B equal finite differences", function()
  -- SPATIAL driven as in tests/c/runtime/model/test_mjcf_spatial_tendons.c: "straight" at its upper bound
  local m = lucid.model.load(SPATIAL)
  local w = lucid.world{dt = m.timestep, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  w:set_control(id, {0.5, 0.3, 0.2, 0.4, -0.3})
  w:step(200)
  local held = 0
  for _, c in ipairs(w:contacts()) do
    if c.tendon == 1 and c.limit == "upper" and c.lambda[3] > 0 then held = held + 1 end
  end
  t.eq(held, 1)
  check_against_fd("spatial_limit", w, SPATIAL_STEPS)
  local held_next = false
  for _, c in ipairs(w:contacts()) do
    held_next = held_next or (c.tendon == 1 and c.limit == "upper" and c.lambda[3] > 0)
  end
  t.truthy(held_next, "still held a step later")
  check_against_fd("spatial_limit relaxed", w, SPATIAL_STEPS, {method = "relaxed"})
end)

t.case("a spatial tendon dragging a puck over the floor (a sliding contact): A, B equal finite differences", function()
  -- a sphere on three slides, pulled by a sprung, damped rope wrapped round a world post (its
  -- side site) and a motor on the rope: the contact slides; the carried contact and the rope's
  -- moment both move in the position columns
  local m = lucid.model.load_string([[<mujoco model="spatial_puck"><option timestep="0.002"/><worldbody>
    <site name="anchor" pos="-0.6 0.05 0.12"/>
    <geom name="post" type="cylinder" pos="-0.3 0 0.1" size="0.04 0.2" contype="0" conaffinity="0"/>
    <site name="side" pos="-0.3 0.2 0.1"/>
    <body name="puck" pos="0 0 0.1">
      <joint name="x" type="slide" axis="1 0 0"/><joint name="y" type="slide" axis="0 1 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom type="sphere" size="0.1" mass="1"/><site name="hook" pos="-0.05 0.02 0.03"/>
    </body></worldbody>
    <tendon><spatial name="rope" stiffness="40" damping="0.5" springlength="0.3">
      <site site="anchor"/><geom geom="post" sidesite="side"/><site site="hook"/>
    </spatial></tendon>
    <actuator><motor name="pull" tendon="rope"/></actuator></mujoco>]])
  local w = lucid.world{dt = m.timestep, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  w:set_control(id, {-20})
  w:step(100)
  local D = check_against_fd("spatial_puck", w, SPATIAL_STEPS)
  t.eq(#D.contacts, 1)
  t.eq(D.contacts[1].mode, "sliding")
  t.truthy(w:v(id)[1] < -1, "dragged along -x")
end)

t.case("a spatial tendon's site on a mocap body is refused by name", function()
  t.raises("mjcf_tendon_spatial_mocap.xml:17: tendon 't': site 'ms' is on a mocap body",
           lucid.model.load, "tests/data/model/mjcf_tendon_spatial_mocap.xml")
end)

-- The pendulum of SPATIAL_FRICTION with frictionloss f (the file's text edited), in a world with
-- contact options `contact` (default the world's).
local function string_pendulum(f, contact)
  local h = assert(io.open(SPATIAL_FRICTION))
  local text = h:read("a")
  h:close()
  local m = lucid.model.load_string((text:gsub('frictionloss="20"', 'frictionloss="' .. f .. '"')))
  local w = lucid.world{dt = m.timestep, contact = contact}
  return w, w:add_model(m), m
end

t.case("a spatial tendon's dry friction holds a load below f, exactly", function()
  -- gravity loads the string with m g = 9.81 N < f = 20 N: the friction row holds it at
  -- |lambda| = 9.81 N and the pendulum never moves
  -- (the row is stuck: its velocity Ld = 0.4 v within the solver's bound, friction_rows.lua)
  local w, id, m = string_pendulum(20)
  local drift = 0
  for _ = 1, 500 do
    w:step()
    local c = rows.row(w, true)
    t.truthy(c and c.tendon == 1, "the string's friction row")
    t.near(math.abs(c.lambda[1]), 9.81, 1e-6)
    -- the criterion's bound, plus the rounding of the free velocity (g dt) the force cancels
    local bound = rows.stuck_bound(w, c, m.timestep) + 8 * 2 ^ -52 * 9.81 * m.timestep
    t.truthy(math.abs(0.4 * w:v(id)[1]) <= bound, w:v(id)[1])
    drift = drift + m.timestep * bound / 0.4
  end
  t.truthy(math.abs(w:q(id)[1]) <= drift, "q " .. w:q(id)[1] .. " beyond " .. drift)
end)

t.case("a spatial tendon sliding: |lambda| = f, the analytic first step", function()
  -- f = 4 N < 9.81 N: the first step's acceleration is (m g l - f dL/dq) / (m l^2 + I_yy) with
  -- l = dL/dq = 0.4 m (the string vertical at q = 0); then it keeps sliding at |lambda| = f
  local f = 4
  -- (the row's |lambda| = f to the solver's tolerance; the step's acceleration from its lambda
  -- to rounding)
  local w, id, m = string_pendulum(f)
  w:step()
  local lambda = math.abs(rows.row(w, true).lambda[1])
  t.near(lambda, f, 1e-6 * f)
  local qdd = (9.81 * 0.4 - lambda * 0.4) / (0.4 * 0.4 + 0.001)
  t.near(w:v(id)[1], m.timestep * qdd, 1e-12 * m.timestep * qdd)
  for _ = 1, 100 do
    w:step()
    t.near(math.abs(rows.row(w, true).lambda[1]), f, 1e-6 * f)
  end
  t.truthy(w:v(id)[1] > 0.1, "it slides down")
end)

t.case("a spatial tendon's friction row, sliding and stuck: A equals finite differences", function()
  -- the row's force turns with the string's moment (lambda dJ/dq): sliding at f = 4 N after 50
  -- steps, stuck at f = 20 N with the pendulum raised 0.3 rad (the string no longer vertical)
  for _, case in ipairs{{mode = "sliding", f = 4, q = 0}, {mode = "stuck", f = 20, q = -0.3}} do
    local w, id = string_pendulum(case.f, {tol = 1e-12, max_iter = 5000})
    w:set_q(id, {case.q})
    w:step(50)
    local c = rows.row(w, true)
    t.truthy(c and c.tendon == 1, "the string's friction row")
    local sliding = math.abs(math.abs(c.lambda[1]) - case.f) < 1e-6 * case.f
    t.eq(sliding, case.mode == "sliding")
    check_against_fd("spatial_friction " .. case.mode, w, SPATIAL_STEPS)
  end
end)

t.case("a spatial tendon's frictionloss as a parameter: its column equals central differences", function()
  -- sliding at f = 4 N after 50 steps: the row's force is f along the string's moment
  local w, id = string_pendulum(4, {tol = 1e-12, max_iter = 5000})
  w:step(50)
  local x = w:state()
  local P = {{model = id, tendon = "string", "frictionloss"}}
  t.eq(w:param(P[1]), 4)
  local D = w:step_derivatives{method = "implicit", params = P}
  t.eq(D.contacts[1].mode, "sliding")
  w:set_state(x)
  local E = w:step_derivatives{method = "finite_differences", step = 1e-4, tol = 1e-13,
                               max_iter = 100000, params = P}
  local ok, gap = column_close(D.params[1], E.params[1])
  io.stderr:write(string.format("  spatial tendon frictionloss column: from central differences %s\n", gap))
  t.truthy(ok, gap)
  t.truthy(math.abs(D.params[1]:get(2, 1)) > 1e-4, "f moves v+")
end)

t.case("a world with spatial tendon rows replays from its state bit for bit", function()
  -- SPATIAL driven as in tests/c/runtime/model/test_mjcf_spatial_tendons.c: "straight" held at its upper
  -- bound from step 184; from the state at step 200, 50 steps twice give the same q exactly
  local m = lucid.model.load(SPATIAL)
  local w = lucid.world{dt = m.timestep}
  local id = w:add_model(m)
  w:set_control(id, {0.5, 0.3, 0.2, 0.4, -0.3})
  w:step(200)
  local held = false
  for _, c in ipairs(w:contacts()) do held = held or (c.tendon == 1 and c.limit == "upper") end
  t.truthy(held, "the limit acts")
  local x = w:state()
  local runs = {}
  for r = 1, 2 do
    w:set_state(x)
    w:step(50)
    runs[r] = w:q(id)
  end
  same(runs[1], runs[2], "q")
end)

t.case("a spatial tendon no joint moves has no rows: it loads and steps", function()
  -- between two world sites: constant length 0.5, outside its range and with frictionloss; its
  -- limit and friction rows would have zero Jacobians (no effect in MuJoCo), so lucid adds none
  local m = lucid.model.load_string([[<mujoco><default><default class="soft"><tendon stiffness="7"/></default></default>
    <worldbody><site name="a"/><site name="b" pos="0 0 0.5"/>
    <body><joint name="j" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"
    contype="0" conaffinity="0"/></body></worldbody>
    <tendon><spatial name="fixed_in_world" class="soft" limited="true" range="1 2"
    frictionloss="1"><site site="a"/><site site="b"/></spatial></tendon></mujoco>]])
  t.eq(#m:tendons()[1].joints, 0)
  t.eq(m:tendons()[1].stiffness, 7) -- its class's <tendon> default
  t.eq(m:tendons()[1].springlength, 0.5)
  local w = lucid.world{dt = m.timestep}
  local id = w:add_model(m)
  w:step(10)
  t.eq(#w:contacts(), 0)
  t.truthy(w:v(id)[1] > 0, "the pendulum falls freely")
end)
