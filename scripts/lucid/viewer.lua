-- Replays of recorded simulations as one self-contained HTML file (docs/viewer.md).
--
--   local rec = w:record()          -- frames of every following w:step
--   for i = 1, 1000 do w:step() end
--   rec:stop()
--   lucid.viewer.write("out/replay.html", rec, {title = "falling boxes"})
--
-- The page embeds the three.js of Debian's libjs-three (read at run time from
-- /usr/share/javascript/three/three.min.js, or opts.three) and the recording; it needs no
-- network and no server. Options (all optional; unknown keys and wrong types are errors):
--   title        string   the page title (default "lucid replay")
--   frame        integer  the frame shown first, 1..#rec (the page then starts paused)
--   playing      boolean  start playing (default: true unless frame is given)
--   speed        number   playback speed, > 0 (default 1: real time)
--   forces       boolean  show contact force arrows (default true)
--   force_scale  number   arrow length per newton (m/N, > 0; default: the 95th percentile
--                         of the forces is drawn 0.35 scene radii long)
--   camera       table    {eye = {x, y, z}, target = {x, y, z}} (default: the whole scene)
--   colors       table    {[id] = "#rrggbb"}: colours of bodies by id (default: a palette,
--                         grey for static bodies)
--   three        string   path of three.min.js (a non-module build of three.js r111)
local check = require "lucid.check"

local viewer = {}
local WRITE = "lucid.viewer.write"
viewer.THREE_PATH = "/usr/share/javascript/three/three.min.js"

local option_kinds = {title = "string", frame = "integer", playing = "boolean", speed = "number",
                      forces = "boolean", force_scale = "number", camera = "table",
                      colors = "table", three = "string"}

local function escape_html(s)
  return (s:gsub("[&<>\"]", {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;"}))
end

-- A point given as a table or lucid.vec of 3 finite numbers, as a plain list.
local function point(v, what)
  local ok, x, y, z = pcall(function() return v[1], v[2], v[3] end)
  if not ok or type(x) ~= "number" or type(y) ~= "number" or type(z) ~= "number" then
    check.fail(WRITE, "%s must be 3 numbers {x, y, z} (got %s)", what, check.typename(v))
  end
  for _, c in ipairs{x, y, z} do
    if c ~= c or c == math.huge or c == -math.huge then
      check.fail(WRITE, "%s must be finite", what)
    end
  end
  return {x, y, z}
end

-- The page options as JSON (numbers and strings only: the values were checked).
local function options_json(o)
  local json = require "lucid.json"
  return (json.encode(o):gsub("[<>&]", function(c) return string.format("\\u%04x", c:byte()) end))
end

local function read_three(path)
  local f, err = io.open(path, "rb")
  if not f then
    check.fail(WRITE, "cannot read three.js at %s (%s); install Debian's libjs-three "
      .. "(apt-get install libjs-three) or pass opts.three", path, tostring(err))
  end
  local text = f:read("a")
  f:close()
  if not text or not text:find("REVISION", 1, true) then
    check.fail(WRITE, "%s is not a build of three.js (no REVISION)", path)
  end
  if text:lower():find("</script", 1, true) then
    check.fail(WRITE, "%s contains '</script' and cannot be embedded", path)
  end
  return text
end

-- Writes the replay page of recording rec to path; returns path.
function viewer.write(path, rec, opts)
  if type(path) ~= "string" or path == "" or path:find("\0", 1, true) then
    check.fail(WRITE, "path must be a non-empty file name (got %s)", check.typename(path))
  end
  if check.typename(rec) ~= "lucid.record" then
    check.fail(WRITE, "rec must be a lucid.record from w:record() (got %s)", check.typename(rec))
  end
  local ok, info = pcall(rec.info, rec)
  if not ok then check.fail(WRITE, "rec: %s", tostring(info)) end
  local frames = info.frames
  opts = check.options(WRITE, opts, option_kinds, "opts")
  local page = {}
  if opts.title then page.title = opts.title end
  if opts.frame ~= nil then
    if opts.frame < 1 or opts.frame > frames then
      check.fail(WRITE, "opts.frame = %d is outside 1..%d (the recording's frames)", opts.frame, frames)
    end
    page.frame = opts.frame
  end
  if opts.playing ~= nil then page.playing = opts.playing end
  for _, key in ipairs{"speed", "force_scale"} do
    if opts[key] ~= nil then
      if not (opts[key] > 0) then check.fail(WRITE, "opts.%s must be positive (got %s)", key, opts[key]) end
      page[key] = opts[key]
    end
  end
  if opts.forces ~= nil then page.forces = opts.forces end
  if opts.camera then
    check.options(WRITE, opts.camera, {eye = "any", target = "any"}, "opts.camera")
    page.camera = {}
    if opts.camera.eye ~= nil then page.camera.eye = point(opts.camera.eye, "opts.camera.eye") end
    if opts.camera.target ~= nil then
      page.camera.target = point(opts.camera.target, "opts.camera.target")
    end
  end
  if opts.colors then
    local objects = info.objects
    page.colors = {}
    for id, c in pairs(opts.colors) do
      if math.type(id) ~= "integer" or id < 1 or id > objects then
        check.fail(WRITE, "opts.colors keys must be body ids 1..%d (got %s)", objects, tostring(id))
      end
      if type(c) ~= "string" or not c:match("^#%x%x%x%x%x%x$") then
        check.fail(WRITE, "opts.colors[%d] must be a colour \"#rrggbb\" (got %s)", id, tostring(c))
      end
      page.colors[id] = c
    end
    -- the page indexes objects from 0: a dense list of colours (false: the default)
    local list = {}
    for i = 1, objects do list[i] = page.colors[i] or false end
    page.colors = list
  end
  local three = read_three(opts.three or viewer.THREE_PATH)
  local title = escape_html(opts.title or "lucid replay")
  local parts = {
    ["@TITLE@"] = title, ["@THREE@"] = three, ["@DATA@"] = rec:json(),
    ["@OPTIONS@"] = next(page) and options_json(page) or "{}",
  }
  local template = require "lucid.viewer_page"
  local html = template:gsub("@[A-Z]+@", function(key) return parts[key] end)
  local dir = path:match("^(.*)/[^/]*$")
  if dir and dir ~= "" then os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "' 2>/dev/null") end
  local f, err = io.open(path, "wb")
  if not f then check.fail(WRITE, "cannot write %s: %s", path, tostring(err)) end
  local ok, werr = f:write(html)
  f:close()
  if not ok then check.fail(WRITE, "cannot write %s: %s", path, tostring(werr)) end
  return path
end

return viewer
