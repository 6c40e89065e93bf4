-- ncp:newton (semismooth Newton on the Alart-Curnier function) against the NCP's other solvers
-- on island problems the default solve misses (bench_pile_dump.lua's files, {n, G, g, mu, R,
-- lambda} in the island's units, where tol 1e-6 bounds the world's criterion). Every run has
-- the same budget (--max-iter, the world's 200 by default): ncp:newton from the file's lambda
-- (where the default stopped) and cold, PGS (relaxation 0.8) and ADMM (alpha 1) from the
-- file's lambda, the interior point cold. Judged as the world judges: the NCP criterion's abs.
-- Prints per problem each run's criterion, iterations and CPU seconds; where a run reaches tol
-- and another does too (or the file's lambda does), the largest difference of their
-- velocities (sigma) and forces from the first.
--   ./lucid tests/bench/bench_pile_newton.lua FILE... [--max-iter K]
-- Recorded in docs/benchmarks/solve_choice.md.
local lucid = require "lucid"
local files, max_iter = {}, 200
local k = 1
while k <= #arg do
  if arg[k] == "--max-iter" then
    max_iter, k = assert(tonumber(arg[k + 1]), "--max-iter needs a number"), k + 1
  else
    files[#files + 1] = arg[k]
  end
  k = k + 1
end
local TOL = 1e-6
local RUNS = {{"newton", true, "newton-warm"}, {"newton", false, "newton-cold"},
              {"pgs", true, "pgs0.8", {relaxation = 0.8}}, {"admm", true, "admm1", {alpha = 1.0}},
              {"ip", false, "ip"}}

local function velocity(G, g, R, lambda)
  local s = {}
  for r = 1, #g do
    local v = g[r] + (R and R[r] or 0) * lambda[r]
    for c = 1, #g do v = v + G:get(r, c) * lambda[c] end
    s[r] = v
  end
  return s
end

local function max_diff(a, b)
  local m = 0
  for i = 1, #a do m = math.max(m, math.abs(a[i] - b[i])) end
  return m
end

local reached = {}
for _, run in ipairs(RUNS) do reached[run[3]] = 0 end
for _, file in ipairs(files) do
  local P = dofile(file)
  local G = lucid.mat(P.G)
  local given = lucid.contact.residual(G, P.g, P.mu, P.lambda, {R = P.R})
  local line = {string.format("%s (%d contacts; given %.1e):", file:match("[^/]*$"), P.n, given.abs)}
  local answers = {}
  if given.abs <= TOL then answers[1] = {"given", P.lambda, velocity(G, P.g, P.R, P.lambda)} end
  for _, run in ipairs(RUNS) do
    local o = {G = G, g = P.g, mu = P.mu, R = P.R, model = "ncp", solver = run[1], tol = TOL,
               max_iter = max_iter, warm_start = run[2] and P.lambda or nil}
    for key, value in pairs(run[4] or {}) do o[key] = value end
    local t = os.clock()
    local ok, sol = pcall(lucid.contact.solve, o)
    t = os.clock() - t
    if ok then
      local r = lucid.contact.residual(G, P.g, P.mu, sol.lambda, {R = P.R})
      if r.abs <= TOL then
        reached[run[3]] = reached[run[3]] + 1
        local lambda = {}
        for i = 1, 3 * P.n do lambda[i] = sol.lambda[i] end
        answers[#answers + 1] = {run[3], lambda, velocity(G, P.g, P.R, lambda)}
      end
      line[#line + 1] = string.format("%s %.1e/%d/%.3fs", run[3], r.abs, sol.iterations, t)
    else
      line[#line + 1] = run[3] .. " failed (" .. tostring(sol):match("[^\n]*") .. ")"
    end
  end
  for i = 2, #answers do
    line[#line + 1] = string.format("| %s vs %s: sigma %.1e lambda %.1e", answers[i][1], answers[1][1],
                                    max_diff(answers[i][3], answers[1][3]), max_diff(answers[i][2], answers[1][2]))
  end
  print(table.concat(line, "  "))
  io.stdout:flush()
end
local summary = {}
for _, run in ipairs(RUNS) do summary[#summary + 1] = string.format("%s %d", run[3], reached[run[3]]) end
print(string.format("reached tol %.0e within %d iterations, of %d problems: %s", TOL, max_iter, #files,
                    table.concat(summary, ", ")))
