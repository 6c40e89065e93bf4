-- lucid.pscaling from Lua: the two-sphere and sphere-on-plane closed forms, the result fields,
-- the sign of phi against lucid.distance, derivatives against central differences, and the
-- option and argument checks.
local t = require "testing"
local lucid = require "lucid"

local se3 = lucid.se3
local I = se3.identity()

t.case("two spheres: alpha = dist / (r1 + r2), point on the segment, normal along it", function()
  local a, b = lucid.sphere(0.3), lucid.sphere(0.7)
  local T1, T2 = se3.exp({0.1, -0.2, 0.3, 0.4, 0.1, -0.2}), se3.exp({1.3, 0.4, -0.5, 0, 0.3, 1})
  local d = T2:translation() - T1:translation()
  local r = lucid.pscaling(a, T1, b, T2)
  t.near(r.alpha, d:norm() / 1.0, 1e-10)
  t.near(r.phi, r.alpha - 1, 0)
  t.allnear(r.point, T1:translation() + d * 0.3, 1e-9)
  t.allnear(r.normal, d * (1 / d:norm()), 1e-9)
  t.eq(r.converged, true)
  t.truthy(r.residual <= 1e-10, "KKT residual")
  t.eq(math.type(r.iterations), "integer")
  t.eq(r.closed_form, false)
  t.eq(r.dalpha_dT1, nil, "no derivatives unless asked")
end)

t.case("sphere above, on and in the ground", function()
  local ground, ball = lucid.halfspace({0, 0, 1}, 0), lucid.sphere(0.5)
  for _, z in ipairs({1.5, 0.7, 0.25}) do
    local r = lucid.pscaling(ball, se3.new({1, 0, 0, 0}, {0.2, 0.1, z}), ground, I)
    t.near(r.alpha, z / 0.5, 1e-10)
    t.allnear(r.normal, lucid.vec{0, 0, -1}, 1e-10)
    t.eq(r.phi < 0, z < 0.5)
  end
  local r = lucid.pscaling(ball, se3.new({1, 0, 0, 0}, {0, 0, -0.1}), ground, I)
  t.eq(r.closed_form, true)
  t.eq(r.phi, -1)
end)

t.case("phi and the signed distance agree in sign on random poses", function()
  local rng = lucid.rng(5)
  local shapes = {lucid.sphere(0.3), lucid.box(0.3, 0.2, 0.1), lucid.capsule(0.1, 0.3),
                  lucid.cylinder(0.2, 0.25), lucid.cone(0.2, 0.3), lucid.ellipsoid(0.3, 0.2, 0.1),
                  lucid.convex({{0.3, 0, 0}, {-0.2, 0.25, 0}, {-0.2, -0.25, 0}, {0, 0, 0.4}})}
  local checked = 0
  for i = 1, #shapes do
    for j = 1, #shapes do
      for _ = 1, 5 do
        local T1, T2 = se3.random(rng, 0.5), se3.random(rng, 0.5)
        local d = lucid.distance(shapes[i], T1, shapes[j], T2).distance
        if math.abs(d) > 1e-6 then
          local r = lucid.pscaling(shapes[i], T1, shapes[j], T2)
          t.eq(r.phi > 0, d > 0, ("pair %d %d: phi %g, distance %g"):format(i, j, r.phi, d))
          checked = checked + 1
        end
      end
    end
  end
  t.truthy(checked > 200, "enough pairs")
end)

t.case("derivatives: central differences of alpha, point and normal", function()
  local s1, s2 = lucid.box(0.3, 0.2, 0.1), lucid.capsule(0.1, 0.3)
  local T1, T2 = se3.exp({0.1, 0.2, 0.05, 0.3, -0.2, 0.4}), se3.exp({0.5, 0.3, 0.1, -0.5, 0.7, 0.2})
  local r = lucid.pscaling(s1, T1, s2, T2, {derivatives = true})
  t.eq(r.derivatives_defined, true)
  t.eq(#r.dalpha_dT1, 6)
  local h = 1e-5
  for k, T in ipairs({T1, T2}) do
    for j = 1, 6 do
      local xi = {0, 0, 0, 0, 0, 0}
      xi[j] = h
      local P = T * se3.exp(xi)
      xi[j] = -h
      local M = T * se3.exp(xi)
      local rp = k == 1 and lucid.pscaling(s1, P, s2, T2) or lucid.pscaling(s1, T1, s2, P)
      local rm = k == 1 and lucid.pscaling(s1, M, s2, T2) or lucid.pscaling(s1, T1, s2, M)
      local da = k == 1 and r.dalpha_dT1 or r.dalpha_dT2
      local dp = k == 1 and r.dpoint_dT1 or r.dpoint_dT2
      local dn = k == 1 and r.dnormal_dT1 or r.dnormal_dT2
      t.near(da[j], (rp.alpha - rm.alpha) / (2 * h), 1e-6)
      for i = 1, 3 do
        t.near(dp:get(i, j), (rp.point[i] - rm.point[i]) / (2 * h), 1e-6)
        t.near(dn:get(i, j), (rp.normal[i] - rm.normal[i]) / (2 * h), 1e-6)
      end
    end
  end
end)

t.case("a box resting on the ground: derivatives undefined, the point below its centre", function()
  local box, ground = lucid.box(0.5, 0.3, 0.2), lucid.halfspace({0, 0, 1}, 0)
  local T = se3.new(lucid.so3.exp({0, 0, 0.7}), {0.4, -0.3, 0.2})
  local r = lucid.pscaling(box, T, ground, I, {derivatives = true})
  t.eq(r.derivatives_defined, false)
  t.eq(r.dpoint_dT1, nil)
  t.near(r.phi, 0, 1e-10)
  t.truthy(math.abs(r.point[1] - 0.4) < 1e-3 and math.abs(r.point[2] + 0.3) < 1e-3,
           "below the centre of mass (docs/single_level.md)")
end)

t.case("misuse: arguments and options", function()
  local s = lucid.sphere(0.2)
  local T = se3.new({1, 0, 0, 0}, {1, 0, 0})
  t.raises("lucid.pscaling: s1 must be a lucid shape", lucid.pscaling, 1, I, s, T)
  t.raises("lucid.pscaling: T2 must be a lucid.se3 pose", lucid.pscaling, s, I, s, {1, 2, 3})
  t.raises("lucid.pscaling: opts must be a table", lucid.pscaling, s, I, s, T, 3)
  -- the reader follows lucid_pscaling_option_table: unknown keys, wrong types and values
  -- outside the table's ranges are errors with its words
  t.raises("lucid.pscaling: unknown option 'tolerance' (expected one of: tol, max_iter, derivatives)",
           lucid.pscaling, s, I, s, T, {tolerance = 1})
  t.raises("lucid.pscaling: tol must be > 0 (got 0.0)", lucid.pscaling, s, I, s, T, {tol = 0})
  t.raises("lucid.pscaling: tol must be a number (got string)", lucid.pscaling, s, I, s, T,
           {tol = "1"})
  t.raises("lucid.pscaling: max_iter must be an integer >= 1 (got 0)", lucid.pscaling, s, I, s, T,
           {max_iter = 0})
  t.raises("lucid.pscaling: max_iter must be an integer (got 2.5)", lucid.pscaling, s, I, s, T,
           {max_iter = 2.5})
  t.raises("lucid.pscaling: derivatives must be a boolean", lucid.pscaling, s, I, s, T,
           {derivatives = 1})
  local g = lucid.halfspace({0, 0, 1}, 0)
  t.raises("lucid.pscaling: s1 and s2 are both halfspaces", lucid.pscaling, g, I, g, I)
  local r = lucid.pscaling(s, I, s, T, {max_iter = 2})
  t.eq(r.converged, false)
end)
