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
local shared = os.getenv("LUCID_SHARED_DIR") or "../shared"

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

local m = lucid.model.load("/usr/share/mujoco/model/humanoid/humanoid.xml")
local function world(dt) return lucid.world{dt = dt, contact = {solver = "admm"}} end
local w = world(m.timestep)
w:add_model(m)
probe("humanoid", w, 400, 50, {0})

local arm = lucid.model.load("tasks/models/arm7.xml")
w = world(arm.timestep) -- the file has its floor
local arm_id = w:add_model(arm)
for i = 1, 4 do
  local h = 0.04
  w:add_body{shape = lucid.box(h, h, h), mass = 1000 * 8 * h ^ 3, friction = 0.5,
             pose = lucid.se3.new({1, 0, 0, 0}, {0.72 * math.cos(0.25 * i), 0.72 * math.sin(0.25 * i), h})}
end
probe("arm7", w, 2000, 250, {0}, function(s)
  w:set_control(arm_id, {1.2 * math.sin(2 * math.pi * s * arm.timestep / 4), 1.7, 0, -0.5, 0, 0.9, 0})
end)

local ok, am = pcall(lucid.model.load, shared .. "/data/robots/allegro_cube.xml")
if not ok then
  print("allegro: skipped (" .. shared .. "/data/robots/allegro_cube.xml not found)")
  return
end
w = world(am.timestep)
local id = w:add_model(am)
local u = {}
for i, n in ipairs(am:names("actuator")) do u[i] = n == "tha0" and 1.3 or (n:match("a0$") and 0 or 1.2) end
w:set_control(id, u)
probe("allegro", w, 700, 100, {0, 1e-2, 1})
