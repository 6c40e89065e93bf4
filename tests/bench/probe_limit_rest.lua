-- Limits at rest and under load (docs/benchmarks/issue34_targets.md, V4): over `steps` steps,
-- the largest overshoot past the bound (rad or tendon units) once the limit first acts, the last
-- step's, and the rows' activity pattern (steps with a limit row, steps it pushes, on/off
-- switches of its force after it first pushes).
-- Run: ./build/lucid tests/bench/probe_limit_rest.lua [steps [tol [margin]]] (tol: the contact
-- solve's, max_iter 5000, "-" or none: the world's; margin: the world's option)
local steps = tonumber(arg and arg[1]) or 5000
local CONTACT = arg and arg[2] and arg[2] ~= "-" and {tol = tonumber(arg[2]), max_iter = 5000} or nil
local MARGIN = arg and tonumber(arg[3]) -- the world's margin (default: the world's, 5e-3)

-- a pendulum (mass 1 at 0.3 m) on a hinge limited at [-1, 0.5] rad, released horizontal (q = 0)
-- so gravity swings it onto its lower bound
local PENDULUM = [[<mujoco><compiler angle="radian"/><option timestep="0.001"/><worldbody>
  <body><joint name="j" axis="0 -1 0" limited="true" range="-1 0.5"/>
  <inertial pos="0.3 0 0" mass="1" diaginertia="0.01 0.01 0.01"/></body></worldbody></mujoco>]]
-- a unit inertia on a hinge limited at [-1, 0.5] rad pushed by a motor (torque 1), no gravity
local MOTOR = [[<mujoco><compiler angle="radian"/><option timestep="0.001" gravity="0 0 0"/>
  <worldbody><body><joint name="j" axis="0 1 0" limited="true" range="-1 0.5"/>
  <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body></worldbody>
  <actuator><motor joint="j"/></actuator></mujoco>]]

-- tendon: the limit rows' tendon (nil: a joint's)
local function run(name, m, dt, q0, ctrl, tendon, over)
  local w = lucid.world{dt = dt, contact = CONTACT, margin = MARGIN}
  local id = w:add_model(m, {q = q0})
  if ctrl then w:set_control(id, ctrl) end
  local worst, last, rows, pushing, switches, first, was = 0, 0, 0, 0, 0, nil, false
  local late = 0 -- switches over the last 1000 steps
  for s = 1, steps do
    w:step()
    local push = false
    for _, c in ipairs(w:contacts()) do
      if c.limit and c.tendon == tendon then
        rows = rows + 1
        if c.lambda[3] > 0 then push = true end
      end
    end
    if push then pushing = pushing + 1 end
    if push and not first then first = s end
    if first and push ~= was then
      switches = switches + 1
      if s > steps - 1000 then late = late + 1 end
    end
    was = push
    local e = over(w:q(id))
    if first then worst = math.max(worst, e) end
    last = e
  end
  print(string.format("%-22s %d steps of %g s: first pushes at step %s; rows on %d steps, pushing "
    .. "on %d, force on/off switches after the first %d (%d in the last 1000 steps); largest "
    .. "overshoot %.3g, last %.3g", name, steps, dt, tostring(first), rows, pushing,
    math.max(0, switches - 1), late, worst, last))
end

local function hinge(q) return math.max(q[1] - 0.5, -1 - q[1]) end
run("pendulum on its limit", lucid.model.load_string(PENDULUM), 1e-3, {0}, nil, nil, hinge)
run("motor into its limit", lucid.model.load_string(MOTOR), 1e-3, {0}, {1}, nil, hinge)
local m = lucid.model.load("tests/data/model/mjcf_tendon_limit.xml")
-- bend = j1 + 0.5 j2 <= 0.6, pair = j1 - j3 in [-0.2, 0.2]
run("tendon 'bend'", m, 0.002, nil, {1}, 1, function(q) return q[1] + 0.5 * q[2] - 0.6 end)
run("tendon 'pair'", m, 0.002, nil, {1}, 2,
    function(q) return math.max(q[1] - q[3] - 0.2, -0.2 - (q[1] - q[3])) end)
