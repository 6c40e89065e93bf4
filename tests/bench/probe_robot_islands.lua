-- The robots' contact problems solved offline, cold, by ADMM and by the interior point (issue 32:
-- which method suits a robot's island). Steps MuJoCo's humanoid dropped on its floor, lucid's
-- arm7 sweeping through boxes and the Allegro hand closing on its cube (bench_solve_choice.lua's
-- recipes); every EVERY steps it takes the last island's problem (w:contact_problem()) and solves
-- it from zero with ncp:admm (rho: the solver's own choice and the given multiples, up to
-- ADMM_ITER iterations), with ncp:ip and with ncp:newton (200 iterations each), at the world's
-- tol 1e-6. The worlds step with ncp:admm (the default before ncp:newton), so the problems are
-- those of an ADMM world's trajectory.
--   ./lucid tests/bench/probe_robot_islands.lua [ADMM_ITER]        (default 3000)
-- Recorded in docs/benchmarks/solve_choice.md.
local lucid = require "lucid"
local admm_iter = tonumber(arg[1]) or 3000

local function solve(P, solver, rho, max_iter)
  local s = lucid.contact.solve{G = P.G, g = P.g, mu = P.mu, R = P.R, model = "ncp", solver = solver,
                                rho = rho, max_iter = max_iter, tol = 1e-6}
  return string.format("%d%s (%.1e)", s.iterations, s.converged and "" or " missed", s.model_residual.abs)
end

local function probe(name, w, steps, every, rhos, control)
  for s = 1, steps do
    if control then control(s) end
    w:step()
    local P = w:contact_problem()
    if s % every == 0 and #P.mu > 0 then
      local line = string.format("%-9s step %4d: %2d contacts; admm", name, s, #P.mu)
      for _, rho in ipairs(rhos) do
        line = line .. string.format(" rho %s: %s", rho == 0 and "auto" or string.format("%g", rho),
                                     solve(P, "admm", rho, admm_iter))
      end
      print(line .. "; ip " .. solve(P, "ip", 0, 200) .. "; newton " .. solve(P, "newton", 0, 200))
    end
  end
end

local function world(dt) return lucid.world{dt = dt, contact = {solver = "admm"}} end
local robots = dofile((arg[0]:match("^(.*/)") or "./") .. "robot_scenes.lua")
probe("humanoid", robots.humanoid(world), 400, 50, {0})
local w, control = robots.arm7(world)
probe("arm7", w, 2000, 250, {0}, control)
local why
w, why = robots.allegro(world)
if not w then
  print("allegro: skipped (" .. why .. ")")
  return
end
probe("allegro", w, 700, 100, {0, 1e-2, 1})
