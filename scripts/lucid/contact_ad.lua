-- lucid.contact.primitive: the contact solve as a lucid.ad primitive.
--
--   local P = lucid.contact.primitive(problem [, {wrt = {"g", "mu"}, derivatives = {...}}])
--   local lambda = P(x)   -- x joins the entries named by wrt, in that order (g: 3n, mu: n,
--                         -- R: 3n); the other fields of problem are used as given
--
-- P(x) solves problem (the table lucid.contact.solve takes) with those entries replaced by x
-- and returns lambda; lucid.ad.jacobian, lucid.ad.grad and lucid.optim.gauss_newton see
-- through it: its products are the jvp / vjp of lucid.contact.derivatives at that solution
-- (docs/contact_derivatives.md). The last solution and its factorisation are kept, so a
-- forward pass followed by products at the same x solves once. A solve that does not converge
-- is an error unless derivatives.allow_unconverged is set.
local check = require "lucid.check"
local lucid = require "lucid"

local FNAME = "lucid.contact.primitive"
local SIZES = {g = 3, mu = 1, R = 3} -- entries per contact

return function(problem, opts)
  if type(problem) ~= "table" then
    check.fail(FNAME, "problem must be a table (got %s)", check.typename(problem))
  end
  opts = check.options(FNAME, opts, {wrt = "table", derivatives = "table"}, "opts")
  local wrt = opts.wrt or {"g"}
  if #wrt == 0 then check.fail(FNAME, "opts.wrt must name at least one of g, mu, R") end
  for i, name in ipairs(wrt) do
    if not SIZES[name] then
      check.fail(FNAME, "opts.wrt[%d] must be g, mu or R (got %s)", i, tostring(name))
    end
  end
  if getmetatable(problem.G) ~= "lucid.mat" then
    check.fail(FNAME, "problem.G must be a lucid.mat (got %s)", check.typename(problem.G))
  end
  local n = problem.G:rows() // 3
  local dopts = {dense = false}
  for k, v in pairs(opts.derivatives or {}) do dopts[k] = v end
  if dopts.dense ~= false then check.fail(FNAME, "opts.derivatives.dense must be false") end

  local last_x, last_sol, last_D
  local function same(x)
    if not last_x or #last_x ~= #x then return false end
    for i = 1, #x do
      if last_x[i] ~= x[i] then return false end
    end
    return true
  end
  -- the problem at x, and the solution and derivatives there (cached)
  local function at(x)
    if same(x) then return last_sol, last_D end
    local p, offset = {}, 0
    for k, v in pairs(problem) do p[k] = v end
    for _, name in ipairs(wrt) do
      local size, values = SIZES[name] * n, {}
      for i = 1, size do values[i] = x[offset + i] end
      p[name], offset = values, offset + size
    end
    if offset ~= #x then
      check.fail(FNAME, "expects %d inputs for wrt = {%s} (got %d)", offset,
        table.concat(wrt, ", "), #x)
    end
    local sol = lucid.contact.solve(p)
    local D = lucid.contact.derivatives(p, sol, dopts)
    local copy = {}
    for i = 1, #x do copy[i] = x[i] end
    last_x, last_sol, last_D = copy, sol, D
    return sol, D
  end

  return lucid.ad.primitive{
    name = FNAME,
    forward = function(x)
      local sol = at(x)
      return sol.lambda
    end,
    jvp = function(x, dx)
      local _, D = at(x)
      local dir, offset = {}, 0
      for _, name in ipairs(wrt) do
        local size, values = SIZES[name] * n, {}
        for i = 1, size do values[i] = dx[offset + i] end
        dir[name], offset = values, offset + size
      end
      return D.jvp(dir)
    end,
    vjp = function(x, w)
      local _, D = at(x)
      local c, out = D.vjp(w), {}
      for _, name in ipairs(wrt) do
        local v = c[name]
        for i = 1, #v do out[#out + 1] = v[i] end
      end
      return lucid.vec(out)
    end,
  }
end
