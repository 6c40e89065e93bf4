-- bench_bin's pile recipe, shared by bench_pile_probe.lua and bench_pile_dump.lua: N boxes,
-- capsules, ellipsoids and convex hulls of 12 random points (0.1 kg each) in layers over a bin
-- (a floor and four walls), from a fixed linear congruential sequence so that every run drops
-- the same pile. Returns the world (contact model and solver as given) and each body's kind.
local lucid = require "lucid"

return function(N, model, solver)
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
  return w, kinds
end
