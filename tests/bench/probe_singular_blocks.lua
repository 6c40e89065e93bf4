-- raisim:bisection on random contact problems G = J J^T (J: 3n x k normal entries, n = 1..4
-- contacts, k = 1..3n dofs; k < 3n: G singular, most contacts' 3x3 blocks too), g_T normal,
-- g_N in [-1, 0.5], mu in [0.2, 1], tol 1e-8, 2000 iterations. Problems are grouped by
-- whether G is singular and whether ncp:ip converges (a feasible problem); for each group it
-- prints how many raisim:bisection solved and how many answers leave a contact sinking
-- (sigma_N < -1e-6). Usage: ./lucid tests/bench/probe_singular_blocks.lua [trials=300]
local lucid = require "lucid"
local rng = lucid.rng(7)
local groups, order = {}, {}
for trial = 1, tonumber(arg[1] or 300) do
  local n = 1 + trial % 4
  local m, k = 3 * n, 1 + trial % (3 * n)
  local J, rows = {}, {}
  for i = 1, m do
    J[i] = {}
    for j = 1, k do J[i][j] = rng:normal() end
  end
  for i = 1, m do
    rows[i] = {}
    for j = 1, m do
      local s = 0
      for l = 1, k do s = s + J[i][l] * J[j][l] end
      rows[i][j] = s
    end
  end
  local g, mu = {}, {}
  for i = 1, n do
    g[3 * i - 2], g[3 * i - 1], g[3 * i] = rng:normal(), rng:normal(), -1 + 1.5 * rng:uniform()
    mu[i] = 0.2 + 0.8 * rng:uniform()
  end
  local G = lucid.mat(rows)
  local function solve(model, solver)
    return lucid.contact.solve{G = G, g = g, mu = mu, model = model, solver = solver, tol = 1e-8,
                               max_iter = 2000}
  end
  local sol, ref = solve("raisim", "bisection"), solve("ncp", "ip")
  local key = (k < m and "G singular" or "G regular") ..
              (ref.converged and ", ncp:ip converges" or ", ncp:ip does not")
  if not groups[key] then
    groups[key] = {problems = 0, converged = 0, sinking = 0}
    order[#order + 1] = key
  end
  local s = groups[key]
  s.problems = s.problems + 1
  if sol.converged then s.converged = s.converged + 1 end
  for i = 1, n do
    local sigma = g[3 * i]
    for j = 1, m do sigma = sigma + rows[3 * i][j] * sol.lambda[j] end
    if sigma < -1e-6 then
      s.sinking = s.sinking + 1
      break
    end
  end
end
table.sort(order)
for _, key in ipairs(order) do
  local s = groups[key]
  print(string.format("%-36s problems %4d  raisim:bisection converged %4d  sinking %4d", key,
                      s.problems, s.converged, s.sinking))
end
