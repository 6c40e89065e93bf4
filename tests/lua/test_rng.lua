-- lucid.rng: determinism, ranges, moments, misuse.
local t = require "testing"
local lucid = require "lucid"

local nan, inf = 0 / 0, math.huge

t.case("same seed gives the same stream, different seeds differ", function()
  local a, b, c = lucid.rng(42), lucid.rng(42), lucid.rng(43)
  local differs = false
  for _ = 1, 200 do
    local x, y, z = a:uniform(), b:uniform(), c:uniform()
    t.eq(x, y)
    if x ~= z then differs = true end
    t.eq(a:normal(), b:normal())
    t.eq(a:gumbel(), b:gumbel())
    t.eq(a:integer(-5, 5), b:integer(-5, 5))
  end
  t.truthy(differs, "seed 43 differs from seed 42")
  -- default seed is 0
  t.eq(lucid.rng():uniform(), lucid.rng(0):uniform())
  t.truthy(lucid.rng(1):uniform() ~= lucid.rng(0):uniform())
  -- integral floats are accepted as seeds; the largest integer too
  t.eq(lucid.rng(7.0):uniform(), lucid.rng(7):uniform())
  t.truthy(lucid.rng(math.maxinteger):uniform() >= 0)
end)

t.case("normal stream is frozen (values from this implementation, a regression pin)", function()
  -- The same seed-2024 draws as tests/c/runtime/math/test_rng.c: the binding adds mu + sigma * z.
  local g = lucid.rng(2024)
  t.eq(g:normal(), -0x1.f97295f3f05c6p-4)
  t.eq(g:normal(), 0x1.5944eae161fcap+0)
  t.eq(g:normal(2, 3), 2 + 3 * 0x1.0d9e7443912f9p-2)
end)

t.case("clone continues the identical stream independently", function()
  local a = lucid.rng(5)
  a:normal()            -- mid-stream, after a ziggurat draw: the clone copies the whole state
  local b = a:clone()
  for _ = 1, 50 do t.eq(a:normal(), b:normal()) end
  b:uniform()
  t.truthy(a:uniform() ~= b:uniform(), "streams advance independently")
end)

t.case("uniform ranges and moments", function()
  local g = lucid.rng(1)
  local n, s, s2 = 50000, 0, 0
  for _ = 1, n do
    local u = g:uniform()
    t.truthy(u >= 0 and u < 1)
    s, s2 = s + u, s2 + u * u
  end
  local mean = s / n
  t.near(mean, 0.5, 5 * math.sqrt(1 / 12 / n))
  t.near(s2 / n - mean * mean, 1 / 12, 5 * math.sqrt((1 / 80 - 1 / 144) / n))
  for _ = 1, 1000 do
    local x = g:uniform(-2, 3)
    t.truthy(x >= -2 and x < 3)
  end
  t.eq(g:uniform(4, 4), 4)
end)

t.case("normal and gumbel moments", function()
  local g = lucid.rng(2)
  local n = 50000
  local s, s2, gs, gs2 = 0, 0, 0, 0
  for _ = 1, n do
    local x = g:normal(1.5, 2)
    s, s2 = s + x, s2 + x * x
    local y = g:gumbel()
    gs, gs2 = gs + y, gs2 + y * y
  end
  local mean = s / n
  t.near(mean, 1.5, 5 * 2 / math.sqrt(n))
  t.near(s2 / n - mean * mean, 4, 5 * 4 * math.sqrt(2 / n))
  local gmean, var = gs / n, math.pi ^ 2 / 6
  t.near(gmean, 0.5772156649015329, 5 * math.sqrt(var / n))
  t.near(gs2 / n - gmean * gmean, var, 5 * var * math.sqrt(4.4 / n))
  -- location/scale forms are affine in the same draw
  local a, b = lucid.rng(9), lucid.rng(9)
  t.near(a:gumbel(2, 3), 2 + 3 * b:gumbel(), 1e-15)
  t.near(a:normal(-1, 0.5), -1 + 0.5 * b:normal(), 1e-15)
  t.eq(a:normal(3, 0), 3)
end)

t.case("integer covers its range uniformly", function()
  local g = lucid.rng(3)
  local counts, n = {}, 60000
  for _ = 1, n do
    local k = g:integer(1, 6)
    t.eq(math.type(k), "integer")
    counts[k] = (counts[k] or 0) + 1
  end
  for k = 1, 6 do
    t.near(counts[k], n / 6, 5 * math.sqrt(n / 6 * 5 / 6) / (n / 6))
  end
  t.eq(g:integer(7, 7), 7)
  local k = g:integer(math.mininteger, math.maxinteger)
  t.eq(math.type(k), "integer")
end)

t.case("misuse raises errors naming the function", function()
  t.raises("lucid.rng: seed must be a non-negative integer", lucid.rng, -1)
  t.raises("lucid.rng: seed must be an integer (got 1.5)", lucid.rng, 1.5)
  t.raises("lucid.rng: seed must be an integer (got string)", lucid.rng, "3")
  t.raises("lucid.rng: seed must be an integer", lucid.rng, nan)
  t.raises("lucid.rng: seed must be an integer", lucid.rng, inf)
  local g = lucid.rng(1)
  t.raises("lucid.rng:uniform: argument 1 must be a lucid.rng generator (got number)",
    g.uniform, 5)
  t.raises("lucid.rng:uniform: need a <= b", g.uniform, g, 2, 1)
  t.raises("lucid.rng:uniform: upper bound b must be a number", g.uniform, g, 1)
  t.raises("lucid.rng:uniform: lower bound a must be finite", g.uniform, g, nan, 1)
  t.raises("lucid.rng:uniform: interval [a, b] is too wide", g.uniform, g, -1e308, 1e308)
  t.raises("lucid.rng:normal: sigma must be >= 0", g.normal, g, 0, -1)
  t.raises("lucid.rng:normal: sigma must be finite", g.normal, g, 0, inf)
  t.raises("lucid.rng:normal: mean mu must be a number", g.normal, g, "x")
  t.raises("lucid.rng:gumbel: scale beta must be positive", g.gumbel, g, 0, 0)
  t.raises("lucid.rng:gumbel: argument 1 must be a lucid.rng", g.gumbel, {})
  t.raises("lucid.rng:integer: need lo <= hi", g.integer, g, 3, 2)
  t.raises("lucid.rng:integer: lo must be an integer (got 0.5)", g.integer, g, 0.5, 2)
  t.raises("lucid.rng:integer: hi must be an integer (got no value)", g.integer, g, 1)
  t.raises("lucid.rng:clone: argument 1 must be a lucid.rng", g.clone, nil)
  t.truthy(tostring(g):find("lucid.rng", 1, true))
end)
