-- Joint dry friction (MJCF joint frictionloss, URDF <dynamics friction>; runtime/world/
-- world_model.c lucid_world_models_friction_rows, docs/world.md): a pendulum released beyond its
-- friction band swings and sticks inside |m g l sin q| <= f with zero velocity, where the energy
-- balance m g l (cos q1 - cos q0) = f |q0 - q1| puts it; one inside the band never moves; the
-- URDF version is the same; every contact model and solver pair either solves the rows or
-- refuses them by name; ball and free joints get one row per dof; an island with friction rows
-- in body space swings and sticks as a dense one; the step derivatives through a sliding or
-- stuck row against the analytic ones and central differences, with frictionloss (and
-- armature) parameters; MuJoCo 2.2.2's soft friction loss against it.
local t = require "testing"
local lucid = require "lucid"
local rows = require "friction_rows"

local G, L, MASS, F = 9.81, 0.5, 1.0, 1.0 -- gravity, bob distance, mass, friction loss (N m)
local R = 0.05                             -- the bob's radius

-- A temporary file holding text, for the MuJoCo reference program (it reads files).
local function tmpfile(text, ext)
  local path = os.tmpname() .. ext
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

-- A hinge about y 1 m up with a 1 kg ball 0.5 m below it (hanging at q = 0), as MJCF text.
local function mjcf_pendulum(frictionloss, joint)
  return string.format([[
<mujoco>
  <option timestep="0.001" gravity="0 0 -9.81"/>
  <worldbody>
    <body pos="0 0 1">
      <joint name="hinge" %s frictionloss="%.17g"/>
      <geom type="sphere" size="%g" pos="0 0 -%g" mass="%g" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>]], joint or 'type="hinge" axis="0 1 0"', frictionloss, R, L, MASS)
end

local function urdf_pendulum(frictionloss)
  local I = 0.4 * MASS * R * R -- a solid sphere's, as MuJoCo computes the geom's
  return string.format([[
<robot name="pendulum">
  <link name="base"/>
  <link name="bob">
    <inertial><origin xyz="0 0 -%g"/><mass value="%g"/>
      <inertia ixx="%.17g" ixy="0" ixz="0" iyy="%.17g" iyz="0" izz="%.17g"/></inertial>
  </link>
  <joint name="hinge" type="continuous">
    <parent link="base"/><child link="bob"/><origin xyz="0 0 1"/><axis xyz="0 1 0"/>
    <dynamics friction="%.17g"/>
  </joint>
</robot>]], L, MASS, I, I, I, frictionloss)
end

-- The friction row of the last step (nil when none).
-- Steps the model from q0 at rest for n steps; returns the world, its id and the trajectory.
local function run(text, q0, n, contact)
  local w = lucid.world{dt = 1e-3, contact = contact}
  local id = w:add_model(lucid.model.load_string(text), {q = {q0}})
  local q, v = {}, {}
  for i = 1, n do
    w:step()
    q[i], v[i] = w:q(id)[1], w:v(id)[1]
  end
  return w, id, q, v
end

-- The angle q1 < 0 where a release from q0 > 0 first stops: m g l (cos q1 - cos q0) = f (q0 - q1)
-- (gravity's work equals friction's), by bisection on [-q0, 0].
local function stop_angle(q0)
  local function h(q1) return MASS * G * L * (math.cos(q1) - math.cos(q0)) - F * (q0 - q1) end
  local lo, hi = -q0, 0.0 -- h(lo) < 0 < h(hi)
  for _ = 1, 200 do
    local mid = 0.5 * (lo + hi)
    if h(mid) < 0 then lo = mid else hi = mid end
  end
  return 0.5 * (lo + hi)
end

-- sparse_threshold 0: the friction row's island in body space (its virtual normal row a column
-- of its own, docs/world_step.md), checked against the same energy balance as the dense one
for _, threshold in ipairs{-1, 0} do
local backend = threshold == 0 and "body" or "dense"
t.case("a pendulum released beyond its friction band swings once and sticks inside it (" .. backend .. ")", function()
  local q0 = 0.6 -- m g l sin q0 = 2.77 N m > f
  local xml = mjcf_pendulum(F)
  local w = lucid.world{dt = 1e-3, sparse_threshold = threshold}
  local id = w:add_model(lucid.model.load_string(xml), {q = {q0}})
  local q1 = stop_angle(q0)
  -- the band |m g l sin q| <= f (|q| <= 0.2053 rad) holds the stop angle
  t.truthy(math.abs(MASS * G * L * math.sin(q1)) < F, q1)
  local stop, worst_slide = nil, 0
  for i = 1, 3000 do
    w:step()
    local v, c = w:v(id)[1], rows.row(w)
    t.eq(w:islands()[1].backend, backend)
    t.near(c.lambda[3], F, 1e-6 * F, "the prescribed normal force")
    t.eq(c.lambda[2], 0)
    local bound = rows.stuck_bound(w, c, 1e-3)
    if math.abs(v) > bound then -- sliding: the friction torque is f against the motion
      t.truthy(not stop, "stuck for good at step " .. tostring(stop) .. ", moving at " .. i)
      worst_slide = math.max(worst_slide, math.abs(c.lambda[1] + F * (v > 0 and 1 or -1)))
    else
      stop = stop or i
    end
  end
  local q, v = w:q(id)[1], w:v(id)[1]
  io.stderr:write(string.format("  stop at step %d: q %.9f, energy balance %.9f (gap %.1e); v %.1e; "
    .. "sliding |lambda_t| - f <= %.1e\n", stop, q, q1, q - q1, v, worst_slide))
  t.truthy(worst_slide <= 1e-6 * F, worst_slide) -- tol 1e-6 on the scaled criterion
  -- one swing of the symplectic Euler step (its O(dt) energy error: 7e-7 rad measured)
  t.near(q, q1, 1e-5, "the energy balance's stop angle")
  t.truthy(math.abs(MASS * G * L * math.sin(q)) < F, "inside the band")
  local c = rows.row(w)
  t.eq(c.model, id)
  t.eq(c.dof, 1)
  t.eq(c.frictionloss, F)
  t.truthy(c.geom1 == nil and c.limit == nil)
  t.eq(w:contact_problem().sparse ~= nil, threshold == 0, "body-space pieces exactly in body space")
end)
end

t.case("a pendulum inside its friction band never moves", function()
  for _, q0 in ipairs{0.15, -0.2} do -- m g l |sin q0| = 0.73, 0.97 N m < f
    local xml = mjcf_pendulum(F)
    local w = lucid.world{dt = 1e-3}
    local id = w:add_model(lucid.model.load_string(xml), {q = {q0}})
    local drift, inertia, v0 = 0, MASS * (L * L + 0.4 * R * R), 0 -- about the hinge
    for _ = 1, 2000 do
      local q = w:q(id)[1]
      w:step()
      local c, v = rows.row(w), w:v(id)[1]
      drift = drift + 1e-3 * rows.stuck_bound(w, c, 1e-3) -- what the stuck bound lets q move
      t.truthy(math.abs(v) <= rows.stuck_bound(w, c, 1e-3), v)
      -- it holds gravity's torque, up to what changed the (bounded) velocity
      t.near(c.lambda[1], MASS * G * L * math.sin(q), inertia * math.abs(v - v0) / 1e-3 + 1e-12,
             "holds gravity's torque")
      v0 = v
    end
    t.truthy(math.abs(w:q(id)[1] - q0) <= drift, w:q(id)[1] - q0)
  end
end)

t.case("a stuck friction row is warm started from its last force (keyed model, dof)", function()
  local xml = mjcf_pendulum(F)
  local iterations = {}
  for _, warm in ipairs{true, false} do
    local w = lucid.world{dt = 1e-3, contact = {warm_start = warm}}
    w:add_model(lucid.model.load_string(xml), {q = {0.15}})
    iterations[warm] = 0
    for _ = 1, 2000 do
      w:step()
      iterations[warm] = iterations[warm] + w:stats().iterations
    end
  end
  io.stderr:write(string.format("  iterations over 2000 stuck steps: %d warm, %d cold\n",
                                iterations[true], iterations[false]))
  -- the carried force meets tol on most steps (ADMM re-solves only when the drift it leaves
  -- grows past tol): a tenth of the cold solves' at most
  t.truthy(iterations[true] * 10 < iterations[false], iterations[true])
end)

t.case("URDF <dynamics friction> is the same pendulum as MJCF frictionloss", function()
  local mj, ur = mjcf_pendulum(F), urdf_pendulum(F)
  for _, q0 in ipairs{0.6, 0.15} do
    local _, _, qa, va = run(mj, q0, 1500)
    local _, _, qb, vb = run(ur, q0, 1500)
    for i = 1, #qa do
      t.near(qb[i], qa[i], 1e-12, "q at step " .. i)
      t.near(vb[i], va[i], 1e-9, "v at step " .. i)
    end
    t.near(qb[#qb], q0 == 0.6 and stop_angle(q0) or q0, 1e-5, "stuck where friction holds it")
  end
end)

t.case("every contact model and solver pair solves the friction rows or refuses them by name", function()
  local xml = mjcf_pendulum(F)
  local q1 = stop_angle(0.6)
  local pairs_ok = {"lcp:pgs", "raisim:bisection", "ncp:pgs", "ncp:staggered", "ncp:admm", "ncp:ip"}
  for _, pair in ipairs(pairs_ok) do
    local model, solver = pair:match("(%w+):(%w+)")
    local w, id, q = run(xml, 0.6, 3000, {model = model, solver = solver})
    t.near(q[#q], q1, 1e-5, pair)
    t.truthy(math.abs(w:v(id)[1]) <= rows.stuck_bound(w, rows.row(w), 1e-3), pair)
    t.truthy(w:stats().converged, pair)
  end
  for _, solver in ipairs{"pgs", "admm", "newton", "ip"} do
    t.raises("lucid.world:step: dry friction (frictionloss, model 1 dof 1) needs contact model "
             .. "ncp, lcp or raisim: ccp's cone raises its bound", run, xml, 0.6, 1,
             {model = "ccp", solver = solver})
  end
end)

t.case("ball and free joints: one friction row per dof", function()
  -- a ball joint tilted about y swings in that plane exactly as the hinge does
  local xml = mjcf_pendulum(F, 'type="ball"')
  local w = lucid.world{dt = 1e-3}
  local id = w:add_model(lucid.model.load_string(xml), {q = {math.cos(0.3), 0, math.sin(0.3), 0}})
  w:step(3000)
  local q = w:q(id)
  t.near(2 * math.atan(q[3], q[1]), stop_angle(0.6), 1e-5)
  t.eq(#w:contacts(), 3)
  -- a free 1 kg box falls at g - f / m with f < m g, and hangs with f > m g
  for _, f in ipairs{4, 12} do
    local free = string.format([[
<mujoco>
  <worldbody>
    <body pos="0 0 1">
      <joint type="free" frictionloss="%g"/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>]], f)
    local wf = lucid.world{dt = 1e-3}
    local fid = wf:add_model(lucid.model.load_string(free))
    wf:step(100)
    t.eq(#wf:contacts(), 6)
    local expect = f < MASS * G and -(G - f / MASS) * 0.1 or 0
    t.near(wf:v(fid)[3], expect, 1e-6, "vz with frictionloss " .. f)
    for _, k in ipairs{1, 2, 4, 5, 6} do t.near(wf:v(fid)[k], 0, 1e-12) end
  end
end)

-- Whether a matches b to 1e-6 of b's largest entry, plus 1e-12: what a central difference of
-- step 1e-4 resolves (eps |x| / h). Also returns the gap and that largest entry.
local function close(a, b, rows, cols)
  local worst, top = 0, 0
  for i = 1, rows do
    for j = 1, cols do
      worst = math.max(worst, math.abs(a:get(i, j) - b:get(i, j)))
      top = math.max(top, math.abs(b:get(i, j)))
    end
  end
  return worst <= 1e-6 * top + 1e-12, string.format("%.1e of %.1e", worst, top)
end

t.case("step derivatives through a friction row: analytic and central differences", function()
  -- tight solves, so that whole perturbed steps resolve 1e-4 shifts (tol 1e-12)
  local xml = mjcf_pendulum(F)
  local inertia = MASS * (L * L + 0.4 * R * R)
  for _, q0 in ipairs{0.6, 0.15} do -- sliding at step 50, stuck
    local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 500}}
    local id = w:add_model(lucid.model.load_string(xml), {q = {q0}})
    w:step(50)
    local x = w:state()
    local P = {{model = id, joint = "hinge", "frictionloss"}, {model = id, joint = "hinge", "damping"}}
    t.eq(w:param(P[1]), F)
    local D = w:step_derivatives{method = "implicit", params = P}
    local q, v = w:q(id)[1], w:v(id)[1]
    local sliding = q0 == 0.6
    t.eq(D.contacts[1].mode, sliding and "sliding" or "sticking")
    t.eq(D.fallback_columns, 0)
    -- sliding: v+ = v + dt (-m g l sin q - f sign v+) / I; stuck: v+ = 0 whatever the inputs
    local dvdq = sliding and -1e-3 * MASS * G * L * math.cos(q - 1e-3 * v) / inertia or 0
    local dvdf = sliding and -1e-3 * (v > 0 and 1 or -1) / inertia or 0
    t.near(D.A:get(2, 2), sliding and 1 or 0, 1e-12)
    t.near(D.params[1]:get(2, 1), dvdf, 1e-12)
    t.near(D.params[1]:get(1, 1), 1e-3 * dvdf, 1e-12)
    w:set_state(x)
    local E = w:step_derivatives{method = "finite_differences", step = 1e-4, params = P}
    local oka, ga = close(D.A, E.A, 2, 2)
    local okf, gf = close(D.params[1], E.params[1], 2, 1)
    local okd, gd = close(D.params[2], E.params[2], 2, 1)
    io.stderr:write(string.format("  %s: from central differences A %s, frictionloss %s, damping "
      .. "%s; dv+/dq %.10g (analytic %.10g)\n", D.contacts[1].mode, ga, gf, gd, D.A:get(2, 1),
      dvdq))
    t.truthy(oka and okf and okd, ga .. " " .. gf .. " " .. gd)
    t.near(D.A:get(2, 1), dvdq, 1e-9 * math.abs(dvdq) + 1e-15)
    -- the relaxed method's central path at kappa 1e-8 through the same rows: its smoothing
    -- leaves the state columns (measured 1e-13) and bends the frictionloss one (9e-4 sliding)
    w:set_state(x)
    local K = w:step_derivatives{method = "relaxed", kappa = 1e-8, params = P}
    t.truthy((close(K.A, D.A, 2, 2)), "relaxed A")
    t.near(K.params[1]:get(2, 1), dvdf, 2e-3 * math.abs(dvdf) + 1e-9, "relaxed frictionloss")
  end
end)

t.case("a friction row on the dof of a pushing limit: the limit takes a change of q", function()
  -- the pendulum hangs against its limit at q = 30 degrees (gravity's torque m g l sin 30° =
  -- 2.45 N m beyond f = 1): the limit row (target -d / dt, d = q - lower) and the friction row
  -- share the dof e_1, so the load's split between them is not determined, and a change of q
  -- slides the friction row either way while the limit puts q+ at its bound: v+ = -d / dt,
  -- dq+/dq = 0, dv+/dq = -1/dt, and the velocity does not enter (A = [0 0; -1/dt 0]). The
  -- friction row holds its force in the derivatives (mode "breaking"); asking it to stick as
  -- well halves the position column (relative error 0.5)
  local xml = mjcf_pendulum(F, 'type="hinge" axis="0 1 0" limited="true" range="30 60"')
  local lower = math.rad(30) -- MJCF's angles are in degrees by default
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 500}}
  local id = w:add_model(lucid.model.load_string(xml), {q = {0.7}})
  w:step(1000)
  local modes = {}
  for _, c in ipairs(w:contacts()) do
    modes[#modes + 1] = c.limit or "friction"
    if c.limit then t.truthy(c.lambda[3] > 0, "the limit holds the pendulum") end
  end
  t.eq(table.concat(modes, " "), "lower friction")
  t.near(w:q(id)[1], lower, 64 * 2.220446049250313e-16 * lower)
  local x = w:state()
  local D = w:step_derivatives{method = "implicit"}
  t.eq(D.contacts[2].mode, "breaking")
  t.eq(D.contacts[2].margin, 0) -- its force turns there (sliding either way)
  local expect = {{0, 0}, {-1e3, 0}}
  for i = 1, 2 do
    for j = 1, 2 do t.near(D.A:get(i, j), expect[i][j], 1e-9 * 1e3, "A " .. i .. j) end
  end
  w:set_state(x)
  -- differences within the free step's travel (m g l sin 30° - f) dt^2 / I = 5.8e-6 rad, which
  -- the limit stops (a larger q + h leaves the limit: it falls freely through the step)
  local E = w:step_derivatives{method = "finite_differences", step = 1e-6, tol = 1e-13,
                               max_iter = 100000}
  local ok, gap = close(D.A, E.A, 2, 2)
  io.stderr:write(string.format("  limit and friction row on one dof: dv+/dq %.12g (analytic -1/dt = "
    .. "-1000), from central differences A %s\n", D.A:get(2, 1), gap))
  t.truthy(ok, gap)
end)

t.case("w:param and w:set_param: a joint's frictionloss, on the world's own model", function()
  local xml = mjcf_pendulum(F)
  local m = lucid.model.load_string(xml)
  local w = lucid.world{dt = 1e-3}
  local id = w:add_model(m, {q = {0.15}}) -- held by f = 1, falls with f = 0.5
  local spec = {model = id, joint = "hinge", "frictionloss"}
  w:set_param(spec, 0.5)
  t.eq(w:param(spec), 0.5)
  t.eq(m:joints()[1].frictionloss, F, "the caller's model keeps its own")
  w:step(100)
  -- it slides: q0 - a dt^2 n (n + 1) / 2 of the symplectic Euler step at the start's
  -- acceleration a = (m g l sin q0 - 0.5) / I (which changes by 0.5 % over the 5 mrad it moves)
  local a = (MASS * G * L * math.sin(0.15) - 0.5) / (MASS * (L * L + 0.4 * R * R))
  t.near(w:q(id)[1], 0.15 - a * 1e-6 * 100 * 101 / 2, 1e-4)
  t.eq(rows.row(w).frictionloss, 0.5)
  t.raises("lucid.world:set_param: a joint's frictionloss must be >= 0 and finite", w.set_param, w,
           spec, -1)
end)

t.case("a joint's armature as a parameter: w:param, w:set_param and its derivative", function()
  local xml = mjcf_pendulum(F)
  local m = lucid.model.load_string(xml)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 500}}
  local id = w:add_model(m, {q = {0.6}})
  local spec = {model = id, joint = "hinge", "armature"}
  t.eq(w:param(spec), 0)
  w:set_param(spec, 0.05)
  t.eq(w:param(spec), 0.05)
  t.raises("lucid.world:set_param: a joint's armature must be >= 0 and finite", w.set_param, w,
           spec, -1)
  w:step(50)
  local x, q = w:state(), w:q(id)[1]
  local D = w:step_derivatives{method = "implicit", params = {spec}}
  -- sliding: v+ = v + dt tau / (I + a), tau = -m g l sin q - f sign v+
  local tau = -MASS * G * L * math.sin(q) - F * (w:v(id)[1] > 0 and 1 or -1)
  local inertia = MASS * (L * L + 0.4 * R * R) + 0.05
  t.near(D.params[1]:get(2, 1), -1e-3 * tau / inertia ^ 2, 1e-9 * math.abs(tau) / inertia ^ 2)
  w:set_state(x)
  local E = w:step_derivatives{method = "finite_differences", step = 1e-4, params = {spec}}
  local ok, gap_text = close(D.params[1], E.params[1], 2, 1)
  io.stderr:write("  armature: from central differences " .. gap_text .. "\n")
  t.truthy(ok, gap_text)
  -- a joint that moves no mass keeps its armature > 0 (its mass matrix row is nothing else)
  local rotor = lucid.model.build{bodies = {{name = "rotor", mass = 0, inertia = {0, 0, 0},
    joints = {{name = "spin", kind = "revolute", axis = {0, 0, 1}, armature = 0.1}}}}}
  local wr = lucid.world{}
  local rid = wr:add_model(rotor)
  t.raises("lucid.world:set_param: the joint moves no mass: its armature must stay > 0",
           wr.set_param, wr, {model = rid, joint = "spin", "armature"}, 0)
  wr:set_param({model = rid, joint = "spin", "armature"}, 0.2)
end)

-- MuJoCo 2.2.2 (tests/bench/mujoco_arm_log, no control) on the same file: its friction loss is a
-- soft constraint, so where its friction row saturates (|v| > 0.1 rad/s) the two trajectories
-- agree to the log's 9 digits, and its stick zone creeps where lucid's holds.
t.case("MuJoCo 2.2.2's frictionloss pendulum: the same swing, its stick creeps", function()
  local generator = (arg[-1]:match("^(.*)/[^/]*$") or ".") .. "/tests/bench/mujoco_arm_log"
  local probe = io.open(generator, "r")
  if not probe then t.skip("tests/bench/mujoco_arm_log not built") end
  probe:close()
  local xml = mjcf_pendulum(F)
  local path = tmpfile(xml, ".xml") -- for the MuJoCo program
  local rows = {"t,q_hinge,v_hinge"}
  for i = 0, 3000 do rows[#rows + 1] = string.format("%.3f,0.6,0", i * 1e-3) end
  local ref = tmpfile(table.concat(rows, "\n") .. "\n", ".csv")
  local out = os.tmpname() .. ".csv"
  local pipe = assert(io.popen(string.format("'%s' %s %s %s 1 0 0 0 0 0 1 2>&1", generator, path,
                                             ref, out)))
  local msg = pipe:read("a")
  local _, _, code = pipe:close()
  if code == 77 then t.skip("MuJoCo absent") end
  t.eq(code, 0, msg)
  local mj = {}
  for line in io.lines(out) do
    local q, v = line:match("^[%d.]+,([^,]+),([^,]+)")
    if q then mj[#mj + 1] = {tonumber(q), tonumber(v)} end
  end
  local _, _, q, v = run(xml, 0.6, 3000)
  for _, f in ipairs{path, ref, out} do os.remove(f) end
  local saturated, zone = 0, 0
  for i = 1, 3000 do
    local gap = math.abs(q[i] - mj[i + 1][1])
    if math.abs(mj[i + 1][2]) > 0.1 then saturated = math.max(saturated, gap) end
    zone = math.max(zone, gap)
  end
  io.stderr:write(string.format("  MuJoCo: gap %.1e rad while it slides (|v| > 0.1), %.1e at worst; "
    .. "at 3 s it creeps at %.1e rad/s (lucid %.1e), %.2e rad from lucid's stop\n", saturated,
    zone, mj[3001][2], v[3000], mj[3001][1] - q[3000]))
  t.truthy(saturated < 1e-6, saturated)
  t.truthy(math.abs(mj[3001][2]) > 1e3 * math.abs(v[3000]), "MuJoCo's soft stick creeps")
end)
