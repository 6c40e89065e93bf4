-- lucid.vec / lucid.mat: construction, access, arithmetic, LAPACK-backed methods, misuse.
local t = require "testing"
local lucid = require "lucid"

local nan, inf = 0 / 0, math.huge

-- Lua-side reference product of two tables of rows.
local function matmul_rows(a, b)
  local c = {}
  for i = 1, #a do
    c[i] = {}
    for j = 1, #b[1] do
      local s = 0
      for k = 1, #b do s = s + a[i][k] * b[k][j] end
      c[i][j] = s
    end
  end
  return c
end

-- A matrix holding a NaN (constructors refuse NaN, so produce one by arithmetic overflow).
local function with_nan(m)
  local big = lucid.zeros(m:rows(), m:cols())
  big:set(1, 1, 1e308)
  local inf_m = big * 10          -- (1,1) = Inf
  return m + (inf_m - inf_m)      -- Inf - Inf = NaN at (1,1)
end

t.case("vec construction, length, indexing and totable", function()
  local v = lucid.vec{1, -2.5, 3}
  t.eq(#v, 3)
  t.eq(v[1], 1); t.eq(v[2], -2.5); t.eq(v[3], 3)
  v[2] = 7
  t.eq(v[2], 7)
  t.allnear(v:totable(), {1, 7, 3}, 0)
  t.eq(v:rows(), 3); t.eq(v:cols(), 1)
  local r, c = v:size()
  t.eq(r, 3); t.eq(c, 1)
  t.eq(#lucid.vec{}, 0)
  t.allnear(lucid.vec(lucid.mat{{4, 5, 6}}), {4, 5, 6}, 0)
end)

t.case("mat construction, get/set, totable (list of rows), # is the row count", function()
  local m = lucid.mat{{1, 2, 3}, {4, 5, 6}}
  t.eq(m:rows(), 2); t.eq(m:cols(), 3); t.eq(#m, 2)
  t.eq(m:get(2, 1), 4); t.eq(m:get(1, 3), 3)
  t.eq(m:set(2, 3, -1), m, "set returns the matrix")
  t.eq(m:get(2, 3), -1)
  local rows = m:totable()
  t.eq(#rows, 2); t.eq(#rows[1], 3)
  t.allnear(rows, {{1, 2, 3}, {4, 5, -1}}, 0)
  local e = lucid.mat{}
  t.eq(e:rows(), 0); t.eq(e:cols(), 0); t.eq(#e:totable(), 0)
end)

t.case("zeros, eye, copy and transpose", function()
  local z = lucid.zeros(4)
  t.eq(#z, 4); t.allnear(z, {0, 0, 0, 0}, 0)
  local zm = lucid.zeros(2, 3)
  t.eq(zm:rows(), 2); t.eq(zm:cols(), 3); t.allnear(zm, {{0, 0, 0}, {0, 0, 0}}, 0)
  t.eq(#lucid.zeros(0), 0)
  local z0 = lucid.zeros(0, 0)
  t.eq(z0:rows(), 0); t.eq(z0:cols(), 0)
  t.allnear(lucid.eye(3), {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 0)
  local m = lucid.mat{{1, 2}, {3, 4}}
  local c = m:copy()
  c:set(1, 1, 9)
  t.eq(m:get(1, 1), 1, "copy is independent")
  t.allnear(m:T(), {{1, 3}, {2, 4}}, 0)
  local vt = lucid.vec{1, 2, 3}:T()
  t.eq(vt:rows(), 1); t.eq(vt:cols(), 3)
  t.allnear(vt, {{1, 2, 3}}, 0)
end)

t.case("arithmetic: + - * unary minus against hand-computed results", function()
  local a = lucid.mat{{1, 2}, {3, 4}, {5, 6}}
  local b = lucid.mat{{7, 8, 9}, {10, 11, 12}}
  t.allnear(a * b, matmul_rows(a:totable(), b:totable()), 1e-15)
  local v = lucid.vec{1, -1}
  local av = a * v
  t.eq(#av, 3, "mat * vec is a vec")
  t.allnear(av, {-1, -1, -1}, 0)
  t.allnear(2 * a, {{2, 4}, {6, 8}, {10, 12}}, 0)
  t.allnear(a * 0.5, {{0.5, 1}, {1.5, 2}, {2.5, 3}}, 0)
  t.allnear(a + a, 2 * a, 0)
  t.allnear(a - a, lucid.zeros(3, 2), 0)
  t.allnear(-v, {-1, 1}, 0)
  t.allnear(lucid.vec{1, 2} + lucid.vec{3, 4}, {4, 6}, 0)
  -- outer product through the 1 x n transpose
  t.allnear(lucid.vec{1, 2} * lucid.vec{3, 4}:T(), {{3, 4}, {6, 8}}, 0)
  t.truthy(lucid.vec{1, 2} == lucid.vec{1, 2})
  t.truthy(lucid.vec{1, 2} ~= lucid.vec{1, 3})
end)

t.case("large products (BLAS path) match the reference loops", function()
  local n = 24
  local ra, rb = {}, {}
  for i = 1, n do
    ra[i], rb[i] = {}, {}
    for j = 1, n do
      ra[i][j] = math.sin(i * 3 + j)
      rb[i][j] = math.cos(i - 2 * j)
    end
  end
  local a, b = lucid.mat(ra), lucid.mat(rb)
  t.allnear(a * b, matmul_rows(ra, rb), 1e-13)
  local x = lucid.zeros(n)
  for i = 1, n do x[i] = i / n end
  local ax = a * x
  for i = 1, n do
    local s = 0
    for j = 1, n do s = s + ra[i][j] * j / n end
    t.near(ax[i], s, 1e-13)
  end
end)

t.case("dot and norm", function()
  t.eq(lucid.vec{1, 2, 3}:dot(lucid.vec{4, -5, 6}), 12)
  t.near(lucid.vec{3, 4}:norm(), 5, 1e-15)
  t.near(lucid.mat{{1, 2}, {3, 4}}:norm(), math.sqrt(30), 1e-15)
  t.near(lucid.vec{3e200, 4e200}:norm(), 5e200, 1e-15, "no overflow")
  t.eq(lucid.zeros(0):norm(), 0)
end)

t.case("tostring shows kind and entries", function()
  t.eq(tostring(lucid.vec{1, 2.5}), "lucid.vec{1, 2.5}")
  t.eq(tostring(lucid.mat{{1, 2}, {3, 4}}), "lucid.mat{{1, 2}, {3, 4}}")
end)

t.case("misuse of constructors raises named errors", function()
  t.raises("lucid.vec: argument must be a table", lucid.vec, 3)
  t.raises("lucid.vec: entry 2 must be a number", lucid.vec, {1, "x"})
  t.raises("lucid.vec: entry 1 must be finite", lucid.vec, {nan})
  t.raises("lucid.vec: entry 1 must be finite", lucid.vec, {inf})
  t.raises("lucid.mat: argument must be a table of rows", lucid.mat, "x")
  t.raises("lucid.mat: row 1 must be a table", lucid.mat, {1, 2})
  t.raises("lucid.mat: row 2 has 1 entries", lucid.mat, {{1, 2}, {3}})
  t.raises("lucid.mat: entry (2, 1) must be finite", lucid.mat, {{1}, {-inf}})
  t.raises("lucid.zeros: n must be an integer", lucid.zeros, "a")
  t.raises("lucid.zeros: n = -1 is out of range", lucid.zeros, -1)
  t.raises("lucid.zeros: m = -2 is out of range", lucid.zeros, 2, -2)
  t.raises("lucid.zeros: too many entries", lucid.zeros, 1 << 20, 1 << 20)
  t.raises("lucid.eye: n must be an integer", lucid.eye, 1.5)
end)

t.case("misuse of access raises named errors", function()
  local v = lucid.vec{1, 2, 3}
  local m = lucid.mat{{1, 2}, {3, 4}}
  t.raises("lucid.vec[i]: index 4 is out of range [1, 3]", function() return v[4] end)
  t.raises("lucid.vec[i]: index 0 is out of range", function() return v[0] end)
  t.raises("lucid.vec[i]: index must be an integer", function() return v[1.5] end)
  t.raises("lucid.vec[i]: index 9 is out of range", function() v[9] = 1 end)
  t.raises("lucid.vec[i]: value must be finite", function() v[1] = nan end)
  t.raises("lucid.vec[i]: value must be finite", function() v[1] = -inf end)
  t.raises("lucid.vec[i]: value must be a number", function() v[1] = "x" end)
  t.raises("lucid.mat: cannot assign field 'foo'", function() v.foo = 1 end)
  t.raises("lucid.mat[i]: a matrix is indexed with m:get(i, j)", function() return m[1] end)
  t.raises("lucid.mat[i]: a matrix is assigned with m:set(i, j, x)", function() m[1] = 2 end)
  t.raises("lucid.mat:get: row 3 is out of range [1, 2]", m.get, m, 3, 1)
  t.raises("lucid.mat:get: column 0 is out of range [1, 2]", m.get, m, 1, 0)
  t.raises("lucid.mat:get: column must be an integer (got no value)", m.get, m, 1)
  t.raises("lucid.mat:set: value must be finite", m.set, m, 1, 1, nan)
  t.raises("lucid.mat:set: row 5 is out of range", m.set, m, 5, 1, 0)
  t.raises("lucid.mat:rows: self must be a lucid matrix (got number)", m.rows, 1)
  t.raises("lucid.mat:totable: self must be a lucid matrix", m.totable, {})
  t.raises("lucid.mat:get: row 1 is out of range [1, 0]", lucid.zeros(0, 0).get, lucid.zeros(0, 0), 1, 1)
  t.eq(v:get(2), 2, "a vector's column may be omitted")
end)

t.case("misuse of operators names the operator and the shapes", function()
  local a = lucid.mat{{1, 2}, {3, 4}}
  local v3 = lucid.vec{1, 2, 3}
  t.raises("lucid.mat.__add (+): shape mismatch (2 x 2 and 3 x 1)", function() return a + v3 end)
  t.raises("lucid.mat.__sub (-): shape mismatch", function() return v3 - lucid.vec{1} end)
  t.raises("lucid.mat.__add (+): cannot combine a number", function() return 1 + a end)
  t.raises("lucid.mat.__mul (*): shape mismatch (2 x 2 times 3 x 1)", function() return a * v3 end)
  t.raises("lucid.mat.__mul (*): shape mismatch (3 x 1 times 3 x 1)", function() return v3 * v3 end)
  t.raises("lucid.mat.__mul (*): cannot multiply a lucid matrix by a string", function() return a * "2" end)
  t.raises("lucid.mat:dot: shapes differ", v3.dot, v3, lucid.vec{1, 2})
  t.raises("lucid.mat:dot: argument must be a lucid matrix (got table)", v3.dot, v3, {1, 2, 3})
end)
