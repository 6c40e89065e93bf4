-- ncp:newton from zero (cold) on the contact problems of the scenes it is the world's solver
-- for (issue 32: a default that converges without another solver's start). Steps MuJoCo's
-- humanoid dropped on its floor, lucid's arm7 sweeping through boxes and the Allegro hand
-- closing on its cube (probe_robot_islands.lua's recipes, ncp:admm worlds so the problems are
-- the same whatever ncp:newton does) and takes the last island's problem every EVERY steps,
-- plus the given problem files ({n, G, g, mu, R}); solves each from zero with ncp:newton
-- (the world's budget, 200 iterations, tol 1e-6). Prints per scene how many met tol and the
-- iterations (mean, largest), and with --each every problem's line; ONLY=allegro7 (the
-- environment) solves only that problem; --dump DIR writes every Allegro problem to
-- DIR/allegro_sSTEP_nCONTACTS.lua in the files' format.
--   ./lucid tests/bench/bench_newton_cold.lua [EVERY] [FILE...] [--each] [--dump DIR]
-- Recorded in docs/benchmarks/solve_choice.md.
local lucid = require "lucid"
local every, files, each, dump = 10, {}, false, nil
local k = 1
while k <= #arg do
  local a = arg[k]
  if a == "--each" then each = true
  elseif a == "--dump" then dump, k = arg[k + 1], k + 1
  elseif tonumber(a) then every = tonumber(a)
  else files[#files + 1] = a end
  k = k + 1
end
local TOL, MAX_ITER = 1e-6, 200

local function summary(name, problems)
  local met, sum, worst, t = 0, 0, 0, os.clock()
  for k, P in ipairs(problems) do
    if os.getenv("ONLY") and os.getenv("ONLY") ~= name .. k then goto continue end
    local s = lucid.contact.solve{G = P.G, g = P.g, mu = P.mu, R = P.R, model = "ncp",
                                  solver = "newton", max_iter = MAX_ITER, tol = TOL}
    if s.converged then met = met + 1 end
    sum, worst = sum + s.iterations, math.max(worst, s.iterations)
    if each then
      print(string.format("  %s %d: %d contacts, %d iterations%s (%.1e)", name, k, #P.mu,
                          s.iterations, s.converged and "" or " missed", s.model_residual.abs))
    end
    ::continue::
  end
  print(string.format("%-9s %3d problems: %3d met tol, iterations mean %.1f, largest %d, %.1f ms",
                      name, #problems, met, sum / math.max(#problems, 1), worst,
                      1000 * (os.clock() - t)))
end

local function write(P, step)
  local m = #P.g
  local out = assert(io.open(string.format("%s/allegro_s%d_n%d.lua", dump, step, #P.mu), "w"))
  local function list(t)
    local s = {}
    for i = 1, #t do s[i] = string.format("%.17g", t[i]) end
    return "{" .. table.concat(s, ", ") .. "}"
  end
  out:write(string.format("-- bench_newton_cold.lua's Allegro grasp (ncp:admm world), step %d: the last island, %d contacts\n", step, #P.mu))
  out:write(string.format("return {n = %d,\nG = {\n", #P.mu))
  for i = 1, m do
    local row = {}
    for j = 1, m do row[j] = P.G:get(i, j) end
    out:write(list(row), ",\n")
  end
  out:write("},\ng = ", list(P.g), ",\nmu = ", list(P.mu))
  if P.R then out:write(",\nR = ", list(P.R)) end
  out:write("}\n")
  out:close()
end

local function collect(w, steps, control, name)
  local out = {}
  for s = 1, steps do
    if control then control(s) end
    w:step()
    if s % every == 0 then
      local P = w:contact_problem()
      if #P.mu > 0 then
        out[#out + 1] = P
        if dump and name == "allegro" then write(P, s) end
      end
    end
  end
  return out
end

local function world(dt) return lucid.world{dt = dt, contact = {solver = "admm"}} end
local robots = dofile((arg[0]:match("^(.*/)") or "./") .. "robot_scenes.lua")
summary("humanoid", collect(robots.humanoid(world), 400))
local w, control = robots.arm7(world)
summary("arm7", collect(w, 2000, control))
local why
w, why = robots.allegro(world)
if w then
  summary("allegro", collect(w, 1000, nil, "allegro"))
else
  print("allegro: skipped (" .. why .. ")")
end

for _, file in ipairs(files) do
  local P = dofile(file)
  summary(file:match("[^/]*$"), {{G = lucid.mat(P.G), g = P.g, mu = P.mu, R = P.R}})
end
