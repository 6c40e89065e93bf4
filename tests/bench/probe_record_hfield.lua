-- What recording a height field costs (docs/viewer.md, "Memory"; issue34_targets.md row 3.6):
-- a ball dropped on an n x n field, recorded at every step, frame 1 alone and after 100 steps.
-- The grid is stored once, so the cost of a frame must not depend on the field's size.
-- Usage: ./build/lucid tests/bench/probe_record_hfield.lua
local function run(n, steps)
  local e = {}
  for r = 1, n do
    e[r] = {}
    for c = 1, n do e[r][c] = math.sin(0.3 * r) * math.cos(0.2 * c) end
  end
  local w = lucid.world{dt = 1e-3}
  w:add_static{shape = lucid.heightfield{elevation = e, size = {1, 1, 0.1, 0.1}}}
  w:add_body{shape = lucid.sphere(0.05), pose = lucid.se3.new({1, 0, 0, 0}, {0, 0, 0.3})}
  local rec = w:record()
  if steps > 0 then w:step(steps) end
  rec:stop()
  return #rec:json(), rec:info().bytes, #rec
end
for _, n in ipairs{2, 100, 200} do
  local j1, b1 = run(n, 0)
  local j2, b2, frames = run(n, 100)
  print(string.format("%3d x %-3d field: JSON %d B at frame 1, %d B at %d frames (+%.1f B a frame);"
                      .. " data %d B, %d B (+%.1f B a frame)", n, n, j1, j2, frames,
                      (j2 - j1) / 100, b1, b2, (b2 - b1) / 100))
end
