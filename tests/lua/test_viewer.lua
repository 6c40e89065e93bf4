-- Recordings (w:record) and the replay page (lucid.viewer.write): frames against the world,
-- the JSON format, memory limits, misuse, and the page's self-containment. The page in a
-- browser: tests/viewer/test_viewer_browser.py.
local t = require "testing"
local lucid = require "lucid"
local json = require "lucid.json"

local function at(x, y, z) return lucid.se3.new({1, 0, 0, 0}, {x, y, z}) end

local function scene()
  local w = lucid.world{dt = 1e-3}
  w:add_static{shape = lucid.halfspace({0, 0, 1}, 0)}
  local box = w:add_body{shape = lucid.box(0.1, 0.1, 0.1), pose = at(0, 0, 0.1),
                         velocity = {1, 0, 0, 0, 0, 0}}
  return w, box
end

local function tmpfile(suffix)
  local name = os.tmpname()
  os.remove(name)
  return name .. suffix
end

t.case("frames hold the poses, contacts and times of every step", function()
  local w, box = scene()
  local rec = w:record()
  t.eq(#rec, 1, "the state at record() is frame 1")
  local poses, forces = {}, {}
  for k = 1, 30 do
    w:step()
    poses[k] = w:pose(box)
    forces[k] = w:contacts()
  end
  t.eq(#rec, 31)
  t.eq(rec:stop(), rec)
  for k = 1, 30 do
    local f = rec:frame(k + 1)
    t.near(f.time, k * 1e-3, 1e-15)
    t.eq(#f.poses, 2)
    t.allnear(f.poses[box]:translation(), poses[k]:translation(), 1e-15)
    t.allnear(f.poses[box]:rotation(), poses[k]:rotation(), 1e-14)
    t.eq(#f.contacts, #forces[k])
    for i, c in ipairs(f.contacts) do
      t.eq(c.body1, forces[k][i].body1)
      t.eq(c.body2, forces[k][i].body2)
      t.allnear(c.point, forces[k][i].point, 0)
      t.allnear(c.force, forces[k][i].force, 1e-12)
    end
  end
  w:step(5)
  t.eq(#rec, 31, "a stopped recording takes no frames")
  local info = rec:info()
  t.eq(info.frames, 31)
  t.eq(info.objects, 2)
  t.eq(info.recording, false)
  t.eq(info.dropped, 0)
end)

t.case("every = k keeps one step in k and the last step at stop()", function()
  local w, box = scene()
  local rec = w:record{every = 4}
  w:step(10)
  t.eq(#rec, 3, "frames at steps 0, 4, 8")
  rec:stop()
  t.eq(#rec, 4, "stop() keeps step 10")
  t.near(rec:frame(4).time, 10e-3, 1e-15)
  t.allnear(rec:frame(4).poses[box]:translation(), w:pose(box):translation(), 1e-15)
end)

t.case("bodies added while recording appear from the next frame", function()
  local w = scene()
  local rec = w:record()
  w:step()
  local hull = lucid.convex{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
  local id = w:add_body{shape = {{shape = hull}, {shape = hull, pose = at(0, 0, 2)}},
                        pose = at(3, 0, 1)}
  w:step()
  t.eq(#rec:frame(2).poses, 2)
  t.eq(#rec:frame(3).poses, 3)
  local data = json.decode(rec:json())
  t.eq(data.format, "lucid.record/1")
  t.eq(#data.objects, 3)
  t.eq(data.objects[id].name, "body 3")
  t.eq(#data.meshes, 1, "the two parts share one copy of the mesh")
  t.eq(data.objects[id].parts[2].kind, "convex")
  t.eq(data.objects[id].parts[2].pose[3], 2)
  t.eq(#data.meshes[1].vertices, 12)
  t.eq(#data.meshes[1].faces, 4)
  t.eq(data.objects[1].parts[1].kind, "halfspace")
  t.eq(data.objects[1].static, true)
  t.eq(data.frames.count, 3)
  t.eq(table.concat(data.frames.objects, ","), "2,2,3")
  t.eq(#data.frames.poses, 7 * (2 + 2 + 3))
  -- frame 3, object 3: translation then quaternion (w, x, y, z)
  local p = rec:frame(3).poses[id]
  local base = 7 * (2 + 2 + 2)
  t.allnear({data.frames.poses[base + 1], data.frames.poses[base + 2], data.frames.poses[base + 3]},
            p:translation(), 1e-6)
  t.near(data.frames.poses[base + 4], 1, 1e-6)
  local contacts = 0
  for _, n in ipairs(data.frames.contacts) do contacts = contacts + n end
  t.eq(#data.frames.contact_data, 8 * contacts)
end)

t.case("memory limits drop frames at the end and say so", function()
  local w = scene()
  local rec = w:record{max_frames = 5}
  w:step(10)
  t.eq(#rec, 5)
  t.eq(rec:info().dropped, 6)
  t.near(rec:frame(5).time, 4e-3, 1e-15, "the first frames are kept")
end)

t.case("max_bytes bounds the data", function()
  local w = scene()
  local rec = w:record{max_bytes = 4096}
  w:step(200)
  local info = rec:info()
  t.truthy(info.bytes <= 4096, "bytes within max_bytes")
  t.truthy(info.frames > 5 and info.dropped > 0, "frames kept, then dropped")
  t.eq(info.frames + info.dropped, 201)
  -- the frames kept are the first ones, without holes
  for k = 1, info.frames do t.near(rec:frame(k).time, (k - 1) * 1e-3, 1e-15) end
end)

t.case("misuse raises errors naming the function", function()
  local w = scene()
  t.raises("lucid.world:record: unknown option 'evry'", w.record, w, {evry = 2})
  t.raises("lucid.world:record: every", w.record, w, {every = 0})
  t.raises("lucid.world:record: max_bytes", w.record, w, {max_bytes = 100})
  t.raises("lucid.world:record: max_frames", w.record, w, {max_frames = 1.5})
  t.raises("lucid.world:record: expected a table", w.record, w, 3)
  local rec = w:record()
  t.raises("lucid.world:record: the world is already being recorded", w.record, w)
  t.raises("lucid.record:frame: frame", rec.frame, rec, 0)
  t.raises("lucid.record:frame: frame", rec.frame, rec, 2)
  t.raises("lucid.record:frame: frame", rec.frame, rec, "1")
  t.raises("lucid.record:stop: expected a lucid.record", rec.stop, w)
  rec:stop()
  t.raises("lucid.record:stop: the recording has already stopped", rec.stop, rec)
  local again = w:record()
  t.eq(#again, 1, "a new recording after stop()")
  again:stop()
end)

t.case("a finalized world cannot be recorded; its recording survives it", function()
  local w = scene()
  local rec = w:record()
  w:step(3)
  local gc = debug.getmetatable(w).__gc
  gc(w)
  t.raises("lucid.world:record: the world has been finalized", w.record, w)
  t.raises("lucid.world:step: the world has been finalized", w.step, w)
  t.raises("lucid.record:stop: the recording has already stopped (its world was finalized)",
           rec.stop, rec)
  t.eq(#rec, 4)
  local file = tmpfile(".html")
  lucid.viewer.write(file, rec)
  os.remove(file)
  -- a recording collected with its world, and one finalized by hand
  local w2 = scene()
  local r2 = w2:record()
  w2, r2 = nil, nil
  collectgarbage()
  collectgarbage()
  local w3 = scene()
  local r3 = w3:record()
  debug.getmetatable(r3).__gc(r3)
  w3:step(2) -- the world no longer records
  t.raises("lucid.record:info: the recording has been finalized", r3.info, r3)
  t.eq(#w3:record(), 1, "the world can record again")
  t.eq(tostring(r3), "lucid.record (finalized)")
end)

t.case("the recording outlives its world and its shapes", function()
  local rec
  do
    local w = lucid.world{}
    w:add_body{shape = lucid.convex{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
    rec = w:record()
    w:step(2)
  end
  collectgarbage()
  collectgarbage()
  t.eq(#rec, 3)
  local data = json.decode(rec:json())
  t.eq(#data.meshes[1].vertices, 12)
end)

-- The contacts of frame f between body a and body b (either order).
local function touching(f, a, b)
  local n = 0
  for _, c in ipairs(f.contacts) do
    if (c.body1 == a and c.body2 == b) or (c.body1 == b and c.body2 == a) then n = n + 1 end
  end
  return n
end

t.case("height fields are recorded once: their grid, heights, size and pose", function()
  local rows, cols, size = 4, 6, {0.8, 0.5, 0.2, 0.1}
  local e, lo, hi = {}, math.huge, -math.huge
  for r = 1, rows do
    e[r] = {}
    for c = 1, cols do
      e[r][c] = math.sin(c) + 0.3 * r
      lo, hi = math.min(lo, e[r][c]), math.max(hi, e[r][c])
    end
  end
  local field = lucid.heightfield{elevation = e, size = size}
  local w = lucid.world{dt = 1e-3}
  local place = lucid.se3.new({math.cos(0.2), 0, 0, math.sin(0.2)}, {0.1, -0.2, 0.05})
  local terrain = w:add_static{shape = field, pose = place, friction = 0.8}
  -- the same field again, as a posed part: its grid is not stored twice
  local twin = w:add_static{shape = {{shape = field, pose = at(3, 0, 0)}}}
  local ball = w:add_body{shape = lucid.sphere(0.05), pose = at(0.1, -0.2, 0.4), friction = 0.8}
  local box = w:add_body{shape = lucid.box(0.04, 0.04, 0.04), pose = at(-0.3, 0.1, 0.4),
                         friction = 0.8}
  local rec = w:record{every = 10}
  w:step(500)
  rec:stop()
  field = nil -- luacheck: ignore (the recording holds a copy)
  collectgarbage()
  t.eq(rec:info().heightfields, 1)
  local data = json.decode(rec:json())
  t.eq(#data.heightfields, 1)
  local h = data.heightfields[1]
  t.eq(h.rows, rows)
  t.eq(h.columns, cols)
  t.allnear(h.size, size, 0)
  t.eq(#h.heights, rows * cols)
  -- MuJoCo's normalisation, row-major with rows along y; 7 significant digits in the JSON
  for r = 1, rows do
    for c = 1, cols do
      t.near(h.heights[(r - 1) * cols + c], size[3] * (e[r][c] - lo) / (hi - lo), 1e-7,
             "height (" .. r .. ", " .. c .. ")")
    end
  end
  local part = data.objects[terrain].parts[1]
  t.eq(part.kind, "heightfield")
  t.eq(part.heightfield, 0)
  t.allnear(part.pose, {0, 0, 0, 1, 0, 0, 0}, 0)
  t.eq(data.objects[terrain].static, true)
  t.eq(data.objects[twin].parts[1].heightfield, 0)
  t.allnear(data.objects[twin].parts[1].pose, {3, 0, 0, 1, 0, 0, 0}, 0)
  -- the field's pose in every frame; both bodies came to rest on it, touching it
  for k = 1, #rec do
    local f = rec:frame(k)
    t.allnear(f.poses[terrain]:translation(), place:translation(), 0)
    t.allnear(f.poses[terrain]:rotation(), place:rotation(), 1e-15)
  end
  local last = rec:frame(#rec)
  t.truthy(touching(last, terrain, ball) > 0 and touching(last, terrain, box) > 0,
           "the ball and the box touch the field")
  t.allnear(last.poses[ball]:translation(), w:pose(ball):translation(), 0)
  local file = tmpfile(".html")
  lucid.viewer.write(file, rec)
  local html = assert(io.open(file)):read("a")
  os.remove(file)
  local page = json.decode(html:match('id="lucid%-data">(.-)</script>'))
  t.eq(#page.heightfields[1].heights, rows * cols, "the page holds the grid")
end)

t.case("an MJCF model's hfield is recorded: MuJoCo's grid under the rolling ball", function()
  local w = lucid.world{dt = 2e-3}
  local id = w:add_model(lucid.model.load("tests/data/model/hfield_slope.xml"))
  local rec = w:record{every = 10}
  w:step(200)
  rec:stop()
  local data = json.decode(rec:json())
  t.eq(#data.heightfields, 1)
  local h = data.heightfields[1]
  t.eq(h.rows, 11)
  t.eq(h.columns, 21)
  t.allnear(h.size, {2, 1, 0.3, 0.1}, 0)
  -- hfield_slope.bin holds elevation c + 0.5 r (0-based), 0 to 25: heights 0.3 (c + 0.5 r) / 25
  for r = 0, 10 do
    for c = 0, 20 do t.near(h.heights[r * 21 + c + 1], 0.3 * (c + 0.5 * r) / 25, 1e-7) end
  end
  local terrain
  for i, o in ipairs(data.objects) do
    if o.parts[1] and o.parts[1].kind == "heightfield" then terrain = i end
  end
  t.truthy(terrain and data.objects[terrain].static, "the terrain geom is a static object")
  t.allnear(data.objects[terrain].parts[1].pose, {0, 0, 0, 1, 0, 0, 0}, 0)
  for k = 2, #rec do
    t.truthy(touching(rec:frame(k), terrain, id) > 0, "the ball touches the field at frame " .. k)
  end
end)

t.case("the page is one self-contained file with the recording and three.js", function()
  local w, box = scene()
  w:add_body{shape = lucid.capsule(0.05, 0.1), pose = at(1, 0, 0.5)}
  w:add_body{shape = lucid.cone(0.05, 0.1), pose = at(-1, 0, 0.5)}
  local rec = w:record()
  w:step(20)
  local file = tmpfile("_dir/sub/replay.html")
  t.eq(lucid.viewer.write(file, rec, {title = "a <b> & c", frame = 3, speed = 0.5,
                                       forces = false, force_scale = 0.01, playing = false,
                                       camera = {eye = lucid.vec{1, 2, 3}, target = {0, 0, 0}},
                                       colors = {[box] = "#ff0000"}}), file)
  local f = assert(io.open(file, "rb"))
  local html = f:read("a")
  f:close()
  os.remove(file)
  t.truthy(html:find("<title>a &lt;b&gt; &amp; c</title>", 1, true), "title escaped")
  t.truthy(html:find('REVISION="111"', 1, true), "three.js r111 embedded")
  t.truthy(not html:find("<script[^>]*src=") and not html:find("<link[^>]*href="),
           "no external resource")
  local data = html:match('<script type="application/json" id="lucid%-data">(.-)</script>')
  t.eq(json.decode(data).frames.count, 21)
  local page = json.decode(html:match('id="lucid%-options">(.-)</script>'))
  t.eq(page.frame, 3)
  t.eq(page.speed, 0.5)
  t.eq(page.forces, false)
  t.eq(page.camera.eye[3], 3)
  t.eq(page.colors[box], "#ff0000")
  t.eq(page.colors[1], false)
end)

t.case("viewer.write checks its arguments and options", function()
  local w = scene()
  local rec = w:record()
  w:step(2)
  local file = tmpfile(".html")
  local write = lucid.viewer.write
  t.raises("lucid.viewer.write: path", write, nil, rec)
  t.raises("lucid.viewer.write: rec must be a lucid.record", write, file, w)
  t.raises("lucid.viewer.write: rec must be a lucid.record", write, file, {})
  t.raises("lucid.viewer.write: unknown option 'fram'", write, file, rec, {fram = 1})
  t.raises("lucid.viewer.write: opts.frame must be an integer", write, file, rec, {frame = 1.5})
  t.raises("lucid.viewer.write: opts.frame = 4 is outside 1..3", write, file, rec, {frame = 4})
  t.raises("lucid.viewer.write: opts.speed must be positive", write, file, rec, {speed = 0})
  t.raises("lucid.viewer.write: opts.speed must be finite", write, file, rec, {speed = math.huge})
  t.raises("lucid.viewer.write: opts.force_scale must be positive", write, file, rec,
           {force_scale = -1})
  t.raises("lucid.viewer.write: opts.title must be a string", write, file, rec, {title = 3})
  t.raises("lucid.viewer.write: opts.forces must be a boolean", write, file, rec, {forces = 1})
  t.raises("lucid.viewer.write: opts.camera.eye must be 3 numbers", write, file, rec,
           {camera = {eye = {1, 2}}})
  t.raises("lucid.viewer.write: unknown option 'up'", write, file, rec, {camera = {up = {0, 0, 1}}})
  t.raises("lucid.viewer.write: opts.colors keys must be body ids 1..2", write, file, rec,
           {colors = {[3] = "#000000"}})
  t.raises("lucid.viewer.write: opts.colors[2] must be a colour", write, file, rec,
           {colors = {[2] = "red"}})
  t.raises("lucid.viewer.write: cannot read three.js at /nonexistent/three.min.js", write, file,
           rec, {three = "/nonexistent/three.min.js"})
  t.raises("lucid.viewer.write: cannot write", write, "/proc/nonexistent/x.html", rec)
  local gc = debug.getmetatable(rec).__gc
  gc(rec)
  t.raises("lucid.viewer.write: rec: lucid.record:info: the recording has been finalized", write,
           file, rec)
end)

t.case("task replay helpers: --replay records a run and refuses misuse", function()
  local task = require "lucid.task"
  local tk = task.new{name = "replay_test", options = {task.replay_option("a run")}}
  local opts = tk:parse{"--replay", tmpfile(".html")}
  local w = scene()
  t.eq(tk:record(w, nil, 1e-3), nil, "no file: no recording")
  local rec = tk:record(w, opts.replay, 1e-3)
  t.eq(rec:info().every, 5, "about 200 frames a simulated second")
  w:step(12)
  t.eq(tk:write_replay(rec, opts.replay, "t"), opts.replay)
  t.eq(#rec, 4, "frames at steps 0, 5, 10 and the last, 12")
  os.remove(opts.replay)
  t.raises("lucid.task:write_replay: rec must be a lucid.record (got lucid.world)",
           tk.write_replay, tk, w, "x.html")
  t.raises("lucid.task:record: w must be a lucid.world (got table)", tk.record, tk, {}, "x", 1e-3)
  t.raises("lucid.task:record: dt must be positive", tk.record, tk, w, "x", 0)
end)

t.case("a task's --replay says where the page went: stdout, or stderr under --json", function()
  local script, page = tmpfile(".lua"), tmpfile(".html")
  local f = assert(io.open(script, "w"))
  f:write([[
local lucid = require "lucid"
local task = require "lucid.task"
local t = task.new{name = "replay_demo", options = {task.replay_option("a drop")}}
local opts = t:parse(arg)
local w = lucid.world{dt = 1e-3}
w:add_body{shape = lucid.sphere(0.1)}
local rec = t:record(w, opts.replay, 1e-3)
w:step(10)
t:write_replay(rec, opts.replay, "drop")
t:report({steps = 10}, function() print("done") end)
]])
  f:close()
  local function run(args, streams)
    local pipe = assert(io.popen(string.format("'%s' %s %s %s", arg[-1], script, args, streams)))
    local out = pipe:read("a")
    pipe:close()
    return out
  end
  t.eq(run("--replay " .. page, "2>/dev/null"), "replay: " .. page .. " (3 frames)\ndone\n")
  t.eq(run("--replay " .. page .. " --json", "2>/dev/null"), '{"steps":10}\n', "stdout: the figures alone")
  t.eq(run("--replay " .. page .. " --json", "2>&1 >/dev/null"), "replay: " .. page .. " (3 frames)\n")
  t.eq(run("", "2>&1"), "done\n", "no --replay: no page, nothing said")
  os.remove(script)
  os.remove(page)
end)

t.case("every task that takes --replay writes it through t:write_replay", function()
  local pipe = assert(io.popen("ls tasks/*.lua"))
  local count = 0
  for file in pipe:lines() do
    local src = assert(io.open(file)):read("a")
    if src:find("task.replay_option(", 1, true) then
      count = count + 1
      t.truthy(src:find("t:write_replay(", 1, true), file .. " prints where its replay went")
    end
  end
  pipe:close()
  t.truthy(count >= 8, "the tasks with --replay are found (" .. count .. ")")
end)
