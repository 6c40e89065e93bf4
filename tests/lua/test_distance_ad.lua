-- lucid.distance as a differentiable primitive: distance, p1, p2 and normal of a query whose
-- pose is a lucid.ad pose, with derivatives by opts.derivatives.method.
local t = require "testing"
local lucid = require "lucid"

local se3 = lucid.se3

-- Tight query tolerances so that central differences of the query resolve the derivative.
local tight = {tol = 1e-20, max_iter = 1000, epa_tol = 1e-14}

local function opts(derivatives)
  local o = {derivatives = derivatives}
  for k, v in pairs(tight) do o[k] = v end
  return o
end

local e1 = lucid.ellipsoid(0.3, 0.2, 0.15)
local e2 = lucid.ellipsoid(0.1, 0.25, 0.2)
local T1 = se3.exp({0.1, 0.2, 0.05, 0.3, -0.2, 0.4})
local cases = {
  separated = T1 * se3.exp({0.7, 0.1, -0.05, 0.2, 0.5, -0.3}),
  penetrating = T1 * se3.exp({0.3, 0.05, 0.02, -0.4, 0.1, 0.6}),
}

-- The query's outputs as one 10-vector: distance, p1, p2, normal.
local function outputs(r)
  local y = {r.distance}
  for _, f in ipairs({"p1", "p2", "normal"}) do
    for i = 1, 3 do y[#y + 1] = r[f][i] end
  end
  return y
end

-- pose(x) for a numeric twist x: which = 1 moves T1 (T1 exp(x)), 2 moves T2.
local function query(which, Ta, Tb, x)
  local A, B = Ta, Tb
  if which == 1 then A = Ta * se3.exp(x) else B = Tb * se3.exp(x) end
  return lucid.distance(e1, A, e2, B, tight)
end

local function central_differences(which, Ta, Tb, h)
  local J = lucid.zeros(10, 6)
  for j = 1, 6 do
    local xp, xm = {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}
    xp[j], xm[j] = h, -h
    local yp, ym = outputs(query(which, Ta, Tb, xp)), outputs(query(which, Ta, Tb, xm))
    for i = 1, 10 do J:set(i, j, (yp[i] - ym[i]) / (2 * h)) end
  end
  return J
end

local function ad_jacobian(which, Ta, Tb, derivatives, mode)
  return lucid.ad.jacobian(function(x)
    local A, B = Ta, Tb
    if which == 1 then A = Ta * se3.exp(x) else B = Tb * se3.exp(x) end
    local r = lucid.distance(e1, A, e2, B, opts(derivatives))
    return lucid.ad.concat{r.distance, r.p1, r.p2, r.normal}
  end, lucid.zeros(6), {mode = mode})
end

local function rel_error(A, B)
  local e, s = 0, 0
  for i = 1, A:rows() do
    for j = 1, A:cols() do
      e = math.max(e, math.abs(A:get(i, j) - B:get(i, j)))
      s = math.max(s, math.abs(B:get(i, j)))
    end
  end
  return e / s
end

-- The derivatives of lucid.distance_derivatives (w.r.t. T2 exp(x)) as one 10 x 6 matrix.
local function reference(s1, Ta, s2, Tb, o)
  local d = lucid.distance_derivatives(s1, Ta, s2, Tb, o)
  local J = lucid.zeros(10, 6)
  for j = 1, 6 do
    J:set(1, j, d.ddistance:get(1, j))
    for i = 1, 3 do
      J:set(1 + i, j, d.dp1:get(i, j))
      J:set(4 + i, j, d.dp2:get(i, j))
      J:set(7 + i, j, d.dnormal:get(i, j))
    end
  end
  return J
end

-- The same rows with the roles of the shapes swapped: p1 <-> p2, normal -> -normal.
local function swap_roles(J)
  local S = lucid.zeros(10, 6)
  for j = 1, 6 do
    S:set(1, j, J:get(1, j))
    for i = 1, 3 do
      S:set(1 + i, j, J:get(4 + i, j))
      S:set(4 + i, j, J:get(1 + i, j))
      S:set(7 + i, j, -J:get(7 + i, j))
    end
  end
  return S
end

local analytic = {method = "analytic"}
for k, v in pairs(tight) do analytic[k] = v end

for name, T2 in pairs(cases) do
  for which = 1, 2 do
    t.case(string.format("analytic AD Jacobian w.r.t. T%d exp(x) equals central differences (%s)",
                         which, name), function()
      local value, J = ad_jacobian(which, T1, T2, {method = "analytic"}, "forward")
      local plain = outputs(lucid.distance(e1, T1, e2, T2, tight))
      t.allnear(value, plain, 1e-15, "the value is the plain query's")
      t.truthy((name == "penetrating") == (plain[1] < 0), "case geometry")
      -- h = 1e-3: the witness points are accurate to ~1e-9 (GJK/EPA on curved shapes), so a
      -- smaller step is dominated by query noise; the O(h^2) error is ~1e-6 relative.
      local F = central_differences(which, T1, T2, 1e-3)
      t.truthy(rel_error(J, F) < 1e-4,
               string.format("relative error %.3g against central differences", rel_error(J, F)))
      -- exact references: T2 is lucid.distance_derivatives itself; T1 is the same analytic
      -- derivative with the shapes' roles swapped (T1 then is the second pose), an
      -- independent route to what the invariance formula computes
      local R = which == 2 and reference(e1, T1, e2, T2, analytic)
                or swap_roles(reference(e2, T2, e1, T1, analytic))
      t.truthy(rel_error(J, R) < 1e-6,
               string.format("relative error %.3g against the analytic reference", rel_error(J, R)))
    end)
  end
end

t.case("forward and reverse modes agree (both poses differentiable)", function()
  local function f(x)
    local A = T1 * se3.exp(x:slice(1, 6))
    local B = cases.separated * se3.exp(x:slice(7, 12))
    local r = lucid.distance(e1, A, e2, B, opts({method = "analytic"}))
    return lucid.ad.concat{r.distance, r.p1, r.p2, r.normal}
  end
  -- the T1 block at 0 (so it is the local-twist derivative), the T2 block away from 0
  local x2 = {0.02, 0.01, -0.01, -0.03, 0.02, 0.04}
  local x0 = lucid.vec{0, 0, 0, 0, 0, 0, table.unpack(x2)}
  local v1, Jf = lucid.ad.jacobian(f, x0, {mode = "forward"})
  local v2, Jr = lucid.ad.jacobian(f, x0, {mode = "reverse"})
  t.allnear(v1, v2, 0, "values")
  t.truthy((Jf - Jr):norm() <= 1e-12 * Jf:norm(), "Jacobians")
  local F = central_differences(1, T1, cases.separated * se3.exp(x2), 1e-3)
  local J1 = lucid.zeros(10, 6)
  for i = 1, 10 do for j = 1, 6 do J1:set(i, j, Jf:get(i, j)) end end
  t.truthy(rel_error(J1, F) < 1e-4, "T1 block against central differences")
end)

t.case("gradient of a cost through the distance in reverse mode equals forward", function()
  local target = lucid.vec{0.3, 0.1, 0.2}
  local function cost(x)
    local r = lucid.distance(e1, T1, e2, cases.separated * se3.exp(x), opts({method = "analytic"}))
    local e = r.p2 - target
    return e:dot(e) + r.distance * r.distance
  end
  local x0 = lucid.vec{0.01, 0.02, -0.01, 0.03, 0.0, -0.02}
  local c, g = lucid.ad.grad(cost, x0)
  local _, J = lucid.ad.jacobian(function(x) return lucid.ad.concat{cost(x)} end, x0,
                                 {mode = "forward"})
  t.truthy(c > 0, "cost")
  for j = 1, 6 do t.near(g[j], J:get(1, j), 1e-12 * g:norm()) end
end)

local meshes = {}
do
  local rng = lucid.rng(7)
  for k = 1, 2 do
    local pts = {}
    for _ = 1, 12 do
      local v = lucid.vec{rng:normal(), rng:normal(), rng:normal()}
      v = v / v:norm()
      pts[#pts + 1] = {0.2 * v[1], 0.15 * v[2], 0.1 * v[3] * k}
    end
    meshes[k] = lucid.convex(pts)
  end
end

local function mesh_jacobian(derivatives)
  return select(2, lucid.ad.jacobian(function(x)
    local r = lucid.distance(meshes[1], T1, meshes[2], cases.separated * se3.exp(x),
                             {derivatives = derivatives})
    return lucid.ad.concat{r.distance, r.p1, r.p2, r.normal}
  end, lucid.zeros(6)))
end

t.case("smoothed methods are deterministic for a fixed seed and match lucid.distance_derivatives",
       function()
  -- noise is in metres at the separation vector: 5e-2 here smooths over a few tenths of a
  -- radian, so the samples reach other vertices of these 12-vertex hulls and the draw matters
  for _, d in ipairs({{method = "first_order_gaussian", samples = 20, noise = 5e-2},
                      {method = "zeroth_order", samples = 50, noise = 1e-2},
                      {method = "first_order_gumbel", levels = 1, noise = 1e-4}}) do
    d.seed = 11
    local A, B = mesh_jacobian(d), mesh_jacobian(d)
    t.truthy((A - B):norm() == 0, d.method .. ": same seed, same bits")
    -- the same estimator on the same draws (the nominal queries may differ in the last bits)
    local R = reference(meshes[1], T1, meshes[2], cases.separated, d)
    t.truthy(rel_error(A, R) < 1e-9, d.method .. ": matches lucid.distance_derivatives")
    if d.method ~= "first_order_gumbel" then
      d.seed = 12
      t.truthy((mesh_jacobian(d) - A):norm() > 0, d.method .. ": another seed, another draw")
    end
  end
end)

t.case("misuse raises clear errors", function()
  local function call(o, s1)
    return lucid.ad.jacobian(function(x)
      return lucid.distance(s1 or e1, T1, e2, cases.separated * se3.exp(x), o).distance
    end, lucid.zeros(6))
  end
  t.raises("lucid.distance: a differentiable pose needs opts.derivatives", call, {})
  t.raises("lucid.distance: a differentiable pose needs opts.derivatives", call, nil)
  t.raises('lucid.distance: derivatives.method must be "finite_differences", "zeroth_order", '
           .. '"first_order_gaussian", "first_order_gumbel" or "analytic" (got bogus)', call,
           {derivatives = {method = "bogus"}})
  t.raises("lucid.distance: unknown option 'derivatives.sample'", call,
           {derivatives = {method = "zeroth_order", sample = 3}})
  t.raises("lucid.distance: derivatives.samples", call,
           {derivatives = {method = "zeroth_order", samples = 0}})
  t.raises("lucid.distance: derivatives.noise", call,
           {derivatives = {method = "zeroth_order", noise = -1}})
  t.raises("lucid.distance: opts.derivatives must be a table", call, {derivatives = "analytic"})
  t.raises("lucid.distance: first_order_gumbel needs meshes", call,
           {derivatives = {method = "first_order_gumbel"}})
  t.raises("lucid.distance: analytic needs smooth curved shapes", call,
           {derivatives = {method = "analytic"}}, lucid.box(0.1, 0.1, 0.1))
  -- the option is validated on plain queries too, and collide does not take it
  t.raises("lucid.distance: derivatives.method must be", lucid.distance, e1, T1, e2,
           cases.separated, {derivatives = {method = "nope"}})
  t.raises("lucid.collide: unknown option 'derivatives'", lucid.collide, e1, T1, e2,
           cases.separated, {derivatives = {}})
  -- a kept result is stale after its evaluation
  local kept
  lucid.ad.jacobian(function(x)
    kept = lucid.distance(e1, T1, e2, cases.separated * se3.exp(x),
                          {derivatives = {method = "analytic"}})
    return kept.distance
  end, lucid.zeros(6))
  t.raises("stale", function() return kept.distance + 1 end)
  local pose
  lucid.ad.jacobian(function(x)
    pose = cases.separated * se3.exp(x)
    return x
  end, lucid.zeros(6))
  t.raises("lucid.distance: stale differentiable pose", lucid.distance, e1, T1, e2, pose,
           {derivatives = {method = "analytic"}})
end)

return t
