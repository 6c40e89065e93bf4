-- The interior-point solver from Lua: lucid.contact.solve{solver = "ip", kappa = } and the
-- relaxed derivatives sol:derivatives() against central differences of the solve itself.
local t = require "testing"
local lucid = require "lucid"

-- Two contacts of a random-looking but fixed SPD Delassus matrix.
local function problem()
  local rows = {
    {2.0, 0.1, 0.2, 0.3, 0.0, 0.1},
    {0.1, 1.8, 0.0, 0.1, 0.2, 0.0},
    {0.2, 0.0, 1.0, 0.1, 0.0, 0.4},
    {0.3, 0.1, 0.1, 2.2, 0.1, 0.0},
    {0.0, 0.2, 0.0, 0.1, 1.9, 0.1},
    {0.1, 0.0, 0.4, 0.0, 0.1, 0.9},
  }
  -- contact 1 sticks, contact 2 slides (checked below on the exact solution)
  return lucid.mat(rows), {0.2, -0.1, -1.0, 3.0, 1.0, -0.8}, {0.5, 0.3}
end

local function solve(G, g, mu, opts)
  local o = {G = G, g = g, mu = mu, solver = "ip", tol = 1e-14, max_iter = 200}
  for k, v in pairs(opts or {}) do o[k] = v end
  return lucid.contact.solve(o)
end

t.case("ncp:ip and ccp:ip solve to the tolerance and agree with ADMM", function()
  local G, g, mu = problem()
  for _, model in ipairs{"ncp", "ccp"} do
    local s = solve(G, g, mu, {model = model, tol = 1e-9})
    local a = lucid.contact.solve{G = G, g = g, mu = mu, model = model, solver = "admm", tol = 1e-10,
                                  max_iter = 20000}
    t.truthy(s.converged and s.model_residual.abs <= 1e-9, model .. ": " .. s.model_residual.abs)
    t.eq(s.solver, "ip")
    t.truthy(s.derivatives == nil, "an exact solve has no relaxed derivatives")
    for k = 1, 6 do t.near(s.lambda[k], a.lambda[k], 1e-4) end
  end
  -- the modes of the NCP solution: contact 1 strictly inside the cone, contact 2 on it
  local s = solve(G, g, mu, {model = "ncp", tol = 1e-10})
  local l = s.lambda
  t.truthy(math.sqrt(l[1] ^ 2 + l[2] ^ 2) < 0.9 * mu[1] * l[3], "contact 1 sticks")
  t.near(math.sqrt(l[4] ^ 2 + l[5] ^ 2), mu[2] * l[6], 1e-6, "contact 2 slides")
end)

-- Relative to the largest entry of each column (a directional derivative's size), the best of
-- two steps: the solves are converged to ~1e-15, so at h = 1e-6 their noise alone is ~1e-9 in a
-- column, 2e-6 of the sticking contact's dlambda/dmu_1 (size 4e-4, kappa 1e-4; how much depends
-- on the BLAS kernel's rounding); at h = 1e-5 it is 10x less and the truncation still ~1e-11.
local FD_STEPS = {1e-5, 1e-6}

-- min over FD_STEPS of max_i |(lambda(p + h e) - lambda(p - h e))_i / 2h - d_i| / max_i |fd_i|
local function column_error(lambda_at, p, j, derivative)
  local best = math.huge
  for _, h in ipairs(FD_STEPS) do
    local pp, pm = {table.unpack(p)}, {table.unpack(p)}
    pp[j], pm[j] = p[j] + h, p[j] - h
    local lp, lm = lambda_at(pp), lambda_at(pm)
    local err, size = 0, 0
    for i = 1, #lp do
      local fd = (lp[i] - lm[i]) / (2 * h)
      err, size = math.max(err, math.abs(fd - derivative(i))), math.max(size, math.abs(fd))
    end
    best = math.min(best, err / size)
  end
  return best
end

t.case("sol:derivatives() matches central differences of the relaxed solve", function()
  local G, g, mu = problem()
  for _, model in ipairs{"ncp", "ccp"} do
    for _, kappa in ipairs{1e-2, 1e-4} do
      local s = solve(G, g, mu, {model = model, kappa = kappa})
      t.truthy(s.converged, "relaxed solve converged")
      t.eq(s.kappa, kappa)
      local d = s:derivatives()
      local worst = 0
      local function lambda_at(gg, mm) return solve(G, gg, mm, {model = model, kappa = kappa}).lambda end
      for j = 1, 6 do
        worst = math.max(worst, column_error(function(gg) return lambda_at(gg, mu) end, g, j,
                                             function(i) return d.dlambda_dg:get(i, j) end))
      end
      for j = 1, 2 do
        worst = math.max(worst, column_error(function(mm) return lambda_at(g, mm) end, mu, j,
                                             function(i) return d.dlambda_dmu:get(i, j) end))
      end
      t.truthy(worst <= 1e-6, string.format("%s kappa %g: relative error %.3g", model, kappa, worst))
      -- jvp and vjp are the products with the same Jacobian
      local v = d.jvp{g = {1, 0, 0, 0, 0, 0}}
      for i = 1, 6 do t.near(v[i], d.dlambda_dg:get(i, 1), 1e-14) end
      local b = d.vjp({0, 0, 1, 0, 0, 0})
      for j = 1, 6 do t.near(b.g[j], d.dlambda_dg:get(3, j), 1e-14) end
      for j = 1, 6 do t.near(b.R[j], d.dlambda_dR:get(3, j), 1e-14) end
      t.near(b.mu[2], d.dlambda_dmu:get(3, 2), 1e-14)
      -- dG: the product with lambda^T; dR: the diagonal of dG
      local dG = lucid.zeros(6, 6)
      dG:set(1, 3, 1.0)
      local w, w2 = d.jvp{G = dG}, d.dlambda_dG(dG)
      for i = 1, 6 do
        t.near(w[i], d.dlambda_dg:get(i, 1) * s.lambda[3], 1e-12)
        t.near(w2[i], w[i], 1e-15)
        t.near(d.dlambda_dR:get(i, 2), d.dlambda_dg:get(i, 2) * s.lambda[2], 1e-12)
      end
      -- lucid.contact.derivatives with method "relaxed" is the same table
      local D = lucid.contact.derivatives({G = G, g = g, mu = mu, model = model, solver = "ip",
                                           kappa = kappa}, s, {method = "relaxed"})
      t.eq(D.method, "relaxed")
      t.eq(D.kappa, kappa)
      for i = 1, 6 do t.near(D.dlambda_dg:get(i, 4), d.dlambda_dg:get(i, 4), 0) end
    end
  end
end)

t.case("ip and kappa: bad input is an error naming the function", function()
  local G, g, mu = problem()
  t.raises("lucid.contact.solve: kappa must be >= 0", solve, G, g, mu, {kappa = -1})
  t.raises("lucid.contact.solve: invalid model/solver pair lcp:ip", solve, G, g, mu, {model = "lcp"})
  t.raises("lucid.contact.solve: invalid model/solver pair raisim:ip", solve, G, g, mu, {model = "raisim"})
  t.raises("lucid.world: invalid contact model/solver pair lcp:ip", lucid.world, {contact = {model = "lcp", solver = "ip"}})
  t.raises("lucid.world: contact.kappa must be >= 0", lucid.world, {contact = {solver = "ip", kappa = -1}})
  local s = solve(G, g, mu, {kappa = 1e-3})
  local d = s:derivatives()
  t.raises("sol:derivatives().jvp: g", d.jvp, {g = {1, 2}})
  t.raises("sol:derivatives().jvp: G must be 6 x 6", d.jvp, {G = lucid.zeros(3, 3)})
  t.raises("sol:derivatives().jvp: expects a table", d.jvp, 1)
  t.raises("sol:derivatives().vjp: w", d.vjp, {0 / 0, 0, 0, 0, 0, 0})
  t.raises("sol:derivatives: opts must be a table", s.derivatives, s, 1)
  -- the relaxed method needs a relaxed ip solution of that very problem
  local exact = solve(G, g, mu)
  t.raises("lucid.contact.derivatives: opts.method 'relaxed' needs a solution of lucid.contact.solve with solver 'ip' and kappa > 0",
           lucid.contact.derivatives, {G = G, g = g, mu = mu}, exact, {method = "relaxed"})
  t.raises("lucid.contact.derivatives: problem differs from the one sol solved",
           lucid.contact.derivatives, {G = G, g = {0, 0, -1, 0, 0, -1}, mu = mu}, s, {method = "relaxed"})
  local capped = solve(G, g, mu, {kappa = 1e-3, max_iter = 1})
  t.truthy(not capped.converged)
  t.raises("lucid.contact.derivatives: the solution did not converge",
           lucid.contact.derivatives, {G = G, g = g, mu = mu}, capped, {method = "relaxed"})
  t.truthy(lucid.contact.derivatives({G = G, g = g, mu = mu}, capped,
                                     {method = "relaxed", allow_unconverged = true}).dlambda_dg)
end)

t.case("the world steps with ncp:ip, exact and relaxed", function()
  for _, kappa in ipairs{0, 1e-6} do
    local w = lucid.world{dt = 1e-3, contact = {model = "ncp", solver = "ip", kappa = kappa}}
    w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
    local id = w:add_body{shape = lucid.box(0.1, 0.1, 0.1), mass = 1, friction = 0.5,
                          pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.1})}
    w:step(200)
    -- resting: the contact forces carry the weight, the box neither sinks nor moves
    local total = 0
    for _, c in ipairs(w:contacts()) do total = total + c.force[3] end
    t.near(total, 9.81, 1e-3, "weight carried")
    t.truthy(math.abs(w:velocity(id)[3]) < 1e-4, "at rest")
  end
end)

-- Away from switches the relaxed derivatives tend to the exact (active-set) ones as kappa -> 0.
t.case("relaxed derivatives approach lucid.contact.derivatives' active-set ones as kappa -> 0", function()
  local G, g, mu = problem()
  for _, model in ipairs{"ncp", "ccp"} do
    local exact_sol = lucid.contact.solve{G = G, g = g, mu = mu, model = model, solver = "admm",
                                          tol = 1e-12, max_iter = 100000}
    local exact = lucid.contact.derivatives({G = G, g = g, mu = mu, model = model}, exact_sol)
    local previous, errors = math.huge, {}
    for _, kappa in ipairs{1e-4, 1e-6, 1e-8} do
      local d = solve(G, g, mu, {model = model, kappa = kappa, tol = 1e-3 * kappa}):derivatives()
      local err, size = 0, 0
      for i = 1, 6 do
        for j = 1, 6 do
          err = math.max(err, math.abs(d.dlambda_dg:get(i, j) - exact.dlambda_dg:get(i, j)))
          size = math.max(size, math.abs(exact.dlambda_dg:get(i, j)))
        end
      end
      errors[#errors + 1] = string.format("%.2g", err / size)
      t.truthy(err / size < previous, model .. ": the error falls with kappa: " .. table.concat(errors, " "))
      previous = err / size
    end
    t.truthy(previous <= 1e-5, model .. ": at kappa 1e-8: " .. table.concat(errors, " "))
  end
end)

-- Three contacts of rank-4 G = J J^T (hyperstatic) whose solution is lambda = 0 (every
-- normal velocity of g is positive). Moving y straight along its Newton step crossed the
-- velocity cone's curved side wherever a sliding velocity turned: the iterates went to a
-- pressing, sliding third contact and stalled there at criterion 0.2 in 15 iterations. With
-- y_N = ||y_T|| + u and u stepped linearly (docs/contact_ip.md), ncp:ip meets tol.
t.case("ncp:ip finds the separating answer of a hyperstatic problem", function()
  local J = {
    {0.44554914064196682, 1.1579597437429503, -0.16313885295186659, -0.37260726232404473},
    {-0.75403844875134629, 0.030063698555604989, -0.77137513958278348, -0.47022809488075817},
    {-0.88839249612434312, 0.75105362534274667, 1.44904905059893, -0.46768371956541649},
    {0.22545528043837224, -1.6074872962687667, -0.26751258089233054, 0.30880506878435299},
    {0.26985776512522308, 0.1475933071591651, -0.49022505474016842, -0.22339339639296721},
    {-1.4589456145319055, 1.2165893468203945, 0.17685508544537931, -0.27611432448122369},
    {-0.52504066385830483, -0.54595859047676909, 0.52866714917202207, -1.7815584745618371},
    {0.87463175110655422, 1.4114203331481048, -1.00606413876778, -0.030862082936416974},
    {0.058637113944256025, -0.29217897337810605, 0.43351967230865873, -0.048607834763592983},
  }
  local g = {-0.47042512720463942, 0.71260135618054754, 1.5626263264910394, -1.5250000830972521, 0.31675203116041056, 0.42433667333973596, 1.5395399413633104, -1.8807268812453419, 0.41111046987470745}
  local G = {}
  for i = 1, #J do
    G[i] = {}
    for j = 1, #J do
      G[i][j] = 0
      for l = 1, #J[1] do G[i][j] = G[i][j] + J[i][l] * J[j][l] end
    end
  end
  local mu = {0.5, 0.5, 0.5}
  for i = 1, 3 do t.truthy(g[3 * i] > 0, "contact " .. i .. " separates at lambda = 0") end
  local s = solve(lucid.mat(G), g, mu, {model = "ncp", tol = 1e-8})
  t.truthy(s.converged, "ncp:ip met tol, criterion " .. s.model_residual.abs)
  for k = 1, 9 do t.near(s.lambda[k], 0, 1e-8) end
end)
