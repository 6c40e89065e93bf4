-- Whether a point meeting tol is reachable at all on the island problems the default solve
-- misses (issue 32): each problem written by bench_pile_dump.lua ({n, G, g, mu, R, lambda},
-- in the island's units, where tol 1e-6 bounds the world's criterion) is solved by the NCP's
-- solvers with budgets 100x the world's (warm from the problem's lambda: PGS with relaxation
-- 0.8 and 1.0, ADMM unrelaxed; the interior point cold), and judged as the world judges: the NCP
-- criterion's abs (not lucid.contact.solve's direction test). Prints, per problem, each run's
-- criterion and iterations, the criterion relative to the answer's own force and velocity
-- scales (`scaled`) and the round-off bound; then how many problems some run solved.
--   ./lucid tests/bench/bench_pile_reach.lua FILE... [--max-iter K]
-- Recorded in docs/benchmarks/solve_choice.md.
local lucid = require "lucid"
local files, max_iter = {}, 20000
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
local RUNS = {{"pgs", {relaxation = 0.8}}, {"pgs", {relaxation = 1.0}}, {"admm", {alpha = 1.0}}, {"ip", {}}}

local reached = 0
for _, file in ipairs(files) do
  local P = dofile(file)
  local G = lucid.mat(P.G)
  local given = lucid.contact.residual(G, P.g, P.mu, P.lambda, {R = P.R})
  local line = {string.format("%s (%d contacts; given %.1e, scaled %.1e, round-off %.1e):", file:match("[^/]*$"),
                              P.n, given.abs, given.scaled, given.round_off)}
  local best = given.abs
  for _, run in ipairs(RUNS) do
    local o = {G = G, g = P.g, mu = P.mu, R = P.R, model = "ncp", solver = run[1], tol = 0.1 * TOL,
               max_iter = run[1] == "ip" and 200 or max_iter, warm_start = run[1] ~= "ip" and P.lambda or nil}
    for key, value in pairs(run[2]) do o[key] = value end
    local ok, sol = pcall(lucid.contact.solve, o)
    if ok then
      local r = lucid.contact.residual(G, P.g, P.mu, sol.lambda, {R = P.R})
      best = math.min(best, r.abs)
      local tag = run[2].relaxation or run[2].alpha or ""
      line[#line + 1] = string.format("%s%s %.1e/%d", run[1], tag, r.abs, sol.iterations)
    else
      line[#line + 1] = run[1] .. " failed (" .. tostring(sol):match("[^\n]*") .. ")"
    end
  end
  if best <= TOL then reached = reached + 1 end
  print(table.concat(line, "  "), best <= TOL and "reached" or "not reached")
  io.stdout:flush()
end
print(string.format("%d of %d problems reached tol %.0e with some solver", reached, #files, TOL))
