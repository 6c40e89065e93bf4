-- lucid.se3 / lucid.so3: construction, group operations, exp/log, Jacobians, misuse.
local t = require "testing"
local lucid = require "lucid"

local se3, so3 = lucid.se3, lucid.so3
local nan, inf = 0 / 0, math.huge

local function rz(a)
  local c, s = math.cos(a), math.sin(a)
  return {{c, -s, 0}, {s, c, 0}, {0, 0, 1}}
end

local function cross(a, b)
  return {a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1]}
end

local function assert_pose_near(A, B, tol)
  t.allnear(A:rotation(), B:rotation():totable(), tol)
  t.allnear(A:translation(), B:translation():totable(), tol)
end

local function twist(g, angle)
  local w = {g:normal(), g:normal(), g:normal()}
  local n = math.sqrt(w[1] ^ 2 + w[2] ^ 2 + w[3] ^ 2)
  return {g:normal(), g:normal(), g:normal(), angle * w[1] / n, angle * w[2] / n, angle * w[3] / n}
end

t.case("identity and construction from R, quaternion and translation", function()
  local I = se3.identity()
  t.allnear(I:rotation(), {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 0)
  t.allnear(I:translation(), {0, 0, 0}, 0)
  local a = 0.7
  local T = se3.new(rz(a), {1, 2, 3})
  t.allnear(T:rotation(), rz(a), 1e-15)
  t.allnear(T:translation(), {1, 2, 3}, 0)
  -- a lucid.mat and a lucid.vec work as well
  local T2 = se3.new(lucid.mat(rz(a)), lucid.vec{1, 2, 3})
  assert_pose_near(T2, T, 1e-15)
  -- quaternion {w, x, y, z} of the same rotation, unnormalised, and its negative
  local q = {math.cos(a / 2), 0, 0, math.sin(a / 2)}
  assert_pose_near(se3.new(q, {1, 2, 3}), T, 1e-15)
  assert_pose_near(se3.new({5 * q[1], 0, 0, 5 * q[4]}, {1, 2, 3}), T, 1e-15)
  assert_pose_near(se3.new({-q[1], 0, 0, -q[4]}, {1, 2, 3}), T, 1e-15)
  assert_pose_near(se3.new(lucid.vec(q), {1, 2, 3}), T, 1e-15)
  -- translation defaults to zero
  t.allnear(se3.new(q):translation(), {0, 0, 0}, 0)
  -- a slightly noisy rotation matrix is accepted and cleaned to an exact rotation
  local R = rz(a)
  R[1][1] = R[1][1] + 1e-8
  local Rc = se3.new(R, {0, 0, 0}):rotation()
  t.allnear(Rc:T() * Rc, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 1e-15)
  t.allnear(Rc, rz(a), 1e-7)
end)

t.case("quat returns w >= 0 and round-trips, including half-turns", function()
  local g = lucid.rng(1)
  for i = 1, 50 do
    local q = {g:normal(), g:normal(), g:normal(), g:normal()}
    if i == 1 then q[1] = 0 end
    if i == 2 then q[1] = 1e-13 end
    local T = se3.new(q, {0, 0, 0})
    local back = T:quat()
    t.eq(#back, 4)
    t.truthy(back[1] >= 0, "w >= 0")
    assert_pose_near(se3.new(back, {0, 0, 0}), T, 1e-15)
    local n = math.sqrt(q[1] ^ 2 + q[2] ^ 2 + q[3] ^ 2 + q[4] ^ 2)
    local dot = (back[1] * q[1] + back[2] * q[2] + back[3] * q[3] + back[4] * q[4]) / n
    t.near(math.abs(dot), 1, 1e-14)
  end
end)

t.case("composition, inverse and act agree with the matrix formulas", function()
  local g = lucid.rng(2)
  for _ = 1, 30 do
    local A, B = se3.random(g, 2), se3.random(g, 2)
    local p = {g:normal(), g:normal(), g:normal()}
    local R, tr = A:rotation(), A:translation()
    t.allnear(A:act(p), R * lucid.vec(p) + tr, 1e-14)
    t.allnear((A * B):act(p), A:act(B:act(p)), 1e-13)
    assert_pose_near(A * A:inverse(), se3.identity(), 1e-14)
    assert_pose_near(A:inverse() * A, se3.identity(), 1e-14)
    -- a 3 x n block of points is transformed column by column
    local P = lucid.mat{{p[1], 1}, {p[2], 2}, {p[3], 3}}
    local Q = A:act(P)
    t.eq(Q:rows(), 3); t.eq(Q:cols(), 2)
    local q1 = A:act(p)
    local q2 = A:act({1, 2, 3})
    t.allnear(Q, {{q1[1], q2[1]}, {q1[2], q2[2]}, {q1[3], q2[3]}}, 0)
    -- the homogeneous matrix
    local H = A:matrix()
    t.allnear(H * lucid.vec{p[1], p[2], p[3], 1}, {q1[1], q1[2], q1[3], 1}, 1e-14)
  end
end)

t.case("exp and log are inverse, exp matches so3.exp on rotations", function()
  local g = lucid.rng(3)
  for _, angle in ipairs{0, 1e-12, 1e-6, 0.5, 1, 2, 3, math.pi - 1e-7} do
    local xi = twist(g, angle)
    local T = se3.exp(xi)
    local tol = angle < 3 and 1e-12 or 1e-5
    t.allnear(T:log(), xi, tol)
    t.eq(#T:log(), 6)
    t.allnear(T:rotation(), so3.exp({xi[4], xi[5], xi[6]}), 1e-15)
    t.allnear(so3.log(so3.exp({xi[4], xi[5], xi[6]})), {xi[4], xi[5], xi[6]}, tol)
  end
  -- pure translation twist
  t.allnear(se3.exp{1, 2, 3, 0, 0, 0}:translation(), {1, 2, 3}, 0)
  -- rotation about z by pi/2 through exp
  t.allnear(se3.exp{0, 0, 0, 0, 0, math.pi / 2}:rotation(), rz(math.pi / 2), 1e-15)
end)

-- Regression (issue 16): exp of huge rotation vectors was NaN (|w|^2 overflowed).
t.case("exp of huge rotation vectors is an exact rotation, never NaN", function()
  local function is_rotation(R)
    local RtR = R:T() * R
    t.allnear(RtR, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, 1e-12)
    local r = R:totable()
    local c = cross(r[2], r[3])
    t.near(r[1][1] * c[1] + r[1][2] * c[2] + r[1][3] * c[3], 1, 1e-12) -- det

  end
  -- About x by 1e160: the angle reduced modulo 2 pi (sin and cos of 1e160, exact in libm).
  local R = so3.exp({1e160, 0, 0})
  is_rotation(R)
  local c, s = math.cos(1e160), math.sin(1e160)
  t.allnear(R, {{1, 0, 0}, {0, c, -s}, {0, s, c}}, 1e-12)
  t.allnear(R, so3.exp({math.atan(s, c), 0, 0}), 1e-12) -- exp of the reduced vector
  local T = se3.exp{0, 0, 0, 1e155, 1e155, 1e155}
  is_rotation(T:rotation())
  t.allnear(T:rotation(), so3.exp({1e155, 1e155, 1e155}), 0)
  t.allnear(T:translation(), {0, 0, 0}, 0)
  local axis = {1 / math.sqrt(3), 1 / math.sqrt(3), 1 / math.sqrt(3)}
  t.allnear(T:rotation() * lucid.vec(axis), axis, 1e-12)
  -- Translation Jl(w) v tends to the projection of v on the axis as |w| grows.
  t.allnear(se3.exp{1, 2, 3, 1e155, 1e155, 1e155}:translation(), {2, 2, 2}, 1e-12)
  is_rotation(so3.exp({1.7e308, -1.7e308, 1.7e308}))
end)

t.case("se3 Jacobians match finite differences, inverses invert", function()
  local g = lucid.rng(4)
  local h = 1e-6
  for _, angle in ipairs{0, 0.4, 2.5} do
    local xi = twist(g, angle)
    local Jr, Jl = se3.jr(xi), se3.jl(xi)
    t.eq(Jr:rows(), 6); t.eq(Jr:cols(), 6)
    local T = se3.exp(xi)
    for k = 1, 6 do
      local xp, xm = {table.unpack(xi)}, {table.unpack(xi)}
      xp[k], xm[k] = xp[k] + h, xm[k] - h
      local dr = (T:inverse() * se3.exp(xp)):log() - (T:inverse() * se3.exp(xm)):log()
      local dl = (se3.exp(xp) * T:inverse()):log() - (se3.exp(xm) * T:inverse()):log()
      for i = 1, 6 do
        t.near(dr[i] / (2 * h), Jr:get(i, k), 1e-7)
        t.near(dl[i] / (2 * h), Jl:get(i, k), 1e-7)
      end
    end
    t.allnear(Jr * se3.jr_inv(xi), lucid.eye(6), 1e-12)
    t.allnear(Jl * se3.jl_inv(xi), lucid.eye(6), 1e-12)
    -- Jl = Ad(exp(xi)) Jr
    t.allnear(T:adjoint() * Jr, Jl, 1e-12)
  end
end)

t.case("adjoint transports twists: T exp(xi) T^-1 = exp(Ad xi)", function()
  local g = lucid.rng(5)
  for _ = 1, 20 do
    local T = se3.random(g, 3)
    local xi = twist(g, 2 * g:uniform())
    local Ad = T:adjoint()
    t.eq(Ad:rows(), 6)
    assert_pose_near(T * se3.exp(xi) * T:inverse(), se3.exp(Ad * lucid.vec(xi)), 1e-12)
  end
end)

t.case("so3 helpers", function()
  local g = lucid.rng(6)
  for _ = 1, 20 do
    local w = {g:normal(), g:normal(), g:normal()}
    local x = {g:normal(), g:normal(), g:normal()}
    t.allnear(so3.hat(w) * lucid.vec(x), cross(w, x), 1e-15)
    t.allnear(so3.vee(so3.hat(w)), w, 0)
    t.allnear(so3.jr(w) * so3.jr_inv(w), lucid.eye(3), 1e-12)
    t.allnear(so3.jl(w) * so3.jl_inv(w), lucid.eye(3), 1e-12)
    t.allnear(so3.jl(w), so3.exp(w) * so3.jr(w), 1e-14)
    -- the SE(3) Jacobian's rotation block is the SO(3) one
    local J = se3.jr{0, 0, 0, w[1], w[2], w[3]}
    for i = 1, 3 do
      for j = 1, 3 do t.near(J:get(i + 3, j + 3), so3.jr(w):get(i, j), 1e-15) end
    end
  end
  -- log near pi returns an angle of at most pi
  local wl = so3.log(rz(math.pi))
  t.near(math.abs(wl[3]), math.pi, 1e-15)
end)

t.case("random poses are reproducible and respect the scale", function()
  local a, b = lucid.rng(7), lucid.rng(7)
  for _ = 1, 100 do
    local A, B = se3.random(a, 0.5), se3.random(b, 0.5)
    assert_pose_near(A, B, 0)
    for _, x in ipairs(A:translation():totable()) do t.truthy(math.abs(x) <= 0.5) end
    local R = A:rotation()
    t.allnear(R:T() * R, lucid.eye(3), 1e-14)
  end
  -- default scale 1, and scale 0 gives a pure rotation
  for _, x in ipairs(se3.random(a):translation():totable()) do t.truthy(math.abs(x) <= 1) end
  t.allnear(se3.random(a, 0):translation(), {0, 0, 0}, 0)
end)

t.case("tostring shows quaternion and translation", function()
  local s = tostring(se3.new({1, 0, 0, 0}, {1, 2, 3}))
  t.truthy(s:find("lucid.se3", 1, true), s)
  t.truthy(s:find("t = {1, 2, 3}", 1, true), s)
end)

t.case("misuse raises errors naming the function and the problem", function()
  local T = se3.identity()
  t.raises("lucid.se3.new: rotation must be a 3x3 matrix or a quaternion", se3.new)
  t.raises("lucid.se3.new: rotation R must be a 3 x 3 lucid.mat or a table of 3 rows (got number)",
    se3.new, 5, {0, 0, 0})
  t.raises("lucid.se3.new: quaternion must be non-zero", se3.new, {0, 0, 0, 0}, {0, 0, 0})
  t.raises("lucid.se3.new: quaternion must be finite", se3.new, {nan, 0, 0, 1}, {0, 0, 0})
  t.raises("lucid.se3.new: quaternion must be finite", se3.new, {1, inf, 0, 0})
  t.raises("lucid.se3.new: rotation R is not a rotation matrix (||R^T R - I||",
    se3.new, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1.1}}, {0, 0, 0})
  t.raises("lucid.se3.new: rotation R is not a rotation matrix (det < 0",
    se3.new, {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}}, {0, 0, 0})
  t.raises("lucid.se3.new: rotation R must be finite", se3.new, {{nan, 0, 0}, {0, 1, 0}, {0, 0, 1}})
  t.raises("lucid.se3.new: rotation R must be 3 x 3 (got 2 x 2)", se3.new, lucid.eye(2))
  t.raises("lucid.se3.new: rotation R must be 3 x 3", se3.new, lucid.vec{1, 0, 0})
  t.raises("lucid.se3.new: translation t must have 3 entries", se3.new, {1, 0, 0, 0}, {1, 2})
  t.raises("lucid.se3.new: translation t must be finite", se3.new, {1, 0, 0, 0}, {1, inf, 2})
  t.raises("lucid.se3.new: translation t must be a lucid.vec or a table", se3.new, {1, 0, 0, 0}, "x")
  t.raises("lucid.se3.exp: twist xi must have 6 entries", se3.exp, {1, 2, 3, 4, 5})
  t.raises("lucid.se3.exp: twist xi must be finite", se3.exp, {1, 2, 3, 4, 5, nan})
  t.raises("lucid.se3.exp: twist xi must be a lucid.vec or a table", se3.exp, nil)
  t.raises("lucid.se3.jr: twist xi must have 6 entries", se3.jr, {1, 2, 3})
  t.raises("lucid.se3.jl_inv: twist xi must be finite", se3.jl_inv, {1, 2, 3, 4, 5, inf})
  t.raises("lucid.se3:log: self must be a lucid.se3 pose (got number)", T.log, 5)
  t.raises("lucid.se3:inverse: self must be a lucid.se3 pose (got table)", T.inverse, {})
  t.raises("lucid.se3:rotation: self must be a lucid.se3 pose", T.rotation, lucid.eye(3))
  t.raises("lucid.se3:translation: self must be a lucid.se3 pose", T.translation, nil)
  t.raises("lucid.se3:quat: self must be a lucid.se3 pose", T.quat, "T")
  t.raises("lucid.se3:adjoint: self must be a lucid.se3 pose", T.adjoint, 1)
  t.raises("lucid.se3:act: point p must have 3 entries", T.act, T, {1, 2})
  t.raises("lucid.se3:act: point p must be finite", T.act, T, {1, nan, 2})
  t.raises("lucid.se3:act: point p must be a lucid.vec or a table", T.act, T, nil)
  t.raises("lucid.se3.__mul: right operand must be a lucid.se3 pose (got number)",
    function() return T * 3 end)
  t.raises("lucid.se3.__mul: left operand must be a lucid.se3 pose (got number)",
    function() return 3 * T end)
  t.raises("lucid.se3.random: argument 1 must be a lucid.rng generator (got no value)", se3.random)
  t.raises("lucid.se3.random: argument 1 must be a lucid.rng generator (got number)", se3.random, 1)
  t.raises("lucid.se3.random: scale must be >= 0", se3.random, lucid.rng(1), -1)
  t.raises("lucid.se3.random: scale must be finite", se3.random, lucid.rng(1), nan)
  t.raises("lucid.so3.exp: rotation vector w must have 3 entries", so3.exp, {1, 2})
  t.raises("lucid.so3.jr_inv: rotation vector w must be finite", so3.jr_inv, {1, inf, 2})
  t.raises("lucid.so3.hat: rotation vector w must be a lucid.vec or a table", so3.hat, true)
  t.raises("lucid.so3.log: R is not a rotation matrix", so3.log, {{2, 0, 0}, {0, 1, 0}, {0, 0, 1}})
  t.raises("lucid.so3.vee: W must be 3 x 3", so3.vee, lucid.eye(4))
end)
