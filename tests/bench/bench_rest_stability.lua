-- Whether a resting state is a stable equilibrium of the step: settles MuJoCo's humanoid on its
-- floor for T seconds at step dt, then estimates the dominant eigenvalue of the step's Jacobian
-- A = w:step_derivatives().A by power iteration. |eig| per second, |eig|^(1/dt), that does not
-- change with dt is the physics' own rate (an unstable equilibrium), not the integrator's.
--   ./lucid tests/bench/bench_rest_stability.lua [T] [DT]      (defaults 20 s, the file's dt)
-- Recorded in docs/benchmarks/world_step_history.md ("The humanoid at rest").
local lucid = require "lucid"
local m = lucid.model.load("/usr/share/mujoco/model/humanoid/humanoid.xml")
local T = tonumber(arg[1]) or 20
local dt = tonumber(arg[2]) or m.timestep
local w = lucid.world{dt = dt}
w:add_model(m)
for _ = 1, math.floor(T / dt) do w:step() end
local A = w:step_derivatives().A
local n = A:rows()
local x = lucid.zeros(n, 1)
for i = 1, n do x:set(i, 1, math.sin(i)) end
local eig = 0
for _ = 1, 3000 do
  local y = A * x
  eig = y:norm()
  x = y / eig
end
local order = {}
for i = 1, n do order[i] = {i, x:get(i, 1)} end
table.sort(order, function(a, b) return math.abs(a[2]) > math.abs(b[2]) end)
local top = {}
for k = 1, 6 do top[k] = string.format("%d: %.3f", order[k][1], order[k][2]) end
print(string.format("dt %.4g s, after %.0f s: kinetic %.2e J, dominant |eig| %.9f a step, %.4f a second; " ..
                    "largest entries of its vector (state tangent index): %s", dt, T, w:energy().kinetic, eig,
                    eig ^ (1 / dt), table.concat(top, ", ")))
