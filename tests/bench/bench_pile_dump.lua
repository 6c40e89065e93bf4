-- The island problems where the default solve misses tol on bench_pile_probe.lua's pile
-- (issue 32): runs the probe's scene and writes, for every unconverged step whose scene is one
-- island, that island's problem scaled as the island solve scales it (powers of two: tol bounds
-- its criterion) to DIR/nN_sSTEP.lua ({n, G, g, mu, R, lambda}); bench_ip_offline.lua solves
-- them. With CONVERGED > 0, also the first CONVERGED steps (all their islands) that did converge (the
-- world's answer meets tol), to DIR/conv_nN_sSTEP.lua. Recorded in docs/benchmarks/solve_choice.md.
--   ./lucid tests/bench/bench_pile_dump.lua [N] [MODEL:SOLVER] [DIR] [CONVERGED]
local lucid = require "lucid"
local N = tonumber(arg[1]) or 60
local pair = arg[2] or "ncp:admm"
local model, solver = pair:match("(%w+):(%w+)")
-- the pile (pile_scene.lua, beside this script)
local w = dofile((arg[0]:match("^(.*/)") or "./") .. "pile_scene.lua")(N, model, solver)

local dir = arg[3] or "pile_problems"
os.execute("mkdir -p '" .. dir .. "'")

-- The largest power of two not above x (lucid_world_island_scales).
local function power_of_two_below(x)
  local _, e = math.frexp(x)
  return 2.0 ^ (e - 1)
end

local converged_wanted = tonumber(arg[4]) or 0

local function dump(step, prefix)
  local P = w:contact_problem()
  local n, m = #P.mu, 3 * #P.mu
  local g_max, diag = 0, 0
  for k = 1, m do g_max = math.max(g_max, math.abs(P.g[k])) end
  for i = 1, n do diag = math.max(diag, P.G:get(3 * i, 3 * i) + (P.R and P.R[3 * i] or 0)) end
  local v = (g_max > 0 and g_max < 1) and power_of_two_below(g_max) or 1
  local f = (g_max > 0 and g_max or 1) / diag
  f = (f > 0 and f < 1) and power_of_two_below(f) or 1
  local out = assert(io.open(string.format("%s/%sn%d_s%d.lua", dir, prefix, N, step), "w"))
  local function vector(name, t, scale)
    local s = {}
    for k = 1, #t do s[k] = string.format("%.17g", t[k] * scale) end
    out:write(name, " = {", table.concat(s, ", "), "},\n")
  end
  out:write(string.format("-- pile of %d, step %d, %d contacts\nreturn {n = %d,\nG = {\n", N, step, n, n))
  for i = 1, m do
    local row = {}
    for j = 1, m do row[j] = string.format("%.17g", P.G:get(i, j) * f / v) end
    out:write("{", table.concat(row, ", "), "},\n")
  end
  out:write("},\n")
  vector("g", P.g, 1 / v)
  vector("mu", P.mu, 1)
  if P.R then vector("R", P.R, f / v) end
  vector("lambda", P.lambda, 1 / f)
  out:write("}\n")
  out:close()
end

local settle, steps, converged, written = 60, 200, 0, 0
for s = 1, settle + steps do
  w:step()
  local st = w:stats()
  if s > settle then
    if st.converged then
      converged = converged + 1
      if converged <= converged_wanted then dump(s, "conv_") end
    elseif st.islands == 1 then
      dump(s, "")
      written = written + 1
    end
  end
end
print(string.format("pile of %d, %s: %d of %d steps converged, %d one-island problems written to %s", N, pair,
                    converged, steps, written, dir))
