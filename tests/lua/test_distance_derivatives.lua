local t = require "testing"
local lucid = require "lucid"

local se3 = lucid.se3
local D = lucid.distance_derivatives

-- Tight query tolerances: the derivatives are evaluated at the query's witness pair.
local tight = {tol = 1e-20, max_iter = 1000, epa_tol = 1e-14}

local function with(base, extra)
  local o = {}
  for k, v in pairs(base) do o[k] = v end
  for k, v in pairs(extra) do o[k] = v end
  return o
end

local function max_abs_diff(A, B)
  local e, s = 0, 0
  for i = 1, A:rows() do
    for j = 1, A:cols() do
      e = math.max(e, math.abs(A:get(i, j) - B:get(i, j)))
      s = math.max(s, math.abs(B:get(i, j)))
    end
  end
  return e / math.max(s, 1e-300)
end

local function worst(a, b)
  return math.max(max_abs_diff(a.dp1, b.dp1), max_abs_diff(a.dp2, b.dp2),
                  max_abs_diff(a.dnormal, b.dnormal), max_abs_diff(a.ddistance, b.ddistance))
end

local T1 = se3.exp({0.1, 0.2, 0.05, 0.3, -0.2, 0.4})

t.case("sphere pair: analytic derivatives equal the closed form", function()
  -- p1 = c1 + r1 n, n = (c2 - c1) / |c2 - c1|; moving T2 by (v, w) moves c2 by R2 v only.
  local r1, r2 = 0.2, 0.15
  for _, x in ipairs({0.5, 0.25}) do -- separated, penetrating
    local T2 = se3.exp({x, 0.2, -0.1, 0.3, -0.4, 0.9})
    local d = D(lucid.sphere(r1), T1, lucid.sphere(r2), T2, with(tight, {method = "analytic"}))
    local c = T2:translation() - T1:translation()
    local len = c:norm()
    local n = c / len
    t.near(d.distance, len - r1 - r2, 1e-12)
    t.eq(d.distance < 0, x < 0.3)
    local R2 = T2:rotation()
    local P = lucid.eye(3) - lucid.mat({{n[1]}, {n[2]}, {n[3]}}) * lucid.mat({{n[1], n[2], n[3]}})
    local dn = P * R2 / len
    for i = 1, 3 do
      for j = 1, 3 do
        t.near(d.dnormal:get(i, j), dn:get(i, j), 1e-10)
        t.near(d.dp1:get(i, j), r1 * dn:get(i, j), 1e-10)
        t.near(d.dp2:get(i, j), R2:get(i, j) - r2 * dn:get(i, j), 1e-10)
        -- rotating the sphere about its centre moves nothing
        t.near(d.dp1:get(i, j + 3), 0, 1e-10)
        t.near(d.dp2:get(i, j + 3), 0, 1e-10)
      end
      local dd = 0
      for k = 1, 3 do dd = dd + n[k] * R2:get(k, i) end
      t.near(d.ddistance:get(1, i), dd, 1e-12)
    end
  end
end)

t.case("result fields have the documented shapes", function()
  local T2 = se3.exp({0.6, 0.3, 0.1, -0.5, 0.7, 0.2})
  local d = D(lucid.ellipsoid(0.3, 0.2, 0.15), T1, lucid.ellipsoid(0.25, 0.1, 0.2), T2)
  for _, k in ipairs({"dp1", "dp2", "dnormal"}) do
    t.eq(d[k]:rows(), 3)
    t.eq(d[k]:cols(), 6)
  end
  t.eq(d.ddistance:rows(), 1)
  t.eq(d.ddistance:cols(), 6)
  t.eq(#d.p1, 3)
  t.near((d.p2 - d.p1):norm(), d.distance, 1e-9)
  t.near(d.normal:norm(), 1, 1e-12)
end)

t.case("ellipsoids: every estimator agrees with the analytic derivative", function()
  local e1, e2 = lucid.ellipsoid(0.3, 0.2, 0.15), lucid.ellipsoid(0.25, 0.1, 0.2)
  for _, x in ipairs({0.6, 0.35}) do
    local T2 = se3.exp({x, 0.3, 0.1, -0.5, 0.7, 0.2})
    local exact = D(e1, T1, e2, T2, with(tight, {method = "analytic"}))
    -- finite differences: query accuracy ~1e-9 over h = 1e-3, plus O(h^2)
    local fd = D(e1, T1, e2, T2, with(tight, {method = "finite_differences", step = 1e-3}))
    t.truthy(worst(fd, exact) < 1e-3, "finite differences " .. worst(fd, exact))
    -- first-order Gaussian with many samples: Monte-Carlo error ~ 0.35 / sqrt(M / 10)
    local g = D(e1, T1, e2, T2,
                with(tight, {method = "first_order_gaussian", samples = 20000, noise = 1e-3}))
    t.truthy(worst(g, exact) < 2e-2, "first_order_gaussian " .. worst(g, exact))
    -- the distance derivative is exact for every first-order estimator (envelope theorem)
    t.allnear(g.ddistance, exact.ddistance, 1e-12)
    local z = D(e1, T1, e2, T2,
                with(tight, {method = "zeroth_order", samples = 3000, noise = 1e-3}))
    t.truthy(worst(z, exact) < 0.2, "zeroth_order " .. worst(z, exact))
  end
end)

t.case("default finite differences match the analytic derivatives on smooth shapes", function()
  -- Regression (issue 16, item 13): the defaults used to be step 1e-6 with lucid.distance's
  -- query tolerances (gap 1e-8 m^2, witness points ~1e-5 m off on curved shapes), and the
  -- query error over 2e-6 made dp1 of two ellipsoids wrong by ~100% (median over pairs).
  -- The defaults now tighten the queries to rounding level and take the step from their
  -- accuracy (h ~ 1.4e-3 here); measured: median 1.5e-5, worst ~1.5e-3 over 200 pairs.
  local rng = lucid.rng(16)
  local function size() return rng:uniform(0.05, 0.3) end
  local caps = {} -- radius and half-length of each capsule
  local makers = {
    ellipsoid = function() return lucid.ellipsoid(size(), size(), size()) end,
    sphere = function() return lucid.sphere(size()) end,
    capsule = function()
      local r, h = 0.5 * size(), size()
      local c = lucid.capsule(r, h)
      caps[c] = {r, h}
      return c
    end,
  }
  -- A capsule's curvature jumps where a cap meets the side: keep witness points on a cap at
  -- least 0.3 r from that circle, so that the steps (~1e-3) stay on one smooth piece.
  local function inside_cap(s, T, p)
    local c = caps[s]
    if not c then return true end
    return math.abs(T:inverse():act(p)[3]) - c[2] > 0.3 * c[1]
  end
  for _, kind in ipairs({"ellipsoid", "sphere", "capsule"}) do
    local errors, separated, penetrating, tries = {}, 0, 0, 0
    while (#errors < 60 or separated < 10 or penetrating < 10) and tries < 5000 do
      tries = tries + 1
      local s1, s2 = makers[kind](), makers[kind]()
      local A = se3.random(rng)
      local u = lucid.vec{rng:normal(), rng:normal(), rng:normal()}
      local B = se3.new(se3.random(rng):rotation(), A:translation() + u / u:norm() *
                        rng:uniform(0.1, 0.8))
      -- the reference: exact support curvature at the witness points of a tight query
      -- (capsules: only where both witness points are on a cap, else analytic refuses)
      local ok, exact = pcall(D, s1, A, s2, B, with(tight, {method = "analytic"}))
      if ok and math.abs(exact.distance) > 1e-3 and inside_cap(s1, A, exact.p1) and
         inside_cap(s2, B, exact.p2) then
        local fd = D(s1, A, s2, B)
        errors[#errors + 1] = worst(fd, exact)
        if exact.distance > 0 then separated = separated + 1 else penetrating = penetrating + 1 end
      end
    end
    table.sort(errors)
    t.truthy(separated >= 10 and penetrating >= 10, kind .. ": both regimes sampled")
    t.truthy(errors[#errors // 2] < 1e-4, string.format("%s: median error %.3g", kind,
                                                        errors[#errors // 2]))
    t.truthy(errors[#errors] < 1e-2, string.format("%s: worst error %.3g", kind, errors[#errors]))
  end
end)

t.case("the query options of lucid.distance are accepted, with the same meaning", function()
  local e1, e2 = lucid.ellipsoid(0.3, 0.2, 0.15), lucid.ellipsoid(0.25, 0.1, 0.2)
  for _, x in ipairs({0.6, 0.35}) do -- separated, penetrating (EPA)
    local T2 = se3.exp({x, 0.3, 0.1, -0.5, 0.7, 0.2})
    local opts = {epa_tol = 0, epa_max_iter = 1024, tol = 1e-18, tol_mode = "absolute",
                  max_iter = 300, algorithm = "nesterov", normalize = true}
    local r = lucid.distance(e1, T1, e2, T2, opts)
    local d = D(e1, T1, e2, T2, with(opts, {method = "analytic"}))
    t.eq(d.distance, r.distance)
    t.allnear(d.p1, r.p1, 0)
    -- a loose tolerance given by the caller is honoured, and the automatic step follows it
    local loose = D(e1, T1, e2, T2, {tol = 1e-8})
    local default = D(e1, T1, e2, T2)
    local exact = D(e1, T1, e2, T2, with(tight, {method = "analytic"}))
    t.truthy(worst(default, exact) < worst(loose, exact), "tighter by default")
    t.truthy(worst(loose, exact) < 0.5, "loose but not meaningless: " .. worst(loose, exact))
  end
  local s = lucid.sphere(0.1)
  local T2 = se3.exp({0.5, 0, 0, 0, 0, 0})
  local F = "lucid.distance_derivatives: "
  t.raises(F .. "epa_tol must be >= 0", D, s, T1, s, T2, {epa_tol = -1})
  t.raises(F .. "epa_max_iter must be an integer in [0, 1024] (got 1025)", D, s, T1, s, T2,
           {epa_max_iter = 1025})
  t.raises(F .. "tol_mode must be", D, s, T1, s, T2, {tol_mode = "loose"})
end)

t.case("random estimators are deterministic given the seed", function()
  local e1, e2 = lucid.ellipsoid(0.3, 0.2, 0.15), lucid.ellipsoid(0.25, 0.1, 0.2)
  local T2 = se3.exp({0.6, 0.3, 0.1, -0.5, 0.7, 0.2})
  for _, m in ipairs({"zeroth_order", "first_order_gaussian"}) do
    local a = D(e1, T1, e2, T2, {method = m, seed = 7})
    local b = D(e1, T1, e2, T2, {method = m, seed = 7})
    local c = D(e1, T1, e2, T2, {method = m, seed = 8})
    t.allnear(a.dp1, b.dp1, 0)
    t.allnear(a.dnormal, b.dnormal, 0)
    t.truthy(max_abs_diff(a.dp1, c.dp1) > 0, m .. ": another seed gives another estimate")
  end
end)

t.case("gumbel on meshes: soft-max curvature where the hard support has none", function()
  -- Octahedra: at a vertex the exact support Hessian is zero, so with eps -> 0 the witness
  -- derivative of shape 1 vanishes; a positive temperature spreads weight to the neighbours.
  local pts = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}
  for _, p in ipairs(pts) do for k = 1, 3 do p[k] = 0.1 * p[k] end end
  local a, b = lucid.convex(pts), lucid.convex(pts)
  local T2 = se3.exp({0.05, 0.03, 0.35, 0, 0, 0})
  local cold = D(a, se3.identity(), b, T2, {method = "first_order_gumbel", noise = 1e-6})
  local warm = D(a, se3.identity(), b, T2, {method = "first_order_gumbel", noise = 0.05})
  t.truthy(cold.dp1:norm() < 1e-12, "hard max: no curvature")
  t.truthy(warm.dp1:norm() > 1e-3, "soft-max: curvature")
  local none = D(a, se3.identity(), b, T2, {method = "first_order_gumbel", noise = 0.05,
                                             levels = 0})
  t.truthy(none.dp1:norm() < 1e-12, "levels = 0 keeps the support vertex only")
end)

t.case("bad input raises errors naming lucid.distance_derivatives", function()
  local s, box = lucid.sphere(0.1), lucid.box(0.1, 0.1, 0.1)
  local T2 = se3.exp({0.5, 0, 0, 0, 0, 0})
  local I = se3.identity()
  local F = "lucid.distance_derivatives: "
  t.raises(F .. "argument 2 (T1) must be a lucid.se3 pose", D, s, {}, s, T2)
  t.raises(F .. "argument 4 (T2) must be a lucid.se3 pose", D, s, I, s, 3)
  t.raises(F .. "argument 1 (s1) must be a lucid shape", D, I, I, s, T2)
  -- the estimator's options follow lucid_derivative_option_table, whatever the method
  local methods = '"finite_differences", "zeroth_order", "first_order_gaussian", '
    .. '"first_order_gumbel" or "analytic"'
  t.raises(F .. "method must be " .. methods .. " (got newton)", D, s, I, s, T2, {method = "newton"})
  t.raises(F .. "method must be " .. methods .. " (got number)", D, s, I, s, T2, {method = 3})
  t.raises(F .. "samples must be an integer >= 1 (got 0)", D, s, I, s, T2,
           {method = "zeroth_order", samples = 0})
  t.raises(F .. "samples must be an integer >= 1 (got -3)", D, s, I, s, T2,
           {method = "first_order_gaussian", samples = -3})
  t.raises(F .. "samples must be an integer >= 1 (got 0)", D, s, I, s, T2, {samples = 0})
  t.raises(F .. "samples must be an integer (got 2.5)", D, s, I, s, T2, {samples = 2.5})
  t.raises(F .. "noise must be > 0 (got 0.0)", D, s, I, s, T2, {method = "zeroth_order", noise = 0})
  t.raises(F .. "noise must be > 0 (got -1.0)", D, s, I, s, T2, {noise = -1})
  t.raises(F .. "noise must be finite", D, s, I, s, T2, {noise = 0 / 0})
  t.raises(F .. "noise must be a number (got string)", D, s, I, s, T2, {noise = "1e-3"})
  t.raises(F .. "step must be > 0 (or 0: automatic, lucid_derivative_auto_step) (got -1.0)", D, s,
           I, s, T2, {step = -1})
  t.raises(F .. "levels must be an integer >= 0 (got -1)", D, s, I, s, T2,
           {method = "first_order_gumbel", levels = -1})
  t.raises(F .. "seed must be an integer (got 0.5)", D, s, I, s, T2, {seed = 0.5})
  -- step 0 is the automatic step, as in C (Lua refused it before)
  t.allnear(D(s, I, s, T2, {step = 0}).ddistance, D(s, I, s, T2).ddistance, 0, "step 0")
  t.raises(F .. "first_order_gumbel needs meshes with vertex adjacency", D, s, I, s, T2,
           {method = "first_order_gumbel"})
  t.raises(F .. "analytic needs smooth curved shapes", D, box, I, s, T2, {method = "analytic"})
  t.raises(F .. "analytic: a support is not smooth at the witness point", D,
           lucid.capsule(0.1, 0.3), I, s, T2, {method = "analytic"})
  t.raises(F .. "first_order_gaussian needs support functions; shape 1 is a halfspace", D,
           lucid.halfspace({0, 0, 1}, 0), I, s, T2, {method = "first_order_gaussian"})
  local touching = se3.exp({0.2, 0, 0, 0, 0, 0}) -- spheres of radius 0.1: distance exactly 0
  t.raises(F .. "first_order_gaussian: the normal's derivative is unbounded at contact", D, s, I,
           s, touching, {method = "first_order_gaussian"})
  t.raises(F .. "unknown option 'sample'", D, s, I, s, T2, {sample = 3})
  t.raises(F .. "opts must be a table", D, s, I, s, T2, "analytic")
end)

return t
