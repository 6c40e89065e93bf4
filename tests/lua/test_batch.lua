-- lucid.batch.rollout and w:controls(): identical to the serial loop in Lua for every thread
-- count, trajectories, argument checking.
local t = require "testing"
local lucid = require "lucid"

local function heap(n)
  local w = lucid.world{dt = 1e-3}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  local rng = lucid.rng(3)
  for i = 0, n - 1 do
    local q = {1, 0.3 * rng:normal(), 0.3 * rng:normal(), 0.3 * rng:normal()}
    w:add_body{shape = lucid.box(0.05, 0.04, 0.03),
               pose = lucid.se3.new(q, {0.12 * (i % 3), 0.12 * (i // 3 % 3), 0.06 + 0.1 * (i // 9)})}
  end
  w:step(120)
  return w
end

-- N initial states (each pushed by random forces for a few steps: the state layout is not
-- assumed) and control sequences (nu x T mats).
local function inputs(w, N, T, seed)
  local rng = lucid.rng(seed)
  local x = w:state()
  local nu = #w:controls()
  local X0, U = {}, {}
  for i = 1, N do
    w:set_state(x)
    for _ = 1, 5 do
      local u = {}
      for r = 1, nu do u[r] = (r % 6 >= 1 and r % 6 <= 3 and 20 or 0.5) * (2 * rng:uniform() - 1) end
      w:set_controls(u)
      w:step()
    end
    X0[i] = w:state()
    local u = lucid.zeros(nu, T)
    for r = 1, nu do
      for c = 1, T do u:set(r, c, (r % 6 >= 1 and r % 6 <= 3 and 3 or 0.1) * (2 * rng:uniform() - 1)) end
    end
    U[i] = u
  end
  w:set_state(x)
  return X0, U
end

local function serial(w, X0, U, T, all)
  local out = {}
  for i = 1, #X0 do
    w:set_state(X0[i])
    local traj = {w:state()}
    for c = 1, T do
      local u = {}
      for r = 1, U[i]:rows() do u[r] = U[i]:get(r, c) end
      w:set_controls(u)
      w:step()
      traj[#traj + 1] = w:state()
    end
    out[i] = all and traj or traj[#traj]
  end
  return out
end

local function same(a, b)
  for k = 1, #a do
    if a[k] ~= b[k] then return false end
  end
  return #a == #b
end

t.case("final states equal the serial loop bit for bit for 1, 2, 3 and 7 threads", function()
  local w = heap(7)
  local N, T = 5, 40
  local X0, U = inputs(w, N, T, 1)
  local before = w:state()
  local ref = serial(w, X0, U, T, false)
  w:set_state(before)
  t.truthy(not same(ref[1], ref[2]), "the rollouts differ")
  for _, threads in ipairs{1, 2, 3, 7} do
    local X = lucid.batch.rollout(w, X0, U, {threads = threads})
    t.eq(X:rows(), #before)
    t.eq(X:cols(), N)
    for i = 1, N do
      local col = {}
      for r = 1, X:rows() do col[r] = X:get(r, i) end
      t.truthy(same(col, ref[i]:totable()), "threads " .. threads .. ", rollout " .. i)
    end
    t.truthy(same(w:state():totable(), before:totable()), "w is not modified")
  end
end)

t.case("record = 'all' gives the trajectories, X0 as a mat", function()
  local w = heap(4)
  local N, T = 3, 15
  local X0, U = inputs(w, N, T, 2)
  local ref = serial(w, X0, U, T, true)
  local M = lucid.zeros(#X0[1], N)
  for i = 1, N do for r = 1, #X0[1] do M:set(r, i, X0[i][r]) end end
  local Y = lucid.batch.rollout(w, M, U, {threads = 2, record = "all"})
  t.eq(#Y, N)
  for i = 1, N do
    t.eq(Y[i]:cols(), T + 1)
    for c = 1, T + 1 do
      local col = {}
      for r = 1, Y[i]:rows() do col[r] = Y[i]:get(r, c) end
      t.truthy(same(col, ref[i][c]:totable()), "rollout " .. i .. " state " .. c)
    end
  end
end)

-- Issue 34's rows in rollouts: a loop closed by <connect>, a tendon's dry friction and limit,
-- torsional (condim 4) and rolling (condim 6) friction, a height field. Three start states along
-- each world's own trajectory, each kicked along its first dof (the sphere set spinning first);
-- the batch's clones step them bit for bit as the serial loop.
t.case("equality, tendon, friction, torsion, rolling and height-field worlds: rollouts equal the serial loop", function()
  local files = {"mjcf_fourbar.xml", "mjcf_tendon_friction.xml", "mjcf_tendon_limit.xml",
                 "mjcf_torsion_spin.xml", "mjcf_rolling.xml", "hfield_slope.xml"}
  for _, f in ipairs(files) do
    local w = lucid.world{dt = 2e-3, gravity = {0, 0, -9.81}}
    local id = w:add_model(lucid.model.load("tests/data/model/" .. f))
    if f == "mjcf_torsion_spin.xml" then
      local v = w:v(id)
      v[6] = 10
      w:set_v(id, v)
    end
    local X0 = {}
    for i = 1, 3 do
      local v = w:v(id) -- a kick: stuck friction rows would leave every start at rest
      v[1] = v[1] + 0.5 * i
      w:set_v(id, v)
      X0[i] = w:state()
      w:step(40)
    end
    local T = 60
    local ref = {}
    for i = 1, 3 do
      w:set_state(X0[i])
      w:step(T)
      ref[i] = w:state():totable()
    end
    t.truthy(not same(ref[1], ref[2]), f .. ": the rollouts differ")
    local X = lucid.batch.rollout(w, X0, nil, {threads = 2, steps = T})
    for i = 1, 3 do
      local col = {}
      for r = 1, X:rows() do col[r] = X:get(r, i) end
      t.truthy(same(col, ref[i]), f .. ": rollout " .. i)
    end
  end
end)

t.case("controls: layout, set, cleared by a step", function()
  local w = heap(2)
  t.eq(#w:controls(), 12)
  w:apply_force(3, {1, 2, 3}, {4, 5, 6})
  t.allnear(w:controls():totable(), {0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6}, 0)
  w:set_controls{0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0}
  t.allnear(w:controls():totable(), {0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0)
  w:step()
  t.allnear(w:controls():totable(), {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0)
  t.raises("lucid.world:set_controls: controls must have 12 entries", w.set_controls, w, {1})
  t.raises("lucid.world:set_controls: controls must be finite", w.set_controls, w,
           {0 / 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
end)

t.case("argument errors name lucid.batch.rollout", function()
  local w = heap(1)
  local x = w:state()
  local R = lucid.batch.rollout
  t.raises("lucid.batch.rollout: expected a lucid.world", R, {}, {x}, nil, {steps = 1})
  t.raises("number of steps is missing", R, w, {x})
  -- the reader follows lucid_batch_option_table: unknown keys, wrong types and values outside
  -- its ranges are errors with its words
  t.raises("lucid.batch.rollout: unknown option 'thread' (expected one of: threads, steps, record)",
           R, w, {x}, nil, {thread = 2, steps = 1})
  t.raises("lucid.batch.rollout: threads must be an integer in [1, 256] (or 0: min(rollouts, "
           .. "online CPUs)) (got 257)", R, w, {x}, nil, {threads = 257, steps = 1})
  t.raises("lucid.batch.rollout: threads must be an integer in [1, 256] (or 0: min(rollouts, "
           .. "online CPUs)) (got -1)", R, w, {x}, nil, {threads = -1, steps = 1})
  t.raises("lucid.batch.rollout: threads must be an integer (got 1.5)", R, w, {x}, nil,
           {threads = 1.5, steps = 1})
  t.raises("lucid.batch.rollout: steps must be an integer >= 0 (or -1: the control sequences' "
           .. "length) (got -2)", R, w, {x}, nil, {steps = -2})
  t.raises("lucid.batch.rollout: steps must be an integer (got string)", R, w, {x}, nil,
           {steps = "3"})
  t.raises('lucid.batch.rollout: record must be "final" or "all" (got some)', R, w, {x}, nil,
           {record = "some", steps = 1})
  t.raises('lucid.batch.rollout: record must be "final" or "all" (got boolean)', R, w, {x}, nil,
           {record = true, steps = 1})
  t.raises("lucid.batch.rollout: opts must be a table (got number)", R, w, {x}, nil, 3)
  -- threads 0 is the default (min(N, online CPUs)); steps -1 (the default) takes U's length
  local X0 = {x, x, x}
  t.allnear(R(w, X0, nil, {steps = 2, threads = 0}), R(w, X0, nil, {steps = 2}), 0)
  t.raises("number of steps is missing", R, w, {x}, nil, {steps = -1})
  t.raises("X0[1] must have", R, w, {{1, 2}}, nil, {steps = 1})
  t.raises("X0 must have 13 rows", R, w, lucid.zeros(3, 2), nil, {steps = 1})
  t.raises("U must have one control sequence per rollout", R, w, {x, x}, {lucid.zeros(6, 2)})
  t.raises("U[2] must have 2 steps", R, w, {x, x}, {lucid.zeros(6, 2), lucid.zeros(6, 3)})
  t.raises("opts.steps is 3 but U[1] has 2", R, w, {x}, {lucid.zeros(6, 2)}, {steps = 3})
  t.raises("U[1] must have 6 rows", R, w, {x}, {lucid.zeros(5, 2)})
  t.raises("U[1][2] must have 6 entries", R, w, {x}, {{{0, 0, 0, 0, 0, 0}, {1}}})
  local bad = x:totable()
  for k = 4, 7 do bad[k] = 0 end -- a zero quaternion: no pose
  t.raises("rollout 2: set_state: ", R, w, {x, bad, bad},
           nil, {steps = 2, threads = 3})
  local X = R(w, {}, nil, {steps = 3})
  t.eq(X:cols(), 0)
end)

