-- Where the default solve misses tol on a pile of mixed objects (issue 32): drops N boxes,
-- capsules, ellipsoids and convex hulls (bench_bin's pile recipe, 0.1 kg each) into a bin,
-- counts the steps whose stats.converged held after a settling second, and on the first
-- unconverged steps solves the last island's problem offline with each candidate solver and
-- lists the contacts that hold its residual.
--   ./lucid tests/bench/bench_pile_probe.lua [N] [MODEL:SOLVER] [PROBES]
-- Recorded in docs/benchmarks/solve_choice.md.
local lucid = require "lucid"
local N = tonumber(arg[1]) or 60
local pair = arg[2] or "ncp:admm"
local probes = tonumber(arg[3]) or 2
local model, solver = pair:match("(%w+):(%w+)")
-- the pile (pile_scene.lua, beside this script)
local w, kinds = dofile((arg[0]:match("^(.*/)") or "./") .. "pile_scene.lua")(N, model, solver)

local CANDIDATES = {{"ncp", "admm", 200}, {"ncp", "admm", 5000}, {"ncp", "pgs", 5000}, {"ncp", "ip", 200},
                    {"ccp", "newton", 200}}

-- The last island's problem solved by each candidate, and the contacts holding ncp:admm's residual.
local function probe(step)
  local P = w:contact_problem()
  if #P.mu == 0 then return end
  print(string.format("step %d: last island, %d contacts", step, #P.mu))
  local admm
  for _, c in ipairs(CANDIDATES) do
    local sol = lucid.contact.solve{G = P.G, g = P.g, mu = P.mu, R = P.R, model = c[1], solver = c[2],
                                    max_iter = c[3], tol = 1e-6}
    print(string.format("  %s:%s max_iter %d: %s in %d iterations, criterion %.2e", c[1], c[2], c[3],
                        sol.converged and "met tol" or "missed tol", sol.iterations, sol.model_residual.abs))
    if c[2] == "admm" then admm = sol end
  end
  local r = lucid.contact.residual(P.G, P.g, P.mu, admm.lambda)
  local order = {}
  for i, c in ipairs(r.contacts) do order[i] = {i, math.max(c.primal, c.dual, c.complementarity)} end
  table.sort(order, function(a, b) return a[2] > b[2] end)
  local contacts = w:contacts()
  for j = 1, math.min(4, #order) do
    local i = order[j][1]
    local c = contacts[P.contacts[i]]
    print(string.format("  contact %d (bodies %d, %d: %s) criterion %.2e, velocity (%.2e, %.2e, %.2e), " ..
                        "force (%.2e, %.2e, %.2e)", i, c.body1, c.body2, kinds[c.body2] or "static", order[j][2],
                        r.velocity[3 * i - 2], r.velocity[3 * i - 1], r.velocity[3 * i],
                        admm.lambda[3 * i - 2], admm.lambda[3 * i - 1], admm.lambda[3 * i]))
  end
end

local settle, steps, converged, iterations, probed = 60, 200, 0, 0, 0
for s = 1, settle + steps do
  w:step()
  local st = w:stats()
  if s > settle then
    iterations = iterations + st.iterations
    if st.converged then
      converged = converged + 1
    elseif probed < probes then
      probed = probed + 1
      probe(s)
    end
  end
end
print(string.format("pile of %d, %s: %d of %d steps converged, %.1f iterations/step", N, pair, converged,
                    steps, iterations / steps))
