-- MuJoCo's humanoid (its file's 5 ms step) with every limited joint set `past` rad beyond its
-- upper limit (default 3): every 10 s the worst violation left, the kinetic energy, the steps
-- that missed the solver's tolerance and their largest residual. The limits are corrected at
-- no more than the correction speed, so 3 rad takes tens of seconds.
-- Usage: ./lucid tests/bench/probe_limits_recovery.lua [past] [seconds]
local lucid = require "lucid"
local past, seconds = tonumber(arg[1] or 3), tonumber(arg[2] or 60)
local m = lucid.model.load("/usr/share/mujoco/model/humanoid/humanoid.xml")
local lo, hi = m:limits()
local function limited(k) return lo[k] > -math.huge and hi[k] < math.huge and hi[k] ~= 1 end
local w = lucid.world{dt = 0.005}
local id = w:add_model(m)
local q = w:q(id)
for k = 1, #q do if limited(k) then q[k] = hi[k] + past end end
w:set_q(id, q)
local missed, worst_residual = 0, 0
for s = 1, math.floor(seconds / 0.005 + 0.5) do
  w:step()
  local st = w:stats()
  if not st.converged then
    missed, worst_residual = missed + 1, math.max(worst_residual, st.residual)
  end
  if s % 2000 == 0 then
    local worst, qq = -math.huge, w:q(id)
    for k = 1, #qq do if limited(k) then worst = math.max(worst, qq[k] - hi[k]) end end
    print(string.format("t %4.0f s: worst violation %9.3g rad, kinetic energy %9.3g J, %d steps " ..
                        "missed tol (largest residual %.2g)", s * 0.005, worst, w:energy().kinetic,
                        missed, worst_residual))
  end
end
