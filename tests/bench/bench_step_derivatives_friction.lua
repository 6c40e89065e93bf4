-- Time per w:step_derivatives call on scenes with torsional (condim 4) and rolling (condim 6)
-- friction, and a condim 3 one for reference: the mean of `calls` calls from one state
-- (docs/benchmarks/step_derivatives_friction.md records the figures and the command).
-- ./build/lucid tests/bench/bench_step_derivatives_friction.lua [calls]
local lucid = require "lucid"
local calls = tonumber(arg and arg[1]) or 200

local function ball_world(condim, friction, v)
  local m = lucid.model.load_string(string.format([[
<mujoco><option timestep="0.001"/><worldbody>
  <geom name="floor" type="plane" size="0 0 1" condim="%d" friction="%s"/>
  <body pos="0 0 0.1"><freejoint/>
    <geom name="ball" type="sphere" size="0.1" mass="1" condim="%d" friction="1 0.002 0.002"/></body>
</worldbody></mujoco>]], condim, friction, condim))
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  local id = w:add_model(m)
  w:step(300)
  w:set_v(id, v)
  w:step(5)
  return w
end

local function box_world(condim)
  local m = lucid.model.load_string(string.format([[
<mujoco><worldbody>
  <geom name="floor" type="plane" size="0 0 1" condim="%d" friction="0.01 0.05 0.004"/>
</worldbody></mujoco>]], condim))
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  w:add_model(m)
  w:add_body{shape = lucid.box(0.05, 0.05, 0.05), mass = 1, friction = 1,
             pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.05})}
  w:step(200)
  for _ = 1, 20 do
    w:set_controls{0, 0, 0, 0, 0, 0.2}
    w:step()
  end
  return w
end

local scenes = {
  {"ball rolling, condim 3", function() return ball_world(3, "1 0.005 0.003", {0.2, 0, 0, 0, 2, 0}) end},
  {"ball spinning, condim 4", function() return ball_world(4, "1 0.02 0.003", {0.3, 0, 0, 0, 0, 10}) end},
  {"ball rolling, condim 6", function() return ball_world(6, "1 0.005 0.003", {0.2, 0, 0, 0, 2, 2}) end},
  {"box twisted, condim 4", function() return box_world(4) end},
  {"box twisted, condim 6", function() return box_world(6) end},
}
for _, s in ipairs(scenes) do
  local w = s[2]()
  local x, u = w:state(), w:controls()
  local D
  local t0 = os.clock()
  for _ = 1, calls do
    w:set_state(x)
    w:set_controls(u)
    D = w:step_derivatives()
  end
  local ms = (os.clock() - t0) / calls * 1e3
  print(string.format("%-26s %3d contacts  %.3f ms per call  (fallback columns %d)", s[1],
                      #D.contacts, ms, D.fallback_columns))
end
