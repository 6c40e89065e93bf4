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
  t.raises(F .. "unknown method 'newton'", D, s, I, s, T2, {method = "newton"})
  t.raises(F .. "method must be a string", D, s, I, s, T2, {method = 3})
  t.raises(F .. "samples", D, s, I, s, T2, {method = "zeroth_order", samples = 0})
  t.raises(F .. "samples", D, s, I, s, T2, {method = "first_order_gaussian", samples = -3})
  t.raises(F .. "noise must be positive", D, s, I, s, T2, {method = "zeroth_order", noise = 0})
  t.raises(F .. "noise must be positive", D, s, I, s, T2, {noise = -1})
  t.raises(F .. "noise must be finite", D, s, I, s, T2, {noise = 0 / 0})
  t.raises(F .. "step must be positive", D, s, I, s, T2, {step = 0})
  t.raises(F .. "levels", D, s, I, s, T2, {method = "first_order_gumbel", levels = -1})
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
