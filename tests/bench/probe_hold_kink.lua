-- The Allegro hand holding its cube (allegro_cube.xml's recipe, dt 2 ms, tol 1e-10), settled
-- for N steps (default 1500): the contacts' modes and their distance from the stick-slip
-- boundary (D.contacts[k].margin), then each state column of w:step_derivatives' A against the
-- forward, backward and central differences of whole steps (step h, default 1e-6). Where a
-- contact sits on the boundary the step has one-sided derivatives only: the implicit one is
-- the sticking side's. Usage: ./lucid tests/bench/probe_hold_kink.lua [N] [h]
local lucid = require "lucid"
local path = (os.getenv("LUCID_SHARED_DIR") or "../shared") .. "/data/robots/allegro_cube.xml"
local steps, h = tonumber(arg[1] or 1500), tonumber(arg[2] or 1e-6)
local w = lucid.world{dt = 0.002, contact = {tol = 1e-10, max_iter = 5000}}
local id = w:add_model(lucid.model.load(path))
w:set_control(id, {0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 1.3, 1.2, 1.2, 1.2})
w:step(steps)
local x, u = w:state(), w:controls()
local D = w:step_derivatives{}
for k, c in ipairs(D.contacts) do
  if c.mode ~= "breaking" then print(string.format("contact %2d %-8s margin %.1e", k, c.mode, c.margin)) end
end
local function step_from(dx)
  w:set_state(w:state_integrate(x, dx))
  w:set_controls(u)
  w:step()
  return w:state()
end
local n = D.A:cols()
local y0 = step_from(lucid.zeros(n))
local scale, worst = 0, {fwd = 0, bwd = 0, central = 0, best = 0}
for i = 1, n do for j = 1, n do scale = math.max(scale, math.abs(D.A:get(i, j))) end end
print(string.format("%4s %10s %10s %10s   (max |A| %.2f)", "col", "forward", "backward", "central", scale))
for col = 1, n do
  local e = lucid.zeros(n)
  e[col] = h
  local dp = w:state_difference(y0, step_from(e))
  e[col] = -h
  local dm = w:state_difference(step_from(e), y0)
  local err = {fwd = 0, bwd = 0, central = 0}
  for r = 1, n do
    local a = D.A:get(r, col)
    err.fwd = math.max(err.fwd, math.abs(dp[r] / h - a))
    err.bwd = math.max(err.bwd, math.abs(dm[r] / h - a))
    err.central = math.max(err.central, math.abs((dp[r] + dm[r]) / (2 * h) - a))
  end
  err.best = math.min(err.fwd, err.bwd)
  for k, v in pairs(err) do worst[k] = math.max(worst[k], v / scale) end
  if err.central > 1e-3 * scale then
    print(string.format("%4d %10.2e %10.2e %10.2e", col, err.fwd / scale, err.bwd / scale, err.central / scale))
  end
end
print(string.format("worst relative error: central %.2e, forward %.2e, backward %.2e, better side %.2e",
                    worst.central, worst.fwd, worst.bwd, worst.best))
