-- Step derivatives of sliding patches that spin or turn (docs/step_derivatives.md, "Sliding
-- patches that spin"): the box of tests/lua/test_heightfield.lua's "box sliding on the slope"
-- pushed or spinning, on the slope's height field and its halfspace, against central
-- differences of whole steps (best of h = 1e-4, 1e-5, 3e-6); the error's rank (what is left
-- after removing its largest column's direction from every column); the contacts' modes and
-- least margin, D.rank_deficient and D.free_velocity; the step's v+ under three solvers (the rigid problem's non-unique answer);
-- and the same spin on 1, 2, 3 and 4 contacts on a flat floor.
-- Usage: ./build/lucid tests/bench/probe_slide_spin.lua
local function grid(n, f)
  local e = {}
  for r = 1, n do
    e[r] = {}
    for c = 1, n do e[r][c] = f(r, c) end
  end
  return e
end

-- max |P - Q| / max(|Q|, floor), and the same of P - Q less its largest column's direction
local function errors(P, Q, floor)
  local m, big, e = 0, -1, nil
  local cols = {}
  for j = 1, P:cols() do
    local c, s = {}, 0
    for i = 1, P:rows() do
      c[i] = P:get(i, j) - Q:get(i, j)
      s = s + c[i] ^ 2
      m = math.max(m, math.abs(Q:get(i, j)))
    end
    cols[j] = c
    if s > big then big, e = s, c end
  end
  local d, r = 0, 0
  for _, c in ipairs(cols) do
    local p = 0
    for i = 1, #c do p = p + c[i] * e[i] end
    for i = 1, #c do
      d = math.max(d, math.abs(c[i]))
      r = math.max(r, math.abs(c[i] - (big > 0 and p / big or 0) * e[i]))
    end
  end
  local dir = {}
  for i = 1, #e do dir[i] = big > 0 and e[i] / math.sqrt(big) or 0 end
  return d / math.max(m, floor), r / math.max(m, floor), dir
end

-- the implicit A and B against whole steps; the error's rank; modes and the least margin
local function compare(name, w, geometry)
  local x, u = w:state(), w:controls()
  local D = w:step_derivatives{geometry = geometry}
  local modes, margin = {}, math.huge
  for _, c in ipairs(D.contacts) do
    modes[c.mode] = (modes[c.mode] or 0) + 1
    margin = math.min(margin, c.margin)
  end
  local ms = {}
  for k, v in pairs(modes) do ms[#ms + 1] = v .. " " .. k end
  local best = {A = {math.huge}, B = {math.huge}}
  for _, h in ipairs{1e-4, 1e-5, 3e-6} do
    w:set_state(x)
    w:set_controls(u)
    local F = w:step_derivatives{method = "finite_differences", step = h, tol = 1e-13,
                                 max_iter = 100000}
    for _, k in ipairs{"A", "B"} do
      local a, r, dir = errors(D[k], F[k], k == "A" and 1 or 1e-3)
      if a < best[k][1] then best[k] = {a, r, dir} end
    end
  end
  w:set_state(x)
  w:set_controls(u)
  local dir = {}
  for i = 1, #best.A[3] do dir[i] = string.format("%.3f", best.A[3][i]) end
  print(string.format("%-44s %s, least margin %.2f, rank_deficient %s, free_velocity %.1e\n" ..
                      "%46s A %.1e (rank one: %.1e), B %.1e (rank one: %.1e); A's error along" ..
                      " (dq, dv) = %s", name, table.concat(ms, ", "), margin,
                      tostring(D.rank_deficient), D.free_velocity, "",
                      best.A[1], best.A[2], best.B[1], best.B[2], table.concat(dir, " ")))
end

-- the slope of test_heightfield.lua and a body 2e-4 m deep on it at (x, y), tilted to it
local slope = lucid.heightfield{elevation = grid(11, function(r, c) return c + 2 * r end),
                                size = {1, 1, 0.5, 0.2}}
local n = {-1 / 12, -1 / 6, 1}
local len = math.sqrt(n[1] ^ 2 + n[2] ^ 2 + 1)
n = {n[1] / len, n[2] / len, n[3] / len}
local function height(x, y) return 0.5 * ((x + 1) / 0.2 + 2 * (y + 1) / 0.2) / 30 end
local plane = lucid.halfspace(n, n[3] * height(0, 0))
local axis = {-n[2], n[1], 0}
local angle = math.acos(n[3])
local sa = math.sin(angle / 2) / math.sqrt(axis[1] ^ 2 + axis[2] ^ 2)
local tilt = {math.cos(angle / 2), axis[1] * sa, axis[2] * sa, 0}
local function on_slope(ground, shape, velocity, controls, contact)
  local w = lucid.world{dt = 1e-3, contact = contact or {tol = 1e-12, max_iter = 5000}}
  w:add_static{shape = ground, friction = 0.5}
  local lift = shape:support({0, 0, 1})[3] - 2e-4
  local c = {0.1 + n[1] * lift, 0.1 + n[2] * lift, height(0.1, 0.1) + n[3] * lift}
  w:add_body{shape = shape, mass = 1, pose = lucid.se3.new(tilt, c), velocity = velocity}
  if controls then w:set_controls(controls) end
  return w
end

local box = lucid.box(0.05, 0.04, 0.03)
local slide = {0.3, 0.2, 0, 0, 0, 0}
local spin = {0.3, 0.2, 0, 0, 0, 0.5}
local push = {0.3, 0.2, 0, 0, 0, 0.01}
print("The box (half-extents 0.05 x 0.04 x 0.03) sliding on the slope at 0.36 m/s:")
for _, g in ipairs{{"field", slope}, {"halfspace", plane}} do
  for _, geometry in ipairs{"carried", "collide"} do
    compare(g[1] .. ", " .. geometry .. ", sliding", on_slope(g[2], box, slide), geometry)
    compare(g[1] .. ", " .. geometry .. ", pushed", on_slope(g[2], box, slide, push), geometry)
    compare(g[1] .. ", " .. geometry .. ", spinning 0.5 rad/s", on_slope(g[2], box, spin),
            geometry)
  end
end

compare("field, carried, the sphere case's twist, pushed",
        on_slope(slope, box, {0.4, -0.2, 0, 1, 2, 3}, push), "carried")
compare("field, carried, spinning 3 rad/s", on_slope(slope, box, {0.3, 0.2, 0, 0, 0, 3}), "carried")

print("\nOne step of the spinning box on the halfspace, v+ (body frame) by solver:")
for _, s in ipairs{"admm", "pgs", "staggered"} do
  local w = on_slope(plane, box, spin, nil, {model = "ncp", solver = s, tol = 1e-13,
                                              max_iter = 100000})
  w:step()
  local v, l = w:state(), {}
  for _, c in ipairs(w:contacts()) do l[#l + 1] = string.format("%.3f", c.lambda[3]) end
  print(string.format("  ncp:%-9s v+ = (%.9f, %.9f, %.9f, %.1e, %.1e, %.9f), normal forces %s N," ..
                      " scaled residual %.1e", s, v[8], v[9], v[10], v[11], v[12], v[13],
                      table.concat(l, " "), w:stats().scaled_residual))
end

-- the same slide and spin on a flat floor over 1, 2, 3 and 4 contacts
print("\nSliding at (0.3, 0.2) m/s and spinning at 0.5 rad/s on the floor z = 0:")
local function on_floor(shape, q, low, velocity)
  local w = lucid.world{dt = 1e-3, contact = {tol = 1e-12, max_iter = 5000}}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
  w:add_body{shape = shape, mass = 1, pose = lucid.se3.new(q, {0, 0, low - 2e-4}),
             velocity = velocity or spin}
  return w
end
local c45 = math.sqrt(0.5)
compare("sphere (1 contact)", on_floor(lucid.sphere(0.05), {1, 0, 0, 0}, 0.05))
compare("capsule lying (2 contacts)", on_floor(lucid.capsule(0.03, 0.05), {c45, c45, 0, 0}, 0.03))
compare("tetrahedron on a face (3 contacts)", on_floor(lucid.convex{{0.05, 0, -0.03},
        {-0.03, 0.04, -0.03}, {-0.04, -0.035, -0.03}, {0, 0, 0.04}}, {1, 0, 0, 0}, 0.03))
compare("box on its face (4 contacts)", on_floor(box, {1, 0, 0, 0}, 0.03))
