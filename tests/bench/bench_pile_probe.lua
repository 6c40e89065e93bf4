-- Where the default solve misses tol on a pile of mixed objects (issue 32): drops N boxes,
-- capsules, ellipsoids and convex hulls (bench_bin's pile recipe, 0.1 kg each) into a bin,
-- counts the steps whose stats.converged held after a settling second, and on the first
-- unconverged steps solves the last island's problem offline with each candidate solver and
-- lists the contacts that hold its residual.
--   ./lucid tests/bench/bench_pile_probe.lua [N] [MODEL:SOLVER] [PROBES]
-- Recorded in docs/benchmarks/solve_choice.md.
local lucid = require "lucid"
local N = tonumber(arg[1]) or 60
local pair = arg[2] or "ncp:admm"
local probes = tonumber(arg[3]) or 2
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

local CANDIDATES = {{"ncp", "admm", 200}, {"ncp", "admm", 5000}, {"ncp", "pgs", 5000}, {"ncp", "ip", 200},
                    {"ccp", "newton", 200}}

-- The last island's problem solved by each candidate, and the contacts holding ncp:admm's residual.
local function probe(step)
  local P = w:contact_problem()
  if #P.mu == 0 then return end
  print(string.format("step %d: last island, %d contacts", step, #P.mu))
  local admm
  for _, c in ipairs(CANDIDATES) do
    local sol = lucid.contact.solve{G = P.G, g = P.g, mu = P.mu, R = P.R, model = c[1], solver = c[2],
                                    max_iter = c[3], tol = 1e-6}
    print(string.format("  %s:%s max_iter %d: %s in %d iterations, criterion %.2e", c[1], c[2], c[3],
                        sol.converged and "met tol" or "missed tol", sol.iterations, sol.model_residual.abs))
    if c[2] == "admm" then admm = sol end
  end
  local r = lucid.contact.residual(P.G, P.g, P.mu, admm.lambda)
  local order = {}
  for i, c in ipairs(r.contacts) do order[i] = {i, math.max(c.primal, c.dual, c.complementarity)} end
  table.sort(order, function(a, b) return a[2] > b[2] end)
  local contacts = w:contacts()
  for j = 1, math.min(4, #order) do
    local i = order[j][1]
    local c = contacts[P.contacts[i]]
    print(string.format("  contact %d (bodies %d, %d: %s) criterion %.2e, velocity (%.2e, %.2e, %.2e), " ..
                        "force (%.2e, %.2e, %.2e)", i, c.body1, c.body2, kinds[c.body2] or "static", order[j][2],
                        r.velocity[3 * i - 2], r.velocity[3 * i - 1], r.velocity[3 * i],
                        admm.lambda[3 * i - 2], admm.lambda[3 * i - 1], admm.lambda[3 * i]))
  end
end

local settle, steps, converged, iterations, probed = 60, 200, 0, 0, 0
for s = 1, settle + steps do
  w:step()
  local st = w:stats()
  if s > settle then
    iterations = iterations + st.iterations
    if st.converged then
      converged = converged + 1
    elseif probed < probes then
      probed = probed + 1
      probe(s)
    end
  end
end
print(string.format("pile of %d, %s: %d of %d steps converged, %.1f iterations/step", N, pair, converged,
                    steps, iterations / steps))
