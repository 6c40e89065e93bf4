-- The height field scene of the browser test (tests/viewer/test_viewer_browser.py): a red box
-- and a blue ball dropped onto a bumpy terrain (a lucid.heightfield of 9 x 13 samples, moved
-- off the origin). Writes the replay page to arg[1] (a fixed camera) and prints, as JSON, the
-- camera, the frame count, the bodies' world positions at the last frame, and the field:
-- rows, columns, size, its translation and its heights as lucid defines them (MuJoCo's
-- normalisation, computed here from the elevations).
local lucid = require "lucid"
local json = require "lucid.json"
local out = assert(arg[1], "usage: lucid tests/viewer/terrain.lua OUT.html")

local ROWS, COLS, SIZE = 9, 13, {0.6, 0.4, 0.15, 0.05}
local ORIGIN = {0.1, 0, 0}
local elevation, lo, hi = {}, math.huge, -math.huge
for r = 1, ROWS do
  elevation[r] = {}
  for c = 1, COLS do
    local e = math.sin(0.9 * c) * math.cos(0.7 * r) + 0.05 * c
    elevation[r][c], lo, hi = e, math.min(lo, e), math.max(hi, e)
  end
end
local heights = {}
for r = 1, ROWS do
  for c = 1, COLS do heights[#heights + 1] = SIZE[3] * (elevation[r][c] - lo) / (hi - lo) end
end

local w = lucid.world{dt = 2e-3}
w:add_static{shape = lucid.heightfield{elevation = elevation, size = SIZE}, friction = 0.8,
             pose = lucid.se3.new({1, 0, 0, 0}, ORIGIN)}
local box = w:add_body{shape = lucid.box(0.05, 0.05, 0.05), friction = 0.8,
                       pose = lucid.se3.new({1, 0, 0, 0}, {-0.15, -0.1, 0.3})}
local ball = w:add_body{shape = lucid.sphere(0.06), friction = 0.8,
                        pose = lucid.se3.new({1, 0, 0, 0}, {0.3, 0.1, 0.35})}
local rec = w:record{every = 5}
w:step(400)
rec:stop()

local camera = {eye = {0.1, -1.3, 0.8}, target = {0.1, 0, 0.05}}
lucid.viewer.write(out, rec, {title = "viewer test, terrain", camera = camera,
                              colors = {[box] = "#d00000", [ball] = "#0030d0"}})
local last = rec:frame(#rec)
local function at(id) local p = last.poses[id]:translation() return {p[1], p[2], p[3]} end
print(json.encode{camera = camera, frames = #rec, rows = ROWS, columns = COLS, size = SIZE,
                  origin = ORIGIN, heights = heights, box = at(box), ball = at(ball)})
