-- lucid.contact.derivatives and lucid.contact.primitive: results against central differences
-- of lucid.contact.solve, the closed form of a sliding contact, lucid.ad through the solve,
-- option checking and misuse.
local t = require "testing"
local lucid = require "lucid"

-- One sliding contact, G = diag(a, a, b) (C test: closed form of the NCP):
-- l_N = -g_N / b, l_T = -mu l_N g_T / |g_T|.
local a, b, mu = 2, 3, 0.4
local G1 = lucid.mat{{a, 0, 0}, {0, a, 0}, {0, 0, b}}
local g1 = {1.5, -2, -1.2}

local function sliding(g)
  local nT = math.sqrt(g[1] ^ 2 + g[2] ^ 2)
  local lN = -g[3] / b
  return {-mu * lN * g[1] / nT, -mu * lN * g[2] / nT, lN}
end

-- A problem of 3 contacts with a well-conditioned G and known modes is built in the C test;
-- here a small coupled problem whose answer is checked by finite differences of the solve.
local function coupled()
  local rows = {
    {2.0, 0.3, 0.1, 0.2, 0.0, 0.1},
    {0.3, 1.8, 0.0, 0.1, 0.2, 0.0},
    {0.1, 0.0, 1.5, 0.0, 0.1, 0.3},
    {0.2, 0.1, 0.0, 2.2, 0.2, 0.1},
    {0.0, 0.2, 0.1, 0.2, 1.9, 0.0},
    {0.1, 0.0, 0.3, 0.1, 0.0, 1.6},
  }
  return {G = lucid.mat(rows), g = {0.8, -0.3, -1.0, 0.05, 0.02, -0.7}, mu = {0.3, 0.9},
          tol = 1e-12, max_iter = 20000}
end

local function col(M, k)
  local out = {}
  for i = 1, M:rows() do out[i] = M:get(i, k) end
  return out
end

local function copy(p)
  local q = {}
  for k, v in pairs(p) do q[k] = v end
  return q
end

-- central difference of solve along a change of field `name` by h * dir
local function fd(p, name, dir, h)
  local function at(s)
    local q = copy(p)
    local v = {}
    local base = p[name]
    if getmetatable(base) == "lucid.mat" and base:cols() > 1 then
      v = base + s * h * dir
    else
      for i = 1, #base do v[i] = base[i] + s * h * dir[i] end
    end
    q[name] = v
    local sol = lucid.contact.solve(q)
    assert(sol.converged)
    return sol.lambda
  end
  return (at(1) - at(-1)) * (1 / (2 * h))
end

t.case("one sliding contact: the closed form", function()
  local p = {G = G1, g = g1, mu = {mu}, tol = 1e-13}
  local sol = lucid.contact.solve(p)
  t.allnear(sol.lambda, sliding(g1), 1e-10)
  local D = lucid.contact.derivatives(p, sol)
  t.eq(D.modes[1], "sliding")
  t.eq(D.rank_deficient, false)
  t.eq(D.method, "active_set")
  -- dl/dg_N column: (mu u / b, -1 / b)
  local nT = math.sqrt(g1[1] ^ 2 + g1[2] ^ 2)
  t.allnear(col(D.dlambda_dg, 3), {mu * g1[1] / nT / b, mu * g1[2] / nT / b, -1 / b}, 1e-10)
  -- dl/dmu = (-l_N u, 0)
  local lN = -g1[3] / b
  t.allnear(col(D.dlambda_dmu, 1), {-lN * g1[1] / nT, -lN * g1[2] / nT, 0}, 1e-10)
end)

t.case("every product and Jacobian matches central differences of the solve", function()
  for _, pair in ipairs{{"ncp", "admm"}, {"ncp", "pgs"}, {"ccp", "admm"}, {"raisim", "bisection"},
                        {"lcp", "pgs"}} do
    local p = coupled()
    p.model, p.solver = pair[1], pair[2]
    local sol = lucid.contact.solve(p)
    t.truthy(sol.converged, pair[1])
    local D = lucid.contact.derivatives(p, sol)
    t.truthy(D.margin > 1e-3, pair[1] .. " margin " .. D.margin)
    local h = 1e-5
    for k = 1, 6 do
      local e = {0, 0, 0, 0, 0, 0}
      e[k] = 1
      t.allnear(col(D.dlambda_dg, k), fd(p, "g", e, h), 1e-6, pair[1] .. " dg " .. k)
    end
    t.allnear(col(D.dlambda_dmu, 2), fd(p, "mu", {0, 1}, h), 1e-6, pair[1] .. " dmu")
    local dG = lucid.zeros(6, 6)
    dG:set(1, 4, 0.3)
    dG:set(4, 1, 0.3)
    dG:set(3, 3, -0.2)
    t.allnear(D.dlambda_dG(dG), fd(p, "G", dG, h), 1e-6, pair[1] .. " dG")
    -- jvp and vjp are transposes
    local w = lucid.vec{0.3, -1, 0.5, 2, 0.1, -0.4}
    local dg = lucid.vec{1, 2, -1, 0.5, 0, 0.3}
    local c = D.vjp(w)
    local lhs = w:dot(D.jvp{g = dg, mu = {0.2, -0.1}, G = dG})
    local rhs = c.g:dot(dg) + c.mu[1] * 0.2 - c.mu[2] * 0.1
    for i = 1, 6 do
      for j = 1, 6 do rhs = rhs + c.G:get(i, j) * dG:get(i, j) end
    end
    t.near(lhs, rhs, 1e-10, pair[1] .. " adjoint")
  end
end)

t.case("compliant CCP by ccp:newton: derivatives of the problem it solves", function()
  local p = coupled()
  p.model, p.solver, p.R, p.tol = "ccp", "newton", {0.1, 0.1, 0.05, 0.2, 0.2, 0.1}, 1e-12
  local sol = lucid.contact.solve(p)
  t.truthy(sol.converged)
  local D = lucid.contact.derivatives(p, sol)
  local h = 1e-6
  t.allnear(col(D.dlambda_dg, 3), fd(p, "g", {0, 0, 1, 0, 0, 0}, h), 1e-6, "dg")
  t.allnear(col(D.dlambda_dR, 6), fd(p, "R", {0, 0, 0, 0, 0, 1}, h), 1e-6, "dR")
  -- rigid problem: the 1e-8 compliance Newton adds is part of the differentiated problem
  p.R = nil
  sol = lucid.contact.solve(p)
  D = lucid.contact.derivatives(p, sol)
  t.allnear(col(D.dlambda_dg, 1), fd(p, "g", {1, 0, 0, 0, 0, 0}, h), 1e-6, "dg rigid")
end)

-- A tangential row no motion reaches (G's first row is zero) with a given compliance on the
-- other tangent: Newton gives the null row that tangent's R (lucid_contact_newton_compliance),
-- so the derivatives must too. The binding's former copy of the compliance gave it
-- 1e-8 x trace / 3 instead and missed central differences by up to 9e-3.
t.case("ccp:newton with a null tangential row: derivatives of the compliance Newton used", function()
  local p = {G = lucid.mat{{0, 0, 0}, {0, 1, 0.2}, {0, 0.2, 1}}, g = {0.05, -0.2, -1},
             mu = {0.5}, R = {0, 0.01, 0.01}, model = "ccp", solver = "newton", tol = 1e-12}
  local sol = lucid.contact.solve(p)
  t.truthy(sol.model_residual.abs < 1e-12, "solved: " .. sol.model_residual.abs)
  local D = lucid.contact.derivatives(p, sol, {allow_unconverged = true})
  local h = 1e-6
  for k = 1, 3 do -- central differences (the solve's `converged` stays false on the null row)
    local function at(s)
      local q = copy(p)
      q.g = {p.g[1], p.g[2], p.g[3]}
      q.g[k] = q.g[k] + s * h
      local r = lucid.contact.solve(q)
      assert(r.model_residual.abs < 1e-12)
      return r.lambda
    end
    t.allnear(col(D.dlambda_dg, k), (at(1) - at(-1)) * (1 / (2 * h)), 1e-6, "dg column " .. k)
  end
end)

t.case("lucid.ad.jacobian through the solve (lucid.contact.primitive)", function()
  local p = coupled()
  p.model = "ncp"
  local P = lucid.contact.primitive(p, {wrt = {"g", "mu"}})
  local x0 = {0.8, -0.3, -1.0, 0.05, 0.02, -0.7, 0.3, 0.9}
  local sol = lucid.contact.solve(p)
  local D = lucid.contact.derivatives(p, sol)
  for _, mode in ipairs{"forward", "reverse"} do
    local y, J = lucid.ad.jacobian(function(x) return P(x) end, x0, {mode = mode})
    t.allnear(y, sol.lambda, 1e-12, mode)
    for k = 1, 6 do t.allnear(col(J, k), col(D.dlambda_dg, k), 1e-12, mode .. " g") end
    for k = 1, 2 do t.allnear(col(J, 6 + k), col(D.dlambda_dmu, k), 1e-12, mode .. " mu") end
  end
  -- composed: the gradient of a scalar of lambda
  local ones = lucid.vec{1, 1, 1, 1, 1, 1}
  local _, grad = lucid.ad.grad(function(x) return lucid.ad.sin(P(x)):dot(ones) end, x0)
  local cosl = {}
  for i = 1, 6 do cosl[i] = math.cos(sol.lambda[i]) end
  local c = D.vjp(cosl)
  local expect = {}
  for i = 1, 6 do expect[i] = c.g[i] end
  expect[7], expect[8] = c.mu[1], c.mu[2]
  t.allnear(grad, expect, 1e-12, "grad")
end)

t.case("hyperstatic: minimum-norm derivatives flagged", function()
  -- two identical contacts (G = [A A; A A]): lambda is split arbitrarily between them
  local A = {{2, 0, 0}, {0, 2, 0}, {0, 0, 3}}
  local rows = {}
  for i = 1, 6 do
    rows[i] = {}
    for j = 1, 6 do rows[i][j] = A[(i - 1) % 3 + 1][(j - 1) % 3 + 1] end
  end
  local p = {G = lucid.mat(rows), g = {0.1, 0, -1, 0.1, 0, -1}, mu = {0.8, 0.8}, tol = 1e-12}
  local sol = lucid.contact.solve(p)
  local D = lucid.contact.derivatives(p, sol)
  t.eq(D.rank_deficient, true)
  t.truthy(D.rank < D.size)
  t.eq(D.modes[1], "sticking")
  -- G dlambda is the velocity sensitivity: -dg where both stick
  local J = D.dlambda_dg
  local GJ = p.G * J
  for i = 1, 6 do
    for j = 1, 6 do
      -- sticking: dsigma = G dl + dg = 0 on range(G); with the identical rows, dg = (e, e)
      if j <= 3 then
        t.near(GJ:get(i, j) + GJ:get(i, j + 3), (i == j or i == j + 3) and -1 or 0, 1e-9)
      end
    end
  end
  for i = 1, 6 do
    for j = 1, 6 do t.truthy(J:get(i, j) == J:get(i, j)) end
  end
end)

t.case("misuse and options", function()
  local p = {G = G1, g = g1, mu = {mu}}
  local sol = lucid.contact.solve(p)
  local F = "lucid.contact.derivatives"
  t.raises(F .. ": problem must be a table", lucid.contact.derivatives, 1, sol)
  t.raises(F .. ": sol must be a table", lucid.contact.derivatives, p, nil)
  t.raises(F .. ": unknown option 'opts.metod'", lucid.contact.derivatives, p, sol, {metod = 1})
  t.raises(F .. ": unknown option 'problem.gg'", lucid.contact.derivatives,
    {G = G1, g = g1, mu = {mu}, gg = 1}, sol)
  t.raises(F .. ": opts.dense must be a boolean", lucid.contact.derivatives, p, sol, {dense = 1})
  t.raises(F .. ": opts.threshold must be finite", lucid.contact.derivatives, p, sol,
    {threshold = 0 / 0})
  t.raises(F .. ": opts.threshold must be in [0, 1) (got 2.0)", lucid.contact.derivatives, p, sol,
    {threshold = 2})
  t.raises(F .. ": opts.rcond must be in [0, 1) (got -1.0)", lucid.contact.derivatives, p, sol,
    {rcond = -1})
  t.raises(F .. ": opts.method must be a string", lucid.contact.derivatives, p, sol, {method = 1})
  t.raises(F .. ": unknown opts.method 'exact'", lucid.contact.derivatives, p, sol,
    {method = "exact"})
  t.raises(F .. ": opts.method 'relaxed' needs a solution of lucid.contact.solve with solver 'ip'",
    lucid.contact.derivatives, p, sol,
    {method = "relaxed"})
  -- an ip solution: exact (kappa = 0) is differentiated like any other, relaxed is refused
  local pk = {G = G1, g = g1, mu = {mu}, solver = "ip", kappa = 1e-3}
  local rk = lucid.contact.solve(pk)
  t.raises(F .. ": sol is a relaxed ip solution (kappa = 0.001 > 0)", lucid.contact.derivatives,
    pk, rk)
  pk.kappa, pk.tol = 0, 1e-12
  local exact = lucid.contact.derivatives(pk, lucid.contact.solve(pk))
  t.allnear(exact.dlambda_dg, lucid.contact.derivatives(p, sol).dlambda_dg, 1e-6, "ip exact")
  t.raises(F .. ": sol.lambda is required", lucid.contact.derivatives, p, {converged = true})
  t.raises(F .. ": sol.lambda", lucid.contact.derivatives, p,
    {converged = true, lambda = {0, 0 / 0, 1}})
  t.raises(F .. ": problem.g", lucid.contact.derivatives, {G = G1, g = {1, math.huge, 0}, mu = {mu}},
    sol)
  t.raises(F .. ": sol.model 'ccp' differs from problem.model 'ncp'", lucid.contact.derivatives,
    {G = G1, g = g1, mu = {mu}, model = "ncp"}, {lambda = sol.lambda, converged = true,
    model = "ccp"})
  -- an unconverged answer: error unless allowed
  local un = lucid.contact.solve{G = G1, g = g1, mu = {mu}, max_iter = 1, tol = 1e-14}
  t.eq(un.converged, false)
  t.raises(F .. ": the solution did not converge", lucid.contact.derivatives, p, un)
  local D = lucid.contact.derivatives(p, un, {allow_unconverged = true, dense = false})
  t.eq(D.dlambda_dg, nil)
  t.eq(#D.jvp{g = {1, 0, 0}}, 3)
  -- products check their inputs
  D = lucid.contact.derivatives(p, sol)
  t.raises(F .. ".jvp: expects a table", D.jvp, 3)
  t.raises(F .. ".jvp: unknown option 'gg'", D.jvp, {gg = 1})
  t.raises(F .. ".jvp: g", D.jvp, {g = {1, 0 / 0, 0}})
  t.raises(F .. ".jvp: G must be 3 x 3", D.jvp, {G = lucid.zeros(2, 2)})
  t.raises(F .. ".dlambda_dG: dG must be a lucid.mat", D.dlambda_dG, {1, 2, 3})
  t.raises(F .. ".vjp: w", D.vjp, {1, 2})
  t.raises("lucid.contact.primitive: opts.wrt[1] must be g, mu or R", lucid.contact.primitive, p,
    {wrt = {"G"}})
  t.raises("lucid.contact.primitive: unknown option 'wtr'", lucid.contact.primitive, p,
    {wtr = {"g"}})
end)

return t
