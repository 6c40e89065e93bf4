-- The island problems where the default solve misses tol on bench_pile_probe.lua's pile
-- (issue 32): runs the probe's scene and writes, for every unconverged step whose scene is one
-- island, that island's problem scaled as the island solve scales it (powers of two: tol bounds
-- its criterion) to DIR/nN_sSTEP.lua ({n, G, g, mu, R, lambda}); bench_ip_offline.lua solves
-- them. Recorded in docs/benchmarks/solve_choice.md.
--   ./lucid tests/bench/bench_pile_dump.lua [N] [MODEL:SOLVER] [DIR]
local lucid = require "lucid"
local N = tonumber(arg[1]) or 60
local pair = arg[2] or "ncp:admm"
local model, solver = pair:match("(%w+):(%w+)")
local w = lucid.world{dt = 0.005, contact = {model = model, solver = solver}}
w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
local seed = 12345 -- a fixed linear congruential sequence: the same pile on every run
local function rnd()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
end
local k = math.ceil(math.sqrt(N / 4))
local cell = 0.09
local half = 0.5 * (k + 0.5) * cell + 0.004
for i, c in ipairs{{half + 0.01, 0}, {-half - 0.01, 0}, {0, half + 0.01}, {0, -half - 0.01}} do
  local hx, hy = 0.01, half + 0.02
  if i > 2 then hx, hy = hy, hx end
  w:add_static{shape = lucid.box(hx, hy, 0.15), pose = lucid.se3.new({1, 0, 0, 0}, {c[1], c[2], 0.15})}
end
local function object(kind)
  if kind == 0 then
    local a, b, c = 0.02 + 0.015 * rnd(), 0.02 + 0.015 * rnd(), 0.02 + 0.015 * rnd()
    return lucid.box(a, b, c), math.sqrt(a * a + b * b + c * c), "box"
  elseif kind == 1 then
    local r, h = 0.012 + 0.008 * rnd(), 0.01 + 0.015 * rnd()
    return lucid.capsule(r, h), r + h, "capsule"
  elseif kind == 2 then
    local a, b, c = 0.02 + 0.015 * rnd(), 0.02 + 0.015 * rnd(), 0.015 + 0.01 * rnd()
    return lucid.ellipsoid(a, b, c), math.max(a, b, c), "ellipsoid"
  end
  local points = {}
  for p = 1, 12 do
    local d = {2 * rnd() - 1, 2 * rnd() - 1, 2 * rnd() - 1}
    local r = (0.02 + 0.012 * rnd()) / math.sqrt(d[1] ^ 2 + d[2] ^ 2 + d[3] ^ 2)
    points[p] = {r * d[1], r * d[2], r * d[3]}
  end
  return lucid.convex(points), 0.032, "hull"
end
local kinds, z, layer_height = {}, 0, 0
for i = 0, N - 1 do
  local layer, c = i // (k * k), i % (k * k)
  if c == 0 then z, layer_height = z + layer_height, 0 end
  local shape, r, kind = object(i % 4)
  local shift = layer % 2 == 1 and 0.5 * cell or 0
  local x = -half + 0.004 + (c % k + 0.5) * cell + shift
  local y = -half + 0.004 + (c // k + 0.5) * cell + shift
  local tilt = lucid.se3.exp(lucid.vec{0, 0, 0, rnd(), rnd(), rnd()})
  local id = w:add_body{shape = shape, mass = 0.1, pose = lucid.se3.new({1, 0, 0, 0}, {x, y, z + r + 0.01}) * tilt}
  kinds[id] = kind
  layer_height = math.max(layer_height, 2 * r + 0.01)
end
local dir = arg[3] or "pile_problems"
os.execute("mkdir -p '" .. dir .. "'")

-- The largest power of two not above x (lucid_world_island_scales).
local function power_of_two_below(x)
  local _, e = math.frexp(x)
  return 2.0 ^ (e - 1)
end

local function dump(step)
  local P = w:contact_problem()
  local n, m = #P.mu, 3 * #P.mu
  local g_max, diag = 0, 0
  for k = 1, m do g_max = math.max(g_max, math.abs(P.g[k])) end
  for i = 1, n do diag = math.max(diag, P.G:get(3 * i, 3 * i) + (P.R and P.R[3 * i] or 0)) end
  local v = (g_max > 0 and g_max < 1) and power_of_two_below(g_max) or 1
  local f = (g_max > 0 and g_max or 1) / diag
  f = (f > 0 and f < 1) and power_of_two_below(f) or 1
  local out = assert(io.open(string.format("%s/n%d_s%d.lua", dir, N, step), "w"))
  local function vector(name, t, scale)
    local s = {}
    for k = 1, #t do s[k] = string.format("%.17g", t[k] * scale) end
    out:write(name, " = {", table.concat(s, ", "), "},\n")
  end
  out:write(string.format("-- pile of %d, step %d, %d contacts\nreturn {n = %d,\nG = {\n", N, step, n, n))
  for i = 1, m do
    local row = {}
    for j = 1, m do row[j] = string.format("%.17g", P.G:get(i, j) * f / v) end
    out:write("{", table.concat(row, ", "), "},\n")
  end
  out:write("},\n")
  vector("g", P.g, 1 / v)
  vector("mu", P.mu, 1)
  if P.R then vector("R", P.R, f / v) end
  vector("lambda", P.lambda, 1 / f)
  out:write("}\n")
  out:close()
end

local settle, steps, converged, written = 60, 200, 0, 0
for s = 1, settle + steps do
  w:step()
  local st = w:stats()
  if s > settle then
    if st.converged then
      converged = converged + 1
    elseif st.islands == 1 then
      dump(s)
      written = written + 1
    end
  end
end
print(string.format("pile of %d, %s: %d of %d steps converged, %d one-island problems written to %s", N, pair,
                    converged, steps, written, dir))
