-- The scenarios of Le Lidec et al. (Sec. IV) and Silico (Sec. V-VI) with numeric thresholds,
-- on short horizons (the full horizons and the plots are in tasks/*.lua, docs/scenarios.md).
local t = require "testing"
local lucid = require "lucid"

local MU, G, M = 0.4, 9.81, 1.0
local SLOP = 1e-4 -- the world's default: bodies rest at a depth of SLOP / 2
local REST = 0.1 - SLOP / 2

local function at(x, y, z) return lucid.se3.new({1, 0, 0, 0}, {x, y, z}) end

-- The paper's cube (1 kg, side 0.2 m, mu 0.4) resting on a plane, in a world with model:solver.
local function cube_world(model, solver, dt, velocity, extra)
  local contact = {model = model, solver = solver, tol = 1e-6, max_iter = 1000}
  for k, v in pairs(extra or {}) do contact[k] = v end
  local w = lucid.world{dt = dt, contact = contact}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = MU}
  local id = w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = M, friction = MU,
                        pose = at(0, 0, REST), velocity = velocity}
  return w, id
end

-- Semi-implicit Euler under constant deceleration a: the exact discrete stopping distance.
local function discrete_stop(v0, a, dt)
  local x, v = 0, v0
  while v > 0 do
    v = math.max(v - a * dt, 0)
    x = x + v * dt
  end
  return x
end

t.case("sliding cube: NCP solvers stop it after v0^2/(2 mu g) in a straight line, on the analytic energy curve", function()
  local v0, angle, dt = 1.5, 0.3, 1e-3
  local stop_time = v0 / (MU * G)
  for _, solver in ipairs{"pgs", "admm", "staggered", "ip"} do
    local w, id = cube_world("ncp", solver, dt, {v0 * math.cos(angle), v0 * math.sin(angle), 0, 0, 0, 0})
    local worst_energy = 0
    for k = 1, math.floor(stop_time / dt) + 50 do
      w:step()
      local s = math.max(v0 - MU * G * k * dt, 0)
      worst_energy = math.max(worst_energy, math.abs(w:energy().kinetic - 0.5 * M * s * s))
    end
    local x = w:pose(id):translation()
    local d = math.sqrt(x[1] ^ 2 + x[2] ^ 2)
    t.near(d, discrete_stop(v0, MU * G, dt), 1e-6, solver .. ": stopping distance")
    t.truthy(math.abs(d - v0 ^ 2 / (2 * MU * G)) < v0 * dt, solver .. ": within v0 dt of v0^2/(2 mu g)")
    t.truthy(math.abs(math.atan(x[2], x[1]) - angle) < 1e-6, solver .. ": straight line")
    -- the kinetic energy follows 1/2 m (v0 - mu g t)^2 to within 0.2 % of E0
    t.truthy(worst_energy < 2e-3 * 0.5 * M * v0 * v0,
             string.format("%s: energy off the analytic curve by %.3g J", solver, worst_energy))
  end
end)

t.case("sliding cube: the LCP pyramid deviates a diagonal launch towards its facets", function()
  local v0, angle, dt = 1.5, 0.3, 1e-3
  local w, id = cube_world("lcp", "pgs", dt, {v0 * math.cos(angle), v0 * math.sin(angle), 0, 0, 0, 0})
  w:step(math.floor(v0 / (MU * G) / dt) + 50)
  local x = w:pose(id):translation()
  local heading = math.atan(x[2], x[1])
  -- the 4-facet pyramid pulls the heading towards the x axis by more than half the launch angle
  t.truthy(angle - heading > 0.15, string.format("LCP heading %.3f rad, launched at %.3f", heading, angle))
end)

-- CCP's relaxed Signorini condition (Eq. 19): a sliding contact has c_N = mu |c_T|, so the
-- cube glides dt mu |v_T| above its rest depth. Measured at two time steps.
t.case("sliding cube: CCP glides at a height dt mu |v| (Eq. 19) at dt 1 ms and 2 ms", function()
  local v0 = 2.0
  local heights = {}
  for _, dt in ipairs{1e-3, 2e-3} do
    for _, solver in ipairs{"pgs", "admm", "newton"} do
      local w, id = cube_world("ccp", solver, dt, {v0, 0, 0, 0, 0, 0})
      local lifted, worst = 0, 0
      for k = 1, math.floor(0.35 / dt) do
        w:step()
        local z = w:pose(id):translation()[3] - REST
        local speed = w:velocity(id)[1]
        lifted = math.max(lifted, z)
        -- after the initial bounce has decayed (t > 0.15 s), check the glide height
        if k * dt > 0.15 and speed > 0.2 then
          worst = math.max(worst, math.abs(z - dt * MU * speed) / (dt * MU * speed))
        end
      end
      t.truthy(lifted > 5e-3, string.format("ccp:%s dt %g: lifts off (%.3g m)", solver, dt, lifted))
      t.truthy(worst < 0.02, string.format("ccp:%s dt %g: glide height off Eq. 19 by %.1f %%",
                                           solver, dt, 100 * worst))
      heights[#heights + 1] = worst
    end
  end
  -- the NCP cube does not lift at all
  local w, id = cube_world("ncp", "pgs", 1e-3, {v0, 0, 0, 0, 0, 0})
  for _ = 1, 200 do
    w:step()
    t.truthy(math.abs(w:pose(id):translation()[3] - REST) < 1e-9, "ncp stays on the plane")
  end
end)

-- The dragged cube (Figs. 11-12): f = 20 t N along x. Returns the slide onset time, the
-- largest internal tangential force at stiction and the velocity at the end.
local function drag(model, solver, dt, horizon)
  local w, id = cube_world(model, solver, dt)
  local onset, internal = nil, 0
  local n = math.floor(horizon / dt + 0.5)
  for k = 1, n do
    w:apply_force(id, {20 * (k - 1) * dt, 0, 0})
    w:step()
    if not onset and w:velocity(id)[1] > 1e-6 then onset = k * dt end
    if not onset then
      -- internal force: the tangential forces across the drag (y) sum to zero, so whatever
      -- they carry only stretches the cube (the x forces legitimately differ where the cone
      -- saturates on the lightly loaded front contacts)
      local s = 0
      for _, c in ipairs(w:contacts()) do s = s + math.abs(c.force[2]) end
      internal = math.max(internal, s)
    end
  end
  return onset, internal, w:velocity(id)[1], w:pose(id):translation()[1]
end

t.case("dragged cube: sticks, then slides when 20 t exceeds mu m g", function()
  local dt, onset_exact = 1e-3, MU * M * G / 20
  for _, ms in ipairs{{"ncp", "pgs"}, {"ncp", "admm"}, {"ncp", "staggered"}, {"lcp", "pgs"},
                      {"ccp", "newton"}, {"ncp", "ip"}, {"ccp", "ip"}} do
    local onset, _, v = drag(ms[1], ms[2], dt, 0.3)
    t.truthy(onset and math.abs(onset - onset_exact) < 5 * dt,
             string.format("%s:%s slides at %s s, expected %.4f", ms[1], ms[2], tostring(onset), onset_exact))
    -- past the onset, v = 10 (t - t*)^2 (Coulomb sliding friction mu m g)
    local v_exact = 10 * (0.3 - onset_exact) ^ 2
    t.truthy(math.abs(v - v_exact) < 0.02 * v_exact,
             string.format("%s:%s v(0.3) = %.4f, expected %.4f", ms[1], ms[2], v, v_exact))
  end
end)

t.case("dragged cube: PGS injects internal tangential forces at stiction, ADMM does not", function()
  local _, pgs = drag("ncp", "pgs", 1e-3, 0.18)
  local _, ccp_pgs = drag("ccp", "pgs", 1e-3, 0.18)
  local _, admm = drag("ncp", "admm", 1e-3, 0.18)
  local _, staggered = drag("ncp", "staggered", 1e-3, 0.18)
  local _, ip = drag("ncp", "ip", 1e-3, 0.18)
  -- the external force is at most 3.6 N here: internal forces of a newton are a real artifact
  t.truthy(pgs > 1.0, string.format("ncp:pgs internal force %.3g N", pgs))
  t.truthy(ccp_pgs > 1.0, string.format("ccp:pgs internal force %.3g N", ccp_pgs))
  t.truthy(admm < 1e-3, string.format("ncp:admm internal force %.3g N", admm))
  t.truthy(staggered < 1e-3, string.format("ncp:staggered internal force %.3g N", staggered))
  t.truthy(ip < 1e-3, string.format("ncp:ip internal force %.3g N", ip))
end)

t.case("dragged cube: the trajectory converges as dt decreases (self-consistency)", function()
  local horizon = 0.3
  for _, ms in ipairs{{"ncp", "pgs"}, {"ccp", "pgs"}} do
    local _, _, _, x_ref = drag(ms[1], ms[2], 1e-4, horizon)
    local errors = {}
    for _, dt in ipairs{4e-3, 2e-3, 1e-3} do
      local _, _, _, x = drag(ms[1], ms[2], dt, horizon)
      errors[#errors + 1] = math.abs(x - x_ref)
    end
    for k = 2, #errors do
      t.truthy(errors[k] < 0.75 * errors[k - 1],
               string.format("%s:%s error %.3g at dt/2 vs %.3g", ms[1], ms[2], errors[k], errors[k - 1]))
    end
  end
end)

-- Fig. 13. The stack's problem (8 contacts, G of rank 12) from the world after 5 steps; a
-- light cube of 1/sqrt(r) kg under one of sqrt(r) kg. The world steps with ncp:admm, the solver
-- the figures below were measured with (the state after 5 steps, and with it the problem,
-- depends on the world's solver: from the default's state the ip's answer at 1e6 has a
-- round-off of 1.04e-4).
local function stack_problem(ratio)
  local w = lucid.world{dt = 1e-3, contact = {solver = "admm"}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = MU}
  local cube = lucid.box(0.1, 0.1, 0.1)
  w:add_body{shape = cube, mass = 1 / math.sqrt(ratio), friction = MU, pose = at(0, 0, REST)}
  w:add_body{shape = cube, mass = math.sqrt(ratio), friction = MU, pose = at(0, 0, 2 * REST + 0.1)}
  w:step(5)
  local p = w:contact_problem()
  t.eq(#p.mu, 8)
  return function(model, solver)
    return lucid.contact.solve{G = p.G, g = p.g, mu = p.mu, model = model, solver = solver,
                               tol = 1e-6, max_iter = 10000}
  end
end

local PER_CONTACT = {{"ncp", "pgs"}, {"ccp", "pgs"}, {"lcp", "pgs"}, {"raisim", "bisection"}}

-- At a mass ratio of 1e5 the global solvers reach eps_abs = 1e-6, the per-contact ones do not.
t.case("ill-conditioned stack (ratio 1e5): ADMM and staggered converge, per-contact solvers do not", function()
  local solve = stack_problem(1e5)
  for _, ms in ipairs{{"ncp", "admm"}, {"ncp", "staggered"}, {"ccp", "admm"}, {"ncp", "ip"},
                      {"ccp", "ip"}} do
    local s = solve(ms[1], ms[2])
    t.truthy(s.converged and s.model_residual.abs <= 1e-6,
             string.format("%s:%s reaches %.3g", ms[1], ms[2], s.model_residual.abs))
  end
  for _, ms in ipairs(PER_CONTACT) do
    local s = solve(ms[1], ms[2])
    t.truthy(not s.converged and s.iterations == 10000 and s.model_residual.abs > 1,
             string.format("%s:%s reaches %.3g", ms[1], ms[2], s.model_residual.abs))
  end
end)

-- The paper's 1e3 kg on 1e-3 kg (ratio 1e6): ADMM's eps_abs ends near 1e-5, set by the
-- complementarity lambda_n sigma_n with lambda_n ~ 2.5e3 N and sigma at the round-off of
-- G lambda + g (~2e-9: terms of 1e7 cancel), so eps_abs <= 1e-6 is out of reach in double
-- precision (docs/scenarios.md): `round_off`, what rounding the answer's forces to doubles
-- and summing its velocity in them can add to eps_abs, is ~3.7e-5 here (1.7e-5 of it the
-- forces'). Checked: ADMM ends within 2x of that round-off
-- and four orders of magnitude closer to a solution than every per-contact solver, and its
-- scale-free residual is at round-off level (measured <= 9e-10; the eps_abs = 2.8e-3 once
-- recorded there would read about 2.8e-3 / (2.5e3 x 9.81) ~ 1e-7).
t.case("ill-conditioned stack (1e3 kg on 1e-3 kg): ADMM 1e4 times closer than per-contact solvers, Newton at ADMM's floor", function()
  local solve = stack_problem(1e6)
  local best_per_contact = math.huge
  for _, ms in ipairs(PER_CONTACT) do
    local s = solve(ms[1], ms[2])
    t.truthy(not s.converged, ms[1] .. ":" .. ms[2] .. " converged")
    best_per_contact = math.min(best_per_contact, s.model_residual.abs)
  end
  for _, ms in ipairs{{"ncp", "admm"}, {"ccp", "admm"}, {"ncp", "ip"}, {"ccp", "ip"}} do
    local s = solve(ms[1], ms[2])
    t.truthy(s.model_residual.abs < 1e-4 * best_per_contact,
             string.format("%s:%s reaches %.3g, per-contact solvers %.3g", ms[1], ms[2],
                           s.model_residual.abs, best_per_contact))
    t.truthy(s.model_residual.scaled <= 1e-8,
             string.format("%s:%s scaled residual %.3g", ms[1], ms[2], s.model_residual.scaled))
    t.truthy(s.model_residual.abs <= 2 * s.round_off and s.round_off < 1e-4,
             string.format("%s:%s reaches %.3g, round-off %.3g", ms[1], ms[2],
                           s.model_residual.abs, s.round_off))
    t.truthy(best_per_contact > 1e6 * s.round_off)
  end
  -- ccp:newton ends at the same floor as ccp:admm (measured 6.7e-6 against 9.1e-6, round-off
  -- 1.7e-5); it once stalled at 1.05e-4 while the round-off of its contact velocity was
  -- amplified by 1/R.
  local admm, newton = solve("ccp", "admm"), solve("ccp", "newton")
  t.truthy(newton.model_residual.abs <= 2 * admm.model_residual.abs
           and newton.model_residual.abs <= 2 * newton.round_off,
           string.format("ccp:newton reaches %.3g, ccp:admm %.3g, round-off %.3g",
                         newton.model_residual.abs, admm.model_residual.abs, newton.round_off))
end)

-- Silico's face-to-face cases: bodies resting on faces must neither drift nor jitter.
local function face_to_face(count, seconds)
  local w = lucid.world{dt = 1e-3}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  local ids = {}
  for k = 1, count do
    -- blocks 0.4 x 0.3 x 0.1 m, each shifted 2 cm and turned 0.1 rad about z from the one
    -- below (so the faces overlap partly), dropped from 1 cm above their resting place
    ids[k] = w:add_body{shape = lucid.box(0.2, 0.15, 0.05), mass = 1 + k, friction = 0.5,
                        pose = lucid.se3.exp{0.02 * (k - 1), 0, 0.05 + 0.1 * (k - 1) + 0.01 * k, 0, 0, 0.1 * (k - 1)}}
  end
  w:step(300) -- land and settle
  local start = {}
  for k, id in ipairs(ids) do start[k] = w:pose(id):translation() end
  local drift, speed, tilt = 0, 0, 0
  for _ = 1, math.floor(seconds / 1e-3) do
    w:step()
    for k, id in ipairs(ids) do
      local T = w:pose(id)
      drift = math.max(drift, (T:translation() - start[k]):norm())
      local v = w:velocity(id)
      for j = 1, 6 do speed = math.max(speed, math.abs(v[j])) end
      tilt = math.max(tilt, 1 - T:rotation():get(3, 3))
    end
  end
  return drift, speed, tilt, w:stats()
end

t.case("face-to-face: a box dropped flat and stacks of 2-4 blocks rest still for 2 s", function()
  for count = 1, 4 do
    local drift, speed, tilt, s = face_to_face(count, 2.0)
    local what = string.format("%d block(s): drift %.3g m, speed %.3g, tilt %.3g", count, drift, speed, tilt)
    t.truthy(drift < 1e-6, what)
    t.truthy(speed < 1e-5, what)
    t.truthy(tilt < 1e-9, what)
    t.truthy(s.contacts >= 4 * count, what) -- at least a 4-point patch per interface
    t.truthy(s.converged, what)
  end
end)

t.case("contact_problem: the world's problem reproduces the world's forces", function()
  local w, id = cube_world("ncp", "admm", 1e-3)
  w:step(3)
  local p = w:contact_problem()
  t.eq(#p.contacts, 4)
  local r = lucid.contact.residual(p.G, p.g, p.mu, p.lambda)
  t.truthy(r.abs <= 1e-6)
  local total = 0
  for i = 1, 4 do total = total + p.lambda[3 * i] end
  t.near(total, M * G, 1e-6)
  -- with no contact the problem is empty
  local free = lucid.world{}
  free:add_body{shape = lucid.sphere(0.1), pose = at(0, 0, 5)}
  free:step()
  t.eq(#free:contact_problem().mu, 0)
  t.truthy(id == 2)
end)
