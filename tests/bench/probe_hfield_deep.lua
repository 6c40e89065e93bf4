-- A box (3 cm half height) and a sphere (r 3 cm) placed at growing depths in a flat height field
-- (5 cm cells, one raised sample far away): the contacts one step finds, and the deepest.
local E = {} for r = 1, 41 do E[r] = {} for c = 1, 41 do E[r][c] = (r == 1 and c == 1) and 1 or 0 end end
for _, sh in ipairs({{"box", lucid.box(0.05, 0.04, 0.03), 0.03}, {"sphere", lucid.sphere(0.03), 0.03}}) do
  local line = {}
  for z = 0.025, -0.0301, -0.005 do
    local w = lucid.world{dt = 1e-3}
    w:add_static{shape = lucid.heightfield{elevation = E, size = {1, 1, 0.5, 0.2}}}
    w:add_body{shape = sh[2], mass = 1, pose = lucid.se3.new({1, 0, 0, 0}, {-0.335, 0.152, z})}
    w:step()
    local n, deep = 0, 0
    for _, c in ipairs(w:contacts()) do n = n + 1; deep = math.min(deep, c.separation) end
    line[#line+1] = string.format("depth %.3f: %d (%.3f)", sh[3] - z, n, deep)
  end
  print(sh[1] .. ": " .. table.concat(line, ", "))
end
