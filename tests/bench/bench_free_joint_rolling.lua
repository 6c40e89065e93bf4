-- A solid sphere (r = 0.1 m, 1 kg) rolling without slip at w = 10 rad/s (1 m/s) on a condim-3
-- floor for T seconds (dt 1 ms, no rolling friction: its speed should stay), as an MJCF model
-- on a free joint and as the same sphere added with w:add_body; prints each one's height, speed
-- and mean acceleration (docs/benchmarks/integrate_jacobians.md, "Free joint integration").
--   build/lucid tests/bench/bench_free_joint_rolling.lua [T=1]
local lucid = require "lucid"

local R, W, DT = 0.1, 10, 1e-3
local T = tonumber(arg and arg[1]) or 1.0
local n = math.floor(T / DT + 0.5)
local SCENE = [[
<mujoco><option timestep="0.001" gravity="0 0 -9.81"/><worldbody>
  <geom type="plane" size="0 0 1" condim="3" friction="1 0.005 0.0001"/>
  <body pos="0 0 0.1"><freejoint/>
    <geom type="sphere" size="0.1" mass="1" condim="3" friction="1 0.005 0.0001"/></body>
</worldbody></mujoco>]]
local function speed(v) return math.sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2) end

local m = lucid.world{dt = DT}
local id = m:add_model(lucid.model.load_string(SCENE))
m:set_v(id, {R * W, 0, 0, 0, W, 0})
m:step(n)
local s = speed(m:v(id))
print(string.format("model (free joint): z %.9f m, |v| %.9f m/s, dv/dt %.6f m/s^2", m:q(id)[3] + R,
  s, (s - R * W) / T))

local b = lucid.world{dt = DT}
b:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 1}
local body = b:add_body{shape = lucid.sphere(R), mass = 1, pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, R}),
                        velocity = {R * W, 0, 0, 0, W, 0}, friction = 1}
b:step(n)
s = speed(b:velocity(body))
print(string.format("w:add_body sphere:  z %.9f m, |v| %.9f m/s, dv/dt %.6f m/s^2",
  b:pose(body):translation()[3], s, (s - R * W) / T))
