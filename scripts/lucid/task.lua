-- Conventions shared by every runnable task in tasks/: `--help`, `--seed N`, `--json`,
-- task-specific options, a progress bar that draws only on a terminal (never with --json),
-- readable tables and JSON output.
--
--   local task = require "lucid.task"
--   local t = task.new{name = "demo", summary = "One line.", options = {
--     {name = "problems", kind = "integer", default = 10, help = "number of problems"},
--     {name = "meshes", kind = "flag", help = "use the mesh data set"}}}
--   local opts = t:parse(arg)            -- exits 0 after --help, 2 on a bad option
--
-- An option may bound its value: min / max (inclusive), positive = true (> 0), or
-- check = function(value) return nil or "why it is wrong" end (task.check_pairs checks a
-- comma-separated list of contact model:solver pairs); a value out of bounds is a bad
-- option: a message and exit code 2, never a stack trace. `--check` validates the options
-- and exits 0 without running the task.
--   local bar = t:progress(opts.problems, "solving")
--   for i = 1, opts.problems do ...; bar:step() end
--   bar:done()
--   t:report(figures, function() print(...) end)  -- JSON with --json, else the summary
local lucid = require "lucid"
local json = require "lucid.json"
local check = require "lucid.check"

local task = {}
local Task = {}
Task.__index = Task

local builtin_options = {
  {name = "seed", kind = "integer", default = 0, help = "seed of the random generator"},
  {name = "json", kind = "flag", help = "print one JSON object with the task's figures"},
  {name = "check", kind = "flag", help = "check the options and exit (0 when they are valid)"},
  {name = "help", kind = "flag", help = "show this help and exit"},
}

-- Creates a task description. spec.name, spec.summary and spec.options (see above).
-- Option kinds: "integer", "number", "string", "flag".
local NEW = "lucid.task.new"
local spec_kinds = {name = "string", summary = "string", options = "table"}
local option_kinds = {name = "string", kind = "string", default = "any", help = "string",
                      min = "number", max = "number", positive = "boolean", check = "function"}

local function check_self(self, class, fname)
  if getmetatable(self) ~= class then
    check.fail(fname, "self must be a %s (got %s; use obj:method())",
      class == Task and "task" or "progress bar", check.typename(self))
  end
end

-- Validates one entry of spec.options.
local function check_option(o, i)
  local what = string.format("spec.options[%d]", i)
  if type(o) ~= "table" then check.fail(NEW, "%s must be a table (got %s)", what, check.typename(o)) end
  check.options(NEW, o, option_kinds, what)
  if type(o.name) ~= "string" or not o.name:match("^[%w_%-]+$") then
    check.fail(NEW, "%s.name must be a word of letters, digits, '_' or '-' (got %s)", what,
      tostring(o.name))
  end
  if not ({integer = 1, number = 1, string = 1, flag = 1})[o.kind] then
    check.fail(NEW, "option '%s' has an unknown kind %s (expected integer, number, string or flag)",
      o.name, tostring(o.kind))
  end
  if o.default ~= nil and o.kind ~= "flag" then
    local want = o.kind == "integer" and "integer" or o.kind
    check.value(NEW, o.default, want, "the default of option '" .. o.name .. "'")
  end
end

-- Creates a task description. spec.name, spec.summary and spec.options (see above).
-- Option kinds: "integer", "number", "string", "flag".
function task.new(spec)
  if type(spec) ~= "table" then check.fail(NEW, "spec must be a table (got %s)", check.typename(spec)) end
  check.options(NEW, spec, spec_kinds, "spec")
  if type(spec.name) ~= "string" then check.fail(NEW, "spec.name must be a string") end
  local t = setmetatable({name = spec.name, summary = spec.summary or "", options = {}}, Task)
  local seen = {}
  for _, list in ipairs({spec.options or {}, builtin_options}) do
    for i, o in ipairs(list) do
      check_option(o, i)
      if seen[o.name] then check.fail(NEW, "option '%s' is declared twice", o.name) end
      seen[o.name] = true
      t.options[#t.options + 1] = o
    end
  end
  return t
end

function Task:usage()
  check_self(self, Task, "lucid.task:usage")
  local lines = {string.format("usage: lucid tasks/%s.lua [options]", self.name), "",
                 self.summary, "", "options:"}
  for _, o in ipairs(self.options) do
    local flag = "--" .. o.name .. (o.kind == "flag" and "" or " " .. o.kind:upper())
    -- an empty default means "not given": the help says what happens then
    local default = (o.kind ~= "flag" and o.default ~= nil and o.default ~= "")
        and string.format(" (default %s)", tostring(o.default)) or ""
    lines[#lines + 1] = string.format("  %-22s %s%s", flag, o.help or "", default)
  end
  return table.concat(lines, "\n")
end

local function fail_usage(t, message)
  io.stderr:write(string.format("%s: %s\n\n%s\n", t.name, message, t:usage()))
  os.exit(2)
end

local function check_value(t, o, value, text)
  if o.check then
    local why = o.check(value)
    if why then fail_usage(t, string.format("--%s: %s (got '%s')", o.name, tostring(why), text)) end
  end
  return value
end

local function convert(t, o, text)
  if o.kind == "string" then return check_value(t, o, text, text) end
  local value = tonumber(text)
  if o.kind == "integer" then value = value and math.tointeger(value) end
  if value == nil or value ~= value or value == math.huge or value == -math.huge then
    fail_usage(t, string.format("--%s expects %s %s (got '%s')", o.name,
      o.kind == "integer" and "an" or "a", o.kind, text))
  end
  if o.min and value < o.min then
    fail_usage(t, string.format("--%s must be at least %s (got %s)", o.name, o.min, text))
  end
  if o.max and value > o.max then
    fail_usage(t, string.format("--%s must be at most %s (got %s)", o.name, o.max, text))
  end
  if o.positive and not (value > 0) then
    fail_usage(t, string.format("--%s must be positive (got %s)", o.name, text))
  end
  return check_value(t, o, value, text)
end

-- Parses the script's `arg` table. Accepts "--name value" and "--name=value".
-- Returns a table of option values; sets self.json, self.seed and self.rng.
function Task:parse(args)
  check_self(self, Task, "lucid.task:parse")
  if type(args) ~= "table" then
    check.fail("lucid.task:parse", "args must be a table (got %s)", check.typename(args))
  end
  local values, by_name = {}, {}
  for _, o in ipairs(self.options) do
    by_name[o.name] = o
    if o.kind == "flag" then values[o.name] = false else values[o.name] = o.default end
  end
  local i = 1
  while args and args[i] do
    local word = args[i]
    if type(word) ~= "string" then fail_usage(self, "argument " .. i .. " is not a string") end
    local name, inline = word:match("^%-%-([%w_%-]+)=(.*)$")
    name = name or word:match("^%-%-([%w_%-]+)$")
    local o = name and by_name[name]
    if not o then fail_usage(self, "unknown argument '" .. word .. "'") end
    if o.kind == "flag" then
      if inline then fail_usage(self, "--" .. name .. " takes no value") end
      values[name] = true
    else
      local text = inline
      if not text then
        i = i + 1
        text = args[i]
        if text == nil then fail_usage(self, "--" .. name .. " expects a value") end
      end
      values[name] = convert(self, o, text)
    end
    i = i + 1
  end
  if values.help then
    print(self:usage())
    os.exit(0)
  end
  if values.seed < 0 then fail_usage(self, "--seed must be non-negative") end
  if values.check then os.exit(0) end
  self.json, self.seed = values.json, values.seed
  if lucid.rng then self.rng = lucid.rng(values.seed) end
  return values
end

-- Replays of simulation tasks (lucid.viewer): task.replay_option(what) declares
-- `--replay FILE` ("write an HTML replay of WHAT to FILE"); rec = t:record(w, file, dt) starts
-- recording world w (time step dt) when file is given (nil otherwise), keeping about 200 frames
-- a simulated second; t:write_replay(rec, file, title) stops it, writes the page and prints
-- "replay: FILE (N frames)" (nothing when rec is nil). Returns the file name.
function task.replay_option(what)
  check.value("lucid.task.replay_option", what, "string", "what")
  return {name = "replay", kind = "string",
          help = "write an HTML replay (lucid.viewer) of " .. what .. " to FILE"}
end

function Task:record(w, file, dt)
  check_self(self, Task, "lucid.task:record")
  if file == nil then return nil end
  check.value("lucid.task:record", file, "string", "file")
  check.value("lucid.task:record", dt, "number", "dt")
  if check.typename(w) ~= "lucid.world" then
    check.fail("lucid.task:record", "w must be a lucid.world (got %s)", check.typename(w))
  end
  if not (dt > 0) then check.fail("lucid.task:record", "dt must be positive (got %s)", dt) end
  return w:record{every = math.max(1, math.min(1000000000, math.floor(0.005 / dt + 0.5)))}
end

function Task:write_replay(rec, file, title)
  check_self(self, Task, "lucid.task:write_replay")
  if rec == nil then return nil end
  if check.typename(rec) ~= "lucid.record" then
    check.fail("lucid.task:write_replay", "rec must be a lucid.record (got %s)", check.typename(rec))
  end
  check.value("lucid.task:write_replay", file, "string", "file")
  if title ~= nil then check.value("lucid.task:write_replay", title, "string", "title") end
  if check.typename(rec) ~= "lucid.record" then
    check.fail("lucid.task:write_replay", "rec must be a lucid.record (got %s)", check.typename(rec))
  end
  local ok, info = pcall(rec.info, rec)
  if not ok then check.fail("lucid.task:write_replay", "rec: %s", tostring(info)) end
  if info.recording then rec:stop() end
  lucid.viewer.write(file, rec, {title = title})
  -- say where the page went (on stderr under --json, whose stdout is the figures alone)
  local out = self.json and io.stderr or io.stdout
  out:write(string.format("replay: %s (%d frames)\n", file, #rec))
  return file
end

-- A check function for options listing contact model:solver pairs ("ncp:admm,lcp:pgs"):
-- nil when every pair is one lucid.world accepts, else why not.
function task.check_pairs(text)
  if type(text) ~= "string" then return "expected a string" end
  local count = 0
  for pair in text:gmatch("[^,]+") do
    local model, solver = pair:match("^(%w+):(%w+)$")
    if not model then return string.format("'%s' is not a model:solver pair", pair) end
    local ok, err = pcall(lucid.world, {contact = {model = model, solver = solver}})
    if not ok then return (tostring(err):gsub("^lucid%.world: ", "")) end
    count = count + 1
  end
  if count == 0 then return "no model:solver pair given" end
  return nil
end

-- Progress -----------------------------------------------------------------------------

local Progress = {}
Progress.__index = Progress

local function format_seconds(s)
  if s >= 3600 then return string.format("%dh%02dm", s // 3600, (s % 3600) // 60) end
  if s >= 60 then return string.format("%dm%02ds", s // 60, math.floor(s % 60)) end
  return string.format("%.1fs", s)
end

-- A progress bar on stderr for `total` steps. It draws only when stderr is a terminal and
-- the task is not in --json mode, and at most ten times a second.
function Task:progress(total, label)
  check_self(self, Task, "lucid.task:progress")
  if math.type(total) ~= "integer" or total < 0 then
    check.fail("lucid.task:progress", "total must be a non-negative integer (got %s)", tostring(total))
  end
  if label ~= nil then check.value("lucid.task:progress", label, "string", "label") end
  local visible = not self.json and lucid.isatty(2)
  return setmetatable({total = math.max(total, 1), label = label or self.name, count = 0,
                       start = lucid.clock(), last_draw = -math.huge, visible = visible},
                      Progress)
end

function Progress:draw()
  check_self(self, Progress, "lucid.task.progress:draw")
  local elapsed = lucid.clock() - self.start
  local fraction = math.min(self.count / self.total, 1)
  local width = 30
  local filled = math.floor(fraction * width + 0.5)
  local eta = fraction > 0 and elapsed * (1 - fraction) / fraction or 0
  io.stderr:write(string.format("\r%s [%s%s] %d/%d %s, ETA %s\027[K", self.label,
    string.rep("#", filled), string.rep(".", width - filled), self.count, self.total,
    format_seconds(elapsed), format_seconds(eta)))
  io.stderr:flush()
  self.last_draw = lucid.clock()
end

-- Advances by n steps (default 1).
function Progress:step(n)
  check_self(self, Progress, "lucid.task.progress:step")
  if n ~= nil and math.type(n) ~= "integer" then
    check.fail("lucid.task.progress:step", "n must be an integer (got %s)", check.typename(n))
  end
  self.count = self.count + (n or 1)
  if self.visible and lucid.clock() - self.last_draw >= 0.1 then self:draw() end
end

-- Draws the final state and ends the line.
function Progress:done()
  check_self(self, Progress, "lucid.task.progress:done")
  if not self.visible then return end
  self:draw()
  io.stderr:write("\n")
end

-- Output -------------------------------------------------------------------------------

-- With --json, prints `figures` as one JSON object on stdout; otherwise calls summary().
function Task:report(figures, summary)
  check_self(self, Task, "lucid.task:report")
  if summary ~= nil and type(summary) ~= "function" then
    check.fail("lucid.task:report", "summary must be a function (got %s)", check.typename(summary))
  end
  if self.json then
    io.stdout:write(json.encode(figures), "\n")
  elseif summary then
    summary()
  end
end

-- Formats rows (lists of cells) under headers as an aligned text table. Numbers are
-- printed with `number_format` (default "%.3g").
function task.format_table(headers, rows, number_format)
  local fname = "lucid.task.format_table"
  check.value(fname, headers, "table", "headers")
  check.value(fname, rows, "table", "rows")
  if number_format ~= nil then
    check.value(fname, number_format, "string", "number_format")
    if not pcall(string.format, number_format, 1.5) then
      check.fail(fname, "number_format '%s' is not a format for one number", number_format)
    end
  end
  for r = 1, #rows do
    if type(rows[r]) ~= "table" then
      check.fail(fname, "rows[%d] must be a table (got %s)", r, check.typename(rows[r]))
    end
  end
  local cells, widths = {}, {}
  local function text(v)
    if type(v) == "number" and math.type(v) ~= "integer" then
      return string.format(number_format or "%.3g", v)
    end
    return tostring(v)
  end
  for r, row in ipairs({headers, table.unpack(rows)}) do
    cells[r] = {}
    for c = 1, #headers do
      cells[r][c] = text(row[c] == nil and "" or row[c])
      widths[c] = math.max(widths[c] or 0, utf8.len(cells[r][c]) or #cells[r][c])
    end
  end
  local lines = {}
  for r, row in ipairs(cells) do
    local padded = {}
    for c, cell in ipairs(row) do
      local pad = string.rep(" ", widths[c] - (utf8.len(cell) or #cell))
      padded[c] = c == 1 and cell .. pad or pad .. cell
    end
    lines[#lines + 1] = table.concat(padded, "  ")
    if r == 1 then
      local rule = {}
      for c = 1, #widths do rule[c] = string.rep("-", widths[c]) end
      lines[#lines + 1] = table.concat(rule, "  ")
    end
  end
  return table.concat(lines, "\n")
end

return task
