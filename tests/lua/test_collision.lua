-- lucid.distance, lucid.collide and lucid.distance_batch from Lua: analytic distances and
-- witness points, every option, Boolean mode against the distance sign, warm starts, the batch
-- against a loop of single queries, and misuse errors.
local t = require "testing"
local lucid = require "lucid"

local I = lucid.se3.identity()
local ALGORITHMS = {"gjk", "polyak", "nesterov"}

local function at(x, y, z) return lucid.se3.new({1, 0, 0, 0}, {x, y, z}) end

local function dist3(a, b) return (a - b):norm() end

-- Unit quaternions and poses from lucid.rng, so every run sees the same cases.
local function random_quat(rng)
  return {rng:normal(), rng:normal(), rng:normal(), rng:normal()}
end

local function random_pose(rng, spread)
  return lucid.se3.new(random_quat(rng),
    {spread * (2 * rng:uniform() - 1), spread * (2 * rng:uniform() - 1),
     spread * (2 * rng:uniform() - 1)})
end

-- The invariants every distance result satisfies.
local function check_result(r)
  t.truthy(getmetatable(r.p1) == getmetatable(lucid.vec{0}), "p1 is a lucid.vec")
  t.eq(#r.p1, 3)
  t.eq(#r.p2, 3)
  t.near(r.normal:norm(), 1, 1e-12, "unit normal")
  t.allnear(r.p2 - r.p1, r.normal * r.distance, 1e-9, "p2 - p1 = distance * normal")
  t.eq(math.type(r.iterations), "integer")
  t.eq(type(r.converged), "boolean")
  t.eq(type(r.penetrating), "boolean")
  t.eq(math.type(r.epa_iterations), "integer")
  t.eq(type(r.gap), "number")
  t.eq(#r.separation, 3)
end

t.case("sphere-sphere: analytic distance, witness points and normal in every variant", function()
  local rng = lucid.rng(11)
  local a, b = lucid.sphere(0.3), lucid.sphere(0.5)
  for _ = 1, 20 do
    local c1 = lucid.vec{rng:normal(), rng:normal(), rng:normal()}
    local u = lucid.vec{rng:normal(), rng:normal(), rng:normal()}
    u = u * (1 / u:norm())
    local d = 2 * rng:uniform() - 0.5 -- from -0.5 (overlap) to 1.5
    local c2 = c1 + u * (0.8 + d)
    local T1 = lucid.se3.new(random_quat(rng), c1)
    local T2 = lucid.se3.new(random_quat(rng), c2)
    for _, alg in ipairs(ALGORITHMS) do
      for _, normalize in ipairs({false, true}) do
        local r = lucid.distance(a, T1, b, T2, {algorithm = alg, normalize = normalize})
        check_result(r)
        t.truthy(r.converged, "converged")
        t.near(r.distance, d, 1e-10, alg)
        t.allnear(r.p1, c1 + u * 0.3, 1e-5, "p1")
        t.allnear(r.p2, c2 - u * 0.5, 1e-5, "p2")
        t.allnear(r.normal, u, 1e-6, "normal from 1 to 2")
        t.eq(r.penetrating, false, "sphere cores are points: never EPA")
      end
    end
  end
end)

t.case("penetrating shapes: negative distance from EPA with the depth", function()
  -- Two unit cubes overlapping by 0.25 along x: depth 0.25, normal +x.
  local box = lucid.box(0.5, 0.5, 0.5)
  local r = lucid.distance(box, I, box, at(0.75, 0.1, -0.2))
  check_result(r)
  t.near(r.distance, -0.25, 1e-9)
  t.truthy(r.penetrating, "EPA ran")
  t.truthy(r.epa_iterations >= 1)
  t.allnear(r.normal, {1, 0, 0}, 1e-9)
  t.near(r.p1[1], 0.5, 1e-9, "p1 on box 1's +x face")
  t.near(r.p2[1], 0.25, 1e-9, "p2 on box 2's -x face")
  -- Penetrating spheres: the radii are added to a zero core distance.
  local s = lucid.sphere(1)
  local q = lucid.distance(s, I, s, at(0, 1.5, 0))
  t.near(q.distance, -0.5, 1e-12)
  t.allnear(q.normal, {0, 1, 0}, 1e-12)
  t.allnear(q.p1, {0, 1, 0}, 1e-12)
  t.allnear(q.p2, {0, 0.5, 0}, 1e-12)
end)

t.case("box on a halfspace: closed form from the lowest corner, both argument orders", function()
  local rng = lucid.rng(5)
  local h = {0.1, 0.2, 0.3}
  local box, floor = lucid.box(h[1], h[2], h[3]), lucid.halfspace({0, 0, 1}, 0.05)
  for _ = 1, 20 do
    local T = random_pose(rng, 0.5)
    local R = T:rotation()
    -- lowest point: depth of the box below its centre is sum_i |R(3, i)| h_i
    local reach = 0
    for i = 1, 3 do reach = reach + math.abs(R:get(3, i)) * h[i] end
    local z = T:translation()[3]
    local r = lucid.distance(box, T, floor, I)
    check_result(r)
    t.near(r.distance, z - reach - 0.05, 1e-12)
    t.allnear(r.normal, {0, 0, -1}, 1e-12)
    t.near(r.p2[3], 0.05, 1e-12, "p2 on the boundary plane")
    t.near(r.p1[3], z - reach, 1e-12, "p1 is the lowest point of the box")
    local q = lucid.distance(floor, I, box, T)
    t.near(q.distance, r.distance, 1e-12)
    t.allnear(q.normal, {0, 0, 1}, 1e-12)
    local hit = lucid.collide(box, T, floor, I)
    t.eq(hit, r.distance <= 0)
  end
end)

t.case("all variants and tolerance modes agree on random ellipsoid pairs", function()
  local rng = lucid.rng(3)
  local separated = 0
  local iterations = {} -- per variant, to check that each option reaches the C solver
  for _ = 1, 30 do
    local e1 = lucid.ellipsoid(0.1 + rng:uniform(), 0.1 + rng:uniform(), 0.1 + rng:uniform())
    local e2 = lucid.ellipsoid(0.1 + rng:uniform(), 0.1 + rng:uniform(), 0.1 + rng:uniform())
    local T1, T2 = random_pose(rng, 1), random_pose(rng, 1)
    local ref = lucid.distance(e1, T1, e2, T2, {tol = 1e-12})
    t.truthy(ref.converged)
    for _, alg in ipairs(ALGORITHMS) do
      for _, normalize in ipairs({false, true}) do
        local r = lucid.distance(e1, T1, e2, T2, {algorithm = alg, normalize = normalize})
        check_result(r)
        t.truthy(r.converged)
        -- absolute gap 1e-8 bounds the distance error by sqrt(1e-8) = 1e-4 (and much less
        -- when separated: g >= ||x||^2 - ||x*||^2 = (||x|| - d)(||x|| + d))
        t.near(r.distance, ref.distance, 1e-4, alg)
        local key = alg .. tostring(normalize)
        iterations[key] = (iterations[key] or 0) + r.iterations
      end
      local absolute = lucid.distance(e1, T1, e2, T2, {algorithm = alg, tol_mode = "absolute"})
      local default = lucid.distance(e1, T1, e2, T2, {algorithm = alg})
      t.eq(absolute.distance, default.distance, "absolute is the default mode")
      -- Relative mode on every pair: separated ones meet g <= tol ||x||^2, overlapping ones
      -- must be detected as such (EPA depth, converged) like in absolute mode.
      local rel = lucid.distance(e1, T1, e2, T2,
        {algorithm = alg, tol_mode = "relative", tol = 1e-10})
      t.truthy(rel.converged)
      if ref.distance > 0 then
        t.near(rel.distance, ref.distance, 1e-5 * ref.distance, "relative mode")
        t.truthy(rel.gap <= 1e-10 * rel.distance ^ 2, "relative gap test")
        separated = separated + 1
      else
        t.truthy(rel.penetrating, "relative mode finds the overlap")
        t.near(rel.distance, ref.distance, 1e-8, "relative mode: EPA depth")
      end
    end
  end
  t.truthy(separated >= 15, "enough separated pairs for the relative mode")
  t.truthy(iterations.gjkfalse ~= iterations.polyakfalse, "algorithm reaches the solver")
  t.truthy(iterations.gjkfalse ~= iterations.nesterovfalse, "algorithm reaches the solver")
  t.truthy(iterations.nesterovfalse ~= iterations.nesterovtrue, "normalize reaches the solver")
end)

t.case("max_iter caps GJK, epa options cap EPA", function()
  local e1, e2 = lucid.ellipsoid(0.5, 0.2, 0.1), lucid.ellipsoid(0.1, 0.4, 0.3)
  local T2 = lucid.se3.new({0.9, 0.3, -0.2, 0.1}, {0.9, 0.1, 0.05})
  local full = lucid.distance(e1, I, e2, T2)
  t.truthy(full.converged and full.iterations > 2)
  local capped = lucid.distance(e1, I, e2, T2, {max_iter = 2})
  t.truthy(capped.iterations <= 2)
  t.eq(capped.converged, false)
  t.truthy(capped.distance >= full.distance - 1e-12, "a capped GJK over-estimates")
  -- Overlapping ellipsoids: EPA needs several iterations to reach 1e-9, one is not enough.
  local T3 = lucid.se3.new({0.9, 0.3, -0.2, 0.1}, {0.3, 0.1, 0.05})
  local deep = lucid.distance(e1, I, e2, T3)
  t.truthy(deep.penetrating and deep.converged and deep.epa_iterations > 1)
  local one = lucid.distance(e1, I, e2, T3, {epa_max_iter = 1})
  t.truthy(one.epa_iterations <= 1)
  t.eq(one.converged, false)
  t.truthy(one.distance >= deep.distance - 1e-12, "an early EPA face under-estimates the depth")
  local loose = lucid.distance(e1, I, e2, T3, {epa_tol = 1e-2})
  t.truthy(loose.epa_iterations <= deep.epa_iterations)
  t.near(loose.distance, deep.distance, 1e-2)
end)

t.case("collide agrees with the distance sign; its distance is a bound", function()
  local rng = lucid.rng(8)
  local shapes = {lucid.box(0.2, 0.3, 0.1), lucid.ellipsoid(0.3, 0.2, 0.1),
    lucid.capsule(0.1, 0.2), lucid.cylinder(0.2, 0.1), lucid.sphere(0.2), lucid.cone(0.2, 0.2),
    lucid.convex({{0, 0, 0}, {0.4, 0, 0}, {0, 0.3, 0}, {0, 0, 0.5}, {0.3, 0.3, 0.3}})}
  local hits, misses = 0, 0
  for k = 1, 400 do
    local s1, s2 = shapes[k % #shapes + 1], shapes[(k * 3) % #shapes + 1]
    local T1, T2 = random_pose(rng, 0.4), random_pose(rng, 0.4)
    local r = lucid.distance(s1, T1, s2, T2)
    if math.abs(r.distance) > 1e-6 then
      for _, alg in ipairs(ALGORITHMS) do
        local hit, b = lucid.collide(s1, T1, s2, T2, {algorithm = alg})
        t.eq(type(hit), "boolean")
        t.eq(hit, r.distance < 0, alg)
        t.near(b.normal:norm(), 1, 1e-12)
        if hit then
          t.truthy(b.distance <= 1e-12 and b.distance >= r.distance - 1e-6, "upper bound <= 0")
        else
          t.truthy(b.distance > 0 and b.distance <= r.distance + 1e-6, "positive lower bound")
        end
      end
      if r.distance < 0 then hits = hits + 1 else misses = misses + 1 end
    end
  end
  t.truthy(hits > 50 and misses > 50, "both outcomes are exercised")
end)

-- Warm starts: a previous result restarts GJK at its separation vector (r.separation). On a
-- separated result that is the optimum itself, so vanilla GJK needs no more iterations than
-- from the box centres; after a move, and for the accelerated variants (whose momentum does
-- not start at rest), the totals are compared. On penetrating results the separation is EPA's penetration vector, a
-- boundary point of the Minkowski difference, which helps GJK's overlap detection less than
-- the box centres (deep inside it): only the answer is checked there (see docs/collision.md).
t.case("warm start from a previous result or a vector: same answer, no more iterations", function()
  local rng = lucid.rng(21)
  local m = lucid.convex({{-0.3, -0.2, -0.1}, {0.3, -0.2, -0.1}, {0, 0.3, -0.1}, {0, 0, 0.4},
    {0.1, 0.1, 0.1}, {-0.2, 0.1, 0.2}})
  local cold_total, warm_total, moved_cold, moved_warm, separated = {}, {}, {}, {}, 0
  for _, alg in ipairs(ALGORITHMS) do
    cold_total[alg], warm_total[alg], moved_cold[alg], moved_warm[alg] = 0, 0, 0, 0
  end
  for k = 1, 80 do
    local s1 = k % 2 == 0 and lucid.ellipsoid(0.3, 0.2, 0.15) or m
    local s2 = lucid.ellipsoid(0.25, 0.1, 0.2)
    local T1, T2 = random_pose(rng, 0.8), random_pose(rng, 0.8)
    local T2b = T2 * lucid.se3.exp({0.01, -0.005, 0.01, 0.02, 0.01, -0.01})
    for _, alg in ipairs(ALGORITHMS) do
      local r0 = lucid.distance(s1, T1, s2, T2, {algorithm = alg})
      local again = lucid.distance(s1, T1, s2, T2, {algorithm = alg, warm_start = r0})
      t.near(again.distance, r0.distance, 1e-6)
      -- a slightly moved pose (the simulation case)
      local cold = lucid.distance(s1, T1, s2, T2b, {algorithm = alg})
      local warm = lucid.distance(s1, T1, s2, T2b, {algorithm = alg, warm_start = r0})
      t.near(warm.distance, cold.distance, 1e-6)
      local vec = lucid.distance(s1, T1, s2, T2b, {algorithm = alg, warm_start = r0.separation})
      t.eq(vec.distance, warm.distance, "a vector warm start is the result's separation")
      t.eq(vec.iterations, warm.iterations)
      local tbl = lucid.distance(s1, T1, s2, T2b,
        {algorithm = alg, warm_start = {r0.separation[1], r0.separation[2], r0.separation[3]}})
      t.eq(tbl.distance, vec.distance, "a table of three numbers is a vector")
      if not r0.penetrating and not cold.penetrating then
        if alg == "gjk" then
          t.truthy(again.iterations <= r0.iterations, "no more iterations on the same query")
          separated = separated + 1
        end
        cold_total[alg] = cold_total[alg] + r0.iterations
        warm_total[alg] = warm_total[alg] + again.iterations
        moved_cold[alg] = moved_cold[alg] + cold.iterations
        moved_warm[alg] = moved_warm[alg] + warm.iterations
      end
    end
  end
  t.truthy(separated >= 30, "enough separated pairs")
  for _, alg in ipairs(ALGORITHMS) do
    t.truthy(warm_total[alg] < cold_total[alg], string.format("%s: same query, warm %d vs cold %d",
      alg, warm_total[alg], cold_total[alg]))
    t.truthy(moved_warm[alg] < moved_cold[alg], string.format("%s: moved, warm %d vs cold %d",
      alg, moved_warm[alg], moved_cold[alg]))
  end
end)

t.case("default warm start of a mesh is its bounding-box centre, not its frame origin", function()
  -- All points far from the mesh's frame origin: its box centre is (5.1, 0.05, 0.1).
  local m = lucid.convex({{5, 0, 0}, {5.2, 0, 0}, {5, 0.1, 0}, {5, 0, 0.2}, {5.2, 0.1, 0.2}})
  local e = lucid.ellipsoid(0.2, 0.1, 0.3)
  local rng = lucid.rng(4)
  local c = lucid.vec{5.1, 0.05, 0.1}
  for _ = 1, 20 do
    local T1 = random_pose(rng, 1)
    local T2 = T1 * at(5.1, 0.6, 0.1) * random_pose(rng, 0.1)
    local default = lucid.distance(m, T1, e, T2)
    local explicit = lucid.distance(m, T1, e, T2, {warm_start = T1:act(c) - T2:translation()})
    t.eq(default.distance, explicit.distance, "same start vector, same arithmetic")
    t.eq(default.iterations, explicit.iterations)
  end
end)

-- 7 x N pose matrix from a list of {quat, t}.
local function pose_matrix(list)
  local X = lucid.zeros(7, #list)
  for j, p in ipairs(list) do
    for i = 1, 4 do X:set(i, j, p[1][i]) end
    for i = 1, 3 do X:set(4 + i, j, p[2][i]) end
  end
  return X
end

t.case("distance_batch equals a loop of lucid.distance exactly", function()
  local rng = lucid.rng(17)
  local mesh = lucid.convex({{0, 0, 0}, {0.4, 0, 0}, {0, 0.3, 0}, {0, 0, 0.5}, {0.3, 0.3, 0.3},
    {0.1, 0.35, 0.2}})
  local pairs_ = {{lucid.box(0.2, 0.1, 0.3), lucid.ellipsoid(0.1, 0.2, 0.15)},
    {mesh, lucid.capsule(0.1, 0.2)}, {lucid.sphere(0.2), lucid.halfspace({0, 0, 1}, 0)},
    {lucid.cylinder(0.2, 0.1), mesh}}
  for _, pair in ipairs(pairs_) do
    local p1, p2 = {}, {}
    for j = 1, 50 do
      -- quaternions deliberately not normalised: the batch normalises like lucid.se3.new
      p1[j] = {random_quat(rng), {rng:uniform() - 0.5, rng:uniform() - 0.5, rng:uniform() - 0.5}}
      p2[j] = {random_quat(rng), {rng:uniform() - 0.5, rng:uniform() - 0.5, rng:uniform() - 0.5}}
    end
    for _, opts in ipairs({{}, {algorithm = "nesterov", normalize = true, tol = 1e-10},
      {algorithm = "polyak", warm_start = {1, 0, 0}}}) do
      local d, it = lucid.distance_batch(pair[1], pair[2], pose_matrix(p1), pose_matrix(p2), opts)
      t.eq(#d, 50)
      t.eq(#it, 50)
      for j = 1, 50 do
        local r = lucid.distance(pair[1], lucid.se3.new(p1[j][1], p1[j][2]), pair[2],
          lucid.se3.new(p2[j][1], p2[j][2]), opts)
        t.eq(d[j], r.distance, "batch column " .. j)
        t.eq(it[j], r.iterations, "batch iterations " .. j)
      end
    end
  end
  local d, it = lucid.distance_batch(lucid.sphere(1), lucid.sphere(1), lucid.zeros(7, 0),
    lucid.zeros(7, 0))
  t.eq(#d, 0)
  t.eq(#it, 0)
end)

t.case("distance_batch chain: warm-starts along a trajectory within tolerance", function()
  local e1, e2 = lucid.ellipsoid(0.3, 0.2, 0.1), lucid.ellipsoid(0.1, 0.25, 0.2)
  local p1, p2 = {}, {}
  for j = 1, 200 do
    local a = 0.02 * j
    p1[j] = {{1, 0, 0, 0}, {0, 0, 0}}
    p2[j] = {{math.cos(a), 0.3 * math.sin(a), math.sin(a), 0}, {0.6 + 0.2 * math.sin(a), 0.1, 0}}
  end
  local X1, X2 = pose_matrix(p1), pose_matrix(p2)
  for _, alg in ipairs(ALGORITHMS) do
    local d, it = lucid.distance_batch(e1, e2, X1, X2, {algorithm = alg})
    local dc, itc = lucid.distance_batch(e1, e2, X1, X2, {algorithm = alg, chain = true})
    local cold, warm = 0, 0
    for j = 1, 200 do
      t.near(dc[j], d[j], 1e-6, "chained query " .. j)
      cold, warm = cold + it[j], warm + itc[j]
    end
    t.eq(dc[1], d[1], "the first query is not warm-started")
    t.truthy(warm < cold, string.format("%s: chained %d vs independent %d", alg, warm, cold))
  end
end)

t.case("misuse raises errors naming the function and the problem", function()
  local s, b = lucid.sphere(1), lucid.box(1, 1, 1)
  local h = lucid.halfspace({0, 0, 1}, 0)
  for _, f in ipairs({"distance", "collide"}) do
    local fn, name = lucid[f], "lucid." .. f
    t.raises(name .. ": s1 must be a lucid shape", fn, 1, I, s, I)
    t.raises(name .. ": T1 must be a lucid.se3 pose", fn, s, {1, 2, 3}, s, I)
    t.raises(name .. ": s2 must be a lucid shape", fn, s, I, "box", I)
    t.raises(name .. ": T2 must be a lucid.se3 pose", fn, s, I, s, nil)
    t.raises(name .. ": opts must be a table", fn, s, I, s, I, 3)
    t.raises(name .. ': algorithm must be "gjk", "polyak" or "nesterov" (got frank)', fn, s, I, s, I,
      {algorithm = "frank"})
    t.raises(name .. ": algorithm must be", fn, s, I, s, I, {algorithm = 1})
    t.raises(name .. ": tol must be > 0 (got 0.0)", fn, s, I, s, I, {tol = 0})
    t.raises(name .. ": tol must be > 0", fn, s, I, s, I, {tol = -1e-8})
    t.raises(name .. ": tol must be finite", fn, s, I, s, I, {tol = 0 / 0})
    t.raises(name .. ": max_iter must be an integer >= 1 (got 0)", fn, s, I, s, I, {max_iter = 0})
    t.raises(name .. ": max_iter must be an integer", fn, s, I, s, I, {max_iter = 2.5})
    t.raises(name .. ": normalize must be a boolean", fn, s, I, s, I, {normalize = 1})
    t.raises(name .. ": tol_mode must be", fn, s, I, s, I, {tol_mode = "loose"})
    t.raises(name .. ": epa_tol must be >= 0", fn, s, I, s, I, {epa_tol = -1})
    t.raises(name .. ": epa_max_iter must be an integer in [0, 1024] (got -1)", fn, s, I, s, I,
      {epa_max_iter = -1})
    t.raises(name .. ": epa_max_iter must be an integer in [0, 1024] (got 1025)", fn, s, I, s, I,
      {epa_max_iter = 1025})
    t.raises(name .. ": unknown option 'tols'", fn, s, I, s, I, {tols = 1})
    t.raises(name .. ": unknown option 'chain'", fn, s, I, s, I, {chain = true})
    t.raises(name .. ": warm_start must be a 3-vector or a previous result", fn, s, I, s, I,
      {warm_start = "previous"})
    t.raises(name .. ": warm_start must have 3 entries", fn, s, I, s, I, {warm_start = {1, 2}})
    t.raises(name .. ": warm_start must be finite", fn, s, I, s, I, {warm_start = {0 / 0, 0, 0}})
    t.raises(name .. ": warm_start.separation", fn, s, I, s, I,
      {warm_start = {separation = "x"}})
    t.raises(name .. ": s1 and s2 are both halfspaces", fn, h, I, h, at(0, 0, 1))
    -- a halfspace with any other shape is fine
    t.truthy(fn(h, I, b, at(0, 0, 3)) ~= nil)
  end
  local fn, name = lucid.distance_batch, "lucid.distance_batch"
  local X = pose_matrix({{{1, 0, 0, 0}, {0, 0, 0}}, {{1, 0, 0, 0}, {1, 0, 0}}})
  t.raises(name .. ": s1 must be a lucid shape", fn, I, s, X, X)
  t.raises(name .. ": s2 must be a lucid shape", fn, s, nil, X, X)
  t.raises(name .. ": X1 must be a lucid matrix", fn, s, s, {1, 0, 0, 0, 0, 0, 0}, X)
  t.raises(name .. ": X2 must be 7 x N", fn, s, s, X, lucid.zeros(6, 2))
  t.raises(name .. ": X1 and X2 must have the same number of columns", fn, s, s, X,
    lucid.zeros(7, 3))
  t.raises(name .. ": algorithm must be", fn, s, s, X, X, {algorithm = "x"})
  t.raises(name .. ": chain must be a boolean", fn, s, s, X, X, {chain = "yes"})
  t.raises(name .. ": s1 and s2 are both halfspaces", fn, h, h, X, X)
  local zero = pose_matrix({{{1, 0, 0, 0}, {0, 0, 0}}, {{0, 0, 0, 0}, {1, 0, 0}}})
  t.raises(name .. ": X2 column 2 is not a pose: its quaternion is zero", fn, s, s, X, zero)
  -- lucid.mat:set refuses NaN and Inf, so build them by overflow: 1e308 * 10 = Inf and
  -- Inf - Inf = NaN, only at the entry that held 1e308.
  local big = lucid.zeros(7, 2)
  big:set(6, 1, 1e308)
  local nan = X + (big * 10 - big * 10)
  t.raises(name .. ": X1 column 1 is not a pose: it contains NaN or Inf", fn, s, s, nan, X)
  big = lucid.zeros(7, 2)
  big:set(2, 2, 1e308)
  t.raises(name .. ": X2 column 2 is not a pose: it contains NaN or Inf", fn, s, s, X,
    X + big * 10)
end)

-- Regression (issue 16): unit spheres at +-1.7e308 gave distance -2 and a hit, at +-1e300 an
-- infinite distance; sizes from 1e150 gave NaN; halfspace({1e-320, 0, 0}, 1) was accepted.
-- The representable range (docs/collision.md): sizes and coordinates up to 1e40.
t.case("geometry beyond the representable range is rejected by name, the bound is exact", function()
  local MAX = 1e40
  local beyond = MAX * (1 + 2 ^ -52) -- the next double
  local range = "the representable range of geometry"
  local s = lucid.sphere(1)
  for _, x in ipairs{1.7e308, 1e300, beyond} do
    t.raises("lucid.distance: T1 translation must be within", lucid.distance, s, at(x, 0, 0), s,
      at(-x, 0, 0))
    t.raises("lucid.collide: T2 translation", lucid.collide, s, I, s, at(0, 0, -x))
    t.raises("lucid.world:add_body: pose translation", function()
      lucid.world{}:add_body{shape = s, pose = at(0, x, 0)}
    end)
    t.raises("lucid.distance_batch: X2 column 1: translation must be within",
      lucid.distance_batch, s, s, lucid.mat{{1}, {0}, {0}, {0}, {0}, {0}, {0}},
      lucid.mat{{1}, {0}, {0}, {0}, {x}, {0}, {0}})
  end
  t.raises("lucid.sphere: radius must be at most", lucid.sphere, beyond)
  t.raises("lucid.sphere: radius must be at most", lucid.sphere, 1e150)
  t.raises("lucid.box: hz must be at most", lucid.box, 1, 1, beyond)
  t.raises("lucid.cone: half-length must be at most", lucid.cone, 1, beyond)
  t.raises(range, lucid.ellipsoid, beyond, 1, 1)
  t.raises(range, lucid.capsule, beyond, 1)
  t.raises(range, lucid.cylinder, 1, beyond)
  t.raises("lucid.convex: vertex coordinates must be within", lucid.convex,
    {{0, 0, 0}, {beyond, 0, 0}, {0, beyond, 0}, {0, 0, beyond}})
  t.raises("lucid.halfspace: normal must be nonzero and not subnormal", lucid.halfspace,
    {1e-320, 0, 0}, 1)
  t.raises("lucid.halfspace: offset / |normal| must be within", lucid.halfspace, {1e-300, 0, 0}, 1)
  -- At the bound: accepted, and the answers are exact.
  local big = lucid.sphere(MAX)
  local r = lucid.distance(s, at(MAX, 0, 0), s, at(-MAX, 0, 0))
  t.near(r.distance / MAX, 2, 1e-15)
  t.allnear(r.normal, {-1, 0, 0}, 0)
  t.near(lucid.distance(big, at(MAX, 0, 0), big, at(-MAX, 0, 0)).distance / MAX, 0, 1e-15)
  local hit = lucid.collide(s, at(0, MAX, 0), s, at(0, -MAX, 0))
  t.eq(hit, false)
  local tet = lucid.convex{{0, 0, 0}, {MAX, 0, 0}, {0, MAX, 0}, {0, 0, MAX}}
  t.near(lucid.distance(tet, I, s, at(-MAX, 0, 0)).distance / MAX, 1, 1e-15)
  local floor = lucid.halfspace({0, 0, 2}, 2 * MAX) -- offset / |normal| = MAX exactly
  t.near(lucid.distance(floor, I, lucid.sphere(MAX / 2), at(0, 0, MAX)).distance / MAX, -0.5,
    1e-15)
  -- A world body of the largest size (inertia ~1e203: its determinant overflowed and the body
  -- was "singular") moves as a free body.
  local w = lucid.world{gravity = {0, 0, 0}, dt = 1e-3}
  local id = w:add_body{shape = big, pose = at(MAX / 2, 0, 0), velocity = {MAX, 0, 0, 0, 0, 1}}
  w:step(3)
  t.near(w:pose(id):translation()[1] / MAX, 0.5 + 3e-3, 1e-12)
  t.near(w:velocity(id)[6], 1, 1e-12)
end)

return t
