-- Trajectory optimisation through contact: Gauss-Newton (Levenberg-Marquardt damping, Armijo
-- line search: lucid.optim.gauss_newton) over a control sequence so that a box ends at a
-- target planar pose (x, y, yaw), by single shooting through the simulation.
--
-- Problems (--problem):
--   push        a sphere finger driven by force controls pushes a box on a frictional floor;
--   fingertips  two spherical fingertips squeeze, move and turn a box (the manipulation example
--               of the Silico paper, Le Cleac'h et al., Fig. 1: two spherical fingertips move an
--               object to a desired pose; here the object is a box on a floor);
--   arm         an articulated arm (lucid's tasks/models/pusher.xml by default, --model for
--               another MJCF/URDF with actuators) pushes a box with its links.
-- Fingers are free spheres: their controls are world-frame forces (gravity compensated by a
-- constant force), held piecewise constant over `knots` intervals of the horizon; the
-- decision vector U stacks each knot's planar forces (push: 2 per knot, fingertips: 4). The
-- arm's decision vector is its actuators' inputs at each knot.
--
-- Residual: r(U) = ((x_T - x*) / 5 mm, (y_T - y*) / 5 mm, yaw error / 2 deg) of the box at the
-- end of the horizon -- the success tolerances, so success is |r_pos| <= 1 and |r_yaw| <= 1 --
-- plus a small regularisation rho (U - U0) / N (rho = --reg) that keeps the under-determined
-- problem's steps near the start's contact mode. The final pose is the only goal: the box may
-- still move at T (reported as final speed).
--
-- Jacobians (--methods): through lucid.sim.step inside lucid.ad with the step derivatives'
-- `implicit`, `relaxed` (several kappa) or per-step `finite_differences` methods, or
-- `rollout_fd`: forward differences of whole rollouts (one rollout per decision variable), the
-- baseline a user without simulator derivatives would write. The same optimiser, options and
-- starts for every method.
--
-- Targets: reachable by construction (as in tasks/contact_pose.lua): the final box pose of a
-- rollout under a random control sequence around the start's (each knot's forces perturbed by
-- Gaussian noise of the problem's scale), so every problem has a zero-residual solution; the
-- optimiser starts from the nominal sequence U0, not from the one that produced the target.
local lucid = require "lucid"
local task = require "lucid.task"
local plot = require "lucid.plot"
local stats = require "lucid.stats"

local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."

-- The Jacobian methods of --methods ("implicit,relaxed:1e-3"): a list of {key, kind, kappa,
-- label}, or nil and why the text is not one.
local function parse_methods(text)
  local list = {}
  for word in text:gmatch("[^,]+") do
    local kappa = word:match("^relaxed:(.+)$")
    if kappa then
      local k = tonumber(kappa)
      if not (k and k > 0 and k < math.huge) then
        return nil, "'" .. word .. "': relaxed:KAPPA needs a positive number"
      end
      list[#list + 1] = {key = "relaxed_" .. kappa, kind = "relaxed", kappa = k,
                         label = "relaxed kappa=" .. kappa}
    elseif word == "implicit" or word == "finite_differences" or word == "rollout_fd" then
      list[#list + 1] = {key = word, kind = word, label = word}
    else
      return nil, "unknown method '" .. word .. "' (expected implicit, relaxed:KAPPA, "
        .. "finite_differences or rollout_fd)"
    end
  end
  if #list == 0 then return nil, "no method given" end
  return list
end

-- The methods run: --methods (default implicit), with rollout_fd added by --baseline.
-- (per-step finite_differences costs ~35x an implicit Jacobian: --compare-jacobians measures
-- it; it is left out of the default runs)
local function methods_of(values)
  local text = values.methods ~= "" and values.methods or "implicit"
  if values.baseline and not ("," .. text .. ","):find(",rollout_fd,", 1, true) then
    text = text .. ",rollout_fd"
  end
  return parse_methods(text)
end

local t = task.new{
  name = "trajopt",
  summary = "Gauss-Newton trajectory optimisation through contact (push, fingertips, arm): "
    .. "success rate, iterations and time per derivative method over random reachable targets.",
  options = {
    {name = "problem", kind = "string", default = "push", choices = {"push", "fingertips", "arm"},
     help = "what moves the box"},
    {name = "targets", kind = "integer", default = 4, min = 1, help = "number of random targets"},
    {name = "full", kind = "flag",
     help = "benchmark size: 50 targets"},
    {name = "methods", kind = "string", default = "",
     check = function(_, values) return select(2, methods_of(values)) end,
     help = "comma-separated Jacobian methods: implicit, relaxed:KAPPA, finite_differences, "
       .. "rollout_fd (default: implicit)"},
    {name = "baseline", kind = "flag",
     help = "also solve with rollout_fd, the finite-difference baseline (one rollout per "
       .. "variable: slow), on the first --fd-targets targets"},
    {name = "fd-targets", kind = "integer", default = 10, min = 1,
     check = function(_, values, given)
       local methods = methods_of(values) or {}
       for _, m in ipairs(methods) do if m.kind == "rollout_fd" then return nil end end
       return given["fd-targets"] and "applies only with --baseline or rollout_fd in --methods" or nil
     end,
     help = "targets solved with rollout_fd (the first ones; slow: one rollout per variable)"},
    {name = "iterations", kind = "integer", default = 50, min = 1, help = "Gauss-Newton iterations"},
    {name = "reg", kind = "number", default = 1e-2, min = 0,
     help = "regularisation weight rho on (U - U0) / N"},
    {name = "model", kind = "string", default = here .. "/models/pusher.xml", file = true,
     help = "arm: the robot file (MJCF or URDF; needs actuators)"},
    {name = "plot", kind = "string", default = "out/trajopt",
     help = "prefix of the SVG plots (costs per iteration, box and finger paths; '' for none)"},
    {name = "compare-jacobians", kind = "flag",
     help = "compare the Jacobian of each method with rollout_fd at the nominal U0 and at the "
       .. "first target's controls (time per Jacobian, relative difference), then exit"},
    task.replay_option("the first target's optimised trajectory"),
  },
}
local opts = t:parse(arg)
local rng = t.rng

local function fail(message)
  io.stderr:write("trajopt: ", message, "\n")
  os.exit(2)
end

-- ---- scenes ----------------------------------------------------------------------------

local G = 9.81
local DT = 0.01
local CONTACT = {model = "ncp", solver = "admm", tol = 1e-8, max_iter = 500}

local function quat_yaw(q) -- yaw of a rotation about z (q = {w, x, y, z})
  return 2 * math.atan(q[4], q[1])
end

-- A scene: world w, box id, start state x0, horizon `steps`, `knots`, decision size n, U0,
-- noise scale of the targets' controls, and controls(U, k) -> the full control vector of
-- step k (a table; U a table or differentiable vector).
local function floor_and_box(w, box_mu)
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  return w:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1,
                    pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.05}), friction = box_mu}
end

-- Fingers are impedance controlled: each step's force on finger i is the PD law
--   f = KP (p_ref(t) - p) - KD v  (planar x, y; z holds the start height likewise, plus m g)
-- towards a reference moving linearly between the knots' waypoints (U: each knot's planar
-- waypoint per finger, relative to the finger's start). The forces are the simulation's
-- controls; the PD law is part of the differentiated function (it reads the state).
local KP, KD, FINGER_MASS = 400, 12, 0.1

local function finger_scene(spec)
  local w = lucid.world{dt = DT, contact = CONTACT}
  local box = floor_and_box(w, 0.8)
  local fingers, starts = {}, {}
  for i, p in ipairs(spec.fingers) do
    fingers[i] = w:add_body{shape = lucid.sphere(0.02), mass = FINGER_MASS,
                            friction = spec.finger_mu, pose = lucid.se3.new({1, 0, 0, 0}, p)}
    starts[i] = p
  end
  local nu = #w:controls()
  -- controls of a free body start at (its index among free bodies - 1) * 6
  local offset, free = {}, 0
  for _, id in ipairs({box, table.unpack(fingers)}) do
    offset[id] = free * 6
    free = free + 1
  end
  local per_knot = 2 * #fingers
  local scene = {w = w, box = box, fingers = fingers, steps = spec.steps, knots = spec.knots,
                 n = per_knot * spec.knots, noise = spec.noise, label = spec.label,
                 starts = starts, free_bodies = free, offset = offset}
  -- U0: the nominal waypoints, spec.path(i, s) for finger i at fraction s of the horizon
  scene.U0 = {}
  for k = 1, spec.knots do
    for i = 1, #fingers do
      local dx, dy = spec.path(i, k / spec.knots)
      scene.U0[#scene.U0 + 1] = dx
      scene.U0[#scene.U0 + 1] = dy
    end
  end
  -- state(i) -> px, py, pz, vx, vy, vz of finger i (numbers or differentiable values)
  function scene.controls(U, k, state)
    local s = k / spec.steps * spec.knots -- knot coordinate of this step, in (0, knots]
    local j = math.min(math.floor(s), spec.knots - 1)
    local a = s - j
    local u = {}
    for c = 1, nu do u[c] = 0 end
    for i, f in ipairs(fingers) do
      local function ref(knot, d) -- waypoint of finger i at knot (0: the start)
        if knot == 0 then return 0 end
        return U[(knot - 1) * per_knot + 2 * (i - 1) + d]
      end
      local rx = starts[i][1] + (1 - a) * ref(j, 1) + a * ref(j + 1, 1)
      local ry = starts[i][2] + (1 - a) * ref(j, 2) + a * ref(j + 1, 2)
      local px, py, pz, vx, vy, vz = state(i)
      u[offset[f] + 1] = (rx - px) * KP - vx * KD
      u[offset[f] + 2] = (ry - py) * KP - vy * KD
      u[offset[f] + 3] = (starts[i][3] - pz) * KP - vz * KD + FINGER_MASS * G
    end
    return u
  end
  -- The control law's derivatives at the world's current state, for the step-derivative
  -- chain: Cx = du/dx (nu x 2nv, tangent coordinates: a free body's configuration tangent is
  -- (rho, theta) in its body frame, T exp(xi); velocities are body twists) and
  -- CU = du/dU (nu x n). With p = t + R rho and v_world = R v_body:
  --   dp = R drho,  dv_world = R dv_body - R [v_body]x dtheta.
  function scene.control_jacobians(k, nt)
    local s = k / spec.steps * spec.knots
    local j = math.min(math.floor(s), spec.knots - 1)
    local a = s - j
    local Cx, CU = lucid.zeros(nu, nt), lucid.zeros(nu, scene.n)
    local nv = nt // 2
    for i, f in ipairs(fingers) do
      local T = w:pose(f)
      local R = T:rotation()
      local vw = w:velocity(f)
      local vb = {}
      for r = 1, 3 do
        vb[r] = R:get(1, r) * vw[1] + R:get(2, r) * vw[2] + R:get(3, r) * vw[3]
      end
      -- -[v_body]x
      local Vx = {{0, vb[3], -vb[2]}, {-vb[3], 0, vb[1]}, {vb[2], -vb[1], 0}}
      local tq = (offset[f] // 6) * 6 -- configuration tangent offset of this free body
      local tv = nv + tq
      for r = 1, 3 do
        local row = offset[f] + r
        for c = 1, 3 do
          Cx:set(row, tq + c, -KP * R:get(r, c))
          Cx:set(row, tv + c, -KD * R:get(r, c))
          local rv = 0
          for m = 1, 3 do rv = rv + R:get(r, m) * Vx[m][c] end
          Cx:set(row, tq + 3 + c, -KD * rv)
        end
      end
      for d = 1, 2 do
        if j >= 1 then CU:set(offset[f] + d, (j - 1) * per_knot + 2 * (i - 1) + d, KP * (1 - a)) end
        CU:set(offset[f] + d, j * per_knot + 2 * (i - 1) + d, KP * a)
      end
    end
    return Cx, CU
  end
  function scene.numeric_state(i)
    local p = w:pose(fingers[i]):translation()
    local v = w:velocity(fingers[i])
    return p[1], p[2], p[3], v[1], v[2], v[3]
  end
  -- settle the box and the fingers (holding their start) before the horizon
  local hold = {}
  for c = 1, scene.n do hold[c] = 0 end
  for _ = 1, 10 do
    w:set_controls(scene.controls(hold, 1, function(i)
      local px, py, pz, vx, vy, vz = scene.numeric_state(i)
      return px, py, pz, vx, vy, vz
    end))
    w:step()
  end
  scene.x0 = w:state()
  scene.box_tangent = offset[box] -- free bodies' tangent blocks follow their control order
  return scene
end

local SCENES = {}

-- push: one finger behind the box (-x face, at mid height); the nominal path pushes it 15 cm
-- along x.
function SCENES.push()
  return finger_scene{label = "push", fingers = {{-0.071, 0, 0.05}}, finger_mu = 0.3,
                      steps = 80, knots = 8, noise = {0.015, 0.015},
                      path = function(_, s) return 0.15 * s, 0 end}
end

-- fingertips: two fingertips pinching the box on its -y and +y faces (references 2.5 cm
-- inside the faces: a 10 N squeeze; friction 1 against the box), moving it along x and y and
-- turning it through the pinch's friction; the nominal path carries it 10 cm along x.
function SCENES.fingertips()
  return finger_scene{label = "fingertips", fingers = {{0, -0.071, 0.05}, {0, 0.071, 0.05}},
                      finger_mu = 1.0, steps = 80, knots = 8, noise = {0.015, 0.01, 0.015, 0.01},
                      path = function(i, s)
                        local squeeze = math.min(1, 4 * s) * 0.025
                        return 0.10 * s, i == 1 and squeeze or -squeeze
                      end}
end

-- arm: the model's actuator inputs (servo targets for position actuators) at each knot,
-- linear between knots, from the start configuration. The default model (tasks/models/
-- pusher.xml) starts with its tip at the box's -y face and the nominal plan turns the
-- shoulder by 0.3 rad, sweeping the box along +y; another --model starts at its neutral
-- configuration with the box 0.4 m in front of it and holds its inputs (no nominal plan).
function SCENES.arm()
  local ok, m = pcall(lucid.model.load, opts.model)
  if not ok then fail(tostring(m)) end
  if m.nu == 0 then
    fail(string.format("arm: the model %s has no actuators (the decision variables are "
                       .. "actuator inputs)", opts.model))
  end
  local default = opts.model:match("pusher%.xml$") ~= nil
  local w = lucid.world{dt = DT, contact = CONTACT}
  local box = w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  box = w:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1,
                   pose = lucid.se3.new({1, 0, 0, 0}, {0.40, 0, 0.05}), friction = 0.8}
  local q0 = default and {-0.577, 0.89} or m:neutral():totable()
  local id = w:add_model(m, {q = q0})
  local nu, per_knot = #w:controls(), m.nu
  local knots, steps = 8, 80
  local scene = {w = w, box = box, fingers = {}, steps = steps, knots = knots,
                 n = per_knot * knots, label = "arm", model = id, box_tangent = 0}
  local u_start = {}
  for a = 1, m.nu do u_start[a] = default and q0[a] or 0 end
  scene.noise = {}
  for a = 1, m.nu do scene.noise[a] = 0.05 end
  scene.U0 = {}
  for k = 1, knots do
    for a = 1, m.nu do
      scene.U0[#scene.U0 + 1] = u_start[a] + ((default and a == 1) and 0.3 * k / knots or 0)
    end
  end
  local function weights(k)
    local s = k / steps * knots
    local j = math.min(math.floor(s), knots - 1)
    return j, s - j
  end
  function scene.controls(U, k)
    local j, a = weights(k)
    local u = {}
    for c = 1, nu do u[c] = 0 end
    for c = 1, m.nu do
      local from = j == 0 and u_start[c] or U[(j - 1) * per_knot + c]
      u[c] = (1 - a) * from + a * U[j * per_knot + c]
    end
    return u
  end
  function scene.control_jacobians(k, nt)
    local j, a = weights(k)
    local Cx, CU = lucid.zeros(nu, nt), lucid.zeros(nu, scene.n)
    for c = 1, m.nu do
      if j >= 1 then CU:set(c, (j - 1) * per_knot + c, 1 - a) end
      CU:set(c, j * per_knot + c, a)
    end
    return Cx, CU
  end
  scene.numeric_state = function() end
  local frames = m:names("frame")
  local tip
  for _, f in ipairs(frames) do if f == "tip" then tip = f end end
  tip = tip or frames[#frames]
  scene.tracked = {{name = "tip (" .. tip .. ")", at = function()
    local p = w:frame_pose(id, tip):translation()
    return p[1], p[2]
  end}}
  for _ = 1, 10 do
    w:set_controls(scene.controls(scene.U0, 1))
    w:step()
  end
  scene.x0 = w:state()
  return scene
end

-- ---- rollouts and Jacobians -----------------------------------------------------------

-- Final box pose (x, y, z, qw, qx, qy, qz) after the horizon under U (a table/vec of numbers).
local function rollout(scene, U, path)
  local w = scene.w
  w:set_state(scene.x0)
  for k = 1, scene.steps do
    w:set_controls(scene.controls(U, k, scene.numeric_state))
    w:step()
    if path then path(k) end
  end
  local T = w:pose(scene.box)
  local p, q = T:translation(), T:quat()
  return lucid.vec{p[1], p[2], p[3], q[1], q[2], q[3], q[4]}
end

-- rollout_fd: forward differences of whole rollouts, step h per decision variable.
local FD_STEP = 1e-4
local function rollout_fd_primitive(scene)
  local cache_U, cache_y, cache_J
  local function at(U)
    local same = cache_U ~= nil
    if same then
      for i = 1, #U do if U[i] ~= cache_U[i] then same = false break end end
    end
    if same then return cache_y, cache_J end
    local y = rollout(scene, U)
    local J = lucid.zeros(7, #U)
    local Up = {}
    for i = 1, #U do Up[i] = U[i] end
    for j = 1, #U do
      Up[j] = U[j] + FD_STEP
      local yj = rollout(scene, Up)
      Up[j] = U[j]
      for i = 1, 7 do J:set(i, j, (yj[i] - y[i]) / FD_STEP) end
    end
    cache_U = {}
    for i = 1, #U do cache_U[i] = U[i] end
    cache_y, cache_J = y, J
    return y, J
  end
  return lucid.ad.primitive{
    name = "trajopt rollout (finite differences)",
    forward = function(U) return (at(U)) end,
    jacobian = function(U) local _, J = at(U) return J end,
  }
end

-- Box pose features as a function of U for a method: a differentiable 7-vector.
-- Step-derivative chain: the rollout under U, with the tangent sensitivity S = dx_k/dU
-- carried along: u_k = c(U, x_k) (the fingers' PD law), x_{k+1} = f(x_k, u_k), so
--   S_{k+1} = (A_k + B_k Cx_k) S_k + B_k CU_k     (A, B from w:step_derivatives).
-- The features' Jacobian: dp = R drho and dq = q (0, dtheta / 2) of the box's tangent.
local function chain_primitive(scene, method)
  local w = scene.w
  local nt = #w:state_difference(scene.x0, scene.x0)
  local box_t = scene.box_tangent -- offset of the box's configuration tangent
  local dopts = {method = method.kind, kappa = method.kappa}
  local cache_U, cache_y, cache_J
  local function at(U)
    local same = cache_U ~= nil
    if same then
      for i = 1, #U do if U[i] ~= cache_U[i] then same = false break end end
    end
    if same then return cache_y, cache_J end
    w:set_state(scene.x0)
    local S = lucid.zeros(nt, scene.n)
    for k = 1, scene.steps do
      w:set_controls(scene.controls(U, k, scene.numeric_state))
      local Cx, CU = scene.control_jacobians(k, nt)
      local D = w:step_derivatives(dopts)
      S = (D.A + D.B * Cx) * S + D.B * CU
    end
    local T = w:pose(scene.box)
    local p, q, R = T:translation(), T:quat(), T:rotation()
    local F = lucid.zeros(7, nt)
    for r = 1, 3 do
      for c = 1, 3 do F:set(r, box_t + c, R:get(r, c)) end
    end
    -- dq = 1/2 q (0, dtheta): the columns of q's right multiplication by (0, e_c)
    local qw, qx, qy, qz = q[1], q[2], q[3], q[4]
    local Qr = {{-qx, -qy, -qz}, {qw, -qz, qy}, {qz, qw, -qx}, {-qy, qx, qw}}
    for r = 1, 4 do
      for c = 1, 3 do F:set(3 + r, box_t + 3 + c, 0.5 * Qr[r][c]) end
    end
    local y = lucid.vec{p[1], p[2], p[3], q[1], q[2], q[3], q[4]}
    cache_U = {}
    for i = 1, #U do cache_U[i] = U[i] end
    cache_y, cache_J = y, F * S
    return cache_y, cache_J
  end
  return lucid.ad.primitive{
    name = "trajopt rollout (step derivatives, " .. method.kind .. ")",
    forward = function(U) return (at(U)) end,
    jacobian = function(U) local _, J = at(U) return J end,
  }
end

-- Box pose features as a function of U for a method: a differentiable 7-vector.
local function features_function(scene, method)
  local P
  if method.kind == "rollout_fd" then
    P = rollout_fd_primitive(scene)
  else
    P = chain_primitive(scene, method)
  end
  return function(U) return P(U) end
end

-- Residual of the final pose features y against the target (x*, y*, yaw*).
local POS_TOL, YAW_TOL = 5e-3, 2 * math.pi / 180
local function pose_residual(y, target)
  local c, s = math.cos(target.yaw / 2), math.sin(target.yaw / 2)
  -- z component of conj(q_target) * q for q_target = (c, 0, 0, s): 2 sin(yaw error / 2)
  local qz_err = y[7] * c - y[4] * s
  return {(y[1] - target.x) / POS_TOL, (y[2] - target.y) / POS_TOL, 2 * qz_err / YAW_TOL}
end

local function box_error(y, target)
  local yaw = quat_yaw({y[4], y[5], y[6], y[7]})
  local dyaw = math.abs((yaw - target.yaw + math.pi) % (2 * math.pi) - math.pi)
  return math.sqrt((y[1] - target.x) ^ 2 + (y[2] - target.y) ^ 2), dyaw
end

-- ---- methods ------------------------------------------------------------------------------

local METHODS = methods_of(opts)

-- ---- problems -----------------------------------------------------------------------------

local scene = SCENES[opts.problem]()
local N = opts.full and 50 or opts.targets

local targets = {}
for i = 1, N do
  -- the nominal waypoints plus a Gaussian random walk (std scene.noise per knot)
  local U, walk = {}, {}
  local per = #scene.noise
  for j = 1, scene.n do
    local c = (j - 1) % per + 1
    walk[c] = (walk[c] or 0) + scene.noise[c] * rng:normal()
    U[j] = scene.U0[j] + walk[c]
  end
  local y = rollout(scene, U)
  targets[i] = {x = y[1], y = y[2], yaw = quat_yaw({y[4], y[5], y[6], y[7]}), U = U}
end

if opts["compare-jacobians"] then
  local out = {problem = opts.problem, variables = scene.n, methods = {}, summary = {}}
  local points = {{name = "U0", U = scene.U0}, {name = "target 1 controls", U = targets[1].U}}
  local reference = {}
  for pi, point in ipairs(points) do
    local P = rollout_fd_primitive(scene)
    local start = lucid.clock()
    local _, J = lucid.ad.jacobian(function(U) return P(U) end, lucid.vec(point.U))
    reference[pi] = {J = J, seconds = lucid.clock() - start}
  end
  for _, m in ipairs(METHODS) do
    if m.kind ~= "rollout_fd" then
      local entry = {}
      for pi, point in ipairs(points) do
        local f = features_function(scene, m)
        local start = lucid.clock()
        local _, J = lucid.ad.jacobian(f, lucid.vec(point.U))
        local seconds = lucid.clock() - start
        local Jr = reference[pi].J
        local diff, norm = 0, 0
        for r = 1, J:rows() do
          for c = 1, J:cols() do
            diff = math.max(diff, math.abs(J:get(r, c) - Jr:get(r, c)))
            norm = math.max(norm, math.abs(Jr:get(r, c)))
          end
        end
        entry[pi] = {point = point.name, seconds = seconds, rollout_fd_seconds = reference[pi].seconds,
                     max_abs_difference = diff, max_abs_entry = norm,
                     relative_difference = diff / norm}
      end
      out.methods[m.key] = entry
      out.summary[m.key .. "_relative_difference"] = math.max(entry[1].relative_difference,
                                                               entry[2].relative_difference)
    end
  end
  t:report(out, function()
    local rows = {}
    for key, entry in pairs(out.methods) do
      for _, e in ipairs(entry) do
        rows[#rows + 1] = {key, e.point, e.seconds, e.rollout_fd_seconds, e.relative_difference}
      end
    end
    print(task.format_table({"method", "at", "s / Jacobian", "rollout_fd s", "rel. diff"}, rows))
  end)
  os.exit(0)
end

-- Gauss-Newton stops at the iteration limit, or once the box is within half the success
-- tolerances (|position error| <= 2.5 mm and |yaw error| <= 1 deg at the accepted step:
-- reason "callback"; the last trial evaluated is the accepted one), or when every residual is
-- within a tenth of its tolerance (min_cost).
local function solve(target, method, features)
  local U0 = lucid.vec(scene.U0)
  local rho = opts.reg / math.sqrt(scene.n)
  local last
  local function residual(U)
    local y = features(U)
    last = pose_residual(y:value(), target)
    local r = pose_residual(y, target)
    local parts = {r[1], r[2], r[3]}
    if rho > 0 then parts[4] = (U - U0) * rho end
    return lucid.ad.concat(parts)
  end
  -- wall and CPU seconds of the solve; CPU of this thread only (os.clock adds every thread of
  -- the process, OpenBLAS's pool included, and could read above the wall time)
  local start, cpu = lucid.clock(), lucid.cpu_clock()
  local U, info = lucid.optim.gauss_newton(residual, U0, {
    max_iter = opts.iterations, damping = "adaptive", lambda = 1e-3, tol = 1e-9,
    min_cost = 0.5 * 3 * 0.1 ^ 2,
    callback = function()
      if math.sqrt(last[1] ^ 2 + last[2] ^ 2) <= 0.5 and math.abs(last[3]) <= 0.5 then
        return false
      end
    end,
  })
  local cpu_seconds = lucid.cpu_clock() - cpu
  local seconds = lucid.clock() - start -- read last: the wall interval holds the CPU one
  local y = rollout(scene, U)
  local pos_err, yaw_err = box_error(y, target)
  return {U = U, info = info, seconds = seconds, cpu_seconds = cpu_seconds, pos_err = pos_err,
          yaw_err = yaw_err, success = pos_err <= POS_TOL and yaw_err <= YAW_TOL}
end

local results = {}
local total = 0
for _, m in ipairs(METHODS) do
  m.count = m.kind == "rollout_fd" and math.min(opts["fd-targets"], N) or N
  total = total + m.count
end
local bar = t:progress(total, "trajopt " .. opts.problem)
local first = {}
for _, m in ipairs(METHODS) do
  local features = features_function(scene, m)
  local res = {solves = {}}
  for i = 1, m.count do
    local s = solve(targets[i], m, features)
    res.solves[i] = s
    if i == 1 then first[m.key] = s end
    bar:step()
  end
  results[m.key] = res
end
bar:done()

-- ---- report ---------------------------------------------------------------------------

local function summarise(m)
  local res = results[m.key]
  local succ, iters, secs, pos, yaw, cpus = 0, {}, {}, {}, {}, {}
  local reasons = {}
  for i, s in ipairs(res.solves) do
    if s.success then succ = succ + 1 end
    iters[i], secs[i], pos[i], yaw[i] = s.info.iterations, s.seconds, s.pos_err, s.yaw_err * 180 / math.pi
    cpus[i] = s.cpu_seconds
    reasons[s.info.reason] = (reasons[s.info.reason] or 0) + 1
  end
  local S = stats.summary(secs)
  local per_target = {}
  for i, s in ipairs(res.solves) do
    per_target[i] = {success = s.success, position_error_m = s.pos_err,
                     yaw_error_deg = s.yaw_err * 180 / math.pi, iterations = s.info.iterations,
                     reason = s.info.reason, seconds = s.seconds, cpu_seconds = s.cpu_seconds,
                     cost = s.info.cost}
  end
  return {method = m.kind, kappa = m.kappa, targets = #res.solves, successes = succ,
          per_target = per_target,
          success_rate = succ / #res.solves, iterations = stats.summary(iters),
          seconds = S, seconds_max = S.max, seconds_median = S.median,
          cpu_seconds = stats.summary(cpus),
          over_10_cpu_seconds = (function()
            local c = 0
            for _, v in ipairs(cpus) do if v > 10 then c = c + 1 end end
            return c
          end)(),
          position_error_m = stats.summary(pos), yaw_error_deg = stats.summary(yaw),
          stop_reasons = reasons}
end

local figures = {seed = t.seed, problem = opts.problem, targets = N, horizon_steps = scene.steps,
                 dt = DT, knots = scene.knots, variables = scene.n, iterations = opts.iterations,
                 reg = opts.reg, tolerance = {position_m = POS_TOL, yaw_deg = 2},
                 methods = {}, summary = {}}
local fastest_exact
for _, m in ipairs(METHODS) do
  figures.methods[m.key] = summarise(m)
end
-- the headline: success rate and median solve time of each method; speed-up against
-- rollout_fd (CPU time) on the targets both solved
local fd = results.rollout_fd
for _, m in ipairs(METHODS) do
  local f = figures.methods[m.key]
  figures.summary[m.key .. "_success_rate"] = f.success_rate
  figures.summary[m.key .. "_median_seconds"] = f.seconds.median
  figures.summary[m.key .. "_max_seconds"] = f.seconds.max
  figures.summary[m.key .. "_median_cpu_seconds"] = f.cpu_seconds.median
  figures.summary[m.key .. "_max_cpu_seconds"] = f.cpu_seconds.max
  if fd and m.key ~= "rollout_fd" then
    local a, b = 0, 0
    for i = 1, #fd.solves do
      a, b = a + fd.solves[i].cpu_seconds, b + results[m.key].solves[i].cpu_seconds
    end
    f.speedup_vs_rollout_fd = a / b
    figures.summary[m.key .. "_speedup_vs_rollout_fd"] = a / b
    if m.kind == "implicit" then fastest_exact = m.key end
  end
end
figures.summary.headline_method = fastest_exact or METHODS[1].key

-- plots: cost per iteration of target 1 per method; box and finger paths of target 1
if opts.plot ~= "" then
  local dir = opts.plot:match("^(.*)/[^/]*$")
  if dir then os.execute("mkdir -p '" .. dir .. "'") end
  local series = {}
  for _, m in ipairs(METHODS) do
    local h = first[m.key].info.history
    local x = {}
    for k = 1, #h do x[k] = k - 1 end
    series[#series + 1] = {name = m.label, x = x, y = h}
  end
  local cost_file = opts.plot .. "_" .. opts.problem .. "_costs.svg"
  plot.lines{file = cost_file, title = "trajopt " .. opts.problem .. ": target 1",
             xlabel = "Gauss-Newton iteration", ylabel = "cost", logy = true, series = series}
  local m1 = METHODS[1]
  local w = scene.w
  local tracked = scene.tracked or {}
  if not scene.tracked then
    for i, f in ipairs(scene.fingers) do
      tracked[i] = {name = "finger " .. i, at = function()
        local q = w:pose(f):translation()
        return q[1], q[2]
      end}
    end
  end
  local paths = {{name = "box (optimised)", x = {}, y = {}}}
  for i, tr in ipairs(tracked) do paths[i + 1] = {name = tr.name, x = {}, y = {}} end
  local function record()
    local p = w:pose(scene.box):translation()
    table.insert(paths[1].x, p[1]); table.insert(paths[1].y, p[2])
    for i, tr in ipairs(tracked) do
      local x, y = tr.at()
      table.insert(paths[i + 1].x, x); table.insert(paths[i + 1].y, y)
    end
  end
  local U1 = first[m1.key].U
  w:set_state(scene.x0)
  record()
  local rec = t:record(w, opts.replay, DT)
  rollout(scene, U1, record)
  t:write_replay(rec, opts.replay, "trajopt " .. opts.problem .. ": target 1")
  paths[#paths + 1] = {name = "target", x = {targets[1].x}, y = {targets[1].y}, marker = "cross"}
  local path_file = opts.plot .. "_" .. opts.problem .. "_paths.svg"
  plot.lines{file = path_file, title = "trajopt " .. opts.problem .. ": paths of target 1 ("
               .. m1.label .. ")", xlabel = "x (m)", ylabel = "y (m)", series = paths}
  figures.plots = {costs = cost_file, paths = path_file}
end

t:report(figures, function()
  print(string.format("trajopt %s: %d targets, horizon %d steps of %g s, %d knots, %d variables, "
                      .. "Gauss-Newton <= %d iterations, seed %d", opts.problem, N, scene.steps,
                      DT, scene.knots, scene.n, opts.iterations, t.seed))
  print("success = final box error <= 5 mm and <= 2 deg")
  local rows = {}
  for _, m in ipairs(METHODS) do
    local f = figures.methods[m.key]
    rows[#rows + 1] = {m.label, f.targets, string.format("%.0f%%", 100 * f.success_rate),
                       f.iterations.median, f.iterations.max, f.seconds.median, f.seconds.max,
                       f.cpu_seconds.median, f.cpu_seconds.max,
                       f.position_error_m.median * 1e3, f.yaw_error_deg.median,
                       f.speedup_vs_rollout_fd or ""}
  end
  print(task.format_table({"method", "targets", "success", "iter med", "iter max", "s med",
                           "s max", "cpu s med", "cpu s max", "pos err mm", "yaw err deg",
                           "x vs rollout_fd"}, rows, "%.3g"))
  if figures.plots then print("plots: " .. figures.plots.costs .. ", " .. figures.plots.paths) end
end)
