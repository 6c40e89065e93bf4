-- Actuator activations (MJCF dyntype integrator and filter, intvelocity, cylinder) in the world
-- state x = (q, v, act): the layout, set_state's round trip and reproducible trajectories,
-- the tangent space, batch rollouts equal the serial loop, keyframes, and w:step_derivatives'
-- act block (A's act rows and columns, B's act rows) against central differences of whole
-- steps taken here (set_state, set_controls, step, state_difference).
local t = require "testing"
local lucid = require "lucid"

local FILE = "tests/data/model/mjcf_activation.xml"

local function maxabs(M)
  local m = 0
  for i = 1, M:rows() do for j = 1, M:cols() do m = math.max(m, math.abs(M:get(i, j))) end end
  return m
end

-- The activation model, a free sphere resting on a floor (a contact in the step and a free
-- body's wrench among the controls, after the model's), at the keyframe "start".
local function scene()
  local m = lucid.model.load(FILE)
  local w = lucid.world{dt = m.timestep, contact = {tol = 1e-13, max_iter = 10000}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  local id = w:add_model(m)
  local q, v, u, _, act = m:keyframe("start")
  w:set_q(id, q)
  w:set_v(id, v)
  w:set_act(id, act)
  w:set_control(id, {0.2, 0.3, -0.4, 0.5, 0.6})
  w:add_body{shape = lucid.sphere(0.1), mass = 1, pose = lucid.se3.new({1, 0, 0, 0}, {2, 0, 0.1})}
  w:step(50) -- the sphere settles on the floor
  return w, id, m
end

t.case("state layout: q, v, then the activations; set_state round trip and replay", function()
  local w, id, m = scene()
  t.eq(m.na, 4)
  local x = w:state()
  t.eq(#x, 7 + 4 + 6 + 4 + 4) -- sphere q, model q, sphere v, model v, act
  local act = w:act(id)
  for k = 1, 4 do t.eq(x[#x - 4 + k], act[k]) end
  -- act moves with the step as MuJoCo's Euler update: the integrator's act_dot is its control
  w:step()
  t.near(w:act(id)[2], act[2] + m.timestep * -0.4, 1e-15)
  -- set_state reads back bit for bit and reproduces the trajectory
  w:set_state(x)
  local y = w:state()
  for k = 1, #x do t.eq(y[k], x[k]) end
  w:step(20)
  local a = w:state()
  w:set_state(x)
  w:step(20)
  local b = w:state()
  for k = 1, #a do t.eq(b[k], a[k]) end
  -- the tangent space: 2 nv + na, activations add
  local dx = lucid.zeros(2 * 10 + 4, 1)
  for k = 1, dx:rows() do dx:set(k, 1, 0.01 * k) end
  local z = w:state_integrate(x, dx)
  t.near(z[#z], x[#x] + 0.01 * dx:rows(), 1e-15)
  t.allnear(w:state_difference(x, z):totable(), dx:totable(), 1e-12)
  -- set_state changes the activations, and refuses non-finite ones
  x[#x] = 0.25
  w:set_state(x)
  t.eq(w:act(id)[4], 0.25)
  x = x:totable()
  x[#x] = 0 / 0
  t.raises("lucid.world:set_state: state must be finite", function() w:set_state(x) end)
end)

t.case("w:act, w:set_act and keyframes' act; misuse", function()
  local w, id, m = scene()
  local _, _, _, _, act = m:keyframe("start")
  t.allnear(act:totable(), {0.5, 0.2, 0.05, -0.3}, 0)
  local _, _, _, _, none = m:keyframe("ctrl")
  t.allnear(none:totable(), {0, 0, 0, 0}, 0)
  w:set_act(id, {1, 2, 3, 4})
  t.allnear(w:act(id):totable(), {1, 2, 3, 4}, 0)
  local id2 = w:add_model(m, {act = act})
  t.allnear(w:act(id2):totable(), act:totable(), 0)
  t.raises("lucid.world:add_model", function() w:add_model(m, {act = {1}}) end)
  t.raises("lucid.world:set_act", function() w:set_act(id, {1, 2}) end)
  t.raises("lucid.world:set_act: act must be finite",
           function() w:set_act(id, {1, 2, 0 / 0, 4}) end)
  -- a model without activations: no act in the state, w:act empty
  local plain = lucid.world{dt = 1e-3}
  local pm = lucid.model.load("tests/data/model/mjcf_actuators.xml")
  local pid = plain:add_model(pm)
  t.eq(pm.na, 0)
  t.eq(#plain:act(pid), 0)
  t.eq(#plain:state(), pm.nq + pm.nv)
end)

t.case("batch rollouts carry the activations: equal to the serial loop", function()
  local w = scene()
  local x0, nu, T = w:state(), #w:controls(), 30
  local U = lucid.zeros(nu, T)
  for c = 1, T do for r = 1, 5 do U:set(r, c, 0.5 * math.sin(r + 0.1 * c)) end end
  local X = lucid.batch.rollout(w, {x0}, {U}, {threads = 2})
  w:set_state(x0)
  for c = 1, T do
    local u = {}
    for r = 1, nu do u[r] = U:get(r, c) end
    w:set_controls(u)
    w:step()
  end
  local ref = w:state()
  for k = 1, #ref do t.eq(X:get(k, 1), ref[k]) end
end)

-- Central differences of whole steps from x with controls u along each tangent direction and
-- control: A (nt x nt) and B (nt x nu).
local function fd(w, x, u, h)
  w:set_state(x)
  w:set_controls(u)
  w:step()
  local x1 = w:state()
  local nt, nu = #w:state_difference(x, x), #u
  local A, B = lucid.zeros(nt, nt), lucid.zeros(nt, nu)
  local function column(M, k, shift)
    local d = {}
    for _, s in ipairs{1, -1} do
      local xs, us = shift(s)
      w:set_state(xs)
      w:set_controls(us)
      w:step()
      d[s] = w:state_difference(x1, w:state())
    end
    for r = 1, nt do M:set(r, k, (d[1][r] - d[-1][r]) / (2 * h)) end
  end
  for k = 1, nt do
    column(A, k, function(s)
      local dx = lucid.zeros(nt, 1)
      dx:set(k, 1, s * h)
      return w:state_integrate(x, dx), u
    end)
  end
  for k = 1, nu do
    column(B, k, function(s)
      local us = {}
      for r = 1, nu do us[r] = u[r] end
      us[k] = us[k] + s * h
      return x, us
    end)
  end
  return A, B
end

local function check(name, w, x, u, bound, opts)
  w:set_state(x)
  w:set_controls(u)
  local D = w:step_derivatives(opts)
  local A, B = fd(w, x, u, 1e-6)
  local nt = A:rows()
  t.eq(D.A:rows(), nt)
  t.eq(D.B:cols(), #u)
  local ea = maxabs(D.A - A) / math.max(maxabs(A), 1)
  local eb = maxabs(D.B - B) / math.max(maxabs(B), 1e-3)
  -- the act block alone (rows and columns of the last 4 tangent entries)
  local ec = 0
  for r = 1, nt do
    for c = nt - 3, nt do ec = math.max(ec, math.abs(D.A:get(r, c) - A:get(r, c))) end
  end
  print(string.format("%s: A %.1e, B %.1e relative; act columns of A %.1e absolute", name, ea,
                      eb, ec))
  t.truthy(ea <= bound and eb <= bound, name)
  return D, A, B
end

t.case("step_derivatives: A and B with the act block equal central differences", function()
  local w, id = scene()
  local x, u = w:state(), w:controls()
  local nt = #w:state_difference(x, x)
  -- the derivatives step the world as w:step does, activations included (both from set_state:
  -- no warm-start memory)
  w:set_state(x)
  w:set_controls(u)
  w:step_derivatives()
  local after = w:state()
  w:set_state(x)
  w:set_controls(u)
  w:step()
  local plain = w:state()
  for k = 1, #plain do t.eq(after[k], plain[k]) end
  local D = check("inside the ranges", w, x, u, 1e-6)
  -- the act rows: the Euler update's slopes (filter 1 - dt/tau, integrators 1)
  t.near(D.A:get(nt - 3, nt - 3), 1 - 0.002 / 0.05, 1e-15)
  t.near(D.A:get(nt - 2, nt - 2), 1, 0)
  t.near(D.B:get(nt - 2, 3), 0.002, 1e-15)
  -- tangent rows: the sphere's dq 1-6, the model's 7-10, the sphere's dv 11-16, the model's
  -- 17-20 (shoulder, elbow, rail, wrist), act 21-24. A stateless actuator's input moves v+, a
  -- stateful one's does not (this step)
  t.truthy(math.abs(D.B:get(20, 1)) > 0, "the motor moves the wrist")
  for r = 1, nt - 4 do t.eq(D.B:get(r, 2), 0) end
  -- the activations push on the joints: the filter's act column moves the shoulder's v+
  t.truthy(math.abs(D.A:get(17, nt - 3)) > 0, "act moves v+")
  -- at a bound: the integrator's act held at its upper bound by a positive control
  w:set_act(id, {0.5, 0.5, 0.15, -0.3})
  local up = w:controls()
  up[3], up[4] = 0.9, 0.9
  w:set_controls(up)
  local Dc = check("activations on their bounds", w, w:state(), up, 1e-6)
  t.eq(Dc.A:get(nt - 2, nt - 2), 0)
  t.eq(Dc.B:get(nt - 2, 3), 0)
end)

t.case("step_derivatives with activations: method finite_differences", function()
  local w = scene()
  check("method finite_differences", w, w:state(), w:controls(), 1e-6,
        {method = "finite_differences", step = 1e-6, tol = 1e-13})
end)

t.case("muscles: activations in the state; step_derivatives equal central differences", function()
  local m = lucid.model.load("tests/data/model/mjcf_muscle.xml")
  t.eq(m.na, 4)
  local a = m:actuators()
  t.eq(a[2].kind, "muscle")
  t.eq(a[2].dyn, "muscle")
  t.allnear({a[2].lengthrange[1], a[2].lengthrange[2], a[2].tau_act, a[2].tau_deact},
            {-0.06, 0.06, 0.01, 0.04}, 0)
  t.truthy(a[2].acc0 > 0, "acc0")
  t.eq(a[5].kind, "general")
  t.eq(a[5].dyn, "filter")
  local w = lucid.world{dt = m.timestep}
  local id = w:add_model(m)
  w:set_control(id, {0, 1, 1, 1, 1})
  w:step(10)
  local act = w:act(id)
  for k = 1, 4 do t.truthy(act[k] > 0 and act[k] < 1, "muscle activation rises") end
  t.eq(#w:state(), m.nq + m.nv + m.na)
  -- moving, the muscles at mid activation, two activating and two relaxing, with a sphere
  -- resting on a floor (a contact in the step)
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  w:add_body{shape = lucid.sphere(0.1), mass = 1, pose = lucid.se3.new({1, 0, 0, 0}, {2, 0, 0.1})}
  w:step(50)
  w:set_act(id, {0.3, 0.6, 0.45, 0.2})
  w:set_control(id, {0.4, 0.8, 0.1, 0.2, 0.9})
  check("muscles", w, w:state(), w:controls(), 1e-6)
end)
