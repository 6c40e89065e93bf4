local t = require "testing"
local lucid = require "lucid"
local ad = lucid.ad

-- Central differences of the values f produces (through lucid.ad.jacobian's value output).
local function fd_jacobian(f, x, h)
  h = h or 1e-6
  local n = #x
  local cols = {}
  local m
  for j = 1, n do
    local xp, xm = {}, {}
    for i = 1, n do xp[i], xm[i] = x[i], x[i] end
    xp[j], xm[j] = x[j] + h, x[j] - h
    local yp = ad.jacobian(f, xp)
    local ym = ad.jacobian(f, xm)
    m = #yp
    cols[j] = {}
    for i = 1, m do cols[j][i] = (yp[i] - ym[i]) / (2 * h) end
  end
  local J = lucid.zeros(m, n)
  for i = 1, m do for j = 1, n do J:set(i, j, cols[j][i]) end end
  return J
end

-- Both modes against finite differences, and against each other.
local function check(f, x, tol, msg)
  tol = tol or 1e-7
  local vf, Jf = ad.jacobian(f, x, {mode = "forward"})
  local vr, Jr = ad.jacobian(f, x, {mode = "reverse"})
  local va, Ja = ad.jacobian(f, x)
  local Jd = fd_jacobian(f, x)
  t.allnear(vf, vr, 0, msg)
  t.allnear(Jf, Jd, tol, (msg or "") .. " forward vs fd")
  t.allnear(Jr, Jd, tol, (msg or "") .. " reverse vs fd")
  t.allnear(Jf, Jr, 1e-13, (msg or "") .. " forward vs reverse")
  t.allnear(Ja, #x <= #vf and Jf or Jr, 0, (msg or "") .. " auto picks the narrower side")
  return vf, Jf
end

local x0 = {0.7, -1.3, 2.1, 0.4}

t.case("arithmetic with differentiable values, numbers and vectors", function()
  local c = lucid.vec{0.5, -2, 3, 1.5}
  check(function(x) return x + x * x end, x0, nil, "x + x*x")
  check(function(x) return x - 2 end, x0, nil, "x - 2")
  check(function(x) return 3 - x end, x0, nil, "3 - x")
  check(function(x) return x * 2.5 end, x0, nil, "x * 2.5")
  check(function(x) return 2.5 * x end, x0, nil, "2.5 * x")
  check(function(x) return x / (x * x + 1) end, x0, nil, "x / (x*x+1)")
  check(function(x) return 1 / x end, x0, nil, "1 / x")
  check(function(x) return c + x end, x0, nil, "vec + x")
  check(function(x) return x - c end, x0, nil, "x - vec")
  check(function(x) return c * x end, x0, nil, "vec * x")
  check(function(x) return x / c end, x0, nil, "x / vec")
  check(function(x) return c / x end, x0, nil, "vec / x")
  check(function(x) return -x end, x0, nil, "-x")
  check(function(x) return x * x[2] end, x0, nil, "scalar broadcast")
  check(function(x) return x[1] / x end, x0, nil, "scalar / vector")
end)

t.case("indexing, slicing, dot, norm, matrix products, concat", function()
  local A = lucid.mat{{1, 2, 0, -1}, {0.5, -3, 2, 1}, {4, 0, 1, 0}}
  check(function(x) return x[3] end, x0, nil, "x[3]")
  check(function(x) return x:slice(2, 3) end, x0, nil, "slice")
  check(function(x) return x:slice(1, 2):dot(x:slice(3, 4)) end, x0, nil, "dot")
  check(function(x) return x:dot(lucid.vec{1, 2, 3, 4}) end, x0, nil, "dot with constant")
  check(function(x) return x:norm() end, x0, nil, "norm")
  check(function(x) return A * x end, x0, nil, "A * x")
  check(function(x) return A * (x * x) + lucid.vec{1, 2, 3} end, x0, nil, "A * (x*x) + c")
  check(function(x) return ad.concat{x[4], 2, x:slice(1, 2), lucid.vec{5, 6}} end, x0, nil,
    "concat")
  local v = ad.jacobian(function(x) return ad.concat{x[4], 2, x:slice(1, 2)} end, x0)
  t.allnear(v, {0.4, 2, 0.7, -1.3}, 0)
  t.allnear(ad.concat{1, lucid.vec{2, 3}}, {1, 2, 3}, 0, "constant concat is a plain vector")
end)

t.case("elementwise functions and their values", function()
  local xp = {0.7, 1.3, 2.1, 0.4} -- inside log's and sqrt's domain
  for _, name in ipairs{"exp", "log", "sqrt", "sin", "cos", "tanh"} do
    local v = check(function(x) return ad[name](x) end, xp, nil, name)
    for i = 1, 4 do t.near(v[i], math[name] and math[name](xp[i]) or
      (name == "tanh" and (math.exp(2 * xp[i]) - 1) / (math.exp(2 * xp[i]) + 1)), 1e-14, name) end
    t.near(ad[name](0.5), name == "tanh" and (math.exp(1) - 1) / (math.exp(1) + 1) or
      math[name](0.5), 1e-15, name .. " of a number")
  end
end)

t.case("gradient of a scalar cost equals the Jacobian row", function()
  local f = function(x) return ad.exp(x[1]) * x:dot(x) + ad.sin(x[2] * x[3]) - x:norm() end
  local v, g = ad.grad(f, x0)
  local vj, J = ad.jacobian(f, x0)
  t.near(v, vj[1], 0)
  t.eq(#g, 4)
  for i = 1, 4 do t.near(g[i], J:get(1, i), 1e-15) end
  -- analytic gradient of 0.5 |x|^2 is x
  local _, g2 = ad.grad(function(x) return x:dot(x) / 2 end, x0)
  t.allnear(g2, x0, 1e-15)
end)

t.case("norm at zero has the zero subgradient", function()
  for _, mode in ipairs{"forward", "reverse"} do
    local _, J = ad.jacobian(function(x) return x:norm() end, {0, 0, 0}, {mode = mode})
    t.allnear(J, {{0, 0, 0}}, 0, mode)
  end
end)

t.case("forward and reverse agree on random compositions", function()
  local rng = 12345
  local function rand(k) rng = (rng * 1103515245 + 12345) % 2147483648; return rng % k + 1 end
  local unary = {"sin", "cos", "tanh", "exp"}
  for _ = 1, 25 do
    local plan = {}
    for s = 1, 10 do plan[s] = {rand(7), rand(s), rand(s), rand(4)} end
    local f = function(x)
      local pool = {x}
      for s, p in ipairs(plan) do
        local a, b = pool[p[2]], pool[p[3]]
        local k = math.min(#a, #b)
        local a2, b2 = a:slice(1, k), b:slice(#b - k + 1, #b)
        local op = p[1]
        local out
        if op == 1 then out = a2 + b2
        elseif op == 2 then out = a2 * b2
        elseif op == 3 then out = a2 - 0.5 * b2
        elseif op == 4 then out = ad[unary[p[4]]](a2 * 0.3)
        elseif op == 5 then out = ad.concat{a2:dot(b2), a[1]}
        elseif op == 6 then out = a2 / (b2 * b2 + 1)
        else out = ad.concat{a:norm(), b2} end
        pool[s + 1] = out
      end
      return ad.concat{pool[#pool], pool[#pool - 1]}
    end
    check(f, {0.3, -0.2, 0.5}, 1e-6, "random program")
  end
end)

-- y = (x1 x2, x3^2) with J = [[x2, x1, 0], [0, 0, 2 x3]]
local function prim_forward(x) return lucid.vec{x[1] * x[2], x[3] * x[3]} end
local function prim_jac(x) return lucid.mat{{x[2], x[1], 0}, {0, 0, 2 * x[3]}} end
local prim_specs = {
  both = {forward = prim_forward,
          jvp = function(x, d) return prim_jac(x) * d end,
          vjp = function(x, w) return prim_jac(x):T() * w end},
  jvp_only = {forward = prim_forward, jvp = function(x, d) return prim_jac(x) * d end},
  vjp_only = {forward = prim_forward, vjp = function(x, w) return prim_jac(x):T() * w end},
  jacobian_only = {forward = prim_forward, jacobian = prim_jac},
}

t.case("custom primitives pass gradient checks in both modes", function()
  for name, spec in pairs(prim_specs) do
    local P = ad.primitive(spec)
    check(function(x) return ad.sin(P(x:slice(1, 3))) * x[4] end, x0, 1e-7, name)
    -- several arguments are joined into one input
    check(function(x) return P(x[1], x:slice(3, 4)) end, x0, 1e-7, name .. " (joined)")
    check(function(x) return P(x[2], 2, x[4]) end, x0, 1e-7, name .. " (with a constant)")
  end
  -- without a differentiable argument the primitive is an ordinary function
  local P = ad.primitive(prim_specs.both)
  t.allnear(P(lucid.vec{2, 3, 4}), {6, 16}, 0)
end)

t.case("misuse raises errors naming the function", function()
  t.raises("lucid.ad.jacobian: f must return a differentiable value (got number)",
    ad.jacobian, function(x) return 1 end, {1, 2})
  t.raises("lucid.ad.jacobian: f must return a differentiable value (got nil)",
    ad.jacobian, function(x) end, {1, 2})
  t.raises("lucid.ad.grad: f must return a scalar (got 2 entries)",
    ad.grad, function(x) return x end, {1, 2})
  t.raises("lucid.ad.jacobian: f must be a function", ad.jacobian, 3, {1})
  t.raises("lucid.ad.jacobian: x must be finite", ad.jacobian, function(x) return x end,
    {1, 0 / 0})
  t.raises("lucid.ad.grad: x must be finite", ad.grad, function(x) return x[1] end,
    {math.huge})
  t.raises("lucid.ad.jacobian: x must be a non-empty", ad.jacobian, function(x) return x end, {})
  t.raises("lucid.ad.jacobian: opts.mode must be", ad.jacobian, function(x) return x end, {1},
    {mode = "sideways"})
  t.raises("lucid.ad.__add (+): size mismatch (3 and 2 entries)",
    ad.jacobian, function(x) return x + lucid.vec{1, 2} end, {1, 2, 3})
  t.raises("lucid.ad.__mul (*): shape mismatch (2 x 2 matrix times a vector of 3 entries)",
    ad.jacobian, function(x) return lucid.mat{{1, 2}, {3, 4}} * x end, {1, 2, 3})
  t.raises("lucid.ad.var:dot: size mismatch", ad.jacobian,
    function(x) return x:dot(lucid.vec{1, 2}) end, {1, 2, 3})
  t.raises("lucid.ad.var[i]: index = 4 is out of range [1, 3]", ad.jacobian,
    function(x) return x[4] end, {1, 2, 3})
  t.raises("lucid.ad.var:slice: end", ad.jacobian, function(x) return x:slice(2, 1) end, {1, 2})
  t.raises("lucid.ad.log: result is not finite", ad.jacobian,
    function(x) return ad.log(x - 2) end, {1})
  t.raises("lucid.ad.__div (/): result is not finite", ad.jacobian,
    function(x) return x / (x - 1) end, {1})
  t.raises("lucid.ad.jacobian: derivative is not finite", ad.jacobian,
    function(x) return ad.sqrt(x) end, {0})
  t.raises("lucid.ad.exp: argument must be a differentiable value or a number",
    ad.exp, "a")
  t.raises("lucid.ad.__add (+): operand must be a differentiable value, a number or a lucid.vec",
    ad.jacobian, function(x) return x + "a" end, {1})
end)

t.case("a value kept after its evaluation is stale", function()
  local saved
  ad.grad(function(x) saved = x; return x:norm() end, {3, 4})
  t.raises("stale differentiable value", function() return saved + 1 end)
  t.raises("lucid.ad.var:norm: stale", function() return saved:norm() end)
  t.raises("lucid.ad.exp: stale", ad.exp, saved)
  -- still stale when the next evaluation reuses the same tape
  t.raises("lucid.ad.__mul (*): stale", ad.jacobian, function(x) return x * saved end, {1, 2})
  t.raises("lucid.ad.jacobian: stale differentiable value", ad.jacobian,
    function(x) return saved end, {1, 2})
  t.eq(tostring(saved), "lucid.ad value (stale)")
end)

t.case("nested evaluations use separate tapes and cannot be mixed", function()
  -- d/dx of (x * inner gradient): the inner evaluation runs while the outer tape is busy
  local _, J = ad.jacobian(function(x)
    local _, g = ad.grad(function(y) return y:dot(y) end, {1, 2})
    return x * g[2]
  end, {1, 1})
  t.allnear(J, {{4, 0}, {0, 4}}, 0)
  t.raises("lucid.ad.__add (+): differentiable values of different evaluations cannot be mixed",
    ad.jacobian, function(x)
      return ad.jacobian(function(y) return y + x end, {1})
    end, {1})
end)

t.case("bad primitive specs are rejected", function()
  t.raises("lucid.ad.primitive: spec must be a table", ad.primitive, 3)
  t.raises("lucid.ad.primitive: spec.forward is required", ad.primitive,
    {jvp = function() end})
  t.raises("lucid.ad.primitive: spec.jvp must be a function (got number)", ad.primitive,
    {forward = prim_forward, jvp = 1})
  t.raises("lucid.ad.primitive: spec needs jvp, vjp or jacobian", ad.primitive,
    {forward = prim_forward})
  t.raises("lucid.ad.primitive: unknown option 'spec.jvpp'", ad.primitive,
    {forward = prim_forward, jvpp = function() end, vjp = function() end})
  t.raises("lucid.ad.primitive: spec.name must be a string", ad.primitive,
    {forward = prim_forward, jacobian = prim_jac, name = 5})
end)

t.case("failing primitives report the primitive and leave lucid.ad usable", function()
  local wrong_size = ad.primitive{name = "short", forward = prim_forward,
                                  jvp = function(x, d) return lucid.vec{1} end,
                                  vjp = function(x, w) return lucid.vec{1} end}
  for _, mode in ipairs{"forward", "reverse"} do
    t.raises("lucid.ad.primitive 'short': " .. (mode == "forward" and "jvp" or "vjp") ..
      " result must have", ad.jacobian, function(x) return wrong_size(x) end, {1, 2, 3},
      {mode = mode})
  end
  local throws = ad.primitive{name = "boom", forward = prim_forward,
                              jvp = function() error("exploded") end, jacobian = prim_jac}
  t.raises("lucid.ad.primitive 'boom': jvp failed:", ad.jacobian,
    function(x) return throws(x) end, {1, 2, 3}, {mode = "forward"})
  -- reverse mode uses the jacobian instead and works
  local _, J = ad.jacobian(function(x) return throws(x) end, {1, 2, 3}, {mode = "reverse"})
  t.allnear(J, prim_jac(lucid.vec{1, 2, 3}), 0)
  t.raises("lucid.ad.primitive 'bad': forward must return", ad.jacobian,
    function(x) return ad.primitive{name = "bad", forward = function() return "x" end,
                                    jacobian = prim_jac}(x) end, {1, 2, 3})
  t.raises("lucid.ad.primitive 'nan': forward result must be finite", ad.jacobian,
    function(x) return ad.primitive{name = "nan", forward = function() return 0 / 0 end,
                                    jacobian = prim_jac}(x) end, {1, 2, 3})
  t.raises("lucid.ad.primitive: jacobian must return a 2 x 3 lucid.mat", ad.jacobian,
    function(x) return ad.primitive{forward = prim_forward,
                                    jacobian = function() return lucid.eye(3) end}(x) end,
    {1, 2, 3})
  -- a callback must not record on the tape being differentiated
  t.raises("differentiable values cannot be used while derivatives are computed", ad.jacobian,
    function(x)
      local sneaky = ad.primitive{forward = prim_forward,
                                  jvp = function(xv, d) return (x * 2):value():slice(1, 2) end}
      return sneaky(x)
    end, {1, 2, 3}, {mode = "forward"})
  -- after all these failures an evaluation still works and gives the right answer
  local v, g = ad.grad(function(x) return x:dot(x) end, {1, 2, 3})
  t.eq(v, 14)
  t.allnear(g, {2, 4, 6}, 0)
end)

t.case("a user error inside f propagates and the tape is reused afterwards", function()
  t.raises("my failure", ad.jacobian, function(x) error("my failure") end, {1})
  local f = function(x) return ad.concat{x:norm(), x[1] * x[2]} end
  local v1, J1 = ad.jacobian(f, {3, 4})
  local v2, J2 = ad.jacobian(f, {3, 4})
  t.allnear(v1, v2, 0)
  t.allnear(J1, J2, 0)
  t.allnear(J1, {{0.6, 0.8}, {4, 3}}, 1e-15)
end)

t.case("lucid.se3 exp, compose, act and log propagate derivatives", function()
  local se3 = lucid.se3
  local T0 = se3.exp{0.5, 0.1, -0.4, 0.7, 0.3, -1.2}
  local p = lucid.vec{0.25, -1.5, 2}
  local xi = {0.3, -0.7, 1.1, 0.4, -0.9, 0.6}
  check(function(x) return se3.exp(x):act(p) end, xi, 1e-7, "exp then act")
  check(function(x) return (T0 * se3.exp(x)):log() end, xi, 1e-7, "log of constant * exp")
  check(function(x) return (se3.exp(x) * T0):act(p) end, xi, 1e-7, "exp * constant")
  check(function(x) return T0:act(x:slice(1, 3)) end, xi, 1e-7, "constant pose, moving point")
  local x12 = {0.3, -0.7, 1.1, 0.4, -0.9, 0.6, 0.2, 0.1, -0.3, -0.5, 0.8, 0.2, 1, 2, 3}
  check(function(x)
    local A, B = se3.exp(x:slice(1, 6)), se3.exp(x:slice(7, 12))
    return ad.concat{(A * B):act(x:slice(13, 15)), (A * B):log()}
  end, x12, 1e-7, "two moving poses and a moving point")
  -- values agree with the plain lucid.se3 operations
  local v = ad.jacobian(function(x) return (T0 * se3.exp(x)):act(p) end, xi)
  t.allnear(v, (T0 * se3.exp(xi)):act(p), 1e-14)
  -- log(exp(xi)) = xi, so its Jacobian is the identity
  local w, J = ad.jacobian(function(x) return se3.exp(x):log() end, xi)
  t.allnear(w, xi, 1e-14)
  t.allnear(J, lucid.eye(6), 1e-12)
  -- the original functions still work on constants
  t.allnear(se3.exp(xi):act(p), (se3.exp(xi) * se3.identity()):act(p), 1e-15)
end)

t.case("differentiable poses reject misuse", function()
  local se3 = lucid.se3
  t.raises("lucid.se3.exp: twist must have 6 entries (got 3)", ad.jacobian,
    function(x) return se3.exp(x):log() end, {1, 2, 3})
  t.raises("lucid.se3:act: point must have 3 entries (got 2)", ad.jacobian,
    function(x) return se3.exp(x):act(lucid.vec{1, 2}) end, {0, 0, 0, 0, 0, 0})
  t.raises("lucid.se3.__mul (*): expected a pose", ad.jacobian,
    function(x) return (se3.exp(x) * 2):log() end, {0, 0, 0, 0, 0, 0})
  t.raises("lucid.ad.jacobian: f must return a differentiable value (got lucid.ad.se3)",
    ad.jacobian, function(x) return se3.exp(x) end, {0, 0, 0, 0, 0, 0})
  local saved
  ad.jacobian(function(x) saved = se3.exp(x); return x end, {0, 0, 0, 0, 0, 0})
  t.raises("lucid.se3:log: stale differentiable pose", function() return saved:log() end)
end)

-- lucid.ad values where numbers are expected: errors name the public function and say how
-- lucid.ad values go in (lucid.ad.concat, lucid.sim.step, lucid.ad.sin).
t.case("a lucid.ad value where numbers are expected: the error names the function and hints", function()
  local w = lucid.world{dt = 1e-3}
  local b = w:add_body{shape = lucid.sphere(0.1)}
  local x0 = w:state()
  local function through(f) return function() lucid.ad.jacobian(f, lucid.zeros(3, 1)) end end
  local hint = "; lucid.ad values do not pass through functions that take numbers: build a "
    .. "lucid.ad vector with lucid.ad.concat{...} and step the world with lucid.sim.step(w, x, u)"
  t.raises("lucid.world:apply_force: force[1] must be a number (got lucid.ad.var)" .. hint,
           through(function(u) w:apply_force(b, {u[1], 0, 0}) return u end))
  t.raises("lucid.world:apply_force: force must be a lucid.vec or a table of 3 numbers (got "
           .. "lucid.ad.var)" .. hint, through(function(u) w:apply_force(b, u) return u end))
  t.raises("lucid.vec: entry 1 must be a number (got lucid.ad.var)" .. hint,
           through(function(u) return lucid.vec{u[1]} end))
  t.raises("lucid.sim.step: u[1] is a lucid.ad value inside a plain table: join the entries "
           .. "into one lucid.ad vector with lucid.ad.concat{...}",
           through(function(u) return lucid.sim.step(w, x0, {u[1], 0, 0, 0, 0, 0}) end))
  t.raises("lucid.sim.step: u[2] must be a number (got string)", lucid.sim.step, w, x0,
           {0, "0", 0, 0, 0, 0})
  -- the suggested way works: the same step with lucid.ad.concat
  local _, J = lucid.ad.jacobian(function(u)
    return lucid.sim.step(w, x0, lucid.ad.concat{u[1], 0, 0, 0, 0, 0})
  end, lucid.zeros(1, 1))
  t.truthy(J:get(8, 1) > 0, "a force along x speeds the body up along x")
end)

t.case("math.sin of a lucid.ad value: the uncaught error suggests lucid.ad.sin", function()
  local script = os.tmpname() .. ".lua"
  local function run(body)
    local f = assert(io.open(script, "w"))
    f:write("local u = lucid.ad.jacobian(function(u) return lucid.vec{" .. body
            .. "} end, lucid.zeros(1, 1))\n")
    f:close()
    local pipe = assert(io.popen(string.format("'%s' %s 2>&1", arg[-1], script)))
    local out = pipe:read("a")
    pipe:close()
    return out
  end
  local out = run("math.sin(u[1])")
  t.truthy(out:find("bad argument #1 to 'sin' (number expected, got lucid.ad.var); 'sin' takes "
                    .. "plain numbers: use lucid.ad.sin on a lucid.ad value", 1, true), out)
  -- a function lucid.ad has no counterpart of: how lucid.ad values go in
  out = run("#string.rep('x', u[1])")
  t.truthy(out:find("(number expected, got lucid.ad.var); lucid.ad values do not pass through "
                    .. "functions that take numbers", 1, true), out)
  os.remove(script)
end)
