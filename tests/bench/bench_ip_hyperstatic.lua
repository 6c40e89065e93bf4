-- ncp:ip on random hyperstatic problems (issue 32): one rigid body (mass 1, a random diagonal
-- inertia) touching the ground at n = 3..8 random points (G = J M^-1 J^T of rank <= 6 < 3n),
-- free velocity g = J v + (0, 0, b_i) with a random twist v (pressing on the whole) and random
-- separating offsets b_i >= 0, mu 0.5; cold, tol 1e-8 (unscaled: O(1) data), 200 iterations.
-- Counts the problems the solver misses. Recorded in docs/benchmarks/solve_choice.md.
--   ./lucid tests/bench/bench_ip_hyperstatic.lua [COUNT] [MODEL:SOLVER]
local lucid = require "lucid"
local count = tonumber(arg[1]) or 1500
local model, solver = (arg[2] or "ncp:ip"):match("(%w+):(%w+)")

local seed = 2024 -- a fixed linear congruential sequence: the same problems on every run
local function rnd()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end

-- One problem: n contacts at points r_i (body frame = world frame at the step), normal z.
local function problem(n)
  local inertia = {0.5 + 1.5 * rnd(), 0.5 + 1.5 * rnd(), 0.5 + 1.5 * rnd()}
  local J = {}
  for i = 1, n do
    local r = {2 * rnd() - 1, 2 * rnd() - 1, -0.5 - 0.5 * rnd()}
    -- rows t1 = x, t2 = y, n = z of the point velocity v + w x r: [I, -[r]x]
    J[3 * i - 2] = {1, 0, 0, 0, r[3], -r[2]}
    J[3 * i - 1] = {0, 1, 0, -r[3], 0, r[1]}
    J[3 * i] = {0, 0, 1, r[2], -r[1], 0}
  end
  local minv = {1, 1, 1, 1 / inertia[1], 1 / inertia[2], 1 / inertia[3]}
  local m = 3 * n
  local G = {}
  for a = 1, m do
    G[a] = {}
    for b = 1, m do
      local s = 0
      for k = 1, 6 do s = s + J[a][k] * minv[k] * J[b][k] end
      G[a][b] = s
    end
  end
  local v = {2 * rnd() - 1, 2 * rnd() - 1, -1 - rnd(), 2 * rnd() - 1, 2 * rnd() - 1, 2 * rnd() - 1}
  local g, mu = {}, {}
  for a = 1, m do
    local s = 0
    for k = 1, 6 do s = s + J[a][k] * v[k] end
    g[a] = s
  end
  for i = 1, n do
    g[3 * i] = g[3 * i] + (rnd() < 0.5 and 0 or rnd())
    mu[i] = 0.5
  end
  return G, g, mu
end

local missed, iterations = 0, 0
for k = 1, count do
  local n = 3 + (k - 1) % 6
  local G, g, mu = problem(n)
  local sol = lucid.contact.solve{G = lucid.mat(G), g = g, mu = mu, model = model, solver = solver, tol = 1e-8,
                                  max_iter = 200}
  iterations = iterations + sol.iterations
  if not sol.converged then missed = missed + 1 end
end
print(string.format("%s:%s on %d random hyperstatic problems: %d missed tol 1e-8, %.1f iterations a problem",
                    model, solver, count, missed, iterations / count))
