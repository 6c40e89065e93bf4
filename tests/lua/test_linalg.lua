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
  -- issue 37: matrices printed on one line; now one row per line, columns aligned, and the
  -- text is still a constructor that rebuilds the matrix
  t.eq(tostring(lucid.mat{{1, 2}, {3, 4}}), "lucid.mat{{1, 2},\n          {3, 4}}")
  local M = lucid.mat{{1, -2.5, 3}, {10, 0.125, -3e-20}}
  t.eq(tostring(M), "lucid.mat{{ 1,  -2.5,      3},\n          {10, 0.125, -3e-20}}")
  local back = assert(load("local lucid = require 'lucid'; return " .. tostring(M)))()
  t.eq((back - M):norm(), 0)
  t.eq(tostring(lucid.mat{{1, 2}}), "lucid.mat{{1, 2}}")
  t.eq(tostring(lucid.mat{}), "lucid.mat{}")
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
  t.raises("lucid.vec[i]: cannot assign field 'foo'", function() v.foo = 1 end)
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

-- ---- LAPACK-backed methods ------------------------------------------------------------

-- Max |entry| of a matrix/vector.
local function maxabs(m)
  local best = 0
  for _, row in ipairs(m:totable()) do
    if type(row) == "table" then
      for _, x in ipairs(row) do best = math.max(best, math.abs(x)) end
    else
      best = math.max(best, math.abs(row))
    end
  end
  return best
end

-- A well-conditioned, non-symmetric test matrix with deterministic entries.
local function general(n, m, seed)
  local a = lucid.zeros(n, m or n)
  for i = 1, n do
    for j = 1, m or n do a:set(i, j, math.sin(seed * (i + 7 * j) + 0.3 * i * j)) end
  end
  return a
end

-- The rotation by angle t in the (p, q) plane of R^n: an orthogonal matrix.
local function givens(n, p, q, t)
  local g = lucid.eye(n)
  g:set(p, p, math.cos(t)); g:set(q, q, math.cos(t))
  g:set(p, q, -math.sin(t)); g:set(q, p, math.sin(t))
  return g
end

local function diag(values)
  local d = lucid.zeros(#values, #values)
  for i, x in ipairs(values) do d:set(i, i, x) end
  return d
end

local function orthonormal_columns(q, tol)
  t.allnear(q:T() * q, lucid.eye(q:cols()), tol, "Q^T Q = I")
end

-- Overflow turns 1e308 into Inf; Inf - Inf is NaN.
local function with_entry(m, kind)
  local big = lucid.zeros(m:rows(), m:cols())
  big:set(1, 1, 1e308)
  local infs = big * 10
  return m + (kind == "nan" and (infs - infs) or infs)
end

t.case("solve recovers a known solution (vector, matrix and table right-hand sides)", function()
  local a = general(5, 5, 0.8) + 3 * lucid.eye(5)
  local x0 = lucid.vec{1, -2, 0.5, 3, -1}
  local x = a:solve(a * x0)
  t.eq(#x, 5); t.truthy(x:cols() == 1)
  t.allnear(x, x0, 1e-13)
  local X0 = general(5, 2, 1.7)
  local X = a:solve(a * X0)
  t.eq(X:rows(), 5); t.eq(X:cols(), 2)
  t.allnear(X, X0, 1e-13)
  t.allnear(lucid.mat{{2, 0}, {0, 4}}:solve({2, 2}), {1, 0.5}, 1e-15)
  -- a zero leading pivot needs row exchanges
  t.allnear(lucid.mat{{0, 1}, {1, 0}}:solve(lucid.vec{3, 4}), {4, 3}, 0)
end)

t.case("inv: orthogonal inverse is the transpose, A inv(A) = I", function()
  local q = givens(4, 1, 3, 0.7) * givens(4, 2, 4, -1.1) * givens(4, 1, 2, 0.3)
  t.allnear(q:inv(), q:T(), 1e-14)
  local a = general(6, 6, 1.3) + 4 * lucid.eye(6)
  t.allnear(a * a:inv(), lucid.eye(6), 1e-13)
end)

t.case("chol: lower-triangular L with L L^T = A and positive diagonal", function()
  local l0 = lucid.mat{{2, 0, 0}, {1, 3, 0}, {-1, 0.5, 1.5}}
  local a = l0 * l0:T()
  local l = a:chol()
  t.allnear(l, l0, 1e-14, "the positive-diagonal factor is unique")
  for i = 1, 3 do
    for j = i + 1, 3 do t.eq(l:get(i, j), 0, "upper triangle is exactly zero") end
  end
  t.allnear(l * l:T(), a, 1e-14)
end)

t.case("cholsolve solves through the Cholesky factor", function()
  local g = general(4, 4, 2.1)
  local a = g * g:T() + lucid.eye(4)  -- SPD
  local x0 = lucid.vec{0.25, -1, 2, 1}
  t.allnear(a:cholsolve(a * x0), x0, 1e-13)
  local X0 = general(4, 3, 0.6)
  t.allnear(a:cholsolve(a * X0), X0, 1e-13)
  t.allnear(a:cholsolve((a * x0):totable()), x0, 1e-13)
end)

t.case("lstsq: full-rank overdetermined problems satisfy the normal equations", function()
  local a = general(7, 3, 0.9)
  local b = lucid.vec{1, 0, -1, 2, 0.5, 3, -2}
  local x, rank = a:lstsq(b)
  t.eq(rank, 3); t.eq(#x, 3)
  t.truthy(maxabs(a:T() * (a * x - b)) < 1e-13, "A^T (A x - b) = 0")
  local B = general(7, 2, 1.4)
  local X = a:lstsq(B)
  t.eq(X:rows(), 3); t.eq(X:cols(), 2)
  t.truthy(maxabs(a:T() * (a * X - B)) < 1e-13)
end)

t.case("lstsq: rank-deficient matrix gives the pseudo-inverse solution and its rank", function()
  -- A = u c^T has rank 1 and A^+ b = c (u . b) / (|u|^2 |c|^2)
  local u, c = lucid.vec{1, 2, 3, -1}, lucid.vec{2, -1, 0.5}
  local a = u * c:T()
  local b = lucid.vec{0.5, -1, 4, 2}
  local x, rank = a:lstsq(b)
  t.eq(rank, 1)
  t.allnear(x, c * (u:dot(b) / (u:dot(u) * c:dot(c))), 1e-14)
  -- underdetermined full row rank: the minimum-norm solution lies in the row space
  local w = lucid.mat{{1, 1, 1}}
  local xw, rw = w:lstsq(lucid.vec{3})
  t.eq(rw, 1)
  t.allnear(xw, {1, 1, 1}, 1e-14)
  -- a generous rcond drops the small singular value of diag(1, 1e-6)
  local _, r2 = diag{1, 1e-6}:lstsq(lucid.vec{1, 1})
  t.eq(r2, 2)
  local xd, r1 = diag{1, 1e-6}:lstsq(lucid.vec{1, 1}, 1e-3)
  t.eq(r1, 1)
  t.allnear(xd, {1, 0}, 1e-15)
end)

t.case("eigh: ascending eigenvalues, orthonormal eigenvectors, reconstruction", function()
  local q = givens(4, 1, 2, 0.4) * givens(4, 2, 3, 1.2) * givens(4, 3, 4, -0.8)
  local a = q * diag{3, -2, 0.5, 7} * q:T()
  a = 0.5 * (a + a:T())  -- exactly symmetric
  local w, v = a:eigh()
  t.eq(#w, 4); t.eq(v:rows(), 4); t.eq(v:cols(), 4)
  t.allnear(w, {-2, 0.5, 3, 7}, 1e-13)
  orthonormal_columns(v, 1e-13)
  t.allnear(v * diag(w:totable()) * v:T(), a, 1e-13)
  for k = 1, 4 do  -- each column is an eigenvector
    local vk = lucid.vec{v:get(1, k), v:get(2, k), v:get(3, k), v:get(4, k)}
    t.allnear(a * vk, w[k] * vk, 1e-13)
  end
end)

t.case("svd: thin factors of tall and wide matrices reconstruct A", function()
  for _, shape in ipairs{{6, 3}, {3, 5}, {4, 4}} do
    local m, n = shape[1], shape[2]
    local a = general(m, n, 1.9)
    local u, s, v = a:svd()
    local k = math.min(m, n)
    t.eq(u:rows(), m); t.eq(u:cols(), k); t.eq(#s, k); t.eq(v:rows(), n); t.eq(v:cols(), k)
    for i = 1, k - 1 do t.truthy(s[i] >= s[i + 1], "descending") end
    t.truthy(s[k] >= 0)
    orthonormal_columns(u, 1e-13)
    orthonormal_columns(v, 1e-13)
    t.allnear(u * diag(s:totable()) * v:T(), a, 1e-13)
  end
  -- known singular values: Q1 diag(5, 2) Q2^T
  local q1, q2 = givens(2, 1, 2, 0.3), givens(2, 1, 2, -1.0)
  local _, s = (q1 * diag{2, 5} * q2:T()):svd()
  t.allnear(s, {5, 2}, 1e-14)
end)

t.case("set_num_threads: default is one thread, settable, validated", function()
  t.eq(lucid.get_num_threads(), 1)
  lucid.set_num_threads(2)
  t.eq(lucid.get_num_threads(), 2)
  lucid.set_num_threads(1)
  t.eq(lucid.get_num_threads(), 1)
  t.raises("lucid.set_num_threads: n = 0 is out of range", lucid.set_num_threads, 0)
  t.raises("lucid.set_num_threads: n must be an integer", lucid.set_num_threads, "two")
end)

-- Each of these errors fires after temporaries exist (copies of A and b); the sanitizer
-- build checks that none of them leaks.
t.case("decomposition errors: singular, not SPD, not symmetric", function()
  local singular = lucid.mat{{1, 2}, {2, 4}}
  t.raises("lucid.mat:solve: matrix is singular", singular.solve, singular, lucid.vec{1, 2})
  t.raises("lucid.mat:inv: matrix is singular", singular.inv, singular)
  -- numerically singular: last column = 0.1 col 1 + 0.7 col 2 (not an exact zero pivot)
  local near = general(4, 4, 1.0)
  for i = 1, 4 do near:set(i, 4, 0.1 * near:get(i, 1) + 0.7 * near:get(i, 2)) end
  t.raises("lucid.mat:solve: matrix is singular", near.solve, near, lucid.vec{1, 2, 3, 4})
  t.raises("lucid.mat:inv: matrix is singular", near.inv, near)
  local indefinite = lucid.mat{{1, 2}, {2, 1}}
  t.raises("lucid.mat:chol: matrix is not symmetric positive definite", indefinite.chol, indefinite)
  t.raises("lucid.mat:cholsolve: matrix is not symmetric positive definite",
    indefinite.cholsolve, indefinite, lucid.vec{1, 1})
  local skew = lucid.mat{{1, 2}, {2 + 1e-6, 5}}
  t.raises("lucid.mat:chol: matrix is not symmetric", skew.chol, skew)
  t.raises("lucid.mat:cholsolve: matrix is not symmetric", skew.cholsolve, skew, {1, 1})
  t.raises("lucid.mat:eigh: matrix is not symmetric (to a relative 1e-10)", skew.eigh, skew)
  -- within the relative tolerance is accepted
  local w = lucid.mat{{1e6, 1}, {1 + 1e-6, 1e6}}:eigh()
  t.eq(#w, 2)
end)

t.case("decomposition errors: empty, non-square, NaN/Inf, bad right-hand sides", function()
  local empty = lucid.mat{}
  for _, name in ipairs{"solve", "inv", "chol", "cholsolve", "lstsq", "eigh", "svd"} do
    t.raises("lucid.mat:" .. name .. ": matrix is empty", empty[name], empty, lucid.vec{})
    t.raises("lucid.mat:" .. name .. ": matrix is empty", empty[name], lucid.zeros(3, 0),
      lucid.vec{1, 2, 3})
    t.raises("lucid.mat:" .. name .. ": self must be a lucid matrix (got number)", empty[name], 5)
    local a = lucid.mat{{2, 1}, {1, 2}}
    t.raises("lucid.mat:" .. name .. ": matrix must be finite (has NaN or Inf)", a[name],
      with_entry(a, "nan"), lucid.vec{1, 1})
    t.raises("lucid.mat:" .. name .. ": matrix must be finite (has NaN or Inf)", a[name],
      with_entry(a, "inf"), lucid.vec{1, 1})
  end
  local rect = lucid.zeros(2, 3)
  for _, name in ipairs{"solve", "inv", "chol", "cholsolve", "eigh"} do
    t.raises("lucid.mat:" .. name .. ": matrix must be square (got 2 x 3)", rect[name], rect,
      lucid.vec{1, 1})
  end
  local a = lucid.mat{{2, 1}, {1, 2}}
  for _, name in ipairs{"solve", "cholsolve", "lstsq"} do
    local f = a[name]
    t.raises("lucid.mat:" .. name .. ": b has 3 rows, the matrix has 2", f, a, lucid.vec{1, 2, 3})
    t.raises("lucid.mat:" .. name .. ": b must have 2 entries (got 1)", f, a, {1})
    t.raises("lucid.mat:" .. name .. ": b[2] must be a number", f, a, {1, "x"})
    t.raises("lucid.mat:" .. name .. ": b must be finite", f, a, {1, nan})
    t.raises("lucid.mat:" .. name .. ": b must be finite", f, a, with_entry(lucid.vec{1, 1}, "inf"))
    t.raises("lucid.mat:" .. name .. ": b must be a lucid.vec, lucid.mat or table (got string)",
      f, a, "b")
    t.raises("lucid.mat:" .. name .. ": b must be a lucid.vec, lucid.mat or table (got no value)",
      f, a)
    t.raises("lucid.mat:" .. name .. ": b is empty (2 x 0)", f, a, lucid.zeros(2, 0))
  end
  t.raises("lucid.mat:lstsq: rcond must be a number", a.lstsq, a, lucid.vec{1, 1}, "x")
  t.raises("lucid.mat:lstsq: rcond must be in [0, 1)", a.lstsq, a, lucid.vec{1, 1}, -1)
  t.raises("lucid.mat:lstsq: rcond must be finite", a.lstsq, a, lucid.vec{1, 1}, nan)
end)

t.case("many failing calls in a row leave the state usable", function()
  local singular = lucid.mat{{1, 1}, {1, 1}}
  for _ = 1, 50 do
    t.raises("matrix is singular", singular.solve, singular, lucid.vec{1, 2})
    t.raises("not symmetric positive definite", singular.chol, lucid.mat{{0, 0}, {0, 0}})
  end
  collectgarbage()
  t.allnear(lucid.mat{{2, 0}, {0, 2}}:solve(lucid.vec{2, 4}), {1, 2}, 0)
end)

t.case("division by a scalar, and metamethods called directly on other values", function()
  t.allnear(lucid.vec{2, 4} / 2, {1, 2}, 0)
  t.allnear(lucid.mat{{3, 6}} / 3, {{1, 2}}, 0)
  t.raises("lucid.mat.__div (/): only a lucid matrix divided by a number", function()
    return 2 / lucid.vec{1} end)
  t.raises("lucid.mat.__div (/): only a lucid matrix divided by a number", function()
    return lucid.vec{1} / lucid.vec{1} end)
  t.eq(getmetatable(lucid.vec{1}), "lucid.mat", "the metatable is protected")
  local mt = debug.getmetatable(lucid.vec{1})
  t.raises("lucid.mat.__unm (-): self must be a lucid matrix (got number)", mt.__unm, 1)
  t.raises("lucid.mat.__len (#): self must be a lucid matrix", mt.__len, {})
  t.raises("lucid.mat.__tostring: self must be a lucid matrix", mt.__tostring, "x")
  t.raises("lucid.vec[i]: self must be a lucid matrix", mt.__index, 1, 1)
  t.raises("lucid.vec[i]: self must be a lucid matrix", mt.__newindex, 1, 1, 1)
  t.raises("lucid.mat.__mul (*): one operand must be a lucid matrix", mt.__mul, 1, 2)
  t.raises("lucid.mat.__add (+): cannot combine a number with a number", mt.__add, 1, 2)
  t.eq(mt.__eq(1, 2), false)
end)

t.case("conversions between vectors and matrices, long tostring", function()
  local v = lucid.vec{1, 2, 3}
  local m = lucid.mat(v)
  t.eq(m:rows(), 3); t.eq(m:cols(), 1)
  t.raises("lucid.mat[i]: a matrix is indexed", function() return m[1] end)
  t.truthy(m ~= v, "an n x 1 matrix is not a vector")
  t.allnear(lucid.vec(m), v, 0)
  t.allnear(lucid.vec(v:T()), v, 0)
  t.allnear(m + v, 2 * m, 0)
  t.raises("lucid.vec: argument must be a vector or a 1 x n / n x 1 matrix (got 2 x 2)",
    lucid.vec, lucid.eye(2))
  t.eq(tostring(lucid.zeros(30, 30)), "lucid.mat(30 x 30)")
  t.eq(tostring(lucid.zeros(401)), "lucid.vec(401 entries)")
end)
