local k, e = tonumber(os.getenv("K") or "0"), {}
for r = 1, 41 do e[r] = {} for c = 1, 41 do e[r][c] = 0.02 * math.sin(r - k) * math.cos(c - k) end end
local w = lucid.world{dt = 1e-3}
w:add_static{shape = lucid.heightfield{elevation = e, size = {1, 1, 0.5, 0.2}}, friction = 1}
local ids = {}
for i = 0, 19 do
  ids[#ids+1] = w:add_body{shape = i % 2 == 0 and lucid.cylinder(0.05, 0.1) or lucid.box(0.05, 0.04, 0.03),
             mass = 1, friction = 1,
             pose = lucid.se3.new({1, 0, 0, 0}, {-0.8 + 0.08 * i, 0.05 * (i % 5), 0.3}) *
                    lucid.se3.exp({0, 0, 0, 1.2, 0.3, 0})}
end
local vmax, at, unconv = 0, 0, 0
for s = 1, 2000 do
  w:step()
  if not w:stats().converged then unconv = unconv + 1 end
  for _, id in ipairs(ids) do
    local v = w:velocity(id)
    local sp = math.sqrt(v[1]^2 + v[2]^2 + v[3]^2)
    if sp > vmax then vmax, at = sp, s end
  end
end
print(string.format("max speed %.3g m/s at step %d, unconverged %d", vmax, at, unconv))
