-- lucid.contact: solve and residual from Lua, every model/solver pair, misuse.
local t = require "testing"
local lucid = require "lucid"

local pairs_table = {
  {"lcp", "pgs"}, {"ccp", "pgs"}, {"ccp", "admm"}, {"ccp", "newton"},
  {"raisim", "bisection"}, {"ncp", "pgs"}, {"ncp", "staggered"}, {"ncp", "admm"},
}

-- One contact on a body with effective masses 1/a (tangents), 1/b (normal): G diagonal.
local function box_problem(vx, vy, vn)
  return lucid.mat{{2, 0, 0}, {0, 2, 0}, {0, 0, 0.5}}, lucid.vec{vx, vy, vn}
end

-- G = J J^T / k + 0.5 I for a deterministic J (3n x k): symmetric positive definite.
-- A small deterministic generator (Park-Miller) so the test depends on nothing else.
local function generator(seed)
  local state = seed
  local self = {}
  function self:uniform()
    state = (state * 48271) % 2147483647
    return state / 2147483647
  end
  function self:normal()
    return math.sqrt(-2 * math.log(self:uniform())) * math.cos(2 * math.pi * self:uniform())
  end
  return self
end

local function random_problem(n, seed)
  local rng = generator(seed)
  local m, k = 3 * n, 12 * n
  local J = {}
  for i = 1, m do
    J[i] = {}
    for j = 1, k do J[i][j] = rng:normal() end
  end
  local rows = {}
  for i = 1, m do
    rows[i] = {}
    for j = 1, m do
      local s = 0
      for l = 1, k do s = s + J[i][l] * J[j][l] end
      rows[i][j] = s / k + (i == j and 0.5 or 0)
    end
  end
  local g, mu = {}, {}
  for i = 1, n do
    g[3 * i - 2], g[3 * i - 1], g[3 * i] = rng:normal(), rng:normal(), -1 + 1.5 * rng:uniform()
    mu[i] = 0.1 + 0.9 * rng:uniform()
  end
  return lucid.mat(rows), g, mu
end

t.case("sticking and sliding box match the closed form for every NCP solver", function()
  for _, case in ipairs{{0.3, -0.2, -1.0}, {2.0, 1.5, -1.0}} do
    local G, g = box_problem(case[1], case[2], case[3])
    local lN = 2.0 -- -vn / b
    local vt = math.sqrt(case[1] ^ 2 + case[2] ^ 2)
    local expected
    if vt / 2 <= 0.4 * lN then
      expected = {-case[1] / 2, -case[2] / 2, lN}
    else
      expected = {-0.4 * lN * case[1] / vt, -0.4 * lN * case[2] / vt, lN}
    end
    for _, pr in ipairs{{"ncp", "pgs"}, {"ncp", "staggered"}, {"ncp", "admm"}, {"raisim", "bisection"}} do
      local sol = lucid.contact.solve{G = G, g = g, mu = {0.4}, model = pr[1], solver = pr[2],
                                      tol = 1e-10, max_iter = 5000}
      t.truthy(sol.converged, pr[1] .. ":" .. pr[2])
      t.allnear(sol.lambda, expected, 1e-8, pr[1] .. ":" .. pr[2])
      t.truthy(sol.residual.abs <= 1e-10)
    end
  end
end)

t.case("every pair solves a random problem and reports consistent residuals", function()
  local G, g, mu = random_problem(3, 5)
  for _, pr in ipairs(pairs_table) do
    local tol = pr[2] == "newton" and 1e-6 or 1e-8
    local sol = lucid.contact.solve{G = G, g = g, mu = mu, model = pr[1], solver = pr[2],
                                    tol = tol, max_iter = 20000}
    local name = pr[1] .. ":" .. pr[2]
    t.truthy(sol.converged, name)
    t.truthy(sol.model_residual.abs <= tol, name)
    t.eq(#sol.lambda, 9)
    t.eq(sol.model, pr[1])
    t.eq(sol.solver, pr[2])
    t.truthy(sol.iterations >= 1)
    local r = lucid.contact.residual(G, g, mu, sol.lambda)
    t.near(r.abs, sol.residual.abs, 1e-12, name)
    t.near(r.primal, sol.residual.primal, 1e-12)
    t.near(r.dual, sol.residual.dual, 1e-12)
    t.near(r.complementarity, sol.residual.complementarity, 1e-12)
    t.eq(r.round_off, sol.round_off, name .. ": same round-off bound from solve and residual")
    t.truthy(sol.round_off > 0 and sol.round_off < 1e-13, name .. ": round-off of O(1) forces")
    t.eq(#r.contacts, 3)
  end
end)

t.case("residual of hand-built candidates", function()
  local G = lucid.mat{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
  -- strictly inside the cone with zero velocity: g = -G lambda
  local r = lucid.contact.residual(G, {-0.1, 0.2, -1}, {0.5}, lucid.vec{0.1, -0.2, 1})
  t.eq(r.abs, 0)
  -- round-off: lambda_j moves by half an ulp, here (2^-57, 2^-56, 2^-53) through G = I, and
  -- the sum sigma = g + G lambda (= 0) rounds by u (|g| + |lambda|) = 2^-53 (0.2, 0.4, 2); the
  -- product lambda . (sigma + Gamma(sigma)) has nothing to round
  local u = 2 ^ -53
  local d = {2 ^ -57 + u * 0.2, 2 ^ -56 + u * 0.4, 2 ^ -53 + u * 2}
  local dt = math.sqrt(d[1] ^ 2 + d[2] ^ 2)
  local expected = math.sqrt(1.05) * (math.sqrt(dt ^ 2 + d[3] ^ 2) + 0.5 * dt)
  t.near(r.round_off, expected, 1e-14 * expected)
  -- outside the cone: primal = distance (|l_T| - mu l_N) / sqrt(1 + mu^2)
  r = lucid.contact.residual(G, {-3, -4, -1}, {0.5}, {3, 4, 1})
  t.near(r.primal, 4.5 / math.sqrt(1.25), 1e-12)
  t.near(r.contacts[1].primal, r.primal, 0)
  -- sliding against the force: zero NCP residual, nonzero CCP dual residual
  local lam, v = {0.8, 0, 2}, {-1.5, 0, 0}
  local gv = {v[1] - lam[1], v[2] - lam[2], v[3] - lam[3]}
  t.truthy(lucid.contact.residual(G, gv, {0.4}, lam).abs < 1e-14)
  local ccp = lucid.contact.residual(G, gv, {0.4}, lam, {model = "ccp"})
  t.near(ccp.dual, 0.4 * 1.5 / math.sqrt(1.16), 1e-12)
  t.allnear(lucid.contact.residual(G, gv, {0.4}, lam).velocity, v, 1e-15)
end)

t.case("warm start from a previous solution reduces iterations", function()
  local G, g, mu = random_problem(4, 9)
  local first = lucid.contact.solve{G = G, g = g, mu = mu, model = "ncp", solver = "admm", tol = 1e-9}
  t.truthy(first.converged)
  local g2 = {}
  for i = 1, #g do g2[i] = g[i] + 1e-4 * math.cos(i) end
  local cold = lucid.contact.solve{G = G, g = g2, mu = mu, model = "ncp", solver = "admm", tol = 1e-9}
  local warm = lucid.contact.solve{G = G, g = g2, mu = mu, model = "ncp", solver = "admm", tol = 1e-9,
                                   warm_start = first}
  t.truthy(cold.converged and warm.converged)
  t.truthy(warm.iterations < cold.iterations)
  local warm_pgs = lucid.contact.solve{G = G, g = g2, mu = mu, model = "ncp", solver = "pgs",
                                       tol = 1e-9, warm_start = first.lambda}
  local cold_pgs = lucid.contact.solve{G = G, g = g2, mu = mu, model = "ncp", solver = "pgs", tol = 1e-9}
  t.truthy(warm_pgs.iterations < cold_pgs.iterations)
end)

t.case("the iteration cap gives converged = false", function()
  local G, g, mu = random_problem(3, 2)
  local sol = lucid.contact.solve{G = G, g = g, mu = mu, model = "ccp", solver = "pgs",
                                  tol = 1e-15, max_iter = 2, stall_tol = 0}
  t.eq(sol.converged, false)
  t.eq(sol.iterations, 2)
end)

t.case("misuse raises errors naming lucid.contact.solve", function()
  local G, g = box_problem(0.1, 0, -1)
  local S = lucid.contact.solve
  t.raises("lucid.contact.solve: invalid model/solver pair lcp:admm", S,
           {G = G, g = g, mu = {0.5}, model = "lcp", solver = "admm"})
  t.raises("lucid.contact.solve: unknown model 'soft'", S, {G = G, g = g, mu = {0.5}, model = "soft"})
  t.raises("lucid.contact.solve: unknown solver 'lemke'", S, {G = G, g = g, mu = {0.5}, solver = "lemke"})
  t.raises("lucid.contact.solve: friction coefficient mu is negative", S, {G = G, g = g, mu = {-0.1}})
  t.raises("lucid.contact.solve: compliance R is negative", S, {G = G, g = g, mu = {0.5}, R = {0, 0, -1}})
  t.raises("lucid.contact.solve: g must be finite", S, {G = G, g = {0, 0 / 0, -1}, mu = {0.5}})
  t.raises("lucid.contact.solve: mu must be finite", S, {G = G, g = g, mu = {math.huge}})
  t.raises("lucid.contact.solve: g must have 3 entries", S, {G = G, g = {1, 2}, mu = {0.5}})
  t.raises("lucid.contact.solve: mu must have 1 entries", S, {G = G, g = g, mu = {0.5, 0.5}})
  t.raises("lucid.contact.solve: G must be square with 3 rows per contact", S,
           {G = lucid.mat{{1, 0}, {0, 1}}, g = {1, 2}, mu = {0.5}})
  t.raises("lucid.contact.solve: G must be a lucid.mat", S, {G = {{1}}, g = g, mu = {0.5}})
  t.raises("lucid.contact.solve: G is required", S, {g = g, mu = {0.5}})
  t.raises("lucid.contact.solve: unknown option 'tolerance'", S, {G = G, g = g, mu = {0.5}, tolerance = 1})
  t.raises("lucid.contact.solve: G is not symmetric", S,
           {G = lucid.mat{{1, 0.5, 0}, {0, 1, 0}, {0, 0, 1}}, g = g, mu = {0.5}})
  local indefinite = lucid.mat{{1, 0, 2}, {0, 1, 0}, {2, 0, 1}}
  for _, pr in ipairs(pairs_table) do
    t.raises("lucid.contact.solve: G + R is not positive semi-definite", S,
             {G = indefinite, g = g, mu = {0.5}, model = pr[1], solver = pr[2]})
  end
  local huge = lucid.zeros(3, 3) + lucid.eye(3) * 1e308
  t.raises("lucid.contact.solve: G must be finite", S, {G = huge * 10, g = g, mu = {0.5}})
  t.raises("lucid.contact.solve: max_iter", S, {G = G, g = g, mu = {0.5}, max_iter = -1})
  t.raises("lucid.contact.solve: relaxation must be in (0, 2)", S,
           {G = G, g = g, mu = {0.5}, relaxation = 3})
  t.raises("lucid.contact.solve: warm_start must have 3 entries", S,
           {G = G, g = g, mu = {0.5}, warm_start = {1}})
  t.raises("lucid.contact.solve: ccp:newton needs equal tangential compliance", S,
           {G = G, g = g, mu = {0.5}, model = "ccp", solver = "newton", R = {1e-3, 2e-3, 1e-3}})
  t.raises("lucid.contact.residual: lambda must have 3 entries", lucid.contact.residual, G, g, {0.5}, {1})
  t.raises("lucid.contact.residual: friction coefficient mu is negative", lucid.contact.residual,
           G, g, {-1}, {0, 0, 1})
end)


t.case("friction beyond LUCID_CONTACT_MAX_FRICTION is refused; at the bound sticking is solved", function()
  -- G = I, g = (1, 0, -1): the exact answer is sticking, lambda = (-1, 0, 1), for mu >= 1.
  -- ncp:admm returned lambda = 0 with converged = true at mu = 1e7 (and from 1e6 a wrong
  -- answer as converged): the criteria of Eq. 15 shrink like 1 / mu there.
  local G, g = lucid.eye(3), {1, 0, -1}
  for _, pr in ipairs(pairs_table) do
    local name = pr[1] .. ":" .. pr[2]
    local sol = lucid.contact.solve{G = G, g = g, mu = {100}, model = pr[1], solver = pr[2]}
    t.truthy(sol.converged, name .. ": converged at mu = 100")
    t.near(sol.lambda[1], -1, 1e-4, name .. ": lambda_t1")
    t.near(sol.lambda[2], 0, 1e-4, name .. ": lambda_t2")
    t.near(sol.lambda[3], 1, 1e-4, name .. ": lambda_n")
    for _, mu in ipairs{100.5, 1e6, 1e7} do
      t.raises("lucid.contact.solve: friction coefficient mu exceeds 100", lucid.contact.solve,
               {G = G, g = g, mu = {mu}, model = pr[1], solver = pr[2]})
    end
  end
  t.raises("lucid.contact.residual: friction coefficient mu exceeds 100", lucid.contact.residual,
           G, g, {1e7}, {0, 0, 0})
end)

-- PGS on a contact with one stiff direction: a block step of 3 / trace (Alg. 2 as written)
-- overshoots the stiff normal by ~3x and the sweeps diverge; a tangential step of
-- 1 / min(D_tt) does the same when one tangent is soft and the other stiff.
t.case("PGS converges on a contact whose block has one stiff direction", function()
  local cases = {
    {G = {{1e-3, 0, 0}, {0, 1e-3, 0}, {0, 0, 1}}, g = {0, 0, -1}, want = {0, 0, 1}},
    {G = {{1e-6, 0, 0}, {0, 1, 0}, {0, 0, 1}}, g = {0, 0.2, -1}, want = {0, -0.2, 1}},
  }
  for _, c in ipairs(cases) do
    for _, model in ipairs{"ccp", "ncp", "lcp"} do
      local sol = lucid.contact.solve{G = lucid.mat(c.G), g = lucid.vec(c.g), mu = {0.5}, model = model, solver = "pgs",
                                      tol = 1e-10, max_iter = 20000}
      t.truthy(sol.converged, model .. ":pgs converged")
      -- the CCP's answer differs from the NCP's only in the normal velocity it leaves
      if model ~= "ccp" then t.allnear(sol.lambda, c.want, 1e-6, model .. ":pgs") end
      for k = 1, 3 do t.truthy(math.abs(sol.lambda[k]) < 10, model .. ": bounded force") end
    end
  end
end)

-- Issue 38: "converged at tol" means the answer is accurate, judged by finite differences.
-- Random 3-contact problems, G = 0.2/nv J J^T + I (nv = 6), g drawn so that one contact sticks
-- or slides slowly, one slides fast and one separates. A converged lambda accurate to delta
-- makes the central difference of lambda over g_j at step h differ from the exact derivative
-- (lucid.contact.derivatives) by about delta / h (plus O(h^2) within a mode). The criterion
-- alone bounds a sliding force's direction to sqrt(tol) only (contact_direction.h): before
-- the fix ccp:newton at tol 1e-13 gave differences of 4e-2 at h = 1e-6 (lambda noisy at
-- ~3e-8) and the interior point's 1e-10 answers 2.5e-7 direction errors.
local function issue38_problem(rng)
  local n, nv = 3, 6
  local J = {}
  for i = 1, 3 * n do J[i] = {} for j = 1, nv do J[i][j] = rng:normal() end end
  local G = {}
  for i = 1, 3 * n do
    G[i] = {}
    for j = 1, 3 * n do
      local s = 0
      for k = 1, nv do s = s + J[i][k] * J[j][k] end
      G[i][j] = 0.2 / nv * s + (i == j and 1 or 0)
    end
  end
  local g = {0.1 * rng:normal(), 0.1 * rng:normal(), -1, 2 * rng:normal(), 2 * rng:normal(), -1,
             rng:normal(), rng:normal(), 1}
  return {G = lucid.mat(G), g = g, mu = {0.8, 0.3, 0.5}}
end

-- Largest |FD - exact| over the entries of d lambda / d g of the converged answers of pair
-- (model, solver) at tol on `count` problems (skipping answers within 1e-3 of a mode switch
-- and differences whose perturbed solves did not converge); also the number of answers checked.
local function fd_accuracy(model, solver, tol, h, count, seed)
  local rng, worst, checked = lucid.rng(seed), 0, 0
  for _ = 1, count do
    local p = issue38_problem(rng)
    p.model, p.solver, p.tol, p.max_iter = model, solver, tol, 20000
    local sol = lucid.contact.solve(p)
    local D = sol.converged and lucid.contact.derivatives(p, sol) or nil
    if D and D.margin > 1e-3 then
      local all = true
      for j = 1, 9 do
        local sols = {}
        for s, sign in ipairs{1, -1} do
          local q = {}
          for k, v in pairs(p) do q[k] = v end
          q.g = {table.unpack(p.g)}
          q.g[j] = q.g[j] + sign * h
          sols[s] = lucid.contact.solve(q)
          all = all and sols[s].converged
        end
        for i = 1, all and 9 or 0 do
          local fd = (sols[1].lambda[i] - sols[2].lambda[i]) / (2 * h)
          worst = math.max(worst, math.abs(fd - D.dlambda_dg:get(i, j)))
        end
      end
      checked = checked + (all and 1 or 0)
    end
  end
  return worst, checked
end

t.case("issue 38: every pair's converged answer is accurate (finite differences over g)", function()
  -- tol 1e-10, h 1e-5: an answer accurate to 10 tol shows at most 10 tol / h = 1e-4
  local every_pair = {{"ccp", "ip"}, {"ncp", "ip"}}
  for _, pr in ipairs(pairs_table) do every_pair[#every_pair + 1] = pr end
  for _, pr in ipairs(every_pair) do
    local worst, checked = fd_accuracy(pr[1], pr[2], 1e-10, 1e-5, 8, 38)
    print(string.format("  %s:%s at tol 1e-10: %d answers checked, largest FD error %.2e",
                        pr[1], pr[2], checked, worst))
    t.truthy(checked >= 4, pr[1] .. ":" .. pr[2] .. " converged on too few problems to be judged")
    t.truthy(worst <= 1e-4, string.format("%s:%s FD error %.3g", pr[1], pr[2], worst))
  end
  -- the issue's case: ccp:newton at tol 1e-13, h = 1e-6 (10 tol / h = 1e-6)
  local worst, checked = fd_accuracy("ccp", "newton", 1e-13, 1e-6, 8, 6)
  print(string.format("  ccp:newton at tol 1e-13: %d answers checked, largest FD error %.2e", checked, worst))
  t.truthy(checked >= 4 and worst <= 1e-6, string.format("ccp:newton FD error %.3g (%d)", worst, checked))
end)

t.case("issue 38: an indefinite G is refused; PSD ones, rank-deficient included, are solved", function()
  t.raises("lucid.contact.solve: G + R is not positive semi-definite", lucid.contact.solve,
           {G = lucid.mat{{1, 2, 0}, {2, 1, 0}, {0, 0, 1}}, g = {0, 0, -1}, mu = {0.5}, model = "ccp", solver = "admm"})
  local rng = lucid.rng(381)
  for _ = 1, 50 do
    -- G = J J^T with J 6 x 4: PSD of rank 4, formed in floating point (round-off negative
    -- eigenvalues); G - 0.01 v v^T along a unit v in its range is indefinite
    local J = {}
    for i = 1, 6 do J[i] = {} for k = 1, 4 do J[i][k] = rng:normal() end end
    local Jm = lucid.mat(J)
    local G = Jm * Jm:T()
    local sol = lucid.contact.solve{G = G, g = {0, 0, -1, 0, 0, -1}, mu = {0.5, 0.5}, model = "ncp"}
    t.truthy(sol.lambda ~= nil, "rank-deficient PSD G solved")
    local v = Jm * lucid.vec{rng:normal(), rng:normal(), rng:normal(), rng:normal()}
    v = v * (1 / v:norm())
    local smallest = math.huge -- the bad direction must beat v^T G v
    local Gv = G * v
    smallest = v:dot(Gv)
    local bad = G - v * v:T() * (smallest + 0.01)
    t.raises("not positive semi-definite", lucid.contact.solve,
             {G = bad, g = {0, 0, -1, 0, 0, -1}, mu = {0.5, 0.5}, model = "ncp"})
  end
end)

-- Rows no force can move (solvers/contact/contact_null_rows.h): a zero row of G is solved, not
-- refused. Along the zero tangent the answer is the least force, zero; the rest is the 2 x 2
-- problem without that row, here sticking: [2 0.5; 0.5 1] (l_t2, l_n) = -(0.3, -1), so
-- l = (0, -0.8 / 1.75, 1 + 0.4 / 1.75). A contact whose normal row is zero carries no friction.
t.case("every pair solves a problem with a zero row of G", function()
  local G = lucid.mat{{0, 0, 0}, {0, 2, 0.5}, {0, 0.5, 1}}
  local want = {0, -0.8 / 1.75, 1 + 0.4 / 1.75}
  local free = lucid.mat{{1, 0.2, 0}, {0.2, 1, 0}, {0, 0, 0}}
  for _, pr in ipairs(pairs_table) do
    local name = pr[1] .. ":" .. pr[2]
    local sol = lucid.contact.solve{G = G, g = {0, 0.3, -1}, mu = {0.5}, model = pr[1],
                                    solver = pr[2], tol = 1e-10, max_iter = 5000}
    t.truthy(sol.converged, name .. ": converged")
    t.allnear(sol.lambda, want, pr[2] == "newton" and 1e-7 or 1e-9, name)
    sol = lucid.contact.solve{G = free, g = {0.2, -0.1, -1}, mu = {0.5}, model = pr[1],
                              solver = pr[2], tol = 1e-10, max_iter = 5000}
    t.truthy(math.abs(sol.lambda[1]) <= 1e-12 and math.abs(sol.lambda[2]) <= 1e-12,
             name .. ": no friction on a contact nothing can press")
  end
end)

-- A contact whose block has rank 1 and no zero row (a point on a single hinge moves along one
-- direction u): forces along the plane normal to u move nothing. Every pair must still press
-- it (sigma_N >= 0 with lambda in the cone, the LCP's pyramid); raisim:bisection's per-contact map inverted the
-- block and, finding none, left lambda = 0 (sigma_N = -1: the contact sinks).
t.case("every pair solves a contact whose block is singular without a zero row", function()
  local u = {0.48, 0.36, 0.8}
  local rows = {}
  for i = 1, 3 do
    rows[i] = {}
    for j = 1, 3 do rows[i][j] = 2 * u[i] * u[j] end
  end
  for _, pr in ipairs(t.CONTACT_PAIRS) do
    for _, g in ipairs{{0.1, -0.2, -1}, {1.5, -0.2, -1}, {0, 0, -1}} do
      local name = string.format("%s:%s g = (%g, %g, %g)", pr[1], pr[2], g[1], g[2], g[3])
      local sol = lucid.contact.solve{G = lucid.mat(rows), g = g, mu = {0.5}, model = pr[1],
                                      solver = pr[2], tol = 1e-6, max_iter = 5000}
      local l = sol.lambda
      t.truthy(sol.converged, name .. ": converged")
      local ul = u[1] * l[1] + u[2] * l[2] + u[3] * l[3]
      t.truthy(2 * u[3] * ul + g[3] >= -1e-6, name .. ": the contact stops sinking")
      -- the LCP's friction set is the box pyramid |lambda_Ti| <= mu lambda_N
      local friction = pr[1] == "lcp" and math.max(math.abs(l[1]), math.abs(l[2]))
                       or math.sqrt(l[1] ^ 2 + l[2] ^ 2)
      t.truthy(friction <= 0.5 * l[3] * (1 + 1e-9) + 1e-12, name .. ": force in the cone")
    end
  end
end)

-- Issue 32: a warm start from lambda alone once handed ADMM an uninitialised buffer as its
-- multiplier (whatever the allocator left there: a different answer per run, or the status
-- "non-finite number" raised as an error). The multiplier is derived from lambda instead: its
-- value at a solution, gamma = -(sigma + mu ||sigma_T|| e_N) with sigma the velocity of lambda
-- (here inside its cone), so passing that dual explicitly gives the same iterates. On the
-- 4-contact pile island (tests/data/contact) the old binding's answers differed by 3e-4 and
-- 6e-3 after 200 iterations.
t.case("a warm start from lambda alone derives ADMM's multiplier from it", function()
  local P = dofile("tests/data/contact/pile40_s147_n4.lua") -- ctest runs from the repository root
  local G = lucid.mat(P.G)
  local v = lucid.contact.residual(G, P.g, P.mu, P.lambda, {R = P.R}).velocity
  local dual = {}
  for i = 0, P.n - 1 do
    local tangent = math.sqrt(v[3 * i + 1] ^ 2 + v[3 * i + 2] ^ 2)
    t.truthy(math.sqrt(P.lambda[3 * i + 1] ^ 2 + P.lambda[3 * i + 2] ^ 2) <= P.mu[i + 1] * P.lambda[3 * i + 3])
    dual[3 * i + 1], dual[3 * i + 2] = -v[3 * i + 1], -v[3 * i + 2]
    dual[3 * i + 3] = -v[3 * i + 3] - P.mu[i + 1] * tangent
  end
  local function solve(alpha, warm)
    return lucid.contact.solve{G = G, g = P.g, mu = P.mu, R = P.R, model = "ncp", solver = "admm", tol = 1e-7,
                               max_iter = 200, alpha = alpha, warm_start = warm}
  end
  for _, alpha in ipairs{1.0, 1.5} do
    local alone, given = solve(alpha, P.lambda), solve(alpha, {lambda = P.lambda, dual = dual})
    t.eq(alone.diverged, false)
    t.eq(alone.iterations, given.iterations)
    t.allnear(alone.lambda, given.lambda, 1e-10)
    t.allnear(alone.dual, given.dual, 1e-10)
    t.near(alone.model_residual.abs, given.model_residual.abs, 1e-10)
  end
  -- a solver without a multiplier returns none (it had returned that buffer's contents)
  local pgs = lucid.contact.solve{G = G, g = P.g, mu = P.mu, R = P.R, model = "ncp", solver = "pgs",
                                  max_iter = 20, warm_start = P.lambda}
  t.eq(pgs.dual, nil)
end)

t.case("a warm start from any solver's solution is accepted; ADMM reads each one's dual", function()
  for seed = 1, 6 do
    local G, g, mu = random_problem(2 + seed % 4, 40 + seed)
    for _, model in ipairs{"ncp", "ccp"} do
      local function admm(warm)
        return lucid.contact.solve{G = G, g = g, mu = mu, model = model, solver = "admm",
                                   tol = 1e-10, warm_start = warm}
      end
      -- a solution without rho or dual (pgs): ADMM's own rho rule and the dual derived from
      -- lambda, exactly the solve from that lambda alone
      local pgs = lucid.contact.solve{G = G, g = g, mu = mu, model = model, solver = "pgs",
                                      max_iter = 30}
      t.eq(pgs.rho, nil)
      t.eq(pgs.dual, nil)
      local from_pgs, from_lambda = admm(pgs), admm(pgs.lambda)
      t.truthy(from_pgs.converged)
      t.eq(from_pgs.iterations, from_lambda.iterations)
      t.allnear(from_pgs.lambda, from_lambda.lambda, 0)
      -- an interior point's dual is its corrected velocity sigma + Gamma, ADMM's multiplier its
      -- negative: from the ip's solution ADMM needs no more iterations than from its lambda
      -- alone, and reaches the same answer
      local ip = lucid.contact.solve{G = G, g = g, mu = mu, model = model, solver = "ip",
                                     tol = 1e-3}
      t.truthy(ip.dual ~= nil and ip.rho == nil)
      local from_ip, alone = admm(ip), admm(ip.lambda)
      t.truthy(from_ip.converged and alone.converged)
      t.truthy(from_ip.iterations <= alone.iterations,
               model .. " seed " .. seed .. ": " .. from_ip.iterations .. " > " .. alone.iterations)
      t.allnear(from_ip.lambda, alone.lambda, 1e-8)
      -- ADMM's own solution carries its multiplier and rho as they are
      local again = admm(from_ip)
      t.truthy(again.converged and again.iterations == 0)
    end
  end
  t.raises("lucid.contact.solve: warm_start.solver: unknown solver 'lemke'", function()
    local G, g, mu = random_problem(1, 3)
    lucid.contact.solve{G = G, g = g, mu = mu, warm_start = {lambda = {0, 0, 0}, solver = "lemke"}}
  end)
end)

t.case("sol.dual: ADMM's multiplier -(sigma + Gamma), the ip's corrected velocity sigma + Gamma", function()
  for seed = 1, 4 do
    local n = 2 + seed % 3
    local G, g, mu = random_problem(n, 60 + seed)
    for _, model in ipairs{"ncp", "ccp"} do
      for _, case in ipairs{{"admm", -1, 1e-8}, {"ip", 1, 1e-8}} do
        local sol = lucid.contact.solve{G = G, g = g, mu = mu, model = model, solver = case[1],
                                        tol = 1e-10}
        t.truthy(sol.converged)
        local v = lucid.contact.residual(G, g, mu, sol.lambda).velocity
        for i = 0, n - 1 do -- Gamma: De Saxce's mu ||sigma_T|| e_N (NCP), 0 (CCP)
          local shift = model == "ncp" and mu[i + 1] * math.sqrt(v[3 * i + 1] ^ 2 + v[3 * i + 2] ^ 2) or 0
          local corrected = {v[3 * i + 1], v[3 * i + 2], v[3 * i + 3] + shift}
          for a = 1, 3 do
            t.near(sol.dual[3 * i + a], case[2] * corrected[a], case[3])
          end
        end
      end
    end
  end
end)

-- Issue 32: on the 4-contact pile island where the interior point stalls (1.9e-2: a sliding
-- contact whose friction force points off its slip's opposite), ncp:newton (semismooth Newton
-- on the Alart-Curnier function) reaches the NCP criterion cold and from the ip's stalled
-- answer (the file's lambda), within the world's budget of 200 iterations.
t.case("ncp:newton solves the pile island where ncp:ip stalls", function()
  local P = dofile("tests/data/contact/pile40_s147_n4.lua") -- ctest runs from the repository root
  local G = lucid.mat(P.G)
  local function solve(solver, warm)
    return lucid.contact.solve{G = G, g = P.g, mu = P.mu, R = P.R, model = "ncp", solver = solver, tol = 1e-6,
                               max_iter = 200, warm_start = warm}
  end
  local ip = solve("ip")
  t.eq(ip.converged, false)
  for _, warm in ipairs{false, true} do
    local sol = solve("newton", warm and P.lambda or nil)
    t.eq(sol.converged, true)
    t.truthy(lucid.contact.residual(G, P.g, P.mu, sol.lambda, {R = P.R}).abs <= 1e-6)
    t.truthy(sol.iterations < 200)
  end
end)
