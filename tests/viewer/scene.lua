-- The scene of the browser test (tests/viewer/test_viewer_browser.py): a red box launched
-- sliding along x on a ground plane and a blue sphere falling beside it. Writes the replay
-- page to arg[1] (a fixed camera) and, given arg[2], the page with the default camera there;
-- prints, as JSON, the camera, the frame count, the world position of both bodies at every
-- frame the test looks at, and the scene's bounds (every body's reach over every frame).
local lucid = require "lucid"
local json = require "lucid.json"
local out = assert(arg[1], "usage: lucid tests/viewer/scene.lua OUT.html")

local w = lucid.world{dt = 2e-3}
w:add_static{shape = lucid.halfspace({0, 0, 1}, 0), friction = 0.5}
local box = w:add_body{shape = lucid.box(0.06, 0.06, 0.06), friction = 0.5,
                       pose = lucid.se3.new({1, 0, 0, 0}, {-0.25, 0, 0.06}),
                       velocity = {2, 0, 0, 0, 0, 0}}
local ball = w:add_body{shape = lucid.sphere(0.07), pose = lucid.se3.new({1, 0, 0, 0}, {0, 0.3, 0.6})}
local rec = w:record{every = 5}
w:step(500)
rec:stop()

local camera = {eye = {0.1, -1.6, 0.7}, target = {0.1, 0.1, 0.1}}
local colors = {[box] = "#d00000", [ball] = "#0030d0"}
lucid.viewer.write(out, rec, {title = "viewer test", camera = camera, colors = colors})
if arg[2] then lucid.viewer.write(arg[2], rec, {title = "viewer test, default camera", colors = colors}) end
-- the bounds the default camera must frame: each body's centre +- its bounding radius
local reach = {[box] = math.sqrt(3) * 0.06, [ball] = 0.07}
local lo, hi = {math.huge, math.huge, math.huge}, {-math.huge, -math.huge, -math.huge}
for k = 1, #rec do
  local f = rec:frame(k)
  for id, r in pairs(reach) do
    local p = f.poses[id]:translation()
    for a = 1, 3 do lo[a], hi[a] = math.min(lo[a], p[a] - r), math.max(hi[a], p[a] + r) end
  end
end
local positions = {}
for _, k in ipairs{1, #rec} do
  local f = rec:frame(k)
  local function at(id) local p = f.poses[id]:translation() return {p[1], p[2], p[3]} end
  positions[tostring(k)] = {box = at(box), ball = at(ball), contacts = #f.contacts}
end
print(json.encode{camera = camera, frames = #rec, fov = 40, positions = positions, bounds = {lo, hi},
                  colors = {box = colors[box], ball = colors[ball]}})
